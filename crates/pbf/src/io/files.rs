//! Frame files on disk: their names, the atomic write (temporary file, then rename) every output
//! goes through, and the clean-up of an earlier run's frames.
//!
//! Owns: [`frame_name`], [`obstacles_name`], [`write_atomic`], [`write_frame`],
//! [`write_obstacles`], [`clear_earlier_output`]. Does not
//! touch: the formats' contents (frame, series).

use super::frame::Frame;
use super::series::series_name;
use crate::scene::Format;
use std::io::Write;
use std::path::{Path, PathBuf};

/// File name of frame `index` in `format`.
pub fn frame_name(index: usize, format: Format) -> String {
    let ext = match format {
        Format::Vtk => "vtk",
        _ => "vtu",
    };
    format!("frame_{index:05}.{ext}")
}

/// File name of frame `index`'s obstacle surfaces in `format`.
pub fn obstacles_name(index: usize, format: Format) -> String {
    frame_name(index, format).replacen("frame_", "obstacles_", 1)
}

/// Write frame `frame`'s obstacle surfaces into `dir`, if it has any.
pub fn write_obstacles(
    dir: &Path,
    frame: &Frame,
    format: Format,
) -> std::io::Result<Option<PathBuf>> {
    let Some(vtk) = frame.obstacles_vtk() else {
        return Ok(None);
    };
    let path = dir.join(obstacles_name(frame.index, format));
    let io = |e: vtkio::Error| std::io::Error::other(e.to_string());
    write_atomic(&path, |tmp| match format {
        Format::Vtk => vtk.export_be(tmp).map_err(io),
        // The extension tells vtkio the format: write XML to a `.vtu` name, then move it.
        _ => {
            let xml = tmp.with_extension("part.vtu");
            vtk.export(&xml).map_err(io)?;
            std::fs::rename(&xml, tmp)
        }
    })?;
    Ok(Some(path))
}

/// Write `bytes` (or what `write` produces) to `path` through a temporary file and a rename.
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = path.with_file_name(format!(".{name}.part"));
    let r = write(&tmp).and_then(|_| std::fs::rename(&tmp, path));
    if r.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    r
}

/// Write one frame file into `dir`.
pub fn write_frame(dir: &Path, frame: &Frame, format: Format) -> std::io::Result<PathBuf> {
    let path = dir.join(frame_name(frame.index, format));
    let io = |e: vtkio::Error| std::io::Error::other(e.to_string());
    write_atomic(&path, |tmp| match format {
        Format::Vtk => frame.to_vtk().export_be(tmp).map_err(io),
        _ => {
            let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(tmp)?);
            frame.write_vtu(&mut w)?;
            w.flush()?;
            w.into_inner().map_err(|e| e.into_error())?.sync_data()
        }
    })?;
    Ok(path)
}

/// The index of a frame or obstacle-surface file (`frame_00012.vtu` -> 12), of either format;
/// `None` for any other name.
fn frame_index(file: &str) -> Option<usize> {
    file.strip_prefix("frame_")
        .or_else(|| file.strip_prefix("obstacles_"))
        .and_then(|rest| {
            rest.strip_suffix(".vtu")
                .or_else(|| rest.strip_suffix(".vtk"))
                .or_else(|| rest.strip_suffix(".pvtu"))
        })
        // A process's piece of a frame (`frame_00007_p2.vtu`, see `io::pieces`).
        .and_then(|k| k.split_once("_p").map_or(k, |(k, _)| k).parse().ok())
}

/// Whether `file` is a temporary file of [`write_atomic`] left by a killed run.
fn is_partial(file: &str) -> bool {
    file.starts_with('.') && file.contains(".part")
}

/// Remove what an earlier run left in `dir` before a run of `name` writes there, whatever its
/// format (`none` included) and whatever scene it was: frames and obstacle surfaces of either
/// format, every series file that lists such frames (a `.pvd` or `.vtk.series` of another scene
/// would list frames this run replaces), the earlier `summary.json`, `energy.csv`, `energy.svg`, `forces.csv` and `forces.svg`, and the
/// temporary
/// `.*.part` files of a run that was killed while writing, and its checkpoints. Other files are
/// left alone.
pub fn clear_earlier_output(dir: &Path, name: &str) -> std::io::Result<()> {
    let own_series = [Format::Vtu, Format::Vtk].map(|f| {
        [
            series_name(name, f),
            series_name(&format!("{name}_obstacles"), f),
        ]
    });
    for e in std::fs::read_dir(dir)?.flatten() {
        if !e.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let file = e.file_name().to_string_lossy().to_string();
        let frame = frame_index(&file).is_some();
        let partial = is_partial(&file);
        let series = (file.ends_with(".pvd") || file.ends_with(".vtk.series"))
            && (own_series.iter().flatten().any(|s| *s == file)
                || std::fs::read_to_string(e.path())
                    .is_ok_and(|t| t.contains("\"frame_") || t.contains("\"obstacles_")));
        let checkpoint = file.starts_with("checkpoint_") && file.ends_with(".pbfck");
        let own = matches!(
            file.as_str(),
            "summary.json" | "energy.csv" | "energy.svg" | "forces.csv" | "forces.svg"
        );
        if frame || partial || series || checkpoint || own {
            std::fs::remove_file(e.path()).map_err(|err| {
                std::io::Error::new(
                    err.kind(),
                    format!(
                        "cannot remove the earlier run's {}: {err}",
                        e.path().display()
                    ),
                )
            })?;
        }
    }
    Ok(())
}

/// Before a run goes on from a checkpoint in `dir`: remove the frames (and obstacle surfaces)
/// from index `next_frame` on, which the interrupted run may have written after its checkpoint,
/// and any `.*.part` file. The series files are rewritten by the writer.
pub fn clear_after_checkpoint(dir: &Path, next_frame: usize) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)?.flatten() {
        let file = e.file_name().to_string_lossy().to_string();
        let later = frame_index(&file).is_some_and(|k| k >= next_frame);
        let partial = is_partial(&file);
        if (later || partial) && e.file_type().is_ok_and(|t| t.is_file()) {
            std::fs::remove_file(e.path())?;
        }
    }
    Ok(())
}
