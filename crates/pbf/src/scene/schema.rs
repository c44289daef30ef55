//! The scene file's schema: the serde structs and their defaults. Unknown keys and wrong types
//! are errors with file, line and column (`deny_unknown_fields`).
//!
//! Owns: the keys and their defaults (documented here and, with comments, in
//! `configs/dam_break.toml`). Does not touch: checks beyond the types (validate) or the
//! simulation (build).

use crate::sph::KernelKind;
use nsearch::{CellSize, SearchMode};
use serde::{Deserialize, Serialize};

/// A whole scene.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Name, used for the output folder and the series file (`.pvd` or `.vtk.series`) (default: the file's stem).
    #[serde(default)]
    pub name: String,
    /// The box the fluid lives in.
    pub tank: BoxSpec,
    /// Blocks of water, each filled on a cubic lattice of spacing 2r (none if an emitter
    /// brings all the water).
    #[serde(default)]
    pub fluid: Vec<FluidBlock>,
    pub particles: Particles,
    #[serde(default)]
    pub physics: Physics,
    pub time: Time,
    #[serde(default)]
    pub pbf: PbfParams,
    /// `[surface_tension]`: off unless a method is chosen.
    #[serde(default)]
    pub surface_tension: SurfaceTensionParams,
    #[serde(default)]
    pub search: Search,
    #[serde(default)]
    pub output: Output,
    /// Solids in the tank (`[[obstacle]]`); fluid never enters them.
    #[serde(default)]
    pub obstacle: Vec<ObstacleSpec>,
    /// Inflow (`[[emitter]]`): layers of particles leaving a flat nozzle.
    #[serde(default)]
    pub emitter: Vec<EmitterSpec>,
}

/// A block of water (`[[fluid]]`), filled on the rest lattice.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FluidBlock {
    pub min: [f32; 3],
    pub max: [f32; 3],
    /// Initial velocity (m/s, default zero).
    #[serde(default)]
    pub velocity: [f32; 3],
    /// When the block appears (s, default 0): its sites already taken by fluid stay empty.
    #[serde(default)]
    pub start: f32,
}

/// An inflow nozzle: each time the last layer has moved one lattice spacing on, a new layer of
/// particles leaves the nozzle, at every site of it where there is room.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct EmitterSpec {
    pub shape: NozzleKind,
    /// The nozzle's centre (m).
    pub center: [f32; 3],
    /// Where the particles go (normalised by the code).
    pub direction: [f32; 3],
    /// `rect`: width and height across the direction (m): width along the horizontal axis
    /// `up × direction` (x if the direction is vertical), height along `direction × width`.
    #[serde(default)]
    pub size: Option<[f32; 2]>,
    /// `circle`: radius (m).
    #[serde(default)]
    pub radius: Option<f32>,
    /// Speed along the direction (m/s).
    pub speed: f32,
    /// When it opens (s; default 0).
    #[serde(default)]
    pub start: f32,
    /// When it closes (s; default: open to the scene's `time.end`, see [`EmitterSpec::closes`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<f32>,
}

impl EmitterSpec {
    /// When the nozzle closes in a scene ending at `time_end`: its `end`, or `time_end` when it
    /// has none (open for the whole run).
    pub fn closes(&self, time_end: f32) -> f32 {
        self.end.unwrap_or(time_end)
    }
}

/// A nozzle's shape.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum NozzleKind {
    Rect,
    Circle,
}

/// A solid in the tank: a box, a cylinder or a sphere, rotated, optionally moving.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ObstacleSpec {
    pub shape: ShapeKind,
    /// Centre (m); a motion moves it.
    pub center: [f32; 3],
    /// Box: half extents along its own axes (m).
    #[serde(default)]
    pub half_extents: Option<[f32; 3]>,
    /// Cylinder and sphere: radius (m).
    #[serde(default)]
    pub radius: Option<f32>,
    /// Cylinder: half length along its own y axis (m).
    #[serde(default)]
    pub half_length: Option<f32>,
    /// Degrees about x, then y, then z (default none).
    #[serde(default)]
    pub rotation: [f32; 3],
    /// How the centre moves (default: it stays).
    #[serde(default)]
    pub motion: Option<MotionSpec>,
}

/// An obstacle's shape.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ShapeKind {
    Box,
    Cylinder,
    Sphere,
}

/// An obstacle's motion: its centre's offset against time.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum MotionSpec {
    /// `amplitude · sin(2π t / period + phase)`, phase in radians (default 0).
    Sine {
        amplitude: [f32; 3],
        period: f32,
        #[serde(default)]
        phase: f32,
    },
    /// Moving at `velocity` from `start` (default 0) to `end` (default: for ever), at rest
    /// before and after.
    Linear {
        velocity: [f32; 3],
        #[serde(default)]
        start: f32,
        #[serde(default)]
        end: Option<f32>,
    },
    /// Piecewise linear through `positions` (offsets from the centre) at `times` (s,
    /// increasing), held at the first and last position outside them.
    Path {
        times: Vec<f32>,
        positions: Vec<[f32; 3]>,
    },
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
    /// How a fluid block is filled (default `volume`).
    #[serde(default)]
    pub fill: Fill,
    /// Whether blocks resting on the floor start compressed as the solver holds water at rest
    /// (default `hydrostatic`).
    #[serde(default)]
    pub start_compression: StartCompression,
}

/// `particles.start_compression`: the density a block at rest on the tank's floor starts with.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StartCompression {
    /// Each layer closer to the floor by the density excess PBF's iterations carry the weight
    /// above it with (`Scene::hydrostatic_gradient`): the water starts where it rests, so a
    /// column neither drops nor rings. Blocks that start later, move, float or lie under
    /// gravity that is not along an axis are filled as `none`.
    #[default]
    Hydrostatic,
    /// The lattice at rest density everywhere: a column sinks into the excess the solver needs,
    /// then rings (as before 2026-11-25).
    None,
}

/// `particles.fill`: how many lattice sites a block of side L gets along each axis.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Fill {
    /// `round(L / 2r)`: each particle stands for a cube of side 2r, so the particles hold the
    /// block's volume, and a block against a wall has its outer layer r from it, where the
    /// wall keeps particles: water filling a tank is at rest from the start.
    #[default]
    Volume,
    /// `ceil(L / 2r) − 1`, as SPlisHSPlasH fills its blocks (49³ for a 1 m cube at r = 0.01):
    /// one layer fewer, 2r inside each face. For particle counts equal to the peer's.
    Splishsplash,
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
    /// Constraint iterations per step (default 3), unless `max_density_error` is set.
    pub iterations: u32,
    /// Iterate until the mean density excess is at most this, in percent of ρ0 (SPlisHSPlasH's
    /// `maxError`), between `min_iterations` and `max_iterations`; unset (the default): a fixed
    /// `iterations`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_density_error: Option<f32>,
    /// With `max_density_error`: the fewest iterations (default: enough for the deepest water
    /// at rest to be within the error, at least [`DEFAULT_MIN_ITERATIONS`], at most
    /// `max_iterations`; see [`crate::scene::Scene::min_iterations`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_iterations: Option<u32>,
    /// With `max_density_error`: the most iterations (default 100).
    pub max_iterations: u32,
    /// Under-relaxation of each iteration's correction: `"auto"` (the default, from the rest
    /// lattice, see the solver docs) or a number in (0, 1].
    pub omega: Omega,
    /// Constraint relaxation: ε = relaxation · S0 is added to the λ denominator, S0 being that
    /// denominator for a particle at rest inside the fluid (default 1e-3; see the solver docs).
    pub relaxation: f32,
    /// Artificial pressure strength k, as a fraction of the λ scale (default 0.01; see the solver
    /// docs for why this is not the paper's 0.1). It moves particles every iteration, so as an
    /// acceleration its push on pairs closer than the rest spacing goes as 1 / dt².
    pub scorr_k: f32,
    /// Artificial pressure exponent n (default 4, 1 to 16).
    pub scorr_n: u32,
    /// Artificial pressure reference distance Δq as a fraction of h (default 0.2).
    pub scorr_dq: f32,
    /// Vorticity confinement strength ε_vort (default 0.01).
    pub vorticity: f32,
    /// XSPH viscosity coefficient c (default 0.01): the share of the neighbors' mean velocity
    /// mixed in each step, so the viscosity it stands for goes as c h² / dt.
    pub xsph: f32,
    /// Whether the tank's lattice walls carry the fluid's pressure gradient (default true): a
    /// particle beside one feels the whole gradient of λ, not only its neighbors' part of it
    /// (`boundary::support`). False: the model before 2026-11-27. Mirror walls and solids
    /// never carry it.
    pub wall_gradient: bool,
    /// The pair of kernels: `"poly6_spiky"` (the default: poly6 for density, the spiky gradient
    /// for corrections and forces, as Macklin & Müller), `"cubic_spline"` (the cubic spline and
    /// its own gradient, as SPlisHSPlasH), `"spiky"` (spiky for both) or `"wendland_c2"`
    /// (Wendland's C2 function and its own gradient, as DualSPHysics):
    /// [`crate::sph::kernels`]. Written only when not the default, so the scene key of a
    /// checkpoint from before this key existed still matches (`checkpoint::scene_key`).
    #[serde(skip_serializing_if = "is_default")]
    pub kernel: KernelKind,
    /// How the tank's walls enter the density constraint: `"lattice"` (the default: a frozen
    /// lattice of wall particles, tabulated, with the pressure-gradient support of
    /// `wall_gradient`) or `"mirror"` (the mirror image of the water: `boundary::mirror`).
    /// Obstacles keep the lattice either way. Written only when not the default (as `kernel`).
    #[serde(skip_serializing_if = "is_default")]
    pub walls: WallModel,
}

/// `pbf.walls`: what the tank's walls are to the density constraint.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum WallModel {
    /// A frozen lattice of wall particles behind each wall, tabulated by distance
    /// (`boundary::wall_table`), with the pressure-gradient support (`pbf.wall_gradient`).
    #[default]
    Lattice,
    /// The mirror image of the water across each wall, edge and corner (`boundary::mirror`).
    Mirror,
}

/// Whether `value` is its type's default: a key added after checkpoints were first written is
/// serialized only when set, so those checkpoints' scene keys still match.
fn is_default<T: Default + PartialEq>(value: &T) -> bool {
    *value == T::default()
}

/// The fewest iterations of a solve that stops on a density error, whatever the water's depth
/// (the default minimum is this or the count at which water at rest carries at most the error
/// asked for, whichever is more: [`crate::scene::Scene::min_iterations`]).
///
/// SPlisHSPlasH stops at 2. Here, a 1 m column at `max_density_error = 0.1` and dt 2 ms then
/// settles into a limit cycle: steps that stop after 2-4 iterations alternate with steps of 50
/// or more, and the bottom density swings between 998 and 1003.8 kg/m³ (docs/results.md, stop
/// 27).
pub const DEFAULT_MIN_ITERATIONS: u32 = 5;

impl Default for PbfParams {
    fn default() -> Self {
        PbfParams {
            iterations: 3,
            max_density_error: None,
            min_iterations: None,
            max_iterations: 100,
            omega: Omega::Auto,
            relaxation: 1e-3,
            scorr_k: 0.01,
            scorr_n: 4,
            scorr_dq: 0.2,
            vorticity: 0.01,
            xsph: 0.01,
            wall_gradient: true,
            kernel: KernelKind::Poly6Spiky,
            walls: WallModel::Lattice,
        }
    }
}

/// `pbf.omega`: `"auto"` or a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Omega {
    Auto,
    Value(f32),
}

impl Serialize for Omega {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Omega::Auto => s.serialize_str("auto"),
            Omega::Value(w) => s.serialize_f32(*w),
        }
    }
}

impl<'de> Deserialize<'de> for Omega {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = Omega;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"auto\" or a number in (0, 1]")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Omega, E> {
                match v {
                    "auto" => Ok(Omega::Auto),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Omega, E> {
                Ok(Omega::Value(v as f32))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Omega, E> {
                Ok(Omega::Value(v as f32))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Omega, E> {
                Ok(Omega::Value(v as f32))
            }
        }
        d.deserialize_any(V)
    }
}

/// Surface tension (`[surface_tension]`).
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SurfaceTensionParams {
    /// `none` (default) or `akinci2013` (Akinci, Akinci & Teschner 2013: cohesion and
    /// curvature).
    pub method: SurfaceTensionMethod,
    /// Its strength γ (default 0.05).
    pub coefficient: f32,
    /// Fluid–solid adhesion β (default 0; Akinci et al. 2013, with `akinci2013` only).
    pub adhesion: f32,
}

impl Default for SurfaceTensionParams {
    fn default() -> Self {
        SurfaceTensionParams {
            method: SurfaceTensionMethod::None,
            coefficient: 0.05,
            adhesion: 0.0,
        }
    }
}

/// A surface tension model.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum SurfaceTensionMethod {
    #[default]
    None,
    Akinci2013,
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
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Frame format (default `vtu`).
    pub format: Format,
    /// Frames per simulated second (default 30).
    pub fps: f32,
    /// Book the tank's walls' pushes for `forces.csv` (default true; `boundary::wall_push`):
    /// off, the walls cost nothing to watch (3-8% of a step with lattice walls when much of the
    /// water is near them) and `forces.csv` has the obstacles alone.
    pub wall_forces: bool,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            format: Format::Vtu,
            fps: 30.0,
            wall_forces: true,
        }
    }
}

fn default_rest_density() -> f32 {
    1000.0
}
