//! The AVX2 backend (x86-64): box tests and 8-slot distance steps with AVX2 intrinsics,
//! compaction by table lookup.
//!
//! Owns: [`Avx2`]'s [`Lanes`] and the block search compiled for AVX2. Does not touch: the walk.

#![cfg(target_arch = "x86_64")]

use super::{AtOnce, COMPACT, G, Lanes, W};
use crate::grid::CellBoxes;
use crate::lists::SearchStats;
use crate::positions::SoaPositions;
use crate::walk::{BlockArgs, run_walk::grid_block};

/// AVX2 lanes: box tests and distance steps of 8 slots.
pub(crate) struct Avx2;

impl Lanes for Avx2 {
    #[inline(always)]
    unsafe fn box_word(
        pos: &SoaPositions,
        g: usize,
        boxes: CellBoxes,
        keys: &[u32],
        h2: f32,
    ) -> [u32; G] {
        use std::arch::x86_64::*;
        debug_assert!(g + W <= pos.x.len() && keys.len() <= 32);
        // SAFETY: called only from AVX2-enabled code after the CPU check; 8 loads in bounds.
        // `_mm256_max_ps(a, b)` is `a > b ? a : b`, as `fmax`.
        unsafe {
            let gx = _mm256_loadu_ps(pos.x.as_ptr().add(g));
            let gy = _mm256_loadu_ps(pos.y.as_ptr().add(g));
            let gz = _mm256_loadu_ps(pos.z.as_ptr().add(g));
            let zero = _mm256_setzero_ps();
            let hh = _mm256_set1_ps(h2);
            let mut acc = _mm256_setzero_si256();
            let mut bit = _mm256_set1_epi32(1);
            for &key in keys {
                let (mn, mx) = boxes.get(key as usize);
                let axis = |x: __m256, a: usize| {
                    let below = _mm256_sub_ps(_mm256_set1_ps(mn[a]), x);
                    let above = _mm256_sub_ps(x, _mm256_set1_ps(mx[a]));
                    let e = _mm256_max_ps(_mm256_max_ps(below, above), zero);
                    _mm256_mul_ps(e, e)
                };
                let d2 = _mm256_add_ps(_mm256_add_ps(axis(gx, 0), axis(gy, 1)), axis(gz, 2));
                let near = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_LE_OQ>(d2, hh));
                acc = _mm256_or_si256(acc, _mm256_and_si256(near, bit));
                bit = _mm256_add_epi32(bit, bit);
            }
            let mut out = [0u32; G];
            _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, acc);
            out
        }
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
        use std::arch::x86_64::*;
        debug_assert!(s + Self::STEP <= pos.x.len());
        // SAFETY: called only from AVX2-enabled code after the CPU check; 8 loads in bounds;
        // room for 8 in dst; the table row is 8 u32.
        unsafe {
            let dx = _mm256_sub_ps(_mm256_loadu_ps(pos.x.as_ptr().add(s)), _mm256_set1_ps(p[0]));
            let dy = _mm256_sub_ps(_mm256_loadu_ps(pos.y.as_ptr().add(s)), _mm256_set1_ps(p[1]));
            let dz = _mm256_sub_ps(_mm256_loadu_ps(pos.z.as_ptr().add(s)), _mm256_set1_ps(p[2]));
            let d2 = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                _mm256_mul_ps(dz, dz),
            );
            let near = _mm256_cmp_ps::<_CMP_LE_OQ>(d2, _mm256_set1_ps(h2));
            let m = _mm256_movemask_ps(near) as u32 & valid;
            let idx = _mm256_loadu_si256(COMPACT[m as usize].as_ptr() as *const __m256i);
            let v = _mm256_add_epi32(idx, _mm256_set1_epi32(s as i32));
            _mm256_storeu_si256(dst as *mut __m256i, v);
            m.count_ones() as usize
        }
    }
}

/// [`grid_block`] compiled for AVX2 (chosen at run time). Float operations are the same IEEE
/// operations in the same order (Rust never contracts to FMA), so results are bit-identical.
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
pub(crate) fn grid_block_avx2<const PRUNE: bool>(
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    grid_block::<PRUNE, Avx2, AtOnce>(args, out, counts)
}
