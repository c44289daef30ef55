//! How much of a flat wall's kernel weight a curved solid holds: the wall table of a sphere or a
//! cylinder's side.
//!
//! The wall table ([`WallTable`]) is the fluid's lattice continued beyond a *plane*. A convex
//! solid fills less of a particle's kernel than the half-space behind its tangent plane does: at
//! the rest distance r (r = 1 cm, h = 5.4r, the cubic spline) a cylinder of radius 12 cm holds
//! 0.92 of it, one of 6 cm 0.86, a sphere of 6 cm 0.73. Read from the flat table, such a solid
//! counted 2-7% of the rest density that is not there at the particles beside it, and water at
//! rest around it kept moving: round a 12 cm cylinder in a still tank 0.043 m/s after 3 s, the
//! fastest particle 0.27 m/s (docs/results.md, stop 55).
//!
//! Here each table sample is scaled by `I_solid(d) / I_plane(d)`, the ratio of the kernel's
//! integral over the solid to its integral over the half-space, for a particle at distance `d`
//! from the surface (both exact 1-D or 2-D integrals in f64: [`sphere_weight`],
//! [`cylinder_weight`]); the lattice's own sum, which the flat table is, keeps its calibration (a
//! large radius gives the flat table back). The density and the adhesion are scaled alike (solids
//! carry no share of the kernel moment: `support`). A cylinder's table is an infinite cylinder's: beside a cylinder shorter than 2h, or
//! within h of a cap, it counts solid beyond the cap that is not there (less than the flat table
//! did).
//!
//! Owns: the curved tables' construction. Does not touch: where a solid is, or which of its
//! surfaces is nearest (`shape`, `obstacle`).

use super::wall_table::WallTable;
use crate::sph::Kernels;

/// Samples along the kernel radius in each integral.
const STEPS: usize = 200;

/// `∫ W(|x|) dV` over the part of a ball of radius `h` about the particle that lies in the
/// half-space at distance `d` from it: `∫_d^h W(s) 2π s² (1 − d / s) ds`.
pub fn plane_weight(k: &Kernels, d: f64) -> f64 {
    radial(k, |s| (1.0 - d / s).max(0.0))
}

/// The same over a sphere of radius `radius` whose surface is at distance `d`: on the sphere
/// of radius `s` about the particle, the cap within the solid, `1 − cos θ0` of it by area with
/// `cos θ0 = (s² + D² − R²) / (2 s D)`, `D = R + d` (the distance to the centre).
pub fn sphere_weight(k: &Kernels, radius: f64, d: f64) -> f64 {
    let big_d = radius + d;
    radial(k, |s| {
        let c = ((s * s + big_d * big_d - radius * radius) / (2.0 * s * big_d)).clamp(-1.0, 1.0);
        1.0 - c
    })
}

/// The same over an infinite cylinder of radius `radius` whose side is at distance `d`: a point
/// `s` from the particle at polar angle φ to the axis lies `ρ = s sin φ` off the particle's
/// axis-parallel line, and the circle of radius ρ about it is inside the disc over the angle
/// `2 arccos((ρ² + D² − R²) / (2 ρ D))`, `D = R + d`.
pub fn cylinder_weight(k: &Kernels, radius: f64, d: f64) -> f64 {
    let big_d = radius + d;
    let n = 64;
    radial(k, |s| {
        // Twice the fraction of the sphere of radius s inside: ∫_0^π sin φ · frac(s sin φ) dφ,
        // the integrand symmetric about π / 2.
        let mut sum = 0.0;
        for j in 0..n {
            let phi = (j as f64 + 0.5) * std::f64::consts::FRAC_PI_2 / n as f64;
            let rho = s * phi.sin();
            let c = ((rho * rho + big_d * big_d - radius * radius) / (2.0 * rho * big_d))
                .clamp(-1.0, 1.0);
            sum += phi.sin() * c.acos() / std::f64::consts::PI;
        }
        2.0 * sum * std::f64::consts::FRAC_PI_2 / n as f64
    })
}

/// `∫_0^h W(s) 2π s² inside(s) ds`, `inside(s)` twice the fraction of the sphere of radius `s`
/// about the particle that lies in the solid (`1 − d / s` for a plane at distance `d`). Midpoint
/// rule.
fn radial(k: &Kernels, inside: impl Fn(f64) -> f64) -> f64 {
    let h = k.h as f64;
    let ds = h / STEPS as f64;
    (0..STEPS)
        .map(|i| {
            let s = (i as f64 + 0.5) * ds;
            k.w((s * s) as f32) as f64 * 2.0 * std::f64::consts::PI * s * s * inside(s) * ds
        })
        .sum()
}

/// `flat` for a solid that holds `weight(d)` of the kernel where a plane would hold
/// [`plane_weight`]`(d)`: each sample scaled by their ratio (where the plane's weight vanishes,
/// near h, the last ratio that was defined).
pub fn curved_table(flat: &WallTable, weight: impl Fn(f64) -> f64) -> WallTable {
    let k = flat.kernels;
    let mut last = 1.0;
    flat.scaled(|d| {
        let plane = plane_weight(&k, d);
        if plane > 1e-9 * plane_weight(&k, 0.0) {
            last = (weight(d) / plane).clamp(0.0, 1.0);
        }
        last
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::KernelKind;

    /// `∫ W dV` over the part of the kernel's ball inside `solid` (particle at the origin),
    /// sampled at `n` points of a Halton sequence over the ball's cube: a reference that knows
    /// nothing of caps or angles.
    fn brute(k: &Kernels, n: usize, solid: impl Fn(f64, f64, f64) -> bool) -> f64 {
        let h = k.h as f64;
        let halton = |mut i: usize, base: usize| {
            let (mut f, mut x) = (1.0, 0.0);
            while i > 0 {
                f /= base as f64;
                x += f * (i % base) as f64;
                i /= base;
            }
            x
        };
        let mut sum = 0.0;
        for i in 1..=n {
            let (x, y, z) = (
                h * (2.0 * halton(i, 2) - 1.0),
                h * (2.0 * halton(i, 3) - 1.0),
                h * (2.0 * halton(i, 5) - 1.0),
            );
            let r2 = x * x + y * y + z * z;
            if r2 < h * h && solid(x, y, z) {
                sum += k.w(r2 as f32) as f64;
            }
        }
        sum * (2.0 * h).powi(3) / n as f64
    }

    #[test]
    fn a_plane_through_the_particle_holds_half_the_kernel() {
        for kind in KernelKind::ALL {
            let k = Kernels::with_kind(0.05, kind);
            let half = plane_weight(&k, 0.0);
            assert!((half - 0.5).abs() < 2e-3, "{kind:?}: {half}");
            assert!(plane_weight(&k, 0.05) < 1e-12);
        }
    }

    #[test]
    fn curved_weights_match_a_brute_force_integral_and_a_large_solid_is_a_plane() {
        for kind in KernelKind::ALL {
            let k = Kernels::with_kind(0.05, kind);
            let h = 0.05f64;
            for radius in [0.4 * h, 2.0 * h] {
                for d in [0.05 * h, 0.3 * h, 0.7 * h] {
                    // The solid's surface d below the particle (at the origin), centre beneath.
                    let cy = -(radius + d);
                    let sphere = brute(&k, 1 << 19, |x, y, z| {
                        x * x + (y - cy) * (y - cy) + z * z < radius * radius
                    });
                    let cylinder = brute(&k, 1 << 19, |x, y, _| {
                        x * x + (y - cy) * (y - cy) < radius * radius
                    });
                    let (s, c) = (sphere_weight(&k, radius, d), cylinder_weight(&k, radius, d));
                    // Within 0.05% of the whole kernel's weight.
                    assert!(
                        (s - sphere).abs() < 5e-4,
                        "{kind:?} sphere R {radius} d {d}: {s} against {sphere}"
                    );
                    assert!(
                        (c - cylinder).abs() < 5e-4,
                        "{kind:?} cylinder R {radius} d {d}: {c} against {cylinder}"
                    );
                    // Convex: less than the plane, the sphere less than the cylinder.
                    let p = plane_weight(&k, d);
                    assert!(s < c && c < p, "{kind:?} R {radius} d {d}: {s} {c} {p}");
                }
            }
            for d in [0.1 * h, 0.5 * h] {
                let p = plane_weight(&k, d);
                for w in [
                    sphere_weight(&k, 1e3 * h, d),
                    cylinder_weight(&k, 1e3 * h, d),
                ] {
                    assert!(
                        (w / p - 1.0).abs() < 2e-3,
                        "{kind:?} d {d}: {w} against {p}"
                    );
                }
            }
        }
    }

    /// End to end, through an obstacle: a sphere's and a cylinder's density at a particle
    /// beside them is the flat wall's times the share of the kernel the solid holds, measured
    /// here by sampling; a sphere far larger than h gives the flat wall's density.
    #[test]
    fn an_obstacle_adds_the_density_its_shape_holds() {
        use crate::boundary::{Collider, Motion, Obstacle, Shape, WallTable};
        use glam::{Quat, Vec3A};
        let (r, h) = (0.01f32, 0.054f32);
        let k = Kernels::with_kind(h, KernelKind::CubicSpline);
        let table = WallTable::new(&k, r, 1000.0 * (2.0 * r).powi(3));
        let place = |shape| {
            Obstacle::new(
                shape,
                Vec3A::ZERO,
                Quat::IDENTITY,
                Motion::Fixed,
                r,
                table.clone(),
            )
        };
        let radius = 0.06f32;
        for d in [r, 2.0 * r, 3.5 * r] {
            let flat = table.at(d).0 as f64;
            let plane = brute(&k, 1 << 19, |_, y, _| y < -(d as f64));
            let (big, rr) = (radius as f64, (radius + d) as f64);
            let sphere = brute(&k, 1 << 19, |x, y, z| {
                x * x + (y + rr) * (y + rr) + z * z < big * big
            });
            let cylinder = brute(&k, 1 << 19, |_, y, z| {
                (y + rr) * (y + rr) + z * z < big * big
            });
            let at = Vec3A::new(0.0, radius + d, 0.0);
            let s = place(Shape::Sphere { radius }).density(at).0 as f64;
            // The cylinder's axis is its local y; here it lies along x (a particle beside its side).
            let turned = Obstacle::new(
                Shape::Cylinder {
                    radius,
                    half_length: 0.5,
                },
                Vec3A::ZERO,
                Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
                Motion::Fixed,
                r,
                table.clone(),
            );
            let c = turned.density(at).0 as f64;
            assert!(
                (s / flat - sphere / plane).abs() < 0.01,
                "sphere d {d}: {} against {}",
                s / flat,
                sphere / plane
            );
            assert!(
                (c / flat - cylinder / plane).abs() < 0.01,
                "cylinder d {d}: {} against {}",
                c / flat,
                cylinder / plane
            );
            let huge = place(Shape::Sphere { radius: 100.0 })
                .density(Vec3A::new(0.0, 100.0 + d, 0.0))
                .0 as f64;
            assert!(
                (huge / flat - 1.0).abs() < 0.01,
                "d {d}: {huge} against the flat {flat}"
            );
        }
    }
}
