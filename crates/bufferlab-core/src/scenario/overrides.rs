//! `--set dotted.path=value` overrides, applied to the TOML document before it is validated,
//! so an override is checked exactly like the same value written in the file.
//! Path segments that are numbers index arrays (`flows.0.app.rate=2Mbps`). The value is read
//! as a TOML value when it parses as one (`10`, `true`, `"x"`, `{kind="droptail"}`), otherwise
//! as a plain string (`10KB`, `20ms`).

use toml::{Table, Value};

/// Applies one override to the document `root` (a TOML table).
pub fn apply(root: &mut Value, spec: &str) -> Result<(), String> {
    let (path, raw) = spec
        .split_once('=')
        .ok_or_else(|| format!("override \"{spec}\": write it as dotted.path=value, e.g. links.bottleneck.queue.limit=10KB"))?;
    let path = path.trim();
    if path.is_empty() || path.split('.').any(|s| s.trim().is_empty()) {
        return Err(format!(
            "override \"{spec}\": the path \"{path}\" has an empty segment"
        ));
    }
    let value = parse_value(raw.trim());
    let segs: Vec<&str> = path.split('.').map(str::trim).collect();
    let (last, parents) = segs.split_last().expect("non-empty path");
    let mut cur = root;
    let mut walked = String::new();
    for seg in parents {
        cur = step(cur, seg, &walked, spec)?;
        if !walked.is_empty() {
            walked.push('.');
        }
        walked.push_str(seg);
    }
    match cur {
        Value::Table(t) => {
            t.insert((*last).to_string(), value);
            Ok(())
        }
        Value::Array(a) => {
            let i = index(last, a.len(), &walked, spec)?;
            a[i] = value;
            Ok(())
        }
        _ => Err(format!("override \"{spec}\": \"{walked}\" is a value, not a table, so it has no field \"{last}\"")),
    }
}

fn index(seg: &str, len: usize, walked: &str, spec: &str) -> Result<usize, String> {
    let i: usize = seg.parse().map_err(|_| {
        format!("override \"{spec}\": \"{walked}\" is a list; index it with a number (0..{len})")
    })?;
    if i >= len {
        return Err(format!(
            "override \"{spec}\": \"{walked}\" has {len} entries, so index {i} does not exist"
        ));
    }
    Ok(i)
}

fn step<'a>(
    cur: &'a mut Value,
    seg: &str,
    walked: &str,
    spec: &str,
) -> Result<&'a mut Value, String> {
    match cur {
        Value::Table(t) => Ok(t.entry(seg.to_string()).or_insert_with(|| Value::Table(Table::new()))),
        Value::Array(a) => {
            let i = index(seg, a.len(), walked, spec)?;
            Ok(&mut a[i])
        }
        _ => Err(format!("override \"{spec}\": \"{walked}\" is a value, not a table, so it has no field \"{seg}\"")),
    }
}

fn parse_value(raw: &str) -> Value {
    let doc = format!("v = {raw}");
    match doc.parse::<Table>() {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or_else(|| Value::String(raw.to_string())),
        Err(_) => Value::String(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn applied(text: &str, spec: &str) -> Result<Value, String> {
        let mut v = Value::Table(text.parse().unwrap());
        apply(&mut v, spec).map(|_| v)
    }

    // ---- paths reach tables, arrays and new keys ----
    #[test]
    fn sets_nested_values() {
        let t = applied(
            "[links.bottleneck]\nrate = \"1Mbps\"",
            "links.bottleneck.queue.limit=10KB",
        )
        .unwrap();
        assert_eq!(
            t["links"]["bottleneck"]["queue"]["limit"].as_str(),
            Some("10KB")
        );
        let t = applied(
            "[[flows]]\nsrc=\"a\"\n[[flows]]\nsrc=\"b\"",
            "flows.1.src=c",
        )
        .unwrap();
        assert_eq!(t["flows"][1]["src"].as_str(), Some("c"));
        let t = applied("seed = 1", "seed=42").unwrap();
        assert_eq!(t["seed"].as_integer(), Some(42));
    }

    #[test]
    fn bad_paths_are_explained() {
        assert!(applied("seed = 1", "seed")
            .unwrap_err()
            .contains("dotted.path=value"));
        assert!(applied("seed = 1", "seed.x=1")
            .unwrap_err()
            .contains("not a table"));
        assert!(applied("[[flows]]\nsrc=\"a\"", "flows.3.src=x")
            .unwrap_err()
            .contains("has 1 entries"));
    }
}
