//! The smoothing kernels, in 3D, with support radius `h`: a pair of shapes, one for density
//! (`W`) and one whose gradient drives the position corrections (`∇W`). Four pairs
//! ([`KernelKind`], `pbf.kernel`):
//!
//! - **`poly6_spiky`** (the default; Macklin & Müller 2013, after Müller et al. 2003): density
//!   from poly6, `W(r) = 315 / (64 π h⁹) · (h² − r²)³`, gradients from spiky,
//!   `∇W(r) = −45 / (π h⁶) · (h − r)² · r / |r|` (poly6's own gradient vanishes at the centre,
//!   which lets particles clump). The two are different functions, so a correction along the
//!   spiky gradient is not the constraint's own gradient.
//! - **`cubic_spline`** (Monaghan's M4, as SPlisHSPlasH uses it, support `h`): with `q = r / h`,
//!   `W = 8 / (π h³) · (6q³ − 6q² + 1)` for `q ≤ 1/2` and `8 / (π h³) · 2 (1 − q)³` for
//!   `1/2 < q ≤ 1`; its own gradient, `∇W = −48 / (π h⁴) · ψ(q) · r / |r|` with
//!   `ψ = q (2 − 3q)` inside and `(1 − q)²` outside, drives the corrections: density and
//!   correction are consistent.
//! - **`spiky`**: spiky for both, `W(r) = 15 / (π h⁶) · (h − r)³` and its own gradient (the
//!   default pair's): consistent like the cubic spline, at about the default's cost (the
//!   gradient's `|r|` gives the density too).
//! - **`wendland_c2`** (Wendland's C2 function, as DualSPHysics uses it; support `h`): with
//!   `q = r / h`, `W = 21 / (2π h³) · (1 − q)⁴ (1 + 4q)` and its own gradient,
//!   `∇W = −210 / (π h⁵) · (1 − q)³ · r` (no division by `|r|`). Consistent, and its Fourier
//!   transform is positive, so a lattice of particles has no pairing instability at any
//!   number of neighbors (Dehnen & Aly 2012): water at rest on the cubic fill does not
//!   rearrange as it does under the B-spline and poly6 pairs.
//!
//! Each kernel integrates to 1 over its support (tested numerically against the radial integral
//! `4π ∫₀ʰ W(r) r² dr`), and the gradient matches finite differences of the density shape it is
//! paired with (cubic, Wendland) or of spiky (tested).
//!
//! Owns: the constants and the scalar forms. The SIMD forms are [`super::shapes`]'s.

use glam::Vec3A;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Which pair of kernels (`pbf.kernel`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelKind {
    /// poly6 for density, the spiky gradient for corrections (Macklin & Müller 2013).
    #[default]
    Poly6Spiky,
    /// The cubic spline and its own gradient.
    CubicSpline,
    /// Spiky for density and its own gradient for corrections.
    Spiky,
    /// Wendland's C2 kernel and its own gradient (free of the pairing instability: Dehnen &
    /// Aly 2012).
    WendlandC2,
}

impl KernelKind {
    /// Every pair.
    pub const ALL: [KernelKind; 4] = [
        KernelKind::Poly6Spiky,
        KernelKind::CubicSpline,
        KernelKind::Spiky,
        KernelKind::WendlandC2,
    ];
}

/// Kernel constants for one support radius and pair of shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kernels {
    /// Support radius h.
    pub h: f32,
    /// h².
    pub h2: f32,
    /// 1 / h.
    pub inv_h: f32,
    /// Which shapes.
    pub kind: KernelKind,
    w_coef: f32,
    grad_coef: f32,
}

impl Kernels {
    /// The default pair (poly6 and spiky) for support radius `h`.
    pub fn new(h: f32) -> Self {
        Self::with_kind(h, KernelKind::Poly6Spiky)
    }

    /// The pair `kind` for support radius `h`.
    pub fn with_kind(h: f32, kind: KernelKind) -> Self {
        let hd = h as f64;
        let (w_coef, grad_coef) = match kind {
            KernelKind::Poly6Spiky => (315.0 / (64.0 * PI * hd.powi(9)), -45.0 / (PI * hd.powi(6))),
            KernelKind::CubicSpline => (8.0 / (PI * hd.powi(3)), -48.0 / (PI * hd.powi(4))),
            KernelKind::Spiky => (15.0 / (PI * hd.powi(6)), -45.0 / (PI * hd.powi(6))),
            KernelKind::WendlandC2 => (21.0 / (2.0 * PI * hd.powi(3)), -210.0 / (PI * hd.powi(5))),
        };
        Kernels {
            h,
            h2: h * h,
            inv_h: 1.0 / h,
            kind,
            w_coef: w_coef as f32,
            grad_coef: grad_coef as f32,
        }
    }

    /// The density kernel's constant: `W = c · shape` (poly6: `(h² − r²)³`; cubic: the spline
    /// polynomial in `q`; spiky: `(h − |r|)³`; Wendland: `(1 − q)⁴ (1 + 4q)`).
    pub fn w_coef(&self) -> f32 {
        self.w_coef
    }

    /// The gradient's constant: `∇W = c · g · r` with `g` the shape's factor (spiky:
    /// `(h − |r|)² / |r|`; cubic: `ψ(q) / |r|`; Wendland: `(1 − q)³`).
    pub fn grad_coef(&self) -> f32 {
        self.grad_coef
    }

    /// The density shape without its constant, from the squared distance `r2`.
    #[inline(always)]
    pub fn w_shape(&self, r2: f32) -> f32 {
        if r2 > self.h2 {
            return 0.0;
        }
        match self.kind {
            KernelKind::Poly6Spiky => {
                let d = self.h2 - r2;
                d * d * d
            }
            KernelKind::CubicSpline => {
                let q = r2.sqrt() * self.inv_h;
                if q <= 0.5 {
                    6.0 * q * q * (q - 1.0) + 1.0
                } else {
                    let a = 1.0 - q;
                    2.0 * a * a * a
                }
            }
            KernelKind::Spiky => {
                // Clamped as the chunk shape is: |r| may round past h when r2 is h2.
                let e = (self.h - r2.sqrt()).max(0.0);
                e * e * e
            }
            KernelKind::WendlandC2 => {
                let a = (1.0 - r2.sqrt() * self.inv_h).max(0.0);
                let a2 = a * a;
                a2 * a2 * (5.0 - 4.0 * a)
            }
        }
    }

    /// The density kernel `W` from the squared distance `r2`.
    #[inline(always)]
    pub fn w(&self, r2: f32) -> f32 {
        match self.kind {
            // Multiplied in this order since the first release (tables built from it).
            KernelKind::Poly6Spiky if r2 <= self.h2 => {
                let d = self.h2 - r2;
                self.w_coef * d * d * d
            }
            _ => self.w_coef * self.w_shape(r2),
        }
    }

    /// The gradient `∇W` at offset `r` (with respect to the first particle: `r = x_i − x_j`); 0
    /// at `r = 0`.
    #[inline(always)]
    pub fn grad(&self, r: Vec3A) -> Vec3A {
        let len = r.length();
        if !(len > 0.0 && len <= self.h) {
            return Vec3A::ZERO;
        }
        match self.kind {
            KernelKind::Poly6Spiky | KernelKind::Spiky => {
                let d = self.h - len;
                r * (self.grad_coef * d * d / len)
            }
            KernelKind::WendlandC2 => {
                let a = (1.0 - len * self.inv_h).max(0.0);
                r * (self.grad_coef * a * a * a)
            }
            KernelKind::CubicSpline => {
                let q = len * self.inv_h;
                let g = if q <= 0.5 {
                    self.inv_h * (2.0 - 3.0 * q)
                } else {
                    let a = 1.0 - q;
                    a * a / len
                };
                r * (self.grad_coef * g)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `4π ∫₀ʰ f(r) r² dr` by Simpson's rule.
    fn radial_integral(h: f64, f: impl Fn(f64) -> f64) -> f64 {
        let n = 20_000;
        let dr = h / n as f64;
        let mut s = 0.0;
        for k in 0..=n {
            let r = k as f64 * dr;
            let w = if k == 0 || k == n {
                1.0
            } else if k % 2 == 1 {
                4.0
            } else {
                2.0
            };
            s += w * f(r) * r * r;
        }
        4.0 * PI * s * dr / 3.0
    }

    /// The function whose gradient [`Kernels::grad`] is, written out independently: spiky
    /// `15 / (π h⁶) (h − r)³` for the default pair and the spiky one, the cubic spline itself for
    /// the cubic.
    fn potential(kind: KernelKind, h: f64, r: f64) -> f64 {
        if r > h {
            return 0.0;
        }
        match kind {
            KernelKind::Poly6Spiky | KernelKind::Spiky => 15.0 / (PI * h.powi(6)) * (h - r).powi(3),
            KernelKind::WendlandC2 => {
                21.0 / (2.0 * PI * h.powi(3)) * (1.0 - r / h).powi(4) * (1.0 + 4.0 * r / h)
            }
            KernelKind::CubicSpline => {
                let q = r / h;
                let s = 8.0 / (PI * h.powi(3));
                if q <= 0.5 {
                    s * (6.0 * q.powi(3) - 6.0 * q * q + 1.0)
                } else {
                    s * 2.0 * (1.0 - q).powi(3)
                }
            }
        }
    }

    #[test]
    fn kernels_integrate_to_one() {
        for kind in KernelKind::ALL {
            for h in [0.04f32, 0.1, 1.0, 2.5] {
                let k = Kernels::with_kind(h, kind);
                let w = radial_integral(h as f64, |r| k.w((r * r) as f32) as f64);
                let g = radial_integral(h as f64, |r| potential(kind, h as f64, r));
                assert!(
                    (w - 1.0).abs() < 1e-4,
                    "{kind:?}: W integrates to {w} at h = {h}"
                );
                assert!((g - 1.0).abs() < 1e-4, "{kind:?}: ∇W's potential gives {g}");
            }
        }
    }

    #[test]
    fn the_cubic_spline_is_continuous_with_its_slope_at_the_joint() {
        let k = Kernels::with_kind(1.0, KernelKind::CubicSpline);
        let (lo, hi) = (0.5f32.next_down(), 0.5f32.next_up());
        assert!((k.w(lo * lo) - k.w(hi * hi)).abs() < 1e-5);
        let (gl, gh) = (k.grad(Vec3A::X * lo), k.grad(Vec3A::X * hi));
        assert!((gl - gh).length() < 1e-4, "{gl} against {gh}");
        // W(1/2) = σ / 4, ∂W/∂r (1/2) = −3σ/2.
        let s = 8.0 / std::f32::consts::PI;
        assert!((k.w(0.25) - s / 4.0).abs() < 1e-5);
        assert!((gl.x + 1.5 * s).abs() < 1e-4);
    }

    #[test]
    fn kernels_vanish_outside_support() {
        for kind in KernelKind::ALL {
            let k = Kernels::with_kind(0.1, kind);
            assert_eq!(k.w(0.0101), 0.0);
            assert_eq!(k.grad(Vec3A::new(0.2, 0.0, 0.0)), Vec3A::ZERO);
            assert_eq!(k.grad(Vec3A::ZERO), Vec3A::ZERO);
            assert!(k.w(0.0) > 0.0);
        }
    }

    #[test]
    fn gradients_match_finite_differences() {
        let h = 0.5f32;
        for kind in KernelKind::ALL {
            let k = Kernels::with_kind(h, kind);
            let w = |p: [f64; 3]| {
                potential(
                    kind,
                    h as f64,
                    (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt(),
                )
            };
            for p in [
                [0.1, 0.05, -0.2],
                [-0.3, 0.2, 0.1],
                [0.01, 0.0, 0.02],
                [0.2, -0.2, 0.2],
                [0.05, 0.08, -0.1],
            ] {
                let g = k.grad(Vec3A::new(p[0] as f32, p[1] as f32, p[2] as f32));
                for a in 0..3 {
                    let e = 1e-6;
                    let (mut lo, mut hi) = (p, p);
                    lo[a] -= e;
                    hi[a] += e;
                    let fd = (w(hi) - w(lo)) / (2.0 * e);
                    let rel = (g[a] as f64 - fd).abs() / fd.abs().max(1.0);
                    assert!(
                        rel < 1e-4,
                        "{kind:?} axis {a} at {p:?}: analytic {} vs finite difference {fd}",
                        g[a]
                    );
                }
            }
        }
    }
}
