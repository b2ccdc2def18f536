//! D-SACK read by the sender (rule and option `dsack`), and the undo of a window reduction
//! found spurious (with RACK-TLP, Linux's recovery), as Linux runs them in the `linux` preset:
//! RFC 2883 (D-SACK),
//! RFC 3708 (detecting spurious retransmissions with D-SACK), RFC 8985 section 6.2 step 4
//! (the reordering window's growth) and `net/ipv4/tcp_input.c` (Linux 6.x).
//!
//! * A D-SACK is the ACK's first SACK block when it lies below the cumulative ACK or inside the
//!   second block (`tcp_check_dsack`, RFC 2883 section 4). It counts `ceil(len / mss)`
//!   duplicate segments (`tcp_dsack_seen`); once more duplicates were reported than segments
//!   were ever retransmitted it is dubious and ignored (`dsack_dups > total_retrans`).
//!   Reported for the tail loss probe (its end is `tlp_high_seq`), it tells that probe and
//!   original both arrived (`FLAG_DSACK_TLP`, `tcp_process_tlp_ack`: no reduction); otherwise,
//!   with reordering seen, it widens RACK's reordering window for a round (`tcp/rack.rs`).
//! * Undo state (`tcp_enter_recovery` -> `tcp_init_undo`): at the start of fast recovery
//!   `undo_marker` = SND.UNA, `undo_retrans` = the retransmissions in flight (or none, -1),
//!   `prior_cwnd` and `prior_ssthresh` = `tcp_current_ssthresh` (max(ssthresh, 3/4 cwnd)), 0
//!   when the ACK carried an ECN echo or a CWR round was running (congestion shown by ECN is
//!   never undone; `tcp_enter_cwr` clears the marker too). Every retransmission adds one to
//!   `undo_retrans` (`tcp_retransmit_skb`) and the first sets `retrans_stamp`; every D-SACK
//!   above the marker takes its duplicates off (`tcp_sacktag_one`, and for data already
//!   below SND.UNA `tcp_check_dsack`'s "dumb counting").
//! * Undo (`tcp_undo_cwnd_reduction`): cwnd = max(cwnd, prior_cwnd) (the controllers'
//!   `undo_cwnd`: `tcp_reno_undo_cwnd`, DCTCP's and Prague's `loss_cwnd`, the same value
//!   here), ssthresh = max(ssthresh, prior_ssthresh), the CWR flag withdrawn; not for a
//!   controller that owns its window (BBR: `bbr_undo_cwnd` leaves cwnd to the model). It comes
//!   - when the recovery ends and either every retransmission was D-SACKed or the ACK echoes a
//!     timestamp older than the first retransmission (`tcp_try_undo_recovery`,
//!     `tcp_may_undo`, `tcp_packet_delayed`: the original filled the hole, RFC 3522's Eifel
//!     test); else the window's D-SACK rounds count down (`reo_wnd_persist`);
//!   - on a partial ACK with such a timestamp and no retransmission in flight, with the lost
//!     marks forgotten and reordering noted (`tcp_try_undo_partial`); the recovery ends;
//!   - on any ACK, in recovery or after it, once D-SACKs have covered every retransmission
//!     (`tcp_try_undo_dsack`); in recovery, it ends.
//!
//! Timestamps compare at the clock's granularity (Linux's TS clock ticks in ms). Not modelled:
//! the undo after a timeout (`tcp_try_undo_loss`, with F-RTO, RFC 5682), a partial ACK with
//! retransmissions in flight holding back loss marking (`tcp_try_undo_partial` returning
//! true), the D-SACKed segments counted as delivered in the rate sample (`sack_delivered`),
//! and the check of the range against the largest window (`seq_len > max_window`; the
//! receivers here never report more than they hold).

use super::TcpSender;
use crate::packet::TcpHeader;
use crate::units::SimTime;

/// Linux's undo state and the D-SACK counters of one sender (inside `RackTlp`).
#[derive(Debug, Clone, Default)]
pub(super) struct Undo {
    /// `tp->undo_marker`: SND.UNA when the reduction began; None: nothing to undo.
    marker: Option<u64>,
    /// `tp->undo_retrans`: retransmissions not yet reported duplicate; None is Linux's -1.
    retrans: Option<u32>,
    /// `tp->retrans_stamp`: when the first retransmission since the marker left.
    retrans_stamp: Option<SimTime>,
    /// `tp->prior_ssthresh` (0: not to be undone) and `tp->prior_cwnd`.
    prior_ssthresh: f64,
    prior_cwnd: f64,
    /// The ACK being processed carries an ECN echo (`tcp_enter_recovery(sk, ece_ack)`).
    ece_ack: bool,
    /// `tp->total_retrans` and `tp->dsack_dups`, in segments.
    total_retrans: u64,
    dsack_dups: u64,
    /// D-SACKs taken (`LINUX_MIB_TCPDSACKRECV` + `TCPDSACKOFORECV` less the dubious ones).
    pub(super) dsacks: u64,
    /// Undos (`LINUX_MIB_TCPFULLUNDO`, `TCPPARTIALUNDO`, `TCPDSACKUNDO`).
    pub(super) full_undos: u64,
    pub(super) partial_undos: u64,
    pub(super) dsack_undos: u64,
}

/// What an ACK's D-SACK said.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Dsack {
    /// A D-SACK was taken (`FLAG_DSACKING_ACK`).
    pub(super) seen: bool,
    /// It reports the tail loss probe (`FLAG_DSACK_TLP`).
    pub(super) tlp: bool,
}

impl TcpSender {
    /// D-SACK is read (`dsack` with RACK-TLP).
    fn dsack_on(&self) -> bool {
        self.p.dsack && self.rack_on()
    }

    /// The start of an ACK (before its SACK blocks enter the scoreboard): reads its D-SACK
    /// (`tcp_check_dsack`, `tcp_dsack_seen`).
    pub(super) fn dsack_on_ack(&mut self, h: &TcpHeader) -> Dsack {
        if !self.dsack_on() {
            return Dsack::default();
        }
        let mss = self.mss().max(1);
        let tlp_high = self.tlp_high_seq();
        let mut blocks = h.sack_blocks();
        let Some(r) = self.rack.as_deref_mut() else {
            return Dsack::default();
        };
        let u = &mut r.undo;
        let Some((s0, e0)) = blocks.next() else {
            return Dsack::default();
        };
        let inside_second = blocks.next().is_some_and(|(s1, e1)| s1 <= s0 && e0 <= e1);
        if !(s0 < h.ack || inside_second) || e0 <= s0 {
            return Dsack::default();
        }
        let len = e0 - s0;
        let tlp = len <= mss && tlp_high == Some(e0);
        let dups = len.div_ceil(mss);
        u.dsack_dups += dups;
        if u.dsack_dups > u.total_retrans {
            return Dsack::default(); // dubious: more duplicates than retransmissions
        }
        u.dsacks += 1;
        if !tlp {
            r.rack.note_dsack();
        }
        if let (Some(m), Some(n)) = (u.marker, u.retrans.as_mut()) {
            if e0 > m {
                *n = n.saturating_sub(dups.min(u64::from(u32::MAX)) as u32);
            }
        }
        Dsack { seen: true, tlp }
    }

    /// Whether the ACK being processed carries an ECN echo (`tcp_enter_recovery`'s `ece_ack`).
    pub(super) fn undo_note_ece(&mut self, ece: bool) {
        if let Some(u) = self.undo_mut() {
            u.ece_ack = ece;
        }
    }

    /// A retransmission left (`tcp_retransmit_skb`: `undo_retrans`, `retrans_stamp`,
    /// `total_retrans`).
    pub(super) fn undo_note_retransmission(&mut self, now: SimTime) {
        if let Some(u) = self.undo_mut() {
            u.retrans = Some(u.retrans.unwrap_or(0) + 1);
            u.retrans_stamp.get_or_insert(now);
            u.total_retrans += 1;
        }
    }

    /// Fast recovery begins, before the reduction (`tcp_enter_recovery` -> `tcp_init_undo`,
    /// `prior_ssthresh`, `prior_cwnd`).
    pub(super) fn undo_enter_recovery(&mut self) {
        let in_cwr = self.snd_una <= self.ecn_recover;
        let (cwnd, ssthresh, una) = (self.w.cwnd, self.w.ssthresh, self.snd_una);
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        let in_flight = r.rack.retransmissions_in_flight() as u32;
        let u = &mut r.undo;
        u.marker = Some(una);
        u.retrans = (in_flight > 0).then_some(in_flight);
        u.retrans_stamp = None;
        u.prior_cwnd = cwnd;
        // tcp_current_ssthresh; none after an ECN echo or inside a CWR round
        u.prior_ssthresh = if u.ece_ack || in_cwr {
            0.0
        } else {
            ssthresh.max(0.75 * cwnd)
        };
    }

    /// An ECN reduction or a timeout: nothing before it is undone (`tcp_enter_cwr`; the undo
    /// after a timeout is not modelled).
    pub(super) fn undo_forget(&mut self) {
        if let Some(u) = self.undo_mut() {
            u.marker = None;
            u.prior_ssthresh = 0.0;
        }
    }

    /// After an ACK's recovery steps (`tcp_fastretrans_alert`): the undo tests in Linux's
    /// order. `was_in_recovery`: the ACK found the sender in recovery; `advanced`: it moved
    /// SND.UNA.
    pub(super) fn undo_after_ack(
        &mut self,
        h: &TcpHeader,
        was_in_recovery: bool,
        advanced: bool,
        dsack: Dsack,
    ) {
        if !self.rack_on() {
            return;
        }
        let delayed = self.packet_delayed(h.ts_echo);
        if was_in_recovery && !self.in_recovery {
            // tcp_try_undo_recovery at the full ACK
            if self.may_undo(delayed) {
                self.undo_reduction(false);
                if let Some(u) = self.undo_mut() {
                    u.full_undos += 1;
                }
            } else if let Some(r) = self.rack.as_deref_mut() {
                r.rack.recovery_ended();
            }
            return;
        }
        let marked = self.undo_mut().is_some_and(|u| u.marker.is_some());
        if self.in_recovery && advanced && marked && delayed {
            // tcp_try_undo_partial: the hole was filled by the original
            let in_flight = self.rack.as_deref_mut().is_some_and(|r| {
                r.rack.note_reordering();
                r.rack.retransmissions_in_flight()
            });
            if !in_flight {
                self.undo_reduction(true);
                if let Some(u) = self.undo_mut() {
                    u.partial_undos += 1;
                }
                self.undo_leave_recovery();
                return;
            }
        }
        let all_dsacked = self
            .undo_mut()
            .is_some_and(|u| u.marker.is_some() && u.retrans == Some(0));
        if dsack.seen && all_dsacked {
            // tcp_try_undo_dsack (in Recovery, and in Open / Disorder after it)
            self.undo_reduction(false);
            if let Some(r) = self.rack.as_deref_mut() {
                r.rack.dsack_undo();
                r.undo.dsack_undos += 1;
            }
            if self.in_recovery {
                self.undo_leave_recovery();
            }
        }
    }

    /// `tcp_may_undo`: every retransmission D-SACKed, or the original arrived first.
    fn may_undo(&mut self, delayed: bool) -> bool {
        self.undo_mut()
            .is_some_and(|u| u.marker.is_some() && (u.retrans == Some(0) || delayed))
    }

    /// `tcp_packet_delayed`: the ACK echoes a timestamp older than the first retransmission.
    fn packet_delayed(&self, ts_echo: SimTime) -> bool {
        let tick = self.p.clock_granularity.0.max(1);
        let stamp = self.rack.as_deref().and_then(|r| r.undo.retrans_stamp);
        self.p.timestamps
            && ts_echo > SimTime::ZERO
            && stamp.is_some_and(|t| ts_echo.0 / tick < t.0 / tick)
    }

    /// `tcp_undo_cwnd_reduction`.
    fn undo_reduction(&mut self, unmark_loss: bool) {
        let owns = self.owns_window;
        let Some(r) = self.rack.as_deref_mut() else {
            return;
        };
        if unmark_loss {
            r.rack.unmark_lost();
        }
        let u = &mut r.undo;
        if u.prior_ssthresh > 0.0 {
            if !owns {
                self.w.cwnd = self.w.cwnd.max(u.prior_cwnd);
            }
            if u.prior_ssthresh > self.w.ssthresh {
                self.w.ssthresh = u.prior_ssthresh;
                self.cwr_pending = false; // tcp_ecn_withdraw_cwr
            }
        }
        u.marker = None;
    }

    /// Recovery ends by an undo (`tcp_try_keep_open`): the window may grow again and a new
    /// loss may start a new recovery.
    fn undo_leave_recovery(&mut self) {
        self.in_recovery = false;
        self.recover = self.snd_una;
        self.start_reduction_round(self.snd_una);
    }

    fn undo_mut(&mut self) -> Option<&mut Undo> {
        self.rack.as_deref_mut().map(|r| &mut r.undo)
    }

    /// The sender's D-SACK and undo counters for its report (`tcp.rack`).
    pub(super) fn undo_report(&self) -> Option<serde_json::Value> {
        let r = self.rack.as_deref()?;
        let u = &r.undo;
        Some(serde_json::json!({
            "loss_probes": r.probes,
            "loss_probe_recoveries": r.probe_recoveries,
            "reo_wnd_steps": r.rack.reo_wnd_steps(),
            "dsacks_received": u.dsacks,
            "full_undos": u.full_undos,
            "partial_undos": u.partial_undos,
            "dsack_undos": u.dsack_undos,
        }))
    }
}
