//! One step with two searches: the solver's own and another mode's, timed on the same predicted
//! positions, their lists compared slot by slot (what `pbf compare` records).
//!
//! Owns: [`Solver::step_compare`] and its result. Does not touch: the step's physics (the same
//! as [`Solver::step`]) or the report (`experiments::compare`).

use super::Solver;
use glam::Vec3A;
use nsearch::{NeighborSearch, SearchMode, SearchStats};
use std::time::Instant;

/// One mode's share of a [`Solver::step_compare`], times in seconds.
#[derive(Clone, Copy, Debug)]
pub struct ModeStep {
    pub mode: SearchMode,
    /// Grid construction (sort, gathered positions, boxes when pruned).
    pub build: f64,
    pub search: f64,
    pub stats: SearchStats,
}

/// The result of [`Solver::step_compare`]: the solver's own search and the other one, timed on
/// the same positions.
#[derive(Clone, Copy, Debug)]
pub struct CompareStep {
    pub own: ModeStep,
    pub other: ModeStep,
    /// Reordering the solver's particle arrays into cell order (the same for either mode; it
    /// belongs to construction).
    pub reorder: f64,
    pub behavior: f64,
    /// The whole step, both searches included.
    pub step: f64,
    /// Stable id of the first particle whose two neighbor lists differ, if any.
    pub mismatch: Option<u32>,
}

impl Solver {
    /// Advance one step as [`step`](Self::step) does, and time `other` (a second search, see
    /// [`new_search`](Self::new_search)) on the same predicted positions: its construction and
    /// search run just before the solver's own when `other_first`, just after otherwise (so
    /// neither always finds the caches warm). The step continues with the solver's own lists;
    /// the two modes' lists are compared slot by slot.
    pub fn step_compare(&mut self, other: &mut NeighborSearch, other_first: bool) -> CompareStep {
        let t_step = Instant::now();
        self.colliders.take_time();
        self.predict();
        // Both grids are cut to this step's window: construction work, the same for both
        // modes, so its time is added to both.
        let t = Instant::now();
        self.fit_grid();
        other.grid_mut().set_spec(*self.search.grid().spec());
        let fit = t.elapsed().as_secs_f64();
        let run_other = |other: &mut NeighborSearch, p: &[Vec3A]| {
            let t = Instant::now();
            other.build(p);
            let build = fit + t.elapsed().as_secs_f64();
            let t = Instant::now();
            let stats = other.search();
            (build, t.elapsed().as_secs_f64(), stats)
        };
        let mut theirs = (0.0, 0.0, SearchStats::default());
        if other_first {
            theirs = run_other(other, &self.p);
        }
        let t = Instant::now();
        self.search.build(&self.p);
        let own_build = fit + t.elapsed().as_secs_f64();
        let t = Instant::now();
        let own_stats = self.search.search();
        let own_search = t.elapsed().as_secs_f64();
        if !other_first {
            theirs = run_other(other, &self.p);
        }
        let same_order = self.search.grid().permutation() == other.grid().permutation();
        let mismatch = if same_order {
            self.search.lists().first_difference(other.lists())
        } else {
            Some(0)
        };
        // The solver's arrays into cell order: the same work whichever mode searched.
        let t = Instant::now();
        self.reorder();
        let reorder = t.elapsed().as_secs_f64();
        // Stable ids of the first particle whose lists differ (ids, not slots: slots change
        // every step).
        let mismatch = mismatch.map(|slot| self.fluid.id.get(slot).copied().unwrap_or(u32::MAX));

        let t = Instant::now();
        let whole = self.behavior().whole;
        let behavior = t.elapsed().as_secs_f64();
        if whole {
            self.finish_step();
        } else {
            self.undo_reorder();
        }
        CompareStep {
            own: ModeStep {
                mode: self.search.mode(),
                build: own_build,
                search: own_search,
                stats: own_stats,
            },
            other: ModeStep {
                mode: other.mode(),
                build: theirs.0,
                search: theirs.1,
                stats: theirs.2,
            },
            reorder,
            behavior,
            step: t_step.elapsed().as_secs_f64(),
            mismatch,
        }
    }
}
