//! The flat walk (AVX-512, 3 x 3 x 3 stencils): each group's distance steps are listed without
//! branches, then run in one loop.
//!
//! Owns: [`grid_block_flat`] and [`flat_walk`]. Does not touch: the run walk, which takes any
//! cell whose stencil rows are too long for the flat walk.

use super::flat_stencil::{BoxRows, FlatStencil};
use super::{Avx512, LateStores, box_near_lanes, step_hits_lanes_avx512};
use crate::backend::G;
use crate::grid::CellBoxes;
use crate::lists::SearchStats;
use crate::positions::SoaPositions;
use crate::walk::stencil::Stencil;
use crate::walk::{BlockArgs, reserve, run_walk::group_run_walk};

/// The flat walk of one group (AVX-512, 3 x 3 x 3 stencils whose rows hold at most 16 K slots,
/// K = 2 or 3).
///
/// The run walk of [`grid_block`] loops over each particle's runs and each run's steps, and the
/// number of both varies from particle to particle as pruning keeps different cells: the loop
/// exits are mispredicted about twice per particle. Here the group's steps are first listed,
/// without branches, and then run in one loop, so the only varying loop is the group's (what
/// that gained is in docs/results.md).
///
/// 1. For each particle, the stencil's nine rows are the lanes of a vector: from the kept bits
///    of the row's three cells, the row's run is `[start of the first kept cell, end of the last
///    kept cell)` (a pruned middle cell between two kept ones is scanned too: it holds no
///    neighbor, so the lists are the same; the candidate counter leaves it out). A run of up to
///    16 K slots is up to K 16-slot steps; each step is encoded in one `u32`
///    (`slot << 8 | particle << 4 | slots - 1`: slots below 2^24), and the particle's steps
///    are compacted, in ascending slot order, onto the group's list.
/// 2. One loop runs the group's steps; a particle's steps are consecutive, so its hits go
///    straight to its list as in the run walk.
///
/// `kept[l]` is particle `i0 + l`'s kept bits in the fixed 27-cell layout (bit `3 r + dx + 1`).
/// Returns the new list length and the candidates tested (the kept cells' particles).
///
/// # Safety
/// AVX-512 F + VL and BMI2; `c` is a [`FlatStencil`]'s bounds, whose rows hold at most 16 K
/// slots; at most 2^24 slots; `kept.len() <= G`; `dst` has room for
/// `at + kept.len() * total + 16` indices (`total`: the stencil's particles); slots `i0 + l` are
/// data slots.
#[inline]
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2,popcnt")]
#[allow(clippy::too_many_arguments)]
unsafe fn flat_walk<const K: usize>(
    pos: &SoaPositions,
    i0: usize,
    kept: &[u32],
    c: &[std::arch::x86_64::__m512i; 4],
    h2: f32,
    dst: *mut u32,
    mut at: usize,
    counts: &mut [u32],
) -> (usize, u64) {
    use std::arch::x86_64::*;
    debug_assert!(kept.len() <= G);
    // Up to 16 particles x 9 rows x K steps, and a full 16-lane store past the last.
    let mut steps = [std::mem::MaybeUninit::<u32>::uninit(); G * 27 + 16];
    let mut n = 0usize;
    // SAFETY: the caller's contract; each particle adds at most 9 K steps, so every 16-lane
    // store into `steps` starts below G * 27 and stays within the array.
    unsafe {
        let b = |k: i32| {
            _mm512_setr_epi32(
                1 << k,
                1 << (3 + k),
                1 << (6 + k),
                1 << (9 + k),
                1 << (12 + k),
                1 << (15 + k),
                1 << (18 + k),
                1 << (21 + k),
                1 << (24 + k),
                0,
                0,
                0,
                0,
                0,
                0,
                0,
            )
        };
        let (b0, b1, b2) = (b(0), b(1), b(2));
        let sixteen = _mm512_set1_epi32(16);
        let one = _mm512_set1_epi32(1);
        // Interleave step 0 (a) and step 1 (b) of rows 0..8, then of row 8.
        let lo_idx = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        let hi_idx = _mm512_setr_epi32(8, 24, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        // Three steps per row: entry j is step j % 3 of row j / 3; first steps 0 and 1 are
        // gathered from e0 and e1, then steps 2 from e2 (entries 0..16, then 16..27).
        let idx3 = |from: usize, second: bool| {
            let v: [i32; 16] = std::array::from_fn(|t| {
                let j = from + t;
                let (r, k) = ((j / 3).min(8) as i32, j % 3);
                match (second, k) {
                    (false, 0) => r,
                    (false, 1) => 16 + r,
                    (false, _) => 0,
                    (true, 2) => 16 + r,
                    (true, _) => t as i32,
                }
            });
            _mm512_loadu_si512(v.as_ptr() as *const _)
        };
        let (ia01, ia2) = (idx3(0, false), idx3(0, true));
        let (ib01, ib2) = (idx3(16, false), idx3(16, true));
        let mut tested = _mm512_setzero_si512();
        for (l, &m) in kept.iter().enumerate() {
            let m = _mm512_set1_epi32(m as i32);
            let k0 = _mm512_test_epi32_mask(m, b0);
            let k1 = _mm512_test_epi32_mask(m, b1);
            let k2 = _mm512_test_epi32_mask(m, b2);
            let s = _mm512_mask_mov_epi32(c[3], k2, c[2]);
            let s = _mm512_mask_mov_epi32(s, k1, c[1]);
            let s = _mm512_mask_mov_epi32(s, k0, c[0]);
            let e = _mm512_mask_mov_epi32(c[3], k0, c[1]);
            let e = _mm512_mask_mov_epi32(e, k1, c[2]);
            let e = _mm512_mask_mov_epi32(e, k2, c[3]);
            let len = _mm512_sub_epi32(e, s);
            // Candidates: the run, less a pruned middle cell.
            tested = _mm512_add_epi32(tested, len);
            let gap = k0 & k2 & !k1;
            tested = _mm512_mask_sub_epi32(tested, gap, tested, _mm512_sub_epi32(c[2], c[1]));
            let v0 = _mm512_cmpgt_epi32_mask(len, _mm512_setzero_si512()) as u32;
            let v1 = _mm512_cmpgt_epi32_mask(len, sixteen) as u32;
            let tag = _mm512_set1_epi32((l as i32) << 4);
            let n0 = _mm512_sub_epi32(_mm512_min_epi32(len, sixteen), one);
            let n1 = _mm512_sub_epi32(
                _mm512_min_epi32(_mm512_sub_epi32(len, sixteen), sixteen),
                one,
            );
            let e0 = _mm512_or_si512(
                _mm512_or_si512(_mm512_slli_epi32::<8>(s), tag),
                _mm512_and_si512(n0, _mm512_set1_epi32(15)),
            );
            let e1 = _mm512_or_si512(
                _mm512_or_si512(_mm512_slli_epi32::<8>(_mm512_add_epi32(s, sixteen)), tag),
                _mm512_and_si512(n1, _mm512_set1_epi32(15)),
            );
            let (lo, hi, mlo, mhi);
            if K == 2 {
                lo = _mm512_permutex2var_epi32(e0, lo_idx, e1);
                hi = _mm512_permutex2var_epi32(e0, hi_idx, e1);
                mlo = _pdep_u32(v0, 0x5555) | _pdep_u32(v1, 0xAAAA);
                mhi = ((v0 >> 8) & 1) | ((v1 >> 7) & 2);
            } else {
                let v2 = _mm512_cmpgt_epi32_mask(len, _mm512_set1_epi32(32)) as u32;
                let n2 = _mm512_sub_epi32(
                    _mm512_min_epi32(_mm512_sub_epi32(len, _mm512_set1_epi32(32)), sixteen),
                    one,
                );
                let s2 = _mm512_add_epi32(s, _mm512_set1_epi32(32));
                let e2 = _mm512_or_si512(
                    _mm512_or_si512(_mm512_slli_epi32::<8>(s2), tag),
                    _mm512_and_si512(n2, _mm512_set1_epi32(15)),
                );
                let t = _mm512_permutex2var_epi32(e0, ia01, e1);
                lo = _mm512_permutex2var_epi32(t, ia2, e2);
                let t = _mm512_permutex2var_epi32(e0, ib01, e1);
                hi = _mm512_permutex2var_epi32(t, ib2, e2);
                let m = _pdep_u32(v0, 0x0124_9249)
                    | _pdep_u32(v1, 0x0249_2492)
                    | _pdep_u32(v2, 0x0492_4924);
                (mlo, mhi) = (m & 0xFFFF, m >> 16);
            }
            let p = steps.as_mut_ptr().add(n);
            _mm512_storeu_si512(p as *mut _, _mm512_maskz_compress_epi32(mlo as u16, lo));
            n += mlo.count_ones() as usize;
            let p = steps.as_mut_ptr().add(n);
            _mm512_storeu_si512(p as *mut _, _mm512_maskz_compress_epi32(mhi as u16, hi));
            n += mhi.count_ones() as usize;
        }
        // The group's positions, one particle per lane (lanes past the group are padding).
        let gx = _mm512_loadu_ps(pos.x.as_ptr().add(i0));
        let gy = _mm512_loadu_ps(pos.y.as_ptr().add(i0));
        let gz = _mm512_loadu_ps(pos.z.as_ptr().add(i0));
        let mut late = LateStores::new(at);
        for e in &steps[..n] {
            // SAFETY: steps[..n] were written by the compacting stores above.
            let e = e.assume_init();
            let s = (e >> 8) as usize;
            let l = ((e >> 4) & 15) as usize;
            let valid = (2u32 << (e & 15)) - 1;
            let li = _mm512_set1_epi32(l as i32);
            let p = [gx, gy, gz].map(|g| _mm512_permutexvar_ps(li, g));
            let (v, hits) = step_hits_lanes_avx512(pos, s, p, h2, valid);
            late.push(dst, v, at);
            at += hits;
            *counts.get_unchecked_mut(l) = at as u32;
        }
        late.flush(dst);
        (at, _mm512_reduce_add_epi32(tested) as u32 as u64)
    }
}

/// The search of one block with the flat walk (AVX-512, 3 x 3 x 3 stencils), pruned when
/// `args.2` holds the boxes, else unpruned: as [`grid_block`], but the stencil is a
/// [`FlatStencil`] (no per-cell unit lists); pruned, each particle tests the 27 cells' boxes as
/// the lanes of two vectors, in the fixed 27-cell layout (unpruned: every non-empty cell is kept);
/// and [`flat_walk`] lists and runs the steps. A cell whose stencil rows hold more than 48 slots
/// takes the run walk. Measured against the run walk: see docs/results.md ("The neighbor search").
///
/// # Safety
/// AVX-512 F + VL and BMI2; a 3 x 3 x 3 grid; at most 2^24 slots.
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2,popcnt,lzcnt")]
pub(super) unsafe fn grid_block_flat(
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    let (grid, pos, aabbs, h2, lo, hi) = args;
    let prune = aabbs.is_some();
    use std::arch::x86_64::*;
    let spec = grid.spec();
    let keys = grid.sorted_keys();
    let cell_start = grid.cell_start();
    let axes = aabbs.unwrap_or(CellBoxes::NONE).axes;
    let [nx, ny, _] = spec.dims;
    debug_assert!(spec.cell_size.reach() == 1 && pos.x.len() <= 1 << 24);
    // Key offsets of the stencil's rows and of its 27 cells (bit 3 r + j of `nonempty`).
    let roff: [isize; 9] = std::array::from_fn(|r| {
        ((r / 3) as isize - 1) * (nx * ny) as isize + ((r % 3) as isize - 1) * nx as isize
    });
    let off27: [isize; 27] = std::array::from_fn(|t| roff[t / 3] + (t % 3) as isize - 1);
    let mut st = SearchStats::default();
    let mut stencil = Stencil::new();
    let mut flat = None;
    let mut rows = BoxRows {
        v: [[_mm512_setzero_ps(); 3]; 6],
        key: usize::MAX,
    };
    let mut cur = u32::MAX;
    let mut coords = [0usize; 3];
    let mut i0 = lo;
    while i0 < hi {
        let key = keys[i0];
        if key != cur {
            // The next cell of the row is the common case: no division.
            coords = if cur != u32::MAX && key == cur + 1 && coords[0] + 1 < nx {
                [coords[0] + 1, coords[1], coords[2]]
            } else {
                spec.coords_of(key as usize)
            };
            debug_assert_eq!(coords, spec.coords_of(key as usize));
            // SAFETY: this fn's features; key is a cell of this grid.
            let fs = unsafe {
                FlatStencil::new(grid, axes, &mut rows, key as usize, coords, &roff, &off27)
            };
            match (fs.k, prune) {
                (0, true) => stencil.build::<true>(grid, key as usize),
                (0, false) => stencil.build::<false>(grid, key as usize),
                _ => {}
            }
            flat = Some(fs);
            cur = key;
        }
        let g1 = (i0 + G).min(hi).min(cell_start[key as usize + 1] as usize);
        let gn = g1 - i0;
        let fs = flat.as_ref().expect("built above");
        if fs.k == 0 {
            if prune {
                group_run_walk::<true, Avx512, LateStores>(
                    args,
                    &stencil,
                    (i0, g1),
                    out,
                    counts,
                    &mut st,
                );
            } else {
                group_run_walk::<false, Avx512, LateStores>(
                    args,
                    &stencil,
                    (i0, g1),
                    out,
                    counts,
                    &mut st,
                );
            }
            i0 = g1;
            continue;
        }
        // Box tests, per particle against the stencil's 27 cells as lanes: its kept cells,
        // in the 27-cell layout.
        let mut kept = [fs.nonempty; G];
        let mut pruned = 0u64;
        let hh = _mm512_set1_ps(h2);
        if prune {
            for (l, k) in kept[..gn].iter_mut().enumerate() {
                let p = [pos.x[i0 + l], pos.y[i0 + l], pos.z[i0 + l]].map(|x| _mm512_set1_ps(x));
                let bx = &fs.boxes;
                let near = |h: usize| {
                    box_near_lanes(
                        p,
                        [bx[0][h], bx[1][h], bx[2][h]],
                        [bx[3][h], bx[4][h], bx[5][h]],
                        hh,
                    ) as u32
                };
                *k = (near(0) | near(1) << 16) & fs.nonempty;
                // The pruned cells, counted as each mask is made.
                pruned += (fs.nonempty & !*k).count_ones() as u64;
            }
        }
        let kept = &kept[..gn];
        // Room for gn x (the stencil's particles) + 16: checked first against the most a flat
        // stencil can hold (9 rows of 48), so the sum is only taken when it matters.
        if out.capacity() - out.len() < gn * 9 * 48 + 16 {
            let total = _mm512_reduce_add_epi32(fs.len) as usize;
            reserve(out, gn * total + 16, i0 - lo, hi - lo);
        }
        let dst = out.as_mut_ptr();
        let cs = &mut counts[i0 - lo..g1 - lo];
        // SAFETY: this fn's features; rows of at most 16 k slots; `out` has room for
        // gn * total + 16 more indices.
        let (at, tested) = unsafe {
            if fs.k == 2 {
                flat_walk::<2>(pos, i0, kept, &fs.c, h2, dst, out.len(), cs)
            } else {
                flat_walk::<3>(pos, i0, kept, &fs.c, h2, dst, out.len(), cs)
            }
        };
        // SAFETY: slots up to `at` were written above, within the reserved capacity.
        unsafe { out.set_len(at) };
        st.candidates += tested;
        st.cells_visited += fs.nonempty.count_ones() as u64 * gn as u64;
        st.cells_pruned += pruned;
        i0 = g1;
    }
    st.neighbors = out.len() as u64;
    st
}
