//! What a split run writes: frames in pieces (each process its own) or gathered on process 0,
//! the `.pvtu` and `.pvd`, the obstacles' surfaces, `energy.csv` from measures summed over
//! processes, the watch, and checkpoints gathered into the one-process order.
//!
//! Owns: [`Output`] and the gathers. Does not touch: the step or the split (`mpi_run`,
//! `mpi_halo`); the formats themselves (io).

use super::mpi_halo::MpiHalo;
use super::mpi_run::MpiRunOptions;
use crate::checkpoint::{Checkpoint, RunState, SolverState};
use crate::io::energy::Measures;
use crate::io::frame::{Frame, PointArray};
use crate::io::pieces::{piece_name, pvtu_name, pvtu_text};
use crate::io::summary::Watch;
use crate::io::{FrameWriter, series_name, series_text, write_atomic};
use crate::particles::Fluid;
use crate::scene::{Format, Scene};
use crate::solver::Solver;
use glam::Vec3A;
use mpi::traits::*;

/// Where frames go: process 0's writer (gathered) or the pieces and the `.pvd` list.
pub(crate) struct Output {
    pub(crate) writer: Option<FrameWriter>,
    pub(crate) listed: Vec<(f64, String)>,
    pub(crate) obstacles_listed: Vec<(f64, String)>,
    /// The rows of `energy.csv` so far (process 0's copy is written).
    pub(crate) rows: Vec<Measures>,
    /// The rows of `forces.csv` so far, and each solid's and wall's impulse on the fluid since
    /// the last (the same on every process: the solver sums it over them).
    pub(crate) forces: Vec<crate::io::forces::ForceRow>,
    pub(crate) impulse: Vec<[f64; 3]>,
    /// The closest approaches to walls and obstacles and the fastest particle, at frame times.
    pub(crate) watch: Watch,
    pub(crate) frames: usize,
}

/// One owned particle's frame values, as gathered on process 0.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Row {
    x: [f32; 3],
    v: [f32; 3],
    w: [f32; 3],
    density: f32,
    id: u32,
    neighbors: u32,
}
unsafe impl super::Plain for Row {}

/// One owned particle's state, gathered on process 0 for a checkpoint.
#[derive(Clone, Copy, Default)]
#[repr(C)]
struct Saved {
    key: u64,
    x: [f32; 3],
    v: [f32; 3],
    id: u32,
    swirl: f32,
}
unsafe impl super::Plain for Saved {}

/// Gather every process's `rows` on process 0 (`Some` there, `None` elsewhere).
/// MPI counts bytes in `i32`: the whole must stay under 2 GiB (about 45M particles), an error
/// on every process otherwise.
fn gather<T: super::Plain + Default>(halo: &MpiHalo, rows: &[T]) -> Result<Option<Vec<T>>, String> {
    let comm = halo.comm();
    let root = comm.process_at_rank(0);
    let bytes = std::mem::size_of_val(rows) as u64;
    let total = halo.sum_all(&[bytes])[0];
    if total > i32::MAX as u64 {
        return Err(format!(
            "gathering {total} bytes on process 0 is more than MPI counts in one message: write frames in pieces (no --gather); checkpoints of this size need one file per process, not written yet"
        ));
    }
    let n = bytes as i32;
    Ok(if halo.rank() == 0 {
        let mut counts = vec![0i32; halo.size()];
        root.gather_into_root(&n, &mut counts[..]);
        let displs: Vec<i32> = counts
            .iter()
            .scan(0, |acc, &c| {
                let d = *acc;
                *acc += c;
                Some(d)
            })
            .collect();
        let total: i32 = counts.iter().sum();
        let mut all = vec![T::default(); total as usize / std::mem::size_of::<T>()];
        {
            let mut part = mpi::datatype::PartitionMut::new(
                super::bytes_of_mut(&mut all),
                &counts[..],
                &displs[..],
            );
            root.gather_varcount_into_root(super::bytes_of(rows), &mut part);
        }
        Some(all)
    } else {
        root.gather_into(&n);
        root.gather_varcount_into(super::bytes_of(rows));
        None
    })
}

impl Output {
    /// A row of `energy.csv` at a frame time: each process's measures of its own particles,
    /// summed (energies, counts) or maximised (densest, fastest, highest) over processes. Sums
    /// in another order than one process's: the same to the CSV's digits, give or take the last.
    pub(crate) fn look(
        &mut self,
        solver: &Solver,
        halo: &MpiHalo,
        opts: &MpiRunOptions,
    ) -> Result<(), String> {
        let m = solver.measures();
        let n = m.particles as f64;
        let s = halo.sum_f64s(&[
            n,
            m.kinetic,
            m.potential,
            m.density_error_pct * n,
            m.speed_mean * n,
        ]);
        let top = if m.particles > 0 {
            m.top as f64
        } else {
            f64::NEG_INFINITY
        };
        // The closest approaches as maxima of their negatives (one reduction for all).
        let (tank, obstacles) = solver.clearance();
        let x = halo.max_f64s(&[
            m.density_max as f64,
            m.speed_max as f64,
            top,
            -(tank as f64),
            -(obstacles as f64),
        ]);
        self.watch.add(-x[3] as f32, -x[4] as f32, x[1] as f32);
        let per = |v: f64| if s[0] > 0.0 { v / s[0] } else { 0.0 };
        let since = self.rows.last().map(|l| l.time);
        self.rows.push(Measures {
            time: m.time,
            particles: s[0] as usize,
            kinetic: s[1],
            potential: s[2],
            density_error_pct: per(s[3]),
            density_max: x[0] as f32,
            speed_mean: per(s[4]),
            speed_max: x[1] as f32,
            top: if s[0] > 0.0 { x[2] as f32 } else { 0.0 },
        });
        let row = since.and_then(|t| crate::io::forces::take_row(&mut self.impulse, t, m.time));
        if let Some(row) = row {
            self.forces.push(row);
        }
        if halo.rank() == 0 {
            self.write_energy(opts)?;
            self.write_forces(opts, solver.solid_count())?;
        }
        Ok(())
    }

    /// `forces.csv` (process 0; none without rows).
    pub(crate) fn write_forces(&self, opts: &MpiRunOptions, solids: usize) -> Result<(), String> {
        let path = opts.dir.join(crate::run::FORCES_CSV);
        crate::io::forces::write(&path, &self.forces, solids)
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    pub(crate) fn write_energy(&self, opts: &MpiRunOptions) -> Result<(), String> {
        let path = opts.dir.join(crate::run::ENERGY_CSV);
        let text = crate::io::energy::csv_text(&self.rows);
        write_atomic(&path, |tmp| std::fs::write(tmp, &text))
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The whole state, gathered on process 0 in the one-process slot order (the order keys)
    /// and written as an ordinary checkpoint.
    pub(crate) fn checkpoint(
        &mut self,
        solver: &Solver,
        halo: &MpiHalo,
        opts: &MpiRunOptions,
        scene: &Scene,
        next_frame: usize,
        particles_start: usize,
    ) -> Result<(), String> {
        let f = &solver.fluid;
        let keys = halo.keys();
        let rows: Vec<Saved> = (0..f.len())
            .map(|i| Saved {
                key: keys[i],
                x: f.x[i].to_array(),
                v: f.v[i].to_array(),
                id: f.id[i],
                swirl: f.swirl[i],
            })
            .collect();
        let Some(mut all) = gather(halo, &rows)? else {
            return Ok(());
        };
        all.sort_unstable_by_key(|r| r.key);
        let state = solver.state();
        let (frames, obstacle_frames) = match &self.writer {
            Some(w) => w.flush()?,
            None => (self.listed.clone(), self.obstacles_listed.clone()),
        };
        let c = Checkpoint {
            scene_name: scene.name.clone(),
            scene_key: crate::checkpoint::scene_key::scene_key(scene),
            solver: SolverState {
                x: all.iter().map(|r| r.x).collect(),
                v: all.iter().map(|r| r.v).collect(),
                id: all.iter().map(|r| r.id).collect(),
                swirl: all.iter().map(|r| r.swirl).collect(),
                ..state
            },
            run: RunState {
                format: opts.format,
                next_frame,
                frames,
                obstacle_frames,
                particles_start,
                particle_steps: 0,
                phases: Default::default(),
                counters: Default::default(),
                watch: self.watch,
                fast_steps: 0,
                measures: self.rows.clone(),
                solve: Default::default(),
                forces: self.forces.clone(),
                impulse: self.impulse.clone(),
            },
        };
        crate::checkpoint::write(&opts.dir, &c)
            .map(|_| ())
            .map_err(|e| format!("{}: writing a checkpoint: {e}", opts.dir.display()))
    }

    pub(crate) fn frame(
        &mut self,
        solver: &Solver,
        halo: &MpiHalo,
        opts: &MpiRunOptions,
        scene: &Scene,
        k: usize,
    ) -> Result<(), String> {
        if opts.format == Format::None {
            return Ok(());
        }
        let f = &solver.fluid;
        let comm = halo.comm();
        if opts.gather {
            let rows: Vec<Row> = (0..f.len())
                .map(|i| Row {
                    x: f.x[i].to_array(),
                    v: f.v[i].to_array(),
                    w: f.vorticity[i].to_array(),
                    density: f.density[i],
                    id: f.id[i],
                    neighbors: f.neighbors[i],
                })
                .collect();
            if let Some(all) = gather(halo, &rows)? {
                // As one process holds them: ids dense, any order (the frame puts them in id
                // order).
                let mut g =
                    Fluid::at_rest(all.iter().map(|r| Vec3A::from_array(r.x)).collect(), 0.0);
                g.id = all.iter().map(|r| r.id).collect();
                g.v = all.iter().map(|r| Vec3A::from_array(r.v)).collect();
                g.vorticity = all.iter().map(|r| Vec3A::from_array(r.w)).collect();
                g.density = all.iter().map(|r| r.density).collect();
                g.neighbors = all.iter().map(|r| r.neighbors).collect();
                let mut frame = g.frame(k, solver.time, solver.origin());
                frame.obstacles = solver.obstacle_mesh();
                if let Some(w) = &mut self.writer {
                    w.push(frame)?;
                }
            }
        } else {
            // This process's piece: its particles in id order.
            let mut order: Vec<usize> = (0..f.len()).collect();
            order.sort_unstable_by_key(|&i| f.id[i]);
            let pick3 = |a: &[Vec3A]| order.iter().map(|&i| a[i]).collect::<Vec<_>>();
            let mut points = pick3(&f.x);
            points.iter_mut().for_each(|p| *p += solver.origin());
            let frame = Frame {
                index: k,
                time: solver.time,
                points,
                obstacles: None,
                arrays: vec![
                    PointArray::u32("id", order.iter().map(|&i| f.id[i]).collect()),
                    PointArray::vec3("velocity", pick3(&f.v)),
                    PointArray::f32("density", order.iter().map(|&i| f.density[i]).collect()),
                    PointArray::vec3("vorticity", pick3(&f.vorticity)),
                    PointArray::u32("neighbors", order.iter().map(|&i| f.neighbors[i]).collect()),
                ],
            };
            let path = opts.dir.join(piece_name(k, halo.rank()));
            write_atomic(&path, |tmp| {
                let mut w = std::io::BufWriter::new(std::fs::File::create(tmp)?);
                frame.write_vtu(&mut w)?;
                std::io::Write::flush(&mut w)
            })
            .map_err(|e| format!("{}: {e}", path.display()))?;
            // Every piece on disk before the `.pvtu` names it.
            comm.barrier();
            if halo.rank() == 0 {
                let pvtu = opts.dir.join(pvtu_name(k));
                let text = pvtu_text(&frame, k, halo.size());
                write_atomic(&pvtu, |tmp| std::fs::write(tmp, &text))
                    .map_err(|e| format!("{}: {e}", pvtu.display()))?;
                self.listed.push((solver.time, pvtu_name(k)));
                let series = opts.dir.join(series_name(&scene.name, Format::Vtu));
                let text = series_text(Format::Vtu, &self.listed);
                write_atomic(&series, |tmp| std::fs::write(tmp, &text))
                    .map_err(|e| format!("{}: {e}", series.display()))?;
                // The obstacles' surfaces (the same on every process), as one process writes them.
                let surfaces = Frame {
                    obstacles: solver.obstacle_mesh(),
                    ..Frame::default()
                };
                let surfaces = Frame {
                    index: k,
                    time: solver.time,
                    ..surfaces
                };
                if let Some(path) = crate::io::write_obstacles(&opts.dir, &surfaces, Format::Vtu)
                    .map_err(|e| format!("{}: {e}", opts.dir.display()))?
                {
                    let file = path.file_name().unwrap().to_string_lossy().to_string();
                    self.obstacles_listed.push((solver.time, file));
                    let series = opts.dir.join(series_name(
                        &format!("{}_obstacles", scene.name),
                        Format::Vtu,
                    ));
                    let text = series_text(Format::Vtu, &self.obstacles_listed);
                    write_atomic(&series, |tmp| std::fs::write(tmp, &text))
                        .map_err(|e| format!("{}: {e}", series.display()))?;
                }
            }
        }
        self.frames += 1;
        Ok(())
    }
}
