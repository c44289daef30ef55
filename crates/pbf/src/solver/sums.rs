//! The per-particle neighbor sums of the PBF step, eight neighbors at a time.
//!
//! Owns: the inner loops over one particle's cached neighbor list. Does not touch: the step's
//! order, colliders or output (see the parent module).
//!
//! Each function computes the sums of one particle `i` and writes nothing, so the caller runs it
//! as a gather, in parallel, one slot per particle. A list is walked in chunks of [`LANES`]
//! neighbors in 8-wide SIMD vectors (`wide::f32x8`: one AVX register when the build targets AVX,
//! as `.cargo/config.toml` sets for x86-64, two SSE registers otherwise). Neighbor data is
//! gathered lane by lane; the last chunk is padded with `i` itself and masked out. Lane sums are
//! reduced in one fixed order, so a result does not depend on the thread count.
//!
//! Kernel constants are applied once per particle, after the sums: with `d = max(h² − r², 0)`,
//! poly6 is `W = c6 · d³`; with `e = max(h − |r|, 0)` and `g = e² / |r|` (0 at `r = 0`), the spiky
//! gradient is `∇W = cg · g · r` for `r = p_i − p_j` (see [`Kernels`]).

use crate::sph::Kernels;
use glam::{Vec3A, Vec4};
use wide::f32x8;

/// Neighbors per chunk.
pub const LANES: usize = 8;

/// One chunk of a neighbor list: `r = p_i − p_j` per lane, `|r|²`, the lane mask (1 for a
/// neighbor, 0 for padding), the neighbor slots, and the neighbors' fourth component when the
/// positions carry one ([`Point`]; unspecified for `Vec3A`).
struct Chunk {
    x: f32x8,
    y: f32x8,
    z: f32x8,
    r2: f32x8,
    mask: f32x8,
    idx: [usize; LANES],
    w: f32x8,
}

/// A particle position as a pass reads it: `Vec3A`, or `Vec4` whose `w` carries a per-particle
/// value the pass needs of each neighbor (gathered with the position in one load per neighbor).
trait Point: Copy {
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
    fn poly6(&self, h2: f32) -> f32x8 {
        let d = (f32x8::splat(h2) - self.r2).fast_max(f32x8::ZERO);
        d * d * d * self.mask
    }

    /// Spiky gradient factor without its constant: `g = max(h − |r|, 0)² / |r|`, 0 where
    /// `|r|² <= tiny` and in padding.
    #[inline(always)]
    fn spiky(&self, h: f32, tiny: f32) -> f32x8 {
        let len = self.r2.sqrt();
        let e = (f32x8::splat(h) - len).fast_max(f32x8::ZERO);
        let g = e * e / len * self.mask;
        self.r2.simd_gt(f32x8::splat(tiny)).select(g, f32x8::ZERO)
    }

    /// `a[idx[l]].xyz − ai` per lane and component, and `a[idx[l]].w`.
    #[inline(always)]
    fn gather_diff_w(&self, a: &[Vec4], ai: Vec3A) -> (f32x8, f32x8, f32x8, f32x8) {
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
struct Chunks<'a, P> {
    list: &'a [u32],
    i: usize,
    p: &'a [P],
    pi: Vec3A,
}

#[inline(always)]
fn chunks<'a, P: Point>(list: &'a [u32], i: usize, p: &'a [P]) -> Chunks<'a, P> {
    Chunks {
        list,
        i,
        p,
        pi: p[i].xyz(),
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
fn vec3(x: f32x8, y: f32x8, z: f32x8) -> Vec3A {
    Vec3A::new(x.reduce_add(), y.reduce_add(), z.reduce_add())
}

/// `b^n` per lane (square and multiply; `n` is the same for all lanes).
#[inline(always)]
fn powi(mut b: f32x8, mut n: u32) -> f32x8 {
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

/// The density pass's raw sums for particle `i`: `Σ d³` (poly6 without constant), `Σ g r`
/// (spiky gradient without constant) and `Σ g² |r|²` (its squared length, term by term).
#[inline(always)]
pub fn density_and_gradients(
    list: &[u32],
    i: usize,
    p: &[Vec3A],
    k: &Kernels,
) -> (f32, Vec3A, f32) {
    let z0 = f32x8::ZERO;
    let (mut w, mut gx, mut gy, mut gz, mut g2) = (z0, z0, z0, z0, z0);
    for c in chunks(list, i, p) {
        w += c.poly6(k.h2);
        let g = c.spiky(k.h, 0.0);
        gx += g * c.x;
        gy += g * c.y;
        gz += g * c.z;
        g2 += g * g * c.r2;
    }
    (w.reduce_add(), vec3(gx, gy, gz), g2.reduce_add())
}

/// Parameters of the position correction.
#[derive(Clone, Copy, Debug)]
pub struct Correction {
    /// Artificial pressure strength (already divided by S0).
    pub scorr_k: f32,
    pub scorr_n: u32,
    /// `c6 / W(Δq)`: turns `d³` into `W / W(Δq)`.
    pub scorr_scale: f32,
    /// Below this `W / W(Δq)` a pair's `s_corr` is taken as 0: the smallest base whose `n`-th
    /// power is a normal f32 ([`Correction::floor`]).
    pub scorr_floor: f32,
    /// Below this squared distance a pair counts as coincident.
    pub coincident: f32,
    /// `|∇W|` in the limit r → 0 divided by the gradient constant (the `g · |r|` of a coincident
    /// pair), applied along [`separation`].
    pub g_at_zero: f32,
}

impl Correction {
    /// The smallest `b` whose `n`-th power is a normal f32 (`b^n >= f32::MIN_POSITIVE`).
    ///
    /// Pairs near the kernel's edge have `W / W(Δq)` near 0, and its 4th power underflows into
    /// subnormal numbers, which cost this CPU a microcode assist per vector instruction. On a
    /// water body still close to its initial lattice, the six axis neighbors sit right at the
    /// radius (spacing h / 2), so nearly every 8-lane chunk held a subnormal lane and the
    /// correction pass ran 2x slower than on settled water. Their `s_corr` is below 1.2e-38
    /// either way, so flushing those bases to 0 changes no result beyond that size.
    pub fn floor(n: u32) -> f32 {
        let mut b = f32::MIN_POSITIVE.powf(1.0 / n.max(1) as f32);
        while b.powi(n as i32) < f32::MIN_POSITIVE {
            b = b.next_up();
        }
        b
    }
}

/// `Σ_{j≠i} (λ_i + λ_j + s_corr) g r` for particle `i` (the spiky gradient without its constant),
/// with `pl[j]` holding particle `j`'s position in x, y, z and its `λ_j` in w (one load per
/// neighbor for both). A coincident pair (spiky gradient 0 there) gets the gradient's limit
/// magnitude along a fixed pseudo-random direction, opposite for the two particles
/// ([`separation`]).
#[inline(always)]
pub fn correction(list: &[u32], i: usize, pl: &[Vec4], k: &Kernels, c: &Correction) -> Vec3A {
    // The exponent as a constant for the common values, so the power unrolls to multiplies.
    match c.scorr_n {
        4 => correction_n::<4>(list, i, pl, k, c),
        n => correction_n::<0>(list, i, pl, k, &Correction { scorr_n: n, ..*c }),
    }
}

/// [`correction`] with the exponent `N`, or `c.scorr_n` when `N` is 0.
#[inline(always)]
fn correction_n<const N: u32>(
    list: &[u32],
    i: usize,
    pl: &[Vec4],
    k: &Kernels,
    c: &Correction,
) -> Vec3A {
    let n = if N == 0 { c.scorr_n } else { N };
    let li = f32x8::splat(pl[i].w);
    let z0 = f32x8::ZERO;
    let (mut ax, mut ay, mut az) = (z0, z0, z0);
    // Lanes closer than `coincident`; self is one of them.
    let mut close = 0u32;
    for ch in chunks(list, i, pl) {
        // Self and coincident pairs get g = 0 here.
        let g = ch.spiky(k.h, c.coincident);
        let lj = ch.w;
        let b = ch.poly6(k.h2) * f32x8::splat(c.scorr_scale);
        let s = powi(b.simd_ge(f32x8::splat(c.scorr_floor)).select(b, z0), n);
        let f = (li + lj - f32x8::splat(c.scorr_k) * s) * g;
        ax += f * ch.x;
        ay += f * ch.y;
        az += f * ch.z;
        close += (ch.r2.simd_le(f32x8::splat(c.coincident)) & ch.mask.simd_gt(z0))
            .to_bitmask()
            .count_ones();
    }
    let mut extra = Vec3A::ZERO;
    if close > 1 {
        // Rare: a pair other than self is coincident; add its separation, term by term.
        let pi = pl[i].xyz();
        for &j in list {
            let j = j as usize;
            let r2 = (pi - pl[j].xyz()).length_squared();
            if j != i && r2 <= c.coincident {
                let d = (k.h2 - r2).max(0.0);
                let b = d * d * d * c.scorr_scale;
                let s = if b >= c.scorr_floor {
                    b.powi(c.scorr_n as i32)
                } else {
                    0.0
                };
                let a = pl[i].w + pl[j].w - c.scorr_k * s;
                extra += (a * c.g_at_zero) * separation(i, j);
            }
        }
    }
    vec3(ax, ay, az) + extra
}

/// A unit direction for the pair of slots (i, j), negated for (j, i): how a coincident pair is
/// pulled apart (a hash of the pair, so deterministic and the same for any thread count).
pub fn separation(i: usize, j: usize) -> Vec3A {
    let (a, b, sign) = if i < j { (i, j, 1.0) } else { (j, i, -1.0) };
    let mut z = ((a as u64) << 32) | b as u64;
    let mut next = || {
        z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut x = z;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ((x ^ (x >> 31)) >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    };
    let d = Vec3A::new(next(), next(), next());
    sign * d.try_normalize().unwrap_or(Vec3A::X)
}

/// `Σ d³` (poly6 without its constant) for particle `i`.
#[inline(always)]
pub fn density(list: &[u32], i: usize, p: &[Vec3A], k: &Kernels) -> f32 {
    let mut w = f32x8::ZERO;
    for c in chunks(list, i, p) {
        w += c.poly6(k.h2);
    }
    w.reduce_add()
}

/// `Σ_j vol_j g (r × (v_j − v_i))` for particle `i`: the vorticity `ω_i` without the gradient
/// constant (`(v_j − v_i) × ∇_{p_j} W_ij = cg · g · (r × (v_j − v_i))`), `vol_j = m / ρ_j`,
/// with `vv[j]` holding `v_j` in x, y, z and `vol_j` in w.
#[inline(always)]
pub fn vorticity(list: &[u32], i: usize, p: &[Vec3A], vv: &[Vec4], k: &Kernels) -> Vec3A {
    let vi = vv[i].xyz();
    let z0 = f32x8::ZERO;
    let (mut ax, mut ay, mut az) = (z0, z0, z0);
    for c in chunks(list, i, p) {
        let (dx, dy, dz, vol) = c.gather_diff_w(vv, vi);
        let g = c.spiky(k.h, 0.0) * vol;
        ax += g * (c.y * dz - c.z * dy);
        ay += g * (c.z * dx - c.x * dz);
        az += g * (c.x * dy - c.y * dx);
    }
    vec3(ax, ay, az)
}

/// For particle `i`: `Σ_j s_j g r`, the confinement's `η_i` without the gradient constant
/// (`s_j = vol_j |ω_j|`), and `Σ_j vol_j d³ (v_j − v_i)`, XSPH's sum without the poly6 constant.
/// One pass for both, as both read the same velocities. `ps[j]` holds `p_j` in x, y, z and `s_j`
/// in w; `vv[j]` holds `v_j` and `vol_j`.
#[inline(always)]
pub fn confinement_and_xsph(
    list: &[u32],
    i: usize,
    ps: &[Vec4],
    vv: &[Vec4],
    k: &Kernels,
) -> (Vec3A, Vec3A) {
    let vi = vv[i].xyz();
    let z0 = f32x8::ZERO;
    let (mut ex, mut ey, mut ez) = (z0, z0, z0);
    let (mut ax, mut ay, mut az) = (z0, z0, z0);
    for c in chunks(list, i, ps) {
        let g = c.spiky(k.h, 0.0) * c.w;
        ex += g * c.x;
        ey += g * c.y;
        ez += g * c.z;
        let (dx, dy, dz, vol) = c.gather_diff_w(vv, vi);
        let w = c.poly6(k.h2) * vol;
        ax += w * dx;
        ay += w * dy;
        az += w * dz;
    }
    (vec3(ex, ey, ez), vec3(ax, ay, az))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scorr_floor_is_the_smallest_base_with_a_normal_power() {
        for n in 1..=16u32 {
            let b = Correction::floor(n);
            assert!(
                b.powi(n as i32) >= f32::MIN_POSITIVE,
                "n = {n}: {b}^n is subnormal"
            );
            let below = b.next_down();
            assert!(
                below.powi(n as i32) < f32::MIN_POSITIVE,
                "n = {n}: {below} would do"
            );
            // The flushed s_corr terms are all below the smallest normal f32.
            assert!(below.powi(n as i32) < 1.2e-38);
        }
    }
}
