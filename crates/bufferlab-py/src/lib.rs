//! Python bindings of bufferlab: the private module `bufferlab._core`.
//!
//! Thin by design: scenario text in, report JSON out. The typed façade lives in
//! `python/bufferlab`. Every call into the core runs with the GIL released (so Python
//! threads simulate in parallel) and inside `catch_unwind`, so a bug in the core surfaces
//! as `SimulationPanic` instead of aborting the interpreter.

mod extensions;
mod pycc;
mod pyqdisc;
mod python_error;
mod session;

use std::panic::{catch_unwind, AssertUnwindSafe};

use bufferlab_core::api::{self, Error, Progress, RunRequest};
use bufferlab_core::monitor::ns2_trace::TraceFilter;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    _core,
    ScenarioError,
    PyValueError,
    "The scenario (file, overrides or values) is invalid; the message names the field and the fix."
);
pyo3::create_exception!(
    _core,
    SimulationPanic,
    PyRuntimeError,
    "A bug inside the simulator core (a caught panic or internal error). Please report it."
);

/// Turns the payload of a caught panic into a readable message.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".to_string()
    }
}

/// Runs `f` on the core with the GIL released, mapping errors and panics to Python exceptions.
fn call_core<F>(py: Python<'_>, f: F) -> PyResult<String>
where
    F: FnOnce() -> Result<String, Error> + Send,
{
    let outcome = py.detach(move || catch_unwind(AssertUnwindSafe(f)));
    // An exception raised by a user's Python extension aborted the run: raise it as it was.
    if let Some(e) = python_error::take() {
        return Err(e);
    }
    match outcome {
        Ok(Ok(json)) => Ok(json),
        Ok(Err(Error::Scenario(msg))) => Err(ScenarioError::new_err(msg)),
        Ok(Err(e @ Error::Internal(_))) => Err(SimulationPanic::new_err(e.to_string())),
        Err(payload) => Err(SimulationPanic::new_err(format!(
            "the simulator panicked: {}",
            panic_message(payload.as_ref())
        ))),
    }
}

/// How often a run without a progress callback takes the GIL to see whether Ctrl-C was pressed.
const SIGNAL_CHECK_EVERY: std::time::Duration = std::time::Duration::from_millis(50);

/// The folder of the scenario file, where Python extensions named in it are looked up.
fn base_dir(source: &str) -> Option<std::path::PathBuf> {
    let p = std::path::Path::new(source);
    p.exists()
        .then(|| {
            p.parent().map(|d| {
                if d.as_os_str().is_empty() {
                    std::path::PathBuf::from(".")
                } else {
                    d.to_path_buf()
                }
            })
        })
        .flatten()
}

/// Runs a scenario (TOML text) and returns the report as a JSON string.
///
/// `source` names the text in error messages (usually the file path); `seed` replaces the
/// scenario's seed; `overrides` are `dotted.path=value` strings applied before validation.
/// `ns2_trace` writes an ns-2 trace file (filtered by `trace_links`, `trace_flows`,
/// `trace_events`); `pcap_dir` writes one pcap file per direction of `pcap_links` (all when
/// empty). `progress(sim_time_s, end_s, events, wall_s)` is called after each thousandth of
/// the simulated time; returning False stops the run. Ctrl-C (SIGINT) stops it too. A stopped
/// run returns the partial results, marked `"partial": true`.
#[pyfunction]
#[pyo3(signature = (text, source = "<string>", seed = None, overrides = None, *, ns2_trace = None,
    trace_links = None, trace_flows = None, trace_events = None, pcap_dir = None, pcap_links = None,
    progress = None, max_wall = None, max_memory = None, allow_python = false))]
#[allow(clippy::too_many_arguments)]
fn run(
    py: Python<'_>,
    text: &str,
    source: &str,
    seed: Option<u64>,
    overrides: Option<Vec<String>>,
    ns2_trace: Option<std::path::PathBuf>,
    trace_links: Option<Vec<String>>,
    trace_flows: Option<Vec<String>>,
    trace_events: Option<String>,
    pcap_dir: Option<std::path::PathBuf>,
    pcap_links: Option<Vec<String>>,
    progress: Option<Py<PyAny>>,
    max_wall: Option<f64>,
    max_memory: Option<u64>,
    allow_python: bool,
) -> PyResult<String> {
    let limits = limits(max_wall, max_memory)?;
    let text = text.to_owned();
    let source = source.to_owned();
    let overrides = overrides.unwrap_or_default();
    let trace_filter = TraceFilter {
        links: trace_links.unwrap_or_default(),
        flows: trace_flows.unwrap_or_default(),
        events: trace_events.unwrap_or_default(),
        error_drops: Vec::new(),
        show_tcphdr: false,
        directions: Vec::new(),
    };
    let mut callback_error: Option<PyErr> = None;
    let ext = extensions::PyExtensions {
        base_dir: base_dir(&source),
        allow_python,
    };
    let result = call_core(py, || {
        let req = RunRequest {
            text: &text,
            source: &source,
            seed,
            overrides: &overrides,
            ns2_trace: ns2_trace.as_deref(),
            trace_filter,
            pcap_dir: pcap_dir.as_deref(),
            pcap_links: pcap_links.unwrap_or_default(),
            extensions: Some(&ext),
            limits,
            ns2_unmonitored_losses: Vec::new(),
            base_dir: ext.base_dir.as_deref(),
        };
        let mut last_signal_check = std::time::Instant::now();
        let mut on_progress = |p: Progress| -> bool {
            // With no callback there is only Ctrl-C to look for, and taking the GIL at every
            // one of the run's 1000 slices made a simulating thread wait on other threads'
            // Python work (a sweep's report parsing): look at most every SIGNAL_CHECK_EVERY.
            if progress.is_none() {
                if last_signal_check.elapsed() < SIGNAL_CHECK_EVERY {
                    return true;
                }
                last_signal_check = std::time::Instant::now();
            }
            Python::attach(|py| {
                if py.check_signals().is_err() {
                    return false; // Ctrl-C: stop and return what was measured
                }
                let Some(cb) = progress.as_ref() else {
                    return true;
                };
                match cb.call1(py, (p.sim_time_s, p.end_s, p.events, p.wall_s)) {
                    Ok(v) => !v.bind(py).is(&*pyo3::types::PyBool::new(py, false)),
                    Err(e) if e.is_instance_of::<pyo3::exceptions::PyKeyboardInterrupt>(py) => {
                        false
                    }
                    Err(e) => {
                        callback_error = Some(e);
                        false
                    }
                }
            })
        };
        // written as it is read out of the simulation (`report::Streamed`): the same bytes
        // as the `Report`'s JSON, without the report and the run's tables both held whole
        let mut out = Vec::new();
        api::write_json_with_progress(&req, &mut on_progress, &mut out)?;
        String::from_utf8(out).map_err(|e| Error::Internal(format!("the report's JSON: {e}")))
    });
    if let Some(e) = callback_error {
        return Err(e);
    }
    result
}

/// The run's limits: `max_wall` seconds (None: none); `max_memory` bytes (None: 80 % of the
/// machine's memory; 0: none).
fn limits(
    max_wall: Option<f64>,
    max_memory: Option<u64>,
) -> PyResult<bufferlab_core::guard::Limits> {
    let max_wall = match max_wall {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 => Some(std::time::Duration::from_secs_f64(s)),
        Some(s) => {
            return Err(ScenarioError::new_err(format!(
                "max_wall: {s} is not a positive number of seconds"
            )))
        }
    };
    let max_memory_bytes = match max_memory {
        None => bufferlab_core::guard::default_max_memory(),
        Some(0) => None,
        Some(b) => Some(b),
    };
    Ok(bufferlab_core::guard::Limits {
        max_wall,
        max_memory_bytes,
    })
}

/// Validates a scenario (TOML text, with overrides) and returns it normalised, as JSON.
#[pyfunction]
#[pyo3(signature = (text, source = "<string>", overrides = None, *, allow_python = false))]
fn validate(
    py: Python<'_>,
    text: &str,
    source: &str,
    overrides: Option<Vec<String>>,
    allow_python: bool,
) -> PyResult<String> {
    let text = text.to_owned();
    let source = source.to_owned();
    let overrides = overrides.unwrap_or_default();
    let ext = extensions::PyExtensions {
        base_dir: base_dir(&source),
        allow_python,
    };
    call_core(py, || {
        api::validate_json(&RunRequest {
            text: &text,
            source: &source,
            seed: None,
            overrides: &overrides,
            extensions: Some(&ext),
            base_dir: ext.base_dir.as_deref(),
            ..Default::default()
        })
    })
}

/// Validates a scenario and returns `{"scenario": normalised, "resolved": the network as
/// built}` as JSON: routed paths, resolved TCP and queue settings, warnings.
#[pyfunction]
#[pyo3(signature = (text, source = "<string>", seed = None, overrides = None, *,
    allow_python = false))]
fn resolve(
    py: Python<'_>,
    text: &str,
    source: &str,
    seed: Option<u64>,
    overrides: Option<Vec<String>>,
    allow_python: bool,
) -> PyResult<String> {
    let text = text.to_owned();
    let source = source.to_owned();
    let overrides = overrides.unwrap_or_default();
    let ext = extensions::PyExtensions {
        base_dir: base_dir(&source),
        allow_python,
    };
    call_core(py, || {
        api::resolve_json(&RunRequest {
            text: &text,
            source: &source,
            seed,
            overrides: &overrides,
            extensions: Some(&ext),
            base_dir: ext.base_dir.as_deref(),
            ..Default::default()
        })
    })
}

/// A scenario value with a unit in base units and its kind ("packets", "bytes", "s",
/// "bit/s", or "" for a bare number); None when it is not a quantity.
#[pyfunction]
fn quantity(text: &str) -> Option<(f64, &'static str)> {
    bufferlab_core::units::quantity(text)
}

/// The JSON Schema of the scenario file format, as a JSON string.
#[pyfunction]
fn schema(py: Python<'_>) -> PyResult<String> {
    call_core(py, || Ok(api::scenario_schema_json()))
}

/// Native core of bufferlab (private; use the `bufferlab` package).
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // Runs aborted by an exception in a user's extension unwind quietly (the exception itself
    // is raised); any other panic keeps the default report on stderr.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if info
            .payload()
            .downcast_ref::<python_error::ExtensionRaised>()
            .is_none()
        {
            default_hook(info);
        }
    }));
    m.add("__version__", bufferlab_core::VERSION)?;
    m.add_class::<pyqdisc::PacketView>()?;
    m.add_class::<pyqdisc::QueueContext>()?;
    m.add_class::<pycc::PyWindow>()?;
    m.add_class::<pycc::PyAck>()?;
    m.add_class::<session::Session>()?;
    m.add("ScenarioError", py.get_type::<ScenarioError>())?;
    m.add("SimulationPanic", py.get_type::<SimulationPanic>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(validate, m)?)?;
    m.add_function(wrap_pyfunction!(resolve, m)?)?;
    m.add_function(wrap_pyfunction!(quantity, m)?)?;
    m.add_function(wrap_pyfunction!(schema, m)?)?;
    Ok(())
}
