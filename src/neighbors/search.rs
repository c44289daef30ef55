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

use super::grid::{Grid, dist2};
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

/// One stencil cell, ready to scan.
#[derive(Clone, Copy, Default)]
struct StencilCell {
    start: u32,
    end: u32,
    key: u32,
}

/// The non-empty cells (or, unpruned, the row runs) around one cell, cached while consecutive
/// particles share that cell.
struct Stencil {
    cells: [StencilCell; 125],
    len: usize,
    /// Non-empty cells in the stencil (for the counters).
    nonempty: u64,
    /// Particles in the stencil: an upper bound on one particle's neighbors.
    total: usize,
}

impl Stencil {
    fn new() -> Self {
        Stencil {
            cells: [StencilCell::default(); 125],
            len: 0,
            nonempty: 0,
            total: 0,
        }
    }

    /// Fill for cell `key`; `rows` merges each x-row into one run (unpruned).
    fn build(&mut self, grid: &Grid, key: usize, rows: bool) {
        let spec = grid.spec();
        let start = grid.cell_start();
        let r = spec.cell_size.reach();
        let [cx, cy, cz] = spec.coords_of(key);
        let [nx, ny, nz] = spec.dims;
        let (x0, x1) = (cx.saturating_sub(r), (cx + r).min(nx - 1));
        self.len = 0;
        self.nonempty = 0;
        self.total = 0;
        for z in cz.saturating_sub(r)..=(cz + r).min(nz - 1) {
            for y in cy.saturating_sub(r)..=(cy + r).min(ny - 1) {
                let row = spec.key_of([0, y, z]);
                if rows {
                    let (s, e) = (start[row + x0], start[row + x1 + 1]);
                    for x in x0..=x1 {
                        self.nonempty += (start[row + x + 1] > start[row + x]) as u64;
                    }
                    if e > s {
                        self.cells[self.len] = StencilCell {
                            start: s,
                            end: e,
                            key: (row + x0) as u32,
                        };
                        self.len += 1;
                        self.total += (e - s) as usize;
                    }
                } else {
                    for x in x0..=x1 {
                        let k = row + x;
                        let (s, e) = (start[k], start[k + 1]);
                        if e > s {
                            self.cells[self.len] = StencilCell {
                                start: s,
                                end: e,
                                key: k as u32,
                            };
                            self.len += 1;
                            self.total += (e - s) as usize;
                        }
                    }
                    self.nonempty = self.len as u64;
                }
            }
        }
    }
}

/// Branch-free scan of slots `s..e`: writes every index, keeps those within the radius.
///
/// # Safety
/// `dst` must have room for `len + (e - s)` elements.
#[inline(always)]
unsafe fn scan(
    p: Vec3A,
    pos: &[Vec3A],
    s: usize,
    e: usize,
    h2: f32,
    dst: *mut u32,
    mut len: usize,
) -> usize {
    for (j, &q) in pos[s..e].iter().enumerate() {
        let keep = dist2(p, q) <= h2;
        // SAFETY: caller guarantees capacity.
        unsafe { *dst.add(len) = (s + j) as u32 };
        len += keep as usize;
    }
    len
}

/// Search neighbors of every particle of `sorted` (positions in the cell order of the grid's
/// last sort) and store them in `lists`. `Pruned` needs the grid's AABBs
/// ([`Grid::build_aabbs`]); `Brute` ignores the grid.
pub fn search(
    grid: &Grid,
    sorted: &[Vec3A],
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
                // SAFETY: reserved n slots beyond len.
                let new_len = unsafe { scan(sorted[i], sorted, 0, n, h2, out.as_mut_ptr(), len) };
                unsafe { out.set_len(new_len) };
                counts[k] = new_len as u32;
                st.candidates += n as u64;
                st.neighbors += (new_len - len) as u64;
            }
            st
        }),
        SearchMode::Unpruned | SearchMode::Pruned => {
            assert_eq!(grid.len(), n, "positions not from the grid's last sort");
            let keys = grid.sorted_keys();
            let pruned = mode == SearchMode::Pruned;
            let aabbs = if pruned {
                grid.aabbs()
                    .expect("pruned search needs Grid::build_aabbs after the sort")
            } else {
                &[]
            };
            lists.fill(n, |lo, hi, out, counts| {
                let mut st = SearchStats::default();
                let mut stencil = Stencil::new();
                let mut cur = u32::MAX;
                for (k, i) in (lo..hi).enumerate() {
                    let key = keys[i];
                    if key != cur {
                        stencil.build(grid, key as usize, !pruned);
                        cur = key;
                    }
                    let p = sorted[i];
                    out.reserve(stencil.total);
                    let dst = out.as_mut_ptr();
                    let start_len = out.len();
                    let mut len = start_len;
                    let mut cand = 0usize;
                    let mut skipped = 0u64;
                    for c in &stencil.cells[..stencil.len] {
                        let (s, e) = (c.start as usize, c.end as usize);
                        if pruned && aabbs[c.key as usize].dist2(p) > h2 {
                            skipped += 1;
                            continue;
                        }
                        cand += e - s;
                        // SAFETY: reserved stencil.total >= all candidates of this particle.
                        len = unsafe { scan(p, sorted, s, e, h2, dst, len) };
                    }
                    // SAFETY: slots start_len..len were written by scan.
                    unsafe { out.set_len(len) };
                    counts[k] = len as u32;
                    st.candidates += cand as u64;
                    st.neighbors += (len - start_len) as u64;
                    st.cells_visited += stencil.nonempty;
                    st.cells_pruned += skipped;
                }
                st
            })
        }
    }
}

/// Grid + sorted positions + lists for one search mode: the whole per-step neighbor search.
#[derive(Debug)]
pub struct NeighborSearch {
    mode: SearchMode,
    grid: Grid,
    sorted: Vec<Vec3A>,
    lists: NeighborLists,
}

impl NeighborSearch {
    pub fn new(spec: super::grid::GridSpec, mode: SearchMode) -> Self {
        NeighborSearch {
            mode,
            grid: Grid::new(spec),
            sorted: Vec::new(),
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
        super::grid::gather(self.grid.permutation(), positions, &mut self.sorted);
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
    pub fn sorted_positions(&self) -> &[Vec3A] {
        &self.sorted
    }

    pub fn lists(&self) -> &NeighborLists {
        &self.lists
    }

    /// Bytes held by grid, sorted positions and lists (capacities).
    pub fn memory_bytes(&self) -> usize {
        self.grid.memory_bytes() + self.sorted.capacity() * 16 + self.lists.memory_bytes()
    }
}
