//! The `tcp = { full_tcp = { ... } }` table of a flow: ns-2.35's two-way TCP,
//! `Agent/TCP/FullTcp` and its subclasses (`tcp/tcp-full.cc`), chosen by `variant`, and the
//! variables of those agents that the one-way agents do not have. Each default is
//! ns-2.35's (`tcl/lib/ns-default.tcl`, `Agent/TCP/FullTcp set ...`, checked with `ns`
//! itself: `[new Agent/TCP/FullTcp] set segsize_` is 536, `interval_` 0.1, ...).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which FullTcp class (tcp-full.cc's TclClass table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FullTcpVariant {
    /// `Agent/TCP/FullTcp` (FullTcpAgent): Reno fast recovery.
    #[default]
    Reno,
    /// `Agent/TCP/FullTcp/Newreno` (NewRenoFullTcpAgent): partial ACKs retransmit.
    Newreno,
    /// `Agent/TCP/FullTcp/Tahoe` (TahoeFullTcpAgent): slow start after a fast retransmit.
    Tahoe,
    /// `Agent/TCP/FullTcp/Sack` (SackFullTcpAgent): SACK blocks and pipe-controlled
    /// recovery (sack.rs).
    Sack,
}

/// The `full_tcp` table (every field optional; ns-2.35's default when left out). With it
/// both ends of the flow are FullTcp agents: the source opens the connection (SYN), the
/// destination listens (`$sink listen`); sequence numbers count bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FullTcpOptions {
    /// The class: `reno` (Agent/TCP/FullTcp, default), `newreno`, `tahoe` or `sack`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variant: Option<FullTcpVariant>,
    /// ns-2 `segsperack_` (default 1): the receiver ACKs every this many full segments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segsperack: Option<u32>,
    /// ns-2 `interval_` in seconds (default 0.1): the delayed-ACK timer's period; 0 turns
    /// the timer off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_s: Option<f64>,
    /// ns-2 `nodelay_` (default false): Nagle off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nodelay: Option<bool>,
    /// ns-2 `tcprexmtthresh_` (default 3): duplicate ACKs that start a fast retransmit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tcprexmtthresh: Option<u32>,
    /// ns-2 `recov_maxburst_` of Agent/TCP/FullTcp/Newreno (default 2): the most segments
    /// one ACK sends during its recovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recov_maxburst: Option<u32>,
    /// ns-2 `bugFix_` (Agent/TCP's, default true): no second fast retransmit until the ACKs
    /// pass `recover_` (tcp-full.cc `dupack_action`). false: each third duplicate ACK
    /// retransmits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bug_fix: Option<bool>,
}

/// The resolved FullTcp variables.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullTcp {
    pub variant: FullTcpVariant,
    pub segsperack: u32,
    pub interval_s: f64,
    pub nodelay: bool,
    pub tcprexmtthresh: u32,
    pub recov_maxburst: u32,
    pub bug_fix: bool,
    /// ns-2 `reno_fastrecov_`: true, but false for Tahoe and Sack (ns-default.tcl's
    /// `Agent/TCP/FullTcp/Tahoe instproc init`, `Agent/TCP/FullTcp/Sack instproc init`).
    pub reno_fastrecov: bool,
    /// ns-2 `open_cwnd_on_pack_`: true, but false for Newreno and Sack (ns-default.tcl's
    /// `Agent/TCP/FullTcp/Newreno instproc init`, `Agent/TCP/FullTcp/Sack instproc init`).
    pub open_cwnd_on_pack: bool,
}

impl FullTcp {
    pub fn resolve(o: &FullTcpOptions) -> FullTcp {
        let variant = o.variant.unwrap_or_default();
        FullTcp {
            variant,
            segsperack: o.segsperack.unwrap_or(1),
            interval_s: o.interval_s.unwrap_or(0.1),
            nodelay: o.nodelay.unwrap_or(false),
            tcprexmtthresh: o.tcprexmtthresh.unwrap_or(3),
            recov_maxburst: o.recov_maxburst.unwrap_or(2),
            bug_fix: o.bug_fix.unwrap_or(true),
            reno_fastrecov: !matches!(variant, FullTcpVariant::Tahoe | FullTcpVariant::Sack),
            open_cwnd_on_pack: !matches!(variant, FullTcpVariant::Newreno | FullTcpVariant::Sack),
        }
    }

    pub fn validate(&self) -> Result<(), String> {
        if self.segsperack == 0 {
            return Err("segsperack must be at least 1".into());
        }
        if !(self.interval_s.is_finite() && self.interval_s >= 0.0) {
            return Err(format!("interval_s {} must be >= 0", self.interval_s));
        }
        if self.tcprexmtthresh == 0 {
            return Err("tcprexmtthresh must be at least 1".into());
        }
        Ok(())
    }
}
