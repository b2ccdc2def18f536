//! Scenario files: parsing (TOML, with `--set` overrides), validation with messages that name
//! the field, and building a runnable [`Simulation`](crate::sim::Simulation).

mod agents;
pub mod bounds;
pub mod build;
pub mod capacity;
pub mod checks;
pub mod config;
mod expand;
pub mod files;
mod flows;
pub mod limits;
mod links;
mod monitors;
mod nodes;
pub mod overrides;
mod queues;
pub mod recipes;
mod routes;
mod streams;
mod switches;
pub mod topology;
pub mod workloads;

use config::Scenario;
use std::fmt;

/// A problem with a scenario, located as precisely as the parser knows.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioError {
    /// Dotted path of the offending field ("links.bottleneck.rate", "flows[2].dst"), if known.
    pub path: Option<String>,
    /// 1-based line and column in the source file, if known.
    pub line_col: Option<(usize, usize)>,
    pub message: String,
}

impl ScenarioError {
    pub fn field(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            path: Some(path.into()),
            line_col: None,
            message: message.into(),
        }
    }
    pub fn plain(message: impl Into<String>) -> Self {
        Self {
            path: None,
            line_col: None,
            message: message.into(),
        }
    }
    /// One line: `source:line:col: path: message`.
    pub fn render(&self, source: &str) -> String {
        let mut s = source.to_string();
        if let Some((l, c)) = self.line_col {
            s.push_str(&format!(":{l}:{c}"));
        }
        if let Some(p) = self.path.as_deref().filter(|p| !p.is_empty() && *p != ".") {
            s.push_str(&format!(": {p}"));
        }
        s.push_str(": ");
        s.push_str(&self.message);
        s
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render("scenario"))
    }
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// TOML's messages span several lines with a source excerpt; keep the first sentence.
fn first_line(msg: &str) -> String {
    msg.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("invalid value")
        .to_string()
}

/// Parses scenario text, applies `overrides` (`dotted.path=value`) and checks types and keys.
/// Queue limits given in BDP or time are taken out of the queue tables first
/// (`limits::extract`) and kept in `Scenario::deferred_limits` for the builder to size.
pub fn parse(text: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    if overrides.is_empty() {
        let de = toml::Deserializer::parse(text).map_err(|e| syntax_error(text, &e))?;
        let first = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            ScenarioError {
                path: Some(path),
                line_col: inner.span().map(|s| line_col(text, s.start)),
                message: first_line(inner.message()),
            }
        });
        // A limit in BDP or time is no `QueueLimit`: only a scenario that failed can hold
        // one, and it is read again through the table (without line numbers).
        let Err(error) = first else {
            return first;
        };
        let mut doc = toml::Value::Table(
            text.parse()
                .map_err(|e: toml::de::Error| syntax_error(text, &e))?,
        );
        let deferred = limits::extract(&mut doc)?;
        if deferred.is_empty() {
            return Err(error);
        }
        return from_doc(doc, deferred);
    }
    let table: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| syntax_error(text, &e))?;
    let mut doc = toml::Value::Table(table);
    for o in overrides {
        overrides::apply(&mut doc, o).map_err(ScenarioError::plain)?;
    }
    let deferred = limits::extract(&mut doc)?;
    from_doc(doc, deferred)
}

fn from_doc(doc: toml::Value, deferred: limits::Deferred) -> Result<Scenario, ScenarioError> {
    let mut s: Scenario = serde_path_to_error::deserialize(doc).map_err(|e| {
        let path = e.path().to_string();
        ScenarioError {
            path: Some(path),
            line_col: None,
            message: first_line(&e.into_inner().to_string()),
        }
    })?;
    s.deferred_limits = deferred;
    Ok(s)
}

fn syntax_error(text: &str, e: &toml::de::Error) -> ScenarioError {
    ScenarioError {
        path: None,
        line_col: e.span().map(|s| line_col(text, s.start)),
        message: format!("TOML syntax: {}", first_line(e.message())),
    }
}
