//! The checks of a flow's resolved TCP parameters that types cannot make
//! ([`TcpParams::validate`]): sizes and timers, which preset's rules a setting needs, and the
//! controllers' values. Each error names the field (relative to the `tcp` table) and, where a
//! default exists, says whose it is.

use super::cc::prague_rate::CwndMode;
use super::config::{CcKind, Preset, TcpParams};
use super::flavour::Flavour;
use super::ns2_agent::Ns2Agent;
use crate::units::SimTime;

type Check = Result<(), (&'static str, String)>;

impl TcpParams {
    /// Checks values types cannot; the error names the field (relative to the `tcp` table).
    pub fn validate(&self) -> Check {
        self.check_sizes_and_timers()?;
        self.check_rules_of_presets()?;
        self.check_controller_values()
    }

    /// `ecn_feedback = "accecn"` (tcp/accecn.rs): with ECN, on the rfc or linux rules.
    fn check_accecn(&self) -> Check {
        if self.ecn_feedback != super::config::EcnFeedbackScheme::Accecn {
            return Ok(());
        }
        if !self.ecn {
            return Err((
                "ecn_feedback",
                "\"accecn\" feeds ECN back: set ecn = true too, or leave it out".into(),
            ));
        }
        if !matches!(self.flavour, Flavour::Rfc | Flavour::Linux) || self.full.is_some() {
            return Err((
                "ecn_feedback",
                "AccECN is modelled with the linux preset's (or the RFC) rules; ns-2.35 and \
                 ns-3.44 have no AccECN: use preset = \"linux\" without ns2_rules / ns3_rules"
                    .into(),
            ));
        }
        Ok(())
    }

    /// Segment, window and buffer sizes, ACK and retransmission timers.
    fn check_sizes_and_timers(&self) -> Check {
        if self.mss == 0 || self.mss as u64 + self.header as u64 > 65_535 {
            return Err((
                "mss",
                format!(
                    "{}B + {}B header: a segment must carry 1 byte and fit 65535 bytes on the wire",
                    self.mss, self.header
                ),
            ));
        }
        if self.iw == 0 {
            return Err(("iw", "must be at least 1 segment".into()));
        }
        if self.iw_after_syn_loss == 0 {
            return Err(("iw_after_syn_loss", "must be at least 1 segment".into()));
        }
        if self.max_window < self.mss as u64 {
            return Err(("window", "must hold at least one segment".into()));
        }
        if self.send_buffer < self.mss as u64 {
            return Err(("send_buffer", "must hold at least one segment".into()));
        }
        if self.recv_buffer < self.mss as u64 {
            return Err(("recv_buffer", "must hold at least one segment".into()));
        }
        if self.max_adv_window < self.mss as u64 {
            return Err(("max_adv_window", "must allow at least one segment".into()));
        }
        if self.delayed_ack && self.delack_count == 0 {
            return Err(("delack_count", "must be at least 1".into()));
        }
        if self.delayed_ack && self.delack_timeout == SimTime::ZERO {
            return Err((
                "delack_timeout",
                "must be positive (ns-2 TCPSink/DelAck interval_ 100ms; Linux 40ms)".into(),
            ));
        }
        if self.dupack_threshold == 0 {
            return Err(("dupack_threshold", "must be at least 1".into()));
        }
        if self.initial_rto == SimTime::ZERO {
            return Err(("initial_rto", "must be positive".into()));
        }
        if self.max_rto < self.min_rto {
            return Err(("max_rto", "must not be below min_rto".into()));
        }
        Ok(())
    }

    /// Settings that need a preset's rules (FullTcp, RACK-TLP, HyStart++, ns-2's agent variables and clock).
    fn check_rules_of_presets(&self) -> Check {
        if let Some(f) = &self.full {
            if self.preset != Preset::Ns2 {
                return Err((
                    "full_tcp",
                    "is ns-2.35's Agent/TCP/FullTcp: give it with preset = \"ns2\"".into(),
                ));
            }
            if self.sack || self.ecn || self.timestamps || self.pacing {
                return Err((
                    "full_tcp",
                    "FullTcp with sack, ecn, timestamps or pacing is not modelled".into(),
                ));
            }
            f.validate().map_err(|e| ("full_tcp", e))?;
        }
        if self.rack_tlp && !self.rules().rack_tlp {
            return Err((
                "rack_tlp",
                "RACK-TLP is modelled with the linux preset's rules only (tcp/flavour/linux.rs): \
                 use preset = \"linux\" without ns2_rules / ns3_rules, or leave it out"
                    .into(),
            ));
        }
        if self.linux_ack_policy && !self.rules().linux_ack_policy {
            return Err((
                "linux_ack_policy",
                "Linux's ACK policy is modelled with the linux preset's rules only \
                 (tcp/linux_ack.rs): use preset = \"linux\" without ns2_rules / ns3_rules, \
                 or leave it out"
                    .into(),
            ));
        }
        if self.dsack && !self.rules().dsack {
            return Err((
                "dsack",
                "D-SACK is modelled with the linux preset's rules only \
                 (tcp/sender/dsack_undo.rs): use preset = \"linux\" without ns2_rules / \
                 ns3_rules, or leave it out"
                    .into(),
            ));
        }
        super::cc::hystart_pp::check_slow_start(self).map_err(|e| ("slow_start", e))?;
        self.check_accecn()?;
        if self.ns2 != Ns2Agent::default() && self.flavour != Flavour::Ns2 {
            return Err((
                "ns2_agent",
                "holds ns-2.35 agent variables: give it with preset = \"ns2\" (or ns2_rules = \
                 true), or leave it out"
                    .into(),
            ));
        }
        let n = &self.ns2;
        let k = &n.knobs;
        if n.rttvar_exp != 2 || k.srtt_bits != 3 || k.rttvar_bits != 2 {
            // tcp/rtt.rs ns2_scales: the shifts ns-2's rtt_update defines
            super::rtt::RttEstimator::new(SimTime(1), SimTime::ZERO, SimTime(1), SimTime(1))
                .ns2(SimTime::ZERO)
                .ns2_scales(k.srtt_bits, k.rttvar_bits, n.rttvar_exp)
                .map_err(|e| ("ns2_agent", e))?;
        }
        if self.clock_phase > SimTime::ZERO {
            if !(self.rules().rto_in_ticks && self.clock_granularity > SimTime::ZERO) {
                return Err((
                    "clock_phase",
                    "is the phase of ns-2's tick clock: give it with preset = \"ns2\" (or \
                     ns2_rules = true) and a positive clock_granularity, or leave it out"
                        .into(),
                ));
            }
            if self.clock_phase >= self.clock_granularity {
                return Err((
                    "clock_phase",
                    format!(
                        "must be below clock_granularity ({} s; ns-2 draws boot_time_ in \
                         [0, tcpTick_))",
                        self.clock_granularity.as_secs_f64()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The congestion controllers' and the pacer's values.
    fn check_controller_values(&self) -> Check {
        if !(self.vegas_alpha >= 0.0
            && self.vegas_beta >= self.vegas_alpha
            && self.vegas_beta.is_finite())
        {
            return Err((
                "vegas_beta",
                "Vegas needs 0 <= alpha <= beta, finite (in segments)".into(),
            ));
        }
        if !(self.cubic_beta > 0.0 && self.cubic_beta < 1.0) {
            return Err((
                "cubic_beta",
                "must be between 0 and 1 (0.7 is RFC 9438's)".into(),
            ));
        }
        if matches!(self.cc, CcKind::Dctcp | CcKind::Prague) && !self.ecn {
            return Err((
                "ecn",
                format!(
                    "cc = \"{}\" reads ECN marks: set ecn = true",
                    self.cc.as_str()
                ),
            ));
        }
        if !(self.dctcp_g > 0.0 && self.dctcp_g <= 1.0) {
            return Err(("dctcp_g", "must be in (0, 1] (0.0625 is RFC 8257's)".into()));
        }
        if !(0.0..=1.0).contains(&self.dctcp_alpha_init) {
            return Err((
                "dctcp_alpha_init",
                "must be in [0, 1] (1.0 is Linux's and ns-3's)".into(),
            ));
        }
        if self.prague_rtt_target == SimTime::ZERO {
            return Err((
                "prague_rtt_target",
                "must be positive (25 ms is Linux's)".into(),
            ));
        }
        if self.prague_cwnd_mode != CwndMode::Window && self.cc != CcKind::Prague {
            return Err((
                "prague_cwnd_mode",
                format!(
                    "applies to cc = \"prague\" only (this flow's cc is \"{}\"): remove it or set cc = \"prague\"",
                    self.cc.as_str()
                ),
            ));
        }
        for (f, v) in [
            ("pacing_ss_ratio", self.pacing_ss_ratio),
            ("pacing_ca_ratio", self.pacing_ca_ratio),
        ] {
            if !(v > 0.0 && v.is_finite()) {
                return Err((
                    f,
                    "must be a positive percentage (ns-3 and Linux: 200 in slow start, 120 after)"
                        .into(),
                ));
            }
        }
        if !(self.cubic_c > 0.0 && self.cubic_c.is_finite()) {
            return Err((
                "cubic_c",
                "must be positive and finite (0.4 is RFC 9438's)".into(),
            ));
        }
        if !(self.vegas_gamma >= 0.0 && self.vegas_gamma.is_finite()) {
            return Err((
                "vegas_gamma",
                "must be a finite number of segments >= 0 (ns-2 gamma_ 1)".into(),
            ));
        }
        Ok(())
    }
}
