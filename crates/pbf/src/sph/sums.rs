//! Neighbor sums, eight neighbors at a time: the machinery every per-particle pass shares.
//!
//! Owns: walking one particle's cached neighbor list in SIMD chunks ([`chunks`], [`Chunk`]:
//! offsets, squared distances, the poly6 and spiky factors; the cubic spline's are in
//! [`super::shapes`]). Does not
//! touch: what a method sums (each method's file holds its own sums) or the step's order.
//!
//! Each sum computes the sums of one particle `i` and writes nothing, so the caller runs it
//! as a gather, in parallel, one slot per particle. A list is walked in chunks of [`LANES`]
//! neighbors in 8-wide SIMD vectors (`wide::f32x8`: one AVX register when the build targets AVX,
//! as `.cargo/config.toml` sets for x86-64, two SSE registers otherwise). Neighbor data is
//! gathered lane by lane; the last chunk is padded with `i` itself and masked out. Lane sums are
//! reduced in one fixed order, so a result does not depend on the thread count.
//!
//! Kernel constants are applied once per particle, after the sums: with `d = max(h² − r², 0)`,
//! poly6 is `W = c6 · d³`; with `e = max(h − |r|, 0)` and `g = e² / |r|` (0 at `r = 0`), the spiky
//! gradient is `∇W = cg · g · r` for `r = p_i − p_j` (see [`super::Kernels`]; the passes reach
//! these through [`super::shapes::Shape`], which also has the cubic spline).

use glam::{Vec3A, Vec4};
use wide::f32x8;

/// Neighbors per chunk.
pub const LANES: usize = 8;

/// One chunk of a neighbor list: `r = p_i − p_j` per lane, `|r|²`, the lane mask (1 for a
/// neighbor, 0 for padding), the neighbor slots, and the neighbors' fourth component when the
/// positions carry one ([`Point`]; unspecified for `Vec3A`).
pub struct Chunk {
    pub x: f32x8,
    pub y: f32x8,
    pub z: f32x8,
    pub r2: f32x8,
    pub mask: f32x8,
    pub idx: [usize; LANES],
    pub w: f32x8,
}

/// A particle position as a pass reads it: `Vec3A`, or `Vec4` whose `w` carries a per-particle
/// value the pass needs of each neighbor (gathered with the position in one load per neighbor).
pub trait Point: Copy {
    fn xyz(self) -> Vec3A;
    /// The four lanes (the fourth unspecified for `Vec3A`).
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    fn m128(self) -> std::arch::x86_64::__m128;
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    fn xyzw(self) -> [f32; 4];
}

impl Point for Vec3A {
    #[inline(always)]
    fn xyz(self) -> Vec3A {
        self
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    #[inline(always)]
    fn m128(self) -> std::arch::x86_64::__m128 {
        self.into()
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    #[inline(always)]
    fn xyzw(self) -> [f32; 4] {
        self.extend(0.0).to_array()
    }
}

impl Point for Vec4 {
    #[inline(always)]
    fn xyz(self) -> Vec3A {
        self.truncate().into()
    }

    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    #[inline(always)]
    fn m128(self) -> std::arch::x86_64::__m128 {
        self.into()
    }

    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    #[inline(always)]
    fn xyzw(self) -> [f32; 4] {
        self.to_array()
    }
}

impl Chunk {
    #[inline(always)]
    fn new<P: Point>(p: &[P], pi: Vec3A, idx: [usize; LANES], mask: f32x8) -> Chunk {
        let (x, y, z, w) = gather_xyzw(p, &idx);
        let x = f32x8::splat(pi.x) - x;
        let y = f32x8::splat(pi.y) - y;
        let z = f32x8::splat(pi.z) - z;
        Chunk {
            r2: (x * x + y * y) + z * z,
            x,
            y,
            z,
            mask,
            idx,
            w,
        }
    }

    /// poly6 without its constant: `max(h² − r², 0)³`, masked.
    #[inline(always)]
    pub fn poly6(&self, h2: f32) -> f32x8 {
        let d = (f32x8::splat(h2) - self.r2).fast_max(f32x8::ZERO);
        d * d * d * self.mask
    }

    /// Spiky gradient factor without its constant: `g = max(h − |r|, 0)² / |r|`, 0 where
    /// `|r|² <= tiny` and in padding.
    #[inline(always)]
    pub fn spiky(&self, h: f32, tiny: f32) -> f32x8 {
        let len = self.r2.sqrt();
        let e = (f32x8::splat(h) - len).fast_max(f32x8::ZERO);
        let g = e * e / len * self.mask;
        self.r2.simd_gt(f32x8::splat(tiny)).select(g, f32x8::ZERO)
    }

    /// `a[idx[l]].xyz − ai` per lane and component.
    #[inline(always)]
    pub fn gather_diff<P: Point>(&self, a: &[P], ai: Vec3A) -> (f32x8, f32x8, f32x8) {
        let (x, y, z, _) = gather_xyzw(a, &self.idx);
        (
            x - f32x8::splat(ai.x),
            y - f32x8::splat(ai.y),
            z - f32x8::splat(ai.z),
        )
    }

    /// `a[idx[l]].xyz − ai` per lane and component, and `a[idx[l]].w`.
    #[inline(always)]
    pub fn gather_diff_w(&self, a: &[Vec4], ai: Vec3A) -> (f32x8, f32x8, f32x8, f32x8) {
        let (x, y, z, w) = gather_xyzw(a, &self.idx);
        (
            x - f32x8::splat(ai.x),
            y - f32x8::splat(ai.y),
            z - f32x8::splat(ai.z),
            w,
        )
    }
}

/// `a[idx[l]]` as four vectors of components (the fourth unspecified for `Vec3A`). With AVX:
/// eight 16-byte loads and a 4 x 4 transpose in registers (a round trip through memory would
/// stall on store forwarding).
#[inline(always)]
fn gather_xyzw<P: Point>(a: &[P], idx: &[usize; LANES]) -> (f32x8, f32x8, f32x8, f32x8) {
    #[cfg(all(target_arch = "x86_64", target_feature = "avx"))]
    {
        use std::arch::x86_64::*;
        let q: [__m128; LANES] = std::array::from_fn(|l| a[idx[l]].m128());
        // SAFETY: the build targets AVX (cfg above); these are register-only operations.
        unsafe {
            let r0 = _mm256_set_m128(q[4], q[0]);
            let r1 = _mm256_set_m128(q[5], q[1]);
            let r2 = _mm256_set_m128(q[6], q[2]);
            let r3 = _mm256_set_m128(q[7], q[3]);
            // [x0 x1 y0 y1 | x4 x5 y4 y5], [x2 x3 y2 y3 | x6 x7 y6 y7], the same for z, w.
            let t0 = _mm256_unpacklo_ps(r0, r1);
            let t1 = _mm256_unpacklo_ps(r2, r3);
            let t2 = _mm256_unpackhi_ps(r0, r1);
            let t3 = _mm256_unpackhi_ps(r2, r3);
            (
                _mm256_shuffle_ps::<0x44>(t0, t1).into(),
                _mm256_shuffle_ps::<0xEE>(t0, t1).into(),
                _mm256_shuffle_ps::<0x44>(t2, t3).into(),
                _mm256_shuffle_ps::<0xEE>(t2, t3).into(),
            )
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "avx")))]
    {
        let mut c = [[0.0; LANES]; 4];
        for l in 0..LANES {
            let q = a[idx[l]].xyzw();
            for k in 0..4 {
                c[k][l] = q[k];
            }
        }
        (
            f32x8::new(c[0]),
            f32x8::new(c[1]),
            f32x8::new(c[2]),
            f32x8::new(c[3]),
        )
    }
}

/// The chunks of `list`, the neighbor list of particle `i` at `p[i]`. An iterator rather than
/// a callback, so each pass's loop body sits in the pass itself.
pub struct Chunks<'a, P> {
    list: &'a [u32],
    i: usize,
    p: &'a [P],
    pi: Vec3A,
}

#[inline(always)]
pub fn chunks<'a, P: Point>(list: &'a [u32], i: usize, p: &'a [P]) -> Chunks<'a, P> {
    Chunks {
        list,
        i,
        p,
        pi: p[i].xyz(),
    }
}

/// The chunks of `list` (particle `i`'s neighbor list) with offsets taken from `center`
/// instead of `p[i]`: `r = center − p_j`, particle `i`'s own lane included like any other (a
/// mirror wall sums its images this way: `boundary::mirror`).
#[inline(always)]
pub fn chunks_around<'a, P: Point>(
    list: &'a [u32],
    i: usize,
    p: &'a [P],
    center: Vec3A,
) -> Chunks<'a, P> {
    Chunks {
        list,
        i,
        p,
        pi: center,
    }
}

impl<P: Point> Iterator for Chunks<'_, P> {
    type Item = Chunk;

    #[inline(always)]
    fn next(&mut self) -> Option<Chunk> {
        if self.list.len() >= LANES {
            let (head, rest) = self.list.split_at(LANES);
            self.list = rest;
            let mut idx = [0usize; LANES];
            for l in 0..LANES {
                idx[l] = head[l] as usize;
            }
            Some(Chunk::new(self.p, self.pi, idx, f32x8::ONE))
        } else if !self.list.is_empty() {
            let mut idx = [self.i; LANES];
            let mut mask = [0.0; LANES];
            for (l, &j) in self.list.iter().enumerate() {
                idx[l] = j as usize;
                mask[l] = 1.0;
            }
            self.list = &[];
            Some(Chunk::new(self.p, self.pi, idx, f32x8::new(mask)))
        } else {
            None
        }
    }
}

/// The lanes of three accumulators, summed, as a vector.
#[inline(always)]
pub fn vec3(x: f32x8, y: f32x8, z: f32x8) -> Vec3A {
    Vec3A::new(x.reduce_add(), y.reduce_add(), z.reduce_add())
}

/// `b^n` per lane (square and multiply; `n` is the same for all lanes).
#[inline(always)]
pub fn powi(mut b: f32x8, mut n: u32) -> f32x8 {
    let mut out = f32x8::ONE;
    while n > 0 {
        if n & 1 == 1 {
            out *= b;
        }
        b *= b;
        n >>= 1;
    }
    out
}
