//! A run split over MPI processes: the checks, each process's part of the scene, the step loop
//! with its global checks, interrupts and re-balancing, and the exchange report.
//!
//! Owns: [`check`], [`own_part`], [`run`], their options and report. Does not touch: the step
//! (the solver, with an [`MpiHalo`]), what is written (`mpi_output`), the formats (io).
//!
//! Each process samples the scene's blocks one at a time, keeps the particles in its slab and
//! numbers them by their place in the scene (their ids, and the order keys of the first step);
//! none holds the whole fluid. Between steps each process holds only its own particles.

use super::mpi_halo::{ExchangeReport, MpiHalo};
use super::mpi_output::Output;
use super::slabs::{Slabs, imbalance, slab_axis};
use crate::checkpoint::Checkpoint;
use crate::io::summary::Watch;
use crate::io::{FrameWriter, write_atomic};
use crate::particles::Fluid;
use crate::scene::{Format, Scene};
use crate::solver::Solver;
use glam::Vec3A;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// What to run.
pub struct MpiRunOptions {
    pub steps: u64,
    pub format: Format,
    pub dir: PathBuf,
    /// Gather every frame on process 0 and write it as one process would (one file per frame,
    /// byte for byte the same); otherwise each process writes its piece and process 0 the
    /// `.pvtu` and the `.pvd`.
    pub gather: bool,
    /// Re-balance the slabs when the most loaded process has more than this times the mean.
    pub rebalance_above: f64,
    /// The load the slabs balance.
    pub balance: Balance,
    /// The neighbor search's SIMD path.
    pub backend: nsearch::Backend,
    /// Save the whole state every this many steps (one ordinary checkpoint, written by
    /// process 0: resumable by one process or by any number).
    pub checkpoint_every: Option<u64>,
    /// Go on from this checkpoint (of this scene, checked and restored into the solver by the
    /// caller): its frames and series so far.
    pub resume: Option<Checkpoint>,
}

/// What a run did, over all processes.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MpiReport {
    pub processes: usize,
    pub particles: usize,
    pub steps: u64,
    /// Stopped early by an interrupt (every process after the same step).
    pub interrupted: bool,
    pub frames: usize,
    /// Steps in which a particle crossed the kernel radius.
    pub fast_steps: u64,
    /// Mean seconds per step (the slowest process's wall clock).
    pub step_s: f64,
    /// Mean seconds per step in exchanges (the slowest process's).
    pub exchange_s: f64,
    /// Bytes sent per step, all processes: migration, ghost particles, ghost refreshes.
    pub migration_bytes_per_step: f64,
    pub ghost_bytes_per_step: f64,
    pub refresh_bytes_per_step: f64,
    /// Ghost particles per step, all processes.
    pub ghosts_per_step: f64,
    /// Largest load (as balanced) over the mean at the end, and the most seen after a step.
    pub imbalance_end: f64,
    pub imbalance_max: f64,
    pub rebalances: u64,
    /// Particles per process at the end.
    pub loads: Vec<u64>,
    /// The search's counters summed over steps and processes (ghosts' searches included).
    pub search: nsearch::SearchStats,
    /// The largest peak resident memory of a process.
    pub peak_rss_bytes_max: u64,
    /// What the run saw at frame times (closest approaches, fastest particle).
    #[serde(serialize_with = "watch_json")]
    pub watch: Watch,
    /// In a scene with nothing to put energy in, the largest rise of the mechanical energy
    /// above its start (as one process's summary has it).
    pub energy_gain: Option<crate::io::energy::Gain>,
}

fn watch_json<S: serde::Serializer>(w: &Watch, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&w.json(), s)
}

/// What the slabs are balanced by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Balance {
    /// Particles.
    Count,
    /// Neighbor pairs of the last step (each particle at least 1): every pass of the step is
    /// a walk over them, so this is what a process's step costs.
    Work,
}

/// This process's load per cell plane across `axis`, as `balance` counts it.
fn plane_loads(solver: &Solver, axis: usize, balance: Balance) -> Vec<u64> {
    let (d, f) = (solver.domain(), &solver.fluid);
    let mut c = vec![0u64; d.dims[axis]];
    for (&q, &n) in f.x.iter().zip(&f.neighbors) {
        c[d.cell_coords(q)[axis]] += match balance {
            Balance::Count => 1,
            Balance::Work => n.max(1) as u64,
        };
    }
    c
}

/// The grid over a scene's whole domain (its tank, kernel radius and cell size); given the
/// scene in the solver's coordinates ([`Scene::local`]), the solver's own domain.
fn domain_of(scene: &Scene) -> Result<nsearch::GridSpec, String> {
    nsearch::GridSpec::new(
        Vec3A::from_array(scene.tank.min),
        Vec3A::from_array(scene.tank.max),
        scene.kernel_radius(),
        scene.search.cell_size,
    )
    .map_err(|e| e.to_string())
}

/// Why a split run cannot start: the same on every process, found before any message, so
/// each process returns it and none has to abort the others.
pub fn check(scene: &Scene, opts: &MpiRunOptions, processes: usize) -> Result<(), String> {
    if opts.format == Format::Vtk && !opts.gather {
        return Err("--format vtk: frames in pieces are .vtu (ParaView's .pvtu names them); use --format vtu, or --gather".into());
    }
    let domain = domain_of(&scene.local())?;
    let axis = slab_axis(&domain);
    Slabs::balanced(
        &vec![0; domain.dims[axis]],
        processes,
        scene.search.cell_size.reach(),
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// One process's part of a split run, before it starts: its solver, holding its own particles
/// only, the slabs, and its particles' order keys.
pub struct Part {
    solver: Solver,
    slabs: Slabs,
    axis: usize,
    keys: Vec<u64>,
    /// Particles at the start, over all processes.
    particles: usize,
}

impl Part {
    /// The particles this process starts with.
    pub fn own_particles(&self) -> usize {
        self.solver.fluid.len()
    }

    /// The particles all processes start with.
    pub fn particles(&self) -> usize {
        self.particles
    }
}

/// Process `rank`'s part of `scene` split `processes` ways, balanced by particle count. From
/// the scene's start, each process samples the blocks one at a time and keeps only its own
/// particles (no process holds the whole fluid); from `restored` (a solver every process
/// restored from the same checkpoint), each keeps its own of them. Both keep the list's order:
/// the one a single process sorts from. No message is sent: an error is the same everywhere.
pub fn own_part(
    scene: &Scene,
    processes: usize,
    rank: usize,
    backend: nsearch::Backend,
    restored: Option<Solver>,
) -> Result<Part, String> {
    // Planes and positions in the solver's coordinates, as `Solver::keeping` hands them to
    // `mine`.
    let local = scene.local();
    let domain = domain_of(&local)?;
    let axis = slab_axis(&domain);
    let reach = scene.search.cell_size.reach();
    let plane = |q: Vec3A| domain.cell_coords(q)[axis];
    let mut counts = vec![0u64; domain.dims[axis]];
    match &restored {
        Some(s) => s.fluid.x.iter().for_each(|&q| counts[plane(q)] += 1),
        None => local.for_each_initial_particle(&mut |_, q, _| counts[plane(q)] += 1),
    }
    let particles = counts.iter().sum::<u64>() as usize;
    let slabs = Slabs::balanced(&counts, processes, reach).map_err(|e| e.to_string())?;
    let mine = |q: Vec3A| slabs.owner(plane(q)) == rank;
    let (mut solver, keys) = match restored {
        None => {
            let solver = Solver::keeping(scene, &mine).map_err(|e| e.to_string())?;
            // Ids are the places in the scene's list.
            let keys = solver.fluid.id.iter().map(|&i| i as u64).collect();
            (solver, keys)
        }
        Some(mut solver) => {
            let all = std::mem::take(&mut solver.fluid);
            let kept: Vec<usize> = (0..all.len()).filter(|&i| mine(all.x[i])).collect();
            let mut own = Fluid::at_rest(
                kept.iter().map(|&i| all.x[i]).collect(),
                scene.particles.rest_density,
            );
            own.v = kept.iter().map(|&i| all.v[i]).collect();
            own.id = kept.iter().map(|&i| all.id[i]).collect();
            own.swirl = kept.iter().map(|&i| all.swirl[i]).collect();
            solver.fluid = own;
            (solver, kept.iter().map(|&i| i as u64).collect())
        }
    };
    solver
        .set_search_backend(backend)
        .map_err(|e| format!("--backend: {e}"))?;
    Ok(Part {
        solver,
        slabs,
        axis,
        keys,
        particles,
    })
}

/// Run `scene` split over the processes of `world`, this process starting from `part` (see
/// [`own_part`] and [`check`]). Every process calls it; process 0 writes the `.pvtu`/`.pvd`
/// (or the gathered frames), `energy.csv` and the checkpoints, and returns the report others
/// also get. An error here may be one process's own (a file it cannot write): the caller ends
/// them all.
pub fn run(
    world: SimpleCommunicator,
    scene: &Scene,
    part: Part,
    opts: &MpiRunOptions,
    stop: &std::sync::atomic::AtomicBool,
    progress: &mut dyn crate::run::Progress,
) -> Result<MpiReport, String> {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let Part {
        mut solver,
        slabs,
        axis,
        keys,
        particles: total,
    } = part;
    let reach = scene.search.cell_size.reach();
    let d = *solver.domain();
    let halo = Arc::new(MpiHalo::new(world, d, axis, slabs, reach, keys));
    solver.set_halo(Box::new(halo.clone()));

    let dir_err = |e: std::io::Error| format!("{}: {e}", opts.dir.display());
    if rank == 0 {
        std::fs::create_dir_all(&opts.dir).map_err(dir_err)?;
        match &opts.resume {
            Some(c) => crate::io::clear_after_checkpoint(&opts.dir, c.run.next_frame),
            None => crate::io::clear_earlier_output(&opts.dir, &scene.name),
        }
        .map_err(dir_err)?;
    }
    halo.comm().barrier();

    let resumed = opts.resume.as_ref().map(|c| c.run.clone());
    let mut out = Output {
        writer: (rank == 0 && opts.gather && opts.format != Format::None).then(|| match &resumed {
            Some(r) => FrameWriter::resume(
                opts.dir.clone(),
                scene.name.clone(),
                opts.format,
                r.frames.clone(),
                r.obstacle_frames.clone(),
            ),
            None => FrameWriter::start(opts.dir.clone(), scene.name.clone(), opts.format),
        }),
        listed: resumed.as_ref().map_or(Vec::new(), |r| r.frames.clone()),
        obstacles_listed: resumed
            .as_ref()
            .map_or(Vec::new(), |r| r.obstacle_frames.clone()),
        rows: resumed.as_ref().map_or(Vec::new(), |r| r.measures.clone()),
        forces: resumed.as_ref().map_or(Vec::new(), |r| r.forces.clone()),
        impulse: resumed.as_ref().map_or(Vec::new(), |r| r.impulse.clone()),
        watch: resumed
            .as_ref()
            .map_or(Watch::new(scene.particles.radius), |r| r.watch),
        frames: 0,
    };
    let frame_dt = 1.0 / crate::scene::seconds(scene.output.fps);
    let mut next_frame = match &resumed {
        Some(r) => {
            if rank == 0 {
                out.write_energy(opts)?;
                out.write_forces(opts, solver.solid_count())?;
            }
            r.next_frame
        }
        None => {
            out.look(&solver, &halo, opts)?;
            out.frame(&solver, &halo, opts, scene, 0)?;
            1
        }
    };
    let first = solver.steps;
    let (mut step_sum, mut imb_max, mut rebalances, mut fast) = (0.0f64, 1.0f64, 0u64, 0u64);
    // As one process's run (every process has the same rows; process 0 says it).
    let mut energy = crate::io::energy::EnergyWatch::new(scene.energy_source().is_none());
    let mut counters = nsearch::SearchStats::default();
    let mut interrupted = false;
    for _ in first..opts.steps {
        let t = Instant::now();
        let (_, stats) = solver.step();
        counters += stats;
        crate::io::forces::add_impulse(&mut out.impulse, &solver.take_impulse());
        let local = t.elapsed().as_secs_f64();
        step_sum += halo.max_f64s(&[local])[0];
        // Blow-up: a non-finite state (or a speed crossing the domain in one step) anywhere
        // stops every process; so does an interrupt
        // any process saw (all stop after the same step).
        let (bad, v_max) = match crate::run::check_finite(&solver) {
            Ok(v) => (0.0, v as f64),
            Err(_) => (1.0, 0.0),
        };
        let asked = stop.load(std::sync::atomic::Ordering::Relaxed) as u8 as f64;
        let worst = halo.max_f64s(&[bad, v_max, asked]);
        if worst[0] > 0.0 {
            progress.end(true);
            return Err(format!(
                "step {} (t = {:.4} s): a particle's state is no longer finite, or fast enough to cross the whole domain in one step; the run is stopped ({} frames written)",
                solver.steps, solver.time, out.frames
            ));
        }
        if worst[1] * solver.dt() as f64 > solver.kernel_radius() as f64 {
            fast += 1;
        }
        // Balance: the load per plane, summed; new slabs when it is too uneven.
        let counts = halo.sum_all(&plane_loads(&solver, axis, opts.balance));
        let slabs = halo.slabs();
        let imb = imbalance(&slabs.loads(&counts));
        imb_max = imb_max.max(imb);
        if imb > opts.rebalance_above
            && let Ok(new) = Slabs::balanced(&counts, size, reach)
            && imbalance(&new.loads(&counts)) < imb
        {
            halo.set_slabs(new);
            rebalances += 1;
        }
        if solver.time + 1e-9 >= next_frame as f64 * frame_dt {
            out.look(&solver, &halo, opts)?;
            out.frame(&solver, &halo, opts, scene, next_frame)?;
            next_frame += 1;
            if let Some(w) = energy.look(&out.rows)
                && rank == 0
            {
                progress.warn(&w);
            }
        }
        let interrupt = worst[2] > 0.0;
        if let Some(every) = opts.checkpoint_every
            && (solver.steps.is_multiple_of(every.max(1)) || interrupt)
        {
            out.checkpoint(&solver, &halo, opts, scene, next_frame, total)?;
        }
        progress.tick(solver.steps - first, solver.time);
        if interrupt {
            interrupted = true;
            break;
        }
    }
    progress.end(interrupted);
    // The state at the end too, as one process's run looks at it (once, if a frame time).
    if out.rows.last().is_none_or(|l| l.time != solver.time) {
        out.look(&solver, &halo, opts)?;
        if let Some(w) = energy.look(&out.rows)
            && rank == 0
        {
            progress.warn(&w);
        }
    }
    if let Some(w) = out.writer.take() {
        w.finish()?;
    }
    if rank == 0 && !out.rows.is_empty() {
        let svg = crate::io::energy::chart_svg(&scene.name, &out.rows)?;
        let path = opts.dir.join(crate::run::ENERGY_SVG);
        write_atomic(&path, |tmp| std::fs::write(tmp, &svg)).map_err(dir_err)?;
    }
    if rank == 0
        && let Some(svg) =
            crate::io::forces::chart_svg(&scene.name, &out.forces, scene.obstacle.len())
    {
        let (svg, path) = (svg?, opts.dir.join(crate::run::FORCES_SVG));
        write_atomic(&path, |tmp| std::fs::write(tmp, &svg)).map_err(dir_err)?;
    }
    let slabs = halo.slabs();
    let loads = slabs.loads(&halo.sum_all(&plane_loads(&solver, axis, Balance::Count)));
    let balanced = slabs.loads(&halo.sum_all(&plane_loads(&solver, axis, opts.balance)));
    let r: ExchangeReport = halo.report();
    let sums = halo.sum_all(&[r.migration_bytes, r.ghost_bytes, r.refresh_bytes, r.ghosts]);
    let exchange = halo.max_f64s(&[r.seconds])[0];
    let done = solver.steps - first;
    let steps = done.max(1) as f64;
    // The search's work, ghosts included (what the split costs), over all processes.
    let c = halo.sum_all(&[
        counters.candidates,
        counters.neighbors,
        counters.cells_visited,
        counters.cells_pruned,
    ]);
    let peak = halo.max_f64s(&[crate::io::summary::peak_rss_bytes() as f64])[0] as u64;
    Ok(MpiReport {
        processes: size,
        particles: loads.iter().sum::<u64>() as usize,
        steps: done,
        interrupted,
        frames: out.frames,
        fast_steps: fast,
        step_s: step_sum / steps,
        exchange_s: exchange / steps,
        migration_bytes_per_step: sums[0] as f64 / steps,
        ghost_bytes_per_step: sums[1] as f64 / steps,
        refresh_bytes_per_step: sums[2] as f64 / steps,
        ghosts_per_step: sums[3] as f64 / steps,
        imbalance_end: imbalance(&balanced),
        imbalance_max: imb_max,
        rebalances,
        loads,
        search: nsearch::SearchStats {
            candidates: c[0],
            neighbors: c[1],
            cells_visited: c[2],
            cells_pruned: c[3],
        },
        peak_rss_bytes_max: peak,
        watch: out.watch,
        energy_gain: energy.report(&out.rows),
    })
}
