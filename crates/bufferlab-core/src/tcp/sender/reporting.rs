//! What the sender reports.
//!
//! * The flow's `tcp` report (`json_report`): counters, RTT statistics, the window, response
//!   times, less what was counted before the warm-up (`monitor/fields.rs`).
//! * Its time series, sample-and-hold (the state only changes inside the endpoint's calls).
//! * The finite transfer for the flow-completion monitor (`monitor/fct.rs`).
//! * ns-2.35's agent variables for probes and traces (`probe_var`): tcp.h's bindings
//!   (`cwnd_`, `ssthresh_`, `ack_`, `t_seqno_`, `maxseq_`, the estimator's `srtt_` and
//!   `rttvar_`, `dupacks_`) and tcp.cc `output()`'s counters (`ndatapack_`, `nrexmitpack_`),
//!   in packets numbered as ns-2 numbers them; Reno's and NewReno's fast-recovery inflation
//!   is `dupwnd_`, not cwnd_ (tcp-reno.cc `window()`).

use super::{State, TcpSender, TcpSeries};
use crate::tcp::app::TcpApp;
use crate::tcp::config::CcKind;
use crate::units::SimTime;
use serde_json::json;

impl TcpSender {
    pub(super) fn record_series(&mut self, now: SimTime) {
        if let Some(mut s) = self.series.take() {
            self.sample_until(&mut s, now);
            self.series = Some(s);
        }
    }

    /// Appends the samples due up to `until`, each the sender's current state (sample-and-hold:
    /// the state only changes inside the endpoint's calls).
    pub(super) fn sample_until(&self, s: &mut TcpSeries, until: SimTime) {
        while s.next <= until {
            s.t_s.push(s.next.as_secs_f64());
            s.cwnd_bytes.push(self.w.cwnd);
            s.ssthresh_bytes
                .push(self.w.ssthresh.is_finite().then_some(self.w.ssthresh));
            s.rwnd_bytes.push(self.rwnd.min(self.p.max_window));
            s.srtt_s.push(self.rtt.srtt());
            s.rtt_s
                .push((self.rtt.samples > 0).then_some(self.rtt.last_sample));
            s.next = s.next + s.interval;
        }
    }

    pub(super) fn json_report(&self) -> serde_json::Value {
        let rts = &self.response_times[self.objects_at_warmup..];
        let mut sorted = rts.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let q = |f: f64| -> Option<f64> {
            (!sorted.is_empty()).then(|| {
                let i = ((sorted.len() as f64 * f).ceil() as usize).clamp(1, sorted.len()) - 1;
                sorted[i]
            })
        };
        let st = &self.stats;
        let mut r = json!({
            "cc": self.cc.name(),
            "preset": format!("{:?}", self.p.preset).to_lowercase(),
            "app": self.app.kind(),
            "mss": self.p.mss,
            "sack": self.p.sack,
            "bytes_acked": self.snd_una.saturating_sub(1).min(self.data_end.saturating_sub(1)),
            "segments_sent": st.segments_sent,
            "bytes_sent": st.bytes_sent,
            "retransmitted_segments": st.retransmitted_segments,
            "retransmitted_bytes": st.retransmitted_bytes,
            "timeouts": st.timeouts,
            "fast_retransmits": st.fast_retransmits,
            "ecn_reductions": st.ecn_reductions,
            "syn_retransmits": st.syn_retransmits,
            "acks_received": st.acks_received,
            "dupacks_received": st.dupacks_received,
            "rtt_samples": self.rtt.samples,
            "rtt_mean_s": self.rtt.measured.mean(),
            "rtt_min_s": self.rtt.measured.min(),
            "rtt_max_s": self.rtt.measured.max(),
            "srtt_s": self.rtt.srtt(),
            "rttvar_s": self.rtt.rttvar(),
            "rto_s": self.rtt.rto().as_secs_f64(),
            "cwnd_bytes": self.w.cwnd,
            "cwnd_segments": self.w.cwnd / self.w.mss,
            "ssthresh_bytes": self.w.ssthresh.is_finite().then_some(self.w.ssthresh),
            "completion_time_s": self.completion.map(|t| (t.saturating_sub(self.start)).as_secs_f64()),
            "objects_completed": self.response_times.len(),
            "response_time_mean_s": (!rts.is_empty()).then(|| rts.iter().sum::<f64>() / rts.len() as f64),
            "response_time_p50_s": q(0.5),
            "response_time_p95_s": q(0.95),
            "response_time_max_s": sorted.last(),
            "cc_state": self.cc.report(),
        });
        if let Some(rack) = self.undo_report() {
            r["rack"] = rack;
        }
        if let Some(a) = &self.accecn {
            r["accecn"] = json!({"ce_packets": a.ce_packets, "ce_option_bytes": a.ce_bytes,
                                 "ace_wrapped": a.wrapped});
        }
        if let Some(p) = &self.pacer {
            r["pacing_rate_bytes_per_s"] = json!(p.last_rate);
            r["pacing_holds"] = json!(p.held);
        }
        if let TcpApp::Writes {
            written_bytes,
            refused_bytes,
            ..
        } = &self.app
        {
            // what the source wrote, and what a full send buffer refused
            r["app_written_bytes"] = json!(written_bytes);
            r["app_refused_bytes"] = json!(refused_bytes);
        }
        crate::monitor::fields::subtract_counters(&mut r, &self.at_warmup);
        r
    }

    /// The opening packet's transmissions so far (the first and its retransmissions).
    pub(super) fn syn_sends(&self) -> u64 {
        if self.p.handshake && self.state != State::Idle {
            1 + self.stats.syn_retransmits
        } else {
            0
        }
    }

    /// ns-2 `Agent/TCP` variables (tcp.h): windows in packets of `mss`, times in seconds,
    /// packets numbered from 0 (data starts at sequence 1 here). With an opening packet
    /// (ns-2's `syn_`, on by default in ns-2.35) that packet is number 0 and data segments
    /// count from 1, as ns-2 numbers them.
    #[inline]
    pub(super) fn probe_var(&self, var: &str) -> Option<f64> {
        let mss = self.p.mss as f64;
        let opening = if self.p.handshake { 1.0 } else { 0.0 };
        let seg = |seq: u64| (seq.saturating_sub(1) as f64 / mss).floor() + opening;
        let opening_unacked = self.p.handshake && self.state != State::Established;
        match var {
            // not ns-2's: the CE-marked bytes the controller was given (DCTCP, Prague, BBRv3)
            "ecn_marked_bytes" => Some(self.ecn_marked_bytes as f64),
            // Agent/TCP/Linux: a module's cwnd_ (sender/ns2_linux.rs); delay_growth_ false
            "cwnd_" if self.lx.as_ref().is_some_and(|l| l.cwnd_var().is_some()) => {
                self.lx.as_ref().and_then(|l| l.cwnd_var())
            }
            // ns-2 sends the opening packet with cwnd_ 1 (seen in ns-2.35's cwnd_ traces).
            "cwnd_" if opening_unacked && self.lx.is_none() => Some(1.0),
            // ns-2 Reno/NewReno keep the fast-recovery inflation in dupwnd_, not in cwnd_
            // (tcp-reno.cc: window() = cwnd_ + dupwnd_).
            "cwnd_" if self.ns2_dupwnd_out => Some(self.ns2_base / mss),
            "cwnd_"
                if self.in_recovery
                    && self.ns2_aimd()
                    && !self.p.sack
                    && matches!(self.p.cc, CcKind::Reno | CcKind::Newreno) =>
            {
                Some(self.ns2_base / mss)
            }
            "cwnd_" => Some(self.cwnd() / mss),
            "ssthresh_" => Some(self.ssthresh() / mss),
            "ack_" if opening_unacked => Some(-1.0),
            "ack_" => Some(seg(self.snd_una) - 1.0),
            "t_seqno_" if self.state == State::Idle => Some(0.0),
            "t_seqno_" if opening_unacked => Some(1.0),
            "t_seqno_" => Some(seg(self.snd_nxt)),
            "maxseq_" if self.state == State::Idle => Some(-1.0), // tcp.cc reset()
            "maxseq_" => Some(seg(self.snd_max) - 1.0),
            "rtt_" | "srtt_" | "rttvar_" | "backoff_" if self.rtt.is_ns2() => self.rtt.ns2_var(var),
            "srtt_" => self.rtt.srtt(),
            "rtt_" => (self.rtt.samples > 0).then_some(self.rtt.last_sample),
            "rto_" => Some(self.rtt.rto().as_secs_f64()),
            // tcp.cc binds dupacks_: the duplicates counted since the last new ACK
            "dupacks_" => Some(f64::from(self.dupacks)),
            // tcp.cc output()'s counters as it keeps them during the run: ++ndatapack_ for
            // every packet sent, the opening packet and its retransmissions too, and
            // ++nrexmitpack_ for each of them not above maxseq_; timeout() counts nrexmit_,
            // recv() nackpack_ (the end-of-run values the ns-2 layer reads from the report)
            "ndatapack_" => Some((self.stats.segments_sent + self.syn_sends()) as f64),
            "ndatabytes_" => Some(self.stats.bytes_sent as f64),
            "nrexmitpack_" => {
                Some((self.stats.retransmitted_segments + self.stats.syn_retransmits) as f64)
            }
            "nrexmitbytes_" => Some(self.stats.retransmitted_bytes as f64),
            "nrexmit_" => Some(self.stats.timeouts as f64),
            "nackpack_" => Some(self.stats.acks_received as f64),
            _ => None,
        }
    }

    #[inline]
    pub(super) fn finite_transfer_of(&self) -> Option<crate::monitor::fct::FiniteTransfer> {
        let TcpApp::Transfer { bytes } = self.app else {
            return None;
        };
        Some(crate::monitor::fct::FiniteTransfer {
            bytes,
            wire: crate::monitor::fct::WireFormat {
                mss: self.p.mss,
                header: self.p.data_header(),
                ack: self.p.ack_size,
                bare_first: self.rules.opening_data_without_headers && !self.p.handshake,
            },
            // the FIN rides on the last data segment: its ACK covers the last byte
            done: self.completion,
        })
    }

    #[inline]
    pub(super) fn series_json(&self, end: SimTime) -> Option<serde_json::Value> {
        let mut me = TcpSeries::clone(self.series.as_ref()?);
        // Fill to the end with the current state (sample-and-hold).
        self.sample_until(&mut me, end);
        Some(json!({
            "t_s": me.t_s,
            "cwnd_bytes": me.cwnd_bytes,
            "ssthresh_bytes": me.ssthresh_bytes,
            "rwnd_bytes": me.rwnd_bytes,
            "srtt_s": me.srtt_s,
            "rtt_s": me.rtt_s,
        }))
    }
}
