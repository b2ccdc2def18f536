//! The application's side of the sender: where its data ends (a bulk source, a finite
//! transfer, a web client's objects, a packet source's writes within the send buffer), when an
//! object or the transfer completes (the response times, the completion time), and new data
//! on a connection that was idle.
//!
//! The idle restart follows RFC 5681 section 4.1 (in `output.rs`, `next_new_segment`), or,
//! under the rule `idle_timeout_closes_cwnd_to_one` (with `slow_start_restart`), ns-2.35
//! tcp.cc: a write (`sendmsg`, `advance`) on an agent whose timer, rearmed by the last new ACK
//! (`newack` -> `newtimer`), has expired finds cwnd_ closed to one by `timeout()`
//! (`slowdown(CLOSE_CWND_ONE|NO_OUTSTANDING_DATA)`, `recover_ = maxseq_`,
//! `last_cwnd_action_ = CWND_ACTION_TIMEOUT`).

use super::{State, TcpSender};
use crate::tcp::app::{sample_size, sample_think, TcpApp};
use crate::units::SimTime;

impl TcpSender {
    /// End of the data the sender may send: what the application wrote, bounded by the send
    /// buffer (unsent + unacknowledged data fit in `send_buffer`).
    pub(super) fn avail_end(&self) -> u64 {
        let buf = self.snd_una.saturating_add(self.p.send_buffer);
        self.data_end.min(buf).min(self.send_limit)
    }

    /// The application acts at `now`: a web client starts its next object; a packet source
    /// writes every emission due by now (those that fit the send buffer) and sets the time of
    /// its next one.
    pub(super) fn start_object(&mut self, now: SimTime) {
        if let TcpApp::Writes {
            gen,
            rng,
            pending,
            written_bytes,
            refused_bytes,
        } = &mut self.app
        {
            self.app_at = None;
            if now >= self.stop {
                return;
            }
            // a write on an idle connection restarts it as ns-2's `sendmsg` does
            let idle = self.state == State::Established && self.snd_una >= self.snd_max;
            let before = self.data_end;
            while let Some((at, size)) = *pending {
                if at > now {
                    self.app_at = (at < self.stop).then_some(at);
                    break;
                }
                *pending = gen.next(rng);
                let size = size as u64;
                let queued = self.data_end.saturating_sub(self.snd_una);
                if queued + size <= self.p.send_buffer {
                    self.data_end += size;
                    *written_bytes += size;
                } else {
                    *refused_bytes += size;
                }
            }
            if self.data_end > before && self.ns2_idle_rule() {
                self.resume_after_idle(now, idle);
            }
            return;
        }
        if let TcpApp::Web {
            size, objects, rng, ..
        } = &mut self.app
        {
            if objects.is_some_and(|n| self.objects_started >= n) || now >= self.stop {
                return;
            }
            let n = sample_size(size, rng);
            self.objects_started += 1;
            self.data_end += n;
            self.object = Some((self.data_end, now));
        }
    }

    pub(super) fn check_app_progress(&mut self, now: SimTime) {
        if let Some((end, t0)) = self.object {
            if self.snd_una >= end {
                self.response_times.push((now - t0).as_secs_f64());
                self.object = None;
                if let TcpApp::Web { think, rng, .. } = &mut self.app {
                    self.app_at = Some(now + sample_think(think, rng));
                }
            }
        }
        if self.closing && !self.fin_acked && self.snd_una > self.data_end {
            self.fin_acked = true;
            self.completion = Some(now);
        }
    }

    /// ns-2's timer runs on an idle connection (rule `idle_timeout_closes_cwnd_to_one`,
    /// with `slow_start_restart`). Not for ns-2's Vegas agent, whose timeout() is a full one
    /// even with nothing outstanding (tcp-vegas.cc: ssthresh_ halved, cwnd_ v_slowstart_,
    /// the timer backed off): not modelled, the ns-2 script layer refuses that case.
    pub(super) fn ns2_idle_rule(&self) -> bool {
        self.rules.idle_timeout_closes_cwnd_to_one && self.p.slow_start_restart && !self.ns2_vegas()
    }

    /// New data written on a connection that was `idle` (all sent acknowledged): under ns-2's
    /// rule, if its timer expired meanwhile, tcp.cc `timeout()` has closed cwnd_ to one
    /// segment (see `set_data`); the restart is decided here.
    pub(super) fn resume_after_idle(&mut self, now: SimTime, idle: bool) {
        if idle && self.snd_nxt < self.avail_end() {
            if self.ns2_idle_rule() {
                if self.idle_timed_out(now) {
                    self.w.cwnd = self.w.mss;
                    self.note_ns2_cong_action();
                    self.recover = self.snd_max;
                    self.last_action_timeout = true;
                    self.last_action_ecn = false;
                    self.timed = None;
                }
                // the restart is decided here, not by RFC 5681's rule in next_new_segment
                self.last_send = now;
            }
            self.idle_timeout_at = None;
        }
    }

    /// Everything sent is acknowledged and ns-2's timer, rearmed by the last new ACK, has
    /// expired by `now`: tcp.cc timeout() has closed cwnd_ to 1.
    pub(super) fn idle_timed_out(&self, now: SimTime) -> bool {
        self.ns2_idle_rule()
            && self.state == State::Established
            && self.snd_una >= self.snd_max
            && self.idle_timeout_at.is_some_and(|t| now >= t)
    }
}
