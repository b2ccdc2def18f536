//! What each number of the report measures, and over which interval: one kind per field of
//! [`crate::report::Report`], by its path in the report's JSON (`flows[].tcp.timeouts`; a list's
//! index is `[]`, a map's key `*`, a class nested in a class reads as the outer class). Two
//! things read it: the TCP sender, which subtracts the [`Kind::Counter`]s of its section as they
//! stood at the warm-up (`tcp/sender.rs`), and the test that a run with a warm-up reports the
//! difference of a run without one (`tests/warmup_counters.rs`), which fails on a number whose
//! path is not here. docs/measurements.md says the same in words.

/// How a number of the report relates to the measured interval [warm-up, end].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A setting or a name's attribute (rate, delay, start, weight): the same whatever is
    /// measured.
    Setting,
    /// A fact of the whole run (simulated time reached, where the measured interval starts,
    /// events, wall time).
    Run,
    /// The state at the end of the run (cwnd, queued packets, srtt): not an interval's.
    Gauge,
    /// Events at or after the warm-up: a run with warm-up w reports the difference of the
    /// counts of a run without one at its end and at w.
    Counter,
    /// A flow's packets created at or after the warm-up, counted when they are sent, received
    /// or lost (so that sent = received + lost + in flight holds): the packets of the warm-up
    /// still in flight at w are left out even where they arrive later.
    Cohort,
    /// A statistic of the [`Kind::Cohort`] packets (delay, jitter) or a rate of their bytes.
    CohortStat,
    /// A time average over [warm-up, end] (queue length, link utilisation).
    TimeAverage,
    /// A mean over the events of the counter named (a sojourn time per departure, an RTT per
    /// sample) at or after the warm-up.
    MeanOf(&'static str),
    /// The largest of those events.
    Max,
    /// The smallest of those events.
    Min,
    /// A percentile of those events; the field named is their maximum.
    Quantile(&'static str),
    /// Times of a series' samples: from the warm-up on.
    SeriesTime,
    /// Values of a series at its sample times (a queue's length, a cwnd; a flow series' packets
    /// sent in the interval).
    SeriesValue,
    /// A flow series' counts of [`Kind::Cohort`] packets (and rates of them) per interval.
    SeriesCohort,
    /// A finite transfer that starts at or after the warm-up (its flow completion time), an
    /// incast query of such transfers, or a statistic of them (`monitor/fct.rs`): a transfer
    /// that starts before the warm-up is left out whole.
    Started,
}

use Kind::*;

/// Every numeric field of the report (strings and booleans are labels, not listed).
pub const FIELDS: &[(&str, Kind)] = &[
    ("seed", Setting),
    ("sim_time_s", Run),
    ("warmup_s", Run),
    ("events", Run),
    ("wall_s", Run),
    // ---- flows[] ----
    ("flows[].packet_size", Setting),
    ("flows[].start_s", Setting),
    ("flows[].stop_s", Setting),
    ("flows[].tx_packets", Cohort),
    ("flows[].tx_bytes", Cohort),
    ("flows[].rx_packets", Cohort),
    ("flows[].rx_bytes", Cohort),
    ("flows[].lost_packets", Cohort),
    ("flows[].lost_bytes", Cohort),
    ("flows[].in_flight_packets", Cohort),
    ("flows[].drops_by_location.*.*", Cohort),
    ("flows[].throughput_bps", CohortStat),
    ("flows[].goodput_bps", CohortStat),
    ("flows[].delay_mean_s", CohortStat),
    ("flows[].delay_p50_s", CohortStat),
    ("flows[].delay_p95_s", CohortStat),
    ("flows[].delay_p99_s", CohortStat),
    ("flows[].delay_max_s", CohortStat),
    ("flows[].jitter_s", CohortStat),
    ("flows[].reverse_tx_packets", Cohort),
    ("flows[].reverse_lost_packets", Cohort),
    // ---- flows[].tcp (the sender) ----
    ("flows[].tcp.mss", Setting),
    ("flows[].tcp.bytes_acked", Counter),
    ("flows[].tcp.segments_sent", Counter),
    ("flows[].tcp.bytes_sent", Counter),
    ("flows[].tcp.retransmitted_segments", Counter),
    ("flows[].tcp.retransmitted_bytes", Counter),
    ("flows[].tcp.timeouts", Counter),
    ("flows[].tcp.fast_retransmits", Counter),
    ("flows[].tcp.ecn_reductions", Counter),
    ("flows[].tcp.syn_retransmits", Counter),
    ("flows[].tcp.acks_received", Counter),
    ("flows[].tcp.dupacks_received", Counter),
    ("flows[].tcp.rtt_samples", Counter),
    ("flows[].tcp.rtt_mean_s", MeanOf("rtt_samples")),
    ("flows[].tcp.rtt_min_s", Min),
    ("flows[].tcp.rtt_max_s", Max),
    ("flows[].tcp.srtt_s", Gauge),
    ("flows[].tcp.rttvar_s", Gauge),
    ("flows[].tcp.rto_s", Gauge),
    ("flows[].tcp.cwnd_bytes", Gauge),
    ("flows[].tcp.cwnd_segments", Gauge),
    ("flows[].tcp.ssthresh_bytes", Gauge),
    // when the transfer completed, from its start: a fact of the flow, warm-up or not
    ("flows[].tcp.completion_time_s", Run),
    ("flows[].tcp.objects_completed", Counter),
    (
        "flows[].tcp.response_time_mean_s",
        MeanOf("objects_completed"),
    ),
    (
        "flows[].tcp.response_time_p50_s",
        Quantile("response_time_max_s"),
    ),
    (
        "flows[].tcp.response_time_p95_s",
        Quantile("response_time_max_s"),
    ),
    ("flows[].tcp.response_time_max_s", Max),
    ("flows[].tcp.pacing_rate_bytes_per_s", Gauge),
    ("flows[].tcp.pacing_holds", Counter),
    // RACK-TLP, D-SACK and undo (tcp/sender/rack_tlp.rs, tcp/sender/dsack_undo.rs)
    ("flows[].tcp.rack.loss_probes", Counter),
    ("flows[].tcp.rack.loss_probe_recoveries", Counter),
    ("flows[].tcp.rack.reo_wnd_steps", Gauge),
    ("flows[].tcp.rack.dsacks_received", Counter),
    ("flows[].tcp.rack.full_undos", Counter),
    ("flows[].tcp.rack.partial_undos", Counter),
    ("flows[].tcp.rack.dsack_undos", Counter),
    // AccECN (tcp/accecn.rs): marks and option bytes counted, ACKs taken as wrapped
    ("flows[].tcp.accecn.ce_packets", Counter),
    ("flows[].tcp.accecn.ce_option_bytes", Counter),
    ("flows[].tcp.accecn.ace_wrapped", Counter),
    ("flows[].tcp.app_written_bytes", Counter),
    ("flows[].tcp.app_refused_bytes", Counter),
    // the congestion controller's (`cc/*.rs` report)
    ("flows[].tcp.cc_state.alpha", Gauge),
    ("flows[].tcp.cc_state.alpha_updates", Counter),
    ("flows[].tcp.cc_state.rounds", Counter),
    ("flows[].tcp.cc_state.ai_per_round", Gauge),
    ("flows[].tcp.cc_state.w_max_segments", Gauge),
    ("flows[].tcp.cc_state.k_s", Gauge),
    ("flows[].tcp.cc_state.hystart_exits", Counter),
    ("flows[].tcp.cc_state.hystart_pp_css_entries", Counter),
    ("flows[].tcp.cc_state.hystart_pp_css_resumes", Counter),
    ("flows[].tcp.cc_state.hystart_pp_avoidance_entries", Counter),
    ("flows[].tcp.cc_state.base_rtt_s", Gauge),
    ("flows[].tcp.cc_state.last_diff_segments", Gauge),
    ("flows[].tcp.cc_state.max_bw_bytes_per_s", Gauge),
    ("flows[].tcp.cc_state.min_rtt_s", Gauge),
    ("flows[].tcp.cc_state.pacing_rate_bytes_per_s", Gauge),
    ("flows[].tcp.cc_state.pacing_gain", Gauge),
    ("flows[].tcp.cc_state.cwnd_gain", Gauge),
    ("flows[].tcp.cc_state.lt_bw_bytes_per_s", Gauge),
    // ---- queues[] ----
    ("queues[].arrivals", Counter),
    ("queues[].departures", Counter),
    ("queues[].drops", Counter),
    ("queues[].early_drops", Counter),
    ("queues[].drops_by_reason.*", Counter),
    ("queues[].marks", Counter),
    ("queues[].avg_packets", TimeAverage),
    ("queues[].avg_bytes", TimeAverage),
    ("queues[].max_packets", Max),
    ("queues[].max_bytes", Max),
    ("queues[].sojourn_mean_s", MeanOf("departures")),
    ("queues[].sojourn_p99_s", Quantile("sojourn_max_s")),
    ("queues[].sojourn_max_s", Max),
    // ---- queues[].classes[] (classful, DualPI2's L and C) ----
    ("queues[].classes[].weight", Setting),
    ("queues[].classes[].arrivals", Counter),
    ("queues[].classes[].arrival_bytes", Counter),
    ("queues[].classes[].departures", Counter),
    ("queues[].classes[].departure_bytes", Counter),
    ("queues[].classes[].drops", Counter),
    ("queues[].classes[].drops_by_reason.*", Counter),
    ("queues[].classes[].marks", Counter),
    ("queues[].classes[].avg_packets", TimeAverage),
    ("queues[].classes[].avg_bytes", TimeAverage),
    ("queues[].classes[].max_packets", Max),
    ("queues[].classes[].max_bytes", Max),
    ("queues[].classes[].sojourn_mean_s", MeanOf("departures")),
    // DualPI2's name for the same mean (0 without a departure)
    ("queues[].classes[].mean_sojourn_s", MeanOf("departures")),
    (
        "queues[].classes[].sojourn_p50_s",
        Quantile("sojourn_max_s"),
    ),
    (
        "queues[].classes[].sojourn_p99_s",
        Quantile("sojourn_max_s"),
    ),
    ("queues[].classes[].sojourn_max_s", Max),
    ("queues[].classes[].queued_packets", Gauge),
    ("queues[].classes[].average", Gauge),
    // ---- switches[] (shared-buffer switches' pools, `net/shared_buffer/pool.rs`) ----
    ("switches[].buffer", Setting),
    ("switches[].max_occupancy", Max),
    ("switches[].mean_occupancy", TimeAverage),
    ("switches[].drops_threshold", Counter),
    ("switches[].drops_pool_full", Counter),
    ("switches[].marks", Counter),
    ("switches[].queues[].alpha", Setting),
    ("switches[].queues[].threshold", Setting),
    ("switches[].queues[].drops_threshold", Counter),
    ("switches[].queues[].drops_pool_full", Counter),
    ("switches[].queues[].marks", Counter),
    ("switches[].series.t_s[]", SeriesTime),
    ("switches[].series.occupancy[]", SeriesValue),
    ("switches[].series.thresholds[][]", SeriesValue),
    // ---- links[] ----
    ("links[].rate_bps", Setting),
    ("links[].delay_s", Setting),
    ("links[].tx_packets", Counter),
    ("links[].tx_bytes", Counter),
    ("links[].utilisation", TimeAverage),
    ("links[].lost_packets", Counter),
    // ---- fairness (of the flows' throughputs) ----
    ("fairness.jain", CohortStat),
    ("fairness.throughput_mean_bps", CohortStat),
    ("fairness.throughput_std_bps", CohortStat),
    // ---- series ----
    ("series.queues[].t_s[]", SeriesTime),
    ("series.queues[].packets[]", SeriesValue),
    ("series.queues[].bytes[]", SeriesValue),
    ("series.queues[].average[]", SeriesValue),
    ("series.tcp[].t_s[]", SeriesTime),
    ("series.tcp[].cwnd_bytes[]", SeriesValue),
    ("series.tcp[].ssthresh_bytes[]", SeriesValue),
    ("series.tcp[].rwnd_bytes[]", SeriesValue),
    ("series.tcp[].srtt_s[]", SeriesValue),
    ("series.tcp[].rtt_s[]", SeriesValue),
    ("series.flows[].interval_s", Setting),
    ("series.flows[].t_s[]", SeriesTime),
    ("series.flows[].tx_packets[]", SeriesValue),
    ("series.flows[].rx_packets[]", SeriesCohort),
    ("series.flows[].lost_packets[]", SeriesCohort),
    ("series.flows[].acks_received[]", SeriesCohort),
    ("series.flows[].throughput_bps[]", SeriesCohort),
    ("series.flows[].goodput_bps[]", SeriesCohort),
    // ---- fct (finite transfers that start after the warm-up) ----
    ("fct.edges_bytes[]", Setting),
    ("fct.buckets[].min_bytes", Setting),
    ("fct.buckets[].max_bytes", Setting),
    ("fct.buckets[].count", Started),
    ("fct.buckets[].unfinished", Started),
    ("fct.buckets[].fct_mean_s", Started),
    ("fct.buckets[].fct_p50_s", Started),
    ("fct.buckets[].fct_p99_s", Started),
    ("fct.buckets[].fct_p999_s", Started),
    ("fct.buckets[].slowdown_mean", Started),
    ("fct.buckets[].slowdown_p50", Started),
    ("fct.buckets[].slowdown_p99", Started),
    ("fct.buckets[].slowdown_p999", Started),
    ("fct.flows[].size_bytes", Started),
    ("fct.flows[].start_s", Started),
    ("fct.flows[].finish_s", Started),
    ("fct.flows[].fct_s", Started),
    ("fct.flows[].ideal_fct_s", Started),
    ("fct.flows[].slowdown", Started),
    ("fct.queries[].responses", Started),
    ("fct.queries[].start_s", Started),
    ("fct.queries[].finish_s", Started),
    ("fct.queries[].qct_s", Started),
    ("fct.qct.count", Started),
    ("fct.qct.unfinished", Started),
    ("fct.qct.qct_mean_s", Started),
    ("fct.qct.qct_p50_s", Started),
    ("fct.qct.qct_p99_s", Started),
    ("fct.qct.qct_p999_s", Started),
];

/// The kind of the field at `path` (in the form of [`FIELDS`]), if it is listed.
pub fn kind_of(path: &str) -> Option<Kind> {
    FIELDS.iter().find(|(p, _)| *p == path).map(|&(_, k)| k)
}

/// The [`Kind::Counter`]s of `section` (a JSON object reported at `prefix`, e.g.
/// `flows[].tcp`) that it holds as whole numbers, by their path inside it: what a component
/// keeps at the warm-up to subtract at the end ([`subtract_counters`]).
pub fn counters_of(prefix: &str, section: &serde_json::Value) -> Vec<(&'static str, u64)> {
    FIELDS
        .iter()
        .filter(|(_, k)| *k == Counter)
        .filter_map(|(p, _)| p.strip_prefix(prefix)?.strip_prefix('.'))
        .filter_map(|rel| Some((rel, lookup(section, rel)?.as_u64()?)))
        .collect()
}

/// Subtracts counters kept by [`counters_of`] from `section` (the same fields at the end).
pub fn subtract_counters(section: &mut serde_json::Value, kept: &[(&'static str, u64)]) {
    for &(rel, v0) in kept {
        let pointer = format!("/{}", rel.replace('.', "/"));
        if let Some(at) = section.pointer_mut(&pointer) {
            if let Some(v) = at.as_u64() {
                *at = (v - v0).into();
            }
        }
    }
}

fn lookup<'a>(v: &'a serde_json::Value, rel: &str) -> Option<&'a serde_json::Value> {
    rel.split('.').try_fold(v, |at, key| at.get(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_kept_and_subtracted_by_path() {
        let at_w =
            serde_json::json!({"timeouts": 2, "cwnd_bytes": 10.0, "cc_state": {"rounds": 5}});
        let kept = counters_of("flows[].tcp", &at_w);
        assert_eq!(kept, vec![("timeouts", 2), ("cc_state.rounds", 5)]);
        let mut end =
            serde_json::json!({"timeouts": 7, "cwnd_bytes": 3.0, "cc_state": {"rounds": 9}});
        subtract_counters(&mut end, &kept);
        assert_eq!(
            end,
            serde_json::json!({"timeouts": 5, "cwnd_bytes": 3.0, "cc_state": {"rounds": 4}})
        );
    }

    #[test]
    fn every_path_is_listed_once() {
        let mut seen = std::collections::BTreeSet::new();
        for (p, _) in FIELDS {
            assert!(seen.insert(*p), "{p} listed twice");
        }
    }
}
