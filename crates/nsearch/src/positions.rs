//! Positions in cell order as a struct of arrays, padded for vector loads past a run's end.
//!
//! Owns: [`SoaPositions`] and its padding rule. Does not touch: the order (the grid decides it).

use glam::Vec3A;

/// Padding slots after the last position: +inf, so they are never within any radius, and vector
/// kernels may read a full vector past a run's end.
pub const PAD: usize = 16;

/// Positions in cell order as three f32 arrays (struct of arrays, for vectorized scans), each
/// followed by [`PAD`] slots of +inf.
#[derive(Debug, Clone)]
pub struct SoaPositions {
    pub x: Vec<f32>,
    pub y: Vec<f32>,
    pub z: Vec<f32>,
}

impl Default for SoaPositions {
    fn default() -> Self {
        Self::from_points(&[])
    }
}

impl SoaPositions {
    /// Number of positions (padding excluded).
    pub fn len(&self) -> usize {
        self.x.len() - PAD
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Position of slot `i`.
    pub fn get(&self, i: usize) -> Vec3A {
        Vec3A::new(self.x[i], self.y[i], self.z[i])
    }

    /// The x, y, z arrays without padding.
    pub fn axes(&self) -> [&[f32]; 3] {
        let n = self.len();
        [&self.x[..n], &self.y[..n], &self.z[..n]]
    }

    /// Set the length to `n` (contents unspecified) with the +inf padding after it.
    pub fn resize(&mut self, n: usize) {
        for v in [&mut self.x, &mut self.y, &mut self.z] {
            v.resize(n + PAD, f32::INFINITY);
            v[n..].fill(f32::INFINITY);
        }
    }

    /// From positions already in order.
    pub fn from_points(points: &[Vec3A]) -> Self {
        let pad = std::iter::repeat_n(f32::INFINITY, PAD);
        SoaPositions {
            x: points.iter().map(|p| p.x).chain(pad.clone()).collect(),
            y: points.iter().map(|p| p.y).chain(pad.clone()).collect(),
            z: points.iter().map(|p| p.z).chain(pad).collect(),
        }
    }

    /// Bytes held (capacities).
    pub fn memory_bytes(&self) -> usize {
        4 * (self.x.capacity() + self.y.capacity() + self.z.capacity())
    }
}
