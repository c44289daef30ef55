//! Validation against experiment: the surge front of a collapsing water column, against
//! Martin & Moyce (1952) (`pbf validate`).
//!
//! Owns: the experimental data, the front's measurement ([`FrontTrack`], and the stepper
//! [`FrontRun`] that feeds it from the one step loop), the comparison and its reports. Does not
//! touch: the step itself.
//!
//! ## The experiment
//! J. C. Martin and W. J. Moyce, "An experimental study of the collapse of liquid columns on a
//! rigid horizontal plane", Phil. Trans. R. Soc. Lond. A 244 (1952) 312-324: a column of water
//! of width `a` and height `n² a` stands against the end wall of a channel; the dam is removed and
//! the surge front runs along the floor. [`MARTIN_MOYCE`] is their run with `n² = 2` and
//! `a = 2¼ in` (5.7 cm): the front's distance from the end wall `Z = z / a` against the
//! dimensionless time `T = t √(2 g / a)`, the values tabulated in many SPH and MPS validations
//! since Koshizuka & Oka (1996). (Two independent tabulations of this run, one read from the
//! paper's tables and one digitized from its Figure 3, agree to 0.03 in Z.)
//!
//! S. Koshizuka and Y. Oka, "Moving-particle semi-implicit method for fragmentation of
//! incompressible fluid", Nucl. Sci. Eng. 123 (1996) 421-434, repeated the experiment with a
//! column `L` = 14.6 cm wide and `2L` high (the same `n² = 2`, two and a half times Martin &
//! Moyce's width): [`KOSHIZUKA_OKA`] is its front, `Z = z / L` against `T = t √(2 g / L)`, as
//! digitized from their figure in PySPH's dam-break examples (`db_exp_data.py`). Both runs are
//! compared ([`EXPERIMENTS`]); `--tolerance` judges against Martin & Moyce's.
//!
//! ## The simulation's front
//! `a` is the column's initial width, from the end wall to the outer face of its last particle
//! (`max x + r`), so `Z(0) = 1`; the front at any time is likewise `max x + r` from that wall.
//! The column must stand against the tank's low-x wall with gravity along -y; its height gives
//! `n²` (reported: the data are for `n² = 2`). The measurement ends when the front comes within
//! `2r` of the far wall, where the surge stops being a free front.

use super::report::{self, BLACK_RGBA, Panel, Series, Table, chart, color};
use crate::run::{Flow, RunError, Stepper};
use crate::scene::Scene;
use crate::solver::Solver;
use glam::Vec3A;

/// The `pbf validate` stepper: steps a solver and records the front after every step, until the
/// front is blocked by the far wall.
pub struct FrontRun<'a> {
    pub solver: &'a mut Solver,
    pub track: &'a mut FrontTrack,
}

impl Stepper for FrontRun<'_> {
    type Error = RunError;

    fn solver(&self) -> &Solver {
        self.solver
    }

    fn step(&mut self, _: u64) -> Result<(), RunError> {
        self.solver.step();
        Ok(())
    }

    fn after_step(&mut self, _: u64) -> Result<Flow, RunError> {
        Ok(
            if self.track.record(self.solver.time, &self.solver.fluid.x) {
                Flow::Continue
            } else {
                Flow::Stop
            },
        )
    }
}

/// Martin & Moyce (1952), `n² = 2`, `a = 2¼ in`: `(T, Z)` with `T = t √(2 g / a)` and `Z` the
/// surge front's distance from the end wall over `a`.
pub const MARTIN_MOYCE: [(f64, f64); 15] = [
    (0.41, 1.11),
    (0.84, 1.22),
    (1.19, 1.44),
    (1.43, 1.67),
    (1.63, 1.89),
    (1.83, 2.11),
    (1.98, 2.33),
    (2.20, 2.56),
    (2.32, 2.78),
    (2.51, 3.00),
    (2.65, 3.22),
    (2.83, 3.44),
    (2.98, 3.67),
    (3.11, 3.89),
    (3.33, 4.11),
];

/// Koshizuka & Oka (1996), `n² = 2`, `L = 14.6 cm`: `(T, Z)` scaled as [`MARTIN_MOYCE`] (their
/// point at `T = 0`, `Z = 1`, is every track's start and is left out).
pub const KOSHIZUKA_OKA: [(f64, f64); 8] = [
    (0.381, 1.111),
    (0.769, 1.252),
    (1.153, 1.505),
    (1.537, 1.892),
    (1.935, 2.241),
    (2.323, 2.615),
    (2.719, 3.003),
    (3.096, 3.624),
];

/// A measured surge front of a column with `n² = 2`.
#[derive(Clone, Copy, Debug)]
pub struct Experiment {
    /// Who measured it, and the column's width.
    pub name: &'static str,
    /// Its key in `validation.json` (`experiments`).
    pub key: &'static str,
    /// `(T, Z)`, `T` ascending.
    pub points: &'static [(f64, f64)],
}

/// The experiments every run is compared with; the first is the one `--tolerance` judges by.
pub const EXPERIMENTS: [Experiment; 2] = [
    Experiment {
        name: "Martin & Moyce (1952), a = 2.25 in",
        key: "martin_moyce_1952",
        points: &MARTIN_MOYCE,
    },
    Experiment {
        name: "Koshizuka & Oka (1996), L = 14.6 cm",
        key: "koshizuka_oka_1996",
        points: &KOSHIZUKA_OKA,
    },
];

/// The front's track through one run: `(T, Z)` after every step, scaled as the experiment.
#[derive(Clone, Debug)]
pub struct FrontTrack {
    /// Initial column width `a` (m).
    pub a: f64,
    /// Initial column height over `a`: the experiment's `n²`.
    pub n2: f64,
    /// `√(2 g / a)`: multiplies seconds into `T`.
    pub time_scale: f64,
    wall: f64,
    far: f64,
    r: f64,
    /// `(T, Z)` samples, `T` ascending, starting with `(0, 1)`.
    pub samples: Vec<(f64, f64)>,
    /// Whether the front has reached the far wall (no samples are taken after).
    pub blocked: bool,
}

/// Why a scene cannot be compared with the experiment.
#[derive(Debug, thiserror::Error)]
pub enum ValidationError {
    #[error("gravity must point along -y for the column to collapse along the floor, got {0:?}")]
    Gravity([f32; 3]),
    #[error("the scene has no fluid particles")]
    Empty,
    #[error(
        "the water's front (x = {front:.3} m) leaves the surge no room before the far wall \
         (x = {far:.3} m): it could run {reach:.2} column widths, and Martin & Moyce's first \
         point is at 1.11 (their last at 4.11); stand the column against the tank's low-x \
         wall with about 3 column widths of floor in front of it"
    )]
    NoRoom { front: f64, far: f64, reach: f64 },
}

impl FrontTrack {
    /// Start a track for `scene`, whose fluid particles start at `x`.
    pub fn new(scene: &Scene, x: &[Vec3A]) -> Result<FrontTrack, ValidationError> {
        let g = scene.physics.gravity;
        if !(g[1] < 0.0 && g[0] == 0.0 && g[2] == 0.0) {
            return Err(ValidationError::Gravity(g));
        }
        if x.is_empty() {
            return Err(ValidationError::Empty);
        }
        let r = scene.particles.radius as f64;
        let wall = scene.tank.min[0] as f64;
        let top = x.iter().map(|p| p.y).fold(f32::MIN, f32::max) as f64 + r;
        let a = front(x) as f64 + r - wall;
        let height = top - scene.tank.min[1] as f64;
        let far = scene.tank.max[0] as f64;
        let track = FrontTrack {
            a,
            n2: height / a,
            time_scale: (2.0 * -g[1] as f64 / a).sqrt(),
            wall,
            far,
            r,
            samples: vec![(0.0, 1.0)],
            blocked: false,
        };
        if track.reach() <= MARTIN_MOYCE[0].1 {
            return Err(ValidationError::NoRoom {
                front: a - r + wall,
                far,
                reach: track.reach(),
            });
        }
        Ok(track)
    }

    /// The largest `Z` the front can reach before [`record`](Self::record) counts it as
    /// blocked by the far wall (2r from it).
    pub fn reach(&self) -> f64 {
        (self.far - 2.0 * self.r - self.wall) / self.a
    }

    /// The simulated time (s) at which `T` is reached.
    pub fn seconds(&self, t: f64) -> f64 {
        t / self.time_scale
    }

    /// Record the state at simulated time `time` (s). Returns false once the front has reached
    /// the far wall (nothing is recorded then).
    pub fn record(&mut self, time: f64, x: &[Vec3A]) -> bool {
        if self.blocked {
            return false;
        }
        let z = front(x) as f64 + self.r;
        if z >= self.far - 2.0 * self.r {
            self.blocked = true;
            return false;
        }
        self.samples
            .push((time * self.time_scale, (z - self.wall) / self.a));
        true
    }

    /// `Z` at `T`, interpolated linearly between samples (`None` outside the track).
    pub fn z_at(&self, t: f64) -> Option<f64> {
        let k = self.samples.partition_point(|&(s, _)| s < t);
        if k == self.samples.len() {
            return None;
        }
        if k == 0 {
            return (self.samples[0].0 == t).then_some(self.samples[0].1);
        }
        let ((t0, z0), (t1, z1)) = (self.samples[k - 1], self.samples[k]);
        Some(z0 + (z1 - z0) * (t - t0) / (t1 - t0))
    }

    /// Martin & Moyce's points with the simulation's `Z` at the same `T` (those the track
    /// covers).
    pub fn compare(&self) -> Vec<Comparison> {
        self.compare_with(&EXPERIMENTS[0])
    }

    /// `experiment`'s points with the simulation's `Z` at the same `T` (those the track covers).
    pub fn compare_with(&self, experiment: &Experiment) -> Vec<Comparison> {
        experiment
            .points
            .iter()
            .filter_map(|&(t, z)| {
                self.z_at(t).map(|sim| Comparison {
                    t,
                    experiment: z,
                    simulation: sim,
                })
            })
            .collect()
    }
}

/// The front: the largest x of any particle (the leading edge of the surge runs along the floor).
pub fn front(x: &[Vec3A]) -> f32 {
    x.iter().map(|p| p.x).fold(f32::MIN, f32::max)
}

/// One experimental point against the simulation.
#[derive(Clone, Copy, Debug)]
pub struct Comparison {
    pub t: f64,
    pub experiment: f64,
    pub simulation: f64,
}

impl Comparison {
    /// Relative difference of the simulation from the experiment, in %.
    pub fn error_pct(&self) -> f64 {
        100.0 * (self.simulation - self.experiment) / self.experiment
    }
}

/// Mean and largest `|difference|` in % over `rows` (0 for none).
pub fn summary(rows: &[Comparison]) -> (f64, f64) {
    let abs = rows.iter().map(|c| c.error_pct().abs());
    let mean = abs.clone().sum::<f64>() / rows.len().max(1) as f64;
    (mean, abs.fold(0.0, f64::max))
}

/// One resolution's run: what `pbf validate` reports for each particle radius.
#[derive(Clone, Debug)]
pub struct Run {
    /// Particle radius r (m).
    pub radius: f32,
    /// Time step (s).
    pub dt: f32,
    pub particles: usize,
    pub track: FrontTrack,
}

impl Run {
    /// The run's label in tables and charts.
    pub fn label(&self) -> String {
        format!("r = {} m, {} particles", self.radius, self.particles)
    }
}

/// The runs as JSON: per run the column, and per experiment every covered point and the summary
/// (`experiments.<key>`); Martin & Moyce's also at the run's top level, as before the second
/// experiment came.
pub fn json(scene: &str, runs: &[Run]) -> String {
    let runs: Vec<serde_json::Value> = runs
        .iter()
        .map(|run| {
            let experiments: serde_json::Map<String, serde_json::Value> = EXPERIMENTS
                .iter()
                .map(|e| (e.key.to_string(), compared(e, &run.track.compare_with(e))))
                .collect();
            let mut v = serde_json::json!({
                // Through their shortest decimal form, so 0.005 reads 0.005 and not its f64 widening.
                "radius": run.radius.to_string().parse::<f64>().unwrap_or(f64::NAN),
                "dt": run.dt.to_string().parse::<f64>().unwrap_or(f64::NAN),
                "particles": run.particles,
                "a_m": run.track.a,
                "n2": run.track.n2,
                "front_blocked_by_far_wall": run.track.blocked,
            });
            let first = experiments[EXPERIMENTS[0].key].as_object().cloned();
            let top = v.as_object_mut().expect("a JSON object");
            top.extend(first.into_iter().flatten().filter(|(k, _)| k != "name"));
            top.insert("experiments".into(), experiments.into());
            v
        })
        .collect();
    let v = serde_json::json!({ "scene": scene, "experiment": "Martin & Moyce (1952), n2 = 2, a = 2.25 in", "runs": runs });
    serde_json::to_string_pretty(&v).expect("JSON of plain values") + "\n"
}

/// One experiment's comparison in `validation.json`: its name, every covered point and the
/// summary.
fn compared(experiment: &Experiment, rows: &[Comparison]) -> serde_json::Value {
    let (mean, largest) = summary(rows);
    serde_json::json!({
        "name": experiment.name,
        "points": rows.iter().map(|c| serde_json::json!({
            "T": c.t,
            "Z_experiment": c.experiment,
            "Z_simulation": c.simulation,
            "difference_pct": c.error_pct(),
        })).collect::<Vec<_>>(),
        "points_covered": rows.len(),
        "points_measured": experiment.points.len(),
        "mean_abs_difference_pct": mean,
        "max_abs_difference_pct": largest,
    })
}

/// The comparison with `experiment` as a table, with the mean and largest absolute difference.
pub fn table(experiment: &Experiment, rows: &[Comparison]) -> String {
    let mut t = Table::new(&[
        ("T", 6),
        ("Z experiment", 14),
        ("Z simulation", 14),
        ("difference", 12),
    ]);
    for c in rows {
        t.row([
            format!("{:.2}", c.t),
            format!("{:.2}", c.experiment),
            format!("{:.3}", c.simulation),
            format!("{:.1}%", c.error_pct()),
        ]);
    }
    if !rows.is_empty() {
        let (mean, largest) = summary(rows);
        t.note(&format!(
            "mean |difference| {mean:.1}%, largest {largest:.1}% ({} of {} experimental points covered)",
            rows.len(),
            experiment.points.len()
        ));
    }
    t.text().to_string()
}

/// Every sample of every run: `radius,T,Z,t_s`.
pub fn csv(runs: &[Run]) -> String {
    report::csv(
        &["radius", "T", "Z", "t_s"],
        runs.iter().flat_map(|run| {
            run.track.samples.iter().map(|&(t, z)| {
                [
                    run.radius.to_string(),
                    format!("{t:.5}"),
                    format!("{z:.5}"),
                    format!("{:.6}", run.track.seconds(t)),
                ]
            })
        }),
    )
}

/// `Z` against `T`: each run as a line, the experiment as points.
pub fn svg(title: &str, runs: &[Run]) -> Result<String, String> {
    let mut panel = Panel::new(
        format!(
            "{title}: surge front against Martin & Moyce (1952) and Koshizuka & Oka (1996), n² = 2"
        ),
        "T = t sqrt(2 g / a)",
        "Z = front / a",
    );
    panel.legend_upper_left = true;
    panel.series = runs
        .iter()
        .enumerate()
        .map(|(k, run)| {
            let label = format!(
                "{} (a = {:.4} m, n² = {:.2})",
                run.label(),
                run.track.a,
                run.track.n2
            );
            Series::line(label, run.track.samples.clone(), color(k))
        })
        .collect();
    for (k, e) in EXPERIMENTS.iter().enumerate() {
        let rgba = if k == 0 {
            BLACK_RGBA
        } else {
            color(runs.len() + k)
        };
        panel
            .series
            .push(Series::dots(e.name, e.points.to_vec(), rgba, 5));
    }
    chart(&[panel.fit(0.1)], 900, 560)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track(samples: Vec<(f64, f64)>) -> FrontTrack {
        FrontTrack {
            a: 0.2,
            n2: 2.0,
            time_scale: 1.0,
            wall: 0.0,
            far: 1.0,
            r: 0.005,
            samples,
            blocked: false,
        }
    }

    #[test]
    fn interpolation_and_coverage() {
        let t = track(vec![(0.0, 1.0), (1.0, 2.0), (2.0, 4.0)]);
        assert_eq!(t.z_at(0.0), Some(1.0));
        assert_eq!(t.z_at(0.5), Some(1.5));
        assert_eq!(t.z_at(1.5), Some(3.0));
        assert_eq!(t.z_at(2.5), None);
        // Only the experimental points with T <= 2 are covered.
        let rows = t.compare();
        assert_eq!(
            rows.len(),
            MARTIN_MOYCE.iter().filter(|p| p.0 <= 2.0).count()
        );
        assert!((rows[0].simulation - (1.0 + 0.41)).abs() < 1e-12);
        let ko = t.compare_with(&EXPERIMENTS[1]);
        assert_eq!(
            ko.len(),
            KOSHIZUKA_OKA.iter().filter(|p| p.0 <= 2.0).count()
        );
        assert!((ko[0].simulation - (1.0 + 0.381)).abs() < 1e-12);
    }

    /// Each experiment's front starts beyond the column's width and only moves on, and behind
    /// the frictionless shallow-water (Ritter) front `Z = 1 + 2T` (a guard against a mistyped
    /// point).
    #[test]
    fn the_experiments_fronts_advance_behind_ritters() {
        for e in &EXPERIMENTS {
            assert!(e.points[0].1 > 1.0, "{}", e.name);
            for w in e.points.windows(2) {
                assert!(w[1].0 > w[0].0 && w[1].1 > w[0].1, "{}: {w:?}", e.name);
            }
            for &(t, z) in e.points {
                assert!(z < 1.0 + 2.0 * t, "{}: ({t}, {z})", e.name);
            }
        }
    }
}
