//! The portable backend: plain Rust, 8 lanes, no intrinsics (any CPU).
//!
//! Owns: [`Portable`]'s [`Lanes`]. Does not touch: the walk.

use super::{COMPACT, G, Lanes, W, lanes};
use crate::grid::CellBoxes;
use crate::positions::SoaPositions;
use crate::spec::fmax;

/// Plain Rust lanes.
pub(crate) struct Portable;

impl Lanes for Portable {
    #[inline(always)]
    unsafe fn box_word(
        pos: &SoaPositions,
        g: usize,
        boxes: CellBoxes,
        keys: &[u32],
        h2: f32,
    ) -> [u32; G] {
        let gp = [lanes(&pos.x, g), lanes(&pos.y, g), lanes(&pos.z, g)];
        let mut acc = [0u32; G];
        for (k, &key) in keys.iter().enumerate() {
            let (mn, mx) = boxes.get(key as usize);
            for l in 0..W {
                let mut e2 = [0f32; 3];
                for a in 0..3 {
                    let below = mn[a] - gp[a][l];
                    let above = gp[a][l] - mx[a];
                    let e = fmax(fmax(below, above), 0.0);
                    e2[a] = e * e;
                }
                acc[l] |= (((e2[0] + e2[1]) + e2[2] <= h2) as u32) << k;
            }
        }
        acc
    }

    const GROUP: usize = W;

    const STEP: usize = W;

    #[inline(always)]
    unsafe fn step(
        pos: &SoaPositions,
        s: usize,
        p: [f32; 3],
        h2: f32,
        valid: u32,
        dst: *mut u32,
    ) -> usize {
        let (cx, cy, cz) = (lanes(&pos.x, s), lanes(&pos.y, s), lanes(&pos.z, s));
        let mut m = 0u32;
        for l in 0..W {
            let (dx, dy, dz) = (cx[l] - p[0], cy[l] - p[1], cz[l] - p[2]);
            m |= (((dx * dx + dy * dy) + dz * dz <= h2) as u32) << l;
        }
        m &= valid;
        for (l, &k) in COMPACT[m as usize].iter().enumerate() {
            // SAFETY: room for 8 elements.
            unsafe { *dst.add(l) = s as u32 + k };
        }
        m.count_ones() as usize
    }
}
