//! The velocity field's neighbor sums at the corrected positions, taken in one walk over each
//! neighbor list together with the density: what the forces read after the density solve.
//!
//! Owns: [`kinematics`] (the pass) and [`Needs`] (which sums a force set reads). Does not touch:
//! what a force does with the sums, or the step's order.
//!
//! For each particle `i`, over its neighbors `j` (self included, its terms vanish), with
//! `r = p_i − p_j`:
//! - density `ρ_i = Σ_j m W(r) + ρ_wall(p_i)` (the density kernel, poly6 by default,
//!   [`super::kernels`]; the walls' and solids' part given);
//! - the volume `m / ρ_i`, stored with the velocity (`vv`: one load per neighbor for both);
//! - if asked, the curl `ω_i = (1/ρ_i) Σ_j m (v_j − v_i) × ∇_{p_j} W_ij` (the gradient kernel,
//!   spiky by default);
//! - if asked, the smoothed velocity difference `s_i = (1/ρ_i) Σ_j m (v_j − v_i) W_ij`:
//!   the pull toward the neighbors' average that XSPH scales by its coefficient;
//! - if asked, the gradient `η_i = Σ_j σ_j ∇_{p_i} W_ij` of a per-particle scalar σ given
//!   (the vorticity confinement's, with σ its swirl of the last step), read with the
//!   velocity in one load (`vs`: a scalar gathered on its own cost this pass a fifth of its
//!   time, `cargo bench --bench walks`);
//! - if asked, the surface normal `n_i = h Σ_j (m/ρ̃_j) ∇_{p_i} W_ij` (Akinci et al.
//!   2013's), with `m/ρ̃` the volumes given: from the density solve's last measurement, one
//!   correction before these positions (the same density when an error-controlled solve stops
//!   on a density pass), since this pass's own densities of the neighbors are not known yet.
//!
//! Both sums divide by the particle's own density (the SPH difference estimates of Monaghan
//! 1992, `∇×v_i ≈ (1/ρ_i) Σ_j m_j (v_j − v_i) × ∇_{p_j} W`) rather than weighting each neighbor by
//! `m/ρ_j`: so they need no neighbor's new density, and cost no pass of their own. Inside the
//! fluid the two forms agree to the density variation (a few per mille); at a free surface the
//! own-density form is normalised (a deficient neighborhood divides by a deficient density).

use super::Kernels;
use super::shapes::Shape;
use super::sums::{Point, chunks};
use crate::by_shape;
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
    /// The gradient η of the swirl given (in w of [`KinematicsIn::vs`]); implies the curl.
    pub swirl: bool,
    /// The surface normals, weighted by the volumes given ([`KinematicsIn::pv`]).
    pub normals: bool,
}

impl Needs {
    pub const NONE: Needs = Needs {
        curl: false,
        smoothing: false,
        swirl: false,
        normals: false,
    };

    /// What either reads.
    pub fn or(self, other: Needs) -> Needs {
        Needs {
            curl: self.curl || other.curl,
            smoothing: self.smoothing || other.smoothing,
            swirl: self.swirl || other.swirl,
            normals: self.normals || other.normals,
        }
    }
}

/// Where the pass writes, one slot per particle: `curl`, `smoothing`, `eta` and `normals` are
/// written only when [`Needs`] asks for them (and may then be empty otherwise).
pub struct KinematicsOut<'a> {
    pub density: &'a mut [f32],
    /// `v_i` in x, y, z and `m / ρ_i` in w.
    pub vv: &'a mut [Vec4],
    pub curl: &'a mut [Vec3A],
    pub smoothing: &'a mut [Vec3A],
    /// `η_i` (written when [`Needs::swirl`] asks for it).
    pub eta: &'a mut [Vec3A],
    /// `n_i` in x, y, z and `m / ρ_i` in w (written when [`Needs::normals`] asks for them).
    pub normals: &'a mut [Vec4],
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
    /// The velocities with the scalar σ whose gradient η is in w (read in place of `v` when
    /// [`Needs::swirl`] asks for η: a neighbor's velocity and σ come in one load).
    pub vs: &'a [Vec4],
    /// When [`Needs::normals`] asks for them: `p` with each particle's volume `m / ρ̃_i` in w,
    /// the weight the normals give it (walked in place of `p`, so a neighbor's position and
    /// volume come in one load).
    pub pv: &'a [Vec4],
}

/// Every particle's density, volume and the sums `needs` asks for (see the module docs). A
/// gather: each particle writes only its own slots.
pub fn kinematics(input: &KinematicsIn, needs: Needs, out: KinematicsOut) {
    // η is a sum over the curl's gradients, so it implies the curl.
    let bit = |on: bool, flag: u8| if on { flag } else { 0 };
    let flags = bit(needs.curl || needs.swirl, CURL)
        | bit(needs.smoothing, SMOOTH)
        | bit(needs.swirl, ETA)
        | bit(needs.normals, NORMALS);
    // With the normals the walk reads `pv`: each neighbor's position and volume in one load.
    macro_rules! dispatch {
        ($($f:literal)*; $($g:literal)*) => {
            by_shape!(input.kernels.kind, S => match flags {
                $($f => pass::<S, $f, _>(input, input.p, out),)*
                $($g => pass::<S, $g, _>(input, input.pv, out),)*
                _ => unreachable!("kinematics flags {flags}"),
            })
        };
    }
    dispatch!(0 1 2 3 5 7; 8 9 10 11 13 15);
}

/// The sums a [`pass`] takes, as bits of its `FLAGS`.
const CURL: u8 = 1;
const SMOOTH: u8 = 2;
const ETA: u8 = 4;
const NORMALS: u8 = 8;

/// The `CHUNK`-slot pieces of an optional output of `n` slots: its chunks when it is written,
/// as many empty slices otherwise (so every pass zips the same number of items).
fn optional_chunks<T>(written: bool, out: &mut [T], n: usize) -> Vec<&mut [T]> {
    if written {
        out.chunks_mut(CHUNK).collect()
    } else {
        let mut none = Vec::new();
        none.resize_with(n.div_ceil(CHUNK), || &mut [][..]);
        none
    }
}

/// [`kinematics`] compiled for one pair of kernel shapes `S` and one choice of sums (`FLAGS`:
/// [`CURL`], [`SMOOTH`], [`ETA`], [`NORMALS`]), walking the positions `pts` (`p`, or `pv` with
/// the normals' volumes in w).
fn pass<S: Shape, const FLAGS: u8, P: Point + Sync>(
    input: &KinematicsIn,
    pts: &[P],
    out: KinematicsOut,
) {
    let curl_on = FLAGS & CURL != 0;
    let smooth_on = FLAGS & SMOOTH != 0;
    let eta_on = FLAGS & ETA != 0;
    let normals_on = FLAGS & NORMALS != 0;
    let KinematicsIn {
        lists,
        v,
        kernels: k,
        mass,
        wall,
        vs,
        ..
    } = *input;
    let n = pts.len();
    let (cw, cg) = (k.w_coef(), k.grad_coef());
    assert!(out.density.len() == n && out.vv.len() == n);
    assert!(!curl_on || out.curl.len() == n);
    assert!(!smooth_on || out.smoothing.len() == n);
    assert!(!eta_on || (out.eta.len() == n && vs.len() == n));
    assert!(!normals_on || out.normals.len() == n);
    let curl_chunks = optional_chunks(curl_on, out.curl, n);
    let smooth_chunks = optional_chunks(smooth_on, out.smoothing, n);
    let eta_chunks = optional_chunks(eta_on, out.eta, n);
    let normal_chunks = optional_chunks(normals_on, out.normals, n);
    // The normals' constant: h times the gradient's.
    let cn = k.h * cg;
    out.density
        .par_chunks_mut(CHUNK)
        .zip(out.vv.par_chunks_mut(CHUNK))
        .zip(curl_chunks.into_par_iter())
        .zip(smooth_chunks.into_par_iter())
        .zip(eta_chunks.into_par_iter())
        .zip(normal_chunks.into_par_iter())
        .enumerate()
        .for_each(|(b, (((((rho, vv), curl), smooth), eta), normal))| {
            for o in 0..rho.len() {
                let i = b * CHUNK + o;
                let vi = v[i];
                let z = f32x8::ZERO;
                let (mut w, mut cx, mut cy, mut cz, mut sx, mut sy, mut sz) = (z, z, z, z, z, z, z);
                let (mut ex, mut ey, mut ez) = (z, z, z);
                let (mut nx, mut ny, mut nz) = (z, z, z);
                for c in chunks(lists.neighbors(i), i, pts) {
                    let ws = S::w(&c, k);
                    w += ws;
                    let g = if curl_on || normals_on {
                        S::g(&c, k, 0.0)
                    } else {
                        z
                    };
                    if normals_on {
                        // c.w: the neighbors' m / ρ̃ (padding lanes: g is 0 there).
                        let e = g * c.w;
                        nx += e * c.x;
                        ny += e * c.y;
                        nz += e * c.z;
                    }
                    if curl_on || smooth_on {
                        // With η: the neighbors' σ in w (else unread).
                        let (dx, dy, dz, sigma) = if eta_on {
                            c.gather_diff_w(vs, vi)
                        } else {
                            let (dx, dy, dz) = c.gather_diff(v, vi);
                            (dx, dy, dz, z)
                        };
                        if curl_on {
                            // (v_j − v_i) × ∇_{p_j} W_ij = cg g (r × (v_j − v_i)).
                            cx += g * (c.y * dz - c.z * dy);
                            cy += g * (c.z * dx - c.x * dz);
                            cz += g * (c.x * dy - c.y * dx);
                            if eta_on {
                                let e = g * sigma;
                                ex += e * c.x;
                                ey += e * c.y;
                                ez += e * c.z;
                            }
                        }
                        if smooth_on {
                            sx += ws * dx;
                            sy += ws * dy;
                            sz += ws * dz;
                        }
                    }
                }
                let d = mass * cw * w.reduce_add() + wall(i);
                rho[o] = d;
                let vol = mass / d;
                vv[o] = vi.extend(vol);
                if curl_on {
                    curl[o] = (vol * cg) * super::sums::vec3(cx, cy, cz);
                }
                if smooth_on {
                    smooth[o] = (vol * cw) * super::sums::vec3(sx, sy, sz);
                }
                if eta_on {
                    eta[o] = cg * super::sums::vec3(ex, ey, ez);
                }
                if normals_on {
                    normal[o] = (cn * super::sums::vec3(nx, ny, nz)).extend(vol);
                }
            }
        });
}
