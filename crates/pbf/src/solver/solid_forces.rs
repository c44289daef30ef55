//! The force the fluid exerts on each solid and each of the tank's walls, from what they did to
//! it (`boundary::push`, `boundary::wall_push`).
//!
//! Owns: the solver's impulse book per solid. Does not touch: the pushes (the colliders book
//! them) or the step's order.

use super::Solver;
use glam::DVec3;

impl Solver {
    /// The impulse each solid and each wall gave the fluid in the step just taken, added to
    /// `solid_impulse`: `m Σ d / dt` over its pushes `d` (`boundary::push`), summed over the
    /// processes of a split run in fixed point (the same sums as one process's).
    pub(super) fn book_solid_impulse(&mut self) {
        let mut all = self.colliders.take_push_counts();
        if all.is_empty() {
            return;
        }
        self.solid_impulse.resize(all.len() / 3, DVec3::ZERO);
        self.halo.sum_each(&mut all);
        let scale = self.mass as f64 * crate::boundary::push::UNIT_M / self.dt_seconds;
        for (j, c) in self.solid_impulse.iter_mut().zip(all.chunks_exact(3)) {
            let c = DVec3::new(c[0] as i64 as f64, c[1] as i64 as f64, c[2] as i64 as f64);
            *j += scale * c;
        }
    }

    /// The impulse each body gave the fluid since the last call, N s: the solids in the
    /// scene's order, then the tank's six walls (`boundary::wall_push::WALLS`; none before the
    /// first step). The force the fluid exerted on a body over that time is minus its impulse
    /// over the time.
    pub fn take_impulse(&mut self) -> Vec<DVec3> {
        let n = self.solid_impulse.len();
        std::mem::replace(&mut self.solid_impulse, vec![DVec3::ZERO; n])
    }

    /// How many solids the scene has (the first bodies of [`take_impulse`](Self::take_impulse)).
    pub fn solid_count(&self) -> usize {
        self.colliders.solid_count()
    }

    /// [`take_impulse`](Self::take_impulse)'s solids alone (the walls' since the last call are
    /// dropped).
    pub fn take_solid_impulse(&mut self) -> Vec<DVec3> {
        let mut all = self.take_impulse();
        all.truncate(self.colliders.solid_count());
        all
    }

    /// [`take_impulse`](Self::take_impulse)'s six walls alone (the solids' since the last call
    /// are dropped; empty before the first step).
    pub fn take_wall_impulse(&mut self) -> Vec<DVec3> {
        let all = self.take_impulse();
        all[self.colliders.solid_count().min(all.len())..].to_vec()
    }
}
