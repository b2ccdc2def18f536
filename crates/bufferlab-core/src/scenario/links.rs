//! Links: each configured link's values checked, and each link of the topology built as two
//! ports (link k has port 2k, a -> b, and 2k+1, b -> a), each with its queue discipline, its
//! loss model and their random streams.

use super::checks::check_loss;
use super::config::Scenario;
use super::queues::{build_queue, check_queue, draws_from_ns2_default};
use super::streams::Streams;
use super::switches::Switches;
use super::topology::Topology;
use super::ScenarioError;
use crate::ext::Extensions;
use crate::ids::{LinkId, NodeId, PortId};
use crate::net::loss::{LossConfig, LossModel};
use crate::net::port::{Port, PortConfig};
use crate::sim::{Link, Simulation};

/// Every configured link is checked, used by a flow or not, in one error shape: the field's
/// path and what to do.
pub(super) fn check_links(s: &Scenario) -> Result<(), ScenarioError> {
    for (name, l) in &s.links {
        if name.is_empty() || name.chars().any(char::is_control) {
            return Err(ScenarioError::field(
                "links",
                format!("link name {name:?} is empty or holds a control character; give a printable name"),
            ));
        }
        for (field, q) in [("queue", &l.queue), ("reverse_queue", &l.reverse_queue)] {
            if let Some(q) = q {
                check_queue(&format!("links.{name}.{field}"), q)?;
            }
        }
        if let Some(loss) = &l.loss {
            check_loss(format!("links.{name}.loss"), loss)?;
        }
        if let Some(loss) = &l.reverse_loss {
            check_loss(format!("links.{name}.reverse_loss"), loss)?;
        }
    }
    Ok(())
}

/// The topology's links into `sim`: its ports, in link order, and its links. A port leaving
/// a shared-buffer switch queues in the switch's pool (`switches.rs`), any other in the
/// link's own discipline.
pub(super) fn build_links(
    sim: &mut Simulation,
    s: &Scenario,
    topo: &Topology,
    ext: Option<&dyn Extensions>,
    streams: &Streams,
    switches: &Switches,
) -> Result<(), ScenarioError> {
    // Sized once: a table grown by doubling holds the old and the new block at once, which
    // was the run's peak of memory at 10 000 flows (docs/performance.md, issue #40).
    sim.ports.reserve_exact(2 * topo.links.len());
    sim.links.reserve_exact(topo.links.len());
    for (k, l) in topo.links.iter().enumerate() {
        let ids = [PortId(2 * k as u32), PortId(2 * k as u32 + 1)];
        for (dir, (from, to, q, loss)) in [
            (l.a, l.b, &l.queue_ab, &l.loss_ab),
            (l.b, l.a, &l.queue_ba, &l.loss_ba),
        ]
        .into_iter()
        .enumerate()
        {
            let label = format!("port/{}/{}->{}", l.name, topo.nodes[from], topo.nodes[to]);
            sim.ports.push(Port::new(PortConfig {
                id: ids[dir],
                link: LinkId(k as u32),
                from: NodeId(from as u32),
                to: NodeId(to as u32),
                rate: l.rate_of(dir),
                delay: l.delay,
                overhead: l.overhead,
                qdisc: match switches.queue(from, l, &topo.nodes[to]) {
                    Some(shared) => shared,
                    None => build_queue(
                        q,
                        ext,
                        &format!(
                            "links.{}.{}",
                            l.config_key,
                            if dir == 0 { "queue" } else { "reverse_queue" }
                        ),
                    )?,
                },
                qdisc_rng: streams.get_lazy(draws_from_ns2_default(q), &format!("{label}/queue")),
                device_queue: l.device_queue as usize,
                loss: LossModel::from_config(loss.as_ref()),
                loss_rng: streams.get(
                    matches!(loss, Some(LossConfig::Bernoulli { .. })),
                    &format!("{label}/loss"),
                ),
                loss_position: loss.as_ref().map(|l| l.position()).unwrap_or_default(),
                warmup: s.warmup,
                capacity: l.capacity[dir].clone(),
            }));
        }
        sim.links.push(Link {
            name: l.name.clone(),
            ports: ids,
        });
    }
    Ok(())
}
