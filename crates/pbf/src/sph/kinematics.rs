//! The velocity field's neighbor sums at the corrected positions, taken in one walk over each
//! neighbor list together with the density: what the forces read after the density solve.
//!
//! Owns: [`kinematics`] (the pass) and [`Needs`] (which sums a force set reads). Does not touch:
//! what a force does with the sums, or the step's order.
//!
//! For each particle `i`, over its neighbors `j` (self included, its terms vanish), with
//! `r = p_i − p_j`:
//! - density `ρ_i = Σ_j m W(r) + ρ_wall(p_i)` (poly6; the walls' and solids' part given);
//! - the volume `m / ρ_i`, stored with the velocity (`vv`: one load per neighbor for both);
//! - if asked, the curl `ω_i = (1/ρ_i) Σ_j m (v_j − v_i) × ∇_{p_j} W_ij` (spiky gradient);
//! - if asked, the smoothed velocity difference `s_i = (1/ρ_i) Σ_j m (v_j − v_i) W_ij` (poly6):
//!   the pull toward the neighbors' average that XSPH scales by its coefficient;
//! - if asked, the gradient `η_i = Σ_j σ_j ∇_{p_i} W_ij` of a per-particle scalar σ given
//!   (spiky gradient; the vorticity confinement's, with σ its swirl of the last step).
//!
//! Both sums divide by the particle's own density (the SPH difference estimates of Monaghan
//! 1992, `∇×v_i ≈ (1/ρ_i) Σ_j m_j (v_j − v_i) × ∇_{p_j} W`) rather than weighting each neighbor by
//! `m/ρ_j`: so they need no neighbor's new density, and cost no pass of their own. Inside the
//! fluid the two forms agree to the density variation (a few per mille); at a free surface the
//! own-density form is normalised (a deficient neighborhood divides by a deficient density).

use super::Kernels;
use super::sums::chunks;
use crate::par::CHUNK;
use glam::{Vec3A, Vec4};
use nsearch::NeighborLists;
use rayon::prelude::*;
use wide::f32x8;

/// Which of the optional sums a set of forces reads.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Needs {
    /// The curl ω (written to the fluid's `vorticity`).
    pub curl: bool,
    /// The smoothed velocity difference s.
    pub smoothing: bool,
    /// The gradient η of the swirl given ([`KinematicsIn::swirl`]); implies the curl.
    pub swirl: bool,
}

impl Needs {
    pub const NONE: Needs = Needs {
        curl: false,
        smoothing: false,
        swirl: false,
    };

    /// What either reads.
    pub fn or(self, other: Needs) -> Needs {
        Needs {
            curl: self.curl || other.curl,
            smoothing: self.smoothing || other.smoothing,
            swirl: self.swirl || other.swirl,
        }
    }
}

/// Where the pass writes, one slot per particle: `curl`, `smoothing` and `eta` are written only when
/// [`Needs`] asks for them (and may then be empty otherwise).
pub struct KinematicsOut<'a> {
    pub density: &'a mut [f32],
    /// `v_i` in x, y, z and `m / ρ_i` in w.
    pub vv: &'a mut [Vec4],
    pub curl: &'a mut [Vec3A],
    pub smoothing: &'a mut [Vec3A],
    /// `η_i` (written when [`Needs::swirl`] asks for it).
    pub eta: &'a mut [Vec3A],
}

/// What the pass reads: the step's neighbor lists, the corrected positions `p`, the velocities
/// `v`, the kernels, the particle mass, and `wall(i)`, the density the colliders add at `p[i]`.
pub struct KinematicsIn<'a> {
    pub lists: &'a NeighborLists,
    pub p: &'a [Vec3A],
    pub v: &'a [Vec3A],
    pub kernels: &'a Kernels,
    pub mass: f32,
    pub wall: &'a (dyn Fn(usize) -> f32 + Sync),
    /// The scalar σ whose gradient η is (read when [`Needs::swirl`] asks for η).
    pub swirl: &'a [f32],
}

/// Every particle's density, volume and the sums `needs` asks for (see the module docs). A
/// gather: each particle writes only its own slots.
pub fn kinematics(input: &KinematicsIn, needs: Needs, out: KinematicsOut) {
    match (needs.curl, needs.smoothing, needs.swirl) {
        (false, false, false) => pass::<false, false, false>(input, out),
        (true, false, false) => pass::<true, false, false>(input, out),
        (false, true, false) => pass::<false, true, false>(input, out),
        (true, true, false) => pass::<true, true, false>(input, out),
        (_, false, true) => pass::<true, false, true>(input, out),
        (_, true, true) => pass::<true, true, true>(input, out),
    }
}

/// The `CHUNK`-slot pieces of an optional output of `n` slots: its chunks when it is written,
/// as many empty slices otherwise (so every pass zips the same number of items).
fn optional_chunks(written: bool, out: &mut [Vec3A], n: usize) -> Vec<&mut [Vec3A]> {
    if written {
        out.chunks_mut(CHUNK).collect()
    } else {
        let mut none = Vec::new();
        none.resize_with(n.div_ceil(CHUNK), || &mut [][..]);
        none
    }
}

/// [`kinematics`] compiled for one choice of sums.
fn pass<const CURL: bool, const SMOOTH: bool, const ETA: bool>(
    input: &KinematicsIn,
    out: KinematicsOut,
) {
    let KinematicsIn {
        lists,
        p,
        v,
        kernels: k,
        mass,
        wall,
        swirl,
    } = *input;
    let n = p.len();
    let (c6, cg) = (k.poly6_coef(), k.spiky_grad_coef());
    assert!(out.density.len() == n && out.vv.len() == n);
    assert!(!CURL || out.curl.len() == n);
    assert!(!SMOOTH || out.smoothing.len() == n);
    assert!(!ETA || (out.eta.len() == n && swirl.len() == n));
    let curl_chunks = optional_chunks(CURL, out.curl, n);
    let smooth_chunks = optional_chunks(SMOOTH, out.smoothing, n);
    let eta_chunks = optional_chunks(ETA, out.eta, n);
    out.density
        .par_chunks_mut(CHUNK)
        .zip(out.vv.par_chunks_mut(CHUNK))
        .zip(curl_chunks.into_par_iter())
        .zip(smooth_chunks.into_par_iter())
        .zip(eta_chunks.into_par_iter())
        .enumerate()
        .for_each(|(b, ((((rho, vv), curl), smooth), eta))| {
            for o in 0..rho.len() {
                let i = b * CHUNK + o;
                let vi = v[i];
                let z = f32x8::ZERO;
                let (mut w, mut cx, mut cy, mut cz, mut sx, mut sy, mut sz) = (z, z, z, z, z, z, z);
                let (mut ex, mut ey, mut ez) = (z, z, z);
                for c in chunks(lists.neighbors(i), i, p) {
                    let d3 = c.poly6(k.h2);
                    w += d3;
                    if CURL || SMOOTH {
                        let (dx, dy, dz) = c.gather_diff(v, vi);
                        if CURL {
                            // (v_j − v_i) × ∇_{p_j} W_ij = cg g (r × (v_j − v_i)).
                            let g = c.spiky(k.h, 0.0);
                            cx += g * (c.y * dz - c.z * dy);
                            cy += g * (c.z * dx - c.x * dz);
                            cz += g * (c.x * dy - c.y * dx);
                            if ETA {
                                let e = g * c.gather_scalar(swirl);
                                ex += e * c.x;
                                ey += e * c.y;
                                ez += e * c.z;
                            }
                        }
                        if SMOOTH {
                            sx += d3 * dx;
                            sy += d3 * dy;
                            sz += d3 * dz;
                        }
                    }
                }
                let d = mass * c6 * w.reduce_add() + wall(i);
                rho[o] = d;
                let vol = mass / d;
                vv[o] = vi.extend(vol);
                if CURL {
                    curl[o] = (vol * cg) * super::sums::vec3(cx, cy, cz);
                }
                if SMOOTH {
                    smooth[o] = (vol * c6) * super::sums::vec3(sx, sy, sz);
                }
                if ETA {
                    eta[o] = cg * super::sums::vec3(ex, ey, ez);
                }
            }
        });
}
