//! Mirror walls (`pbf.walls = "mirror"`): the tank's walls as the mirror image of the water in
//! them, in the density constraint.
//!
//! Owns: [`MirrorWalls`] (the tank's six planes), [`Images`] (the reflections that reach one
//! particle) and the sums over images that the constraint's density, its gradients, its
//! correction and the step's density take. Does not touch: the tank's projection or adhesion
//! (`tank`), the solids (their wall table), the iteration (`pressure::pbf`).
//!
//! A particle within h of a wall sees beyond it the mirror images of its neighbors and of
//! itself: its density is `Σ_j m W(x_i − x_j) + Σ_R Σ_j m W(x_i − R x_j)`, R running over the
//! reflections through each wall within h, and through each pair and triple of them on
//! different axes (the images behind an edge or a corner). With `F` the linear part of R (a
//! sign flip on the reflected axes), `∇W(x_i − R x_j) = F ∇W(R x_i − x_j)`, so each
//! reflection is one more walk of the particle's own list, around `R x_i`, in the same SIMD
//! chunks as the fluid's sums; an image is within h of `x_i` only if its particle is, so the
//! list holds every image that counts.
//!
//! The constraint keeps its form: `∇_i C_i` gains `Σ_R F (Σ_j g r + g_s r_s)` (the image of
//! `i` itself moves with it twice as fast across the wall: `(I − F)ᵀ ∇W`), λ's denominator the
//! images' `|∇W|²` term by term (as a particle inside the fluid has them), and the correction
//! `Σ_R Σ_j (λ_i + λ_j) ∇W(x_i − R x_j)`: the gradient of every constraint that holds an image
//! of `i`, so the walls' part of the correction is a sum of pair terms, each the gradient of
//! the same constraint functions. Unlike the wall table's pressure-gradient support
//! (`support`), that does no work on water at rest (a closed tank's energy settles instead of
//! growing: docs/results.md, stop 43). No artificial pressure acts between a particle and the
//! images (they only ever press it away from the wall).
//!
//! A particle of the rest lattice `r` from a wall sees the lattice continued across it, so
//! water filled against the walls starts at the interior's density, at faces, edges and
//! corners alike, with no table.

use crate::by_shape;
use crate::pressure::correction::density_and_gradients_around;
use crate::sph::Kernels;
use crate::sph::shapes::Shape;
use crate::sph::sums::{Point, chunks_around, vec3};
use glam::{Vec3A, Vec4};
use nsearch::NeighborLists;
use wide::f32x8;

/// The tank's walls as mirrors: the six planes of an axis-aligned box.
#[derive(Clone, Copy, Debug)]
pub struct MirrorWalls {
    min: Vec3A,
    max: Vec3A,
    h: f32,
}

/// The reflections that reach one particle, each as `R x = offset + flip · x`: on each axis
/// the planes within h (none, the low or the high wall, both only in a tank narrower than 2h),
/// and every combination of them across axes, less the identity. Held as the planes (32
/// bytes), the maps made as they are walked.
pub struct Images {
    planes: [[f32; 2]; 3],
    count: [usize; 3],
}

impl Images {
    /// `(flip, offset)` of each reflection, x's choice outermost and z's innermost.
    #[inline]
    fn iter(&self) -> impl Iterator<Item = (Vec3A, Vec3A)> + '_ {
        let [nx, ny, nz] = self.count;
        (0..=nx)
            .flat_map(move |cx| (0..=ny).flat_map(move |cy| (0..=nz).map(move |cz| [cx, cy, cz])))
            .filter(|c| c.iter().sum::<usize>() > 0)
            .map(|c| {
                let (mut flip, mut offset) = (Vec3A::ONE, Vec3A::ZERO);
                for (a, c) in c.into_iter().enumerate() {
                    if c > 0 {
                        flip[a] = -1.0;
                        offset[a] = 2.0 * self.planes[a][c - 1];
                    }
                }
                (flip, offset)
            })
    }
}

/// The image sums of one particle, raw like the fluid's sums of `pressure::correction` (the
/// kernel constants applied by the caller).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ImageSums {
    /// `Σ_R Σ_j w`, the density shape.
    pub w: f32,
    /// `Σ_R F (Σ_j g r + g_s r_s)`: the images' part of `∇_i C_i` without its constant.
    pub g: Vec3A,
    /// `Σ_R Σ_{j≠i} g² |r|²`: the images' part of λ's denominator, term by term.
    pub g2: f32,
}

impl MirrorWalls {
    /// The walls of the box `min`..`max` as mirrors, for kernels of radius `h`.
    pub fn new(min: Vec3A, max: Vec3A, h: f32) -> Self {
        MirrorWalls { min, max, h }
    }

    /// The reflections that reach a particle at `p`: through each wall closer than h, and
    /// through every combination of them on different axes; `None` when no wall is that close
    /// (most particles: they pay one comparison).
    #[inline]
    pub fn images(&self, p: Vec3A) -> Option<Images> {
        if (p - self.min).min_element() >= self.h && (self.max - p).min_element() >= self.h {
            return None;
        }
        let mut out = Images {
            planes: [[0.0; 2]; 3],
            count: [0; 3],
        };
        for a in 0..3 {
            for (d, w) in [
                (p[a] - self.min[a], self.min[a]),
                (self.max[a] - p[a], self.max[a]),
            ] {
                if d < self.h {
                    out.planes[a][out.count[a]] = w;
                    out.count[a] += 1;
                }
            }
        }
        Some(out)
    }

    /// The image sums of particle `i` (neighbor list `list`, positions `p`) for the density
    /// pass of the constraint: see [`ImageSums`].
    #[inline(always)]
    pub fn constraint_sums<S: Shape>(
        &self,
        images: &Images,
        list: &[u32],
        i: usize,
        p: &[Vec3A],
        k: &Kernels,
    ) -> ImageSums {
        let mut out = ImageSums::default();
        let own = [i as u32];
        for (flip, offset) in images.iter() {
            let y = offset + flip * p[i];
            let (w, g, g2) = density_and_gradients_around::<S>(list, i, p, y, k);
            // The particle's own image once more (its gradient counts twice), and out of the
            // denominator (it is not a neighbor's constraint gradient).
            let (gs, gs2) = match chunks_around(&own, i, p, y).next() {
                Some(c) => {
                    let g = S::g(&c, k, 0.0);
                    (vec3(g * c.x, g * c.y, g * c.z), (g * g * c.r2).reduce_add())
                }
                None => (Vec3A::ZERO, 0.0),
            };
            out.w += w;
            out.g += flip * (g + gs);
            out.g2 += g2 - gs2;
        }
        out
    }

    /// The images' part of particle `i`'s correction, `Σ_R F Σ_j (λ_i + λ_j) g r` (without the
    /// gradient's constant), `pl[j]` holding particle `j`'s position and λ_j in w; each
    /// image's term is also given to `each` as `(flip, offset, term)` (`R x = offset + flip ·
    /// x`: which walls it lies behind).
    #[inline(always)]
    pub fn correction<S: Shape>(
        &self,
        images: &Images,
        list: &[u32],
        i: usize,
        pl: &[Vec4],
        k: &Kernels,
        mut each: impl FnMut(Vec3A, Vec3A, Vec3A),
    ) -> Vec3A {
        let li = f32x8::splat(pl[i].w);
        let mut out = Vec3A::ZERO;
        for (flip, offset) in images.iter() {
            let y = offset + flip * pl[i].xyz();
            let z0 = f32x8::ZERO;
            let (mut ax, mut ay, mut az) = (z0, z0, z0);
            for c in chunks_around(list, i, pl, y) {
                let a = S::g(&c, k, 0.0) * (li + c.w);
                ax += a * c.x;
                ay += a * c.y;
                az += a * c.z;
            }
            let term = flip * vec3(ax, ay, az);
            each(flip, offset, term);
            out += term;
        }
        out
    }

    /// The images' density shape sum `Σ_R Σ_j w` at particle `i` (the step's density after the
    /// solve), with the kernel shapes `k.kind` names.
    pub fn density_sum(&self, lists: &NeighborLists, i: usize, p: &[Vec3A], k: &Kernels) -> f32 {
        let Some(images) = self.images(p[i]) else {
            return 0.0;
        };
        let list = lists.neighbors(i);
        by_shape!(k.kind, S => {
            let mut w = 0.0;
            for (flip, offset) in images.iter() {
                let y = offset + flip * p[i];
                w += chunks_around(list, i, p, y)
                    .fold(f32x8::ZERO, |w, c| w + S::w(&c, k))
                    .reduce_add();
            }
            w
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sph::KernelKind;
    use crate::sph::shapes::{CubicSpline, Poly6Spiky, Spiky};

    const R: f32 = 0.01;
    /// Sites per side of the test tank (the lattice fills it wall to wall).
    const SIDE: usize = 10;

    /// The rest lattice filling the tank `[0, 2r SIDE]³` wall to wall, and the tank's mirrors.
    fn tank(h: f32) -> (Vec<Vec3A>, MirrorWalls) {
        let s = 2.0 * R;
        let mut p = Vec::new();
        for x in 0..SIDE {
            for y in 0..SIDE {
                for z in 0..SIDE {
                    p.push(Vec3A::new(
                        R + s * x as f32,
                        R + s * y as f32,
                        R + s * z as f32,
                    ));
                }
            }
        }
        let side = Vec3A::splat(s * SIDE as f32);
        (p, MirrorWalls::new(Vec3A::ZERO, side, h))
    }

    /// Particle `i`'s neighbors among `p`, self included, ascending (brute force).
    fn list(p: &[Vec3A], i: usize, h: f32) -> Vec<u32> {
        (0..p.len())
            .filter(|&j| p[i].distance_squared(p[j]) <= h * h)
            .map(|j| j as u32)
            .collect()
    }

    /// `W` summed over the infinite lattice of spacing 2r at one of its sites, brute force.
    fn infinite_lattice_sum(k: &Kernels) -> f32 {
        let n = (k.h / (2.0 * R)).ceil() as i32 + 1;
        let mut w = 0.0f64;
        for a in -n..=n {
            for b in -n..=n {
                for c in -n..=n {
                    let q = Vec3A::new(a as f32, b as f32, c as f32) * (2.0 * R);
                    w += k.w(q.length_squared()) as f64;
                }
            }
        }
        w as f32
    }

    fn sums(k: &Kernels, m: &MirrorWalls, p: &[Vec3A], i: usize, l: &[u32]) -> ImageSums {
        let Some(images) = m.images(p[i]) else {
            return ImageSums::default();
        };
        match k.kind {
            KernelKind::Poly6Spiky => m.constraint_sums::<Poly6Spiky>(&images, l, i, p, k),
            KernelKind::CubicSpline => m.constraint_sums::<CubicSpline>(&images, l, i, p, k),
            KernelKind::Spiky => m.constraint_sums::<Spiky>(&images, l, i, p, k),
            KernelKind::WendlandC2 => {
                m.constraint_sums::<crate::sph::shapes::WendlandC2>(&images, l, i, p, k)
            }
        }
    }

    #[test]
    fn the_rest_lattice_sees_itself_continued_at_faces_edges_and_corners() {
        // A particle of the lattice r from the walls sees the images continue the lattice: its
        // density is the infinite lattice's, at a face, an edge and a corner alike.
        for kind in KernelKind::ALL {
            for h_over_r in [4.0, 5.4] {
                let k = Kernels::with_kind(h_over_r * R, kind);
                let (p, mirror) = tank(k.h);
                let full = infinite_lattice_sum(&k);
                let mut walls_seen = [0usize; 4];
                for i in 0..p.len() {
                    let l = list(&p, i, k.h);
                    let fluid: f32 = l
                        .iter()
                        .map(|&j| k.w(p[i].distance_squared(p[j as usize])))
                        .sum();
                    let s = sums(&k, &mirror, &p, i, &l);
                    let total = fluid + k.w_coef() * s.w;
                    assert!(
                        (total - full).abs() <= 2e-5 * full,
                        "{kind:?} h = {h_over_r}r, site {}: {total} against {full}",
                        p[i]
                    );
                    let near = (0..3)
                        .filter(|&a| p[i][a] < k.h || 2.0 * R * SIDE as f32 - p[i][a] < k.h)
                        .count();
                    walls_seen[near] += 1;
                }
                assert!(walls_seen.iter().all(|&n| n > 0), "{walls_seen:?}");
            }
        }
    }

    /// Sites jittered off the lattice (a deterministic pattern), kept r inside the tank.
    fn jittered(h: f32) -> (Vec<Vec3A>, MirrorWalls) {
        let (mut p, m) = tank(h);
        for (i, q) in p.iter_mut().enumerate() {
            let f = i as f32;
            let d = Vec3A::new((f * 0.37).sin(), (f * 0.91).cos(), (f * 1.73).sin()) * (0.3 * R);
            *q = (*q + d).clamp(Vec3A::splat(R), Vec3A::splat(2.0 * R * SIDE as f32 - R));
        }
        (p, m)
    }

    #[test]
    fn the_images_gradient_is_the_derivative_of_their_density() {
        // ∇_i of the density with particle i moved alone (its own images moving with it, its
        // neighbors' fixed), by central differences, against the sums' gradient: with the cubic
        // spline, whose gradient is its own (poly6's density pairs with spiky's gradient,
        // which no density differentiates to; the explicit images below check that pair).
        {
            let kind = KernelKind::CubicSpline;
            let k = Kernels::with_kind(5.4 * R, kind);
            let (p, mirror) = jittered(k.h);
            let mut checked = 0;
            for i in (0..p.len()).step_by(7) {
                if mirror.images(p[i]).is_none() {
                    continue;
                }
                let l = list(&p, i, k.h);
                let density = |q: &[Vec3A]| {
                    let fluid: f32 = l
                        .iter()
                        .map(|&j| k.w(q[i].distance_squared(q[j as usize])) as f64 as f32)
                        .sum();
                    fluid as f64 + (k.w_coef() * sums(&k, &mirror, q, i, &l).w) as f64
                };
                let fluid_g: Vec3A = l.iter().map(|&j| k.grad(p[i] - p[j as usize])).sum();
                let g = fluid_g + k.grad_coef() * sums(&k, &mirror, &p, i, &l).g;
                let e = 2e-4f32;
                for a in 0..3 {
                    let (mut hi, mut lo) = (p.clone(), p.clone());
                    hi[i][a] += e;
                    lo[i][a] -= e;
                    let fd = (density(&hi) - density(&lo)) / (2.0 * e as f64);
                    let scale = g.length().max(1e-3 * k.w_coef() * k.h.powi(6)) as f64;
                    assert!(
                        (fd - g[a] as f64).abs() <= 1e-2 * scale.max(fd.abs()),
                        "{kind:?} site {i} axis {a}: {} against {fd}",
                        g[a]
                    );
                }
                checked += 1;
            }
            assert!(checked > 50, "{checked}");
        }
    }

    #[test]
    fn the_correction_and_gradient_sum_each_explicit_image() {
        // Against the images placed one by one (each neighbor reflected through the walls
        // near particle i) and the scalar kernel gradient: Σ_R Σ_j (λ_i + λ_j) ∇W(x_i − R x_j),
        // and ∇_i C_i's images (poly6 / spiky: spiky's gradient is no density's derivative).
        let k = Kernels::new(5.4 * R);
        let (p, mirror) = jittered(k.h);
        let pl: Vec<Vec4> = p
            .iter()
            .enumerate()
            .map(|(i, q)| q.extend(-1e-6 * (1.0 + (i as f32 * 0.7).sin())))
            .collect();
        let side = 2.0 * R * SIDE as f32;
        let mut checked = 0;
        for i in 0..p.len() {
            let Some(images) = mirror.images(p[i]) else {
                continue;
            };
            let l = list(&p, i, k.h);
            let got = k.grad_coef()
                * mirror.correction::<Poly6Spiky>(&images, &l, i, &pl, &k, |_, _, _| {});
            // Each wall within h, and each combination across axes.
            let near: Vec<Vec<f32>> = (0..3)
                .map(|a| {
                    [0.0, side]
                        .into_iter()
                        .filter(|&w| (p[i][a] - w).abs() < k.h)
                        .collect()
                })
                .collect();
            let (mut want, mut want_g) = (Vec3A::ZERO, Vec3A::ZERO);
            let choices = |a: usize| std::iter::once(None).chain(near[a].iter().map(|&w| Some(w)));
            for wx in choices(0) {
                for wy in choices(1) {
                    for wz in choices(2) {
                        if wx.is_none() && wy.is_none() && wz.is_none() {
                            continue;
                        }
                        for &j in &l {
                            let mut q = p[j as usize];
                            for (a, w) in [wx, wy, wz].into_iter().enumerate() {
                                if let Some(w) = w {
                                    q[a] = 2.0 * w - q[a];
                                }
                            }
                            want += (pl[i].w + pl[j as usize].w) * k.grad(p[i] - q);
                            // ∇_i C_i: the particle's own image moves with it, twice.
                            let twice = if j as usize == i { 2.0 } else { 1.0 };
                            want_g += twice * k.grad(p[i] - q);
                        }
                    }
                }
            }
            assert!(
                (got - want).length() <= 1e-4 * want.length().max(1e-12),
                "site {i}: {got} against {want}"
            );
            let g = k.grad_coef() * sums(&k, &mirror, &p, i, &l).g;
            assert!(
                (g - want_g).length() <= 1e-4 * want_g.length(),
                "site {i}: ∇C {g} against {want_g}"
            );
            checked += 1;
        }
        assert!(checked > 500, "{checked}");
    }
}
