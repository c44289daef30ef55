//! What the subcommands share: argument groups, value parsers for the libraries' choices, the
//! input-error marker (exit 2), thread pools, the output folder and scene loading.
//!
//! Owns: clap's view of the libraries' types. Does not touch: simulation or files beyond the
//! output folder's creation.

use anyhow::{Context, Result};
use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use pbf::scene::Scene;
use std::path::{Path, PathBuf};

/// A parser for the values `all` of a library enum: their names as the libraries' serde gives
/// them (the names scene files use) become clap's possible values (listed in `--help` and in the
/// error for a wrong one).
pub fn choice<T>(all: &[T]) -> impl TypedValueParser<Value = T> + use<T>
where
    T: serde::Serialize + serde::de::DeserializeOwned + Clone + Send + Sync + 'static,
{
    let names = all.iter().map(|v| -> &'static str {
        let name = serde_json::to_value(v).expect("a unit variant serializes");
        // A handful of short names per process, for clap's 'static strings.
        Box::leak(name.as_str().expect("a unit variant is a string").into())
    });
    PossibleValuesParser::new(names.collect::<Vec<_>>()).map(|s| {
        serde_json::from_value(serde_json::Value::String(s)).expect("a listed name parses")
    })
}

/// How far to simulate: `--until T` or `--steps N` (default: to the scene's time.end).
#[derive(Args)]
pub struct Span {
    /// Stop at this simulated time in seconds (default: the scene's time.end).
    #[arg(
        long,
        value_name = "T",
        conflicts_with = "steps",
        allow_negative_numbers = true
    )]
    pub until: Option<f64>,
    /// Stop after this many steps.
    #[arg(long, value_name = "N")]
    pub steps: Option<u64>,
}

impl Span {
    /// Steps to run: `--steps`, or up to `--until` (default: the scene's end time).
    pub fn steps(&self, scene: &Scene) -> Result<u64> {
        if let Some(t) = self.until
            && !(t.is_finite() && t >= 0.0)
        {
            return Err(input(anyhow::anyhow!("--until must be >= 0, got {t}")));
        }
        Ok(match self.steps {
            Some(n) => n,
            None => pbf::run::steps_until(scene, self.until),
        })
    }
}

/// Errors in the user's input: exit code 2.
#[derive(Debug)]
pub struct InputError(anyhow::Error);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:#}", self.0)
    }
}

impl std::error::Error for InputError {}

/// Mark `e` as bad input (exit code 2).
pub fn input<E: Into<anyhow::Error>>(e: E) -> anyhow::Error {
    anyhow::Error::new(InputError(e.into()))
}

/// Most worker threads accepted: far more than any workstation has cores (each thread costs
/// a stack, and thousands of them only slow the run down).
pub const MAX_THREADS: usize = 1024;

/// A rayon pool of `threads` workers (default: all cores).
pub fn thread_pool(threads: Option<usize>) -> Result<rayon::ThreadPool> {
    let mut b = rayon::ThreadPoolBuilder::new();
    if let Some(t) = threads {
        if !(1..=MAX_THREADS).contains(&t) {
            return Err(input(anyhow::anyhow!(
                "--threads must be from 1 to {MAX_THREADS}, got {t}"
            )));
        }
        b = b.num_threads(t);
    }
    b.build().map_err(|e| {
        input(anyhow::anyhow!(
            "cannot start {threads:?} worker threads: {e}"
        ))
    })
}

/// Run `f` in a rayon pool of `threads` threads (all cores when `None`).
pub fn with_threads<R: Send>(threads: Option<usize>, f: impl FnOnce() -> R + Send) -> Result<R> {
    Ok(thread_pool(threads)?.install(f))
}

/// The output folder: `dir`, or `out/<name>/`; created if missing. Call it only once every
/// other input has been checked: nothing in the folder may change for a run refused.
pub fn output_dir(dir: &Option<PathBuf>, name: &str) -> Result<PathBuf> {
    let dir = dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("out").join(name));
    if dir.exists() && !dir.is_dir() {
        return Err(input(anyhow::anyhow!(
            "-o: {} is a file, not a folder: give a folder for the output",
            dir.display()
        )));
    }
    std::fs::create_dir_all(&dir).map_err(|e| {
        input(anyhow::anyhow!(
            "-o: cannot create the output folder {}: {e}",
            dir.display()
        ))
    })?;
    Ok(dir)
}

/// Refuse a scene whose particles would not fit in the memory this machine has free (checked
/// before anything is allocated, from the scene's own estimate).
pub fn check_memory(scene: &Scene, path: &Path) -> Result<()> {
    let est = scene.memory_estimate();
    let need = est.bytes;
    if let Some(free) = pbf::io::summary::available_memory_bytes()
        && need > free as f64
    {
        // Say what takes the room: the particles, or the grid over a tank far larger than the
        // water in it.
        let (what, advice) = if est.grid_bytes() > 0.5 * need {
            (
                format!("its grid over the tank, {:.3e} cells of h", est.cells),
                "use a smaller tank (around the water) or a larger particles.radius",
            )
        } else {
            (
                format!("{} particles at most", est.particles_most),
                "use a larger particles.radius",
            )
        };
        return Err(input(anyhow::anyhow!(
            "{}: the scene needs about {:.1} GB ({what}), more than the {:.1} GB this machine has available; {advice}",
            path.display(),
            need / 1e9,
            free as f64 / 1e9
        )));
    }
    Ok(())
}

/// Write `text` to `dir/name` whole (under a temporary name, then renamed).
pub fn write_text(dir: &Path, name: &str, text: &str) -> Result<()> {
    let path = dir.join(name);
    pbf::io::write_atomic(&path, |tmp| std::fs::write(tmp, text))
        .with_context(|| format!("writing {}", path.display()))
}

/// [`Scene::load`], printing the scene's [warnings](Scene::warnings) to stderr; a scene too big
/// for this machine's memory is refused (see [`check_memory`]).
pub fn load_scene(path: &Path, sets: &[String]) -> Result<Scene> {
    load_scene_warning(path, sets, true)
}

/// [`load_scene`], printing the scene's warnings only if `warn` (one process of an MPI run
/// speaks for all).
pub fn load_scene_warning(path: &Path, sets: &[String], warn: bool) -> Result<Scene> {
    let scene = Scene::load(path, sets).map_err(input)?;
    check_memory(&scene, path)?;
    for w in scene.warnings().iter().filter(|_| warn) {
        eprintln!("warning: {}: {w}", path.display());
    }
    Ok(scene)
}

/// A solver for `scene` on `backend` (bad input if the grid cannot be built or the CPU cannot
/// run the backend).
pub fn solver(scene: &Scene, backend: nsearch::Backend) -> Result<pbf::solver::Solver> {
    let mut solver = pbf::solver::Solver::new(scene).map_err(input)?;
    solver
        .set_search_backend(backend)
        .map_err(|e| input(anyhow::anyhow!("--backend: {e}")))?;
    Ok(solver)
}
