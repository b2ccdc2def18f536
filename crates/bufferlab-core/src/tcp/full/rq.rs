//! ns-2.35's ReassemblyQueue (`tcp/rq.cc`, `tcp/rq.h`), the block list FullTcp keeps twice:
//! the receiver's out-of-order data (`rq_`, whose blocks also become the SACK blocks of
//! SackFullTcpAgent's ACKs, `gensack`) and SackFullTcpAgent's scoreboard of what the peer
//! SACKed (`sq_`).
//!
//! The queue has two orders, as in rq.cc: the FIFO list by sequence number (`head_` ..
//! `tail_`) and a LIFO stack of the blocks by when they were pushed (`top_` ..
//! `bottom_`): `push` puts each block it inserts on top, and a block that grows by merging
//! with a newer one keeps its place in the stack (`coalesce` removes the new one). Here the
//! FIFO list is a vector sorted by start and the stack order is a push counter kept with each
//! block. `add` and `coalesce` follow ReassemblyQueue::add / ::coalesce case for case,
//! including their updates of the externally owned next-expected number (`rcv_nxt_`, a
//! reference in rq.h: the receiver's `rcv_nxt_`, the scoreboard's `sack_min_`), passed
//! here as `nxt`.

/// One block [start, end) (rq.h `seginfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seg {
    start: i64,
    end: i64,
    flags: u8,
    /// The stack order: higher was pushed later (nearer `top_`).
    pushed: u64,
}

/// rq.h `ReassemblyQueue`.
#[derive(Debug, Clone, Default)]
pub(crate) struct ReassemblyQueue {
    segs: Vec<Seg>,
    pushes: u64,
    total: i64,
}

impl ReassemblyQueue {
    pub(crate) fn empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// rq.h `total()`: the bytes held.
    pub(crate) fn total(&self) -> i64 {
        self.total
    }

    /// rq.cc `clear`.
    pub(crate) fn clear(&mut self) {
        self.segs.clear();
        self.total = 0;
    }

    /// rq.cc `push`: the block at `i` goes on top of the stack.
    fn push(&mut self, i: usize) {
        self.pushes += 1;
        self.segs[i].pushed = self.pushes;
    }

    /// rq.cc `add`: adds [start, end) with the TCP flags `tiflags`; returns the flags of the
    /// block it ends up in (or `tiflags`), and moves `nxt` to the end of a block that
    /// starts at or below it.
    pub(crate) fn add(&mut self, start: i64, end: i64, tiflags: u8, nxt: &mut i64) -> u8 {
        let (mut start, mut end, mut tiflags) = (start, end, tiflags);
        if self.segs.is_empty() {
            self.segs.push(Seg {
                start,
                end,
                flags: tiflags,
                pushed: 0,
            });
            self.push(0);
            self.total = end - start;
            if *nxt >= start {
                *nxt = end;
            }
            return tiflags;
        }
        // again2: p is the block before the new one, q the block after (indices)
        let (p, q, needmerge) = loop {
            let last = self.segs.len() - 1;
            if start >= self.segs[last].end {
                break (Some(last), None, start == self.segs[last].end);
            }
            if end <= self.segs[0].start {
                break (None, Some(0), end == self.segs[0].start);
            }
            let q = self.segs.iter().position(|s| s.start >= end);
            let p = self.segs.iter().rposition(|s| s.end <= start);
            // kill anything completely overlapped
            let mut altered = false;
            let mut r = p.unwrap_or(0);
            let mut qi = q;
            while r < qi.unwrap_or(self.segs.len()) {
                let s = self.segs[r];
                if start == s.start && end == s.end {
                    // exact overlap
                    self.segs[r].flags |= tiflags;
                    return self.segs[r].flags;
                } else if start <= s.start && end >= s.end {
                    // complete overlap, not exact
                    self.total -= s.end - s.start;
                    tiflags |= s.flags;
                    self.segs.remove(r);
                    qi = qi.map(|x| x - 1);
                    altered = true;
                } else {
                    r += 1;
                }
            }
            if self.segs.is_empty() {
                break (None, None, false);
            }
            if altered {
                continue;
            }
            let (mut p, mut q, mut needmerge) = (p, q, false);
            // left-side merge: the new block overlaps the start of the block after p
            if p.is_none_or(|pi| self.segs[pi + 1].start < start) {
                let pi = p.map_or(0, |pi| pi + 1);
                let s = &mut self.segs[pi];
                if start < s.start {
                    self.total += s.start - start;
                    s.start = start;
                }
                start = s.end;
                needmerge = true;
                s.flags |= tiflags;
                p = Some(pi);
            }
            // right-side merge: the new block overlaps the end of the block before q
            if q.is_none_or(|qi| self.segs[qi - 1].end > end) {
                let qi = q.map_or(self.segs.len() - 1, |qi| qi - 1);
                let s = &mut self.segs[qi];
                if end > s.end {
                    self.total += end - s.end;
                    s.end = end;
                }
                end = s.start;
                needmerge = true;
                s.flags |= tiflags;
                q = Some(qi);
            }
            if end <= start {
                if *nxt >= self.segs[0].start {
                    *nxt = self.segs[0].end;
                }
                return tiflags;
            }
            if let (false, Some(pi), Some(qi)) = (needmerge, p, q) {
                let (ps, qs) = (self.segs[pi], self.segs[qi]);
                if pi + 1 == qi && ps.end <= start && qs.start >= end {
                    needmerge = ps.end == start || qs.start == end;
                }
            }
            break (p, q, needmerge);
        };
        // endfast: insert between p and q, on top of the stack
        let n = p.map_or(0, |pi| pi + 1);
        self.segs.insert(
            n,
            Seg {
                start,
                end,
                flags: tiflags,
                pushed: 0,
            },
        );
        self.push(n);
        self.total += end - start;
        if needmerge {
            let q = q.map(|_| n + 1);
            return self.coalesce(p, n, q, nxt);
        }
        if *nxt >= start {
            *nxt = end;
        }
        tiflags
    }

    /// rq.cc `coalesce`: the new block `n` joins the block before it (`p`), after it (`q`),
    /// or fills the hole between them; the surviving block keeps its place in the stack.
    fn coalesce(&mut self, p: Option<usize>, n: usize, q: Option<usize>, nxt: &mut i64) -> u8 {
        let ns = self.segs[n];
        let mut flags = 0;
        let mut at = p;
        match (p, q) {
            (Some(pi), Some(qi))
                if self.segs[pi].end == ns.start && ns.end == self.segs[qi].start =>
            {
                let qs = self.segs[qi];
                let s = &mut self.segs[pi];
                s.end = qs.end;
                s.flags |= ns.flags;
                flags = s.flags;
                self.segs.remove(qi);
                self.segs.remove(n);
            }
            (Some(pi), _) if self.segs[pi].end == ns.start => {
                let s = &mut self.segs[pi];
                s.end = ns.end;
                s.flags |= ns.flags;
                flags = s.flags;
                self.segs.remove(n);
            }
            (_, Some(qi)) if ns.end == self.segs[qi].start => {
                let s = &mut self.segs[qi];
                s.start = ns.start;
                s.flags |= ns.flags;
                flags = s.flags;
                self.segs.remove(n);
                at = Some(qi - 1);
            }
            _ => {}
        }
        let s = self.segs[at.unwrap_or(n)];
        if *nxt >= s.start {
            *nxt = s.end;
        }
        flags
    }

    /// rq.cc `clearto`: drops the blocks below `seq` (trimming one that straddles it);
    /// returns their flags.
    pub(crate) fn clearto(&mut self, seq: i64) -> u8 {
        let mut flag = 0;
        while let Some(s) = self.segs.first().copied() {
            if s.end > seq {
                break;
            }
            flag |= s.flags;
            self.total -= s.end - s.start;
            self.segs.remove(0);
        }
        if let Some(s) = self.segs.first_mut() {
            if s.start <= seq && s.end > seq {
                self.total -= seq - s.start;
                s.start = seq;
                flag |= s.flags;
            }
        }
        flag
    }

    /// rq.cc `gensack`: up to `max` blocks, the most recently pushed first.
    pub(crate) fn gensack(&self, max: usize) -> Vec<(i64, i64)> {
        let mut order: Vec<&Seg> = self.segs.iter().collect();
        order.sort_by_key(|s| std::cmp::Reverse(s.pushed));
        order.iter().take(max).map(|s| (s.start, s.end)).collect()
    }

    /// rq.cc `cnts`: blocks and bytes from block `i` to the tail.
    fn cnts(&self, i: usize) -> (i64, i64) {
        let rest = &self.segs[i..];
        (
            rest.len() as i64,
            rest.iter().map(|s| s.end - s.start).sum(),
        )
    }

    /// rq.cc `nexthole`: the next hole at or above `seq` (-1: none) with the block count and
    /// bytes of the blocks after it (-1, -1 when none follow).
    pub(crate) fn nexthole(&self, seq: i64) -> (i64, i64, i64) {
        for (i, s) in self.segs.iter().enumerate() {
            if s.start > seq {
                let (c, b) = self.cnts(i);
                return (seq, c, b);
            }
            if s.start <= seq && s.end >= seq {
                let (c, b) = if i + 1 < self.segs.len() {
                    self.cnts(i + 1)
                } else {
                    (-1, -1)
                };
                return (s.end, c, b);
            }
        }
        (-1, -1, -1)
    }

    /// The blocks in sequence order (tests).
    #[cfg(test)]
    pub(crate) fn blocks(&self) -> Vec<(i64, i64)> {
        self.segs.iter().map(|s| (s.start, s.end)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::ReassemblyQueue;

    #[test]
    fn blocks_merge_and_the_next_expected_number_moves_over_a_filled_hole() {
        let mut q = ReassemblyQueue::default();
        let mut nxt = 1;
        q.add(11, 21, 0, &mut nxt);
        q.add(31, 41, 0, &mut nxt);
        assert_eq!(q.blocks(), vec![(11, 21), (31, 41)]);
        assert_eq!((nxt, q.total()), (1, 20));
        // joins the first block on its right: still out of order
        q.add(21, 31, 0, &mut nxt);
        assert_eq!(q.blocks(), vec![(11, 41)]);
        assert_eq!(nxt, 1);
        // fills the hole at nxt: nxt moves to the block's end, clearto drops it
        q.add(1, 11, 0x08, &mut nxt);
        assert_eq!((q.blocks(), nxt, q.total()), (vec![(1, 41)], 41, 40));
        assert_eq!(q.clearto(nxt), 0x08);
        assert!(q.empty());
        assert_eq!(q.total(), 0);
    }

    #[test]
    fn sack_blocks_come_newest_first_and_a_grown_block_keeps_its_place() {
        let mut q = ReassemblyQueue::default();
        let mut nxt = 0;
        for s in [10, 30, 50] {
            q.add(s, s + 10, 0, &mut nxt);
        }
        assert_eq!(q.gensack(3), vec![(50, 60), (30, 40), (10, 20)]);
        // [20, 25) joins the oldest block: rq.cc coalesce drops the new one, the old stays
        q.add(20, 25, 0, &mut nxt);
        assert_eq!(q.gensack(3), vec![(50, 60), (30, 40), (10, 25)]);
        // a block of its own goes on top; only max blocks are reported
        q.add(70, 80, 0, &mut nxt);
        assert_eq!(q.gensack(3), vec![(70, 80), (50, 60), (30, 40)]);
    }

    #[test]
    fn covering_blocks_are_replaced_and_exact_duplicates_only_add_flags() {
        let mut q = ReassemblyQueue::default();
        let mut nxt = 0;
        q.add(10, 20, 0, &mut nxt);
        q.add(30, 40, 0, &mut nxt);
        assert_eq!(q.add(30, 40, 0x01, &mut nxt), 0x01);
        assert_eq!(q.blocks(), vec![(10, 20), (30, 40)]);
        q.add(25, 45, 0, &mut nxt);
        assert_eq!(q.blocks(), vec![(10, 20), (25, 45)]);
        // overlapping the start of a block extends it
        q.add(5, 15, 0, &mut nxt);
        assert_eq!(q.blocks(), vec![(5, 20), (25, 45)]);
        assert_eq!(q.total(), 35);
        // clearto in the middle of a block trims it
        q.clearto(30);
        assert_eq!(q.blocks(), vec![(30, 45)]);
        assert_eq!(q.total(), 15);
    }

    #[test]
    fn nexthole_finds_the_hole_and_counts_the_blocks_after_it() {
        let mut q = ReassemblyQueue::default();
        let mut nxt = -1;
        q.add(100, 200, 0, &mut nxt);
        q.add(300, 400, 0, &mut nxt);
        // below the first block: the hole is seq itself, two blocks (200 bytes) follow
        assert_eq!(q.nexthole(50), (50, 2, 200));
        // inside the first block: the hole starts at its end, one block follows
        assert_eq!(q.nexthole(150), (200, 1, 100));
        // inside the last block: its end, nothing follows
        assert_eq!(q.nexthole(350), (400, -1, -1));
        assert_eq!(q.nexthole(500), (-1, -1, -1));
    }
}
