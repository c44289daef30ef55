# Sourced by the bench scripts (`source "$(dirname "$0")/prologue.sh"`): strict mode, the
# repository root as the working directory, a release build of pbf (`$pbf`), a scratch folder
# removed on exit (`$work`), and the CSV to write (`$csv`: CSV_OUT, or out/<script>.csv) with its
# folder made.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[1]}")/.."
cargo build --release --quiet
pbf="${CARGO_TARGET_DIR:-target}/release/pbf"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
csv=${CSV_OUT:-out/$(basename "${BASH_SOURCE[1]}" .sh).csv}
mkdir -p "$(dirname "$csv")"
