//! The sender's SACK scoreboard and the loss-recovery rules of RFC 6675, "A Conservative Loss
//! Recovery Algorithm Based on Selective Acknowledgment (SACK) for TCP".
//!
//! The scoreboard keeps the SACKed byte ranges above snd_una (sorted, merged, in a vector that
//! is reused: no allocation once it has grown to the largest number of holes seen). With
//! HighRxt (section 2: the highest byte retransmitted in this recovery) it answers:
//! * `IsLost(seq)` (section 4): DupThresh discontiguous SACKed ranges, or more than
//!   (DupThresh-1)*SMSS SACKed bytes, lie above seq. All bytes of one hole share the answer.
//! * `SetPipe` (section 4): bytes outstanding = every unSACKed byte not lost, plus every byte
//!   retransmitted (below HighRxt), between HighACK and HighData.
//! * `NextSeg` (section 4): rule 1, the first lost unSACKed byte above HighRxt; rule 2 (new
//!   data) is the sender's; rule 3, the first unSACKed byte above HighRxt that is not lost.

#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    /// SACKed [start, end) ranges above snd_una, sorted and disjoint.
    ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    pub fn new() -> Self {
        Self {
            ranges: Vec::with_capacity(16),
        }
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Number of SACKed ranges (the hole index of the region above the last one).
    pub fn ranges(&self) -> usize {
        self.ranges.len()
    }

    /// Highest SACKed byte + 1, if any.
    pub fn high_sacked(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1)
    }

    pub fn sacked_bytes(&self) -> u64 {
        self.ranges.iter().map(|r| r.1 - r.0).sum()
    }

    /// Forgets everything below the cumulative ACK.
    pub fn advance(&mut self, snd_una: u64) {
        let drop = self.ranges.iter().take_while(|r| r.1 <= snd_una).count();
        if drop > 0 {
            self.ranges.drain(..drop);
        }
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(snd_una);
        }
    }

    /// Records one SACK block (blocks below snd_una, D-SACKs, are ignored). Returns the
    /// bytes newly SACKed.
    pub fn add(&mut self, snd_una: u64, start: u64, end: u64) -> u64 {
        let start = start.max(snd_una);
        if end <= start {
            return 0;
        }
        let before = self.sacked_bytes();
        // First range that ends at or after `start` (could merge).
        let i = self.ranges.partition_point(|r| r.1 < start);
        let mut j = i;
        let (mut s, mut e) = (start, end);
        while j < self.ranges.len() && self.ranges[j].0 <= e {
            s = s.min(self.ranges[j].0);
            e = e.max(self.ranges[j].1);
            j += 1;
        }
        if j > i {
            self.ranges[i] = (s, e);
            self.ranges.drain(i + 1..j);
        } else {
            self.ranges.insert(i, (s, e));
        }
        self.sacked_bytes() - before
    }

    pub fn is_sacked(&self, seq: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        i < self.ranges.len() && self.ranges[i].0 <= seq
    }

    /// SACKed bytes in [a, b).
    pub fn sacked_between(&self, a: u64, b: u64) -> u64 {
        self.ranges
            .iter()
            .map(|r| r.1.min(b).saturating_sub(r.0.max(a)))
            .sum()
    }

    /// End of the SACKed range containing `seq`, if any (to skip it when sending).
    pub fn sacked_until(&self, seq: u64) -> Option<u64> {
        let i = self.ranges.partition_point(|r| r.1 <= seq);
        (i < self.ranges.len() && self.ranges[i].0 <= seq).then(|| self.ranges[i].1)
    }

    /// Number of SACKed ranges above and SACKed bytes above the hole that ends at range `k`.
    fn above(&self, k: usize) -> (usize, u64) {
        let n = self.ranges.len() - k;
        let b = self.ranges[k..].iter().map(|r| r.1 - r.0).sum();
        (n, b)
    }

    pub(crate) fn hole_lost(&self, k: usize, dupthresh: u32, mss: u64) -> bool {
        let (n, b) = self.above(k);
        n >= dupthresh as usize || b > (dupthresh as u64 - 1) * mss
    }

    /// RFC 6675 `IsLost(seq)` for an unSACKed byte.
    pub fn is_lost(&self, seq: u64, dupthresh: u32, mss: u64) -> bool {
        let k = self.ranges.partition_point(|r| r.1 <= seq);
        k < self.ranges.len() && self.hole_lost(k, dupthresh, mss)
    }

    /// The holes [a, b) between snd_una and snd_max, each with its hole index (the index of
    /// the SACKed range just above it; `ranges.len()` for the region above the last range).
    pub(crate) fn holes(
        &self,
        snd_una: u64,
        snd_max: u64,
    ) -> impl Iterator<Item = (usize, u64, u64)> + '_ {
        let mut prev = snd_una;
        let n = self.ranges.len();
        (0..=n).filter_map(move |k| {
            let (a, b) = if k < n {
                let r = self.ranges[k];
                let h = (prev, r.0.min(snd_max));
                prev = r.1;
                h
            } else {
                (prev, snd_max)
            };
            (b > a).then_some((k, a, b))
        })
    }

    /// Bytes of the holes between snd_una and snd_max that `IsLost` holds lost, counting only
    /// those at or above `from`.
    pub fn lost_bytes(
        &self,
        snd_una: u64,
        snd_max: u64,
        from: u64,
        dupthresh: u32,
        mss: u64,
    ) -> u64 {
        let n = self.ranges.len();
        self.holes(snd_una, snd_max)
            .filter(|&(k, _, _)| k < n && self.hole_lost(k, dupthresh, mss))
            .map(|(_, a, b)| b - a.max(from).min(b))
            .sum()
    }

    /// RFC 6675 `SetPipe`: bytes considered in the network.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, high_rxt: u64, dupthresh: u32, mss: u64) -> u64 {
        let n = self.ranges.len();
        let mut pipe = 0;
        for (k, a, b) in self.holes(snd_una, snd_max) {
            let lost = k < n && self.hole_lost(k, dupthresh, mss);
            if !lost {
                pipe += b - a;
            }
            if high_rxt > a {
                pipe += high_rxt.min(b) - a;
            }
        }
        pipe
    }

    /// ns-2's `ScoreBoardRQ::GetNextRetran` (`scoreboard-rq.cc`, `ReassemblyQueue::nexthole`):
    /// the first unSACKed byte at or above `from` (and snd_una) with a SACKed range above it,
    /// whether or not DupThresh segments are SACKed above; at most one segment long.
    pub fn first_hole_below_sacked(
        &self,
        snd_una: u64,
        snd_max: u64,
        from: u64,
        mss: u64,
    ) -> Option<(u64, u64)> {
        let n = self.ranges.len();
        self.holes(snd_una, snd_max)
            .filter(|&(k, _, _)| k < n)
            .find_map(|(_, a, b)| {
                let a = a.max(from);
                (a < b).then(|| (a, (b - a).min(mss)))
            })
    }

    /// RFC 6675 `NextSeg` rules 1 and 3: the start and length of the next retransmission.
    pub fn next_seg(
        &self,
        snd_una: u64,
        snd_max: u64,
        high_rxt: u64,
        dupthresh: u32,
        mss: u64,
        rule3: bool,
    ) -> Option<(u64, u64)> {
        let n = self.ranges.len();
        let mut rule3_pick = None;
        for (k, a, b) in self.holes(snd_una, snd_max) {
            let a = a.max(high_rxt);
            if a >= b {
                continue;
            }
            if k < n && self.hole_lost(k, dupthresh, mss) {
                return Some((a, (b - a).min(mss)));
            }
            // Rule 3 applies only below the highest SACKed byte.
            if rule3 && rule3_pick.is_none() && k < n {
                rule3_pick = Some((a, (b - a).min(mss)));
            }
        }
        rule3_pick
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- scoreboard bookkeeping ----
    #[test]
    fn merge_advance_and_pipe() {
        let mss = 100;
        let mut sb = Scoreboard::new();
        // snd_una 0, sent up to 1000: segment 0 lost, 1..=4 SACKed.
        assert_eq!(sb.add(0, 100, 200), 100);
        assert_eq!(sb.add(0, 300, 500), 200);
        assert_eq!(sb.add(0, 200, 300), 100); // joins both
        assert_eq!(sb.sacked_bytes(), 400);
        assert!(sb.is_sacked(250) && !sb.is_sacked(50) && !sb.is_sacked(500));
        // 400 bytes SACKed above 0 > 2*mss: byte 0 is lost.
        assert!(sb.is_lost(0, 3, mss));
        assert!(!sb.is_lost(600, 3, mss));
        // pipe: [0,100) lost -> 0; [500,1000) not lost -> 500.
        assert_eq!(sb.pipe(0, 1000, 0, 3, mss), 500);
        // After retransmitting [0,100): +100.
        assert_eq!(sb.pipe(0, 1000, 100, 3, mss), 600);
        assert_eq!(sb.next_seg(0, 1000, 0, 3, mss, false), Some((0, 100)));
        assert_eq!(sb.next_seg(0, 1000, 100, 3, mss, false), None);
        assert_eq!(sb.sacked_between(0, 1000), 400);
        assert_eq!(sb.sacked_between(150, 350), 200);
        assert_eq!(sb.sacked_between(500, 1000), 0);
        assert_eq!(sb.lost_bytes(0, 1000, 0, 3, mss), 100);
        sb.advance(500);
        assert!(sb.is_empty());
    }
}
