//! Scene files: TOML read with serde (unknown keys and wrong types are errors with file, line and
//! column), overrides by dotted path (`--set particles.radius=0.025`), semantic checks, and the
//! sampling of fluid blocks into particles, and the size estimate that guards memory.
//!
//! Owns: the scene description ([`schema`]), loading ([`Scene::load`]), overrides
//! ([`overrides`]), validation ([`validate`]), fluid sampling ([`sample`]; blocks touching at the
//! start: `contacts`), the hydrostatic start of water at rest ([`hydrostatic`]), doubts about
//! what moves (`motion_check`) and building the simulation from a scene ([`build`]). Does not
//! touch: the step.
//!
//! Every key and its default is documented on the structs of [`schema`] and, with comments, in
//! `configs/dam_break.toml`.

pub mod build;
mod contacts;
pub mod estimate;
pub mod hydrostatic;
mod motion_check;
pub mod obstacles;
mod origin;
pub mod overrides;
pub mod sample;
pub mod schema;
pub mod validate;

pub use schema::*;

/// A time the scene gives in seconds (read as f32), as the decimal written in the file: the
/// shortest decimal that reads back as `x` (`0.01`, not `0.009999999776`). Every scheduled time
/// and the solver's clock (`steps × dt`) are taken this way, so a step, a frame or an event due
/// at a time the scene writes falls on it whatever the binary rounding of `dt` (a clock summed
/// from the f32 step drifts from the decimal by that rounding every step).
pub fn seconds(x: f32) -> f64 {
    let decimal = x.to_string().parse::<f64>();
    decimal.unwrap_or(x as f64)
}

/// The gain `ω a_max` that `pbf.omega = "auto"` aims at: a Jacobi iteration multiplies the
/// error of the pattern it overshoots most by `1 − ω a_max = −0.5`, so every pattern's error
/// shrinks, at least by half for those it overshoots. With ω = 1 that factor is −1.8 at
/// h = 4r and −4.1 at 5.4r: the fluid rings, and at 5.4r it blows up (docs/results.md).
pub const OMEGA_GAIN: f32 = 1.5;

use overrides::apply_override;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Why a scene could not be used. Each names the file and, where there is one, the key.
#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("{path}: cannot read the scene file")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Syntax, unknown key or wrong type: toml's message carries line, column and the key.
    #[error("{path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("{path}: --set {arg}: {message}")]
    Override {
        path: PathBuf,
        arg: String,
        message: String,
    },
    #[error("{path}: {field}: {message}")]
    Invalid {
        path: PathBuf,
        field: String,
        message: String,
    },
}

/// The first array of `given` (the file, overrides applied) longer than the same key's array in
/// `read` (the scene as deserialized, serialized back): its dotted key and both lengths.
fn longer_arrays(
    given: &toml::Table,
    read: &toml::Table,
    at: &str,
) -> Option<(String, usize, usize)> {
    fn walk(
        given: &toml::Value,
        read: &toml::Value,
        key: String,
    ) -> Option<(String, usize, usize)> {
        match (given, read) {
            (toml::Value::Table(g), toml::Value::Table(r)) => longer_arrays(g, r, &key),
            (toml::Value::Array(g), toml::Value::Array(r)) => {
                if g.len() > r.len() {
                    return Some((key, r.len(), g.len()));
                }
                g.iter()
                    .zip(r)
                    .enumerate()
                    .find_map(|(k, (g, r))| walk(g, r, format!("{key}[{k}]")))
            }
            _ => None,
        }
    }
    given.iter().find_map(|(k, g)| {
        let key = if at.is_empty() {
            k.clone()
        } else {
            format!("{at}.{k}")
        };
        read.get(k).and_then(|r| walk(g, r, key))
    })
}

impl Scene {
    /// Read, apply `overrides` (`key.path=value`, the value in TOML syntax or a bare string),
    /// deserialize and validate.
    pub fn load(path: &Path, overrides: &[String]) -> Result<Scene, SceneError> {
        let text = std::fs::read_to_string(path).map_err(|source| SceneError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let parse = |message: String| SceneError::Parse {
            path: path.to_path_buf(),
            message: message.trim_end().to_string(),
        };
        let mut doc: toml::Table = toml::from_str(&text).map_err(|e| parse(e.to_string()))?;
        let mut scene: Scene = if overrides.is_empty() {
            // Straight from the text: toml's errors then carry line and column.
            toml::from_str(&text).map_err(|e| parse(e.to_string()))?
        } else {
            for arg in overrides {
                apply_override(&mut doc, arg).map_err(|message| SceneError::Override {
                    path: path.to_path_buf(),
                    arg: arg.clone(),
                    message,
                })?;
            }
            Scene::deserialize(doc.clone()).map_err(|e| {
                // toml names the table it was in on a line of its own, not always the key
                // (nor a list entry's index); the text read back names both.
                let full = e.to_string();
                let (message, within) = full
                    .split_once("\nin `")
                    .map_or((full.as_str(), None), |(m, k)| {
                        (m, k.trim_end().strip_suffix('`'))
                    });
                let at = overrides::key_of_error::<Scene>(&doc)
                    .or(within.map(str::to_string))
                    .map_or_else(String::new, |k| format!("{k}: "));
                parse(format!("after --set overrides: {at}{}", message.trim_end()))
            })?
        };
        // serde reads the first elements of a fixed-size array and ignores the rest: an array
        // longer than its key takes is an error, not silently cut.
        if let Ok(toml::Value::Table(read)) = toml::Value::try_from(&scene)
            && let Some((key, want, got)) = longer_arrays(&doc, &read, "")
        {
            return Err(SceneError::Invalid {
                path: path.to_path_buf(),
                field: key,
                message: format!("expected {want} elements, got {got}"),
            });
        }
        if scene.name.is_empty() {
            scene.name = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("scene")
                .to_string();
        }
        scene.validate(path)?;
        Ok(scene)
    }

    /// The kernel radius h (default 4r).
    pub fn kernel_radius(&self) -> f32 {
        self.particles
            .kernel_radius
            .unwrap_or(4.0 * self.particles.radius)
    }

    /// The kernels of this scene: `pbf.kernel` with support radius [`Self::kernel_radius`].
    pub fn kernels(&self) -> crate::sph::Kernels {
        crate::sph::Kernels::with_kind(self.kernel_radius(), self.pbf.kernel)
    }

    /// Lattice spacing 2r.
    pub fn spacing(&self) -> f32 {
        2.0 * self.particles.radius
    }

    /// The density solve's under-relaxation ω: `pbf.omega`, or for `"auto"`
    /// `min(1, OMEGA_GAIN / a_max)`, `a_max` the largest gain of a Jacobi iteration on this
    /// scene's rest lattice ([`crate::sph::lattice::jacobi_gain`]).
    pub fn omega(&self) -> f32 {
        match self.pbf.omega {
            Omega::Value(w) => w,
            Omega::Auto => {
                let k = self.kernels();
                let gain = crate::sph::lattice::jacobi_gain(&k, self.spacing());
                (OMEGA_GAIN / gain).min(1.0)
            }
        }
    }

    /// What in this scene can put mechanical energy into the water, if anything (the first
    /// found): inflow, blocks that appear later, moving solids, or surface tension (it turns
    /// surface energy into motion). `None`: the water's kinetic plus potential energy can only
    /// fall (gravity is conservative, fixed walls and solids and the pressure do no net work,
    /// viscosity takes energy out), so a rise is the solver putting energy in, which a run
    /// reports (`io::energy::gain`).
    pub fn energy_source(&self) -> Option<&'static str> {
        if !self.emitter.is_empty() {
            Some("inflow")
        } else if self.fluid.iter().any(|b| b.start > 0.0) {
            Some("blocks that appear later")
        } else if self.obstacle.iter().any(|o| o.motion.is_some()) {
            Some("moving solids")
        } else if self.surface_tension.method != schema::SurfaceTensionMethod::None {
            Some("surface tension")
        } else {
            None
        }
    }

    /// No gravity and every block at rest: the water starts without mechanical energy, so a
    /// run's energy watch has nothing to measure a rise against (`io::energy::gain` is `None`).
    pub fn starts_without_energy(&self) -> bool {
        self.physics.gravity == [0.0; 3] && self.fluid.iter().all(|b| b.velocity == [0.0; 3])
    }

    /// Doubts about a valid scene, for the user to read (empty when there are none).
    ///
    /// The time step: neighbors are found once per step, from the predicted positions, so a
    /// particle should move well under the kernel radius h in one step. The check takes the
    /// fastest water this scene can make without emitters or moving walls: a fall through the
    /// tank's whole height along gravity, `v = sqrt(2 |g| H)`, and warns when `v dt > h`.
    pub fn warnings(&self) -> Vec<String> {
        let g = self.physics.gravity;
        let g_len = g.iter().map(|x| x * x).sum::<f32>().sqrt();
        let mut out = Vec::new();
        if g_len > 0.0 {
            let height: f32 = (0..3)
                .map(|a| (g[a] / g_len).abs() * (self.tank.max[a] - self.tank.min[a]))
                .sum();
            let v = (2.0 * g_len * height).sqrt();
            let (dt, h) = (self.time.dt, self.kernel_radius());
            if v * dt > h {
                out.push(format!(
                    "time.dt = {dt} s: water falling the tank's height ({height:.3} m) reaches \
                     {v:.2} m/s and would move {} m in one step, more than the kernel radius \
                     h = {h} m (neighbors are found once per step); dt <= {:.2e} s keeps it \
                     within h",
                    if v * dt < 100.0 {
                        format!("{:.4}", v * dt)
                    } else {
                        format!("{:.3e}", v * dt)
                    },
                    h / v
                ));
            }
        }
        out.extend(self.frame_rate_warning());
        out.extend(self.thin_block_warnings());
        out.extend(self.inflow_warnings());
        out.extend(self.motion_warnings());
        out.extend(self.iteration_warnings());
        out
    }

    /// Frames asked for more often than the steps come: a frame is taken at the first step at or
    /// after its time, so there is at most one a step.
    fn frame_rate_warning(&self) -> Option<String> {
        let (fps, dt) = (seconds(self.output.fps), seconds(self.time.dt));
        (fps * dt > 1.0 + 1e-9).then(|| {
            format!(
                "output.fps = {}: a frame every {:.3e} s, but a step is {} s and frames are taken \
                 at steps: there will be one a step ({} per second); fps <= {} asks for no more",
                self.output.fps,
                1.0 / fps,
                self.time.dt,
                short(1.0 / dt),
                short(1.0 / dt)
            )
        })
    }

    /// Blocks thinner than r along an axis: their one layer of particles holds a slab 2r thick,
    /// more water than the block (the volume fill's `round(L / 2r)` would give none).
    fn thin_block_warnings(&self) -> Vec<String> {
        let (s, r) = (self.spacing(), self.particles.radius);
        let mut out = Vec::new();
        for (k, b) in self.fluid.iter().enumerate() {
            let sides = (0..3).map(|a| b.max[a] - b.min[a]);
            let thin: Vec<String> = sides
                .zip(["x", "y", "z"])
                .filter(|&(l, _)| l < r)
                .map(|(l, axis)| format!("{l:.4} m along {axis}"))
                .collect();
            if !thin.is_empty() {
                let excess: f32 = (0..3)
                    .map(|a| s.max(b.max[a] - b.min[a]) / (b.max[a] - b.min[a]))
                    .product();
                out.push(format!(
                    "fluid[{k}] is thinner than r = {r} m ({}): it gets one layer of particles, \
                     each holding a (2r)^3 cube, so {excess:.1} times the block's water",
                    thin.join(", ")
                ));
            }
        }
        out
    }

    /// Sources that give no water, or give it into a solid: a block or an emitter that starts
    /// at or after `time.end`, a block whose every site lies within r of an obstacle, and an
    /// emitter whose sites lie within r of one when it opens (they emit nothing while it is
    /// there), an emitter reaching past the tank's walls (its sites there never emit), a
    /// nozzle under water when it opens (a site with a particle within 2r does not emit), a
    /// nozzle overlapping an earlier one open at the same time (the earlier one fills the
    /// shared sites), and a nozzle facing a wall or fixed solid closer than its guide zone
    /// and free run (its jet is not held all the way, so it falls short of its schedule).
    fn inflow_warnings(&self) -> Vec<String> {
        let end = self.time.end;
        let mut out = Vec::new();
        for (k, b) in self.fluid.iter().enumerate() {
            if b.start > 0.0 && b.start >= end {
                out.push(format!(
                    "fluid[{k}].start = {} s is not before time.end = {end} s: the block \
                     appears only in a run taken past the scene's end (--until, --steps)",
                    b.start
                ));
            } else if !self.obstacle.is_empty() && self.block_sites(k).is_empty() {
                out.push(format!(
                    "fluid[{k}]: every lattice site lies inside or within r of an obstacle: the \
                     block adds no particle"
                ));
            }
        }
        for (k, e) in self.emitter.iter().enumerate() {
            if e.start >= end {
                out.push(format!(
                    "emitter[{k}].start = {} s is not before time.end = {end} s: it opens \
                     only in a run taken past the scene's end (--until, --steps)",
                    e.start
                ));
                continue;
            }
            let all = e.sites(self.spacing()).len();
            let sites = e.sites_in(self.spacing(), &self.tank);
            if sites.is_empty() {
                out.push(format!(
                    "emitter[{k}]: none of its {all} sites lies at least r inside the tank's \
                     walls, so it never emits: move its center at least r = {} m inside",
                    self.particles.radius
                ));
            } else if sites.len() < all {
                out.push(format!(
                    "emitter[{k}]: {} of its {all} sites lie outside the tank or within r of \
                     its walls and never emit: the jet carries the flux of the part inside \
                     ({} sites)",
                    all - sites.len(),
                    sites.len()
                ));
            }
            // Under water a site has no room: no particle may be within 2r of it.
            for (j, b) in self.fluid.iter().enumerate() {
                let under = sites
                    .iter()
                    .filter(|p| (0..3).all(|a| p[a] > b.min[a] && p[a] < b.max[a]))
                    .count();
                if b.start <= e.start && under > 0 {
                    out.push(format!(
                        "emitter[{k}]: {under} of its {} sites lie inside fluid[{j}] when it \
                         opens (t = {} s): a site emits only where no particle is within 2r, \
                         so a nozzle under water gives little or nothing until the water \
                         there moves away",
                        sites.len(),
                        e.start
                    ));
                }
            }
            // Sites of an earlier nozzle open at the same time take the room first.
            let s = self.spacing();
            for (j, f) in self.emitter.iter().enumerate().take(k) {
                let (from, to) = (e.start.max(f.start), e.closes(end).min(f.closes(end)));
                if from > to {
                    continue;
                }
                let theirs = f.sites_in(s, &self.tank);
                let shared = sites
                    .iter()
                    .filter(|p| theirs.iter().any(|q| p.distance(*q) < 0.999 * s))
                    .count();
                if shared > 0 {
                    out.push(format!(
                        "emitter[{k}]: {shared} of its {} sites lie closer than 2r to sites of \
                         emitter[{j}], open at the same time ({from} s to {to} s): a site emits \
                         only where no particle is within 2r, so emitter[{j}] fills those first \
                         and they carry one jet's flux, not two",
                        sites.len()
                    ));
                }
            }
            let r = self.particles.radius;
            // A jet is held to its velocity only where it has free run ahead
            // (`inflow::guide::Guides::velocity`): the whole guide zone (h) is held when a
            // point h + that run ahead of the nozzle is clear of the walls and fixed solids.
            let keep = crate::inflow::keep(s);
            let zone = e.zone(s, self.kernel_radius());
            let reach = self.kernel_radius() + zone.free_run();
            let ahead = e.unit_direction() * reach;
            let fixed: Vec<_> = (self.obstacle.iter())
                .filter(|o| o.motion.is_none())
                .map(|o| o.placed_at(seconds(e.start)))
                .collect();
            let clear = |q: glam::Vec3A| {
                (0..3).all(|a| q[a] - self.tank.min[a] >= keep && self.tank.max[a] - q[a] >= keep)
                    && fixed.iter().all(|o| o.distance(q) >= keep)
            };
            let short_run = (sites.iter())
                .filter(|&&p| clear(p) && !clear(p + ahead))
                .count();
            if short_run > 0 {
                out.push(format!(
                    "emitter[{k}]: {short_run} of its {} sites face a wall or a fixed solid \
                     less than {} m ahead along the jet (its guide zone h, then the free run \
                     it needs, the larger of h and its area over its perimeter, then r): a jet \
                     is held to its velocity only where that run lies ahead (held up to the \
                     wall, it would squeeze the water there out faster than it came), so this \
                     close it meets the wall as free water and delivers less than its schedule",
                    sites.len(),
                    short(f64::from(reach + r))
                ));
            }
            for (j, o) in self.obstacle.iter().enumerate() {
                let placed = o.placed_at(seconds(e.start));
                let inside = sites.iter().filter(|&&p| placed.distance(p) < r).count();
                if inside > 0 {
                    out.push(format!(
                        "emitter[{k}]: {inside} of its {} sites lie inside or within r of \
                         obstacle[{j}] when it opens (t = {} s): they emit nothing while the \
                         solid is there",
                        sites.len(),
                        e.start
                    ));
                }
            }
        }
        out
    }
}

/// `x` with at most 4 decimals and none trailing (`250`, `333.3333`).
fn short(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
