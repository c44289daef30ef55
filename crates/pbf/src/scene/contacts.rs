//! Blocks that touch at the start: where two fluid blocks there at time 0 share a face (a column
//! standing on a pool, an L of two boxes), each filled on its own lattice centred in its own box
//! put the rows on either side of the face as close as r (half a spacing): such a pair started
//! compressed to many times the rest density and threw the water apart (two blocks meeting at x
//! = 0.49 m in zero gravity: 0.53 m/s on average, 3.2 m/s at most, from rest). A block that
//! touches an earlier one is now laid on that block's rows (`Scene::block_rows`), so the rows
//! run on across the face, and the site the two would both fill goes to the earlier block;
//! blocks at rest stacked on one another are compressed as one column (`hydrostatic`).
//!
//! Owns: [`Scene::start_sites`] (a block's sites less those that crowd an earlier block's) and
//! [`Scene::sites_at_contacts`]. Does not touch: how a block is filled (`sample`), blocks that
//! start later (the inflow gives them the room test at their start against the fluid there).
//!
//! The rule is the one timed blocks follow: a site gets no particle if a particle is closer
//! than the spacing 2r (less a rounding margin), measured where the sites were laid out, before
//! the hydrostatic start's compression brings rows closer than that. Blocks come in the scene's
//! order, so the later block gives way.

use super::Scene;
use glam::Vec3A;
use std::collections::HashMap;

impl Scene {
    /// The particles block `k` starts with if it is there at time 0: its
    /// [`block_sites`](Self::block_sites) less those closer than the spacing to a site of an
    /// earlier block there at time 0 (any of its sites: where three blocks meet, a site may give
    /// way to one the middle block gave up itself, rather than each block being filled again
    /// for every earlier one).
    pub fn start_sites(&self, k: usize) -> Vec<Vec3A> {
        let mine = &self.fluid[k];
        if mine.start > 0.0 {
            return self.block_sites(k);
        }
        // Fitted where the sites were laid out: the hydrostatic start's compression brings a
        // block's rows closer than the spacing, those of blocks stacked at rest too.
        let mut pts = self.block_layout(k);
        let s = self.spacing();
        let room = s * 0.999;
        let near = |b: &super::FluidBlock, p: Vec3A| {
            (0..3).all(|a| p[a] > b.min[a] - s && p[a] < b.max[a] + s)
        };
        for (j, other) in self.fluid[..k].iter().enumerate() {
            if other.start > 0.0 {
                continue;
            }
            // Only sites within a spacing of the other block's box can crowd its sites.
            if !pts.iter().any(|&(p, _)| near(other, p)) {
                continue;
            }
            let theirs: Vec<Vec3A> = (self.block_layout(j).into_iter())
                .map(|(p, _)| p)
                .filter(|&p| near(mine, p))
                .collect();
            if theirs.is_empty() {
                continue;
            }
            let cell = |p: Vec3A| (p / s).floor().as_ivec3().to_array();
            let mut grid: HashMap<[i32; 3], Vec<Vec3A>> = HashMap::new();
            for &q in &theirs {
                grid.entry(cell(q)).or_default().push(q);
            }
            pts.retain(|&(p, _)| {
                let [x, y, z] = cell(p);
                !(-1..=1).any(|dz| {
                    (-1..=1).any(|dy| {
                        (-1..=1).any(|dx| {
                            grid.get(&[x + dx, y + dy, z + dz])
                                .is_some_and(|qs| qs.iter().any(|&q| q.distance(p) < room))
                        })
                    })
                })
            });
        }
        pts.into_iter().map(|(_, p)| p).collect()
    }

    /// How many sites of the blocks there at time 0 get no particle because they crowd an
    /// earlier block's (see [`start_sites`](Self::start_sites)).
    pub fn sites_at_contacts(&self) -> usize {
        (0..self.fluid.len())
            .filter(|&k| self.fluid[k].start <= 0.0)
            .map(|k| self.block_sites(k).len() - self.start_sites(k).len())
            .sum()
    }
}
