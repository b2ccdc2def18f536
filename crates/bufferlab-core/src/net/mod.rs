//! The network: output ports with their queues and
//! link pipelines, capacities that vary (Mahimahi traces, rate schedules), random and per-flow
//! loss models, ns-2's Delayer, and static shortest-path routing, single-path or equal-cost
//! multipath (`ecmp.rs`).

pub mod capacity;
pub mod delayer;
pub mod device_queue;
pub mod ecmp;
pub mod error_module;
pub mod loss;
pub mod packet_pool;
pub mod port;
pub mod port_queue;
pub mod ring;
pub mod routing;
pub mod shared_buffer;
