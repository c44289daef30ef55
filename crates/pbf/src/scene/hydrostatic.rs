//! The hydrostatic start: a block of water at rest on the tank's floor is filled compressed the
//! way the solver holds water at rest, so a column neither drops nor rings when it starts.
//!
//! Owns: [`Scene::hydrostatic_gradient`], [`Scene::start_excess`] and the compression of a
//! block's lattice sites (from the floor, from the top of a solid standing on it, or as one
//! column with the blocks stacked on it); the error control's default fewest iterations from
//! the same balance ([`Scene::min_iterations`], [`Scene::resting_iterations`],
//! [`Scene::resting_depth`]) and its warnings. Does not touch: the lattice itself (`sample`)
//! or the solver.
//!
//! Why a start at ρ0 is not at rest: with k Jacobi iterations per step, PBF carries the weight of
//! the water only with a density excess. A particle at rest is moved down `g dt²` by each step's
//! prediction, and each iteration moves it back by `ω M ∇λ = −ω M ∇C / D` (`D = S0 (1 +
//! relaxation)`, λ's denominator inside the fluid; `M` from
//! [`gradient_moment`]). At rest the two balance:
//!
//! `dC / d(depth) = |g| dt² D / (k ω M)`
//!
//! Measured on still water (docs/results.md): 0.097 per metre at dt 4 ms, 3 iterations, h = 4r,
//! against 0.095 from the formula; it scales with dt², 1/k, 1/ω and the kernel as the formula
//! says, within 2-6%. A block filled at ρ0 sinks into that excess (18 mm for 0.5 m of water at
//! those settings) and rings for seconds. Filled with it, its layers start where they rest.
//!
//! With a controlled iteration count the solver iterates until the mean excess is at most
//! `max_density_error`, so the gradient is the smaller of the one at `min_iterations` and the
//! one whose mean over the block's depth is that error.
//!
//! The same balance sets the control's default fewest iterations ([`Scene::min_iterations`]).
//! Water at rest `D` deep carries a mean excess `dC/d(depth) · D / 2` at k iterations. When that
//! is above the error asked for, every step that stops at the minimum leaves the weight's
//! compression in place, and the next step that iterates on to the error must remove it: a
//! long-wavelength pattern the Jacobi iterations reduce by well under 1% each, so that step runs
//! to `max_iterations` and lifts the whole column. The velocity that lift leaves makes the next
//! steps stop at the minimum again: a limit cycle (a 1 m column at dt 1 ms and a minimum of 5:
//! the bottom swings between 993 and 1002.5 kg/m³, steps of 5 iterations and of 100). From the
//! count at which the resting excess is within the error, steps stop on the error at the
//! minimum and nothing rings (docs/results.md, stop 29).

use super::{DEFAULT_MIN_ITERATIONS, Scene, StartCompression};
use crate::sph::lattice::{gradient_moment, rest_lattice};
use glam::Vec3A;

/// The share of `max_density_error` the weight's compression may take at the default minimum
/// count. At the whole error, steps near the threshold still iterate on now and then (a 2 m
/// column at dt 1 ms: 18 iterations, the bottom between 1000.5 and 1001.8 kg/m³ with steps of
/// 50-100 iterations among them); at 4/5 of it they stop at the minimum (23 iterations on
/// average, 1001.0-1001.4 kg/m³).
pub const RESTING_SHARE: f32 = 0.8;

impl Scene {
    /// `dC / d(depth)` in 1/m at `min_iterations` (a fixed count: `pbf.iterations`): the density
    /// excess, as a fraction of ρ0, per metre below the surface of water at rest (module docs).
    pub fn hydrostatic_gradient(&self) -> f32 {
        let iterations = match self.pbf.max_density_error {
            None => self.pbf.iterations,
            Some(_) => self.min_iterations(),
        };
        self.gradient_at(iterations)
    }

    /// `dC / d(depth)` at `iterations` iterations a step (module docs).
    fn gradient_at(&self, iterations: u32) -> f32 {
        let k = self.kernels();
        let s = self.spacing();
        let (_, s0) = rest_lattice(&k, s, self.particles.rest_density);
        let m = gradient_moment(&k, s);
        let g = Vec3A::from_array(self.physics.gravity).length();
        let dt = self.time.dt;
        g * dt * dt * s0 * (1.0 + self.pbf.relaxation)
            / (iterations.max(1) as f32 * self.omega() * m)
    }

    /// The fewest iterations of a solve that stops on a density error: `pbf.min_iterations`, or
    /// by default [`Self::resting_iterations`] but no fewer than [`DEFAULT_MIN_ITERATIONS`],
    /// and at most `max_iterations` (module docs).
    pub fn min_iterations(&self) -> u32 {
        (self.pbf.min_iterations).unwrap_or_else(|| self.default_min_iterations())
    }

    /// [`Self::min_iterations`] when the scene does not set it.
    fn default_min_iterations(&self) -> u32 {
        DEFAULT_MIN_ITERATIONS
            .max(self.resting_iterations().unwrap_or(0))
            .min(self.pbf.max_iterations)
    }

    /// The fewest iterations a step at which the deepest water at rest this scene can hold
    /// ([`Self::resting_depth`]) carries a mean density excess of at most [`RESTING_SHARE`] of
    /// `max_density_error` (module docs); `None` without error control, gravity or water.
    pub fn resting_iterations(&self) -> Option<u32> {
        let e = self.pbf.max_density_error? / 100.0;
        let depth = self.resting_depth();
        let need = self.gradient_at(1) * depth / (2.0 * RESTING_SHARE * e);
        (need > 0.0 && need.is_finite()).then(|| need.ceil().min(u32::MAX as f32) as u32)
    }

    /// Error control that cannot hold water at rest calmly (module docs): a `min_iterations` set
    /// below [`Self::resting_iterations`], or a `max_iterations` below it.
    pub(super) fn iteration_warnings(&self) -> Vec<String> {
        let (Some(e), Some(need)) = (self.pbf.max_density_error, self.resting_iterations()) else {
            return Vec::new();
        };
        let (depth, max) = (self.resting_depth(), self.pbf.max_iterations);
        let mut out = Vec::new();
        if let Some(min) = self.pbf.min_iterations.filter(|&m| m < need.min(max)) {
            out.push(format!(
                "pbf.min_iterations = {min}: water at rest {depth:.2} m deep carries a mean \
                 density excess of {:.3}% at {min} iterations a step, more than {:.0}% of \
                 max_density_error = {e}%; steps that stop there leave the compression that the \
                 next steps' long solves release, and the water can ring (unset, \
                 min_iterations is {})",
                100.0 * self.gradient_at(min) * depth / 2.0,
                100.0 * RESTING_SHARE,
                self.default_min_iterations()
            ));
        }
        if need > max {
            out.push(format!(
                "pbf.max_iterations = {max}: water at rest {depth:.2} m deep needs about {need} \
                 iterations a step to stay within max_density_error = {e}% at dt = {} s; its \
                 steps will run {max} and stop above it (a smaller dt needs fewer: the count \
                 goes as dt²)",
                self.time.dt
            ));
        }
        out
    }

    /// The depth of water at rest the scene can hold, in m: all its water (every block within
    /// the tank, and every emitter's area × speed × open time) spread over the tank's floor (the
    /// face across gravity's largest component), at most the tank's height; 0 without gravity.
    /// A block taller than that collapses (a dam break's column does not stay at rest), so it
    /// does not count; nor do obstacles, so water held up by one (a reservoir behind a solid
    /// dam) is deeper than this.
    pub fn resting_depth(&self) -> f32 {
        let g = self.physics.gravity;
        if g == [0.0; 3] {
            return 0.0;
        }
        let a = (0..3).fold(0, |a, b| if g[b].abs() > g[a].abs() { b } else { a });
        let (lo, hi) = (self.tank.min, self.tank.max);
        let floor: f32 = (0..3).filter(|&b| b != a).map(|b| hi[b] - lo[b]).product();
        let blocks: f32 = (self.fluid.iter())
            .map(|b| {
                (0..3)
                    .map(|c| (b.max[c].min(hi[c]) - b.min[c].max(lo[c])).max(0.0))
                    .product::<f32>()
            })
            .sum();
        let inflow: f32 = (self.emitter.iter())
            .map(|e| e.area() * e.speed * (e.closes(self.time.end) - e.start).max(0.0))
            .sum();
        ((blocks + inflow) / floor).min(hi[a] - lo[a])
    }

    /// The density excess (a fraction of ρ0) block `k` starts with at its lowest layer, or
    /// `None` when it starts at ρ0 (see [`StartCompression`]).
    pub fn start_excess(&self, k: usize) -> Option<f32> {
        let c = self.column(k, &self.lattice(k))?;
        match &c.depth {
            Depth::Block { lo, hi, gradient } => Some(gradient * (hi - lo)),
            // Stacked: at the middle of the block's footprint, the whole stack's depth.
            Depth::Stack(stack) => {
                let b = &self.fluid[k];
                let mid = 0.5 * (Vec3A::from_array(b.min) + Vec3A::from_array(b.max));
                let (lo, hi) = stack.column_at(mid, stack.own.lo);
                (lo <= stack.floor)
                    .then(|| gradient_for(stack.gradient, stack.error, hi - lo) * (hi - lo))
            }
        }
    }

    /// Block `k`'s sites moved toward the floor by the hydrostatic excess (the module docs), when
    /// the block is compressed at all.
    pub(super) fn compress_at_rest(&self, k: usize, pts: &mut [Vec3A]) {
        if let Some(c) = self.column(k, pts) {
            for p in pts {
                *p = c.shifted(*p, None);
            }
        }
    }

    /// How block `k`, laid out at `pts`, starts compressed, or `None` when it starts at ρ0.
    /// A block stacked on or under other blocks at rest (touching across the floor's plane,
    /// their footprints overlapping) is one body of water with them: each site is compressed by
    /// the depth of the whole stack over it, from the stack's lowest layer.
    pub(super) fn column(&self, k: usize, pts: &[Vec3A]) -> Option<Column> {
        let (axis, up) = self.compressed_axis(k)?;
        let layer = |j: usize, (lo, hi): (f32, f32)| {
            let b = &self.fluid[j];
            let across = [(axis + 1) % 3, (axis + 2) % 3];
            Layer {
                across,
                min: across.map(|a| b.min[a]),
                max: across.map(|a| b.max[a]),
                lo,
                hi,
            }
        };
        let own = layer(k, span(pts, axis, up));
        let others: Vec<Layer> = (0..self.fluid.len())
            .filter(|&j| j != k && self.compressed_axis(j).is_some())
            .map(|j| layer(j, self.rows_span(j, axis, up)))
            .collect();
        let gap = 2.0 * self.spacing();
        if !others.iter().any(|o| o.stacked_with(&own, gap)) {
            let (lo, hi) = self.resting_span(pts, axis, up)?;
            return Some(Column {
                axis,
                up,
                depth: Depth::Block {
                    lo,
                    hi,
                    gradient: self.block_gradient(hi - lo),
                },
            });
        }
        let mut layers = others;
        layers.push(own);
        // (`own`: laid on an earlier block's rows, a site may lie up to r / 2 outside its own
        // block's box, so its own layer is not found by the footprint.)
        Some(Column {
            axis,
            up,
            depth: Depth::Stack(Stack {
                layers,
                own,
                gap,
                floor: self.floor_height(axis, up) + 2.01 * self.particles.radius,
                gradient: self.hydrostatic_gradient(),
                error: self.pbf.max_density_error.map(|e| e / 100.0),
            }),
        })
    }

    /// The height ("up" along `axis`) of the tank's floor.
    pub(super) fn floor_height(&self, axis: usize, up: f32) -> f32 {
        if up > 0.0 {
            self.tank.min[axis]
        } else {
            -self.tank.max[axis]
        }
    }

    /// The heights ("up" along `axis`) of the lowest and highest of `pts`, when the lowest
    /// rests on the tank's floor: no more than 2r above it (the walls keep particles r from
    /// them; a block filled from the floor has its lowest layer at r with the `volume` fill,
    /// 2r with `splishsplash`). A block filled higher falls first, so it starts at ρ0.
    fn resting_span(&self, pts: &[Vec3A], axis: usize, up: f32) -> Option<(f32, f32)> {
        let (lo, hi) = span(pts, axis, up);
        let floor = self.floor_height(axis, up);
        (lo <= hi && lo - floor <= 2.01 * self.particles.radius).then_some((lo, hi))
    }

    /// The gradient for a block of water `depth` deep (module docs).
    fn block_gradient(&self, depth: f32) -> f32 {
        gradient_for(
            self.hydrostatic_gradient(),
            self.pbf.max_density_error.map(|e| e / 100.0),
            depth,
        )
    }

    /// The axis gravity acts along and the sign of "up" on it, when block `k` may start
    /// compressed: `start_compression = "hydrostatic"`, gravity along one axis, the block there
    /// from the start and at rest (whether it rests on the floor: [`Self::resting_span`]).
    fn compressed_axis(&self, k: usize) -> Option<(usize, f32)> {
        let b = &self.fluid[k];
        if self.particles.start_compression != StartCompression::Hydrostatic
            || b.start > 0.0
            || b.velocity != [0.0; 3]
        {
            return None;
        }
        let g = self.physics.gravity;
        let mut axes = (0..3).filter(|&a| g[a] != 0.0);
        let (axis, None) = (axes.next()?, axes.next()) else {
            return None;
        };
        Some((axis, -g[axis].signum()))
    }
}

/// A block that starts compressed: gravity's axis and the sign of "up" on it, and the water
/// whose depth compresses it.
pub(super) struct Column {
    /// The axis gravity acts along, and the sign of "up" on it.
    pub axis: usize,
    pub up: f32,
    depth: Depth,
}

/// What a block's sites are compressed by.
enum Depth {
    /// The block alone: the heights of its lowest and highest layers, and its excess per metre
    /// of depth.
    Block { lo: f32, hi: f32, gradient: f32 },
    /// The blocks at rest it is stacked with.
    Stack(Stack),
}

/// The blocks at rest of a scene in which some stand on others.
struct Stack {
    layers: Vec<Layer>,
    /// The block the column is for: its sites belong to it wherever they lie.
    own: Layer,
    /// The largest gap between the site layers of two blocks that still touch.
    gap: f32,
    /// The height the lowest layer of water resting on the floor is at most at.
    floor: f32,
    /// The gradient without error control, and the error asked for (a fraction).
    gradient: f32,
    error: Option<f32>,
}

/// A block at rest: its footprint across gravity and the heights of its lowest and highest
/// sites.
#[derive(Clone, Copy)]
struct Layer {
    across: [usize; 2],
    min: [f32; 2],
    max: [f32; 2],
    lo: f32,
    hi: f32,
}

impl Layer {
    /// Whether the column through `p` passes through this block's footprint.
    fn covers(&self, p: Vec3A) -> bool {
        (0..2).all(|i| p[self.across[i]] > self.min[i] && p[self.across[i]] < self.max[i])
    }

    /// Whether `o` stands on this block or this one on `o` (or they overlap): their footprints
    /// overlap and their site layers are at most `gap` apart across the floor's plane.
    fn stacked_with(&self, o: &Layer, gap: f32) -> bool {
        (0..2).all(|i| self.min[i] < o.max[i] && o.min[i] < self.max[i])
            && o.lo <= self.hi + gap
            && self.lo <= o.hi + gap
    }
}

impl Stack {
    /// The heights of the lowest and highest layers of the water above and below a site of the
    /// column's own block at `p` (height `y`): that block and the blocks whose footprints the
    /// column through `p` passes through, touching one another.
    fn column_at(&self, p: Vec3A, y: f32) -> (f32, f32) {
        let (mut lo, mut hi) = (y.min(self.own.lo), y.max(self.own.hi));
        loop {
            let (l0, h0) = (lo, hi);
            for l in self.layers.iter().filter(|l| l.covers(p)) {
                if l.hi >= lo - self.gap && l.lo <= hi + self.gap {
                    (lo, hi) = (lo.min(l.lo), hi.max(l.hi));
                }
            }
            if (lo, hi) == (l0, h0) {
                return (lo, hi);
            }
        }
    }
}

/// The heights ("up" along `axis`) of the lowest and highest of `pts`.
fn span(pts: &[Vec3A], axis: usize, up: f32) -> (f32, f32) {
    pts.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(up * p[axis]), hi.max(up * p[axis]))
    })
}

/// The gradient `a` for water `depth` deep under an error control of `error` (module docs).
fn gradient_for(a: f32, error: Option<f32>, depth: f32) -> f32 {
    match error {
        Some(e) if depth > 0.0 => a.min(2.0 * e / depth),
        _ => a,
    }
}

impl Column {
    /// Site `p` moved down by the excess its layers hold (module docs): a layer dy at height y
    /// holds the excess `a (hi − y)`, so it shrinks by that fraction, and the site moves by the
    /// integral of the excess from what carries it: the floor (`base` `None`: from the lowest
    /// layer) or a solid whose top lies at height `base` (heights "up" along the axis).
    pub fn shifted(&self, mut p: Vec3A, base: Option<f32>) -> Vec3A {
        let (a, lo, hi) = match &self.depth {
            Depth::Block { lo, hi, gradient } => (*gradient as f64, *lo as f64, *hi as f64),
            Depth::Stack(stack) => {
                // The whole stack's column; water not resting on the floor through it starts
                // at ρ0.
                let (l, h) = stack.column_at(p, self.up * p[self.axis]);
                if l > stack.floor {
                    return p;
                }
                let g = gradient_for(stack.gradient, stack.error, h - l);
                (g as f64, l as f64, h as f64)
            }
        };
        let y = (self.up * p[self.axis]) as f64;
        let base = base.map_or(lo, |b| (b as f64).clamp(lo, y));
        let shift = a * (hi * (y - base) - 0.5 * (y * y - base * base));
        p[self.axis] = self.up * (y - shift) as f32;
        p
    }
}
