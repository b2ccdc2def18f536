//! When the sender's data leaves: per-packet send jitter (a flow's `send_jitter`, ns-2's
//! `overhead_`), ns-2's `maxburst_` cap and its opening packet without `delay_growth_`.
//!
//! Send jitter follows ns-2.35 `tcp/tcp.cc` `send_much` (read through the search tool): with
//! `overhead_` > 0 a call that is not forced sends nothing; if the window lets a packet go
//! and the delayed-send timer is idle, the timer is set to `Random::uniform(overhead_)` from
//! now; while it is pending every unforced call returns at once. When it expires
//! (`timeout_nonrtx(TCP_TIMER_DELSND)`) `send_much(1, ...)` sends all the window allows (up
//! to `maxburst_`). Every `send_much` goes through it (each ACK's, a timeout's go-back-N,
//! the opening packet's), not the direct `output` calls: a fast retransmission and
//! `send_one` (limited transmit) leave at once. Floyd and Jacobson, "On Traffic Phase
//! Effects in Packet-Switched Gateways" (1992), is why: without it, DropTail bottlenecks
//! lock deterministic flows into one phase. The draw is the flow's own stream
//! ("flow/<name>/jitter", `rng.rs`), or ns-2's default RNG when the run follows it
//! (`ns2_default_rng`: `Random::uniform(r)` is `r` times its next value).
//!
//! A paced sender (`tcp/pacing.rs`, which ns-2's agents are not) sends at its pacing timer
//! without a further delay: the jitter holds back the sends an ACK or a timeout starts, not
//! each paced release (which would lower the pacing rate by half the jitter per packet).

use super::{State, TcpSender};
use crate::endpoint::EndpointCtx;
use crate::rng::Rng;
use crate::units::SimTime;

/// The delayed-send timer of a sender with send jitter.
pub(super) struct SendJitter {
    /// `overhead_`: the largest delay.
    max: SimTime,
    rng: Rng,
    /// When the pending delayed send fires, and the same time in ns-2's double seconds.
    pub(super) at: Option<(SimTime, Option<f64>)>,
    /// The opening packet waits for the timer (ns-2 sends packet 0 through `send_much`).
    opening: bool,
}

impl SendJitter {
    pub(super) fn new(max: SimTime, rng: Rng) -> Self {
        SendJitter {
            max,
            rng,
            at: None,
            opening: false,
        }
    }
}

impl TcpSender {
    /// Gives every `send_much`-like send a random delay in [0, `max`) drawn from `rng`
    /// (`send_jitter`, ns-2 `overhead_`); zero leaves the sender as it was.
    pub fn with_send_jitter(mut self, max: SimTime, rng: Rng) -> Self {
        if max > SimTime::ZERO {
            self.jitter = Some(Box::new(SendJitter::new(max, rng)));
        }
        self
    }

    /// ns-2's opening packet without `delay_growth_`: data leaves with it (see
    /// `tcp/ns2_agent.rs`).
    pub(super) fn opening_with_data(&self) -> bool {
        self.p.handshake && !self.p.ns2.delay_growth
    }

    /// The opening packet, and with `opening_with_data` the data the window allows beside it;
    /// with send jitter, once the delayed-send timer fires.
    pub(super) fn open(&mut self, cx: &mut EndpointCtx) {
        if let Some(j) = &mut self.jitter {
            if !self.forced_send {
                if j.at.is_none() {
                    j.opening = true;
                    self.schedule_delayed_send(cx);
                }
                return;
            }
            j.opening = false;
        }
        self.send_syn(cx);
        if self.opening_with_data() {
            self.send_data(cx);
        }
    }

    /// Whether send jitter holds this (unforced) send back: true while the delayed-send timer
    /// is pending, or when it is set now because the window lets a packet go.
    pub(super) fn send_delayed(&mut self, cx: &mut EndpointCtx) -> bool {
        let Some(j) = &self.jitter else {
            return false;
        };
        if self.forced_send {
            return false;
        }
        if j.at.is_none() && self.window_lets_one_go(cx.now) {
            self.schedule_delayed_send(cx);
        }
        true
    }

    fn schedule_delayed_send(&mut self, cx: &mut EndpointCtx) {
        let fresh = SimTime::from_secs_f64(self.now_s).0.abs_diff(cx.now.0) <= 1;
        let now_s = self.now_s;
        if let Some(j) = &mut self.jitter {
            let max = j.max.as_secs_f64();
            let d = j.rng.uniform_between(0.0, max);
            j.at = Some((
                cx.now + SimTime::from_secs_f64(d),
                fresh.then_some(now_s + d),
            ));
        }
    }

    /// The delayed-send timer has fired: `send_much(1, ...)`, the opening packet if it waits.
    pub(super) fn fire_delayed_send(&mut self, cx: &mut EndpointCtx) {
        let Some(j) = &mut self.jitter else {
            return;
        };
        if j.at.is_none_or(|(t, _)| t > cx.now) {
            return;
        }
        j.at = None;
        let opening = j.opening;
        self.forced_send = true;
        if opening && self.state == State::SynSent {
            self.open(cx);
        } else {
            self.send_data(cx);
        }
        self.forced_send = false;
    }

    /// ns-2 `send_much`'s loop condition, `t_seqno_ <= highest_ack_ + win && t_seqno_ <
    /// curseq_`: the next packet fits the window.
    fn window_lets_one_go(&self, _now: SimTime) -> bool {
        let avail = self.avail_end();
        if self.snd_nxt >= avail {
            return false;
        }
        let len = self.mss().min(avail - self.snd_nxt);
        if self.ns2_sack1() && self.in_recovery {
            return self.sack1_pipe < (self.w.cwnd / self.w.mss).floor() as i64;
        }
        if self.ns3_sack() || (self.in_recovery && self.p.sack) {
            // sending by the pipe (RFC 6675, ns-3): retransmissions may go whatever snd_nxt
            // is; the timer's send finds out
            return true;
        }
        let win = self.rwnd.min(self.p.max_window).min(self.w.cwnd as u64);
        self.snd_nxt + len <= self.snd_una + win.saturating_sub(self.opening_slot())
    }

    /// Bytes of the window the unacknowledged opening packet holds (one packet, as ns-2's
    /// window counts packet 0 when data leaves beside it).
    pub(super) fn opening_slot(&self) -> u64 {
        if self.state == State::SynSent {
            self.mss()
        } else {
            0
        }
    }

    /// ns-2 `maxburst_`: whether the `sent`-th packet of this send ends it.
    pub(super) fn burst_done(&self, sent: u32) -> bool {
        self.p.ns2.maxburst > 0 && sent >= self.p.ns2.maxburst
    }

    /// The delayed-send timer, for `next_timeout` / `next_timeout_s`.
    pub(super) fn delayed_send_at(&self) -> Option<(SimTime, Option<f64>)> {
        self.jitter.as_ref().and_then(|j| j.at)
    }
}
