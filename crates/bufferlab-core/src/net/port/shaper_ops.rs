//! What a port does for a discipline that holds its packets back, a shaper (`qdisc/tbf.rs`):
//! when a dequeue gives nothing while packets wait, the discipline names when it can send
//! (`QueueDisc::wake_at`) and the port sets a `PortTimer` then, as Linux's qdisc watchdog
//! (`qdisc_watchdog_schedule_ns`, sch_tbf.c `tbf_dequeue`) and ns-3's TbfQueueDisc
//! (`Simulator::Schedule(requiredDelayTime, &QueueDisc::Run)`) wake their queues.

use super::{Port, PortCx, PortTimer, Wakeups};

impl Port {
    /// A shaper's timer: its head may leave now. The device queue takes what the discipline
    /// gives, or an idle link starts on it; a busy link asks when its transmission ends.
    #[cold]
    pub(super) fn shaper_wake<const NS2: bool>(&mut self, cx: &mut PortCx<NS2>) -> Wakeups {
        let mut shaped = None;
        if self.device.enabled() {
            self.fill_device(cx);
            shaped = self.shaper_timer(cx);
        }
        let mut w = if self.busy(cx) {
            Wakeups::default()
        } else if !self.device.enabled() || !self.device.is_empty() {
            self.start_tx(cx)
        } else {
            Wakeups::default()
        };
        if let Some(k) = shaped {
            w.add_timer(k);
        }
        w
    }

    /// After a dequeue that gave nothing while packets wait: a discipline that holds its
    /// packets back (a shaper, `qdisc/tbf.rs`) names when it can send (Linux
    /// `qdisc_watchdog_schedule_ns`, ns-3 `Simulator::Schedule(delay, &QueueDisc::Run)`), and
    /// the port sets a timer then, unless one is set for then or earlier (it re-asks). The
    /// timer's key, for the caller's [`Wakeups`].
    #[cold]
    pub(super) fn shaper_timer<const NS2: bool>(&mut self, cx: &PortCx<NS2>) -> Option<u64> {
        let t = self.qdisc.wake_at()?;
        if t <= cx.now || self.qdisc.len_packets() == 0 {
            return None;
        }
        let key = if NS2 {
            (f64::from_bits(cx.now_key) + (t - cx.now).as_secs_f64()).to_bits()
        } else {
            t.0
        };
        let earlier = |&(k, ref p): &(u64, PortTimer)| {
            matches!(p, PortTimer::Shaper)
                && (if NS2 {
                    f64::from_bits(k) <= f64::from_bits(key)
                } else {
                    k <= key
                })
        };
        if self.timers().iter().any(earlier) {
            return None;
        }
        self.timers_mut().push((key, PortTimer::Shaper));
        Some(key)
    }
}
