//! Fluid blocks sampled into particles on the rest lattice.
//!
//! Owns: [`Scene::sample_fluid`] (and [`Scene::lattice_sites`], before obstacles take their
//! share). Does not touch: the particles' other fields.

use super::Scene;
use glam::Vec3A;

impl Scene {
    /// The fluid particles: each block filled on a lattice of spacing s = 2r, centered in the
    /// block (a block symmetric about a plane gives a lattice symmetric about it), with
    /// `round(L / s)` sites per axis for a block of side L (`particles.fill = "volume"`: the
    /// particles hold the block's volume, the outer layer r inside each face), or
    /// `ceil(L / s) - 1` (`"splishsplash"`, as the peer fills its blocks: 49³ = 117,649 for the
    /// 1 m cube at r = 0.01, 0.02 m inside each face, so counts and positions match its). Deterministic order (block, z, y, x). Sites closer than r to
    /// an obstacle (where it is at the block's start), or inside it, get no particle. Only the
    /// blocks there at time 0 (`start` 0); see [`block_sites`](Self::block_sites) for the others.
    pub fn sample_fluid(&self) -> Vec<Vec3A> {
        self.initial_particles().0
    }

    /// The particles there at time 0 (see [`sample_fluid`](Self::sample_fluid)) and their
    /// velocities (each block's).
    pub fn initial_particles(&self) -> (Vec<Vec3A>, Vec<Vec3A>) {
        let (mut x, mut v) = (Vec::new(), Vec::new());
        self.for_each_initial_particle(&mut |_, p, u| {
            x.push(p);
            v.push(u);
        });
        (x, v)
    }

    /// Each particle there at time 0, in order: its index (its id), position and velocity.
    /// One block's sites are held at a time, so a process of a split run can keep only its own
    /// particles of a scene too big for one.
    pub fn for_each_initial_particle(&self, f: &mut dyn FnMut(u32, Vec3A, Vec3A)) {
        let mut i = 0u32;
        for (k, b) in self.fluid.iter().enumerate() {
            if b.start <= 0.0 {
                let u = Vec3A::from_array(b.velocity);
                for p in self.block_sites(k) {
                    f(i, p, u);
                    i += 1;
                }
            }
        }
    }

    /// Block `k`'s sites (compressed as water at rest when it rests on the floor:
    /// `particles.start_compression`), less those within r of an obstacle at the block's start.
    pub fn block_sites(&self, k: usize) -> Vec<Vec3A> {
        let r = self.particles.radius;
        let t = self.fluid[k].start as f64;
        let mut pts = self.placed_sites(k);
        if !self.obstacle.is_empty() {
            let placed: Vec<_> = self.obstacle.iter().map(|o| o.placed_at(t)).collect();
            pts.retain(|&p| placed.iter().all(|o| o.distance(p) >= r));
        }
        pts
    }

    /// Every lattice site of the fluid blocks, obstacles ignored (see
    /// [`sample_fluid`](Self::sample_fluid)).
    pub fn lattice_sites(&self) -> Vec<Vec3A> {
        (0..self.fluid.len())
            .flat_map(|k| self.placed_sites(k))
            .collect()
    }

    /// Block `k`'s lattice, compressed as water at rest when it rests on the floor
    /// (`particles.start_compression`), obstacles ignored.
    fn placed_sites(&self, k: usize) -> Vec<Vec3A> {
        let mut pts = self.lattice(&self.fluid[k..=k]);
        self.compress_at_rest(k, &mut pts);
        pts
    }

    /// How many lattice sites of the fluid blocks get no particle because they lie inside or
    /// within r of an obstacle.
    pub fn sites_in_obstacles(&self) -> usize {
        (0..self.fluid.len())
            .map(|k| self.lattice(&self.fluid[k..=k]).len() - self.block_sites(k).len())
            .sum()
    }

    pub(super) fn lattice(&self, blocks: &[super::FluidBlock]) -> Vec<Vec3A> {
        let s = self.spacing();
        let mut pts = Vec::new();
        for b in blocks {
            let n: [usize; 3] = std::array::from_fn(|a| {
                let cells = (b.max[a] - b.min[a]) / s;
                match self.particles.fill {
                    super::Fill::Volume => (cells.round() as usize).max(1),
                    super::Fill::Splishsplash => ((cells - 1e-4).ceil() as usize).max(2) - 1,
                }
            });
            // The lattice spans (n - 1) s; center it in the block.
            let first: [f32; 3] = std::array::from_fn(|a| {
                b.min[a] + 0.5 * (b.max[a] - b.min[a] - (n[a] - 1) as f32 * s)
            });
            for z in 0..n[2] {
                for y in 0..n[1] {
                    for x in 0..n[0] {
                        let i = [x, y, z];
                        pts.push(Vec3A::from_array(std::array::from_fn(|a| {
                            first[a] + i[a] as f32 * s
                        })));
                    }
                }
            }
        }
        pts
    }
}
