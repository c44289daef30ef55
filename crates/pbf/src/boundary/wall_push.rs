//! What the tank's six walls do to the fluid, booked per wall: the force the fluid exerts on
//! each (the floor's load, the impact on the far wall of a dam break).
//!
//! The walls act on the fluid where the solids do (`push`): they move back inside the particles
//! that would leave the tank (the prediction's projection and every correction's), their part
//! of each correction moves them (lattice walls: `ω (λ_i / ρ0) ∇ρ_wall` and the support's
//! extra share, `support`; mirror walls: the images' pair terms, `mirror`), and adhesion pulls
//! them. Each such displacement is booked, in the fixed point of `push` (the same sums on any
//! thread or process count), on the wall that made it:
//! - a mirror image's pair terms on the wall it lies behind ([`WallBook::reflection`]; an
//!   image behind an edge or a corner gives each wall its square component, and what lies along
//!   both walls of an edge to the first), so a mirror's pulls along its plane, which cancel
//!   pair by pair, cancel on it;
//! - the lattice walls' support, axis by axis, among the walls within h by their shares of the
//!   particle's kernel moment on that axis: what a wall takes along
//!   its plane is its own ([`WallBook::lattice`], with the lattice walls' density gradient);
//! - everything else (projections, the lattice walls' density gradient, adhesion: square to the
//!   walls) axis by axis ([`WallBook::push`]): a component along an axis to the wall of that
//!   axis within h on the particle's side, else (not expected) to the nearest wall.
//!
//! Owns: [`TankWalls`] (the box, which wall a push belongs to), [`WallBook`], [`WALLS`] and
//! [`ColliderSet::gather_in_walls`] (a gather whose results are projected into the tank, the
//! walls' part booked). Does not touch: what a correction computes (`pressure`), the solids'
//! pushes (`push`).

use super::push::{Pushes, counts, owns};
use super::{ColliderSet, WallTable};
use crate::par::CHUNK;
use glam::Vec3A;
use rayon::prelude::*;

/// The tank's walls, in the order of their pushes' sums: the low and the high wall of x, then
/// of y, then of z.
pub const WALLS: [&str; 6] = [
    "wall_x_min",
    "wall_x_max",
    "wall_y_min",
    "wall_y_max",
    "wall_z_min",
    "wall_z_max",
];

/// The tank as six walls to book pushes on.
#[derive(Clone, Debug)]
pub struct TankWalls {
    pub min: Vec3A,
    pub max: Vec3A,
    /// The kernel radius: a wall farther than this from a particle takes none of its push
    /// along the wall's axis.
    pub h: f32,
    /// The lattice walls' table (their support's shares, `WallTable::support`).
    pub table: WallTable,
}

impl TankWalls {
    /// The walls within h of `p`, one bit per wall in [`WALLS`]' order (two compares and a
    /// table: every booked particle asks this once).
    #[inline]
    pub fn near(&self, p: Vec3A) -> u8 {
        // Bit a of each mask is axis a; its low wall is wall 2a, its high wall 2a + 1.
        const SPREAD: [u8; 8] = [0, 1, 4, 5, 16, 17, 20, 21];
        let h = Vec3A::splat(self.h);
        let lo = (p - self.min).cmplt(h).bitmask() as usize;
        let hi = (self.max - p).cmplt(h).bitmask() as usize;
        SPREAD[lo] | (SPREAD[hi] << 1)
    }

    /// The wall of axis `a` on `p`'s side (the closer of the two), and how far it is.
    #[inline]
    fn closer(&self, p: Vec3A, a: usize) -> (usize, f32) {
        let (lo, hi) = (p[a] - self.min[a], self.max[a] - p[a]);
        if lo <= hi {
            (2 * a, lo)
        } else {
            (2 * a + 1, hi)
        }
    }

    /// The wall that takes the component along axis `a` of a push on a particle at `p`: the
    /// wall of that axis on its side when it is within h, else the nearest wall.
    #[inline]
    pub fn wall_of(&self, p: Vec3A, a: usize) -> usize {
        let (w, d) = self.closer(p, a);
        if d < self.h {
            return w;
        }
        (0..3)
            .map(|b| self.closer(p, b))
            .fold((w, d), |best, c| if c.1 < best.1 { c } else { best })
            .0
    }

    /// The walls behind a mirror image `R x = offset + flip · x`, per axis: a reflected axis's
    /// own wall (the plane at `offset / 2`), an axis along the walls the first reflected one's.
    #[inline]
    pub fn reflection_walls(&self, flip: Vec3A, offset: Vec3A) -> [usize; 3] {
        let wall = |a: usize| {
            let plane = 0.5 * offset[a];
            2 * a + ((plane - self.min[a]).abs() > (plane - self.max[a]).abs()) as usize
        };
        let first = (0..3).find(|&a| flip[a] < 0.0).map_or(0, wall);
        [0, 1, 2].map(|a| if flip[a] < 0.0 { wall(a) } else { first })
    }
}

/// The walls' pushes of one run of particles (a rayon task's): each particle's summed per wall
/// as it goes, then rounded into the run's fixed-point sums once per wall it touched
/// ([`end_particle`](Self::end_particle): the same counts on any split), which are added to the
/// shared sums when the book is dropped.
pub struct WallBook<'a> {
    tank: &'a TankWalls,
    pushes: &'a Pushes,
    /// The particle's pushes so far, per wall, and which walls they touched (bits).
    particle: [Vec3A; 6],
    touched: u8,
    sums: [[i64; 3]; 6],
}

impl<'a> WallBook<'a> {
    fn new(tank: &'a TankWalls, pushes: &'a Pushes) -> Self {
        WallBook {
            tank,
            pushes,
            particle: [Vec3A::ZERO; 6],
            touched: 0,
            sums: [[0; 3]; 6],
        }
    }

    #[inline]
    fn add(&mut self, w: usize, a: usize, v: f32) {
        self.particle[w][a] += v;
        self.touched |= 1 << w;
    }

    /// The push `d` on a particle at `p`, square to the walls: axis by axis on
    /// [`TankWalls::wall_of`]. (Not inlined, nor are the other bookings but the lattice walls'
    /// one-wall case: they run for the few particles near a wall, inside the hottest pass,
    /// whose registers they should not take.)
    #[inline(never)]
    pub fn push(&mut self, p: Vec3A, d: Vec3A) {
        for a in 0..3 {
            if d[a] != 0.0 {
                self.add(self.tank.wall_of(p, a), a, d[a]);
            }
        }
    }

    /// The push `d` of the mirror image `R x = offset + flip · x`
    /// ([`TankWalls::reflection_walls`]).
    #[inline(never)]
    pub fn reflection(&mut self, flip: Vec3A, offset: Vec3A, d: Vec3A) {
        let walls = self.tank.reflection_walls(flip, offset);
        for (a, &w) in walls.iter().enumerate() {
            if d[a] != 0.0 {
                self.add(w, a, d[a]);
            }
        }
    }

    /// The lattice walls' part of a correction of a particle at `p`: their support `support`,
    /// each axis shared among the walls within h by their shares of the kernel moment on it
    /// (as `BoxTank::support` adds them), and their density gradient's push `gradient`, square
    /// to them ([`push`](Self::push)). With one wall within h (nine in ten such particles in the
    /// main job's dam break) both are that wall's, found from [`TankWalls::near`] inline.
    #[inline]
    pub fn lattice(&mut self, p: Vec3A, support: Vec3A, gradient: Vec3A) {
        let near = self.tank.near(p);
        if near.is_power_of_two() {
            let w = near.trailing_zeros() as usize;
            self.particle[w] += support + gradient;
            self.touched |= near;
        } else {
            self.lattice_shared(near, p, support, gradient);
        }
    }

    /// [`lattice`](Self::lattice) for a particle with no wall or more than one within h (`near`).
    #[inline(never)]
    fn lattice_shared(&mut self, near: u8, p: Vec3A, support: Vec3A, gradient: Vec3A) {
        let t = self.tank;
        self.push(p, gradient);
        let mut shares = [(0usize, Vec3A::ZERO); 6];
        let mut total = Vec3A::ZERO;
        let (mut bits, mut n) = (near, 0);
        while bits != 0 {
            let w = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let a = w / 2;
            let dist = if w.is_multiple_of(2) {
                p[a] - t.min[a]
            } else {
                t.max[a] - p[a]
            };
            let [along, across] = t.table.support(dist);
            let mut s = Vec3A::splat(along);
            s[a] = across;
            shares[n] = (w, s);
            total += s;
            n += 1;
        }
        for &(w, s) in &shares[..n] {
            for a in 0..3 {
                if support[a] != 0.0 && s[a] > 0.0 {
                    self.add(w, a, support[a] * s[a] / total[a]);
                }
            }
        }
    }

    /// Close the particle's pushes: each wall's sum rounded into the fixed-point sums.
    #[inline]
    pub fn end_particle(&mut self) {
        if self.touched != 0 {
            self.round_particle();
        }
    }

    #[inline(never)]
    fn round_particle(&mut self) {
        let mut bits = self.touched;
        while bits != 0 {
            let w = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let c = counts(self.particle[w]);
            for (sum, c) in self.sums[w].iter_mut().zip(c) {
                *sum += c;
            }
            self.particle[w] = Vec3A::ZERO;
        }
        self.touched = 0;
    }
}

impl Drop for WallBook<'_> {
    fn drop(&mut self) {
        self.end_particle();
        for (w, c) in self.sums.iter().enumerate() {
            if *c != [0; 3] {
                self.pushes.add(w, *c);
            }
        }
    }
}

impl ColliderSet {
    /// `out[i]` = the walls' projection of `f(i, book)`, in parallel (a gather): `f` gives the
    /// point to project, booking on `book` (given for an `owned` particle, `None`: all, when
    /// the set books the walls) the pushes the walls made in it; the projection's move is booked
    /// here, at the step's position `at[i]`.
    pub fn gather_in_walls(
        &self,
        out: &mut [Vec3A],
        at: &[Vec3A],
        owned: Option<&[bool]>,
        f: impl Fn(usize, Option<&mut WallBook>) -> Vec3A + Sync,
    ) {
        out.par_iter_mut()
            .enumerate()
            .with_min_len(CHUNK)
            .for_each_init(
                || self.wall_book(),
                |book, (i, q)| {
                    let mut mine = book.as_mut().filter(|_| owns(owned, i));
                    let target = f(i, mine.as_deref_mut());
                    *q = self.project_walls(target);
                    if let Some(book) = mine {
                        if *q != target {
                            book.push(at[i], *q - target);
                        }
                        book.end_particle();
                    }
                },
            );
    }

    /// The tank's walls' pushes since the last call, reset: counts of `push::UNIT_M` as x, y, z
    /// per wall in [`WALLS`]' order (none when the set books no walls).
    pub(super) fn take_wall_counts(&self) -> Vec<u64> {
        if self.tank.is_some() {
            self.wall_pushes.take()
        } else {
            Vec::new()
        }
    }

    /// A chunk's book of the walls' pushes (`None` when the set books no walls).
    pub(super) fn wall_book(&self) -> Option<WallBook<'_>> {
        self.tank
            .as_ref()
            .map(|tank| WallBook::new(tank, &self.wall_pushes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::Kernels;
    use crate::sph::lattice::rest_lattice;

    fn tank() -> TankWalls {
        let k = Kernels::new(0.05);
        let (mass, _) = rest_lattice(&k, 0.02, 1000.0);
        TankWalls {
            min: Vec3A::ZERO,
            max: Vec3A::new(1.0, 0.6, 0.4),
            h: 0.05,
            table: WallTable::new(&k, 0.01, mass),
        }
    }

    #[test]
    fn a_push_square_to_a_wall_is_that_walls() {
        let t = tank();
        // Near the floor, mid-tank in x and z: y goes to the floor; x and z (no wall of those
        // axes within h) to the floor too, the nearest wall.
        let p = Vec3A::new(0.5, 0.01, 0.2);
        assert_eq!([0, 1, 2].map(|a| t.wall_of(p, a)), [2, 2, 2]);
        // Near the high x wall and the low z wall (an edge): each axis to its own wall; y to
        // the closer of the two.
        let p = Vec3A::new(0.98, 0.3, 0.03);
        assert_eq!([0, 1, 2].map(|a| t.wall_of(p, a)), [1, 1, 4]);
        // The ceiling.
        assert_eq!(t.wall_of(Vec3A::new(0.5, 0.59, 0.2), 1), 3);
    }

    #[test]
    fn the_near_walls_are_those_within_h() {
        let t = tank();
        // Points on a grid through the tank and a little beyond it, edges and corners included.
        for ix in -2..=22 {
            for iy in -2..=14 {
                for iz in -2..=10 {
                    let p = Vec3A::new(ix as f32 * 0.05, iy as f32 * 0.05, iz as f32 * 0.05)
                        + Vec3A::new(0.001, -0.002, 0.003);
                    let mut want = 0u8;
                    for a in 0..3 {
                        if p[a] - t.min[a] < t.h {
                            want |= 1 << (2 * a);
                        }
                        if t.max[a] - p[a] < t.h {
                            want |= 1 << (2 * a + 1);
                        }
                    }
                    assert_eq!(t.near(p), want, "{p}");
                }
            }
        }
    }

    #[test]
    fn an_image_is_booked_on_the_walls_it_lies_behind() {
        let t = tank();
        let x = |a: f32| Vec3A::new(a, 0.0, 0.0);
        // Behind the low x wall: every axis on it.
        assert_eq!(
            t.reflection_walls(Vec3A::new(-1.0, 1.0, 1.0), x(0.0)),
            [0; 3]
        );
        // Behind the high x wall (offset 2 max) and the floor: x, y on their own, z on the x
        // wall.
        let r = t.reflection_walls(Vec3A::new(-1.0, -1.0, 1.0), Vec3A::new(2.0, 0.0, 0.0));
        assert_eq!(r, [1, 2, 1]);
        // A corner: each axis on its own wall.
        let r = t.reflection_walls(Vec3A::splat(-1.0), Vec3A::new(0.0, 1.2, 0.8));
        assert_eq!(r, [0, 3, 5]);
    }

    #[test]
    fn the_support_is_shared_by_the_walls_shares() {
        let t = tank();
        let pushes = crate::boundary::push::Pushes::new(6);
        // A particle near the low x wall and the floor: y is shared between the floor (its
        // share across) and the x wall (its share along); nothing is lost.
        let p = Vec3A::new(0.02, 0.015, 0.2);
        let d = Vec3A::new(1e-4, -2e-4, 3e-5);
        {
            let mut book = WallBook::new(&t, &pushes);
            book.lattice(p, d, Vec3A::ZERO);
        }
        let c = pushes.take();
        let sum = |axis: usize| (0..6).map(|w| c[3 * w + axis] as i64).sum::<i64>();
        let unit = crate::boundary::push::UNIT_M as f32;
        for a in 0..3 {
            assert!((sum(a) as f32 * unit - d[a]).abs() < 1e-9, "axis {a}");
        }
        // The floor carries y, and the x wall x; both carry some y.
        assert!(c[3 * 2 + 1] as i64 != 0 && c[1] as i64 != 0);
        assert!(c[0] as i64 != 0 && c[3 * 2] as i64 != 0);
        // The walls farther than h nothing.
        for w in [1, 3, 4, 5] {
            assert_eq!(c[3 * w..3 * w + 3], [0; 3], "wall {w}");
        }
    }
}
