//! Triangle meshes of the solids, for ParaView (the fluid's frames carry particles only).
//!
//! Owns: [`Mesh`] and [`Shape::mesh`]. Does not touch: the physics (the colliders use the exact
//! signed distances, never these triangles) or files (`io::mesh`).

use super::shape::Shape;
use glam::{Quat, Vec3A};
use std::f32::consts::{PI, TAU};

/// A triangle mesh: points and triangles (indices into the points, counter-clockwise seen from
/// outside).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    pub points: Vec<Vec3A>,
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    /// Add `other` turned by `rotation` and moved to `center`.
    pub fn append_placed(&mut self, other: &Mesh, rotation: Quat, center: Vec3A) {
        let base = self.points.len() as u32;
        self.points
            .extend(other.points.iter().map(|&p| center + rotation * p));
        self.triangles
            .extend(other.triangles.iter().map(|t| t.map(|k| k + base)));
    }

    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }
}

/// Segments around a cylinder or a sphere.
const AROUND: u32 = 32;
/// Rings from pole to pole of a sphere.
const RINGS: u32 = 16;

impl Shape {
    /// The shape's surface as triangles, in its own frame.
    pub fn mesh(&self) -> Mesh {
        let mut m = Mesh::default();
        match *self {
            Shape::Box { half } => {
                for k in 0..8 {
                    let s = |bit: u32| if k & (1 << bit) != 0 { 1.0 } else { -1.0 };
                    m.points.push(half * Vec3A::new(s(0), s(1), s(2)));
                }
                // Two triangles per face, outward.
                let faces = [
                    [0, 2, 6, 4], // -x (listed clockwise seen from outside)
                    [1, 5, 7, 3], // +x
                    [0, 4, 5, 1], // -y
                    [2, 3, 7, 6], // +y
                    [0, 1, 3, 2], // -z
                    [4, 6, 7, 5], // +z
                ];
                for [a, b, c, d] in faces {
                    m.triangles.push([a, c, b]);
                    m.triangles.push([a, d, c]);
                }
            }
            Shape::Cylinder {
                radius,
                half_length,
            } => {
                for y in [-half_length, half_length] {
                    for k in 0..AROUND {
                        let phi = TAU * k as f32 / AROUND as f32;
                        m.points
                            .push(Vec3A::new(radius * phi.cos(), y, radius * phi.sin()));
                    }
                }
                let (bottom, top) = (2 * AROUND, 2 * AROUND + 1);
                m.points.push(Vec3A::new(0.0, -half_length, 0.0));
                m.points.push(Vec3A::new(0.0, half_length, 0.0));
                for k in 0..AROUND {
                    let (a, b) = (k, (k + 1) % AROUND);
                    m.triangles.push([a, b + AROUND, b]);
                    m.triangles.push([a, a + AROUND, b + AROUND]);
                    m.triangles.push([bottom, a, b]);
                    m.triangles.push([top, b + AROUND, a + AROUND]);
                }
            }
            Shape::Sphere { radius } => {
                for i in 0..=RINGS {
                    let theta = PI * i as f32 / RINGS as f32;
                    for k in 0..AROUND {
                        let phi = TAU * k as f32 / AROUND as f32;
                        m.points.push(
                            radius
                                * Vec3A::new(
                                    theta.sin() * phi.cos(),
                                    theta.cos(),
                                    theta.sin() * phi.sin(),
                                ),
                        );
                    }
                }
                for i in 0..RINGS {
                    for k in 0..AROUND {
                        let (a, b) = (i * AROUND + k, i * AROUND + (k + 1) % AROUND);
                        let (c, d) = (a + AROUND, b + AROUND);
                        m.triangles.push([a, b, d]);
                        m.triangles.push([a, d, c]);
                    }
                }
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The enclosed volume by the divergence theorem: positive and close to the shape's own
    /// when the triangles face outward and close the surface.
    fn volume(m: &Mesh) -> f32 {
        m.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|k| m.points[k as usize]);
                a.dot(b.cross(c)) / 6.0
            })
            .sum()
    }

    #[test]
    fn meshes_enclose_their_shapes_volume_facing_out() {
        let cases = [
            (
                Shape::Box {
                    half: Vec3A::new(0.3, 0.1, 0.2),
                },
                8.0 * 0.3 * 0.1 * 0.2,
                1e-5,
            ),
            (
                Shape::Cylinder {
                    radius: 0.1,
                    half_length: 0.5,
                },
                PI * 0.01 * 1.0,
                0.01,
            ),
            (Shape::Sphere { radius: 0.2 }, 4.0 / 3.0 * PI * 0.008, 0.03),
        ];
        for (shape, want, tol) in cases {
            let m = shape.mesh();
            let v = volume(&m);
            assert!(
                (v / want - 1.0).abs() < tol,
                "{shape:?}: {v} against {want}"
            );
            // Every point lies on the surface.
            for &p in &m.points {
                assert!(shape.surface(p).distance.abs() < 1e-5, "{shape:?}: {p}");
            }
        }
    }
}
