//! ns-2.35's `ScoreBoard1` (`tcp/linux/scoreboard1.cc`, `scoreboard1.h`), the SACK scoreboard
//! of `Agent/TCP/Linux` (D. X. Wei, 2006, "loosely following" Linux 2.6's
//! `clean_rtx_queue` and `sacktag_write_queue`). Packet numbers are ns-2's (`seqno`); the
//! board is a list of blocks of consecutive packets in one state (`ScoreBoardNode1`):
//!
//! * in flight (`SKB_FLAG_INFLIGHT`), SACKed, lost (`SKB_FLAG_LOST`), or a retransmission
//!   (`SKB_FLAG_RETRANSMITTED`: one packet, with `t_seqno_` when it was sent, `GetSndNxt`,
//!   and the retransmission's number `rtx_id_`, `GetRtx`).
//! * **CleanRtxQueue**: a cumulative ACK removes the blocks it covers, the counts of SACKed
//!   (`sack_out_`) and lost (`fack_out_`) packets with them; an acknowledged retransmission
//!   with a higher number than any seen raises `acked_rtx_id_` and asks for a full pass.
//! * **UpdateScoreBoard** (one pass, `dupack_threshold` 3): the SACK blocks at or above the
//!   cumulative ACK, sorted; `fack_` is the highest SACKed packet (a rise asks for a full
//!   pass); the board is extended in flight up to `fack_`. Blocks a SACK covers become SACKED
//!   (split at its edges); then, left of the next SACK block: a packet in flight is lost
//!   once `fack_ - (dupack_threshold + 1)` reaches it (FACK: a packet four above it is
//!   SACKed); a retransmission is lost again once a packet sent after it is SACKed (its
//!   `t_seqno_` at or below `fack_`) or once a retransmission four numbers later was
//!   acknowledged (`GetRtx() + dupack_threshold + 1 < acked_rtx_id_`). Neighbours in the
//!   same state merge (a retransmission never does). The first lost block met is the next
//!   to retransmit (`nxt_to_retrx_`). Returns `FLAG_DATA_SACKED`, `FLAG_DATA_LOST`.
//! * **MarkLoss** (a timeout): everything not SACKed is lost, up to `t_seqno_ - 1`; the
//!   retransmission numbers restart (`rtx_id_` 0, `acked_rtx_id_` -1); `fack_` stays.
//! * **GetNextRetran**: the first packet of the first lost block from `nxt_to_retrx_` on;
//!   **MarkRetran** makes it a retransmission (`fack_out_ - 1`).
//! * **packets_in_flight**: `t_seqno_ - (highest_ack_ + 1) - fack_out_ - sack_out_`.
//!
//! The list is a `Vec` of blocks in sequence order (splits insert after a block, merges
//! remove the next one); its capacity grows to the most blocks seen and is kept.

/// `ns-linux-util.h` flags returned by `UpdateScoreBoard`.
pub const FLAG_DATA_SACKED: u8 = 2;
pub const FLAG_DATA_LOST: u8 = 8;
pub const FLAG_UNSURE_TSTAMP: u8 = 16;

/// `tcp_linux.cc` calls `UpdateScoreBoard(highest_ack_, tcph)` with the default
/// `dupack_threshold` (scoreboard1.h: 3).
pub const DUPACK_THRESHOLD: i64 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    InFlight,
    Sacked,
    Lost,
    Retransmitted,
}

/// `ScoreBoardNode1`: `[seq, nxt]` (both included), or for a retransmission the packet `seq`
/// with `nxt` = `t_seqno_` at its sending and `rtx` its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Node {
    mark: Mark,
    seq: i64,
    nxt: i64,
    rtx: i64,
}

impl Node {
    fn new(seq: i64, nxt: i64, mark: Mark) -> Self {
        Node {
            mark,
            seq,
            nxt,
            rtx: 0,
        }
    }
    /// `GetEnd`
    fn end(&self) -> i64 {
        if self.mark == Mark::Retransmitted {
            self.seq
        } else {
            self.nxt
        }
    }
    /// `GetLength`
    fn len(&self) -> i64 {
        if self.mark == Mark::Retransmitted {
            1
        } else {
            self.nxt + 1 - self.seq
        }
    }
    /// `SetFlag`: a retransmission leaving that state is the one packet `seq` again.
    fn set_mark(&mut self, m: Mark) {
        if self.mark == Mark::Retransmitted {
            self.nxt = self.seq;
        }
        self.mark = m;
    }
    /// `ShouldClean`: 0 untouched, -1 the whole block acknowledged, else that many packets.
    fn should_clean(&self, ackseq: i64) -> i64 {
        if ackseq < self.seq {
            0
        } else if self.mark == Mark::Retransmitted || ackseq >= self.nxt {
            -1
        } else {
            ackseq + 1 - self.seq
        }
    }
}

/// `ScoreBoard1`.
#[derive(Debug, Clone)]
pub struct Scoreboard1 {
    nodes: Vec<Node>,
    nxt_to_retrx: Option<usize>,
    acked_rtx_id: i64,
    rtx_id: i64,
    fack: i64,
    fack_out: i64,
    sack_out: i64,
}

impl Default for Scoreboard1 {
    fn default() -> Self {
        Self::new()
    }
}

impl Scoreboard1 {
    pub fn new() -> Self {
        let mut s = Scoreboard1 {
            nodes: Vec::with_capacity(64),
            nxt_to_retrx: None,
            acked_rtx_id: -1,
            rtx_id: 0,
            fack: 0,
            fack_out: 0,
            sack_out: 0,
        };
        s.clear();
        s
    }

    /// `IsEmpty`
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// `ClearScoreBoard`
    pub fn clear(&mut self) {
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
        self.fack_out = 0;
        self.sack_out = 0;
        self.fack = 0;
        self.nxt_to_retrx = None;
        self.nodes.clear();
    }

    /// `packets_in_flight(snd_una, snd_nxt)` with `snd_una = highest_ack_ + 1`,
    /// `snd_nxt = t_seqno_`.
    pub fn packets_in_flight(&self, snd_una: i64, snd_nxt: i64) -> i64 {
        snd_nxt - snd_una - self.fack_out - self.sack_out
    }

    /// `Merge` of block `i` with the next one (the caller checked `Mergable`).
    fn merge(&mut self, i: usize) {
        self.nodes[i].nxt = self.nodes[i + 1].nxt;
        self.nodes.remove(i + 1);
        if let Some(n) = self.nxt_to_retrx.filter(|&n| n > i) {
            self.nxt_to_retrx = Some(if n == i + 1 { i } else { n - 1 });
        }
    }

    /// `Mergable`: the next block exists, is no retransmission, and is in the same state.
    fn mergable(&self, i: usize) -> bool {
        self.nodes
            .get(i + 1)
            .is_some_and(|n| n.mark != Mark::Retransmitted && n.mark == self.nodes[i].mark)
    }

    /// `Split(seq)`: block `i` becomes `[start, seq - 1]`, a new one `[seq, end]` follows.
    fn split(&mut self, i: usize, seq: i64) {
        let n = self.nodes[i];
        self.nodes.insert(i + 1, Node::new(seq, n.nxt, n.mark));
        self.nodes[i].nxt = seq - 1;
        if let Some(k) = self.nxt_to_retrx.filter(|&k| k > i) {
            self.nxt_to_retrx = Some(k + 1);
        }
    }

    /// `CleanRtxQueue(last_ack, &flag)`: returns whether a newer retransmission was
    /// acknowledged (`acked_rtx_id_` raised).
    fn clean(&mut self, last_ack: i64, flag: &mut u8) -> bool {
        let mut changed = false;
        while let Some(&h) = self.nodes.first() {
            let cmp = h.should_clean(last_ack);
            if cmp == 0 {
                break;
            }
            let k = if cmp < 0 { h.len() } else { cmp };
            match h.mark {
                Mark::Sacked => self.sack_out -= k,
                Mark::Lost => self.fack_out -= k,
                _ => {}
            }
            if cmp > 0 {
                self.nodes[0].seq = last_ack + 1;
                break;
            }
            if h.mark == Mark::Retransmitted {
                if h.rtx > self.acked_rtx_id {
                    changed = true;
                    self.acked_rtx_id = h.rtx;
                }
                *flag |= FLAG_UNSURE_TSTAMP;
            }
            self.nodes.remove(0);
            // `if (tmp == nxt_to_retrx_) nxt_to_retrx_ = head_`
            self.nxt_to_retrx = match self.nxt_to_retrx {
                Some(0) if self.nodes.is_empty() => None,
                Some(0) => Some(0),
                Some(k) => Some(k - 1),
                None => None,
            };
        }
        changed
    }

    /// `UpdateScoreBoard(last_ack, tcph)`: `last_ack` is `highest_ack_` (the last packet
    /// acknowledged), `blocks` the ACK's SACK blocks as packets `[left, right)`.
    pub fn update(&mut self, last_ack: i64, blocks: &[(i64, i64)]) -> u8 {
        let mut flag = 0;
        let mut thorough = self.clean(last_ack, &mut flag);
        if self.nodes.is_empty() {
            self.clear();
            thorough = false;
        }
        if !thorough && blocks.is_empty() {
            return flag;
        }
        // D-SACK filtered (left below last_ack), the rest sorted by left edge
        let mut sacks = [(0i64, 0i64); crate::packet::MAX_SACK_BLOCKS + 1];
        let mut n = 0;
        for &(l, r) in blocks.iter().take(sacks.len()) {
            if l >= last_ack {
                let mut j = n;
                n += 1;
                while j > 0 && sacks[j - 1].0 > l {
                    sacks[j] = sacks[j - 1];
                    j -= 1;
                }
                sacks[j] = (l, r);
            }
        }
        if !thorough && n == 0 {
            return flag;
        }
        if n > 0 && self.fack < sacks[n - 1].1 - 1 {
            self.fack = sacks[n - 1].1 - 1;
            thorough = true;
        }
        if self.nodes.is_empty() {
            self.nodes
                .push(Node::new(last_ack + 1, self.fack, Mark::InFlight));
        }
        self.nxt_to_retrx = None;
        let lost_seq_threshold = self.fack - (DUPACK_THRESHOLD + 1);
        let mut i = 0;
        let mut prev: Option<usize> = None;
        let mut si = 0;
        while i < self.nodes.len() && (si < n || thorough) {
            if self.nodes[i].mark != Mark::Sacked {
                while si < n && sacks[si].1 <= self.nodes[i].seq {
                    si += 1;
                }
                if si < n && sacks[si].0 <= self.nodes[i].end() {
                    let (l, r) = sacks[si];
                    if l > self.nodes[i].seq {
                        self.split(i, l); // the first part is not SACKed
                    } else {
                        if r <= self.nodes[i].end() {
                            self.split(i, r);
                        }
                        let node = self.nodes[i];
                        match node.mark {
                            Mark::Lost => self.fack_out -= node.len(),
                            Mark::Retransmitted => {
                                self.acked_rtx_id = node.rtx;
                                flag |= FLAG_UNSURE_TSTAMP;
                                thorough = true;
                            }
                            _ => {}
                        }
                        self.sack_out += node.len();
                        flag |= FLAG_DATA_SACKED;
                        self.nodes[i].set_mark(Mark::Sacked);
                    }
                }
                if si >= n || sacks[si].0 > self.nodes[i].end() {
                    flag |= self.mark_lost(i, lost_seq_threshold);
                }
            }
            let p = match prev {
                Some(pi) if self.mergable(pi) => {
                    self.merge(pi);
                    pi
                }
                _ => {
                    prev = Some(i);
                    i
                }
            };
            let end = self.nodes[p].end();
            if p + 1 == self.nodes.len() && end < self.fack {
                self.nodes
                    .push(Node::new(end + 1, self.fack, Mark::InFlight)); // extend the board
            }
            i = p + 1;
        }
        flag
    }

    /// The loss checks of `UpdateScoreBoard` for block `i` left of the next SACK block.
    fn mark_lost(&mut self, i: usize, lost_seq_threshold: i64) -> u8 {
        let node = self.nodes[i];
        match node.mark {
            // lost again: something sent after it SACKed, or a later retransmission acked
            Mark::Retransmitted
                if node.nxt <= self.fack || node.rtx + DUPACK_THRESHOLD + 1 < self.acked_rtx_id =>
            {
                self.nodes[i].set_mark(Mark::Lost);
                self.fack_out += 1;
                self.nxt_to_retrx.get_or_insert(i);
                return FLAG_DATA_LOST;
            }
            Mark::InFlight if node.seq <= lost_seq_threshold => {
                if lost_seq_threshold < node.end() {
                    self.split(i, lost_seq_threshold + 1); // partial loss
                }
                self.nodes[i].set_mark(Mark::Lost);
                self.fack_out += self.nodes[i].len();
                self.nxt_to_retrx.get_or_insert(i);
                return FLAG_DATA_LOST;
            }
            Mark::Lost => {
                self.nxt_to_retrx.get_or_insert(i);
            }
            _ => {}
        }
        0
    }

    /// `MarkLoss(snd_una, snd_nxt)` at a timeout: `snd_una = highest_ack_ + 1`,
    /// `snd_nxt = t_seqno_`.
    pub fn mark_loss(&mut self, snd_una: i64, snd_nxt: i64) {
        self.nxt_to_retrx = None;
        let mut i = 0;
        let mut last_lost = false;
        while i < self.nodes.len() {
            let node = self.nodes[i];
            if node.mark != Mark::Sacked {
                if node.mark != Mark::Lost {
                    self.fack_out += node.end() - node.seq + 1;
                }
                self.nodes[i].set_mark(Mark::Lost);
                if last_lost {
                    self.merge(i - 1);
                    i -= 1;
                } else if self.nxt_to_retrx.is_none() {
                    self.nxt_to_retrx = Some(i);
                }
                last_lost = true;
            } else {
                last_lost = false;
            }
            let end = self.nodes[i].end();
            if i + 1 == self.nodes.len() && end + 1 < snd_nxt {
                // all the packets sent after the board's end are lost too
                self.nodes
                    .push(Node::new(end + 1, snd_nxt - 1, Mark::InFlight));
            }
            i += 1;
        }
        if self.nodes.is_empty() && snd_una < snd_nxt {
            self.nodes.push(Node::new(snd_una, snd_nxt - 1, Mark::Lost));
            self.nxt_to_retrx = Some(0);
            self.fack_out += snd_nxt - snd_una;
        }
        self.rtx_id = 0;
        self.acked_rtx_id = -1;
    }

    /// `GetNextRetran`: the first lost packet from `nxt_to_retrx_` on, if any.
    pub fn next_retran(&mut self) -> Option<i64> {
        while let Some(k) = self.nxt_to_retrx {
            match self.nodes.get(k) {
                Some(n) if n.mark == Mark::Lost => return Some(n.seq),
                Some(_) => self.nxt_to_retrx = Some(k + 1),
                None => self.nxt_to_retrx = None,
            }
        }
        None
    }

    /// `MarkRetran(retran_seqno, snd_nxt)` of the packet `next_retran` returned: it becomes
    /// a retransmission sent with `t_seqno_ = snd_nxt`.
    pub fn mark_retran(&mut self, snd_nxt: i64) {
        let Some(k) = self.nxt_to_retrx else {
            return;
        };
        self.fack_out -= 1;
        if self.nodes[k].nxt > self.nodes[k].seq {
            self.split(k, self.nodes[k].seq + 1);
        }
        let n = &mut self.nodes[k];
        n.mark = Mark::Retransmitted;
        n.nxt = snd_nxt;
        n.rtx = self.rtx_id;
        self.rtx_id += 1;
    }

    /// The blocks as `(state, first, last)` (tests and debugging).
    #[cfg(test)]
    fn dump(&self) -> Vec<(Mark, i64, i64)> {
        self.nodes
            .iter()
            .map(|n| (n.mark, n.seq, n.end()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Mark::*;
    use super::*;

    /// Packets 1..=20 sent (t_seqno_ 21), highest_ack_ 1; 2 and 3 dropped.
    #[test]
    fn fack_marks_a_packet_lost_once_one_four_above_it_is_sacked() {
        let mut sb = Scoreboard1::new();
        // SACK of 4: fack_ 4, nothing lost yet (4 - 4 = 0 < 2)
        let f = sb.update(1, &[(4, 5)]);
        assert_eq!(f, FLAG_DATA_SACKED);
        assert_eq!(sb.dump(), [(InFlight, 2, 3), (Sacked, 4, 4)]);
        assert_eq!(sb.packets_in_flight(2, 21), 21 - 2 - 1);
        assert_eq!(sb.next_retran(), None);
        // 4-5 SACKed: fack_ 5, threshold 1: still nothing
        assert_eq!(sb.update(1, &[(4, 6)]) & FLAG_DATA_LOST, 0);
        // 4-6 SACKed: fack_ 6, threshold 2: packet 2 is lost, 3 is not
        let f = sb.update(1, &[(4, 7)]);
        assert_eq!(f & FLAG_DATA_LOST, FLAG_DATA_LOST);
        assert_eq!(sb.dump(), [(Lost, 2, 2), (InFlight, 3, 3), (Sacked, 4, 6)]);
        assert_eq!(sb.packets_in_flight(2, 21), 19 - 3 - 1);
        assert_eq!(sb.next_retran(), Some(2));
        // 7 SACKed: 3 is lost too, and merges with 2
        sb.update(1, &[(4, 8)]);
        assert_eq!(sb.dump(), [(Lost, 2, 3), (Sacked, 4, 7)]);
        assert_eq!(sb.packets_in_flight(2, 21), 19 - 4 - 2);
    }

    /// A retransmission is lost again once a packet sent after it is SACKed.
    #[test]
    fn a_retransmission_is_lost_again_when_later_data_is_sacked() {
        let mut sb = Scoreboard1::new();
        sb.update(1, &[(3, 8)]); // 2 lost (fack_ 7)
        assert_eq!(sb.next_retran(), Some(2));
        sb.mark_retran(21); // 2 sent again before packet 21
        assert_eq!(sb.dump(), [(Retransmitted, 2, 2), (Sacked, 3, 7)]);
        assert_eq!(sb.packets_in_flight(2, 21), 19 - 5);
        assert_eq!(sb.next_retran(), None);
        // SACKs up to 20: the retransmission is not lost (21 not SACKed yet)
        assert_eq!(sb.update(1, &[(3, 21)]) & FLAG_DATA_LOST, 0);
        assert_eq!(sb.dump(), [(Retransmitted, 2, 2), (Sacked, 3, 20)]);
        // packet 21 SACKed: 2 is lost again and next to retransmit
        let f = sb.update(1, &[(3, 22)]);
        assert_eq!(f & FLAG_DATA_LOST, FLAG_DATA_LOST);
        assert_eq!(sb.dump(), [(Lost, 2, 2), (Sacked, 3, 21)]);
        assert_eq!(sb.next_retran(), Some(2));
        // the cumulative ACK of 21 empties the board (and resets fack_)
        assert_eq!(sb.update(21, &[]), 0);
        assert!(sb.is_empty());
        assert_eq!(sb.packets_in_flight(22, 30), 8);
    }

    /// Retransmissions of a lost run go one packet at a time, the run split as it goes; a
    /// retransmission acknowledged four numbers after another marks that one lost.
    #[test]
    fn get_next_retran_walks_the_lost_run_and_rtx_ids_count() {
        let mut sb = Scoreboard1::new();
        sb.update(0, &[(7, 12)]); // 1..=6 unSACKed, fack_ 11: 1..=7 below threshold 7
        assert_eq!(sb.dump(), [(Lost, 1, 6), (Sacked, 7, 11)]);
        for k in 1..=6 {
            assert_eq!(sb.next_retran(), Some(k));
            sb.mark_retran(12); // no new data between them
        }
        assert_eq!(sb.next_retran(), None);
        assert_eq!(sb.packets_in_flight(1, 12), 11 - 5);
        // retransmissions 2..=6 (ids 1..=5) SACKed: acked_rtx_id_ rises to 5 on the way,
        // after 1 (id 0) was passed: one pass does not see it (scoreboard1.cc's comment)
        assert_eq!(sb.update(0, &[(2, 12)]) & FLAG_DATA_LOST, 0);
        assert_eq!(sb.dump(), [(Retransmitted, 1, 1), (Sacked, 2, 11)]);
        // the next SACK does: 0 + 4 < 5, 1 is lost again
        let f = sb.update(0, &[(2, 12)]);
        assert_eq!(f & FLAG_DATA_LOST, FLAG_DATA_LOST);
        assert_eq!(sb.dump(), [(Lost, 1, 1), (Sacked, 2, 11)]);
    }

    /// A timeout marks everything not SACKed lost, up to t_seqno_ - 1, merged.
    #[test]
    fn mark_loss_at_a_timeout() {
        let mut sb = Scoreboard1::new();
        sb.update(0, &[(3, 5)]); // [1,2] in flight, [3,4] SACKed
        sb.mark_loss(1, 10);
        assert_eq!(sb.dump(), [(Lost, 1, 2), (Sacked, 3, 4), (Lost, 5, 9)]);
        assert_eq!(sb.packets_in_flight(1, 10), 9 - 7 - 2);
        assert_eq!(sb.next_retran(), Some(1));
        let mut empty = Scoreboard1::new();
        empty.mark_loss(5, 9);
        assert_eq!(empty.dump(), [(Lost, 5, 8)]);
        assert_eq!(empty.packets_in_flight(5, 9), 0);
    }

    /// The cumulative ACK cleans partly covered blocks and keeps the counts.
    #[test]
    fn clean_rtx_queue_trims_the_head() {
        let mut sb = Scoreboard1::new();
        sb.update(0, &[(6, 9)]); // 1 lost (fack_ 8, threshold 4: 1..=4 lost)
        assert_eq!(sb.dump(), [(Lost, 1, 4), (InFlight, 5, 5), (Sacked, 6, 8)]);
        sb.update(2, &[(6, 9)]);
        assert_eq!(sb.dump(), [(Lost, 3, 4), (InFlight, 5, 5), (Sacked, 6, 8)]);
        assert_eq!(sb.packets_in_flight(3, 12), 9 - 2 - 3);
    }
}
