//! The particles: every per-particle field, in one place.
//!
//! Owns: [`Fluid`], the state the solver advances and the output writes. Does not touch: how
//! fields are computed (the solver) or written (io).

use glam::Vec3A;

/// The particle state, in the cell order of the last step.
#[derive(Clone, Debug, Default)]
pub struct Fluid {
    pub x: Vec<Vec3A>,
    pub v: Vec<Vec3A>,
    /// Stable particle id (index at creation).
    pub id: Vec<u32>,
    pub density: Vec<f32>,
    pub vorticity: Vec<Vec3A>,
    /// Neighbor count (self included) of the last search.
    pub neighbors: Vec<u32>,
}

impl Fluid {
    pub fn len(&self) -> usize {
        self.x.len()
    }

    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }
}
