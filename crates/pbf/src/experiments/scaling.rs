//! How the cost of a step grows with the work: the records behind `pbf scaling`, as a table, a
//! CSV and an SVG chart (time per particle-step against particle count, one line per thread
//! count).
//!
//! Owns: the stepper of one size ([`SizeRun`], driven by the one step loop), the per-run records
//! and their reports. Does not touch: the step itself.

use super::report::{self, Panel, Series, Table, chart, color};
use crate::run::{RunError, Stepper, check_finite};
use crate::scene::Scene;
use crate::solver::Solver;

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
    let mut t = Table::new(&[
        ("particles", 10),
        ("radius", 8),
        ("threads", 8),
        ("ms / step", 12),
        ("ns / particle", 16),
        ("neighbors", 11),
        ("speedup", 9),
    ]);
    for r in rows {
        let base = rows
            .iter()
            .filter(|b| b.particles == r.particles)
            .min_by_key(|b| b.threads)
            .map_or(r.step_s, |b| b.step_s);
        t.row([
            r.particles.to_string(),
            format!("{:.5}", r.radius),
            r.threads.to_string(),
            format!("{:.2}", r.step_s * 1e3),
            format!("{:.1}", r.ns_per_particle_step()),
            format!("{:.1}", r.neighbors),
            format!("{:.2}x", base / r.step_s),
        ]);
    }
    t.text().to_string()
}

/// Every run as CSV.
pub fn csv(rows: &[ScalingRow]) -> String {
    report::csv(
        &[
            "particles",
            "radius",
            "threads",
            "steps",
            "step_ms",
            "ns_per_particle_step",
            "neighbors",
        ],
        rows.iter().map(|r| {
            [
                r.particles.to_string(),
                r.radius.to_string(),
                r.threads.to_string(),
                r.steps.to_string(),
                format!("{:.4}", r.step_s * 1e3),
                format!("{:.3}", r.ns_per_particle_step()),
                format!("{:.2}", r.neighbors),
            ]
        }),
    )
}

/// Time per particle-step against particle count (log scale), one line per thread count.
pub fn svg(title: &str, rows: &[ScalingRow]) -> Result<String, String> {
    let mut threads: Vec<usize> = rows.iter().map(|r| r.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let mut panel = Panel::new(
        format!("{title}: time per particle-step"),
        "particles",
        "ns per particle-step",
    );
    panel.log_x = true;
    panel.x_in_thousands = true;
    panel.series = threads
        .iter()
        .enumerate()
        .map(|(k, &t)| {
            let pts = rows
                .iter()
                .filter(|r| r.threads == t)
                .map(|r| (r.particles as f64, r.ns_per_particle_step()))
                .collect();
            let mut s = Series::line(
                format!("{t} thread{}", if t == 1 { "" } else { "s" }),
                pts,
                color(k),
            );
            s.dots = 4;
            s
        })
        .collect();
    chart(&[panel.fit(0.2)], 900, 560)
}
