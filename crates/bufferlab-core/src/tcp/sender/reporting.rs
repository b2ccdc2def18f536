//! TODO

use super::{TcpSender, TcpSeries};
use crate::tcp::app::TcpApp;
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
}
