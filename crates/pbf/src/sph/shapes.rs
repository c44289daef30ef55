//! The kernels' shapes on a chunk of eight neighbors, one type per pair of kernels
//! ([`super::kernels::KernelKind`]), so a pass is compiled once per pair and the choice costs
//! nothing inside its loop ([`by_shape!`](crate::by_shape)).
//!
//! Owns: [`Shape`], [`Poly6Spiky`], [`CubicSpline`], [`Spiky`]. Does not touch: the constants
//! (applied by each pass after its sums, [`super::Kernels::w_coef`],
//! [`super::Kernels::grad_coef`]) or what a pass sums.

use super::Kernels;
use super::sums::Chunk;
use wide::f32x8;

/// A pair of kernel shapes, per lane of a [`Chunk`], without their constants.
pub trait Shape {
    /// The density shape, masked: `W = w_coef · w`.
    fn w(c: &Chunk, k: &Kernels) -> f32x8;
    /// The gradient factor, masked: `∇W = grad_coef · g · r`; 0 where `|r|² <= tiny`.
    fn g(c: &Chunk, k: &Kernels, tiny: f32) -> f32x8;
}

/// poly6 `max(h² − r², 0)³` and the spiky factor `max(h − |r|, 0)² / |r|`.
pub struct Poly6Spiky;

impl Shape for Poly6Spiky {
    #[inline(always)]
    fn w(c: &Chunk, k: &Kernels) -> f32x8 {
        c.poly6(k.h2)
    }

    #[inline(always)]
    fn g(c: &Chunk, k: &Kernels, tiny: f32) -> f32x8 {
        c.spiky(k.h, tiny)
    }
}

/// The cubic spline, `6q³ − 6q² + 1` for `q = |r| / h ≤ 1/2` and `2 (1 − q)³` up to 1, and its
/// own gradient factor `ψ(q) / |r|` (`ψ = q (2 − 3q)` inside, `(1 − q)²` outside). Both pieces
/// at once, without a select: with `a = max(1 − q, 0)` and `b = max(1/2 − q, 0)`, the spline is
/// `2a³ − 8b³` and `ψ = a² − 4b²` (expand them: inside `b > 0` they give the inner polynomials,
/// outside `b = 0`).
pub struct CubicSpline;

impl CubicSpline {
    /// `(a, b)` per lane.
    #[inline(always)]
    fn pieces(len: f32x8, k: &Kernels) -> (f32x8, f32x8) {
        let q = len * f32x8::splat(k.inv_h);
        (
            (f32x8::ONE - q).fast_max(f32x8::ZERO),
            (f32x8::splat(0.5) - q).fast_max(f32x8::ZERO),
        )
    }
}

impl Shape for CubicSpline {
    #[inline(always)]
    fn w(c: &Chunk, k: &Kernels) -> f32x8 {
        let (a, b) = Self::pieces(c.r2.sqrt(), k);
        (f32x8::splat(2.0) * (a * a * a) - f32x8::splat(8.0) * (b * b * b)) * c.mask
    }

    #[inline(always)]
    fn g(c: &Chunk, k: &Kernels, tiny: f32) -> f32x8 {
        let len = c.r2.sqrt();
        let (a, b) = Self::pieces(len, k);
        let g = (a * a - f32x8::splat(4.0) * (b * b)) / len * c.mask;
        c.r2.simd_gt(f32x8::splat(tiny)).select(g, f32x8::ZERO)
    }
}

/// Spiky for both: `max(h − |r|, 0)³` and the spiky factor (the same `|r|` for both).
pub struct Spiky;

impl Shape for Spiky {
    #[inline(always)]
    fn w(c: &Chunk, k: &Kernels) -> f32x8 {
        let e = (f32x8::splat(k.h) - c.r2.sqrt()).fast_max(f32x8::ZERO);
        e * e * e * c.mask
    }

    #[inline(always)]
    fn g(c: &Chunk, k: &Kernels, tiny: f32) -> f32x8 {
        c.spiky(k.h, tiny)
    }
}

/// Wendland C2: `a⁴ (5 − 4a)` with `a = max(1 − |r| / h, 0)` (that is `(1 − q)⁴ (1 + 4q)`),
/// and its gradient factor `a³` (no division: `∇W = grad_coef · a³ · r`).
pub struct WendlandC2;

impl WendlandC2 {
    #[inline(always)]
    fn a(c: &Chunk, k: &Kernels) -> f32x8 {
        (f32x8::ONE - c.r2.sqrt() * f32x8::splat(k.inv_h)).fast_max(f32x8::ZERO)
    }
}

impl Shape for WendlandC2 {
    #[inline(always)]
    fn w(c: &Chunk, k: &Kernels) -> f32x8 {
        let a = Self::a(c, k);
        let a2 = a * a;
        a2 * a2 * (f32x8::splat(5.0) - f32x8::splat(4.0) * a) * c.mask
    }

    #[inline(always)]
    fn g(c: &Chunk, k: &Kernels, tiny: f32) -> f32x8 {
        let a = Self::a(c, k);
        let g = a * a * a * c.mask;
        c.r2.simd_gt(f32x8::splat(tiny)).select(g, f32x8::ZERO)
    }
}

/// Runs `$body` with the type alias `$S` set to the [`Shape`] of `$kind` (a
/// [`super::kernels::KernelKind`]): `by_shape!(k.kind, S => pass::<S>(..))`.
#[macro_export]
macro_rules! by_shape {
    ($kind:expr, $S:ident => $body:expr) => {
        match $kind {
            $crate::sph::kernels::KernelKind::Poly6Spiky => {
                type $S = $crate::sph::shapes::Poly6Spiky;
                $body
            }
            $crate::sph::kernels::KernelKind::CubicSpline => {
                type $S = $crate::sph::shapes::CubicSpline;
                $body
            }
            $crate::sph::kernels::KernelKind::Spiky => {
                type $S = $crate::sph::shapes::Spiky;
                $body
            }
            $crate::sph::kernels::KernelKind::WendlandC2 => {
                type $S = $crate::sph::shapes::WendlandC2;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::kernels::KernelKind;
    use crate::sph::sums::chunks;
    use glam::Vec3A;

    /// Each lane of a chunk against the scalar kernels, for neighbors at every distance from
    /// the centre to beyond h, both pairs.
    #[test]
    fn lanes_match_the_scalar_kernels() {
        let h = 0.04f32;
        let mut p = vec![Vec3A::new(0.01, 0.02, 0.03)];
        for s in 0..27 {
            let t = s as f32 / 24.0 * h; // 0 to 1.125 h
            p.push(p[0] - Vec3A::new(0.6, -0.48, 0.64) * t);
        }
        let list: Vec<u32> = (0..p.len() as u32).collect();
        for kind in KernelKind::ALL {
            let k = Kernels::with_kind(h, kind);
            let mut at = 0;
            for c in chunks(&list, 0, &p) {
                let (w, g) = crate::by_shape!(kind, S => (S::w(&c, &k), S::g(&c, &k, 0.0)));
                let (w, g) = (w.to_array(), g.to_array());
                for l in 0..8 {
                    let j = c.idx[l];
                    if c.mask.to_array()[l] == 0.0 {
                        assert_eq!((w[l], g[l]), (0.0, 0.0), "{kind:?}: padding lane");
                        continue;
                    }
                    let r = p[0] - p[j];
                    let want_w = k.w(r.length_squared());
                    let got_w = k.w_coef() * w[l];
                    assert!(
                        (got_w - want_w).abs() <= 2e-5 * k.w(0.0),
                        "{kind:?} W at {r}"
                    );
                    let want_g = k.grad(r);
                    let got_g = r * (k.grad_coef() * g[l]);
                    let scale = k.grad(Vec3A::X * 0.5 * h).length();
                    assert!(
                        (got_g - want_g).length() <= 2e-5 * scale,
                        "{kind:?} ∇W at {r}"
                    );
                    at += 1;
                }
            }
            assert_eq!(at, p.len());
        }
    }
}
