//! Congestion control behind one trait. The sender owns loss detection and recovery
//! (fast retransmit, fast recovery, the RFC 6675 pipe); an algorithm decides how the window
//! grows on new ACKs, how far it falls on a congestion signal and which recovery style it uses.
//! Windows are in bytes (f64), like ns-2's `cwnd_` in packets scaled by the MSS.

pub mod bbr;
pub mod cubic;
pub mod dctcp;
pub mod hystart;
pub mod hystart_pp;
pub mod linux_reno;
pub mod newreno;
pub mod ns3_newreno;
pub mod prague;
pub mod prague_classic_ecn;
pub mod prague_rate;
pub mod reno;
pub mod tahoe;
pub mod vegas;

use super::config::{CcKind, TcpParams};
pub use super::rate::RateSample;
use crate::packet::Ecn;
use crate::units::SimTime;

/// How losses signalled by duplicate ACKs are recovered (without SACK).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Fast retransmit, then slow start from one segment (Tahoe).
    None,
    /// RFC 5681 section 3.2 fast recovery, left at the first new ACK.
    Reno,
    /// RFC 6582: stay in fast recovery until the whole window is acknowledged.
    NewReno,
}

/// How a controller reads ECN feedback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EcnFeedback {
    /// RFC 3168: an ECE is a congestion event like a loss; ACKs carrying ECE do not grow the
    /// window; the receiver latches ECE until CWR (section 6.1.3).
    Classic,
    /// RFC 8257 (DCTCP) and RFC 9331 (L4S): the extent of marking. Every ACK of new data goes
    /// to `on_ecn_ack` with its CE-marked bytes, ACKs with ECE grow the window as any other (Linux
    /// `tcp_may_raise_cwnd`) outside the round trip after a reduction unless `grows_during_cwr`,
    /// the reduction once per window is `ssthresh_on_ecn`, and the
    /// receiver echoes each segment's CE state (RFC 8257 section 3.2).
    Extent,
}

/// The window variables an algorithm changes.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// Congestion window in bytes.
    pub cwnd: f64,
    /// Slow-start threshold in bytes.
    pub ssthresh: f64,
    /// Sender maximum segment size in bytes.
    pub mss: f64,
}

impl Window {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What the sender knows when a cumulative ACK acknowledges new data.
#[derive(Debug, Clone, Copy)]
pub struct Ack {
    pub now: SimTime,
    /// Newly acknowledged bytes.
    pub acked: u64,
    /// Bytes outstanding before this ACK.
    pub flight_before: u64,
    /// snd_una after the ACK and snd_nxt (next new byte to send).
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// The next byte the sender will send: below `snd_nxt` after a go-back-N timeout until
    /// the resent data catches up (ns-2 `t_seqno_`).
    pub next_to_send: u64,
    /// The ACK's time in seconds on the clock the sender's rules count in: ns-2 Vegas's
    /// `vegastime()` (since its first send, in ns-2's doubles) under its rules, else the
    /// engine's (`EndpointCtx::now_s`).
    pub clock_s: f64,
    /// Fine-grained RTT of the acknowledged data (timestamp echo), if valid.
    pub rtt: Option<SimTime>,
    /// The RTT of the highest segment sent once that this ACK delivered, from the sender's
    /// own send times where it keeps them (RACK's segment list; Linux `ca_rtt_us`): unlike
    /// the echo it leaves out the time the receiver held the ACK for a second segment.
    pub ack_rtt: Option<SimTime>,
}

pub trait CongestionControl {
    fn name(&self) -> &'static str;
    /// The recovery style used when SACK is off.
    fn recovery(&self) -> Recovery;
    /// New data acknowledged outside loss recovery: grow (or shrink) the window.
    fn on_ack(&mut self, w: &mut Window, a: &Ack);
    /// Congestion signalled by duplicate ACKs or ECN: the new ssthresh in bytes. The sender
    /// then sets cwnd for its recovery style.
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, now: SimTime) -> f64;
    /// Leaving fast recovery (RFC 5681 section 3.2 step 6: deflate to ssthresh).
    fn on_recovery_exit(&mut self, w: &mut Window, _now: SimTime) {
        w.cwnd = w.ssthresh;
    }
    /// Retransmission timeout (RFC 5681 section 3.1 equation 4; cwnd to the loss window).
    fn on_timeout(&mut self, w: &mut Window, flight: u64, _now: SimTime) {
        w.ssthresh = (flight as f64 / 2.0).max(2.0 * w.mss);
        w.cwnd = w.mss;
    }
    /// How the controller reads ECN (only asked when the flow has `ecn` on).
    fn ecn_feedback(&self) -> EcnFeedback {
        EcnFeedback::Classic
    }
    /// The ECT codepoint of data segments: ECT(0) (RFC 3168 section 6.1.1), ECT(1) for an
    /// L4S sender (RFC 9331 section 4.1).
    fn ect(&self) -> Ecn {
        Ecn::Ect0
    }
    /// `EcnFeedback::Extent`: new data acknowledged (`acked` bytes), `marked` of them
    /// CE-marked: all of them when the ACK carried ECE (classic feedback), none without; with
    /// AccECN (`tcp/accecn.rs`) the ACK's newly CE-marked packets times the MSS (Linux's
    /// `delivered_ce` increment). Called before the window grows and before any reduction on
    /// this ACK.
    fn on_ecn_ack(&mut self, _w: &Window, _acked: u64, _marked: u64, _a: &Ack) {}
    /// `EcnFeedback::Extent`: the window grows during the round trip after an ECN reduction
    /// (Linux CWR state). DCTCP: no (`tcp_cong_control` only reduces in CWR); Prague: yes
    /// (its `cong_control` updates cwnd on every ACK).
    fn grows_during_cwr(&self) -> bool {
        false
    }
    /// The ssthresh after an ECN echo (once per window); by default as after a loss.
    fn ssthresh_on_ecn(&mut self, w: &Window, flight: u64, now: SimTime) -> f64 {
        self.ssthresh_on_loss(w, flight, now)
    }
    /// ns-2's Vegas agent: the RTT sample of a new ACK from the agent's own send-time table,
    /// in seconds of its clock (None: the packet was sent more than once), after the ACK's
    /// rules (tcp-vegas.cc recv).
    fn ns2_vegas_rtt_sample(&mut self, _rtt: Option<f64>) {}
    /// Algorithm-specific state for the report.
    fn report(&self) -> Option<serde_json::Value> {
        None
    }

    // ---- controllers that own cwnd and the pacing rate (BBR; ns-3 `HasCongControl`) ----

    /// True: the sender estimates delivery rates (`tcp/rate.rs`), paces at
    /// [`Self::pacing_rate`], hands every ACK's [`RateSample`] to [`Self::on_rate_sample`]
    /// and leaves cwnd to the controller in recovery (no PRR, no inflation by duplicates).
    fn owns_window(&self) -> bool {
        false
    }
    /// Every ACK (new, duplicate or SACK), after loss recovery has processed it
    /// (ns-3 `TcpCongestionOps::CongControl`, Linux `cong_control`).
    fn on_rate_sample(&mut self, _w: &mut Window, _rs: &RateSample, _c: &Conn) {}
    /// Fast recovery begins (ns-3 `CongestionStateSet(CA_RECOVERY)`), after
    /// [`Self::ssthresh_on_loss`].
    fn on_enter_recovery(&mut self, _w: &mut Window, _c: &Conn) {}
    /// The controller's own pacing rate in payload bytes per second, if it sets one.
    fn pacing_rate(&self) -> Option<f64> {
        None
    }
}

/// The connection as a window-owning controller sees it on an ACK (ns-3 `TcpSocketState`).
#[derive(Debug, Clone, Copy)]
pub struct Conn {
    pub now: SimTime,
    /// Bytes in flight after the ACK (the sender's pipe).
    pub in_flight: u64,
    /// Total bytes delivered (ns-3 `TcpRateConnection::m_delivered`).
    pub delivered: u64,
    /// Smallest RTT the connection has seen (ns-3 `m_minRtt`), and the latest (`m_lastRtt`).
    pub min_rtt: Option<SimTime>,
    pub last_rtt: Option<SimTime>,
    /// Initial window in bytes.
    pub iw_bytes: f64,
}

/// The algorithm chosen by `p.cc`, its initial slow start HyStart++'s with `slow_start =
/// "hystart++"` (`hystart_pp.rs`).
pub fn build(p: &TcpParams) -> Box<dyn CongestionControl> {
    let cc = build_controller(p);
    if p.slow_start == Some(super::config::SlowStart::HystartPp) {
        return Box::new(hystart_pp::WithHystartPp::new(cc, p.paced()));
    }
    cc
}

fn build_controller(p: &TcpParams) -> Box<dyn CongestionControl> {
    match p.cc {
        CcKind::Tahoe => Box::new(tahoe::Tahoe),
        CcKind::Reno if p.rules().segment_counting_newreno => {
            Box::new(ns3_newreno::Ns3NewReno::new("reno", Recovery::Reno))
        }
        CcKind::Newreno if p.rules().segment_counting_newreno => {
            Box::new(ns3_newreno::Ns3NewReno::new("newreno", Recovery::NewReno))
        }
        CcKind::Reno => Box::new(reno::Reno),
        CcKind::Newreno => Box::new(newreno::NewReno),
        CcKind::LinuxReno => Box::new(linux_reno::LinuxReno::new(
            p.rules().linux_reno_keeps_ack_count,
        )),
        CcKind::Vegas => {
            let v = vegas::Vegas::new(p.vegas_alpha, p.vegas_beta, p.vegas_gamma);
            Box::new(if p.rules().vegas_as_ns2_agent {
                v.ns2(p.iw as f64)
            } else {
                v
            })
        }
        CcKind::Python => {
            unreachable!("Python controllers are built by the scenario builder through Extensions")
        }
        CcKind::Dctcp => Box::new(
            dctcp::Dctcp::new(
                p.dctcp_g,
                p.dctcp_alpha_init,
                p.rules().dctcp_loss_uses_alpha,
                p.rules().linux_reno_keeps_ack_count,
            )
            .with_floor(p.rules().dctcp_two_segment_floor),
        ),
        CcKind::Bbr => Box::new(bbr::Bbr::new(p, crate::rng::stream(0, "bbr"))),
        CcKind::Bbr3 => Box::new(bbr::v3::Bbr3::new(p, crate::rng::stream(0, "bbr3"))),
        CcKind::Prague => Box::new(prague::Prague::with_cwnd_mode(
            p.dctcp_g,
            p.dctcp_alpha_init,
            p.prague_rtt_target,
            p.prague_ecn_fallback,
            p.prague_cwnd_mode,
        )),
        CcKind::Cubic => Box::new(
            cubic::Cubic::new(p.cubic_c, p.cubic_beta, p.cubic_fast_convergence).with_rules(
                p.rules().cubic_as_ns3_tcp_cubic,
                hystart_pp::cubic_hystart(p),
            ),
        ),
    }
}

/// Windows and ACKs for the controllers' unit tests (MSS 1000 bytes).
#[cfg(test)]
pub(crate) mod testing {
    use super::{Ack, Window};
    use crate::units::SimTime;

    /// A window of `cwnd_segs` and `ssthresh_segs` segments of 1000 bytes.
    pub fn window(cwnd_segs: f64, ssthresh_segs: f64) -> Window {
        Window {
            cwnd: cwnd_segs * 1000.0,
            ssthresh: ssthresh_segs * 1000.0,
            mss: 1000.0,
        }
    }

    /// An ACK of `bytes` new bytes.
    pub fn ack(bytes: u64) -> Ack {
        Ack {
            now: SimTime::ZERO,
            acked: bytes,
            flight_before: 0,
            snd_una: 0,
            snd_nxt: 0,
            next_to_send: 0,
            clock_s: 0.0,
            rtt: None,
            ack_rtt: None,
        }
    }
}
