//! The sums of the PBF position correction: density and constraint gradients, and `Δp` with the
//! artificial pressure `s_corr`, eight neighbors at a time.
//!
//! Owns: [`Correction`] (the correction's constants) and the two sums of [`super::pbf`]. Does
//! not touch: the iteration's order or colliders.

use super::pbf::ArtificialPressure;
use crate::sph::Kernels;
use crate::sph::shapes::Shape;
use crate::sph::sums::{Point, chunks, chunks_around, powi, vec3};
use glam::{Vec3A, Vec4};
use wide::f32x8;

/// The density pass's raw sums for particle `i` with the kernel shapes `S` (`k.kind`'s:
/// [`crate::by_shape!`] picks it once per pass, outside its loop): `Σ w` (the density shape
/// without constant), `Σ g r` (the gradient without constant) and `Σ g² |r|²` (its squared
/// length, term by term).
#[inline(always)]
pub fn density_and_gradients<S: Shape>(
    list: &[u32],
    i: usize,
    p: &[Vec3A],
    k: &Kernels,
) -> (f32, Vec3A, f32) {
    density_and_gradients_around::<S>(list, i, p, p[i], k)
}

/// [`density_and_gradients`] with the offsets taken from `center` instead of `p[i]` (particle
/// `i`'s own lane counted like any other: a mirror wall's image sums, `boundary::mirror`).
#[inline(always)]
pub fn density_and_gradients_around<S: Shape>(
    list: &[u32],
    i: usize,
    p: &[Vec3A],
    center: Vec3A,
    k: &Kernels,
) -> (f32, Vec3A, f32) {
    let z0 = f32x8::ZERO;
    let (mut w, mut gx, mut gy, mut gz, mut g2) = (z0, z0, z0, z0, z0);
    for c in chunks_around(list, i, p, center) {
        w += S::w(&c, k);
        let g = S::g(&c, k, 0.0);
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
    /// `c_w / W(Δq)`: turns the density shape into `W / W(Δq)`.
    pub scorr_scale: f32,
    /// Below this `W / W(Δq)` a pair's `s_corr` is taken as 0: the smallest base whose `n`-th
    /// power is a normal f32 ([`Correction::floor`]).
    pub scorr_floor: f32,
    /// `(W(s) / W(Δq))^n` at the rest spacing `s`: the part of a pair's `s_corr` that acts
    /// only as far as the pair is compressed ([`Correction::bounded`]).
    pub scorr_rest: f32,
    /// `1 / scorr_k` (0 when `scorr_k` is 0): turns a pair's `−(λ_i + λ_j)` into units of
    /// `(W / W(Δq))^n`.
    pub scorr_inv_k: f32,
    /// Below this squared distance a pair counts as coincident.
    pub coincident: f32,
    /// `|∇W|` in the limit r → 0 divided by the gradient constant (the `g · |r|` of a coincident
    /// pair), applied along [`separation`].
    pub g_at_zero: f32,
}

impl Correction {
    /// The correction's parameters for kernels `k` and the artificial pressure `s_corr`, `s0`
    /// the rest lattice's `Σ_j |∇_j C_i|²` and `spacing` its spacing (see `pressure::pbf`).
    pub fn new(k: &Kernels, s_corr: ArtificialPressure, s0: f32, spacing: f32) -> Self {
        let w_dq = k.w((s_corr.dq * k.h).powi(2));
        let scorr_k = s_corr.k / s0;
        Correction {
            scorr_k,
            scorr_n: s_corr.n,
            scorr_scale: k.w_coef() / w_dq,
            scorr_floor: Correction::floor(s_corr.n),
            scorr_rest: (k.w(spacing * spacing) / w_dq).powi(s_corr.n as i32),
            scorr_inv_k: if scorr_k > 0.0 { 1.0 / scorr_k } else { 0.0 },
            // Coincident pairs (spiky's gradient is 0 there) get its limit magnitude.
            coincident: (1e-6 * k.h) * (1e-6 * k.h),
            g_at_zero: k.grad(Vec3A::new(1e-6 * k.h, 0.0, 0.0)).length() / k.grad_coef(),
        }
    }

    /// The share of `(W / W(Δq))^n = t` a pair with multipliers summing to `l = λ_i + λ_j`
    /// (≤ 0) feels: `max(t − t_s, min(t, −l / k))`, `t_s` its value at the rest spacing.
    ///
    /// Macklin & Müller's artificial pressure repels every pair within h in every iteration.
    /// Their constraint is two-sided, so a free surface is pulled back as hard as s_corr pushes
    /// it; this one is one-sided (nothing pulls), so at a surface that nothing compresses the
    /// push went unanswered: a block at its rest density in zero gravity, without surface
    /// tension, evaporated (mean speed 0.073 m/s from 0.8 s on, its densest particle at 224
    /// kg/m³ after 2 s). Bounded, a pair closer than the rest spacing is still kept from
    /// clumping (by what its s_corr exceeds at the spacing), and beyond that it is pushed
    /// apart no harder than its own pressure pushes it: a body at rest stays at rest.
    #[inline(always)]
    pub fn bounded(&self, t: f32, l: f32) -> f32 {
        (t - self.scorr_rest).max((-l * self.scorr_inv_k).min(t))
    }

    /// [`Correction::bounded`] for eight pairs.
    #[inline(always)]
    fn bounded8(&self, t: f32x8, l: f32x8) -> f32x8 {
        (t - f32x8::splat(self.scorr_rest))
            .fast_max((-l * f32x8::splat(self.scorr_inv_k)).fast_min(t))
    }

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

/// `Σ_{j≠i} (λ_i + λ_j + s_corr) g r` for particle `i` (the gradient without its constant),
/// with `pl[j]` holding particle `j`'s position in x, y, z and its `λ_j` in w (one load per
/// neighbor for both). A coincident pair (spiky's gradient is 0 there, the cubic's tends to 0)
/// gets the gradient's limit magnitude along a fixed pseudo-random direction, opposite for the
/// two particles ([`separation`]).
#[inline(always)]
pub fn correction<S: Shape>(
    list: &[u32],
    i: usize,
    pl: &[Vec4],
    k: &Kernels,
    c: &Correction,
) -> Vec3A {
    correction_with::<S, false>(list, i, pl, k, c).0
}

/// [`correction`] and the λ-difference sum `Σ_{j≠i} (λ_j − λ_i) g r` (the part a wall's
/// pressure gradient scales, `boundary::support`), for particles near a collider.
#[inline(always)]
pub fn correction_and_difference<S: Shape>(
    list: &[u32],
    i: usize,
    pl: &[Vec4],
    k: &Kernels,
    c: &Correction,
) -> (Vec3A, Vec3A) {
    correction_with::<S, true>(list, i, pl, k, c)
}

/// The exponent as a constant for the common values, so the power unrolls to multiplies.
#[inline(always)]
fn correction_with<S: Shape, const DIFF: bool>(
    list: &[u32],
    i: usize,
    pl: &[Vec4],
    k: &Kernels,
    c: &Correction,
) -> (Vec3A, Vec3A) {
    match c.scorr_n {
        4 => correction_n::<S, 4, DIFF>(list, i, pl, k, c),
        n => correction_n::<S, 0, DIFF>(list, i, pl, k, &Correction { scorr_n: n, ..*c }),
    }
}

/// [`correction`] for the shapes `S` with the exponent `N`, or `c.scorr_n` when `N` is 0; with
/// `DIFF`, the λ-difference sum too (else zero).
#[inline(always)]
fn correction_n<S: Shape, const N: u32, const DIFF: bool>(
    list: &[u32],
    i: usize,
    pl: &[Vec4],
    k: &Kernels,
    c: &Correction,
) -> (Vec3A, Vec3A) {
    let n = if N == 0 { c.scorr_n } else { N };
    let li = f32x8::splat(pl[i].w);
    let z0 = f32x8::ZERO;
    let (mut ax, mut ay, mut az) = (z0, z0, z0);
    let (mut dx, mut dy, mut dz) = (z0, z0, z0);
    // Lanes closer than `coincident`; self is one of them.
    let mut close = 0u32;
    for ch in chunks(list, i, pl) {
        // Self and coincident pairs get g = 0 here.
        let g = S::g(&ch, k, c.coincident);
        let lj = ch.w;
        let b = S::w(&ch, k) * f32x8::splat(c.scorr_scale);
        let s = powi(b.simd_ge(f32x8::splat(c.scorr_floor)).select(b, z0), n);
        let l = li + lj;
        let f = (l - f32x8::splat(c.scorr_k) * c.bounded8(s, l)) * g;
        ax += f * ch.x;
        ay += f * ch.y;
        az += f * ch.z;
        if DIFF {
            let e = (lj - li) * g;
            dx += e * ch.x;
            dy += e * ch.y;
            dz += e * ch.z;
        }
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
                let b = k.w_shape(r2) * c.scorr_scale;
                let s = if b >= c.scorr_floor {
                    b.powi(c.scorr_n as i32)
                } else {
                    0.0
                };
                let l = pl[i].w + pl[j].w;
                let a = l - c.scorr_k * c.bounded(s, l);
                extra += (a * c.g_at_zero) * separation(i, j);
            }
        }
    }
    (vec3(ax, ay, az) + extra, vec3(dx, dy, dz))
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

    #[test]
    fn the_artificial_pressure_is_bounded_by_the_pairs_pressure_beyond_the_rest_spacing() {
        let c = Correction {
            scorr_k: 0.5,
            scorr_n: 4,
            scorr_scale: 1.0,
            scorr_floor: Correction::floor(4),
            scorr_rest: 0.2,
            scorr_inv_k: 2.0,
            coincident: 0.0,
            g_at_zero: 1.0,
        };
        // A pair nothing compresses (λ_i + λ_j = 0): none at or beyond the rest spacing (t at
        // or below its value there), only the excess over it when closer.
        for t in [0.0, 0.1, 0.2] {
            assert_eq!(c.bounded(t, 0.0), 0.0, "t = {t}");
        }
        assert!((c.bounded(0.7, 0.0) - 0.5).abs() < 1e-6);
        // Compressed: up to the pair's pressure −l / k, never more than t itself.
        assert!((c.bounded(0.15, -0.02) - 0.04).abs() < 1e-6);
        assert_eq!(c.bounded(0.15, -1.0), 0.15);
        assert_eq!(c.bounded(0.7, -1.0), 0.7);
        // Continuous in t and l, never negative, never above t.
        let mut last = c.bounded(0.0, -0.05);
        for i in 1..=2000 {
            let t = i as f32 * 0.0005;
            for l in [0.0, -0.01, -0.05, -0.3, -2.0] {
                let b = c.bounded(t, l);
                assert!((0.0..=t).contains(&b), "t = {t}, l = {l}: {b}");
            }
            let b = c.bounded(t, -0.05);
            assert!((b - last).abs() <= 0.0005 + 1e-6, "jump at t = {t}");
            last = b;
        }
        // Eight lanes give what one does.
        let (t8, l8) = (
            f32x8::new([0.0, 0.1, 0.2, 0.3, 0.7, 0.15, 0.15, 0.9]),
            f32x8::new([0.0, 0.0, -0.01, 0.0, 0.0, -0.02, -1.0, -0.3]),
        );
        let b8 = c.bounded8(t8, l8).to_array();
        for ((b, t), l) in b8.iter().zip(t8.to_array()).zip(l8.to_array()) {
            assert_eq!(*b, c.bounded(t, l));
        }
    }
}
