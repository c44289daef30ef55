//! The smoothing kernels of Position Based Fluids (Macklin & Müller 2013, after Müller et al.
//! 2003), in 3D, with support radius `h`:
//!
//! - **poly6**, for density: `W(r) = 315 / (64 π h⁹) · (h² − r²)³` for `r ≤ h`, else 0;
//! - **spiky**, whose gradient drives the position corrections (poly6's gradient vanishes at the
//!   centre, which lets particles clump): `W(r) = 15 / (π h⁶) · (h − r)³`, so
//!   `∇W(r) = −45 / (π h⁶) · (h − r)² · r / |r|` for `0 < |r| ≤ h`, and 0 at `r = 0`.
//!
//! Both integrate to 1 over their support (tested numerically against the radial integral
//! `4π ∫₀ʰ W(r) r² dr`), and the analytic gradient matches finite differences (tested).

use glam::Vec3A;
use std::f64::consts::PI;

/// Kernel constants for one support radius.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kernels {
    /// Support radius h.
    pub h: f32,
    /// h².
    pub h2: f32,
    poly6: f32,
    spiky: f32,
    spiky_grad: f32,
}

impl Kernels {
    pub fn new(h: f32) -> Self {
        let hd = h as f64;
        Kernels {
            h,
            h2: h * h,
            poly6: (315.0 / (64.0 * PI * hd.powi(9))) as f32,
            spiky: (15.0 / (PI * hd.powi(6))) as f32,
            spiky_grad: (-45.0 / (PI * hd.powi(6))) as f32,
        }
    }

    /// poly6's constant `315 / (64 π h⁹)`: `W = c · (h² − r²)³`.
    pub fn poly6_coef(&self) -> f32 {
        self.poly6
    }

    /// The spiky gradient's constant `−45 / (π h⁶)`: `∇W = c · (h − |r|)² · r / |r|`.
    pub fn spiky_grad_coef(&self) -> f32 {
        self.spiky_grad
    }

    /// poly6 `W` from the squared distance `r2`.
    #[inline(always)]
    pub fn poly6(&self, r2: f32) -> f32 {
        if r2 <= self.h2 {
            let d = self.h2 - r2;
            self.poly6 * d * d * d
        } else {
            0.0
        }
    }

    /// spiky `W` at distance `r`.
    #[inline(always)]
    pub fn spiky(&self, r: f32) -> f32 {
        if r <= self.h {
            let d = self.h - r;
            self.spiky * d * d * d
        } else {
            0.0
        }
    }

    /// spiky `∇W` at offset `r` (with respect to the first particle: `r = x_i − x_j`).
    #[inline(always)]
    pub fn spiky_grad(&self, r: Vec3A) -> Vec3A {
        let len = r.length();
        if len > 0.0 && len <= self.h {
            let d = self.h - len;
            r * (self.spiky_grad * d * d / len)
        } else {
            Vec3A::ZERO
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

    #[test]
    fn kernels_integrate_to_one() {
        for h in [0.04f32, 0.1, 1.0, 2.5] {
            let k = Kernels::new(h);
            let p = radial_integral(h as f64, |r| k.poly6((r * r) as f32) as f64);
            let s = radial_integral(h as f64, |r| k.spiky(r as f32) as f64);
            assert!((p - 1.0).abs() < 1e-4, "poly6 integrates to {p} at h = {h}");
            assert!((s - 1.0).abs() < 1e-4, "spiky integrates to {s} at h = {h}");
        }
    }

    #[test]
    fn kernels_vanish_outside_support() {
        let k = Kernels::new(0.1);
        assert_eq!(k.poly6(0.0101), 0.0);
        assert_eq!(k.spiky(0.1001), 0.0);
        assert_eq!(k.spiky_grad(Vec3A::new(0.2, 0.0, 0.0)), Vec3A::ZERO);
        assert_eq!(k.spiky_grad(Vec3A::ZERO), Vec3A::ZERO);
        assert!(k.poly6(0.0) > 0.0 && k.spiky(0.0) > 0.0);
    }

    #[test]
    fn spiky_gradient_matches_finite_differences() {
        let h = 0.5f32;
        let k = Kernels::new(h);
        let w = |p: [f64; 3]| {
            let r = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
            let hd = h as f64;
            if r <= hd {
                15.0 / (PI * hd.powi(6)) * (hd - r).powi(3)
            } else {
                0.0
            }
        };
        for p in [
            [0.1, 0.05, -0.2],
            [-0.3, 0.2, 0.1],
            [0.01, 0.0, 0.02],
            [0.2, -0.2, 0.2],
        ] {
            let g = k.spiky_grad(Vec3A::new(p[0] as f32, p[1] as f32, p[2] as f32));
            for a in 0..3 {
                let e = 1e-6;
                let (mut lo, mut hi) = (p, p);
                lo[a] -= e;
                hi[a] += e;
                let fd = (w(hi) - w(lo)) / (2.0 * e);
                let rel = (g[a] as f64 - fd).abs() / fd.abs().max(1.0);
                assert!(
                    rel < 1e-4,
                    "axis {a} at {p:?}: analytic {} vs finite difference {fd}",
                    g[a]
                );
            }
        }
    }
}
