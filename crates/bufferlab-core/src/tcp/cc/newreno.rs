//! NewReno, RFC 6582 "The NewReno Modification to TCP's Fast Recovery Algorithm" (ns-2
//! `Agent/TCP/Newreno`, ns-3 `TcpNewReno`). Window growth and decrease are Reno's (RFC 5681);
//! the sender runs [`Recovery::NewReno`]: partial ACKs retransmit the next hole and keep the
//! connection in fast recovery until `recover` is acknowledged (section 3.2 steps 3-5).

use super::reno::{aimd_increase, half_flight};
use super::{Ack, CongestionControl, Recovery, Window};
use crate::units::SimTime;

pub struct NewReno;

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    fn recovery(&self) -> Recovery {
        Recovery::NewReno
    }
    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        aimd_increase(w, a.acked);
    }
    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, _now: SimTime) -> f64 {
        half_flight(w, flight)
    }
}
