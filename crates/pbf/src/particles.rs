//! The particles: every per-particle field, in one place.
//!
//! Owns: [`Fluid`] and the places that list its fields: creation ([`Fluid::at_rest`]), new
//! particles ([`Fluid::append`]), room for them ([`Fluid::reserve`]), the reorder into cell order
//! ([`Fluid::reorder`]: the state carried from step to step) and the frame's point arrays
//! ([`Fluid::frame`]: what ParaView sees). A new field is added here and nowhere else. Does not touch: how fields are computed (solver, forces) or written (io).

use crate::io::frame::{Frame, PointArray};
use glam::Vec3A;

/// The particle state, in the cell order of the last step.
#[derive(Clone, Debug, Default)]
pub struct Fluid {
    /// Positions (m). State.
    pub x: Vec<Vec3A>,
    /// Velocities (m/s). State.
    pub v: Vec<Vec3A>,
    /// Stable particle id (index at creation). State.
    pub id: Vec<u32>,
    /// `(m/ρ) |ω|` of each particle at the end of the last step: what the next step's
    /// vorticity confinement takes the gradient of (its η), so that sum needs no pass of its
    /// own. State (0 until a step with vorticity confinement has run).
    pub swirl: Vec<f32>,
    /// Density at the end of the step (kg/m³). Derived.
    pub density: Vec<f32>,
    /// Vorticity ω at the end of the step (1/s). Derived.
    pub vorticity: Vec<Vec3A>,
    /// Neighbor count (self included) of the last search. Derived.
    pub neighbors: Vec<u32>,
}

impl Fluid {
    /// Particles at rest at `x` (ids in that order), at `rest_density`.
    pub fn at_rest(x: Vec<Vec3A>, rest_density: f32) -> Fluid {
        let n = x.len();
        Fluid {
            x,
            v: vec![Vec3A::ZERO; n],
            id: (0..n as u32).collect(),
            swirl: vec![0.0; n],
            density: vec![rest_density; n],
            vorticity: vec![Vec3A::ZERO; n],
            neighbors: vec![0; n],
        }
    }

    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Room for `additional` more particles in every field (so particles added during a run
    /// cause no reallocation).
    pub fn reserve(&mut self, additional: usize) {
        self.x.reserve_exact(additional);
        self.v.reserve_exact(additional);
        self.id.reserve_exact(additional);
        self.swirl.reserve_exact(additional);
        self.density.reserve_exact(additional);
        self.vorticity.reserve_exact(additional);
        self.neighbors.reserve_exact(additional);
    }

    /// New particles at `x`, all with velocity `v`, at `rest_density`, with the next ids (ids
    /// are never reused: they stay dense, 0 to len - 1).
    pub fn append(&mut self, x: &[Vec3A], v: Vec3A, rest_density: f32) {
        self.append_from(self.len() as u32, x, v, rest_density);
    }

    /// [`append`](Self::append) with ids from `first` on (when this process holds only part
    /// of the fluid, the next id is the count over all processes).
    pub fn append_from(&mut self, first: u32, x: &[Vec3A], v: Vec3A, rest_density: f32) {
        self.x.extend_from_slice(x);
        self.v.extend(std::iter::repeat_n(v, x.len()));
        self.id.extend(first..first + x.len() as u32);
        self.swirl.extend(std::iter::repeat_n(0.0, x.len()));
        self.density
            .extend(std::iter::repeat_n(rest_density, x.len()));
        self.vorticity
            .extend(std::iter::repeat_n(Vec3A::ZERO, x.len()));
        self.neighbors.extend(std::iter::repeat_n(0, x.len()));
    }

    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Every field of particle `from` into slot `to` (compacting in place: `to <= from`).
    pub fn copy_within(&mut self, from: usize, to: usize) {
        self.x[to] = self.x[from];
        self.v[to] = self.v[from];
        self.id[to] = self.id[from];
        self.swirl[to] = self.swirl[from];
        self.density[to] = self.density[from];
        self.vorticity[to] = self.vorticity[from];
        self.neighbors[to] = self.neighbors[from];
    }

    /// A particle with state `x`, `v`, `id`, `swirl` (derived fields at rest until the next
    /// step computes them).
    pub fn push(&mut self, x: Vec3A, v: Vec3A, id: u32, swirl: f32) {
        self.x.push(x);
        self.v.push(v);
        self.id.push(id);
        self.swirl.push(swirl);
        self.density.push(0.0);
        self.vorticity.push(Vec3A::ZERO);
        self.neighbors.push(0);
    }

    /// Keep the first `n` particles.
    pub fn truncate(&mut self, n: usize) {
        self.x.truncate(n);
        self.v.truncate(n);
        self.id.truncate(n);
        self.swirl.truncate(n);
        self.density.truncate(n);
        self.vorticity.truncate(n);
        self.neighbors.truncate(n);
    }

    /// The state fields into the order `perm` gives (`new[slot] = old[perm[slot]]`), through the
    /// scratch buffers. Derived fields are recomputed every step, so they are not moved.
    pub fn reorder(
        &mut self,
        perm: &[u32],
        tmp: &mut Vec<Vec3A>,
        tmp_u32: &mut Vec<u32>,
        tmp_f32: &mut Vec<f32>,
    ) {
        for a in [&mut self.x, &mut self.v] {
            nsearch::gather(perm, a, tmp);
            std::mem::swap(a, tmp);
        }
        nsearch::gather(perm, &self.id, tmp_u32);
        std::mem::swap(&mut self.id, tmp_u32);
        nsearch::gather(perm, &self.swirl, tmp_f32);
        std::mem::swap(&mut self.swirl, tmp_f32);
    }

    /// Frame `index` at simulated time `time`: the positions (moved by `origin`, the solver's
    /// origin in the scene: see `Scene::origin`) and the point arrays, put back into id order
    /// (so a particle keeps its place from frame to frame).
    pub fn frame(&self, index: usize, time: f64, origin: Vec3A) -> Frame {
        let n = self.len();
        fn by_id<T: Copy + Default>(id: &[u32], slots: &[T]) -> Vec<T> {
            let mut out = vec![T::default(); slots.len()];
            for (&i, &v) in id.iter().zip(slots) {
                out[i as usize] = v;
            }
            out
        }
        let id = &self.id;
        let mut points = by_id(id, &self.x);
        if origin != Vec3A::ZERO {
            points.iter_mut().for_each(|p| *p += origin);
        }
        Frame {
            index,
            time,
            points,
            obstacles: None,
            arrays: vec![
                PointArray::u32("id", (0..n as u32).collect()),
                PointArray::vec3("velocity", by_id(id, &self.v)),
                PointArray::f32("density", by_id(id, &self.density)),
                PointArray::vec3("vorticity", by_id(id, &self.vorticity)),
                PointArray::u32("neighbors", by_id(id, &self.neighbors)),
            ],
        }
    }
}
