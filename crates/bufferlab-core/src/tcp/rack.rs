//! RACK, time-based loss detection (RFC 8985 section 6), as Linux runs it
//! (`net/ipv4/tcp_recovery.c`, on by default since 4.18: `tcp_recovery` sysctl 1).
//!
//! The sender's segments are kept from their transmission until they are cumulatively
//! acknowledged or SACKed, each with its last transmission time. An ACK delivers some of them;
//! the most recently sent of those is `RACK.xmit_ts` / `RACK.end_seq` and its RTT `RACK.rtt`
//! (RFC 8985 section 6.2 step 2; Linux `tcp_rack_advance`). A segment sent before it and
//! still undelivered is lost once `xmit_ts + RACK.rtt + reo_wnd` has passed (step 5, Linux
//! `tcp_rack_detect_loss`); if that time is still ahead, the reordering timer is set for it.
//! The reordering window (step 4, Linux `tcp_rack_reo_wnd`) is `min(min_rtt / 4, srtt)`, or 0
//! when no reordering has been seen and the sender is in recovery or DupThresh segments are
//! SACKed, which gives back RFC 6675's duplicate-ACK threshold in the common case. Reordering
//! is seen when a segment never retransmitted is delivered below the highest one delivered
//! (`RACK.fack`; Linux `tcp_check_sack_reordering`).
//!
//! The window grows with D-SACKs (RFC 8985 section 6.2 step 4, Linux
//! `tcp_rack_update_reo_wnd`): a round trip in which a D-SACK reported a spurious
//! retransmission (with reordering seen, and not of a tail loss probe: Linux `tcp_dsack_seen`)
//! adds one `min_rtt / 4` step (at most 255), and 16 recoveries without one
//! (`TCP_RACK_RECOVERY_THRESH`, counted down by `tcp_try_undo_recovery`, up again by a D-SACK
//! undo) bring it back to one step. The round is RFC 8985's (`RACK.dsack_round`, until SND.UNA
//! passes the SND.NXT of the D-SACK); Linux measures it in delivered packets
//! (`rack.last_delivered`), about the same round trip.
//!
//! Not modelled: Linux's windowed min_rtt (`tcp_min_rtt_wlen` 300 s; here the minimum over the
//! connection).
//!
//! A lost segment is counted out of the pipe until it is retransmitted (Linux
//! `tcp_packets_in_flight`: packets out - SACKed - lost + retransmitted).

use crate::units::SimTime;
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seg {
    start: u64,
    end: u64,
    /// Last transmission.
    xmit: SimTime,
    /// Sent more than once.
    retx: bool,
    /// Marked lost and not retransmitted since.
    lost: bool,
}

/// RACK's state: the segments in flight and the RFC 8985 variables.
#[derive(Debug, Clone, Default)]
pub struct Rack {
    /// Segments sent, neither cumulatively acknowledged nor SACKed, in sequence order.
    segs: VecDeque<Seg>,
    /// RACK.xmit_ts and RACK.end_seq: the most recently sent segment delivered.
    last: Option<(SimTime, u64)>,
    /// RACK.rtt.
    rtt: SimTime,
    /// RACK.fack.
    fack: u64,
    /// RACK.reordering_seen.
    reordering_seen: bool,
    /// RACK.min_RTT.
    min_rtt: Option<SimTime>,
    /// The RTT of the highest segment the last ACK delivered that was sent once (Linux
    /// `tcp_clean_rtx_queue`'s `ca_rtt_us`, from `last_ackt` / `last_sackt`; TCP Prague's
    /// `prague_pkts_acked` reads it).
    ack_rtt: Option<SimTime>,
    /// The D-SACK rounds (`reo_wnd_steps`, `reo_wnd_persist`, `dsack_seen`, `dsack_round`).
    steps: ReoWndSteps,
}

/// RFC 8985 section 6.2 step 4's growth of the reordering window (Linux `tp->rack`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ReoWndSteps {
    /// `RACK.reo_wnd_mult` / `reo_wnd_steps`: 1 to 255.
    mult: u8,
    /// `RACK.reo_wnd_persist`: recoveries left before `mult` returns to 1.
    persist: u8,
    /// A D-SACK arrived that may come from reordering (`rack.dsack_seen`).
    dsack_seen: bool,
    /// `RACK.dsack_round`: the window grows once until SND.UNA passes it.
    round: Option<u64>,
}

impl Default for ReoWndSteps {
    fn default() -> Self {
        Self {
            mult: 1,
            persist: 0,
            dsack_seen: false,
            round: None,
        }
    }
}

/// Linux `TCP_RACK_RECOVERY_THRESH` (RFC 8985: "after 16 successive loss recoveries").
const RECOVERY_THRESH: u8 = 16;

/// RFC 8985 `RACK_sent_after(t1, seq1, t2, seq2)`.
fn sent_after(t1: SimTime, seq1: u64, t2: SimTime, seq2: u64) -> bool {
    t1 > t2 || (t1 == t2 && seq1 > seq2)
}

impl Rack {
    /// A data segment [start, end) leaves at `now`; `retx`: it was sent before.
    pub fn on_send(&mut self, start: u64, end: u64, now: SimTime, retx: bool) {
        if !retx && self.segs.back().is_none_or(|s| s.end <= start) {
            self.segs.push_back(Seg {
                start,
                end,
                xmit: now,
                retx,
                lost: false,
            });
            return;
        }
        let mut found = false;
        for s in self
            .segs
            .iter_mut()
            .filter(|s| s.start < end && start < s.end)
        {
            (s.xmit, s.retx, s.lost) = (now, true, false);
            found = true;
        }
        if !found {
            // a segment SACKed and forgotten, sent again (go-back-N after a timeout)
            let i = self.segs.partition_point(|s| s.start < start);
            self.segs.insert(
                i,
                Seg {
                    start,
                    end,
                    xmit: now,
                    retx: true,
                    lost: false,
                },
            );
        }
    }

    /// An ACK: everything below `snd_una` and what `sacked` says is delivered. Updates RACK's
    /// segment and RTT (RFC 8985 section 6.2 steps 1-3). Returns the bytes newly delivered.
    pub fn on_ack(&mut self, snd_una: u64, sacked: impl Fn(u64, u64) -> bool, now: SimTime) -> u64 {
        let fack_before = self.fack;
        let mut delivered = 0;
        self.ack_rtt = None;
        // in place: an ACK allocates nothing (tests/no_allocation.rs)
        let mut segs = std::mem::take(&mut self.segs);
        segs.retain(|s| {
            if !(s.end <= snd_una || sacked(s.start, s.end)) {
                return true;
            }
            delivered += s.end - s.start;
            if !s.retx && s.end < fack_before {
                self.reordering_seen = true;
            }
            self.fack = self.fack.max(s.end);
            let rtt = now.saturating_sub(s.xmit);
            if !s.retx {
                self.min_rtt = Some(self.min_rtt.map_or(rtt, |m| m.min(rtt)));
                self.ack_rtt = Some(rtt);
            }
            // step 2: an ACK that may be for the original transmission is no sample. Linux
            // (`tcp_rack_advance`) tests only RTT < min_rtt; RFC 8985 also a timestamp echo
            // older than the retransmission, which RFC 7323's TS.Recent (echoed from the left
            // edge) makes true for every SACK of a retransmission above a hole, so that test
            // is not made here.
            if s.retx && self.min_rtt.is_some_and(|m| rtt < m) {
                return false;
            }
            self.rtt = rtt;
            if self
                .last
                .is_none_or(|(t, e)| sent_after(s.xmit, s.end, t, e))
            {
                self.last = Some((s.xmit, s.end));
            }
            false
        });
        self.segs = segs;
        delivered
    }

    /// A D-SACK reported a spurious retransmission that reordering may explain (Linux
    /// `tcp_dsack_seen`: reordering seen, not a tail loss probe's).
    pub fn note_dsack(&mut self) {
        if self.reordering_seen {
            self.steps.dsack_seen = true;
        }
    }

    /// RFC 8985 section 6.2 step 4's update, once an ACK: a pending D-SACK outside the round
    /// of the last growth adds a step (Linux `tcp_rack_update_reo_wnd`).
    pub fn update_reo_wnd(&mut self, snd_una: u64, snd_nxt: u64) {
        let st = &mut self.steps;
        if st.round.is_some_and(|r| snd_una >= r) {
            st.round = None;
        }
        if st.dsack_seen && st.round.is_none() {
            st.mult = st.mult.saturating_add(1);
            st.round = Some(snd_nxt);
            st.persist = RECOVERY_THRESH;
        } else if st.persist == 0 {
            st.mult = 1;
        }
        st.dsack_seen = false;
    }

    /// A recovery ended without an undo (Linux `tcp_try_undo_recovery`: `reo_wnd_persist--`).
    pub fn recovery_ended(&mut self) {
        self.steps.persist = self.steps.persist.saturating_sub(1);
    }

    /// A D-SACK undid a recovery (Linux `tcp_try_undo_dsack`: `reo_wnd_persist + 1`, at most 16).
    pub fn dsack_undo(&mut self) {
        self.steps.persist = (self.steps.persist + 1).min(RECOVERY_THRESH);
    }

    /// The reordering window's multiplier (`reo_wnd_steps`).
    pub fn reo_wnd_steps(&self) -> u8 {
        self.steps.mult
    }

    /// A hole filled by the original, not the retransmission (Linux `tcp_try_undo_partial`
    /// -> `tcp_check_sack_reordering`).
    pub fn note_reordering(&mut self) {
        self.reordering_seen = true;
    }

    /// Retransmissions sent and neither delivered nor marked lost (Linux `retrans_out`).
    pub fn retransmissions_in_flight(&self) -> bool {
        self.segs.iter().any(|s| s.retx && !s.lost)
    }

    /// A retransmission timeout (Linux `tcp_timeout_mark_lost`): every segment not SACKed is
    /// lost but those sent within `RACK.rtt` of now (`tcp_rack_skb_timeout(tp, skb, 0)` > 0),
    /// the first always. Returns the bytes marked.
    pub fn mark_lost_at_timeout(&mut self, now: SimTime) -> u64 {
        let mut lost = 0;
        for (i, s) in self.segs.iter_mut().enumerate() {
            let recent = s.xmit + self.rtt > now;
            if !s.lost && (i == 0 || !recent) {
                s.lost = true;
                lost += s.end - s.start;
            }
        }
        lost
    }

    /// Forgets the lost marks (Linux `tcp_undo_cwnd_reduction` with `unmark_loss`).
    pub fn unmark_lost(&mut self) {
        for s in self.segs.iter_mut() {
            s.lost = false;
        }
    }

    /// RFC 8985 section 6.2 step 4 (Linux `tcp_rack_reo_wnd`): `min(reo_wnd_steps x min_rtt
    /// / 4, srtt)`, or 0 before any reordering in recovery or with DupThresh segments SACKed.
    pub fn reo_wnd(
        &self,
        in_recovery: bool,
        sacked_segments: u64,
        dupthresh: u32,
        srtt: SimTime,
    ) -> SimTime {
        if !self.reordering_seen && (in_recovery || sacked_segments >= dupthresh as u64) {
            return SimTime::ZERO;
        }
        let quarter = self.min_rtt.map_or(SimTime::ZERO, |m| SimTime(m.0 / 4));
        SimTime(quarter.0 * u64::from(self.steps.mult)).min(srtt)
    }

    /// RFC 8985 section 6.2 step 5 (Linux `tcp_rack_detect_loss`): marks lost every segment
    /// sent before RACK's whose time is up. Returns the bytes newly marked lost and, if some
    /// segment's time is still ahead, the latest such time (the reordering timer's).
    pub fn detect_loss(&mut self, now: SimTime, reo_wnd: SimTime) -> (u64, Option<SimTime>) {
        let Some((xmit, end)) = self.last else {
            return (0, None);
        };
        let (mut lost, mut timer) = (0, None::<SimTime>);
        for s in self.segs.iter_mut().filter(|s| !s.lost) {
            if !sent_after(xmit, end, s.xmit, s.end) {
                continue;
            }
            let due = s.xmit + self.rtt + reo_wnd;
            if due <= now {
                s.lost = true;
                lost += s.end - s.start;
            } else {
                timer = Some(timer.map_or(due, |t| t.max(due)));
            }
        }
        (lost, timer)
    }

    /// Bytes in flight: sent, not delivered, not marked lost (a retransmission counts).
    pub fn pipe(&self) -> u64 {
        self.segs
            .iter()
            .filter(|s| !s.lost)
            .map(|s| s.end - s.start)
            .sum()
    }

    /// The first segment marked lost and not retransmitted since.
    pub fn next_lost(&self) -> Option<(u64, u64)> {
        self.segs
            .iter()
            .find(|s| s.lost)
            .map(|s| (s.start, s.end - s.start))
    }

    pub fn any_lost(&self) -> bool {
        self.segs.iter().any(|s| s.lost)
    }

    /// Whether the segment starting at `seq` is marked lost.
    pub fn is_lost(&self, seq: u64) -> bool {
        self.segs.iter().any(|s| s.start == seq && s.lost)
    }

    /// The RTT of the highest once-sent segment the last ACK delivered (Linux `ca_rtt_us`).
    pub fn ack_rtt(&self) -> Option<SimTime> {
        self.ack_rtt
    }

    pub fn min_rtt(&self) -> Option<SimTime> {
        self.min_rtt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    /// Ten 100-byte segments sent 1 ms apart from t = 0, RTT 50 ms.
    fn ten() -> Rack {
        let mut r = Rack::default();
        for i in 0..10 {
            r.on_send(i * 100, (i + 1) * 100, ms(i), false);
        }
        r
    }

    #[test]
    fn a_segment_is_lost_after_rtt_plus_the_window_once_a_later_one_is_delivered() {
        let mut r = ten();
        // segment 0 lost; segment 1 delivered at 51 ms (SACKed)
        let d = r.on_ack(0, |a, _| a == 100, ms(51));
        assert_eq!(d, 100);
        // one segment SACKed, no reordering seen: reo_wnd = min_rtt / 4 = 12.5 ms
        let w = r.reo_wnd(false, 1, 3, ms(50));
        assert_eq!(w, SimTime::from_micros(12_500));
        // segment 0 is due at 0 + 50 + 12.5 ms: not yet lost, timer set for then
        assert_eq!(
            r.detect_loss(ms(51), w),
            (0, Some(SimTime::from_micros(62_500)))
        );
        assert_eq!(r.detect_loss(SimTime::from_micros(62_500), w), (100, None));
        assert_eq!(r.next_lost(), Some((0, 100)));
        assert_eq!(r.pipe(), 800);
    }

    #[test]
    fn with_dupthresh_segments_sacked_the_window_closes() {
        let mut r = ten();
        let d = r.on_ack(0, |a, _| (100..400).contains(&a), ms(53));
        assert_eq!(d, 300);
        assert_eq!(r.reo_wnd(false, 3, 3, ms(50)), SimTime::ZERO);
        // segment 0 sent 3 ms before segment 3: lost at once
        assert_eq!(r.detect_loss(ms(53), SimTime::ZERO), (100, None));
    }

    #[test]
    fn a_lost_retransmission_is_detected_by_time() {
        let mut r = ten();
        r.on_ack(0, |a, _| (100..400).contains(&a), ms(53));
        r.detect_loss(ms(53), SimTime::ZERO);
        // segment 0 retransmitted at 53 ms (lost again), new segment 10 at 54 ms
        r.on_send(0, 100, ms(53), true);
        r.on_send(1000, 1100, ms(54), false);
        assert!(!r.any_lost());
        // segment 10 SACKed at 104 ms: RACK's segment is sent after the retransmission
        r.on_ack(0, |a, _| a >= 100, ms(104));
        let w = r.reo_wnd(true, 10, 3, ms(50));
        assert_eq!(w, SimTime::ZERO, "in recovery without reordering");
        assert_eq!(r.detect_loss(ms(104), w), (100, None));
        assert_eq!(r.next_lost(), Some((0, 100)), "the retransmission, again");
    }

    #[test]
    fn reordering_within_the_window_is_not_loss() {
        let mut r = ten();
        // segment 1 arrives 1 ms before segment 0 (reordered, not lost)
        r.on_ack(0, |a, _| a == 100, ms(51));
        let w = r.reo_wnd(false, 1, 3, ms(50));
        assert_eq!(r.detect_loss(ms(51), w).0, 0, "0 is due at 62.5 ms");
        // segment 0 arrives at 52 ms: delivered below RACK.fack without a retransmission
        r.on_ack(200, |_, _| false, ms(52));
        assert!(!r.any_lost());
        assert!(r.reordering_seen);
        // from now on the window stays open even with DupThresh segments SACKed and in
        // recovery: 2 ACKed, 4 to 6 SACKed at 55 ms (min_rtt now 49 ms, segment 6's), 3 due
        // at 3 + 49 + 12.25 ms
        r.on_ack(300, |a, _| (400..700).contains(&a), ms(55));
        let w = r.reo_wnd(true, 3, 3, ms(50));
        assert_eq!(w, SimTime::from_micros(12_250));
        assert_eq!(
            r.detect_loss(ms(55), w),
            (0, Some(SimTime::from_micros(64_250)))
        );
    }

    #[test]
    fn an_ack_too_early_for_a_retransmission_is_no_sample() {
        // RFC 8985 section 6.2 step 2, Linux tcp_rack_advance: RTT < min_rtt
        let mut r = ten();
        r.on_send(0, 100, ms(60), true);
        // the original's ACK arrives 5 ms after the retransmission: shorter than min_rtt
        r.on_ack(0, |a, _| a == 100, ms(51));
        let last = r.last;
        r.on_ack(100, |_, _| false, ms(65));
        assert_eq!(r.last, last, "RACK ignored the ambiguous ACK");
    }
}
