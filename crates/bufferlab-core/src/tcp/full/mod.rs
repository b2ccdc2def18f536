//! ns-2.35's two-way TCP, `Agent/TCP/FullTcp` and its Newreno and Tahoe subclasses
//! (`tcp/tcp-full.cc`, `tcp/tcp-full.h`, FullTcpAgent, NewRenoFullTcpAgent,
//! TahoeFullTcpAgent) and SackFullTcpAgent, as a sans-IO endpoint. Both ends of a flow are one of these: the source
//! is the active opener (`connect`: SYN), the destination listens (`listen`: it answers
//! SYN+ACK and sends its packets as ns-2 type `ack`, `type_ = PT_ACK`). Sequence numbers
//! count bytes from `iss_` 0 (the SYN takes 0, data starts at 1).
//!
//! One concept per file:
//! * [`config`]: the `full_tcp` table and ns-default.tcl's defaults;
//! * `input.rs`: `recv`, the state machine, header prediction, the ACK and data paths;
//! * `output.rs`: `foutput`, `send_much`, `sendpacket`, `need_send`, `send_allowed`;
//! * `window.rs`: the congestion window (tcp.cc `opencwnd`, `slowdown`) and the variants'
//!   loss responses (`dupack_action`, `pack_action`, `ack_action`, `timeout_action`);
//! * `timers.rs`: the retransmission and delayed-ACK timers (`timeout`), in ns-2's doubles.
//!
//! * `rq.rs`: the ReassemblyQueue (rq.cc), the receiver's and the SACK scoreboard's;
//! * `sack.rs`: SackFullTcpAgent (`Agent/TCP/FullTcp/Sack`).
//!
//! Not modelled (refused by the ns-2 script layer): timestamps, ECN, `close`,
//! `data_on_syn_`, `pipectrl_`, `close_on_empty_`, `halfclose_`.

pub mod config;
mod input;
mod output;
mod rq;
mod sack;
#[cfg(test)]
mod tests;
mod timers;
mod window;

pub use config::{FullTcp, FullTcpOptions, FullTcpVariant};

use crate::endpoint::{Endpoint, EndpointCtx};
use crate::packet::Packet;
use crate::tcp::app::TcpApp;
use crate::tcp::rtt::RttEstimator;
use crate::tcp::TcpParams;
use crate::units::SimTime;
use serde_json::json;

/// tcp-full.h's states (`TCPS_*`, tcp_fsm.h numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum State {
    Closed = 0,
    Listen = 1,
    SynSent = 2,
    SynReceived = 3,
    Established = 4,
    CloseWait = 5,
    FinWait1 = 6,
    Closing = 7,
    LastAck = 8,
    FinWait2 = 9,
}

impl State {
    /// tcp_fsm.h `TCPS_HAVERCVDFIN`.
    fn have_rcvd_fin(self) -> bool {
        matches!(self, State::Closing | State::Closed | State::CloseWait)
    }
    /// tcp_fsm.h `TCPS_HAVERCVDSYN`.
    fn have_rcvd_syn(self) -> bool {
        self >= State::SynReceived
    }
}

// tcp-full.h internal flags (`flags_`)
pub(crate) const TF_ACKNOW: u32 = 0x0001;
pub(crate) const TF_DELACK: u32 = 0x0002;
pub(crate) const TF_NEEDFIN: u32 = 0x0800;
pub(crate) const TF_NEEDCLOSE: u32 = 0x10000;

// tcp.h last_cwnd_action_ values
pub(crate) const CWND_ACTION_DUPACK: u8 = 1;
pub(crate) const CWND_ACTION_TIMEOUT: u8 = 2;

// tcp.h send reasons (trace only)
pub(crate) const REASON_NORMAL: u8 = 0;
pub(crate) const REASON_TIMEOUT: u8 = 1;
pub(crate) const REASON_DUPACK: u8 = 2;

/// One FullTcp agent.
pub struct FullTcpAgent {
    pub(crate) p: TcpParams,
    pub(crate) f: FullTcp,
    /// The active opener (the flow's source) or the listener.
    pub(crate) active: bool,
    pub(crate) app: TcpApp,
    pub(crate) start: SimTime,
    pub(crate) started: bool,
    pub(crate) state: State,
    pub(crate) last_state: State,
    pub(crate) flags: u32,
    // sender side (tcp.h / tcp-full.h names, bytes)
    pub(crate) iss: i64,
    pub(crate) t_seqno: i64,
    pub(crate) maxseq: i64,
    pub(crate) highest_ack: i64,
    pub(crate) curseq: i64,
    pub(crate) infinite_send: bool,
    pub(crate) recover: i64,
    pub(crate) cwnd: f64,
    pub(crate) ssthresh: i64,
    /// `wnd_` (window_), in segments.
    pub(crate) wnd: f64,
    pub(crate) wnd_init: f64,
    pub(crate) dupacks: u32,
    pub(crate) fastrecov: bool,
    pub(crate) pipe: i64,
    pub(crate) last_cwnd_action: u8,
    pub(crate) first_decrease: bool,
    pub(crate) cong_action: bool,
    pub(crate) maxburst: u32,
    /// NewRenoFullTcpAgent `save_maxburst_` (-1: none saved).
    pub(crate) save_maxburst: i64,
    pub(crate) last_send_time: f64,
    // receiver side
    pub(crate) rcv_nxt: i64,
    pub(crate) irs: i64,
    pub(crate) last_ack_sent: i64,
    /// The receiver's ReassemblyQueue (`rq_`, rq.cc).
    pub(crate) rq: rq::ReassemblyQueue,
    // SackFullTcpAgent (sack.rs)
    /// The scoreboard of the peer's SACK blocks (`sq_`).
    pub(crate) sq: rq::ReassemblyQueue,
    /// `sack_min_`: the scoreboard's next-expected number.
    pub(crate) sack_min: i64,
    /// `h_seqno_`: the next sequence number to fill a hole with.
    pub(crate) h_seqno: i64,
    /// `pipectrl_`: "pipe" control during SACK recovery.
    pub(crate) pipectrl: bool,
    // timers
    pub(crate) rtt: RttEstimator,
    pub(crate) rtt_active: bool,
    pub(crate) rtt_seq: i64,
    pub(crate) rtt_ts: SimTime,
    /// Retransmission timer deadline in ns-2's double seconds.
    pub(crate) rtx_at: Option<f64>,
    /// Delayed-ACK timer deadline in ns-2's double seconds.
    pub(crate) delack_at: Option<f64>,
    pub(crate) now: SimTime,
    pub(crate) now_s: f64,
    // counters
    pub(crate) ndatapack: u64,
    pub(crate) nrexmitpack: u64,
    pub(crate) nackpack: u64,
    pub(crate) nrexmit: u64,
    pub(crate) delivered: u64,
}

impl FullTcpAgent {
    fn new(p: TcpParams, active: bool, app: TcpApp, start: SimTime) -> Self {
        let f = p.full.expect("a FullTcp flow");
        let wnd = (p.max_window / p.mss.max(1) as u64) as f64;
        let rtt = RttEstimator::new(p.initial_rto, p.min_rto, p.max_rto, p.clock_granularity)
            .ns2(p.clock_phase)
            .rfc2988(p.ns2.rfc2988);
        let mut a = FullTcpAgent {
            maxburst: p.ns2.maxburst,
            ssthresh: initial_ssthresh(&p),
            wnd_init: p.iw as f64,
            p,
            f,
            active,
            app,
            start,
            started: false,
            state: State::Closed,
            last_state: State::Closed,
            flags: 0,
            iss: 0,
            t_seqno: 0,
            maxseq: -1,
            highest_ack: -1,
            curseq: 0,
            infinite_send: false,
            recover: 0,
            cwnd: 1.0,
            wnd,
            dupacks: 0,
            fastrecov: false,
            pipe: 0,
            last_cwnd_action: 0,
            first_decrease: true,
            cong_action: false,
            save_maxburst: -1,
            last_send_time: -1.0,
            rcv_nxt: -1,
            irs: -1,
            last_ack_sent: -1,
            rq: rq::ReassemblyQueue::default(),
            sq: rq::ReassemblyQueue::default(),
            sack_min: -1,
            h_seqno: -1,
            pipectrl: false,
            rtt,
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: SimTime::ZERO,
            rtx_at: None,
            delack_at: None,
            now: SimTime::ZERO,
            now_s: 0.0,
            ndatapack: 0,
            nrexmitpack: 0,
            nackpack: 0,
            nrexmit: 0,
            delivered: 0,
        };
        a.reset();
        if !active {
            // tcp-full.cc listen(): a state change only
            a.state = State::Listen;
        }
        a
    }

    /// The flow's source: opens the connection when its application starts.
    pub fn active(p: TcpParams, app: TcpApp, start: SimTime) -> Self {
        Self::new(p, true, app, start)
    }

    /// The flow's destination (`$sink listen`).
    pub fn listener(p: TcpParams) -> Self {
        Self::new(p, false, TcpApp::Bulk, SimTime::MAX)
    }

    /// tcp-full.cc `reset` (with tcp.cc TcpAgent::reset's part: the window starts at 1,
    /// `set_initial_window` with syn_ and delay_growth_; ssthresh_ = window_).
    pub(crate) fn reset(&mut self) {
        if self.is_sack() {
            self.sack_reset();
        }
        self.rtx_at = None;
        self.delack_at = None;
        self.dupacks = 0;
        self.curseq = 0;
        self.cwnd = if self.p.ns2.delay_growth {
            1.0
        } else {
            self.wnd_init
        };
        self.highest_ack = -1;
        self.ssthresh = initial_ssthresh(&self.p);
        self.recover = 0;
        self.last_cwnd_action = 0;
        self.first_decrease = true;
        self.rq.clear();
        self.last_ack_sent = -1;
        self.rcv_nxt = -1;
        self.pipe = 0;
        self.flags = 0;
        self.t_seqno = self.iss;
        self.maxseq = -1;
        self.irs = -1;
        self.last_send_time = -1.0;
        self.fastrecov = false;
        self.rtt_active = false;
        self.rtt_seq = -1;
    }

    pub(crate) fn maxseg(&self) -> i64 {
        self.p.mss as i64
    }

    /// tcp.cc `window()`: min(cwnd_, wnd_) in whole segments.
    pub(crate) fn window(&self) -> i64 {
        if self.cwnd < self.wnd {
            self.cwnd as i64
        } else {
            self.wnd as i64
        }
    }

    /// The application starts: ns-source.tcl's FTP `start` is `$agent send -1`
    /// (Agent `sendmsg` -1: `infinite_send_`), a transfer advances by its bytes
    /// (`advance_bytes`); in CLOSED that resets the agent and connects (`advance_bytes`).
    fn app_start(&mut self, cx: &mut EndpointCtx) {
        self.started = true;
        let nb = match &self.app {
            TcpApp::Transfer { bytes } => *bytes as i64,
            _ => {
                self.infinite_send = true;
                0
            }
        };
        if matches!(self.state, State::Closed | State::Listen) {
            self.reset();
            self.curseq = self.iss + nb;
            // connect()
            self.state = State::SynSent;
            let amt = self.foutput(self.iss, REASON_NORMAL, cx);
            self.sent(self.iss, amt);
        }
    }

    /// tcp-full.h `sent`.
    pub(crate) fn sent(&mut self, seq: i64, amt: i64) {
        // SackFullTcpAgent::sent first moves h_seqno_
        if self.is_sack() && seq == self.h_seqno {
            self.h_seqno += amt;
        }
        if seq == self.t_seqno {
            self.t_seqno += amt;
        }
        self.pipe += amt;
    }
}

fn initial_ssthresh(p: &TcpParams) -> i64 {
    let mss = p.mss.max(1) as u64;
    if p.initial_ssthresh == crate::tcp::config::UNLIMITED {
        i64::MAX / 4
    } else {
        (p.initial_ssthresh / mss) as i64
    }
}

impl Endpoint for FullTcpAgent {
    fn on_packet(&mut self, pkt: Packet, cx: &mut EndpointCtx) {
        self.now = cx.now;
        self.now_s = cx.now_s;
        self.recv(pkt, cx);
    }

    fn on_timeout(&mut self, cx: &mut EndpointCtx) {
        self.now = cx.now;
        self.now_s = cx.now_s;
        if self.active && !self.started && cx.now >= self.start {
            self.app_start(cx);
            return;
        }
        self.fire_timers(cx);
    }

    fn next_timeout(&self) -> Option<SimTime> {
        if self.active && !self.started {
            return (self.start < SimTime::MAX).then_some(self.start);
        }
        self.next_timeout_s().map(SimTime::from_secs_f64)
    }

    fn next_timeout_s(&self) -> Option<f64> {
        if self.active && !self.started {
            return (self.start < SimTime::MAX).then(|| self.start.as_secs_f64());
        }
        match (self.rtx_at, self.delack_at) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn retime(
        &mut self,
        _now: SimTime,
        _from: SimTime,
        start: Option<SimTime>,
        stop: Option<SimTime>,
    ) -> Result<(), String> {
        if start.is_some() {
            // the source's reset at its start draws its clock's phase from the default RNG
            // (tcp-full.cc advance_bytes): the translation draws it for a start before the run
            return Err(
                "a FullTcp source started by a proc during the run is not modelled; \
                        start it with $ns at T \"$ftp start\""
                    .into(),
            );
        }
        if stop.is_some_and(|t| t < SimTime::MAX) {
            return Err("stopping a FullTcp source's application is not modelled".into());
        }
        Ok(())
    }

    fn report(&self) -> Option<serde_json::Value> {
        Some(json!({
            "full_tcp": true,
            "data_packets": self.ndatapack,
            "retransmitted_packets": self.nrexmitpack,
            "ack_packets": self.nackpack,
            "timeouts": self.nrexmit,
            "delivered_bytes": self.delivered,
        }))
    }

    fn settings(&self) -> Option<serde_json::Value> {
        Some(self.p.to_json())
    }

    /// ns-2's variables of the agent (tcp.h, tcp-full.h), in its units: windows in
    /// segments, `ack_` the highest ACK in bytes, `t_seqno_` / `maxseq_` in bytes.
    fn probe(&self, var: &str) -> Option<f64> {
        Some(match var {
            "cwnd_" => self.cwnd,
            "ssthresh_" => self.ssthresh as f64,
            "ack_" | "highest_ack_" => self.highest_ack as f64,
            "t_seqno_" => self.t_seqno as f64,
            "maxseq_" => self.maxseq as f64,
            "dupacks_" => self.dupacks as f64,
            "window_" => self.wnd,
            "ndatapack_" => self.ndatapack as f64,
            "nrexmitpack_" => self.nrexmitpack as f64,
            "nackpack_" => self.nackpack as f64,
            "nrexmit_" => self.nrexmit as f64,
            v => return self.rtt.ns2_var(v),
        })
    }
}
