//! What the solids do to the fluid, booked per solid: the force the fluid exerts on each.
//!
//! A solid acts on the fluid in three places of a step: it pushes out of it the particles that
//! would enter it (the prediction's projection and every constraint iteration's:
//! [`ColliderSet::project_solids`]), its density gradient moves them in each correction
//! (`ω (λ_i / ρ0) ∇ρ_solid`: [`ColliderSet::book_gradient_push`]), and adhesion pulls them
//! ([`ColliderSet::add_adhesion`]). A displacement `d` within a step changes a particle's
//! momentum by `m d / dt` (velocities are `(p − x) / dt`), and the particles' pushes on each
//! other cancel in pairs, so the impulse a solid gave the fluid in a step is `m Σ d / dt` over
//! its pushes, and the mean force the fluid exerted on it is minus that over `dt`.
//!
//! Pushes are summed in fixed point (units of 2⁻⁴⁰ m), whose sums do not depend on their order:
//! the same for any thread count and any split over processes. A particle near two solids at
//! once books a projection on the one that moved it last, a gradient push on each by its own
//! gradient.
//!
//! Owns: [`Pushes`] and [`ColliderSet::book_gradient_push`], [`ColliderSet::take_push_counts`]
//! (the tank's walls' pushes are booked alike: `wall_push`).
//! Does not touch: the pushes themselves (the passes in `mod.rs` make them) or positions.

use super::{ColliderSet, NEAR_CHUNK};
use glam::{Vec3A, Vec4};
use rayon::prelude::*;
use std::sync::atomic::{AtomicI64, Ordering};

/// Metres per count of the fixed-point sums: a sum of a million pushes of 0.05 m stays below
/// 2⁶³ counts by a factor of 100.
pub const UNIT_M: f64 = 1.0 / (1u64 << 40) as f64;

/// Each solid's pushes on the fluid since the last [`take`](Self::take), in counts of
/// [`UNIT_M`] per axis.
pub struct Pushes {
    sums: Vec<[AtomicI64; 3]>,
}

impl Pushes {
    pub fn new(solids: usize) -> Self {
        Pushes {
            sums: (0..solids).map(|_| Default::default()).collect(),
        }
    }

    pub(super) fn add(&self, k: usize, c: [i64; 3]) {
        for (sum, c) in self.sums[k].iter().zip(c) {
            if c != 0 {
                sum.fetch_add(c, Ordering::Relaxed);
            }
        }
    }

    /// The sums per solid and axis (counts, `i64` as `u64`), reset to zero.
    pub fn take(&self) -> Vec<u64> {
        self.sums
            .iter()
            .flatten()
            .map(|a| a.swap(0, Ordering::Relaxed) as u64)
            .collect()
    }
}

/// `d` in counts of [`UNIT_M`], each axis rounded on its own (the same for a particle wherever
/// it is summed). `d · 2⁴⁰` is exact in f32 (a power of two), so one rounding to the nearest
/// whole count (ties to even) is all: a few instructions, in the solver's hottest pass.
#[inline]
pub fn counts(d: Vec3A) -> [i64; 3] {
    let s = (1u64 << 40) as f32;
    let c = (d * s).to_array();
    c.map(|v| v.round_ties_even() as i64)
}

/// One chunk's pushes per solid, added to the shared sums when it is dropped (one atomic add
/// per solid and axis and chunk; past [`Booked::FEW`] solids, one per push).
pub(super) struct Booked<'a> {
    pushes: &'a Pushes,
    ks: [usize; Booked::FEW],
    sums: [[i64; 3]; Booked::FEW],
    n: usize,
}

impl<'a> Booked<'a> {
    const FEW: usize = 8;

    pub(super) fn new(pushes: &'a Pushes) -> Self {
        Booked {
            pushes,
            ks: [0; Self::FEW],
            sums: [[0; 3]; Self::FEW],
            n: 0,
        }
    }

    /// Book the push `d` on solid `k`.
    #[inline]
    pub(super) fn book(&mut self, k: usize, d: Vec3A) {
        let c = counts(d);
        if let Some(s) = self.ks[..self.n].iter().position(|&j| j == k) {
            for (sum, c) in self.sums[s].iter_mut().zip(c) {
                *sum += c;
            }
        } else if self.n < Self::FEW {
            self.ks[self.n] = k;
            self.sums[self.n] = c;
            self.n += 1;
        } else {
            self.pushes.add(k, c);
        }
    }
}

impl Drop for Booked<'_> {
    fn drop(&mut self) {
        for s in 0..self.n {
            self.pushes.add(self.ks[s], self.sums[s]);
        }
    }
}

/// Whether particle `i` is this process's own (its pushes are booked here; `None`: all are).
#[inline]
pub(super) fn owns(owned: Option<&[bool]>, i: usize) -> bool {
    owned.is_none_or(|m| m[i])
}

impl ColliderSet {
    /// Book each solid's density-gradient push of a correction, `scale λ_i ∇ρ_k(p_i)` with
    /// `scale = ω / ρ0`, for every (owned) particle with a solid gradient in `solid` (this
    /// pass's [`solid_density`](Self::solid_density)). Timed with the solids' passes.
    pub fn book_gradient_push(
        &self,
        p: &[Vec3A],
        lambda: &[f32],
        solid: &[Vec4],
        scale: f32,
        owned: Option<&[bool]>,
    ) {
        if self.solids.is_empty() {
            return;
        }
        self.timed(|| {
            p.par_chunks(NEAR_CHUNK).enumerate().for_each(|(b, chunk)| {
                let near = self.near(chunk);
                if near.is_empty() {
                    return;
                }
                let mut booked = Booked::new(&self.pushes);
                // One solid near the chunk: the whole solid gradient is its.
                let only = (near.len() == 1).then(|| near.indexed().next().unwrap().0);
                for (o, &x) in chunk.iter().enumerate() {
                    let i = b * NEAR_CHUNK + o;
                    let g = Vec3A::from(solid[i].truncate());
                    if g == Vec3A::ZERO || !owns(owned, i) {
                        continue;
                    }
                    let s = scale * lambda[i];
                    if let Some(k) = only {
                        booked.book(k, s * g);
                    } else {
                        for (k, c) in near.indexed() {
                            let gk = c.density(x).1;
                            if gk != Vec3A::ZERO {
                                booked.book(k, s * gk);
                            }
                        }
                    }
                }
            })
        });
    }

    /// Each solid's pushes on the fluid since the last call, then each of the tank's walls'
    /// when the set books them (`wall_push`), reset to zero: counts of [`UNIT_M`] as x, y, z
    /// per solid in order, then per wall, each an `i64` in two's complement (a split run sums
    /// them over processes as they are: the sums wrap modulo 2⁶⁴).
    pub fn take_push_counts(&self) -> Vec<u64> {
        let mut all = self.pushes.take();
        all.extend(self.take_wall_counts());
        all
    }

    /// How many solids the set holds.
    pub fn solid_count(&self) -> usize {
        self.solids.len()
    }
}
