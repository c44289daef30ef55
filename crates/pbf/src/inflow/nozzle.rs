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
        if let Some(end) = self.end
            && !(end.is_finite() && end >= self.start)
        {
            return bad(
                "end",
                format!("must be at least start ({}), got {end}", self.start),
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

    /// The sites a layer leaves from: a lattice across the nozzle, centred on it. Deterministic
    /// order.
    /// - rect: `round(width / s)` by `round(height / s)` sites (at least one each), spaced
    ///   `width / n` and `height / n` so that they tile the nozzle's area exactly;
    /// - circle: the lattice points of spacing `s` within the radius, the lattice shifted by the
    ///   half spacing or not along each axis, whichever gives the count `n` closest to
    ///   `π R² / s²` (and at least one site, the centre, for a nozzle smaller than a spacing),
    ///   then spaced [`circle_spacing`](Self::circle_spacing) apart so that, as a rect's, they
    ///   tile the nozzle's area exactly.
    pub fn sites(&self, s: f32) -> Vec<Vec3A> {
        let c = Vec3A::from_array(self.center);
        let (u, v) = self.axes();
        let mut out = Vec::new();
        match self.shape {
            NozzleKind::Rect => {
                let ((nu, su), (nv, sv)) = self.rect_rows(s);
                let grid = |n: i64, a: i64, step: f32| (a as f32 - (n - 1) as f32 / 2.0) * step;
                for b in 0..nv {
                    for a in 0..nu {
                        out.push(c + u * grid(nu, a, su) + v * grid(nv, b, sv));
                    }
                }
            }
            NozzleKind::Circle => {
                let disc = self.circle_disc(s);
                let k = self.circle_spacing(s, disc.len()) / s;
                out.extend(disc.into_iter().map(|(x, y)| c + u * (k * x) + v * (k * y)));
            }
        }
        out
    }

    /// A circle nozzle's lattice points of spacing `s` within its radius, in the nozzle's axes
    /// (see [`sites`](Self::sites)).
    fn circle_disc(&self, s: f32) -> Vec<(f32, f32)> {
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
        let area = self.area() / (s * s);
        [(0.0, 0.0), (0.5, 0.0), (0.0, 0.5), (0.5, 0.5)]
            .map(disc)
            .into_iter()
            .filter(|pts| !pts.is_empty())
            .min_by(|a, b| {
                (a.len() as f32 - area)
                    .abs()
                    .total_cmp(&(b.len() as f32 - area).abs())
            })
            .unwrap_or_else(|| vec![(0.0, 0.0)])
    }

    /// The spacing across a circle nozzle of `n` sites: `√(π R² / n)`, so that each site carries
    /// its share of the area (a single site: `s`). The `n` lattice points of spacing `s` within
    /// the radius do not cover its edge exactly (12 for the 12.6 spacings² of a radius of 2
    /// spacings); left at spacing `s`, the layers would close up to carry the flux, the jet would
    /// leave denser than the water, and that excess, let go at the end of the guide zone, would
    /// drive its core faster than the nozzle.
    pub fn circle_spacing(&self, s: f32, n: usize) -> f32 {
        if n > 1 {
            (self.area() / n as f32).sqrt()
        } else {
            s
        }
    }

    /// The [`sites`](Self::sites) that lie inside `tank` at least r = s / 2 from its walls,
    /// where the walls keep particles: a nozzle reaching past a wall (or up to it) delivers
    /// through its part inside only, at the flux per area of the whole (its layers stay
    /// [`pitch`](Self::pitch) apart), rather than creating particles the walls would throw back
    /// at many metres a second.
    pub fn sites_in(&self, s: f32, tank: &BoxSpec) -> Vec<Vec3A> {
        let keep = super::keep(s);
        let mut sites = self.sites(s);
        sites.retain(|p| (0..3).all(|a| p[a] - tank.min[a] >= keep && tank.max[a] - p[a] >= keep));
        sites
    }

    /// The nozzle's area across its direction, in m².
    pub fn area(&self) -> f32 {
        match self.shape {
            NozzleKind::Rect => {
                let [w, h] = self.size.unwrap_or_default();
                w * h
            }
            NozzleKind::Circle => std::f32::consts::PI * self.radius.unwrap_or_default().powi(2),
        }
    }

    /// The distance between consecutive layers along the direction, for lattice spacing `s`:
    /// each particle holds the volume `s³` (its mass is ρ0 s³), so layers of `n` sites leaving
    /// `s³ n / area` apart carry exactly the nozzle's flux, `area × speed / s³` particles per
    /// second, whatever the sites' count. It is `s` when the sites tile the area at spacing `s`
    /// (a rect whose sides are whole spacings); otherwise the layers close up or open out by
    /// as much as the sites' spacing across differs, so the particles keep their volume.
    pub fn pitch(&self, s: f32) -> f32 {
        self.pitch_of(s, self.sites(s).len())
    }

    /// [`pitch`](Self::pitch) for `sites` sites a layer.
    fn pitch_of(&self, s: f32, sites: usize) -> f32 {
        s.powi(3) * sites as f32 / self.area()
    }

    /// How close two sites of one layer, or of consecutive layers `pitch` apart, come: the room
    /// a new particle needs (see `room`).
    fn closest(&self, s: f32, pitch: f32) -> f32 {
        let across = match self.shape {
            NozzleKind::Rect => {
                let ((nu, su), (nv, sv)) = self.rect_rows(s);
                let su = if nu > 1 { su } else { f32::INFINITY };
                let sv = if nv > 1 { sv } else { f32::INFINITY };
                su.min(sv)
            }
            NozzleKind::Circle => self.circle_spacing(s, self.circle_disc(s).len()),
        };
        across.min(pitch)
    }

    /// A rect nozzle's rows along its two axes: how many sites, and their spacing.
    fn rect_rows(&self, s: f32) -> ((i64, f32), (i64, f32)) {
        let [w, h] = self.size.unwrap_or_default();
        let row = |len: f32| {
            let n = ((len / s).round() as i64).max(1);
            (n, len / n as f32)
        };
        (row(w), row(h))
    }

    /// Everything a run needs of this nozzle in `tank` for lattice spacing `s` and kernel
    /// radius `h` (its sites: [`sites_in`](Self::sites_in)).
    pub fn layout(&self, s: f32, h: f32, tank: &BoxSpec) -> super::Nozzle {
        let sites = self.sites_in(s, tank);
        let pitch = self.pitch(s);
        super::Nozzle {
            sites,
            pitch,
            closest: self.closest(s, pitch),
            zone: self.zone(s, h),
        }
    }

    /// The guide zone of this nozzle for lattice spacing `s` and kernel radius `h` (see
    /// `guide`): from `s / 2` behind the nozzle to `h` in front, across the nozzle (a rect's
    /// area, which its sites tile; a circle's radius plus `s / 2`).
    pub fn zone(&self, s: f32, h: f32) -> Zone {
        let footprint = match self.shape {
            NozzleKind::Rect => {
                let [w, ht] = self.size.unwrap_or_default();
                Footprint::Rect {
                    half_u: w / 2.0,
                    half_v: ht / 2.0,
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
