//! The uniform grid rebuilt every step: a deterministic parallel counting sort into cell order,
//! cell start offsets, and the per-cell axis-aligned bounding boxes (AABBs) of the AABB-pruning
//! paper.
//!
//! Owns: the permutation into cell order and the per-cell data (slot ranges, boxes). Does not
//! touch: the geometry (see `spec`), the search walk, or any caller's arrays; callers reorder
//! their own arrays with [`Grid::permutation`] / [`gather`].
//!
//!
//! ## Construction (all parallel, result independent of the thread count)
//! 1. key per particle: `x + nx * (y + ny * z)` of its (clamped) cell;
//! 2. a counting sort by key: one histogram per input chunk, a scan over (cell, chunk), then each
//!    chunk scatters its particles to their slots. This is a *stable* sort, so the permutation is
//!    the same for any number of chunks (threads): within a cell particles keep their input order;
//! 3. `cell_start[c]..cell_start[c + 1]` is the slot range of cell `c` in sorted order;
//! 4. (pruned mode only) the AABB of each cell's particles, in parallel over cells; an empty cell
//!    gets an empty box (min = +inf, max = -inf) which every distance test rejects.
//!
//! The paper registers particles serially because of a race; the counting sort has none.

use crate::positions::SoaPositions;
use crate::spec::GridSpec;
use glam::Vec3A;
use rayon::prelude::*;

/// Raw pointer that may be shared across rayon tasks that write disjoint slots.
#[derive(Clone, Copy)]
pub(crate) struct SyncPtr<T>(pub *mut T);
unsafe impl<T: Send> Send for SyncPtr<T> {}
unsafe impl<T: Send> Sync for SyncPtr<T> {}

impl<T> SyncPtr<T> {
    /// The pointer (a method, so closures capture the whole `Send` wrapper, not the raw field).
    #[inline(always)]
    pub(crate) fn get(self) -> *mut T {
        self.0
    }
}

/// The grid: cell ranges in sorted order, per-cell boxes, and the permutation into cell order.
/// Every buffer is reused across builds.
#[derive(Debug)]
pub struct Grid {
    spec: GridSpec,
    /// Key of each input particle.
    keys: Vec<u32>,
    /// `perm[slot] = input index` of the particle in that sorted slot.
    perm: Vec<u32>,
    /// Key of each sorted slot.
    sorted_keys: Vec<u32>,
    /// Slot ranges: cell `c` holds slots `cell_start[c]..cell_start[c + 1]`.
    cell_start: Vec<u32>,
    /// Per-cell AABBs by axis (valid after [`Grid::gather_sorted`] with boxes):
    /// `box_axes[a * cells + c]` is cell `c`'s min (`a` = 0, 1, 2: x, y, z) or max (`a` = 3, 4,
    /// 5), plus [`BOX_AXES_PAD`] padding floats, so a stencil row's cells load as one vector.
    box_axes: Vec<f32>,
    /// One histogram per chunk, chunk-major (`hist[chunk * cells + cell]`).
    hist: Vec<u32>,
    aabbs_valid: bool,
}

impl Grid {
    /// An empty grid for `spec`; buffers grow on the first build.
    pub fn new(spec: GridSpec) -> Self {
        Grid {
            spec,
            keys: Vec::new(),
            perm: Vec::new(),
            sorted_keys: Vec::new(),
            cell_start: Vec::new(),
            box_axes: Vec::new(),
            hist: Vec::new(),
            aabbs_valid: false,
        }
    }

    pub fn spec(&self) -> &GridSpec {
        &self.spec
    }

    /// Replace the geometry (buffers are kept).
    pub fn set_spec(&mut self, spec: GridSpec) {
        self.spec = spec;
        self.aabbs_valid = false;
    }

    /// `perm[slot] = input index`: gather any per-particle array into cell order with it.
    pub fn permutation(&self) -> &[u32] {
        &self.perm
    }

    /// Cell key of every sorted slot.
    pub fn sorted_keys(&self) -> &[u32] {
        &self.sorted_keys
    }

    /// The most neighbor pairs a search on this grid (after a sort) can find: each particle
    /// against every particle of its stencil. An upper bound, about 6 times the pairs within the
    /// radius for uniform points and n² for n coincident ones: what a caller checks before it
    /// lets the lists grow.
    pub fn stencil_pairs(&self) -> u64 {
        let spec = &self.spec;
        let start = &self.cell_start;
        let r = spec.cell_size.reach();
        let [nx, ny, nz] = spec.dims;
        let mut pairs = 0u64;
        for key in 0..spec.num_cells() {
            let n = (start[key + 1] - start[key]) as u64;
            if n == 0 {
                continue;
            }
            let [cx, cy, cz] = spec.coords_of(key);
            let mut around = 0u64;
            for z in cz.saturating_sub(r)..=(cz + r).min(nz - 1) {
                for y in cy.saturating_sub(r)..=(cy + r).min(ny - 1) {
                    let row = spec.key_of([0, y, z]);
                    let (a, b) = (row + cx.saturating_sub(r), row + (cx + r).min(nx - 1));
                    around += (start[b + 1] - start[a]) as u64;
                }
            }
            pairs = pairs.saturating_add(n * around);
        }
        pairs
    }

    /// `cell_start` (length cells + 1).
    pub fn cell_start(&self) -> &[u32] {
        &self.cell_start
    }

    /// Per-cell boxes; `None` unless built since the last sort. Only the boxes of non-empty
    /// cells are valid (those of empty cells are not written, so hold whatever an earlier build
    /// left).
    pub fn boxes(&self) -> Option<CellBoxes<'_>> {
        self.aabbs_valid.then_some(CellBoxes {
            axes: &self.box_axes,
            cells: self.spec.num_cells(),
        })
    }

    /// Number of particles in the last build.
    pub fn len(&self) -> usize {
        self.perm.len()
    }

    pub fn is_empty(&self) -> bool {
        self.perm.is_empty()
    }

    /// Bytes held by the grid's buffers (capacities).
    pub fn memory_bytes(&self) -> usize {
        4 * (self.keys.capacity()
            + self.perm.capacity()
            + self.sorted_keys.capacity()
            + self.cell_start.capacity()
            + self.hist.capacity())
            + 4 * self.box_axes.capacity()
    }

    /// Compute keys and sort `positions` (input order) into cell order. After this,
    /// [`Grid::permutation`] maps sorted slots to input indices and `cell_start` is valid.
    pub fn sort(&mut self, positions: &[Vec3A]) {
        let n = positions.len();
        assert!(n < u32::MAX as usize, "more than 2^32 - 1 particles");
        let spec = self.spec;
        let cells = spec.num_cells();
        self.aabbs_valid = false;

        self.keys.resize(n, 0);
        self.keys
            .par_chunks_mut(4096)
            .zip(positions.par_chunks(4096))
            .for_each(|(k, p)| spec.keys_into(p, k));

        // Chunks: one per thread (a stable sort, so the chunking never shows in the result).
        let chunks = rayon::current_num_threads().clamp(1, 64).min(n.max(1));
        let chunk_len = n.div_ceil(chunks).max(1);
        let chunk = |c: usize| (c * chunk_len).min(n)..((c + 1) * chunk_len).min(n);
        self.hist.clear();
        self.hist.resize(chunks * cells, 0);

        // 1. Per-chunk histograms.
        let keys = &self.keys;
        self.hist
            .par_chunks_mut(cells)
            .enumerate()
            .for_each(|(c, h)| {
                for &k in &keys[chunk(c)] {
                    h[k as usize] += 1;
                }
            });

        // 2. Exclusive scan over (cell, chunk): hist becomes each chunk's first slot per cell.
        self.cell_start.resize(cells + 1, 0);
        let mut run = 0u32;
        for cell in 0..cells {
            self.cell_start[cell] = run;
            for c in 0..chunks {
                let h = &mut self.hist[c * cells + cell];
                let cnt = *h;
                *h = run;
                run += cnt;
            }
        }
        self.cell_start[cells] = run;

        // 3. Scatter: each chunk writes its particles to its own (disjoint) slots.
        self.perm.resize(n, 0);
        self.sorted_keys.resize(n, 0);
        let perm = SyncPtr(self.perm.as_mut_ptr());
        let skeys = SyncPtr(self.sorted_keys.as_mut_ptr());
        self.hist
            .par_chunks_mut(cells)
            .enumerate()
            .for_each(|(c, h)| {
                let range = chunk(c);
                for (i, &k) in keys.iter().enumerate().take(range.end).skip(range.start) {
                    if let Some(&ahead) = keys.get(i + PREFETCH_AHEAD) {
                        // The slot the particle ahead will take (give or take a few).
                        let s = (h[ahead as usize] as usize).min(n - 1);
                        prefetch_ptr(perm.get().wrapping_add(s));
                        prefetch_ptr(skeys.get().wrapping_add(s));
                    }
                    let k = k as usize;
                    let slot = h[k] as usize;
                    h[k] += 1;
                    // SAFETY: the scan gives every (chunk, cell) a private slot range that
                    // covers exactly that chunk's particles in that cell, so each slot < n is
                    // written once, by one task.
                    unsafe {
                        *perm.get().add(slot) = i as u32;
                        *skeys.get().add(slot) = k as u32;
                    }
                }
            });
    }

    /// Gather `positions` (input order) into cell order in `sorted`, and with `aabbs` also build
    /// every non-empty cell's box in the same pass: one parallel sweep over cells, each writing
    /// its own slot range and its own box, while the coordinates are in registers.
    pub fn gather_sorted(&mut self, positions: &[Vec3A], sorted: &mut SoaPositions, aabbs: bool) {
        let n = self.perm.len();
        assert_eq!(positions.len(), n, "positions not from the last sort");
        sorted.resize(n);
        let cells = self.spec.num_cells();
        if aabbs {
            self.box_axes.resize(6 * cells + BOX_AXES_PAD, f32::NAN);
        }
        let (perm, start) = (&self.perm, &self.cell_start);
        let out = [
            SyncPtr(sorted.x.as_mut_ptr()),
            SyncPtr(sorted.y.as_mut_ptr()),
            SyncPtr(sorted.z.as_mut_ptr()),
        ];
        let axes = SyncPtr(self.box_axes.as_mut_ptr());
        (0..cells).into_par_iter().with_min_len(1024).for_each(|c| {
            let (s, e) = (start[c] as usize, start[c + 1] as usize);
            let mut min = Vec3A::splat(f32::INFINITY);
            let mut max = Vec3A::splat(f32::NEG_INFINITY);
            for slot in s..e {
                prefetch(positions, perm.get(slot + PREFETCH_AHEAD).copied());
                let p = positions[perm[slot] as usize];
                // SAFETY: slots s..e belong to cell c alone, and slot < n <= each array's length.
                unsafe {
                    *out[0].get().add(slot) = p.x;
                    *out[1].get().add(slot) = p.y;
                    *out[2].get().add(slot) = p.z;
                }
                min = min.min(p);
                max = max.max(p);
            }
            // Empty cells keep a stale box: the search never reads one (its stencil units are
            // the non-empty cells), and a scene's tank is mostly empty cells, whose boxes would
            // be 24 bytes of memory traffic each, every step.
            if aabbs && e > s {
                // SAFETY: one box per cell, written by this cell's task only; c < cells.
                unsafe {
                    for a in 0..3 {
                        *axes.get().add(a * cells + c) = min[a];
                        *axes.get().add((3 + a) * cells + c) = max[a];
                    }
                }
            }
        });
        self.aabbs_valid = aabbs;
    }
}

/// The per-cell boxes of a [`Grid`], by axis (see [`Grid::boxes`]).
#[derive(Clone, Copy, Debug)]
pub struct CellBoxes<'a> {
    /// `[min x, min y, min z, max x, max y, max z]`, each indexed by cell key, then
    /// [`BOX_AXES_PAD`] floats of padding (so a vector load of a few cells from any key stays in
    /// bounds).
    pub axes: &'a [f32],
    /// Cells per axis array.
    pub cells: usize,
}

impl CellBoxes<'_> {
    /// No boxes (the plain grid's search).
    pub const NONE: CellBoxes<'static> = CellBoxes {
        axes: &[],
        cells: 0,
    };

    /// Cell `key`'s box as `(min, max)`.
    #[inline(always)]
    pub fn get(&self, key: usize) -> ([f32; 3], [f32; 3]) {
        let a = |k: usize| self.axes[k * self.cells + key];
        ([a(0), a(1), a(2)], [a(3), a(4), a(5)])
    }
}

/// Padding floats after the per-axis boxes ([`CellBoxes`]).
pub const BOX_AXES_PAD: usize = 16;

/// How many slots ahead the random-access loops of construction prefetch. On a shuffled cloud a
/// slot takes a few ns and a miss to DRAM about 100 ns, so the prefetch must run well ahead
/// (24, 64, 128 and 256 compared in docs/results.md).
const PREFETCH_AHEAD: usize = 256;

/// Hint the CPU to load the cache line at `p`; prefetch never faults, so any address will do.
#[inline(always)]
fn prefetch_ptr<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint: it never faults and never changes memory.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Hint the CPU to load `v[i]` (a random access a few iterations ahead); no effect on results.
#[inline(always)]
fn prefetch<T>(v: &[T], i: Option<u32>) {
    if let Some(i) = i {
        prefetch_ptr(v.as_ptr().wrapping_add(i as usize));
    }
}

/// `dst[slot] = src[perm[slot]]`, in parallel: reorder a per-particle array into cell order.
pub fn gather<T: Copy + Send + Sync>(perm: &[u32], src: &[T], dst: &mut Vec<T>) {
    assert_eq!(
        perm.len(),
        src.len(),
        "permutation and array differ in length"
    );
    dst.clear();
    dst.reserve(src.len());
    let out = SyncPtr(dst.as_mut_ptr());
    perm.par_iter()
        .with_min_len(4096)
        .enumerate()
        .for_each(|(slot, &from)| {
            prefetch(src, perm.get(slot + PREFETCH_AHEAD).copied());
            // SAFETY: slot < perm.len() <= capacity, each slot written once.
            unsafe { out.get().add(slot).write(src[from as usize]) };
        });
    // SAFETY: all perm.len() slots were initialised above.
    unsafe { dst.set_len(src.len()) };
}
