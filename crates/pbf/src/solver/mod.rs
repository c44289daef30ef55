//! The Position Based Fluids step (Macklin & Müller 2013), multithreaded with rayon.
//!
//! Owns: the particle state ([`Fluid`]) and the step. Does not touch: files (see the CLI) or the
//! neighbor search internals.
//!
//! ## One step (dt fixed)
//! 1. `v += dt·g`; predicted `p = project(x + dt·v)` (colliders keep it inside the tank).
//! 2. **Construction**: grid built on `p` (the window of the tank's cells that holds every `p`:
//!    the same order and lists as a grid over the whole tank, without its empty cells), then
//!    every particle array is reordered into cell order
//!    (so neighbors sit close in memory; `id` keeps each particle's identity for output).
//! 3. **Search**: neighbor lists on `p`, cached for the whole step.
//! 4. `iterations` times (Jacobi):
//!    - density `ρ_i = Σ_j m W(p_i − p_j) + ρ_wall(p_i)` (poly6, self included);
//!    - `C_i = max(ρ_i / ρ0 − 1, 0)` (one-sided, so the free surface is not pulled together);
//!    - `λ_i = −C_i / (Σ_k |∇_k C_i|² + ε)` with `∇_j C_i = −(m/ρ0) ∇W_ij` for `j ≠ i`
//!      (`ε = relaxation · S0`, S0 below: the relaxation is a fraction of the rest denominator),
//!      `∇_i C_i = (m/ρ0) Σ_j ∇W_ij + ∇ρ_wall/ρ0` (spiky gradient);
//!    - `Δp_i = (m/ρ0) Σ_{j≠i} (λ_i + λ_j + s_corr) ∇W_ij + (λ_i/ρ0) ∇ρ_wall`, with the artificial
//!      pressure `s_corr = −(k / S0) (W(p_ij) / W(Δq))^n`. `S0 = Σ_j |∇_j C_i|²` of a particle
//!      inside the rest lattice is the scale of λ's denominator: dividing by it makes k a fraction
//!      of the λ a unit compression gives, the same for any particle size and h / r. (Macklin &
//!      Müller's k = 0.1 assumes their units; taken literally with physical masses it is about
//!      50 times the pressure term here and blows the free surface apart.);
//!    - `p = project(p + Δp)`.
//! 5. `v = (p − x) / dt`.
//! 6. Vorticity confinement: `ω_i = Σ_j (m/ρ_j) (v_j − v_i) × ∇_{p_j} W_ij`,
//!    `η_i = Σ_j (m/ρ_j) |ω_j| ∇_i W_ij`, `N = η/|η|`, force `f_i = ε_v (N × ω_i)`;
//!    `ρ_j` is the density at the corrected positions.
//! 7. XSPH: `v_i += dt · f_i + c Σ_j (m/ρ_j) (v_j − v_i) W_ij` (poly6). The confinement force
//!    and the XSPH sum both read the velocities of step 5 (Macklin & Müller apply the two in one
//!    line; evaluating them on the same field saves a pass over the neighbors).
//! 8. `x = p`.
//!
//! The particle mass is calibrated so that a particle inside the rest lattice (spacing 2r) has
//! exactly ρ0: `m = ρ0 / Σ_lattice W`; the wall density uses the same lattice (see
//! `boundary`). Every parallel loop is a gather (each particle writes only its own slot, summing
//! its neighbors in a fixed order), so results are bit-identical for any thread count. The
//! neighbor sums live in `passes`: eight neighbors per SIMD vector, kernel constants applied once
//! per particle.

use crate::boundary::{BoxTank, ColliderSet, WallTable};
use crate::particles::Fluid;
use crate::scene::Scene;
use crate::sph::Kernels;
use glam::Vec3A;
use nsearch::{Backend, BackendUnavailable, GridSpec, NeighborSearch, SearchMode, SearchStats};
use rayon::prelude::*;
use std::time::Instant;

mod sums;

/// Particles per rayon task in the solver's loops.
const CHUNK: usize = 256;

/// Wall-clock time of one step's phases, in seconds (the paper's Table 1 columns).
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct StepTimes {
    /// Grid construction and reordering of the particle arrays.
    pub construction: f64,
    pub search: f64,
    /// Everything else: PBF iterations, velocity update, vorticity, XSPH.
    pub behavior: f64,
    pub step: f64,
}

/// One mode's share of a [`Solver::step_compare`], times in seconds.
#[derive(Clone, Copy, Debug)]
pub struct ModeStep {
    pub mode: SearchMode,
    /// Grid construction (sort, gathered positions, boxes when pruned).
    pub build: f64,
    pub search: f64,
    pub stats: SearchStats,
}

/// The result of [`Solver::step_compare`]: the solver's own search and the other one, timed on
/// the same positions.
#[derive(Clone, Copy, Debug)]
pub struct CompareStep {
    pub own: ModeStep,
    pub other: ModeStep,
    /// Reordering the solver's particle arrays into cell order (the same for either mode; it
    /// belongs to construction).
    pub reorder: f64,
    pub behavior: f64,
    /// The whole step, both searches included.
    pub step: f64,
    /// Stable id of the first particle whose two neighbor lists differ, if any.
    pub mismatch: Option<u32>,
}

/// The solver: parameters, colliders, neighbor search, state and scratch buffers.
pub struct Solver {
    pub fluid: Fluid,
    kernels: Kernels,
    colliders: ColliderSet,
    search: NeighborSearch,
    /// The grid over the whole tank; each step's grid is a window of it.
    domain: GridSpec,
    gravity: Vec3A,
    dt: f32,
    rho0: f32,
    mass: f32,
    iterations: u32,
    eps: f32,
    scorr_k: f32,
    scorr_n: u32,
    w_dq: f32,
    vorticity: f32,
    xsph: f32,
    /// Simulated time.
    pub time: f64,
    pub steps: u64,
    // Scratch, reused every step.
    p: Vec<Vec3A>,
    lambda: Vec<f32>,
    /// Predicted positions with λ in w, for the correction pass; then velocities with the
    /// volume in w, for vorticity and XSPH.
    pl: Vec<glam::Vec4>,
    /// Positions with vol |ω| in w, for the confinement pass.
    ps: Vec<glam::Vec4>,
    /// Wall density gradient of each particle, from the λ pass, reused by the Δp pass.
    wall_grad: Vec<Vec3A>,
    tmp: Vec<Vec3A>,
    tmp_u32: Vec<u32>,
    /// m / ρ per particle, from the final density pass.
    vol: Vec<f32>,
    /// A per-particle scalar for a gradient pass (vol |ω| for vorticity confinement).
    scalar: Vec<f32>,
}

/// For a particle inside the rest lattice of spacing `s`: the calibrated mass `m = ρ0 / Σ W`,
/// and `S0 = Σ_j |(m/ρ0) ∇W|²`, the scale of λ's denominator.
fn rest_lattice(k: &Kernels, s: f32, rho0: f32) -> (f32, f32) {
    let n = (k.h / s).ceil() as i32;
    let (mut sum_w, mut sum_g2) = (0.0f64, 0.0f64);
    for a in -n..=n {
        for b in -n..=n {
            for c in -n..=n {
                let q = Vec3A::new(a as f32, b as f32, c as f32) * s;
                sum_w += k.poly6(q.length_squared()) as f64;
                sum_g2 += k.spiky_grad(q).length_squared() as f64;
            }
        }
    }
    let vol = 1.0 / sum_w; // m / ρ0
    ((rho0 as f64 * vol) as f32, (sum_g2 * vol * vol) as f32)
}

/// `out[i] = f(i)` for every particle, in parallel: the shape of every per-particle pass (each
/// particle writes only its own slot, so results do not depend on the thread count).
fn par_gather<T: Send>(out: &mut [T], f: impl Fn(usize) -> T + Sync) {
    out.par_iter_mut()
        .enumerate()
        .with_min_len(CHUNK)
        .for_each(|(i, o)| *o = f(i));
}

/// [`par_gather`] for passes with two outputs: `(a[i], b[i]) = f(i)`.
fn par_gather2<A: Send, B: Send>(a: &mut [A], b: &mut [B], f: impl Fn(usize) -> (A, B) + Sync) {
    a.par_iter_mut()
        .zip(b.par_iter_mut())
        .enumerate()
        .with_min_len(CHUNK)
        .for_each(|(i, (x, y))| (*x, *y) = f(i));
}

impl Solver {
    /// A solver for `scene`, its fluid blocks sampled into particles at rest.
    pub fn new(scene: &Scene) -> Result<Solver, nsearch::GridError> {
        let h = scene.kernel_radius();
        let kernels = Kernels::new(h);
        let r = scene.particles.radius;
        let rho0 = scene.particles.rest_density;
        let (mass, s0) = rest_lattice(&kernels, scene.spacing(), rho0);
        let (tmin, tmax) = (
            Vec3A::from_array(scene.tank.min),
            Vec3A::from_array(scene.tank.max),
        );
        let table = WallTable::new(&kernels, r, mass);
        let colliders = ColliderSet::new(vec![Box::new(BoxTank::new(tmin, tmax, r, table))]);
        let spec = GridSpec::new(tmin, tmax, h, scene.search.cell_size)?;
        let x = scene.sample_fluid();
        let n = x.len();
        let q = &scene.pbf;
        Ok(Solver {
            fluid: Fluid {
                x,
                v: vec![Vec3A::ZERO; n],
                id: (0..n as u32).collect(),
                density: vec![rho0; n],
                vorticity: vec![Vec3A::ZERO; n],
                neighbors: vec![0; n],
            },
            kernels,
            colliders,
            search: NeighborSearch::new(spec, scene.search.mode),
            domain: spec,
            gravity: Vec3A::from_array(scene.physics.gravity),
            dt: scene.time.dt,
            rho0,
            mass,
            iterations: q.iterations,
            eps: q.relaxation * s0,
            scorr_k: q.scorr_k / s0,
            scorr_n: q.scorr_n,
            w_dq: kernels.poly6((q.scorr_dq * h).powi(2)),
            vorticity: q.vorticity,
            xsph: q.xsph,
            time: 0.0,
            steps: 0,
            p: Vec::new(),
            lambda: Vec::new(),
            pl: Vec::new(),
            ps: Vec::new(),
            wall_grad: Vec::new(),
            tmp: Vec::new(),
            tmp_u32: Vec::new(),
            vol: Vec::new(),
            scalar: Vec::new(),
        })
    }

    /// Particle mass (calibrated, see the module docs).
    pub fn mass(&self) -> f32 {
        self.mass
    }

    pub fn rest_density(&self) -> f32 {
        self.rho0
    }

    pub fn neighbor_search(&self) -> &NeighborSearch {
        &self.search
    }

    /// Advance one step; returns its phase times and search counters.
    pub fn step(&mut self) -> (StepTimes, SearchStats) {
        let t_step = Instant::now();
        self.predict();

        // 2. Construction: grid on p, then all arrays into cell order.
        let t = Instant::now();
        self.fit_grid();
        self.search.build(&self.p);
        self.reorder();
        let construction = t.elapsed().as_secs_f64();

        // 3. Search.
        let t = Instant::now();
        let stats = self.search.search();
        let search = t.elapsed().as_secs_f64();

        // 4.-8. Particle behavior.
        let t = Instant::now();
        self.behavior();
        let behavior = t.elapsed().as_secs_f64();

        self.finish_step();
        let times = StepTimes {
            construction,
            search,
            behavior,
            step: t_step.elapsed().as_secs_f64(),
        };
        (times, stats)
    }

    /// Cut the grid of this step: the window of the tank's cells that holds every predicted
    /// position (see [`GridSpec::window`]: the same particle order and lists as the whole tank's
    /// grid, without its empty cells, which cost memory traffic in every construction).
    fn fit_grid(&mut self) {
        let spec = self.domain.window(&self.p);
        self.search.grid_mut().set_spec(spec);
    }

    /// A neighbor search like the solver's own (same grid and backend), in `mode`.
    pub fn new_search(&self, mode: SearchMode) -> NeighborSearch {
        NeighborSearch::new(*self.search.grid().spec(), mode)
            .with_backend(self.search.backend())
            .expect("the solver's own backend runs on this CPU")
    }

    /// Run the neighbor search on `backend` (the fastest this CPU runs by default); fails,
    /// changing nothing, when this CPU cannot run it. Results are the same on every backend.
    pub fn set_search_backend(&mut self, backend: Backend) -> Result<(), BackendUnavailable> {
        self.search.set_backend(backend)
    }

    /// Advance one step as [`step`](Self::step) does, and time `other` (a second search, see
    /// [`new_search`](Self::new_search)) on the same predicted positions: its construction and
    /// search run just before the solver's own when `other_first`, just after otherwise (so
    /// neither always finds the caches warm). The step continues with the solver's own lists;
    /// the two modes' lists are compared slot by slot.
    pub fn step_compare(&mut self, other: &mut NeighborSearch, other_first: bool) -> CompareStep {
        let t_step = Instant::now();
        self.predict();
        // Both grids are cut to this step's window: construction work, the same for both
        // modes, so its time is added to both.
        let t = Instant::now();
        self.fit_grid();
        other.grid_mut().set_spec(*self.search.grid().spec());
        let fit = t.elapsed().as_secs_f64();
        let run_other = |other: &mut NeighborSearch, p: &[Vec3A]| {
            let t = Instant::now();
            other.build(p);
            let build = fit + t.elapsed().as_secs_f64();
            let t = Instant::now();
            let stats = other.search();
            (build, t.elapsed().as_secs_f64(), stats)
        };
        let mut theirs = (0.0, 0.0, SearchStats::default());
        if other_first {
            theirs = run_other(other, &self.p);
        }
        let t = Instant::now();
        self.search.build(&self.p);
        let own_build = fit + t.elapsed().as_secs_f64();
        let t = Instant::now();
        let own_stats = self.search.search();
        let own_search = t.elapsed().as_secs_f64();
        if !other_first {
            theirs = run_other(other, &self.p);
        }
        let same_order = self.search.grid().permutation() == other.grid().permutation();
        let mismatch = if same_order {
            self.search.lists().first_difference(other.lists())
        } else {
            Some(0)
        };
        // The solver's arrays into cell order: the same work whichever mode searched.
        let t = Instant::now();
        self.reorder();
        let reorder = t.elapsed().as_secs_f64();
        // Stable ids of the first particle whose lists differ (ids, not slots: slots change
        // every step).
        let mismatch = mismatch.map(|slot| self.fluid.id.get(slot).copied().unwrap_or(u32::MAX));

        let t = Instant::now();
        self.behavior();
        let behavior = t.elapsed().as_secs_f64();
        self.finish_step();
        CompareStep {
            own: ModeStep {
                mode: self.search.mode(),
                build: own_build,
                search: own_search,
                stats: own_stats,
            },
            other: ModeStep {
                mode: other.mode(),
                build: theirs.0,
                search: theirs.1,
                stats: theirs.2,
            },
            reorder,
            behavior,
            step: t_step.elapsed().as_secs_f64(),
            mismatch,
        }
    }

    /// 1. External forces and predicted positions.
    fn predict(&mut self) {
        let n = self.fluid.len();
        let (dt, g) = (self.dt, self.gravity);
        let colliders = &self.colliders;
        self.p.resize(n, Vec3A::ZERO);
        self.fluid
            .v
            .par_iter_mut()
            .zip(self.p.par_iter_mut())
            .zip(self.fluid.x.par_iter())
            .with_min_len(CHUNK)
            .for_each(|((v, p), &x)| {
                *v += dt * g;
                *p = colliders.project(x + dt * *v);
            });
    }

    /// Every particle array into the cell order of the last build.
    fn reorder(&mut self) {
        let perm = self.search.grid().permutation();
        for a in [&mut self.p, &mut self.fluid.x, &mut self.fluid.v] {
            nsearch::gather(perm, a, &mut self.tmp);
            std::mem::swap(a, &mut self.tmp);
        }
        nsearch::gather(perm, &self.fluid.id, &mut self.tmp_u32);
        std::mem::swap(&mut self.fluid.id, &mut self.tmp_u32);
    }

    fn finish_step(&mut self) {
        self.time += self.dt as f64;
        self.steps += 1;
    }

    fn behavior(&mut self) {
        let n = self.fluid.len();
        let lists = self.search.lists();
        let k = self.kernels;
        let (m, rho0, dt) = (self.mass, self.rho0, self.dt);
        let vol = m / rho0;
        // Kernel constants, applied to the raw sums of `passes`.
        let (c6, cg) = (k.poly6_coef(), k.spiky_grad_coef());
        let colliders = &self.colliders;
        self.lambda.resize(n, 0.0);
        self.pl.resize(n, glam::Vec4::ZERO);
        self.ps.resize(n, glam::Vec4::ZERO);
        self.wall_grad.resize(n, Vec3A::ZERO);
        self.tmp.resize(n, Vec3A::ZERO);
        self.vol.resize(n, 0.0);
        self.scalar.resize(n, 0.0);
        let f = &mut self.fluid;

        par_gather(&mut f.neighbors, |i| lists.neighbors(i).len() as u32);

        let correction = sums::Correction {
            scorr_k: self.scorr_k,
            scorr_n: self.scorr_n,
            scorr_scale: c6 / self.w_dq,
            scorr_floor: sums::Correction::floor(self.scorr_n),
            // Coincident pairs (the spiky gradient is 0 there) get its limit magnitude.
            coincident: (1e-6 * k.h) * (1e-6 * k.h),
            g_at_zero: k.spiky_grad(Vec3A::new(1e-6 * k.h, 0.0, 0.0)).length() / cg,
        };
        for _ in 0..self.iterations {
            // Density and λ.
            let p = &self.p;
            let eps = self.eps;
            f.density
                .par_chunks_mut(CHUNK)
                .zip(self.lambda.par_chunks_mut(CHUNK))
                .zip(self.wall_grad.par_chunks_mut(CHUNK))
                .zip(self.pl.par_chunks_mut(CHUNK))
                .enumerate()
                .for_each(|(b, (((rho, lambda), wall_grad), pl))| {
                    for o in 0..rho.len() {
                        let i = b * CHUNK + o;
                        let (sum_w, sum_g, sum_g2) =
                            sums::density_and_gradients(lists.neighbors(i), i, p, &k);
                        let (rho_w, grad_w) = colliders.density(p[i]);
                        wall_grad[o] = grad_w;
                        let d = m * c6 * sum_w + rho_w;
                        let grad_i = (vol * cg) * sum_g + grad_w / rho0;
                        rho[o] = d;
                        let c = (d / rho0 - 1.0).max(0.0);
                        let g2 = (vol * cg) * (vol * cg) * sum_g2;
                        lambda[o] = -c / (g2 + grad_i.length_squared() + eps);
                        // With λ in w: the correction reads both of a neighbor in one load.
                        pl[o] = p[i].extend(lambda[o]);
                    }
                });

            // Δp, then the new positions into tmp.
            let (lambda, wall_grad) = (&self.lambda, &self.wall_grad);
            let pl = &self.pl;
            par_gather(&mut self.tmp, |i| {
                let dp = sums::correction(lists.neighbors(i), i, pl, &k, &correction);
                let li = lambda[i];
                colliders.project(p[i] + (vol * cg) * dp + (li / rho0) * wall_grad[i])
            });
            std::mem::swap(&mut self.p, &mut self.tmp);
        }

        // 5. Velocities from the position change.
        let p = &self.p;
        f.v.par_iter_mut()
            .zip(f.x.par_iter())
            .zip(p.par_iter())
            .with_min_len(CHUNK)
            .for_each(|((v, &x), &p)| *v = (p - x) / dt);

        // Final densities at the corrected positions (for vorticity, XSPH and output), and each
        // particle's volume m / ρ.
        par_gather2(&mut f.density, &mut self.vol, |i| {
            let s = sums::density(lists.neighbors(i), i, p, &k);
            let rho = m * c6 * s + colliders.density(p[i]).0;
            (rho, m / rho)
        });

        // 6. Vorticity confinement; `scalar` gets vol_i |ω_i| for the η pass. Velocities with
        // the volume in w, and positions with s in w: a pass reads both of a neighbor in one load.
        let (v, vols) = (&f.v, &self.vol);
        par_gather(&mut self.pl, |i| v[i].extend(vols[i]));
        let vv = &self.pl;
        par_gather2(&mut f.vorticity, &mut self.scalar, |i| {
            let omega = cg * sums::vorticity(lists.neighbors(i), i, p, vv, &k);
            (omega, vols[i] * omega.length())
        });
        let s = &self.scalar;
        par_gather(&mut self.ps, |i| p[i].extend(s[i]));
        // 6.-7. The confinement force and XSPH, both from the velocities of step 5.
        let (eps_v, c, omega, ps) = (self.vorticity, self.xsph, &f.vorticity, &self.ps);
        par_gather(&mut self.tmp, |i| {
            let (eta, xsph) = sums::confinement_and_xsph(lists.neighbors(i), i, ps, vv, &k);
            let eta = cg * eta;
            let len = eta.length();
            let force = if len > 1e-12 {
                eps_v * (eta / len).cross(omega[i])
            } else {
                Vec3A::ZERO
            };
            v[i] + dt * force + (c * c6) * xsph
        });
        std::mem::swap(&mut f.v, &mut self.tmp);

        // 8. Positions.
        f.x.copy_from_slice(&self.p);
    }
}
