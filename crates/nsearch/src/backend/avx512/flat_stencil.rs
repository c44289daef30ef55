//! A 3 x 3 x 3 stencil in the flat walk's layout: the nine rows' slot bounds as vector lanes,
//! and the 27 cells' boxes by axis.
//!
//! Owns: [`FlatStencil`] and the box rows an interior cell reuses ([`BoxRows`]). Does not touch:
//! the walk itself (`flat_walk`).

use crate::grid::{BOX_AXES_PAD, Grid};

/// A pruned 3 x 3 x 3 stencil in the flat walk's layout (AVX-512). The nine rows `(dz, dy)`, in
/// ascending key order (`r = 3 (dz + 1) + dy + 1`), are the lanes of four vectors:
/// `c[j]` lane `r` is the first slot of cell `x - 1 + j` of row `r`, so `c[0]..c[3]` is the whole
/// row and `c[j]..c[j + 1]` one cell. Rows and cells outside the grid are empty ranges; lanes
/// 9.. are zero.
pub(super) struct FlatStencil {
    pub(super) c: [std::arch::x86_64::__m512i; 4],
    /// Bit `3 r + j` set for each non-empty cell (so each such cell lies in the grid).
    pub(super) nonempty: u32,
    /// Steps per row: 2 or 3 when every row holds at most 32 or 48 slots, else 0 (the run walk
    /// takes the cell).
    pub(super) k: u32,
    /// Particles per row (lanes 0..9): `c[3] - c[0]`.
    pub(super) len: std::arch::x86_64::__m512i,
    /// The cells' boxes by axis in the 27-cell layout: `boxes[a][h]` lane `l` is cell
    /// `t = 16 h + l`'s min x, y, z (`a` = 0, 1, 2) or max x, y, z (`a` = 3, 4, 5); lanes of
    /// empty cells hold anything (a test must keep only `nonempty` cells).
    pub(super) boxes: [[std::arch::x86_64::__m512; 2]; 6],
}

/// The box rows an interior [`FlatStencil`] loaded: for each axis array, the four cells
/// `x - 1 ..= x + 2` of stencil rows 0..4, 4..8 and 8 (as `[f32; 4]` each) around cell `key`
/// (`usize::MAX`: none to reuse).
pub(super) struct BoxRows {
    pub(super) v: [[std::arch::x86_64::__m512; 3]; 6],
    pub(super) key: usize,
}

impl FlatStencil {
    /// The stencil of cell `key` at coordinates `[cx, cy, cz]`. Interior cells (the stencil
    /// inside the grid) load each row's four bounds as one 128-bit load and transpose them;
    /// border cells clamp cell by cell.
    ///
    /// # Safety
    /// AVX-512 F + VL and BMI2; `key` is `[cx, cy, cz]`'s key in `spec`; `roff[r]` is row `r`'s
    /// key offset from the cell's row (`dz nx ny + dy nx`), `off27[t]` cell `t`'s
    /// (`roff[t / 3] + t % 3 - 1`); `axes` is the grid's [`CellBoxes::axes`] (empty: no boxes).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2,popcnt")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn new(
        grid: &Grid,
        axes: &[f32],
        rows: &mut BoxRows,
        key: usize,
        [cx, cy, cz]: [usize; 3],
        roff: &[isize; 9],
        off27: &[isize; 27],
    ) -> Self {
        use std::arch::x86_64::*;
        let spec = grid.spec();
        let start = grid.cell_start();
        let [nx, ny, nz] = spec.dims;
        let interior =
            cx >= 1 && cx + 2 <= nx && cy >= 1 && cy + 2 <= ny && cz >= 1 && cz + 2 <= nz;
        // SAFETY (both branches): indices in bounds, see each.
        let c: [__m512i; 4] = unsafe {
            if interior {
                // Row r's cells x - 1 ..= x + 2: keys key + roff[r] - 1 ..= key + roff[r] + 2,
                // all within 0..=num_cells (x + 2 <= nx: at most the next row's first key, or
                // num_cells at the very end); `start` has num_cells + 1 entries.
                let base = start.as_ptr().add(key - 1);
                let q = |r: usize| _mm_loadu_si128(base.offset(roff[r]) as *const __m128i);
                let a = _mm512_inserti32x4::<1>(_mm512_castsi128_si512(q(0)), q(1));
                let a = _mm512_inserti32x4::<3>(_mm512_inserti32x4::<2>(a, q(2)), q(3));
                let b = _mm512_inserti32x4::<1>(_mm512_castsi128_si512(q(4)), q(5));
                let b = _mm512_inserti32x4::<3>(_mm512_inserti32x4::<2>(b, q(6)), q(7));
                let e = _mm512_castsi128_si512(q(8));
                // Lane r < 8 of c[j] is entry 4 r + j of a:b; lane 8 is entry j of e.
                let four = _mm512_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28, 0, 0, 0, 0, 0, 0, 0, 0);
                std::array::from_fn(|j| {
                    let jj = _mm512_set1_epi32(j as i32);
                    let v = _mm512_maskz_permutex2var_epi32(0xFF, a, _mm512_add_epi32(four, jj), b);
                    _mm512_mask_permutexvar_epi32(v, 0x100, jj, e)
                })
            } else {
                let mut bounds = [[0u32; 16]; 4];
                let (x0, x1) = (cx.saturating_sub(1), (cx + 1).min(nx - 1));
                for z in cz.saturating_sub(1)..=(cz + 1).min(nz - 1) {
                    for y in cy.saturating_sub(1)..=(cy + 1).min(ny - 1) {
                        let row = spec.key_of([0, y, z]);
                        let r = (z + 1 - cz) * 3 + (y + 1 - cy);
                        for (j, b) in bounds.iter_mut().enumerate() {
                            // Cells outside the grid: clamped to an empty range at the row's end.
                            let x = (cx + j).saturating_sub(1).clamp(x0, x1 + 1);
                            b[r] = start[row + x];
                        }
                    }
                }
                std::array::from_fn(|j| _mm512_loadu_si512(bounds[j].as_ptr() as *const _))
            }
        };
        let ne = |j: usize| _mm512_cmpgt_epu32_mask(c[j + 1], c[j]) as u32;
        let nonempty = _pdep_u32(ne(0), 0x0124_9249)
            | _pdep_u32(ne(1), 0x0249_2492)
            | _pdep_u32(ne(2), 0x0492_4924);
        let len = _mm512_sub_epi32(c[3], c[0]);
        let k = if _mm512_cmpgt_epu32_mask(len, _mm512_set1_epi32(32)) == 0 {
            2
        } else if _mm512_cmpgt_epu32_mask(len, _mm512_set1_epi32(48)) == 0 {
            3
        } else {
            0
        };
        let cells = spec.num_cells();
        debug_assert!(axes.is_empty() || axes.len() == 6 * cells + BOX_AXES_PAD);
        // SAFETY: as for the bounds: interior rows' keys key + roff[r] - 1 ..= key + roff[r] + 2
        // are at most num_cells, and each axis is followed by the next one or the padding;
        // border cells read only non-empty cells (in the grid).
        let boxes = unsafe {
            if axes.is_empty() {
                [[_mm512_setzero_ps(); 2]; 6]
            } else if interior {
                // Cell t = 3 r + j: entry 4 r + j of the rows 0..8 (a:b), or j of row 8 (e).
                let lo_idx: [i32; 16] = std::array::from_fn(|t| (4 * (t / 3) + t % 3) as i32);
                let hi_idx: [i32; 16] = std::array::from_fn(|l| {
                    let t = (16 + l).min(26);
                    let (r, j) = (t / 3, t % 3);
                    (if r < 8 { 4 * (r - 4) + j } else { 16 + j }) as i32
                });
                // The cell after the one whose rows were loaded reads the same rows one entry
                // on (entries 1..=3 are its cells x - 1 ..= x + 1), so every second cell of a
                // grid row loads no boxes.
                let shift = if rows.key != usize::MAX && key == rows.key + 1 {
                    rows.key = usize::MAX;
                    1
                } else {
                    for (a, v) in rows.v.iter_mut().enumerate() {
                        let base = axes.as_ptr().add(a * cells + key - 1);
                        let q = |r: usize| _mm_loadu_ps(base.offset(roff[r]));
                        let x = _mm512_insertf32x4::<1>(_mm512_castps128_ps512(q(0)), q(1));
                        let x = _mm512_insertf32x4::<3>(_mm512_insertf32x4::<2>(x, q(2)), q(3));
                        let y = _mm512_insertf32x4::<1>(_mm512_castps128_ps512(q(4)), q(5));
                        let y = _mm512_insertf32x4::<3>(_mm512_insertf32x4::<2>(y, q(6)), q(7));
                        *v = [x, y, _mm512_castps128_ps512(q(8))];
                    }
                    rows.key = key;
                    0
                };
                let sh = _mm512_set1_epi32(shift);
                let lo_idx = _mm512_add_epi32(_mm512_loadu_si512(lo_idx.as_ptr() as *const _), sh);
                let hi_idx = _mm512_add_epi32(_mm512_loadu_si512(hi_idx.as_ptr() as *const _), sh);
                std::array::from_fn(|a| {
                    let [x, y, e] = rows.v[a];
                    [
                        _mm512_permutex2var_ps(x, lo_idx, y),
                        _mm512_permutex2var_ps(y, hi_idx, e),
                    ]
                })
            } else {
                let mut v = [[f32::NAN; 32]; 6];
                let mut m = nonempty;
                while m != 0 {
                    let t = m.trailing_zeros() as usize;
                    m &= m - 1;
                    let k = (key as isize + off27[t]) as usize;
                    for (a, va) in v.iter_mut().enumerate() {
                        va[t] = axes[a * cells + k];
                    }
                }
                std::array::from_fn(|a| {
                    [
                        _mm512_loadu_ps(v[a].as_ptr()),
                        _mm512_loadu_ps(v[a].as_ptr().add(16)),
                    ]
                })
            }
        };
        FlatStencil {
            c,
            nonempty,
            k,
            len,
            boxes,
        }
    }
}
