//! `--set key.path=value`: an override of any scene key by its dotted path, applied to the TOML
//! document before it is deserialized (so an override is checked like the file).
//!
//! A number in the path indexes a list: `obstacle.1.radius` is the second `[[obstacle]]`
//! block's radius, `tank.min.1` the tank's lowest y. A missing table on the way is created
//! (`--set surface_tension.method=...` in a scene without that table); a list entry must exist,
//! so an index into a key the file does not give is an error (`--set physics.gravity.1=-1` in a
//! scene that keeps the default gravity: give the whole list).
//!
//! A document changed by overrides is deserialized from the table, whose errors name no key;
//! `key_of_error` finds it (`physics.gravity`, `fluid[0]`) so the message can say where.
//!
//! Owns: `apply_override`, `key_of_error`. Does not touch: the schema.

use toml::Value;

/// Set `a.b.c = value` in a TOML table; the value is parsed as TOML, or taken as a string.
pub(crate) fn apply_override(doc: &mut toml::Table, arg: &str) -> Result<(), String> {
    let (key, raw) = arg
        .split_once('=')
        .ok_or_else(|| "expected key.path=value".to_string())?;
    let parts: Vec<&str> = key.trim().split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!("bad key path '{key}'"));
    }
    let value: Value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(raw.trim().to_string()));
    if parts.len() == 1 {
        doc.insert(parts[0].to_string(), value);
        return Ok(());
    }
    let mut slot: &mut Value = doc
        .entry(parts[0])
        .or_insert_with(|| Value::Table(toml::Table::new()));
    for (k, part) in parts.iter().enumerate().skip(1) {
        // The dotted path walked so far, for the messages.
        let at = parts[..k].join(".");
        let is_last = k + 1 == parts.len();
        slot = match slot {
            Value::Table(t) => {
                if part.parse::<usize>().is_ok() && !t.contains_key(*part) {
                    return Err(format!(
                        "'{at}' is not given in the file (it keeps its default), so it has no \
                         entry {part} to set: give the whole value (--set {at}=[...]) or write it in the file"
                    ));
                }
                if is_last {
                    t.insert(part.to_string(), value);
                    return Ok(());
                }
                t.entry(part.to_string())
                    .or_insert_with(|| Value::Table(toml::Table::new()))
            }
            Value::Array(a) => {
                let n = a.len();
                let i: usize = part.parse().map_err(|_| {
                    format!(
                        "'{at}' is a list of {n}: give an index from 0 to {}, e.g. {at}.0.{part}",
                        n.saturating_sub(1)
                    )
                })?;
                let Some(item) = a.get_mut(i) else {
                    return Err(format!(
                        "'{at}' has {n} entries (indices 0 to {}), got index {i}",
                        n.saturating_sub(1)
                    ));
                };
                if is_last {
                    *item = value;
                    return Ok(());
                }
                item
            }
            _ => return Err(format!("'{at}' is a single value, not a table or a list")),
        };
    }
    unreachable!("the loop returns at the last part")
}

/// The dotted key (with list indices, `fluid[0].max`) of the scene where deserializing `doc`
/// fails, or `None` if it does not fail or the place cannot be told. The table is written out
/// as TOML text and read back, so toml's error carries a position; the key is read from the
/// table header above that position and the key on its line.
pub(crate) fn key_of_error<T: serde::de::DeserializeOwned>(doc: &toml::Table) -> Option<String> {
    let text = toml::to_string(doc).ok()?;
    let error = toml::from_str::<T>(&text).err()?;
    let at = error.span()?.start;
    let mut header = String::new();
    let mut counts: std::collections::HashMap<String, usize> = Default::default();
    let mut offset = 0;
    let mut key = None;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let l = line.trim();
        if start > at {
            break;
        }
        if let Some(name) = l.strip_prefix("[[").and_then(|l| l.strip_suffix("]]")) {
            let n = counts.entry(name.to_string()).or_insert(0);
            header = format!("{name}[{n}]");
            *n += 1;
            key = None;
        } else if let Some(name) = l.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            header = name.to_string();
            key = None;
        } else if at < offset {
            key = l
                .split_once('=')
                .map(|(k, _)| k.trim().trim_matches('"').to_string());
        }
    }
    match (header.is_empty(), key) {
        (true, None) => None,
        (true, Some(k)) => Some(k),
        (false, None) => Some(header),
        (false, Some(k)) => Some(format!("{header}.{k}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> toml::Table {
        r#"
        name = "t"
        [tank]
        min = [0.0, 0.0, 0.0]
        [[obstacle]]
        shape = "box"
        [[obstacle]]
        shape = "sphere"
        radius = 0.1
        "#
        .parse()
        .unwrap()
    }

    #[test]
    fn sets_keys_in_tables_and_creates_missing_ones() {
        let mut d = doc();
        apply_override(&mut d, "name=other").unwrap();
        apply_override(&mut d, "pbf.iterations=5").unwrap();
        apply_override(&mut d, "surface_tension.method=\"akinci2013\"").unwrap();
        assert_eq!(d["name"].as_str(), Some("other"));
        assert_eq!(d["pbf"]["iterations"].as_integer(), Some(5));
        assert_eq!(d["surface_tension"]["method"].as_str(), Some("akinci2013"));
    }

    #[test]
    fn an_index_reaches_a_list_entry_and_an_element() {
        let mut d = doc();
        apply_override(&mut d, "obstacle.1.radius=0.25").unwrap();
        apply_override(&mut d, "obstacle.0.half_extents=[0.1, 0.2, 0.3]").unwrap();
        apply_override(&mut d, "tank.min.1=-0.5").unwrap();
        let obstacles = d["obstacle"].as_array().unwrap();
        assert_eq!(obstacles[1]["radius"].as_float(), Some(0.25));
        assert_eq!(
            obstacles[1]["shape"].as_str(),
            Some("sphere"),
            "the rest kept"
        );
        assert_eq!(obstacles[0]["half_extents"].as_array().unwrap().len(), 3);
        assert_eq!(d["tank"]["min"][1].as_float(), Some(-0.5));
        assert_eq!(d["tank"]["min"][0].as_float(), Some(0.0));
    }

    #[test]
    fn a_list_without_an_index_or_past_its_end_is_an_error_that_says_so() {
        let mut d = doc();
        let e = apply_override(&mut d, "obstacle.radius=0.2").unwrap_err();
        assert!(
            e.contains("'obstacle' is a list of 2") && e.contains("obstacle.0.radius"),
            "{e}"
        );
        let e = apply_override(&mut d, "obstacle.2.radius=0.2").unwrap_err();
        assert!(
            e.contains("has 2 entries") && e.contains("got index 2"),
            "{e}"
        );
        let e = apply_override(&mut d, "tank.min.3=1.0").unwrap_err();
        assert!(e.contains("'tank.min' has 3 entries"), "{e}");
        let e = apply_override(&mut d, "name.first=1").unwrap_err();
        assert!(e.contains("'name' is a single value"), "{e}");
        let e = apply_override(&mut d, "physics.gravity.1=-1").unwrap_err();
        assert!(
            e.contains("'physics.gravity' is not given") && e.contains("physics.gravity=["),
            "{e}"
        );
        d.remove("physics");
        assert_eq!(
            d,
            doc(),
            "a failed override changes nothing it did not reach"
        );
    }

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Small {
        name: String,
        tank: Tank,
        #[serde(default)]
        obstacle: Vec<Obstacle>,
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Tank {
        min: [f64; 3],
    }
    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Obstacle {
        shape: String,
        radius: f64,
    }

    #[test]
    fn the_key_of_a_deserialize_error_is_found_in_the_table() {
        let mut d = doc();
        d["obstacle"][0]
            .as_table_mut()
            .unwrap()
            .insert("radius".into(), Value::Float(0.2));
        assert_eq!(key_of_error::<Small>(&d), None, "no error, no key");
        apply_override(&mut d, "tank.min=[1.0, 2.0]").unwrap();
        assert_eq!(key_of_error::<Small>(&d).as_deref(), Some("tank.min"));
        let mut d = doc();
        assert_eq!(
            key_of_error::<Small>(&d).as_deref(),
            Some("obstacle[0]"),
            "the first obstacle lacks its radius"
        );
        apply_override(&mut d, "obstacle.0.radius=0.3").unwrap();
        apply_override(&mut d, "obstacle.1.radius=\"big\"").unwrap();
        assert_eq!(
            key_of_error::<Small>(&d).as_deref(),
            Some("obstacle[1].radius")
        );
    }
}
