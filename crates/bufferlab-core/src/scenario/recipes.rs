//! Warnings for configurations that resemble a known recipe without its defining settings:
//! they run, and measure something else than their author meant.
//!
//! * DCTCP's step marking (Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, section
//!   3.1; RFC 8257 section 3.1): an AQM marks CE on every ECT packet arriving while the
//!   *instantaneous* queue exceeds K. With RED that is min_th = max_th = K, q_weight = 1 (no
//!   averaging), gentle = false (no ramp above max_th) and hard_drop = false (forced drops
//!   marked). RED with equal thresholds and ECN but its default EWMA marks on an average that
//!   lags the queue by hundreds of packets: the marks come late and in bursts.
//! * A DCTCP or Prague sender reads the extent of marking; over a path where no queue marks it
//!   sees only losses.
//! * L4S (RFC 9330 architecture, RFC 9331 ECT(1) identifier, RFC 9332 DualQ Coupled AQM):
//!   DualPI2's L queue is for ECT(1) senders (Prague); without one it is a classic PI2 AQM.
//!   An ECT(1) sender into a classic-only AQM (RFC 3168 marking at a classic target, not a
//!   shallow step) is marked like a classic flow while reacting like an L4S one (RFC 9331
//!   section 4.3 asks L4S senders to detect and handle classic ECN bottlenecks).
//!
//! Each warning is one line and never an error: `run` and `validate` print them on stderr and
//! `validate --json` lists them.

use super::limits::FlowInfo;
use super::topology::Topology;
use crate::qdisc::red::{Params, Variant};
use crate::qdisc::shared_config::AqmPreset;
use crate::qdisc::QueueConfig;
use crate::tcp::CcKind;

/// Whether the discipline marks CE at all (with its preset's default for `ecn`).
fn marks(q: &QueueConfig) -> bool {
    match q {
        QueueConfig::Red(c) | QueueConfig::Ared(c) | QueueConfig::Lalred(c) => {
            c.ecn.unwrap_or(false)
        }
        QueueConfig::Codel(c) => c.knobs.marks(false),
        // FQ-CoDel: Linux sch_fq_codel marks by default (`ecn` on), ns-3's does not
        QueueConfig::FqCodel(c) => c.knobs.marks(c.preset == AqmPreset::Linux),
        // COBALT: sch_cake always marks, ns-3's CobaltQueueDisc only with UseEcn
        QueueConfig::Cobalt(c) => c.knobs.marks(c.preset == AqmPreset::Linux),
        // CAKE: COBALT per flow, always marks (sch_cake INET_ECN_set_ce)
        QueueConfig::Cake(_) => true,
        QueueConfig::Pie(c) => c.ecn.unwrap_or(false),
        QueueConfig::DocsisPie(_) => false, // no ECN in DOCSIS mode
        QueueConfig::Pi(c) => c.ecn,
        QueueConfig::Rem(c) => c.ecn,
        QueueConfig::Rio(c) => c.ecn,
        QueueConfig::DualPi2(_) => true,
        QueueConfig::Classful(c) => c.classes.iter().any(|k| marks(&k.queue)),
        QueueConfig::Tbf(c) => marks(&c.child()),
        // a policer's mark action marks out-of-profile packets
        QueueConfig::Police(c) => {
            marks(&c.child())
                || c.exceed == Some(crate::qdisc::police::PoliceAction::Mark)
                || (c.peak_rate.is_some()
                    && matches!(
                        c.yellow,
                        None | Some(crate::qdisc::police::PoliceAction::Mark)
                    ))
        }
        // a Python discipline may mark: no warning rests on it
        QueueConfig::Python(_) => true,
        QueueConfig::Droptail(_)
        | QueueConfig::Fq(_)
        | QueueConfig::Drr(_)
        | QueueConfig::Sfq(_)
        | QueueConfig::Prio(_) => false,
    }
}

/// A RED configuration's step-marking look-alike: ECN with thresholds less than a packet (or
/// 10 % of min_th) apart. Returns the settings of DCTCP's recipe it lacks (empty: the recipe).
fn red_step_missing(q: &QueueConfig, rate_bps: f64) -> Option<Vec<String>> {
    let (c, variant) = match q {
        QueueConfig::Red(c) | QueueConfig::Lalred(c) => (c, Variant::Red),
        QueueConfig::Ared(c) => (c, Variant::Adaptive),
        _ => return None,
    };
    let p = Params::resolve(c, variant, rate_bps);
    let packet = if p.byte_mode { p.mean_pktsize } else { 1.0 };
    if !p.ecn || p.max_th - p.min_th > packet.max(0.1 * p.min_th) {
        return None;
    }
    let mut missing = Vec::new();
    if p.q_w != 1.0 {
        missing.push(format!(
            "q_weight = 1 (it averages with w_q = {:.4})",
            p.q_w
        ));
    }
    if p.gentle {
        missing.push("gentle = false".to_string());
    }
    if p.hard_drop {
        missing.push("hard_drop = false".to_string());
    }
    if p.adaptive {
        missing.push("adaptive = false".to_string());
    }
    Some(missing)
}

/// A queue that marks on a shallow step (an L4S-style or DCTCP-style AQM) rather than at a
/// classic target.
fn steps(q: &QueueConfig, rate_bps: f64) -> bool {
    match q {
        QueueConfig::DualPi2(_) | QueueConfig::Python(_) => true,
        QueueConfig::Codel(c) => c.knobs.ce_threshold.is_some(),
        QueueConfig::FqCodel(c) => c.knobs.ce_threshold.is_some(),
        QueueConfig::Cobalt(c) => c.knobs.ce_threshold.is_some(),
        QueueConfig::Classful(c) => c.classes.iter().any(|k| steps(&k.queue, rate_bps)),
        QueueConfig::Tbf(c) => steps(&c.child(), rate_bps),
        QueueConfig::Police(c) => steps(&c.child(), rate_bps),
        _ => red_step_missing(q, rate_bps).is_some_and(|m| m.is_empty()),
    }
}

/// The queue of output port `port` and its link's rate.
fn port_queue(topo: &Topology, port: usize) -> (&QueueConfig, f64, String) {
    let l = &topo.links[port / 2];
    let (q, from, to) = if port.is_multiple_of(2) {
        (&l.queue_ab, l.a, l.b)
    } else {
        (&l.queue_ba, l.b, l.a)
    };
    (
        q,
        l.rate_of(port % 2).bps() as f64,
        format!("link {} {}->{}", l.name, topo.nodes[from], topo.nodes[to]),
    )
}

/// The warnings for the network `topo` carrying `flows`, in the order of ports, then flows.
/// `switch_marks(port)`: the port is a shared-buffer switch's with an ECN threshold, which its
/// link's `queue` does not show.
pub fn warnings(
    topo: &Topology,
    flows: &[FlowInfo],
    switch_marks: &dyn Fn(usize) -> bool,
) -> Vec<String> {
    let mut out = Vec::new();
    let ports = 2 * topo.links.len();
    let mut carries: Vec<Vec<&FlowInfo>> = vec![Vec::new(); ports];
    for f in flows {
        for p in &f.path {
            carries[p.idx()].push(f);
        }
    }
    for (port, crossing) in carries.iter().enumerate() {
        if crossing.is_empty() {
            continue;
        }
        let (q, rate, at) = port_queue(topo, port);
        if let Some(missing) = red_step_missing(q, rate).filter(|m| !m.is_empty()) {
            out.push(format!(
                "{at}: RED with ecn = true and min_th = max_th looks like DCTCP's step marking but lacks {}: it marks on the average queue, not on the instantaneous queue above K; DCTCP's recipe is min_th = max_th = K, q_weight = 1, gentle = false, hard_drop = false (Alizadeh et al. 2010; RFC 8257 section 3.1)",
                missing.join(", ")
            ));
        }
        let unknown = crossing
            .iter()
            .any(|f| matches!(f.tcp, Some((CcKind::Python, _))));
        let ect1 = crossing
            .iter()
            .any(|f| matches!(f.tcp, Some((CcKind::Prague, true))));
        if matches!(q, QueueConfig::DualPi2(_)) && !ect1 && !unknown {
            out.push(format!(
                "{at}: DualPI2 but no flow crossing it sends ECT(1), so its L queue stays empty and it acts as a classic PI2 AQM; the L4S recipe has L4S senders: cc = \"prague\" with ecn = true (RFC 9330, RFC 9331 section 4, RFC 9332)"
            ));
        }
    }
    let mut by_message: Vec<(String, Vec<&str>)> = Vec::new();
    for f in flows {
        let Some(m) = flow_warning(topo, f, switch_marks) else {
            continue;
        };
        match by_message.iter_mut().find(|(msg, _)| *msg == m) {
            Some((_, names)) => names.push(&f.name),
            None => by_message.push((m, vec![&f.name])),
        }
    }
    for (m, names) in by_message {
        let who = match names.len() {
            1 => format!("flow {}", names[0]),
            n if n <= 4 => format!("flows {}", names.join(", ")),
            n => format!("flows {} and {} more", names[..3].join(", "), n - 3),
        };
        out.push(format!("{who}: {m}"));
    }
    out
}

/// What a DCTCP, Prague or BBRv3 (with ECN) flow's path lacks, if anything.
fn flow_warning(
    topo: &Topology,
    f: &FlowInfo,
    switch_marks: &dyn Fn(usize) -> bool,
) -> Option<String> {
    let (cc, ecn) = f.tcp?;
    if !matches!(cc, CcKind::Dctcp | CcKind::Prague | CcKind::Bbr3) || !ecn || f.path.is_empty() {
        return None;
    }
    let queues: Vec<_> = f.path.iter().map(|p| port_queue(topo, p.idx())).collect();
    let name = cc.as_str();
    if !queues.iter().any(|(q, _, _)| marks(q)) && !f.path.iter().any(|p| switch_marks(p.idx())) {
        let recipe = if cc == CcKind::Prague {
            "a DualPI2 bottleneck (RFC 9332)"
        } else if cc == CcKind::Bbr3 {
            "a shallow step-marking bottleneck (RED with ecn = true, min_th = max_th = K, q_weight = 1, gentle = false, hard_drop = false, or CoDel's ce_threshold) on a path of min RTT <= 5 ms, where Google's v3 code uses ECN (bbr_ecn_max_rtt_us; docs/models/bbr3.md)"
        } else {
            "a step-marking bottleneck: RED with ecn = true, min_th = max_th = K, q_weight = 1, gentle = false, hard_drop = false, or CoDel's ce_threshold (RFC 8257 section 3.1)"
        };
        return Some(format!(
            "cc = \"{name}\" reads ECN marks, but no queue on its path marks (ecn is off or the discipline has none), so it reacts to losses only; its recipe is {recipe}"
        ));
    }
    if cc == CcKind::Prague && !queues.iter().any(|(q, r, _)| steps(q, *r)) {
        let classic: Vec<&str> = queues
            .iter()
            .filter(|(q, _, _)| marks(q))
            .map(|(_, _, at)| at.as_str())
            .collect();
        return Some(format!(
            "cc = \"prague\" sends ECT(1) (L4S) into classic-only ECN marking ({}): marks come at a classic AQM's target, not a shallow step, and Prague reacts to them as to L4S marks; the L4S recipe is a DualQ Coupled AQM, kind = \"dualpi2\" (RFC 9330, RFC 9331 section 4.3, RFC 9332)",
            classic.join("; ")
        ));
    }
    None
}
