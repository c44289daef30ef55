//! `forces.csv`: the force the fluid exerts on each solid, one row per solid per frame time (a
//! scene with obstacles), for users to plot: drag on a cylinder, the load on a gate or a
//! paddle, buoyancy.
//!
//! Each row is the mean over the steps since the frame time before it: minus the impulse the
//! solid gave the fluid over that time (`boundary::push`), divided by the time. A solid's
//! weight is not in it (solids have none here), nor is the tank's share.
//!
//! Owns: [`ForceRow`] and the CSV's columns and text. Does not touch: the solver (which books
//! the impulses) or when rows are taken (the run).

use serde::{Deserialize, Serialize};

/// The mean force on each solid (in the scene's `[[obstacle]]` order) over the frame interval
/// ending at `time`, N.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForceRow {
    pub time: f64,
    pub forces: Vec<[f64; 3]>,
}

/// The CSV's header line (units in the names).
pub const HEADER: &str = "time_s,obstacle,fx_N,fy_N,fz_N";

/// The CSV text of `rows`, header first: one line per solid per row.
pub fn csv_text(rows: &[ForceRow]) -> String {
    let mut s = String::with_capacity(64 + rows.len() * 80);
    s.push_str(HEADER);
    s.push('\n');
    for r in rows {
        for (k, f) in r.forces.iter().enumerate() {
            s.push_str(&format!(
                "{:.6},{k},{:.6e},{:.6e},{:.6e}\n",
                r.time, f[0], f[1], f[2]
            ));
        }
    }
    s
}

/// `rows` into `path` as [`csv_text`] (whole, through a rename); nothing without rows.
pub fn write(path: &std::path::Path, rows: &[ForceRow]) -> std::io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let text = csv_text(rows);
    super::write_atomic(path, |tmp| std::fs::write(tmp, &text))
}

/// Fold the impulses of one step (`impulse` per solid, N s, on the fluid) into `pending`.
pub fn add_impulse(pending: &mut Vec<[f64; 3]>, impulse: &[glam::DVec3]) {
    pending.resize(impulse.len().max(pending.len()), [0.0; 3]);
    for (p, j) in pending.iter_mut().zip(impulse) {
        for (a, v) in p.iter_mut().zip(j.to_array()) {
            *a += v;
        }
    }
}

/// The row at `time` from the impulses gathered since `since` (reset), or `None` when no time
/// has passed or the scene has no solids.
pub fn take_row(pending: &mut [[f64; 3]], since: f64, time: f64) -> Option<ForceRow> {
    let span = time - since;
    if pending.is_empty() || span <= 0.0 {
        return None;
    }
    let forces = pending
        .iter_mut()
        .map(|j| {
            let f = j.map(|v| -v / span + 0.0); // + 0.0: no "-0" in the file
            *j = [0.0; 3];
            f
        })
        .collect();
    Some(ForceRow { time, forces })
}

/// `forces.svg`: each solid's force against time, one panel per axis, for `rows` of the run
/// named `name` (`None` without rows).
pub fn chart_svg(name: &str, rows: &[ForceRow]) -> Option<Result<String, String>> {
    use crate::experiments::report::{Panel, Series, chart, color};
    let solids = rows.first()?.forces.len();
    let panels: Vec<Panel> = ["x", "y", "z"]
        .iter()
        .enumerate()
        .map(|(a, axis)| {
            let title = if a == 0 {
                format!("{name}: the force the fluid exerts on each obstacle (mean over each frame interval)")
            } else {
                String::new()
            };
            let y = format!("f{axis} [N]");
            let mut p = Panel::new(title, "time [s]", &y);
            p.series = (0..solids)
                .map(|k| {
                    let pts = rows.iter().map(|r| (r.time, r.forces[k][a])).collect();
                    Series::line(format!("obstacle {k}"), pts, color(k))
                })
                .collect();
            p.fit(0.1)
        })
        .collect();
    Some(chart(&panels, 900, 300))
}
