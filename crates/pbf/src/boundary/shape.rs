//! Solid shapes as signed distances in their own frame: box, cylinder (axis along local y) and
//! sphere, each centred on the origin.
//!
//! Owns: [`Shape`] and its exact signed distance, outward normal and thickness. Does not touch:
//! where a shape is (position, rotation, motion: `obstacle`) or what the fluid does there.

use glam::Vec3A;

/// A solid centred on the origin of its own frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Axis-aligned in its frame, with these half extents.
    Box {
        half: Vec3A,
    },
    /// Axis along the local y axis, flat caps.
    Cylinder {
        radius: f32,
        half_length: f32,
    },
    Sphere {
        radius: f32,
    },
}

/// The nearest surface to a point: signed distance (negative inside), the outward unit normal
/// there, and the solid's thickness along that normal (for the wall density of thin solids).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Surface {
    pub distance: f32,
    pub normal: Vec3A,
    pub thickness: f32,
    /// The nearest point is on a sphere or a cylinder's side (not a face, cap or rim): the
    /// solid's curved wall table applies (`curvature`).
    pub curved: bool,
}

/// `+1` for `x >= 0`, else `-1` (a point on a symmetry plane goes to the positive side).
#[inline(always)]
fn side(x: f32) -> f32 {
    if x >= 0.0 { 1.0 } else { -1.0 }
}

impl Shape {
    /// The radius of a sphere about the origin that holds the whole shape.
    pub fn bounding_radius(&self) -> f32 {
        match *self {
            Shape::Box { half } => half.length(),
            Shape::Cylinder {
                radius,
                half_length,
            } => (radius * radius + half_length * half_length).sqrt(),
            Shape::Sphere { radius } => radius,
        }
    }

    /// Half extents of the shape's box in its own frame.
    pub fn half_extents(&self) -> Vec3A {
        match *self {
            Shape::Box { half } => half,
            Shape::Cylinder {
                radius,
                half_length,
            } => Vec3A::new(radius, half_length, radius),
            Shape::Sphere { radius } => Vec3A::splat(radius),
        }
    }

    /// The surface nearest to `q` (in the shape's frame): exact signed distance and normal.
    #[inline]
    pub fn surface(&self, q: Vec3A) -> Surface {
        match *self {
            Shape::Box { half } => {
                let d = q.abs() - half;
                let out = d.max(Vec3A::ZERO);
                if out.cmpgt(Vec3A::ZERO).any() {
                    // Outside: the nearest point is on a face, an edge or a corner.
                    let len = out.length();
                    let normal = Vec3A::new(side(q.x), side(q.y), side(q.z)) * out / len;
                    let a = normal.abs().max_position();
                    Surface {
                        distance: len,
                        normal,
                        thickness: 2.0 * half[a],
                        curved: false,
                    }
                } else {
                    // Inside: the nearest face is the one with the least penetration.
                    let a = d.max_position();
                    let mut normal = Vec3A::ZERO;
                    normal[a] = side(q[a]);
                    Surface {
                        distance: d[a],
                        normal,
                        thickness: 2.0 * half[a],
                        curved: false,
                    }
                }
            }
            Shape::Cylinder {
                radius,
                half_length,
            } => {
                let rho = (q.x * q.x + q.z * q.z).sqrt();
                let radial = if rho > 0.0 {
                    Vec3A::new(q.x / rho, 0.0, q.z / rho)
                } else {
                    Vec3A::X
                };
                let axial = Vec3A::new(0.0, side(q.y), 0.0);
                let (dr, dy) = (rho - radius, q.y.abs() - half_length);
                if dr > 0.0 || dy > 0.0 {
                    let (a, b) = (dr.max(0.0), dy.max(0.0));
                    let len = (a * a + b * b).sqrt();
                    let normal = (radial * a + axial * b) / len;
                    let thickness = if a >= b {
                        2.0 * radius
                    } else {
                        2.0 * half_length
                    };
                    Surface {
                        distance: len,
                        normal,
                        thickness,
                        curved: b == 0.0,
                    }
                } else if dr >= dy {
                    Surface {
                        distance: dr,
                        normal: radial,
                        thickness: 2.0 * radius,
                        curved: true,
                    }
                } else {
                    Surface {
                        distance: dy,
                        normal: axial,
                        thickness: 2.0 * half_length,
                        curved: false,
                    }
                }
            }
            Shape::Sphere { radius } => {
                let len = q.length();
                Surface {
                    distance: len - radius,
                    normal: if len > 0.0 { q / len } else { Vec3A::X },
                    thickness: 2.0 * radius,
                    curved: true,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance of a point to a solid by brute force: the nearest of many surface samples
    /// (the solids written as point sets), signed by an inside test.
    fn sampled(shape: &Shape, q: Vec3A) -> f32 {
        let k = 120;
        let mut best = f32::MAX;
        let grid = |i: usize| -1.0 + 2.0 * i as f32 / k as f32;
        let inside;
        match *shape {
            Shape::Box { half } => {
                inside = q.abs().cmple(half).all();
                for a in 0..3 {
                    for s in [-1.0, 1.0] {
                        for i in 0..=k {
                            for j in 0..=k {
                                let mut p = Vec3A::ZERO;
                                p[a] = s * half[a];
                                p[(a + 1) % 3] = grid(i) * half[(a + 1) % 3];
                                p[(a + 2) % 3] = grid(j) * half[(a + 2) % 3];
                                best = best.min(p.distance(q));
                            }
                        }
                    }
                }
            }
            Shape::Cylinder {
                radius,
                half_length,
            } => {
                inside = (q.x * q.x + q.z * q.z).sqrt() <= radius && q.y.abs() <= half_length;
                for i in 0..=k {
                    let phi = std::f32::consts::PI * grid(i);
                    for j in 0..=k {
                        let side = Vec3A::new(
                            radius * phi.cos(),
                            grid(j) * half_length,
                            radius * phi.sin(),
                        );
                        best = best.min(side.distance(q));
                        for s in [-1.0, 1.0] {
                            let rr = radius * (j as f32 / k as f32);
                            let cap = Vec3A::new(rr * phi.cos(), s * half_length, rr * phi.sin());
                            best = best.min(cap.distance(q));
                        }
                    }
                }
            }
            Shape::Sphere { radius } => {
                inside = q.length() <= radius;
                for i in 0..=k {
                    let theta = std::f32::consts::PI * (i as f32 / k as f32);
                    for j in 0..=k {
                        let phi = std::f32::consts::PI * grid(j);
                        let p = radius
                            * Vec3A::new(
                                theta.sin() * phi.cos(),
                                theta.cos(),
                                theta.sin() * phi.sin(),
                            );
                        best = best.min(p.distance(q));
                    }
                }
            }
        }
        if inside { -best } else { best }
    }

    #[test]
    fn signed_distances_match_sampled_surfaces_and_normals_point_down_the_gradient() {
        let shapes = [
            Shape::Box {
                half: Vec3A::new(0.3, 0.05, 0.2),
            },
            Shape::Cylinder {
                radius: 0.1,
                half_length: 0.25,
            },
            Shape::Sphere { radius: 0.15 },
        ];
        // Points inside, outside, near faces, edges and corners.
        let mut pts = Vec::new();
        for i in 0..7 {
            for j in 0..7 {
                for k in 0..7 {
                    let f = |n: i32| (n as f32 - 3.0) * 0.11 + 0.013 * n as f32;
                    pts.push(Vec3A::new(f(i), f(j) * 0.7, f(k) * 0.9));
                }
            }
        }
        for shape in &shapes {
            let tol = 0.006 * shape.bounding_radius();
            for &q in &pts {
                let s = shape.surface(q);
                let want = sampled(shape, q);
                assert!(
                    (s.distance - want).abs() <= tol,
                    "{shape:?} at {q}: distance {} against {want}",
                    s.distance
                );
                assert!((s.normal.length() - 1.0).abs() < 1e-5);
                // The normal is the distance's gradient (central differences, off the medial
                // surfaces where the gradient jumps).
                let e = 1e-3;
                let grad = Vec3A::new(
                    shape.surface(q + Vec3A::X * e).distance
                        - shape.surface(q - Vec3A::X * e).distance,
                    shape.surface(q + Vec3A::Y * e).distance
                        - shape.surface(q - Vec3A::Y * e).distance,
                    shape.surface(q + Vec3A::Z * e).distance
                        - shape.surface(q - Vec3A::Z * e).distance,
                ) / (2.0 * e);
                if (grad.length() - 1.0).abs() < 1e-2 {
                    assert!(
                        grad.dot(s.normal) > 0.99,
                        "{shape:?} at {q}: normal {} against gradient {grad}",
                        s.normal
                    );
                }
            }
        }
    }
}
