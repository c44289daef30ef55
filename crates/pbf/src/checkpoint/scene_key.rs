//! What a resumed run must share with the run that wrote the checkpoint: every scene key but
//! the end time, the output settings and the name (which only say how long to run and where
//! and how to write). Thread counts are not in the scene; results do not depend on them.
//!
//! Owns: [`scene_key`] and [`differences`]. Does not touch: the file format.

use crate::scene::Scene;

/// The scene as a JSON value without `time.end`, `output` and `name`.
pub fn scene_key(scene: &Scene) -> serde_json::Value {
    let mut v = serde_json::to_value(scene).expect("a scene serializes");
    if let Some(o) = v.as_object_mut() {
        o.remove("output");
        o.remove("name");
        if let Some(t) = o.get_mut("time").and_then(|t| t.as_object_mut()) {
            t.remove("end");
        }
    }
    v
}

/// The dotted keys whose values differ between two scene keys, with both values (at most
/// `limit` of them).
pub fn differences(
    was: &serde_json::Value,
    now: &serde_json::Value,
    limit: usize,
) -> Vec<(String, String, String)> {
    fn walk(
        a: &serde_json::Value,
        b: &serde_json::Value,
        at: String,
        out: &mut Vec<(String, String, String)>,
    ) {
        use serde_json::Value;
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let key = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    walk(
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                        key,
                        out,
                    );
                }
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (k, (p, q)) in x.iter().zip(y).enumerate() {
                    walk(p, q, format!("{at}[{k}]"), out);
                }
            }
            _ if a != b => out.push((at, shown(a), shown(b))),
            _ => {}
        }
    }
    // Scene numbers are f32: shown as such (0.01, not 0.009999999776482582).
    fn shown(v: &serde_json::Value) -> String {
        match v.as_f64() {
            Some(x) if v.is_f64() => format!("{}", x as f32),
            _ => v.to_string(),
        }
    }
    let mut out = Vec::new();
    walk(was, now, String::new(), &mut out);
    out.truncate(limit);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(extra: &str) -> Scene {
        let text = format!(
            "[tank]\nmin = [0.0, 0.0, 0.0]\nmax = [0.2, 0.2, 0.2]\n[[fluid]]\nmin = [0.0, 0.0, 0.0]\nmax = [0.1, 0.1, 0.1]\n[particles]\nradius = 0.01\n[time]\ndt = 0.004\nend = 0.1\n{extra}"
        );
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.toml");
        std::fs::write(&path, text).unwrap();
        Scene::load(&path, &[]).unwrap()
    }

    /// Builds before `pbf.kernel` existed wrote keys without it: a scene with the default pair
    /// still matches them, one with the other pair does not.
    #[test]
    fn a_key_from_before_pbf_kernel_matches_the_default_pair_only() {
        let default = scene_key(&scene(""));
        let mut before = default.clone();
        if let Some(pbf) = before.get_mut("pbf").and_then(|p| p.as_object_mut()) {
            pbf.remove("kernel");
        }
        assert!(differences(&before, &default, 10).is_empty());
        let cubic = scene_key(&scene("[pbf]\nkernel = \"cubic_spline\"\n"));
        let diff = differences(&before, &cubic, 10);
        assert_eq!(diff.len(), 1, "{diff:?}");
        assert_eq!(diff[0].0, "pbf.kernel");
    }
}
