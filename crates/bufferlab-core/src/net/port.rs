//! An output port: one direction of a link. It holds the queue discipline, the packet being
//! serialised, and the propagation pipeline. Packets in flight on the wire wait in a FIFO
//! with a single pending arrival event per port (htsim's trick): since propagation delay is
//! constant, arrivals leave the pipeline in the order they entered it, so the event queue
//! holds at most two events per port (transmission done, next arrival) however many packets
//! are on the wire.

use super::loss::LossModel;
use crate::ids::{LinkId, NodeId, PortId};
use crate::packet::Packet;
use crate::qdisc::accounting::QueueStats;
use crate::qdisc::QueueDisc;
use crate::rng::Rng;
use crate::scenario::config::LossPosition;
use crate::units::{Rate, SimTime};
use std::collections::VecDeque;

pub struct Port {
    pub id: PortId,
    pub link: LinkId,
    pub from: NodeId,
    pub to: NodeId,
    pub rate: Rate,
    pub delay: SimTime,
    pub qdisc: Box<dyn QueueDisc>,
    pub qdisc_rng: Rng,
    pub stats: QueueStats,
    /// The packet being serialised, if any.
    pub in_service: Option<Packet>,
    /// Packets propagating, with their arrival times at `to`.
    pub pipeline: VecDeque<(SimTime, Packet)>,
    pub loss: LossModel,
    pub loss_rng: Rng,
    pub loss_position: LossPosition,
    /// Counted from the warm-up on.
    pub tx_packets: u64,
    pub tx_bytes: u64,
    pub lost_packets: u64,
}

impl Port {
    #[inline]
    pub fn busy(&self) -> bool {
        self.in_service.is_some()
    }
}
