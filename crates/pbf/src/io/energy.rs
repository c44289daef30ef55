//! `energy.csv`: one row per frame time (written or not) with the fluid's energies, density
//! error, speeds and highest point, for users to plot (and `pbf` to judge still water, damping
//! and density control by).
//!
//! Owns: [`Measures`] and the CSV's columns and text. Does not touch: the solver (which
//! measures) or when rows are taken (the run).

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

/// The largest rise of the mechanical energy (kinetic plus potential) over `rows` above the
/// first row's, as a fraction of it, and the time of that row (the first row itself counts, so
/// energy that only falls gives 0). `None` without rows, or when the first row holds no energy
/// to compare with (water at rest without gravity).
pub fn gain(rows: &[Measures]) -> Option<(f64, f64)> {
    let e0 = rows.first().map(|r| r.kinetic + r.potential)?;
    if e0.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        return None;
    }
    rows.iter()
        .map(|r| ((r.kinetic + r.potential - e0) / e0, r.time))
        .fold(None, |best: Option<(f64, f64)>, x| match best {
            Some(b) if b.0 >= x.0 => Some(b),
            _ => Some(x),
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
        let (g, t) = gain(&rows).unwrap();
        assert!((g - 0.2).abs() < 1e-12 && t == 0.2, "{g} at {t}");
        // Energy that only falls: the start itself, 0.
        assert_eq!(gain(&rows[..2]), Some((0.0, 0.0)));
        // Nothing to compare with.
        assert_eq!(gain(&[]), None);
        assert_eq!(gain(&[row(0.0, 0.0, 0.0), row(0.1, 1.0, 0.0)]), None);
    }
}
