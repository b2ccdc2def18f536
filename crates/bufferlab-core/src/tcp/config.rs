//! TCP settings: the per-flow `tcp = { ... }` table of a scenario (every field optional),
//! the named presets it starts from, and the resolved parameters the endpoints run with.
//!
//! A flow's settings are `preset` (default `ns2`) with the table's fields laid over it.
//! Every preset value is written next to its source; docs/models/tcp.md has the same table.
//!
//! Sources:
//! * ns-2.35 `tcl/lib/ns-default.tcl` (Agent/TCP, Agent/TCPSink, Agent/TCP/Vegas) and
//!   `tcp.cc` (TcpAgent), read through the search tool.
//! * ns-3.44 attribute defaults (`TcpSocket`, `TcpSocketBase`, `TcpL4Protocol`), as listed in
//!   ../shared/peers/ns3/README.md (beside the repository) and ns-3's documentation.
//! * Linux (6.x) defaults: `include/net/tcp.h` (TCP_RTO_MIN 200 ms, TCP_RTO_MAX 120 s,
//!   TCP_TIMEOUT_INIT 1 s, TCP_INIT_CWND 10, TCP_DELACK_MIN 40 ms), `net.ipv4.tcp_rmem/wmem`.

use super::cc::prague_classic_ecn::EcnFallback;
use super::cc::prague_rate::CwndMode;
use super::flavour::{Flavour, Rules};
use super::full::{FullTcp, FullTcpOptions};
use super::ns2_agent::{Ns2Agent, Ns2AgentOptions};
use crate::units::{Bytes, QueueLimit, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How the receiver feeds ECN back (`tcp.ecn_feedback`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum EcnFeedbackScheme {
    /// RFC 3168's ECE flag (latched until CWR), or for DCTCP, Prague and BBRv3 the
    /// per-segment CE state of RFC 8257 section 3.2: the default of every preset.
    #[default]
    Classic,
    /// Accurate ECN (RFC 9768, Linux 6.18 `tcp_accecn_*`, `tcp/accecn.rs`): the count of
    /// CE-marked packets on every ACK (ACE) and the AccECN option's byte counters. Both ends
    /// are configured with it (the SYN negotiation is not modelled).
    Accecn,
}

/// A congestion control / recovery algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    /// Jacobson 1988 / ns-2 `Agent/TCP`: fast retransmit, then slow start (no fast recovery).
    Tahoe,
    /// RFC 5681: fast retransmit and fast recovery (ns-2 `Agent/TCP/Reno`).
    Reno,
    /// RFC 6582: Reno with partial-ACK handling (ns-2 `Agent/TCP/Newreno`, ns-3 `TcpNewReno`).
    Newreno,
    /// Brakmo & Peterson 1995 (ns-2 `Agent/TCP/Vegas`).
    Vegas,
    /// RFC 9438 (Linux default, ns-3 `TcpCubic`).
    Cubic,
    /// Linux `reno` (`tcp_cong_avoid_ai`: growth counts segments acked, not ACKs), as ns-3's
    /// `TcpLinuxReno` models it.
    #[serde(rename = "linux_reno")]
    LinuxReno,
    /// RFC 8257 DCTCP (Linux `tcp_dctcp.c`, ns-3 `TcpDctcp`): needs `ecn = true`.
    Dctcp,
    /// TCP Prague, the L4S sender (RFC 9331 section 4, Linux `tcp_prague.c`): needs `ecn = true`;
    /// paces always.
    Prague,
    /// BBR v1 (Cardwell et al. 2016) as ns-3.44's `TcpBbr` (docs/models/bbr.md); paces always.
    Bbr,
    /// BBRv3 (draft-ietf-ccwg-bbr, Google's v3 `tcp_bbr.c`; docs/models/bbr3.md): loss and ECN
    /// bound its inflight; paces always. With `ecn = true` it reads the CE fraction per round.
    Bbr3,
    /// A `bufferlab.CongestionControl` subclass written in Python (`cc_class`), see docs/extending.md.
    Python,
}

impl CcKind {
    pub fn as_str(self) -> &'static str {
        match self {
            CcKind::Tahoe => "tahoe",
            CcKind::Reno => "reno",
            CcKind::Newreno => "newreno",
            CcKind::Vegas => "vegas",
            CcKind::Cubic => "cubic",
            CcKind::LinuxReno => "linux_reno",
            CcKind::Dctcp => "dctcp",
            CcKind::Prague => "prague",
            CcKind::Bbr => "bbr",
            CcKind::Bbr3 => "bbr3",
            CcKind::Python => "python",
        }
    }
}

/// Named starting points for a flow's TCP settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// ns-2.35 one-way `Agent/TCP/Reno` + `Agent/TCPSink` (the seed papers' simulator).
    #[default]
    Ns2,
    /// ns-3.44 `TcpSocketBase` defaults (NewReno, SACK, delayed ACK, min RTO 1 s).
    Ns3,
    /// A Linux host: CUBIC, IW 10, SACK, timestamps, min RTO 200 ms.
    Linux,
}

/// How slow start ends before the first loss (`slow_start`; docs/models/tcp.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum SlowStart {
    /// RFC 5681 slow start until the first loss (no HyStart of either kind).
    #[serde(rename = "rfc5681")]
    Rfc5681,
    /// CUBIC's classic HyStart (Ha and Rhee 2011), as the flavour's CUBIC runs it: Linux
    /// `tcp_cubic.c`'s, or ns-3.44 `TcpCubic`'s under `ns3_rules` (`cc/hystart.rs`).
    #[serde(rename = "hystart")]
    Hystart,
    /// HyStart++ (RFC 9406; `cc/hystart_pp.rs`) for reno, newreno, linux_reno and cubic, in
    /// the RFC and linux flavours: no Linux, ns-2 or ns-3 release runs it (FreeBSD and Windows
    /// do), so no preset turns it on.
    #[serde(rename = "hystart++")]
    HystartPp,
}

/// The `tcp = { ... }` table of a flow. Every field is optional and overrides the preset.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TcpOptions {
    /// Starting point: `ns2` (default), `ns3` or `linux`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Preset>,
    /// Congestion control: tahoe, reno, newreno, vegas, cubic, linux_reno, dctcp, prague, bbr, bbr3.
    #[serde(default, alias = "variant", skip_serializing_if = "Option::is_none")]
    pub cc: Option<CcKind>,
    /// With `cc = "python"`: the class, `module:Class` or `file.py:Class`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc_class: Option<String>,
    /// With `cc = "python"`: keyword arguments for the class.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cc_params: Option<serde_json::Map<String, serde_json::Value>>,
    /// Segment payload size in bytes (MSS; ns-2 `packetSize_`, ns-3 `SegmentSize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mss: Option<Bytes>,
    /// Initial congestion window in segments (ns-2 `windowInit_`, ns-3 `InitialCwnd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iw: Option<u32>,
    /// Initial window after a lost SYN or SYN-ACK, in segments (RFC 5681 section 3.1: 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iw_after_syn_loss: Option<u32>,
    /// Initial slow-start threshold ("20p" or bytes; default unlimited, RFC 5681 section 3.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<QueueLimit>,
    /// Slow-start threshold after a lost SYN or SYN-ACK (default: unchanged).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ssthresh_after_syn_loss: Option<QueueLimit>,
    /// Upper bound of the sender's window (ns-2 `window_`), "20p" or bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<QueueLimit>,
    /// Send buffer: bounds unsent + unacknowledged data ("100p" or bytes; ns-3 `SndBufSize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_buffer: Option<QueueLimit>,
    /// Receive buffer: its free space is the advertised window; out-of-order data occupies it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recv_buffer: Option<QueueLimit>,
    /// Largest window the receiver advertises, whatever its free space (65535 B without window scaling).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_adv_window: Option<QueueLimit>,
    /// Selective acknowledgements (RFC 2018) with RFC 6675 loss recovery.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sack: Option<bool>,
    /// Delayed ACKs (RFC 5681 section 4.2, RFC 1122 4.2.3.2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delayed_ack: Option<bool>,
    /// With delayed ACKs, ACK at latest every this many full segments (ns-3 `DelAckCount` 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_count: Option<u32>,
    /// With delayed ACKs, the longest an ACK waits (ns-3 `DelAckTimeout` 200 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delack_timeout: Option<SimTime>,
    /// Nagle's algorithm (RFC 896; RFC 1122 4.2.3.4): hold a small segment while data is unacknowledged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nagle: Option<bool>,
    /// ECN (RFC 3168): ECT on data, ECE echo, one reduction per window, CWR.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn: Option<bool>,
    /// Three-way handshake before data (false: start like an ns-2 one-way agent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handshake: Option<bool>,
    /// RTT samples from every ACK through timestamps (RFC 7323) instead of one timed segment per RTT (Karn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamps: Option<bool>,
    /// RTO before the first RTT sample (RFC 6298 section 2.1: 1 s; ns-2 `rtxcur_init_` 3 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_rto: Option<SimTime>,
    /// Lower bound of the RTO (RFC 6298 section 2.4: 1 s; ns-2 `minrto_` 0.2 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_rto: Option<SimTime>,
    /// Upper bound of the RTO, also of its backoff (ns-2 `maxrto_` 60 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rto: Option<SimTime>,
    /// Clock granularity G of RFC 6298; RTT samples are rounded to it (ns-2 `tcpTick_` 0.01 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_granularity: Option<SimTime>,
    /// Phase of ns-2's tick clock, `boot_time_` (default 0 s in every preset): an RTT sample
    /// counts the tick boundaries between sending and the ACK of a clock that reads
    /// `time + clock_phase`, i.e. boundaries at `k * clock_granularity - clock_phase`
    /// (tcp.cc `rtt_update`: `tickoff = fmod(sendtime + boot_time_, tcp_tick_)`,
    /// `t_rtt_ = int((tao + tickoff) / tcp_tick_)`, its only use). ns-2.35 draws it per agent,
    /// `boot_time_ = Random::uniform(tcp_tick_)` in `TcpAgent::reset` (tcp.cc), when
    /// `$ns run` resets the agents; `bufferlab run script.tcl` gives each sender the value ns-2
    /// draws. Only with the ns-2 tick clock (`ns2_rules`); below `clock_granularity`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_phase: Option<SimTime>,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681: 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dupack_threshold: Option<u32>,
    /// Restart from the initial window after an idle period longer than the RTO (RFC 5681 section 4.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_start_restart: Option<bool>,
    /// Limited transmit (RFC 3042; ns-2 `singledup_` 1, `TcpAgent::send_one`): the first and
    /// second duplicate ACKs each send one new segment if cwnd + duplicates allow it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_transmit: Option<bool>,
    /// The ns-2.35 agent's own rules where they differ from the RFCs (default: on with the `ns2`
    /// preset): fixed-point RTO in whole ticks, halving min(cwnd, window_) instead of FlightSize,
    /// Reno's `bugFix_` guard, the 40-byte opening packet without a third handshake segment,
    /// Vegas as `tcp-vegas.cc`. See docs/models/tcp.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_rules: Option<bool>,
    /// The ns-3.44 `TcpSocketBase` rules where they differ from the RFCs (default: on with the
    /// `ns3` preset): the first data segment ACKed at once, sending by the SACK pipe in every
    /// state, SACK kept across a timeout, window growth on the ACK that ends recovery, one
    /// retransmission per partial ACK, duplicate ACKs ignored after a timeout, the timer not
    /// restarted by retransmissions. See docs/models/tcp.md.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns3_rules: Option<bool>,
    /// Proportional Rate Reduction in fast recovery (RFC 6937), under `ns3_rules` as ns-3's
    /// `TcpPrrRecovery` (its default `RecoveryType`; off: `TcpClassicRecovery`), under the
    /// `linux` preset's rules as Linux's `tcp_cwnd_reduction` (default on; off: RFC 6675's
    /// cwnd = ssthresh for the whole recovery). The RFC flavour ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prr: Option<bool>,
    /// RACK-TLP loss detection (RFC 8985 as Linux's `tcp_recovery.c` and
    /// `tcp_schedule_loss_probe` run it; needs `sack`): a segment is lost once one sent after
    /// it is delivered and its RTT plus a reordering window (min RTT / 4) has passed, and a
    /// tail loss probe goes out 2 SRTT after the last send instead of waiting for the RTO.
    /// Under the `linux` preset's rules only (default on there); the other flavours refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rack_tlp: Option<bool>,
    /// When the receiver acknowledges, as Linux decides it (`tcp/linux_ack.rs`, with
    /// `delayed_ack`): quick-ACK mode (the first 16 segments, after an idle longer than the
    /// RTO, for a retransmission, 2 after a CE mark), the delayed-ACK timeout adapting to the
    /// arrivals (`ato`, 40 ms up to the RTT) and SACK compression; off: an ACK every
    /// `delack_count` segments or after `delack_timeout`. Under the `linux` preset's rules
    /// only (default on there); the other flavours refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linux_ack_policy: Option<bool>,
    /// D-SACK (RFC 2883, Linux sysctl `tcp_dsack` 1): the receiver reports a duplicate segment
    /// in the first SACK block, and the sender reads it to widen RACK's reordering window and
    /// to undo a window reduction all of whose retransmissions were duplicates
    /// (`tcp/sender/dsack_undo.rs`). With `sack`; under the `linux` preset's rules only
    /// (default on there); the other flavours refuse it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dsack: Option<bool>,
    /// How the initial slow start ends before a loss: `rfc5681` (not before the loss),
    /// `hystart` (CUBIC's classic HyStart, the flavour's) or `hystart++` (RFC 9406, for reno,
    /// newreno, linux_reno and cubic; RFC and linux flavours). Default: the preset's (CUBIC
    /// runs the flavour's HyStart, the others RFC 5681; ns-2 has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_start: Option<SlowStart>,
    /// Option bytes a SYN and a SYN-ACK carry beyond the header (default by preset: ns-3 4,
    /// Linux 8, ns-2 0; models/tcp.md). `"0B"` for a stack that sends no SYN options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syn_options: Option<Bytes>,
    /// Data segments carry `header` (default true). ns-2's `useHeaders_ false`: a data packet is
    /// `mss` bytes on the wire (tcp.cc `output` adds `headersize()` to data packets only when
    /// `useHeaders_` is true), while its opening packet keeps the 40-byte header and the
    /// sink's ACKs their size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub use_headers: Option<bool>,
    /// Vegas alpha, beta, gamma in segments (ns-2 `v_alpha_` 1, `v_beta_` 3, `v_gamma_` 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vegas_alpha: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vegas_beta: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vegas_gamma: Option<f64>,
    /// CUBIC C (RFC 9438 section 5: 0.4) and beta_cubic (section 4.6: 0.7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cubic_c: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cubic_beta: Option<f64>,
    /// CUBIC fast convergence (RFC 9438 section 4.7, default on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cubic_fast_convergence: Option<bool>,
    /// DCTCP / Prague EWMA gain g (RFC 8257 section 4.2: 1/16; Linux `dctcp_shift_g` 4,
    /// ns-3 `DctcpShiftG` 0.0625).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dctcp_g: Option<f64>,
    /// DCTCP / Prague initial alpha (Linux `dctcp_alpha_on_init` = max, ns-3
    /// `DctcpAlphaOnInit` 1.0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dctcp_alpha_init: Option<f64>,
    /// Prague's RTT-independence target (Linux `tcp_prague.c` `prague_rtt_target` 25 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prague_rtt_target: Option<SimTime>,
    /// Prague's detection of a classic ECN AQM (L4STeam `tcp_prague.c` `prague_ecn_fallback`,
    /// RFC 9331 section 4.3): "off" (Linux's default 0), "detect" (2: the score is reported,
    /// the response unchanged) or "fallback" (1: behind a classic AQM alpha is raised toward
    /// a Reno-friendly reduction); `cc/prague_classic_ecn.rs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prague_ecn_fallback: Option<EcnFallback>,
    /// Prague at small windows (L4STeam `tcp_prague.c` `prague_cwnd_mode`): "window" (the
    /// default: the fractional window throughout, as the tcp_prague.c this model follows and
    /// the parameter's first default 0), "rate" (1: a pacing rate once RTT-independent) or
    /// "switch" (2, the module default of tcp_prague.c v0.7: the rate while cwnd is at most
    /// `prague_cwnd_transit` 4 MTU); both bring v0.7's 4-round RTT transition and its
    /// once-per-target-RTT reduction limit (`cc/prague_rate.rs`, docs/models/prague.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prague_cwnd_mode: Option<CwndMode>,
    /// ECN feedback: "classic" (RFC 3168's ECE, DCTCP's CE-state echo for DCTCP, Prague and
    /// BBRv3; every preset's default, but the linux preset's Prague, whose Linux module sets
    /// `TCP_CONG_NEEDS_ACCECN`) or "accecn" (RFC 9768 Accurate ECN as Linux 6.18 sends
    /// it: a CE packet count on every ACK and the AccECN option's byte counters, which take
    /// 12 bytes of every segment's header and so of the MSS; `tcp/accecn.rs`). Needs
    /// `ecn = true` and the rfc or linux preset's rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ecn_feedback: Option<EcnFeedbackScheme>,
    /// Pace data segments (tcp/pacing.rs): off in every preset (ns-3 `EnablePacing` false;
    /// Linux paces CUBIC only under the fq qdisc). `cc = "bbr"` paces whatever this says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing: Option<bool>,
    /// Pacing rate in slow start, % of cwnd per RTT (ns-3 `PacingSsRatio` 200, Linux
    /// `tcp_pacing_ss_ratio` 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_ss_ratio: Option<f64>,
    /// Pacing rate in congestion avoidance, % of cwnd per RTT (ns-3 `PacingCaRatio` 120,
    /// Linux `tcp_pacing_ca_ratio` 120).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pacing_ca_ratio: Option<f64>,
    /// ABM's unscheduled packets (`net/shared_buffer/abm.rs`): the connection tags each packet
    /// it sends while it has sent fewer data bytes than this (retransmissions counted; its
    /// receiver, sending none, tags every ACK), as the TCP of ABM's authors' ns-3 does with its
    /// `RTTBytes` (one BDP in their scripts); an ABM switch admits tagged packets with its
    /// `abm_unscheduled_alpha`. Default 0: nothing tagged (mainline stacks tag nothing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unscheduled_bytes: Option<Bytes>,
    /// ns-2.35 agent variables (`delay_growth`, `bugfix_ss`, `precision_reduce`, `maxburst`,
    /// `rfc2988`, the sink's `syn_immediate_ack`; `tcp/ns2_agent.rs`), with ns-2's rules only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns2_agent: Option<Ns2AgentOptions>,
    /// ns-2.35's two-way TCP (`Agent/TCP/FullTcp`, `/Newreno`, `/Tahoe`; `tcp/full/`): both
    /// ends are FullTcp agents, the source opens with a SYN, sequence numbers count bytes.
    /// With the `ns2` preset only; `mss` is its `segsize_` (536 unless given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_tcp: Option<FullTcpOptions>,
}

impl TcpOptions {
    /// Checks the options that cannot be resolved: the simulator flavour (`ns2_rules` and
    /// `ns3_rules` both on). The error names the field relative to the `tcp` table.
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let preset = TcpParams::preset(self.preset.unwrap_or_default()).flavour;
        Flavour::from_options(preset, self.ns2_rules, self.ns3_rules).map(|_| ())
    }
}

/// ns-2's `ts_option_size_` default (ns-default.tcl `Agent/TCP set ts_option_size_ 10`): the
/// bytes a data packet's header grows by with `timestamps_` (see [`TcpParams::data_header`]).
pub const NS2_TS_OPTION_BYTES: u32 = 10;

/// Resolved settings of one TCP connection (both ends), all in bytes and simulated time.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpParams {
    pub preset: Preset,
    pub cc: CcKind,
    /// Segment payload.
    pub mss: u32,
    /// IP + TCP header bytes on the wire of each segment (and of ACKs, unless `ack_size` differs).
    pub header: u32,
    /// Bytes on the wire of a pure ACK (`header`, except ns-2's TCPSink: `packetSize_` 40).
    pub ack_size: u32,
    /// Option bytes a SYN or SYN-ACK carries beyond `header` (window scale, SACK permitted).
    pub syn_options: u32,
    /// Data segments carry `header` (ns-2's `useHeaders_`; false: `mss` bytes on the wire).
    pub use_headers: bool,
    /// Bytes an ACK carrying n SACK blocks adds: `base + 8n` (RFC 2018 section 3: kind and
    /// length, then 8 bytes a block; ns-2's Sacker bills the 8 bytes a block only); `None`: SACK
    /// blocks are not billed.
    pub sack_option_base: Option<u32>,
    pub iw: u32,
    pub iw_after_syn_loss: u32,
    /// Bytes; u64::MAX means unlimited.
    pub initial_ssthresh: u64,
    pub ssthresh_after_syn_loss: Option<u64>,
    pub max_window: u64,
    pub send_buffer: u64,
    pub recv_buffer: u64,
    pub max_adv_window: u64,
    pub sack: bool,
    pub delayed_ack: bool,
    pub delack_count: u32,
    pub delack_timeout: SimTime,
    pub nagle: bool,
    pub ecn: bool,
    pub handshake: bool,
    pub timestamps: bool,
    pub initial_rto: SimTime,
    pub min_rto: SimTime,
    pub max_rto: SimTime,
    pub clock_granularity: SimTime,
    /// ns-2's `boot_time_` (see `TcpOptions::clock_phase`).
    pub clock_phase: SimTime,
    pub dupack_threshold: u32,
    pub slow_start_restart: bool,
    pub limited_transmit: bool,
    /// Whose rules the connection follows where the simulators differ (`tcp/flavour/`).
    pub flavour: Flavour,
    pub prr: bool,
    /// RACK-TLP (`tcp/rack.rs`, `tcp/sender/rack_tlp.rs`), with the Linux flavour and SACK.
    pub rack_tlp: bool,
    /// Linux's receiver ACK policy (`tcp/linux_ack.rs`), with the Linux flavour.
    pub linux_ack_policy: bool,
    /// D-SACK (RFC 2883) sent and read (`tcp/sender/dsack_undo.rs`), with the Linux flavour.
    pub dsack: bool,
    /// `slow_start` as given (`None`: the preset's, see [`SlowStart`]).
    pub slow_start: Option<SlowStart>,
    pub vegas_alpha: f64,
    pub vegas_beta: f64,
    pub vegas_gamma: f64,
    pub cubic_c: f64,
    pub cubic_beta: f64,
    pub cubic_fast_convergence: bool,
    pub dctcp_g: f64,
    pub dctcp_alpha_init: f64,
    pub prague_rtt_target: SimTime,
    pub prague_ecn_fallback: EcnFallback,
    pub prague_cwnd_mode: CwndMode,
    pub ecn_feedback: EcnFeedbackScheme,
    pub pacing: bool,
    pub pacing_ss_ratio: f64,
    pub pacing_ca_ratio: f64,
    /// ABM's unscheduled tagging: the first this many data bytes (0: none).
    pub unscheduled_bytes: u64,
    /// ns-2.35 agent variables (`tcp/ns2_agent.rs`; ns-default.tcl's values in every preset).
    pub ns2: Ns2Agent,
    /// ns-2's FullTcp agents at both ends (`tcp/full/`), if the flow is one.
    pub full: Option<FullTcp>,
}

pub const UNLIMITED: u64 = u64::MAX;

impl TcpParams {
    /// The preset of `o` with `o`'s fields laid over it. `header` is the flow's `header` field.
    pub fn resolve(o: &TcpOptions, header: Option<Bytes>) -> TcpParams {
        let mut p = TcpParams::preset(o.preset.unwrap_or_default());
        if let Some(v) = o.cc {
            p.cc = v;
        }
        if p.preset == Preset::Ns2 && p.cc == CcKind::Vegas {
            // ns-2.35 tcp-vegas.cc: VegasTcpAgent::output sends packet 0 as a full data packet
            // and never adds headersize() (packets are packetSize_ bytes on the wire), and
            // VegasTcpAgent::recv has no send_one (no limited transmit).
            p.header = 0;
            p.handshake = false;
            p.limited_transmit = false;
        }
        if let Some(v) = o.mss {
            p.mss = v.0.min(u32::MAX as u64) as u32;
        }
        if let Some(v) = header {
            p.header = v.0.min(u32::MAX as u64) as u32;
        }
        // ns-2's sink answers with packetSize_ 40 whatever the sender's header; elsewhere an
        // ACK is a bare header.
        if p.preset != Preset::Ns2 {
            p.ack_size = p.header;
        }
        let mss = p.mss as u64;
        let bytes = |l: QueueLimit| match l {
            QueueLimit::Packets(n) => n.saturating_mul(mss),
            QueueLimit::Bytes(b) => b,
        };
        // ns-2's window_ is in packets; a preset window is kept in packets when the MSS changes.
        if p.preset == Preset::Ns2 && o.mss.is_some() && p.max_window != UNLIMITED {
            p.max_window = 20 * mss;
        }
        macro_rules! set {
            ($f:ident) => {
                if let Some(v) = o.$f {
                    p.$f = v;
                }
            };
        }
        set!(iw);
        set!(iw_after_syn_loss);
        set!(sack);
        set!(delayed_ack);
        set!(delack_count);
        set!(delack_timeout);
        set!(nagle);
        set!(ecn);
        set!(handshake);
        set!(timestamps);
        set!(initial_rto);
        set!(min_rto);
        set!(max_rto);
        set!(clock_granularity);
        set!(clock_phase);
        set!(dupack_threshold);
        set!(slow_start_restart);
        set!(limited_transmit);
        // ns2_rules / ns3_rules override the preset's flavour; both on is refused by
        // `TcpOptions::check` before this runs.
        p.flavour =
            Flavour::from_options(p.flavour, o.ns2_rules, o.ns3_rules).unwrap_or(Flavour::Ns3);
        set!(prr);
        // the linux preset's RACK-TLP stays with its flavour (ns2_rules / ns3_rules drop it)
        if !p.rules().rack_tlp {
            p.rack_tlp = false;
        }
        set!(rack_tlp);
        if !p.rules().linux_ack_policy {
            p.linux_ack_policy = false;
        }
        set!(linux_ack_policy);
        if !p.rules().dsack {
            p.dsack = false;
        }
        set!(dsack);
        if o.slow_start.is_some() {
            p.slow_start = o.slow_start;
        }
        set!(vegas_alpha);
        set!(vegas_beta);
        set!(vegas_gamma);
        set!(cubic_c);
        set!(cubic_beta);
        set!(cubic_fast_convergence);
        set!(dctcp_g);
        set!(dctcp_alpha_init);
        set!(prague_rtt_target);
        set!(prague_ecn_fallback);
        set!(prague_cwnd_mode);
        set!(ecn_feedback);
        if o.ecn_feedback.is_none()
            && p.preset == Preset::Linux
            && p.flavour == Flavour::Linux
            && p.cc == CcKind::Prague
            && p.ecn
        {
            // tcp_prague.c: TCP_CONG_NEEDS_ACCECN, Linux negotiates AccECN for Prague
            p.ecn_feedback = EcnFeedbackScheme::Accecn;
        }
        if p.accecn() && p.use_headers {
            // tcp_established_options / tcp_current_mss: the option (as it fits beside
            // timestamps) is on every segment and comes out of the MSS
            let (opt, _) = super::accecn::option_fit(p.ts_option_bytes(), false);
            p.header += opt;
            p.mss = p.mss.saturating_sub(opt).max(1);
        }
        set!(pacing);
        set!(pacing_ss_ratio);
        set!(pacing_ca_ratio);
        if let Some(v) = o.unscheduled_bytes {
            p.unscheduled_bytes = v.0;
        }
        p.ns2 = Ns2Agent::resolve(o.ns2_agent.as_ref());
        p.full = o.full_tcp.as_ref().map(FullTcp::resolve);
        // ns-2 tcp.cc timeout(): a lost opening packet makes wnd_init_ 1 only with bugfix_ss_
        if (p.rules().full_initial_window_after_syn_loss || !p.ns2.bugfix_ss)
            && o.iw_after_syn_loss.is_none()
        {
            p.iw_after_syn_loss = p.iw;
        }
        if let Some(v) = o.ssthresh_after_syn_loss {
            p.ssthresh_after_syn_loss = Some(bytes(v));
        }
        if let Some(v) = o.window {
            p.max_window = bytes(v);
        }
        // ns-2 starts with ssthresh_ = window_ (tcp.cc TcpAgent::reset), so it follows window_.
        if p.preset == Preset::Ns2 && p.initial_ssthresh != UNLIMITED {
            p.initial_ssthresh = p.max_window;
        }
        if let Some(v) = o.initial_ssthresh {
            p.initial_ssthresh = bytes(v);
        }
        if let Some(v) = o.send_buffer {
            p.send_buffer = bytes(v);
        }
        if let Some(v) = o.recv_buffer {
            p.recv_buffer = bytes(v);
        }
        if let Some(v) = o.max_adv_window {
            p.max_adv_window = bytes(v);
        }
        if p.preset == Preset::Ns3 && !p.timestamps {
            // without the timestamp option the SACK option (2 + 8n) is padded alone: 4 + 8n
            p.sack_option_base = Some(4);
        }
        if let Some(v) = o.syn_options {
            p.syn_options = v.0.min(u32::MAX as u64) as u32;
        }
        if let Some(v) = o.use_headers {
            p.use_headers = v;
        }
        p
    }

    /// The rules of the connection's simulator flavour.
    /// Every setting as the connection runs with it (units in the names; `null` for
    /// unlimited), for `bufferlab validate --json`.
    pub fn to_json(&self) -> serde_json::Value {
        let bytes = |b: u64| (b != UNLIMITED).then_some(b);
        let flavour = match self.flavour {
            Flavour::Rfc => "rfc",
            Flavour::Ns2 => "ns2",
            Flavour::Ns3 => "ns3",
            Flavour::Linux => "linux",
        };
        let mut j = serde_json::json!({
            "preset": self.preset,
            "cc": self.cc,
            "rules": flavour,
            "mss_bytes": self.mss,
            "header_bytes": self.header,
            "segment_on_wire_bytes": self.wire_size(),
            "ack_bytes": self.ack_size,
            "syn_option_bytes": self.syn_options,
            "data_header_bytes": self.data_header(),
            "sack_option_base_bytes": self.sack_option_base,
            "initial_window_segments": self.iw,
            "initial_window_after_syn_loss_segments": self.iw_after_syn_loss,
            "initial_ssthresh_bytes": bytes(self.initial_ssthresh),
            "ssthresh_after_syn_loss_bytes": self.ssthresh_after_syn_loss.and_then(bytes),
            "max_window_bytes": bytes(self.max_window),
            "send_buffer_bytes": bytes(self.send_buffer),
            "recv_buffer_bytes": bytes(self.recv_buffer),
            "max_advertised_window_bytes": bytes(self.max_adv_window),
            "sack": self.sack,
            "delayed_ack": self.delayed_ack,
            "delayed_ack_count": self.delack_count,
            "delayed_ack_timeout_s": self.delack_timeout.as_secs_f64(),
            "nagle": self.nagle,
            "ecn": self.ecn,
            "handshake": self.handshake,
            "timestamps": self.timestamps,
            "initial_rto_s": self.initial_rto.as_secs_f64(),
            "min_rto_s": self.min_rto.as_secs_f64(),
            "max_rto_s": self.max_rto.as_secs_f64(),
            "clock_granularity_s": self.clock_granularity.as_secs_f64(),
            "dupack_threshold": self.dupack_threshold,
            "slow_start_restart": self.slow_start_restart,
            "limited_transmit": self.limited_transmit,
            "prr": self.prr,
            "vegas": {"alpha": self.vegas_alpha, "beta": self.vegas_beta, "gamma": self.vegas_gamma},
            "cubic": {"c": self.cubic_c, "beta": self.cubic_beta,
                      "fast_convergence": self.cubic_fast_convergence},
        });
        // Only where the flavour has it, so the other flavours' reports keep their bytes.
        if self.rules().rack_tlp {
            j["rack_tlp"] = self.rack_tlp.into();
        }
        if self.rules().linux_ack_policy {
            j["linux_ack_policy"] = self.linux_ack_policy.into();
        }
        if self.rules().dsack {
            j["dsack"] = self.dsack.into();
        }
        // Only when given, so earlier reports keep their bytes.
        if let Some(v) = self.slow_start {
            j["slow_start"] = serde_json::to_value(v).unwrap_or_default();
        }
        if let Some(a) = self.ns2.to_json() {
            j["ns2_agent"] = a;
        }
        if self.clock_phase > SimTime::ZERO {
            j["clock_phase_s"] = self.clock_phase.as_secs_f64().into();
        }
        if let Some(f) = &self.full {
            j["full_tcp"] = serde_json::json!({
                "variant": f.variant, "segsperack": f.segsperack, "interval_s": f.interval_s,
                "nodelay": f.nodelay, "tcprexmtthresh": f.tcprexmtthresh,
                "recov_maxburst": f.recov_maxburst, "bug_fix": f.bug_fix,
            });
        }
        // Only for the controllers that use them, so earlier reports keep their bytes.
        if matches!(self.cc, CcKind::Dctcp | CcKind::Prague) {
            j["dctcp"] =
                serde_json::json!({"g": self.dctcp_g, "alpha_init": self.dctcp_alpha_init});
        }
        if self.cc == CcKind::Prague {
            j["prague_rtt_target_s"] = self.prague_rtt_target.as_secs_f64().into();
            if self.prague_ecn_fallback != EcnFallback::Off {
                j["prague_ecn_fallback"] = serde_json::json!(self.prague_ecn_fallback);
            }
            if self.prague_cwnd_mode != CwndMode::Window {
                j["prague_cwnd_mode"] = serde_json::json!(self.prague_cwnd_mode);
            }
        }
        if self.accecn() {
            j["ecn_feedback"] = serde_json::json!(self.ecn_feedback);
        }
        if self.unscheduled_bytes > 0 {
            j["unscheduled_bytes"] = serde_json::json!(self.unscheduled_bytes);
        }
        // only where pacing applies, so that the settings of unpaced flows read as before
        if self.paced() {
            // Prague paces by its own fixed rule (tcp/pacing.rs `Pacer::prague`)
            let (ss, ca) = if self.cc == CcKind::Prague {
                (200.0, 100.0)
            } else {
                (self.pacing_ss_ratio, self.pacing_ca_ratio)
            };
            j["pacing"] = serde_json::json!({"ss_ratio_percent": ss, "ca_ratio_percent": ca});
        }
        j
    }

    /// Whether the sender paces: `pacing`, or a controller that always does (BBR; Prague,
    /// whose Linux module sets `SK_PACING_NEEDED`).
    pub fn paced(&self) -> bool {
        self.pacing || matches!(self.cc, CcKind::Bbr | CcKind::Bbr3 | CcKind::Prague)
    }

    /// The codepoint of every packet, SYNs and pure ACKs included, when the controller needs
    /// ECN and the flavour's rule `ect_on_every_packet` holds (DCTCP ECT(0), Prague ECT(1),
    /// RFC 9331 section 4.1); None: only data segments are ECN-capable (RFC 3168 6.1.1).
    pub fn ect_on_every_packet(&self) -> Option<crate::packet::Ecn> {
        use crate::packet::Ecn;
        if !(self.ecn && self.rules().ect_on_every_packet) {
            return None;
        }
        match self.cc {
            CcKind::Dctcp => Some(Ecn::Ect0),
            CcKind::Prague => Some(Ecn::Ect1),
            _ => None,
        }
    }

    /// AccECN feedback on (`ecn_feedback = "accecn"` with `ecn`).
    pub fn accecn(&self) -> bool {
        self.ecn && self.ecn_feedback == EcnFeedbackScheme::Accecn
    }

    /// Option bytes of the timestamp option in a segment (12 with its NOPs, RFC 7323 appendix
    /// A).
    pub fn ts_option_bytes(&self) -> u32 {
        if self.timestamps {
            12
        } else {
            0
        }
    }

    pub fn rules(&self) -> &'static Rules {
        self.flavour.rules()
    }

    /// Header bytes on the wire of a data segment: `header`, none without `use_headers`.
    /// With ns-2's rules and timestamps, `header` plus the timestamp option's
    /// `ts_option_size_` (`ns2_agent.ts_option_size`, default [`NS2_TS_OPTION_BYTES`]; tcp.cc
    /// `TcpAgent::headersize`: `tcpip_base_hdr_size_` +
    /// `ts_option_size_` when `ts_option_`, added by `output` to data packets only; the opening
    /// packet of `syn_` stays at `tcpip_base_hdr_size_`). Not for Vegas, whose
    /// `VegasTcpAgent::output` (tcp-vegas.cc) never adds `headersize()`.
    pub fn data_header(&self) -> u32 {
        if !self.use_headers {
            0
        } else if self.timestamps
            && self.rules().timestamps_as_ns2_agent
            && self.cc != CcKind::Vegas
        {
            // ns-2 tcp.cc headersize(): tcpip_base_hdr_size_ + ts_option_size_
            self.header + self.ns2.knobs.ts_option_size
        } else {
            self.header
        }
    }

    /// Bytes on the wire of a full segment.
    pub fn wire_size(&self) -> u32 {
        self.mss + self.data_header()
    }
}

impl Default for TcpParams {
    fn default() -> Self {
        TcpParams::preset(Preset::Ns2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- values the types accept and no connection can run ----
    #[test]
    fn bad_values_are_refused_with_their_field() {
        let field = |f: &dyn Fn(&mut TcpParams)| {
            let mut p = TcpParams::default();
            f(&mut p);
            p.validate().unwrap_err().0
        };
        let no_delack_timer = |p: &mut TcpParams| {
            p.delayed_ack = true;
            p.delack_timeout = SimTime::ZERO;
        };
        assert_eq!(field(&no_delack_timer), "delack_timeout");
        assert_eq!(field(&|p| p.vegas_beta = f64::INFINITY), "vegas_beta");
        assert_eq!(field(&|p| p.vegas_gamma = f64::NAN), "vegas_gamma");
        assert_eq!(field(&|p| p.cubic_c = f64::INFINITY), "cubic_c");
        assert!(TcpParams::default().validate().is_ok());
    }
}
