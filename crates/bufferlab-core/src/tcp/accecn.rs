//! Accurate ECN feedback (AccECN): RFC 9768 "More Accurate Explicit Congestion Notification
//! (AccECN) Feedback in TCP" (draft-ietf-tcpm-accurate-ecn-34, read through the search tool),
//! as Linux 6.18 implements it (`net/ipv4/tcp_input.c` `__tcp_accecn_process`,
//! `tcp_accecn_process_option`; `net/ipv4/tcp_output.c` `tcp_options_fit_accecn`,
//! `tcp_established_options`; `include/net/tcp_ecn.h`).
//!
//! * Receiver (section 3.2.1): counters of CE-marked packets `r.cep` (starting at 5,
//!   Linux `TCP_ACCECN_CEP_INIT_OFFSET`) and of payload bytes by codepoint `r.e0b`, `r.ceb`,
//!   `r.e1b` (starting at 1, 0, 1). Every ACK carries `r.cep mod 8` in the 3-bit ACE field
//!   (the AE, CWR and ECE header flags); the AccECN option carries the 24 low bits of the
//!   byte counters (section 3.2.3).
//! * Receiver ACKs (section 3.2.2.5.1): Linux ACKs at once when `TCP_ACCECN_ACE_MAX_DELTA`
//!   (6) CE marks are pending (`received_ce_pending`), below the spec's 7.
//! * Option length (`tcp_options_fit_accecn`, `sysctl_tcp_ecn_option` default
//!   `TCP_ACCECN_OPTION_FULL`: on every segment when it fits): 2 + 3 bytes per field, as many
//!   fields as fit in the 40 bytes of option space, padded to 4 bytes unless the odd bytes fit
//!   in the 2 NOPs before SACK blocks. Beside timestamps it is 12 bytes with none or one SACK
//!   block, 8 (EE0B/EE1B and ECEB) with two, and an empty option folded into the SACK
//!   block's NOPs with three.
//! * Sender (`__tcp_accecn_process`, section 3.2.2.5.2 and appendix A.2): the newly
//!   CE-marked packets of an ACK are `d = (ACE - s.cep) mod 8`; when the ACK delivers 8 or
//!   more packets the counter may have wrapped, and without option evidence the sender takes
//!   the safe value `safe = n - ((n - d) mod 8)` (the largest count consistent with ACE). With
//!   the option's ECEB (`d_ceb` new CE bytes): none means `d`; for 16 or more packets the CE
//!   packets are estimated from the bytes (`d + (ceil(d_ceb n / bytes) & !7)`, at most
//!   `safe`); else more bytes than `d` full segments means `safe`, fewer than half of `safe`
//!   segments (`TCP_ACCECN_SAFETY_SHIFT` 1) means `d`, and otherwise `safe`.
//!
//! Not modelled: the negotiation (both ends are configured, `tcp.ecn_feedback`), ECN on
//! SYNs and the option on the handshake, the mangling and fall-back checks, the beacon of
//! `TCP_ACCECN_OPTION_MINIMUM`, Linux's trimming of a SACK block to fit the option, and its
//! later (2026) packets-per-ACK average that trusts `d` under ACK thinning.

/// `TCP_ACCECN_CEP_INIT_OFFSET`: r.cep and s.cep start at 5 (RFC 9768 section 3.2.1).
pub const CEP_INIT: u32 = 5;
/// The ACE field is 3 bits (`TCP_ACCECN_CEP_ACE_MASK`).
const ACE_MASK: u32 = 7;
/// `TCP_ACCECN_ACE_MAX_DELTA`: the receiver ACKs at once with this many CE marks pending.
pub const ACE_MAX_DELTA: u32 = 6;
/// The option's byte counters are 24 bits (RFC 9768 section 3.2.3).
const FIELD_MASK: u64 = (1 << 24) - 1;
/// `TCP_ACCECN_SAFETY_SHIFT`.
const SAFETY_SHIFT: u32 = 1;
/// TCP option space (`MAX_TCP_OPTION_SPACE`).
pub const OPTION_SPACE: u32 = 40;

/// `tcp_options_fit_accecn`: the AccECN option's bytes on the wire and its number of fields,
/// given the option bytes already used and whether SACK blocks (whose two leading NOPs the
/// option's odd bytes may take) are present. (0, 0) when not even the empty option fits.
pub fn option_fit(used: u32, sack_blocks: bool) -> (u32, u8) {
    let remaining = OPTION_SPACE.saturating_sub(used) as i32;
    let saving = if sack_blocks { 2 } else { 0 };
    let mut fields = 3u8;
    let mut size = 11i32; // TCP_ACCECN_MAXSIZE: kind, length, three 3-byte fields
    loop {
        let mut leftover = size & 3;
        if leftover > saving {
            leftover = -((4 - leftover) & 3); // pad to a 4-byte word
        }
        if remaining >= size - leftover {
            return ((size - leftover) as u32, fields);
        }
        if fields == 0 {
            return (0, 0);
        }
        fields -= 1;
        size -= 3;
    }
}

/// The data receiver's counters (RFC 9768 section 3.2.1).
#[derive(Debug, Clone)]
pub struct AccEcnReceiver {
    /// r.cep: CE-marked packets, from 5.
    pub cep: u32,
    /// r.e0b, r.ceb, r.e1b: payload bytes received as ECT(0), CE, ECT(1).
    pub e0b: u64,
    pub ceb: u64,
    pub e1b: u64,
    /// CE marks since the last ACK (Linux `received_ce_pending`).
    pub ce_pending: u32,
}

impl Default for AccEcnReceiver {
    fn default() -> Self {
        Self {
            cep: CEP_INIT,
            e0b: 1,
            ceb: 0,
            e1b: 1,
            ce_pending: 0,
        }
    }
}

impl AccEcnReceiver {
    /// Counts an arriving segment with `payload` bytes and this codepoint; true when the
    /// ACK must go at once (`ACE_MAX_DELTA` marks pending).
    pub fn on_segment(&mut self, ecn: crate::packet::Ecn, payload: u64) -> bool {
        use crate::packet::Ecn;
        match ecn {
            Ecn::Ce => {
                self.cep = self.cep.wrapping_add(1);
                self.ceb += payload;
                self.ce_pending += 1;
            }
            Ecn::Ect0 => self.e0b += payload,
            Ecn::Ect1 => self.e1b += payload,
            Ecn::NotEct => {}
        }
        self.ce_pending >= ACE_MAX_DELTA
    }

    /// The ACE field of the next ACK.
    pub fn ace(&self) -> u8 {
        (self.cep & ACE_MASK) as u8
    }

    /// The ECEB field: the 24 low bits of r.ceb.
    pub fn eceb(&self) -> u32 {
        (self.ceb & FIELD_MASK) as u32
    }
}

/// What the sender learnt from one ACK.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CeDelta {
    /// Newly CE-marked packets (Linux's addition to `delivered_ce`).
    pub packets: u64,
    /// Newly CE-marked payload bytes from the option's ECEB, when it was carried.
    pub option_bytes: Option<u64>,
}

/// The data sender's view (s.cep, s.ceb) and the totals it reports.
#[derive(Debug, Clone)]
pub struct AccEcnSender {
    /// s.cep: CE packets counted so far, from 5.
    pub cep: u32,
    /// s.ceb: the CE bytes of the options, 24-bit wrapped sum.
    ceb: u64,
    /// Totals: CE packets (`delivered_ce`) and option CE bytes.
    pub ce_packets: u64,
    pub ce_bytes: u64,
    /// ACKs on which the counter was taken to have wrapped (a count above ACE's delta).
    pub wrapped: u64,
}

impl Default for AccEcnSender {
    fn default() -> Self {
        Self {
            cep: CEP_INIT,
            ceb: 0,
            ce_packets: 0,
            ce_bytes: 0,
            wrapped: 0,
        }
    }
}

impl AccEcnSender {
    /// `__tcp_accecn_process` for an ACK that delivered `pkts` packets and `bytes` bytes
    /// (acknowledged or SACKed) of `mss` bytes each, carrying `ace` and maybe ECEB.
    pub fn on_ack(
        &mut self,
        ace: u8,
        eceb: Option<u32>,
        pkts: u64,
        bytes: u64,
        mss: u64,
    ) -> CeDelta {
        let d_ceb = eceb.map(|f| (u64::from(f).wrapping_sub(self.ceb)) & FIELD_MASK);
        if let Some(d) = d_ceb {
            self.ceb = (self.ceb + d) & FIELD_MASK;
            self.ce_bytes += d;
        }
        let delta = u64::from((u32::from(ace).wrapping_sub(self.cep)) & ACE_MASK);
        let n = if pkts > u64::from(ACE_MASK) {
            let safe = pkts - ((pkts - delta) & u64::from(ACE_MASK));
            let chosen = choose(delta, safe, d_ceb, pkts, bytes, mss);
            if chosen != delta {
                self.wrapped += 1;
            }
            chosen
        } else {
            delta
        };
        self.cep = self.cep.wrapping_add(n as u32);
        self.ce_packets += n;
        CeDelta {
            packets: n,
            option_bytes: d_ceb,
        }
    }
}

/// The wrap decision of `__tcp_accecn_process` once the ACK delivered 8 or more packets.
fn choose(delta: u64, safe: u64, d_ceb: Option<u64>, pkts: u64, bytes: u64, mss: u64) -> u64 {
    let Some(d_ceb) = d_ceb else {
        return safe; // no option: the safest likely case (section 3.2.2.5.2)
    };
    if d_ceb == 0 {
        return delta;
    }
    if pkts >= 2 * (u64::from(ACE_MASK) + 1) {
        if bytes <= d_ceb {
            return safe;
        }
        let est = (d_ceb * pkts).div_ceil(bytes);
        return safe.min(delta + (est & !u64::from(ACE_MASK)));
    }
    if d_ceb > delta * mss {
        return safe;
    }
    if d_ceb < (safe * mss) >> SAFETY_SHIFT {
        return delta;
    }
    safe
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;

    // ---- tcp_options_fit_accecn beside the 12-byte timestamp option ----
    #[test]
    fn option_length_as_linux_fits_it() {
        assert_eq!(option_fit(12, false), (12, 3)); // 11 bytes padded to 12
        assert_eq!(option_fit(12 + 4 + 8, true), (12, 3)); // one SACK block
        assert_eq!(option_fit(12 + 4 + 16, true), (8, 2)); // two: EE0B/EE1B and ECEB
        assert_eq!(option_fit(12 + 4 + 24, true), (0, 0)); // three: the empty option in the NOPs
        assert_eq!(option_fit(0, false), (12, 3));
        assert_eq!(option_fit(36, false), (4, 0)); // one field would need 8 bytes: the empty option
    }

    // ---- r.cep from 5; ACE is its low 3 bits; bytes by codepoint ----
    #[test]
    fn receiver_counts_packets_and_bytes() {
        let mut r = AccEcnReceiver::default();
        assert_eq!(r.ace(), 5);
        for _ in 0..4 {
            assert!(!r.on_segment(Ecn::Ce, 1000));
        }
        assert_eq!(r.ace(), 1, "5 + 4 = 9 wraps to 1");
        r.on_segment(Ecn::Ect1, 700);
        assert_eq!((r.e0b, r.ceb, r.e1b), (1, 4000, 701));
        r.on_segment(Ecn::Ce, 1000);
        assert!(
            r.on_segment(Ecn::Ce, 1000),
            "the sixth pending mark sends an ACK"
        );
    }

    // ---- d = (ACE - s.cep) mod 8 while fewer than 8 packets are delivered ----
    #[test]
    fn delta_is_ace_modulo_8() {
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(7, None, 2, 2000, 1000).packets, 2);
        assert_eq!(s.on_ack(1, None, 2, 2000, 1000).packets, 2, "7 -> 1 wraps");
        assert_eq!(s.on_ack(1, None, 7, 7000, 1000).packets, 0);
        assert_eq!(s.ce_packets, 4);
    }

    // ---- section 3.2.2.5.2: without the option the safe case when ACE may have wrapped ----
    #[test]
    fn without_the_option_a_large_ack_takes_the_safe_count() {
        // 10 packets delivered, ACE moved by 1: 1 or 9 marks; safe is 9
        let mut s = AccEcnSender::default();
        let d = s.on_ack(6, None, 10, 10_000, 1000);
        assert_eq!(d.packets, 9);
        // 20 packets, ACE moved by 3: 3, 11 or 19; safe is 19
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(0, None, 20, 20_000, 1000).packets, 19);
        assert_eq!(s.wrapped, 1);
    }

    // ---- with ECEB the bytes settle what ACE cannot ----
    #[test]
    fn the_option_bytes_decide_the_wrap() {
        // 10 packets, ACE + 1, ECEB says 1000 bytes: one mark (below half of 9 segments)
        let mut s = AccEcnSender::default();
        let d = s.on_ack(6, Some(1000), 10, 10_000, 1000);
        assert_eq!(
            d,
            CeDelta {
                packets: 1,
                option_bytes: Some(1000)
            }
        );
        // ... says 9000 bytes: more than one segment, so 9
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(6, Some(9000), 10, 10_000, 1000).packets, 9);
        // 20 packets, ACE + 3, 11 000 CE bytes of 20 000: estimated ceil(11) = 11 marks
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(0, Some(11_000), 20, 20_000, 1000).packets, 11);
        // no new CE bytes: ACE's delta
        let mut s = AccEcnSender::default();
        assert_eq!(s.on_ack(0, Some(0), 20, 20_000, 1000).packets, 3);
    }

    // ---- the 24-bit field wraps without losing bytes ----
    #[test]
    fn eceb_wraps_at_24_bits() {
        let mut s = AccEcnSender::default();
        s.on_ack(5, Some(FIELD_MASK as u32 - 99), 1, 1000, 1000);
        let d = s.on_ack(5, Some(400), 1, 1000, 1000);
        assert_eq!(d.option_bytes, Some(500));
        assert_eq!(s.ce_bytes, FIELD_MASK - 99 + 500);
    }
}
