//! The TCP sender: a sans-IO state machine (see [`crate::endpoint`]).
//!
//! This file holds the sender's state ([`TcpSender`], [`SenderStats`], [`TcpSeries`]) and its
//! small accessors; what it does is in `sender/`, one concept a file, each citing the
//! references of its rules:
//! * `construction.rs`: building a sender (initial window, RTT estimator), the warm-up;
//! * `application.rs`: the application's data, completions, new data after idle;
//! * `output.rs`: segments leaving (`emit`, the send loop, head retransmissions, the SYN);
//! * `pacing_rate.rs`: pacing, delivery-rate samples, bytes in flight and lost;
//! * `ack.rs` (the order of the per-ACK steps: [`TcpSender::on_ack`]), `ack_new.rs` (a new
//!   cumulative ACK), `ack_dup.rs` (a duplicate ACK);
//! * `ecn.rs`: ECN at the sender; `recovery.rs`: fast retransmit and recovery, limited
//!   transmit; `timeout.rs`: the retransmission timer;
//! * `reporting.rs`: report, time series, probes; `endpoint.rs`: the `Endpoint` trait;
//! * the flavours' own rules: `ns2_*.rs` (ns-2.35's agents), `ns3.rs`, `prr_linux.rs`,
//!   `rack_tlp.rs`, `accecn.rs`, `reset.rs`, `send_timing.rs`.
//!
//! References, overall (the files cite sections and functions):
//! * RFC 9293 (TCP): sequence space, SYN/FIN, the three-way handshake.
//! * RFC 5681: slow start, congestion avoidance, fast retransmit / fast recovery, restart
//!   after idle. RFC 6582: NewReno. RFC 6675: SACK-based recovery (with [`super::sack`]).
//! * RFC 6298: retransmission timer (with [`super::rtt`]); Karn & Partridge 1987.
//! * RFC 3168: ECN at the sender; RFC 8257 (DCTCP) and RFC 9331 (Prague) for controllers that
//!   read the extent of marking. RFC 896 / RFC 1122 4.2.3.4: Nagle. RFC 3042: limited
//!   transmit.
//! * ns-2.35 `tcp.cc`, `tcp-reno.cc`, `tcp-newreno.cc`, `tcp-vegas.cc`, `tcp-sack1.cc`: the
//!   one-way agents it mirrors with the `ns2` preset (full-sized packets, `window_`, one timed
//!   segment per RTT) and, with its flavour's rules (`tcp/flavour/ns2.rs`, `ns2_rules`), the
//!   agents' own rules. ns-3.44 `TcpSocketBase` with the `ns3` flavour, Linux with `linux`.
//! * Pacing (`tcp/pacing.rs`) and delivery-rate samples for controllers that own the window
//!   (`tcp/rate.rs`, BBR).
//!
//! Sequence numbers are bytes; the SYN takes number 0, data starts at 1 and a FIN takes the
//! number after the last data byte (it rides on the last data segment).

use super::app::TcpApp;
use super::cc::{CongestionControl, Window};
use super::config::{CcKind, TcpParams};
use super::flavour::Rules;
use super::pacing::Pacer;
use super::rate::RateEstimator;
use super::rtt::RttEstimator;
use super::sack::Scoreboard;
use crate::endpoint::Ns2TcpEvent;
use crate::packet::tcp_flags as F;
use crate::units::SimTime;

mod accecn;
mod ack;
mod ack_dup;
mod ack_new;
mod application;
mod construction;
mod dsack_undo;
mod ecn;
mod endpoint;
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
mod output;
mod pacing_rate;
mod prr_linux;
mod rack_tlp;
mod recovery;
mod reporting;
mod reset;
mod send_timing;
mod timeout;

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
    /// Shared by the flows of one configuration (`scenario/flows.rs`): 368 bytes a sender and
    /// a receiver held once (docs/performance.md, "What a flow holds").
    p: std::rc::Rc<TcpParams>,
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
    /// A timeout since the last reduction: the round after an ECN reduction or a fast
    /// recovery no longer holds the window (Linux `tcp_enter_loss` leaves CWR and Recovery for
    /// `CA_Loss`, where `tcp_in_cwnd_reduction` is false and slow start grows cwnd again).
    rto_since_reduction: bool,
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
    /// Boxed: most flows do not negotiate AccECN.
    pub(super) accecn: Option<Box<super::accecn::AccEcnSender>>,
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
    lx: Option<Box<ns2_linux::Ns2Linux>>,
    /// ns-2's congestion window validation (`QOption_`) and `last_ack_` of Sack1's fast
    /// recovery (`sender/ns2_cwv.rs`).
    cwv: ns2_cwv::Ns2Cwv,
    /// ns-2 Sack1's `send_much` `win = window()`, taken once before its loop (bytes): with
    /// `QOption_` a send may shrink cwnd_, and outside fast recovery tcp-sack1.cc goes on to
    /// the window it began with (tcp.cc's `send_much` reads `window()` again each turn).
    send_much_win: Option<f64>,
    /// ns-2 Vegas's loss handling (`sender/ns2_vegas.rs`), when its rule applies.
    vegas_loss: Option<Box<VegasLoss>>,
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
    series: Option<Box<TcpSeries>>,
    /// Pacing (`tcp/pacing.rs`), when `paced()`; boxed, as most flows are not paced (56
    /// bytes a sender otherwise; docs/performance.md, "What a flow holds after the report is
    /// streamed").
    pacer: Option<Box<Pacer>>,
    /// Delivery-rate estimation (`tcp/rate.rs`), when the controller owns the window.
    rate: Option<Box<RateEstimator>>,
    /// The controller owns cwnd (`CongestionControl::owns_window`).
    owns_window: bool,
    /// Bytes in flight and bytes lost before the ACK being processed (for its rate sample).
    ack_ctx: Option<(u64, u64)>,
    /// Send jitter's delayed-send timer (`send_timing.rs`; a flow's `send_jitter`).
    jitter: Option<Box<send_timing::SendJitter>>,
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
}
