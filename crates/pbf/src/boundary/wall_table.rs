//! Wall density: the density a solid adds near its surface, tabulated against the distance.
//!
//! The density a solid adds at a particle is what the fluid would add if the fluid's rest lattice
//! (spacing s = 2r, particles r in from the surface) continued beyond the surface:
//! `ρ_wall(d) = m · Σ_{q beyond the wall} W(|p − q|)`, averaged over the particle's lateral
//! offset against that lattice. It depends only on the distance d to the surface, so it is
//! tabulated once (with its derivative) and interpolated, as a density map (Koschier & Bender 2017)
//! for a plane. With the particle mass calibrated on the same lattice (see the solver), a particle
//! resting against a wall sees the rest density, as one in the interior does. Near an edge or a
//! corner of the tank the planes' contributions are added; their overlap (the region behind two
//! walls at once) is counted twice, a small excess confined to edges.
//!
//! Owns: [`WallTable`]. Does not touch: any solid's shape.

use crate::sph::Kernels;

/// Tabulated wall density against the distance to a plane.
#[derive(Clone, Debug)]
pub struct WallTable {
    pub(crate) h: f32,
    /// ρ at d = k · h / (len − 1).
    rho: Vec<f32>,
    /// dρ/dd at the same points.
    drho: Vec<f32>,
}

impl WallTable {
    const SAMPLES: usize = 257;

    /// Build for kernel radius `h`, particle radius `r` and particle mass `mass`.
    pub fn new(kernels: &Kernels, r: f32, mass: f32) -> Self {
        let h = kernels.h as f64;
        let s = 2.0 * r as f64;
        let lateral = 8; // offsets per axis
        let reach = (h / s).ceil() as i64 + 1;
        let sum_at = |d: f64| -> f64 {
            let mut total = 0.0;
            for ou in 0..lateral {
                for ov in 0..lateral {
                    let (u0, v0) = (
                        ou as f64 * s / lateral as f64,
                        ov as f64 * s / lateral as f64,
                    );
                    let mut acc = 0.0;
                    for k in 0..=reach {
                        let x = d + r as f64 + k as f64 * s;
                        if x > h {
                            break;
                        }
                        for a in -reach..=reach {
                            for b in -reach..=reach {
                                let (y, z) = (u0 + a as f64 * s, v0 + b as f64 * s);
                                let r2 = x * x + y * y + z * z;
                                acc += kernels.poly6(r2 as f32) as f64;
                            }
                        }
                    }
                    total += acc;
                }
            }
            mass as f64 * total / (lateral * lateral) as f64
        };
        let n = Self::SAMPLES;
        let step = h / (n - 1) as f64;
        let rho: Vec<f64> = (0..n).map(|k| sum_at(k as f64 * step)).collect();
        let drho = (0..n)
            .map(|k| {
                let (a, b) = (k.saturating_sub(1), (k + 1).min(n - 1));
                ((rho[b] - rho[a]) / ((b - a) as f64 * step)) as f32
            })
            .collect();
        WallTable {
            h: kernels.h,
            rho: rho.into_iter().map(|x| x as f32).collect(),
            drho,
        }
    }

    /// (ρ, dρ/dd) at distance `d` from the surface (clamped to [0, h]; 0 beyond h).
    #[inline]
    pub fn at(&self, d: f32) -> (f32, f32) {
        if d >= self.h {
            return (0.0, 0.0);
        }
        let t = (d.max(0.0) / self.h) * (self.rho.len() - 1) as f32;
        let k = (t as usize).min(self.rho.len() - 2);
        let f = t - k as f32;
        (
            self.rho[k] + f * (self.rho[k + 1] - self.rho[k]),
            self.drho[k] + f * (self.drho[k + 1] - self.drho[k]),
        )
    }
}
