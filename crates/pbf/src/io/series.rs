//! The time series that lets ParaView play the frames with their simulated times: `<name>.pvd`
//! (an XML collection) for `.vtu` frames, `<name>.vtk.series` (ParaView's JSON file series,
//! version 1.0) for legacy `.vtk` frames. ParaView's `.pvd` reader only reads XML datasets and
//! fails on a collection of legacy files ("Could not determine the data type for the first
//! dataset", ParaView 5.11), while its file-series reader opens any format it knows.
//!
//! Owns: the series files' names and text. Does not touch: frames.

use crate::scene::Format;

/// The `.pvd` collection listing `frames` (time, file name).
pub fn pvd_text(frames: &[(f64, String)]) -> String {
    let mut s = String::from(
        "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n",
    );
    for (t, f) in frames {
        s.push_str(&format!(
            "    <DataSet timestep=\"{t:.6}\" group=\"\" part=\"0\" file=\"{f}\"/>\n"
        ));
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    s
}

/// ParaView's JSON file series (`.vtk.series`, version 1.0) listing `frames` (time, file name).
pub fn file_series_text(frames: &[(f64, String)]) -> String {
    let files: Vec<String> = frames
        .iter()
        .map(|(t, f)| format!("    {{ \"name\": \"{f}\", \"time\": {t:.6} }}"))
        .collect();
    format!(
        "{{\n  \"file-series-version\": \"1.0\",\n  \"files\": [\n{}\n  ]\n}}\n",
        files.join(",\n")
    )
}

/// The name of the series file of a run named `name` whose frames are in `format`: `<name>.pvd`
/// for `.vtu` frames, `<name>.vtk.series` for legacy `.vtk` ones (see the module docs).
pub fn series_name(name: &str, format: Format) -> String {
    match format {
        Format::Vtk => format!("{name}.vtk.series"),
        _ => format!("{name}.pvd"),
    }
}

/// The series file's text for `frames` in `format`.
pub fn series_text(format: Format, frames: &[(f64, String)]) -> String {
    match format {
        Format::Vtk => file_series_text(frames),
        _ => pvd_text(frames),
    }
}
