//! Random quantities of traffic models as a scenario names them: durations (on/off periods,
//! think times), object sizes (web objects) and packet-size laws. The sampling code is in the
//! models that draw them (`traffic/onoff.rs`, `traffic/poisson.rs`, `tcp/app.rs`).

use crate::units::{Bytes, SimTime};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A random size in bytes (web objects).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum ObjectSize {
    Constant {
        value: Bytes,
    },
    Uniform {
        min: Bytes,
        max: Bytes,
    },
    Exponential {
        mean: Bytes,
    },
    /// Pareto with the given mean and shape (> 1), the classic web object model (Crovella 1997).
    Pareto {
        mean: Bytes,
        shape: f64,
    },
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SizeDistribution {
    #[default]
    Fixed,
    Exponential,
}

/// A random duration.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Distribution {
    Constant {
        value: SimTime,
    },
    Uniform {
        min: SimTime,
        max: SimTime,
    },
    Exponential {
        mean: SimTime,
    },
    /// Pareto with the given mean and shape (> 1), as ns-2's POO_Traffic and ns-3's ParetoRandomVariable.
    Pareto {
        mean: SimTime,
        shape: f64,
    },
}
