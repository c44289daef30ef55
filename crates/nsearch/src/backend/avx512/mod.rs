//! The AVX-512 backend (x86-64, F + VL): 16 particles per group, 16-slot distance steps,
//! compaction by the compare mask, stores three steps late, and the flat walk for 3 x 3 x 3
//! stencils.
//!
//! Owns: [`Avx512`]'s [`Lanes`], [`LateStores`], and the block search compiled for AVX-512.
//! Does not touch: the lists' offsets or the grid.

#![cfg(target_arch = "x86_64")]

mod flat_stencil;
mod flat_walk;

use super::{G, Lanes, StepSink};
use crate::grid::CellBoxes;
use crate::lists::SearchStats;
use crate::positions::SoaPositions;
use crate::walk::{BlockArgs, run_walk::grid_block};

/// AVX-512 lanes: box tests for 16 particles at once, 16-slot distance steps.
pub(crate) struct Avx512;

impl Lanes for Avx512 {
    #[inline(always)]
    unsafe fn box_word(
        pos: &SoaPositions,
        g: usize,
        boxes: CellBoxes,
        keys: &[u32],
        h2: f32,
    ) -> [u32; G] {
        // SAFETY: only reached from AVX-512 code after the CPU check; as this fn.
        unsafe { box_word_avx512(pos, g, boxes, keys, h2) }
    }

    const GROUP: usize = G;

    const STEP: usize = 16;

    #[inline(always)]
    unsafe fn step(
        pos: &SoaPositions,
        s: usize,
        p: [f32; 3],
        h2: f32,
        valid: u32,
        dst: *mut u32,
    ) -> usize {
        debug_assert!(s + Self::STEP <= pos.x.len());
        // SAFETY: only reached from AVX-512 code after the CPU check; as this fn.
        unsafe { step_avx512(pos, s, p, h2, valid, dst) }
    }
}

impl StepSink<Avx512> for LateStores {
    #[inline(always)]
    fn start(at: usize) -> Self {
        // SAFETY: only reached from AVX-512 code after the CPU check (the Avx512 backend).
        unsafe { LateStores::new(at) }
    }

    #[inline(always)]
    unsafe fn step(
        &mut self,
        pos: &SoaPositions,
        s: usize,
        p: [f32; 3],
        h2: f32,
        valid: u32,
        dst: *mut u32,
        at: usize,
    ) -> usize {
        // SAFETY: as above; the caller's contract (room for 16 at `dst + at`).
        unsafe {
            let (v, hits) = step_hits_avx512(pos, s, p, h2, valid);
            self.push(dst, v, at);
            hits
        }
    }

    #[inline(always)]
    unsafe fn finish(self, dst: *mut u32) {
        // SAFETY: as above.
        unsafe { self.flush(dst) }
    }
}

/// The AVX-512 box tests of [`Avx512`]: sixteen particles per group (so a cell of 9 to 16 particles
/// is one group, not two, and shares one set of box tests), the same operations in the same order
/// as [`Aabb::dist2`] lane by lane.
///
/// # Safety
/// The CPU supports AVX-512 F + VL; `g + 16 <= pos.x.len()`; `keys.len() <= 32`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn box_word_avx512(
    pos: &SoaPositions,
    g: usize,
    boxes: CellBoxes,
    keys: &[u32],
    h2: f32,
) -> [u32; G] {
    use std::arch::x86_64::*;
    debug_assert!(g + G <= pos.x.len() && keys.len() <= 32);
    // SAFETY: 16 loads in bounds (padding); `_mm512_max_ps(a, b)` is `a > b ? a : b`, as `fmax`.
    unsafe {
        let gx = _mm512_loadu_ps(pos.x.as_ptr().add(g));
        let gy = _mm512_loadu_ps(pos.y.as_ptr().add(g));
        let gz = _mm512_loadu_ps(pos.z.as_ptr().add(g));
        let hh = _mm512_set1_ps(h2);
        let mut acc = _mm512_setzero_si512();
        let mut bit = _mm512_set1_epi32(1);
        for &key in keys {
            let near = box_near_avx512(gx, gy, gz, boxes.get(key as usize), hh);
            acc = _mm512_mask_or_epi32(acc, near, acc, bit);
            bit = _mm512_add_epi32(bit, bit);
        }
        let mut out = [0u32; G];
        _mm512_storeu_si512(out.as_mut_ptr() as *mut __m512i, acc);
        out
    }
}

/// Lanes of particles `(gx, gy, gz)` within `hh` (h^2 in every lane) of box `b`:
/// [`box_near_lanes`] with the box in every lane.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn box_near_avx512(
    gx: std::arch::x86_64::__m512,
    gy: std::arch::x86_64::__m512,
    gz: std::arch::x86_64::__m512,
    (mn, mx): ([f32; 3], [f32; 3]),
    hh: std::arch::x86_64::__m512,
) -> std::arch::x86_64::__mmask16 {
    use std::arch::x86_64::*;
    let v = |x: f32| _mm512_set1_ps(x);
    box_near_lanes(
        [gx, gy, gz],
        [v(mn[0]), v(mn[1]), v(mn[2])],
        [v(mx[0]), v(mx[1]), v(mx[2])],
        hh,
    )
}

/// Lanes where point `p` is within `hh` of box `[mn, mx]` (by axis, lane by lane):
/// [`Aabb::dist2`] lane by lane, the same operations in the same order, so the same exactness
/// argument holds (a rejected box holds no neighbor). A NaN bound gives "not within".
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
fn box_near_lanes(
    p: [std::arch::x86_64::__m512; 3],
    mn: [std::arch::x86_64::__m512; 3],
    mx: [std::arch::x86_64::__m512; 3],
    hh: std::arch::x86_64::__m512,
) -> std::arch::x86_64::__mmask16 {
    use std::arch::x86_64::*;
    let zero = _mm512_setzero_ps();
    // `_mm512_max_ps(a, b)` is `a > b ? a : b`, as `fmax`.
    let axis = |a: usize| {
        let below = _mm512_sub_ps(mn[a], p[a]);
        let above = _mm512_sub_ps(p[a], mx[a]);
        let e = _mm512_max_ps(_mm512_max_ps(below, above), zero);
        _mm512_mul_ps(e, e)
    };
    let d2 = _mm512_add_ps(_mm512_add_ps(axis(0), axis(1)), axis(2));
    _mm512_cmp_ps_mask::<_CMP_LE_OQ>(d2, hh)
}

/// The AVX-512 distance step of [`Avx512`], a function of its own with the features enabled, so the mask
/// register code never lands in a function compiled without them. (With LTO, rustdoc's opt-level
/// 0 codegen of this function's optimized bitcode fails in LLVM; see the release profile.)
///
/// # Safety
/// The CPU supports AVX-512 F + VL; `s + 16 <= pos.x.len()`; `dst` has room for 16.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn step_avx512(
    pos: &SoaPositions,
    s: usize,
    p: [f32; 3],
    h2: f32,
    valid: u32,
    dst: *mut u32,
) -> usize {
    use std::arch::x86_64::*;
    // SAFETY: as this fn.
    unsafe {
        let (v, n) = step_hits_avx512(pos, s, p, h2, valid);
        _mm512_storeu_si512(dst as *mut __m512i, v);
        n
    }
}

/// The AVX-512 distance step without its store: the slots `s + l` (`l < 16`, lane `l` only
/// where `valid` has bit `l`) within `h2` of `p`, ascending in the first lanes of the vector
/// (the rest zero), and how many.
///
/// # Safety
/// The CPU supports AVX-512 F + VL; `s + 16 <= pos.x.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn step_hits_avx512(
    pos: &SoaPositions,
    s: usize,
    p: [f32; 3],
    h2: f32,
    valid: u32,
) -> (std::arch::x86_64::__m512i, usize) {
    use std::arch::x86_64::*;
    // SAFETY: as this fn.
    unsafe { step_hits_lanes_avx512(pos, s, p.map(|x| _mm512_set1_ps(x)), h2, valid) }
}

/// [`step_hits_avx512`] with the particle's coordinates given in every lane.
///
/// # Safety
/// As [`step_hits_avx512`].
#[inline]
#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn step_hits_lanes_avx512(
    pos: &SoaPositions,
    s: usize,
    p: [std::arch::x86_64::__m512; 3],
    h2: f32,
    valid: u32,
) -> (std::arch::x86_64::__m512i, usize) {
    use std::arch::x86_64::*;
    debug_assert!(s + 16 <= pos.x.len());
    // SAFETY: 16 loads in bounds (padding).
    unsafe {
        let dx = _mm512_sub_ps(_mm512_loadu_ps(pos.x.as_ptr().add(s)), p[0]);
        let dy = _mm512_sub_ps(_mm512_loadu_ps(pos.y.as_ptr().add(s)), p[1]);
        let dz = _mm512_sub_ps(_mm512_loadu_ps(pos.z.as_ptr().add(s)), p[2]);
        let d2 = _mm512_add_ps(
            _mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)),
            _mm512_mul_ps(dz, dz),
        );
        let m = _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(valid as __mmask16, d2, _mm512_set1_ps(h2));
        let idx = _mm512_add_epi32(
            _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
            _mm512_set1_epi32(s as i32),
        );
        (_mm512_maskz_compress_epi32(m, idx), m.count_ones() as usize)
    }
}

/// Distance-step results stored three steps late (AVX-512).
///
/// A step's hits are stored at the list's length, which depends on the previous step's compare;
/// stored at once, that store's address is unknown until then, and the next steps' loads wait
/// for it, so each step waits for the one before (docs/results.md has the cycle counts for 0 to 3
/// steps late). Stored late,
/// the address is known when the store issues. The stores keep their order, so each one still
/// overwrites the unused tail of the one before.
pub(crate) struct LateStores {
    v: [std::arch::x86_64::__m512i; 3],
    at: [usize; 3],
}

impl LateStores {
    /// Empty: the first three stores write zeros at `at`, which later stores overwrite.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    fn new(at: usize) -> Self {
        use std::arch::x86_64::*;
        LateStores {
            v: [_mm512_setzero_si512(); 3],
            at: [at; 3],
        }
    }

    /// Queue `v` for `dst + at` and store the oldest queued vector.
    ///
    /// # Safety
    /// AVX-512 F; `dst` has room for 16 past every queued `at` (and the first `new(at)`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn push(&mut self, dst: *mut u32, v: std::arch::x86_64::__m512i, at: usize) {
        use std::arch::x86_64::*;
        // SAFETY: as this fn.
        unsafe { _mm512_storeu_si512(dst.add(self.at[2]) as *mut __m512i, self.v[2]) };
        self.v = [v, self.v[0], self.v[1]];
        self.at = [at, self.at[0], self.at[1]];
    }

    /// Store everything queued, oldest first.
    ///
    /// # Safety
    /// As [`LateStores::push`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn flush(self, dst: *mut u32) {
        use std::arch::x86_64::*;
        // SAFETY: as this fn.
        unsafe {
            for k in (0..3).rev() {
                _mm512_storeu_si512(dst.add(self.at[k]) as *mut __m512i, self.v[k]);
            }
        }
    }
}

/// [`grid_block`] compiled for AVX-512 (chosen at run time): 16-slot distance steps, compaction
/// by the mask register. Same IEEE operations in the same order lane by lane as the others.
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2,popcnt,lzcnt")]
pub(crate) fn grid_block_avx512<const PRUNE: bool>(
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    // 3 x 3 x 3 stencils, both modes: the flat walk (see `flat_walk`), whose steps hold slots
    // in 24 bits; it takes the cells whose rows are too long for it to the run walk itself.
    // The h/2 grid and more than 2^24 slots: the run walk.
    if args.1.x.len() <= 1 << 24 && args.0.spec().cell_size.reach() == 1 {
        // SAFETY: this fn's features are those `grid_block_flat` needs.
        unsafe { flat_walk::grid_block_flat(args, out, counts) }
    } else {
        grid_block::<PRUNE, Avx512, LateStores>(args, out, counts)
    }
}
