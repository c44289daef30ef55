//! Fixed-radius neighbor search over the grid, in three modes, into cached CSR neighbor lists.
//!
//! Owns: [`SearchMode`], [`NeighborLists`], [`SearchStats`] and the search kernels.
//! Does not touch: the grid's construction (see `grid.rs`).
//!
//! ## The one neighbor rule (all modes)
//! Particle `j` is a neighbor of particle `i` iff `dist2(x_i, x_j) <= h * h`, with
//! [`dist2`](super::grid::dist2) computed in f32 as `(dx*dx + dy*dy) + dz*dz`. The particle itself
//! is included (distance 0), as SPH sums need. Indices are slots in cell order (the order of the
//! sorted positions the search was given), and each list is in ascending slot order.
//!
//! ## Modes
//! - `unpruned`: the plain uniform grid: every particle of every stencil cell is a candidate.
//!   The cells of one stencil row (x - r ..= x + r) are consecutive keys and therefore one
//!   contiguous slot range, so a row is scanned as one run.
//! - `pruned`: the paper's AABB pruning: a stencil cell is skipped when the squared distance from
//!   the particle to the cell's box exceeds `h * h` (Ericson's per-axis excess). The particle's own
//!   cell is tested like any other, as the paper argues. Gives exactly the unpruned lists.
//! - `brute`: every pair, O(n^2); a reference for tests only.
//!
//! ## Lists and determinism
//! Particles are cut into blocks of [`BLOCK`] slots. Each block fills its own index buffer
//! (a gather: no block writes another's data), then one scan turns the per-block counts into global
//! offsets. So `offsets` has `n + 1` entries and indices are the concatenation of the blocks'
//! segments, without a counting pass or a final copy. Blocks never depend on the thread count, so
//! the lists (order included) are identical for any number of threads. All buffers are reused
//! across calls; nothing is allocated per particle.
//!
//! The inner distance loop is branch-free: every candidate's index is written to the next output
//! slot and the length advances by `(d2 <= h2) as usize`.

use super::grid::{Aabb, Grid};
use glam::Vec3A;
use rayon::prelude::*;

/// Slots per block of the neighbor lists (a power of two).
pub const BLOCK: usize = 1024;
const BLOCK_SHIFT: u32 = BLOCK.trailing_zeros();

/// How to search.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    /// Uniform grid with per-cell AABB pruning (the paper's method; default).
    #[default]
    Pruned,
    /// Plain uniform grid: every particle of every stencil cell is tested.
    Unpruned,
    /// All pairs, O(n^2): a reference for tests.
    Brute,
}

impl SearchMode {
    pub fn name(self) -> &'static str {
        match self {
            SearchMode::Pruned => "pruned",
            SearchMode::Unpruned => "unpruned",
            SearchMode::Brute => "brute",
        }
    }
}

impl std::fmt::Display for SearchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Counters of one search (or a sum of several). Integer sums, so identical for any thread count.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SearchStats {
    /// Distance tests made: the paper's "search target particles".
    pub candidates: u64,
    /// Pairs within the radius, self included: the paper's "particles in the influence radius".
    pub neighbors: u64,
    /// Non-empty stencil cells considered.
    pub cells_visited: u64,
    /// Of those, the cells skipped by the AABB test (0 unless pruned).
    pub cells_pruned: u64,
}

impl std::ops::Add for SearchStats {
    type Output = SearchStats;
    fn add(self, o: SearchStats) -> SearchStats {
        SearchStats {
            candidates: self.candidates + o.candidates,
            neighbors: self.neighbors + o.neighbors,
            cells_visited: self.cells_visited + o.cells_visited,
            cells_pruned: self.cells_pruned + o.cells_pruned,
        }
    }
}

impl std::ops::AddAssign for SearchStats {
    fn add_assign(&mut self, o: SearchStats) {
        *self = *self + o;
    }
}

/// Cached neighbor lists in CSR form: `offsets[i]..offsets[i + 1]` indexes the concatenated
/// indices of particle `i`; the indices are stored in per-block segments (see module docs).
#[derive(Debug, Default)]
pub struct NeighborLists {
    offsets: Vec<u32>,
    segments: Vec<Vec<u32>>,
}

impl NeighborLists {
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of particles.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Total number of stored neighbor indices.
    pub fn total(&self) -> usize {
        self.offsets.last().copied().unwrap_or(0) as usize
    }

    /// CSR offsets, `len() + 1` entries.
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// The neighbors of particle `i` (ascending slots, self included).
    #[inline(always)]
    pub fn neighbors(&self, i: usize) -> &[u32] {
        let b = i >> BLOCK_SHIFT;
        let base = self.offsets[b << BLOCK_SHIFT];
        let lo = (self.offsets[i] - base) as usize;
        let hi = (self.offsets[i + 1] - base) as usize;
        &self.segments[b][lo..hi]
    }

    /// Bytes held (capacity) by the lists.
    pub fn memory_bytes(&self) -> usize {
        self.offsets.capacity() * 4
            + self.segments.capacity() * std::mem::size_of::<Vec<u32>>()
            + self
                .segments
                .iter()
                .map(|s| s.capacity() * 4)
                .sum::<usize>()
    }

    /// Flat copy `(offsets, indices)`, for tests and export (allocates).
    pub fn to_csr(&self) -> (Vec<u32>, Vec<u32>) {
        (self.offsets.clone(), self.segments.concat())
    }

    /// Size the buffers for `n` particles and fill them block by block with `fill(lo, hi, out,
    /// counts)`, which must push block `[lo, hi)`'s indices to `out` and set `counts[k]` to the
    /// running total after particle `lo + k`. Returns the summed stats.
    fn fill<F>(&mut self, n: usize, fill: F) -> SearchStats
    where
        F: Fn(usize, usize, &mut Vec<u32>, &mut [u32]) -> SearchStats + Sync,
    {
        let blocks = n.div_ceil(BLOCK);
        self.offsets.resize(n + 1, 0);
        self.segments.resize_with(blocks, Vec::new);
        self.segments.truncate(blocks);
        self.offsets[0] = 0;
        let stats = self.offsets[1..]
            .par_chunks_mut(BLOCK)
            .zip(self.segments.par_iter_mut())
            .enumerate()
            .map(|(b, (counts, out))| {
                out.clear();
                let lo = b * BLOCK;
                fill(lo, lo + counts.len(), out, counts)
            })
            .reduce(SearchStats::default, |a, b| a + b);
        // Block totals -> global offsets.
        let mut bases = Vec::with_capacity(blocks);
        let mut run = 0u64;
        for seg in &self.segments {
            bases.push(run as u32);
            run += seg.len() as u64;
        }
        assert!(
            run < u32::MAX as u64,
            "more than 2^32 neighbor pairs: use a smaller radius or fewer particles"
        );
        self.offsets[1..]
            .par_chunks_mut(BLOCK)
            .zip(bases.par_iter())
            .for_each(|(c, &base)| c.iter_mut().for_each(|o| *o += base));
        stats
    }
}

/// Most cells a stencil can have (5 x 5 x 5 = 125, padded to a multiple of 32).
const MAX_STENCIL: usize = 128;

/// The non-empty cells around one cell, in ascending key order, with their slot ranges and
/// boxes in struct-of-arrays form so that one particle tests all boxes in one vectorized loop.
/// Rebuilt only when consecutive particles change cell.
struct Stencil {
    /// Lanes in use (`0..n`): non-empty cells (pruned) or non-empty rows (unpruned); lanes
    /// `n..` hold empty boxes.
    n: usize,
    /// Non-empty cells in the stencil (for the counters).
    nonempty: u64,
    /// Bits `0..n` set.
    all: u128,
    /// Particles in the stencil: an upper bound on one particle's neighbors.
    total: usize,
    start: [u32; MAX_STENCIL],
    end: [u32; MAX_STENCIL],
    min: [[f32; MAX_STENCIL]; 3],
    max: [[f32; MAX_STENCIL]; 3],
}

impl Stencil {
    fn new() -> Box<Self> {
        Box::new(Stencil {
            n: 0,
            nonempty: 0,
            all: 0,
            total: 0,
            start: [0; MAX_STENCIL],
            end: [0; MAX_STENCIL],
            min: [[f32::INFINITY; MAX_STENCIL]; 3],
            max: [[f32::NEG_INFINITY; MAX_STENCIL]; 3],
        })
    }

    /// Fill for the cell `key`. Pruned (`aabbs` given): one lane per non-empty cell, with its box.
    /// Unpruned: one lane per stencil row, the row's cells being consecutive keys and so one
    /// contiguous slot range.
    #[inline(always)]
    fn build(&mut self, grid: &Grid, key: usize, aabbs: Option<&[Aabb]>) {
        let spec = grid.spec();
        let start = grid.cell_start();
        let r = spec.cell_size.reach();
        let [cx, cy, cz] = spec.coords_of(key);
        let [nx, ny, nz] = spec.dims;
        let (x0, x1) = (cx.saturating_sub(r), (cx + r).min(nx - 1));
        let old = self.n;
        self.n = 0;
        self.total = 0;
        self.nonempty = 0;
        for z in cz.saturating_sub(r)..=(cz + r).min(nz - 1) {
            for y in cy.saturating_sub(r)..=(cy + r).min(ny - 1) {
                let row = spec.key_of([0, y, z]);
                match aabbs {
                    Some(b) => {
                        for k in row + x0..=row + x1 {
                            let (s, e) = (start[k], start[k + 1]);
                            if e > s {
                                let l = self.n;
                                self.start[l] = s;
                                self.end[l] = e;
                                for a in 0..3 {
                                    self.min[a][l] = b[k].min[a];
                                    self.max[a][l] = b[k].max[a];
                                }
                                self.n += 1;
                                self.total += (e - s) as usize;
                            }
                        }
                    }
                    None => {
                        for k in row + x0..=row + x1 {
                            self.nonempty += (start[k + 1] > start[k]) as u64;
                        }
                        let (s, e) = (start[row + x0], start[row + x1 + 1]);
                        if e > s {
                            self.start[self.n] = s;
                            self.end[self.n] = e;
                            self.n += 1;
                            self.total += (e - s) as usize;
                        }
                    }
                }
            }
        }
        if aabbs.is_some() {
            self.nonempty = self.n as u64;
            // Lanes the previous stencil used beyond this one's must test as empty again.
            for l in self.n..old {
                for a in 0..3 {
                    self.min[a][l] = f32::INFINITY;
                    self.max[a][l] = f32::NEG_INFINITY;
                }
            }
        }
        self.all = if self.n == 128 {
            u128::MAX
        } else {
            (1u128 << self.n) - 1
        };
    }

    /// Bit `l` set when `p` is within `h2` of box `l`: [`Aabb::dist2`] for `LANES` boxes at once,
    /// same operations in the same order (so the same exactness argument holds).
    #[inline(always)]
    fn near<const LANES: usize>(&self, p: [f32; 3], h2: f32) -> u128 {
        let mut mask = 0u128;
        for w in 0..LANES / 32 {
            let mut word = 0u32;
            for k in 0..32 {
                let l = w * 32 + k;
                let mut e2 = [0f32; 3];
                for a in 0..3 {
                    let below = self.min[a][l] - p[a];
                    let above = p[a] - self.max[a][l];
                    let e = below.max(above).max(0.0);
                    e2[a] = e * e;
                }
                word |= (((e2[0] + e2[1]) + e2[2] <= h2) as u32) << k;
            }
            mask |= (word as u128) << (32 * w);
        }
        mask
    }
}

/// A kernel that scans one run of slots `s..e` against particle `p`, appends the indices within
/// the radius at `dst + len` (ascending) and returns the new length.
trait Scan {
    /// Elements the kernel may write past the last kept index (scratch lanes).
    const SLACK: usize;
    /// # Safety
    /// `dst` must have room for `len + (e - s) + SLACK` elements, and `pos` must hold at least
    /// [`PAD`] padding slots past `e`.
    unsafe fn scan(
        p: [f32; 3],
        pos: &SoaPositions,
        s: usize,
        e: usize,
        h2: f32,
        dst: *mut u32,
        len: usize,
    ) -> usize;
}

/// Portable branch-free scan: writes every index, advances by `(d2 <= h2) as usize`.
struct ScalarScan;

impl Scan for ScalarScan {
    const SLACK: usize = 0;
    #[inline(always)]
    unsafe fn scan(
        p: [f32; 3],
        pos: &SoaPositions,
        s: usize,
        e: usize,
        h2: f32,
        dst: *mut u32,
        mut len: usize,
    ) -> usize {
        let (xs, ys, zs) = (&pos.x[s..e], &pos.y[s..e], &pos.z[s..e]);
        for (j, ((&x, &y), &z)) in xs.iter().zip(ys).zip(zs).enumerate() {
            let (dx, dy, dz) = (x - p[0], y - p[1], z - p[2]);
            let keep = (dx * dx + dy * dy) + dz * dz <= h2;
            // SAFETY: the caller guarantees room for e - s more elements.
            unsafe { *dst.add(len) = (s + j) as u32 };
            len += keep as usize;
        }
        len
    }
}

/// AVX2 scan: eight distances per step (the same IEEE operations as [`ScalarScan`], lane by
/// lane), a compare mask, and the kept lanes' indices compacted by a 256-entry permutation table
/// and stored eight at a time. The run's tail reads into the next slots (or the padding) and masks
/// those lanes off.
#[cfg(target_arch = "x86_64")]
struct Avx2Scan;

/// `COMPACT[m]` lists the set bits of `m` (ascending) in its first `popcount(m)` lanes.
#[cfg(target_arch = "x86_64")]
static COMPACT: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut k, mut b) = (0, 0);
        while b < 8 {
            if m & (1 << b) != 0 {
                t[m][k] = b as u32;
                k += 1;
            }
            b += 1;
        }
        m += 1;
    }
    t
};

#[cfg(target_arch = "x86_64")]
impl Scan for Avx2Scan {
    const SLACK: usize = 8;
    #[inline(always)]
    unsafe fn scan(
        p: [f32; 3],
        pos: &SoaPositions,
        s: usize,
        e: usize,
        h2: f32,
        dst: *mut u32,
        mut len: usize,
    ) -> usize {
        use std::arch::x86_64::*;
        debug_assert!(e + PAD <= pos.x.len());
        // SAFETY: only called from `#[target_feature(enable = "avx2")]` code after a CPU check;
        // loads stay within the padded arrays and stores within the reserved room.
        unsafe {
            let (px, py, pz) = (
                _mm256_set1_ps(p[0]),
                _mm256_set1_ps(p[1]),
                _mm256_set1_ps(p[2]),
            );
            let hv = _mm256_set1_ps(h2);
            let (xp, yp, zp) = (pos.x.as_ptr(), pos.y.as_ptr(), pos.z.as_ptr());
            let mut j = s;
            loop {
                let dx = _mm256_sub_ps(_mm256_loadu_ps(xp.add(j)), px);
                let dy = _mm256_sub_ps(_mm256_loadu_ps(yp.add(j)), py);
                let dz = _mm256_sub_ps(_mm256_loadu_ps(zp.add(j)), pz);
                let d2 = _mm256_add_ps(
                    _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                    _mm256_mul_ps(dz, dz),
                );
                let mut m = _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(d2, hv)) as u32;
                if e - j < 8 {
                    m &= (1u32 << (e - j)) - 1;
                }
                let lanes = _mm256_loadu_si256(COMPACT[m as usize].as_ptr() as *const __m256i);
                let idx = _mm256_add_epi32(lanes, _mm256_set1_epi32(j as i32));
                _mm256_storeu_si256(dst.add(len) as *mut __m256i, idx);
                len += m.count_ones() as usize;
                j += 8;
                if j >= e {
                    break;
                }
            }
        }
        len
    }
}

/// Make room for `need` more indices in a block's buffer, growing to the block's projected size
/// (so the lists hold little more memory than they use, and grow once, not by doubling).
#[inline(always)]
fn reserve(out: &mut Vec<u32>, need: usize, done: usize, block_len: usize) {
    if out.capacity() - out.len() < need {
        let per = out.len() / done.max(1) + 1;
        let projected = per * (block_len - done) + need;
        out.reserve_exact(projected);
    }
}

/// Grid search over block `[lo, hi)`: see the module docs. `LANES` is the padded stencil size.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn grid_block<const LANES: usize, S: Scan>(
    grid: &Grid,
    pos: &SoaPositions,
    aabbs: Option<&[Aabb]>,
    h2: f32,
    lo: usize,
    hi: usize,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    let keys = grid.sorted_keys();
    let mut st = SearchStats::default();
    let mut stencil = Stencil::new();
    let mut cur = u32::MAX;
    for (k, i) in (lo..hi).enumerate() {
        let key = keys[i];
        if key != cur {
            stencil.build(grid, key as usize, aabbs);
            cur = key;
        }
        let p = [pos.x[i], pos.y[i], pos.z[i]];
        let mut m = if aabbs.is_some() {
            stencil.near::<LANES>(p, h2) & stencil.all
        } else {
            stencil.all
        };
        st.cells_visited += stencil.nonempty;
        st.cells_pruned += (stencil.all & !m).count_ones() as u64;
        reserve(out, stencil.total + S::SLACK, k, hi - lo);
        let dst = out.as_mut_ptr();
        let first = out.len();
        let mut len = first;
        // One lane at a time: a cell of up to 8 particles is one vector step, so the loops'
        // branches are predictable (merging kept neighbours into longer runs is not: it costs
        // more in mispredictions than it saves).
        while m != 0 {
            let c = m.trailing_zeros() as usize;
            m &= m - 1;
            let (s, e) = (stencil.start[c] as usize, stencil.end[c] as usize);
            // SAFETY: reserved stencil.total + SLACK >= this particle's candidates + SLACK.
            len = unsafe { S::scan(p, pos, s, e, h2, dst, len) };
            st.candidates += (e - s) as u64;
        }
        // SAFETY: slots first..len were written by scan.
        unsafe { out.set_len(len) };
        counts[k] = len as u32;
        st.neighbors += (len - first) as u64;
    }
    st
}

/// [`grid_block`] compiled for AVX2 (chosen at run time). Float operations are the same IEEE
/// operations in the same order (Rust never contracts to FMA), so results are bit-identical.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
#[allow(clippy::too_many_arguments)]
fn grid_block_avx2<const LANES: usize>(
    grid: &Grid,
    pos: &SoaPositions,
    aabbs: Option<&[Aabb]>,
    h2: f32,
    lo: usize,
    hi: usize,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    grid_block::<LANES, Avx2Scan>(grid, pos, aabbs, h2, lo, hi, out, counts)
}

fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("bmi1")
            && std::is_x86_feature_detected!("bmi2")
            && std::is_x86_feature_detected!("lzcnt")
            && std::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Padding slots after the last position: +inf, so they are never within any radius, and vector
/// kernels may read a full vector past a run's end.
pub const PAD: usize = 8;

/// Positions in cell order as three f32 arrays (struct of arrays, for vectorized scans), each
/// followed by [`PAD`] slots of +inf.
#[derive(Debug, Clone)]
pub struct SoaPositions {
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    pub z: Vec<f32>,
}

impl Default for SoaPositions {
    fn default() -> Self {
        Self::from_points(&[])
    }
}

impl SoaPositions {
    /// Number of positions (padding excluded).
    pub fn len(&self) -> usize {
        self.x.len() - PAD
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position of slot `i`.
    pub fn get(&self, i: usize) -> Vec3A {
        Vec3A::new(self.x[i], self.y[i], self.z[i])
    }

    /// The x, y, z arrays without padding.
    pub fn axes(&self) -> [&[f32]; 3] {
        let n = self.len();
        [&self.x[..n], &self.y[..n], &self.z[..n]]
    }

    /// `self[slot] = src[perm[slot]]`, in parallel.
    pub fn gather(&mut self, perm: &[u32], src: &[Vec3A]) {
        assert_eq!(
            perm.len(),
            src.len(),
            "permutation and array differ in length"
        );
        let n = src.len();
        for v in [&mut self.x, &mut self.y, &mut self.z] {
            v.resize(n + PAD, f32::INFINITY);
            v[n..].fill(f32::INFINITY);
        }
        self.x[..n]
            .par_iter_mut()
            .zip(self.y[..n].par_iter_mut())
            .zip(self.z[..n].par_iter_mut())
            .zip(perm.par_iter())
            .with_min_len(4096)
            .for_each(|(((x, y), z), &from)| {
                let p = src[from as usize];
                (*x, *y, *z) = (p.x, p.y, p.z);
            });
    }

    /// From positions already in order.
    pub fn from_points(points: &[Vec3A]) -> Self {
        let pad = std::iter::repeat_n(f32::INFINITY, PAD);
        SoaPositions {
            x: points.iter().map(|p| p.x).chain(pad.clone()).collect(),
            y: points.iter().map(|p| p.y).chain(pad.clone()).collect(),
            z: points.iter().map(|p| p.z).chain(pad).collect(),
        }
    }

    /// Bytes held (capacities).
    pub fn memory_bytes(&self) -> usize {
        4 * (self.x.capacity() + self.y.capacity() + self.z.capacity())
    }
}

/// Search neighbors of every particle of `sorted` (positions in the cell order of the grid's
/// last sort) and store them in `lists`. `Pruned` needs the grid's AABBs
/// ([`Grid::build_aabbs`]); `Brute` ignores the grid.
pub fn search(
    grid: &Grid,
    sorted: &SoaPositions,
    mode: SearchMode,
    lists: &mut NeighborLists,
) -> SearchStats {
    let n = sorted.len();
    let radius = grid.spec().radius;
    let h2 = radius * radius;
    match mode {
        SearchMode::Brute => lists.fill(n, |lo, hi, out, counts| {
            let mut st = SearchStats::default();
            for (k, i) in (lo..hi).enumerate() {
                out.reserve(n);
                let len = out.len();
                let p = [sorted.x[i], sorted.y[i], sorted.z[i]];
                // SAFETY: reserved n slots beyond len.
                let new_len =
                    unsafe { ScalarScan::scan(p, sorted, 0, n, h2, out.as_mut_ptr(), len) };
                unsafe { out.set_len(new_len) };
                counts[k] = new_len as u32;
                st.candidates += n as u64;
                st.neighbors += (new_len - len) as u64;
            }
            st
        }),
        SearchMode::Unpruned | SearchMode::Pruned => {
            assert_eq!(grid.len(), n, "positions not from the grid's last sort");
            let aabbs = if mode == SearchMode::Pruned {
                Some(
                    grid.aabbs()
                        .expect("pruned search needs Grid::build_aabbs after the sort"),
                )
            } else {
                None
            };
            let wide = grid.spec().cell_size.reach() > 1;
            let avx2 = has_avx2();
            lists.fill(n, |lo, hi, out, counts| {
                #[cfg(target_arch = "x86_64")]
                if avx2 {
                    // SAFETY: the CPU supports the enabled features (checked above).
                    return unsafe {
                        if wide {
                            grid_block_avx2::<128>(grid, sorted, aabbs, h2, lo, hi, out, counts)
                        } else {
                            grid_block_avx2::<32>(grid, sorted, aabbs, h2, lo, hi, out, counts)
                        }
                    };
                }
                let _ = avx2;
                if wide {
                    grid_block::<128, ScalarScan>(grid, sorted, aabbs, h2, lo, hi, out, counts)
                } else {
                    grid_block::<32, ScalarScan>(grid, sorted, aabbs, h2, lo, hi, out, counts)
                }
            })
        }
    }
}

/// Grid + sorted positions + lists for one search mode: the whole per-step neighbor search.
#[derive(Debug)]
pub struct NeighborSearch {
    mode: SearchMode,
    grid: Grid,
    sorted: SoaPositions,
    lists: NeighborLists,
}

impl NeighborSearch {
    pub fn new(spec: super::grid::GridSpec, mode: SearchMode) -> Self {
        NeighborSearch {
            mode,
            grid: Grid::new(spec),
            sorted: SoaPositions::default(),
            lists: NeighborLists::new(),
        }
    }

    pub fn mode(&self) -> SearchMode {
        self.mode
    }

    pub fn set_mode(&mut self, mode: SearchMode) {
        self.mode = mode;
    }

    /// Construction: sort `positions` into cell order, gather them, and (pruned) build the AABBs.
    pub fn build(&mut self, positions: &[Vec3A]) {
        self.grid.sort(positions);
        self.sorted.gather(self.grid.permutation(), positions);
        if self.mode == SearchMode::Pruned {
            self.grid.build_aabbs(&self.sorted);
        }
    }

    /// Search on the positions of the last [`build`](Self::build).
    pub fn search(&mut self) -> SearchStats {
        search(&self.grid, &self.sorted, self.mode, &mut self.lists)
    }

    pub fn grid(&self) -> &Grid {
        &self.grid
    }

    pub fn grid_mut(&mut self) -> &mut Grid {
        &mut self.grid
    }

    /// Positions in cell order (slot order of the lists).
    pub fn sorted_positions(&self) -> &SoaPositions {
        &self.sorted
    }

    pub fn lists(&self) -> &NeighborLists {
        &self.lists
    }

    /// Bytes held by grid, sorted positions and lists (capacities).
    pub fn memory_bytes(&self) -> usize {
        self.grid.memory_bytes() + self.sorted.memory_bytes() + self.lists.memory_bytes()
    }
}
