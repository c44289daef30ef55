//! `forces.csv`: the force the fluid exerts on each solid and on each of the tank's six walls,
//! one line per body per frame time, for users to plot: drag on a cylinder, the load on a gate
//! or a paddle, buoyancy, the floor's load, a dam break's impact on the far wall.
//!
//! Each row is the mean over the steps since the frame time before it: minus the impulse the
//! body gave the fluid over that time (`boundary::push`, `boundary::wall_push`), divided by the
//! time. A solid's weight is not in it (solids have none here).
//!
//! Owns: [`ForceRow`] and the CSV's columns and text. Does not touch: the solver (which books
//! the impulses) or when rows are taken (the run).

use serde::{Deserialize, Serialize};

/// The mean force on each body (the solids in the scene's `[[obstacle]]` order, then the tank's
/// walls in `boundary::wall_push::WALLS`' order) over the frame interval ending at `time`, N.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ForceRow {
    pub time: f64,
    pub forces: Vec<[f64; 3]>,
}

/// The CSV's header line (units in the names).
pub const HEADER: &str = "time_s,body,fx_N,fy_N,fz_N";

/// The name of body `k` of a scene with `solids` obstacles: `obstacle_<k>` (numbered from 0 in
/// the scene's order), then the walls (`wall_x_min`, ..., `wall_z_max`).
pub fn body_name(k: usize, solids: usize) -> String {
    match k.checked_sub(solids) {
        None => format!("obstacle_{k}"),
        Some(w) => crate::boundary::wall_push::WALLS
            .get(w)
            .map_or_else(|| format!("body_{k}"), |n| n.to_string()),
    }
}

/// The CSV text of `rows` of a scene with `solids` obstacles, header first: one line per body
/// per row.
pub fn csv_text(rows: &[ForceRow], solids: usize) -> String {
    let mut s = String::with_capacity(64 + rows.len() * 600);
    s.push_str(HEADER);
    s.push('\n');
    for r in rows {
        for (k, f) in r.forces.iter().enumerate() {
            s.push_str(&format!(
                "{:.6},{},{:.6e},{:.6e},{:.6e}\n",
                r.time,
                body_name(k, solids),
                f[0],
                f[1],
                f[2]
            ));
        }
    }
    s
}

/// `rows` into `path` as [`csv_text`] (whole, through a rename); nothing without rows.
pub fn write(path: &std::path::Path, rows: &[ForceRow], solids: usize) -> std::io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let text = csv_text(rows, solids);
    super::write_atomic(path, |tmp| std::fs::write(tmp, &text))
}

/// Fold the impulses of one step (`impulse` per body, N s, on the fluid) into `pending`, which
/// takes the step's bodies (a run resumed with `output.wall_forces` changed gains or drops the
/// walls).
pub fn add_impulse(pending: &mut Vec<[f64; 3]>, impulse: &[glam::DVec3]) {
    if !impulse.is_empty() {
        pending.resize(impulse.len(), [0.0; 3]);
    }
    for (p, j) in pending.iter_mut().zip(impulse) {
        for (a, v) in p.iter_mut().zip(j.to_array()) {
            *a += v;
        }
    }
}

/// The row at `time` from the impulses gathered since `since` (reset), or `None` when no time
/// has passed or nothing was booked.
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

/// `forces.svg`: the force on each body against time, one panel per axis, for `rows` of the
/// run named `name` with `solids` obstacles (`None` without rows): each obstacle's component
/// on that axis and the two walls square to it (their load; what the walls take along their
/// planes is in the CSV).
pub fn chart_svg(name: &str, rows: &[ForceRow], solids: usize) -> Option<Result<String, String>> {
    use crate::experiments::report::{Panel, Series, chart, color};
    let bodies = rows.iter().map(|r| r.forces.len()).max()?;
    let panels: Vec<Panel> = ["x", "y", "z"]
        .iter()
        .enumerate()
        .map(|(a, axis)| {
            let title = if a == 0 {
                format!(
                    "{name}: the force the fluid exerts on each obstacle and wall (mean over each frame interval)"
                )
            } else {
                String::new()
            };
            let y = format!("f{axis} [N]");
            let mut p = Panel::new(title, "time [s]", &y);
            let shown = (0..bodies).filter(|&k| k < solids || (k - solids) / 2 == a);
            p.series = shown
                .map(|k| {
                    let pts = rows
                        .iter()
                        .filter_map(|r| Some((r.time, r.forces.get(k)?[a])))
                        .collect();
                    Series::line(body_name(k, solids), pts, color(k))
                })
                .collect();
            p.fit(0.1)
        })
        .collect();
    Some(chart(&panels, 900, 300))
}
