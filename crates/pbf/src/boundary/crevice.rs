//! A crevice narrower than a particle between a solid and the tank's walls (a sphere hovering
//! less than 2r over the floor, a box leaning on a wall, a cylinder lying on the floor near
//! where it touches) or between two solids (a sphere just over a box, two cylinders side by
//! side): no point there is r from both. Each solid pushes a particle out along its own normal,
//! the walls or the other solid push it back, and without more the last one wins and leaves it
//! inside the first or within r of it; pressed on by the water it creeps further in each step
//! (a sphere 2.5 mm over the floor at r = 5 mm ended with particles 3 mm inside it, one 2.5 mm
//! over a box 3 mm inside the box).
//!
//! What is done instead: where the walls or the other solids undo a solid's push, the push is
//! turned along what undid it (its part across dropped) and lengthened so that, to first order,
//! it lifts the particle to r from the solid (a Newton step, capped), and the rest are applied
//! again; a few such slides take a particle pressed into the crevice back to its mouth, where it
//! fits. The walls stay the hard boundary. A point only one solid acts on is left as that solid
//! put it. Each particle's result depends on its own position only, so nothing depends on the
//! thread count. Faces that close on each other flat (a paddle driven against a block) have no
//! mouth to slide to: what is caught there is held halfway between them, inside neither but
//! within r of both (`pbf check` warns).
//!
//! Owns: `ColliderSet::back_inside` and `slide_out`. Does not touch: particles, the solids' own
//! projections.

use super::{Collider, ColliderSet};
use glam::Vec3A;

/// Slides per point at most (each a Newton step along what undid the push; a point pressed into a
/// crevice from its mouth needs one or two).
const SLIDES: usize = 6;

/// A slide moves at most this many times the solid's own push (where the push is nearly
/// across the walls, under the bottom of a sphere over the floor, the Newton step grows without
/// bound; the next slides go on from there).
const MAX_STRETCH: f32 = 4.0;

impl ColliderSet {
    /// A point `q` the solids moved to `s` (`last` the last of them): back inside the walls if
    /// they pushed it out (a solid flush with the floor pushes what it overtakes out through its
    /// nearest face, which may be the floor), and then out of the solids along the walls and the
    /// other solids. The walls are the hard boundary.
    #[inline]
    pub(super) fn back_inside(&self, q: Vec3A, s: Vec3A, from: Vec3A, last: Last) -> Vec3A {
        if s == q {
            s
        } else {
            self.slide_out(s, from, last)
        }
    }

    /// `s`, a point the solids moved (`last` the last of them), back inside the walls and, where
    /// the walls or another solid undo a solid's push, out of that solid along them. `from` is
    /// where the particle was when the step began (the solids push it out on the side it came
    /// from). Every solid is looked at, not only those near the caller's chunk of points: a
    /// slide may carry a point out of that chunk's box, and the result must not depend on how
    /// the particles are split.
    fn slide_out(&self, s: Vec3A, from: Vec3A, last: Last) -> Vec3A {
        let mut p = self.project_walls(s);
        if p == s && !self.undone_by_another(s, from, last) {
            return p;
        }
        for _ in 0..SLIDES {
            let mut moved = false;
            for (k, c) in self.solids.iter().enumerate() {
                let lifted = c.project_from(p, from);
                if lifted == p {
                    continue;
                }
                let back = self.out_of_the_rest(lifted, k, from);
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
                    // Pushed straight back by another solid (flat faces closing on each other,
                    // which `pbf check` warns of): there is no way along. Halfway between the
                    // two leaves the particle inside neither. (Pushed straight back by the
                    // walls, it stays where they put it: they are the hard boundary.)
                    let mid = 0.5 * (lifted + back);
                    if self.project_walls(lifted) == lifted
                        && self.project_walls(mid) == mid
                        && mid != p
                    {
                        p = mid;
                        moved = true;
                    }
                    continue;
                }
                // Along what undid it, d(p + t u) ≈ d(p) + t (n · u) with n · u = len / full:
                // reaching r takes t = full / (len / full).
                let t = (full * full / len).min(MAX_STRETCH * full);
                let q = self.out_of_the_rest(p + along * (t / len), k, from);
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

    /// Whether the `last` solid to move `s` undid another's push (two solids closer than 2r: a
    /// sphere just over a box): `s` is not clear of every other solid. A point only one solid
    /// acts on is left as that solid put it, so a scene whose solids are apart gives what it did.
    fn undone_by_another(&self, s: Vec3A, from: Vec3A, last: Last) -> bool {
        self.solids.len() > 1
            && self
                .solids
                .iter()
                .any(|c| !last.is(c.as_ref()) && c.project_from(s, from) != s)
    }

    /// `x` out of every solid but the `skip`th (in order), then out of the walls: what undoes
    /// that solid's push.
    fn out_of_the_rest(&self, x: Vec3A, skip: usize, from: Vec3A) -> Vec3A {
        let x = self
            .solids
            .iter()
            .enumerate()
            .filter(|&(k, _)| k != skip)
            .fold(x, |x, (_, c)| c.project_from(x, from));
        self.project_walls(x)
    }
}

/// Which solid moved a point last (none: a null pointer), by address.
#[derive(Clone, Copy)]
pub(super) struct Last(*const ());

impl Last {
    pub(super) fn is(self, c: &dyn Collider) -> bool {
        std::ptr::addr_eq(self.0, c as *const dyn Collider)
    }
}

/// `p` out of each solid in turn (for a particle that was at `from` when the step began), and
/// the last solid that moved it.
#[inline]
pub(super) fn out_of_solids<'a>(
    p: Vec3A,
    from: Vec3A,
    solids: impl Iterator<Item = &'a dyn Collider>,
) -> (Vec3A, Last) {
    solids.fold((p, Last(std::ptr::null())), |(p, last), c| {
        let q = c.project_from(p, from);
        if q != p {
            (q, Last(c as *const dyn Collider as *const ()))
        } else {
            (p, last)
        }
    })
}
