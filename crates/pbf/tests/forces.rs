//! The non-pressure forces as the solver applies them (one fused neighbor pass over a tuple of
//! forces) against an independent reference: the published formulas evaluated in f64 over every
//! pair within h, with the kernels written out here (not the library's), on a jittered cloud
//! with random velocities and volumes.
//!
//! The kinematics pass (with the densities, `ρ_i = Σ_j m W_ij` plus the walls'):
//! `ω_i = (m/ρ_i) Σ_j (v_j − v_i) × ∇_{p_j} W_ij`, `s_i = (m/ρ_i) Σ_j (v_j − v_i) W_ij` (poly6).
//! Vorticity confinement (Macklin & Müller 2013): `η_i = Σ_j σ_j ∇_{p_i} W_ij` with the swirl
//! `σ_j = (m/ρ_j) |ω_j|` of the last step (carried with the particles), `Δv_i = dt ε (η/|η| ×
//! ω_i)`, and this step's swirl left for the next. XSPH: `Δv_i = c s_i`. The step adds them in
//! that order.

use glam::{DVec3, Vec3A};
use nsearch::{CellSize, GridSpec, NeighborSearch, SearchMode};
use pbf::forces::vorticity::VorticityConfinement;
use pbf::forces::xsph::Xsph;
use pbf::forces::{ForceInput, ForceSet};
use pbf::particles::Fluid;
use pbf::sph::Kernels;
use pbf::sph::kinematics::{KinematicsIn, KinematicsOut, Needs, kinematics};
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

/// A shuffled jittered lattice of `k`³ points searched (pruned) within `h`, and its positions in
/// the lists' slot order (where everything a force reads lives).
fn searched_lattice(
    k: usize,
    spacing: f32,
    jitter: f32,
    seed: u64,
    h: f32,
) -> (NeighborSearch, Vec<Vec3A>) {
    let points = nsearch::points::jittered_lattice(k, spacing, jitter, true, seed);
    let spec = GridSpec::around(&points, h, CellSize::H).unwrap();
    let mut ns = NeighborSearch::new(spec, SearchMode::Pruned);
    ns.build(&points);
    ns.search();
    let sorted = ns.sorted_positions();
    let p = (0..sorted.len()).map(|i| sorted.get(i)).collect();
    (ns, p)
}

/// What the kinematics pass writes: density, vv, curl, smoothing, η.
type Sums = (
    Vec<f32>,
    Vec<glam::Vec4>,
    Vec<Vec3A>,
    Vec<Vec3A>,
    Vec<Vec3A>,
);

/// The kinematics pass on `p`, `v` (mass `m`, `wall[i]` added to each density, η the gradient
/// of `swirl`) as the step runs it.
fn kinematics_of(
    ns: &NeighborSearch,
    p: &[Vec3A],
    v: &[Vec3A],
    kernels: &Kernels,
    m: f32,
    wall: &[f32],
    swirl: &[f32],
) -> Sums {
    let n = p.len();
    let (mut rho, mut vv) = (vec![0.0; n], vec![glam::Vec4::ZERO; n]);
    let (mut curl, mut smooth) = (vec![Vec3A::ZERO; n], vec![Vec3A::ZERO; n]);
    let mut eta = vec![Vec3A::ZERO; n];
    let vs: Vec<glam::Vec4> = v.iter().zip(swirl).map(|(v, &s)| v.extend(s)).collect();
    kinematics(
        &KinematicsIn {
            lists: ns.lists(),
            p,
            v,
            kernels,
            mass: m,
            wall: &|i| wall[i],
            vs: &vs,
            pv: &[],
        },
        Needs {
            curl: true,
            smoothing: true,
            swirl: true,
            normals: false,
        },
        KinematicsOut {
            density: &mut rho,
            vv: &mut vv,
            curl: &mut curl,
            smoothing: &mut smooth,
            eta: &mut eta,
            normals: &mut [],
        },
    );
    (rho, vv, curl, smooth, eta)
}

/// `n` velocities with components uniform in (−1, 1) (z zero unless `with_z`).
fn random_velocities(rng: &mut impl Rng, n: usize, with_z: bool) -> Vec<Vec3A> {
    (0..n)
        .map(|_| {
            let x = rng.random_range(-1.0..1.0);
            let y = rng.random_range(-1.0..1.0);
            let z = if with_z {
                rng.random_range(-1.0..1.0)
            } else {
                0.0
            };
            Vec3A::new(x, y, z)
        })
        .collect()
}

#[test]
fn fused_force_pass_matches_the_formulas_pair_by_pair() {
    let h = 0.045f32;
    let (ns, p) = searched_lattice(9, 0.02, 0.005, 11, h);
    let n = p.len();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
    let v = random_velocities(&mut rng, n, true);
    // What walls would add to each density.
    let wall: Vec<f32> = (0..n).map(|_| rng.random_range(0.0..300.0)).collect();
    // The last step's swirl.
    let last: Vec<f32> = (0..n).map(|_| rng.random_range(0.0..1e-3)).collect();
    let (dt, eps, c, m) = (0.004f32, 0.5f32, 0.3f32, 0.008f32);

    let kernels = Kernels::new(h);
    let (rho, vv, curl, smoothing, eta) = kinematics_of(&ns, &p, &v, &kernels, m, &wall, &last);
    let input = ForceInput {
        lists: ns.lists(),
        kernels: &kernels,
        p: &p,
        vv: &vv,
        smoothing: &smoothing,
        eta: &eta,
        normals: &[],
        dt,
        mass: m,
        rest_density: 1000.0,
        halo: &pbf::distributed::Alone,
    };
    let mut fluid = Fluid::at_rest(p.clone(), 1000.0);
    fluid.v = v.clone();
    fluid.vorticity = curl;
    fluid.swirl = last.clone();
    let mut forces = (VorticityConfinement::new(eps), Xsph::new(c));
    assert_eq!(
        forces.needs(),
        Needs {
            curl: true,
            smoothing: true,
            swirl: true,
            normals: false,
        }
    );
    forces.prepare(&input, &mut fluid);
    let mut out = vec![Vec3A::ZERO; n];
    forces.apply(&input, &fluid, &mut out);
    assert_eq!(forces.names(), ["vorticity confinement", "XSPH viscosity"]);

    // The reference, in f64, over all pairs within h (self included; its terms vanish).
    let (hd, md) = (h as f64, m as f64);
    let pd: Vec<DVec3> = p.iter().map(|q| q.as_dvec3()).collect();
    let vd: Vec<DVec3> = v.iter().map(|q| q.as_dvec3()).collect();
    let pairs: Vec<Vec<usize>> = (0..n)
        .map(|i| (0..n).filter(|&j| pd[i].distance(pd[j]) <= hd).collect())
        .collect();
    let near = |i: usize| pairs[i].iter().copied();
    let rhod: Vec<f64> = (0..n)
        .map(|i| {
            wall[i] as f64 + near(i).fold(0.0, |acc, j| acc + md * poly6(hd, pd[i].distance(pd[j])))
        })
        .collect();
    let omega: Vec<DVec3> = (0..n)
        .map(|i| {
            near(i).fold(DVec3::ZERO, |acc, j| {
                // ∇_{p_j} W_ij = −∇_{p_i} W_ij.
                acc + (md / rhod[i]) * (vd[j] - vd[i]).cross(-spiky_grad(hd, pd[i] - pd[j]))
            })
        })
        .collect();
    let mut worst = 0.0f64;
    let mut scale = 0.0f64;
    for i in 0..n {
        assert!(
            (rho[i] as f64 - rhod[i]).abs() <= 1e-5 * rhod[i],
            "particle {i}: density {} against {}",
            rho[i],
            rhod[i]
        );
        assert!((vv[i].w as f64 - md / rhod[i]).abs() <= 1e-5 * md / rhod[i]);
        assert_eq!(Vec3A::from(vv[i].truncate()), v[i]);
        let eta = near(i).fold(DVec3::ZERO, |acc, j| {
            acc + last[j] as f64 * spiky_grad(hd, pd[i] - pd[j])
        });
        // This step's swirl, left for the next.
        let next = md / rhod[i] * omega[i].length();
        assert!(
            (fluid.swirl[i] as f64 - next).abs() <= 1e-4 * next.max(1e-6),
            "particle {i}: swirl {} against {next}",
            fluid.swirl[i]
        );
        let dv_vort = if eta.length() > 1e-12 {
            dt as f64 * eps as f64 * eta.normalize().cross(omega[i])
        } else {
            DVec3::ZERO
        };
        let dv_xsph = near(i).fold(DVec3::ZERO, |acc, j| {
            acc + c as f64 * (md / rhod[i]) * (vd[j] - vd[i]) * poly6(hd, pd[i].distance(pd[j]))
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

/// The curl of a rigid rotation `v = Ω × x` is `2Ω`, and a uniform velocity has no curl and
/// nothing to smooth: inside a lattice block the kinematics pass gives both (to the lattice's
/// discretisation of the kernel gradient, a few percent).
#[test]
fn the_curl_of_a_rigid_rotation_is_twice_its_angular_velocity() {
    let (spacing, h) = (0.02f32, 0.08f32);
    let (ns, p) = searched_lattice(13, spacing, 0.0, 2, h);
    let n = p.len();
    let kernels = Kernels::new(h);
    let m = 1000.0 * spacing.powi(3);
    let center = p.iter().fold(Vec3A::ZERO, |a, &q| a + q) / n as f32;
    let omega = Vec3A::new(0.3, -1.2, 0.7);
    let v: Vec<Vec3A> = p.iter().map(|&q| omega.cross(q - center)).collect();
    let zero = vec![0.0; n];
    let (_, _, curl, smoothing, _) = kinematics_of(&ns, &p, &v, &kernels, m, &zero, &zero);
    let uniform = vec![Vec3A::new(1.0, -2.0, 0.5); n];
    let (_, _, curl0, smooth0, _) = kinematics_of(&ns, &p, &uniform, &kernels, m, &zero, &zero);
    let mut inside = 0;
    for i in 0..n {
        assert!(curl0[i].length() <= 1e-6 && smooth0[i].length() <= 1e-6);
        // Particles whose whole kernel lies inside the block.
        let d = p[i] - center;
        if d.abs().max_element() + h > 6.0 * spacing + 1e-4 {
            continue;
        }
        inside += 1;
        let want = 2.0 * omega;
        assert!(
            (curl[i] - want).length() <= 0.06 * want.length(),
            "particle {i}: curl {} against {want}",
            curl[i]
        );
        // A linear field averages to the particle's own value.
        assert!(smoothing[i].length() <= 1e-3 * (omega.length() * h));
    }
    assert!(inside >= 27, "{inside} particles inside");
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
        smoothing: &[],
        eta: &[],
        normals: &[],
        dt: 0.01,
        mass: 0.008,
        rest_density: 1000.0,
        halo: &pbf::distributed::Alone,
    };
    let mut fluid = Fluid::at_rest(p.clone(), 1000.0);
    fluid.v = vec![Vec3A::new(1.0, 2.0, 3.0), Vec3A::new(-1.0, 0.5, 0.0)];
    let mut out = vec![Vec3A::ZERO; 2];
    let mut none = ();
    none.prepare(&input, &mut fluid);
    none.apply(&input, &fluid, &mut out);
    assert_eq!(out, fluid.v);
}

/// Akinci et al. 2013's cohesion spline `C(r)`, written out from the paper.
fn cohesion(h: f64, r: f64) -> f64 {
    let c = 32.0 / (PI * h.powi(9));
    if r > h || r <= 0.0 {
        0.0
    } else if 2.0 * r > h {
        c * (h - r).powi(3) * r.powi(3)
    } else {
        c * (2.0 * (h - r).powi(3) * r.powi(3) - h.powi(6) / 64.0)
    }
}

#[test]
fn surface_tension_matches_akinci_2013_pair_by_pair() {
    use pbf::forces::surface_tension::SurfaceTension;
    // A block of fluid (so it has a surface, where the normals and the curvature term live) and
    // random velocities. The normals weigh each neighbor by the density solve's last densities
    // (random here, 800-1300); K_ij takes the densities of the kinematics pass (random wall
    // shares added, so they differ from particle to particle as well).
    let h = 0.045f32;
    let (ns, p) = searched_lattice(8, 0.018, 0.004, 3, h);
    let n = p.len();
    let (m, rho0, gamma, dt) = (0.0058f32, 1000.0f32, 0.7f32, 0.004f32);
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(9);
    let solve_rho: Vec<f32> = (0..n).map(|_| rng.random_range(800.0..1300.0)).collect();
    let wall: Vec<f32> = (0..n).map(|_| rng.random_range(0.0..500.0)).collect();
    let v: Vec<Vec3A> = (0..n)
        .map(|_| Vec3A::new(rng.random_range(-1.0..1.0), 0.0, 0.0))
        .collect();
    let kernels = Kernels::new(h);
    let pv: Vec<glam::Vec4> = p
        .iter()
        .zip(&solve_rho)
        .map(|(q, &r)| q.extend(m / r))
        .collect();
    let (mut rho, mut vv) = (vec![0.0; n], vec![glam::Vec4::ZERO; n]);
    let mut normals = vec![glam::Vec4::ZERO; n];
    let mut forces = (SurfaceTension::new(gamma),);
    assert_eq!(
        forces.needs(),
        Needs {
            normals: true,
            ..Needs::NONE
        }
    );
    kinematics(
        &KinematicsIn {
            lists: ns.lists(),
            p: &p,
            v: &v,
            kernels: &kernels,
            mass: m,
            wall: &|i| wall[i],
            vs: &[],
            pv: &pv,
        },
        forces.needs(),
        KinematicsOut {
            density: &mut rho,
            vv: &mut vv,
            curl: &mut [],
            smoothing: &mut [],
            eta: &mut [],
            normals: &mut normals,
        },
    );
    let input = ForceInput {
        lists: ns.lists(),
        kernels: &kernels,
        p: &p,
        vv: &vv,
        smoothing: &[],
        eta: &[],
        normals: &normals,
        dt,
        mass: m,
        rest_density: rho0,
        halo: &pbf::distributed::Alone,
    };
    let mut fluid = Fluid::at_rest(p.clone(), rho0);
    fluid.v = v.clone();
    forces.prepare(&input, &mut fluid);
    let mut out = vec![Vec3A::ZERO; n];
    forces.apply(&input, &fluid, &mut out);

    // The reference, in f64, from the paper's formulas over all pairs within h.
    let (hd, md, r0) = (h as f64, m as f64, rho0 as f64);
    let pd: Vec<DVec3> = p.iter().map(|q| q.as_dvec3()).collect();
    let near: Vec<Vec<usize>> = (0..n)
        .map(|i| (0..n).filter(|&j| pd[i].distance(pd[j]) <= hd).collect())
        .collect();
    let rd: Vec<f64> = (0..n)
        .map(|i| {
            wall[i] as f64
                + near[i]
                    .iter()
                    .fold(0.0, |acc, &j| acc + md * poly6(hd, pd[i].distance(pd[j])))
        })
        .collect();
    let normal: Vec<DVec3> = (0..n)
        .map(|i| {
            hd * near[i].iter().fold(DVec3::ZERO, |acc, &j| {
                acc + (md / solve_rho[j] as f64) * spiky_grad(hd, pd[i] - pd[j])
            })
        })
        .collect();
    let (mut worst, mut scale, mut total) = (0.0f64, 0.0f64, DVec3::ZERO);
    let mut longest = 0.0f64;
    for i in 0..n {
        // The pass's normal and volume against the formulas.
        let got_n = Vec3A::from(normals[i].truncate()).as_dvec3();
        assert!(
            (got_n - normal[i]).length() <= 1e-4 * normal[i].length().max(0.1),
            "particle {i}: normal {got_n} against {}",
            normal[i]
        );
        assert!((normals[i].w as f64 - md / rd[i]).abs() <= 1e-5 * md / rd[i]);
        longest = longest.max(normal[i].length());
        let f = near[i]
            .iter()
            .filter(|&&j| j != i)
            .fold(DVec3::ZERO, |acc, &j| {
                let d = pd[i] - pd[j];
                let r = d.length();
                let k = 2.0 * r0 / (rd[i] + rd[j]);
                let coh = -(gamma as f64) * md * md * cohesion(hd, r) * d / r;
                let curv = -(gamma as f64) * md * (normal[i] - normal[j]);
                acc + k * (coh + curv)
            });
        let want = dt as f64 * f / md;
        let got = (out[i] - v[i]).as_dvec3();
        worst = worst.max((got - want).length());
        scale = scale.max(want.length());
        total += md * got;
    }
    // The block's surface has normals of about unit length.
    assert!(longest > 0.3, "longest normal {longest}");
    assert!(scale > 1e-4, "surface tension should act: {scale}");
    assert!(
        worst <= 1e-4 * scale,
        "largest difference {worst} against a largest change of {scale}"
    );
    // Antisymmetric pair terms: the momentum change sums to zero (to rounding).
    assert!(total.length() <= 1e-4 * md * scale * n as f64, "{total}");
}

/// Vorticity confinement at strength 0 adds nothing and walks no neighbors, but ω is still
/// taken for output; XSPH alone is then `c s_i` (the smoothing the kinematics pass takes,
/// checked against the formulas above).
#[test]
fn vorticity_off_leaves_xsph_alone_and_still_gives_omega() {
    let h = 0.045f32;
    let (ns, p) = searched_lattice(7, 0.02, 0.005, 4, h);
    let n = p.len();
    let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(8);
    let v = random_velocities(&mut rng, n, false);
    let kernels = Kernels::new(h);
    let zero = vec![0.0; n];
    let (_, vv, curl, smoothing, eta) = kinematics_of(&ns, &p, &v, &kernels, 0.008, &zero, &zero);
    let input = ForceInput {
        lists: ns.lists(),
        kernels: &kernels,
        p: &p,
        vv: &vv,
        smoothing: &smoothing,
        eta: &eta,
        normals: &[],
        dt: 0.004,
        mass: 0.008,
        rest_density: 1000.0,
        halo: &pbf::distributed::Alone,
    };
    let mut fluid = Fluid::at_rest(p.clone(), 1000.0);
    fluid.v = v.clone();
    fluid.vorticity = curl.clone();
    let c = 0.2f32;
    let mut forces = (VorticityConfinement::new(0.0), Xsph::new(c));
    assert!(
        forces.needs().curl,
        "ω is output even when it exerts no force"
    );
    forces.prepare(&input, &mut fluid);
    let mut out = vec![Vec3A::ZERO; n];
    forces.apply(&input, &fluid, &mut out);
    for i in 0..n {
        assert_eq!(out[i], v[i] + c * smoothing[i], "particle {i}");
    }
    assert!(curl.iter().any(|w| w.length() > 1.0));
    assert_eq!(fluid.vorticity, curl);
    assert!(
        fluid.swirl.iter().all(|&s| s == 0.0),
        "no swirl is kept when the confinement is off"
    );
}
