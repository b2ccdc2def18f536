//! ns-2's summary statistics of a queue (`summarystats_ true` on `Queue/DropTail` or
//! `Queue/RED`, printed by `$queue printstats`): ns-2.35 `queue/queue.cc`
//! `Queue::updateStats`, called by `DropTail::enque` and `deque` (queue/drop-tail.cc) and by
//! `REDQueue::enque` and `deque` (queue/red.cc) with the queue's length before the packet
//! comes or goes. It keeps the time-weighted average of that length from time 0 to the last
//! call that found the clock moved (`total_time_`): `true_ave_ = (total_time_ x true_ave_ +
//! (now - total_time_) x length) / now`. `print_summarystats` prints it with `%5.3f`, in bytes
//! when the queue is measured in bytes (`queue_in_bytes_`).
//!
//! The accounting is ns-2's own, in doubles and in its order (both lengths are kept, the
//! script's `queue_in_bytes_` picks one), under ns-2's clock: the port calls
//! [`Ns2Summary::update`] as each packet reaches the discipline and each time the link asks
//! it for a packet (ns-2's `resume` after each transmission, also when the queue is empty).

/// `true_ave_` over the packets and over the bytes waiting, and `total_time_` (seconds).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Ns2Summary {
    pub true_ave_packets: f64,
    pub true_ave_bytes: f64,
    pub total_time: f64,
}

impl Ns2Summary {
    /// `Queue::updateStats(queuesize)` at `now` seconds, for both measures of the length.
    #[inline]
    pub fn update(&mut self, now: f64, packets: u64, bytes: u64) {
        let newtime = now - self.total_time;
        if newtime > 0.0 {
            let old = self.total_time;
            self.true_ave_packets = (old * self.true_ave_packets + newtime * packets as f64) / now;
            self.true_ave_bytes = (old * self.true_ave_bytes + newtime * bytes as f64) / now;
            self.total_time = now;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_weighted_average_up_to_the_last_call() {
        let mut s = Ns2Summary::default();
        s.update(0.0, 0, 0); // the clock has not moved: nothing
        assert_eq!(s, Ns2Summary::default());
        s.update(1.0, 0, 0); // empty for 1 s
        s.update(3.0, 2, 1000); // 2 packets (1000 B) for 2 s
        s.update(3.0, 3, 1500); // same instant: unchanged
        assert_eq!(s.total_time, 3.0);
        assert!((s.true_ave_packets - 4.0 / 3.0).abs() < 1e-15);
        assert!((s.true_ave_bytes - 2000.0 / 3.0).abs() < 1e-12);
    }
}
