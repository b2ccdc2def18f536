//! A Mahimahi packet-delivery trace and the link that replays it, following mahimahi's
//! `src/frontend/link_queue.cc` (github.com/ravinet/mahimahi; Netravali et al., USENIX ATC
//! 2015, section 3.2):
//!
//! * **The file** (`LinkQueue::LinkQueue`): one line per delivery opportunity, a whole number
//!   of milliseconds since the link started; lines never decrease; repeated lines are several
//!   opportunities in that millisecond; an empty line, an empty trace and a trace whose last
//!   line is 0 are refused. [`DeliveryTrace::parse`] applies the same rules and names the line.
//! * **Looping** (`use_a_delivery_opportunity`): after the last line the trace starts again,
//!   its times shifted by the last timestamp (`base_timestamp_ += schedule_.back()`), so one
//!   period lasts the last timestamp and holds every line once.
//! * **An opportunity carries `PACKET_SIZE` = 1504 bytes** (`link_queue.hh`, "default max TUN
//!   payload size"). Mahimahi reads packets from a TUN device opened with `IFF_TUN` and
//!   without `IFF_NO_PI` (`src/util/netdevice.cc`, `TunDevice::TunDevice`), so each packet it
//!   counts is the IP packet and the 4-byte `struct tun_pi` in front of it: a 1500-byte IP
//!   packet fills one opportunity exactly. bufferlab charges each packet its size, the link's
//!   `overhead` (default 0) and those 4 bytes ([`TUN_HEADER_BYTES`]).
//! * **Byte accounting** (`LinkQueue::rationalize`): at each opportunity the packet in transit
//!   (if any) and then the queue's next packets are sent, byte by byte, until the opportunity's
//!   1504 bytes are used: several small packets share one opportunity, and a packet whose bytes
//!   do not fit continues at the next opportunity (`packet_in_transit_bytes_left_`). A packet
//!   leaves the link at the opportunity that carries its last byte. Bytes of an opportunity
//!   that find the queue empty are lost: an unused opportunity is never banked. Mahimahi
//!   refuses packets longer than 1504 bytes (`read_packet`: "packet size is greater than
//!   maximum"); here the same rule simply carries such a packet's bytes over as many
//!   opportunities as it needs.
//! * **Order at one instant** (`read_packet` calls `rationalize(now)` before enqueueing): the
//!   opportunities due at or before a packet's arrival are used up with the queue as it was,
//!   so a packet is first served by an opportunity strictly after it arrived. Mahimahi's
//!   clock counts whole milliseconds, and since opportunities fall on whole milliseconds,
//!   "at or before its millisecond" and "at or before its arrival" are the same opportunities.
//! * **When the queue is served**: only at opportunities. The discipline's dequeue (and so a
//!   CoDel's or PIE's sojourn time) happens when an opportunity takes the packet.
//!
//! The link starts at time 0 of the run (mahimahi's `base_timestamp_` is the link's creation).

use crate::units::{Rate, SimTime};
use std::sync::Arc;

/// Bytes one delivery opportunity carries (mahimahi `link_queue.hh` `PACKET_SIZE`).
pub const OPPORTUNITY_BYTES: u64 = 1504;

/// Bytes mahimahi counts in front of every IP packet: the TUN device's `struct tun_pi`
/// (2 bytes of flags, 2 of protocol), present because `TunDevice` does not set `IFF_NO_PI`.
pub const TUN_HEADER_BYTES: u64 = 4;

/// The most lines a trace may hold (16 Mi: 64 MiB of timestamps), so that a wrong file
/// cannot exhaust memory; a 100 Mbit/s trace of 2 minutes has about a million.
pub const MAX_LINES: usize = 16 << 20;

/// A parsed trace: opportunity times in milliseconds, nondecreasing, the last one nonzero.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryTrace {
    ms: Vec<u32>,
}

impl DeliveryTrace {
    /// Reads a trace's text with mahimahi's rules (`LinkQueue::LinkQueue`); an error gives
    /// the 1-based line and what is wrong with it.
    pub fn parse(text: &str) -> Result<Self, (usize, String)> {
        let mut ms: Vec<u32> = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            if line.is_empty() {
                return Err((
                    n,
                    "empty line; mahimahi refuses it (one timestamp a line)".into(),
                ));
            }
            if ms.len() >= MAX_LINES {
                return Err((
                    n,
                    format!("more than {MAX_LINES} lines; give a shorter trace (it loops)"),
                ));
            }
            let v: u32 = match line.parse() {
                Ok(v) if line.bytes().all(|b| b.is_ascii_digit()) => v,
                _ if line.bytes().all(|b| b.is_ascii_digit()) => {
                    return Err((
                        n,
                        format!(
                            "{line} ms is past the longest trace, {} ms (49 days)",
                            u32::MAX
                        ),
                    ));
                }
                _ => {
                    return Err((
                        n,
                        format!("{:?} is not a whole number of milliseconds", short(line)),
                    ));
                }
            };
            if let Some(&last) = ms.last() {
                if v < last {
                    return Err((
                        n,
                        format!("{v} comes after {last}; timestamps must not decrease"),
                    ));
                }
            }
            ms.push(v);
        }
        match ms.last() {
            None => Err((
                1,
                "no timestamps; give one line per delivery opportunity".into(),
            )),
            Some(0) => Err((
                ms.len(),
                "the trace must last a nonzero time (its last timestamp is 0)".into(),
            )),
            Some(_) => Ok(Self { ms }),
        }
    }

    /// Opportunities in one period.
    pub fn len(&self) -> usize {
        self.ms.len()
    }

    /// Never true: a parsed trace has at least one line.
    pub fn is_empty(&self) -> bool {
        self.ms.is_empty()
    }

    /// One period, in milliseconds: the last timestamp.
    pub fn period_ms(&self) -> u64 {
        u64::from(*self.ms.last().expect("a parsed trace is not empty"))
    }

    /// The trace's capacity over one period: its opportunities' bytes over its length
    /// (rounded to the nearest bit/s).
    pub fn mean_rate(&self) -> Rate {
        let bits = self.ms.len() as u128 * u128::from(OPPORTUNITY_BYTES) * 8 * 1000;
        let p = u128::from(self.period_ms());
        Rate(((bits + p / 2) / p).max(1) as u64)
    }
}

/// What a trace link serves: the port's queue, seen by [`TraceServer::serve_until`].
pub trait TraceFeed<P> {
    /// Nothing waits in the queue.
    fn is_empty(&self) -> bool;
    /// The queue's next packet, taken at opportunity `at` (None: the discipline gives none).
    fn dequeue(&mut self, at: SimTime) -> Option<P>;
    /// The bytes `p` takes of the opportunities (its size, framing and the TUN header).
    fn charge(&self, p: P) -> u64;
    /// `p`'s last byte went at opportunity `at`: it leaves the link.
    fn depart(&mut self, at: SimTime, p: P);
}

/// One direction of a link replaying a trace: where it is in the trace and the packet whose
/// bytes are part sent (mahimahi's `next_delivery_`, `base_timestamp_`, `packet_in_transit_`
/// and `packet_in_transit_bytes_left_`).
#[derive(Debug)]
pub struct TraceServer<P> {
    trace: Arc<DeliveryTrace>,
    /// Index of the next opportunity in the trace.
    next: usize,
    /// Start of the current period, in milliseconds of the run.
    base_ms: u64,
    /// The packet part sent and the bytes it still needs.
    in_transit: Option<(P, u64)>,
    /// A timer is set for the next opportunity (the port's `PortTimer::Opportunity`).
    pub armed: bool,
}

impl<P: Copy> TraceServer<P> {
    pub fn new(trace: Arc<DeliveryTrace>) -> Self {
        Self {
            trace,
            next: 0,
            base_ms: 0,
            in_transit: None,
            armed: false,
        }
    }

    fn next_ms(&self) -> u64 {
        self.base_ms
            .saturating_add(u64::from(self.trace.ms[self.next]))
    }

    /// When the next opportunity comes (mahimahi `next_delivery_time`).
    pub fn next_opportunity(&self) -> SimTime {
        SimTime(self.next_ms().saturating_mul(1_000_000_000))
    }

    /// A packet's bytes are part sent.
    pub fn in_transit(&self) -> Option<P> {
        self.in_transit.map(|(p, _)| p)
    }

    /// Forgets the packet in transit (the run is over, its packets freed).
    pub fn clear(&mut self) {
        self.in_transit = None;
    }

    /// mahimahi `use_a_delivery_opportunity`: the next one, wrapping into the next period.
    fn advance(&mut self) {
        self.next += 1;
        if self.next == self.trace.ms.len() {
            self.next = 0;
            self.base_ms = self.base_ms.saturating_add(self.trace.period_ms());
        }
    }

    /// Skips every opportunity due at or before `now` at once (none can carry anything: the
    /// link holds no packet): whole periods by division, then a binary search in the last.
    fn skip_through(&mut self, now: SimTime) {
        let now_ms = now.0 / 1_000_000_000;
        if self.next_ms() > now_ms {
            return;
        }
        let period = self.trace.period_ms();
        let mut rel = now_ms - self.base_ms;
        if rel >= period {
            let k = rel / period;
            self.base_ms += k * period;
            rel -= k * period;
            self.next = 0;
        }
        // rel < period = the last timestamp, so the search stops inside the trace
        let pp = self.trace.ms.partition_point(|&m| u64::from(m) <= rel);
        self.next = self.next.max(pp);
    }

    /// mahimahi `LinkQueue::rationalize(now)`: uses every opportunity due at or before `now`,
    /// in order. Each carries [`OPPORTUNITY_BYTES`]: the rest of the packet in transit, then
    /// the feed's next packets, until its bytes are spent or the feed has nothing (the rest of
    /// the opportunity is lost). Once the link holds nothing, the remaining due opportunities
    /// are skipped in one step.
    pub fn serve_until(&mut self, now: SimTime, feed: &mut impl TraceFeed<P>) {
        loop {
            let at = self.next_opportunity();
            if at > now {
                return;
            }
            if self.in_transit.is_none() && feed.is_empty() {
                self.skip_through(now);
                return;
            }
            self.advance();
            let mut budget = OPPORTUNITY_BYTES;
            while budget > 0 {
                let (p, left) = match self.in_transit.take() {
                    Some(x) => x,
                    None => match feed.dequeue(at) {
                        Some(p) => (p, feed.charge(p)),
                        None => break,
                    },
                };
                let sent = left.min(budget);
                budget -= sent;
                if sent == left {
                    feed.depart(at, p);
                } else {
                    self.in_transit = Some((p, left - sent));
                }
            }
        }
    }
}

fn short(line: &str) -> String {
    line.chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// A queue of packets (index, charged bytes) recording departures.
    #[derive(Default)]
    struct Fifo {
        q: VecDeque<(u32, u64)>,
        sizes: Vec<u64>,
        out: Vec<(SimTime, u32)>,
        dequeued: Vec<(SimTime, u32)>,
    }

    impl Fifo {
        fn push(&mut self, bytes: u64) {
            let i = self.sizes.len() as u32;
            self.sizes.push(bytes);
            self.q.push_back((i, bytes));
        }
    }

    impl TraceFeed<u32> for Fifo {
        fn is_empty(&self) -> bool {
            self.q.is_empty()
        }
        fn dequeue(&mut self, at: SimTime) -> Option<u32> {
            let (i, _) = self.q.pop_front()?;
            self.dequeued.push((at, i));
            Some(i)
        }
        fn charge(&self, p: u32) -> u64 {
            self.sizes[p as usize]
        }
        fn depart(&mut self, at: SimTime, p: u32) {
            self.out.push((at, p));
        }
    }

    fn ms(v: u64) -> SimTime {
        SimTime::from_millis(v)
    }

    fn trace(text: &str) -> Arc<DeliveryTrace> {
        Arc::new(DeliveryTrace::parse(text).unwrap())
    }

    #[test]
    fn parse_follows_mahimahi_rules_and_names_the_line() {
        let t = DeliveryTrace::parse("1\n1\n3\n").unwrap();
        assert_eq!((t.len(), t.period_ms()), (3, 3));
        assert_eq!(DeliveryTrace::parse("1\r\n2\r\n").unwrap().len(), 2);
        let err = |s: &str| DeliveryTrace::parse(s).unwrap_err();
        assert_eq!(err("1\n\n2").0, 2);
        assert!(err("1\n\n2").1.contains("empty line"));
        assert_eq!(err("5\n4\n").0, 2);
        assert!(err("5\n4\n").1.contains("must not decrease"));
        assert_eq!(err("1\n2x\n").0, 2);
        assert!(err("1\n-2\n").1.contains("whole number"));
        assert!(err(" 2\n").1.contains("whole number"));
        assert!(err("").1.contains("no timestamps"));
        assert!(err("0\n0\n").1.contains("nonzero"));
        assert!(err("99999999999\n").1.contains("longest trace"));
    }

    #[test]
    fn mean_rate_is_the_bytes_of_one_period() {
        // one opportunity a millisecond: 1504 B/ms = 12.032 Mbit/s
        assert_eq!(trace("1\n").mean_rate(), Rate(12_032_000));
        assert_eq!(trace("1\n2\n2\n4\n").mean_rate(), Rate(12_032_000));
    }

    /// A backlogged link delivers, over every window of whole periods and over each
    /// millisecond, exactly the bytes of the opportunities in it (1500-byte packets and the
    /// 4-byte header fill each exactly), and nothing between opportunities.
    #[test]
    fn backlogged_link_delivers_the_trace_capacity_and_only_at_opportunities() {
        let text = "2\n2\n2\n5\n9\n9\n9\n9\n10\n";
        let t = trace(text);
        let mut srv = TraceServer::new(t.clone());
        let mut f = Fifo::default();
        for _ in 0..1000 {
            f.push(1504);
        }
        srv.serve_until(ms(35), &mut f);
        // opportunities per ms in the first 35 ms: 3 at 2, 1 at 5, 4 at 9, 1 at 10, repeating
        let mut expect = Vec::new();
        for period in 0..4u64 {
            for &(m, n) in &[(2u64, 3usize), (5, 1), (9, 4), (10, 1)] {
                let at = period * 10 + m;
                if at <= 35 {
                    expect.extend(std::iter::repeat_n(ms(at), n));
                }
            }
        }
        let times: Vec<SimTime> = f.out.iter().map(|o| o.0).collect();
        assert_eq!(times, expect);
        // over three whole periods: 27 opportunities, 27 x 1504 bytes
        let in_30 = f.out.iter().filter(|o| o.0 <= ms(30)).count() as u64;
        assert_eq!(in_30 * 1504, 3 * 9 * OPPORTUNITY_BYTES);
        assert_eq!(
            t.mean_rate().0 * 3 * 10 / 1000,
            3 * 9 * OPPORTUNITY_BYTES * 8
        );
    }

    /// Unused opportunities are lost: a packet arriving after an idle stretch waits for the
    /// first opportunity strictly after it, and one arriving at an opportunity's instant is
    /// not served by it (rationalize runs before the enqueue).
    #[test]
    fn unused_opportunities_are_lost_and_ties_go_to_the_earlier_queue() {
        let mut srv = TraceServer::new(trace("1\n2\n3\n4\n"));
        let mut f = Fifo::default();
        srv.serve_until(ms(7), &mut f); // idle: 7 opportunities pass unused
        f.push(1504);
        f.push(1504);
        srv.serve_until(ms(7), &mut f);
        assert!(f.out.is_empty());
        assert_eq!(srv.next_opportunity(), ms(8));
        srv.serve_until(ms(9), &mut f);
        assert_eq!(f.out, vec![(ms(8), 0), (ms(9), 1)]);
        // a long idle stretch over many periods, then one packet
        srv.serve_until(ms(4002), &mut f);
        f.push(100);
        srv.serve_until(ms(4003), &mut f);
        assert_eq!(f.out.last(), Some(&(ms(4003), 2)));
    }

    /// Small packets share one opportunity; a packet whose bytes do not fit continues at the
    /// next and leaves there; a packet longer than an opportunity spans several.
    #[test]
    fn bytes_carry_over_between_opportunities() {
        let mut srv = TraceServer::new(trace("1\n2\n3\n4\n5\n6\n"));
        let mut f = Fifo::default();
        for b in [500, 500, 500, 1000, 3100, 40] {
            f.push(b);
        }
        srv.serve_until(ms(6), &mut f);
        // ms 1: 500+500+500 (4 bytes spare go to packet 3); ms 2: packet 3 ends (996 left),
        // packet 4 takes 508; ms 3: 1504 more (1088 left); ms 4: it ends, packet 5 leaves
        assert_eq!(
            f.out,
            vec![
                (ms(1), 0),
                (ms(1), 1),
                (ms(1), 2),
                (ms(2), 3),
                (ms(4), 4),
                (ms(4), 5)
            ]
        );
        // each packet was taken from the queue at the opportunity that started it
        assert_eq!(f.dequeued[3], (ms(1), 3));
        assert_eq!(f.dequeued[4], (ms(2), 4));
    }
}
