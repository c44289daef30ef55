//! A scene's obstacles: their checks, and what their keys mean as geometry (shape, rotation,
//! motion).
//!
//! Owns: [`ObstacleSpec::check`] and the conversions to [`Shape`], [`Quat`] and [`Motion`]. Does
//! not touch: how an obstacle acts on the fluid (`boundary::obstacle`).

use super::{MotionSpec, ObstacleSpec, ShapeKind, seconds};
use crate::boundary::{Motion, Shape};
use glam::{Quat, Vec3A};

impl ObstacleSpec {
    /// The first thing wrong with this obstacle, as `(key below obstacle[k], message)`.
    pub fn check(&self) -> Result<(), (String, String)> {
        let bad = |key: &str, msg: String| Err((key.to_string(), msg));
        let finite3 = |v: [f32; 3]| v.iter().all(|x| x.is_finite());
        let positive = |x: Option<f32>| x.is_some_and(|x| x.is_finite() && x > 0.0);
        if !finite3(self.center) {
            return bad("center", format!("must be finite, got {:?}", self.center));
        }
        if !finite3(self.rotation) {
            return bad(
                "rotation",
                format!("must be finite degrees, got {:?}", self.rotation),
            );
        }
        let unused = |key: &str, present: bool| {
            if present {
                bad(
                    key,
                    format!("is not a key of a {:?} (remove it)", self.shape).to_lowercase(),
                )
            } else {
                Ok(())
            }
        };
        match self.shape {
            ShapeKind::Box => {
                match self.half_extents {
                    None => {
                        return bad(
                            "half_extents",
                            "a box needs half_extents = [x, y, z]".into(),
                        );
                    }
                    Some(h) if !h.iter().all(|x| x.is_finite() && *x > 0.0) => {
                        return bad("half_extents", format!("must be positive, got {h:?}"));
                    }
                    _ => {}
                }
                unused("radius", self.radius.is_some())?;
                unused("half_length", self.half_length.is_some())?;
            }
            ShapeKind::Cylinder | ShapeKind::Sphere => {
                if !positive(self.radius) {
                    return bad(
                        "radius",
                        match self.radius {
                            None => format!("a {:?} needs a radius", self.shape).to_lowercase(),
                            Some(r) => format!("must be positive, got {r}"),
                        },
                    );
                }
                unused("half_extents", self.half_extents.is_some())?;
                if self.shape == ShapeKind::Cylinder {
                    if !positive(self.half_length) {
                        return bad(
                            "half_length",
                            match self.half_length {
                                None => {
                                    "a cylinder needs a half_length (along its own y axis)".into()
                                }
                                Some(l) => format!("must be positive, got {l}"),
                            },
                        );
                    }
                } else {
                    unused("half_length", self.half_length.is_some())?;
                }
            }
        }
        match &self.motion {
            None => {}
            Some(MotionSpec::Sine {
                amplitude,
                period,
                phase,
            }) => {
                if !finite3(*amplitude) || !phase.is_finite() {
                    return bad("motion", "amplitude and phase must be finite".into());
                }
                if !(period.is_finite() && *period > 0.0) {
                    return bad("motion.period", format!("must be positive, got {period}"));
                }
            }
            Some(MotionSpec::Linear {
                velocity,
                start,
                end,
            }) => {
                if !finite3(*velocity) || !start.is_finite() {
                    return bad("motion", "velocity and start must be finite".into());
                }
                if let Some(end) = end
                    && !(end.is_finite() && end >= start)
                {
                    return bad(
                        "motion.end",
                        format!("must be at least start ({start}), got {end}"),
                    );
                }
            }
            Some(MotionSpec::Path { times, positions }) => {
                if times.is_empty() || times.len() != positions.len() {
                    return bad(
                        "motion.times",
                        format!(
                            "needs one time per position: {} times, {} positions",
                            times.len(),
                            positions.len()
                        ),
                    );
                }
                if !times.iter().all(|t| t.is_finite()) || times.windows(2).any(|w| w[1] <= w[0]) {
                    return bad(
                        "motion.times",
                        format!("must be finite and increasing, got {times:?}"),
                    );
                }
                if !positions.iter().all(|p| finite3(*p)) {
                    return bad("motion.positions", "must be finite".into());
                }
            }
        }
        Ok(())
    }

    /// The shape in its own frame (after [`check`](Self::check)).
    pub fn shape(&self) -> Shape {
        match self.shape {
            ShapeKind::Box => Shape::Box {
                half: Vec3A::from_array(self.half_extents.unwrap_or_default()),
            },
            ShapeKind::Cylinder => Shape::Cylinder {
                radius: self.radius.unwrap_or_default(),
                half_length: self.half_length.unwrap_or_default(),
            },
            ShapeKind::Sphere => Shape::Sphere {
                radius: self.radius.unwrap_or_default(),
            },
        }
    }

    /// The rotation: degrees about x, then y, then z (fixed axes).
    pub fn rotation(&self) -> Quat {
        let [x, y, z] = self.rotation.map(f32::to_radians);
        Quat::from_rotation_z(z) * Quat::from_rotation_y(y) * Quat::from_rotation_x(x)
    }

    /// The motion.
    pub fn motion(&self) -> Motion {
        match &self.motion {
            None => Motion::Fixed,
            Some(MotionSpec::Sine {
                amplitude,
                period,
                phase,
            }) => Motion::Sine {
                amplitude: Vec3A::from_array(*amplitude),
                period: *period as f64,
                phase: *phase as f64,
            },
            Some(MotionSpec::Linear {
                velocity,
                start,
                end,
            }) => Motion::Linear {
                velocity: Vec3A::from_array(*velocity),
                start: seconds(*start),
                end: end.map_or(f64::INFINITY, seconds),
            },
            Some(MotionSpec::Path { times, positions }) => Motion::Path {
                times: times.iter().map(|&t| seconds(t)).collect(),
                positions: positions.iter().map(|&p| Vec3A::from_array(p)).collect(),
            },
        }
    }

    /// The obstacle where it is at time `t`, to test many points against.
    pub fn placed_at(&self, t: f64) -> Placed {
        Placed {
            shape: self.shape(),
            inverse: self.rotation().inverse(),
            center: Vec3A::from_array(self.center) + self.motion().offset(t),
        }
    }

    /// Signed distance from `p` to the obstacle where it is at time `t` (negative inside); for
    /// many points, [`placed_at`](Self::placed_at) once.
    pub fn distance_at(&self, p: Vec3A, t: f64) -> f32 {
        self.placed_at(t).distance(p)
    }
}

/// An obstacle's shape at one pose.
#[derive(Clone, Copy, Debug)]
pub struct Placed {
    shape: Shape,
    inverse: Quat,
    center: Vec3A,
}

impl Placed {
    /// Signed distance from `p` to the surface (negative inside).
    pub fn distance(&self, p: Vec3A) -> f32 {
        self.shape
            .surface(self.inverse * (p - self.center))
            .distance
    }
}
