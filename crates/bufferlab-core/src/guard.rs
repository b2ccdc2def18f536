//! Limits on a running simulation: wall time (`--max-wall`), resident memory (`--max-memory`)
//! and simulated time that stops advancing (a stall). The event loop asks [`Guard::check`]
//! every [`CHECK_EVERY`] events, so a run that would take the machine or spin forever stops
//! with a message and the report of what it measured so far, instead of being killed.

use crate::units::SimTime;
use std::time::{Duration, Instant};

/// Events between two checks: a few hundred checks a second at tens of millions of events a
/// second, and one mask-and-compare per event in between (a power of two).
pub const CHECK_EVERY: u64 = 1 << 17;
const _: () = assert!(CHECK_EVERY.is_power_of_two());

/// Events at one simulated instant after which a run is stalled: no network this simulator
/// can build does that much at one picosecond (a 10 Tbit/s link sends one 64-byte frame every
/// 51 ps).
pub const STALL_EVENTS: u64 = 20_000_000;

/// What a run may use; `None` is no limit.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub max_wall: Option<Duration>,
    pub max_memory_bytes: Option<u64>,
}

/// Why a run stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StopKind {
    /// `--max-wall` reached (a stop the user asked for).
    MaxWall,
    /// The process's resident memory passed `--max-memory`.
    MaxMemory,
    /// Simulated time did not advance over [`STALL_EVENTS`] events.
    Stalled,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct Stop {
    pub kind: StopKind,
    /// One line for the user: what was reached, where, and the option that changes it.
    pub message: String,
}

pub struct Guard {
    limits: Limits,
    started: Instant,
    /// Simulated time at the previous check, and events seen since it last moved.
    last_now: SimTime,
    events_at_now: u64,
    /// Hand control back to the front end this often (wall time), between two events, so
    /// that it can look for Ctrl-C however long a slice of simulated time takes.
    yield_every: Option<Duration>,
    last_yield: Instant,
}

impl Guard {
    pub fn new(limits: Limits) -> Self {
        Self {
            limits,
            started: Instant::now(),
            last_now: SimTime::ZERO,
            events_at_now: 0,
            yield_every: None,
            last_yield: Instant::now(),
        }
    }

    /// Asks the event loop to return to its caller at least every `every` of wall time (at
    /// its next check), the simulation unfinished, so that the caller can look for Ctrl-C.
    pub fn yielding_every(mut self, every: Duration) -> Self {
        self.yield_every = Some(every);
        self
    }

    /// Whether the event loop should return to its caller now (see [`Self::yielding_every`]);
    /// asked at each check.
    pub fn yield_due(&mut self) -> bool {
        match self.yield_every {
            Some(every) if self.last_yield.elapsed() >= every => {
                self.last_yield = Instant::now();
                true
            }
            _ => false,
        }
    }

    /// Called every [`CHECK_EVERY`] events at simulated time `now`; `what` names the event
    /// being run (for a stall message).
    pub fn check(&mut self, now: SimTime, what: &dyn Fn() -> String) -> Option<Stop> {
        if now == self.last_now {
            self.events_at_now += CHECK_EVERY;
            if self.events_at_now >= STALL_EVENTS {
                return Some(Stop {
                    kind: StopKind::Stalled,
                    message: format!(
                        "simulated time stalled at {:.9} s: {} events without it advancing, the \
                         last {}; this is a bug in a model or an extension, please report it \
                         with the scenario",
                        now.as_secs_f64(),
                        self.events_at_now,
                        what()
                    ),
                });
            }
        } else {
            self.last_now = now;
            self.events_at_now = 0;
        }
        if let Some(max) = self.limits.max_wall {
            let wall = self.started.elapsed();
            if wall >= max {
                return Some(Stop {
                    kind: StopKind::MaxWall,
                    message: format!(
                        "stopped by --max-wall after {:.1} s of wall time, at {:.3} s of \
                         simulated time",
                        wall.as_secs_f64(),
                        now.as_secs_f64()
                    ),
                });
            }
        }
        if let Some(max) = self.limits.max_memory_bytes {
            if let Some(rss) = resident_bytes() {
                if rss > max {
                    return Some(Stop {
                        kind: StopKind::MaxMemory,
                        message: format!(
                            "stopped at {:.3} s of simulated time: the run holds {} of memory, \
                             more than --max-memory {}; shorten the run, sample series less \
                             often, or raise --max-memory",
                            now.as_secs_f64(),
                            human_bytes(rss),
                            human_bytes(max)
                        ),
                    });
                }
            }
        }
        None
    }
}

/// The process's resident memory (Linux `/proc/self/status` VmRSS); None elsewhere.
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The machine's memory (Linux `/proc/meminfo` MemTotal); None elsewhere.
pub fn total_memory_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The default memory budget: 80 % of the machine's memory, so that a runaway run stops
/// before the kernel's out-of-memory killer picks a process (maybe someone else's); less
/// when the process may map less (`ulimit -v`): what it may still map, so that a network
/// too large for it is refused from its estimate instead of aborting on an allocation.
pub fn default_max_memory() -> Option<u64> {
    let ram = total_memory_bytes().map(|t| t / 5 * 4);
    match (ram, address_space_left()) {
        (Some(r), Some(a)) => Some(r.min(a)),
        (r, a) => r.or(a),
    }
}

/// What the process may still map under its address-space limit (`ulimit -v`, Linux
/// `/proc/self/limits` and VmSize); None without a limit or elsewhere.
pub fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max address space"))?;
    let soft: u64 = line.split_whitespace().nth(3)?.parse().ok()?; // "unlimited" is None
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let size = status.lines().find(|l| l.starts_with("VmSize:"))?;
    let kb: u64 = size.split_whitespace().nth(1)?.parse().ok()?;
    Some(soft.saturating_sub(kb * 1024))
}

pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e7 {
        format!("{:.0} MB", b / 1e6)
    } else {
        // one decimal under 10 MB: "1.3 MB, more than --max-memory 1 MB", not "1 MB"
        let mb = format!("{:.1}", b / 1e6);
        format!("{} MB", mb.strip_suffix(".0").unwrap_or(&mb))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(1_000_000), "1 MB");
        assert_eq!(human_bytes(1_300_000), "1.3 MB");
        assert_eq!(human_bytes(20_000_000), "20 MB");
        assert_eq!(human_bytes(2_056_504_000), "2.1 GB");
    }

    #[test]
    fn a_stall_is_seen_after_stall_events_at_one_instant() {
        let mut g = Guard::new(Limits::default());
        let t = SimTime::from_secs(1);
        let mut stopped = None;
        for i in 0..(STALL_EVENTS / CHECK_EVERY + 2) {
            if let Some(s) = g.check(t, &|| "Timer of flow f".into()) {
                stopped = Some((i, s));
                break;
            }
        }
        let (i, s) = stopped.expect("a stall");
        assert_eq!(s.kind, StopKind::Stalled);
        assert!(s.message.contains("Timer of flow f"), "{}", s.message);
        // the first check only records the instant
        assert_eq!(i, STALL_EVENTS.div_ceil(CHECK_EVERY));
        // time that moves is never a stall
        let mut g = Guard::new(Limits::default());
        for k in 0..1000 {
            assert!(g.check(SimTime(k), &|| String::new()).is_none());
        }
    }

    #[test]
    fn wall_and_memory_limits_stop() {
        let mut g = Guard::new(Limits {
            max_wall: Some(Duration::ZERO),
            max_memory_bytes: None,
        });
        assert_eq!(
            g.check(SimTime(5), &|| String::new()).map(|s| s.kind),
            Some(StopKind::MaxWall)
        );
        if resident_bytes().is_some() {
            let mut g = Guard::new(Limits {
                max_wall: None,
                max_memory_bytes: Some(1),
            });
            let s = g.check(SimTime(5), &|| String::new()).unwrap();
            assert_eq!(s.kind, StopKind::MaxMemory);
            assert!(s.message.contains("--max-memory"), "{}", s.message);
        }
    }
}
