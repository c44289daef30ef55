//! Scene files: TOML read with serde (unknown keys and wrong types are errors with file, line and
//! column), overrides by dotted path (`--set particles.radius=0.025`), semantic checks, and the
//! sampling of fluid blocks into particles.
//!
//! Owns: the scene description and its validation. Does not touch: the solver state.
//!
//! Every key and its default is documented on the structs below and, with comments, in
//! `configs/dam_break.toml`.

use glam::Vec3A;
use nsearch::{CellSize, SearchMode};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A whole scene.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Name, used for the output folder and the series file (`.pvd` or `.vtk.series`) (default: the file's stem).
    #[serde(default)]
    pub name: String,
    /// The box the fluid lives in.
    pub tank: BoxSpec,
    /// Blocks of water, each filled on a cubic lattice of spacing 2r.
    pub fluid: Vec<BoxSpec>,
    pub particles: Particles,
    #[serde(default)]
    pub physics: Physics,
    pub time: Time,
    #[serde(default)]
    pub pbf: PbfParams,
    #[serde(default)]
    pub search: Search,
    #[serde(default)]
    pub output: Output,
}

/// An axis-aligned box, corners in metres.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BoxSpec {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Particles {
    /// Particle radius r in metres; the lattice spacing is 2r.
    pub radius: f32,
    /// Kernel (search) radius h in metres (default 4r).
    #[serde(default)]
    pub kernel_radius: Option<f32>,
    /// Rest density in kg/m³ (default 1000).
    #[serde(default = "default_rest_density")]
    pub rest_density: f32,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Physics {
    /// Gravity in m/s² (default [0, -9.81, 0]).
    pub gravity: [f32; 3],
}

impl Default for Physics {
    fn default() -> Self {
        Physics {
            gravity: [0.0, -9.81, 0.0],
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Time {
    /// Fixed time step in seconds.
    pub dt: f32,
    /// Simulated end time in seconds.
    pub end: f32,
}

/// Position Based Fluids parameters (Macklin & Müller 2013).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PbfParams {
    /// Constraint iterations per step (default 3).
    pub iterations: u32,
    /// Constraint relaxation: ε = relaxation · S0 is added to the λ denominator, S0 being that
    /// denominator for a particle at rest inside the fluid (default 1e-3; see the solver docs).
    pub relaxation: f32,
    /// Artificial pressure strength k, as a fraction of the λ scale (default 0.01; see the solver
    /// docs for why this is not the paper's 0.1).
    pub scorr_k: f32,
    /// Artificial pressure exponent n (default 4, 1 to 16).
    pub scorr_n: u32,
    /// Artificial pressure reference distance Δq as a fraction of h (default 0.2).
    pub scorr_dq: f32,
    /// Vorticity confinement strength ε_vort (default 0.01).
    pub vorticity: f32,
    /// XSPH viscosity coefficient c (default 0.01).
    pub xsph: f32,
}

impl Default for PbfParams {
    fn default() -> Self {
        PbfParams {
            iterations: 3,
            relaxation: 1e-3,
            scorr_k: 0.01,
            scorr_n: 4,
            scorr_dq: 0.2,
            vorticity: 0.01,
            xsph: 0.01,
        }
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Search {
    /// `pruned` (default) or `unpruned`.
    pub mode: SearchMode,
    /// `h` (default, 3 x 3 x 3 stencil) or `half` (h/2, 5 x 5 x 5).
    pub cell_size: CellSize,
}

/// Frame format.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// XML UnstructuredGrid, inline base64 (default).
    #[default]
    Vtu,
    /// Legacy VTK 4.2, big-endian binary.
    Vtk,
    /// No frames (timing runs).
    None,
}

impl Format {
    /// Every format.
    pub const ALL: [Format; 3] = [Format::Vtu, Format::Vtk, Format::None];

    /// The format's name, as scene files and `FromStr` read it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Vtu => "vtu",
            Format::Vtk => "vtk",
            Format::None => "none",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| format!("unknown format {s:?}: expected vtu, vtk or none"))
    }
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Frame format (default `vtu`).
    pub format: Format,
    /// Frames per simulated second (default 30).
    pub fps: f32,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            format: Format::Vtu,
            fps: 30.0,
        }
    }
}

fn default_rest_density() -> f32 {
    1000.0
}

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
        let mut scene: Scene = if overrides.is_empty() {
            toml::from_str(&text).map_err(|e| parse(e.to_string()))?
        } else {
            let mut doc: toml::Table = toml::from_str(&text).map_err(|e| parse(e.to_string()))?;
            for arg in overrides {
                apply_override(&mut doc, arg).map_err(|message| SceneError::Override {
                    path: path.to_path_buf(),
                    arg: arg.clone(),
                    message,
                })?;
            }
            Scene::deserialize(doc).map_err(|e| parse(format!("after --set overrides: {e}")))?
        };
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

    /// Lattice spacing 2r.
    pub fn spacing(&self) -> f32 {
        2.0 * self.particles.radius
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
        out
    }

    /// Semantic checks on top of the types.
    pub fn validate(&self, path: &Path) -> Result<(), SceneError> {
        let bad = |field: &str, message: String| {
            Err(SceneError::Invalid {
                path: path.to_path_buf(),
                field: field.to_string(),
                message,
            })
        };
        let finite3 = |v: [f32; 3]| v.iter().all(|x| x.is_finite());
        let p = &self.particles;
        if !(p.radius.is_finite() && p.radius > 0.0) {
            return bad(
                "particles.radius",
                format!("must be positive, got {}", p.radius),
            );
        }
        let h = self.kernel_radius();
        if !(h.is_finite() && h > self.spacing()) {
            return bad(
                "particles.kernel_radius",
                format!("must exceed the spacing 2r = {}, got {h}", self.spacing()),
            );
        }
        if !(p.rest_density.is_finite() && p.rest_density > 0.0) {
            return bad(
                "particles.rest_density",
                format!("must be positive, got {}", p.rest_density),
            );
        }
        let t = &self.tank;
        if !(finite3(t.min)
            && finite3(t.max)
            && (0..3).all(|a| t.max[a] - t.min[a] > self.spacing()))
        {
            return bad(
                "tank",
                format!(
                    "max must exceed min by more than the spacing on every axis, got min {:?} max {:?}",
                    t.min, t.max
                ),
            );
        }
        if self.fluid.is_empty() {
            return bad("fluid", "at least one fluid block is needed".into());
        }
        for (k, b) in self.fluid.iter().enumerate() {
            let field = format!("fluid[{k}]");
            if !(finite3(b.min) && finite3(b.max) && (0..3).all(|a| b.max[a] > b.min[a])) {
                return bad(
                    &field,
                    format!(
                        "max must exceed min on every axis, got min {:?} max {:?}",
                        b.min, b.max
                    ),
                );
            }
            if !(0..3).all(|a| b.min[a] >= t.min[a] && b.max[a] <= t.max[a]) {
                return bad(
                    &field,
                    format!(
                        "block min {:?} max {:?} is not inside the tank min {:?} max {:?}",
                        b.min, b.max, t.min, t.max
                    ),
                );
            }
        }
        if !finite3(self.physics.gravity) {
            return bad("physics.gravity", "must be finite".into());
        }
        if !(self.time.dt.is_finite() && self.time.dt > 0.0) {
            return bad("time.dt", format!("must be positive, got {}", self.time.dt));
        }
        if !(self.time.end.is_finite() && self.time.end >= 0.0) {
            return bad("time.end", format!("must be >= 0, got {}", self.time.end));
        }
        let q = &self.pbf;
        if q.iterations == 0 {
            return bad("pbf.iterations", "must be at least 1".into());
        }
        for (name, v) in [
            ("pbf.relaxation", q.relaxation),
            ("pbf.scorr_k", q.scorr_k),
            ("pbf.vorticity", q.vorticity),
            ("pbf.xsph", q.xsph),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(name, format!("must be >= 0, got {v}"));
            }
        }
        if !(1..=16).contains(&q.scorr_n) {
            return bad(
                "pbf.scorr_n",
                format!("must be an integer from 1 to 16, got {}", q.scorr_n),
            );
        }
        if !(q.scorr_dq.is_finite() && q.scorr_dq > 0.0 && q.scorr_dq < 1.0) {
            return bad(
                "pbf.scorr_dq",
                format!("must be in (0, 1) (a fraction of h), got {}", q.scorr_dq),
            );
        }
        if self.search.mode == SearchMode::Brute {
            return bad(
                "search.mode",
                "must be pruned or unpruned (brute is for tests)".into(),
            );
        }
        if !(self.output.fps.is_finite() && self.output.fps > 0.0) {
            return bad(
                "output.fps",
                format!("must be positive, got {}", self.output.fps),
            );
        }
        Ok(())
    }

    /// The fluid particles: each block filled on a lattice of spacing s = 2r, `ceil(L / s) - 1`
    /// per axis for a block of side L, centered in the block (as SPlisHSPlasH fills its blocks:
    /// 49³ = 117,649 for the 1 m cube at r = 0.01, 0.02 m inside each face), so particle
    /// counts and positions match the peer's, and a block symmetric about a plane gives a
    /// lattice symmetric about it. Deterministic order (block, z, y, x).
    pub fn sample_fluid(&self) -> Vec<Vec3A> {
        let s = self.spacing();
        let mut pts = Vec::new();
        for b in &self.fluid {
            let n: [usize; 3] = std::array::from_fn(|a| {
                (((b.max[a] - b.min[a]) / s - 1e-4).ceil() as usize).max(2) - 1
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

/// Set `a.b.c = value` in a TOML table; the value is parsed as TOML, or taken as a string.
fn apply_override(doc: &mut toml::Table, arg: &str) -> Result<(), String> {
    let (key, raw) = arg
        .split_once('=')
        .ok_or_else(|| "expected key.path=value".to_string())?;
    let parts: Vec<&str> = key.trim().split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!("bad key path '{key}'"));
    }
    let value: toml::Value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.trim().to_string()));
    let mut table = doc;
    for part in &parts[..parts.len() - 1] {
        let entry = table
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = entry
            .as_table_mut()
            .ok_or_else(|| format!("'{part}' is not a table"))?;
    }
    table.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}
