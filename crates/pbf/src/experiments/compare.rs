//! Pruned against unpruned neighbor search on one simulation: the records behind `pbf compare`,
//! the AABB paper's Table 1 (time per phase) and Table 2 (search targets and neighbors), its
//! Figure 5 (per-step reduction of construction + search) as an SVG chart, and a CSV of every
//! step.
//!
//! Owns: the comparison's stepper ([`Comparison`], driven by the one step loop) and turning its
//! [`CompareStep`]s into tables, CSV and a chart. Does not touch: the step itself (see
//! [`Solver::step_compare`]).

use super::report::{self, BLACK_RGBA, Panel, Series, Table, chart, color};
use crate::io::energy::Measures;
use crate::io::summary::Watch;
use crate::run::{RunError, Stepper};
use crate::solver::{CompareStep, ModeStep, Solver};
use nsearch::{NeighborSearch, SearchMode, SearchStats};

/// Why a comparison stopped early with an error.
#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error(
        "pruned and unpruned neighbor lists differ at step {step} (t = {time:.4} s), first at particle id {id}"
    )]
    Mismatch { step: u64, time: f64, id: u32 },
    #[error(transparent)]
    Run(#[from] RunError),
}

/// The `pbf compare` stepper: every step, the solver's own search and an unpruned one run on the
/// same predicted positions (alternating which goes first), and their lists must be identical.
pub struct Comparison<'a> {
    solver: &'a mut Solver,
    other: NeighborSearch,
    /// One record per step done.
    pub records: Vec<StepRecord>,
    /// Sum of the whole steps' times (both searches included), seconds.
    pub step_total: f64,
    /// What the run saw at the scene's frame times (as `pbf run` does): closest approaches,
    /// fastest particle, and the rows of `energy.csv`.
    pub watch: Watch,
    pub measures: Vec<Measures>,
    /// Steps in which a particle crossed the kernel radius.
    pub fast_steps: u64,
    frame_dt: f64,
}

impl<'a> Comparison<'a> {
    /// A comparison of `solver`'s search (pruned) against an unpruned one on the same grid.
    /// The state is looked at every `frame_dt` seconds of simulated time, from the start;
    /// `radius` is the particle radius (for the watch's report).
    pub fn new(solver: &'a mut Solver, steps: u64, frame_dt: f64, radius: f32) -> Self {
        let other = solver.new_search(SearchMode::Unpruned);
        let mut c = Comparison {
            solver,
            other,
            records: Vec::with_capacity(steps as usize),
            step_total: 0.0,
            watch: Watch::new(radius),
            measures: Vec::new(),
            fast_steps: 0,
            frame_dt,
        };
        c.look();
        c
    }

    /// The last look, at the end (as `pbf run` takes one), unless the last step fell on a
    /// frame time.
    pub fn finish(&mut self) {
        if self
            .measures
            .last()
            .is_some_and(|m| m.time != self.solver.time)
        {
            self.look();
        }
    }

    /// Look at the state: the watch and a row of `energy.csv`.
    fn look(&mut self) {
        let m = self.solver.look(&mut self.watch);
        self.measures.push(m);
    }
}

impl Stepper for Comparison<'_> {
    type Error = CompareError;

    fn solver(&self) -> &Solver {
        self.solver
    }

    fn fast_step(&mut self) {
        self.fast_steps += 1;
    }

    fn step(&mut self, index: u64) -> Result<(), CompareError> {
        let (particles, before) = (self.solver.fluid.len(), self.solver.steps);
        let c = self.solver.step_compare(&mut self.other, index % 2 == 1);
        if self.solver.steps == before {
            return Ok(()); // abandoned by a stop request: no record
        }
        self.step_total += c.step;
        self.records
            .push(StepRecord::new(index + 1, self.solver.time, particles, &c));
        if self.solver.time + 1e-9 >= self.measures.len() as f64 * self.frame_dt {
            self.look();
        }
        match c.mismatch {
            Some(id) => Err(CompareError::Mismatch {
                step: index + 1,
                time: self.solver.time,
                id,
            }),
            None => Ok(()),
        }
    }
}

/// One mode's share of a step, times in seconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModeRecord {
    /// Grid construction, the reordering of the particle arrays included.
    pub construction: f64,
    pub search: f64,
    pub stats: SearchStats,
}

impl ModeRecord {
    pub fn construction_and_search(&self) -> f64 {
        self.construction + self.search
    }
}

/// One step of a comparison.
#[derive(Clone, Copy, Debug)]
pub struct StepRecord {
    pub step: u64,
    /// Simulated time at the end of the step.
    pub time: f64,
    /// Particles the step searched (inflow may add more after it).
    pub particles: usize,
    pub unpruned: ModeRecord,
    pub pruned: ModeRecord,
    /// Particle behavior (the same work for either mode).
    pub behavior: f64,
}

impl StepRecord {
    /// From a compare step: each mode's construction gets the shared reordering of the
    /// particle arrays, as a normal step's construction does.
    pub fn new(step: u64, time: f64, particles: usize, c: &CompareStep) -> StepRecord {
        let rec = |m: &ModeStep| ModeRecord {
            construction: m.build + c.reorder,
            search: m.search,
            stats: m.stats,
        };
        let (pruned, unpruned) = if c.own.mode == SearchMode::Pruned {
            (rec(&c.own), rec(&c.other))
        } else {
            (rec(&c.other), rec(&c.own))
        };
        StepRecord {
            step,
            particles,
            time,
            unpruned,
            pruned,
            behavior: c.behavior,
        }
    }

    /// Reduction of construction + search by pruning, in percent.
    pub fn reduction_pct(&self) -> f64 {
        reduction(
            self.unpruned.construction_and_search(),
            self.pruned.construction_and_search(),
        )
    }
}

/// `100 (1 − b / a)`, 0 when `a` is 0.
pub fn reduction(a: f64, b: f64) -> f64 {
    if a > 0.0 { 100.0 * (1.0 - b / a) } else { 0.0 }
}

/// Per-step means of a comparison, as in the paper's tables.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Means {
    pub construction_s: f64,
    pub search_s: f64,
    pub construction_and_search_s: f64,
    pub behavior_s: f64,
    pub total_s: f64,
    /// Search target particles (candidates tested) per step.
    pub candidates: f64,
    /// Particles in the influence radius (neighbors found) per step.
    pub neighbors: f64,
}

/// Neighbors per particle (self included), averaged over the steps of `records`.
pub fn neighbors_per_particle(records: &[StepRecord]) -> f64 {
    let k = records.len().max(1) as f64;
    records
        .iter()
        .map(|r| r.pruned.stats.neighbors as f64 / r.particles.max(1) as f64)
        .sum::<f64>()
        / k
}

/// Both modes' means over `records`.
pub fn means(records: &[StepRecord]) -> (Means, Means) {
    let k = records.len().max(1) as f64;
    let of = |f: &dyn Fn(&StepRecord) -> ModeRecord| {
        let mut m = Means::default();
        for r in records {
            let x = f(r);
            m.construction_s += x.construction / k;
            m.search_s += x.search / k;
            m.behavior_s += r.behavior / k;
            m.candidates += x.stats.candidates as f64 / k;
            m.neighbors += x.stats.neighbors as f64 / k;
        }
        m.construction_and_search_s = m.construction_s + m.search_s;
        m.total_s = m.construction_and_search_s + m.behavior_s;
        m
    };
    (of(&|r| r.unpruned), of(&|r| r.pruned))
}

/// The paper's Table 1 and Table 2, side by side for "(1) Uniform grid" and "(2) AABB pruning",
/// with the reductions.
pub fn tables(records: &[StepRecord]) -> String {
    let (u, p) = means(records);
    let columns = [
        ("(1) Uniform grid", 18),
        ("(2) AABB pruning", 18),
        ("reduction", 10),
    ];
    let rows = |t: &mut Table, rows: &[(&str, f64, f64)], digits: usize| {
        for &(name, a, b) in rows {
            t.row([
                name.to_string(),
                format!("{a:.digits$}"),
                format!("{b:.digits$}"),
                format!("{:.1}%", reduction(a, b)),
            ]);
        }
    };
    let mut t1 = Table::with_labels(36, &columns);
    rows(
        &mut t1,
        &[
            ("construction", u.construction_s, p.construction_s),
            ("search", u.search_s, p.search_s),
            (
                "construction + search",
                u.construction_and_search_s,
                p.construction_and_search_s,
            ),
            ("particle behavior", u.behavior_s, p.behavior_s),
            ("total", u.total_s, p.total_s),
        ],
        5,
    );
    let mut t2 = Table::with_labels(36, &columns);
    rows(
        &mut t2,
        &[
            ("search target particles", u.candidates, p.candidates),
            (
                "particles in the influence radius",
                u.neighbors,
                p.neighbors,
            ),
        ],
        0,
    );
    format!(
        "Table 1: mean seconds per step over {} steps\n{}\nTable 2: mean particles per step\n{}",
        records.len(),
        t1.text(),
        t2.text()
    )
}

/// Every step as CSV: both modes' construction and search times (ms) and counters.
pub fn csv(records: &[StepRecord]) -> String {
    let mut cols = vec!["step".to_string(), "time_s".to_string()];
    for mode in ["unpruned", "pruned"] {
        for col in [
            "construction_ms",
            "search_ms",
            "candidates",
            "neighbors",
            "cells_visited",
            "cells_pruned",
        ] {
            cols.push(format!("{mode}_{col}"));
        }
    }
    cols.extend([
        "behavior_ms".to_string(),
        "reduction_pct".to_string(),
        "particles".to_string(),
    ]);
    let header: Vec<&str> = cols.iter().map(String::as_str).collect();
    report::csv(
        &header,
        records.iter().map(|r| {
            let mut row = vec![r.step.to_string(), format!("{:.6}", r.time)];
            for m in [&r.unpruned, &r.pruned] {
                row.extend([
                    format!("{:.4}", m.construction * 1e3),
                    format!("{:.4}", m.search * 1e3),
                    m.stats.candidates.to_string(),
                    m.stats.neighbors.to_string(),
                    m.stats.cells_visited.to_string(),
                    m.stats.cells_pruned.to_string(),
                ]);
            }
            row.extend([
                format!("{:.4}", r.behavior * 1e3),
                format!("{:.3}", r.reduction_pct()),
                r.particles.to_string(),
            ]);
            row
        }),
    )
}

/// The paper's Figure 5 as an SVG chart: the per-step reduction rate of construction + search
/// (top), and the search target particles per step of both modes (bottom).
pub fn svg(title: &str, records: &[StepRecord]) -> Result<String, String> {
    let step = |r: &StepRecord| r.step as f64;
    let red: Vec<(f64, f64)> = records
        .iter()
        .map(|r| (step(r), r.reduction_pct()))
        .collect();
    let mean = records.iter().map(|r| r.reduction_pct()).sum::<f64>() / records.len().max(1) as f64;
    let span = [records.first(), records.last()].map(|r| r.map_or(0.0, step));
    let mut per_step = Series::line("per step", red, color(0));
    per_step.line = 1;
    let mut top = Panel::new(
        format!("{title}: reduction of construction + search by AABB pruning"),
        "step",
        "reduction rate (%)",
    );
    top.series = vec![
        per_step,
        Series::line(
            format!("mean {mean:.1}%"),
            span.map(|x| (x, mean)).to_vec(),
            color(1),
        ),
    ];
    let mut bottom = Panel::new(
        "search target particles per step",
        "step",
        "candidates (millions)",
    );
    let candidates = |f: fn(&StepRecord) -> u64| -> Vec<(f64, f64)> {
        records
            .iter()
            .map(|r| (step(r), f(r) as f64 / 1e6))
            .collect()
    };
    bottom.series = vec![
        Series::line(
            "(1) uniform grid",
            candidates(|r| r.unpruned.stats.candidates),
            BLACK_RGBA,
        ),
        Series::line(
            "(2) AABB pruning",
            candidates(|r| r.pruned.stats.candidates),
            color(0),
        ),
    ];
    chart(&[top.fit(0.1), bottom.fit(0.1)], 960, 360)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(step: u64, u: (f64, f64, u64), p: (f64, f64, u64), behavior: f64) -> StepRecord {
        let m = |(c, s, cand): (f64, f64, u64)| ModeRecord {
            construction: c,
            search: s,
            stats: SearchStats {
                candidates: cand,
                neighbors: 100,
                cells_visited: 10,
                cells_pruned: 0,
            },
        };
        StepRecord {
            step,
            particles: 100,
            time: step as f64 * 0.01,
            unpruned: m(u),
            pruned: m(p),
            behavior,
        }
    }

    #[test]
    fn means_and_reductions_by_hand() {
        let r = [
            rec(1, (1.0, 3.0, 400), (1.0, 2.0, 200), 5.0),
            rec(2, (2.0, 2.0, 600), (1.0, 1.0, 300), 7.0),
        ];
        let (u, p) = means(&r);
        assert_eq!(u.construction_and_search_s, 4.0);
        assert_eq!(p.construction_and_search_s, 2.5);
        assert_eq!(u.behavior_s, 6.0);
        assert_eq!(p.total_s, 8.5);
        assert_eq!(u.candidates, 500.0);
        assert_eq!(p.candidates, 250.0);
        assert_eq!(reduction(u.candidates, p.candidates), 50.0);
        assert_eq!(r[0].reduction_pct(), 25.0);
        assert_eq!(r[1].reduction_pct(), 50.0);
        let t = tables(&r);
        assert!(t.contains("50.0%") && t.contains("37.5%"), "{t}");
        let c = csv(&r);
        assert_eq!(c.lines().count(), 3);
        assert!(c.lines().nth(2).unwrap().ends_with(",7000.0000,50.000,100"));
    }
}
