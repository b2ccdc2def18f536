//! Extension points for components written outside the core (the Python bindings implement
//! them, so a user's queue discipline or congestion controller written in Python runs through
//! the same traits and the same accounting as the built-in ones). The core itself never
//! depends on Python.

use crate::qdisc::QueueDisc;
use crate::tcp::cc::CongestionControl;

/// Builds user-defined components named in a scenario.
pub trait Extensions {
    /// A queue discipline for `queue = { kind = "python", class = ..., params = ... }`.
    fn queue_disc(
        &self,
        class: &str,
        params: &serde_json::Value,
    ) -> Result<Box<dyn QueueDisc>, String>;
    /// A congestion controller for `tcp = { cc = "python", cc_class = ..., cc_params = ... }`.
    fn congestion_control(
        &self,
        class: &str,
        params: &serde_json::Value,
    ) -> Result<Box<dyn CongestionControl>, String>;
}
