//! An emitter's nozzle: its checks and its sites, the lattice points a layer leaves from.
//!
//! Owns: [`EmitterSpec::check`], [`EmitterSpec::sites`], [`EmitterSpec::zone`] and the
//! nozzle's frame. Does not touch: when layers leave (`mod`), whether there is room (`room`) or
//! what the guide does (`guide`).

use super::guide::{Footprint, Zone};
use crate::scene::{BoxSpec, EmitterSpec, NozzleKind};
use glam::Vec3A;

impl EmitterSpec {
    /// The first thing wrong with this emitter inside `tank`, as `(key, message)`.
    pub fn check(&self, tank: &BoxSpec) -> Result<(), (String, String)> {
        let bad = |key: &str, msg: String| Err((key.to_string(), msg));
        let finite3 = |v: [f32; 3]| v.iter().all(|x| x.is_finite());
        if !finite3(self.center) {
            return bad("center", format!("must be finite, got {:?}", self.center));
        }
        if !(0..3).all(|a| self.center[a] > tank.min[a] && self.center[a] < tank.max[a]) {
            return bad(
                "center",
                format!(
                    "{:?} is not inside the tank min {:?} max {:?}",
                    self.center, tank.min, tank.max
                ),
            );
        }
        let d = Vec3A::from_array(self.direction);
        if !(d.is_finite() && d.length() > 0.0) {
            return bad(
                "direction",
                format!("must be a nonzero vector, got {:?}", self.direction),
            );
        }
        if !(self.speed.is_finite() && self.speed > 0.0) {
            return bad("speed", format!("must be positive, got {}", self.speed));
        }
        if !(self.start.is_finite() && self.start >= 0.0) {
            return bad("start", format!("must be >= 0, got {}", self.start));
        }
        if !(self.end.is_finite() && self.end >= self.start) {
            return bad(
                "end",
                format!("must be at least start ({}), got {}", self.start, self.end),
            );
        }
        match self.shape {
            NozzleKind::Rect => match self.size {
                None => return bad("size", "a rect nozzle needs size = [width, height]".into()),
                Some(s) if !s.iter().all(|x| x.is_finite() && *x > 0.0) => {
                    return bad("size", format!("must be positive, got {s:?}"));
                }
                _ if self.radius.is_some() => {
                    return bad("radius", "is not a key of a rect nozzle (remove it)".into());
                }
                _ => {}
            },
            NozzleKind::Circle => match self.radius {
                None => return bad("radius", "a circle nozzle needs a radius".into()),
                Some(r) if !(r.is_finite() && r > 0.0) => {
                    return bad("radius", format!("must be positive, got {r}"));
                }
                _ if self.size.is_some() => {
                    return bad("size", "is not a key of a circle nozzle (remove it)".into());
                }
                _ => {}
            },
        }
        Ok(())
    }

    /// The unit direction.
    pub fn unit_direction(&self) -> Vec3A {
        Vec3A::from_array(self.direction).normalize()
    }

    /// The nozzle's axes across the direction: width along `up × d` (x when d is vertical),
    /// height along `d × width`.
    pub fn axes(&self) -> (Vec3A, Vec3A) {
        let d = self.unit_direction();
        let w = Vec3A::Y.cross(d);
        let w = if w.length() > 1e-6 {
            w.normalize()
        } else {
            Vec3A::X
        };
        (w, d.cross(w))
    }

    /// The sites a layer leaves from: the lattice of spacing `s` across the nozzle, centred on
    /// it (`round(width / s)` by `round(height / s)` for a rect, so its sites cover its area;
    /// for a circle, the lattice points within the radius, the lattice shifted by the half
    /// spacing or not along each axis, whichever gives the count closest to `π R² / s²`).
    /// Deterministic order.
    pub fn sites(&self, s: f32) -> Vec<Vec3A> {
        let c = Vec3A::from_array(self.center);
        let (u, v) = self.axes();
        let grid = |n: i64, a: i64| (a as f32 - (n - 1) as f32 / 2.0) * s;
        let mut out = Vec::new();
        match self.shape {
            NozzleKind::Rect => {
                let [w, h] = self.size.unwrap_or_default();
                let (nu, nv) = (
                    ((w / s).round() as i64).max(1),
                    ((h / s).round() as i64).max(1),
                );
                for b in 0..nv {
                    for a in 0..nu {
                        out.push(c + u * grid(nu, a) + v * grid(nv, b));
                    }
                }
            }
            NozzleKind::Circle => {
                let r = self.radius.unwrap_or_default();
                let m = (r / s).ceil() as i64 + 1;
                let disc = |(ou, ov): (f32, f32)| -> Vec<(f32, f32)> {
                    let mut pts = Vec::new();
                    for b in -m..=m {
                        for a in -m..=m {
                            let (x, y) = ((a as f32 + ou) * s, (b as f32 + ov) * s);
                            if x * x + y * y < r * r {
                                pts.push((x, y));
                            }
                        }
                    }
                    pts
                };
                let area = std::f32::consts::PI * r * r / (s * s);
                let best = [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)]
                    .map(disc)
                    .into_iter()
                    .min_by(|a, b| {
                        (a.len() as f32 - area)
                            .abs()
                            .total_cmp(&(b.len() as f32 - area).abs())
                    })
                    .unwrap_or_default();
                out.extend(best.into_iter().map(|(x, y)| c + u * x + v * y));
            }
        }
        out
    }

    /// The guide zone of this nozzle for lattice spacing `s` and kernel radius `h` (see
    /// `guide`): from `s / 2` behind the nozzle to `h` in front, across the extent of its sites
    /// plus `s / 2`.
    pub fn zone(&self, s: f32, h: f32) -> Zone {
        let footprint = match self.shape {
            NozzleKind::Rect => {
                let [w, ht] = self.size.unwrap_or_default();
                let n = |x: f32| ((x / s).round()).max(1.0);
                Footprint::Rect {
                    half_u: n(w) * s / 2.0,
                    half_v: n(ht) * s / 2.0,
                }
            }
            NozzleKind::Circle => Footprint::Circle {
                radius: self.radius.unwrap_or_default() + s / 2.0,
            },
        };
        let d = self.unit_direction();
        Zone {
            center: Vec3A::from_array(self.center),
            direction: d,
            axes: self.axes(),
            footprint,
            behind: s / 2.0,
            ahead: h,
            velocity: d * self.speed,
        }
    }
}
