//! The event scheduler: a calendar queue keyed by (time, sequence number). Events at the
//! same picosecond run in the order they were scheduled (FIFO), which makes every run a
//! pure function of the scenario and the seed, independent of heap internals.
//!
//! An entry is 16 bytes: the time, then the sequence number (32 bits) and the event packed
//! into 32 bits. Measured on the 100-flow bench case: the heap's sift-down is the hottest loop
//! of a run, and halving the entry from 32 bytes (u128 key beside the event) made it cheaper.
//! The sequence number wraps after 2^32 events: from then on, two events due at the same
//! picosecond and scheduled more than 2^32 events apart may run out of FIFO order; runs stay
//! deterministic (the order is still a pure function of the scenario and the seed).

use crate::units::SimTime;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// An event that fits in 32 bits.
pub trait Packed32: Copy {
    fn pack(self) -> u32;
    fn unpack(bits: u32) -> Self;
}

#[derive(Copy, Clone)]
struct Entry {
    time: u64,
    /// Sequence number (high 32 bits), packed event (low 32 bits).
    tie: u64,
}

impl Entry {
    #[inline]
    fn key(&self) -> u128 {
        ((self.time as u128) << 64) | self.tie as u128
    }
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key() == o.key()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    // Reversed so that std's max-heap pops the earliest (time, seq) first.
    #[inline]
    fn cmp(&self, o: &Self) -> Ordering {
        o.key().cmp(&self.key())
    }
}

/// Width of a calendar bucket: 2^27 ps = 134 us (about one 1500-byte packet at 100 Mbit/s;
/// at the 100-flow bench case a bucket holds a handful of events).
pub const BUCKET_BITS: u32 = 27;
/// Buckets a second under ns-2's clock, whose keys are doubles' bits (`clock.rs`): 2^13, so
/// 122 us a bucket, as the picosecond clock's. A bucket of the keys' bits themselves (the
/// first try: 2^39 units in the last place, 122 us between 1 and 2 s) doubles in width every
/// binade of time: 31 ms between 256 and 512 s, where a slow link's run held a hundred events
/// a bucket and spent its time inserting into the sorted one (ns-2's red suite, flows_unforced,
/// 500 s: slower than ns-2 itself).
pub const NS2_BUCKETS_PER_S: f64 = 8192.0;

/// How a key maps to its calendar bucket. Monotone (a later key never has an earlier bucket),
/// so the calendar's order is the keys' order whatever the width.
pub trait Buckets {
    /// The calendar may change its buckets' width to the events' density (`adapt`).
    const ADAPTS: bool;
    /// The bucket of `key` for a calendar whose buckets are 2^`bits` keys wide, where the
    /// keys allow a choice (`Scheduler::with_bucket_bits`).
    fn of(key: u64, bits: u32) -> u64;
}

/// Picosecond keys: 2^bits ps a bucket (BUCKET_BITS unless the network asks for narrower).
pub struct PsBuckets;

impl Buckets for PsBuckets {
    const ADAPTS: bool = true;
    #[inline(always)]
    fn of(key: u64, bits: u32) -> u64 {
        key >> bits
    }
}

/// ns-2's keys, a non-negative double's bits: the time in seconds times NS2_BUCKETS_PER_S,
/// truncated (a product by a power of two is exact, and truncation is monotone).
pub struct Ns2Buckets;

impl Buckets for Ns2Buckets {
    // the width is fixed by the keys (`NS2_BUCKETS_PER_S`)
    const ADAPTS: bool = false;
    #[inline(always)]
    fn of(key: u64, _bits: u32) -> u64 {
        (f64::from_bits(key) * NS2_BUCKETS_PER_S) as u64
    }
}
/// Buckets in the calendar: 1024 x 134 us = 137 ms ahead. Later events (timers, long
/// propagation delays) wait in an overflow heap.
const BUCKETS: usize = 1024;
const WORDS: usize = BUCKETS / 64;

/// The width follows the events' density, as Brown's calendar resizes itself (CACM 1988,
/// section 3): every ADAPT_LOADS buckets the calendar counts the events that passed through
/// each, and outside FEW..=MANY a bucket it moves every pending event into buckets sized for
/// about TARGET. A bucket of many events makes each event scheduled into it (most of them at
/// datacenter round trips of microseconds) an insertion into a long sorted vector; a bucket of
/// one event or none makes the calendar step through empty buckets. Measured (whole process,
/// CPU, docs/performance.md "The calendar's width"): 134 us buckets held 82 000 events on the
/// 128-host leaf-spine and a handful on the 100-flow dumbbell.
/// A bucket being run that grows past CROWDED events (one wider than the events' density
/// now needs, after a quiet spell widened it) is narrowed at once, not after ADAPT_LOADS.
const ADAPT_LOADS: u32 = 64;
const TARGET: u64 = 8;
const FEW: u64 = 2;
const MANY: u64 = 32;
const CROWDED: usize = 4096;
/// Widths the calendar may take: 2^10 ps (1 ns) to 2^32 ps (4.3 ms; 4.4 s ahead).
const MIN_BITS: u32 = 10;
const MAX_BITS: u32 = 32;
/// How many events ahead the engine peeks (`Simulation::prefetch_ahead`). When the bucket
/// being run has this many left or fewer, the next bucket is sorted ahead of its turn so that
/// the peeks go on into it: at about TARGET events a bucket, the last events of each bucket
/// were otherwise run with none of their data fetched early.
pub const PEEK_DEPTH: usize = 4;

/// A FIFO-tie-breaking event queue: a calendar queue (R. Brown, "Calendar queues", CACM 1988)
/// with fixed-width buckets in front of a binary heap. The events of the current bucket sit in
/// a small sorted vector (`now`, the earliest last); later buckets are unsorted vectors, taken
/// whole (swapped in, then sorted) when their turn comes;
/// events beyond the calendar's span sit in an overflow heap and join the current heap when
/// their bucket comes. The order is exactly the (time, sequence) order of a single heap
/// (tested against one), so runs are identical; only the cost differs: an event costs a
/// vector push and a pop from a heap of a few entries instead of a pop from a heap of every
/// pending event. Measured against a single binary heap, same results: 4 % fewer
/// instructions on the 100-flow case, 8 % less time with 10 000 flows (60 000 pending events).
/// A sorted vector instead of a heap for the current bucket (a bucket holds a handful of
/// events, and few are scheduled into the bucket being run): a pop is a `Vec::pop`, loading a
/// bucket a swap and an insertion sort; measured with cachegrind in docs/performance.md.
pub struct Scheduler<E, B: Buckets = PsBuckets> {
    /// Events of buckets up to `epoch` (inclusive), sorted by `Entry`'s order: the earliest
    /// (the greatest, as the order is reversed for the heaps) is last.
    now: Vec<Entry>,
    /// The bucket number (`B::of(key)`) whose events are in `now`.
    epoch: u64,
    /// Ring of later buckets: bucket b lives at b % BUCKETS, for epoch < b < epoch + BUCKETS.
    ring: Vec<Vec<Entry>>,
    /// One bit per ring slot: the slot holds events.
    occupied: [u64; WORDS],
    in_ring: usize,
    /// Events at or beyond bucket epoch + BUCKETS when scheduled.
    far: BinaryHeap<Entry>,
    next_seq: u32,
    /// A bucket is 2^bits keys wide (`PsBuckets`; ns-2's keys have their own width).
    bits: u32,
    /// Buckets loaded, and events that went through them, since the width was last looked at.
    loads: u32,
    through: u64,
    /// The key of the last event popped: no pending event is earlier.
    last_key: u64,
    /// The bucket being run was found crowded once (narrowed or at its narrowest).
    crowded: bool,
    /// Room to move the events when the width changes (kept, so that it allocates once).
    moving: Vec<Entry>,
    /// The bucket after the one being run was sorted early for peeking (`PEEK_DEPTH`): this
    /// is its number. Events scheduled into it since are unsorted at its end, which only
    /// makes a peek name another event (loading the bucket sorts it whole).
    sorted_next: u64,
    _event: std::marker::PhantomData<(E, B)>,
}

impl<E, B: Buckets> Default for Scheduler<E, B> {
    fn default() -> Self {
        Self {
            now: Vec::with_capacity(64),
            epoch: 0,
            ring: (0..BUCKETS).map(|_| Vec::new()).collect(),
            occupied: [0; WORDS],
            in_ring: 0,
            far: BinaryHeap::with_capacity(256),
            next_seq: 0,
            bits: BUCKET_BITS,
            loads: 0,
            through: 0,
            last_key: 0,
            crowded: false,
            moving: Vec::new(),
            sorted_next: u64::MAX,
            _event: std::marker::PhantomData,
        }
    }
}

impl<E: Packed32, B: Buckets> Scheduler<E, B> {
    /// An empty calendar whose buckets are 2^`bits` keys wide. The order of events is the
    /// same at any width (`same_order_as_one_ordered_set_at_any_width`); only the cost changes.
    pub fn with_bucket_bits(bits: u32) -> Self {
        assert!((8..=40).contains(&bits), "bucket of 2^{bits} keys");
        Self {
            bits,
            ..Self::default()
        }
    }

    /// log2 of a bucket's width in keys.
    pub fn bucket_bits(&self) -> u32 {
        self.bits
    }

    /// Moves every pending event into buckets 2^`bits` keys wide. Each keeps its key and
    /// sequence number, so the order is unchanged.
    fn rebucket(&mut self, bits: u32) {
        let mut moving = std::mem::take(&mut self.moving);
        moving.append(&mut self.now);
        for slot in &mut self.ring {
            moving.append(slot);
        }
        moving.extend(self.far.drain());
        self.occupied = [0; WORDS];
        self.in_ring = 0;
        self.sorted_next = u64::MAX;
        self.bits = bits;
        self.epoch = B::of(self.last_key, bits);
        for e in moving.drain(..) {
            self.place(e);
        }
        self.moving = moving;
        // `place` appended to the bucket being run: put it in order
        self.now.sort_unstable();
        // the next look counts from here
        (self.loads, self.through) = (0, 0);
    }

    /// The bucket being run holds more than CROWDED events: buckets for about TARGET of them.
    #[cold]
    fn narrow_crowded(&mut self) {
        self.crowded = true;
        let bits = self
            .bits
            .saturating_sub((self.now.len() as u64 / TARGET).ilog2())
            .max(MIN_BITS);
        if bits < self.bits {
            self.rebucket(bits);
        }
    }

    /// Every ADAPT_LOADS buckets, a new width if the buckets held too few or too many events;
    /// true when the events moved.
    #[inline]
    fn adapt(&mut self) -> bool {
        self.loads += 1;
        if self.loads < ADAPT_LOADS {
            return false;
        }
        let (loads, through) = (u64::from(self.loads), self.through);
        self.loads = 0;
        self.through = 0;
        let bits = if through > MANY * loads {
            // halve the width once for each factor of two above TARGET a bucket
            self.bits
                .saturating_sub((through / (TARGET * loads)).ilog2())
        } else if through < FEW * loads {
            self.bits + (TARGET * loads / through.max(1)).ilog2()
        } else {
            return false;
        };
        let bits = bits.clamp(MIN_BITS, MAX_BITS);
        if bits == self.bits {
            return false;
        }
        self.rebucket(bits);
        true
    }

    /// Room for `per_bucket` events in every calendar bucket and `far` events beyond the
    /// calendar, so that a run whose event load is known does not grow them while it runs
    /// (tests/no_allocation.rs; paced senders keep many more timer events queued).
    pub fn reserve(&mut self, per_bucket: usize, far: usize) {
        self.now.reserve(per_bucket);
        for b in &mut self.ring {
            b.reserve(per_bucket.saturating_sub(b.len()));
        }
        self.far.reserve(far.saturating_sub(self.far.len()));
    }

    /// Schedules `event` at `time`.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        self.schedule_key(time.0, event)
    }

    /// Schedules `event` at key `key`: a time in picoseconds, or any other monotone key of
    /// time (`clock.rs`: ns-2's double seconds as bits).
    #[inline]
    pub fn schedule_key(&mut self, key: u64, event: E) {
        let e = Entry {
            time: key,
            tie: ((self.next_seq as u64) << 32) | event.pack() as u64,
        };
        self.next_seq = self.next_seq.wrapping_add(1);
        let b = B::of(key, self.bits);
        if b <= self.epoch {
            // Into the bucket being run: keep it sorted (it is short).
            let at = self.now.partition_point(|x| *x < e);
            self.now.insert(at, e);
            self.through += 1;
            if B::ADAPTS && self.now.len() > CROWDED && !self.crowded {
                self.narrow_crowded();
            }
        } else {
            self.place_later(b, e);
        }
    }

    /// Puts `e` where its bucket is, at the end of `now` if it is the bucket being run.
    fn place(&mut self, e: Entry) {
        let b = B::of(e.time, self.bits);
        if b <= self.epoch {
            self.now.push(e);
        } else {
            self.place_later(b, e);
        }
    }

    /// Puts `e`, of bucket `b` after the one being run, into the ring or the overflow heap.
    #[inline(always)]
    fn place_later(&mut self, b: u64, e: Entry) {
        if b - self.epoch < BUCKETS as u64 {
            let slot = b as usize % BUCKETS;
            let bucket = &mut self.ring[slot];
            if bucket.capacity() == 0 {
                // Room for a typical bucket from the first lap on, so that a run in its
                // steady state does not allocate (tests/no_allocation.rs).
                bucket.reserve(16);
            }
            bucket.push(e);
            self.occupied[slot / 64] |= 1 << (slot % 64);
            self.in_ring += 1;
        } else {
            self.far.push(e);
        }
    }

    /// Removes and returns the earliest event if it is due at or before `until`.
    #[inline]
    pub fn pop_until(&mut self, until: SimTime) -> Option<(SimTime, E)> {
        self.pop_until_key(until.0).map(|(k, e)| (SimTime(k), e))
    }

    /// Removes and returns the earliest event (with its key) if its key is at most `until`.
    #[inline(always)]
    pub fn pop_until_key(&mut self, until: u64) -> Option<(u64, E)> {
        if self.now.is_empty() && !self.advance() {
            return None;
        }
        if self.now.last()?.time > until {
            return None;
        }
        let e = self.now.pop()?;
        self.last_key = e.time;
        if self.now.len() < PEEK_DEPTH && self.sorted_next != self.epoch + 1 {
            self.sort_next_bucket();
        }
        Some((e.time, E::unpack(e.tie as u32)))
    }

    /// Sorts the bucket after the one being run, for `peek_queued_nth` (once a bucket).
    #[inline(never)]
    fn sort_next_bucket(&mut self) {
        self.sorted_next = self.epoch + 1;
        self.ring[self.sorted_next as usize % BUCKETS].sort_unstable();
    }

    /// The event `pop_until` gives next when it is in the bucket being run (None otherwise),
    /// so that the engine can fetch its data into the cache while the current event runs.
    #[inline]
    pub fn peek_queued(&self) -> Option<E> {
        self.peek_queued_nth(0)
    }

    /// The event `pop_until` gives `n + 1` pops from now if nothing is scheduled before it
    /// meanwhile, when it is in the bucket being run or, for the last `PEEK_DEPTH` of those,
    /// in the bucket after it (None otherwise): the engine fetches the data of the events a
    /// few ahead in stages (`Simulation::prefetch_ahead`).
    #[inline(always)]
    pub fn peek_queued_nth(&self, n: usize) -> Option<E> {
        let len = self.now.len();
        let e = if n < len {
            self.now[len - 1 - n]
        } else {
            if self.sorted_next != self.epoch + 1 {
                return None;
            }
            let next = &self.ring[self.sorted_next as usize % BUCKETS];
            *next.get(next.len().checked_sub(n - len + 1)?)?
        };
        Some(E::unpack(e.tie as u32))
    }

    /// Moves to the next bucket that holds events (in the ring or the overflow heap) and loads
    /// its events into `now`. False when no event is left. Inlined into the event loop (as it
    /// was before the loop had one copy per clock): a call costs 1 % of a UDP run.
    #[inline(always)]
    fn advance(&mut self) -> bool {
        // a new width may leave the earliest events in the bucket being run
        if B::ADAPTS && self.adapt() && !self.now.is_empty() {
            return true;
        }
        let next_ring = self.next_ring_bucket();
        let next_far = self.far.peek().map(|e| B::of(e.time, self.bits));
        let b = match (next_ring, next_far) {
            (None, None) => return false,
            (Some(r), None) => r,
            (None, Some(f)) => f,
            (Some(r), Some(f)) => r.min(f),
        };
        self.epoch = b;
        // `now` is empty here (advance runs only then): take the bucket's vector whole and
        // leave the empty one, with its capacity, in the ring.
        if next_ring == Some(b) {
            let slot = b as usize % BUCKETS;
            self.occupied[slot / 64] &= !(1 << (slot % 64));
            self.in_ring -= self.ring[slot].len();
            std::mem::swap(&mut self.now, &mut self.ring[slot]);
        }
        // Events that were beyond the calendar when scheduled stay in `far` until their
        // bucket comes.
        while self
            .far
            .peek()
            .is_some_and(|e| B::of(e.time, self.bits) <= b)
        {
            let e = self.far.pop().expect("peeked");
            self.now.push(e);
        }
        // Keys are unique (sequence numbers), so an unstable sort gives one order.
        self.now.sort_unstable();
        self.through += self.now.len() as u64;
        self.crowded = false;
        true
    }

    /// The first occupied ring bucket after `epoch`, as a bucket number.
    fn next_ring_bucket(&self) -> Option<u64> {
        if self.in_ring == 0 {
            return None;
        }
        let start = (self.epoch + 1) as usize % BUCKETS;
        // Scan the bitmap once round the ring from `start`.
        for k in 0..=WORDS {
            let w = (start / 64 + k) % WORDS;
            let mut bits = self.occupied[w];
            if k == 0 {
                bits &= !0u64 << (start % 64);
            } else if k == WORDS {
                bits &= (1u64 << (start % 64)).wrapping_sub(1);
            }
            if bits != 0 {
                let slot = w * 64 + bits.trailing_zeros() as usize;
                let ahead = (slot + BUCKETS - start) % BUCKETS;
                return Some(self.epoch + 1 + ahead as u64);
            }
        }
        unreachable!("in_ring > 0 but no bucket is marked")
    }

    pub fn len(&self) -> usize {
        self.now.len() + self.in_ring + self.far.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Packed32 for char {
        fn pack(self) -> u32 {
            self as u32
        }
        fn unpack(bits: u32) -> Self {
            char::from_u32(bits).unwrap()
        }
    }
    impl Packed32 for () {
        fn pack(self) -> u32 {
            0
        }
        fn unpack(_: u32) -> Self {}
    }

    // ---- ties resolve in FIFO order ----
    #[test]
    fn same_time_events_pop_in_insertion_order() {
        let mut s: Scheduler<char> = Scheduler::default();
        s.schedule(SimTime(5), 'b');
        s.schedule(SimTime(1), 'a');
        s.schedule(SimTime(5), 'c');
        s.schedule(SimTime(5), 'd');
        let order: Vec<char> =
            std::iter::from_fn(|| s.pop_until(SimTime::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['a', 'b', 'c', 'd']);
    }

    // ---- what the engine prefetches is what comes next ----
    #[test]
    fn peeking_ahead_names_the_events_popped_next() {
        let mut s: Scheduler<char> = Scheduler::default();
        for (t, e) in [(7, 'd'), (1, 'a'), (3, 'b'), (3, 'c'), (9, 'e')] {
            s.schedule(SimTime(t), e);
        }
        let (_, first) = s.pop_until(SimTime::MAX).unwrap();
        assert_eq!(first, 'a');
        let ahead: Vec<char> = (0..4).filter_map(|n| s.peek_queued_nth(n)).collect();
        let popped: Vec<char> =
            std::iter::from_fn(|| s.pop_until(SimTime::MAX).map(|(_, e)| e)).collect();
        assert_eq!(ahead, popped[..ahead.len()]);
        assert_eq!(ahead, ['b', 'c', 'd', 'e'], "all in the bucket being run");
        assert_eq!(s.peek_queued_nth(0), None);
    }

    #[test]
    fn peeking_goes_on_into_the_next_bucket() {
        let width = 1u64 << BUCKET_BITS;
        let mut s: Scheduler<char> = Scheduler::default();
        // two in the first bucket, three in the next (scheduled out of order), one after
        for (t, e) in [(1, 'a'), (2, 'b'), (width + 5, 'e'), (width + 1, 'c')] {
            s.schedule(SimTime(t), e);
        }
        s.schedule(SimTime(width + 3), 'd');
        s.schedule(SimTime(3 * width), 'f');
        let (_, first) = s.pop_until(SimTime::MAX).unwrap();
        assert_eq!(first, 'a');
        let ahead: Vec<char> = (0..PEEK_DEPTH)
            .map_while(|n| s.peek_queued_nth(n))
            .collect();
        assert_eq!(ahead, ['b', 'c', 'd', 'e'], "the next bucket, in order");
        // an event scheduled into the sorted bucket meanwhile still pops in its order
        s.schedule(SimTime(width + 2), 'x');
        let popped: String =
            std::iter::from_fn(|| s.pop_until(SimTime::MAX).map(|(_, e)| e)).collect();
        assert_eq!(popped, "bcxdef");
    }

    #[test]
    fn pop_until_stops_at_the_horizon() {
        let mut s: Scheduler<()> = Scheduler::default();
        s.schedule(SimTime(10), ());
        assert!(s.pop_until(SimTime(9)).is_none());
        assert!(s.pop_until(SimTime(10)).is_some());
    }

    // ---- the calendar gives exactly the order of a single heap ----
    use proptest::prelude::*;

    impl Packed32 for u32 {
        fn pack(self) -> u32 {
            self
        }
        fn unpack(bits: u32) -> Self {
            bits
        }
    }

    /// ns-2's buckets are as wide at 300 s as at 1 s (the bits' own width would have grown
    /// 256 times).
    #[test]
    fn ns2_buckets_keep_their_width_late_in_a_run() {
        let width =
            |t: f64| Ns2Buckets::of((t + 0.01).to_bits(), 0) - Ns2Buckets::of(t.to_bits(), 0);
        assert_eq!(width(1.0), 81);
        assert_eq!(width(300.0), 81);
        assert_eq!(width(100_000.0), 81);
        assert_eq!(Ns2Buckets::of(0.0f64.to_bits(), 0), 0);
    }

    /// Dense events narrow the buckets, sparse ones widen them, and the order stays that of
    /// one ordered set throughout.
    #[test]
    fn the_width_follows_the_density_and_keeps_the_order() {
        let mut cal: Scheduler<u32> = Scheduler::default();
        let mut reference = std::collections::BTreeSet::new();
        let (mut seq, mut now, mut id) = (0u64, 0u64, 0u32);
        let mut widths = vec![cal.bucket_bits()];
        // 200 events pending 100-300 us ahead (hundreds in a 134 us bucket), then one pending
        // 10-30 ms ahead, then 5000 pending 2.5-7.5 ms ahead (more than CROWDED in a bucket
        // the quiet spell widened); each pop schedules the next
        let phases = [
            (1_000_000u64, 200u64, 20_000),
            (10_000_000_000, 1, 2000),
            (1_000_000, 5000, 20_000),
        ];
        let mut widest = 0;
        for (phase, (spacing, pending, pops)) in phases.into_iter().enumerate() {
            for k in 0..pending {
                let t = now + spacing * (k % 3 + 1);
                cal.schedule(SimTime(t), id);
                reference.insert((t, seq, id));
                (seq, id) = (seq + 1, id + 1);
            }
            for _ in 0..pops {
                let got = cal.pop_until(SimTime::MAX).map(|(t, e)| (t.0, e));
                let want = reference.pop_first().map(|w| (w.0, w.2));
                assert_eq!(got, want);
                now = got.unwrap().0;
                let t = now + spacing * (u64::from(id) % 3 + 1) * (pending / 2).max(1);
                cal.schedule(SimTime(t), id);
                reference.insert((t, seq, id));
                (seq, id) = (seq + 1, id + 1);
                if widths.last() != Some(&cal.bucket_bits()) {
                    widths.push(cal.bucket_bits());
                }
            }
            while let Some((t, e)) = cal.pop_until(SimTime::MAX) {
                assert_eq!(Some((t.0, e)), reference.pop_first().map(|w| (w.0, w.2)));
                now = t.0;
            }
            if phase == 1 {
                widest = cal.bucket_bits();
            }
        }
        assert!(
            widths.iter().any(|&b| b < BUCKET_BITS),
            "narrowed: {widths:?}"
        );
        assert!(widest > BUCKET_BITS, "widened: {widths:?}");
        assert!(
            *widths.last().unwrap() < widest,
            "narrowed again: {widths:?}"
        );
        assert!(reference.is_empty() && cal.is_empty());
    }

    proptest! {
        #[test]
        fn same_order_as_one_ordered_set_at_any_width(
            steps in proptest::collection::vec((0u64..(1 << 40), 0u8..4, 0u32..1000), 1..400),
            horizon in prop_oneof![Just(u64::MAX), 0u64..(1 << 41)],
            bits in prop_oneof![Just(BUCKET_BITS), 8u32..40],
        ) {
            // Like a simulation: each step takes the next event due by `horizon` (if any) and
            // schedules new ones at now + delay, from 0 to far beyond the calendar's span, in
            // a calendar of any bucket width (`same_order_as_one_ordered_set_at_any_width`)
            let mut cal: Scheduler<u32> = Scheduler::with_bucket_bits(bits);
            let mut reference = std::collections::BTreeSet::new();
            let mut seq = 0u64;
            let mut now = 0u64;
            for (delay, n, id) in steps {
                for k in 0..n as u32 {
                    let t = now + delay * (k as u64 + 1) / 2;
                    cal.schedule(SimTime(t), id + k);
                    reference.insert((t, seq, id + k));
                    seq += 1;
                }
                let got = cal.pop_until(SimTime(horizon));
                let want = reference.iter().next().copied().filter(|e| e.0 <= horizon);
                if let Some(w) = want {
                    reference.remove(&w);
                    now = w.0;
                }
                prop_assert_eq!(got.map(|(t, e)| (t.0, e)), want.map(|w| (w.0, w.2)));
                prop_assert_eq!(cal.len(), reference.len());
            }
            while let Some((t, e)) = cal.pop_until(SimTime::MAX) {
                let w = reference.pop_first().unwrap();
                prop_assert_eq!((t.0, e), (w.0, w.2));
            }
            prop_assert!(reference.is_empty());
        }

        #[test]
        fn double_keys_pop_in_the_order_of_their_values(
            steps in proptest::collection::vec((0.0f64..0.2, 0u8..4, 0u32..1000), 1..400),
            start in prop_oneof![Just(0.0f64), 0.0f64..1000.0],
        ) {
            // ns-2's clock (clock.rs): keys are the bits of now + delay added in doubles;
            // the calendar bucketed for them gives the order of the values, ties in the order
            // of scheduling, as one ordered set of (value, sequence) does
            let mut cal: Scheduler<u32, Ns2Buckets> = Scheduler::default();
            let mut reference = std::collections::BTreeSet::new();
            let (mut seq, mut now) = (0u64, start);
            for (delay, n, id) in steps {
                for k in 0..n as u32 {
                    let t = now + delay * f64::from(k);
                    cal.schedule_key(t.to_bits(), id + k);
                    reference.insert((t.to_bits(), seq, id + k));
                    seq += 1;
                }
                let got = cal.pop_until_key(u64::MAX);
                let want = reference.pop_first();
                if let Some(w) = want {
                    now = f64::from_bits(w.0);
                }
                prop_assert_eq!(got, want.map(|w| (w.0, w.2)));
            }
            let mut last = 0.0f64;
            while let Some((k, _)) = cal.pop_until_key(u64::MAX) {
                prop_assert!(f64::from_bits(k) >= last);
                last = f64::from_bits(k);
                prop_assert!(reference.pop_first().is_some_and(|w| w.0 == k));
            }
        }
    }
}
