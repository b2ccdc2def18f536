//! A port's queue discipline: its values checked (the discipline's own `validate`, a limit
//! that holds one packet) and built, a built-in one from the registry (`qdisc/registry.rs`)
//! or a user-defined one through the extensions (`ext.rs`).

use super::ScenarioError;
use crate::ext::Extensions;
use crate::net::port_queue::{InlineDropTail, PortQueue};
use crate::qdisc::{self, QueueConfig};
use crate::units::QueueLimit;

/// A queue's own values (its discipline's `validate`) and a limit that holds a packet.
pub(super) fn check_queue(path: &str, q: &QueueConfig) -> Result<(), ScenarioError> {
    q.validate()
        .map_err(|(f, m)| ScenarioError::field(format!("{path}.{f}"), m))?;
    if !matches!(q, QueueConfig::Python(_)) {
        super::bounds::check_queue_limit(&format!("{path}.limit"), q.limit())?;
    }
    if q.limit() == QueueLimit::Packets(0) {
        return Err(ScenarioError::field(
            format!("{path}.limit"),
            "0p holds no packet; give at least 1p (or 2p with the ns2 flavour)",
        ));
    }
    Ok(())
}

/// A queue on a flow's path holds one packet of the flow (its values are checked for every
/// link by `check_queue`; a template's queue, such as `access`, is checked here).
pub(super) fn check_queue_fits(
    q: &QueueConfig,
    path: &str,
    size: u64,
    flow: &str,
) -> Result<(), ScenarioError> {
    check_queue(path, q)?;
    match q.limit() {
        QueueLimit::Bytes(b) if b < size => Err(ScenarioError::field(
            format!("{path}.limit"),
            format!("{b}B is smaller than one {size}-byte packet of flow \"{flow}\"; make the buffer at least {size}B or use a packet limit"),
        )),
        _ => Ok(()),
    }
}

/// A port's discipline: built in, or user-defined through `ext`.
pub(super) fn build_queue(
    q: &QueueConfig,
    ext: Option<&dyn Extensions>,
    path: &str,
) -> Result<PortQueue, ScenarioError> {
    match q {
        QueueConfig::Python(p) => {
            let ext = ext.ok_or_else(|| {
                ScenarioError::field(format!("{path}.class"), "Python queue disciplines run only from the Python package (bufferlab.run or the bufferlab command)")
            })?;
            ext.queue_disc(&p.class, &serde_json::Value::Object(p.params.clone()))
                .map(PortQueue::from)
                .map_err(|e| ScenarioError::field(format!("{path}.class"), e))
        }
        QueueConfig::Droptail(c) => Ok(PortQueue::DropTail(InlineDropTail::new(
            qdisc::droptail::DropRule::new(c),
        ))),
        other => Ok(qdisc::build(other).into()),
    }
}

/// Whether ns-2 makes this discipline draw from its default RNG (its RED family, PI, REM
/// and RIO call `Random::uniform()`).
pub(super) fn draws_from_ns2_default(q: &QueueConfig) -> bool {
    matches!(
        q,
        QueueConfig::Red(_)
            | QueueConfig::Ared(_)
            | QueueConfig::Pi(_)
            | QueueConfig::Rem(_)
            | QueueConfig::Rio(_)
    )
}
