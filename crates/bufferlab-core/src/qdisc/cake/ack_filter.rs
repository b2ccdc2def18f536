//! CAKE's ACK filter: when a pure ACK joins a flow queue that already holds older pure ACKs of
//! the same connection which it makes redundant, one of them is dropped.
//!
//! References: LANMAN 2018 paper section III-D ("ACK filtering": on asymmetric links the ACK
//! stream can take a large share of the upstream; a queued ACK whose information a newer ACK
//! carries can go); Linux `net/sched/sch_cake.c`:
//! * `cake_ack_filter`: the trigger is the packet just queued at the tail, with ACK set and
//!   SYN clear; the candidates are the packets before it of the same 5-tuple that
//!   `cake_tcph_may_drop` accepts (only ACK among the flags but ECE/CWR; only SACK and
//!   timestamp options, timestamps not after the trigger's), carry no data, and acknowledge
//!   no more than the trigger (`after(ack_seq)`), whose SACK the trigger covers
//!   (`cake_tcph_sack_compare`), and not the same cumulative ACK with the same SACK; a change
//!   of the ECE/CWR bits between candidates forgets the earlier candidate. Conservative mode
//!   drops the first candidate once a second is found; aggressive mode also drops a single
//!   candidate when it is just before the trigger with the same ECE/CWR bits;
//! * `cake_tcph_sack_compare`: -1 when the candidate SACKs something the trigger does not (or
//!   carries a D-SACK, a block below its cumulative ACK), 1 when the trigger SACKs more bytes,
//!   0 when equal.
//!
//! The simulator's TCP header carries a timestamp on every segment and SACK blocks; it has
//! no other options, so `cake_tcph_may_drop`'s option checks reduce to the timestamp test.

use crate::packet::{tcp_flags as F, Packet, PacketKind};
use std::collections::VecDeque;

fn is_tcp(p: &Packet) -> bool {
    matches!(p.kind, PacketKind::TcpData | PacketKind::TcpAck)
}

/// Same 5-tuple: same engine flow, direction and hosts.
fn same_connection(a: &Packet, b: &Packet) -> bool {
    a.flow == b.flow && a.reverse == b.reverse && a.src == b.src && a.dst == b.dst
}

/// `cake_tcph_may_drop`: only ACK (and ECE/CWR) set, timestamps not after the trigger's.
fn may_drop(c: &Packet, trigger: &Packet) -> bool {
    c.tcp.flags & !(F::ECE | F::CWR) == F::ACK
        && c.tcp.ts_val <= trigger.tcp.ts_val
        && c.tcp.ts_echo <= trigger.tcp.ts_echo
}

/// Sequence-space order of 32-bit wire numbers (Linux `before`).
fn before(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

/// `cake_tcph_sack_compare(a, b)`, on the blocks' 32-bit wire values.
pub fn sack_compare(a: &Packet, b: &Packet) -> i32 {
    let (sa_, sb_) = (a.tcp.sack_wire(), b.tcp.sack_wire());
    match (!sa_.is_empty(), !sb_.is_empty()) {
        (true, false) => return -1,
        (false, true) => return 1,
        (false, false) => return 0,
        _ => {}
    }
    let bytes_b: u32 = sb_.iter().map(|&(s, e)| e.wrapping_sub(s)).sum();
    let mut bytes_a = 0u32;
    for &(sa, ea) in sa_ {
        // a D-SACK is always considered greater, so that it is never dropped
        if before(sa, a.tcp.ack as u32) {
            return -1;
        }
        bytes_a = bytes_a.wrapping_add(ea.wrapping_sub(sa));
        if !sb_
            .iter()
            .any(|&(sb, eb)| !before(sa, sb) && !before(eb, ea))
        {
            return -1;
        }
    }
    if bytes_b > bytes_a {
        1
    } else {
        0
    }
}

/// `cake_ack_filter`: the index in `q` of the ACK to drop, after the tail was just queued.
pub fn cake_ack_filter(q: &VecDeque<Packet>, aggressive: bool) -> Option<usize> {
    if q.len() < 2 {
        return None;
    }
    let trig = q.back().expect("two packets");
    if !is_tcp(trig) || trig.tcp.flags & (F::ACK | F::SYN) != F::ACK {
        return None;
    }
    let ecn_bits = |p: &Packet| p.tcp.flags & (F::ECE | F::CWR);
    let mut elig: Option<usize> = None;
    let mut elig_flags = 0u8;
    let mut num_found = 0i32;
    for (i, c) in q.iter().enumerate().take(q.len() - 1) {
        if !is_tcp(c) || !same_connection(c, trig) {
            continue;
        }
        // ECE/CWR changed since the candidate: dropping it would lose information
        if elig.is_some() && ecn_bits(c) != elig_flags {
            elig = None;
            num_found -= 1;
        }
        if !may_drop(c, trig) || c.payload != 0 || c.tcp.ack > trig.tcp.ack {
            continue;
        }
        let sack_comp = sack_compare(c, trig);
        if sack_comp < 0 || (c.tcp.ack == trig.tcp.ack && sack_comp == 0) {
            continue;
        }
        if elig.is_none() {
            elig = Some(i);
            elig_flags = ecn_bits(c);
        }
        num_found += 1;
        if num_found > 1 {
            return elig;
        }
    }
    match elig {
        Some(i) if aggressive && i + 2 == q.len() && elig_flags == ecn_bits(trig) => Some(i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::FlowId;

    fn ack(flow: u32, ackno: u64) -> Packet {
        let mut p = Packet {
            flow: FlowId(flow),
            kind: PacketKind::TcpAck,
            size: 40,
            reverse: true,
            ..Packet::default()
        };
        p.tcp.ack = ackno;
        p.tcp.flags = F::ACK;
        p
    }

    // ---- conservative: a redundant ACK goes once a second one is queued ----
    #[test]
    fn conservative_drops_the_oldest_of_two_redundant_acks() {
        let mut q: VecDeque<Packet> = [ack(0, 1000), ack(0, 2000)].into_iter().collect();
        // one older ACK before the trigger: conservative keeps it, aggressive drops it
        assert_eq!(cake_ack_filter(&q, false), None);
        assert_eq!(cake_ack_filter(&q, true), Some(0));
        q.push_back(ack(0, 3000));
        assert_eq!(cake_ack_filter(&q, false), Some(0));
    }

    // ---- what is never dropped ----
    #[test]
    fn data_other_flows_and_newer_information_are_kept() {
        // another flow's ACKs
        let q: VecDeque<Packet> = [ack(1, 1000), ack(1, 1500), ack(0, 2000)]
            .into_iter()
            .collect();
        assert_eq!(cake_ack_filter(&q, true), None);
        // an ACK carrying data
        let mut d = ack(0, 1000);
        d.payload = 100;
        let q: VecDeque<Packet> = [d, ack(0, 2000)].into_iter().collect();
        assert_eq!(cake_ack_filter(&q, true), None);
        // a duplicate ACK (same number, no SACK) is not made redundant by its twin
        let q: VecDeque<Packet> = [ack(0, 2000), ack(0, 2000)].into_iter().collect();
        assert_eq!(cake_ack_filter(&q, true), None);
        // but the twin with more SACKed bytes covers it
        let mut a = ack(0, 2000);
        a.tcp.push_sack(3000, 4000);
        let mut b = ack(0, 2000);
        b.tcp.push_sack(3000, 5000);
        let q: VecDeque<Packet> = [a, b].into_iter().collect();
        assert_eq!(cake_ack_filter(&q, true), Some(0));
        // a SACK block the trigger does not cover keeps the older ACK
        let mut a = ack(0, 2000);
        a.tcp.push_sack(6000, 7000);
        let q: VecDeque<Packet> = [a, b].into_iter().collect();
        assert_eq!(cake_ack_filter(&q, true), None);
        // ECE set on the candidate but not the trigger: aggressive keeps it
        let mut e = ack(0, 1000);
        e.tcp.flags |= F::ECE;
        let q: VecDeque<Packet> = [e, ack(0, 2000)].into_iter().collect();
        assert_eq!(cake_ack_filter(&q, true), None);
        // a SYN trigger filters nothing
        let mut s = ack(0, 2000);
        s.tcp.flags |= F::SYN;
        let q: VecDeque<Packet> = [ack(0, 1000), s].into_iter().collect();
        assert_eq!(cake_ack_filter(&q, true), None);
    }

    // ---- cake_tcph_sack_compare ----
    #[test]
    fn sack_compare_orders_by_coverage() {
        let plain = ack(0, 1000);
        let mut s1 = ack(0, 1000);
        s1.tcp.push_sack(2000, 3000);
        assert_eq!(sack_compare(&s1, &plain), -1);
        assert_eq!(sack_compare(&plain, &s1), 1);
        assert_eq!(sack_compare(&plain, &plain), 0);
        assert_eq!(sack_compare(&s1, &s1), 0);
        // D-SACK (below the cumulative ACK)
        let mut d = ack(0, 5000);
        d.tcp.push_sack(1000, 2000);
        assert_eq!(sack_compare(&d, &d), -1);
    }
}
