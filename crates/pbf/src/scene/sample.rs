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
    /// 1 m cube at r = 0.01, 0.02 m inside each face, so counts and positions match its). No
    /// site comes closer than r to a tank wall (`wall_margin`: a side that
    /// is not a whole number of spacings would otherwise put the outer layer up to r/2 from
    /// it). Deterministic order (block, z, y, x). Sites closer than r to
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

    /// Each particle there at time 0, in order: its index (its id), position and velocity
    /// (each block's [`start_sites`](Self::start_sites): a block touching an earlier one gives
    /// way where their lattices crowd each other).
    /// One block's sites are held at a time, so a process of a split run can keep only its own
    /// particles of a scene too big for one.
    pub fn for_each_initial_particle(&self, f: &mut dyn FnMut(u32, Vec3A, Vec3A)) {
        let mut i = 0u32;
        for (k, b) in self.fluid.iter().enumerate() {
            if b.start <= 0.0 {
                let u = Vec3A::from_array(b.velocity);
                for p in self.start_sites(k) {
                    f(i, p, u);
                    i += 1;
                }
            }
        }
    }

    /// Block `k`'s sites (compressed as water at rest when it rests on the floor:
    /// `particles.start_compression`), less those within r of an obstacle at the block's start.
    pub fn block_sites(&self, k: usize) -> Vec<Vec3A> {
        (self.block_layout(k).into_iter()).map(|(_, p)| p).collect()
    }

    /// [`block_sites`](Self::block_sites), each with the lattice site it was laid out at before
    /// the compression (`(laid out, placed)`): blocks that touch are fitted to each other where
    /// they were laid out (`start_sites`), where the spacing between their rows means what it
    /// says.
    ///
    /// Water over a solid that stands on the floor rests on the solid: its sites are compressed
    /// from the solid's top, and whether one is r from the solid is decided where it was laid
    /// out (compressed from the floor, as the rest of the block, the layer laid out r above a
    /// top face came closer than r and was left out, a gap of 2r over every such face, into
    /// which the water above fell at the start: docs/results.md, stop 42). Over a solid with
    /// water under it, the water rests on that water: compressed from the floor, and left out
    /// if that brings it within r of the solid.
    pub(super) fn block_layout(&self, k: usize) -> Vec<(Vec3A, Vec3A)> {
        let pts = self.lattice(k);
        let column = self.column(k, &pts);
        let shift = |p: Vec3A, base: Option<f32>| column.as_ref().map_or(p, |c| c.shifted(p, base));
        if self.obstacle.is_empty() {
            return pts.into_iter().map(|p| (p, shift(p, None))).collect();
        }
        let r = self.particles.radius;
        let t = super::seconds(self.fluid[k].start);
        let placed: Vec<_> = self.obstacle.iter().map(|o| o.placed_at(t)).collect();
        let nearest = |p: Vec3A| (placed.iter()).fold(f32::MAX, |d, o| d.min(o.distance(p)));
        // A site r from a solid is where its projection keeps particles: kept, whatever the
        // rounding of the distance (tol).
        let keep = r * (1.0 - 1e-4);
        // Straight down from `p` (sphere tracing): the height where a particle coming down
        // stops on a solid (r above its top), if the solid below stands on the floor (no room
        // for a particle between them).
        let standing_top = |p: Vec3A, axis: usize, up: f32| -> Option<f32> {
            let floor = self.floor_height(axis, up) + r;
            let mut q = p;
            let mut top = None;
            loop {
                let d = nearest(q);
                let y = up * q[axis];
                match top {
                    None if d < 0.5 * r => top = Some(y + 0.5 * r),
                    Some(_) if d >= r => return None,
                    _ => {}
                }
                let step = if top.is_none() { d - 0.5 * r } else { d.abs() };
                let next = y - step.max(0.25 * r);
                if next < floor {
                    return top;
                }
                q[axis] = up * next;
            }
        };
        pts.into_iter()
            .filter_map(|p| {
                let top = column.as_ref().and_then(|c| standing_top(p, c.axis, c.up));
                match top {
                    Some(top) => (nearest(p) >= keep).then(|| (p, shift(p, Some(top)))),
                    None => Some((p, shift(p, None))).filter(|&(_, q)| nearest(q) >= keep),
                }
            })
            .collect()
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
        let mut pts = self.lattice(k);
        self.compress_at_rest(k, &mut pts);
        pts
    }

    /// How many lattice sites of the fluid blocks get no particle because they lie inside or
    /// within r of an obstacle.
    pub fn sites_in_obstacles(&self) -> usize {
        (0..self.fluid.len())
            .map(|k| self.lattice(k).len() - self.block_sites(k).len())
            .sum()
    }

    /// Block `k`'s lattice sites (see [`block_rows`](Self::block_rows)).
    pub(super) fn lattice(&self, k: usize) -> Vec<Vec3A> {
        let s = self.spacing();
        let (n, first) = self.block_rows(k);
        let mut pts = Vec::with_capacity(n.iter().product());
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
        pts
    }

    /// The heights ("up" along `axis`) of block `k`'s lowest and highest lattice sites, from its
    /// rows (the same values as the sites themselves, none generated).
    pub(super) fn rows_span(&self, k: usize, axis: usize, up: f32) -> (f32, f32) {
        let (n, first) = self.block_rows(k);
        let (a, b) = (
            first[axis],
            first[axis] + (n[axis] - 1) as f32 * self.spacing(),
        );
        ((up * a).min(up * b), (up * a).max(up * b))
    }

    /// Block `k`'s rows: how many sites along each axis, and where the first one is. The
    /// lattice spans (n − 1) s, centred in the block and kept r from the tank's walls (see
    /// `wall_margin`). A block there at the start that touches an earlier one is laid on that
    /// block's rows (moved by at most half a spacing), so the rows run on across the face
    /// they share: each centred in its own box, the rows either side of a face came anywhere
    /// from r to 3r apart, and `start_sites` could only leave out the ones that crowded (a
    /// seam of lower density, into which the water above sank: docs/results.md, stop 42).
    fn block_rows(&self, k: usize) -> ([usize; 3], [f32; 3]) {
        let s = self.spacing();
        let b = &self.fluid[k];
        let mut n: [usize; 3] = std::array::from_fn(|a| {
            let cells = (b.max[a] - b.min[a]) / s;
            match self.particles.fill {
                super::Fill::Volume => (cells.round() as usize).max(1),
                super::Fill::Splishsplash => ((cells - 1e-4).ceil() as usize).max(2) - 1,
            }
        });
        let mut first: [f32; 3] = std::array::from_fn(|a| {
            let centered = b.min[a] + 0.5 * (b.max[a] - b.min[a] - (n[a] - 1) as f32 * s);
            let (fits, first) = self.wall_margin(centered, n[a], a);
            n[a] = fits;
            first
        });
        // Boxes within half a spacing of each other touch.
        let touches = |o: &super::FluidBlock| {
            o.start <= 0.0
                && (0..3).all(|a| b.min[a] <= o.max[a] + 0.5 * s && o.min[a] <= b.max[a] + 0.5 * s)
        };
        if b.start <= 0.0
            && let Some(j) = self.fluid[..k].iter().position(touches)
        {
            let (_, theirs) = self.block_rows(j);
            for a in 0..3 {
                let on = theirs[a] + ((first[a] - theirs[a]) / s).round() * s;
                (n[a], first[a]) = self.wall_margin(on, n[a], a);
            }
        }
        (n, first)
    }

    /// A row of `n` sites from `first` along axis `a`, spacing s, moved and if need be shortened
    /// so that no site is closer than r to the tank's walls (the walls keep particles r from
    /// them, and their density assumes it): with `round(L / s)` sites a block whose side is not
    /// a whole number of spacings reaches up to r/2 from its faces, which against a wall starts
    /// the outer layer compressed. Rows already r or more from the walls are returned as they
    /// are; a row longer than the room between the walls keeps as many sites as fit, centered.
    fn wall_margin(&self, first: f32, n: usize, a: usize) -> (usize, f32) {
        let (r, s) = (self.particles.radius, self.spacing());
        let (lo, hi) = (self.tank.min[a] + r, self.tank.max[a] - r);
        // Rounding in the layout is not a violation: rows r from a wall by construction stay.
        let tol = 1e-3 * r;
        let span = |n: usize| (n - 1) as f32 * s;
        if first >= lo - tol && first + span(n) <= hi + tol {
            return (n, first);
        }
        let fits = (((hi - lo + tol) / s).floor() as usize + 1).max(1);
        let (n, mut first) = if n > fits {
            (fits, lo + 0.5 * (hi - lo - span(fits)))
        } else {
            (n, first)
        };
        if first < lo - tol {
            first = lo;
        }
        if first + span(n) > hi + tol {
            first = hi - span(n);
        }
        (n, first)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Scene;
    use glam::Vec3A;

    /// A scene with a 1 m cubic tank and one block, r = 0.01 (spacing 0.02), no gravity (so
    /// no block starts hydrostatic: the bare lattice).
    fn scene(min: [f32; 3], max: [f32; 3]) -> Scene {
        toml::from_str(&format!(
            "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [1.0, 1.0, 1.0]\n\
             [[fluid]]\nmin = {min:?}\nmax = {max:?}\n\
             [particles]\nradius = 0.01\n[time]\ndt = 0.002\nend = 1.0\n\
             [physics]\ngravity = [0.0, 0.0, 0.0]\n"
        ))
        .unwrap()
    }

    /// The distinct coordinates of `pts` along axis `a`, sorted.
    fn rows(pts: &[Vec3A], a: usize) -> Vec<f32> {
        let mut c: Vec<f32> = pts.iter().map(|p| p[a]).collect();
        c.sort_by(f32::total_cmp);
        c.dedup_by(|x, y| (*x - *y).abs() < 1e-6);
        c
    }

    #[test]
    fn no_site_is_closer_than_r_to_a_wall_whatever_the_block_size() {
        let (r, s) = (0.01f32, 0.02f32);
        // Sides of 12.3, 12.5 and 12.7 spacings: round gives 12, 13 and 13 sites, which
        // centered would reach 0.5r and 0.3r from the faces in the last two cases.
        for cells in [12.3f32, 12.5, 12.7] {
            let side = cells * s;
            // Against the floor and the low x and z walls; open above and on the far sides.
            let pts = scene([0.0; 3], [side; 3]).sample_fluid();
            for a in 0..3 {
                let c = rows(&pts, a);
                assert_eq!(
                    c.len(),
                    cells.round() as usize,
                    "{cells} spacings, axis {a}"
                );
                assert!(
                    c[0] >= r * (1.0 - 1e-4),
                    "{cells}: a row {} from the wall",
                    c[0]
                );
                for w in c.windows(2) {
                    assert!((w[1] - w[0] - s).abs() < 1e-5, "rows {w:?} not s apart");
                }
            }
            // Against the far walls instead (the block's low faces open).
            let pts = scene([1.0 - side; 3], [1.0; 3]).sample_fluid();
            for a in 0..3 {
                let c = rows(&pts, a);
                assert_eq!(c.len(), cells.round() as usize);
                assert!(1.0 - c[c.len() - 1] >= r * (1.0 - 1e-4));
            }
            // Floating free: centered in the block, as before (nothing to keep away from).
            let lo = 0.3f32;
            let pts = scene([lo; 3], [lo + side; 3]).sample_fluid();
            let c = rows(&pts, 0);
            let centered = lo + 0.5 * (side - (c.len() - 1) as f32 * s);
            assert!((c[0] - centered).abs() < 1e-5);
        }
        // A block filling a tank 49.6 spacings wide: 50 sites would be round(49.6), but only 49
        // fit between the walls with r to spare on each side; they are centered.
        let w = 49.6 * s;
        let pts: Vec<Vec3A> = toml::from_str::<Scene>(&format!(
            "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [{w}, 1.0, 1.0]\n\
             [[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [{w}, 0.5, 1.0]\n\
             [particles]\nradius = 0.01\n[time]\ndt = 0.002\nend = 1.0\n\
             [physics]\ngravity = [0.0, 0.0, 0.0]\n"
        ))
        .unwrap()
        .sample_fluid();
        let c = rows(&pts, 0);
        assert_eq!(c.len(), 49);
        assert!(c[0] >= r && w - c[48] >= r);
        assert!(
            (c[0] - (w - c[48])).abs() < 1e-5,
            "not centered: {} {}",
            c[0],
            w - c[48]
        );
    }
}
