//! Tahoe (Jacobson 1988, "Congestion Avoidance and Control"; ns-2 `Agent/TCP`): slow start,
//! congestion avoidance and fast retransmit, but no fast recovery: after the retransmission
//! the window restarts from one segment in slow start (ns-2 `slowdown(CLOSE_CWND_ONE)`).
//! Window growth is Reno's (RFC 5681 section 3.1), see [`super::reno`]. With ns-2's rules the
//! sender also goes back N after the fast retransmission and keeps the duplicate count over a
//! timeout (`tahoe_fast_retransmit_goes_back_n`, `tahoe_timeout_keeps_dupacks` in
//! `tcp/flavour/ns2.rs`, from `tcp.cc` `dupack_action` and `timeout`).

use super::reno::{aimd_increase, half_flight};
use super::{Ack, CongestionControl, Recovery, Window};
use crate::units::SimTime;

pub struct Tahoe;

impl CongestionControl for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }
    fn recovery(&self) -> Recovery {
        Recovery::None
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        aimd_increase(w, a.acked);
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, _now: SimTime) -> f64 {
        half_flight(w, flight)
    }
}
