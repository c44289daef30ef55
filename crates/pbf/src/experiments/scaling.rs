//! How the cost of a step grows with the work: the records behind `pbf scaling`, as a table, a
//! CSV and an SVG chart (time per particle-step against particle count, one line per thread
//! count).
//!
//! Owns: the stepper of one size ([`SizeRun`], driven by the one step loop), the per-run records
//! and their reports. Does not touch: the step itself.

use crate::run::{RunError, Stepper, check_finite};
use crate::scene::Scene;
use crate::solver::Solver;
use std::fmt::Write as _;

/// Why a scaling run failed.
#[derive(Debug, thiserror::Error)]
pub enum ScalingError {
    #[error("could not start a thread pool")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    #[error(transparent)]
    Grid(#[from] nsearch::GridError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(
        "{particles} particles: the state after {steps} steps differs between {a} and {b} threads"
    )]
    Differs {
        particles: usize,
        steps: u64,
        a: usize,
        b: usize,
    },
}

/// One size of a sweep: one solver per thread count, each in its own pool, stepped in turn (the
/// order rotating every step), so a busy spell of the shared machine hits every thread count
/// alike. They simulate the same scene, and results do not depend on the thread count, so they
/// do the same work every step; their states must stay bit-identical. The first step is untimed
/// (first touches of memory, pool start-up): run it for `steps + 1` steps.
pub struct SizeRun {
    threads: Vec<usize>,
    pools: Vec<rayon::ThreadPool>,
    solvers: Vec<Solver>,
    /// Per thread count, the timed steps' seconds.
    times: Vec<Vec<f64>>,
    /// Per thread count, the neighbors found in the timed steps.
    neighbors: Vec<u64>,
}

impl SizeRun {
    /// Solvers for `scene`, one per entry of `threads` (each at least 1).
    pub fn new(scene: &Scene, threads: &[usize]) -> Result<SizeRun, ScalingError> {
        let pools = threads
            .iter()
            .map(|&t| rayon::ThreadPoolBuilder::new().num_threads(t).build())
            .collect::<Result<Vec<_>, _>>()?;
        let solvers = pools
            .iter()
            .map(|pool| pool.install(|| Solver::new(scene)))
            .collect::<Result<Vec<_>, _>>()?;
        let k = solvers.len();
        Ok(SizeRun {
            threads: threads.to_vec(),
            pools,
            solvers,
            times: vec![Vec::new(); k],
            neighbors: vec![0; k],
        })
    }

    /// The rows of this size (radius `radius`), after every state was checked finite and equal.
    pub fn rows(&self, radius: f32) -> Result<Vec<ScalingRow>, ScalingError> {
        let first = &self.solvers[0];
        let steps = self.times[0].len() as u64;
        for (s, solver) in self.solvers.iter().enumerate() {
            check_finite(solver)?;
            if solver.fluid.x != first.fluid.x || solver.fluid.v != first.fluid.v {
                return Err(ScalingError::Differs {
                    particles: solver.fluid.len(),
                    steps: steps + 1,
                    a: self.threads[0],
                    b: self.threads[s],
                });
            }
        }
        Ok(self
            .threads
            .iter()
            .enumerate()
            .map(|(s, &t)| {
                let n = self.solvers[s].fluid.len();
                ScalingRow {
                    particles: n,
                    radius,
                    threads: t,
                    steps,
                    step_s: crate::experiments::bench_search::median(&self.times[s]),
                    neighbors: self.neighbors[s] as f64 / steps.max(1) as f64 / n.max(1) as f64,
                }
            })
            .collect())
    }
}

impl Stepper for SizeRun {
    type Error = ScalingError;

    fn solver(&self) -> &Solver {
        &self.solvers[0]
    }

    fn step(&mut self, step: u64) -> Result<(), ScalingError> {
        let k = self.solvers.len();
        for o in 0..k {
            let s = (step as usize + o) % k;
            let solver = &mut self.solvers[s];
            let (st, stats) = self.pools[s].install(|| solver.step());
            if step > 0 {
                self.times[s].push(st.step);
                self.neighbors[s] += stats.neighbors;
            }
        }
        Ok(())
    }
}

/// One timed run: a particle count and a thread count.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct ScalingRow {
    pub particles: usize,
    pub radius: f32,
    pub threads: usize,
    pub steps: u64,
    /// Median seconds per step over the timed steps.
    pub step_s: f64,
    /// Mean neighbors per particle (self included).
    pub neighbors: f64,
}

impl ScalingRow {
    /// Nanoseconds per particle-step.
    pub fn ns_per_particle_step(&self) -> f64 {
        self.step_s * 1e9 / self.particles.max(1) as f64
    }
}

/// The runs as a table, with the speedup over the fewest threads at the same size.
pub fn table(rows: &[ScalingRow]) -> String {
    let mut s = format!(
        "{:>10} {:>8} {:>8} {:>12} {:>16} {:>11} {:>9}\n",
        "particles", "radius", "threads", "ms / step", "ns / particle", "neighbors", "speedup"
    );
    for r in rows {
        let base = rows
            .iter()
            .filter(|b| b.particles == r.particles)
            .min_by_key(|b| b.threads)
            .map_or(r.step_s, |b| b.step_s);
        let _ = writeln!(
            s,
            "{:>10} {:>8.5} {:>8} {:>12.2} {:>16.1} {:>11.1} {:>8.2}x",
            r.particles,
            r.radius,
            r.threads,
            r.step_s * 1e3,
            r.ns_per_particle_step(),
            r.neighbors,
            base / r.step_s
        );
    }
    s
}

pub fn csv(rows: &[ScalingRow]) -> String {
    let mut s =
        String::from("particles,radius,threads,steps,step_ms,ns_per_particle_step,neighbors\n");
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{:.4},{:.3},{:.2}",
            r.particles,
            r.radius,
            r.threads,
            r.steps,
            r.step_s * 1e3,
            r.ns_per_particle_step(),
            r.neighbors
        );
    }
    s
}

/// Time per particle-step against particle count (log scale), one line per thread count.
pub fn svg(title: &str, rows: &[ScalingRow]) -> Result<String, String> {
    use plotters::prelude::*;
    let mut buf = String::new();
    {
        let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
        let root = SVGBackend::with_string(&mut buf, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let (nmin, nmax) = rows.iter().fold((f64::MAX, 0.0f64), |(a, b), r| {
            (a.min(r.particles as f64), b.max(r.particles as f64))
        });
        let ymax = rows
            .iter()
            .map(|r| r.ns_per_particle_step())
            .fold(0.0, f64::max);
        let mut c = ChartBuilder::on(&root)
            .caption(
                format!("{title}: time per particle-step"),
                ("sans-serif", 20),
            )
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(
                ((nmin * 0.8).max(1.0)..nmax * 1.25).log_scale(),
                0.0..ymax * 1.2,
            )
            .map_err(|e| err(&e))?;
        c.configure_mesh()
            .x_desc("particles")
            .y_desc("ns per particle-step")
            .x_label_formatter(&|x| format!("{:.0}k", x / 1e3))
            .draw()
            .map_err(|e| err(&e))?;
        let mut threads: Vec<usize> = rows.iter().map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        for (k, &t) in threads.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.threads == t)
                .map(|r| (r.particles as f64, r.ns_per_particle_step()))
                .collect();
            c.draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(format!("{t} thread{}", if t == 1 { "" } else { "s" }))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            c.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, color.filled())))
                .map_err(|e| err(&e))?;
        }
        c.configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(buf)
}
