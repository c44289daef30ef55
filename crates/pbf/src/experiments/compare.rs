//! Pruned against unpruned neighbor search on one simulation: the records behind `pbf compare`,
//! the AABB paper's Table 1 (time per phase) and Table 2 (search targets and neighbors), its
//! Figure 5 (per-step reduction of construction + search) as an SVG chart, and a CSV of every
//! step.
//!
//! Owns: the comparison's stepper ([`Comparison`], driven by the one step loop) and turning its
//! [`CompareStep`]s into tables, CSV and a chart. Does not touch: the step itself (see
//! [`Solver::step_compare`]).

use crate::run::{RunError, Stepper};
use crate::solver::{CompareStep, ModeStep, Solver};
use nsearch::{NeighborSearch, SearchMode, SearchStats};
use std::fmt::Write as _;

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
}

impl<'a> Comparison<'a> {
    /// A comparison of `solver`'s search (pruned) against an unpruned one on the same grid.
    pub fn new(solver: &'a mut Solver, steps: u64) -> Self {
        let other = solver.new_search(SearchMode::Unpruned);
        Comparison {
            solver,
            other,
            records: Vec::with_capacity(steps as usize),
            step_total: 0.0,
        }
    }
}

impl Stepper for Comparison<'_> {
    type Error = CompareError;

    fn solver(&self) -> &Solver {
        self.solver
    }

    fn step(&mut self, index: u64) -> Result<(), CompareError> {
        let c = self.solver.step_compare(&mut self.other, index % 2 == 1);
        self.step_total += c.step;
        self.records
            .push(StepRecord::new(index + 1, self.solver.time, &c));
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
    pub unpruned: ModeRecord,
    pub pruned: ModeRecord,
    /// Particle behavior (the same work for either mode).
    pub behavior: f64,
}

impl StepRecord {
    /// From a compare step: each mode's construction gets the shared reordering of the
    /// particle arrays, as a normal step's construction does.
    pub fn new(step: u64, time: f64, c: &CompareStep) -> StepRecord {
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
    let mut s = String::new();
    let head = |s: &mut String, title: &str| {
        let _ = writeln!(s, "{title}");
        let _ = writeln!(
            s,
            "{:<36} {:>18} {:>18} {:>10}",
            "", "(1) Uniform grid", "(2) AABB pruning", "reduction"
        );
    };
    head(
        &mut s,
        &format!(
            "Table 1: mean seconds per step over {} steps",
            records.len()
        ),
    );
    for (name, a, b) in [
        ("construction", u.construction_s, p.construction_s),
        ("search", u.search_s, p.search_s),
        (
            "construction + search",
            u.construction_and_search_s,
            p.construction_and_search_s,
        ),
        ("particle behavior", u.behavior_s, p.behavior_s),
        ("total", u.total_s, p.total_s),
    ] {
        let _ = writeln!(
            s,
            "{name:<36} {a:>18.5} {b:>18.5} {:>9.1}%",
            reduction(a, b)
        );
    }
    let _ = writeln!(s);
    head(&mut s, "Table 2: mean particles per step");
    for (name, a, b) in [
        ("search target particles", u.candidates, p.candidates),
        (
            "particles in the influence radius",
            u.neighbors,
            p.neighbors,
        ),
    ] {
        let _ = writeln!(
            s,
            "{name:<36} {a:>18.0} {b:>18.0} {:>9.1}%",
            reduction(a, b)
        );
    }
    s
}

/// Every step as CSV: both modes' construction and search times (ms) and counters.
pub fn csv(records: &[StepRecord]) -> String {
    let mut s = String::from(
        "step,time_s,unpruned_construction_ms,unpruned_search_ms,unpruned_candidates,\
         unpruned_neighbors,unpruned_cells_visited,unpruned_cells_pruned,\
         pruned_construction_ms,pruned_search_ms,pruned_candidates,pruned_neighbors,\
         pruned_cells_visited,pruned_cells_pruned,behavior_ms,reduction_pct\n",
    );
    for r in records {
        let _ = write!(s, "{},{:.6}", r.step, r.time);
        for m in [&r.unpruned, &r.pruned] {
            let _ = write!(
                s,
                ",{:.4},{:.4},{},{},{},{}",
                m.construction * 1e3,
                m.search * 1e3,
                m.stats.candidates,
                m.stats.neighbors,
                m.stats.cells_visited,
                m.stats.cells_pruned
            );
        }
        let _ = writeln!(s, ",{:.4},{:.3}", r.behavior * 1e3, r.reduction_pct());
    }
    s
}

/// The paper's Figure 5 as an SVG chart: the per-step reduction rate of construction + search
/// (top), and the search target particles per step of both modes (bottom).
pub fn svg(title: &str, records: &[StepRecord]) -> Result<String, String> {
    let mut buf = String::new();
    draw(&mut buf, title, records)?;
    Ok(buf)
}

fn draw(buf: &mut String, title: &str, records: &[StepRecord]) -> Result<(), String> {
    use plotters::prelude::*;
    let err = |e: &dyn std::fmt::Display| format!("drawing the chart: {e}");
    let root = SVGBackend::with_string(buf, (960, 720)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, bottom) = root.split_vertically(360);
    let steps = records.last().map_or(1, |r| r.step).max(1);
    let first = records.first().map_or(0, |r| r.step);

    let red: Vec<(u64, f64)> = records
        .iter()
        .map(|r| (r.step, r.reduction_pct()))
        .collect();
    let mean = records.iter().map(|r| r.reduction_pct()).sum::<f64>() / records.len().max(1) as f64;
    let (lo, hi) = red
        .iter()
        .fold((0.0f64, 0.0f64), |(a, b), &(_, y)| (a.min(y), b.max(y)));
    let mut c = ChartBuilder::on(&top)
        .caption(
            format!("{title}: reduction of construction + search by AABB pruning"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(first..steps, (lo - 5.0)..(hi + 5.0))
        .map_err(|e| err(&e))?;
    c.configure_mesh()
        .x_desc("step")
        .y_desc("reduction rate (%)")
        .draw()
        .map_err(|e| err(&e))?;
    c.draw_series(LineSeries::new(red, &BLUE))
        .map_err(|e| err(&e))?
        .label("per step")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE));
    c.draw_series(LineSeries::new(
        [(first, mean), (steps, mean)],
        RED.stroke_width(2),
    ))
    .map_err(|e| err(&e))?
    .label(format!("mean {mean:.1}%"))
    .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], RED.stroke_width(2)));
    c.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;

    let top_c = records
        .iter()
        .map(|r| r.unpruned.stats.candidates.max(r.pruned.stats.candidates))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut c = ChartBuilder::on(&bottom)
        .caption("search target particles per step", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(first..steps, 0.0..top_c * 1.1 / 1e6)
        .map_err(|e| err(&e))?;
    c.configure_mesh()
        .x_desc("step")
        .y_desc("candidates (millions)")
        .draw()
        .map_err(|e| err(&e))?;
    for (name, color, f) in [
        (
            "(1) uniform grid",
            BLACK,
            (|r: &StepRecord| r.unpruned.stats.candidates) as fn(&StepRecord) -> u64,
        ),
        ("(2) AABB pruning", BLUE, |r: &StepRecord| {
            r.pruned.stats.candidates
        }),
    ] {
        c.draw_series(LineSeries::new(
            records.iter().map(|r| (r.step, f(r) as f64 / 1e6)),
            &color,
        ))
        .map_err(|e| err(&e))?
        .label(name)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    c.configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
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
        assert!(c.lines().nth(2).unwrap().ends_with(",7000.0000,50.000"));
    }
}
