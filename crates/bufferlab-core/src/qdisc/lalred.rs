//! LALRED: RED with a learning-automata-like controller (Misra, Oommen, Yanamandra & Obaidat,
//! "Random Early Detection for Congestion Avoidance in Wired Networks: A Discretized Pursuit
//! Learning-Automata-Like Solution", IEEE Trans. SMC-B 40(1), 2010; used by seed paper 001,
//! Ambhore & Mahajan). The automaton is a discretized pursuit reward-inaction scheme
//! (Oommen & Lanctôt 1990; Oommen & Agache, IEEE SMC-B 31(3), 2001; restated as DP_RI in Zhang
//! et al., IEEE Trans. Cybern. 2015, section II eqs. 2-4).
//!
//! Only the 2010 paper's first page (abstract) could be read; its algorithm listing, reward
//! definition and scenario could not (docs/models/lalred.md lists every source searched). The
//! abstract fixes that "at every time instant" the scheme pursues "the action that possesses the
//! maximal ratio between the number of times the chosen action is rewarded and the number of times
//! that it has been chosen", and that it is "learning-automata-*like*", not a pure LA.
//!
//! What the papers fix (001 section II.B): RED's average and thresholds; four mutually exclusive
//! actions named after the packet's fate — `Forced_Drop` (avg above max_th or queue full),
//! `Minimum_Exceed` (avg just crossed min_th), `Unforced_Drop` (probabilistic drop between the
//! thresholds: "the arriving packet is always dropped"), `No_Drop` ("the average queue size lies
//! below the minimum threshold"); an estimate vector (times rewarded / times chosen per action);
//! the probability vector moved in discrete steps towards the action with the best estimate; the
//! goal of a lower average queue and fewer drops.
//!
//! What they leave open, and bufferlab's choices (docs/models/lalred.md):
//! * Every arrival is an action (the 2010 abstract: "at every time instant"): the one its RED
//!   outcome names. An arrival tested between the thresholds and accepted, which none of the four
//!   definitions covers, counts as `No_Drop`.
//! * Environment response: the action is rewarded when, at the next arrival, RED's average is
//!   not larger than right after the action (the queue is not building up); otherwise it is
//!   penalised (reward-inaction: no probability change).
//! * Step: Δ = 1 / (4 r), r = `resolution` (default 100). On reward:
//!   P_j = max(P_j - Δ, 0) for j ≠ m, P_m = 1 - Σ_{j≠m} P_j, m = argmax_j W_j / Z_j.
//! * Effect on the queue: between the thresholds RED's p_b is multiplied by k (1 at the uniform
//!   start, i.e. plain RED): `lalred_scale = "drops"` (default) k = 2 (P(Unforced_Drop) +
//!   P(Forced_Drop)) ∈ [0, 2]; `"decisions"` k = 2 P(Unforced_Drop) / (P(Unforced_Drop) +
//!   P(No_Drop)) ∈ [0, 2].
//! * Everything else (presets, gentle, wait, byte mode, ECN) is RED's (see red.rs).

use super::red::{LalredScale, RedConfig};
use super::red::{Outcome, Red, Variant};
use super::{QueueCtx, QueueDisc};
use crate::packet::Packet;
use crate::units::SimTime;

/// The four actions of paper 001 / Misra et al. 2010.
const FORCED: usize = 0;
const MIN_EXCEED: usize = 1;
const UNFORCED: usize = 2;
const NO_DROP: usize = 3;
const N: usize = 4;

/// The discretized pursuit reward-inaction automaton.
#[derive(Clone, Debug)]
pub struct Pursuit {
    pub p: [f64; N],
    pub rewards: [u64; N],
    pub chosen: [u64; N],
    /// Number of steps of size Δ in each probability (exact discretization: P_j = steps_j Δ).
    steps: [u64; N],
    total_steps: u64,
}

impl Pursuit {
    pub fn new(resolution: u32) -> Self {
        let r = resolution.max(1) as u64;
        Self {
            p: [0.25; N],
            rewards: [0; N],
            chosen: [0; N],
            steps: [r; N],
            total_steps: N as u64 * r,
        }
    }

    fn estimate(&self, i: usize) -> f64 {
        if self.chosen[i] == 0 {
            0.0
        } else {
            self.rewards[i] as f64 / self.chosen[i] as f64
        }
    }

    /// The action with the best estimate (lowest index on ties).
    pub fn best(&self) -> usize {
        (0..N).fold(0, |b, i| {
            if self.estimate(i) > self.estimate(b) {
                i
            } else {
                b
            }
        })
    }

    /// Feedback for `action`: reward or penalty.
    pub fn feedback(&mut self, action: usize, reward: bool) {
        self.chosen[action] += 1;
        if !reward {
            return; // reward-inaction
        }
        self.rewards[action] += 1;
        let m = self.best();
        let mut others = 0;
        for j in 0..N {
            if j != m {
                self.steps[j] = self.steps[j].saturating_sub(1);
                others += self.steps[j];
            }
        }
        self.steps[m] = self.total_steps - others;
        for j in 0..N {
            self.p[j] = self.steps[j] as f64 / self.total_steps as f64;
        }
    }

    /// Factor on RED's p_b between the thresholds.
    pub fn scale(&self, how: LalredScale) -> f64 {
        match how {
            LalredScale::Drops => 2.0 * (self.p[UNFORCED] + self.p[FORCED]),
            LalredScale::Decisions => {
                let d = self.p[UNFORCED] + self.p[NO_DROP];
                if d > 0.0 {
                    2.0 * self.p[UNFORCED] / d
                } else {
                    1.0
                }
            }
        }
    }
}

pub struct Lalred {
    red: Red,
    la: Pursuit,
    how: LalredScale,
    /// The action taken at the previous arrival and RED's average right after it.
    pending: Option<(usize, f64)>,
}

impl Lalred {
    pub fn new(cfg: &RedConfig) -> Self {
        Self {
            red: Red::new(cfg, Variant::Red),
            la: Pursuit::new(cfg.resolution.unwrap_or(100)),
            how: cfg.lalred_scale.unwrap_or_default(),
            pending: None,
        }
    }

    pub fn automaton(&self) -> &Pursuit {
        &self.la
    }
}

impl QueueDisc for Lalred {
    fn enqueue(&mut self, pkt: Packet, cx: &mut QueueCtx) {
        self.red.p_scale = self.la.scale(self.how);
        self.red.enqueue(pkt, cx);
        let ave = self.red.average().unwrap_or(0.0);
        if let Some((action, before)) = self.pending.take() {
            self.la.feedback(action, ave <= before);
        }
        // Paper 001: No_Drop "is chosen when the average queue size lies below the minimum
        // threshold"; an arrival tested between the thresholds and accepted is No_Drop as well.
        let action = match self.red.last_outcome {
            Outcome::Forced => FORCED,
            Outcome::CrossedMin => MIN_EXCEED,
            Outcome::Early => UNFORCED,
            Outcome::Accepted | Outcome::BelowMin => NO_DROP,
        };
        self.pending = Some((action, ave));
    }

    fn link_idle(&mut self, since: SimTime) {
        self.red.link_idle(since)
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        self.red.dequeue(cx)
    }

    fn len_packets(&self) -> usize {
        self.red.len_packets()
    }

    fn len_bytes(&self) -> u64 {
        self.red.len_bytes()
    }

    fn kind(&self) -> &'static str {
        "lalred"
    }

    fn average(&self) -> Option<f64> {
        self.red.average()
    }

    fn arrival_length(&self) -> Option<f64> {
        self.red.arrival_length()
    }

    fn average_unit(&self) -> &'static str {
        self.red.average_unit()
    }

    fn resolved_settings(&self, rate_bps: f64) -> Option<serde_json::Value> {
        self.red.resolved_settings(rate_bps)
    }

    fn warnings(&self, rate_bps: f64) -> Vec<String> {
        self.red.warnings(rate_bps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the automaton moves in steps of 1/(4r) towards the best-estimated action ----
    // DP_RI (Oommen & Agache 2001; Zhang et al. 2015 eqs. 2-4): Δ = 1/(r n) with r = 4 actions and
    // resolution n; on reward P_j <- max(P_j - Δ, 0) for j != m, P_m <- 1 - sum; none on penalty.
    #[test]
    fn discretized_pursuit_moves_towards_best_estimate() {
        let mut la = Pursuit::new(10); // Δ = 1/40
        la.feedback(UNFORCED, true); // estimate 1 for Unforced_Drop
        assert!((la.p[UNFORCED] - (0.25 + 3.0 / 40.0)).abs() < 1e-12);
        for j in [FORCED, MIN_EXCEED, NO_DROP] {
            assert!((la.p[j] - (0.25 - 1.0 / 40.0)).abs() < 1e-12);
        }
        // penalties change nothing but the counts
        let before = la.p;
        la.feedback(NO_DROP, false);
        assert_eq!(la.p, before);
        for _ in 0..100 {
            la.feedback(UNFORCED, true);
        }
        assert_eq!(la.p[UNFORCED], 1.0);
        assert!((la.p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((la.scale(LalredScale::Drops) - 2.0).abs() < 1e-12);
        assert!((la.scale(LalredScale::Decisions) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn uniform_start_is_plain_red() {
        assert_eq!(Pursuit::new(100).scale(LalredScale::Drops), 1.0);
        assert_eq!(Pursuit::new(100).scale(LalredScale::Decisions), 1.0);
    }

    // ---- converged on Minimum_Exceed: "drops" stops early drops, "decisions" leaves RED as is ----
    #[test]
    fn minimum_exceed_counts_as_accepting_only_in_drops_scale() {
        let mut la = Pursuit::new(10);
        for _ in 0..100 {
            la.feedback(MIN_EXCEED, true);
        }
        assert_eq!(la.p[MIN_EXCEED], 1.0);
        assert_eq!(la.scale(LalredScale::Drops), 0.0);
        assert_eq!(la.scale(LalredScale::Decisions), 1.0);
    }

    // ---- arrivals below min_th are No_Drop actions (paper 001), not ignored ----
    #[test]
    fn arrivals_below_min_th_are_no_drop_actions() {
        use crate::units::{Rate, SimTime};
        let mut l = Lalred::new(&RedConfig::default()); // ns3 preset: min_th 5 packets
        let mut rng: crate::rng::LazyRng = crate::rng::stream(1, "lalred-test").into();
        let mut drops = Vec::new();
        for i in 0..4u64 {
            let mut cx = QueueCtx::new(SimTime(i), &mut rng, Rate(10_000_000), true, &mut drops);
            let pkt = Packet {
                uid: i,
                size: 1000,
                ..Packet::default()
            };
            l.enqueue(pkt, &mut cx);
        }
        assert!(drops.is_empty());
        // three actions have had their feedback (the fourth waits for the next arrival), all
        // No_Drop; the average rose, so none was rewarded and P is still uniform
        assert_eq!(l.automaton().chosen, [0, 0, 0, 3]);
        assert_eq!(l.automaton().p, [0.25; 4]);
    }
}
