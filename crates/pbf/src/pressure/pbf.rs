//! Position Based Fluids' density constraints (Macklin & Müller 2013), solved by Jacobi
//! iterations.
//!
//! Owns: [`PbfConstraints`]: the iteration count, the relaxation, the artificial pressure
//! `s_corr`, and the scratch of λ and the wall gradients. Does not touch: velocities, forces,
//! or the step's order.
//!
//! Each iteration (a fixed count, or from min to max until the mean density excess
//! `mean_i max(ρ_i/ρ0 − 1, 0)` is at most the error asked for, measured in the density pass):
//! - density `ρ_i = Σ_j m W(p_i − p_j) + ρ_wall(p_i)` (self included; `W` and `∇W` are the
//!   pair `pbf.kernel` names, poly6 and spiky by default: [`crate::sph::kernels`]);
//! - `C_i = max(ρ_i / ρ0 − 1, 0)` (one-sided, so the free surface is not pulled together);
//! - `λ_i = −C_i / (Σ_k |∇_k C_i|² + ε)` with `∇_j C_i = −(m/ρ0) ∇W_ij` for `j ≠ i`
//!   (`ε = relaxation · S0`, S0 below: the relaxation is a fraction of the rest denominator),
//!   `∇_i C_i = (m/ρ0) Σ_j ∇W_ij + ∇ρ_wall/ρ0`;
//! - `Δp_i = (m/ρ0) Σ_{j≠i} (λ_i + λ_j + s_corr) ∇W_ij + (λ_i/ρ0) ∇ρ_wall`, with the artificial
//!   pressure `s_corr = −(k / S0) t'`, `t = (W(p_ij) / W(Δq))^n` bounded by the pair's own
//!   pressure beyond the rest spacing `s`: `t' = max(t − t(s), min(t, −(λ_i + λ_j) S0 / k))`
//!   (`Correction::bounded`: at rest nothing pushes a free surface). `S0 = Σ_j |∇_j C_i|²` of
//!   a particle inside the rest lattice is the scale of λ's denominator: dividing by it makes
//!   k a fraction of the λ a unit compression gives, the same for any particle size and h / r.
//!   (Macklin & Müller's k = 0.1 assumes their units; taken literally with physical masses it
//!   is about 50 times the pressure term here and blows the free surface apart.);
//! - `p = project(p + ω Δp)` (the walls in the same pass, the solids in one of their own);
//! - with `pbf.wall_gradient` (the default), a particle within h of a lattice wall of the tank
//!   has the λ-difference part of `Δp`, `Σ_j (λ_j − λ_i) ∇W_ij`, scaled by `(1 − Φ)⁻¹`, `Φ`
//!   the walls' share of its kernel moment: the wall carries the fluid's pressure gradient
//!   (`boundary::support`; solids do not);
//! - with `pbf.walls = "mirror"`, the tank's walls add no density of their own: the sums above
//!   run over the mirror images of the neighbors too (`boundary::mirror`), and so does `Δp`
//!   (`(λ_i + λ_j) ∇W(p_i − R p_j)`, no artificial pressure), and nothing carries the support.
//!
//! ω under-relaxes the Jacobi iteration. Each particle sums the corrections of all its
//! neighbors' constraints, each computed as if it were alone, so some patterns of λ are
//! corrected several times over: inside the rest lattice, one iteration multiplies the error
//! of the pattern `e^{ik·x}` by `1 − ω |S(k)|² / D` (`sph::lattice::jacobi_gain`), whose
//! largest gain is 2.8 at h = 4r and 5.1 at 5.4r. With ω = 1 such patterns grow (factor −1.8,
//! −4.1; the one-sided clamp halves the overshoot, which is why 4r only rings while 5.4r blows
//! up). `pbf.omega = "auto"` sets `ω a_max = 1.5`.

use super::correction::{Correction, correction, correction_and_difference, density_and_gradients};
use super::{DensityInput, DensitySolver, SolveStats};
use crate::boundary::Support;
use crate::by_shape;
use crate::distributed::{ERROR_ONE, refresh};
use crate::par::{CHUNK, Scratch};
use crate::sph::Kernels;
use crate::sph::shapes::Shape;
use glam::{Vec3A, Vec4};
use rayon::prelude::*;

/// How many constraint iterations a solve does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IterationCount {
    /// Always this many.
    Fixed(u32),
    /// From `min` to `max`, stopping as soon as the mean density excess is at most
    /// `max_error` (a fraction of ρ0), in the manner of SPlisHSPlasH.
    Controlled { min: u32, max: u32, max_error: f32 },
}

/// PBF's constraint iterations and their scratch (reused every step).
pub struct PbfConstraints {
    count: IterationCount,
    /// The under-relaxation ω of each iteration's correction (see `sph::lattice::jacobi_gain`).
    omega: f32,
    /// `ε = relaxation · S0`.
    eps: f32,
    correction: Correction,
    /// Whether walls carry the fluid's pressure gradient (`boundary::support`).
    wall_gradient: bool,
    lambda: Vec<f32>,
    /// Wall density gradient of each particle, from the λ pass, reused by the Δp pass.
    wall_grad: Vec<Vec3A>,
    /// Each chunk's sum of `max(ρ/ρ0 − 1, 0)` over the owned particles, in the fixed point of
    /// [`ERROR_ONE`] (an integer sum: the same for any thread count and any split over
    /// processes).
    chunk_excess: Vec<u64>,
    last: SolveStats,
}

/// The artificial pressure `s_corr = −(k / S0) (W(p_ij) / W(Δq))^n`.
#[derive(Clone, Copy, Debug)]
pub struct ArtificialPressure {
    /// Strength k, a fraction of S0.
    pub k: f32,
    /// Exponent n.
    pub n: u32,
    /// Δq as a fraction of h.
    pub dq: f32,
}

impl PbfConstraints {
    /// Jacobi iterations (`count` of them) whose corrections are scaled by `omega`, with the
    /// constraint relaxation `relaxation` (a fraction of S0) and the artificial pressure
    /// `s_corr`, for kernels `k`; `s0` is the rest lattice's `Σ_j |∇_j C_i|²` (see the module
    /// docs) and `spacing` its spacing.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        count: IterationCount,
        omega: f32,
        relaxation: f32,
        s_corr: ArtificialPressure,
        wall_gradient: bool,
        k: &Kernels,
        s0: f32,
        spacing: f32,
    ) -> Self {
        PbfConstraints {
            count,
            omega,
            eps: relaxation * s0,
            correction: Correction::new(k, s_corr, s0, spacing),
            wall_gradient,
            lambda: Vec::new(),
            wall_grad: Vec::new(),
            chunk_excess: Vec::new(),
            last: SolveStats::default(),
        }
    }
}

impl PbfConstraints {
    /// [`DensitySolver::solve`] with the kernel shapes `S` (`input.kernels.kind`'s).
    fn solve_with<S: Shape>(
        &mut self,
        input: &DensityInput,
        p: &mut Vec<Vec3A>,
        density: &mut [f32],
        scratch: &mut Scratch,
    ) -> bool {
        let n = p.len();
        let lists = input.lists;
        let k = *input.kernels;
        let colliders = input.colliders;
        let (m, rho0) = (input.mass, input.rest_density);
        let vol = m / rho0;
        // Kernel constants, applied to the raw sums.
        let (cw, cg) = (k.w_coef(), k.grad_coef());
        self.lambda.resize(n, 0.0);
        self.wall_grad.resize(n, Vec3A::ZERO);
        self.chunk_excess.resize(n.div_ceil(CHUNK), 0);
        let (halo, owned) = (input.halo, input.owned);
        let owned_total = halo.sum(owned.map_or(n, |m| m.iter().filter(|&&o| o).count()) as u64);
        let Scratch {
            v3: tmp,
            v4: pl,
            solid,
            ..
        } = scratch;
        pl.resize(n, Vec4::ZERO);
        tmp.resize(n, Vec3A::ZERO);
        let params = &self.correction;
        let mut done = 0u32;
        loop {
            if input
                .stop
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
            {
                return false;
            }
            // Density and λ.
            let pp = &*p;
            let mirror = colliders.mirror();
            let eps = self.eps;
            // Only lattice walls carry the support: with mirror walls no particle has any.
            let wall_gradient = self.wall_gradient && mirror.is_none();
            colliders.solid_density(pp, solid);
            let solid = &*solid;
            density
                .par_chunks_mut(CHUNK)
                .zip(self.lambda.par_chunks_mut(CHUNK))
                .zip(self.wall_grad.par_chunks_mut(CHUNK))
                .zip(pl.par_chunks_mut(CHUNK))
                .zip(self.chunk_excess.par_iter_mut())
                .enumerate()
                .for_each(|(b, ((((rho, lambda), wall_grad), pl), excess))| {
                    let mut e = 0u64;
                    for o in 0..rho.len() {
                        let i = b * CHUNK + o;
                        let list = lists.neighbors(i);
                        let (mut sum_w, mut sum_g, mut sum_g2) =
                            density_and_gradients::<S>(list, i, pp, &k);
                        if let Some(mirror) = mirror
                            && let Some(images) = mirror.images(pp[i])
                        {
                            let s = mirror.constraint_sums::<S>(&images, list, i, pp, &k);
                            (sum_w, sum_g, sum_g2) = (sum_w + s.w, sum_g + s.g, sum_g2 + s.g2);
                        }
                        let (rho_w, grad_w) = colliders.density(i, pp[i], solid);
                        wall_grad[o] = grad_w;
                        let d = m * cw * sum_w + rho_w;
                        let grad_i = (vol * cg) * sum_g + grad_w / rho0;
                        rho[o] = d;
                        let c = (d / rho0 - 1.0).max(0.0);
                        if owned.is_none_or(|m| m[i]) {
                            e += (c as f64 * ERROR_ONE) as u64;
                        }
                        let g2 = (vol * cg) * (vol * cg) * sum_g2;
                        lambda[o] = -c / (g2 + grad_i.length_squared() + eps);
                        // With λ in w: the correction reads both of a neighbor in one load.
                        pl[o] = pp[i].extend(lambda[o]);
                    }
                    *excess = e;
                });
            // The ghosts' λ (and positions) from their owners.
            refresh(halo, pl);
            let excess = halo.sum(self.chunk_excess.iter().sum::<u64>());
            let error = excess as f64 / ERROR_ONE / owned_total.max(1) as f64;
            self.last = SolveStats {
                iterations: done,
                density_error: error,
            };
            let more = match self.count {
                IterationCount::Fixed(k) => done < k,
                IterationCount::Controlled {
                    min,
                    max,
                    max_error,
                } => done < max && (done < min || error > max_error as f64),
            };
            if !more {
                break;
            }

            // Δp, then the new positions into tmp.
            let (lambda, wall_grad) = (&self.lambda, &self.wall_grad);
            let pl = &*pl;
            let omega = self.omega;
            // The walls' part of each move (their support, images and gradient) is booked on
            // them with the projection's (`boundary::wall_push`), scaled as the move is.
            let scale = omega * (vol * cg);
            colliders.gather_in_walls(tmp, pp, owned, |i, mut book| {
                let list = lists.neighbors(i);
                let support = if wall_gradient {
                    colliders.support(pp[i])
                } else {
                    Support::NONE
                };
                let (mut dp, extra) = if support.is_none() {
                    (correction::<S>(list, i, pl, &k, params), Vec3A::ZERO)
                } else {
                    let (dp, diff) = correction_and_difference::<S>(list, i, pl, &k, params);
                    let extra = support.extra(diff);
                    (dp + extra, extra)
                };
                if let Some(mirror) = mirror
                    && let Some(images) = mirror.images(pp[i])
                {
                    dp += mirror.correction::<S>(&images, list, i, pl, &k, |flip, offset, d| {
                        if let Some(b) = book.as_deref_mut() {
                            b.reflection(flip, offset, scale * d);
                        }
                    });
                }
                let li = lambda[i];
                if let Some(b) = book {
                    // The tank's gradient: the walls' and solids' less the solids' (booked on
                    // them).
                    let tank = match solid.get(i) {
                        Some(s) => wall_grad[i] - Vec3A::from(s.truncate()),
                        None => wall_grad[i],
                    };
                    if tank != Vec3A::ZERO || extra != Vec3A::ZERO {
                        b.lattice(pp[i], scale * extra, (omega * li / rho0) * tank);
                    }
                }
                pp[i] + omega * ((vol * cg) * dp + (li / rho0) * wall_grad[i])
            });
            // What the solids' gradients did in this correction, for the force on each.
            colliders.book_gradient_push(pp, lambda, solid, omega / rho0, owned);
            colliders.project_solids(tmp, input.start, owned);
            refresh(halo, tmp);
            std::mem::swap(p, tmp);
            done += 1;
            self.last.iterations = done;
            if self.count == IterationCount::Fixed(done) {
                break; // no density pass after the last correction: it would go unused
            }
        }
        true
    }
}

impl DensitySolver for PbfConstraints {
    fn name(&self) -> &'static str {
        "pbf"
    }

    /// The predicted positions with λ in w go to `scratch.v4` (the correction pass reads both of
    /// a neighbor in one load), the corrected positions to `scratch.v3`, swapped with `p`.
    fn solve(
        &mut self,
        input: &DensityInput,
        p: &mut Vec<Vec3A>,
        density: &mut [f32],
        scratch: &mut Scratch,
    ) -> bool {
        by_shape!(input.kernels.kind, S => self.solve_with::<S>(input, p, density, scratch))
    }

    fn last_solve(&self) -> SolveStats {
        self.last
    }
}
