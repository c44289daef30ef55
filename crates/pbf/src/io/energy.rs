//! `energy.csv`: one row per frame time (written or not) with the fluid's energies, density
//! error, speeds and highest point, for users to plot (and `pbf` to judge still water, damping
//! and density control by).
//!
//! Owns: [`Measures`] and the CSV's columns and text, and the watch on a closed scene's energy
//! ([`EnergyWatch`], [`Gain`]). Does not touch: the solver (which measures) or when rows are
//! taken (the run).

use serde::{Deserialize, Serialize};

/// The state measured at one time (see `Solver::measures`). Energies in joules (the fluid's
/// total: particle mass times the sums), potential from the tank's lowest corner.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measures {
    pub time: f64,
    pub particles: usize,
    pub kinetic: f64,
    pub potential: f64,
    /// Mean over the particles of `max(ρ/ρ0 − 1, 0)`, in percent.
    pub density_error_pct: f64,
    pub density_max: f32,
    pub speed_mean: f64,
    pub speed_max: f32,
    /// The highest particle above the tank's lowest corner, along −g.
    pub top: f32,
}

/// The CSV's header line (units in the names).
pub const HEADER: &str = "time_s,particles,kinetic_J,potential_J,mechanical_J,density_error_pct,density_max_kg_m3,speed_mean_m_s,speed_max_m_s,top_m";

/// The CSV text of `rows`, header first.
pub fn csv_text(rows: &[Measures]) -> String {
    let mut s = String::with_capacity(64 + rows.len() * 120);
    s.push_str(HEADER);
    s.push('\n');
    for r in rows {
        s.push_str(&format!(
            "{:.6},{},{:.6e},{:.6e},{:.6e},{:.5},{:.3},{:.6e},{:.6e},{:.6}\n",
            r.time,
            r.particles,
            r.kinetic,
            r.potential,
            r.kinetic + r.potential,
            r.density_error_pct,
            r.density_max,
            r.speed_mean,
            r.speed_max,
            r.top
        ));
    }
    s
}

/// `energy.svg`: the energies, the density error and the fastest particle against time, for
/// `rows` of the run named `name`.
pub fn chart_svg(name: &str, rows: &[Measures]) -> Result<String, String> {
    use crate::experiments::report::{Panel, Series, chart, color};
    let pts = |f: &dyn Fn(&Measures) -> f64| -> Vec<(f64, f64)> {
        rows.iter().map(|r| (r.time, f(r))).collect()
    };
    let mut energy = Panel::new(
        format!("{name}: the fluid's energy (potential above the tank's lowest corner)"),
        "time [s]",
        "energy [J]",
    );
    energy.series = vec![
        Series::line("mechanical", pts(&|r| r.kinetic + r.potential), color(0)),
        Series::line("potential", pts(&|r| r.potential), color(1)),
        Series::line("kinetic", pts(&|r| r.kinetic), color(2)),
    ];
    let mut density = Panel::new(
        "mean density excess over the rest density",
        "time [s]",
        "density error [%]",
    );
    density.series = vec![Series::line(
        "mean of max(rho / rho0 - 1, 0)",
        pts(&|r| r.density_error_pct),
        color(3),
    )];
    let mut speed = Panel::new("particle speeds", "time [s]", "speed [m/s]");
    speed.series = vec![
        Series::line("fastest", pts(&|r| r.speed_max as f64), color(4)),
        Series::line("mean", pts(&|r| r.speed_mean), color(5)),
    ];
    chart(
        &[energy.fit(0.1), density.fit(0.1), speed.fit(0.1)],
        900,
        360,
    )
}

/// A closed scene's mechanical energy may not rise by more than this fraction of its start
/// before the run warns (a scene whose water stays at rest ends within a few tenths of a
/// percent of it; energy can only be lost where nothing puts it in).
pub const GAIN_WARNING: f64 = 0.05;

/// The largest rise of the mechanical energy (kinetic plus potential) in a run above its
/// start ([`gain`]); serialized as `summary.json` and `mpi.json` hold it, `max_pct` and
/// `time_s`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gain {
    /// A fraction of the start's energy (0 when it only fell).
    pub rise: f64,
    /// When, in seconds.
    pub time: f64,
}

impl Serialize for Gain {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("Gain", 2)?;
        st.serialize_field("max_pct", &(100.0 * self.rise))?;
        st.serialize_field("time_s", &self.time)?;
        st.end()
    }
}

impl Gain {
    /// In a scene with nothing to put energy in, what the run warns about as it happens
    /// (`None` while the rise is within [`GAIN_WARNING`]).
    pub fn warning(&self) -> Option<String> {
        (self.rise > GAIN_WARNING).then(|| {
            format!(
                "t = {:.4} s: the water's mechanical energy (kinetic + potential, energy.csv) is {:.1}% above its start, in a scene with nothing to put energy in (no inflow, late blocks, moving solids or surface tension): the solver is adding energy, which a blow-up or a setting that pumps does (a strong pbf.vorticity, pbf.omega above its auto value); the summary gives the largest rise",
                self.time,
                100.0 * self.rise
            )
        })
    }

    /// The run's closing line about it (`None` within [`GAIN_WARNING`]).
    pub fn closing_line(&self) -> Option<String> {
        (self.rise > GAIN_WARNING).then(|| {
            format!(
                "the mechanical energy rose to {:.1}% above its start (t = {:.4} s) with nothing in the scene to put energy in (see the warning)",
                100.0 * self.rise,
                self.time
            )
        })
    }
}

/// The watch a run keeps on its energy: in a scene with nothing to put energy in
/// (`Scene::energy_source` is `None`), the first rise past [`GAIN_WARNING`] is warned about,
/// and the run's largest rise is reported.
#[derive(Clone, Copy, Debug)]
pub struct EnergyWatch {
    closed: bool,
    warned: bool,
}

impl EnergyWatch {
    /// A watch for a scene that is `closed` (nothing in it puts energy in), or none.
    pub fn new(closed: bool) -> Self {
        EnergyWatch {
            closed,
            warned: false,
        }
    }

    /// After a row is added to `rows`: the warning, the first time there is one (the new row
    /// against the first).
    pub fn look(&mut self, rows: &[Measures]) -> Option<String> {
        if !self.closed || self.warned {
            return None;
        }
        let w = rise(rows.first()?, rows.last()?).and_then(|g| g.warning());
        self.warned = w.is_some();
        w
    }

    /// The run's largest rise, for its summary (`None` in a scene that is not closed).
    pub fn report(&self, rows: &[Measures]) -> Option<Gain> {
        if self.closed { gain(rows) } else { None }
    }
}

/// The largest rise of the mechanical energy over `rows` above the first row's (the first row
/// itself counts, so energy that only falls gives 0). `None` without rows, or when the first
/// row holds no energy to compare with (water at rest without gravity).
pub fn gain(rows: &[Measures]) -> Option<Gain> {
    let first = rows.first()?;
    rows.iter()
        .map(|r| rise(first, r))
        .fold(None, |best, x| match (best, x) {
            (Some(b), Some(x)) if b.rise >= x.rise => Some(b),
            (_, x) => x,
        })
}

/// Row `r`'s mechanical energy above `first`'s, as a fraction of it, and its time (`None`
/// when `first` holds no energy).
fn rise(first: &Measures, r: &Measures) -> Option<Gain> {
    let e0 = first.kinetic + first.potential;
    (e0 > 0.0).then(|| Gain {
        rise: (r.kinetic + r.potential - e0) / e0,
        time: r.time,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(time: f64, kinetic: f64, potential: f64) -> Measures {
        Measures {
            time,
            particles: 1,
            kinetic,
            potential,
            density_error_pct: 0.0,
            density_max: 1000.0,
            speed_mean: 0.0,
            speed_max: 0.0,
            top: 0.0,
        }
    }

    #[test]
    fn gain_is_the_largest_rise_over_the_start_and_when() {
        // 10 J at the start; 9, then 12 (the rise: 20%), then 11.
        let rows = [
            row(0.0, 0.0, 10.0),
            row(0.1, 4.0, 5.0),
            row(0.2, 7.0, 5.0),
            row(0.3, 6.0, 5.0),
        ];
        let g = gain(&rows).unwrap();
        assert!((g.rise - 0.2).abs() < 1e-12 && g.time == 0.2, "{g:?}");
        assert!(g.warning().is_some() && g.closing_line().is_some());
        // Energy that only falls: the start itself, 0, and nothing to say.
        let g = gain(&rows[..2]).unwrap();
        assert_eq!(
            g,
            Gain {
                rise: 0.0,
                time: 0.0
            }
        );
        assert!(g.warning().is_none() && g.closing_line().is_none());
        // Nothing to compare with.
        assert_eq!(gain(&[]), None);
        assert_eq!(gain(&[row(0.0, 0.0, 0.0), row(0.1, 1.0, 0.0)]), None);
    }
}
