//! Why a packet was dropped: the reasons every queue discipline, loss model and statistic
//! shares. A foundation of its own (below the models) so that statistics (`monitor/`) and the
//! disciplines that keep statistics per class (`qdisc/`) both read it without importing each
//! other; `qdisc::DropReason` re-exports it.

/// Why a packet was dropped. Reported by name in results (`drops_by_reason`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DropReason {
    /// Tail drop: the queue was full (DropTail, or any discipline's hard limit).
    QueueFull,
    /// RED's probabilistic (unforced) drop between the thresholds.
    RedEarly,
    /// RED's forced drop above max_th (2*max_th when gentle) or at the hard limit.
    RedForced,
    /// Dropped by a fair scheduler from the longest queue to make room (DRR, FQ-CoDel).
    LongestQueue,
    /// CoDel's dequeue drop (sojourn above target for an interval).
    Codel,
    /// PIE's probabilistic drop.
    Pie,
    /// PI's probabilistic drop (Hollot et al. 2001).
    Pi,
    /// DualPI2's coupled or step drop (RFC 9332; non-ECT packets, or overload).
    DualPi2,
    /// REM's probabilistic drop (Athuraliya et al. 2001; ns-2 `queue/rem.cc`).
    Rem,
    /// Dropped by a user-defined discipline.
    Custom,
    /// Lost on the link by its random loss model (not a queue drop).
    LinkLoss,
    /// A shared-buffer switch's queue was at or above its threshold (static or Dynamic
    /// Threshold; `net/shared_buffer`).
    SharedThreshold,
    /// A shared-buffer switch's unused buffer was smaller than the packet.
    SharedPoolFull,
    /// Longer than a shaper's buckets can ever hold (Linux sch_tbf `tbf_enqueue`, `max_size`).
    Oversize,
    /// Out of a policer's profile (`qdisc/police.rs`: act_police exceed, RFC 2698 red).
    Policed,
    /// COBALT's BLUE drop (`qdisc/cobalt_vars.rs`: Linux sch_cake `cobalt_should_drop`, ns-3
    /// `CobaltQueueDisc::CobaltShouldDrop`, with probability `p_drop`).
    Blue,
    /// A queued pure TCP ACK made redundant by a newer one of the same flow (Linux sch_cake
    /// `cake_ack_filter`; `qdisc/cake/ack_filter.rs`).
    AckFilter,
}

impl DropReason {
    pub const ALL: [DropReason; 17] = [
        DropReason::QueueFull,
        DropReason::RedEarly,
        DropReason::RedForced,
        DropReason::LongestQueue,
        DropReason::Codel,
        DropReason::Pie,
        DropReason::Pi,
        DropReason::DualPi2,
        DropReason::Rem,
        DropReason::Custom,
        DropReason::LinkLoss,
        DropReason::SharedThreshold,
        DropReason::SharedPoolFull,
        DropReason::Oversize,
        DropReason::Policed,
        DropReason::Blue,
        DropReason::AckFilter,
    ];
    pub const COUNT: usize = Self::ALL.len();

    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::QueueFull => "queue_full",
            DropReason::RedEarly => "red_early",
            DropReason::RedForced => "red_forced",
            DropReason::LongestQueue => "longest_queue",
            DropReason::Codel => "codel",
            DropReason::Pie => "pie",
            DropReason::Pi => "pi",
            DropReason::DualPi2 => "dualpi2",
            DropReason::Rem => "rem",
            DropReason::Custom => "custom",
            DropReason::LinkLoss => "link_loss",
            DropReason::SharedThreshold => "shared_threshold",
            DropReason::SharedPoolFull => "shared_pool_full",
            DropReason::Oversize => "oversize",
            DropReason::Policed => "policed",
            DropReason::Blue => "blue",
            DropReason::AckFilter => "ack_filter",
        }
    }

    /// True for drops a queue decided early, before it was full (RED early, CoDel, PIE, PI, REM,
    /// BLUE).
    pub fn is_early(self) -> bool {
        matches!(
            self,
            DropReason::RedEarly
                | DropReason::Codel
                | DropReason::Pie
                | DropReason::Pi
                | DropReason::DualPi2
                | DropReason::Rem
                | DropReason::Blue
        )
    }

    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
}
