//! Fixed-radius neighbor search over the grid, in three modes, into cached CSR neighbor lists.
//!
//! Owns: [`SearchMode`], [`NeighborLists`], [`SearchStats`] and the search kernels.
//! Does not touch: the grid's construction (see `grid.rs`).
//!
//! ## The one neighbor rule (all modes)
//! Particle `j` is a neighbor of particle `i` iff `dist2(x_i, x_j) <= h * h`, with
//! [`dist2`] computed in f32 as `(dx*dx + dy*dy) + dz*dz`. The particle itself
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
//! The inner distance loop is branch-free: a vector step tests `STEP` candidates (8 in the AVX2 and
//! portable kernels, 16 in the AVX-512 one), the kept indices are compacted into the next output
//! slots and the length advances by their count. [`Kernel`] chooses the implementation; all give
//! identical lists.

// The 8-lane kernels index several arrays by lane; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

use super::grid::{CellBoxes, Grid, dist2, fmax};
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

    /// The first particle slot whose list differs from `other`'s (or `len` when only the
    /// lengths differ), or `None` when the lists are identical, order included.
    pub fn first_difference(&self, other: &NeighborLists) -> Option<usize> {
        let n = self.len().min(other.len());
        let first = (0..n)
            .into_par_iter()
            .with_min_len(BLOCK)
            .find_first(|&i| self.neighbors(i) != other.neighbors(i));
        first.or((self.len() != other.len()).then_some(n))
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

    /// Size the buffers for `n` particles and fill them block by block with
    /// `fill(lo, hi, out, counts)`, which must push block `[lo, hi)`'s indices to `out`
    /// and set `counts[k]` to the running total after particle `lo + k`. Returns the summed stats.
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

/// Width of one 8-lane vector step (portable and AVX2 kernels): stencil particles tested per
/// step, and particles per group.
const W: usize = 8;

/// Most particles per group (the AVX-512 kernel's groups).
const G: usize = 16;

/// `COMPACT[m]` lists the set bits of `m` (ascending) in its first `popcount(m)` lanes.
static COMPACT: [[u32; W]; 256] = {
    let mut t = [[0u32; W]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut k, mut b) = (0, 0);
        while b < W {
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

/// Eight slots `s..s + 8` of the padded arrays (slots past the data are +inf padding).
#[inline(always)]
fn lanes(v: &[f32], s: usize) -> [f32; W] {
    v[s..s + W].try_into().unwrap()
}

/// Most units a stencil can have (5 x 5 x 5 cells).
const MAX_UNITS: usize = 125;

/// The stencil of one cell: its units, in ascending key order. Pruned: one unit per non-empty
/// cell (its box is read from the grid by key). Unpruned: one unit per non-empty stencil row,
/// the row's cells being consecutive keys and so one contiguous slot range. Fixed arrays, rebuilt
/// when the walk over sorted particles enters a new cell (for cells of ~8 particles, once per
/// group, so it is kept to loads and stores).
struct Stencil {
    n: usize,
    key: [u32; MAX_UNITS],
    start: [u32; MAX_UNITS],
    end: [u32; MAX_UNITS],
    /// Bit `u % 32` of word `u / 32` is set when unit `u`'s key follows unit `u - 1`'s (pruned:
    /// neighboring cells of one row, whose slots are one range).
    cont: [u32; MAX_UNITS.div_ceil(32)],
    /// Non-empty cells in the stencil (for the counters).
    nonempty: u64,
    /// Particles in the stencil: an upper bound on one particle's neighbors.
    total: usize,
}

impl Stencil {
    fn new() -> Self {
        Stencil {
            n: 0,
            key: [0; MAX_UNITS],
            start: [0; MAX_UNITS],
            end: [0; MAX_UNITS],
            cont: [0; MAX_UNITS.div_ceil(32)],
            nonempty: 0,
            total: 0,
        }
    }

    #[inline(always)]
    fn build<const PRUNE: bool>(&mut self, grid: &Grid, key: usize) {
        let spec = grid.spec();
        let start = grid.cell_start();
        let r = spec.cell_size.reach();
        let [cx, cy, cz] = spec.coords_of(key);
        let [nx, ny, nz] = spec.dims;
        let (x0, x1) = (cx.saturating_sub(r), (cx + r).min(nx - 1));
        let mut n = 0;
        let mut total = 0;
        let mut nonempty = 0;
        for z in cz.saturating_sub(r)..=(cz + r).min(nz - 1) {
            for y in cy.saturating_sub(r)..=(cy + r).min(ny - 1) {
                let row = spec.key_of([0, y, z]);
                let cells = &start[row + x0..=row + x1 + 1];
                if PRUNE {
                    for (k, w) in cells.windows(2).enumerate() {
                        self.key[n] = (row + x0 + k) as u32;
                        self.start[n] = w[0];
                        self.end[n] = w[1];
                        n += (w[1] > w[0]) as usize;
                    }
                } else {
                    for w in cells.windows(2) {
                        nonempty += (w[1] > w[0]) as u64;
                    }
                    let (s, e) = (cells[0], cells[cells.len() - 1]);
                    self.start[n] = s;
                    self.end[n] = e;
                    n += (e > s) as usize;
                }
                total += (cells[cells.len() - 1] - cells[0]) as usize;
            }
        }
        // The run walk's joins.
        if PRUNE {
            self.cont = [0; MAX_UNITS.div_ceil(32)];
            for u in 1..n {
                if self.key[u] == self.key[u - 1] + 1 {
                    self.cont[u / 32] |= 1 << (u % 32);
                }
            }
        }
        self.n = n;
        self.total = total;
        self.nonempty = if PRUNE { n as u64 } else { nonempty };
    }
}

/// The search kernel's two primitives. [`Portable`] is plain Rust; [`X86`] uses AVX2 intrinsics
/// for the box tests and AVX2 (8 slots) or AVX-512 (16 slots) for the distance steps. All perform
/// the same IEEE operations in the same order lane by lane, so they give bit-identical results.
trait Lanes {
    /// Bit `k` of lane `l` set when group particle `l` (slot `g + l`) is within `h2` of
    /// `boxes[keys[k]]` (up to 32 keys): [`Aabb::dist2`] for the group's particles, same
    /// operations in the same order, so the same exactness argument holds (a rejected box holds
    /// no neighbor).
    /// This is each particle's own mask of kept cells, for one word of stencil units.
    ///
    /// Only the first [`GROUP`](Self::GROUP) lanes are computed.
    ///
    /// # Safety
    /// `g + GROUP <= pos.x.len()` (the padding guarantees it for any data slot `g`), and
    /// `keys.len() <= 32`.
    unsafe fn box_word(
        pos: &SoaPositions,
        g: usize,
        boxes: CellBoxes,
        keys: &[u32],
        h2: f32,
    ) -> [u32; G];

    /// Particles per group (at most [`G`]): those of one cell that share a stencil and its box
    /// tests.
    const GROUP: usize;

    /// Slots scanned by one distance step.
    const STEP: usize;

    /// One distance step: the slots `s + l` (`l < STEP`, lane `l` only where `valid` has bit
    /// `l`) within `h2` of `p` (`(dx*dx + dy*dy) + dz*dz <= h2` with `d = x[s + l] - p`) are
    /// written ascending to `dst`; returns how many. May write all `STEP` slots of `dst`.
    ///
    /// # Safety
    /// `s + STEP <= pos.x.len()`; `dst` has room for `STEP` elements.
    unsafe fn step(
        pos: &SoaPositions,
        s: usize,
        p: [f32; 3],
        h2: f32,
        valid: u32,
        dst: *mut u32,
    ) -> usize;
}

struct Portable;

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

/// The x86-64 kernel: AVX2 box tests, and distance steps of 8 slots (AVX2, compaction by table
/// lookup) or, with `AVX512`, of 16 slots (compaction by the compare mask).
#[cfg(target_arch = "x86_64")]
struct X86<const AVX512: bool>;

#[cfg(target_arch = "x86_64")]
impl<const AVX512: bool> Lanes for X86<AVX512> {
    #[inline(always)]
    unsafe fn box_word(
        pos: &SoaPositions,
        g: usize,
        boxes: CellBoxes,
        keys: &[u32],
        h2: f32,
    ) -> [u32; G] {
        use std::arch::x86_64::*;
        if AVX512 {
            // SAFETY: only reached from AVX-512 code after the CPU check; as this fn.
            return unsafe { box_word_avx512(pos, g, boxes, keys, h2) };
        }
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

    const GROUP: usize = if AVX512 { G } else { W };

    const STEP: usize = if AVX512 { 16 } else { W };

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
        if AVX512 {
            // SAFETY: only reached from AVX-512 code after the CPU check; as this fn.
            return unsafe { step_avx512(pos, s, p, h2, valid, dst) };
        }
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

/// Where a group's distance steps put their hits: stored as each step ends ([`AtOnce`]), or
/// queued a few steps ([`LateStores`], AVX-512). The lists are the same either way.
trait StepSink<L: Lanes>: Sized {
    /// A sink for a list `at` long.
    fn start(at: usize) -> Self;

    /// One distance step of `L` (see [`Lanes::step`]) whose hits go to `dst + at`; returns how
    /// many.
    ///
    /// # Safety
    /// As [`Lanes::step`], for `dst + at`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn step(
        &mut self,
        pos: &SoaPositions,
        s: usize,
        p: [f32; 3],
        h2: f32,
        valid: u32,
        dst: *mut u32,
        at: usize,
    ) -> usize;

    /// Store whatever is still queued.
    ///
    /// # Safety
    /// `dst` is the pointer every step was given.
    unsafe fn finish(self, dst: *mut u32);
}

/// Each step stores its hits itself.
struct AtOnce;

impl<L: Lanes> StepSink<L> for AtOnce {
    #[inline(always)]
    fn start(_: usize) -> Self {
        AtOnce
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
        // SAFETY: the caller's contract.
        unsafe { L::step(pos, s, p, h2, valid, dst.add(at)) }
    }

    #[inline(always)]
    unsafe fn finish(self, _: *mut u32) {}
}

#[cfg(target_arch = "x86_64")]
impl StepSink<X86<true>> for LateStores {
    #[inline(always)]
    fn start(at: usize) -> Self {
        // SAFETY: only reached from AVX-512 code after the CPU check (the X86<true> kernel).
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

/// The AVX-512 box tests of [`X86`]: sixteen particles per group (so a cell of 9 to 16 particles
/// is one group, not two, and shares one set of box tests), the same operations in the same order
/// as [`Aabb::dist2`] lane by lane.
///
/// # Safety
/// The CPU supports AVX-512 F + VL; `g + 16 <= pos.x.len()`; `keys.len() <= 32`.
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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

/// The AVX-512 distance step of [`X86`], a function of its own with the features enabled, so the mask
/// register code never lands in a function compiled without them. (With LTO, rustdoc's opt-level
/// 0 codegen of this function's optimized bitcode fails in LLVM; see the release profile.)
///
/// # Safety
/// The CPU supports AVX-512 F + VL; `s + 16 <= pos.x.len()`; `dst` has room for 16.
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
#[cfg(target_arch = "x86_64")]
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
/// for it, so each step waits for the one before (measured in isolation on Zen 5: 12.2 cycles
/// per step; 7.8 stored two steps late, 7.0 three late, 5.4 with no store at all). Stored late,
/// the address is known when the store issues. The stores keep their order, so each one still
/// overwrites the unused tail of the one before.
#[cfg(target_arch = "x86_64")]
struct LateStores {
    v: [std::arch::x86_64::__m512i; 3],
    at: [usize; 3],
}

#[cfg(target_arch = "x86_64")]
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

/// The grid search's inputs for one block `[lo, hi)` of sorted slots.
type BlockArgs<'a> = (
    &'a Grid,
    &'a SoaPositions,
    Option<CellBoxes<'a>>,
    f32,
    usize,
    usize,
);

/// Grid search over one block, cell-centric:
/// 1. the block's particles are walked in cell order, in groups of up to `L::GROUP` (8, or 16
///    with AVX-512) of the same cell, which share one stencil;
/// 2. (pruned) each stencil cell's box is tested against the whole group in one vector step, and
///    the results are accumulated into each particle's own bit mask of kept cells (unpruned: every
///    unit is kept);
/// 3. each particle then walks its kept units in ascending order, joining kept cells that are
///    neighbors in one stencil row into one run (their slots are one range, so two kept cells of 8
///    fill one 16-slot step instead of two part-filled ones). Each run is scanned in distance steps
///    of `L::STEP` slots whose kept indices are compacted straight into the particle's list, in
///    ascending slot order.
///
/// Pruning therefore removes exactly the candidates of the skipped cells (the counters are the
/// paper's), and the box tests are shared by the group. The particle-major walk keeps the
/// particle's position and list length in registers. The time of a search is mostly per run and
/// per group, not per candidate (see the README's measured figures), which is why pruning saves
/// less time than candidates.
/// Nothing is allocated once the block's buffer has grown.
#[inline(always)]
fn grid_block<const PRUNE: bool, L: Lanes, Q: StepSink<L>>(
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    let (grid, _, _, _, lo, hi) = args;
    let keys = grid.sorted_keys();
    let cell_start = grid.cell_start();
    let mut st = SearchStats::default();
    let mut stencil = Stencil::new();
    let mut cur = u32::MAX;
    let mut i0 = lo;
    while i0 < hi {
        let key = keys[i0];
        if key != cur {
            stencil.build::<PRUNE>(grid, key as usize);
            cur = key;
        }
        let g1 = (i0 + L::GROUP)
            .min(hi)
            .min(cell_start[key as usize + 1] as usize);
        group_run_walk::<PRUNE, L, Q>(args, &stencil, (i0, g1), out, counts, &mut st);
        i0 = g1;
    }
    st.neighbors = out.len() as u64;
    st
}

/// Steps 2 and 3 of [`grid_block`] for one group, slots `i0..g1` of one cell (at most
/// `L::GROUP`) in the block of `args`: the box tests (pruned) and the run walk, whose indices are
/// appended to `out` and whose running totals go to `counts`; the counters are added to `st`.
#[inline(always)]
fn group_run_walk<const PRUNE: bool, L: Lanes, Q: StepSink<L>>(
    (_, pos, aabbs, h2, lo, hi): BlockArgs,
    stencil: &Stencil,
    (i0, g1): (usize, usize),
    out: &mut Vec<u32>,
    counts: &mut [u32],
    st: &mut SearchStats,
) {
    let boxes = aabbs.unwrap_or(CellBoxes::NONE);
    let gn = g1 - i0;
    debug_assert!(gn <= L::GROUP && i0 + L::GROUP <= pos.x.len());
    let units = stencil.n;
    let words = units.div_ceil(32);
    // 2. Each particle's kept units, 32 units per word (MAX_UNITS <= 128).
    let mut masks = [[0u32; G]; MAX_UNITS.div_ceil(32)];
    for (w, acc) in masks[..words].iter_mut().enumerate() {
        let (u0, u1) = (32 * w, (32 * w + 32).min(units));
        if PRUNE {
            // SAFETY: i0 is a data slot, so i0 + GROUP is within the padded arrays.
            *acc = unsafe { L::box_word(pos, i0, boxes, &stencil.key[u0..u1], h2) };
        } else {
            *acc = [u32::MAX >> (32 - (u1 - u0)); G];
        }
    }
    // 3. Distance steps straight into the lists.
    reserve(out, gn * stencil.total + L::STEP, i0 - lo, hi - lo);
    let dst = out.as_mut_ptr();
    let cs = &mut counts[i0 - lo..g1 - lo];
    let (at, tested, kept_units) =
        run_walk::<L, Q>(pos, i0, &masks[..words], stencil, h2, dst, out.len(), cs);
    // SAFETY: slots up to `at` were written above, within the reserved capacity.
    unsafe { out.set_len(at) };
    st.candidates += tested;
    st.cells_visited += stencil.nonempty * gn as u64;
    if PRUNE {
        st.cells_pruned += units as u64 * gn as u64 - kept_units;
    }
}

/// The run walk of one group: each particle walks its kept units in ascending order, joining
/// kept cells that are neighbors in one stencil row into one run (one slot range), and scans each
/// run in steps of `L::STEP` slots whose hits go straight to its list. `masks[w][l]` is particle
/// `i0 + l`'s kept units `32 w..`. Returns the new list length, the candidates tested and the
/// kept units.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn run_walk<L: Lanes, Q: StepSink<L>>(
    pos: &SoaPositions,
    i0: usize,
    masks: &[[u32; G]],
    stencil: &Stencil,
    h2: f32,
    dst: *mut u32,
    mut at: usize,
    counts: &mut [u32],
) -> (usize, u64, u64) {
    let (mut tested, mut kept_units) = (0u64, 0u64);
    let mut sink = Q::start(at);
    for (i, count) in counts.iter_mut().enumerate() {
        let p = [pos.x[i0 + i], pos.y[i0 + i], pos.z[i0 + i]];
        let mut len = 0usize;
        for (w, acc) in masks.iter().enumerate() {
            let m = acc[i];
            kept_units += m.count_ones() as u64;
            // Kept units that continue a run: kept, key-adjacent to the unit before, which is
            // kept too. Key-adjacent cells are slot-adjacent, so a run is one range.
            let more = m & stencil.cont[w] & (m << 1);
            let mut starts = m & !more;
            while starts != 0 {
                let s = starts.trailing_zeros();
                starts &= starts - 1;
                let run = (!(more >> s >> 1)).trailing_zeros() as usize;
                let u = 32 * w + s as usize;
                let (mut c, e) = (stencil.start[u], stencil.end[u + run]);
                tested += (e - c) as u64;
                // One step per STEP particles of the run.
                loop {
                    let valid = (1u32 << (e - c).min(L::STEP as u32)) - 1;
                    // SAFETY: c is a data slot (padding covers c + STEP); the caller's `dst`
                    // has room for counts.len() * stencil.total + STEP more indices, and this
                    // particle has written at most stencil.total of them before this write.
                    len += unsafe { sink.step(pos, c as usize, p, h2, valid, dst, at + len) };
                    c += L::STEP as u32;
                    if c >= e {
                        break;
                    }
                }
            }
        }
        at += len;
        *count = at as u32;
    }
    // SAFETY: the steps above were given `dst`.
    unsafe { sink.finish(dst) };
    (at, tested, kept_units)
}

/// The flat walk of one group (AVX-512, 3 x 3 x 3 stencils whose rows hold at most 16 K slots,
/// K = 2 or 3).
///
/// The run walk of [`grid_block`] loops over each particle's runs and each run's steps, and the
/// number of both varies from particle to particle as pruning keeps different cells: the loop
/// exits are mispredicted about twice per particle. Here the group's steps are first listed,
/// without branches, and then run in one loop, so the only varying loop is the group's.
/// Measured with alternating binaries (bench-search, 5-6 runs each, 2 threads, two steps per
/// row): pruned / unpruned search 0.863 -> 0.853 on the 1M lattice, 1.321 -> 1.244 on a
/// dam-break frame.
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
#[cfg(target_arch = "x86_64")]
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

/// A pruned 3 x 3 x 3 stencil in the flat walk's layout (AVX-512). The nine rows `(dz, dy)`, in
/// ascending key order (`r = 3 (dz + 1) + dy + 1`), are the lanes of four vectors:
/// `c[j]` lane `r` is the first slot of cell `x - 1 + j` of row `r`, so `c[0]..c[3]` is the whole
/// row and `c[j]..c[j + 1]` one cell. Rows and cells outside the grid are empty ranges; lanes
/// 9.. are zero.
#[cfg(target_arch = "x86_64")]
struct FlatStencil {
    c: [std::arch::x86_64::__m512i; 4],
    /// Bit `3 r + j` set for each non-empty cell (so each such cell lies in the grid).
    nonempty: u32,
    /// Steps per row: 2 or 3 when every row holds at most 32 or 48 slots, else 0 (the run walk
    /// takes the cell).
    k: u32,
    /// Particles per row (lanes 0..9): `c[3] - c[0]`.
    len: std::arch::x86_64::__m512i,
    /// The cells' boxes by axis in the 27-cell layout: `boxes[a][h]` lane `l` is cell
    /// `t = 16 h + l`'s min x, y, z (`a` = 0, 1, 2) or max x, y, z (`a` = 3, 4, 5); lanes of
    /// empty cells hold anything (a test must keep only `nonempty` cells).
    boxes: [[std::arch::x86_64::__m512; 2]; 6],
}

/// The box rows an interior [`FlatStencil`] loaded: for each axis array, the four cells
/// `x - 1 ..= x + 2` of stencil rows 0..4, 4..8 and 8 (as `[f32; 4]` each) around cell `key`
/// (`usize::MAX`: none to reuse).
#[cfg(target_arch = "x86_64")]
struct BoxRows {
    v: [[std::arch::x86_64::__m512; 3]; 6],
    key: usize,
}

#[cfg(target_arch = "x86_64")]
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
    unsafe fn new(
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
        debug_assert!(axes.is_empty() || axes.len() == 6 * cells + super::grid::BOX_AXES_PAD);
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

/// The search of one block with the flat walk (AVX-512, 3 x 3 x 3 stencils), pruned when
/// `args.2` holds the boxes, else unpruned: as [`grid_block`], but the stencil is a
/// [`FlatStencil`] (no per-cell unit lists); pruned, each particle tests the 27 cells' boxes as
/// the lanes of two vectors, in the fixed 27-cell layout (unpruned: every non-empty cell is kept);
/// and [`flat_walk`] lists and runs the steps. A cell whose stencil rows hold more than 48 slots
/// takes the run walk. Measured against the run walk: see the README ("The neighbor search").
///
/// # Safety
/// AVX-512 F + VL and BMI2; a 3 x 3 x 3 grid; at most 2^24 slots.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2,popcnt,lzcnt")]
unsafe fn grid_block_flat(args: BlockArgs, out: &mut Vec<u32>, counts: &mut [u32]) -> SearchStats {
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
                group_run_walk::<true, X86<true>, LateStores>(
                    args,
                    &stencil,
                    (i0, g1),
                    out,
                    counts,
                    &mut st,
                );
            } else {
                group_run_walk::<false, X86<true>, LateStores>(
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

/// [`grid_block`] compiled for AVX2 (chosen at run time). Float operations are the same IEEE
/// operations in the same order (Rust never contracts to FMA), so results are bit-identical.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
fn grid_block_avx2<const PRUNE: bool>(
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    grid_block::<PRUNE, X86<false>, AtOnce>(args, out, counts)
}

/// [`grid_block`] compiled for AVX-512 (chosen at run time): 16-slot distance steps, compaction
/// by the mask register. Same IEEE operations in the same order lane by lane as the others.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2,bmi1,bmi2,popcnt,lzcnt")]
fn grid_block_avx512<const PRUNE: bool>(
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    // Pruned, 3 x 3 x 3: the flat walk (see `flat_walk`), whose steps hold slots in 24 bits.
    // Unpruned: the run walk; its walks are alike from particle to particle, so listing steps
    // first only costs (measured: unpruned 28.1 -> 32.8 ms on the 1M lattice).
    if args.1.x.len() <= 1 << 24 && args.0.spec().cell_size.reach() == 1 {
        // SAFETY: this fn's features are those `grid_block_flat` needs.
        unsafe { grid_block_flat(args, out, counts) }
    } else {
        grid_block::<PRUNE, X86<true>, LateStores>(args, out, counts)
    }
}

/// Which implementation of the search kernel runs. All give identical lists and counters (the
/// same IEEE operations in the same order lane by lane); they differ only in speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Kernel {
    /// The fastest kernel this CPU supports (the default).
    Auto,
    /// Plain Rust, 8 lanes, no intrinsics: any CPU.
    Portable,
    /// x86-64 AVX2: 8-slot distance steps, compaction by table lookup.
    Avx2,
    /// x86-64 AVX-512 (F + VL): 16-slot distance steps, compaction by mask register.
    Avx512,
}

impl Kernel {
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Auto => "auto",
            Kernel::Portable => "portable",
            Kernel::Avx2 => "avx2",
            Kernel::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run the kernel.
    pub fn available(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = || {
                std::is_x86_feature_detected!("avx2")
                    && std::is_x86_feature_detected!("bmi1")
                    && std::is_x86_feature_detected!("bmi2")
                    && std::is_x86_feature_detected!("lzcnt")
                    && std::is_x86_feature_detected!("popcnt")
            };
            match self {
                Kernel::Auto | Kernel::Portable => true,
                Kernel::Avx2 => avx2(),
                Kernel::Avx512 => {
                    avx2()
                        && std::is_x86_feature_detected!("avx512f")
                        && std::is_x86_feature_detected!("avx512vl")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        matches!(self, Kernel::Auto | Kernel::Portable)
    }

    /// The kernel `self` stands for on this CPU (`Auto` resolved to the fastest available).
    pub fn resolve(self) -> Kernel {
        match self {
            Kernel::Auto => [Kernel::Avx512, Kernel::Avx2]
                .into_iter()
                .find(|k| k.available())
                .unwrap_or(Kernel::Portable),
            k => k,
        }
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The process-wide kernel choice (an index into `KERNELS`).
static KERNEL_CHOICE: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);
const KERNELS: [Kernel; 4] = [Kernel::Auto, Kernel::Portable, Kernel::Avx2, Kernel::Avx512];

/// Choose the search kernel for the whole process (for comparisons and tests; `Auto` is the
/// default). Fails, changing nothing, when this CPU cannot run `kernel`.
pub fn set_kernel(kernel: Kernel) -> Result<(), String> {
    if !kernel.available() {
        return Err(format!("this CPU cannot run the {kernel} search kernel"));
    }
    let i = KERNELS.iter().position(|&k| k == kernel).unwrap_or(0);
    KERNEL_CHOICE.store(i as u8, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// The kernel searches run with now (never `Auto`).
pub fn kernel_in_use() -> Kernel {
    KERNELS[KERNEL_CHOICE.load(std::sync::atomic::Ordering::Relaxed) as usize].resolve()
}

/// Padding slots after the last position: +inf, so they are never within any radius, and vector
/// kernels may read a full vector past a run's end.
pub const PAD: usize = 16;

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

    /// Set the length to `n` (contents unspecified) with the +inf padding after it.
    pub fn resize(&mut self, n: usize) {
        for v in [&mut self.x, &mut self.y, &mut self.z] {
            v.resize(n + PAD, f32::INFINITY);
            v[n..].fill(f32::INFINITY);
        }
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
/// ([`Grid::gather_sorted`] with boxes); `Brute` ignores the grid.
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
        }),
        SearchMode::Unpruned | SearchMode::Pruned => {
            assert_eq!(grid.len(), n, "positions not from the grid's last sort");
            let aabbs =
                if mode == SearchMode::Pruned {
                    Some(grid.boxes().expect(
                        "pruned search needs the boxes of Grid::gather_sorted after the sort",
                    ))
                } else {
                    None
                };
            let kernel = kernel_in_use();
            lists.fill(n, |lo, hi, out, counts| {
                let args = (grid, sorted, aabbs, h2, lo, hi);
                // SAFETY: `kernel_in_use` only returns kernels this CPU supports.
                #[cfg(target_arch = "x86_64")]
                match kernel {
                    Kernel::Avx512 => unsafe {
                        return match aabbs {
                            Some(_) => grid_block_avx512::<true>(args, out, counts),
                            None => grid_block_avx512::<false>(args, out, counts),
                        };
                    },
                    Kernel::Avx2 => unsafe {
                        return match aabbs {
                            Some(_) => grid_block_avx2::<true>(args, out, counts),
                            None => grid_block_avx2::<false>(args, out, counts),
                        };
                    },
                    _ => {}
                }
                let _ = kernel;
                match aabbs {
                    Some(_) => grid_block::<true, Portable, AtOnce>(args, out, counts),
                    None => grid_block::<false, Portable, AtOnce>(args, out, counts),
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
        let aabbs = self.mode == SearchMode::Pruned;
        self.grid.gather_sorted(positions, &mut self.sorted, aabbs);
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
