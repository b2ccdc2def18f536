//! The sender as a [`crate::endpoint::Endpoint`] (sans IO): the ACKs and timers it is
//! given, the time of its next timer (with ns-2's double keys: the retransmission timer, a
//! CBR's writes, the delayed send), and the commands of a scenario or an ns-2 script during
//! a run: start and stop (`retime`; ns-2 `$ftp stop`, ns-source.tcl's `advance 0`), ns-2.35
//! tcp.cc `sendmsg` / `advance` (`set_data`), `$tcp reset` (`reset.rs`).
//!
//! On each timer call: the start (the opening packet, or data without the handshake; RFC 9293
//! section 3.5), the stop, the application's next write, the delayed send
//! (`send_timing.rs`), the pacing timer (ns-3 `m_pacingTimer`), RACK-TLP's timers, then the
//! retransmission timer (`timeout.rs`).

use super::{State, TcpSender};
use crate::endpoint::{Endpoint, EndpointCtx, Ns2TcpEvent};
use crate::packet::Packet;
use crate::tcp::app::TcpApp;
use crate::tcp::pacing::Pacer;
use crate::units::SimTime;

impl Endpoint for TcpSender {
    fn settings(&self) -> Option<serde_json::Value> {
        Some(self.p.to_json())
    }

    fn set_cbr_rate(&mut self, rate_bps: f64, size: u32) -> Result<(), String> {
        self.app.set_cbr_rate(rate_bps, size)
    }

    fn set_telnet_interval(&mut self, interval_s: f64) -> Result<(), String> {
        self.app.set_telnet_interval(interval_s)
    }

    /// ns-2's Tahoe, Reno, NewReno and Sack1 agents write event trace lines
    /// (`sender/ns2_events.rs`); no other sender does here.
    fn record_ns2_events(&mut self) -> bool {
        if !(self.ns2_aimd() || self.ns2_sack1()) {
            return false;
        }
        self.ns2_events.get_or_insert_with(Vec::new);
        true
    }

    fn take_ns2_events(&mut self) -> Vec<Ns2TcpEvent> {
        self.ns2_events
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    fn probe(&self, var: &str) -> Option<f64> {
        self.probe_var(var)
    }

    fn on_packet(&mut self, pkt: Packet, cx: &mut EndpointCtx) {
        self.note_warmup(cx);
        if self.sent_before_reset(pkt.tcp.ts_val) {
            return; // tcp.cc recv: from a previous incarnation (lastreset_)
        }
        self.now_s = cx.now_s;
        self.record_series(cx.now);
        let una = self.snd_una;
        self.on_ack(&pkt, cx);
        if self.snd_una > una {
            // tcp.cc newack() -> newtimer(): the timer is rearmed on each new ACK, also the
            // one that acknowledges everything sent (set_data reads when it expires)
            let rto = self.newack_rto.map_or_else(|| self.rtt.rto(), |r| r.0);
            self.idle_timeout_at = (self.snd_una >= self.snd_max).then(|| cx.now + rto);
            if self.ns2_qoption_all_acked() {
                // recv_newack_helper with QOption_: cancel_rtx_timer() (sender/ns2_cwv.rs)
                self.idle_timeout_at = None;
                self.rto_at = None;
            }
        }
        self.newack_rto = None;
    }

    fn on_timeout(&mut self, cx: &mut EndpointCtx) {
        self.note_warmup(cx);
        let now = cx.now;
        self.now_s = cx.now_s;
        self.record_series(now);
        if !self.stopped && now >= self.stop {
            // The application stops writing (ns-2 `$ftp stop`); what was sent is still delivered.
            // A packet source's writes stay in the connection and go out (trafgen.cc and
            // telnet.cc `stop` only stop the timer; ns-3's OnOffApplication leaves its
            // socket's buffer); a bulk source's endless data ends where it was sent.
            self.stopped = true;
            let bulk = !matches!(self.app, TcpApp::Writes { .. });
            if bulk {
                self.data_end = self.data_end.min(self.snd_max.max(self.snd_una));
            }
            if bulk && self.rules.stop_withholds_highest_sent {
                // ns-source.tcl FTP stop is `advance 0`: curseq_ = maxseq_, and send_much /
                // send_one send only t_seqno_ < curseq_ (tcp.cc), never the highest packet
                // sent again (a retransmission by dupack_action still is)
                self.send_limit = self.snd_max.saturating_sub(self.mss());
            }
            self.app_at = None;
        }
        if self.state == State::Idle && now >= self.start && !self.stopped {
            if self.p.handshake
                && self.rules.opens_with_first_write
                && matches!(self.app, TcpApp::Writes { .. })
            {
                // the source's writes due by now (a Telnet's start: its first draw); the
                // opening packet waits for the first that has bytes
                let before = self.data_end;
                self.start_object(now);
                self.awaits_first_write = self.data_end == before;
                if self.awaits_first_write {
                    return;
                }
            }
            if self.p.handshake {
                self.state = State::SynSent;
                self.open(cx);
            } else {
                self.state = State::Established;
                self.start_object(now);
                self.send_data(cx);
            }
            return;
        }
        if self.app_at.is_some_and(|t| t <= now) {
            self.app_at = None;
            self.start_object(now);
            self.send_data(cx);
        }
        self.fire_delayed_send(cx);
        if self.pacer.as_mut().is_some_and(|p| p.fire(now)) {
            // ns-3 m_pacingTimer expires: SendPendingData (not held back by send jitter)
            self.forced_send = true;
            self.send_data(cx);
            self.forced_send = false;
        }
        if self.rack.is_some() {
            self.rack_on_timeout(cx);
        }
        if self.rto_at.is_some_and(|t| t <= now) {
            self.on_rto(cx);
        }
    }

    fn retime(
        &mut self,
        now: SimTime,
        _from: SimTime,
        start: Option<SimTime>,
        stop: Option<SimTime>,
    ) -> Result<(), String> {
        if let Some(t) = start {
            if self.state != State::Idle || self.stopped || self.objects_started > 0 {
                return Err(
                    "its TCP connection has started; starting it again is not modelled".into(),
                );
            }
            if matches!(self.app, TcpApp::Writes { .. }) {
                return Err(
                    "a packet source over TCP is started only at its scenario start".into(),
                );
            }
            self.start = if t == SimTime::MAX { t } else { t.max(now) };
        }
        if let Some(t) = stop {
            if !self.stopped {
                self.stop = self.stop.min(t.max(now));
            }
        }
        Ok(())
    }

    /// ns-2.35 tcp.cc: `sendmsg` adds ceil(nbytes / size_) packets to `curseq_`, `advanceby`
    /// adds its argument, `advance` sets it; each then calls `send_much`, so a connection
    /// that had sent everything goes on with the same sequence space, window and RTT state.
    /// With rule `idle_timeout_closes_cwnd_to_one` and `slow_start_restart`, an idle period
    /// that reached the expiry of the timer rearmed by the last new ACK has closed cwnd to
    /// one segment (tcp.cc timeout(): slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA), recover_
    /// = maxseq_, last_cwnd_action_ = CWND_ACTION_TIMEOUT, the timed segment forgotten;
    /// the timer then fires every RTO without backoff, which changes nothing more). Data
    /// already sent is never taken back: the end is at least what was sent.
    fn reset(&mut self, now: SimTime, phase: Option<SimTime>) -> Result<(), String> {
        self.ns2_reset(now, phase)
    }

    fn set_data(&mut self, now: SimTime, segments: u64) -> Result<bool, String> {
        if !matches!(self.app, TcpApp::Bulk) {
            return Err(format!(
                "its {} application writes its own data",
                self.app.kind()
            ));
        }
        if self.stopped {
            // `$ftp start` after `$ftp stop` (ns-source.tcl: stop is `advance 0`, start `send
            // -1`): the connection goes on from where it stopped, until a later stop
            self.stopped = false;
            self.stop = SimTime::MAX;
            self.send_limit = u64::MAX;
        }
        let end = segments
            .saturating_mul(self.mss())
            .saturating_add(1)
            .min(u64::MAX / 4);
        let idle = self.state == State::Established && self.snd_una >= self.snd_max;
        self.data_end = end.max(self.snd_max);
        match self.state {
            State::Idle => {
                let started = self.start > now;
                self.start = self.start.min(now);
                return Ok(started);
            }
            State::SynSent => return Ok(false),
            State::Established => {}
        }
        self.resume_after_idle(now, idle);
        self.app_at = Some(now); // on_timeout sends what the window allows
        Ok(false)
    }

    /// `cwnd_` is 1 once ns-2's timer has expired on an idle connection (see `set_data`).
    fn probe_at(&self, var: &str, now: SimTime) -> Option<f64> {
        if var == "cwnd_" && self.idle_timed_out(now) {
            return Some(1.0);
        }
        self.probe(var)
    }

    fn next_timeout_s(&self) -> Option<f64> {
        let next = self.next_timeout()?;
        if let Some((at, s)) = self.rto_at_s {
            if self.rto_at == Some(at) && next == at {
                return Some(s);
            }
        }
        // a CBR's write at its double (tcp/app.rs `pending_s`)
        if let Some((at, s)) = self.app.pending_s() {
            if self.app_at == Some(at) && next == at {
                return Some(s);
            }
        }
        // the delayed-send timer in ns-2's doubles (now + Random::uniform(overhead_))
        match self.delayed_send_at() {
            Some((at, s)) if at == next => s,
            _ => None,
        }
    }

    fn next_timeout(&self) -> Option<SimTime> {
        if self.state == State::Idle {
            if self.awaits_first_write {
                return self.app_at; // started: the opening packet waits for this write
            }
            // a held start (SimTime::MAX) waits for `retime`
            return (!self.stopped && self.start < SimTime::MAX).then_some(self.start);
        }
        let mut t = self.rto_at;
        let stop = (!self.stopped && self.stop < SimTime::MAX).then_some(self.stop);
        let pace = self.pacer.as_deref().and_then(Pacer::timer);
        let delayed = self.delayed_send_at().map(|(t, _)| t);
        let [reo, tlp] = self.rack_timers();
        for x in [self.app_at, stop, pace, delayed, reo, tlp] {
            t = SimTime::earliest(t, x);
        }
        t
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(self.json_report())
    }

    fn finite_transfer(&self) -> Option<crate::monitor::fct::FiniteTransfer> {
        self.finite_transfer_of()
    }

    fn series(&self, end: SimTime) -> Option<serde_json::Value> {
        self.series_json(end)
    }
}
