//! ns-2.35's choice of SACK blocks for an ACK of `Agent/TCPSink/Sack1` and
//! `/Sack1/DelAck` (`Rules::sack_blocks_from_ns2_stack`): `tcp/tcp-sink.cc`
//! `Sacker::append_ack` with its `SackStack`, read against RFC 2018's "most recently received
//! first, then the blocks reported before".
//!
//! The sink keeps a stack of the blocks it reported first in its earlier ACKs, most recent on
//! top, holding at most `maxSackBlocks_` of them (ns-default.tcl: 3, the TCP header's `NSA`
//! in tcp.h); pushing onto a full stack forgets the bottom one (`SackStack::push`). An ACK
//! then carries:
//!
//! * nothing, and the stack is emptied, when no data is held above the cumulative ACK
//!   (`seqno >= maxseen_`: the `sf_->reset()` branch);
//! * otherwise first the block holding the packet that was just received, when that packet
//!   lies above the cumulative ACK (the run of packets seen around it: "look rightward for
//!   first hole", "look leftward from right edge for first hole"). A packet at or below the
//!   cumulative ACK gives no block, but stands for `[0, first hole)`, the whole of what is
//!   acknowledged;
//! * then the stack's blocks from the top while there is room: a block the first one covers
//!   (`recent_sack_left <= sack_left && recent_sack_right >= sack_right`) is taken off the
//!   stack (`sf_->pop(k)`) and not sent; the walk stops at an empty slot or at a block past
//!   the highest packet seen;
//! * and the first block, when there was one, is pushed on the stack.
//!
//! So the ACK reports the blocks the sink reported most recently, not every block it holds:
//! with four or more runs held, a run not reported in the last three ACKs' first blocks is
//! forgotten (RFC 2018 section 4 allows it). bufferlab's own receiver sends the run of the
//! packet just received and then the highest runs; the two part with three runs or more, and
//! the ACK's size with them (8 bytes a block, `ch->size() += sack_index * 8`).
//!
//! `generateDSacks_` (a D-SACK block first for a duplicate) is not modelled (the ns-2 layer
//! refuses it); neither is a `maxSackBlocks_` other than 3. `$sink reset` (`Sacker::reset`)
//! makes a new receiver, and with it an empty stack. Sequence numbers here are byte
//! offsets: ns-2's one-way agents send whole packets, so a run of packets `[l, r)` is the byte
//! range of those packets.

use crate::packet::MAX_SACK_BLOCKS;

/// `SackStack` of tcp-sink.cc: the first blocks of earlier ACKs, most recent first.
#[derive(Debug, Clone, Default)]
pub struct Sacker {
    stack: Vec<(u64, u64)>,
}

impl Sacker {
    pub fn new() -> Self {
        Self {
            stack: Vec::with_capacity(MAX_SACK_BLOCKS),
        }
    }

    /// The blocks of the ACK answering a packet that starts at `pkt_start`, as
    /// `Sacker::append_ack` chooses them: `cum` is the cumulative ACK (the next byte
    /// expected), `held` the sorted, disjoint, maximal ranges held above it, `max_seen` the
    /// end of the highest packet seen. Each block is passed to `push` in the order sent.
    pub fn blocks(
        &mut self,
        pkt_start: u64,
        cum: u64,
        held: &[(u64, u64)],
        max_seen: u64,
        mut push: impl FnMut(u64, u64),
    ) {
        if held.is_empty() {
            // seqno >= maxseen_: sf_->reset(); a duplicate with nothing held sends none either
            self.stack.clear();
            return;
        }
        // the run that holds the packet when it lies above the cumulative ACK (its first hole
        // rightward, leftward); at or below it: sack_left = 0, sack_right = the first hole,
        // not sent
        let first = if pkt_start >= cum {
            held.iter()
                .copied()
                .find(|r| r.0 <= pkt_start && pkt_start < r.1)
        } else {
            None
        };
        let recent = first.unwrap_or((0, cum));
        let mut sent = 0;
        if let Some((l, r)) = first {
            push(l, r);
            sent += 1;
        }
        let mut k = 0;
        while sent < MAX_SACK_BLOCKS && k < self.stack.len() {
            let b = self.stack[k];
            if b.1 > max_seen {
                break; // sack_right > maxseen_ + 1: no more history
            }
            if recent.0 <= b.0 && recent.1 >= b.1 {
                self.stack.remove(k); // the newest block covers it up
                continue;
            }
            push(b.0, b.1);
            sent += 1;
            k += 1;
        }
        if first.is_some() {
            if self.stack.len() >= MAX_SACK_BLOCKS {
                self.stack.truncate(MAX_SACK_BLOCKS - 1); // SackStack::push's overflow check
            }
            self.stack.insert(0, recent);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Sacker;

    /// Packets of 1 byte: packet n is [n, n + 1).
    fn ack(s: &mut Sacker, pkt: u64, cum: u64, held: &[(u64, u64)]) -> Vec<(u64, u64)> {
        let max_seen = held.last().map_or(cum, |r| r.1);
        let mut out = Vec::new();
        s.blocks(pkt, cum, held, max_seen, |a, b| out.push((a, b)));
        out
    }

    /// Four runs held (holes at 1, 3, 5, 7): ns-2's sink reports the run just received and
    /// the two reported before it; the oldest run (2) drops off its three-deep stack.
    #[test]
    fn a_run_not_reported_recently_is_forgotten() {
        let mut s = Sacker::new();
        assert_eq!(ack(&mut s, 2, 1, &[(2, 3)]), [(2, 3)]);
        assert_eq!(ack(&mut s, 4, 1, &[(2, 3), (4, 5)]), [(4, 5), (2, 3)]);
        let held = [(2, 3), (4, 5), (6, 7)];
        assert_eq!(ack(&mut s, 6, 1, &held), [(6, 7), (4, 5), (2, 3)]);
        let held = [(2, 3), (4, 5), (6, 7), (8, 9)];
        assert_eq!(ack(&mut s, 8, 1, &held), [(8, 9), (6, 7), (4, 5)]);
        // the forgotten run is reported again only when a packet of it arrives
        let held = [(2, 4), (6, 7), (8, 9)];
        assert_eq!(ack(&mut s, 3, 1, &held), [(2, 4), (8, 9), (6, 7)]);
        // the retransmitted 1: cum 4, the stack's blocks above it, no first block
        let held = [(6, 7), (8, 9)];
        assert_eq!(ack(&mut s, 1, 4, &held), [(8, 9), (6, 7)]);
    }

    /// A growing run replaces its earlier, smaller self on the stack.
    #[test]
    fn a_block_covered_by_the_newest_is_popped() {
        let mut s = Sacker::new();
        ack(&mut s, 2, 1, &[(2, 3)]);
        ack(&mut s, 5, 1, &[(2, 3), (5, 6)]);
        assert_eq!(ack(&mut s, 3, 1, &[(2, 4), (5, 6)]), [(2, 4), (5, 6)]);
        assert_eq!(ack(&mut s, 4, 1, &[(2, 6)]), [(2, 6)]);
        assert_eq!(s.stack, [(2, 6)]);
    }

    /// Nothing held: no blocks, and the stack is emptied.
    #[test]
    fn nothing_held_empties_the_stack() {
        let mut s = Sacker::new();
        ack(&mut s, 2, 1, &[(2, 3)]);
        assert!(ack(&mut s, 1, 3, &[]).is_empty());
        assert!(s.stack.is_empty());
    }
}
