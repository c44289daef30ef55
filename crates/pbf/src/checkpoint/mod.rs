//! Checkpoints: the complete state of a run at a step boundary, written atomically and read back
//! exactly, so a run resumed from one gives frames byte for byte equal to the uninterrupted run's,
//! whatever thread count either part ran with.
//!
//! Owns: [`Checkpoint`] (what is saved), its file format ([`mod@file`]: versioned, checksummed,
//! written through a temporary file, fsync and rename, the last two kept) and the scene key a
//! resumed run must match ([`scene_key`]). Does not touch: the step, or when checkpoints are
//! taken (the run decides).
//!
//! What is state: positions, velocities and ids in their slot order (the next grid sort starts
//! from that order), the step count and the simulated time (an f64 sum of the steps, saved
//! exactly), the inflow's schedule (the next layer of each nozzle, which timed blocks are
//! placed, the particles added), and the run's own bookkeeping (the next frame, the series
//! entries so far, the phase totals, counters and watch). Everything else is derived each step:
//! densities, vorticity, neighbor counts, the grid and lists, the obstacles' poses (a function of
//! time).

pub mod file;
pub mod scene_key;

use crate::inflow::InflowState;
use crate::io::summary::{Phases, Watch};
use crate::scene::Format;
use nsearch::SearchStats;
use serde::{Deserialize, Serialize};

pub use file::{CheckpointError, checkpoint_name, latest_checkpoint, read, write};

/// The solver's state at a step boundary.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverState {
    pub steps: u64,
    pub time: f64,
    /// What `x` is relative to (the solver's origin, see `Scene::origin`).
    pub origin: [f32; 3],
    pub x: Vec<[f32; 3]>,
    pub v: Vec<[f32; 3]>,
    pub id: Vec<u32>,
    /// Each particle's `(m/ρ) |ω|` of the last step (see `Fluid::swirl`).
    pub swirl: Vec<f32>,
    pub inflow: Option<InflowState>,
}

/// What the run had done by then (for frames, series and the summary to go on).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunState {
    /// The frame format the run writes (a resumed run must keep it: one series, one format).
    pub format: Format,
    /// The index of the next frame to write.
    pub next_frame: usize,
    /// The fluid series so far: (time, file) per frame written.
    pub frames: Vec<(f64, String)>,
    /// The obstacles' series so far.
    pub obstacle_frames: Vec<(f64, String)>,
    pub particles_start: usize,
    pub particle_steps: u64,
    pub phases: Phases,
    pub counters: SearchStats,
    pub watch: Watch,
    /// Steps with a particle crossing the kernel radius in one step.
    pub fast_steps: u64,
    /// The rows of `energy.csv` so far (one per frame time).
    #[serde(default)]
    pub measures: Vec<crate::io::energy::Measures>,
    /// The density solves so far.
    #[serde(default)]
    pub solve: crate::pressure::SolveTally,
    /// The rows of `forces.csv` so far, and each solid's and wall's impulse on the fluid since
    /// the last row (N s).
    #[serde(default)]
    pub forces: Vec<crate::io::forces::ForceRow>,
    #[serde(default)]
    pub impulse: Vec<[f64; 3]>,
}

/// A checkpoint: the scene it belongs to (its key, see [`scene_key`]), the solver's state and
/// the run's.
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    pub scene_name: String,
    pub scene_key: serde_json::Value,
    pub solver: SolverState,
    pub run: RunState,
}
