//! `pbf run SCENE`: simulate a scene and write frames for ParaView.

use crate::args::{Span, choice, input, load_scene, output_dir, solver, with_threads};
use crate::progress::{Bar, interrupt_flag};
use anyhow::Result;
use nsearch::{Backend, SearchMode};
use pbf::checkpoint::Checkpoint;
use pbf::checkpoint::scene_key::{differences, scene_key};
use pbf::run::{RunOptions, run_header, run_scene};
use pbf::scene::Format;
use pbf::scene::Scene;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct Args {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Frame format (default: the scene's output.format).
    #[arg(long, value_parser = choice(&Format::ALL))]
    format: Option<Format>,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    span: Span,
    /// Neighbor search mode (default: the scene's search.mode).
    #[arg(long, value_parser = choice(&[SearchMode::Pruned, SearchMode::Unpruned]))]
    search: Option<SearchMode>,
    /// Search backend (the SIMD path): auto (the fastest this CPU runs), portable, avx2 or
    /// avx512. All give the same results; only the speed differs.
    #[arg(long, alias = "kernel", default_value = "auto", value_parser = choice(&Backend::ALL))]
    backend: Backend,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Override a scene key by its dotted path, a number indexing a list, e.g.
    /// --set particles.radius=0.025 or --set obstacle.1.radius=0.05 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Write the complete state into the output folder every N steps, and once more when
    /// interrupted (checkpoint_<step>.pbfck; the last two are kept).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    checkpoint_every: Option<u64>,
    /// Go on from a checkpoint of this scene: frames and series continue where it stopped, and
    /// the result is bit-identical to the uninterrupted run (any thread count). The scene may
    /// differ only in time.end, output settings and name. --steps / --until count from t = 0.
    #[arg(long, value_name = "CHECKPOINT")]
    resume: Option<PathBuf>,
    /// Under `mpirun -np P` (P > 1): gather each frame on process 0 and write it as one process
    /// would (the same files, byte for byte), instead of one piece per process and a `.pvtu`.
    #[cfg(feature = "mpi")]
    #[arg(long)]
    gather: bool,
    /// Under `mpirun`: re-balance the slabs when the most loaded process holds more than this
    /// times the mean particle count.
    #[cfg(feature = "mpi")]
    #[arg(long, value_name = "RATIO", default_value_t = 1.1)]
    rebalance_above: f64,
    /// Under `mpirun`: what the slabs balance: `count` (particles) or `work` (neighbor pairs
    /// of the last step).
    #[cfg(feature = "mpi")]
    #[arg(long, default_value = "count", value_parser = ["count", "work"])]
    balance: String,
}

pub fn main(a: Args) -> Result<ExitCode> {
    let mut sets = a.set.clone();
    if let Some(m) = a.search {
        sets.push(format!("search.mode=\"{m}\""));
    }
    let scene = load_scene(&a.scene, &sets)?;
    let steps = a.span.steps(&scene)?;
    let format = a.format.unwrap_or(scene.output.format);
    let show = !a.quiet;
    let checkpoint = a
        .resume
        .as_deref()
        .map(resume_from(&scene, format, steps))
        .transpose()?;
    with_threads(a.threads, || -> Result<ExitCode> {
        // Everything is checked (scene, options, checkpoint, grid, backend) before the output
        // folder is touched: a refused run leaves the earlier run's files as they were.
        let mut solver = solver(&scene, a.backend)?;
        if let Some(c) = &checkpoint {
            solver.restore(&c.solver).map_err(|e| {
                input(anyhow::anyhow!(
                    "{}: {e}",
                    a.resume.as_deref().unwrap_or(Path::new("")).display()
                ))
            })?;
        }
        let opts = RunOptions {
            steps,
            format,
            dir: output_dir(&a.output, &scene.name)?,
            checkpoint_every: a.checkpoint_every,
            resume: checkpoint.map(|c| c.run),
        };
        match &opts.resume {
            Some(r) => pbf::io::clear_after_checkpoint(&opts.dir, r.next_frame)?,
            None => pbf::io::clear_earlier_output(&opts.dir, &scene.name)?,
        }
        // Caught from here on: before the header, so whoever waits for it can interrupt.
        let stop = interrupt_flag();
        if show {
            eprintln!("{}", run_header(&scene, solver.fluid.len(), &opts));
        }
        let mut bar = Bar::new(show, opts.steps);
        solver.stop_on(stop);
        let report = run_scene(&scene, &mut solver, &opts, stop, &mut bar)?;
        let s = &report.summary;
        if show {
            out!("{}", s.phases.table(s.steps));
            outln!("{}", s.counters_line());
            outln!("{}", s.solve_line());
            outln!("{}", s.watch.line());
            if s.fast_steps > 0 {
                outln!(
                    "{} of {} steps had a particle crossing the kernel radius in one step (see the warning)",
                    s.fast_steps,
                    s.steps
                );
            }
            if let Some(line) = s.energy_gain.and_then(|g| g.closing_line()) {
                outln!("{line}");
            }
            outln!(
                "{} frames, summary in {}",
                s.frames,
                report.summary_path.display()
            );
        }
        if s.interrupted {
            eprintln!(
                "interrupted after step {} of {} (t = {:.3} s): {} whole frames and the summary written",
                s.steps, s.steps_planned, s.sim_time_s, s.frames
            );
            return Ok(ExitCode::from(130));
        }
        Ok(ExitCode::SUCCESS)
    })?
}

/// Read and check a checkpoint for a run of `scene` in `format` to `steps` steps: it must be
/// whole, of this scene (all keys but time.end, output and name), of the same frame format,
/// and short of the end. Every refusal is bad input (exit 2).
fn resume_from(scene: &Scene, format: Format, steps: u64) -> impl Fn(&Path) -> Result<Checkpoint> {
    move |path| {
        let c = pbf::checkpoint::read(path).map_err(input)?;
        let diff = differences(&c.scene_key, &scene_key(scene), 5);
        if !diff.is_empty() {
            let list: Vec<String> = diff
                .iter()
                .map(|(k, was, now)| format!("{k}: {was} then, {now} now"))
                .collect();
            return Err(input(anyhow::anyhow!(
                "{}: the checkpoint is of another scene (only time.end, output and name may change): {}",
                path.display(),
                list.join("; ")
            )));
        }
        if c.run.format != format {
            return Err(input(anyhow::anyhow!(
                "{}: the run wrote {} frames; resume it with --format {} (one series, one format)",
                path.display(),
                format_name(c.run.format),
                format_name(c.run.format)
            )));
        }
        if c.solver.steps >= steps {
            return Err(input(anyhow::anyhow!(
                "{}: the checkpoint is at step {} and the run ends at step {steps}: nothing to do (give a later --until or --steps)",
                path.display(),
                c.solver.steps
            )));
        }
        Ok(c)
    }
}

fn format_name(f: Format) -> String {
    serde_json::to_value(f)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// `pbf run` under `mpirun -np P` (P > 1): the fluid split into slabs over the processes of
/// `world` (see pbf's `distributed`). Checkpoints are ordinary ones (process 0 gathers the
/// state): a run resumes from one on any number of processes, one included.
#[cfg(feature = "mpi")]
pub fn main_mpi(
    a: Args,
    world: pbf::distributed::mpi::topology::SimpleCommunicator,
) -> Result<ExitCode> {
    use pbf::distributed::mpi::traits::Communicator;
    use pbf::distributed::mpi_run::{MpiRunOptions, run};
    let rank = world.rank();
    // MPI is called from this (the main) thread only: the workers are the global pool's.
    if let Some(t) = a.threads {
        crate::args::thread_pool(Some(t))?; // the same check of the count as one process's
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .map_err(|e| anyhow::anyhow!("--threads: {e}"))?;
    }
    let mut sets = a.set.clone();
    if let Some(m) = a.search {
        sets.push(format!("search.mode=\"{m}\""));
    }
    let scene = crate::args::load_scene_warning(&a.scene, &sets, rank == 0)?;
    let steps = a.span.steps(&scene)?;
    let format = a.format.unwrap_or(scene.output.format);
    let mut opts = MpiRunOptions {
        steps,
        format,
        dir: PathBuf::new(), // set once everything is checked
        gather: a.gather,
        rebalance_above: a.rebalance_above,
        balance: if a.balance == "count" {
            pbf::distributed::mpi_run::Balance::Count
        } else {
            pbf::distributed::mpi_run::Balance::Work
        },
        backend: a.backend,
        checkpoint_every: a.checkpoint_every,
        resume: a
            .resume
            .as_deref()
            .map(resume_from(&scene, format, steps))
            .transpose()?,
    };
    let show = !a.quiet && rank == 0;
    // Checked on every process alike before any message: a refusal is bad input (exit 2),
    // returned by each process (see main).
    let (size, me) = (world.size() as usize, rank as usize);
    pbf::distributed::mpi_run::check(&scene, &opts, size)
        .map_err(|e| input(anyhow::anyhow!("{}: {e}", a.scene.display())))?;
    let restored = match &opts.resume {
        Some(c) => {
            // Every process reads the whole checkpoint, then keeps its own part.
            let mut s = solver(&scene, a.backend)?;
            s.restore(&c.solver).map_err(|e| {
                input(anyhow::anyhow!(
                    "{}: {e}",
                    a.resume.as_deref().unwrap_or(Path::new("")).display()
                ))
            })?;
            Some(s)
        }
        None => None,
    };
    let start = restored.as_ref().map_or(0, |s| s.steps);
    let part = pbf::distributed::mpi_run::own_part(&scene, size, me, a.backend, restored)
        .map_err(|e| input(anyhow::anyhow!("{}: {e}", a.scene.display())))?;
    opts.dir = output_dir(&a.output, &scene.name)?;
    if show {
        let one = RunOptions {
            steps,
            format,
            dir: opts.dir.clone(),
            checkpoint_every: a.checkpoint_every,
            resume: None,
        };
        eprintln!(
            "{} over {size} processes",
            run_header(&scene, part.particles(), &one)
        );
    }
    let mut bar = Bar::new(show, steps - start);
    // mpirun passes an interrupt on to every process (SIGINT, or SIGTERM): the processes agree
    // after each step, so all stop after the same one, with a checkpoint if asked.
    let stop = interrupt_flag();
    let report = run(world, &scene, part, &opts, stop, &mut bar).map_err(|e| anyhow::anyhow!(e))?;
    if show {
        let r = &report;
        outln!(
            "{} processes, {} particles, {} steps: {:.2} ms per step (slowest process), exchange {:.2} ms ({:.1}%)",
            r.processes,
            r.particles,
            r.steps,
            r.step_s * 1e3,
            r.exchange_s * 1e3,
            100.0 * r.exchange_s / r.step_s.max(1e-12)
        );
        outln!(
            "sent per step: migration {:.1} kB, ghosts {:.1} kB ({:.0} particles), ghost refreshes {:.1} kB",
            r.migration_bytes_per_step / 1e3,
            r.ghost_bytes_per_step / 1e3,
            r.ghosts_per_step,
            r.refresh_bytes_per_step / 1e3
        );
        outln!(
            "particles per process at the end {:?}: {} imbalance {:.3} (most {:.3}), {} re-balances",
            r.loads,
            a.balance,
            r.imbalance_end,
            r.imbalance_max,
            r.rebalances
        );
        let k = r.steps.max(1) as f64;
        outln!(
            "search per step, all processes (ghosts included): {:.0} candidates, {:.0} neighbors, {:.0} cells pruned of {:.0}; peak memory of a process {:.0} MB",
            r.search.candidates as f64 / k,
            r.search.neighbors as f64 / k,
            r.search.cells_pruned as f64 / k,
            r.search.cells_visited as f64 / k,
            r.peak_rss_bytes_max as f64 / 1e6
        );
        outln!("{}", r.watch.line());
        if let Some(line) = r.energy_gain.and_then(|g| g.closing_line()) {
            outln!("{line}");
        }
        if r.fast_steps > 0 {
            outln!(
                "{} of {} steps had a particle crossing the kernel radius in one step",
                r.fast_steps,
                r.steps
            );
        }
    }
    // The report is a file like the one-process run's summary: written with --quiet too.
    if rank == 0 {
        let path = opts.dir.join("mpi.json");
        let json = serde_json::to_string_pretty(&report)?;
        pbf::io::write_atomic(&path, |tmp| std::fs::write(tmp, &json))
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        if show {
            outln!("{} frames, report in {}", report.frames, path.display());
        }
    }
    if report.interrupted {
        if rank == 0 {
            eprintln!(
                "interrupted after step {} of {steps}: {} whole frames written",
                report.steps + opts.resume.as_ref().map_or(0, |c| c.solver.steps),
                report.frames
            );
        }
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}
