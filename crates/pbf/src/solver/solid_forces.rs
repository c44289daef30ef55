//! The force the fluid exerts on each solid, from what the solids did to it (`boundary::push`).
//!
//! Owns: the solver's impulse book per solid. Does not touch: the pushes (the colliders book
//! them) or the step's order.

use super::Solver;
use glam::DVec3;

impl Solver {
    /// The impulse each solid gave the fluid in the step just taken, added to
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

    /// The impulse each solid (in the scene's order) gave the fluid since the last call, N s;
    /// the force the fluid exerted on it over that time is minus this over the time.
    pub fn take_solid_impulse(&mut self) -> Vec<DVec3> {
        let n = self.solid_impulse.len();
        std::mem::replace(&mut self.solid_impulse, vec![DVec3::ZERO; n])
    }
}
