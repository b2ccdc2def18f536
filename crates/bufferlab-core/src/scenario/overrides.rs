//! `--set dotted.path=value` overrides, applied to the TOML document before it is validated,
//! so an override is checked exactly like the same value written in the file.
//! Path segments that are numbers index arrays (`flows.0.app.rate=2Mbps`). The value is read
//! as a TOML value when it parses as one (`10`, `true`, `"x"`, `{kind="droptail"}`), otherwise
//! as a plain string (`10KB`, `20ms`).
//!
//! Setting a table's `kind` to another kind (`links.bottleneck.queue.kind=red` over a DropTail
//! queue with `flavour = "ns2"`) keeps only the table's fields the new kind has, as the JSON
//! Schema of the scenario says: a sweep axis over `kind` compares disciplines without an error
//! about the base's kind-specific fields.

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
            let switches_kind = *last == "kind"
                && t.get("kind").is_some_and(|old| old != &value)
                && value.is_str();
            if switches_kind {
                if let Some(keep) = fields_of_kind(parents, value.as_str().unwrap_or_default()) {
                    t.retain(|k, _| k == "kind" || keep.iter().any(|f| f == k));
                }
            }
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

/// The fields the variant `kind` of the tagged table at `path` has, from the scenario's JSON
/// Schema; None when the path or the kind is not a tagged table the schema knows.
fn fields_of_kind(path: &[&str], kind: &str) -> Option<Vec<String>> {
    let schema = serde_json::to_value(schemars::schema_for!(super::config::Scenario)).ok()?;
    let defs = schema.get("$defs").cloned();
    let resolve = |start: &serde_json::Value| -> Option<serde_json::Value> {
        let mut node = start.clone();
        for _ in 0..8 {
            if let Some(r) = node.get("$ref").and_then(|r| r.as_str()) {
                let name = r.rsplit('/').next()?.to_string();
                node = defs.as_ref()?.get(&name)?.clone();
                continue;
            }
            // Option<T>: anyOf [T, null]
            let inner = node
                .get("anyOf")
                .and_then(|a| a.as_array())
                .and_then(|any| {
                    any.iter()
                        .find(|v| v.get("type") != Some(&"null".into()))
                        .cloned()
                });
            match inner {
                Some(t) => node = t,
                None => return Some(node),
            }
        }
        None
    };
    let mut node = resolve(&schema)?;
    for seg in path {
        let next = if let Some(p) = node.get("properties").and_then(|p| p.get(*seg)) {
            p.clone()
        } else if let Some(a) = node.get("additionalProperties").filter(|a| a.is_object()) {
            a.clone()
        } else if let Some(i) = node.get("items") {
            i.clone()
        } else {
            return None;
        };
        node = resolve(&next)?;
    }
    let variants = node.get("oneOf")?.as_array()?;
    let variant = variants.iter().find(|v| {
        let tag = v.pointer("/properties/kind");
        tag.and_then(|t| t.get("const")).and_then(|c| c.as_str()) == Some(kind)
            || tag
                .and_then(|t| t.get("enum"))
                .and_then(|e| e.as_array())
                .is_some_and(|e| e.iter().any(|x| x.as_str() == Some(kind)))
    })?;
    Some(
        variant
            .get("properties")?
            .as_object()?
            .keys()
            .cloned()
            .collect(),
    )
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

    // ---- switching a tagged table's kind keeps the fields the new kind has ----
    #[test]
    fn a_new_kind_keeps_only_its_own_fields() {
        let base = "[links.bottleneck]\nrate = \"1Mbps\"\nqueue = { kind = \"droptail\", limit = \"20p\", flavour = \"ns2\" }";
        let t = applied(base, "links.bottleneck.queue.kind=red").unwrap();
        let q = &t["links"]["bottleneck"]["queue"];
        assert_eq!(q["kind"].as_str(), Some("red"));
        assert_eq!(q["limit"].as_str(), Some("20p"), "RED has a limit too");
        assert!(q.get("flavour").is_none(), "RED has no flavour: {q}");
        // the same kind again changes nothing
        let t = applied(base, "links.bottleneck.queue.kind=droptail").unwrap();
        assert_eq!(
            t["links"]["bottleneck"]["queue"]["flavour"].as_str(),
            Some("ns2")
        );
        // a kind the schema does not know keeps every field (the parse then names the kind)
        let t = applied(base, "links.bottleneck.queue.kind=nosuch").unwrap();
        assert_eq!(
            t["links"]["bottleneck"]["queue"]["flavour"].as_str(),
            Some("ns2")
        );
        // apps in a list, and the topology
        let t = applied(
            "[[flows]]\napp = { kind = \"cbr\", rate = \"1Mbps\", random = true }",
            "flows.0.app.kind=poisson",
        )
        .unwrap();
        let app = &t["flows"][0]["app"];
        assert_eq!(app["rate"].as_str(), Some("1Mbps"));
        assert!(app.get("random").is_none(), "{app}");
        let t = applied(
            "[topology]\nkind = \"dumbbell\"\npairs = 2",
            "topology.kind=chain",
        )
        .unwrap();
        assert!(t["topology"].get("pairs").is_none());
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
