//! CAKE's diffserv tins: the DSCP-to-tin tables, each tin's threshold rate and DRR weight, and
//! the choice of the tin to serve.
//!
//! References: LANMAN 2018 paper section III-C ("DiffServ handling": tins have a threshold
//! rate; below it a tin has priority, above it only its share of the bandwidth); Linux
//! `net/sched/sch_cake.c`:
//! * the tables `besteffort`, `diffserv3`, `diffserv4`, `diffserv8`, `precedence` (DSCP ->
//!   tin), and `cake_config_besteffort`, `cake_config_diffserv3` (tins: best effort at the
//!   rate, bulk at rate >> 4, voice at rate >> 2; quanta 1024, 64, 256),
//!   `cake_config_diffserv4` (best effort, bulk >> 4, video >> 1, voice >> 2; quanta 1024 with
//!   the same shifts), `cake_config_diffserv8` and `cake_config_precedence` (8 tins, rate and
//!   quantum (from 256) times 7/8 per tin);
//! * `cake_select_tin`: besteffort mode puts everything in tin 0, otherwise
//!   `tin_index[dscp]` (firewall marks and `skb->priority` overrides are not modelled);
//!   `wash` clears the DSCP after the choice (`cake_handle_diffserv`);
//! * `cake_dequeue`, "Choose a class to work on": shaped, the highest tin whose schedule has
//!   come (`time_next_packet <= now`), else the tin due soonest (a later tin wins ties); unshaped,
//!   DRR over the tins with `tin_quantum`.
//!
//! bufferlab has no DSCP field: CAKE reads the packet's `class` (the flow's `class`, 0 by
//! default) as its DSCP, 0 to 63 (46 = EF, 8 = CS1; docs/models/cake.md).

use super::config::DiffservMode;

/// sch_cake `diffserv3`: CS1 (8) and LE (1) -> bulk (1); TOS4 (4), VA (44), EF (46), CS6
/// (48), CS7 (56) -> voice (2); the rest best effort (0).
const DIFFSERV3: [u8; 64] = {
    let mut t = [0u8; 64];
    t[1] = 1;
    t[8] = 1;
    t[4] = 2;
    t[44] = 2;
    t[46] = 2;
    t[48] = 2;
    t[56] = 2;
    t
};

/// sch_cake `diffserv4`: bulk (1) LE (1), CS1 (8); video (2) TOS4 (4) and the even codepoints
/// 16 to 38 but 32 (CS2, AF2x, CS3, AF3x, AF4x); voice (3) CS4 (32), CS5 (40), VA (44), EF
/// (46), CS6 (48), CS7 (56).
const DIFFSERV4: [u8; 64] = [
    0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0, 2, 0,
    3, 0, 2, 0, 2, 0, 2, 0, 3, 0, 0, 0, 3, 0, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0,
];

/// sch_cake `diffserv8`.
const DIFFSERV8: [u8; 64] = [
    2, 0, 1, 2, 4, 2, 2, 2, 1, 2, 1, 2, 1, 2, 1, 2, 5, 2, 4, 2, 4, 2, 4, 2, 3, 2, 3, 2, 3, 2, 3, 2,
    6, 2, 3, 2, 3, 2, 3, 2, 6, 2, 2, 2, 6, 2, 6, 2, 7, 2, 2, 2, 2, 2, 2, 2, 7, 2, 2, 2, 2, 2, 2, 2,
];

/// One tin's threshold (as a shift or 7/8 steps of the rate) and DRR quantum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TinShape {
    pub bytes_per_s: u64,
    pub tin_quantum: u32,
}

/// The tins of `mode` for a shaper at `bytes_per_s` (0: unlimited): `cake_config_*`.
/// Returned in sch_cake's tin order (tin 0 first).
pub fn layout(mode: DiffservMode, bytes_per_s: u64, out: &mut Vec<TinShape>) {
    out.clear();
    let shifted = |quantum: u32, shifts: &[u32]| {
        shifts
            .iter()
            .map(|&s| TinShape {
                bytes_per_s: bytes_per_s >> s,
                tin_quantum: quantum >> s,
            })
            .collect::<Vec<_>>()
    };
    match mode {
        // cake_config_besteffort: tin_quantum 65535
        DiffservMode::Besteffort => out.push(TinShape {
            bytes_per_s,
            tin_quantum: 65535,
        }),
        DiffservMode::Diffserv3 => out.extend(shifted(1024, &[0, 4, 2])),
        DiffservMode::Diffserv4 => out.extend(shifted(1024, &[0, 4, 1, 2])),
        DiffservMode::Diffserv8 | DiffservMode::Precedence => {
            let (mut rate, mut quantum) = (bytes_per_s, 256u32);
            for _ in 0..8 {
                out.push(TinShape {
                    bytes_per_s: rate,
                    tin_quantum: quantum.max(1),
                });
                rate = (rate * 7) >> 3;
                quantum = (quantum * 7) >> 3;
            }
        }
    }
}

/// Names of the tins of `mode`, in tin order (sch_cake's comments in `cake_config_*`).
pub fn names(mode: DiffservMode) -> &'static [&'static str] {
    match mode {
        DiffservMode::Besteffort => &["best_effort"],
        DiffservMode::Diffserv3 => &["best_effort", "bulk", "voice"],
        DiffservMode::Diffserv4 => &["best_effort", "bulk", "video", "voice"],
        DiffservMode::Diffserv8 | DiffservMode::Precedence => &[
            "tin0", "tin1", "tin2", "tin3", "tin4", "tin5", "tin6", "tin7",
        ],
    }
}

/// `cake_select_tin` without marks or priority overrides: the tin of DSCP `dscp`.
pub fn select_tin(mode: DiffservMode, dscp: u8) -> usize {
    let d = (dscp & 63) as usize;
    match mode {
        DiffservMode::Besteffort => 0,
        DiffservMode::Diffserv3 => DIFFSERV3[d] as usize,
        DiffservMode::Diffserv4 => DIFFSERV4[d] as usize,
        DiffservMode::Diffserv8 => DIFFSERV8[d] as usize,
        // sch_cake `precedence`: the top three bits
        DiffservMode::Precedence => d >> 3,
    }
}

/// `cake_dequeue`'s shaped choice: among tins with flows (`active[i]`), the highest whose
/// schedule has come, else the one due soonest (later tins win ties). `time_next[i] - now`.
pub fn shaped_choice(active: impl Iterator<Item = (bool, i64)>) -> Option<usize> {
    let mut best: Option<(usize, i64)> = None;
    for (tin, (has_flows, time_to_pkt)) in active.enumerate() {
        if !has_flows {
            continue;
        }
        match best {
            Some((_, bt)) if !(time_to_pkt <= 0 || time_to_pkt <= bt) => {}
            _ => best = Some((tin, time_to_pkt)),
        }
    }
    best.map(|(t, _)| t)
}

#[cfg(test)]
mod tests {
    use super::*;

    // ---- the DSCP tables: sch_cake's codepoints land in their tins ----
    #[test]
    fn codepoints_map_to_their_tins() {
        use DiffservMode::*;
        // diffserv3: EF voice, CS1 bulk, default best effort
        assert_eq!(select_tin(Diffserv3, 46), 2);
        assert_eq!(select_tin(Diffserv3, 8), 1);
        assert_eq!(select_tin(Diffserv3, 0), 0);
        assert_eq!(select_tin(Diffserv3, 34), 0); // AF41 is best effort in diffserv3
                                                  // diffserv4: AF41 video, EF voice, CS1 bulk
        assert_eq!(select_tin(Diffserv4, 34), 2);
        assert_eq!(select_tin(Diffserv4, 46), 3);
        assert_eq!(select_tin(Diffserv4, 8), 1);
        // diffserv8: LE is tin 0, CS1 tin 1, CS0 tin 2, CS7 tin 7
        assert_eq!(select_tin(Diffserv8, 1), 0);
        assert_eq!(select_tin(Diffserv8, 8), 1);
        assert_eq!(select_tin(Diffserv8, 0), 2);
        assert_eq!(select_tin(Diffserv8, 56), 7);
        assert_eq!(select_tin(Precedence, 46), 5);
        assert_eq!(select_tin(Besteffort, 46), 0);
        // the diffserv4 table sends every codepoint to a tin of the layout
        for d in 0..64u8 {
            assert!(select_tin(Diffserv4, d) < 4);
            assert!(select_tin(Diffserv8, d) < 8);
        }
    }

    // ---- cake_config_*: thresholds as fractions of the rate, weights as shifts ----
    #[test]
    fn tin_thresholds_are_fractions_of_the_rate() {
        let mut v = Vec::new();
        layout(DiffservMode::Diffserv3, 1_600_000, &mut v);
        let rates: Vec<u64> = v.iter().map(|t| t.bytes_per_s).collect();
        let quanta: Vec<u32> = v.iter().map(|t| t.tin_quantum).collect();
        assert_eq!(rates, vec![1_600_000, 100_000, 400_000]);
        assert_eq!(quanta, vec![1024, 64, 256]);
        layout(DiffservMode::Diffserv4, 1_600_000, &mut v);
        assert_eq!(v[2].bytes_per_s, 800_000);
        layout(DiffservMode::Diffserv8, 8_000_000, &mut v);
        assert_eq!(v.len(), 8);
        assert_eq!(v[1].bytes_per_s, 7_000_000);
        assert_eq!(v[1].tin_quantum, 224);
    }

    // ---- cake_dequeue: priority while within the threshold, else the earliest schedule ----
    #[test]
    fn the_highest_tin_within_its_threshold_is_served() {
        // all three due: the highest (voice) wins
        assert_eq!(
            shaped_choice([(true, -5), (true, 0), (true, -1)].into_iter()),
            Some(2)
        );
        // voice over its threshold (due in 10), best effort due: best effort
        assert_eq!(
            shaped_choice([(true, -5), (false, 0), (true, 10)].into_iter()),
            Some(0)
        );
        // none due: the soonest
        assert_eq!(
            shaped_choice([(true, 30), (true, 20), (true, 25)].into_iter()),
            Some(1)
        );
        assert_eq!(shaped_choice([(false, 0)].into_iter()), None);
    }
}
