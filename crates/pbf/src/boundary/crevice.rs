//! A crevice between a solid and the tank's walls narrower than a particle (a sphere hovering
//! less than 2r over the floor, a box leaning on a wall, a cylinder lying on the floor near
//! where it touches): no point there is r from both. The solids push a particle out along their
//! own normal, the walls push it back, and without more the walls win and leave it inside the
//! solid or within r of it; pressed on by the water it creeps further in each step (a sphere
//! 2.5 mm over the floor at r = 5 mm ended with particles 3 mm inside it).
//!
//! What is done instead: where the walls undo a solid's push, the push is turned along the
//! walls (its part across them dropped) and lengthened so that, to first order, it lifts the
//! particle to r from the solid (a Newton step along the walls, capped), and the walls are
//! applied again; a few such slides take a particle pressed into the crevice back to its
//! mouth, where it fits. The walls stay the hard boundary. Each particle's result depends on
//! its own position only, so nothing depends on the thread count.
//!
//! Owns: `ColliderSet::slide_out`. Does not touch: particles, the solids' own projections.

use super::{Collider, ColliderSet};
use glam::Vec3A;

/// Slides per point at most (each a Newton step along the walls; a point pressed into a
/// crevice from its mouth needs one or two).
const SLIDES: usize = 6;

/// A slide moves at most this many times the solid's own push (where the push is nearly
/// across the walls, under the bottom of a sphere over the floor, the Newton step grows without
/// bound; the next slides go on from there).
const MAX_STRETCH: f32 = 4.0;

impl ColliderSet {
    /// `s`, a point the solids moved, back inside the walls and, where the walls undo a solid's
    /// push, out of that solid along the walls. `from` is where the particle was when the step
    /// began (the solids push it out on the side it came from).
    pub(super) fn slide_out<'a, I>(&self, s: Vec3A, from: Vec3A, solids: impl Fn() -> I) -> Vec3A
    where
        I: Iterator<Item = &'a dyn Collider>,
    {
        let mut p = self.project_walls(s);
        if p == s {
            return p;
        }
        for _ in 0..SLIDES {
            let mut moved = false;
            for c in solids() {
                let lifted = c.project_from(p, from);
                if lifted == p {
                    continue;
                }
                let back = self.project_walls(lifted);
                if back == lifted {
                    p = lifted;
                    moved = true;
                    continue;
                }
                let push = lifted - p;
                let across = (back - lifted).normalize_or_zero();
                let along = push - push.dot(across) * across;
                let len = along.length();
                let full = push.length();
                if len <= 1e-6 * full {
                    continue;
                }
                // Along the walls, d(p + t u) ≈ d(p) + t (n · u) with n · u = len / full:
                // reaching r takes t = full / (len / full).
                let t = (full * full / len).min(MAX_STRETCH * full);
                let q = self.project_walls(p + along * (t / len));
                if q != p {
                    p = q;
                    moved = true;
                }
            }
            if !moved {
                break;
            }
        }
        p
    }
}
