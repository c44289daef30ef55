//! Wall density: the density a solid adds near its surface, tabulated against the distance.
//!
//! The density a solid adds at a particle is what the fluid would add if the fluid's rest lattice
//! (spacing s = 2r, particles r in from the surface) continued beyond the surface:
//! `ρ_wall(d) = m · Σ_{q beyond the wall} W(|p − q|)`, averaged over the particle's lateral
//! offset against that lattice. It depends only on the distance d to the surface, so it is
//! tabulated once (with its derivative) and interpolated, as a density map (Koschier & Bender 2017)
//! for a plane. With the particle mass calibrated on the same lattice (see the solver), a particle
//! resting against a wall sees the rest density, as one in the interior does. Near an edge or a
//! corner of the tank the region behind two or three walls at once lies beyond each of their
//! planes; the tank subtracts what the planes count more than once (`wall_overlap`).
//!
//! The same lattice gives the adhesion of Akinci et al. 2013 (fluid–solid attraction, see
//! [`WallTable::adhesion`]) and the share of a particle's kernel moment the wall takes away
//! (see [`WallTable::support`]).
//!
//! Owns: [`WallTable`], [`adhesion_spline`]. Does not touch: any solid's shape.

use crate::sph::Kernels;

/// Tabulated wall density against the distance to a plane.
#[derive(Clone, Debug)]
pub struct WallTable {
    pub(crate) h: f32,
    /// The kernels, particle radius and mass the table was built for (the tank's edge and
    /// corner tables are built for the same lattice: see `wall_overlap`).
    pub(crate) kernels: Kernels,
    pub(crate) r: f32,
    pub(crate) mass: f32,
    /// ρ at d = k · h / (len − 1).
    rho: Vec<f32>,
    /// dρ/dd at the same points.
    drho: Vec<f32>,
    /// The adhesion pull per unit β at the same points (see [`WallTable::adhesion`]).
    adh: Vec<f32>,
    /// The wall's share of the kernel moment, along and across the wall, at the same points
    /// (see [`WallTable::support`]).
    share: Vec<[f32; 2]>,
}

/// Akinci et al. 2013's adhesion spline `C_adh(r) = 0.007 / h^3.25 · (−4r²/h + 6r − 2h)^¼` for
/// `h/2 < r ≤ h`, 0 elsewhere.
pub fn adhesion_spline(h: f64, r: f64) -> f64 {
    if r > 0.5 * h && r <= h {
        0.007 / h.powf(3.25) * (-4.0 * r * r / h + 6.0 * r - 2.0 * h).max(0.0).powf(0.25)
    } else {
        0.0
    }
}

impl WallTable {
    const SAMPLES: usize = 257;

    /// Build for kernel radius `h`, particle radius `r` and particle mass `mass`.
    pub fn new(kernels: &Kernels, r: f32, mass: f32) -> Self {
        let h = kernels.h as f64;
        let s = 2.0 * r as f64;
        let lateral = 8; // offsets per axis
        let reach = (h / s).ceil() as i64 + 1;
        // The kernel moment `−(x_q − x_i)_a ∂_a W` of one lattice site along one axis (the
        // same for x and y: W is radial).
        let moment = |x: f64, y: f64, z: f64, axis: usize| -> f64 {
            let q = [x, y, z];
            let g = kernels.grad(glam::Vec3A::new(x as f32, y as f32, z as f32));
            -(q[axis] * g[axis] as f64)
        };
        // The whole lattice's moment along one axis, about a site.
        let mut full = 0.0;
        for a in -reach..=reach {
            for b in -reach..=reach {
                for c in -reach..=reach {
                    let (x, y, z) = (a as f64 * s, b as f64 * s, c as f64 * s);
                    full += moment(x, y, z, 0);
                }
            }
        }
        // (Σ m W, Σ m C_adh(|x|) x_n / |x|, the tangential and normal moments) over the lattice
        // beyond the wall.
        let sum_at = |d: f64| -> (f64, f64, [f64; 2]) {
            let (mut total, mut pull, mut mom) = (0.0, 0.0, [0.0; 2]);
            for ou in 0..lateral {
                for ov in 0..lateral {
                    let (u0, v0) = (
                        ou as f64 * s / lateral as f64,
                        ov as f64 * s / lateral as f64,
                    );
                    let (mut acc, mut adh) = (0.0, 0.0);
                    for k in 0..=reach {
                        let x = d + r as f64 + k as f64 * s;
                        if x > h {
                            break;
                        }
                        for a in -reach..=reach {
                            for b in -reach..=reach {
                                let (y, z) = (u0 + a as f64 * s, v0 + b as f64 * s);
                                let r2 = x * x + y * y + z * z;
                                acc += kernels.w(r2 as f32) as f64;
                                let q = r2.sqrt();
                                adh += adhesion_spline(h, q) * x / q;
                                mom[0] += moment(x, y, z, 1);
                                mom[1] += moment(x, y, z, 0);
                            }
                        }
                    }
                    total += acc;
                    pull += adh;
                }
            }
            let per = mass as f64 / (lateral * lateral) as f64;
            let share = mom.map(|m| m / (lateral * lateral) as f64 / full);
            (per * total, per * pull, share)
        };
        let n = Self::SAMPLES;
        let step = h / (n - 1) as f64;
        let sums: Vec<(f64, f64, [f64; 2])> = (0..n).map(|k| sum_at(k as f64 * step)).collect();
        let rho: Vec<f64> = sums.iter().map(|s| s.0).collect();
        let drho = Self::derivative(&rho, step);
        WallTable {
            h: kernels.h,
            kernels: *kernels,
            r,
            mass,
            rho: rho.into_iter().map(|x| x as f32).collect(),
            drho,
            adh: sums.iter().map(|s| s.1 as f32).collect(),
            share: sums.iter().map(|s| s.2.map(|x| x as f32)).collect(),
        }
    }

    /// This table with its density and adhesion samples scaled by `ratio(d)` at their distance
    /// `d`, and the density's derivative taken again (see `curvature`; the moment's shares are
    /// the tank's and stay as they are).
    pub fn scaled(&self, mut ratio: impl FnMut(f64) -> f64) -> WallTable {
        let n = self.rho.len();
        let step = self.h as f64 / (n - 1) as f64;
        let f: Vec<f64> = (0..n).map(|k| ratio(k as f64 * step)).collect();
        let rho: Vec<f64> = (0..n).map(|k| self.rho[k] as f64 * f[k]).collect();
        let mut t = self.clone();
        t.drho = Self::derivative(&rho, step);
        for k in 0..n {
            t.rho[k] = rho[k] as f32;
            t.adh[k] = (self.adh[k] as f64 * f[k]) as f32;
        }
        t
    }

    /// Central differences of samples `step` apart (one-sided at the ends).
    fn derivative(v: &[f64], step: f64) -> Vec<f32> {
        let n = v.len();
        (0..n)
            .map(|k| {
                let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
                ((v[b] - v[a]) / ((b - a) as f64 * step)) as f32
            })
            .collect()
    }

    /// The share `(φ_t, φ_n)` of a particle's kernel moment that lies beyond a wall at
    /// distance `d`, along the wall and across it (0 at or beyond h): with the rest lattice's
    /// moment `A = Σ_q −(x_q − x_i)_a ∂_a W_iq` about a site (any axis a), the wall's sites take
    /// `φ_t A` along the wall and `φ_n A` across it, averaged over the lateral offset as the
    /// density is. The fluid's neighbors hold the rest, `(1 − φ) A`: that is how much of a
    /// pressure gradient a particle beside a wall feels through its neighbors alone (see
    /// `ColliderSet::support`). At the rest distance r, h = 4r: 0.147 along, 0.490 across.
    #[inline]
    pub fn support(&self, d: f32) -> [f32; 2] {
        match self.sample(d) {
            Some((k, f)) => {
                let (a, b) = (self.share[k], self.share[k + 1]);
                [a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1])]
            }
            None => [0.0; 2],
        }
    }

    /// (ρ, dρ/dd) at distance `d` from the surface (clamped to [0, h]; 0 beyond h).
    /// The adhesion pull per unit β at distance `d` from the surface (0 beyond h):
    /// `A(d) = Σ_k m C_adh(|p − q_k|) (p − q_k)·n / |p − q_k|` over the lattice beyond the wall
    /// (boundary "particles" of mass m, Akinci's `Ψ = ρ0 V`), averaged over the lateral offset
    /// as the density is. A particle's acceleration is `−β A(d) n` (n pointing out of the
    /// solid): toward the surface.
    #[inline]
    pub fn adhesion(&self, d: f32) -> f32 {
        match self.sample(d) {
            Some((k, f)) => self.adh[k] + f * (self.adh[k + 1] - self.adh[k]),
            None => 0.0,
        }
    }

    /// The sample below `d` (clamped to 0) and the fraction of the way to the next; `None` at
    /// or beyond h.
    #[inline]
    fn sample(&self, d: f32) -> Option<(usize, f32)> {
        if d >= self.h {
            return None;
        }
        let t = (d.max(0.0) / self.h) * (self.rho.len() - 1) as f32;
        let k = (t as usize).min(self.rho.len() - 2);
        Some((k, t - k as f32))
    }

    #[inline]
    pub fn at(&self, d: f32) -> (f32, f32) {
        let Some((k, f)) = self.sample(d) else {
            return (0.0, 0.0);
        };
        (
            self.rho[k] + f * (self.rho[k + 1] - self.rho[k]),
            self.drho[k] + f * (self.drho[k + 1] - self.drho[k]),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Akinci's adhesion of a continuous half-space of the fluid's rest density beginning at
    /// distance `d`: `ρ0 ∫_{x ≥ d} C_adh(|q|) x / |q| dV`, in cylindrical coordinates (midpoint
    /// rule, f64). The lattice (cells of side s beyond the surface) is a sampling of it.
    fn half_space(h: f64, rho0: f64, d: f64) -> f64 {
        let n = 800;
        let mut total = 0.0;
        let dx = (h - d).max(0.0) / n as f64;
        for i in 0..n {
            let x = d + (i as f64 + 0.5) * dx;
            let qmax = (h * h - x * x).max(0.0).sqrt();
            let dq = qmax / n as f64;
            for j in 0..n {
                let q = (j as f64 + 0.5) * dq;
                let r = (x * x + q * q).sqrt();
                total += adhesion_spline(h, r) * x / r * 2.0 * std::f64::consts::PI * q * dq * dx;
            }
        }
        rho0 * total
    }

    /// `Σ f(q)` over the wall's sites, brute force: normal distance `d + r + k s`, averaged over
    /// `n × n` lateral offsets over a cell (the table averages over 8 × 8).
    fn beyond_wall(h: f64, r: f64, d: f64, n: usize, f: impl Fn([f64; 3]) -> f64) -> f64 {
        let s = 2.0 * r;
        let reach = (h / s).ceil() as i64 + 1;
        let mut total = 0.0;
        for ou in 0..n {
            for ov in 0..n {
                let (u, v) = (
                    (ou as f64 + 0.5) * s / n as f64,
                    (ov as f64 + 0.5) * s / n as f64,
                );
                for k in 0..=reach {
                    for a in -reach..=reach {
                        for b in -reach..=reach {
                            total += f([d + r + k as f64 * s, u + a as f64 * s, v + b as f64 * s]);
                        }
                    }
                }
            }
        }
        total / (n * n) as f64
    }

    /// The lattice's own adhesion sum, brute force (32 × 32 lateral offsets).
    fn lattice(h: f64, r: f64, mass: f64, d: f64) -> f64 {
        beyond_wall(h, r, d, 32, |[x, y, z]| {
            let q = (x * x + y * y + z * z).sqrt();
            mass * adhesion_spline(h, q) * x / q
        })
    }

    /// The spiky kernel's `−q_a ∂_a W(q)` (f64, from the formula, not the solver's kernels).
    fn spiky_moment(h: f64, q: [f64; 3], a: usize) -> f64 {
        let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
        if len == 0.0 || len > h {
            return 0.0;
        }
        let dw = -45.0 / (std::f64::consts::PI * h.powi(6)) * (h - len).powi(2);
        -q[a] * dw * q[a] / len
    }

    /// The wall's share of a particle's kernel moment, brute force: the sites beyond the wall
    /// (normal distance `d + r + k s`, 16 × 16 lateral offsets) against the whole lattice
    /// about a site, along the wall (a = 1) and across it (a = 0).
    fn share(h: f64, r: f64, d: f64, a: usize) -> f64 {
        let s = 2.0 * r;
        let (n, reach) = (16, (h / s).ceil() as i64 + 1);
        let mut full = 0.0;
        for i in -reach..=reach {
            for j in -reach..=reach {
                for k in -reach..=reach {
                    full += spiky_moment(h, [i as f64 * s, j as f64 * s, k as f64 * s], a);
                }
            }
        }
        beyond_wall(h, r, d, n, |q| spiky_moment(h, q, a)) / full
    }

    #[test]
    fn the_walls_share_of_the_moment_is_the_lattices() {
        let r = 0.01f32;
        for hr in [4.0f32, 5.4] {
            let k = Kernels::new(hr * r);
            let t = WallTable::new(&k, r, 0.008);
            let h = k.h as f64;
            for d in [0.5 * r as f64, r as f64, 2.0 * r as f64, 0.6 * h] {
                let [along, across] = t.support(d as f32);
                let (a, c) = (share(h, r as f64, d, 1), share(h, r as f64, d, 0));
                eprintln!(
                    "h = {hr} r, d = {d:.4}: along {along:.4} ({a:.4}), across {across:.4} ({c:.4})"
                );
                assert!(
                    (along as f64 - a).abs() < 0.01,
                    "along at d = {d}: {along} vs {a}"
                );
                assert!(
                    (across as f64 - c).abs() < 0.01,
                    "across at d = {d}: {across} vs {c}"
                );
                // A wall takes more of the moment across itself than along it, and less than
                // the half-space beyond a plane through the particle would.
                assert!(across >= along && across < 0.6, "{along} {across}");
            }
            assert_eq!(t.support(k.h), [0.0, 0.0]);
        }
    }

    #[test]
    fn adhesion_is_the_half_space_integral_sampled_on_the_lattice() {
        let (r, rho0) = (0.01f32, 1000.0f64);
        let k = Kernels::new(4.0 * r);
        let mass = rho0 * (2.0 * r as f64).powi(3); // a lattice cell's worth of fluid
        let t = WallTable::new(&k, r, mass as f32);
        let h = k.h as f64;
        for d in [r as f64, 0.5 * h, 0.7 * h, 0.9 * h] {
            let table = t.adhesion(d as f32) as f64;
            let sum = lattice(h, r as f64, mass, d);
            eprintln!("d = {d:.4}: table {table:.6e}, lattice {sum:.6e}");
            assert!(table >= 0.0, "pulls toward the wall");
            assert!(
                (table - sum).abs() <= 0.02 * sum + 1e-6,
                "d = {d}: {table} vs {sum}"
            );
        }
        // Where a resting particle sits (d = r), the sampling is close to the continuum (at
        // most two layers of sites lie within h: farther out, where one layer samples the
        // spline's tail, it is not: 0.46 against 0.92 at 0.7 h).
        let (rest, exact) = (t.adhesion(r) as f64, half_space(h, rho0, r as f64));
        assert!((rest / exact - 1.0).abs() < 0.05, "{rest} vs {exact}");
        assert_eq!(t.adhesion(h as f32), 0.0);
    }
}
