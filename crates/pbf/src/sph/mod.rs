//! SPH building blocks: smoothing kernels, the neighbor-sum machinery, the rest lattice.
//!
//! Owns: kernel formulas and their normalisation ([`kernels`], per chunk [`shapes`]), SIMD
//! neighbor sums ([`sums`]), the mass calibration ([`lattice`]), the velocity field's sums
//! after the density solve ([`kinematics`]). Does not touch: particles, the step, or any
//! method's physics.

pub mod kernels;
pub mod kinematics;
pub mod lattice;
pub mod shapes;
pub mod sums;

pub use kernels::{KernelKind, Kernels};
