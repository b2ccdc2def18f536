//! Configuration pieces several disciplines share: how a hashing scheduler groups packets into
//! flows (DRR, SFQ, FQ-CoDel) and whose defaults the modern AQMs start from (CoDel, FQ-CoDel,
//! PIE).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What a hashing scheduler (DRR, SFQ) puts in one bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlowKey {
    /// One bucket per flow (no collisions).
    Flow,
    /// Hash of the source node (ns-2 drr.cc hashes `saddr`).
    #[default]
    Src,
    /// Hash of source and destination nodes.
    SrcDst,
}

/// Whose defaults CoDel, FQ-CoDel and PIE start from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AqmPreset {
    /// Linux (sch_codel, sch_fq_codel, sch_pie) and the RFCs.
    #[default]
    Linux,
    /// ns-3.44 (CoDelQueueDisc, FqCoDelQueueDisc, PieQueueDisc).
    Ns3,
}
