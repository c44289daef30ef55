#!/usr/bin/env bash
# How much of the small dam break's lost energy is numerical: configs/dam_break_small.toml's
# E(1 s)/E(0) as the particle radius and the time step shrink, and at the config's radius with
# the two per-step regularizers (the artificial pressure `pbf.scorr_k`, XSPH `pbf.xsph`) on and
# off. With PEER=1 the same radii and steps for SPlisHSPlasH's PBF too, through
# tests/crosscheck_splishsplash.sh (needs the peer installed, see there), with its bottom layer's
# ride above r taken out as a second figure (the ride is potential energy ours does not have).
# Writes the rows to CSV_OUT (default out/energy_convergence.csv) and, with CHART_OUT, a chart.
# RADII and DTS pick the grid (defaults "0.025 0.016667 0.0125" and "0.004 0.002"). About 1
# minute on 2 cores; with PEER=1 about 10. Not part of CI; docs/results.md, stop 49.
source "$(dirname "$0")/prologue.sh"
radii=${RADII:-"0.025 0.016667 0.0125"}
dts=${DTS:-"0.004 0.002"}

ratio() { # energy.csv -> E(last row) / E(first row)
  awk -F, 'NR == 2 { e0 = $5 } END { printf "%.4f", $5 / e0 }' "$1"
}
ours() { # tag, then options
  local tag=$1
  shift
  "$pbf" run configs/dam_break_small.toml --until 1.0 -o "$work/$tag" --quiet --threads 1 \
    --set output.format=\"none\" "$@" >/dev/null || return
  ratio "$work/$tag/energy.csv"
}

row() { # radius, dt, variant name, then options: one CSV row (fails if the run does)
  local e
  e=$(ours "${3}_r${1}_dt${2}" --set "particles.radius=$1" --set "time.dt=$2" "${@:4}")
  echo "pbf,$1,$2,$3,$e" >>"$csv"
}
finish() { # wait for the background rows, failing if one did
  local pid
  for pid in $(jobs -p); do wait "$pid"; done
}

echo "code,radius_m,dt_s,variant,E1_over_E0" >"$csv"
# The resolution grid, defaults (two runs at a time).
for r in $radii; do
  for dt in $dts; do
    row "$r" "$dt" defaults &
  done
  finish
done
# The config's radius: the time step against the regularizers.
variants=("defaults:" "scorr_k_0:--set pbf.scorr_k=0" "xsph_0:--set pbf.xsph=0"
  "both_0:--set pbf.scorr_k=0 --set pbf.xsph=0")
for dt in 0.004 0.002 0.001; do
  for v in "${variants[@]}"; do
    name=${v%%:*}
    [[ $name == defaults && " $dts " == *" $dt "* && " $radii " == *" 0.025 "* ]] && continue
    # shellcheck disable=SC2086 # the variant's options are a list
    row 0.025 "$dt" "$name" ${v#*:} &
  done
  finish
done
if [[ ${PEER:-0} == 1 ]]; then
  for r in $radii; do
    for dt in $dts; do
      RADIUS=$r DT=$dt CSV_OUT="$work/peer.csv" bash tests/crosscheck_splishsplash.sh >/dev/null
      python3 - "$work/peer.csv" "$r" "$dt" >>"$csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
r, dt = sys.argv[2], sys.argv[3]
first, last = rows[0], next(x for x in rows if abs(float(x["time_s"]) - 1.0) < 1e-6)
e = float(last["peer_mechanical_J_kg"]) / float(first["peer_mechanical_J_kg"])
# Its bottom layer rides floor_r radii up where ours rides at r: the excess, as energy per kg.
ride = (float(last["peer_floor_r"]) - 1.0) * float(r) * 9.81 / float(first["peer_mechanical_J_kg"])
print(f"splishsplash,{r},{dt},defaults,{e:.4f}")
print(f"splishsplash,{r},{dt},ride_taken_out,{e - ride:.4f}")
EOF
    done
  done
fi
cat "$csv"

if [[ -n "${CHART_OUT:-}" ]]; then
  python3 - "$csv" "$CHART_OUT" <<'EOF'
import csv, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
rows = list(csv.DictReader(open(sys.argv[1])))
fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
styles = {"4": "o-", "2": "s--", "1": "^:"}
for (code, variant, label, color) in [("pbf", "defaults", "pbf", "C0"),
                                       ("splishsplash", "defaults", "SPlisHSPlasH", "C3"),
                                       ("splishsplash", "ride_taken_out", "SPlisHSPlasH, ride taken out", "C1")]:
    for dt in sorted({x["dt_s"] for x in rows}, reverse=True):
        pts = sorted((1.0 / (2 * float(x["radius_m"])), float(x["E1_over_E0"])) for x in rows
                     if x["code"] == code and x["variant"] == variant and x["dt_s"] == dt)
        if len(pts) < 2:
            continue
        ms = f"{1000 * float(dt):g}"
        ax.plot(*zip(*pts), styles.get(ms, "x-"), color=color, label=f"{label}, dt {ms} ms")
ax.axhline(0.72, color="grey", ls="--", lw=1, label="issue 19's 0.72")
ax.set_xlabel("particles per metre (1 / 2r); the config: 20")
ax.set_ylabel("E(1 s) / E(0)")
ax.set_title("dam_break_small's energy at 1 s against resolution", fontsize=10)
ax.grid(alpha=0.3); ax.legend(fontsize=7)
for (variant, color) in [("defaults", "C0"), ("scorr_k_0", "C2"), ("xsph_0", "C4"), ("both_0", "C1")]:
    pts = sorted((1000 * float(x["dt_s"]), float(x["E1_over_E0"])) for x in rows
                 if x["code"] == "pbf" and x["variant"] == variant and abs(float(x["radius_m"]) - 0.025) < 1e-9)
    if pts:
        note = " (still water: 0.043 m/s at 4 ms, 0.56 at 1 ms)" if variant == "both_0" else ""
        bx.plot(*zip(*pts), "o-", color=color, label=variant.replace("_", " ") + note)
bx.axhline(0.72, color="grey", ls="--", lw=1)
bx.set_xscale("log", base=2); bx.set_xticks([1, 2, 4], ["1", "2", "4"]); bx.set_xlabel("dt (ms), r = 0.025 m")
bx.set_ylabel("E(1 s) / E(0)")
bx.set_title("per-step regularizers damp more as dt shrinks", fontsize=10)
bx.grid(alpha=0.3); bx.legend(fontsize=8)
fig.tight_layout(); fig.savefig(sys.argv[2], dpi=110)
EOF
fi
