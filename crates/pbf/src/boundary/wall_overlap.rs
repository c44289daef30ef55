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
//! Owns: [`WallOverlap`] (the edge and corner tables and their derivatives). Does not touch:
//! the single walls' table or any collider's geometry.

use super::wall_table::WallTable;

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
        // axes without a wall averaged over `lateral` offsets.
        let sum = |ds: &[f64]| -> f64 {
            let walled = ds.len();
            let free = 3 - walled;
            let offsets = lateral.pow(free as u32);
            let mut total = 0.0;
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
                            total += k.poly6((x * x + y * y + z * z) as f32) as f64;
                        }
                    }
                }
            }
            mass * total / offsets as f64
        };
        let at = |n: usize, i: usize| i as f64 * h / (n - 1) as f64;
        let (ne, nc) = (EDGE_SAMPLES, CORNER_SAMPLES);
        let mut edge = vec![0.0f64; ne * ne];
        for a in 0..ne {
            for b in a..ne {
                let v = sum(&[at(ne, a), at(ne, b)]);
                edge[a * ne + b] = v;
                edge[b * ne + a] = v;
            }
        }
        let mut corner = vec![0.0f64; nc * nc * nc];
        for a in 0..nc {
            for b in a..nc {
                for c in b..nc {
                    let v = sum(&[at(nc, a), at(nc, b), at(nc, c)]);
                    for [x, y, z] in [
                        [a, b, c],
                        [a, c, b],
                        [b, a, c],
                        [b, c, a],
                        [c, a, b],
                        [c, b, a],
                    ] {
                        corner[(x * nc + y) * nc + z] = v;
                    }
                }
            }
        }
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

    /// `(ρ_ab, ∂ρ_ab/∂d_a, ∂ρ_ab/∂d_b)` at distances `da`, `db` from two walls at right angles
    /// (0 when either is at least h).
    #[inline]
    pub fn edge(&self, da: f32, db: f32) -> (f32, f32, f32) {
        if da >= self.h || db >= self.h {
            return (0.0, 0.0, 0.0);
        }
        let n = EDGE_SAMPLES;
        let ((a, fa), (b, fb)) = (self.sample(da, n), self.sample(db, n));
        let bilinear = |t: &[f32], a: usize, b: usize, fa: f32, fb: f32| {
            let v = |x: usize, y: usize| t[x * n + y];
            let lo = v(a, b) + fb * (v(a, b + 1) - v(a, b));
            let hi = v(a + 1, b) + fb * (v(a + 1, b + 1) - v(a + 1, b));
            lo + fa * (hi - lo)
        };
        (
            bilinear(&self.edge, a, b, fa, fb),
            bilinear(&self.edge_da, a, b, fa, fb),
            // ∂/∂d_b at (a, b) is ∂/∂d_a at (b, a).
            bilinear(&self.edge_da, b, a, fb, fa),
        )
    }

    /// `(ρ_abc, [∂/∂d_a, ∂/∂d_b, ∂/∂d_c])` at distances `d` from three walls at right angles
    /// (0 when any is at least h).
    #[inline]
    pub fn corner(&self, d: [f32; 3]) -> (f32, [f32; 3]) {
        if d.iter().any(|&x| x >= self.h) {
            return (0.0, [0.0; 3]);
        }
        let n = CORNER_SAMPLES;
        let s = d.map(|x| self.sample(x, n));
        let trilinear = |t: &[f32], [(a, fa), (b, fb), (c, fc)]: [(usize, f32); 3]| {
            let v = |x: usize, y: usize, z: usize| t[(x * n + y) * n + z];
            let line = |x: usize, y: usize| v(x, y, c) + fc * (v(x, y, c + 1) - v(x, y, c));
            let plane = |x: usize| line(x, b) + fb * (line(x, b + 1) - line(x, b));
            plane(a) + fa * (plane(a + 1) - plane(a))
        };
        (
            trilinear(&self.corner, s),
            [
                trilinear(&self.corner_da, [s[0], s[1], s[2]]),
                trilinear(&self.corner_da, [s[1], s[0], s[2]]),
                trilinear(&self.corner_da, [s[2], s[0], s[1]]),
            ],
        )
    }
}
