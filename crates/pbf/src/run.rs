//! The one step loop, and the `pbf run` job built on it.
//!
//! Owns: [`step_loop`] (the stop flag, the finite check, progress, and what a [`Stepper`] does
//! around each step), the divergence check, and [`run_scene`] (a scene run with frames, phase
//! totals and the summary). Every command that advances a simulation (run, compare, validate,
//! scaling) goes through [`step_loop`], so each stops, checks and reports the same way.
//! Does not touch: the step itself (the solver), file formats (io), signal handling or the
//! terminal (the CLI hands in a stop flag and a [`Progress`]).

use crate::checkpoint::{Checkpoint, RunState};
use crate::io::energy::EnergyWatch;
use crate::io::forces;
use crate::io::summary::{Phases, RunSummary, Watch};
use crate::io::{FrameWriter, frame_name, write_atomic};
use crate::scene::{Format, Scene, seconds};
use crate::solver::Solver;
use glam::Vec3A;
use nsearch::SearchStats;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// Why a run stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(
        "the simulation diverged at step {step} (t = {time:.4} s): particle {id} has {field}{}; try a smaller time.dt or milder parameters",
        last_frame.as_deref().map(|f| format!("; the last whole frame is {f}")).unwrap_or_default()
    )]
    Diverged {
        step: u64,
        time: f64,
        id: u32,
        /// What is wrong with it: `a non-finite position` (`velocity`, `density`), or a speed
        /// that would carry it across the whole domain in one step.
        field: String,
        /// The last frame written whole before it (name and time), when frames are written.
        last_frame: Option<String>,
    },
    #[error("{0}")]
    Writer(String),
    #[error("writing {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// What a long loop shows as it goes (the CLI's progress bar; nothing in tests).
pub trait Progress {
    /// `done` steps are done, at simulated time `time`.
    fn tick(&mut self, _done: u64, _time: f64) {}
    /// The loop ended: all steps done, or stopped early (interrupted or failed: `early`).
    fn end(&mut self, _early: bool) {}
    /// Something the user should know while the loop goes on (shown once, above the bar).
    fn warn(&mut self, _message: &str) {}
}

/// No progress display.
pub struct Silent;

impl Progress for Silent {}

/// Whether the loop goes on after a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    /// Done before the planned steps (not an interruption: e.g. the tracked front is blocked).
    Stop,
}

/// How a loop ended without error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ended {
    /// Steps done.
    pub done: u64,
    /// Stopped by the stop flag before the planned steps.
    pub interrupted: bool,
}

/// What one command does in the loop: advance (and measure) one step, then act on the checked
/// state (frames, tracking, when to stop).
pub trait Stepper {
    type Error: From<RunError>;
    /// The solver whose state the loop checks and reports.
    fn solver(&self) -> &Solver;
    /// Advance one step (step `index`, from 0).
    fn step(&mut self, index: u64) -> Result<(), Self::Error>;
    /// After the step, once its state is known to be finite.
    fn after_step(&mut self, _index: u64) -> Result<Flow, Self::Error> {
        Ok(Flow::Continue)
    }
    /// The step just done had a particle fast enough to cross the kernel radius in one step
    /// (its neighbors, found once per step, may then miss some); called before
    /// [`after_step`](Self::after_step). The loop warns at the first such step.
    fn fast_step(&mut self) {}
    /// Something the user should know that the step brought up (shown by the loop's progress
    /// display, once per message).
    fn take_warning(&mut self) -> Option<String> {
        None
    }
}

/// The one step loop: up to `steps` steps of `stepper`, each preceded by a look at `stop` (set
/// by an interrupt: the loop ends after the step under way) and followed by the finite check,
/// the stepper's own work and a progress tick. A failed step or check ends the loop with its
/// error; the progress display is told either way.
pub fn step_loop<S: Stepper>(
    stepper: &mut S,
    steps: u64,
    stop: &AtomicBool,
    progress: &mut dyn Progress,
) -> Result<Ended, S::Error> {
    let mut done = 0;
    let mut stopped = false;
    let mut warned = false;
    for s in 0..steps {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let before = stepper.solver().steps;
        let checked = match stepper.step(s) {
            // A stop request abandoned the step (and undid it): the loop ends here.
            Ok(()) if stepper.solver().steps == before => break,
            r => r,
        };
        let checked = checked
            .and_then(|()| check_finite(stepper.solver()).map_err(S::Error::from))
            .and_then(|v_max| {
                let solver = stepper.solver();
                let (dt, h) = (solver.dt(), solver.kernel_radius());
                if v_max * dt > h {
                    if !warned {
                        warned = true;
                        progress.warn(&format!(
                            "step {} (t = {:.4} s): a particle at {v_max:.2} m/s moves {:.2} kernel radii in one step; neighbors are found once per step, so some may be missed (a smaller time.dt, or milder settings, avoid it); the summary counts such steps",
                            solver.steps,
                            solver.time,
                            v_max * dt / h
                        ));
                    }
                    stepper.fast_step();
                }
                stepper.after_step(s)
            });
        let flow = match checked {
            Ok(flow) => flow,
            Err(e) => {
                progress.end(true);
                return Err(e);
            }
        };
        if let Some(w) = stepper.take_warning() {
            progress.warn(&w);
        }
        done = s + 1;
        progress.tick(done, stepper.solver().time);
        if flow == Flow::Stop {
            stopped = true;
            break;
        }
    }
    // A stop request that came during the last step still counts: the caller asked to stop.
    let interrupted = (done < steps && !stopped) || stop.load(Ordering::Relaxed);
    progress.end(interrupted);
    Ok(Ended { done, interrupted })
}

/// The divergence check: an error when a particle's position, velocity or density is no longer
/// finite (the tank clamps positions, so a blow-up can show in velocities first), or when a
/// particle is fast enough to cross the whole domain in one step (finite but meaningless: the
/// walls would keep projecting it back and the run would go on forever at nonsense speeds),
/// naming the first such particle in slot order (so the report does not depend on the thread
/// count). Else the fastest particle's speed.
pub fn check_finite(solver: &Solver) -> Result<f32, RunError> {
    use rayon::prelude::*;
    let f = &solver.fluid;
    // (first bad slot, largest |v|²): exact minimum and maximum, the same for any split.
    let (bad, v2) = (0..f.len())
        .into_par_iter()
        .with_min_len(4096)
        .map(|i| {
            let ok = f.x[i].is_finite() && f.v[i].is_finite() && f.density[i].is_finite();
            (if ok { usize::MAX } else { i }, f.v[i].length_squared())
        })
        .reduce(|| (usize::MAX, 0.0), |a, b| (a.0.min(b.0), a.1.max(b.1)));
    let diverged = |i: usize, field: String| RunError::Diverged {
        step: solver.steps,
        time: solver.time,
        id: f.id[i],
        field,
        last_frame: None,
    };
    if bad != usize::MAX {
        let i = bad;
        let what = if !f.x[i].is_finite() {
            "position"
        } else if !f.v[i].is_finite() {
            "velocity"
        } else {
            "density"
        };
        return Err(diverged(i, format!("a non-finite {what}")));
    }
    let d = solver.domain();
    let across = d.cell * Vec3A::from(d.dims.map(|n| n as f32)).length();
    let v_max = v2.sqrt();
    if v_max * solver.dt() > across {
        // The first particle that fast, in slot order; its speed in f64 (finite components
        // can square past f32's range).
        let speed = |i: usize| f.v[i].as_dvec3().length();
        let i = (0..f.len())
            .find(|&i| speed(i) * solver.dt() as f64 > across as f64)
            .unwrap_or(0);
        return Err(diverged(
            i,
            format!(
                "a speed of {:.3e} m/s, which crosses the whole domain ({across:.2} m) in one step",
                speed(i)
            ),
        ));
    }
    Ok(v_max)
}

/// Steps of `scene` up to simulated time `until` (the scene's `time.end` when `None`).
pub fn steps_until(scene: &Scene, until: Option<f64>) -> u64 {
    (until.unwrap_or(seconds(scene.time.end)) / seconds(scene.time.dt) - 1e-9)
        .ceil()
        .max(0.0) as u64
}

/// The per-frame measures' file in the output folder (see [`crate::io::energy`]).
pub const ENERGY_CSV: &str = "energy.csv";
/// Its chart, written at the end of a run.
pub const ENERGY_SVG: &str = "energy.svg";
/// The force on each solid per frame time (scenes with obstacles; see [`crate::io::forces`]).
pub const FORCES_CSV: &str = "forces.csv";
/// Its chart, written at the end of a run.
pub const FORCES_SVG: &str = "forces.svg";

/// How to run a scene.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Steps from time 0 to the end (a resumed run does the ones its checkpoint had not).
    pub steps: u64,
    pub format: Format,
    /// The output folder (frames, series file, summary.json); must exist.
    pub dir: PathBuf,
    /// Write a checkpoint into `dir` every this many steps (and when interrupted).
    pub checkpoint_every: Option<u64>,
    /// Going on from a checkpoint: the run's state there (the solver already restored to it).
    pub resume: Option<RunState>,
}

/// What [`run_scene`] did.
#[derive(Clone, Debug)]
pub struct RunReport {
    pub summary: RunSummary,
    /// Where the summary was written.
    pub summary_path: PathBuf,
}

/// The `pbf run` stepper: steps, phase totals, counters, frames at the scene's rate,
/// checkpoints.
struct SceneRun<'a> {
    solver: &'a mut Solver,
    writer: Option<FrameWriter>,
    frame_dt: f64,
    /// What the run has done (the next frame, totals, watch), a resumed run's earlier part
    /// included; saved as it is in a checkpoint (its series lists are the writer's).
    book: RunState,
    checkpoints: Option<Checkpoints>,
    /// The output folder.
    dir: PathBuf,
    /// The watch on the energy of a scene with nothing to put energy in; its warning waits in
    /// `warning` until the loop shows it.
    energy: EnergyWatch,
    warning: Option<String>,
}

/// Where and how often a run saves its state.
struct Checkpoints {
    every: u64,
    dir: PathBuf,
    scene_name: String,
    scene_key: serde_json::Value,
    /// The step of the last checkpoint written.
    last: u64,
}

impl SceneRun<'_> {
    /// Save the state now: the frames queued so far are first flushed (so the checkpoint never
    /// lists a frame that is not whole on disk).
    fn checkpoint(&mut self) -> Result<(), RunError> {
        let Some(c) = &self.checkpoints else {
            return Ok(());
        };
        let t = Instant::now();
        let (frames, obstacle_frames) = match &self.writer {
            Some(w) => w.flush().map_err(RunError::Writer)?,
            None => (Vec::new(), Vec::new()),
        };
        let cp = Checkpoint {
            scene_name: c.scene_name.clone(),
            scene_key: c.scene_key.clone(),
            solver: self.solver.state(),
            run: RunState {
                frames,
                obstacle_frames,
                ..self.book.clone()
            },
        };
        crate::checkpoint::write(&c.dir, &cp).map_err(|source| RunError::Io {
            path: c
                .dir
                .join(crate::checkpoint::checkpoint_name(self.solver.steps)),
            source,
        })?;
        self.book.phases.checkpoint += t.elapsed().as_secs_f64();
        if let Some(c) = &mut self.checkpoints {
            c.last = self.solver.steps;
        }
        Ok(())
    }

    /// Look at the state (at every frame time, written or not).
    fn look(&mut self) -> Result<(), RunError> {
        let t = Instant::now();
        let m = self.solver.look(&mut self.book.watch);
        if self.book.measures.last().is_some_and(|l| l.time == m.time) {
            return Ok(()); // the end of a run that stopped on a frame time
        }
        let since = self.book.measures.last().map(|l| l.time);
        self.book.measures.push(m);
        if let Some(w) = self.energy.look(&self.book.measures) {
            self.warning = Some(w);
        }
        self.write_energy()?;
        if let Some(since) = since
            && let Some(row) = forces::take_row(&mut self.book.impulse, since, m.time)
        {
            self.book.forces.push(row);
            self.write_forces()?;
        }
        self.book.phases.output += t.elapsed().as_secs_f64();
        Ok(())
    }

    /// `energy.csv` with the rows so far (rewritten whole, through a rename).
    fn write_energy(&self) -> Result<(), RunError> {
        let path = self.dir.join(ENERGY_CSV);
        let text = crate::io::energy::csv_text(&self.book.measures);
        write_atomic(&path, |tmp| std::fs::write(tmp, &text))
            .map_err(|source| RunError::Io { path, source })
    }

    /// `forces.csv` with the rows so far (rewritten whole, through a rename; none without
    /// rows).
    fn write_forces(&self) -> Result<(), RunError> {
        let path = self.dir.join(FORCES_CSV);
        forces::write(&path, &self.book.forces, self.solver.solid_count())
            .map_err(|source| RunError::Io { path, source })
    }

    fn push_frame(&mut self, k: usize) -> Result<(), RunError> {
        if let Some(w) = &mut self.writer {
            let t = Instant::now();
            let mut frame = self
                .solver
                .fluid
                .frame(k, self.solver.time, self.solver.origin());
            frame.obstacles = self.solver.obstacle_mesh();
            w.push(frame).map_err(RunError::Writer)?;
            self.book.phases.output += t.elapsed().as_secs_f64();
        }
        Ok(())
    }
}

impl Stepper for SceneRun<'_> {
    type Error = RunError;

    fn solver(&self) -> &Solver {
        self.solver
    }

    fn step(&mut self, _: u64) -> Result<(), RunError> {
        let (n, before) = (self.solver.fluid.len() as u64, self.solver.steps);
        let (t, st) = self.solver.step();
        if self.solver.steps > before {
            self.book.particle_steps += n;
            self.book.phases.add(&t);
            self.book.solve.add(t.solve);
            self.book.counters += st;
            forces::add_impulse(&mut self.book.impulse, &self.solver.take_impulse());
        }
        Ok(())
    }

    fn fast_step(&mut self) {
        self.book.fast_steps += 1;
    }

    fn take_warning(&mut self) -> Option<String> {
        self.warning.take()
    }

    fn after_step(&mut self, _: u64) -> Result<Flow, RunError> {
        if self.solver.time + 1e-9 >= self.book.next_frame as f64 * self.frame_dt {
            self.look()?;
            self.push_frame(self.book.next_frame)?;
            self.book.next_frame += 1;
        }
        if let Some(c) = &self.checkpoints
            && self.solver.steps.is_multiple_of(c.every)
        {
            self.checkpoint()?;
        }
        Ok(Flow::Continue)
    }
}

/// Run `solver` (made from `scene`) to `opts.steps` steps, writing frames at the scene's rate
/// into `opts.dir` (frame 0 first, unless going on from a checkpoint), checkpoints if asked
/// and, at the end or on interruption, `summary.json`.
pub fn run_scene(
    scene: &Scene,
    solver: &mut Solver,
    opts: &RunOptions,
    stop: &AtomicBool,
    progress: &mut dyn Progress,
) -> Result<RunReport, RunError> {
    // The series lists move to the writer, which keeps them from here on.
    let mut resume = opts.resume.clone();
    let writer = (opts.format != Format::None).then(|| match &mut resume {
        Some(r) => FrameWriter::resume(
            opts.dir.clone(),
            scene.name.clone(),
            opts.format,
            std::mem::take(&mut r.frames),
            std::mem::take(&mut r.obstacle_frames),
        ),
        None => FrameWriter::start(opts.dir.clone(), scene.name.clone(), opts.format),
    });
    let checkpoints = opts.checkpoint_every.map(|every| Checkpoints {
        every: every.max(1),
        dir: opts.dir.clone(),
        scene_name: scene.name.clone(),
        scene_key: crate::checkpoint::scene_key::scene_key(scene),
        last: solver.steps,
    });
    let fresh = resume.is_none();
    let mut run = SceneRun {
        book: resume.unwrap_or_else(|| RunState {
            format: opts.format,
            next_frame: 0,
            frames: Vec::new(),
            obstacle_frames: Vec::new(),
            particles_start: solver.fluid.len(),
            particle_steps: 0,
            phases: Phases::default(),
            counters: SearchStats::default(),
            watch: Watch::new(scene.particles.radius),
            fast_steps: 0,
            measures: Vec::new(),
            solve: Default::default(),
            forces: Vec::new(),
            impulse: Vec::new(),
        }),
        solver,
        writer,
        frame_dt: 1.0 / seconds(scene.output.fps),
        checkpoints,
        dir: opts.dir.clone(),
        energy: EnergyWatch::new(scene.energy_source().is_none()),
        warning: None,
    };
    if !fresh {
        run.write_energy()?; // the checkpoint's rows: none from after it
        run.write_forces()?;
    }
    if fresh {
        run.look()?;
        run.push_frame(0)?;
        run.book.next_frame = 1;
    }
    let todo = opts.steps.saturating_sub(run.solver.steps);
    let ended = step_loop(&mut run, todo, stop, progress).map_err(|e| match e {
        RunError::Diverged {
            step,
            time,
            id,
            field,
            ..
        } if opts.format != Format::None && run.book.next_frame > 0 => {
            // Frames are written in order, whole or not at all (each through a rename).
            let k = run.book.next_frame - 1;
            RunError::Diverged {
                step,
                time,
                id,
                field,
                last_frame: Some(format!(
                    "{} (t = {:.4} s)",
                    frame_name(k, opts.format),
                    k as f64 * run.frame_dt
                )),
            }
        }
        e => e,
    })?;
    if ended.interrupted
        && run
            .checkpoints
            .as_ref()
            .is_some_and(|c| c.last != run.solver.steps)
    {
        run.checkpoint()?;
    }
    run.look()?;
    // The last look came after the loop: a warning it made is shown here.
    if let Some(w) = run.warning.take() {
        progress.warn(&w);
    }
    let frames = match run.writer.take() {
        Some(w) => {
            let t = Instant::now();
            let r = w.finish().map_err(RunError::Writer)?;
            run.book.phases.output += t.elapsed().as_secs_f64();
            r.0
        }
        None => 0,
    };
    let chart = run.dir.join(ENERGY_SVG);
    if let Ok(svg) = crate::io::energy::chart_svg(&scene.name, &run.book.measures) {
        write_atomic(&chart, |tmp| std::fs::write(tmp, &svg)).map_err(|source| RunError::Io {
            path: chart.clone(),
            source,
        })?;
    }
    if let Some(Ok(svg)) = forces::chart_svg(&scene.name, &run.book.forces, scene.obstacle.len()) {
        let chart = run.dir.join(FORCES_SVG);
        write_atomic(&chart, |tmp| std::fs::write(tmp, &svg)).map_err(|source| RunError::Io {
            path: chart.clone(),
            source,
        })?;
    }
    let summary = RunSummary {
        scene: scene.name.clone(),
        particles: run.book.particles_start,
        particles_end: run.solver.fluid.len(),
        particle_steps: run.book.particle_steps,
        steps: run.solver.steps,
        steps_planned: opts.steps,
        interrupted: ended.interrupted,
        sim_time_s: run.solver.time,
        threads: rayon::current_num_threads(),
        search: scene.search.mode,
        search_backend: run.solver.neighbor_search().backend(),
        cpu: crate::experiments::bench_search::cpu_name().to_string(),
        phases: run.book.phases,
        counters: run.book.counters,
        frames,
        watch: run.book.watch,
        fast_steps: run.book.fast_steps,
        solve: run.book.solve,
        omega: scene.omega(),
        energy_gain: run.energy.report(&run.book.measures),
    };
    let path = opts.dir.join("summary.json");
    write_atomic(&path, |tmp| std::fs::write(tmp, summary.to_json())).map_err(|source| {
        RunError::Io {
            path: path.clone(),
            source,
        }
    })?;
    Ok(RunReport {
        summary,
        summary_path: path,
    })
}

/// The header line of a run: scene, particles, steps, threads, search, frames.
pub fn run_header(scene: &Scene, particles: usize, opts: &RunOptions) -> String {
    format!(
        "{}: {particles} particles, {} steps of {} s, {} threads, {} search, frames: {}",
        scene.name,
        opts.steps,
        scene.time.dt,
        rayon::current_num_threads(),
        scene.search.mode,
        match opts.format {
            Format::None => "none".to_string(),
            f => format!(
                "{} at {} fps into {}",
                frame_name(0, f),
                scene.output.fps,
                opts.dir.display()
            ),
        }
    )
}
