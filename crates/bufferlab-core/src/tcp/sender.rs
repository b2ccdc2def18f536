//! The TCP sender: a sans-IO state machine (see [`crate::endpoint`]).
//!
//! References, cited at each rule below:
//! * RFC 9293 (TCP): sequence space, SYN/FIN, the three-way handshake (section 3.5).
//! * RFC 5681: slow start, congestion avoidance, fast retransmit / fast recovery (section 3.2),
//!   restart after idle (section 4.1).
//! * RFC 6582: NewReno partial ACKs. RFC 6675: SACK-based recovery (with [`super::sack`]).
//! * RFC 6298: retransmission timer (with [`super::rtt`]); Karn & Partridge 1987.
//! * RFC 3168 section 6.1: ECN at the sender; with a controller that reads the extent of
//!   marking (RFC 8257 DCTCP, RFC 9331 Prague) every ACK's ECE goes to the controller and ECE
//!   ACKs grow the window (Linux `tcp_may_raise_cwnd`). RFC 896 / RFC 1122 4.2.3.4: Nagle.
//! * ns-2.35 `tcp.cc`, `tcp-reno.cc`, `tcp-newreno.cc`, `tcp-vegas.cc`: the one-way agent it
//!   mirrors with the `ns2` preset (full-sized packets, `window_`, one timed segment per RTT)
//!   and, with its flavour's rules (`tcp/flavour/ns2.rs`, `ns2_rules`), the agent's own rules: `slowdown` halves
//!   min(cwnd_, window_), Reno's `dupack_action` (`bugFix_`), `send_one` (limited transmit,
//!   `singledup_`), the opening packet (`syn_`, `delay_growth_`), `timeout`.
//!
//! * Pacing (`tcp/pacing.rs`) and delivery-rate samples for controllers that own the window
//!   (`tcp/rate.rs`, BBR): see [`TcpSender::on_ack`] for the order of the per-ACK steps.
//!
//! Sequence numbers are bytes; the SYN takes number 0, data starts at 1 and a FIN takes the
//! number after the last data byte (it rides on the last data segment).

use super::app::{sample_size, sample_think, TcpApp};
use super::cc::{self, Ack, CongestionControl, Conn, EcnFeedback, Recovery, Window};
use super::config::{CcKind, TcpParams, UNLIMITED};
use super::flavour::{PrrVariant, Rules};
use super::pacing::Pacer;
use super::rate::RateEstimator;
use super::rtt::RttEstimator;
use super::sack::Scoreboard;
use crate::endpoint::{Endpoint, EndpointCtx, Ns2TcpEvent};
use crate::packet::{tcp_flags as F, Ecn, Packet, PacketKind, TcpHeader};
use crate::units::SimTime;
use serde_json::json;

mod accecn;
mod ns2_cwv;
mod ns2_ecn_recovery;
mod ns2_events;
mod ns2_exit_fast_retrans;
mod ns2_frto;
mod ns2_knobs;
mod ns2_linux;
mod ns2_linux_cubic;
mod ns2_linux_scoreboard;
mod ns2_newreno_lingering;
mod ns2_no_fast_retrans;
mod ns2_recovery;
mod ns2_sack1;
mod ns2_sack1_partial_ack;
mod ns2_sack1_send;
mod ns2_vegas;
mod ns3;
mod prr_linux;
mod rack_tlp;
mod reset;
mod send_timing;

use ns2_vegas::VegasLoss;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the flow's start time.
    Idle,
    SynSent,
    Established,
}

/// Counters for the flow's `tcp` report.
#[derive(Debug, Clone, Default)]
pub struct SenderStats {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmitted_segments: u64,
    pub retransmitted_bytes: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    pub ecn_reductions: u64,
    pub syn_retransmits: u64,
    pub acks_received: u64,
    pub dupacks_received: u64,
}

/// Time series of one sender, sampled every `interval` (sample-and-hold: the state only
/// changes inside the endpoint's calls, so a sample at t is the state before the first call
/// after t).
#[derive(Debug, Clone, Default)]
pub struct TcpSeries {
    pub interval: SimTime,
    next: SimTime,
    pub t_s: Vec<f64>,
    pub cwnd_bytes: Vec<f64>,
    pub ssthresh_bytes: Vec<Option<f64>>,
    pub rwnd_bytes: Vec<u64>,
    pub srtt_s: Vec<Option<f64>>,
    pub rtt_s: Vec<Option<f64>>,
}

pub struct TcpSender {
    p: TcpParams,
    /// The rules of the connection's simulator flavour (`tcp/flavour/`).
    rules: &'static Rules,
    cc: Box<dyn CongestionControl>,
    w: Window,
    rtt: RttEstimator,
    sb: Scoreboard,
    app: TcpApp,
    state: State,
    start: SimTime,
    stop: SimTime,
    stopped: bool,
    // sequence space
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    /// One past the last data byte the application has written.
    data_end: u64,
    /// Where new transmissions stop short of `data_end` (rule `stop_withholds_highest_sent`:
    /// ns-2's `$ftp stop`); `u64::MAX` otherwise.
    send_limit: u64,
    /// The application has no more data: a FIN follows `data_end`.
    closing: bool,
    fin_acked: bool,
    // recovery
    dupacks: u32,
    in_recovery: bool,
    recover: u64,
    high_rxt: u64,
    ecn_recover: u64,
    cwr_pending: bool,
    /// The last window reduction was a timeout (ns-2 `last_cwnd_action_`).
    last_action_timeout: bool,
    /// The last window reduction was an ECN echo (ns-2 `last_cwnd_action_ ==
    /// CWND_ACTION_ECN`): a fast retransmit inside its window does not halve again.
    last_action_ecn: bool,
    /// ns-2 `ecn_backoff_` (tcp.cc `ecn`): an ECN echo found cwnd_ at one packet or less.
    ecn_backoff: bool,
    /// AccECN's sender state (`ecn_feedback = "accecn"`, sender/accecn.rs) and the newly
    /// CE-marked packets of the ACK being processed.
    pub(super) accecn: Option<super::accecn::AccEcnSender>,
    pub(super) ack_ce: Option<u64>,
    /// The CE-marked bytes handed to the controller so far (`ecn_marked_bytes` probe).
    ecn_marked_bytes: u64,
    /// ns-3 `CA_LOSS` (`tcp/flavour/ns3.rs`): after a timeout, until the recovery point is acknowledged.
    in_loss: bool,
    /// ns-3 `CA_CWR` (`Rules::ecn_echo_enters_cwr`): after an ECN echo, until an ACK passes
    /// `ecn_recover`.
    in_cwr: bool,
    /// Linux `snd_sml` (`Rules::nagle_minshall`): the end of the last new segment shorter than
    /// the MSS.
    snd_sml: u64,
    /// ns-3 (`tcp/flavour/ns3.rs`): bytes retransmitted and not yet cumulatively acknowledged.
    retx: Scoreboard,
    /// ns-3 (`tcp/flavour/ns3.rs`): end of the head segment marked lost at recovery entry.
    head_lost_until: u64,
    /// ns-3 `m_isFirstPartialAck` (`tcp/flavour/ns3.rs`): the next partial ACK restarts the timer.
    first_partial: bool,
    /// ns-3 `TcpPrrRecovery` state (`prr`): bytes delivered and sent since recovery began,
    /// the pipe when it began, and the bytes this ACK delivered (`currentDelivered`).
    prr_delivered: u32,
    prr_out: u32,
    prr_recovery_fs: u32,
    ack_delivered: u64,
    /// Linux PRR state (`prr` under the `linux` rules; `sender/prr_linux.rs`).
    prr_linux: prr_linux::LinuxPrr,
    /// RACK-TLP (`rack_tlp` under the `linux` rules, with SACK; `sender/rack_tlp.rs`).
    rack: Option<Box<rack_tlp::RackTlp>>,
    /// ns-3 `m_isRetransDataAcked`: this ACK cumulatively acknowledges a retransmission.
    retrans_data_acked: bool,
    /// ns-2 Reno during fast recovery: `cwnd_` without the `dupwnd_` inflation (bytes).
    ns2_base: f64,
    /// ns-2 Reno/Newreno with `exitFastRetrans_` false: `dupwnd_` inflates the window outside
    /// fast recovery, cwnd_ in `ns2_base` (`sender/ns2_exit_fast_retrans.rs`).
    ns2_dupwnd_out: bool,
    /// ns-2 NewReno left fast recovery without `dupwnd_`: `last_cwnd_action_` is still
    /// `CWND_ACTION_DUPACK` (`sender/ns2_newreno_lingering.rs`).
    ns2_dupack_lingers: bool,
    /// ns-2's F-RTO (`frto_`, `pipe_prev_`, `prev_highest_ack_`; `sender/ns2_frto.rs`).
    frto: ns2_frto::Frto,
    /// A partial ACK has arrived in this NewReno recovery (ns-2 `firstpartial_`).
    partial_seen: bool,
    /// ns-2 `first_decrease_` is 0: the window has been decreased once (`sender/ns2_recovery.rs`).
    ns2_decreased: bool,
    /// ns-2 Sack1 (`sender/ns2_sack1.rs`): `pipe_` in packets, and `timeout_` (duplicate ACKs
    /// are ignored after a timeout until a new ACK).
    sack1_pipe: i64,
    sack1_timeout: bool,
    /// ns-2's event trace lines not yet taken (`sender/ns2_events.rs`); None: not recorded.
    ns2_events: Option<Vec<Ns2TcpEvent>>,
    /// ns-2 Sack1 with `partial_ack_` (`sender/ns2_sack1_partial_ack.rs`): `next_pkt_` (a
    /// byte sequence number) and `firstpartial_`.
    sack1_next_pkt: u64,
    sack1_first_partial: bool,
    /// ns-2's `Agent/TCP/Linux` (`sender/ns2_linux.rs`), when the flow is one.
    lx: Option<ns2_linux::Ns2Linux>,
    /// ns-2's congestion window validation (`QOption_`) and `last_ack_` of Sack1's fast
    /// recovery (`sender/ns2_cwv.rs`).
    cwv: ns2_cwv::Ns2Cwv,
    /// ns-2 Sack1's `send_much` `win = window()`, taken once before its loop (bytes): with
    /// `QOption_` a send may shrink cwnd_, and outside fast recovery tcp-sack1.cc goes on to
    /// the window it began with (tcp.cc's `send_much` reads `window()` again each turn).
    send_much_win: Option<f64>,
    /// ns-2 Vegas's loss handling (`sender/ns2_vegas.rs`), when its rule applies.
    vegas_loss: Option<VegasLoss>,
    rwnd: u64,
    // timers
    rto_at: Option<SimTime>,
    /// `rto_at` and the same deadline in ns-2's doubles (`clock.rs`): the time of the event
    /// that armed it plus ns-2's `rtt_timeout()`, under ns-2's estimator.
    rto_at_s: Option<(SimTime, f64)>,
    /// ns-2 `timerfix_` false (tcp.cc `newack`): the RTO (and its double) as the ACK being
    /// handled found it, before its RTT sample and the end of the backoff; `newtimer` sets
    /// the timer with it. None with `timerfix_` (the default) or outside an ACK.
    newack_rto: Option<(SimTime, Option<f64>)>,
    /// ns-2's `lastreset_` (tcp.cc `reset`): the ACKs sent before it are dropped
    /// (`reset.rs`).
    last_reset: Option<SimTime>,
    /// The time of the event being handled in the event clock's seconds
    /// (`EndpointCtx::now_s`).
    now_s: f64,
    app_at: Option<SimTime>,
    /// Started, with the opening packet waiting for the source's first write (rule
    /// `opens_with_first_write`).
    awaits_first_write: bool,
    syn_sent_at: SimTime,
    syn_retx: bool,
    timed: Option<(u64, SimTime)>,
    last_send: SimTime,
    /// When the retransmission timer, rearmed by the new ACK that acknowledged everything
    /// sent, expires (rule `idle_timeout_closes_cwnd_to_one`); None while data is in flight.
    idle_timeout_at: Option<SimTime>,
    // web
    object: Option<(u64, SimTime)>,
    objects_started: u32,
    pub response_times: Vec<f64>,
    pub completion: Option<SimTime>,
    pub stats: SenderStats,
    /// The warm-up: whether a call came before it (`note_warmup`), and the report's counters
    /// as they stood when it ended, subtracted at the end (`monitor/fields.rs`), with the
    /// objects completed by then.
    before_warmup: bool,
    at_warmup: Vec<(&'static str, u64)>,
    objects_at_warmup: usize,
    series: Option<TcpSeries>,
    /// Pacing (`tcp/pacing.rs`), when `paced()`.
    pacer: Option<Pacer>,
    /// Delivery-rate estimation (`tcp/rate.rs`), when the controller owns the window.
    rate: Option<RateEstimator>,
    /// The controller owns cwnd (`CongestionControl::owns_window`).
    owns_window: bool,
    /// Bytes in flight and bytes lost before the ACK being processed (for its rate sample).
    ack_ctx: Option<(u64, u64)>,
    /// Send jitter's delayed-send timer (`send_timing.rs`; a flow's `send_jitter`).
    jitter: Option<send_timing::SendJitter>,
    /// The send under way is the delayed-send timer's (ns-2 `send_much(1, ...)`).
    forced_send: bool,
    /// ns-2's one-off agent variables (`sender/ns2_knobs.rs`).
    knobs: ns2_knobs::KnobState,
}

/// Where ns-2's packet 0 ends in bufferlab's byte numbering (its `highest_ack_ == 0`): the
/// SYN's sequence number 0 with the handshake (`syn_`), else the first data segment.
fn ns2_packet0_end(p: &TcpParams) -> u64 {
    if p.handshake {
        1
    } else {
        1 + u64::from(p.mss)
    }
}

impl TcpSender {
    pub fn new(p: TcpParams, app: TcpApp, start: SimTime, stop: SimTime) -> Self {
        let cc = cc::build(&p);
        Self::with_cc(p, app, start, stop, cc)
    }

    /// A sender with the given congestion controller (a user-defined one, for example).
    pub fn with_cc(
        p: TcpParams,
        app: TcpApp,
        start: SimTime,
        stop: SimTime,
        cc: Box<dyn CongestionControl>,
    ) -> Self {
        let mss = p.mss as f64;
        // ns-2 Vegas: set_initial_window() gives cwnd_ 1 (syn_ and delay_growth_ are true) and
        // tcp-vegas.cc recv raises it to windowInit_ on the second new ACK (see cc/vegas.rs).
        let iw = if p.rules().vegas_as_ns2_agent && p.cc == CcKind::Vegas && !p.handshake {
            1.0
        } else {
            p.iw as f64
        };
        let w = Window {
            cwnd: iw * mss,
            ssthresh: if p.initial_ssthresh == UNLIMITED {
                f64::INFINITY
            } else {
                p.initial_ssthresh as f64
            },
            mss,
        };
        let mut rtt = RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto, p.clock_granularity);
        if p.rules().rto_in_ticks && p.clock_granularity > SimTime::ZERO {
            rtt = rtt.ns2(p.clock_phase).rfc2988(p.ns2.rfc2988);
            let n = &p.ns2;
            rtt = rtt
                .ns2_scales(n.knobs.srtt_bits, n.knobs.rttvar_bits, n.rttvar_exp)
                .expect("checked by TcpParams::resolve")
                .ns2_linux_rttvar(p.rules().ns2_linux_agent && n.linux.is_some());
        }
        let data_end = match &app {
            TcpApp::Bulk => u64::MAX / 4,
            TcpApp::Transfer { bytes } => 1 + bytes,
            TcpApp::Web { .. } | TcpApp::Writes { .. } => 1,
        };
        let closing = matches!(app, TcpApp::Transfer { .. });
        let knobs = ns2_knobs::KnobState::new(ns2_packet0_end(&p), p.mss);
        let owns_window = cc.owns_window();
        Self {
            pacer: p.paced().then(|| {
                if p.cc == CcKind::Prague {
                    Pacer::prague()
                } else {
                    Pacer::new(p.pacing_ss_ratio, p.pacing_ca_ratio)
                }
            }),
            rate: owns_window.then(|| {
                if p.rules().rate_sample_persists {
                    RateEstimator::ns3()
                } else {
                    RateEstimator::new()
                }
            }),
            owns_window,
            ack_ctx: None,
            jitter: None,
            forced_send: false,
            knobs,
            rules: p.rules(),
            cc,
            w,
            rtt,
            sb: Scoreboard::new(),
            app,
            state: State::Idle,
            start,
            stop,
            stopped: false,
            send_limit: u64::MAX,
            snd_una: 1,
            snd_nxt: 1,
            snd_max: 1,
            data_end,
            closing,
            fin_acked: false,
            dupacks: 0,
            in_recovery: false,
            // ns-2 tcp.cc reset(): recover_ = 0, i.e. packet 0 (the opening packet); so
            // `highest_ack_ > recover_` fails while packet 0 is the highest acknowledged
            // (with `syn_`; without it bufferlab keeps 0, below packet 0's end)
            recover: if p.rules().agent_window_halving && p.handshake {
                ns2_packet0_end(&p)
            } else {
                0
            },
            high_rxt: 0,
            ecn_recover: 0,
            in_cwr: false,
            snd_sml: 0,
            cwr_pending: false,
            last_action_timeout: false,
            last_action_ecn: false,
            ecn_backoff: false,
            accecn: p.accecn().then(super::accecn::AccEcnSender::default),
            ack_ce: None,
            ecn_marked_bytes: 0,
            in_loss: false,
            retx: Scoreboard::new(),
            head_lost_until: 0,
            first_partial: true,
            prr_delivered: 0,
            prr_out: 0,
            prr_recovery_fs: 0,
            prr_linux: prr_linux::LinuxPrr::default(),
            rack: (p.rack_tlp && p.sack && p.rules().rack_tlp).then(Box::default),
            ack_delivered: 0,
            retrans_data_acked: false,
            ns2_base: 0.0,
            ns2_dupwnd_out: false,
            ns2_dupack_lingers: false,
            frto: ns2_frto::Frto::default(),
            partial_seen: false,
            ns2_decreased: false,
            sack1_pipe: 0,
            sack1_timeout: false,
            ns2_events: None,
            sack1_next_pkt: 0,
            sack1_first_partial: false,
            lx: (p.rules().ns2_linux_agent && p.sack)
                .then_some(p.ns2.linux)
                .flatten()
                .map(|ca| ns2_linux::Ns2Linux::new(ca, &p)),
            cwv: ns2_cwv::Ns2Cwv::reset(0),
            send_much_win: None,
            vegas_loss: (p.rules().vegas_fine_grained_retransmit && p.cc == CcKind::Vegas)
                .then(|| VegasLoss::new(p.max_window / u64::from(p.mss.max(1)))),
            // The peer's buffer as its SYN-ACK would announce it (both ends share the
            // settings); one-way ns-2 agents have none.
            rwnd: p.recv_buffer.min(p.max_adv_window),
            rto_at: None,
            rto_at_s: None,
            newack_rto: None,
            last_reset: None,
            now_s: 0.0,
            app_at: None,
            awaits_first_write: false,
            syn_sent_at: SimTime::ZERO,
            syn_retx: false,
            timed: None,
            last_send: SimTime::ZERO,
            idle_timeout_at: None,
            object: None,
            objects_started: 0,
            response_times: Vec::new(),
            completion: None,
            stats: SenderStats::default(),
            before_warmup: false,
            at_warmup: Vec::new(),
            objects_at_warmup: 0,
            series: None,
            p,
        }
    }

    /// At the first call at or after the warm-up, keeps the report's counters (and restarts
    /// the RTT samples' statistics) when calls came before it: the report then counts what
    /// happened from the warm-up on. The state that drives the sender is left alone.
    #[inline]
    fn note_warmup(&mut self, cx: &EndpointCtx) {
        if !cx.measuring() {
            self.before_warmup = true;
        } else if self.before_warmup {
            self.before_warmup = false;
            self.at_warmup =
                crate::monitor::fields::counters_of("flows[].tcp", &self.json_report());
            self.objects_at_warmup = self.response_times.len();
            self.rtt.measured = Default::default();
        }
    }

    /// Records cwnd, ssthresh, the advertised window and RTT every `interval` from `from`.
    pub fn with_series(mut self, interval: SimTime, from: SimTime) -> Self {
        self.series = Some(TcpSeries {
            interval,
            next: from,
            ..TcpSeries::default()
        });
        self
    }

    pub fn cwnd(&self) -> f64 {
        self.w.cwnd
    }
    pub fn ssthresh(&self) -> f64 {
        self.w.ssthresh
    }
    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }
    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }
    pub fn in_recovery(&self) -> bool {
        self.in_recovery || self.lx.as_ref().is_some_and(|l| l.recovering())
    }
    pub fn rto(&self) -> SimTime {
        self.rtt.rto()
    }
    pub fn rtt_estimator(&self) -> &RttEstimator {
        &self.rtt
    }
    pub fn rwnd(&self) -> u64 {
        self.rwnd
    }
    pub fn params(&self) -> &TcpParams {
        &self.p
    }
    pub fn cc(&self) -> &dyn CongestionControl {
        self.cc.as_ref()
    }

    fn mss(&self) -> u64 {
        self.p.mss as u64
    }

    fn flight(&self) -> u64 {
        self.snd_max - self.snd_una
    }

    fn record_series(&mut self, now: SimTime) {
        if let Some(mut s) = self.series.take() {
            self.sample_until(&mut s, now);
            self.series = Some(s);
        }
    }

    /// Appends the samples due up to `until`, each the sender's current state (sample-and-hold:
    /// the state only changes inside the endpoint's calls).
    fn sample_until(&self, s: &mut TcpSeries, until: SimTime) {
        while s.next <= until {
            s.t_s.push(s.next.as_secs_f64());
            s.cwnd_bytes.push(self.w.cwnd);
            s.ssthresh_bytes
                .push(self.w.ssthresh.is_finite().then_some(self.w.ssthresh));
            s.rwnd_bytes.push(self.rwnd.min(self.p.max_window));
            s.srtt_s.push(self.rtt.srtt());
            s.rtt_s
                .push((self.rtt.samples > 0).then_some(self.rtt.last_sample));
            s.next = s.next + s.interval;
        }
    }

    // ---- application ----

    /// End of the data the sender may send: what the application wrote, bounded by the send
    /// buffer (unsent + unacknowledged data fit in `send_buffer`).
    fn avail_end(&self) -> u64 {
        let buf = self.snd_una.saturating_add(self.p.send_buffer);
        self.data_end.min(buf).min(self.send_limit)
    }

    /// The application acts at `now`: a web client starts its next object; a packet source
    /// writes every emission due by now (those that fit the send buffer) and sets the time of
    /// its next one.
    fn start_object(&mut self, now: SimTime) {
        if let TcpApp::Writes {
            gen,
            rng,
            pending,
            written_bytes,
            refused_bytes,
        } = &mut self.app
        {
            self.app_at = None;
            if now >= self.stop {
                return;
            }
            // a write on an idle connection restarts it as ns-2's `sendmsg` does
            let idle = self.state == State::Established && self.snd_una >= self.snd_max;
            let before = self.data_end;
            while let Some((at, size)) = *pending {
                if at > now {
                    self.app_at = (at < self.stop).then_some(at);
                    break;
                }
                *pending = gen.next(rng);
                let size = size as u64;
                let queued = self.data_end.saturating_sub(self.snd_una);
                if queued + size <= self.p.send_buffer {
                    self.data_end += size;
                    *written_bytes += size;
                } else {
                    *refused_bytes += size;
                }
            }
            if self.data_end > before && self.ns2_idle_rule() {
                self.resume_after_idle(now, idle);
            }
            return;
        }
        if let TcpApp::Web {
            size, objects, rng, ..
        } = &mut self.app
        {
            if objects.is_some_and(|n| self.objects_started >= n) || now >= self.stop {
                return;
            }
            let n = sample_size(size, rng);
            self.objects_started += 1;
            self.data_end += n;
            self.object = Some((self.data_end, now));
        }
    }

    fn check_app_progress(&mut self, now: SimTime) {
        if let Some((end, t0)) = self.object {
            if self.snd_una >= end {
                self.response_times.push((now - t0).as_secs_f64());
                self.object = None;
                if let TcpApp::Web { think, rng, .. } = &mut self.app {
                    self.app_at = Some(now + sample_think(think, rng));
                }
            }
        }
        if self.closing && !self.fin_acked && self.snd_una > self.data_end {
            self.fin_acked = true;
            self.completion = Some(now);
        }
    }

    /// ns-2's timer runs on an idle connection (rule `idle_timeout_closes_cwnd_to_one`,
    /// with `slow_start_restart`). Not for ns-2's Vegas agent, whose timeout() is a full one
    /// even with nothing outstanding (tcp-vegas.cc: ssthresh_ halved, cwnd_ v_slowstart_,
    /// the timer backed off): not modelled, the ns-2 script layer refuses that case.
    fn ns2_idle_rule(&self) -> bool {
        self.rules.idle_timeout_closes_cwnd_to_one && self.p.slow_start_restart && !self.ns2_vegas()
    }

    /// New data written on a connection that was `idle` (all sent acknowledged): under ns-2's
    /// rule, if its timer expired meanwhile, tcp.cc `timeout()` has closed cwnd_ to one
    /// segment (see `set_data`); the restart is decided here.
    fn resume_after_idle(&mut self, now: SimTime, idle: bool) {
        if idle && self.snd_nxt < self.avail_end() {
            if self.ns2_idle_rule() {
                if self.idle_timed_out(now) {
                    self.w.cwnd = self.w.mss;
                    self.note_ns2_cong_action();
                    self.recover = self.snd_max;
                    self.last_action_timeout = true;
                    self.last_action_ecn = false;
                    self.timed = None;
                }
                // the restart is decided here, not by RFC 5681's rule in next_new_segment
                self.last_send = now;
            }
            self.idle_timeout_at = None;
        }
    }

    /// Everything sent is acknowledged and ns-2's timer, rearmed by the last new ACK, has
    /// expired by `now`: tcp.cc timeout() has closed cwnd_ to 1.
    fn idle_timed_out(&self, now: SimTime) -> bool {
        self.ns2_idle_rule()
            && self.state == State::Established
            && self.snd_una >= self.snd_max
            && self.idle_timeout_at.is_some_and(|t| now >= t)
    }

    // ---- output ----

    fn emit(&mut self, cx: &mut EndpointCtx, seq: u64, len: u64, flags: u8) {
        let now = cx.now;
        if len > 0 && (self.rate.is_some() || self.pacer.is_some()) {
            self.on_data_sent(now, seq, len);
        }
        let fin = self.closing && seq + len == self.data_end && flags & F::SYN == 0;
        let mut fl = flags | if fin { F::FIN } else { 0 };
        let retx = seq < self.snd_max;
        let ns2_mark = self.rules.cwr_after_every_reduction; // any packet, ns-2's opening one too
        if (ns2_mark || (!retx && len > 0)) && self.cwr_pending {
            fl |= F::CWR; // RFC 3168 section 6.1.2: CWR on the first new data after a reduction
            self.cwr_pending = false;
        }
        // ns-2 packet 0 without syn_ (rule `opening_data_without_headers`): size_ bytes
        let bare = self.rules.opening_data_without_headers && !self.p.handshake && seq == 1;
        cx.send(Packet {
            kind: PacketKind::TcpData,
            size: if bare { 0 } else { self.p.data_header() } + len as u32,
            payload: len as u32,
            ecn: if self.p.ecn && len > 0 {
                // RFC 3168 section 6.1.1: data segments are ECT; SYN and pure ACKs are not.
                // ECT(0), or ECT(1) for an L4S sender (RFC 9331 section 4.1).
                self.cc.ect()
            } else {
                Ecn::NotEct
            },
            tcp: TcpHeader {
                seq,
                ack: 1,
                flags: fl,
                window: 0,
                ts_val: now,
                ..TcpHeader::default()
            },
            ..Packet::default()
        });
        self.stats.segments_sent += 1;
        self.stats.bytes_sent += len;
        if len > 0 && self.vegas_loss.is_some() {
            self.vegas_on_send(seq, cx.now_s);
        }
        let end = seq + len + fin as u64;
        self.ns2_note_send(end, now);
        if self.rules.prr == Some(PrrVariant::Ns3) && (self.in_recovery || self.in_cwr) {
            // TcpPrrRecovery::UpdateBytesSent, from SendDataPacket in CA_RECOVERY and CA_CWR
            self.prr_out = self.prr_out.wrapping_add(len as u32);
        }
        if self.in_recovery && self.linux_prr() {
            // tcp_write_xmit / tcp_xmit_retransmit_queue: prr_out in recovery
            self.linux_prr_sent(len);
        }
        if retx {
            if self.rules.remember_retransmitted_ranges {
                self.note_retransmission_ns3(seq, seq + len);
            }
            self.stats.retransmitted_segments += 1;
            self.stats.retransmitted_bytes += len;
            // Karn: a retransmission invalidates the timed segment (RFC 6298 section 3);
            // ns-2 ends it only at a fast retransmit or a timeout (fast_retransmit_head)
            if !self.rules.retransmission_keeps_timed_segment
                && self.timed.is_some_and(|(e, _)| e > seq)
            {
                self.timed = None;
            }
        } else if self.timed.is_none() && len > 0 && self.state == State::Established {
            // ns-2 rtt_seq_: one timed segment per RTT (the opening packet while unacknowledged)
            self.timed = Some((end, now));
        }
        if len > 0 && len < self.mss() && seq + len > self.snd_max {
            self.snd_sml = seq + len; // tcp_minshall_update: new data shorter than the MSS
        }
        self.snd_max = self.snd_max.max(end);
        self.last_send = now;
        // RFC 6298 section 5.1: start the timer if it is not running.
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
        if len > 0 && self.rack.is_some() {
            // RACK's transmission time; new data sets the probe timer (sender/rack_tlp.rs)
            self.rack_sent(seq, len, now, retx);
        }
    }

    /// Arms the retransmission timer at now + RTO; under ns-2's estimator its deadline is
    /// also kept as ns-2's double (tcp.cc `set_rtx_timer`: `resched(rtt_timeout())`), which
    /// keys the timer's event (`next_timeout_s`).
    pub(super) fn arm_rto(&mut self, now: SimTime) {
        // ns-2's RTO once: `rto()` is it rounded to picoseconds
        let rto_s = self.rtt.rto_s();
        let rto = rto_s.map_or_else(|| self.rtt.rto(), SimTime::from_secs_f64);
        self.arm_rto_for(now, rto, rto_s);
    }

    /// Arms the timer at now + `rto` (`rto_s`: the same in ns-2's doubles, if any).
    fn arm_rto_for(&mut self, now: SimTime, rto: SimTime, rto_s: Option<f64>) {
        let at = now + rto;
        self.rto_at = Some(at);
        // now_s is the handled event's; a call from outside one (a script's command) has none
        let fresh = SimTime::from_secs_f64(self.now_s).0.abs_diff(now.0) <= 1;
        self.rto_at_s = rto_s.filter(|_| fresh).map(|d| (at, self.now_s + d));
    }

    /// The timer a new ACK restarts (tcp.cc `newack` -> `newtimer`): with `timerfix_` after
    /// the ACK's RTT sample (the current RTO), without it with the RTO the ACK found.
    pub(super) fn arm_newack_rto(&mut self, now: SimTime) {
        match self.newack_rto {
            Some((rto, rto_s)) => self.arm_rto_for(now, rto, rto_s),
            None => self.arm_rto(now),
        }
    }

    /// Before a new ACK's RTT sample: keeps the RTO for `newtimer` when `timerfix_` is off
    /// (tcp.cc `newack`: `if (!timerfix_) newtimer(pkt)` comes first).
    fn note_newack_rto(&mut self) {
        if !self.p.ns2.timerfix && self.rtt.is_ns2() {
            self.newack_rto = Some((self.rtt.rto(), self.rtt.rto_s()));
        }
    }

    /// Retransmits the segment starting at snd_una (fast retransmit, partial ACK).
    fn retransmit_head(&mut self, cx: &mut EndpointCtx) {
        self.resend_head(cx);
        // Restart the timer for the retransmitted head, as ns-2 (`reset_rtx_timer` in
        // `dupack_action`) and Linux (`tcp_retransmit_skb` rearms for the queue head) do;
        // RFC 6298 alone would let it run from the last new ACK, and so does ns-3
        // (`SendDataPacket` starts it only when it is not running; `emit` does that).
        if self.rules.restart_timer_on_head_retransmit {
            self.arm_rto(cx.now);
        }
    }

    /// The fast retransmit of the segment at snd_una: ns-2's `reset_rtx_timer(1, 0)` in
    /// `dupack_action` ends the RTT measurement (`rtt_active_ = 0`) before `output()`.
    fn fast_retransmit_head(&mut self, cx: &mut EndpointCtx) {
        if self.rules.retransmission_keeps_timed_segment {
            self.timed = None;
        }
        self.retransmit_head(cx);
    }

    /// Sends the segment starting at snd_una again; the timer starts only if it is not running.
    fn resend_head(&mut self, cx: &mut EndpointCtx) {
        let seq = self.snd_una;
        let len = self.mss().min(self.data_end.saturating_sub(seq));
        self.emit(cx, seq, len, F::ACK);
        self.high_rxt = self.high_rxt.max(seq + len.max(1));
    }

    /// Whether one new segment [snd_nxt, +len) may go out now; returns its length.
    fn next_new_segment(&mut self, now: SimTime, use_cwnd: bool) -> Option<u64> {
        // After a timeout (go-back-N) skip what the receiver SACKed.
        if self.p.sack {
            while let Some(e) = self.sb.sacked_until(self.snd_nxt) {
                self.snd_nxt = e;
            }
        }
        let avail = self.avail_end();
        if self.snd_nxt >= avail {
            return None;
        }
        let len = self.mss().min(avail - self.snd_nxt);
        let mut win = self.rwnd.min(self.p.max_window);
        if use_cwnd {
            // ns-2 window(): force_wnd(2) instead of cwnd_ while F-RTO sends new data; with
            // QOption_, send_much's window as its loop began
            let cwnd = self.send_much_win.unwrap_or(self.w.cwnd) as u64;
            win = win.min(self.ns2_frto_window().unwrap_or(cwnd));
        }
        win = win.saturating_sub(self.opening_slot());
        if self.snd_nxt + len > self.snd_una + win {
            return None;
        }
        // Nagle (RFC 1122 4.2.3.4): no small segment while data is unacknowledged; as Linux
        // (`nagle_minshall`): never the FIN's segment, and only while a small one is in flight.
        if self.p.nagle && len < self.mss() && self.snd_max > self.snd_una {
            let hold = if self.rules.nagle_minshall {
                let fin = self.closing && self.snd_nxt + len == self.data_end;
                !fin && self.snd_sml > self.snd_una && self.snd_sml <= self.snd_nxt
            } else {
                true
            };
            if hold {
                return None;
            }
        }
        // RFC 5681 section 4.1: restart window after an idle period longer than the RTO.
        if self.p.slow_start_restart
            && self.snd_max == self.snd_una
            && self.snd_max > 1
            && now.saturating_sub(self.last_send) > self.rtt.rto()
        {
            self.w.cwnd = self.w.cwnd.min(self.p.iw as f64 * self.w.mss);
            if self.snd_nxt + len > self.snd_una + self.w.cwnd as u64 {
                return None;
            }
        }
        Some(len)
    }

    fn send_data(&mut self, cx: &mut EndpointCtx) {
        let opening = self.state == State::SynSent && self.opening_with_data();
        if !(self.state == State::Established || opening) || self.send_delayed(cx) {
            return;
        }
        if self.ns3_sack() {
            self.send_data_ns3(cx);
            return;
        }
        if self.lx.is_some() {
            return self.send_data_ns2_linux(cx);
        }
        if self.ns2_sack1() && self.in_recovery {
            self.send_data_sack1(cx);
            return;
        }
        if self.ns2_sack1() && !self.sb.is_empty() {
            self.send_data_sack1_open(cx);
            return;
        }
        let mss = self.mss();
        let dt = self.p.dupack_threshold;
        // ns-2 NewReno sends at most `recovery_burst_limit` new packets per ACK in recovery
        // (tcp-newreno.cc recv: send_much(0, 0, 2) once dupacks_ >= numdupacks_, also for the
        // inflation outside recovery and a duplicate dupack_action declined).
        let mut burst = match self.rules.recovery_burst_limit {
            Some(n)
                if (self.in_recovery
                    || self.ns2_dupwnd_out
                    || (self.dupacks >= dt && self.ns2_aimd()))
                    && !self.p.sack
                    && self.cc.recovery() == Recovery::NewReno =>
            {
                n
            }
            _ => u32::MAX,
        };
        let mut sent = 0;
        if self.p.ns2.qoption && self.ns2_sack1() {
            self.send_much_win = Some(self.w.cwnd);
        }
        loop {
            if self.pace_blocked(cx.now) {
                break;
            }
            if self.in_recovery && self.p.sack {
                // RFC 6675 section 5 step (C): send while cwnd - pipe >= 1 SMSS (with RACK-TLP
                // Linux's pipe and its lost segments: sender/rack_tlp.rs).
                let pipe = self.recovery_pipe();
                if self.w.cwnd - (pipe as f64) < mss as f64 {
                    break;
                }
                let lost = match &self.rack {
                    Some(r) => r.rack.next_lost(),
                    None => {
                        self.sb
                            .next_seg(self.snd_una, self.snd_max, self.high_rxt, dt, mss, false)
                    }
                };
                if let Some((s, l)) = lost {
                    self.emit(cx, s, l, F::ACK);
                    self.high_rxt = s + l;
                    continue;
                }
                self.snd_nxt = self.snd_nxt.max(self.snd_max);
                if let Some(len) = self.next_new_segment(cx.now, false) {
                    let s = self.snd_nxt;
                    self.emit(cx, s, len, F::ACK);
                    self.snd_nxt = self.snd_max;
                    continue;
                }
                let rule3 = if self.rack.is_some() {
                    None // Linux retransmits only what is marked lost
                } else {
                    self.sb
                        .next_seg(self.snd_una, self.snd_max, self.high_rxt, dt, mss, true)
                };
                if let Some((s, l)) = rule3 {
                    self.emit(cx, s, l, F::ACK);
                    self.high_rxt = s + l;
                    continue;
                }
                break;
            }
            if burst == 0 || self.burst_done(sent) {
                break;
            }
            burst -= 1;
            match self.next_new_segment(cx.now, true) {
                Some(len) => {
                    let s = self.snd_nxt;
                    self.emit(cx, s, len, F::ACK);
                    sent += 1;
                    let fin = (self.closing && s + len == self.data_end) as u64;
                    self.snd_nxt = s + len + fin;
                    // t_seqno_ at process_qoption_after_send: the packet's own number
                    // (tcp.cc send_much), the next one (tcp-sack1.cc send_much)
                    let sack1 = i64::from(self.ns2_sack1());
                    let t_seqno = self.ns2_pkts(s + len) - 1 + sack1;
                    self.ns2_qoption_after_send(cx.now_s, t_seqno);
                }
                None => break,
            }
        }
        self.send_much_win = None;
    }

    fn send_syn(&mut self, cx: &mut EndpointCtx) {
        if self.ns2_connect_aborts(cx.now) {
            return; // ns-2 max_connects_ (sender/ns2_knobs.rs)
        }
        // ns-2's opening packet after a timeout carries cong_action (`note_ns2_cong_action`)
        let cwr = if self.rules.cwr_after_every_reduction && self.cwr_pending {
            self.cwr_pending = false;
            F::CWR
        } else {
            0
        };
        cx.send(Packet {
            kind: PacketKind::TcpData,
            size: self.p.header + self.p.syn_options,
            payload: 0,
            tcp: TcpHeader {
                seq: 0,
                // RFC 3168 section 6.1.1 ECN-setup SYN; ns-2's opening packet echoes only
                // (tcp.cc output: ecnecho, no cong_action)
                flags: F::SYN
                    | match (self.p.ecn, self.rules.cwr_after_every_reduction) {
                        (true, false) => F::ECE | F::CWR,
                        (true, true) => F::ECE | cwr,
                        (false, _) => cwr,
                    },
                ts_val: cx.now,
                ..TcpHeader::default()
            },
            ..Packet::default()
        });
        self.syn_sent_at = cx.now;
        // packet 0 leaves through send_much: process_qoption_after_send, t_seqno_ 0 (tcp.cc)
        // or 1 (tcp-sack1.cc counts it first)
        let t_seqno = i64::from(self.ns2_sack1());
        self.ns2_qoption_after_send(cx.now_s, t_seqno);
        let timer = if self.rules.syn_timer_is_conn_timeout {
            // ns-3 SendEmptyPacket: ConnTimeout * 2^(SYNs sent before this one).
            let k = self.stats.syn_retransmits.min(30);
            SimTime(super::receiver::NS3_CONN_TIMEOUT.0 << k)
        } else {
            self.rtt.rto()
        };
        self.rto_at = Some(cx.now + timer);
    }

    fn establish(&mut self, cx: &mut EndpointCtx) {
        self.state = State::Established;
        // ns-2's opening packet is acknowledged like data; nothing answers the ACK
        // (tcp.cc output: seqno 0 with syn_ is a bare header).
        if self.p.handshake && self.rules.third_handshake_segment {
            // Third segment of the handshake (RFC 9293 section 3.5).
            cx.send(Packet {
                kind: PacketKind::TcpAck,
                size: self.p.header,
                tcp: TcpHeader {
                    seq: 1,
                    ack: 1,
                    flags: F::ACK,
                    ts_val: cx.now,
                    ..TcpHeader::default()
                },
                ..Packet::default()
            });
        }
        self.rto_at = None;
        if self.snd_max > self.snd_una || self.newack_rto.is_some() {
            // data left beside ns-2's opening packet: newack() -> newtimer() rearms the timer;
            // without timerfix_ newtimer() runs first (t_seqno_ > 0 sets it) and send_much
            // leaves the pending timer alone
            self.arm_newack_rto(cx.now);
        }
        self.start_object(cx.now);
        self.send_data(cx);
    }

    // ---- pacing and rate samples ----

    /// A data segment [seq, seq+len) leaves: its rate-estimation record, the pacing timer.
    fn on_data_sent(&mut self, now: SimTime, seq: u64, len: u64) {
        let idle = self.snd_max == self.snd_una;
        if let Some(r) = &mut self.rate {
            r.on_send(now, seq, seq + len, idle);
        }
        let rate = self.pacing_rate();
        if let Some(p) = &mut self.pacer {
            p.on_sent(now, len, rate);
        }
    }

    /// The rate the sender paces at (payload bytes/s): the controller's own, else the ss/ca
    /// rule over srtt (`tcp/pacing.rs`).
    fn pacing_rate(&self) -> Option<f64> {
        let p = self.pacer.as_ref()?;
        self.cc.pacing_rate().or_else(|| {
            let in_flight = self.bytes_in_flight() as f64;
            p.window_rate(self.w.cwnd, self.w.ssthresh, in_flight, self.rtt.srtt())
        })
    }

    /// Whether the pacing timer holds the next data segment back.
    fn pace_blocked(&mut self, now: SimTime) -> bool {
        self.pacer.as_mut().is_some_and(|p| p.blocked(now))
    }

    /// Bytes in flight as the sender counts them (ns-3 `BytesInFlight`, the RFC 6675 pipe,
    /// or FlightSize without SACK).
    fn bytes_in_flight(&self) -> u64 {
        if self.ns3_sack() {
            self.pipe_ns3()
        } else if self.p.sack && self.in_recovery {
            let mss = self.mss();
            self.sb.pipe(
                self.snd_una,
                self.snd_max,
                self.high_rxt,
                self.p.dupack_threshold,
                mss,
            )
        } else {
            self.flight()
        }
    }

    /// Bytes the scoreboard holds lost (ns-3 `TcpTxBuffer::GetLost`; RFC 6675 IsLost).
    fn lost_bytes(&self) -> u64 {
        if !self.p.sack {
            return 0;
        }
        if self.ns3_sack() {
            return self.lost_ns3();
        }
        let (una, max) = (self.snd_una, self.snd_max);
        self.sb
            .lost_bytes(una, max, una, self.p.dupack_threshold, self.mss())
    }

    /// The connection as a window-owning controller sees it.
    fn conn(&self, now: SimTime) -> Conn {
        let r = &self.rtt;
        Conn {
            now,
            in_flight: self.bytes_in_flight(),
            delivered: self.rate.as_ref().map_or(0, |r| r.delivered),
            min_rtt: (r.samples > 0).then(|| SimTime::from_secs_f64(r.min_sample)),
            last_rtt: (r.samples > 0).then(|| SimTime::from_secs_f64(r.last_sample)),
            iw_bytes: self.p.iw as f64 * self.w.mss,
        }
    }

    /// ns-3 `ReceivedAck` with `HasCongControl`: after the ACK's loss-recovery processing,
    /// the rate sample (`GenerateSample`, with bytes lost = |lost after - lost before| as
    /// ns-3 computes it, or the increase only as Linux does: flavour rule
    /// `rate_sample_losses_abs_diff`) goes to the controller, which sets cwnd and the pacing rate.
    fn rate_sample_to_cc(&mut self, now: SimTime) {
        let Some((prior_in_flight, lost_before)) = self.ack_ctx.take() else {
            return;
        };
        let lost = if self.p.rules().rate_sample_losses_abs_diff {
            self.lost_bytes().abs_diff(lost_before)
        } else {
            self.lost_bytes().saturating_sub(lost_before)
        };
        let c = self.conn(now);
        let min_rtt = c.min_rtt.unwrap_or(SimTime::ZERO);
        let Some(r) = &mut self.rate else { return };
        let rs = r.sample(prior_in_flight, lost, min_rtt);
        self.cc.on_rate_sample(&mut self.w, &rs, &c);
    }

    // ---- input ----

    /// One ACK. With a window-owning controller: its SACK blocks and cumulative ACK deliver
    /// rate-estimation records first (ns-3 updates the scoreboard before `ProcessAck`), loss
    /// recovery runs, the controller gets the rate sample, then data is sent.
    fn on_ack(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        if self.rate.is_some() && self.state == State::Established && pkt.tcp.flags & F::SYN == 0 {
            let now = cx.now;
            let h = &pkt.tcp;
            self.ack_ctx = Some((self.bytes_in_flight(), self.lost_bytes()));
            let (una, max) = (self.snd_una, self.snd_max);
            if let Some(r) = &mut self.rate {
                if self.p.sack {
                    for (s, e) in h.sack_blocks() {
                        r.on_sacked(now, s.max(una), e.min(max));
                    }
                }
                if h.ack > una && h.ack <= max {
                    r.on_cum_ack(now, h.ack);
                }
            }
        }
        self.on_ack_inner(pkt, cx);
        // paths that return before sending (ns-2 rules) still feed the controller
        self.rate_sample_to_cc(cx.now);
    }

    /// Sends what the window allows once the ACK is processed (after the rate sample).
    fn after_ack(&mut self, cx: &mut EndpointCtx) {
        self.rate_sample_to_cc(cx.now);
        self.send_data(cx);
        // draft section 3.5 / ns-3 CalculateAppLimited: nothing left to send below cwnd
        let in_flight = self.snd_max - self.snd_una;
        let limited = self.snd_nxt >= self.avail_end() && (in_flight as f64) < self.w.cwnd;
        if let Some(r) = self.rate.as_mut().filter(|_| limited) {
            r.mark_app_limited(in_flight);
        }
    }

    fn on_ack_inner(&mut self, pkt: &Packet, cx: &mut EndpointCtx) {
        let h = &pkt.tcp;
        let now = cx.now;
        let last_ack = self.snd_una;
        self.stats.acks_received += 1;
        if self.state == State::SynSent {
            if h.flags & F::SYN != 0 && h.flags & F::ACK != 0 {
                self.rwnd = h.window as u64;
                if self.syn_retx && self.ns2_aimd() {
                    // tcp.cc recv -> ecn(0): after the opening packet's timeout
                    // (last_cwnd_action_ == CWND_ACTION_TIMEOUT) its ACK's ECN-echo (the
                    // ECN negotiation) halves the window too: cong_action_ on the next packet
                    self.ns2_ecn(pkt);
                }
                if self.syn_retx {
                    // RFC 5681 section 3.1 / RFC 6298 section 5.7: after a lost SYN or SYN-ACK
                    // the initial window is one segment and the RTO restarts from its initial value.
                    // (ns-2 without delay_growth_: cwnd_ stays where the timeout put it.)
                    if !self.opening_with_data() {
                        self.w.cwnd = self.p.iw_after_syn_loss as f64 * self.w.mss;
                    }
                    if let Some(s) = self.p.ssthresh_after_syn_loss {
                        self.w.ssthresh = s as f64;
                    } else if self.rules.ssthresh_two_segments_after_syn_loss {
                        // ns-2 tcp.cc timeout -> slowdown(CLOSE_SSTHRESH_HALF): half of
                        // min(cwnd_ 1, window_), at least 2 packets.
                        self.w.ssthresh = 2.0 * self.w.mss;
                    }
                    // ns-2 keeps t_backoff_ until a timed segment is acknowledged (newack).
                    if !self.rules.backoff_kept_after_syn_loss {
                        self.rtt.reset_backoff();
                    }
                    if self.ns2_timestamps() {
                        // newack with ts_option_: a sample from the echo all the same
                        self.ns2_ts_new_ack(h, now, false);
                    }
                } else if self.ns2_timestamps() {
                    self.note_newack_rto();
                    self.ns2_ts_new_ack(h, now, true);
                } else {
                    self.note_newack_rto();
                    // a measurement left running by a reset (reset.rs) times from its send
                    let t0 = self.timed.take().map_or(self.syn_sent_at, |(_, t)| t);
                    self.rtt.sample_at(t0, now);
                }
                if self.opening_with_data() {
                    // ns-2 recv -> recv_newack_helper -> opencwnd() for packet 0's ACK, with no
                    // `cwnd_ = initial_window()` after it (delay_growth_ false)
                    let mss = self.mss();
                    super::cc::reno::aimd_increase(&mut self.w, mss);
                }
                self.ns2_qoption_after_ack(h.ack);
                self.establish(cx);
            }
            return;
        }
        if self.state != State::Established {
            return;
        }
        if h.flags & F::SYN != 0 {
            // A retransmitted SYN-ACK (its ACK was lost). ns-3's DoForwardUp initialises cwnd
            // and ssthresh on every SYN it receives, even when established.
            if self.rules.syn_ack_resets_window {
                self.w.cwnd = self.p.iw as f64 * self.w.mss;
                self.w.ssthresh = if self.p.initial_ssthresh == UNLIMITED {
                    f64::INFINITY
                } else {
                    self.p.initial_ssthresh as f64
                };
            }
            if !self.rules.repeated_syn_ack_is_an_ack {
                return;
            }
        }
        self.rwnd = h.window as u64;
        if self.lx.is_some() {
            return self.on_ack_ns2_linux(pkt, cx);
        }
        if self.ns2_aimd() {
            // tcp.cc / tcp-reno.cc / tcp-newreno.cc / tcp-sack1.cc recv: ecn() comes first
            self.ns2_ecn(pkt);
        }
        if self.ns2_sack1() {
            return self.on_ack_sack1(pkt, cx);
        }
        self.vegas_on_any_ack(cx.now_s);
        let ack = h.ack;
        let mss = self.mss();
        let mut newly_sacked = 0;
        let linux_prr = self.linux_prr().then(|| self.linux_prr_before_sack(ack));
        if self.p.sack {
            for (s, e) in h.sack_blocks() {
                newly_sacked += self.sb.add(self.snd_una.max(ack), s, e);
            }
        }
        if self.ns3_sack() {
            return self.on_ack_ns3(pkt, newly_sacked, cx);
        }
        self.accecn_on_ack(pkt, ack, newly_sacked);
        if let Some(before) = linux_prr {
            self.linux_prr_after_sack(ack, before);
        }
        if self.rack_on() {
            // RACK's update and loss marking (sender/rack_tlp.rs): PRR's newly_lost is RACK's
            let lost = self.rack_on_ack(ack, now, newly_sacked > 0);
            self.linux_prr_set_newly_lost(lost);
        }
        let ece = self.ack_ece(pkt);
        let extent = self.ecn_extent();
        if ack > self.snd_una && ack <= self.snd_max {
            let acked = ack - self.snd_una;
            let flight_before = self.flight();
            let fine_rtt = now.saturating_sub(h.ts_echo);
            self.take_rtt_sample(h, ack, now);
            self.snd_una = ack;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.sb.advance(ack);
            let dupacks_before = self.dupacks;
            self.dupacks = 0;
            // ns-2 exitFastRetrans_ false: dupwnd_ = 0 outside fast recovery too.
            self.ns2_end_dupwnd(Some(ack));
            // ns-2 tcp-vegas.cc recv: the inflated window falls before the new-ACK rules.
            self.vegas_deflate(dupacks_before);
            // ns-2 NewReno with newreno_changes1_: a partial ACK after the first leaves the
            // retransmission timer running.
            let mut keep_timer = false;
            // ns-2's Vegas averages the RTT of each round from its own send-time table
            // (tcp-vegas.cc recv: v_sendtime_[seqno], if sent once), not from the echo
            let vegas_sample = (self.ns2_vegas() && self.vegas_loss.is_some())
                .then(|| self.vegas_rtt_sample(cx.now_s));
            let info = Ack {
                now,
                acked,
                flight_before,
                snd_una: ack,
                snd_nxt: self.snd_nxt.max(self.snd_max),
                next_to_send: self.snd_nxt,
                clock_s: match &self.vegas_loss {
                    Some(v) if self.ns2_vegas() => v.clock(cx.now_s),
                    _ => cx.now_s,
                },
                rtt: Some(fine_rtt),
                ack_rtt: self.rack.as_ref().and_then(|r| r.rack.ack_rtt()),
            };
            if extent {
                let marked = self.marked_bytes(acked, ece);
                self.ecn_marked_bytes += marked;
                self.cc.on_ecn_ack(&self.w, acked, marked, &info);
            }
            // ns-2 recv_newack_helper (not NewReno's partial ACKs): old_ecn_, ecn_burst_
            let newreno_partial = self.in_recovery
                && !self.p.sack
                && self.cc.recovery() == Recovery::NewReno
                && !self.ns2_newreno_full_ack(ack);
            let ecn_opens = newreno_partial || self.ns2_ecn_opens(ece);
            if self.in_recovery {
                let ns2_exit = !self.p.sack
                    && ((self.ns2_aimd() && self.cc.recovery() == Recovery::Reno)
                        || self.ns2_vegas());
                if ns2_exit {
                    // ns-2 tcp-reno.cc recv: any new ACK, partial or full, ends recovery;
                    // dupwnd_ = 0 leaves cwnd_ at the halved window, then recv_newack_helper
                    // opens it (opencwnd). tcp-vegas.cc recv: the window falls to v_newcwnd_
                    // only if it was inflated past the third duplicate, then the per-ACK
                    // Vegas rules run.
                    self.in_recovery = false;
                    if self.p.cc == CcKind::Vegas {
                        if dupacks_before > self.p.dupack_threshold {
                            self.cc.on_recovery_exit(&mut self.w, now);
                        }
                    } else {
                        self.w.cwnd = self.ns2_base;
                    }
                    // recv_newack_helper: no opencwnd() on an ECN echo (ns2_ecn_recovery.rs)
                    if ecn_opens || self.p.cc == CcKind::Vegas {
                        self.grow(&info);
                    }
                } else if self.ns2_newreno_full_ack(ack) {
                    // Full ACK: RFC 5681 section 3.2 step 6, RFC 6582 section 3.2 step 3,
                    // RFC 6675 section 5 (leave when RecoveryPoint is acknowledged).
                    self.in_recovery = false;
                    if self.rules.recovery_exit_keeps_reduced_window
                        && self.ns2_aimd()
                        && !self.p.sack
                        && self.cc.recovery() == Recovery::NewReno
                    {
                        // ns-2 tcp-newreno.cc recv (exit_recovery_fix_ 0): dupwnd_ = 0 leaves
                        // cwnd_, then recv_newack_helper opens it (opencwnd) unless the ACK
                        // echoes ECN (ns2_ecn_recovery.rs).
                        self.ns2_newreno_exit(ack);
                        if ecn_opens {
                            self.grow(&info);
                        }
                    } else {
                        self.cc.on_recovery_exit(&mut self.w, now);
                    }
                } else if self.p.sack {
                    // RFC 6675: partial ACKs keep recovery going; the pipe decides.
                } else if self.cc.recovery() == Recovery::NewReno {
                    // RFC 6582 section 3.2 step 4: retransmit the next hole, deflate by the
                    // amount acknowledged, add back one SMSS if at least one was acknowledged.
                    let first = !std::mem::replace(&mut self.partial_seen, true);
                    if self.rules.partial_ack_restarts_timer_once {
                        // ns-2 partialnewack_helper: newtimer() for the first partial ACK only;
                        // output() of the hole leaves a pending timer alone.
                        self.resend_head(cx);
                        keep_timer = !first && self.p.ns2.newreno_changes1;
                    } else {
                        self.retransmit_head(cx);
                    }
                    if self.ns2_aimd() && !self.p.ns2.partial_window_deflation {
                        // ns-2 tcp-newreno.cc recv with partial_window_deflation_ 0:
                        // dupwnd_ = 0, cwnd_ kept.
                        self.w.cwnd = self.ns2_base;
                    } else if self.rules.partial_ack_deflates_inflation_first && self.ns2_aimd() {
                        // ns-2 partialnewack (partial_window_deflation_): off dupwnd_ first,
                        // off cwnd_ past it; dupwnd_ keeps one packet; cwnd_ at least 1.
                        let deflate = acked as f64;
                        let mut dupwnd = self.w.cwnd - self.ns2_base;
                        if dupwnd > deflate {
                            dupwnd -= deflate - self.w.mss;
                        } else {
                            self.ns2_base -= deflate - dupwnd;
                            dupwnd = self.w.mss;
                        }
                        self.ns2_base = self.ns2_base.max(self.w.mss);
                        self.w.cwnd = self.ns2_base + dupwnd;
                    } else {
                        self.w.cwnd = (self.w.cwnd - acked as f64).max(self.w.mss);
                        if acked >= mss {
                            self.w.cwnd += self.w.mss;
                        }
                    }
                } else {
                    // Reno: the first new ACK ends recovery (RFC 5681 section 3.2 step 6).
                    self.in_recovery = false;
                    self.cc.on_recovery_exit(&mut self.w, now);
                }
            } else if (extent && self.may_grow_after_ecn(ack)) || (!extent && ecn_opens) {
                self.grow(&info);
            }
            if self.ns2_aimd() {
                self.ns2_frto_new_ack(ack - acked); // recv_newack_helper (tcp.cc)
            }
            if let Some(sample) = vegas_sample {
                self.cc.ns2_vegas_rtt_sample(sample);
            }
            if self.vegas_loss.is_some() {
                self.vegas_on_new_ack(ack - acked, cx);
            }
            // RFC 6298 sections 5.2 and 5.3.
            if !keep_timer {
                if self.snd_max > self.snd_una
                    || self.vegas_idle_timeout()
                    || self.ns2_window_below_one()
                {
                    self.arm_newack_rto(now);
                } else {
                    self.rto_at = None;
                }
            }
            self.check_app_progress(now);
        } else if ack == self.snd_una
            && (self.snd_max > self.snd_una || self.rules.dupack_without_data_outstanding)
            && pkt.payload == 0
        {
            // A duplicate ACK (RFC 5681 section 2; the window field is not compared, as
            // out-of-order data shrinks a finite receive buffer's window).
            self.stats.dupacks_received += 1;
            if self.ns2_aimd() && self.ns2_frto_dupack() {
                // recv_frto_helper: dupacks_ = -1, then recv's ++dupacks_ (0): send_one
                // (singledup_), then send_much
                self.dupacks = 0;
                if self.p.limited_transmit {
                    self.limited_transmit(cx);
                }
                self.on_ece(pkt, now);
                return self.after_ack(cx);
            }
            self.dupacks += 1;
            if self.vegas_loss.is_some() {
                // ns-2 tcp-vegas.cc recv; send_much only if dupacks_ is 0 or >= numdupacks_.
                self.vegas_on_dupack(cx);
                if self.dupacks < self.p.dupack_threshold {
                    return;
                }
            } else if self.in_recovery {
                if !self.p.sack && !self.owns_window {
                    // RFC 5681 section 3.2 step 4: inflate by one SMSS per duplicate.
                    self.w.cwnd += self.w.mss;
                }
                if self.p.cc == CcKind::Newreno
                    && self.ns2_aimd()
                    && !self.p.sack
                    && self.dupacks > self.p.dupack_threshold
                {
                    // tcp-newreno.cc recv: dupacks_ > numdupacks_ in fast recovery
                    self.ns2_event(now, "NEWRENO_FAST_RECOVERY");
                }
            } else if self.ns2_dupwnd_out
                || (self.dupacks > self.p.dupack_threshold && self.ns2_dupack_lingers())
            {
                // ns-2 exitFastRetrans_ false, or NewReno's last_cwnd_action_ still
                // CWND_ACTION_DUPACK: ++dupwnd_ outside fast recovery too.
                if self.ns2_dupwnd_without_recovery() && self.p.cc == CcKind::Newreno {
                    // tcp-newreno.cc recv: the same branch traces NEWRENO_FAST_RECOVERY
                    self.ns2_event(now, "NEWRENO_FAST_RECOVERY");
                }
            } else {
                let lost =
                    self.p.sack && self.sb.is_lost(self.snd_una, self.p.dupack_threshold, mss);
                // RFC 6582 section 3.2 step 1: no second fast retransmit for the same window.
                // ns-2 tcp-reno.cc / tcp.cc dupack_action with bugFix_: fast retransmit only
                // when highest_ack_ > recover_ (or still inside the first recovery), so after
                // a partial ACK a second loss of the window waits for the timeout.
                // tcp-vegas.cc recv applies the guard only after a timeout.
                let guard = match self.cc.recovery() {
                    Recovery::NewReno => true,
                    _ if self.ns2_aimd() => true,
                    _ => self.p.sack || self.last_action_timeout,
                };
                // Exactly the DupThresh-th duplicate (ns-2 `dupacks_ == numdupacks_`), or
                // RFC 6675 IsLost(HighACK) before that.
                let thresh = self.p.dupack_threshold;
                // ns-2 noFastRetrans_ (Agent/TCP): no dupack_action() at all
                // (sender/ns2_no_fast_retrans.rs)
                let at_thresh = self.dupacks == thresh && !self.ns2_no_fast_retrans();
                // with RACK-TLP, time decides (rack_maybe_recover below), not the count
                if !self.rack_on()
                    && (at_thresh || (lost && self.dupacks < thresh))
                    && (self.snd_una > self.recover
                        || !guard
                        // ns-2 without bugFix_, or lessCareful_ (sender/ns2_recovery.rs)
                        || self.ns2_fast_retransmit_again()
                        // ns-2 NewReno's bugFix_ack_, bugFix_ts_ (sender/ns2_knobs.rs)
                        || self.ns2_newreno_heuristic()
                        // ns-2 bugfix_ss_: also when the first data packet is lost
                        // (highest_ack_ == 0 in dupack_action).
                        || (self.rules.fast_retransmit_when_first_segment_lost
                            && self.p.ns2.bugfix_ss
                            && self.snd_una == ns2_packet0_end(&self.p)))
                {
                    self.enter_recovery(cx);
                } else if at_thresh && self.ns2_aimd() && self.p.ecn && self.last_action_ecn {
                    self.ns2_ecn_dupack_action(cx);
                } else if self.dupacks < thresh && self.p.limited_transmit {
                    self.limited_transmit(cx);
                }
                if self.dupacks == thresh {
                    // ns-2 exitFastRetrans_ false: dupwnd_ = numdupacks_ after dupack_action()
                    self.ns2_dupwnd_without_recovery();
                }
                if !self.rules.send_on_early_dupacks && self.dupacks < thresh {
                    // ns-2 recv calls send_much only when dupacks_ is 0 or >= numdupacks_.
                    self.ns2_qoption_after_ack(ack);
                    return;
                }
            }
        }
        if self.rack_on() {
            // tcp_fastretrans_alert -> tcp_time_to_recover: something is marked lost
            self.rack_maybe_recover(cx);
        }
        if self.in_recovery && self.linux_prr() {
            // tcp_cong_control: tcp_cwnd_reduction while in recovery (sender/prr_linux.rs)
            self.linux_prr_reduce();
        }
        self.ns2_qoption_after_ack(ack);
        self.on_ece(pkt, now);
        // ns-2 recv: send_much if valid_ack || aggressive_maxburst_ (sender/ns2_cwv.rs)
        if self.ns2_ack_may_send(ack, last_ack) {
            self.after_ack(cx);
        }
        if self.rack_on() && self.snd_una > last_ack {
            // tcp_ack -> tcp_set_xmit_timer: the probe timer from this ACK
            self.tlp_arm(now);
        }
    }

    /// RTT for the retransmission timer: every ACK with timestamps (RFC 7323 section 4), else
    /// the timed segment (Karn's rule: never a retransmitted one).
    /// Called for each new ACK: ns-2's `ecn_backoff_` ends on one without ECN-echo
    /// (tcp.cc `recv_newack_helper`), and the timed segment's ACK keeps the timer's backoff
    /// while it carries ECN-echo with `ecn_backoff_` (tcp.cc `newack`: "Don't end backoff if
    /// still in ECN-Echo with a congestion window of 1 packet").
    fn take_rtt_sample(&mut self, h: &TcpHeader, ack: u64, now: SimTime) {
        self.note_newack_rto();
        self.ns2_note_new_ack(ack);
        let ece = self.p.ecn && h.flags & F::ECE != 0;
        if self.ns2_timestamps() {
            let timed = self.timed.is_some_and(|(end, _)| ack >= end);
            self.ns2_ts_new_ack(h, now, timed);
        } else if self.p.timestamps {
            self.rtt.sample(now.saturating_sub(h.ts_echo));
        } else if let Some((end, t0)) = self.timed {
            if ack >= end {
                let backoff = self.rtt.backoff();
                self.rtt.sample_at(t0, now);
                if self.ecn_backoff && ece {
                    self.rtt.restore_backoff(backoff);
                } else {
                    self.ecn_backoff = false;
                }
                self.timed = None;
            }
        }
        if !ece {
            self.ecn_backoff = false;
        }
    }

    /// The controller reads the extent of marking (DCTCP, Prague): every ACK's ECE goes to it.
    pub(super) fn ecn_extent(&self) -> bool {
        self.p.ecn && self.cc.ecn_feedback() == EcnFeedback::Extent
    }

    /// With `EcnFeedback::Extent`: whether an ACK up to `ack` may grow the window, i.e. it is
    /// not inside the round trip after an ECN reduction (Linux CWR state), unless the
    /// controller grows there too (Prague).
    pub(super) fn may_grow_after_ecn(&self, ack: u64) -> bool {
        self.cc.grows_during_cwr() || ack >= self.ecn_recover
    }

    /// RFC 3168 section 6.1.2: an ECN echo reduces the window once per window, as a loss
    /// would, without retransmitting (by the controller's ECN rule: RFC 8257 section 3.3).
    fn on_ece(&mut self, pkt: &Packet, now: SimTime) {
        if self.ns2_aimd() {
            return; // ns2_ecn, before the ACK is processed
        }
        let ece = self.ack_ece(pkt);
        if ece && !self.in_recovery && self.snd_una > self.ecn_recover {
            self.w.ssthresh = self.cc.ssthresh_on_ecn(&self.w, self.flight(), now);
            self.w.cwnd = self.w.ssthresh.max(self.w.mss);
            self.ecn_recover = self.snd_max;
            // tcp_ecn_queue_cwr: "Do not set CWR if in AccECN mode!"
            self.cwr_pending = self.accecn.is_none();
            self.stats.ecn_reductions += 1;
        }
    }

    /// ns-2.35 tcp.cc `ecn(seqno)`, called by every agent's recv before the ACK is processed:
    /// an ECN echo on an ACK above `recover_` (or any after a timeout) sets `recover_ =
    /// maxseq_` and `slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF)`: cwnd_ = W/2, not
    /// rounded and not raised to one packet (half of a window of one is half a packet, and
    /// window() = int(cwnd_) then sends nothing until the timer, `newtimer`, expires),
    /// ssthresh_ = int(W/2) (at least 2), for W = min(cwnd_, window_). With cwnd_ at one
    /// packet or less the first such echo sets `ecn_backoff_`, the next backs the timer off
    /// (`rtt_backoff`). In Reno's and NewReno's fast recovery W is `windowd()` = cwnd_ +
    /// dupwnd_ (tcp-reno.cc): the echo on the ACK that ends it halves the inflated window
    /// (`sender/ns2_ecn_recovery.rs`).
    fn ns2_ecn(&mut self, pkt: &Packet) {
        let ece = self.p.ecn && pkt.tcp.flags & F::ECE != 0;
        if !ece || !(pkt.tcp.ack > self.recover || self.last_action_timeout) {
            return;
        }
        let cwnd = if self.in_recovery || self.ns2_dupwnd_out {
            self.ns2_base
        } else {
            self.w.cwnd
        };
        if cwnd <= self.w.mss {
            if self.ecn_backoff {
                self.rtt.back_off();
            } else {
                self.ecn_backoff = true;
            }
        } else {
            self.ecn_backoff = false;
        }
        // slowdown(CLOSE_CWND_HALF|CLOSE_SSTHRESH_HALF), decrease_num_ after the first decrease
        let (ssthresh, half) = self.ns2_slowdown(false);
        self.w.ssthresh = ssthresh;
        self.ns2_ecn_keeps_dupwnd(half);
        self.recover = self.snd_max;
        self.ecn_recover = self.snd_max;
        self.last_action_timeout = false;
        self.last_action_ecn = true;
        self.cwr_pending = true;
        self.stats.ecn_reductions += 1;
    }

    /// ns-2 tcp.cc `newtimer`: the timer also runs with nothing outstanding while cwnd_ < 1
    /// ("we can't send another packet until the retransmit timer again expires").
    fn ns2_window_below_one(&self) -> bool {
        self.ns2_aimd() && self.w.cwnd < self.w.mss
    }

    /// ns-2's `dupack_action` at the `numdupacks_`-th duplicate inside the window of an ECN
    /// reduction (`highest_ack_ <= recover_`, `last_cwnd_action_ == CWND_ACTION_ECN`): no
    /// second halving. tcp.cc (Tahoe): `slowdown(CLOSE_CWND_ONE)` (ssthresh_ kept) and
    /// `reset_rtx_timer(0, 0)` (go back N); tcp-reno.cc, tcp-newreno.cc: `reset_rtx_timer(1,
    /// 0)`, the head retransmitted and `dupwnd_ = numdupacks_` (fast recovery at the window
    /// the ECN echo left, `recover_` kept).
    fn ns2_ecn_dupack_action(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.last_action_ecn = false;
        self.last_action_timeout = false;
        self.ns2_clear_lingering();
        match self.cc.recovery() {
            Recovery::None => {
                self.w.cwnd = self.w.mss;
                self.note_ns2_cong_action();
                self.snd_nxt = self.snd_una;
                self.timed = None;
                self.arm_rto(now);
            }
            Recovery::Reno | Recovery::NewReno => {
                self.in_recovery = true;
                self.partial_seen = false;
                self.high_rxt = self.snd_una;
                self.fast_retransmit_head(cx);
                self.ns2_base = self.w.cwnd;
                self.w.cwnd = self.ns2_base + self.p.dupack_threshold as f64 * self.w.mss;
            }
        }
    }

    /// RFC 3042 / ns-2 tcp.cc `send_one`: on the first and second duplicate ACK send one
    /// segment at snd_nxt if it stays within `window_` (and the receive window) and within
    /// cwnd + the duplicates counted (`t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`).
    fn limited_transmit(&mut self, cx: &mut EndpointCtx) {
        let avail = self.avail_end();
        if self.snd_nxt >= avail {
            return;
        }
        let len = self.mss().min(avail - self.snd_nxt);
        let end = self.snd_nxt + len;
        let win = self.rwnd.min(self.p.max_window);
        let allowed = self.w.cwnd + self.dupacks as f64 * self.w.mss;
        if end <= self.snd_una + win && (end - self.snd_una) as f64 <= allowed {
            let s = self.snd_nxt;
            self.emit(cx, s, len, F::ACK);
            self.snd_nxt = end;
            let t_seqno = self.ns2_pkts(end) - 1;
            self.ns2_qoption_after_send(cx.now_s, t_seqno); // tcp.cc send_one
        }
    }

    /// The ns-3 SACK sender (`sender/ns3.rs`): ns-3's congestion states and pipe.
    fn ns3_sack(&self) -> bool {
        self.rules.sack_sender_by_states && self.p.sack
    }

    /// ns-2's `Agent/TCP/Sack1` (`sender/ns2_sack1.rs`) for Reno and NewReno with SACK.
    fn ns2_sack1(&self) -> bool {
        self.rules.sack_sender_as_ns2_sack1
            && self.p.sack
            && matches!(self.p.cc, CcKind::Reno | CcKind::Newreno)
    }

    /// ns-2's own rules for the agents ns-2.35 has (Agent/TCP, /Reno, /Newreno); CUBIC and
    /// user controllers keep theirs.
    fn ns2_aimd(&self) -> bool {
        self.rules.agent_window_halving
            && matches!(self.p.cc, CcKind::Reno | CcKind::Tahoe | CcKind::Newreno)
    }

    fn ns2_vegas(&self) -> bool {
        self.rules.vegas_as_ns2_agent && self.p.cc == CcKind::Vegas
    }

    /// ns-2's Vegas agent times out with nothing outstanding too: tcp.cc newtimer() rearms
    /// the timer on every new ACK (`t_seqno_ > seqno` holds), and tcp-vegas.cc timeout()
    /// returns early only without `slow_start_restart_`. So a window closed to 0
    /// (`v_newcwnd_` 0 after a timeout) reopens at 2 an RTO after the last ACK, and an idle
    /// agent's timer keeps firing, backed off each time.
    fn vegas_idle_timeout(&self) -> bool {
        self.ns2_vegas() && self.p.slow_start_restart
    }

    /// ns-2 tcp.cc `slowdown` with precision_reduce_: the window it halves is
    /// windowd() = min(cwnd_, window_) in packets (Reno: without the dupwnd_ inflation).
    fn ns2_window(&self) -> f64 {
        let cwnd = if self.in_recovery && self.p.cc != CcKind::Vegas {
            self.ns2_base
        } else {
            self.w.cwnd
        };
        cwnd.min(self.p.max_window as f64) / self.w.mss
    }

    /// ns-2 `slowdown(CLOSE_SSTHRESH_HALF)`: ssthresh_ = int(windowd()/2), at least 2 packets.
    fn ns2_half_ssthresh(&self) -> f64 {
        (self.ns2_window() / 2.0).floor().max(2.0) * self.w.mss
    }

    /// ns-2's `cong_action_` (`cwr_after_every_reduction`): the window was closed, so the
    /// next segment sent carries CWR. Not for Vegas, whose own output() ignores it.
    fn note_ns2_cong_action(&mut self) {
        self.ns2_decreased = true; // slowdown(): first_decrease_ = 0
        if self.rules.cwr_after_every_reduction && !self.ns2_vegas() {
            self.cwr_pending = true;
        }
    }

    fn enter_recovery(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        let ns2_reno = self.ns2_aimd() && !self.p.sack;
        let slow_start = ns2_reno && self.ns2_in_slow_start();
        if ns2_reno {
            // tcp.cc / tcp-reno.cc / tcp-newreno.cc dupack_action: trace_event before slowdown
            let kind = match self.p.cc {
                CcKind::Tahoe => "FAST_RETX",
                CcKind::Reno => "RENO_FAST_RETX",
                _ => "NEWRENO_FAST_RETX",
            };
            self.ns2_event(now, kind);
        }
        // tcp-reno.cc dupack_action -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_HALF):
        // ssthresh_ = int(W/2), cwnd_ = W/2 for W = min(cwnd_, window_), not FlightSize
        // (decrease_num_ after the first decrease).
        let (ns2_ssthresh, half) = if ns2_reno {
            self.ns2_slowdown(false)
        } else {
            (0.0, 0.0)
        };
        if ns2_reno {
            // Tahoe's slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_ONE): cwnd_ 1
            let after = if self.cc.recovery() == Recovery::None {
                1.0
            } else {
                half.max(self.w.mss) / self.w.mss
            };
            self.ns2_slowdown_event(now, slow_start, after);
        }
        self.stats.fast_retransmits += 1;
        self.note_ns2_cong_action();
        self.last_action_timeout = false;
        self.last_action_ecn = false;
        self.ns2_clear_lingering();
        let flight = self.flight();
        if ns2_reno {
            self.w.ssthresh = ns2_ssthresh;
        } else if self.ns3_sack() {
            // EnterRecovery marks the head lost, then BytesInFlight() sizes ssthresh.
            self.head_lost_until = self.snd_una + self.mss().min(self.flight());
            let pipe = self.pipe_ns3();
            self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, pipe, now);
        } else {
            self.w.ssthresh = self.cc.ssthresh_on_loss(&self.w, flight, now);
        }
        self.recover = self.snd_max;
        self.ecn_recover = self.ecn_recover.max(self.snd_max);
        self.high_rxt = self.snd_una;
        self.partial_seen = false;
        if self.p.sack && self.cc.recovery() != Recovery::None {
            // RFC 6675 section 5 steps (4.1)-(4.3): RecoveryPoint = HighData, cwnd = ssthresh,
            // retransmit the first segment presumed lost.
            self.in_recovery = true;
            let prior_cwnd = self.w.cwnd;
            self.w.cwnd = self.w.ssthresh;
            if self.owns_window {
                let c = self.conn(now);
                self.cc.on_enter_recovery(&mut self.w, &c);
            } else if self.rules.prr == Some(PrrVariant::Ns3) && self.p.prr {
                self.prr_enter();
            } else if self.linux_prr() {
                // tcp_init_cwnd_reduction, then this ACK's tcp_cwnd_reduction before the
                // fast retransmission (sender/prr_linux.rs)
                self.linux_prr_enter(prior_cwnd);
                self.linux_prr_reduce();
            }
            self.rack_stop_probe(false);
            // with RACK-TLP the lost segments go out by the send loop, the head only if lost
            if self.rack_head_lost() {
                self.fast_retransmit_head(cx);
            }
            return;
        }
        match self.cc.recovery() {
            Recovery::None if self.rules.tahoe_fast_retransmit_goes_back_n && self.ns2_aimd() => {
                // ns-2 tcp.cc dupack_action -> reset_rtx_timer(0, 0): the timer restarts,
                // t_seqno_ = highest_ack_ + 1 and rtt_active_ = 0; recv's send_much (here
                // after_ack) then sends the head with cwnd_ 1, and each new ACK's slow start
                // resends from the cumulative ACK (go back N).
                self.w.cwnd = self.w.mss;
                self.snd_nxt = self.snd_una;
                self.timed = None;
                self.arm_rto(now);
            }
            Recovery::None => {
                // Tahoe: retransmit and slow-start from one segment.
                self.w.cwnd = self.w.mss;
                self.fast_retransmit_head(cx);
            }
            Recovery::Reno | Recovery::NewReno => {
                // RFC 5681 section 3.2 steps 2-3.
                self.in_recovery = true;
                self.fast_retransmit_head(cx);
                if self.owns_window {
                    let c = self.conn(now);
                    self.cc.on_enter_recovery(&mut self.w, &c);
                } else if ns2_reno {
                    // window() = int(cwnd_) + dupwnd_, dupwnd_ = numdupacks_ (tcp-reno.cc).
                    self.ns2_base = half.max(self.w.mss);
                    self.w.cwnd = self.ns2_base + self.p.dupack_threshold as f64 * self.w.mss;
                } else {
                    self.w.cwnd = self.w.ssthresh + self.p.dupack_threshold as f64 * self.w.mss;
                }
            }
        }
    }

    fn on_rto(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.rto_at = None;
        // tcp.cc timeout(TCP_TIMER_RTX): trace_event("TIMEOUT") first; every branch below
        // but an idle one without slow_start_restart_ then calls slowdown, which leaves cwnd_
        // at 1 (CLOSE_CWND_RESTART with wnd_restart_ 1, or CLOSE_CWND_ONE): SLOW_START.
        self.ns2_event(now, "TIMEOUT");
        let idle = self.snd_max <= self.snd_una && self.state != State::SynSent;
        if !idle || self.p.slow_start_restart {
            let slow_start = self.ns2_in_slow_start();
            self.ns2_slowdown_event(now, slow_start, 1.0);
        }
        if self.state == State::SynSent {
            // RFC 6298 section 5.5 applies to the SYN too; RFC 9293 section 3.8.1.
            self.stats.syn_retransmits += 1;
            self.syn_retx = true;
            // tcp.cc timeout() -> slowdown() for packet 0 too, and last_cwnd_action_ =
            // CWND_ACTION_TIMEOUT (read by ecn())
            self.note_ns2_cong_action();
            self.last_action_timeout |= self.ns2_aimd();
            self.rtt.back_off();
            if self.opening_with_data() {
                // tcp.cc timeout: cwnd_ = wnd_restart_ (1), t_seqno_ = highest_ack_ + 1 (0):
                // packet 0 goes again, alone
                self.w.cwnd = self.w.mss;
                self.snd_nxt = self.snd_una;
                self.timed = None;
            }
            if self.jitter.is_some() {
                // reset_rtx_timer, then send_much through the delayed-send timer
                self.rto_at = Some(now + self.rtt.rto());
            }
            self.open(cx);
            return;
        }
        if self.lx.is_some() && self.snd_max > self.snd_una {
            return self.on_rto_ns2_linux(cx);
        }
        // ns-2 RenoTcpAgent::timeout: dupwnd_ = 0 before TcpAgent::timeout (exitFastRetrans_)
        self.ns2_end_dupwnd(None);
        // tcp.cc timeout: frto_ = 0, pipe_prev_ = max(window(), ssthresh_)
        self.ns2_frto_timeout_start();
        let sack1_recovery = self.ns2_sack1() && self.in_recovery;
        if self.snd_max <= self.snd_una && self.ns2_window_below_one() {
            return self.ns2_idle_timeout_below_one(cx);
        }
        if self.snd_max <= self.snd_una && !self.vegas_idle_timeout() {
            return;
        }
        // RFC 6298 section 5.4-5.6, RFC 5681 section 3.1 (equation 4, loss window).
        self.stats.timeouts += 1;
        self.note_ns2_cong_action();
        // tcp.cc timeout(): inside the window of an ECN reduction (highest_ack_ < recover_,
        // last_cwnd_action_ == CWND_ACTION_ECN) only slowdown(CLOSE_CWND_ONE): ssthresh_ stays.
        // timeout() sets `recover_ = maxseq_` just before that test (tcp-sack1.cc's timeout
        // too), so it asks only whether data is outstanding, not whether the ECN's own
        // recovery point is still ahead (red gentleEcn1: a timeout at 16.99 s after the
        // ECN reduction's window was acknowledged keeps ssthresh_ 3)
        let ecn_window = self.ns2_aimd() && self.last_action_ecn && self.snd_una < self.snd_max;
        let ssthresh_before = self.w.ssthresh;
        self.last_action_timeout = true;
        self.last_action_ecn = false;
        let ns3 = self.ns3_sack();
        // ns-3 ReTxTimeout: ssthresh from BytesInFlight() before the timeout (the pipe).
        let flight = if ns3 { self.pipe_ns3() } else { self.flight() };
        let ns2_ssthresh = self.ns2_half_ssthresh();
        self.cc.on_timeout(&mut self.w, flight, now);
        if ecn_window {
            self.w.ssthresh = ssthresh_before;
        } else if self.ns2_aimd() || self.ns2_vegas() {
            // tcp.cc timeout -> slowdown(CLOSE_SSTHRESH_HALF|CLOSE_CWND_RESTART) (Reno) and
            // tcp-vegas.cc timeout: ssthresh_ = int(min(cwnd_, window_)/2), not FlightSize/2.
            self.w.ssthresh = ns2_ssthresh;
        }
        self.in_recovery = false;
        // tcp.cc timeout: frto_ = 1 after the slowdown (not after Sack1's fast recovery)
        self.ns2_frto_timeout_end(sack1_recovery);
        self.vegas_on_timeout(cx.now_s);
        // ns-2 tcp.cc timeout() keeps dupacks_ (Agent/TCP); RenoTcpAgent::timeout clears it.
        if !(self.rules.tahoe_timeout_keeps_dupacks
            && self.ns2_aimd()
            && self.p.cc == CcKind::Tahoe)
        {
            self.dupacks = 0;
        }
        // ns-2 Sack1 timeout(): timeout_ = TRUE, duplicate ACKs are ignored until a new ACK.
        self.sack1_timeout = self.ns2_sack1();
        self.recover = self.snd_max; // RFC 6582 section 3.2 step 1 after a timeout
        self.rack_stop_probe(true);
        self.high_rxt = self.snd_una;
        self.rtt.back_off();
        self.timed = None;
        if ns3 {
            // ns-3 SetSentListLost(false): the scoreboard stays, every unSACKed byte is lost.
            self.in_loss = true;
            self.in_cwr = false; // CA_CWR -> CA_LOSS
            self.first_partial = true;
            self.retx.clear(); // SetSentListLost: m_retrans = 0
            self.head_lost_until = 0;
        } else {
            // RFC 2018 section 8: after a timeout the SACK information is not trusted.
            self.sb.clear();
        }
        self.snd_nxt = self.snd_una; // go back N (ns-2 t_seqno_ = highest_ack_ + 1)
        self.send_data(cx);
        if self.rto_at.is_none() {
            self.arm_rto(now);
        }
    }

    /// ns-2 tcp.cc `timeout()` with nothing outstanding and cwnd_ below one packet (an ECN
    /// echo halved a window of one, `newtimer` kept the timer): cwnd_ = 1; with
    /// `slow_start_restart_` `recover_ = maxseq_` and `slowdown(CLOSE_CWND_ONE|
    /// NO_OUTSTANDING_DATA)` (cong_action_ set); `reset_rtx_timer(0, 0)` (no backoff),
    /// `last_cwnd_action_ = CWND_ACTION_TIMEOUT`, then `send_much`.
    fn ns2_idle_timeout_below_one(&mut self, cx: &mut EndpointCtx) {
        let now = cx.now;
        self.w.cwnd = self.w.mss;
        if self.p.slow_start_restart {
            self.recover = self.snd_max;
            self.note_ns2_cong_action();
        }
        self.last_action_timeout = true;
        self.last_action_ecn = false;
        self.timed = None;
        self.snd_nxt = self.snd_una;
        self.arm_rto(now);
        // the restart is this timeout's, not RFC 5681's idle rule (next_new_segment)
        self.last_send = now;
        self.send_data(cx);
    }

    fn json_report(&self) -> serde_json::Value {
        let rts = &self.response_times[self.objects_at_warmup..];
        let mut sorted = rts.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let q = |f: f64| -> Option<f64> {
            (!sorted.is_empty()).then(|| {
                let i = ((sorted.len() as f64 * f).ceil() as usize).clamp(1, sorted.len()) - 1;
                sorted[i]
            })
        };
        let st = &self.stats;
        let mut r = json!({
            "cc": self.cc.name(),
            "preset": format!("{:?}", self.p.preset).to_lowercase(),
            "app": self.app.kind(),
            "mss": self.p.mss,
            "sack": self.p.sack,
            "bytes_acked": self.snd_una.saturating_sub(1).min(self.data_end.saturating_sub(1)),
            "segments_sent": st.segments_sent,
            "bytes_sent": st.bytes_sent,
            "retransmitted_segments": st.retransmitted_segments,
            "retransmitted_bytes": st.retransmitted_bytes,
            "timeouts": st.timeouts,
            "fast_retransmits": st.fast_retransmits,
            "ecn_reductions": st.ecn_reductions,
            "syn_retransmits": st.syn_retransmits,
            "acks_received": st.acks_received,
            "dupacks_received": st.dupacks_received,
            "rtt_samples": self.rtt.samples,
            "rtt_mean_s": self.rtt.measured.mean(),
            "rtt_min_s": self.rtt.measured.min(),
            "rtt_max_s": self.rtt.measured.max(),
            "srtt_s": self.rtt.srtt(),
            "rttvar_s": self.rtt.rttvar(),
            "rto_s": self.rtt.rto().as_secs_f64(),
            "cwnd_bytes": self.w.cwnd,
            "cwnd_segments": self.w.cwnd / self.w.mss,
            "ssthresh_bytes": self.w.ssthresh.is_finite().then_some(self.w.ssthresh),
            "completion_time_s": self.completion.map(|t| (t.saturating_sub(self.start)).as_secs_f64()),
            "objects_completed": self.response_times.len(),
            "response_time_mean_s": (!rts.is_empty()).then(|| rts.iter().sum::<f64>() / rts.len() as f64),
            "response_time_p50_s": q(0.5),
            "response_time_p95_s": q(0.95),
            "response_time_max_s": sorted.last(),
            "cc_state": self.cc.report(),
        });
        if let Some(a) = &self.accecn {
            r["accecn"] = json!({"ce_packets": a.ce_packets, "ce_option_bytes": a.ce_bytes,
                                 "ace_wrapped": a.wrapped});
        }
        if let Some(p) = &self.pacer {
            r["pacing_rate_bytes_per_s"] = json!(p.last_rate);
            r["pacing_holds"] = json!(p.held);
        }
        if let TcpApp::Writes {
            written_bytes,
            refused_bytes,
            ..
        } = &self.app
        {
            // what the source wrote, and what a full send buffer refused
            r["app_written_bytes"] = json!(written_bytes);
            r["app_refused_bytes"] = json!(refused_bytes);
        }
        crate::monitor::fields::subtract_counters(&mut r, &self.at_warmup);
        r
    }
}

impl TcpSender {
    /// The opening packet's transmissions so far (the first and its retransmissions).
    fn syn_sends(&self) -> u64 {
        if self.p.handshake && self.state != State::Idle {
            1 + self.stats.syn_retransmits
        } else {
            0
        }
    }
}

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

    /// ns-2 `Agent/TCP` variables (tcp.h): windows in packets of `mss`, times in seconds,
    /// packets numbered from 0 (data starts at sequence 1 here). With an opening packet
    /// (ns-2's `syn_`, on by default in ns-2.35) that packet is number 0 and data segments
    /// count from 1, as ns-2 numbers them.
    fn probe(&self, var: &str) -> Option<f64> {
        let mss = self.p.mss as f64;
        let opening = if self.p.handshake { 1.0 } else { 0.0 };
        let seg = |seq: u64| (seq.saturating_sub(1) as f64 / mss).floor() + opening;
        let opening_unacked = self.p.handshake && self.state != State::Established;
        match var {
            // not ns-2's: the CE-marked bytes the controller was given (DCTCP, Prague, BBRv3)
            "ecn_marked_bytes" => Some(self.ecn_marked_bytes as f64),
            // Agent/TCP/Linux: a module's cwnd_ (sender/ns2_linux.rs); delay_growth_ false
            "cwnd_" if self.lx.as_ref().is_some_and(|l| l.cwnd_var().is_some()) => {
                self.lx.as_ref().and_then(|l| l.cwnd_var())
            }
            // ns-2 sends the opening packet with cwnd_ 1 (seen in ns-2.35's cwnd_ traces).
            "cwnd_" if opening_unacked && self.lx.is_none() => Some(1.0),
            // ns-2 Reno/NewReno keep the fast-recovery inflation in dupwnd_, not in cwnd_
            // (tcp-reno.cc: window() = cwnd_ + dupwnd_).
            "cwnd_" if self.ns2_dupwnd_out => Some(self.ns2_base / mss),
            "cwnd_"
                if self.in_recovery
                    && self.ns2_aimd()
                    && !self.p.sack
                    && matches!(self.p.cc, CcKind::Reno | CcKind::Newreno) =>
            {
                Some(self.ns2_base / mss)
            }
            "cwnd_" => Some(self.cwnd() / mss),
            "ssthresh_" => Some(self.ssthresh() / mss),
            "ack_" if opening_unacked => Some(-1.0),
            "ack_" => Some(seg(self.snd_una) - 1.0),
            "t_seqno_" if self.state == State::Idle => Some(0.0),
            "t_seqno_" if opening_unacked => Some(1.0),
            "t_seqno_" => Some(seg(self.snd_nxt)),
            "maxseq_" if self.state == State::Idle => Some(-1.0), // tcp.cc reset()
            "maxseq_" => Some(seg(self.snd_max) - 1.0),
            "rtt_" | "srtt_" | "rttvar_" | "backoff_" if self.rtt.is_ns2() => self.rtt.ns2_var(var),
            "srtt_" => self.rtt.srtt(),
            "rtt_" => (self.rtt.samples > 0).then_some(self.rtt.last_sample),
            "rto_" => Some(self.rtt.rto().as_secs_f64()),
            // tcp.cc binds dupacks_: the duplicates counted since the last new ACK
            "dupacks_" => Some(f64::from(self.dupacks)),
            // tcp.cc output()'s counters as it keeps them during the run: ++ndatapack_ for
            // every packet sent, the opening packet and its retransmissions too, and
            // ++nrexmitpack_ for each of them not above maxseq_; timeout() counts nrexmit_,
            // recv() nackpack_ (the end-of-run values the ns-2 layer reads from the report)
            "ndatapack_" => Some((self.stats.segments_sent + self.syn_sends()) as f64),
            "ndatabytes_" => Some(self.stats.bytes_sent as f64),
            "nrexmitpack_" => {
                Some((self.stats.retransmitted_segments + self.stats.syn_retransmits) as f64)
            }
            "nrexmitbytes_" => Some(self.stats.retransmitted_bytes as f64),
            "nrexmit_" => Some(self.stats.timeouts as f64),
            "nackpack_" => Some(self.stats.acks_received as f64),
            _ => None,
        }
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
        let pace = self.pacer.as_ref().and_then(Pacer::timer);
        let delayed = self.delayed_send_at().map(|(t, _)| t);
        let [reo, tlp] = self.rack_timers();
        for x in [self.app_at, stop, pace, delayed, reo, tlp] {
            t = match (t, x) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
        }
        t
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(self.json_report())
    }

    fn finite_transfer(&self) -> Option<crate::monitor::fct::FiniteTransfer> {
        let TcpApp::Transfer { bytes } = self.app else {
            return None;
        };
        Some(crate::monitor::fct::FiniteTransfer {
            bytes,
            wire: crate::monitor::fct::WireFormat {
                mss: self.p.mss,
                header: self.p.data_header(),
                ack: self.p.ack_size,
                bare_first: self.rules.opening_data_without_headers && !self.p.handshake,
            },
            // the FIN rides on the last data segment: its ACK covers the last byte
            done: self.completion,
        })
    }

    fn series(&self, end: SimTime) -> Option<serde_json::Value> {
        let mut me = TcpSeries::clone(self.series.as_ref()?);
        // Fill to the end with the current state (sample-and-hold).
        self.sample_until(&mut me, end);
        Some(json!({
            "t_s": me.t_s,
            "cwnd_bytes": me.cwnd_bytes,
            "ssthresh_bytes": me.ssthresh_bytes,
            "rwnd_bytes": me.rwnd_bytes,
            "srtt_s": me.srtt_s,
            "rtt_s": me.rtt_s,
        }))
    }
}
