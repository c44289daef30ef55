//! `pbf`: the command-line front end. Parsing and reporting only; the work lives in the `pbf`
//! and `nsearch` libraries. One file per subcommand under `cmd/`.

/// `print!` for the reports on standard output, which ends the process with a message on
/// stderr and exit code 1 when standard output cannot be written (a full disk, `> /dev/full`),
/// instead of the panic `print!` gives. Every file a command writes is complete before it
/// prints, so nothing is lost. A closed pipe ends the process by SIGPIPE before this sees it
/// (see `main`); under mpirun, where SIGPIPE stays ignored, it ends quietly with 141 as well.
macro_rules! out {
    ($($t:tt)*) => { $crate::write_stdout(format_args!($($t)*), false) };
}

/// [`out!`] with a newline, as `println!`.
macro_rules! outln {
    () => { $crate::write_stdout(format_args!(""), true) };
    ($($t:tt)*) => { $crate::write_stdout(format_args!($($t)*), true) };
}

mod args;
mod cmd;
mod progress;

/// What [`out!`] and [`outln!`] call.
fn write_stdout(text: std::fmt::Arguments, newline: bool) {
    use std::io::Write as _;
    let mut o = std::io::stdout().lock();
    let written = o
        .write_fmt(text)
        .and_then(|()| if newline { o.write_all(b"\n") } else { Ok(()) });
    if let Err(e) = written {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(141);
        }
        eprintln!("error: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "pbf",
    version,
    about = "Position-based fluids with AABB-pruned neighbor search"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Time grid construction and neighbor search, pruned against unpruned, on one point set.
    ///
    /// Exits with 1 if the two modes' neighbor lists differ, 2 for bad input.
    BenchSearch(cmd::bench_search::Args),
    /// Validate a scene and print its particle count, grid size and a memory estimate, without
    /// simulating. Exits with 2 for a bad scene.
    Check(cmd::check::Args),
    /// Run a scene.
    Run(cmd::run::Args),
    /// Time pruned against unpruned neighbor search on one simulation of a scene: both modes
    /// build and search on the same positions every step (alternating which goes first), the
    /// simulation advances with the pruned lists, and the lists must be identical.
    ///
    /// Prints the AABB paper's Table 1 (mean seconds per step per phase) and Table 2 (search
    /// target particles, particles in the influence radius) with the reductions, and writes
    /// compare.csv (every step), compare.svg (the paper's Figure 5) and compare.json (the
    /// means) into the output folder. Exits with 1 if the lists ever differ, 2 for bad input.
    Compare(cmd::compare::Args),
    /// Time the step of a scene at several particle counts and thread counts: the radius is
    /// scaled to reach each count (the kernel radius keeps its ratio to it), one untimed step,
    /// then the median of the timed steps. Prints a table and writes scaling.csv and
    /// scaling.svg (time per particle-step against particles) into the output folder.
    Scaling(cmd::scaling::Args),
    /// Compare a collapsing water column with experiment: run the scene, track its surge front
    /// and print it against Martin & Moyce (1952) and Koshizuka & Oka (1996) at their measured
    /// times (Z = front / a against T = t sqrt(2 g / a), columns of height 2a), at one or several
    /// resolutions. Writes validation.csv (the front after every step), validation.json (the
    /// compared points, mean and largest difference, per run and experiment) and validation.svg
    /// (the chart) into the output folder. With --tolerance P, exits with 1 if any covered point
    /// differs from Martin & Moyce's by more than P %; 2 for bad input.
    Validate(cmd::validate::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    #[cfg(feature = "mpi")]
    {
        use pbf::distributed::mpi::traits::Communicator;
        // Under mpirun with more than one process, `run` splits the fluid over them.
        if let Some(universe) = pbf::distributed::mpi::initialize() {
            let world = universe.world();
            if world.size() > 1 {
                let rank = world.rank();
                let result = match cli.command {
                    Command::Run(a) => cmd::run::main_mpi(a, universe.world()),
                    _ => Err(args::input(anyhow::anyhow!(
                        "only `pbf run` splits over processes; start the other commands without mpirun"
                    ))),
                };
                return match result {
                    Ok(code) => code,
                    // Bad input is found by every process alike before any message: each
                    // returns, process 0 says why.
                    Err(e) if e.downcast_ref::<args::InputError>().is_some() => {
                        if rank == 0 {
                            eprintln!("error: {e:#}");
                        }
                        ExitCode::from(2)
                    }
                    Err(e) => {
                        eprintln!("error (process {rank}): {e:#}");
                        // The others may wait in a collective call: end them all.
                        world.abort(1)
                    }
                };
            }
        }
    }
    // One process: writing to a closed pipe (`pbf check scene.toml | head -3`) ends the process
    // quietly, as it ends any Unix tool, rather than in a panic (Rust ignores SIGPIPE and
    // `println!` panics on the error). Frames are written whole or not at all either way. Not
    // under mpirun, whose transports may rely on the signal being ignored.
    #[cfg(unix)]
    // SAFETY: SIG_DFL installs no handler; it only sets the process's disposition of SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let result = match cli.command {
        Command::BenchSearch(a) => cmd::bench_search::main(a),
        Command::Check(a) => cmd::check::main(a),
        Command::Run(a) => cmd::run::main(a),
        Command::Compare(a) => cmd::compare::main(a),
        Command::Scaling(a) => cmd::scaling::main(a),
        Command::Validate(a) => cmd::validate::main(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<args::InputError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}
