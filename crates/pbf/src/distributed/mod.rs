//! The fluid split over processes (MPI domain decomposition): what a step needs from the
//! processes that hold the rest of the fluid, and, behind the cargo feature `mpi`, the slabs
//! that provide it.
//!
//! Owns: the [`Halo`] trait the step calls at its exchange points, [`Alone`] (one process: every
//! call does nothing), the slab partition ([`slabs`]) and, with the feature, the MPI transport
//! (`mpi_halo`), the distributed run (`mpi_run`) and what it writes (`mpi_output`). Does not
//! touch: what a phase computes (the solver, the density solve, the forces call [`Halo`] and
//! know nothing of MPI).
//!
//! ## Why results equal one process's, bit for bit
//! One process sorts its particles each step by cell (z, then y, then x; a stable counting
//! sort), so within a cell they keep the order of the step before, and every neighbor sum runs
//! in cell order. Processes own slabs of whole cell planes across the domain's longest axis;
//! each sorts its own particles plus copies of its neighbors' boundary planes (ghosts), fed to
//! the sort in the one-process order by a key each particle carries (its cell of the last sort
//! and its index in that cell). So every cell a process holds has the particles of the
//! one-process grid in the same order, each owned particle's neighbor list is the same list,
//! and every sum is the same sum.
//! Values a ghost's own neighborhood decides (λ, the corrected position, density, vorticity,
//! surface normals) are computed by its owner and copied after each pass that makes them.
//! Global sums (the density error) are integers (fixed point), so their order does not matter.

pub mod slabs;

#[cfg(feature = "mpi")]
pub mod mpi_halo;
#[cfg(feature = "mpi")]
mod mpi_output;
#[cfg(feature = "mpi")]
pub mod mpi_run;
/// The MPI binding the feature runs on (for the command's `mpi::initialize`).
#[cfg(feature = "mpi")]
pub use mpi;

use crate::particles::Fluid;
use glam::{Vec3A, Vec4};
use nsearch::GridSpec;

/// Plain data whose bytes can be copied between processes as they are (no pointers, every
/// byte initialized).
///
/// # Safety
/// Implement only for `Copy` types with no padding and no invalid bit patterns.
pub unsafe trait Plain: Copy {}
unsafe impl Plain for u8 {}
unsafe impl Plain for f32 {}
unsafe impl Plain for u32 {}
unsafe impl Plain for u64 {}
// Vec3A and Vec4 are one 16-byte SIMD register each: four f32 lanes, all initialized.
unsafe impl Plain for Vec3A {}
unsafe impl Plain for Vec4 {}

/// The bytes of a slice of plain data.
pub fn bytes_of<T: Plain>(s: &[T]) -> &[u8] {
    // SAFETY: `Plain` types have every byte initialized and no padding.
    unsafe { std::slice::from_raw_parts(s.as_ptr().cast(), std::mem::size_of_val(s)) }
}

/// The bytes of a mutable slice of plain data.
pub fn bytes_of_mut<T: Plain>(s: &mut [T]) -> &mut [u8] {
    // SAFETY: as `bytes_of`; any byte pattern is a valid `Plain` value.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), std::mem::size_of_val(s)) }
}

/// What one step needs from the other processes. The solver calls it at fixed points of the
/// step; with one process ([`Alone`]) every call does nothing and costs one virtual call per
/// phase.
pub trait Halo: Send + Sync {
    /// After prediction (`p` set for every particle held): particles whose predicted cell lies in
    /// another process's slab move there, and copies of the neighbors' particles in the cell
    /// planes next to this slab arrive (ghosts), so that the held particles, sorted by cell,
    /// are in the one-process order. `fluid` and `p` grow or shrink together.
    fn exchange_particles(&self, _fluid: &mut Fluid, _p: &mut Vec<Vec3A>, _domain: &GridSpec) {}

    /// After the sort into cell order (`perm[slot]` = the held index before it, `p` in slot
    /// order): where the ghosts went, and the order keys of the next step.
    fn sorted(&self, _perm: &[u32], _p: &[Vec3A]) {}

    /// Which slots hold particles this process owns (the rest are ghosts), into `mask`;
    /// false (and `mask` untouched) when it owns them all.
    fn owned_mask(&self, _mask: &mut Vec<bool>) -> bool {
        false
    }

    /// Copy each ghost's value of a per-particle field (in cell order) from its owner.
    fn refresh_bytes(&self, _data: &mut [u8], _elem: usize) {}

    /// A sum over all processes.
    fn sum(&self, x: u64) -> u64 {
        x
    }

    /// Sums over all processes, elementwise, in place (one exchange for all; the sums wrap
    /// modulo 2⁶⁴, so two's-complement integers sum exactly).
    fn sum_each(&self, x: &mut [u64]) {
        for v in x {
            *v = self.sum(*v);
        }
    }

    /// Decisions per site (whether a new particle has room there), each taken by the process
    /// whose slab holds the site (it alone sees every particle near it): afterwards every
    /// process has every process's decisions.
    fn agree(&self, _room: &mut [bool], _sites: &[Vec3A]) {}

    /// After the step: drop the ghosts, keeping the owned particles (in cell order), and of
    /// the particles added after the first `held` (by every process alike, see
    /// [`Halo::agree`]) those in this process's slab.
    fn keep_owned(&self, _fluid: &mut Fluid, _held: usize) {}
}

/// [`Halo::refresh_bytes`] for a typed field.
pub fn refresh<T: Plain>(halo: &dyn Halo, data: &mut [T]) {
    halo.refresh_bytes(bytes_of_mut(data), std::mem::size_of::<T>());
}

/// One process holds all the fluid: nothing to exchange.
#[derive(Clone, Copy, Debug, Default)]
pub struct Alone;

impl Halo for Alone {}

/// The density error's fixed point: `max(ρ/ρ0 − 1, 0)` summed as integers of 2⁻³² (exact and
/// order-free, so the sum is the same for any thread count and any split over processes).
pub const ERROR_ONE: f64 = 4_294_967_296.0;
