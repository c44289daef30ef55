//! SPH building blocks for the solver: smoothing kernels.
//!
//! Owns: kernel formulas and their normalisation. Does not touch: particles or neighbors.

pub mod kernels;

pub use kernels::Kernels;
