//! The rest lattice (spacing 2r) as the kernels see it: the calibration of the particle mass and
//! of PBF's constraint scale.
//!
//! Owns: [`rest_lattice`], [`jacobi_gain`], [`gradient_moment`]. Does not touch: particles.

use super::Kernels;
use glam::Vec3A;

/// For a particle inside the rest lattice of spacing `s`: the calibrated mass `m = ρ0 / Σ W`
/// (so such a particle has exactly ρ0), and `S0 = Σ_j |(m/ρ0) ∇W|²`, the scale of PBF's λ
/// denominator.
pub fn rest_lattice(k: &Kernels, s: f32, rho0: f32) -> (f32, f32) {
    let (mut sum_w, mut sum_g2) = (0.0f64, 0.0f64);
    for_each_site(k, s, |q| {
        sum_w += k.w(q.length_squared()) as f64;
        sum_g2 += k.grad(q).length_squared() as f64;
    });
    let vol = 1.0 / sum_w; // m / ρ0
    ((rho0 as f64 * vol) as f32, (sum_g2 * vol * vol) as f32)
}

/// `f(x)` for every site `x` of the lattice of spacing `s` within the kernel's reach of the
/// origin (and some beyond), the origin included.
fn for_each_site(k: &Kernels, s: f32, mut f: impl FnMut(Vec3A)) {
    let n = (k.h / s).ceil() as i32;
    for a in -n..=n {
        for b in -n..=n {
            for c in -n..=n {
                f(Vec3A::new(a as f32, b as f32, c as f32) * s);
            }
        }
    }
}

/// `M = (1/3) (m/ρ0) Σ_j |∇W(x_j)| |x_j|` over the rest lattice of spacing `s`: how PBF's
/// correction answers a smooth gradient of λ. Inside the lattice `Σ_j ∇W_j = 0`, so with
/// `λ_j ≈ λ_i − ∇λ·r_ij` the correction `(m/ρ0) Σ_j (λ_i + λ_j) ∇W_ij` is `−(m/ρ0) Σ_j (∇λ·r_ij)
/// ∇W_ij = M ∇λ` (the lattice's cubic symmetry makes the moment isotropic). In the continuum
/// `∫ r·∇W dV = −3`, so `M → 1` as h / s grows; at h = 4r it is 0.947.
pub fn gradient_moment(k: &Kernels, s: f32) -> f32 {
    let (mut sum_w, mut sum_m) = (0.0f64, 0.0f64);
    for_each_site(k, s, |q| {
        sum_w += k.w(q.length_squared()) as f64;
        sum_m += (k.grad(q).length() * q.length()) as f64;
    });
    (sum_m / sum_w / 3.0) as f32
}

/// The largest gain of PBF's Jacobi density iteration on the rest lattice of spacing `s`:
/// `a_max = max_k |Σ_j ∇W(x_j) sin(k·x_j)|² / Σ_j |∇W(x_j)|²` over the wave vectors `k` of the
/// lattice's Brillouin zone.
///
/// Why: inside the fluid `∇_i C_i = 0`, so a pattern of multipliers `λ_i = e^{ik·x_i}` moves the
/// particles by `Δx = J^T λ` and changes the constraints by `J J^T λ = |S(k)|² λ` with
/// `S(k) = Σ_j ∇W(x_j) sin(k·x_j)`. PBF divides by the diagonal `D = Σ_j |∇W(x_j)|²`, so one
/// iteration multiplies that pattern's error by `1 − ω |S(k)|² / D`: it converges only while
/// `ω a_max < 2`. The sum in `S` grows with the neighbor count while `D` grows more slowly, so
/// wide kernels overshoot: `a_max` ≈ 2.8 at h = 4r (26 neighbors), 5.1 at 5.4r (80).
pub fn jacobi_gain(k: &Kernels, s: f32) -> f32 {
    let n = (k.h / s).ceil() as i32;
    let mut offsets = Vec::new();
    let mut d = 0.0f64;
    for a in -n..=n {
        for b in -n..=n {
            for c in -n..=n {
                let q = Vec3A::new(a as f32, b as f32, c as f32) * s;
                let g = k.grad(q);
                if g != Vec3A::ZERO {
                    offsets.push(([a as f64, b as f64, c as f64], g.to_array().map(f64::from)));
                    d += g.length_squared() as f64;
                }
            }
        }
    }
    if d == 0.0 {
        return 0.0;
    }
    // The cubic lattice's symmetry: kx ≥ ky ≥ kz in [0, π/s] covers every |S(k)|².
    const STEPS: usize = 32;
    let phase = |i: usize| std::f64::consts::PI * i as f64 / STEPS as f64;
    let mut best = 0.0f64;
    for i in 0..=STEPS {
        for j in 0..=i {
            for l in 0..=j {
                let kv = [phase(i), phase(j), phase(l)];
                let mut sum = [0.0f64; 3];
                for (o, g) in &offsets {
                    let sn = (kv[0] * o[0] + kv[1] * o[1] + kv[2] * o[2]).sin();
                    for (acc, gc) in sum.iter_mut().zip(g) {
                        *acc += gc * sn;
                    }
                }
                best = best.max(sum.iter().map(|x| x * x).sum::<f64>() / d);
            }
        }
    }
    best as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `M` against the continuum identity `∫ r·∇W dV = −3` (so `M → 1` for wide kernels on a
    /// fine lattice), and its value at h = 4r.
    #[test]
    fn the_gradient_moment_tends_to_the_continuum_value() {
        let s = 0.02;
        let m4 = gradient_moment(&Kernels::new(4.0 * s / 2.0), s);
        assert!((m4 - 0.947).abs() < 0.002, "h = 4r: {m4}");
        let m16 = gradient_moment(&Kernels::new(16.0 * s / 2.0), s);
        assert!((m16 - 1.0).abs() < 0.01, "h = 16r: {m16}");
        // The cubic spline's too (its own gradient with its own density).
        let cubic = |h: f32| Kernels::with_kind(h, crate::sph::KernelKind::CubicSpline);
        let c16 = gradient_moment(&cubic(16.0 * s / 2.0), s);
        assert!((c16 - 1.0).abs() < 0.01, "cubic, h = 16r: {c16}");
    }

    /// The largest eigenvalue of `D⁻¹ J Jᵀ` on a periodic cubic lattice of `l³` sites, by power
    /// iteration on the operator built site by site (f64): `Δx_b = Σ_a λ_a ∇_b C_a`, then
    /// `(J Jᵀ λ)_a = Σ_b ∇_b C_a · Δx_b`, with `∇_b C_a = −∇W(x_a − x_b)` for `b ≠ a` and
    /// `∇_a C_a = Σ_b ∇W(x_a − x_b)`. Independent of [`jacobi_gain`]'s Fourier sum.
    fn power_iteration(h: f64, s: f64, l: i64) -> f64 {
        let grad = |d: [f64; 3]| -> [f64; 3] {
            let q = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            if q == 0.0 || q > h {
                return [0.0; 3];
            }
            let c = (h - q) * (h - q) / q;
            [d[0] * c, d[1] * c, d[2] * c]
        };
        let n = (h / s).ceil() as i64;
        let mut offs = Vec::new();
        for a in -n..=n {
            for b in -n..=n {
                for c in -n..=n {
                    let g = grad([a as f64 * s, b as f64 * s, c as f64 * s]);
                    if g != [0.0; 3] {
                        offs.push(([a, b, c], g));
                    }
                }
            }
        }
        let d: f64 = offs
            .iter()
            .map(|(_, g)| g.iter().map(|x| x * x).sum::<f64>())
            .sum();
        let m = (l * l * l) as usize;
        let idx = |p: [i64; 3]| -> usize {
            let w = |x: i64| x.rem_euclid(l) as usize;
            w(p[0]) + l as usize * (w(p[1]) + l as usize * w(p[2]))
        };
        let site = |i: usize| -> [i64; 3] {
            let l = l as usize;
            [(i % l) as i64, ((i / l) % l) as i64, (i / (l * l)) as i64]
        };
        // A start with every lattice wave in it.
        let mut lam: Vec<f64> = (0..m)
            .map(|i| ((i * 7919) % 101) as f64 / 101.0 - 0.5)
            .collect();
        let mut est = 0.0;
        for _ in 0..300 {
            let mut dx = vec![[0.0f64; 3]; m];
            for (a, &la) in lam.iter().enumerate() {
                let pa = site(a);
                for (o, g) in &offs {
                    // b = a − o: ∇_b C_a = −∇W(x_a − x_b) = −g(o); ∇_a C_a gets +g(o).
                    let b = idx([pa[0] - o[0], pa[1] - o[1], pa[2] - o[2]]);
                    for k in 0..3 {
                        dx[b][k] -= la * g[k];
                        dx[a][k] += la * g[k];
                    }
                }
            }
            let mut out = vec![0.0f64; m];
            for (a, o_a) in out.iter_mut().enumerate() {
                let pa = site(a);
                for (o, g) in &offs {
                    let b = idx([pa[0] - o[0], pa[1] - o[1], pa[2] - o[2]]);
                    for k in 0..3 {
                        *o_a += -g[k] * dx[b][k] + g[k] * dx[a][k];
                    }
                }
                *o_a /= d;
            }
            let norm = out.iter().map(|x| x * x).sum::<f64>().sqrt();
            let prev = lam.iter().map(|x| x * x).sum::<f64>().sqrt();
            est = norm / prev;
            lam = out.iter().map(|x| x / norm).collect();
        }
        est
    }

    #[test]
    fn jacobi_gain_is_the_largest_eigenvalue_of_the_iteration() {
        for hr in [4.0f32, 5.4] {
            let (r, s) = (1.0f32, 2.0f32);
            let k = Kernels::new(hr * r);
            let gain = jacobi_gain(&k, s) as f64;
            // A periodic box of 24 sites holds the waves k = 2πj / (24 s): the maximum over
            // them is at most the zone's, and close to it.
            let box_max = power_iteration((hr * r) as f64, s as f64, 24);
            eprintln!("h = {hr} r: gain {gain:.4}, power iteration {box_max:.4}");
            assert!(box_max <= gain * 1.002, "{box_max} > {gain}");
            assert!(box_max >= gain * 0.97, "{box_max} << {gain}");
        }
        // Wider kernels overshoot more: above 2 (Jacobi with ω = 1 diverges) at both.
        let g4 = jacobi_gain(&Kernels::new(4.0), 2.0);
        let g54 = jacobi_gain(&Kernels::new(5.4), 2.0);
        assert!(2.0 < g4 && g4 < g54, "{g4} {g54}");
    }
}
