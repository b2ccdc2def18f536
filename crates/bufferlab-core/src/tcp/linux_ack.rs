//! When a Linux receiver acknowledges: quick-ACK mode, the adaptive delayed-ACK timeout and
//! SACK compression (flavour rule `linux_ack_policy`, the `linux` preset). Linux 6.x:
//!
//! * `tcp_input.c` `tcp_event_data_recv`, for every in-order data segment: the first one
//!   enters quick-ACK mode (`tcp_incr_quickack(sk, TCP_MAX_QUICKACKS)`: as many immediate
//!   ACKs as `rcv_wnd / (2 rcv_mss)`, at least 2, at most 16) and sets `ato` to
//!   `TCP_ATO_MIN` (40 ms). Later, with `m` the time since the last one: `m <= 20 ms` makes
//!   `ato = ato / 2 + 20 ms`; `m < ato` makes `ato = ato / 2 + m` (at most the RTO); a gap
//!   longer than the RTO ("the sender failed to restart window") enters quick-ACK mode again.
//! * `tcp_input.c` `__tcp_ecn_check_ce` (ECN negotiated): a CE segment while no CWR is
//!   awaited enters quick-ACK mode for 2 ACKs ("sender can have a very low cwnd") and awaits
//!   CWR; a not-ECT segment after ECT ones (a retransmission) enters it for 2 too. For
//!   DCTCP-like controllers (`tcp_dctcp.h` `dctcp_ece_ack_update`) the CE state's change sends
//!   the held ACK and the segment's own at once (`ICSK_ACK_NOW`), and CWR is awaited exactly
//!   while the state is CE, so no quick-ACK mode.
//! * `tcp_input.c` `tcp_ecn_accept_cwr` (in `tcp_ack`, classic ECN): a data segment with CWR
//!   is acknowledged at once and ends the wait for CWR.
//! * `tcp_input.c` `tcp_data_queue`: a segment entirely below RCV.NXT ("a retransmit, 2nd
//!   most common case") enters quick-ACK mode with up to 16 ACKs (`out_of_window`).
//! * `tcp_input.c` `__tcp_ack_snd_check`: more than one full segment unacknowledged, quick-ACK
//!   mode or `ICSK_ACK_NOW` send the ACK now; an in-order segment otherwise gets a delayed
//!   ACK; an out-of-order one with SACK is compressed: the first 3 ACKs for one RCV.NXT go at
//!   once (`TCP_FASTRETRANS_THRESH`), later ones wait `min(tcp_comp_sack_delay_ns = 1 ms,
//!   RTT / 20)` or until 44 are held (`tcp_comp_sack_nr`), and one ACK answers them all;
//!   `tcp_sack_new_ofo_skb` sends the held ACK early when a new block finds the receiver's table
//!   of 4 SACK blocks full and more than 3 ACKs are held, before the oldest block is forgotten.
//! * `tcp_output.c` `tcp_send_delayed_ack`: the timeout is `ato`, which above 40 ms is bounded
//!   by `max(srtt, 40 ms)` and 500 ms (`HZ / 2`), and always by `tcp_delack_max` (200 ms,
//!   less one jiffy below the minimum RTO); a pending timer due within `ato / 4` sends the
//!   ACK now, and a later deadline never replaces an earlier one.
//! * `tcp_timer.c` `tcp_delack_timer_handler`: a delayed ACK that had to wait for its timer
//!   doubles `ato` (at most the RTO).
//! * `include/net/tcp.h` `tcp_dec_quickack_mode` (6.6+): every ACK of new data uses one of the
//!   quick ACKs; the last one brings `ato` back to 40 ms.
//! * `tcp_input.c` `tcp_measure_rcv_mss` and `tcp_cleanup_rbuf`: a segment shorter than
//!   `rcv_mss` (the end of an application's write) is "pushed", and once the application has
//!   read it, with nothing held out of order, its ACK goes at once.
//!
//! The receiver's RTT and RTO come from the handshake, as a Linux passive opener's
//! (`tcp_synack_rtt_meas` -> `tcp_rtt_estimator`: RTO = RTT + max(2 RTT, `tcp_rto_min`)); its
//! RTT is never measured again (it sends no data). Not modelled: receive-window growth
//! (`tcp_grow_window` also sets one quick ACK while `rcv_ssthresh` grows, which needs the
//! receive-buffer autotuning of `tcp_rcv_space_adjust`; the advertised window here is the
//! whole buffer from the start), the PSH flag (this sender sets none), D-SACK and
//! interactive (ping-pong) mode, which one-way transfers never enter.

use crate::packet::Ecn;
use crate::units::SimTime;

/// `TCP_MAX_QUICKACKS` (include/net/tcp.h).
const MAX_QUICKACKS: u8 = 16;
/// `TCP_ATO_MIN` = `TCP_DELACK_MIN` = HZ / 25.
const ATO_MIN: SimTime = SimTime::from_millis(40);
/// `HZ / 2`: the bound of an inflated `ato` (with the RTT's, when one is known).
const ATO_MAX: SimTime = SimTime::from_millis(500);
/// `TCP_DELACK_MAX` = HZ / 5 (`icsk_delack_max`).
const DELACK_MAX: SimTime = SimTime::from_millis(200);
/// One jiffy at HZ = 1000.
const JIFFY: SimTime = SimTime::from_millis(1);
/// `TCP_MSS_DEFAULT` and `TCP_MIN_MSS` (include/net/tcp.h), the TCP header without and with
/// the timestamp option (`tcp_header_len`).
const TCP_MSS_DEFAULT: u32 = 536;
const TCP_MIN_MSS: u32 = 88;
const TCP_HEADER: u32 = 20;
const TCP_HEADER_TS: u32 = 32;
/// `TCP_FASTRETRANS_THRESH`: immediate duplicate ACKs before compression.
const DUPACKS_AT_ONCE: u8 = 3;
/// sysctl `tcp_comp_sack_nr` (default 44) and `tcp_comp_sack_delay_ns` (1 ms).
const COMP_SACK_NR: u8 = 44;
const COMP_SACK_DELAY: SimTime = SimTime::from_millis(1);

/// What an in-order data segment asks of its ACK.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// `ICSK_ACK_NOW`: at once (a DCTCP-like receiver's CE change).
    pub ack_now: bool,
    /// `ICSK_ACK_PUSHED`: at once when the application has read it all and nothing waits out
    /// of order (`tcp_cleanup_rbuf`: the application here reads in-order data as it comes).
    pub pushed: bool,
}

/// What the receiver does with the ACK of a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AckNow {
    /// Send it now.
    Yes,
    /// Hold it until this time (the delayed-ACK or the compression timer).
    At(SimTime),
    /// Hold it; a timer already runs.
    Held,
}

/// The receiver's delayed-ACK engine (`icsk_ack` and the SACK compression state).
#[derive(Debug, Clone)]
pub struct LinuxAck {
    /// Immediate ACKs left (`icsk_ack.quick`).
    quick: u8,
    /// The delayed-ACK timeout estimate; zero before the first data segment.
    ato: SimTime,
    /// When the last in-order data segment arrived (`lrcvtime`).
    last_data: SimTime,
    /// The handshake's RTT and the RTO it gives.
    srtt: Option<SimTime>,
    rto: SimTime,
    /// `TCP_ECN_DEMAND_CWR` and `TCP_ECN_SEEN`.
    demand_cwr: bool,
    ecn_seen: bool,
    /// SACK compression: RCV.NXT of the duplicates counted, how many went at once and how
    /// many are held.
    dup_rcv_nxt: u64,
    dupacks: u8,
    compressed: u8,
    /// The compression timer.
    pub comp_at: Option<SimTime>,
    /// When the SYN-ACK was first sent, and whether it was sent again (Karn).
    synack_at: Option<SimTime>,
    synack_again: bool,
    min_rto: SimTime,
    max_rto: SimTime,
    /// `icsk_ack.rcv_mss` and `last_seg_size` (`tcp_measure_rcv_mss`), and the sender's MSS
    /// (`advmss`).
    rcv_mss: u32,
    last_seg: u32,
    advmss: u32,
}

impl LinuxAck {
    pub fn new(initial_rto: SimTime, min_rto: SimTime, max_rto: SimTime, mss: u32) -> Self {
        Self {
            quick: 0,
            ato: SimTime::ZERO,
            last_data: SimTime::ZERO,
            srtt: None,
            rto: initial_rto,
            demand_cwr: false,
            ecn_seen: false,
            dup_rcv_nxt: 0,
            dupacks: 0,
            compressed: 0,
            comp_at: None,
            synack_at: None,
            synack_again: false,
            min_rto,
            max_rto,
            // tcp_initialize_rcv_mss: min(advmss, TCP_MSS_DEFAULT 536), at least TCP_MIN_MSS 88
            rcv_mss: mss.clamp(TCP_MIN_MSS, TCP_MSS_DEFAULT),
            last_seg: 0,
            advmss: mss,
        }
    }

    /// `tcp_measure_rcv_mss` for a data segment of `len` bytes: whether it is "pushed"
    /// (`ICSK_ACK_PUSHED`: shorter than the segments seen, as the end of an application's
    /// write is). A segment of at least `rcv_mss` sets it to its length (at most the MSS); a
    /// shorter one of at least 524 bytes (556 with the 32-byte TCP header) that repeats the
    /// last such length becomes the new `rcv_mss` and is not pushed; any other is. (Linux
    /// exempts a 108-555-byte segment without PSH from the push too: the sender here marks no
    /// PSH, so every short segment is taken as an application write's end, which it is for
    /// this sender.)
    fn measure(&mut self, len: u32) -> bool {
        let lss = std::mem::replace(&mut self.last_seg, 0);
        if len >= self.rcv_mss {
            self.rcv_mss = len.min(self.advmss);
            return false;
        }
        if len + TCP_HEADER_TS >= TCP_MSS_DEFAULT + TCP_HEADER {
            self.last_seg = len;
            if len == lss {
                self.rcv_mss = len;
                return false;
            }
        }
        true
    }

    /// A SYN-ACK went out at `now`.
    pub fn on_synack_sent(&mut self, now: SimTime) {
        if self.synack_at.is_some() {
            self.synack_again = true;
        } else {
            self.synack_at = Some(now);
        }
    }

    /// A segment that acknowledges the SYN-ACK arrived at `now` (the handshake's last one, or
    /// data when it was lost): the RTT sample of a passive opener, from the SYN-ACK's time,
    /// or from the echoed timestamp (`echo`, zero when none) when it was sent again.
    pub fn on_handshake_ack(&mut self, now: SimTime, echo: SimTime) {
        if self.srtt.is_some() {
            return;
        }
        let sent = match self.synack_at {
            Some(t) if !self.synack_again => t,
            Some(_) if echo > SimTime::ZERO => echo,
            _ => return,
        };
        let m = now.saturating_sub(sent);
        self.srtt = Some(m);
        // tcp_rtt_estimator's first sample: mdev = 2m, rttvar = max(mdev, rto_min)
        let var = SimTime(m.0.saturating_mul(2)).max(self.min_rto);
        self.rto = (m + var).min(self.max_rto);
    }

    fn incr_quickack(&mut self, rcv_wnd: u64, rcv_mss: u32, max: u8) {
        let q = rcv_wnd / (2 * u64::from(rcv_mss.max(1)));
        let q = if q == 0 {
            2
        } else {
            q.min(u64::from(max)) as u8
        };
        self.quick = self.quick.max(q);
    }

    fn enter_quickack(&mut self, rcv_wnd: u64, rcv_mss: u32, max: u8) {
        self.incr_quickack(rcv_wnd, rcv_mss, max);
        self.ato = ATO_MIN;
    }

    /// `tcp_event_data_recv` and `tcp_ecn_check_ce` for an in-order data segment. `ecn`:
    /// ECN was negotiated; `ce_state`: a DCTCP-like receiver (the held ACK is its caller's).
    /// Returns whether the segment's ACK must go at once (`ICSK_ACK_NOW`).
    #[allow(clippy::too_many_arguments)]
    pub fn on_data(
        &mut self,
        now: SimTime,
        rcv_wnd: u64,
        len: u32,
        codepoint: Option<Ecn>,
        ce_state: bool,
        ce_changed: bool,
    ) -> Segment {
        let pushed = self.measure(len);
        let rcv_mss = self.rcv_mss;
        if self.ato == SimTime::ZERO {
            // the first data segment: the initial window, at most 64 KB unscaled
            self.incr_quickack(rcv_wnd.min(65_535), rcv_mss, MAX_QUICKACKS);
            self.ato = ATO_MIN;
        } else {
            let m = now.saturating_sub(self.last_data);
            if m.0 <= ATO_MIN.0 / 2 {
                self.ato = SimTime(self.ato.0 / 2 + ATO_MIN.0 / 2);
            } else if m < self.ato {
                self.ato = SimTime(self.ato.0 / 2 + m.0).min(self.rto);
            } else if m > self.rto {
                self.incr_quickack(rcv_wnd, rcv_mss, MAX_QUICKACKS);
            }
        }
        self.last_data = now;
        let ack_now = self.check_ce(rcv_wnd, codepoint, ce_state, ce_changed);
        Segment { ack_now, pushed }
    }

    /// `__tcp_ecn_check_ce` (also run for out-of-order data, `tcp_data_queue_ofo`).
    pub fn check_ce(
        &mut self,
        rcv_wnd: u64,
        codepoint: Option<Ecn>,
        ce_state: bool,
        ce_changed: bool,
    ) -> bool {
        let Some(cp) = codepoint else {
            return false;
        };
        let rcv_mss = self.rcv_mss;
        match cp {
            Ecn::NotEct => {
                if self.ecn_seen {
                    self.enter_quickack(rcv_wnd, rcv_mss, 2);
                }
            }
            Ecn::Ce => {
                if ce_state {
                    self.demand_cwr = true; // dctcp_ece_ack_cwr(sk, 1) before the test
                } else if !self.demand_cwr {
                    self.enter_quickack(rcv_wnd, rcv_mss, 2);
                    self.demand_cwr = true;
                }
                self.ecn_seen = true;
            }
            Ecn::Ect0 | Ecn::Ect1 => {
                if ce_state {
                    self.demand_cwr = false;
                }
                self.ecn_seen = true;
            }
        }
        ce_state && ce_changed
    }

    /// `tcp_ecn_accept_cwr`: a data segment with CWR; returns true (ACK at once).
    pub fn on_cwr(&mut self) -> bool {
        self.demand_cwr = false;
        true
    }

    /// A segment entirely below RCV.NXT (`tcp_data_queue`'s `out_of_window`).
    pub fn on_old_data(&mut self, rcv_wnd: u64) {
        self.enter_quickack(rcv_wnd, self.rcv_mss, MAX_QUICKACKS);
    }

    fn in_quickack(&self) -> bool {
        self.quick > 0
    }

    /// `__tcp_ack_snd_check` for an in-order segment: `due` holds the rules that send now
    /// (two full segments, a filled hole, a FIN, `ICSK_ACK_NOW`); `pending` the delayed-ACK
    /// timer already running.
    pub fn in_order(&mut self, now: SimTime, due: bool, pending: Option<SimTime>) -> AckNow {
        if due || self.in_quickack() {
            return AckNow::Yes;
        }
        self.delayed(now, pending)
    }

    /// `tcp_send_delayed_ack`.
    fn delayed(&mut self, now: SimTime, pending: Option<SimTime>) -> AckNow {
        let mut ato = self.ato;
        if ato > ATO_MIN {
            let mut max_ato = ATO_MAX;
            if let Some(srtt) = self.srtt {
                max_ato = max_ato.min(srtt.max(ATO_MIN));
            }
            ato = ato.min(max_ato);
        }
        // tcp_delack_max: min(icsk_delack_max, max(rto_min, 2 jiffies) - 1 jiffy)
        let delack_max = DELACK_MAX.min(self.min_rto.max(SimTime(2 * JIFFY.0)) - JIFFY);
        ato = ato.min(delack_max);
        let mut timeout = now + ato;
        if let Some(old) = pending {
            if old <= now + SimTime(ato.0 / 4) {
                return AckNow::Yes; // "If delack timer is about to expire, send ACK now."
            }
            timeout = timeout.min(old);
        }
        AckNow::At(timeout)
    }

    /// `__tcp_ack_snd_check` for a segment above a hole (`ack_now`: `ICSK_ACK_NOW`).
    pub fn out_of_order(
        &mut self,
        now: SimTime,
        rcv_nxt: u64,
        sack: bool,
        ack_now: bool,
    ) -> AckNow {
        if ack_now || self.in_quickack() || !sack || self.compressed >= COMP_SACK_NR {
            return AckNow::Yes;
        }
        if self.dup_rcv_nxt != rcv_nxt {
            self.dup_rcv_nxt = rcv_nxt;
            self.dupacks = 0;
        }
        if self.dupacks < DUPACKS_AT_ONCE {
            self.dupacks += 1;
            return AckNow::Yes;
        }
        self.compressed += 1;
        if self.comp_at.is_some() {
            return AckNow::Held;
        }
        // rcv_rtt_est is at least the handshake's RTT here; 5 % of it, at most 1 ms
        let delay = self
            .srtt
            .map_or(COMP_SACK_DELAY, |r| COMP_SACK_DELAY.min(SimTime(r.0 / 20)));
        let at = now + delay;
        self.comp_at = Some(at);
        AckNow::At(at)
    }

    /// `tcp_sack_new_ofo_skb`: a segment above a hole that starts a SACK block of its own
    /// finds the table of 4 blocks full (`TCP_NUM_SACKS`); before the oldest block is
    /// forgotten, the held ACK goes out if more than 3 are compressed into it. Returns whether
    /// to send it (the segment's own ACK is decided after, by [`Self::out_of_order`]).
    pub fn sack_table_full(&mut self) -> bool {
        self.compressed > DUPACKS_AT_ONCE
    }

    /// The compression timer fired: whether an ACK is owed (`tcp_sack_compress_send_ack`).
    pub fn compression_due(&mut self) -> bool {
        self.comp_at = None;
        self.compressed > 0
    }

    /// `tcp_delack_timer_handler`: the delayed ACK had to wait for its timer.
    pub fn on_delack_timer(&mut self) {
        self.ato = SimTime(self.ato.0.saturating_mul(2)).min(self.rto);
    }

    /// `tcp_event_ack_sent`: an ACK of data went out (`data`: an ACK was scheduled).
    pub fn on_ack_sent(&mut self, data: bool) {
        if data && self.quick > 0 {
            self.quick -= 1;
            if self.quick == 0 {
                self.ato = ATO_MIN; // "Leaving quickack mode we deflate ATO."
            }
        }
        self.compressed = 0;
        self.comp_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime::from_millis(x)
    }

    fn fresh() -> LinuxAck {
        let mut a = LinuxAck::new(
            SimTime::from_secs(1),
            ms(200),
            SimTime::from_secs(120),
            1448,
        );
        a.on_synack_sent(ms(0));
        a.on_handshake_ack(ms(20), SimTime::ZERO);
        a
    }

    #[test]
    fn the_handshake_gives_the_rtt_and_rto_of_a_first_sample() {
        let a = fresh();
        assert_eq!(a.srtt, Some(ms(20)));
        assert_eq!(a.rto, ms(220)); // 20 + max(40, 200)
    }

    #[test]
    fn sixteen_quick_acks_from_the_first_segment_then_delayed() {
        let mut a = fresh();
        let mut now = ms(30);
        let mut immediate = 0;
        for _ in 0..40 {
            a.on_data(now, 6_291_456, 1448, None, false, false);
            match a.in_order(now, false, None) {
                AckNow::Yes => {
                    immediate += 1;
                    a.on_ack_sent(true);
                }
                AckNow::At(t) => assert_eq!(t, now + ms(40)),
                AckNow::Held => unreachable!(),
            }
            now = now + SimTime::from_micros(100);
        }
        assert_eq!(immediate, 16);
    }

    #[test]
    fn a_small_window_gives_fewer_quick_acks() {
        let mut a = fresh();
        a.on_data(ms(30), 8 * 1448, 1448, None, false, false);
        assert_eq!(a.quick, 4);
        let mut b = fresh();
        b.on_data(ms(30), 1000, 1448, None, false, false);
        assert_eq!(b.quick, 2); // none by the window: still 2
    }

    #[test]
    fn a_missed_delayed_ack_inflates_ato_bounded_by_the_rtt() {
        let mut a = fresh();
        a.on_data(ms(30), 6_291_456, 1448, None, false, false);
        a.quick = 0;
        a.on_delack_timer();
        assert_eq!(a.ato, ms(80));
        // a 90 ms gap (> ato, < rto): ato stays; the timeout is bounded by max(srtt, 40 ms)
        a.on_data(ms(120), 6_291_456, 1448, None, false, false);
        assert_eq!(a.in_order(ms(120), false, None), AckNow::At(ms(160)));
        // a gap longer than the RTO enters quick-ACK mode again
        a.on_data(ms(400), 6_291_456, 1448, None, false, false);
        assert_eq!(a.in_order(ms(400), false, None), AckNow::Yes);
    }

    #[test]
    fn a_timer_about_to_fire_sends_now_and_an_earlier_deadline_stays() {
        let mut a = fresh();
        a.on_data(ms(30), 6_291_456, 1448, None, false, false);
        a.quick = 0;
        assert_eq!(a.in_order(ms(30), false, Some(ms(35))), AckNow::Yes);
        assert_eq!(a.in_order(ms(30), false, Some(ms(60))), AckNow::At(ms(60)));
    }

    #[test]
    fn classic_ce_gives_two_quick_acks_until_cwr() {
        let mut a = fresh();
        a.on_data(ms(30), 6_291_456, 1448, Some(Ecn::Ect0), false, false);
        a.quick = 0;
        a.on_data(ms(31), 6_291_456, 1448, Some(Ecn::Ce), false, false);
        assert_eq!(a.quick, 2);
        a.quick = 0;
        a.on_data(ms(32), 6_291_456, 1448, Some(Ecn::Ce), false, false);
        assert_eq!(a.quick, 0, "CWR is awaited: no second quick-ACK mode");
        assert!(a.on_cwr());
        a.on_data(ms(33), 6_291_456, 1448, Some(Ecn::Ce), false, false);
        assert_eq!(a.quick, 2);
    }

    #[test]
    fn a_dctcp_receiver_acks_a_ce_change_at_once_without_quick_ack_mode() {
        let mut a = fresh();
        a.on_data(ms(30), 6_291_456, 1448, Some(Ecn::Ect0), true, false);
        a.quick = 0;
        assert!(
            a.on_data(ms(31), 6_291_456, 1448, Some(Ecn::Ce), true, true)
                .ack_now
        );
        assert_eq!(a.quick, 0);
        assert!(
            !a.on_data(ms(32), 6_291_456, 1448, Some(Ecn::Ce), true, false)
                .ack_now
        );
    }

    #[test]
    fn a_short_segment_is_pushed_unless_its_length_repeats() {
        let mut a = fresh();
        let seg = |a: &mut LinuxAck, len| a.on_data(ms(30), 6_291_456, len, None, false, false);
        assert!(!seg(&mut a, 1448).pushed);
        assert!(seg(&mut a, 89).pushed, "the end of a write");
        assert!(seg(&mut a, 600).pushed);
        assert!(!seg(&mut a, 600).pushed, "600 twice: rcv_mss adapts");
        assert_eq!(a.rcv_mss, 600);
        assert!(!seg(&mut a, 1448).pushed);
        assert!(seg(&mut a, 300).pushed);
        assert!(seg(&mut a, 300).pushed, "below 524 bytes no adaptation");
        // before any full segment rcv_mss is 536: a 500-byte first segment is pushed
        let mut b = fresh();
        assert!(seg(&mut b, 500).pushed);
        assert!(!seg(&mut b, 536).pushed);
    }

    #[test]
    fn sack_compression_after_three_duplicates() {
        let mut a = fresh();
        a.on_data(ms(30), 6_291_456, 1448, None, false, false);
        a.quick = 0;
        let now = ms(31);
        for _ in 0..3 {
            assert_eq!(a.out_of_order(now, 100, true, false), AckNow::Yes);
            a.on_ack_sent(true);
        }
        // 5 % of the 20 ms RTT = 1 ms
        assert_eq!(a.out_of_order(now, 100, true, false), AckNow::At(ms(32)));
        assert_eq!(a.out_of_order(now, 100, true, false), AckNow::Held);
        assert!(!a.sack_table_full(), "2 held: the table may drop a block");
        a.out_of_order(now, 100, true, false);
        a.out_of_order(now, 100, true, false);
        assert!(
            a.sack_table_full(),
            "4 held: sent before a block is forgotten"
        );
        assert!(a.compression_due());
        // a new RCV.NXT: three at once again; without SACK never compressed
        assert_eq!(a.out_of_order(now, 200, true, false), AckNow::Yes);
        let mut b = fresh();
        b.quick = 0;
        for _ in 0..10 {
            assert_eq!(b.out_of_order(now, 100, false, false), AckNow::Yes);
        }
    }
}
