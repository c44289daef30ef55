//! The semantic checks of a scene, on top of the types: positive sizes, blocks inside the tank,
//! a grid that fits.
//!
//! Owns: [`Scene::validate`]. Does not touch: parsing or the simulation.

use super::{Scene, SceneError, SurfaceTensionMethod};
use nsearch::SearchMode;
use std::path::Path;

impl Scene {
    /// Semantic checks on top of the types.
    pub fn validate(&self, path: &Path) -> Result<(), SceneError> {
        let bad = |field: &str, message: String| {
            Err(SceneError::Invalid {
                path: path.to_path_buf(),
                field: field.to_string(),
                message,
            })
        };
        let finite3 = |v: [f32; 3]| v.iter().all(|x| x.is_finite());
        // The name becomes a folder and file names inside the output folder: a plain name.
        let n = &self.name;
        if n.is_empty()
            || n == "."
            || n == ".."
            || n.len() > 200
            || n.chars().any(|c| c == '/' || c == '\\' || c.is_control())
        {
            return bad(
                "name",
                format!("must be a plain file name (no path separators, not . or ..), got {n:?}"),
            );
        }
        let p = &self.particles;
        if !(p.radius.is_finite() && p.radius > 0.0) {
            return bad(
                "particles.radius",
                format!("must be positive, got {}", p.radius),
            );
        }
        let h = self.kernel_radius();
        if !(h.is_finite() && h > self.spacing()) {
            return bad(
                "particles.kernel_radius",
                format!("must exceed the spacing 2r = {}, got {h}", self.spacing()),
            );
        }
        if !(p.rest_density.is_finite() && p.rest_density > 0.0) {
            return bad(
                "particles.rest_density",
                format!("must be positive, got {}", p.rest_density),
            );
        }
        let t = &self.tank;
        if !(finite3(t.min)
            && finite3(t.max)
            && (0..3).all(|a| t.max[a] - t.min[a] > self.spacing()))
        {
            return bad(
                "tank",
                format!(
                    "max must exceed min by more than the spacing on every axis, got min {:?} max {:?}",
                    t.min, t.max
                ),
            );
        }
        if self.fluid.is_empty() && self.emitter.is_empty() {
            return bad(
                "fluid",
                "at least one fluid block (or an emitter) is needed".into(),
            );
        }
        for (k, b) in self.fluid.iter().enumerate() {
            let field = format!("fluid[{k}]");
            if !(finite3(b.min) && finite3(b.max) && (0..3).all(|a| b.max[a] > b.min[a])) {
                return bad(
                    &field,
                    format!(
                        "max must exceed min on every axis, got min {:?} max {:?}",
                        b.min, b.max
                    ),
                );
            }
            if !(0..3).all(|a| b.min[a] >= t.min[a] && b.max[a] <= t.max[a]) {
                return bad(
                    &field,
                    format!(
                        "block min {:?} max {:?} is not inside the tank min {:?} max {:?}",
                        b.min, b.max, t.min, t.max
                    ),
                );
            }
            if !finite3(b.velocity) {
                return bad(&format!("{field}.velocity"), "must be finite".into());
            }
            if !(b.start.is_finite() && b.start >= 0.0) {
                return bad(
                    &format!("{field}.start"),
                    format!("must be >= 0, got {}", b.start),
                );
            }
        }
        // Two blocks that appear together and overlap would put two lattices in one place
        // (doubled density, a blow-up); a block appearing later over fluid skips taken sites.
        for (k, a) in self.fluid.iter().enumerate() {
            for (j, b) in self.fluid.iter().enumerate().skip(k + 1) {
                let overlap = (0..3).all(|ax| a.min[ax].max(b.min[ax]) < a.max[ax].min(b.max[ax]));
                if overlap && a.start == b.start {
                    return bad(
                        &format!("fluid[{j}]"),
                        format!(
                            "overlaps fluid[{k}] and appears at the same time ({} s): min {:?} max {:?} against min {:?} max {:?}; make them disjoint or start one later",
                            a.start, b.min, b.max, a.min, a.max
                        ),
                    );
                }
            }
        }
        for (k, e) in self.emitter.iter().enumerate() {
            if let Err((key, message)) = e.check(t) {
                return bad(&format!("emitter[{k}].{key}"), message);
            }
        }
        if !finite3(self.physics.gravity) {
            return bad("physics.gravity", "must be finite".into());
        }
        if !(self.time.dt.is_finite() && self.time.dt > 0.0) {
            return bad("time.dt", format!("must be positive, got {}", self.time.dt));
        }
        if !(self.time.end.is_finite() && self.time.end >= 0.0) {
            return bad("time.end", format!("must be >= 0, got {}", self.time.end));
        }
        let q = &self.pbf;
        if q.iterations == 0 {
            return bad("pbf.iterations", "must be at least 1".into());
        }
        if let Some(e) = q.max_density_error
            && !(e.is_finite() && e > 0.0)
        {
            return bad(
                "pbf.max_density_error",
                format!("must be a positive percentage, got {e}"),
            );
        }
        if q.max_iterations == 0 {
            return bad("pbf.max_iterations", "must be at least 1".into());
        }
        if let Some(min) = q.min_iterations
            && min > q.max_iterations
        {
            return bad(
                "pbf.min_iterations",
                format!(
                    "must be at most pbf.max_iterations ({}), got {min}",
                    q.max_iterations
                ),
            );
        }
        if let super::Omega::Value(w) = q.omega
            && !(w.is_finite() && w > 0.0 && w <= 1.0)
        {
            return bad(
                "pbf.omega",
                format!("must be \"auto\" or a number in (0, 1], got {w}"),
            );
        }
        for (name, v) in [
            ("pbf.relaxation", q.relaxation),
            ("pbf.scorr_k", q.scorr_k),
            ("pbf.vorticity", q.vorticity),
            ("pbf.xsph", q.xsph),
        ] {
            if !(v.is_finite() && v >= 0.0) {
                return bad(name, format!("must be >= 0, got {v}"));
            }
        }
        let st = &self.surface_tension;
        if !(st.coefficient.is_finite() && st.coefficient >= 0.0) {
            return bad(
                "surface_tension.coefficient",
                format!("must be >= 0, got {}", st.coefficient),
            );
        }
        if !(st.adhesion.is_finite() && st.adhesion >= 0.0) {
            return bad(
                "surface_tension.adhesion",
                format!("must be >= 0, got {}", st.adhesion),
            );
        }
        if st.adhesion > 0.0 && st.method == SurfaceTensionMethod::None {
            return bad(
                "surface_tension.adhesion",
                "acts only with method = \"akinci2013\" (it is part of that model)".into(),
            );
        }
        if !(1..=16).contains(&q.scorr_n) {
            return bad(
                "pbf.scorr_n",
                format!("must be an integer from 1 to 16, got {}", q.scorr_n),
            );
        }
        if !(q.scorr_dq.is_finite() && q.scorr_dq > 0.0 && q.scorr_dq < 1.0) {
            return bad(
                "pbf.scorr_dq",
                format!("must be in (0, 1) (a fraction of h), got {}", q.scorr_dq),
            );
        }
        if self.search.mode == SearchMode::Brute {
            return bad(
                "search.mode",
                "must be pruned or unpruned (brute is for tests)".into(),
            );
        }
        if !(self.output.fps.is_finite() && self.output.fps > 0.0) {
            return bad(
                "output.fps",
                format!("must be positive, got {}", self.output.fps),
            );
        }
        for (k, o) in self.obstacle.iter().enumerate() {
            if let Err((key, message)) = o.check() {
                return bad(&format!("obstacle[{k}].{key}"), message);
            }
        }
        // Water only in blocks, and every block inside solids: a run would write empty frames.
        if self.emitter.is_empty()
            && !self.obstacle.is_empty()
            && (0..self.fluid.len()).all(|k| self.block_sites(k).is_empty())
        {
            return bad(
                "fluid",
                "every block's lattice sites lie inside or within r of an obstacle, and there is \
                 no emitter: the scene has no water (move the blocks or the solids)"
                    .into(),
            );
        }
        Ok(())
    }
}
