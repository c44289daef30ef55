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
