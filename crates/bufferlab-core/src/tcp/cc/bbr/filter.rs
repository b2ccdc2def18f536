//! The windowed max filter of BBR v1's bandwidth estimate (ns-3 `WindowedFilter` with
//! `MaxFilter`, QUIC's `windowed_filter.h`; Kathleen Nichols' algorithm, Linux
//! `lib/win_minmax.c`).

/// A windowed max filter of three samples (ns-3 `WindowedFilter` with `MaxFilter`, from
/// QUIC's `windowed_filter.h`; Kathleen Nichols' algorithm, Linux `lib/win_minmax.c`).
/// Times are round counts.
#[derive(Debug, Clone, Copy)]
pub struct MaxFilter {
    window: u64,
    zero: f64,
    est: [(f64, u64); 3],
}

impl MaxFilter {
    pub fn new(window: u64, zero: f64, t: u64) -> Self {
        Self {
            window,
            zero,
            est: [(zero, t); 3],
        }
    }
    pub fn best(&self) -> f64 {
        self.est[0].0
    }
    pub fn update(&mut self, v: f64, t: u64) {
        let e = &mut self.est;
        if e[0].0 == self.zero || v >= e[0].0 || t - e[2].1 > self.window {
            *e = [(v, t); 3];
            return;
        }
        if v >= e[1].0 {
            e[1] = (v, t);
            e[2] = e[1];
        } else if v >= e[2].0 {
            e[2] = (v, t);
        }
        if t - e[0].1 > self.window {
            e[0] = e[1];
            e[1] = e[2];
            e[2] = (v, t);
            if t - e[0].1 > self.window {
                e[0] = e[1];
                e[1] = e[2];
            }
            return;
        }
        if e[1].0 == e[0].0 && t - e[1].1 > self.window / 4 {
            e[1] = (v, t);
            e[2] = e[1];
            return;
        }
        if e[2].0 == e[1].0 && t - e[2].1 > self.window / 2 {
            e[2] = (v, t);
        }
    }
}
