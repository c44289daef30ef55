//! The non-pressure forces as the solver applies them (one fused neighbor pass over a tuple of
//! forces) against an independent reference: the published formulas evaluated in f64 over every
//! pair within h, with the kernels written out here (not the library's), on a jittered cloud
//! with random velocities and volumes.
//!
//! Vorticity confinement (Macklin & Müller 2013): `ω_i = Σ_j V_j (v_j − v_i) × ∇_{p_j} W_ij`,
//! `η_i = Σ_j V_j |ω_j| ∇_{p_i} W_ij`, `Δv_i = dt ε (η/|η| × ω_i)`. XSPH:
//! `Δv_i = c Σ_j V_j (v_j − v_i) W_ij` (poly6). The step adds them in that order.

use glam::{DVec3, Vec3A};
use nsearch::{CellSize, GridSpec, NeighborSearch, SearchMode};
use pbf::forces::vorticity::VorticityConfinement;
use pbf::forces::xsph::Xsph;
use pbf::forces::{ForceInput, ForceSet};
use pbf::particles::Fluid;
use pbf::sph::Kernels;
use rand::{Rng, SeedableRng};
use std::f64::consts::PI;

fn poly6(h: f64, r: f64) -> f64 {
    if r <= h {
        315.0 / (64.0 * PI * h.powi(9)) * (h * h - r * r).powi(3)
    } else {
        0.0
    }
}

/// ∇_{p_i} W(p_i − p_j) of the spiky kernel, `d = p_i − p_j`.
fn spiky_grad(h: f64, d: DVec3) -> DVec3 {
    let r = d.length();
    if r > 0.0 && r <= h {
        d * (-45.0 / (PI * h.powi(6)) * (h - r).powi(2) / r)
    } else {
        DVec3::ZERO
    }
}

#[test]
fn fused_force_pass_matches_the_formulas_pair_by_pair() {
    let h = 0.045f32;
    let points = nsearch::points::jittered_lattice(9, 0.02, 0.005, true, 11);
    let spec = GridSpec::around(&points, h, CellSize::H).unwrap();
    let mut ns = NeighborSearch::new(spec, SearchMode::Pruned);
    ns.build(&points);
    ns.search();
    // Everything in the lists' slot order.
    let sorted = ns.sorted_positions();
    let p: Vec<Vec3A> = (0..sorted.len()).map(|i| sorted.get(i)).collect();
    let n = p.len();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let v: Vec<Vec3A> = (0..n)
        .map(|_| {
            Vec3A::new(
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            )
        })
        .collect();
    let vol: Vec<f32> = (0..n).map(|_| rng.random_range(6e-6..10e-6)).collect();
    let vv: Vec<glam::Vec4> = v.iter().zip(&vol).map(|(v, &w)| v.extend(w)).collect();
    let (dt, eps, c) = (0.004f32, 0.5f32, 0.3f32);

    let kernels = Kernels::new(h);
    let input = ForceInput {
        lists: ns.lists(),
        kernels: &kernels,
        p: &p,
        vv: &vv,
        dt,
    };
    let mut fluid = Fluid::at_rest(p.clone(), 1000.0);
    fluid.v = v.clone();
    let mut forces = (VorticityConfinement::new(eps), Xsph::new(c));
    forces.prepare(&input, &mut fluid);
    let mut out = vec![Vec3A::ZERO; n];
    forces.apply(&input, &fluid, &mut out);
    assert_eq!(forces.names(), ["vorticity confinement", "XSPH viscosity"]);

    // The reference, in f64, over all pairs within h (self included; its terms vanish).
    let hd = h as f64;
    let pd: Vec<DVec3> = p.iter().map(|q| q.as_dvec3()).collect();
    let vd: Vec<DVec3> = v.iter().map(|q| q.as_dvec3()).collect();
    let vold: Vec<f64> = vol.iter().map(|&w| w as f64).collect();
    let pairs: Vec<Vec<usize>> = (0..n)
        .map(|i| (0..n).filter(|&j| pd[i].distance(pd[j]) <= hd).collect())
        .collect();
    let near = |i: usize| pairs[i].iter().copied();
    let omega: Vec<DVec3> = (0..n)
        .map(|i| {
            near(i).fold(DVec3::ZERO, |acc, j| {
                // ∇_{p_j} W_ij = −∇_{p_i} W_ij.
                acc + vold[j] * (vd[j] - vd[i]).cross(-spiky_grad(hd, pd[i] - pd[j]))
            })
        })
        .collect();
    let mut worst = 0.0f64;
    let mut scale = 0.0f64;
    for i in 0..n {
        let eta = near(i).fold(DVec3::ZERO, |acc, j| {
            acc + vold[j] * omega[j].length() * spiky_grad(hd, pd[i] - pd[j])
        });
        let dv_vort = if eta.length() > 1e-12 {
            dt as f64 * eps as f64 * eta.normalize().cross(omega[i])
        } else {
            DVec3::ZERO
        };
        let dv_xsph = near(i).fold(DVec3::ZERO, |acc, j| {
            acc + c as f64 * vold[j] * (vd[j] - vd[i]) * poly6(hd, pd[i].distance(pd[j]))
        });
        let want = dv_vort + dv_xsph;
        let got = (out[i] - v[i]).as_dvec3();
        worst = worst.max((got - want).length());
        scale = scale.max(want.length());
        // ω is also written for output.
        let w = fluid.vorticity[i].as_dvec3();
        assert!(
            (w - omega[i]).length() <= 1e-4 * omega[i].length().max(1.0),
            "particle {i}: omega {w} against {}",
            omega[i]
        );
    }
    assert!(
        scale > 1e-3,
        "the forces should move the velocities: {scale}"
    );
    assert!(
        worst <= 1e-4 * scale,
        "largest difference {worst} against a largest change of {scale}"
    );
}

#[test]
fn no_forces_leave_velocities_unchanged() {
    let p = vec![Vec3A::ZERO, Vec3A::X * 0.01];
    let points = p.clone();
    let spec = GridSpec::around(&points, 0.04, CellSize::H).unwrap();
    let mut ns = NeighborSearch::new(spec, SearchMode::Unpruned);
    ns.build(&points);
    ns.search();
    let kernels = Kernels::new(0.04);
    let vv = vec![glam::Vec4::new(1.0, 2.0, 3.0, 1e-6); 2];
    let input = ForceInput {
        lists: ns.lists(),
        kernels: &kernels,
        p: &p,
        vv: &vv,
        dt: 0.01,
    };
    let mut fluid = Fluid::at_rest(p.clone(), 1000.0);
    fluid.v = vec![Vec3A::new(1.0, 2.0, 3.0), Vec3A::new(-1.0, 0.5, 0.0)];
    let mut out = vec![Vec3A::ZERO; 2];
    let mut none = ();
    none.prepare(&input, &mut fluid);
    none.apply(&input, &fluid, &mut out);
    assert_eq!(out, fluid.v);
}
