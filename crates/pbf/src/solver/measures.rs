//! What a run looks at in the state at its frame times: energies, density error, speeds and
//! the height of the highest particle (the `energy.csv` beside the frames).
//!
//! Owns: [`Solver::measures`] and [`Solver::look`]. Does not touch: the state (it only reads).
//!
//! Sums are per chunk of [`CHUNK`] particles in f64, then over the chunks in order, so the
//! figures do not depend on the thread count.

use super::Solver;
use crate::io::energy::Measures;
use crate::io::summary::Watch;
use crate::par::CHUNK;
use rayon::prelude::*;

impl Solver {
    /// What a run looks at in the state at a frame time: the closest approaches and the
    /// fastest particle folded into `watch`, and the measures (a row of `energy.csv`).
    pub fn look(&self, watch: &mut Watch) -> Measures {
        let (tank, obstacles) = self.clearance();
        let m = self.measures();
        watch.add(tank, obstacles, m.speed_max);
        m
    }

    /// The fluid's energies (potential from the tank's lowest corner along gravity), the mean
    /// density excess over ρ0 (the one-sided error the density solve removes), the densest
    /// particle, mean and largest speed, and the highest particle above the tank's lowest
    /// corner along −g (along +y without gravity): the surface of water at rest.
    pub fn measures(&self) -> Measures {
        let f = &self.fluid;
        let g = self.gravity.length();
        let up = if g > 0.0 {
            -self.gravity / g
        } else {
            glam::Vec3A::Y
        };
        let origin = self.lowest_corner;
        let rho0 = self.rho0;
        #[derive(Clone, Copy, Default)]
        struct Part {
            v2: f64,
            height: f64,
            speed: f64,
            excess: f64,
            rho_max: f32,
            speed_max: f32,
            top: f32,
        }
        let parts: Vec<Part> =
            f.x.par_chunks(CHUNK)
                .zip(f.v.par_chunks(CHUNK))
                .zip(f.density.par_chunks(CHUNK))
                .map(|((x, v), rho)| {
                    let mut s = Part {
                        top: f32::NEG_INFINITY,
                        ..Part::default()
                    };
                    for ((x, v), &rho) in x.iter().zip(v).zip(rho) {
                        let (sp, hgt) = (v.length(), (*x - origin).dot(up));
                        s.v2 += (sp as f64) * (sp as f64);
                        s.speed += sp as f64;
                        s.height += hgt as f64;
                        s.excess += ((rho / rho0 - 1.0).max(0.0)) as f64;
                        s.rho_max = s.rho_max.max(rho);
                        s.speed_max = s.speed_max.max(sp);
                        s.top = s.top.max(hgt);
                    }
                    s
                })
                .collect();
        let mut t = Part {
            top: f32::NEG_INFINITY,
            ..Part::default()
        };
        for p in &parts {
            t.v2 += p.v2;
            t.speed += p.speed;
            t.height += p.height;
            t.excess += p.excess;
            t.rho_max = t.rho_max.max(p.rho_max);
            t.speed_max = t.speed_max.max(p.speed_max);
            t.top = t.top.max(p.top);
        }
        let (n, m) = (f.len(), self.mass as f64);
        let per = |x: f64| if n > 0 { x / n as f64 } else { 0.0 };
        Measures {
            time: self.time,
            particles: n,
            kinetic: 0.5 * m * t.v2,
            potential: m * g as f64 * t.height,
            density_error_pct: 100.0 * per(t.excess),
            density_max: t.rho_max,
            speed_mean: per(t.speed),
            speed_max: t.speed_max,
            top: if n > 0 { t.top } else { 0.0 },
        }
    }
}
