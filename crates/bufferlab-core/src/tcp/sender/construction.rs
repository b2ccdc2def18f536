//! Building a sender (`new`, `with_cc`) and its warm-up.
//!
//! * The initial window: `iw` segments, ssthresh `initial_ssthresh`, unbounded by default
//!   (RFC 5681 section 3.1: "arbitrarily high"); ns-2.35's Vegas agent without the opening
//!   packet starts at one packet (tcp-vegas.cc, `set_initial_window()`).
//! * The RTT estimator: RFC 6298 (`tcp/rtt.rs`), or ns-2.35's (tcp.cc `rtt_init`,
//!   `rtt_update`) under the rule `rto_in_ticks`, with its scales and tick phase.
//! * The sequence space (RFC 9293): the SYN takes number 0, data starts at 1; ns-2 tcp.cc
//!   `reset()` sets `recover_ = 0`, packet 0 (the opening packet with `syn_`).
//! * Pacing (`tcp/pacing.rs`) when `paced()`, delivery-rate estimation (`tcp/rate.rs`) when
//!   the controller owns the window, the flavours' own state (`ns2_*.rs`, `prr_linux.rs`,
//!   `rack_tlp.rs`, AccECN).
//! * The warm-up: the report counts from the first call at or after it (`note_warmup`).

use super::{
    ns2_cwv, ns2_frto, ns2_knobs, ns2_linux, ns2_packet0_end, prr_linux, SenderStats, State,
    TcpSender, TcpSeries, VegasLoss,
};
use crate::endpoint::EndpointCtx;
use crate::tcp::app::TcpApp;
use crate::tcp::cc::{self, CongestionControl, Window};
use crate::tcp::config::{CcKind, TcpParams, UNLIMITED};
use crate::tcp::pacing::Pacer;
use crate::tcp::rate::RateEstimator;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::sack::Scoreboard;
use crate::units::SimTime;

impl TcpSender {
    pub fn new(
        p: impl Into<std::rc::Rc<TcpParams>>,
        app: TcpApp,
        start: SimTime,
        stop: SimTime,
    ) -> Self {
        let p = p.into();
        let cc = cc::build(&p);
        Self::with_cc(p, app, start, stop, cc)
    }

    /// A sender with the given congestion controller (a user-defined one, for example).
    pub fn with_cc(
        p: impl Into<std::rc::Rc<TcpParams>>,
        app: TcpApp,
        start: SimTime,
        stop: SimTime,
        cc: Box<dyn CongestionControl>,
    ) -> Self {
        let p: std::rc::Rc<TcpParams> = p.into();
        let w = initial_window(&p);
        let rtt = initial_rtt(&p);
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
                Box::new(if p.cc == CcKind::Prague {
                    Pacer::prague()
                } else {
                    Pacer::new(p.pacing_ss_ratio, p.pacing_ca_ratio)
                })
            }),
            rate: owns_window.then(|| {
                Box::new(if p.rules().rate_sample_persists {
                    RateEstimator::ns3()
                } else {
                    RateEstimator::new()
                })
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
            // reserved only where SACK blocks can arrive (a scoreboard never used holds nothing)
            sb: if p.sack {
                Scoreboard::new()
            } else {
                Scoreboard::default()
            },
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
            rto_since_reduction: false,
            in_cwr: false,
            snd_sml: 0,
            cwr_pending: false,
            last_action_timeout: false,
            last_action_ecn: false,
            ecn_backoff: false,
            accecn: p
                .accecn()
                .then(|| Box::new(crate::tcp::accecn::AccEcnSender::default())),
            ack_ce: None,
            ecn_marked_bytes: 0,
            in_loss: false,
            // only ns-3's sender remembers its retransmitted ranges
            retx: if p.rules().remember_retransmitted_ranges {
                Scoreboard::new()
            } else {
                Scoreboard::default()
            },
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
                .map(|ca| Box::new(ns2_linux::Ns2Linux::new(ca, &p))),
            cwv: ns2_cwv::Ns2Cwv::reset(0),
            send_much_win: None,
            vegas_loss: (p.rules().vegas_fine_grained_retransmit && p.cc == CcKind::Vegas)
                .then(|| Box::new(VegasLoss::new(p.max_window / u64::from(p.mss.max(1))))),
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
    pub(super) fn note_warmup(&mut self, cx: &EndpointCtx) {
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
        self.series = Some(Box::new(TcpSeries {
            interval,
            next: from,
            ..TcpSeries::default()
        }));
        self
    }
}

/// The window a sender starts with: `iw` segments and ssthresh `initial_ssthresh`
/// (unbounded by default: RFC 5681 section 3.1's "arbitrarily high").
fn initial_window(p: &TcpParams) -> Window {
    let mss = p.mss as f64;
    // ns-2 Vegas: set_initial_window() gives cwnd_ 1 (syn_ and delay_growth_ are true) and
    // tcp-vegas.cc recv raises it to windowInit_ on the second new ACK (see cc/vegas.rs).
    let iw = if p.rules().vegas_as_ns2_agent && p.cc == CcKind::Vegas && !p.handshake {
        1.0
    } else {
        p.iw as f64
    };
    Window {
        cwnd: iw * mss,
        ssthresh: if p.initial_ssthresh == UNLIMITED {
            f64::INFINITY
        } else {
            p.initial_ssthresh as f64
        },
        mss,
    }
}

/// The RTT estimator (RFC 6298, `tcp/rtt.rs`); with the rule `rto_in_ticks` and a clock
/// granularity, ns-2's (tcp.cc `rtt_init`, `rtt_update`) with its scales and phase.
fn initial_rtt(p: &TcpParams) -> RttEstimator {
    let mut rtt = RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto, p.clock_granularity);
    if p.rules().rto_in_ticks && p.clock_granularity > SimTime::ZERO {
        rtt = rtt.ns2(p.clock_phase).rfc2988(p.ns2.rfc2988);
        let n = &p.ns2;
        rtt = rtt
            .ns2_scales(n.knobs.srtt_bits, n.knobs.rttvar_bits, n.rttvar_exp)
            .expect("checked by TcpParams::resolve")
            .ns2_linux_rttvar(p.rules().ns2_linux_agent && n.linux.is_some());
    }
    rtt
}
