//! Non-pressure forces: what changes velocities after the density solve.
//!
//! Owns: the [`NonPressureForce`] trait and its input, the one neighbor pass that applies every
//! force ([`ForceSet`]), and the forces, one file per method:
//! [`vorticity::VorticityConfinement`] (Macklin & Müller 2013, after Fedkiw et al. 2001) and
//! [`xsph::Xsph`] (Schechter & Bridson 2012), [`surface_tension::SurfaceTension`] (Akinci et al.
//! 2013). Does not touch:
//! positions, the density solve, or the step's order.
//!
//! Every force reads the velocities of the position update (`v = (p − x) / dt`), and the sums
//! the step takes with the densities (`sph::kinematics`: the curl, the smoothed velocity
//! difference, the surface normals) when it asks for them ([`NonPressureForce::needs`]). A force
//! is a sum over each particle's neighbors followed by a per-particle velocity change; a
//! [`ForceSet`] walks a particle's neighbors once, lets every force add its pair terms chunk by
//! chunk, and adds the changes in the order the forces are listed (`v_i ← (v_i + Δv_1) + Δv_2
//! …`). One pass for all forces, compiled for the set: a pass of its own per force cost the 117k
//! dam break's step 5%, and a virtual call per chunk 11% (see docs/results.md).

pub mod surface_tension;
pub mod vorticity;
pub mod xsph;

use crate::par::par_gather;
use crate::particles::Fluid;
use crate::sph::Kernels;
use crate::sph::kinematics::Needs;
use crate::sph::sums::{Chunk, chunks};
use glam::{Vec3A, Vec4};
use nsearch::NeighborLists;
use wide::f32x8;

/// What the forces read: this step's neighbor lists, the kernels, the corrected positions, the
/// velocities with each particle's volume `m / ρ` in w (one load per neighbor for both), and the
/// velocity sums of the kinematics pass the set asked for ([`ForceSet::needs`]).
pub struct ForceInput<'a> {
    pub lists: &'a NeighborLists,
    pub kernels: &'a Kernels,
    pub p: &'a [Vec3A],
    pub vv: &'a [Vec4],
    /// Each particle's smoothed velocity difference `(1/ρ_i) Σ_j m (v_j − v_i) W_ij`
    /// (`sph::kinematics`; empty unless a force needs it).
    pub smoothing: &'a [Vec3A],
    /// η of the vorticity confinement (the kinematics pass's; empty unless asked for).
    pub eta: &'a [Vec3A],
    /// The surface normals `n_i` with `m / ρ_i` in w (the kinematics pass's; empty unless asked
    /// for).
    pub normals: &'a [Vec4],
    pub dt: f32,
    /// Particle mass and rest density.
    pub mass: f32,
    pub rest_density: f32,
    /// The other processes' part of the fluid: a force's `prepare` refreshes the ghosts' values
    /// of each field it computes for its neighbors to read (nothing with one process).
    pub halo: &'a dyn crate::distributed::Halo,
}

/// One force's running sum over a particle's neighbors: three vectors of eight lanes.
#[derive(Clone, Copy, Debug)]
pub struct PairSum {
    pub x: f32x8,
    pub y: f32x8,
    pub z: f32x8,
}

impl PairSum {
    pub const ZERO: PairSum = PairSum {
        x: f32x8::ZERO,
        y: f32x8::ZERO,
        z: f32x8::ZERO,
    };

    /// The lanes summed.
    #[inline(always)]
    pub fn reduce(&self) -> Vec3A {
        crate::sph::sums::vec3(self.x, self.y, self.z)
    }
}

/// A force that changes velocities after the density solve.
pub trait NonPressureForce: Send + Sync {
    /// The method's name, for reports.
    fn name(&self) -> &'static str;

    /// The sums of the kinematics pass the force reads (`sph::kinematics`: the curl, written to
    /// `fluid.vorticity`, and the smoothed velocity difference, in `ForceInput::smoothing`);
    /// that pass runs before [`prepare`](Self::prepare).
    fn needs(&self) -> Needs {
        Needs::NONE
    }

    /// Whether the force sums pair terms in the shared neighbor pass
    /// ([`add_pairs`](Self::add_pairs)); a set none of whose forces does skips the walk.
    fn has_pairs(&self) -> bool {
        true
    }

    /// Passes over all particles the force needs before the velocity change (e.g. the
    /// vorticity's magnitude); may write the output fields it owns in `fluid` (not `x` or `v`).
    fn prepare(&mut self, input: &ForceInput, fluid: &mut Fluid);

    /// Add the pair terms of particle `i` with one chunk `c` of its neighbors (offsets
    /// `r = p_i − p_j`, squared distances, slots) to `sum`.
    fn add_pairs(&self, input: &ForceInput, i: usize, c: &Chunk, sum: &mut PairSum);

    /// Particle `i`'s velocity change, from its summed pair terms.
    fn velocity_change(&self, input: &ForceInput, fluid: &Fluid, i: usize, sum: Vec3A) -> Vec3A;
}

/// Forces applied together in one neighbor pass: a tuple of [`NonPressureForce`]s, in the
/// order they are applied (object safe, so a scene can choose them; the pass itself is compiled
/// for the tuple, so every force's pair terms inline into one loop).
pub trait ForceSet: Send + Sync {
    /// The forces' names, in order.
    fn names(&self) -> Vec<&'static str>;

    /// The kinematics pass's sums any of the forces reads.
    fn needs(&self) -> Needs;

    /// Every force's [`prepare`](NonPressureForce::prepare), in order.
    fn prepare(&mut self, input: &ForceInput, fluid: &mut Fluid);

    /// Every particle's new velocity into `out`: `v_i` plus each force's change, in order
    /// (`(v_i + Δv_1) + Δv_2 …`), from one walk over its neighbors. A gather: each particle
    /// writes only its own slot.
    fn apply(&self, input: &ForceInput, fluid: &Fluid, out: &mut [Vec3A]);
}

impl ForceSet for () {
    fn names(&self) -> Vec<&'static str> {
        Vec::new()
    }

    fn needs(&self) -> Needs {
        Needs::NONE
    }

    fn prepare(&mut self, _: &ForceInput, _: &mut Fluid) {}

    fn apply(&self, _: &ForceInput, fluid: &Fluid, out: &mut [Vec3A]) {
        out.copy_from_slice(&fluid.v);
    }
}

/// [`ForceSet`] for tuples of forces `(A,)`, `(A, B)`, ...: one neighbor walk per particle,
/// each chunk of neighbors handed to every force in turn.
macro_rules! force_set {
    ($($f:ident . $k:tt),+) => {
        impl<$($f: NonPressureForce),+> ForceSet for ($($f,)+) {
            fn names(&self) -> Vec<&'static str> {
                vec![$(self.$k.name()),+]
            }

            fn needs(&self) -> Needs {
                Needs::NONE $(.or(self.$k.needs()))+
            }

            fn prepare(&mut self, input: &ForceInput, fluid: &mut Fluid) {
                $(self.$k.prepare(input, fluid);)+
            }

            fn apply(&self, input: &ForceInput, fluid: &Fluid, out: &mut [Vec3A]) {
                if !(false $(|| self.$k.has_pairs())+) {
                    // No pair terms: each particle's changes alone, no neighbor walk.
                    par_gather(out, |i| {
                        let v = fluid.v[i];
                        $(let v = v + self.$k.velocity_change(input, fluid, i, Vec3A::ZERO);)+
                        v
                    });
                    return;
                }
                par_gather(out, |i| {
                    let mut sums = ($({ let _ = stringify!($f); PairSum::ZERO },)+);
                    for c in chunks(input.lists.neighbors(i), i, input.p) {
                        $(self.$k.add_pairs(input, i, &c, &mut sums.$k);)+
                    }
                    let v = fluid.v[i];
                    $(let v = v + self.$k.velocity_change(input, fluid, i, sums.$k.reduce());)+
                    v
                });
            }
        }
    };
}

force_set!(A.0);
force_set!(A.0, B.1);
force_set!(A.0, B.1, C.2);
force_set!(A.0, B.1, C.2, D.3);
