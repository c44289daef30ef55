//! The run summary (`summary.json`) and the phase totals it reports.
//!
//! Owns: [`Phases`], [`RunSummary`] and its JSON, [`peak_rss_bytes`]. Does not touch: timing
//! itself (the solver measures its phases) or where the file goes (the run).

use crate::solver::StepTimes;
use nsearch::{Backend, SearchMode, SearchStats};

/// Phase totals of a run, in seconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Phases {
    pub construction: f64,
    pub search: f64,
    pub behavior: f64,
    /// Collision handling for obstacles (part of the step; see `StepTimes::collisions`).
    pub collisions: f64,
    /// The density solve (part of the behavior).
    #[serde(default)]
    pub density_solve: f64,
    /// The non-pressure forces' walk (part of the behavior).
    #[serde(default)]
    pub forces: f64,
    pub output: f64,
    /// Writing checkpoints (outside the steps).
    #[serde(default)]
    pub checkpoint: f64,
    pub step: f64,
}

impl Phases {
    /// Add one step's times.
    pub fn add(&mut self, t: &StepTimes) {
        self.construction += t.construction;
        self.search += t.search;
        self.behavior += t.behavior;
        self.collisions += t.collisions;
        self.density_solve += t.density_solve;
        self.forces += t.forces;
        self.step += t.step;
    }

    /// The phase table of a run of `steps` steps: mean ms per step and total s per phase.
    pub fn table(&self, steps: u64) -> String {
        use std::fmt::Write as _;
        let k = steps.max(1) as f64;
        let mut s = format!(
            "{:<28} {:>12} {:>12} {:>8}\n",
            "phase", "mean ms", "total s", "of step"
        );
        let collisions =
            (self.collisions > 0.0).then_some(("collisions (obstacles)", self.collisions));
        for (name, v) in [
            Some(("construction", self.construction)),
            Some(("search", self.search)),
            Some(("construction + search", self.construction + self.search)),
            Some(("particle behavior", self.behavior)),
            Some(("  density solve", self.density_solve)),
            Some(("  forces", self.forces)),
            Some((
                "  velocities and densities",
                (self.behavior - self.density_solve - self.forces).max(0.0),
            )),
            collisions,
            Some(("output (solver side)", self.output)),
            (self.checkpoint > 0.0).then_some(("checkpoints", self.checkpoint)),
            Some(("whole step", self.step)),
        ]
        .into_iter()
        .flatten()
        {
            let share = 100.0 * v / self.step.max(f64::MIN_POSITIVE);
            let _ = writeln!(
                s,
                "{name:<28} {:>12.2} {:>12.2} {:>7.1}%",
                v * 1e3 / k,
                v,
                share
            );
        }
        s
    }
}

/// What a run saw of its state at every frame time (the start and the end included), written
/// whatever the output format: how close particles came to the tank's walls and to the
/// obstacles (signed distances, negative inside; `f32::INFINITY` without obstacles) and the
/// fastest particle, so a leak or a blow-up shows in the summary.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Watch {
    #[serde(with = "infinite_as_null")]
    pub tank_clearance: f32,
    #[serde(with = "infinite_as_null")]
    pub obstacle_clearance: f32,
    pub max_speed: f32,
    /// Particle radius: the colliders keep particles this far from every surface.
    pub radius: f32,
}

impl Watch {
    /// Nothing seen yet, for particles of radius `radius`.
    pub fn new(radius: f32) -> Self {
        Watch {
            tank_clearance: f32::INFINITY,
            obstacle_clearance: f32::INFINITY,
            max_speed: 0.0,
            radius,
        }
    }

    /// Fold in one look: the closest approaches and the fastest speed so far.
    pub fn add(&mut self, tank: f32, obstacles: f32, max_speed: f32) {
        self.tank_clearance = self.tank_clearance.min(tank);
        self.obstacle_clearance = self.obstacle_clearance.min(obstacles);
        self.max_speed = self.max_speed.max(max_speed);
    }

    /// The run's closing line about it.
    pub fn line(&self) -> String {
        if !self.tank_clearance.is_finite() {
            return "closest approach at frame times: no particle in any frame".into();
        }
        let obstacles = if self.obstacle_clearance.is_finite() {
            format!(", obstacles {:.5} m", self.obstacle_clearance)
        } else {
            String::new()
        };
        format!(
            "closest approach at frame times (r = {} m): tank walls {:.5} m{obstacles}; fastest particle {:.3} m/s",
            self.radius, self.tank_clearance, self.max_speed
        )
    }

    pub fn json(&self) -> serde_json::Value {
        let finite = |x: f32| x.is_finite().then_some(x);
        serde_json::json!({
            "radius_m": self.radius,
            "tank_clearance_m": finite(self.tank_clearance),
            "obstacle_clearance_m": finite(self.obstacle_clearance),
            "max_speed_m_s": self.max_speed,
        })
    }
}

/// An f32 that may be +infinity ("nothing seen"), as JSON: `null` for it (JSON has no
/// infinity), the number otherwise.
mod infinite_as_null {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(x: &f32, s: S) -> Result<S::Ok, S::Error> {
        match x.is_finite() {
            true => s.serialize_some(x),
            false => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
        Ok(Option::<f32>::deserialize(d)?.unwrap_or(f32::INFINITY))
    }
}

/// What a run did and how long it took.
#[derive(Clone, Debug)]
pub struct RunSummary {
    pub scene: String,
    /// Particles at the start.
    pub particles: usize,
    /// Particles at the end (more with inflow).
    pub particles_end: usize,
    /// Particles summed over the steps (each step's count at its search): the mean particle
    /// count is this over `steps`.
    pub particle_steps: u64,
    pub steps: u64,
    pub steps_planned: u64,
    pub interrupted: bool,
    pub sim_time_s: f64,
    pub threads: usize,
    pub search: SearchMode,
    pub search_backend: Backend,
    pub cpu: String,
    pub phases: Phases,
    pub counters: SearchStats,
    pub frames: usize,
    pub watch: Watch,
    /// Steps with a particle crossing the kernel radius in one step.
    pub fast_steps: u64,
    /// The density solves: iterations and the error reached.
    pub solve: crate::pressure::SolveTally,
    /// The density solve's under-relaxation ω.
    pub omega: f32,
    /// In a scene with nothing to put energy in (`Scene::energy_source`), the largest rise of
    /// the mechanical energy above its start (`io::energy::gain`); `None` in other scenes or
    /// with no energy at the start.
    pub energy_gain: Option<crate::io::energy::Gain>,
}

impl RunSummary {
    /// `summary.json`: the fields above, phases as mean and total ms, and the peak memory.
    pub fn to_json(&self) -> String {
        let k = self.steps.max(1) as f64;
        let ms = |total: f64| serde_json::json!({ "mean": total * 1e3 / k, "total": total * 1e3 });
        let ph = &self.phases;
        let json = serde_json::json!({
            "scene": self.scene,
            "particles": self.particles,
            "particles_end": self.particles_end,
            "particles_mean": self.particle_steps as f64 / k,
            "steps": self.steps,
            "steps_planned": self.steps_planned,
            "interrupted": self.interrupted,
            "sim_time_s": self.sim_time_s,
            "threads": self.threads,
            "search": self.search,
            "search_backend": self.search_backend,
            "cpu": self.cpu,
            "phases_ms": {
                "construction": ms(ph.construction),
                "search": ms(ph.search),
                "behavior": ms(ph.behavior),
                "density_solve": ms(ph.density_solve),
                "forces": ms(ph.forces),
                "collisions": ms(ph.collisions),
                "output": ms(ph.output),
                "checkpoint": ms(ph.checkpoint),
                "step": ms(ph.step),
            },
            "counters": self.counters,
            "frames": self.frames,
            "watch": self.watch.json(),
            "fast_steps": self.fast_steps,
            "energy_gain": self.energy_gain,
            "density_solve": {
                "omega": self.omega,
                "iterations_mean": self.solve.iterations_mean(),
                "iterations_max": self.solve.iterations_max,
                "density_error_mean_pct": self.solve.error_mean_pct(),
                "density_error_max_pct": 100.0 * self.solve.error_max,
            },
            "peak_rss_bytes": peak_rss_bytes(),
        });
        serde_json::to_string_pretty(&json).expect("a JSON value serializes")
    }

    /// The density solves, as the run's closing lines print them.
    pub fn solve_line(&self) -> String {
        let t = &self.solve;
        format!(
            "density solve: {:.2} iterations per step (most {}), omega {:.3}, mean density excess reached {:.3}% (worst step {:.3}%)",
            t.iterations_mean(),
            t.iterations_max,
            self.omega,
            t.error_mean_pct(),
            100.0 * t.error_max
        )
    }

    /// The search counters per step, as the run's closing line prints them.
    pub fn counters_line(&self) -> String {
        let k = self.steps.max(1) as f64;
        let c = &self.counters;
        format!(
            "search per step: {:.0} candidates, {:.0} neighbors ({:.1} per particle), {:.0} cells visited, {:.0} pruned",
            c.candidates as f64 / k,
            c.neighbors as f64 / k,
            c.neighbors as f64 / self.particle_steps.max(1) as f64,
            c.cells_visited as f64 / k,
            c.cells_pruned as f64 / k
        )
    }
}

/// The process's peak resident memory (Linux; 0 elsewhere).
pub fn peak_rss_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}

/// Memory this machine has available for a new process (Linux `MemAvailable`; `None`
/// elsewhere or when unreadable).
pub fn available_memory_bytes() -> Option<u64> {
    std::fs::read_to_string("/proc/meminfo")
        .ok()?
        .lines()
        .find(|l| l.starts_with("MemAvailable:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map(|kb| kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::Watch;

    #[test]
    fn a_run_without_particles_says_so_instead_of_an_infinite_clearance() {
        let empty = Watch::new(0.01);
        assert!(empty.line().contains("no particle"), "{}", empty.line());
        assert!(!empty.line().contains("inf"), "{}", empty.line());
        let mut seen = Watch::new(0.01);
        seen.add(0.0125, f32::INFINITY, 1.5);
        let line = seen.line();
        assert!(
            line.contains("tank walls 0.01250 m") && !line.contains("obstacles"),
            "{line}"
        );
    }
}
