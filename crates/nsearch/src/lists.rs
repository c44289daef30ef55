//! Cached neighbor lists in CSR form, and the counters of one search (the AABB paper's Table 2).
//!
//! Owns: [`NeighborLists`] (offsets and per-block index segments) and [`SearchStats`]. Does not
//! touch: how a block's lists are found (the walks and backends fill them through
//! `NeighborLists::fill`).
//!
//! ## Lists and determinism
//! Particles are cut into blocks of [`BLOCK`] slots. Each block fills its own index buffer
//! (a gather: no block writes another's data), then one scan turns the per-block counts into global
//! offsets. So `offsets` has `n + 1` entries and indices are the concatenation of the blocks'
//! segments, without a counting pass or a final copy. Blocks never depend on the thread count, so
//! the lists (order included) are identical for any number of threads. All buffers are reused
//! across calls; nothing is allocated per particle.

use rayon::prelude::*;

/// Slots per block of the neighbor lists (a power of two).
pub const BLOCK: usize = 1024;
const BLOCK_SHIFT: u32 = BLOCK.trailing_zeros();

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
    pub(crate) fn fill<F>(&mut self, n: usize, fill: F) -> SearchStats
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
