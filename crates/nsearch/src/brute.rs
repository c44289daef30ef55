//! The O(n^2) reference search: every pair tested with the one distance rule. For tests and for
//! checking the grid searches; never used by a simulation.
//!
//! Owns: [`brute_force`]. Does not touch: the grid.

use crate::lists::{NeighborLists, SearchStats};
use crate::positions::SoaPositions;
use crate::spec::dist2;
use glam::Vec3A;

/// Every particle's neighbors among all `sorted` positions (self included, ascending), into
/// `lists`: the same lists a grid search over the same positions gives.
pub fn brute_force(sorted: &SoaPositions, radius: f32, lists: &mut NeighborLists) -> SearchStats {
    let n = sorted.len();
    let h2 = radius * radius;
    lists.fill(n, |lo, hi, out, counts| {
        let mut st = SearchStats::default();
        let [xs, ys, zs] = sorted.axes();
        for (k, i) in (lo..hi).enumerate() {
            let p = sorted.get(i);
            for j in 0..n {
                if dist2(p, Vec3A::new(xs[j], ys[j], zs[j])) <= h2 {
                    out.push(j as u32);
                }
            }
            counts[k] = out.len() as u32;
            st.candidates += n as u64;
        }
        st.neighbors = out.len() as u64;
        st
    })
}
