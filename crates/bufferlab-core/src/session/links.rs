//! A [`Session`]'s changes to links while the run goes on: a direction's rate, delay and
//! queue limit (ns-2's `$ns bandwidth`, `$ns delay`, `$ns queue-limit` run by a script's
//! event), and ns-2's Delayer (`insert-delayer`, `$delayer alloc` / `spike` / `block` /
//! `unblock`; net/delayer.rs).

use super::Session;
use crate::api::Error;
use crate::clock::EventClock;
use crate::ids::PortId;
use crate::net::delayer::RanVar;
use crate::units::{Rate, SimTime};

/// A RandomVariable as the script layer names it: (`uniform`, min, max), (`exponential`,
/// avg, _), (`constant`, val, _).
pub type RanVarWords<'a> = (&'a str, f64, f64);

impl Session {
    /// Changes a link direction while the run goes on (ns-2's `$ns bandwidth`, `$ns delay`,
    /// `$ns queue-limit` run by a script's event; tcl/lib/ns-lib.tcl sets `bandwidth_` or
    /// `delay_` of the direction's DelayLink, `limit_` of its queue): `what` is `rate` (bits
    /// per second), `delay` (seconds), `limit` (packets, a DropTail queue's) or
    /// `avoid_reordering` (DelayLink's `avoidReordering_`, 0 or 1). What is sent
    /// or queued from now on sees it (`Port::set_rate`, `Port::set_delay`,
    /// `Port::set_queue_limit`, net/port/wire.rs and reading.rs). Needs ns-2's clock.
    pub fn set_link(
        &mut self,
        link: &str,
        from: &str,
        to: &str,
        what: &str,
        value: f64,
    ) -> Result<(), Error> {
        if self.sim.clock != EventClock::Ns2 {
            return Err(Error::Scenario(
                "changing a link during the run needs ns-2's clock (clock = \"ns2\")".into(),
            ));
        }
        let port = self.port_index(link, from, to).ok_or_else(|| {
            Error::Scenario(format!("no direction {from} -> {to} of a link \"{link}\""))
        })?;
        if !(value.is_finite() && value >= 0.0) {
            return Err(Error::Scenario(format!("{what}: {value} is not a value")));
        }
        let p = &mut self.sim.ports[port];
        match what {
            "rate" if value >= 1.0 => p.set_rate(Rate(value.round() as u64)),
            "delay" => p.set_delay(SimTime::from_secs_f64(value)),
            "avoid_reordering" => p.set_avoid_reordering(value != 0.0),
            "limit" => {
                if !p.set_queue_limit(value as u64) {
                    return Err(Error::Scenario(format!(
                        "the queue of {from} -> {to} is not a DropTail queue with a packet \
                         limit: its limit cannot change during the run"
                    )));
                }
            }
            _ => {
                return Err(Error::Scenario(format!(
                    "set_link {what} {value}: `rate` (at least 1 b/s), `delay`, `limit` or \
                     `avoid_reordering`"
                )))
            }
        }
        Ok(())
    }

    /// Puts ns-2's Delayer between the queue of direction `from` -> `to` of `link` and its
    /// wire (`$ns insert-delayer`), with channel allocation delays (`alloc`: interval and
    /// length) and delay spikes (`spike`: interval, length and when the first starts, in
    /// seconds: `$delayer spike` draws it as the script runs). Its variables draw from ns-2's
    /// default RNG. Needs ns-2's clock and its default RNG, and a run not started yet.
    pub fn add_delayer(
        &mut self,
        link: &str,
        from: &str,
        to: &str,
        alloc: Option<(RanVarWords, RanVarWords)>,
        spike: Option<(RanVarWords, RanVarWords, f64)>,
    ) -> Result<(), Error> {
        let port = self.delayer_port(link, from, to)?;
        let Some(rng) = self.sim.ns2_rng.clone() else {
            return Err(Error::Scenario(
                "a Delayer draws from ns-2's default RNG: the scenario needs ns2_default_rng"
                    .into(),
            ));
        };
        let rv = |(kind, a, b): RanVarWords| {
            RanVar::from_words(kind, a, b).ok_or_else(|| {
                Error::Scenario(format!(
                    "random variable {kind}: uniform, exponential or constant"
                ))
            })
        };
        let p = &mut self.sim.ports[port];
        p.add_delayer(crate::rng::Rng::Ns2Default(rng));
        if let Some((int, len)) = alloc {
            p.delayer_alloc(rv(int)?, rv(len)?);
        }
        if let Some((int, len, first)) = spike {
            let key = self.sim.clock.key_of_secs(first);
            self.sim.ports[port].delayer_spike(rv(int)?, rv(len)?, key);
            self.sim.schedule_port_timer(PortId(port as u32), key);
        }
        Ok(())
    }

    /// `$delayer block` (true) or `unblock` (false) now, on the Delayer of direction
    /// `from` -> `to` of `link`: unblocking may send its packet at once.
    pub fn delayer_block(
        &mut self,
        link: &str,
        from: &str,
        to: &str,
        block: bool,
    ) -> Result<(), Error> {
        let port = self.delayer_port(link, from, to)?;
        self.sim
            .port_command(PortId(port as u32), |p, cx| p.delayer_block(block, cx));
        Ok(())
    }

    fn delayer_port(&self, link: &str, from: &str, to: &str) -> Result<usize, Error> {
        if self.sim.clock != EventClock::Ns2 {
            return Err(Error::Scenario(
                "a Delayer needs ns-2's clock (clock = \"ns2\")".into(),
            ));
        }
        self.port_index(link, from, to).ok_or_else(|| {
            Error::Scenario(format!("no direction {from} -> {to} of a link \"{link}\""))
        })
    }
}
