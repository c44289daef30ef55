//! `--set key.path=value`: an override of any scene key by its dotted path, applied to the TOML
//! document before it is deserialized (so an override is checked like the file).
//!
//! Owns: `apply_override`. Does not touch: the schema.

/// Set `a.b.c = value` in a TOML table; the value is parsed as TOML, or taken as a string.
pub(crate) fn apply_override(doc: &mut toml::Table, arg: &str) -> Result<(), String> {
    let (key, raw) = arg
        .split_once('=')
        .ok_or_else(|| "expected key.path=value".to_string())?;
    let parts: Vec<&str> = key.trim().split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(format!("bad key path '{key}'"));
    }
    let value: toml::Value = format!("v = {raw}")
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.trim().to_string()));
    let mut table = doc;
    for part in &parts[..parts.len() - 1] {
        let entry = table
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = entry
            .as_table_mut()
            .ok_or_else(|| format!("'{part}' is not a table"))?;
    }
    table.insert(parts[parts.len() - 1].to_string(), value);
    Ok(())
}
