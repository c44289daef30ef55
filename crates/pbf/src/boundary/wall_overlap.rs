//! Where two or three of the tank's walls meet: the wall density of the region behind more than
//! one wall, tabulated, so that an edge or a corner adds the density of the fluid lattice
//! continued beyond it once, not twice or three times.
//!
//! Each wall's [`WallTable`] counts the lattice beyond its own plane. Near an edge of the tank
//! the quarter-space behind both walls lies beyond both planes, and near a corner the octant
//! behind all three lies beyond all of them, so plain sums count them twice (three times). By
//! inclusion and exclusion the density of the lattice beyond the union of the walls is
//! `Σ_a ρ_a − Σ_{a<b} ρ_ab + ρ_abc`, with `ρ_ab` the lattice beyond walls a and b (sites at
//! `d_a + r + i s` and `d_b + r + j s` from the particle across the two walls, `i, j ≥ 0`,
//! averaged over the offset along the edge as the single wall averages over its two lateral
//! offsets) and `ρ_abc` the lattice beyond all three (no offset left to average). Uncorrected,
//! a particle resting in a bottom edge of the tank at h = 4r sees about 3% more than ρ0: a
//! compression no iteration can remove, so PBF pushes such particles out of every edge, step
//! after step, and water at rest never settles (docs/results.md, "Still water and the tank's
//! edges").
//!
//! The adhesion of Akinci et al. 2013 is counted the same way: the lattice behind an edge pulls
//! toward both walls once (`edge_adhesion`, `corner_adhesion`).
//!
//! Owns: [`WallOverlap`] (the edge and corner tables of density, its derivatives and the
//! adhesion pull). Does not touch: the single walls' table or any collider's geometry.

use super::wall_table::{WallTable, adhesion_spline};
use rayon::prelude::*;

/// Samples per axis of the edge table (over `[0, h]²`) and of the corner table (`[0, h]³`).
const EDGE_SAMPLES: usize = 97;
const CORNER_SAMPLES: usize = 41;

/// The lattice density beyond two and beyond three walls at right angles, against the
/// distances to them, with derivatives (see the module docs).
#[derive(Clone, Debug)]
pub struct WallOverlap {
    h: f32,
    /// `ρ_ab(d_a, d_b)` at `[a][b]`, row-major; symmetric.
    edge: Vec<f32>,
    /// `∂ρ_ab/∂d_a` at the same points (`∂/∂d_b` is the transpose).
    edge_da: Vec<f32>,
    /// `ρ_abc(d_a, d_b, d_c)` at `[a][b][c]`; symmetric in its three arguments.
    corner: Vec<f32>,
    /// `∂ρ_abc/∂d_a` at the same points (the other two by permuting the arguments).
    corner_da: Vec<f32>,
    /// The adhesion pull of the lattice beyond two walls toward the first of them, per unit β
    /// (as [`WallTable::adhesion`]), at the edge table's points.
    edge_adh: Vec<f32>,
    /// The same for three walls, toward the first, at the corner table's points.
    corner_adh: Vec<f32>,
}

impl WallOverlap {
    /// The tables for the lattice `table` was built for (its kernel, particle radius and mass).
    pub fn new(table: &WallTable) -> Self {
        let (k, r, mass) = (table.kernels, table.r as f64, table.mass as f64);
        let h = k.h as f64;
        let s = 2.0 * r;
        let reach = (h / s).ceil() as i64 + 1;
        let lateral = 8usize;
        // Σ m W over the sites beyond the walls at distances `ds` (along x, y, z in turn), the
        // axes without a wall averaged over `lateral` offsets; and Σ m C_adh(|q|) q_x / |q|,
        // their adhesion pull toward the first wall.
        let sum = |ds: &[f64]| -> (f64, f64) {
            let walled = ds.len();
            let free = 3 - walled;
            let offsets = lateral.pow(free as u32);
            let (mut total, mut pull) = (0.0, 0.0);
            for o in 0..offsets {
                let mut off = [0.0f64; 3];
                let mut rest = o;
                for o in off.iter_mut().take(free) {
                    *o = (rest % lateral) as f64 * s / lateral as f64;
                    rest /= lateral;
                }
                let axis = |a: usize, n: i64| -> Option<f64> {
                    if a < walled {
                        (n >= 0).then(|| ds[a] + r + n as f64 * s)
                    } else {
                        Some(off[a - walled] + n as f64 * s)
                    }
                };
                for i in -reach..=reach {
                    let Some(x) = axis(0, i) else { continue };
                    for j in -reach..=reach {
                        let Some(y) = axis(1, j) else { continue };
                        for l in -reach..=reach {
                            let Some(z) = axis(2, l) else { continue };
                            let q2 = x * x + y * y + z * z;
                            total += k.w(q2 as f32) as f64;
                            pull += adhesion_spline(h, q2.sqrt()) * x / q2.sqrt();
                        }
                    }
                }
            }
            (mass * total / offsets as f64, mass * pull / offsets as f64)
        };
        let at = |n: usize, i: usize| i as f64 * h / (n - 1) as f64;
        let (ne, nc) = (EDGE_SAMPLES, CORNER_SAMPLES);
        // Rows in parallel (each sample is independent: the tables are the same on any thread
        // count).
        let edge_rows: Vec<Vec<(f64, f64)>> = (0..ne)
            .into_par_iter()
            .map(|a| (0..ne).map(|b| sum(&[at(ne, a), at(ne, b)])).collect())
            .collect();
        let edge: Vec<f64> = edge_rows.iter().flatten().map(|e| e.0).collect();
        let edge_adh: Vec<f32> = edge_rows.iter().flatten().map(|e| e.1 as f32).collect();
        // Symmetric in the last two distances (the pull is toward the first wall).
        let corner_planes: Vec<Vec<(f64, f64)>> = (0..nc)
            .into_par_iter()
            .map(|a| {
                let mut plane = vec![(0.0, 0.0); nc * nc];
                for b in 0..nc {
                    for c in b..nc {
                        let v = sum(&[at(nc, a), at(nc, b), at(nc, c)]);
                        plane[b * nc + c] = v;
                        plane[c * nc + b] = v;
                    }
                }
                plane
            })
            .collect();
        let corner: Vec<f64> = corner_planes.iter().flatten().map(|e| e.0).collect();
        let corner_adh: Vec<f32> = corner_planes.iter().flatten().map(|e| e.1 as f32).collect();
        // Central differences along the first argument (one-sided at the ends), as the single
        // wall's table takes its derivative.
        let diff = |f: &dyn Fn(usize) -> f64, i: usize, n: usize| {
            let (lo, hi) = (i.saturating_sub(1), (i + 1).min(n - 1));
            ((f(hi) - f(lo)) / ((hi - lo) as f64 * h / (n - 1) as f64)) as f32
        };
        let edge_da = (0..ne * ne)
            .map(|q| {
                let (a, b) = (q / ne, q % ne);
                diff(&|x| edge[x * ne + b], a, ne)
            })
            .collect();
        let corner_da = (0..nc * nc * nc)
            .map(|q| {
                let (a, bc) = (q / (nc * nc), q % (nc * nc));
                diff(&|x| corner[x * nc * nc + bc], a, nc)
            })
            .collect();
        WallOverlap {
            h: k.h,
            edge: edge.into_iter().map(|x| x as f32).collect(),
            edge_da,
            corner: corner.into_iter().map(|x| x as f32).collect(),
            corner_da,
            edge_adh,
            corner_adh,
        }
    }

    /// The sample index below `d` (clamped to 0) on an axis of `n` samples over `[0, h]`, and
    /// the fraction of the way to the next.
    #[inline]
    fn sample(&self, d: f32, n: usize) -> (usize, f32) {
        let t = (d.max(0.0) / self.h).min(1.0) * (n - 1) as f32;
        let k = (t as usize).min(n - 2);
        (k, t - k as f32)
    }

    /// Bilinear interpolation of an edge table at `(da, db)`, both below h.
    #[inline]
    fn bilinear(&self, t: &[f32], da: f32, db: f32) -> f32 {
        let n = EDGE_SAMPLES;
        let ((a, fa), (b, fb)) = (self.sample(da, n), self.sample(db, n));
        let v = |x: usize, y: usize| t[x * n + y];
        let lo = v(a, b) + fb * (v(a, b + 1) - v(a, b));
        let hi = v(a + 1, b) + fb * (v(a + 1, b + 1) - v(a + 1, b));
        lo + fa * (hi - lo)
    }

    /// `(ρ_ab, ∂ρ_ab/∂d_a, ∂ρ_ab/∂d_b)` at distances `da`, `db` from two walls at right angles
    /// (0 when either is at least h).
    #[inline]
    pub fn edge(&self, da: f32, db: f32) -> (f32, f32, f32) {
        if da >= self.h || db >= self.h {
            return (0.0, 0.0, 0.0);
        }
        (
            self.bilinear(&self.edge, da, db),
            self.bilinear(&self.edge_da, da, db),
            // ∂/∂d_b at (a, b) is ∂/∂d_a at (b, a).
            self.bilinear(&self.edge_da, db, da),
        )
    }

    /// The adhesion pull per unit β of the lattice beyond two walls at right angles, toward
    /// each: `[toward a, toward b]` (0 when either distance is at least h).
    #[inline]
    pub fn edge_adhesion(&self, da: f32, db: f32) -> [f32; 2] {
        if da >= self.h || db >= self.h {
            return [0.0; 2];
        }
        [
            self.bilinear(&self.edge_adh, da, db),
            self.bilinear(&self.edge_adh, db, da),
        ]
    }

    /// Trilinear interpolation of a corner table at `d`, each below h.
    #[inline]
    fn trilinear(&self, t: &[f32], d: [f32; 3]) -> f32 {
        let n = CORNER_SAMPLES;
        let [(a, fa), (b, fb), (c, fc)] = d.map(|x| self.sample(x, n));
        let v = |x: usize, y: usize, z: usize| t[(x * n + y) * n + z];
        let line = |x: usize, y: usize| v(x, y, c) + fc * (v(x, y, c + 1) - v(x, y, c));
        let plane = |x: usize| line(x, b) + fb * (line(x, b + 1) - line(x, b));
        plane(a) + fa * (plane(a + 1) - plane(a))
    }

    /// `(ρ_abc, [∂/∂d_a, ∂/∂d_b, ∂/∂d_c])` at distances `d` from three walls at right angles
    /// (0 when any is at least h).
    #[inline]
    pub fn corner(&self, d: [f32; 3]) -> (f32, [f32; 3]) {
        if d.iter().any(|&x| x >= self.h) {
            return (0.0, [0.0; 3]);
        }
        let [a, b, c] = d;
        (
            self.trilinear(&self.corner, d),
            [
                self.trilinear(&self.corner_da, [a, b, c]),
                self.trilinear(&self.corner_da, [b, a, c]),
                self.trilinear(&self.corner_da, [c, a, b]),
            ],
        )
    }

    /// The adhesion pull per unit β of the lattice beyond three walls at right angles, toward
    /// each (0 when any distance is at least h).
    #[inline]
    pub fn corner_adhesion(&self, d: [f32; 3]) -> [f32; 3] {
        if d.iter().any(|&x| x >= self.h) {
            return [0.0; 3];
        }
        let [a, b, c] = d;
        [
            self.trilinear(&self.corner_adh, [a, b, c]),
            self.trilinear(&self.corner_adh, [b, a, c]),
            self.trilinear(&self.corner_adh, [c, a, b]),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::Kernels;
    use crate::sph::lattice::rest_lattice;

    /// The lattice beyond two or three walls summed site by site (density and the adhesion
    /// pull toward the first wall; the free axis averaged over 16 offsets), against the tables.
    #[test]
    fn tables_are_the_lattice_behind_the_walls() {
        let r = 0.01f32;
        let (s, rd) = (2.0 * r as f64, r as f64);
        for hr in [4.0f32, 5.4] {
            let k = Kernels::new(hr * r);
            let h = k.h as f64;
            let (mass, _) = rest_lattice(&k, 2.0 * r, 1000.0);
            let o = WallOverlap::new(&WallTable::new(&k, r, mass));
            let brute = |d: &[f64]| -> (f64, f64) {
                let n = if d.len() == 2 { 16 } else { 1 };
                let (mut rho, mut pull) = (0.0, 0.0);
                for off in 0..n {
                    let z0 = off as f64 * s / n as f64;
                    for i in 0..6 {
                        for j in 0..6 {
                            for l in -6i64..=6 {
                                let (x, y) = (d[0] + rd + i as f64 * s, d[1] + rd + j as f64 * s);
                                let z = if d.len() == 2 {
                                    z0 + l as f64 * s
                                } else if l < 0 {
                                    continue;
                                } else {
                                    d[2] + rd + l as f64 * s
                                };
                                let q = (x * x + y * y + z * z).sqrt();
                                rho += mass as f64 * k.w((q * q) as f32) as f64;
                                pull += mass as f64 * adhesion_spline(h, q) * x / q;
                            }
                        }
                    }
                }
                (rho / n as f64, pull / n as f64)
            };
            for d in [
                [0.0, 0.0],
                [rd, rd],
                [0.3 * h, 0.1 * h],
                [0.05 * h, 0.62 * h],
            ] {
                let (rho, pull) = brute(&d);
                let (t_rho, _, _) = o.edge(d[0] as f32, d[1] as f32);
                let t_pull = o.edge_adhesion(d[0] as f32, d[1] as f32)[0];
                eprintln!("h = {hr}r, edge {d:?}: {t_rho} / {rho}, pull {t_pull} / {pull}");
                assert!((t_rho as f64 - rho).abs() <= 0.01 * rho + 0.05, "{d:?}");
                assert!((t_pull as f64 - pull).abs() <= 0.02 * pull + 0.01, "{d:?}");
            }
            for d in [[0.0, 0.0, 0.0], [rd, rd, rd], [0.2 * h, 0.05 * h, 0.1 * h]] {
                let (rho, pull) = brute(&d);
                let (t_rho, _) = o.corner(d.map(|x| x as f32));
                let t_pull = o.corner_adhesion(d.map(|x| x as f32))[0];
                eprintln!("h = {hr}r, corner {d:?}: {t_rho} / {rho}, pull {t_pull} / {pull}");
                assert!((t_rho as f64 - rho).abs() <= 0.01 * rho + 0.05, "{d:?}");
                assert!((t_pull as f64 - pull).abs() <= 0.02 * pull + 0.01, "{d:?}");
            }
            assert_eq!(o.edge(k.h, 0.0).0, 0.0);
            assert_eq!(o.corner([0.0, k.h, 0.0]).0, 0.0);
        }
    }
}
