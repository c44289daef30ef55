//! The solids near a chunk of particles, with their places in the scene's list of solids.
//!
//! Owns: [`Near`]. Does not touch: what the passes do with them.

use super::Collider;

/// The solids near a chunk of particles: up to [`Near::INLINE`] without allocating, more in a
/// vector (scenes with that many obstacles near one chunk are rare). Each is kept with its
/// index among the scene's solids (the force on it is booked there: [`super::push`]).
#[derive(Default)]
pub(super) struct Near<'a> {
    few: [Option<(usize, &'a dyn Collider)>; Near::INLINE],
    len: usize,
    more: Vec<(usize, &'a dyn Collider)>,
}

impl<'a> Near<'a> {
    pub(super) const INLINE: usize = 32;

    pub(super) fn push(&mut self, k: usize, c: &'a dyn Collider) {
        if self.len < Self::INLINE {
            self.few[self.len] = Some((k, c));
        } else {
            self.more.push((k, c));
        }
        self.len += 1;
    }

    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The solids, in the scene's order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &'a dyn Collider> + '_ {
        self.indexed().map(|(_, c)| c)
    }

    /// The solids with their indices among the scene's solids, in order.
    pub(super) fn indexed(&self) -> impl Iterator<Item = (usize, &'a dyn Collider)> + '_ {
        self.few
            .iter()
            .map_while(|c| *c)
            .chain(self.more.iter().copied())
    }
}
