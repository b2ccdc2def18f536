//! CAKE, Common Applications Kept Enhanced: a shaper, DRR++ over flow queues with per-host
//! fairness, COBALT (CoDel + BLUE) on every flow queue, diffserv tins, an ACK filter and
//! overhead compensation, in one discipline.
//!
//! References: T. Høiland-Jørgensen, D. Täht, J. Morton, "Piece of CAKE: A Comprehensive Queue
//! Management Solution for Home Gateways", IEEE LANMAN 2018; Linux `net/sched/sch_cake.c`
//! (`cake_enqueue`, `cake_dequeue`, `cake_drop`, `cake_advance_shaper`, `cake_reconfigure`);
//! tc-cake(8). The parts, each in its file with its rules:
//! * [`config`]: the knobs and their defaults (`cake_init`);
//! * [`hash`]: `cake_hash`, set-associative flow queues and the host table;
//! * [`tins`]: the DSCP tables, `cake_config_*` and the tin choice of `cake_dequeue`;
//! * [`shaper`]: `cake_set_rate`, `cake_calc_overhead`, `cake_advance_shaper`;
//! * [`ack_filter`](self::ack_filter): `cake_ack_filter`;
//! * COBALT per flow queue: [`CobaltVars`](crate::qdisc::cobalt_vars) (`cobalt_should_drop`,
//!   `cobalt_queue_full`, `cobalt_queue_empty`), shared with `kind = "cobalt"`.
//!
//! Here, `cake_enqueue`: choose the tin (`cake_select_tin`) and queue (`cake_hash`); reset a
//! stale schedule when the tin (and the qdisc) was empty; queue the packet; run the ACK
//! filter; a flow that was idle or decaying joins the new (sparse) list with a deficit of its
//! quantum divided by its host load (`quantum_div[host_load]`, the max of its source and
//! destination hosts' bulk-flow counts in the dual and triple modes); a flow that was
//! `SPARSE_WAIT` becomes bulk; then `cake_drop` from the fattest flow queue of any tin until
//! the buffer fits (`cobalt_queue_full` on that flow). `cake_dequeue`: the global shaper
//! (`time_next_packet`, or the failsafe at 1.5x) gates; a tin is chosen ([`tins`]); DRR++
//! serves decaying flows first once, then new, then old; a flow with no deficit gets
//! `(flow_quantum * quantum_div[host_load] + dither) >> 16` more (`cake_get_flow_quantum` of
//! later kernels), becomes bulk if it still has packets (counted on its hosts) and goes to the
//! old list's tail; COBALT judges the head packet (the last packet of a queue is never
//! dropped); an empty flow moves to the decaying list while COBALT's state is not at rest,
//! else leaves; the packet's adjusted length advances the shaper and the deficits.
//!
//! Not modelled: GSO splitting (the simulator's packets are single segments), `nat`
//! (conntrack), firewall-mark and `skb->priority` tin overrides, `autorate-ingress`, the
//! overflow heap's tie order (the fattest queue is found by a scan, ties to the lowest tin and
//! queue index), memory counted as `skb->truesize` (packet bytes here).

pub mod ack_filter;
pub mod config;
pub mod hash;
pub mod lists;
pub mod shaper;
pub mod tins;

#[cfg(test)]
mod tests;

pub use config::CakeConfig;

use self::config::{AckFilter, DiffservMode, FlowMode};
use self::hash::{Set, Tables, CAKE_QUEUES};
use self::lists::{Lists, DECAYING, NEW, OLD};
use self::shaper::{advance_tin, set_rate, ByteTime, Overhead, TinRate};
use super::cobalt_vars::{CobaltVars, Verdict};
use super::{DropReason, QueueCtx, QueueDisc};
use crate::monitor::queue_stats::QueueStats;
use crate::packet::Packet;
use crate::units::SimTime;
use std::collections::VecDeque;

/// A flow queue (sch_cake `struct cake_flow` and its tin's `backlogs[]`).
struct Flow {
    q: VecDeque<Packet>,
    deficit: i32,
    cvars: CobaltVars,
    backlog: u64,
}

/// Per-tin counters for the report, from the measurement start.
#[derive(Default, Clone, Copy)]
struct TinStats {
    sent_packets: u64,
    sent_bytes: u64,
    dropped: u64,
    ack_drops: u64,
    ecn_marks: u64,
    delay_sum_ns: u128,
}

/// A tin (sch_cake `struct cake_tin_data`).
struct Tin {
    rate: TinRate,
    tin_quantum: i32,
    tin_deficit: i32,
    tables: Tables,
    flows: Vec<Flow>,
    lists: Lists,
    sparse_flow_count: u32,
    bulk_flow_count: u32,
    decaying_flow_count: u32,
    time_next_packet: i64,
    tin_backlog: u64,
    /// Packets in the tin.
    tin_packets: u64,
    stats: TinStats,
    /// The tin's counters as every class of a class-based queue reports them (arrivals, drops
    /// by reason, marks, sojourn quantiles, average length), from the measurement start.
    qstats: QueueStats,
}

impl Tin {
    fn has_flows(&self) -> bool {
        self.sparse_flow_count + self.bulk_flow_count > 0
    }
    /// `cake_get_flow_quantum`'s host load: the max of the flow's hosts' bulk counts.
    fn host_load(&self, idx: usize, mode: FlowMode) -> u32 {
        let s = self.tables.slots[idx];
        let mut load = 1u32;
        if mode.dual_src() {
            load = load.max(self.tables.hosts[s.srchost as usize].srchost_bulk_flow_count as u32);
        }
        if mode.dual_dst() {
            load = load.max(self.tables.hosts[s.dsthost as usize].dsthost_bulk_flow_count as u32);
        }
        load.min(CAKE_QUEUES as u32)
    }
    /// Adds `d` to the bulk counts of the flow's hosts (the dual and triple modes).
    fn bulk_hosts(&mut self, idx: usize, mode: FlowMode, up: bool) {
        let s = self.tables.slots[idx];
        let step = |c: &mut u16| *c = if up { *c + 1 } else { c.saturating_sub(1) };
        if mode.dual_src() {
            step(&mut self.tables.hosts[s.srchost as usize].srchost_bulk_flow_count);
        }
        if mode.dual_dst() {
            step(&mut self.tables.hosts[s.dsthost as usize].dsthost_bulk_flow_count);
        }
    }
}

/// Bytes one CAKE allocates when built: its tins' flow queues and tables.
pub fn state_bytes(cfg: &CakeConfig) -> u64 {
    let mut v = Vec::new();
    tins::layout(cfg.diffserv(), 0, &mut v);
    let per_queue = std::mem::size_of::<Flow>()
        + std::mem::size_of::<hash::Slot>()
        + std::mem::size_of::<hash::Host>()
        + 4
        + 5;
    (v.len() * CAKE_QUEUES * per_queue) as u64
}

/// sch_cake `quantum_div[i] = 65535 / i` (`cake_init`).
fn quantum_div(load: u32) -> u32 {
    65535 / load.max(1)
}

/// The CAKE discipline.
pub struct Cake {
    diffserv: DiffservMode,
    flow_mode: FlowMode,
    ack_filter: AckFilter,
    overhead: Overhead,
    wash: bool,
    ingress: bool,
    tins: Vec<Tin>,
    /// The global shaper (tin 0's rate, `cake_reconfigure`).
    rate: ByteTime,
    time_next_packet: i64,
    failsafe_next_packet: i64,
    buffer_used: u64,
    buffer_limit: u64,
    qlen: usize,
    backlog: u64,
    cur_tin: usize,
    wake: Option<SimTime>,
    measure_from: SimTime,
    threshold_bps: Vec<u64>,
}

impl Cake {
    pub fn new(cfg: &CakeConfig) -> Self {
        let bytes_per_s = cfg.bandwidth.map_or(0, |r| r.0 / 8);
        let target_ns = cfg.target().as_nanos();
        let rtt_ns = cfg.rtt().as_nanos();
        let mut shapes = Vec::new();
        tins::layout(cfg.diffserv(), bytes_per_s, &mut shapes);
        let tins: Vec<Tin> = shapes
            .iter()
            .map(|s| {
                let rate = set_rate(s.bytes_per_s, target_ns, rtt_ns);
                Tin {
                    rate,
                    tin_quantum: s.tin_quantum as i32,
                    tin_deficit: 0,
                    tables: Tables::default(),
                    flows: (0..CAKE_QUEUES)
                        .map(|_| Flow {
                            q: VecDeque::new(),
                            deficit: 0,
                            cvars: CobaltVars::new(&rate.cparams),
                            backlog: 0,
                        })
                        .collect(),
                    lists: Lists::new(CAKE_QUEUES),
                    sparse_flow_count: 0,
                    bulk_flow_count: 0,
                    decaying_flow_count: 0,
                    time_next_packet: 0,
                    tin_backlog: 0,
                    tin_packets: 0,
                    stats: TinStats::default(),
                    qstats: QueueStats::new(SimTime::ZERO),
                }
            })
            .collect();
        Self {
            diffserv: cfg.diffserv(),
            flow_mode: cfg.flow_mode(),
            ack_filter: cfg.ack_filter(),
            overhead: Overhead {
                overhead: cfg.overhead,
                mpu: cfg.mpu.unwrap_or(0),
                atm: cfg.atm.unwrap_or_default(),
            },
            wash: cfg.wash,
            ingress: cfg.ingress,
            rate: tins[0].rate.byte_time,
            threshold_bps: shapes.iter().map(|s| s.bytes_per_s * 8).collect(),
            tins,
            time_next_packet: 0,
            failsafe_next_packet: 0,
            buffer_used: 0,
            buffer_limit: cfg.buffer_limit(),
            qlen: 0,
            backlog: 0,
            cur_tin: 0,
            wake: None,
            measure_from: SimTime::ZERO,
        }
    }

    fn measuring(&self, now: i64) -> bool {
        now as u64 >= self.measure_from.as_nanos()
    }

    /// `cake_advance_shaper`: charges `pkt`'s adjusted length to tin `t` and the global
    /// shaper; returns that length.
    fn advance_shaper(&mut self, t: usize, pkt: &Packet, now: i64, drop: bool) -> i32 {
        let len = self.overhead.adjusted(pkt.size);
        if !self.rate.unlimited() {
            let b = &mut self.tins[t];
            let tin_dur = b.rate.byte_time.duration_ns(len as u64) as i64;
            let global_dur = self.rate.duration_ns(len as u64) as i64;
            b.time_next_packet = advance_tin(b.time_next_packet, now, tin_dur);
            self.time_next_packet += global_dur;
            if !drop {
                self.failsafe_next_packet += global_dur + global_dur / 2;
            }
        }
        len as i32
    }

    /// Takes `pkt` out of the accounting of tin `t`, queue `idx`.
    fn unaccount(&mut self, t: usize, idx: usize, pkt: &Packet, at: SimTime) {
        let len = pkt.size as u64;
        let b = &mut self.tins[t];
        b.flows[idx].backlog -= len;
        b.tin_backlog -= len;
        b.tin_packets -= 1;
        b.qstats.set_length(at, b.tin_packets, b.tin_backlog);
        self.backlog -= len;
        self.buffer_used -= len;
        self.qlen -= 1;
    }

    /// `cake_drop`: the head of the fattest flow queue of any tin goes, and its COBALT
    /// learns of the overflow (`cobalt_queue_full`).
    fn cake_drop(&mut self, now: i64, cx: &mut QueueCtx) {
        let mut best = (0usize, 0usize, 0u64);
        for (t, b) in self.tins.iter().enumerate() {
            for (i, f) in b.flows.iter().enumerate() {
                if f.backlog > best.2 {
                    best = (t, i, f.backlog);
                }
            }
        }
        let (t, idx, _) = best;
        let Some(pkt) = self.tins[t].flows[idx].q.pop_front() else {
            return;
        };
        self.unaccount(t, idx, &pkt, cx.now);
        let measuring = self.measuring(now);
        let b = &mut self.tins[t];
        let p = b.rate.cparams;
        b.flows[idx].cvars.queue_full(&p, now);
        if measuring {
            b.stats.dropped += 1;
        }
        b.qstats.on_drop(cx.now, pkt.size, DropReason::LongestQueue);
        if self.ingress {
            self.advance_shaper(t, &pkt, now, true);
        }
        cx.drop(pkt, DropReason::LongestQueue);
    }

    /// `cake_enqueue`'s flowchain step for queue `idx` of tin `t` after a packet joined it.
    fn flowchain_on_enqueue(&mut self, t: usize, idx: usize) {
        let mode = self.flow_mode;
        let b = &mut self.tins[t];
        match b.tables.slots[idx].set {
            Set::None | Set::Decaying => {
                if b.tables.slots[idx].set == Set::None {
                    b.lists.push_back(NEW, idx);
                } else {
                    b.decaying_flow_count -= 1;
                    b.lists.move_tail(idx, NEW);
                }
                b.tables.slots[idx].set = Set::Sparse;
                b.sparse_flow_count += 1;
                let load = b.host_load(idx, mode);
                b.flows[idx].deficit = ((b.rate.flow_quantum * quantum_div(load)) >> 16) as i32;
            }
            Set::SparseWait => {
                // empty, counted sparse, but in the bulk rotation
                b.tables.slots[idx].set = Set::Bulk;
                b.sparse_flow_count -= 1;
                b.bulk_flow_count += 1;
                b.bulk_hosts(idx, mode, true);
            }
            Set::Sparse | Set::Bulk => {}
        }
    }

    /// `cake_dequeue`'s choice of a tin; None when nothing can be sent.
    fn choose_tin(&mut self, now: i64) -> Option<usize> {
        if self.rate.unlimited() {
            // DRR over the tins by tin_quantum
            let (mut wrapped, mut empty) = (false, true);
            loop {
                let b = &mut self.tins[self.cur_tin];
                if b.tin_deficit >= 0 && b.has_flows() {
                    return Some(self.cur_tin);
                }
                if b.tin_deficit <= 0 {
                    b.tin_deficit += b.tin_quantum;
                }
                if b.has_flows() {
                    empty = false;
                }
                self.cur_tin += 1;
                if self.cur_tin >= self.tins.len() {
                    self.cur_tin = 0;
                    if wrapped {
                        if empty {
                            return None;
                        }
                    } else {
                        wrapped = true;
                    }
                }
            }
        }
        let best = tins::shaped_choice(
            self.tins
                .iter()
                .map(|b| (b.has_flows(), b.time_next_packet - now)),
        )?;
        self.cur_tin = best;
        Some(best)
    }

    /// One round of `cake_dequeue` on tin `t` ("retry" to "begin"): the packet to send, or
    /// None to start again from the top (a flow was found empty, or in ingress mode a packet
    /// was dropped).
    fn serve_tin(
        &mut self,
        t: usize,
        now: i64,
        first_flow: &mut bool,
        cx: &mut QueueCtx,
    ) -> Result<Packet, Restart> {
        let mode = self.flow_mode;
        loop {
            let b = &mut self.tins[t];
            // service this class: decaying flows once first, then new, then old
            let head = if *first_flow && !b.lists.is_empty(DECAYING) {
                DECAYING
            } else if !b.lists.is_empty(NEW) {
                NEW
            } else if !b.lists.is_empty(OLD) {
                OLD
            } else if !b.lists.is_empty(DECAYING) {
                DECAYING
            } else {
                return Err(Restart);
            };
            let idx = b.lists.front(head).expect("not empty");
            *first_flow = false;
            // flow isolation (DRR++)
            if b.flows[idx].deficit <= 0 {
                if b.tables.slots[idx].set == Set::Sparse {
                    if !b.flows[idx].q.is_empty() {
                        b.sparse_flow_count -= 1;
                        b.bulk_flow_count += 1;
                        b.bulk_hosts(idx, mode, true);
                        b.tables.slots[idx].set = Set::Bulk;
                    } else {
                        b.tables.slots[idx].set = Set::SparseWait;
                    }
                }
                let load = b.host_load(idx, mode);
                // "The shifted prandom_u32() is a way to apply dithering"
                let dither = cx.rng().integer(1 << 16) as u32;
                b.flows[idx].deficit +=
                    ((b.rate.flow_quantum * quantum_div(load) + dither) >> 16) as i32;
                b.lists.move_tail(idx, OLD);
                continue;
            }
            return self.serve_flow(t, idx, now, cx);
        }
    }

    /// `cake_dequeue`'s "Retrieve a packet via the AQM" on queue `idx` of tin `t`.
    fn serve_flow(
        &mut self,
        t: usize,
        idx: usize,
        now: i64,
        cx: &mut QueueCtx,
    ) -> Result<Packet, Restart> {
        loop {
            let Some(mut pkt) = self.tins[t].flows[idx].q.pop_front() else {
                self.flow_emptied(t, idx, now);
                return Err(Restart);
            };
            self.unaccount(t, idx, &pkt, cx.now);
            let bulk = if self.ingress {
                self.tins[t].bulk_flow_count as u64
            } else {
                0
            };
            let b = &mut self.tins[t];
            let p = b.rate.cparams;
            let f = &mut b.flows[idx];
            let sojourn = now - pkt.enqueued.as_nanos() as i64;
            let marks_before = cx.marks();
            let verdict = f.cvars.should_drop(&p, now, sojourn, bulk, &mut pkt, cx);
            let measuring = self.measuring(now);
            // "Last packet in queue may be marked, shouldn't be dropped"
            if verdict == Verdict::Deliver || self.tins[t].flows[idx].q.is_empty() {
                let b = &mut self.tins[t];
                if measuring {
                    b.stats.ecn_marks += cx.marks() - marks_before;
                    b.stats.sent_packets += 1;
                    b.stats.sent_bytes += pkt.size as u64;
                    b.stats.delay_sum_ns += sojourn.max(0) as u128;
                }
                let marked = cx.marks() - marks_before;
                if marked > 0 {
                    b.qstats.on_marks(cx.now, marked);
                }
                b.qstats.on_departure(cx.now, pkt.size, pkt.enqueued);
                let len = self.advance_shaper(t, &pkt, now, false);
                let b = &mut self.tins[t];
                b.flows[idx].deficit -= len;
                b.tin_deficit -= len;
                return Ok(pkt);
            }
            if measuring {
                self.tins[t].stats.dropped += 1;
            }
            let reason = if verdict == Verdict::DropBlue {
                DropReason::Blue
            } else {
                DropReason::Codel
            };
            self.tins[t].qstats.on_drop(cx.now, pkt.size, reason);
            if self.ingress {
                let len = self.advance_shaper(t, &pkt, now, true);
                let b = &mut self.tins[t];
                b.flows[idx].deficit -= len;
                b.tin_deficit -= len;
                cx.drop(pkt, reason);
                return Err(Restart);
            }
            cx.drop(pkt, reason);
        }
    }

    /// `cake_dequeue` found queue `idx` of tin `t` empty: COBALT learns it
    /// (`cobalt_queue_empty`), and the queue decays or leaves the rotation.
    fn flow_emptied(&mut self, t: usize, idx: usize, now: i64) {
        let mode = self.flow_mode;
        let b = &mut self.tins[t];
        let p = b.rate.cparams;
        let v = &mut b.flows[idx].cvars;
        v.queue_empty(&p, now);
        let set = b.tables.slots[idx].set;
        if v.p_drop > 0.0 || v.count > 0 || now < v.drop_next {
            // keep in the flowchain until the state has decayed to rest
            b.lists.move_tail(idx, DECAYING);
            match set {
                Set::Bulk => {
                    b.bulk_flow_count -= 1;
                    b.bulk_hosts(idx, mode, false);
                    b.decaying_flow_count += 1;
                }
                Set::Sparse | Set::SparseWait => {
                    b.sparse_flow_count -= 1;
                    b.decaying_flow_count += 1;
                }
                _ => {}
            }
            b.tables.slots[idx].set = Set::Decaying;
        } else {
            b.lists.remove(idx);
            match set {
                Set::Sparse | Set::SparseWait => b.sparse_flow_count -= 1,
                Set::Bulk => {
                    b.bulk_flow_count -= 1;
                    b.bulk_hosts(idx, mode, false);
                }
                _ => b.decaying_flow_count -= 1,
            }
            b.tables.slots[idx].set = Set::None;
        }
    }
}

/// Start `cake_dequeue` again from "begin".
struct Restart;

impl QueueDisc for Cake {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        let now = cx.now.as_nanos() as i64;
        // cake_classify: cake_select_tin, then cake_hash
        let t = tins::select_tin(self.diffserv, pkt.class).min(self.tins.len() - 1);
        if self.wash {
            pkt.class = 0;
        }
        let keys = hash::keys(&pkt);
        let idx = self.tins[t].tables.cake_hash(keys, self.flow_mode);
        // ensure shaper state isn't stale
        let idle = self.qlen == 0;
        let b = &mut self.tins[t];
        if b.tin_backlog == 0 {
            b.time_next_packet = b.time_next_packet.max(now);
            if idle && self.time_next_packet < now {
                self.failsafe_next_packet = now;
                self.time_next_packet = now;
            }
        }
        let len = pkt.size as u64;
        let b = &mut self.tins[t];
        b.flows[idx].q.push_back(pkt);
        b.flows[idx].backlog += len;
        b.tin_backlog += len;
        b.tin_packets += 1;
        b.qstats.on_arrival(cx.now, len as u32);
        b.qstats.set_length(cx.now, b.tin_packets, b.tin_backlog);
        self.backlog += len;
        self.buffer_used += len;
        self.qlen += 1;
        if self.ack_filter != AckFilter::Off {
            let aggressive = self.ack_filter == AckFilter::Aggressive;
            if let Some(i) = ack_filter::cake_ack_filter(&self.tins[t].flows[idx].q, aggressive) {
                let ack = self.tins[t].flows[idx].q.remove(i).expect("in the queue");
                self.unaccount(t, idx, &ack, cx.now);
                if self.measuring(now) {
                    self.tins[t].stats.ack_drops += 1;
                }
                self.tins[t]
                    .qstats
                    .on_drop(cx.now, ack.size, DropReason::AckFilter);
                if self.ingress {
                    self.advance_shaper(t, &ack, now, true);
                }
                cx.drop(ack, DropReason::AckFilter);
            }
        }
        self.flowchain_on_enqueue(t, idx);
        while self.buffer_used > self.buffer_limit {
            self.cake_drop(now, cx);
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        let now = cx.now.as_nanos() as i64;
        self.wake = None;
        // sch_cake declares first_flow before "begin:": decaying flows are visited first only
        // once per call
        let mut first_flow = true;
        loop {
            if self.qlen == 0 {
                return None;
            }
            // global hard shaper
            if !self.rate.unlimited()
                && self.time_next_packet > now
                && self.failsafe_next_packet > now
            {
                let next = self.time_next_packet.min(self.failsafe_next_packet);
                self.wake = Some(SimTime(next as u64 * 1000));
                return None;
            }
            let t = self.choose_tin(now)?;
            match self.serve_tin(t, now, &mut first_flow, cx) {
                Ok(pkt) => {
                    if !self.rate.unlimited() && self.time_next_packet > now && self.qlen > 0 {
                        let next = self.time_next_packet.min(self.failsafe_next_packet);
                        self.wake = Some(SimTime(next as u64 * 1000));
                    }
                    return Some(pkt);
                }
                Err(Restart) => continue,
            }
        }
    }

    fn wake_at(&self) -> Option<SimTime> {
        self.wake
    }
    fn len_packets(&self) -> usize {
        self.qlen
    }
    fn len_bytes(&self) -> u64 {
        self.backlog
    }
    fn kind(&self) -> &'static str {
        "cake"
    }
    fn measure_from(&mut self, start: SimTime) {
        self.measure_from = start;
        for b in &mut self.tins {
            b.qstats = QueueStats::new(start);
        }
    }
    fn reserve_class_statistics(&mut self, max: SimTime) {
        for b in &mut self.tins {
            b.qstats.reserve_sojourns(max);
        }
    }

    /// Per tin: the counters every class reports (`QueueStats::class_json`: arrivals, drops by
    /// reason, marks, sojourn quantiles, average and maximum length), its name, and sch_cake's
    /// own: threshold rate, packets and bytes sent, drops (AQM and overflow), ACKs filtered, CE
    /// marks, mean sojourn, collisions of the set-associative hash.
    fn class_stats(&self, now: SimTime) -> Option<serde_json::Value> {
        let names = tins::names(self.diffserv);
        let v: Vec<serde_json::Value> = self
            .tins
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let s = b.stats;
                let mut r = b.qstats.class_json(now);
                r.insert("name".into(), names.get(i).copied().unwrap_or("tin").into());
                r.insert("queued_packets".into(), b.tin_packets.into());
                let own = serde_json::json!({
                    "tin": names.get(i).copied().unwrap_or("tin"),
                    "index": i,
                    "threshold_bps": self.threshold_bps[i],
                    "sent_packets": s.sent_packets,
                    "sent_bytes": s.sent_bytes,
                    "dropped": s.dropped,
                    "ack_drops": s.ack_drops,
                    "ecn_marks": s.ecn_marks,
                    "mean_sojourn_s": if s.sent_packets > 0 {
                        s.delay_sum_ns as f64 / s.sent_packets as f64 * 1e-9
                    } else { 0.0 },
                    "way_collisions": b.tables.way_collisions,
                });
                if let serde_json::Value::Object(o) = own {
                    r.extend(o);
                }
                serde_json::Value::Object(r)
            })
            .collect();
        Some(serde_json::Value::Array(v))
    }

    fn resolved_settings(&self, _rate_bps: f64) -> Option<serde_json::Value> {
        let tins: Vec<serde_json::Value> = self
            .tins
            .iter()
            .enumerate()
            .map(|(i, b)| {
                serde_json::json!({
                    "threshold_bps": self.threshold_bps[i],
                    "tin_quantum": b.tin_quantum,
                    "flow_quantum": b.rate.flow_quantum,
                    "target_s": b.rate.cparams.target_ns as f64 * 1e-9,
                    "interval_s": b.rate.cparams.interval_ns as f64 * 1e-9,
                })
            })
            .collect();
        Some(serde_json::json!({
            "bandwidth_bps": self.threshold_bps.first().copied().unwrap_or(0),
            "memlimit_bytes": self.buffer_limit,
            "tins": tins,
        }))
    }

    fn warnings(&self, rate_bps: f64) -> Vec<String> {
        let bw = self.threshold_bps.first().copied().unwrap_or(0) as f64;
        if bw > rate_bps {
            return vec![format!(
                "CAKE's bandwidth ({bw} bit/s) is above the link's rate ({rate_bps} bit/s): the                  queue forms where the link is slower, not in CAKE's shaper; give a bandwidth a                  little below the link's rate (tc-cake(8)), or leave it out for an unshaped CAKE"
            )];
        }
        Vec::new()
    }
}
