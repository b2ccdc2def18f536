//! ns-2's `Integrator` (ns-2.35 `tools/integrator.{h,cc}`) as a `QueueMonitor` keeps two of
//! them, one over the bytes and one over the packets waiting (`queue-monitor.cc`: `in`, `out`
//! and `drop` each call `newPoint(now, size_)` and `newPoint(now, pkts_)`), for the scripts
//! that read, reset and extend them while the run goes on: `$int set sum_ 0.0`,
//! `$int newpoint $now [$int set lasty_]`, ns-lib's `SimpleLink sample-queue-size`.
//!
//! The accounting is ns-2's own, in doubles and in its order, so that what a script prints
//! is ns-2's to the last digit under ns-2's clock. The report's mean queue comes from
//! [`super::queue_stats::QueueStats`] (exact picosecond integrals), not from these.

/// One integrator: the integral `sum_` of a step function up to its last point
/// (`lastx_`, `lasty_`). ns-2's constructor starts all three at 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ns2Integrator {
    pub lastx: f64,
    pub lasty: f64,
    pub sum: f64,
}

impl Ns2Integrator {
    /// `Integrator::newPoint(x, y)`: the piece since the last point, then the new point.
    #[inline]
    pub fn new_point(&mut self, x: f64, y: f64) {
        self.sum += (x - self.lastx) * self.lasty;
        self.lastx = x;
        self.lasty = y;
    }
}

/// The pair a queue monitor holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct QueueIntegrators {
    pub packets: Ns2Integrator,
    pub bytes: Ns2Integrator,
}

impl QueueIntegrators {
    /// The queue's length changed (or a packet came, left or was dropped) at `x` seconds.
    #[inline]
    pub fn new_point(&mut self, x: f64, packets: f64, bytes: f64) {
        self.packets.new_point(x, packets);
        self.bytes.new_point(x, bytes);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_each_piece_at_its_old_height() {
        let mut i = Ns2Integrator::default();
        i.new_point(1.0, 3.0); // 0 over [0, 1]
        i.new_point(2.5, 1.0); // 3 over [1, 2.5]
        assert_eq!(i.sum, 4.5);
        assert_eq!((i.lastx, i.lasty), (2.5, 1.0));
        // a point at the same instant adds nothing (ns-2's `in` then `drop` of one packet)
        i.new_point(2.5, 0.0);
        assert_eq!(i.sum, 4.5);
    }

    #[test]
    fn a_reset_sum_goes_on_from_the_last_point() {
        // `$int set sum_ 0` keeps lastx_ and lasty_: the next piece starts at the last point,
        // before the reset (ns-2's behaviour, which sample-queue-size avoids by a newpoint)
        let mut i = Ns2Integrator::default();
        i.new_point(1.0, 2.0);
        i.sum = 0.0;
        i.new_point(4.0, 0.0);
        assert_eq!(i.sum, 6.0);
    }
}
