//! Shared-buffer switches: the output queues of one switch draw from one buffer pool, as in
//! the shared-memory switch chips of datacenter networks, admitted by a policy:
//!
//! * complete sharing: a packet is admitted while the pool has room for it (Choudhury and
//!   Hahne, "Dynamic queue length thresholds for shared-memory packet switches", IEEE/ACM
//!   Transactions on Networking 6(2), 1998, section II: the "complete sharing" scheme);
//! * static threshold: each queue may hold at most its own fixed threshold, and the pool
//!   at most the buffer (the paper's "static thresholds", section II);
//! * Dynamic Threshold: each queue may hold at most `alpha` times the unused buffer,
//!   `T(t) = alpha * (B - Q(t))`, where `Q(t)` is the pool's occupancy; a packet arriving at
//!   a queue whose length is at or above `T(t)` is blocked (the paper's section III). With N
//!   queues overloaded for long, each settles at `alpha * B / (1 + alpha * N)` and
//!   `B / (1 + alpha * N)` of the buffer stays unused (section III, the steady state);
//! * ABM (Addanki et al., SIGCOMM 2022, section 3): `alpha / n_p` times the unused buffer,
//!   times the queue's normalised drain rate, n_p the congested queues of its priority
//!   ([`abm`], which says where its measurement rules come from).
//!
//! In every policy a packet that does not fit in the unused buffer is dropped as
//! `shared_pool_full`; one the policy's threshold refuses as `shared_threshold`. Lengths,
//! thresholds and the buffer count packets or bytes, as the switch's `buffer` is given.
//!
//! A port has one queue, of priority 0, unless the switch gives priority classes: then one
//! queue per priority, each with its own threshold and ECN K, served by strict priority, DRR
//! or WRR ([`priorities`], [`port`]).
//!
//! [`config`] is what a scenario's `[switches.NAME]` table says; [`priorities`] the settings
//! of each (port, priority) queue; [`pool`] the buffer, its admission and its series;
//! [`queue`] a FIFO queue drawing from the pool; [`port`] a port of several priority queues.

pub mod abm;
pub mod config;
pub mod pool;
pub mod port;
pub mod priorities;
pub mod queue;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_priorities;
