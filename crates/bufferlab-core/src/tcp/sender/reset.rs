//! ns-2.35's `$tcp reset` during a run (`Endpoint::reset`), after `tcp/tcp.cc`
//! `TcpAgent::reset` (and `tcp/tcp-sack1.cc` `Sack1TcpAgent::reset`, which clears the
//! scoreboard first), read through the search tool:
//!
//! * the agent goes back to the state it was built in: `rtt_init()` (the estimator, the
//!   backoff), `dupacks_`, `curseq_ = 0` (no data: the application's next write starts the
//!   connection again, the opening packet first with `syn_`), `set_initial_window()`,
//!   `t_seqno_ = 0`, `maxseq_ = -1`, `last_ack_ = highest_ack_ = -1`, `ssthresh_ = window_`,
//!   `recover_ = 0`, `closed_ = 0`, `last_cwnd_action_ = 0`; `cancel_timers()` stops the
//!   retransmission and delayed-send timers;
//! * `boot_time_ = Random::uniform(tcp_tick_)`: a new phase of its tick clock (drawn by the
//!   caller, from ns-2's default RNG);
//! * `rtt_active_` and `rtt_ts_` are left (`rtt_seq_ = -1`): a measurement under way at the
//!   reset is taken by the first new ACK after it, from the old send time;
//! * `lastreset_ = now`: `recv` drops an ACK whose `ts()` (the time the sink sent it) is
//!   before it, the ACKs of the previous incarnation (`TcpAgent::recv`, `RenoTcpAgent::recv`,
//!   `NewRenoTcpAgent::recv`, `Sack1TcpAgent::recv` all do).
//!
//! What the report counts (packets sent, retransmissions, timeouts) goes on across a reset.
//! A subclass's own variables that `TcpAgent::reset` leaves (Reno's `dupwnd_`, NewReno's
//! `firstpartial_`) start again here: a reset during fast recovery is where the two differ.

use super::TcpSender;
use crate::tcp::cc;
use crate::units::SimTime;

impl TcpSender {
    /// `TcpAgent::reset` at `now` (see the module comment); `phase` is the new `boot_time_`.
    pub(super) fn ns2_reset(&mut self, now: SimTime, phase: Option<SimTime>) -> Result<(), String> {
        if !self.rules.rto_in_ticks || !matches!(self.app, super::TcpApp::Bulk) {
            return Err(
                "resetting a connection is modelled for ns-2's agents (preset ns2) whose data \
                 the script writes"
                    .into(),
            );
        }
        let mut p = crate::tcp::TcpParams::clone(&self.p);
        if let Some(ph) = phase {
            p.clock_phase = ph;
        }
        let cc = cc::build(&p);
        let mut fresh = TcpSender::with_cc(p, super::TcpApp::Bulk, SimTime::MAX, self.stop, cc);
        // curseq_ = 0: nothing to send until the application writes again (set_data)
        fresh.data_end = 1;
        // cancel_timers(): the delayed-send timer of send jitter (overhead_) too
        fresh.jitter = self.jitter.take().map(|mut j| {
            j.at = None;
            j
        });
        fresh.last_reset = Some(now);
        // reset(): QOption_'s T_last and T_prev (and its RTT counter) start at now
        fresh.cwv = super::ns2_cwv::Ns2Cwv::reset(fresh.ns2_tick_now(now.as_secs_f64()));
        // reset() leaves rtt_active_ and rtt_ts_ (and sets rtt_seq_ = -1): a measurement
        // under way goes on, and the first new ACK of the next incarnation samples from the
        // old send time; until then no packet is timed (output: `if (!rtt_active_)`)
        fresh.timed = self.timed.map(|(_, t0)| (1, t0));
        fresh.now_s = self.now_s;
        fresh.stopped = self.stopped;
        // the report's counters and series go on
        fresh.stats = std::mem::take(&mut self.stats);
        fresh.series = self.series.take();
        fresh.response_times = std::mem::take(&mut self.response_times);
        fresh.completion = self.completion;
        fresh.before_warmup = self.before_warmup;
        fresh.at_warmup = std::mem::take(&mut self.at_warmup);
        fresh.objects_at_warmup = self.objects_at_warmup;
        *self = fresh;
        Ok(())
    }

    /// An ACK of the previous incarnation (`tcph->ts() < lastreset_`, tcp.cc `recv`).
    pub(super) fn sent_before_reset(&self, ts: SimTime) -> bool {
        self.last_reset.is_some_and(|t| ts < t)
    }
}
