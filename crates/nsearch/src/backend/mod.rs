//! Backends: the SIMD paths of the search's inner loops, chosen at run time and held as a value.
//!
//! Owns: [`Backend`] (which path, whether this CPU runs it), the two primitives every path
//! implements (`Lanes`: box tests for a group, one distance step), where a step's hits go
//! (`StepSink`), and `search_block`, which runs one block of the grid search on the chosen
//! path. Does not touch: the walk's order (`walk`) or the lists' offsets (`lists`).
//!
//! The inner distance loop is branch-free: a vector step tests `STEP` candidates (8 in the AVX2 and
//! portable backends, 16 in the AVX-512 one), the kept indices are compacted into the next output
//! slots and the length advances by their count. All backends give identical lists.

// The 8-lane paths index several arrays by lane; iterator chains would hide that.
#![allow(clippy::needless_range_loop)]

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod portable;

use crate::grid::CellBoxes;
use crate::lists::SearchStats;
use crate::positions::SoaPositions;
use crate::walk::{BlockArgs, run_walk::grid_block};

/// Which implementation of the search's inner loops runs (the SIMD path). All give identical
/// lists and counters (the same IEEE operations in the same order lane by lane); they differ only
/// in speed. A [`NeighborSearch`](crate::NeighborSearch) holds its backend as a value.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The fastest backend this CPU supports (the default).
    #[default]
    Auto,
    /// Plain Rust, 8 lanes, no intrinsics: any CPU.
    Portable,
    /// x86-64 AVX2: 8-slot distance steps, compaction by table lookup.
    Avx2,
    /// x86-64 AVX-512 (F + VL): 16-slot distance steps, compaction by mask register.
    Avx512,
}

impl Backend {
    /// Every backend, `Auto` first.
    pub const ALL: [Backend; 4] = [
        Backend::Auto,
        Backend::Portable,
        Backend::Avx2,
        Backend::Avx512,
    ];

    /// The backend's name, as `FromStr` reads it.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Portable => "portable",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run the backend.
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
                Backend::Auto | Backend::Portable => true,
                Backend::Avx2 => avx2(),
                Backend::Avx512 => {
                    avx2()
                        && std::is_x86_feature_detected!("avx512f")
                        && std::is_x86_feature_detected!("avx512vl")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        matches!(self, Backend::Auto | Backend::Portable)
    }

    /// The backend `self` stands for on this CPU (`Auto` resolved to the fastest available).
    pub fn resolve(self) -> Backend {
        match self {
            Backend::Auto => [Backend::Avx512, Backend::Avx2]
                .into_iter()
                .find(|k| k.available())
                .unwrap_or(Backend::Portable),
            k => k,
        }
    }
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Backend {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Backend::ALL
            .into_iter()
            .find(|b| b.name() == s)
            .ok_or_else(|| {
                format!("unknown backend {s:?}: expected auto, portable, avx2 or avx512")
            })
    }
}

/// One block of the grid search on `backend` (already resolved, and available on this CPU):
/// pruned when `args` holds the boxes, else unpruned.
pub(crate) fn search_block(
    backend: Backend,
    args: BlockArgs,
    out: &mut Vec<u32>,
    counts: &mut [u32],
) -> SearchStats {
    let boxes = args.2;
    // SAFETY: the searcher only holds backends this CPU supports (checked when it is set).
    #[cfg(target_arch = "x86_64")]
    match backend {
        Backend::Avx512 => unsafe {
            return match boxes {
                Some(_) => avx512::grid_block_avx512::<true>(args, out, counts),
                None => avx512::grid_block_avx512::<false>(args, out, counts),
            };
        },
        Backend::Avx2 => unsafe {
            return match boxes {
                Some(_) => avx2::grid_block_avx2::<true>(args, out, counts),
                None => avx2::grid_block_avx2::<false>(args, out, counts),
            };
        },
        _ => {}
    }
    let _ = backend;
    match boxes {
        Some(_) => grid_block::<true, portable::Portable, AtOnce>(args, out, counts),
        None => grid_block::<false, portable::Portable, AtOnce>(args, out, counts),
    }
}

/// Width of one 8-lane vector step (portable and AVX2 backends): stencil particles tested per
/// step, and particles per group.
pub(crate) const W: usize = 8;

/// Most particles per group (the AVX-512 backend's groups).
pub(crate) const G: usize = 16;

/// `COMPACT[m]` lists the set bits of `m` (ascending) in its first `popcount(m)` lanes.
pub(crate) static COMPACT: [[u32; W]; 256] = {
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
pub(crate) fn lanes(v: &[f32], s: usize) -> [f32; W] {
    v[s..s + W].try_into().unwrap()
}

/// A backend's two primitives. [`Portable`](portable::Portable) is plain Rust; the x86-64
/// backends use AVX2 (8 slots) or AVX-512 (16 slots) intrinsics. All perform
/// the same IEEE operations in the same order lane by lane, so they give bit-identical results.
pub(crate) trait Lanes {
    /// Bit `k` of lane `l` set when group particle `l` (slot `g + l`) is within `h2` of
    /// `boxes[keys[k]]` (up to 32 keys): [`Aabb::dist2`](crate::Aabb::dist2) for the group's particles, same
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

/// Where a group's distance steps put their hits: stored as each step ends ([`AtOnce`]), or
/// queued a few steps (`LateStores`, AVX-512). The lists are the same either way.
pub(crate) trait StepSink<L: Lanes>: Sized {
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
pub(crate) struct AtOnce;

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
