//! CAKE's configuration (`kind = "cake"`): the knobs of `tc qdisc add ... cake` (tc-cake(8)) and
//! Linux `net/sched/sch_cake.c` `cake_init` / `cake_change`, each default with its source.
//!
//! References: Høiland-Jørgensen, Täht & Morton, "Piece of CAKE: A Comprehensive Queue
//! Management Solution for Home Gateways", IEEE LANMAN 2018 (section III: shaper, flow
//! isolation, diffserv, ACK filter); Linux `net/sched/sch_cake.c` (the function names cited).

use super::super::shared_config::{refuse_unknown, UnknownKeys};
use crate::units::{Bytes, QueueLimit, Rate, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What CAKE counts as a flow and as a host (sch_cake `CAKE_FLOW_*`, tc-cake(8) "FLOW
/// ISOLATION PARAMETERS"). Default `triple_isolate` (`cake_init`: `q->flow_mode =
/// CAKE_FLOW_TRIPLE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowMode {
    /// One queue for everything (`CAKE_FLOW_NONE`).
    Flowblind,
    /// One queue per source host (`CAKE_FLOW_SRC_IP`).
    Srchost,
    /// One queue per destination host (`CAKE_FLOW_DST_IP`).
    Dsthost,
    /// One queue per host pair (`CAKE_FLOW_HOSTS`).
    Hosts,
    /// One queue per flow, no host fairness (`CAKE_FLOW_FLOWS`).
    Flows,
    /// Flows, and fairness between source hosts (`CAKE_FLOW_DUAL_SRC`).
    DualSrchost,
    /// Flows, and fairness between destination hosts (`CAKE_FLOW_DUAL_DST`).
    DualDsthost,
    /// Flows, and fairness over both source and destination hosts (`CAKE_FLOW_TRIPLE`).
    #[default]
    TripleIsolate,
}

impl FlowMode {
    /// The sch_cake bit pattern (`CAKE_FLOW_SRC_IP` 1, `DST_IP` 2, `FLOWS` 4).
    pub fn bits(self) -> u8 {
        match self {
            FlowMode::Flowblind => 0,
            FlowMode::Srchost => 1,
            FlowMode::Dsthost => 2,
            FlowMode::Hosts => 3,
            FlowMode::Flows => 4,
            FlowMode::DualSrchost => 5,
            FlowMode::DualDsthost => 6,
            FlowMode::TripleIsolate => 7,
        }
    }
    /// sch_cake `cake_dsrc`: source hosts' bulk-flow counts divide the quantum.
    pub fn dual_src(self) -> bool {
        self.bits() & 5 == 5
    }
    /// sch_cake `cake_ddst`: destination hosts' bulk-flow counts divide the quantum.
    pub fn dual_dst(self) -> bool {
        self.bits() & 6 == 6
    }
}

/// The tin layout (sch_cake `CAKE_DIFFSERV_*`, `cake_config_*`). Default `diffserv3`
/// (`cake_init`: `q->tin_mode = CAKE_DIFFSERV_DIFFSERV3`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiffservMode {
    /// One tin (`cake_config_besteffort`).
    Besteffort,
    /// Best effort, bulk (CS1, LE: 1/16 of the rate), voice (EF, VA, CS6, CS7, TOS4: 1/4)
    /// (`cake_config_diffserv3`).
    #[default]
    Diffserv3,
    /// Best effort, bulk (1/16), video (1/2), voice (1/4) (`cake_config_diffserv4`).
    Diffserv4,
    /// Eight tins, each 7/8 of the one before (`cake_config_diffserv8`).
    Diffserv8,
    /// Eight tins by the IP precedence bits, each 7/8 of the one before
    /// (`cake_config_precedence`).
    Precedence,
}

/// The ACK filter (sch_cake `CAKE_ACK_*`, `cake_ack_filter`). Default `off` (`cake_init`
/// leaves `q->ack_filter` 0, `CAKE_ACK_NONE`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AckFilter {
    #[default]
    Off,
    /// Drop a queued pure ACK made redundant by a newer one when a second such ACK is queued
    /// (`CAKE_ACK_FILTER`).
    Conservative,
    /// Drop it as soon as one is found (`CAKE_ACK_AGGRESSIVE`).
    Aggressive,
}

/// Link-layer cell framing (sch_cake `CAKE_ATM_*`, `cake_calc_overhead`). Default `none`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AtmMode {
    #[default]
    None,
    /// ATM cells: 48 payload bytes in 53 (ADSL).
    Atm,
    /// PTM: one byte per 64 or part thereof (VDSL2, 64b/65b).
    Ptm,
}

/// CAKE, Common Applications Kept Enhanced (Høiland-Jørgensen, Täht & Morton, LANMAN 2018;
/// Linux sch_cake): a shaper, per-flow and per-host fairness (DRR++ with COBALT per flow),
/// diffserv tins, ACK filtering and overhead compensation. docs/models/cake.md.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CakeConfig {
    /// The shaper's rate, `bandwidth` in tc-cake(8) (default: unlimited, no shaping:
    /// `cake_init` sets `q->rate_bps = 0`). Set it a little below the bottleneck so the queue
    /// forms here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Rate>,
    /// The round-trip time CoDel's interval is made of, `rtt` (default 100 ms: `cake_init`
    /// `q->interval = 100000` us).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rtt: Option<SimTime>,
    /// COBALT's target, `target` (default 5 ms: `cake_init` `q->target = 5000` us); raised to
    /// 1.5 MTU times at the tin's rate (`cake_set_rate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<SimTime>,
    /// Default `diffserv3` (`cake_init`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diffserv: Option<DiffservMode>,
    /// Default `triple_isolate` (`cake_init`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flow_mode: Option<FlowMode>,
    /// Default `off` (`cake_init`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ack_filter: Option<AckFilter>,
    /// Bytes added to each packet's size for the shaper, -64 to 256 (tc-cake(8) `overhead`;
    /// default: none, `raw`, the packet's own size: `cake_calc_overhead` without
    /// `CAKE_FLAG_OVERHEAD`). The simulator's packet size is the IP packet, so no network
    /// offset is taken off first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<i32>,
    /// Smallest size the shaper charges, after the overhead (tc-cake(8) `mpu`; default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mpu: Option<u32>,
    /// Default `none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub atm: Option<AtmMode>,
    /// Buffer limit in bytes, `memlimit` (default: 4 `rtt`s at `bandwidth`, at least 4 MiB, at
    /// most 10240 x 1514 B: `cake_reconfigure`; unlimited bandwidth: 10240 x 1514 B). Counted
    /// in packet bytes (Linux counts `skb->truesize`, the kernel's allocation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memlimit: Option<Bytes>,
    /// Clear the DSCP (the flow's `class`) of packets leaving, after the tin is chosen
    /// (tc-cake(8) `wash`; default off).
    #[serde(default)]
    pub wash: bool,
    /// Ingress mode: dropped packets count against the shaper, and COBALT's sojourn test
    /// scales with the bulk-flow count (tc-cake(8) `ingress`; default off, `egress`).
    #[serde(default)]
    pub ingress: bool,
    /// Keys no field took, refused by `validate`.
    #[serde(flatten, skip_serializing)]
    #[schemars(skip)]
    pub unknown: UnknownKeys,
}

/// Linux `psched_mtu` of an Ethernet device: 1500 + 14 (the MTU every `cake_config_*`
/// passes to `cake_set_rate`).
pub const MTU: u64 = 1514;
/// sch_cake `cake_init`: `sch->limit = 10240` (packets, times the MTU in `cake_reconfigure`).
pub const LIMIT_PACKETS: u64 = 10240;
/// sch_cake `cake_reconfigure`: at least 4 MiB.
pub const MIN_MEMLIMIT: u64 = 4 << 20;
/// Defaults of `cake_init` (us there).
pub const DEFAULT_RTT: SimTime = SimTime::from_millis(100);
pub const DEFAULT_TARGET: SimTime = SimTime::from_millis(5);

impl CakeConfig {
    /// Checks values serde cannot: (field relative to the queue, message with the fix).
    pub fn validate(&self) -> Result<(), (String, String)> {
        refuse_unknown(
            &self.unknown,
            &[&[
                "bandwidth",
                "rtt",
                "target",
                "diffserv",
                "flow_mode",
                "ack_filter",
                "overhead",
                "mpu",
                "atm",
                "memlimit",
                "wash",
                "ingress",
            ]],
        )?;
        if self.bandwidth.is_some_and(|r| r.0 < 8 * 64) {
            return Err((
                "bandwidth".into(),
                "give at least 512bps (sch_cake's MIN_RATE, 64 bytes/s), or leave it out for \
                 an unshaped CAKE"
                    .into(),
            ));
        }
        // tc-cake(8): the interval and target are u32 microseconds; 0 is taken as 1 us
        for (f, v) in [("rtt", self.rtt), ("target", self.target)] {
            if let Some(v) = v {
                if v < SimTime::from_micros(1) || v > SimTime::from_micros(u32::MAX as u64) {
                    return Err((
                        f.into(),
                        format!("{v}: give 1us to 4294.967295s (sch_cake keeps it as u32 microseconds; default {})",
                            if f == "rtt" { "100ms" } else { "5ms" }),
                    ));
                }
            }
        }
        let (t, r) = (self.target(), self.rtt());
        {
            if t > r {
                return Err((
                    "target".into(),
                    format!("{t} is above rtt {r}: give a target below the rtt (CoDel's 5-10% of the interval; default 5ms of 100ms)"),
                ));
            }
        }
        if self.overhead.is_some_and(|o| !(-64..=256).contains(&o)) {
            return Err((
                "overhead".into(),
                "give -64 to 256 bytes (tc-cake(8)'s range), e.g. 18 for Ethernet with VLAN, 44 \
                 for PPPoE over ATM (RFC 2684 LLC)"
                    .into(),
            ));
        }
        if self.mpu.is_some_and(|m| m > 256) {
            return Err((
                "mpu".into(),
                "give 0 to 256 bytes (tc-cake(8)'s range; 64 for Ethernet's minimum frame)".into(),
            ));
        }
        if self
            .memlimit
            .is_some_and(|m| m.0 < MTU || m.0 > u32::MAX as u64)
        {
            return Err((
                "memlimit".into(),
                "give 1514B to 4GB (sch_cake keeps it in a u32; it must hold one packet)".into(),
            ));
        }
        Ok(())
    }

    pub fn rtt(&self) -> SimTime {
        self.rtt.unwrap_or(DEFAULT_RTT)
    }
    pub fn target(&self) -> SimTime {
        self.target.unwrap_or(DEFAULT_TARGET)
    }
    pub fn flow_mode(&self) -> FlowMode {
        self.flow_mode.unwrap_or_default()
    }
    pub fn diffserv(&self) -> DiffservMode {
        self.diffserv.unwrap_or_default()
    }
    pub fn ack_filter(&self) -> AckFilter {
        self.ack_filter.unwrap_or_default()
    }

    /// The buffer limit in bytes (sch_cake `cake_reconfigure`, see the field).
    pub fn buffer_limit(&self) -> u64 {
        let packets_cap = LIMIT_PACKETS * MTU;
        let config = self.memlimit.map_or(0, |b| b.0);
        let limit = if config > 0 {
            config
        } else if let Some(rate) = self.bandwidth {
            // rate_bps (bytes/s) * interval (us) / (USEC_PER_SEC / 4): four rtts of data
            let t = (rate.0 / 8) as u128 * (self.rtt().as_nanos() / 1000) as u128 / 250_000;
            (t.min(u32::MAX as u128) as u64).max(MIN_MEMLIMIT)
        } else {
            u32::MAX as u64
        };
        limit.min(packets_cap.max(config))
    }
}

/// The smallest limit a configuration can have, to check that one packet fits.
pub fn configured_limit(cfg: &CakeConfig) -> QueueLimit {
    QueueLimit::Bytes(cfg.buffer_limit())
}
