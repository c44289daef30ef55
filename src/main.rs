//! `pbf`: the command-line front end. Parsing and reporting only; the work lives in the library.

use anyhow::{Context, Result, bail};
use clap::{Args, Parser, Subcommand};
use glam::Vec3A;
use pbf::bench::{BenchReport, ModeReport, bench_search};
use pbf::neighbors::{CellSize, GridSpec, Kernel};
use pbf::points;
use pbf::scene::Scene;
use std::path::PathBuf;
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
    BenchSearch(BenchSearchArgs),
    /// Validate a scene and print its particle count, grid size and a memory estimate, without
    /// simulating. Exits with 2 for a bad scene.
    Check(CheckArgs),
    /// Run a scene.
    Run(RunArgs),
    /// Time pruned against unpruned neighbor search on one simulation of a scene: both modes
    /// build and search on the same positions every step (alternating which goes first), the
    /// simulation advances with the pruned lists, and the lists must be identical.
    ///
    /// Prints the AABB paper's Table 1 (mean seconds per step per phase) and Table 2 (search
    /// target particles, particles in the influence radius) with the reductions, and writes
    /// compare.csv (every step), compare.svg (the paper's Figure 5) and compare.json (the
    /// means) into the output folder. Exits with 1 if the lists ever differ, 2 for bad input.
    Compare(CompareArgs),
    /// Time the step of a scene at several particle counts and thread counts: the radius is
    /// scaled to reach each count (the kernel radius keeps its ratio to it), one untimed step,
    /// then the median of the timed steps. Prints a table and writes scaling.csv and
    /// scaling.svg (time per particle-step against particles) into the output folder.
    Scaling(ScalingArgs),
    /// Compare a collapsing water column with experiment: run the scene, track its surge front
    /// and print it against Martin & Moyce (1952) at their measured times (Z = front / a against
    /// T = t sqrt(2 g / a), their column of height 2a), at one or several resolutions. Writes
    /// validation.csv (the front after every step), validation.json (the compared points, mean
    /// and largest difference, per run) and validation.svg (the chart) into the output folder.
    /// With --tolerance P, exits with 1 if any covered point differs by more than P %; 2 for bad
    /// input.
    Validate(ValidateArgs),
}

#[derive(Args)]
struct ValidateArgs {
    /// Scene file (TOML): a column standing against the tank's low-x wall, gravity along -y.
    #[arg(default_value = "configs/martin_moyce.toml")]
    scene: PathBuf,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Override a scene key by its dotted path, e.g. --set particles.radius=0.0025 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Particle radii to run, comma-separated (a convergence study: the time step and the
    /// kernel radius scale with the radius); default: the scene's radius.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "R,...",
        allow_negative_numbers = true
    )]
    radii: Vec<f32>,
    /// Exit with 1 if any experimental point differs from a run by more than P %.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    tolerance: Option<f64>,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct ScalingArgs {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Particle counts to aim for, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [30_000usize, 120_000, 500_000, 1_000_000, 2_000_000])]
    particles: Vec<usize>,
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1usize, 2])]
    threads: Vec<usize>,
    /// Timed steps per run.
    #[arg(long, default_value_t = 10)]
    steps: u64,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Override a scene key by its dotted path (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// No progress lines.
    #[arg(long)]
    quiet: bool,
}

/// How far to simulate: `--until T` or `--steps N` (default: to the scene's time.end).
#[derive(Args)]
struct Span {
    /// Stop at this simulated time in seconds (default: the scene's time.end).
    #[arg(
        long,
        value_name = "T",
        conflicts_with = "steps",
        allow_negative_numbers = true
    )]
    until: Option<f64>,
    /// Stop after this many steps.
    #[arg(long, value_name = "N")]
    steps: Option<u64>,
}

#[derive(Args)]
struct CompareArgs {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    #[command(flatten)]
    span: Span,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Override a scene key by its dotted path, e.g. --set search.cell_size=\"half\" (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Search kernel for both modes: auto (the fastest this CPU runs), portable, avx2 or avx512.
    #[arg(long, value_enum, default_value_t = Kernel::Auto)]
    kernel: Kernel,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
}

#[derive(Args)]
struct RunArgs {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Output folder (default: out/<scene name>/).
    #[arg(short, long, value_name = "DIR")]
    output: Option<PathBuf>,
    /// Frame format (default: the scene's output.format).
    #[arg(long, value_enum)]
    format: Option<pbf::scene::Format>,
    /// No progress display.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    span: Span,
    /// Neighbor search mode (default: the scene's search.mode).
    #[arg(long, value_enum)]
    search: Option<pbf::neighbors::SearchMode>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// Override a scene key by its dotted path, e.g. --set particles.radius=0.025 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(Args)]
struct CheckArgs {
    /// Scene file (TOML), e.g. configs/dam_break.toml.
    scene: PathBuf,
    /// Override a scene key by its dotted path, e.g. --set particles.radius=0.025 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

#[derive(Args)]
struct BenchSearchArgs {
    /// Point file: raw little-endian f32 xyz triples (.xyz), or a .vtu / .vtk frame.
    #[arg(conflicts_with_all = ["lattice", "column"], required_unless_present_any = ["lattice", "column"])]
    points: Option<PathBuf>,
    /// Generate a jittered lattice of N x N x N points instead of reading a file.
    #[arg(long, value_name = "N", conflicts_with = "column")]
    lattice: Option<usize>,
    /// Generate a collapsing water column (a dam-break-like shape) of about N points.
    #[arg(long, value_name = "N")]
    column: Option<usize>,
    /// Spacing of the generated points.
    #[arg(long, default_value_t = 0.02, allow_negative_numbers = true)]
    spacing: f32,
    /// Uniform jitter of each generated coordinate, in [-J, J].
    #[arg(
        long,
        value_name = "J",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    jitter: f32,
    /// Shuffle the generated points' memory order (as an unsorted simulation state would be).
    #[arg(long)]
    shuffle: bool,
    /// Seed of the jitter and shuffle.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search radius h (default: 2 x lattice spacing).
    #[arg(long, value_name = "H", allow_negative_numbers = true)]
    radius: Option<f32>,
    /// Cell width: h (3x3x3 stencil) or half (h/2, 5x5x5 stencil).
    #[arg(long, value_enum, default_value_t = CellSize::H)]
    cell_size: CellSize,
    /// Timed repetitions per mode (medians are reported).
    #[arg(long, value_name = "K", default_value_t = 7)]
    reps: usize,
    /// Search kernel: auto (the fastest this CPU runs), portable, avx2 or avx512. All give the
    /// same lists; only the speed differs.
    #[arg(long, value_enum, default_value_t = Kernel::Auto)]
    kernel: Kernel,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// Errors in the user's input: exit code 2.
#[derive(Debug)]
struct InputError(anyhow::Error);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for InputError {}

fn input<E: Into<anyhow::Error>>(e: E) -> anyhow::Error {
    anyhow::Error::new(InputError(e.into()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::BenchSearch(a) => cmd_bench_search(a),
        Command::Check(a) => cmd_check(a),
        Command::Run(a) => cmd_run(a),
        Command::Compare(a) => cmd_compare(a),
        Command::Scaling(a) => cmd_scaling(a),
        Command::Validate(a) => cmd_validate(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            if e.downcast_ref::<InputError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::from(1)
            }
        }
    }
}

/// Make `--kernel` the search kernel of this process (bad input if the CPU cannot run it).
fn choose_kernel(kernel: Kernel) -> Result<()> {
    pbf::neighbors::set_kernel(kernel).map_err(|e| input(anyhow::anyhow!("--kernel: {e}")))
}

/// A rayon pool of `threads` workers (default: all cores).
fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if t == 0 {
            return Err(input(anyhow::anyhow!("--threads must be at least 1")));
        }
        b = b.num_threads(t);
    }
    b.build().context("could not start the thread pool")
}

/// Run `f` in a rayon pool of `threads` threads (all cores when `None`).
fn with_threads<R: Send>(threads: Option<usize>, f: impl FnOnce() -> R + Send) -> Result<R> {
    Ok(thread_pool(threads)?.install(f))
}

fn cmd_bench_search(a: BenchSearchArgs) -> Result<ExitCode> {
    let generated = a.lattice.or(a.column);
    let (pts, default_radius) = match (&a.points, generated) {
        (Some(path), _) => (points::read_points(path).map_err(input)?, None),
        (None, Some(n)) => {
            if n == 0 {
                return Err(input(anyhow::anyhow!(
                    "--{} must be at least 1",
                    if a.lattice.is_some() {
                        "lattice"
                    } else {
                        "column"
                    }
                )));
            }
            if !(a.spacing.is_finite() && a.spacing > 0.0) {
                return Err(input(anyhow::anyhow!(
                    "--spacing must be positive, got {}",
                    a.spacing
                )));
            }
            if !(a.jitter.is_finite() && a.jitter >= 0.0) {
                return Err(input(anyhow::anyhow!(
                    "--jitter must be >= 0, got {}",
                    a.jitter
                )));
            }
            let pts = if a.lattice.is_some() {
                points::jittered_lattice(n, a.spacing, a.jitter, a.shuffle, a.seed)
            } else {
                points::collapsing_column(n, a.spacing, a.jitter, a.shuffle, a.seed)
            };
            (pts, Some(2.0 * a.spacing))
        }
        (None, None) => bail!("give a point file, --lattice N or --column N"),
    };
    let radius = match (a.radius, default_radius) {
        (Some(h), _) => h,
        (None, Some(h)) => h,
        (None, None) => {
            return Err(input(anyhow::anyhow!(
                "--radius is required with a point file"
            )));
        }
    };
    if !(radius.is_finite() && radius > 0.0) {
        return Err(input(anyhow::anyhow!(
            "--radius must be positive, got {radius}"
        )));
    }
    choose_kernel(a.kernel)?;
    let report = with_threads(a.threads, || {
        bench_search(&pts, radius, a.cell_size, a.reps)
    })?
    .map_err(input)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    if !report.identical {
        eprintln!("error: pruned and unpruned neighbor lists differ");
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_check(a: CheckArgs) -> Result<ExitCode> {
    let scene = load_scene(&a.scene, &a.set)?;
    let n = scene.sample_fluid().len();
    let h = scene.kernel_radius();
    let t = scene.tank;
    let spec = GridSpec::new(
        Vec3A::from_array(t.min),
        Vec3A::from_array(t.max),
        h,
        scene.search.cell_size,
    )
    .map_err(|e| input(anyhow::anyhow!("{}: {e}", a.scene.display())))?;
    // Neighbors per particle at rest: the lattice points within h, about (4/3) pi (h / 2r)^3.
    let per = 4.0 / 3.0 * std::f64::consts::PI * (h as f64 / scene.spacing() as f64).powi(3);
    // Per particle: ~8 vectors of 16 bytes and ~8 scalars of solver state, neighbor indices, grid
    // arrays; per cell: start offset and box.
    let bytes =
        n as f64 * (8.0 * 16.0 + 8.0 * 4.0 + 4.0 * per + 24.0) + spec.num_cells() as f64 * 36.0;
    let [nx, ny, nz] = spec.dims;
    println!("scene       {} ({})", scene.name, a.scene.display());
    println!("particles   {n}");
    println!(
        "radius      r = {}, spacing {}, kernel radius h = {h}",
        scene.particles.radius,
        scene.spacing()
    );
    println!(
        "grid        {nx} x {ny} x {nz} = {} cells of width {:.6}",
        spec.num_cells(),
        spec.cell
    );
    println!("neighbors   about {per:.0} per particle at rest");
    println!(
        "steps       {} of dt = {} to t = {}",
        (scene.time.end / scene.time.dt).ceil(),
        scene.time.dt,
        scene.time.end
    );
    println!("memory      about {:.0} MB", bytes / 1e6);
    Ok(ExitCode::SUCCESS)
}

/// Phase totals of a run, in seconds.
#[derive(Default)]
struct Phases {
    construction: f64,
    search: f64,
    behavior: f64,
    output: f64,
    step: f64,
}

fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// The output folder: `dir`, or `out/<name>/`; created if missing.
fn output_dir(dir: &Option<PathBuf>, name: &str) -> Result<PathBuf> {
    let dir = dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(name));
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the output folder {}", dir.display()))?;
    Ok(dir)
}

/// Write `text` to `dir/name` whole (under a temporary name, then renamed).
fn write_text(dir: &std::path::Path, name: &str, text: &str) -> Result<()> {
    let path = dir.join(name);
    pbf::output::write_atomic(&path, |tmp| std::fs::write(tmp, text))
        .with_context(|| format!("writing {}", path.display()))
}

/// [`Scene::load`], printing the scene's [warnings](Scene::warnings) to stderr.
fn load_scene(path: &std::path::Path, sets: &[String]) -> Result<Scene> {
    let scene = Scene::load(path, sets).map_err(input)?;
    for w in scene.warnings() {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(scene)
}

/// Steps to run: `steps`, or up to `until` (default: the scene's end time).
fn step_count(scene: &Scene, steps: Option<u64>, until: Option<f64>) -> Result<u64> {
    if let Some(t) = until
        && !(t.is_finite() && t >= 0.0)
    {
        return Err(input(anyhow::anyhow!("--until must be >= 0, got {t}")));
    }
    Ok(match (steps, until) {
        (Some(n), _) => n,
        (None, t) => (t.unwrap_or(scene.time.end as f64) / scene.time.dt as f64 - 1e-9)
            .ceil()
            .max(0.0) as u64,
    })
}

/// A stopped run's error when a particle position is no longer finite.
fn check_finite(solver: &pbf::pbf::Solver) -> Result<()> {
    if let Some(bad) = solver.fluid.x.iter().position(|p| !p.is_finite()) {
        bail!(
            "the simulation diverged at step {} (t = {:.4} s): particle {} has a non-finite position; try a smaller time.dt",
            solver.steps,
            solver.time,
            solver.fluid.id[bad]
        );
    }
    Ok(())
}

/// Progress of a long run: a bar (sim time, steps/s, ETA) on a terminal, a plain line every
/// 5 s otherwise, nothing when quiet.
struct Progress {
    show: bool,
    steps: u64,
    bar: Option<indicatif::ProgressBar>,
    started: std::time::Instant,
    last_line: std::time::Instant,
}

impl Progress {
    fn new(show: bool, steps: u64) -> Progress {
        use std::io::IsTerminal;
        let bar = (show && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new(steps);
            b.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} steps  t = {msg}  {per_sec}  ETA {eta}",
                )
                .unwrap(),
            );
            b
        });
        let now = std::time::Instant::now();
        Progress {
            show,
            steps,
            bar,
            started: now,
            last_line: now,
        }
    }

    /// `done` steps are done, at simulated time `time`.
    fn tick(&mut self, done: u64, time: f64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
            b.set_message(format!("{time:.3} s"));
        } else if self.show && (self.last_line.elapsed().as_secs_f64() > 5.0 || done == self.steps)
        {
            self.last_line = std::time::Instant::now();
            let rate = done as f64 / self.started.elapsed().as_secs_f64();
            eprintln!(
                "step {done}/{}  t = {time:.3} s  {rate:.1} steps/s  ETA {:.0} s",
                self.steps,
                (self.steps - done) as f64 / rate
            );
        }
    }

    fn abandon(&self) {
        if let Some(b) = &self.bar {
            b.abandon();
        }
    }

    fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// Set by the first interrupt (Ctrl-C, SIGTERM, SIGHUP): the run stops after the step under
/// way, writes the frames it has queued and its summary, and exits with 130. A second interrupt
/// exits at once (frames already on disk stay whole: each is written to a temporary file and
/// renamed, and the series file lists only those).
fn interrupt_flag() -> &'static std::sync::atomic::AtomicBool {
    use std::sync::atomic::{AtomicBool, Ordering};
    static STOP: AtomicBool = AtomicBool::new(false);
    static INSTALL: std::sync::Once = std::sync::Once::new();
    INSTALL.call_once(|| {
        let installed = ctrlc::set_handler(|| {
            if STOP.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
            eprintln!("\ninterrupt: finishing the step under way (interrupt again to quit now)");
        });
        if let Err(e) = installed {
            eprintln!("warning: cannot catch interrupts ({e}); Ctrl-C will stop the run at once");
        }
    });
    &STOP
}

fn cmd_run(a: RunArgs) -> Result<ExitCode> {
    use pbf::output::{Frame, FrameWriter};
    use pbf::scene::Format;
    use std::time::Instant;

    let mut sets = a.set.clone();
    if let Some(m) = a.search {
        if m == pbf::neighbors::SearchMode::Brute {
            return Err(input(anyhow::anyhow!(
                "--search must be pruned or unpruned"
            )));
        }
        sets.push(format!("search.mode=\"{m}\""));
    }
    let scene = load_scene(&a.scene, &sets)?;
    let format = a.format.unwrap_or(scene.output.format);
    let steps = step_count(&scene, a.span.steps, a.span.until)?;
    let dir = output_dir(&a.output, &scene.name)?;
    if format != Format::None {
        // Frames of an earlier run into this folder would sit beside ours (our series file
        // lists only ours, but a user opening the files directly would mix runs), and the series
        // file of an earlier run in the other format would list frames no longer there: remove
        // them.
        let series = [Format::Vtu, Format::Vtk].map(|f| pbf::output::series_name(&scene.name, f));
        for e in std::fs::read_dir(&dir)?.flatten() {
            let name = e.file_name().to_string_lossy().to_string();
            let ours = (name.starts_with("frame_")
                && (name.ends_with(".vtu") || name.ends_with(".vtk")))
                || series.contains(&name);
            if ours && e.file_type().is_ok_and(|t| t.is_file()) {
                std::fs::remove_file(e.path()).with_context(|| {
                    format!("cannot remove the earlier run's {}", e.path().display())
                })?;
            }
        }
    }
    let show = !a.quiet;

    with_threads(a.threads, || -> Result<ExitCode> {
        let mut solver = pbf::pbf::Solver::new(&scene).map_err(input)?;
        let n = solver.fluid.len();
        let threads = rayon::current_num_threads();
        // Caught from here on: before the header, so whoever waits for it can interrupt.
        let stop = interrupt_flag();
        if show {
            eprintln!(
                "{}: {n} particles, {steps} steps of {} s, {threads} threads, {} search, frames: {}",
                scene.name,
                scene.time.dt,
                scene.search.mode,
                match format {
                    Format::None => "none".to_string(),
                    f => format!(
                        "{} at {} fps into {}",
                        pbf::output::frame_name(0, f),
                        scene.output.fps,
                        dir.display()
                    ),
                }
            );
        }
        let writer = (format != Format::None)
            .then(|| FrameWriter::start(dir.clone(), scene.name.clone(), format));
        let frame_dt = 1.0 / scene.output.fps as f64;
        let mut next_frame = 0usize;
        let mut ph = Phases::default();
        let mut counters = pbf::neighbors::SearchStats::default();
        let push = |w: &FrameWriter, k: usize, solver: &pbf::pbf::Solver| -> Result<()> {
            w.push(Frame::from_fluid(k, solver.time, &solver.fluid))
                .map_err(|e| anyhow::anyhow!(e))
        };
        if let Some(w) = &writer {
            let t = Instant::now();
            push(w, 0, &solver)?;
            ph.output += t.elapsed().as_secs_f64();
            next_frame = 1;
        }
        let mut progress = Progress::new(show, steps);
        let mut done = 0;
        for s in 0..steps {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let (t, st) = solver.step();
            done = s + 1;
            ph.construction += t.construction;
            ph.search += t.search;
            ph.behavior += t.behavior;
            ph.step += t.step;
            counters += st;
            if let Err(e) = check_finite(&solver) {
                progress.abandon();
                return Err(e);
            }
            if let Some(w) = &writer
                && solver.time + 1e-9 >= next_frame as f64 * frame_dt
            {
                let t = Instant::now();
                push(w, next_frame, &solver)?;
                ph.output += t.elapsed().as_secs_f64();
                next_frame += 1;
            }
            progress.tick(s + 1, solver.time);
        }
        let interrupted = done < steps;
        if interrupted {
            progress.abandon();
        } else {
            progress.finish();
        }
        let frames = match writer {
            Some(w) => {
                let t = Instant::now();
                let r = w.finish().map_err(|e| anyhow::anyhow!(e))?;
                ph.output += t.elapsed().as_secs_f64();
                r.0
            }
            None => 0,
        };

        let k = done.max(1) as f64;
        let ms = |total: f64| serde_json::json!({ "mean": total * 1e3 / k, "total": total * 1e3 });
        let summary = serde_json::json!({
            "scene": scene.name,
            "particles": n,
            "steps": done,
            "steps_planned": steps,
            "interrupted": interrupted,
            "sim_time_s": solver.time,
            "threads": threads,
            "search": scene.search.mode,
            "search_kernel": pbf::neighbors::kernel_in_use(),
            "cpu": pbf::bench::cpu_name(),
            "phases_ms": {
                "construction": ms(ph.construction),
                "search": ms(ph.search),
                "behavior": ms(ph.behavior),
                "output": ms(ph.output),
                "step": ms(ph.step),
            },
            "counters": counters,
            "frames": frames,
            "peak_rss_bytes": peak_rss_bytes(),
        });
        let path = dir.join("summary.json");
        pbf::output::write_atomic(&path, |tmp| {
            std::fs::write(tmp, serde_json::to_string_pretty(&summary)?)
        })
        .with_context(|| format!("writing {}", path.display()))?;

        if show {
            println!("{:<28} {:>12} {:>12}", "phase", "mean ms", "total s");
            for (name, v) in [
                ("construction", ph.construction),
                ("search", ph.search),
                ("construction + search", ph.construction + ph.search),
                ("particle behavior", ph.behavior),
                ("output (solver side)", ph.output),
                ("whole step", ph.step),
            ] {
                println!("{name:<28} {:>12.2} {:>12.2}", v * 1e3 / k, v);
            }
            println!(
                "search per step: {:.0} candidates, {:.0} neighbors ({:.1} per particle), {:.0} cells visited, {:.0} pruned",
                counters.candidates as f64 / k,
                counters.neighbors as f64 / k,
                counters.neighbors as f64 / k / n.max(1) as f64,
                counters.cells_visited as f64 / k,
                counters.cells_pruned as f64 / k
            );
            println!("{frames} frames, summary in {}", path.display());
        }
        if interrupted {
            eprintln!(
                "interrupted after step {done} of {steps} (t = {:.3} s): {frames} whole frames and the summary written",
                solver.time
            );
            return Ok(ExitCode::from(130));
        }
        Ok(ExitCode::SUCCESS)
    })?
}

fn cmd_compare(a: CompareArgs) -> Result<ExitCode> {
    use pbf::compare::{StepRecord, csv, means, svg, tables};
    use pbf::neighbors::SearchMode;

    let mut sets = a.set.clone();
    sets.push("search.mode=\"pruned\"".into());
    let scene = load_scene(&a.scene, &sets)?;
    let steps = step_count(&scene, a.span.steps, a.span.until)?;
    if steps == 0 {
        return Err(input(anyhow::anyhow!(
            "nothing to compare: --steps / --until give 0 steps of {} s",
            scene.time.dt
        )));
    }
    choose_kernel(a.kernel)?;
    let dir = output_dir(&a.output, &scene.name)?;
    with_threads(a.threads, || -> Result<ExitCode> {
        let mut solver = pbf::pbf::Solver::new(&scene).map_err(input)?;
        let mut other = solver.new_search(SearchMode::Unpruned);
        let n = solver.fluid.len();
        let threads = rayon::current_num_threads();
        let spec = *solver.neighbor_search().grid().spec();
        let [nx, ny, nz] = spec.dims;
        let header = format!(
            "{}: {n} particles, h = {}, {nx} x {ny} x {nz} cells of {:.5}, {steps} steps of {} s, {threads} threads, {} search kernel, {}",
            scene.name,
            scene.kernel_radius(),
            spec.cell,
            scene.time.dt,
            pbf::neighbors::kernel_in_use(),
            pbf::bench::cpu_name()
        );
        let stop = interrupt_flag();
        if !a.quiet {
            eprintln!("{header}");
        }
        let mut records = Vec::with_capacity(steps as usize);
        let mut step_total = 0.0;
        let mut progress = Progress::new(!a.quiet, steps);
        let mut failure = None;
        for s in 0..steps {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                break;
            }
            let c = solver.step_compare(&mut other, s % 2 == 1);
            step_total += c.step;
            records.push(StepRecord::new(s + 1, solver.time, &c));
            if let Some(id) = c.mismatch {
                progress.abandon();
                failure = Some(anyhow::anyhow!(
                    "pruned and unpruned neighbor lists differ at step {} (t = {:.4} s), first at particle id {id}",
                    s + 1,
                    solver.time
                ));
                break;
            }
            if let Err(e) = check_finite(&solver) {
                progress.abandon();
                failure = Some(e);
                break;
            }
            progress.tick(s + 1, solver.time);
        }
        let interrupted = failure.is_none() && (records.len() as u64) < steps;
        if interrupted {
            progress.abandon();
        } else {
            progress.finish();
        }
        if interrupted && records.is_empty() {
            eprintln!("interrupted before the first step: nothing written");
            return Ok(ExitCode::from(130));
        }
        write_text(&dir, "compare.csv", &csv(&records))?;
        if let Some(e) = failure {
            return Err(e);
        }
        write_text(
            &dir,
            "compare.svg",
            &svg(&scene.name, &records).map_err(|e| anyhow::anyhow!(e))?,
        )?;
        let (u, p) = means(&records);
        let k = records.len().max(1) as f64;
        let json = serde_json::json!({
            "scene": scene.name,
            "particles": n,
            "steps": records.len(),
            "steps_planned": steps,
            "interrupted": interrupted,
            "threads": threads,
            "search_kernel": pbf::neighbors::kernel_in_use(),
            "cpu": pbf::bench::cpu_name(),
            "kernel_radius": scene.kernel_radius(),
            "cell_size": scene.search.cell_size,
            "grid_dims": spec.dims,
            "identical": true,
            "unpruned": u,
            "pruned": p,
            "step_with_both_searches_s": step_total / k,
            "peak_rss_bytes": peak_rss_bytes(),
        });
        write_text(&dir, "compare.json", &serde_json::to_string_pretty(&json)?)?;
        println!("{header}");
        println!();
        print!("{}", tables(&records));
        println!();
        println!(
            "neighbor lists identical in all {} steps; {:.1} neighbors per particle; whole step with pruned search {:.4} s; peak memory {:.0} MB (both searches held)",
            records.len(),
            p.neighbors / n.max(1) as f64,
            p.total_s,
            peak_rss_bytes() as f64 / 1e6
        );
        println!(
            "wrote {}, {} and {}",
            dir.join("compare.csv").display(),
            dir.join("compare.svg").display(),
            dir.join("compare.json").display()
        );
        if interrupted {
            eprintln!(
                "interrupted after step {} of {steps}: the tables and files cover the steps done",
                records.len()
            );
            return Ok(ExitCode::from(130));
        }
        Ok(ExitCode::SUCCESS)
    })?
}

fn cmd_scaling(a: ScalingArgs) -> Result<ExitCode> {
    use pbf::scaling::{ScalingRow, csv, svg, table};

    let base = Scene::load(&a.scene, &a.set).map_err(input)?;
    if a.particles.is_empty() || a.particles.contains(&0) {
        return Err(input(anyhow::anyhow!(
            "--particles needs counts of at least 1"
        )));
    }
    if a.threads.is_empty() || a.threads.contains(&0) {
        return Err(input(anyhow::anyhow!(
            "--threads needs counts of at least 1"
        )));
    }
    if a.steps == 0 {
        return Err(input(anyhow::anyhow!("--steps must be at least 1")));
    }
    let n0 = base.sample_fluid().len() as f64;
    let (r0, ratio) = (
        base.particles.radius,
        base.kernel_radius() / base.particles.radius,
    );
    let dir = output_dir(&a.output, &base.name)?;
    let mut rows = Vec::new();
    let stop = interrupt_flag();
    let mut interrupted = false;
    'sizes: for &target in &a.particles {
        let r = r0 * (n0 / target as f64).cbrt() as f32;
        let mut sets = a.set.clone();
        sets.push(format!("particles.radius={r}"));
        sets.push(format!("particles.kernel_radius={}", ratio * r));
        let scene = Scene::load(&a.scene, &sets).map_err(input)?;
        // One solver per thread count, each in its own pool, stepped in turn (the order rotating
        // every step), so a busy spell of the shared machine hits every thread count alike. They
        // simulate the same scene, and the results do not depend on the thread count, so they do
        // the same work every step; their states must stay bit-identical.
        let pools = a
            .threads
            .iter()
            .map(|&t| thread_pool(Some(t)))
            .collect::<Result<Vec<_>>>()?;
        let mut solvers = pools
            .iter()
            .map(|pool| pool.install(|| pbf::pbf::Solver::new(&scene)))
            .collect::<Result<Vec<_>, _>>()
            .map_err(input)?;
        let k = solvers.len();
        let mut times = vec![Vec::with_capacity(a.steps as usize); k];
        let mut neighbors = vec![0u64; k];
        for step in 0..=a.steps as usize {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                interrupted = true;
                break 'sizes;
            }
            for o in 0..k {
                let s = (step + o) % k;
                let (st, stats) = pools[s].install(|| solvers[s].step());
                // The first step is untimed (first touches of memory, pool start-up).
                if step > 0 {
                    times[s].push(st.step);
                    neighbors[s] += stats.neighbors;
                }
            }
        }
        for (s, solver) in solvers.iter().enumerate() {
            check_finite(solver)?;
            if solver.fluid.x != solvers[0].fluid.x || solver.fluid.v != solvers[0].fluid.v {
                bail!(
                    "{} particles: the state after {} steps differs between {} and {} threads",
                    solver.fluid.len(),
                    a.steps + 1,
                    a.threads[0],
                    a.threads[s]
                );
            }
        }
        for (s, &t) in a.threads.iter().enumerate() {
            let n = solvers[s].fluid.len();
            let row = ScalingRow {
                particles: n,
                radius: r,
                threads: t,
                steps: a.steps,
                step_s: pbf::bench::median(&times[s]),
                neighbors: neighbors[s] as f64 / a.steps as f64 / n.max(1) as f64,
            };
            if !a.quiet {
                eprintln!(
                    "{} particles, {t} thread{}: {:.1} ms per step, {:.1} ns per particle-step",
                    row.particles,
                    if t == 1 { "" } else { "s" },
                    row.step_s * 1e3,
                    row.ns_per_particle_step()
                );
            }
            rows.push(row);
        }
    }
    // Interrupted: the sizes that finished (the one under way is dropped).
    if rows.is_empty() {
        eprintln!("interrupted before the first size finished: nothing written");
        return Ok(ExitCode::from(130));
    }
    write_text(&dir, "scaling.csv", &csv(&rows))?;
    write_text(
        &dir,
        "scaling.svg",
        &svg(&base.name, &rows).map_err(|e| anyhow::anyhow!(e))?,
    )?;
    println!("{}", pbf::bench::cpu_name());
    print!("{}", table(&rows));
    println!(
        "wrote {} and {}",
        dir.join("scaling.csv").display(),
        dir.join("scaling.svg").display()
    );
    if interrupted {
        eprintln!(
            "interrupted: {} of {} particle counts finished; the table and files cover those",
            rows.len() / a.threads.len(),
            a.particles.len()
        );
        return Ok(ExitCode::from(130));
    }
    Ok(ExitCode::SUCCESS)
}

fn cmd_validate(a: ValidateArgs) -> Result<ExitCode> {
    use pbf::validation::{FrontTrack, MARTIN_MOYCE, Run, csv, json, svg, table};

    if let Some(p) = a.tolerance
        && !(p.is_finite() && p >= 0.0)
    {
        return Err(input(anyhow::anyhow!("--tolerance must be >= 0, got {p}")));
    }
    if let Some(r) = a.radii.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
        return Err(input(anyhow::anyhow!(
            "--radii needs positive radii, got {r}"
        )));
    }
    let base = load_scene(&a.scene, &a.set)?;
    // Each radius scales the time step and the kernel radius with it (the front moves the same
    // fraction of a particle per step, and the neighbor count stays the same).
    let r0 = base.particles.radius;
    let scenes = if a.radii.is_empty() {
        vec![base.clone()]
    } else {
        a.radii
            .iter()
            .map(|&r| {
                let mut sets = a.set.clone();
                sets.push(format!("particles.radius={r}"));
                sets.push(format!("time.dt={}", base.time.dt * r / r0));
                sets.push(format!(
                    "particles.kernel_radius={}",
                    base.kernel_radius() * r / r0
                ));
                Scene::load(&a.scene, &sets).map_err(input)
            })
            .collect::<Result<Vec<_>>>()?
    };
    let show = !a.quiet;
    with_threads(a.threads, || -> Result<ExitCode> {
        let mut solvers = Vec::new();
        let mut runs = Vec::new();
        for scene in &scenes {
            // Everything is checked before the first run starts.
            let solver = pbf::pbf::Solver::new(scene).map_err(input)?;
            let track = FrontTrack::new(scene, &solver.fluid.x)
                .map_err(|e| input(anyhow::anyhow!("{}: {e}", a.scene.display())))?;
            runs.push(Run {
                radius: scene.particles.radius,
                dt: scene.time.dt,
                particles: solver.fluid.len(),
                track,
            });
            solvers.push(solver);
        }
        let dir = output_dir(&a.output, &base.name)?;
        if let Some(run) = runs.iter().find(|r| (r.track.n2 - 2.0).abs() > 0.1) {
            eprintln!(
                "warning: {}: the column's height is {:.2} times its width, the experiment's 2: \
                 the comparison is only indicative",
                a.scene.display(),
                run.track.n2
            );
        }
        // Run past the last measured time (or to the scene's end, or until the front reaches
        // the far wall).
        let t_last = MARTIN_MOYCE[MARTIN_MOYCE.len() - 1].0;
        let stop = interrupt_flag();
        let mut finished = 0;
        'runs: for ((scene, solver), run) in scenes.iter().zip(&mut solvers).zip(&mut runs) {
            let until = run.track.seconds(t_last * 1.02).min(scene.time.end as f64);
            let steps = step_count(scene, None, Some(until))?;
            if show {
                eprintln!(
                    "{}: {}, column a = {:.4} m, n² = {:.3} (the experiment: 2), {steps} steps of {} s to T = {:.2}",
                    scene.name,
                    run.label(),
                    run.track.a,
                    run.track.n2,
                    scene.time.dt,
                    until * run.track.time_scale
                );
            }
            let mut progress = Progress::new(show, steps);
            for s in 0..steps {
                if stop.load(std::sync::atomic::Ordering::Relaxed) {
                    progress.abandon();
                    break 'runs;
                }
                solver.step();
                if let Err(e) = check_finite(solver) {
                    progress.abandon();
                    return Err(e);
                }
                progress.tick(s + 1, solver.time);
                if !run.track.record(solver.time, &solver.fluid.x) {
                    break;
                }
            }
            progress.finish();
            finished += 1;
        }
        // Interrupted: report the runs that finished, drop the one under way.
        let planned = runs.len();
        runs.truncate(finished);
        if runs.is_empty() {
            eprintln!("interrupted before the first run finished: nothing written");
            return Ok(ExitCode::from(130));
        }
        write_text(&dir, "validation.csv", &csv(&runs))?;
        write_text(&dir, "validation.json", &json(&base.name, &runs))?;
        write_text(
            &dir,
            "validation.svg",
            &svg(&base.name, &runs).map_err(|e| anyhow::anyhow!(e))?,
        )?;
        println!("surge front against Martin & Moyce (1952), n² = 2");
        for run in &runs {
            println!(
                "\n{}: column a = {:.4} m, n² = {:.3}",
                run.label(),
                run.track.a,
                run.track.n2
            );
            print!("{}", table(&run.track.compare()));
            if run.track.blocked {
                println!(
                    "the front reached the far wall at T = {:.2}; later points are not compared",
                    run.track.samples.last().map_or(0.0, |s| s.0)
                );
            }
        }
        println!(
            "\nwrote {}, {} and {}",
            dir.join("validation.csv").display(),
            dir.join("validation.json").display(),
            dir.join("validation.svg").display()
        );
        if finished < planned {
            eprintln!(
                "interrupted: {finished} of {planned} runs finished; the table and files cover those"
            );
            return Ok(ExitCode::from(130));
        }
        for run in &runs {
            let rows = run.track.compare();
            if rows.is_empty() {
                bail!(
                    "{}: the run covered none of the experiment's times (is time.end too short?)",
                    run.label()
                );
            }
            if let Some(p) = a.tolerance {
                let worst = rows
                    .iter()
                    .max_by(|x, y| x.error_pct().abs().total_cmp(&y.error_pct().abs()))
                    .expect("rows is not empty");
                if worst.error_pct().abs() > p {
                    bail!(
                        "{}: at T = {:.2} the front is {:+.1}% from the experiment, more than --tolerance {p}%",
                        run.label(),
                        worst.t,
                        worst.error_pct()
                    );
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })?
}

fn print_report(r: &BenchReport) {
    println!(
        "{} particles, radius {}, cell {} ({}x{}x{} cells), {} threads, {} kernel, median of {} reps, {}",
        r.particles,
        r.radius,
        match r.cell_size {
            CellSize::H => "h",
            CellSize::Half => "h/2",
        },
        r.grid_dims[0],
        r.grid_dims[1],
        r.grid_dims[2],
        r.threads,
        r.kernel,
        r.reps,
        r.cpu
    );
    println!(
        "{:<10} {:>15} {:>11} {:>11} {:>12} {:>11} {:>10}",
        "mode",
        "construction ms",
        "search ms",
        "sum ms",
        "candidates/p",
        "neighbors/p",
        "memory MB"
    );
    let row = |name: &str, m: &ModeReport| {
        println!(
            "{:<10} {:>15.2} {:>11.2} {:>11.2} {:>12.2} {:>11.2} {:>10.1}",
            name,
            m.construction_ms,
            m.search_ms,
            m.total_ms,
            m.candidates_per_particle,
            m.neighbors_per_particle,
            m.memory_bytes as f64 / 1e6
        )
    };
    row("unpruned", &r.modes.unpruned);
    row("pruned", &r.modes.pruned);
    println!(
        "pruning: {:.1}% fewer candidates, {:.1}% less construction + search time; lists {}",
        r.candidate_reduction_pct,
        r.time_reduction_pct,
        if r.identical { "identical" } else { "DIFFER" }
    );
}
