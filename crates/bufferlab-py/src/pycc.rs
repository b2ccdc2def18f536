//! TCP congestion controllers written in Python (`bufferlab.CongestionControl` subclasses),
//! called by the TCP sender through the core's `CongestionControl` trait. The window is lent
//! to Python as a small mutable object and copied back after each call.

use bufferlab_core::tcp::cc::{Ack, CongestionControl, Recovery, Window};
use bufferlab_core::units::SimTime;
use pyo3::prelude::*;

use crate::python_error::stash;

/// The window variables a Python controller reads and changes (bytes).
#[pyclass(module = "bufferlab._core", name = "Window")]
pub struct PyWindow {
    #[pyo3(get, set)]
    cwnd: f64,
    #[pyo3(get, set)]
    ssthresh: f64,
    #[pyo3(get)]
    mss: f64,
}

#[pymethods]
impl PyWindow {
    fn __repr__(&self) -> String {
        format!(
            "Window(cwnd={}, ssthresh={}, mss={})",
            self.cwnd, self.ssthresh, self.mss
        )
    }
    /// True while cwnd < ssthresh.
    #[getter]
    fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
}

/// What the sender knows when an ACK acknowledges new data.
#[pyclass(frozen, module = "bufferlab._core", name = "Ack")]
pub struct PyAck {
    #[pyo3(get)]
    now: f64,
    #[pyo3(get)]
    bytes_acked: u64,
    #[pyo3(get)]
    flight_before: u64,
    #[pyo3(get)]
    snd_una: u64,
    #[pyo3(get)]
    snd_nxt: u64,
    #[pyo3(get)]
    rtt_s: Option<f64>,
}

pub struct PyCongestionControl {
    obj: Py<PyAny>,
    recovery: Recovery,
}

impl PyCongestionControl {
    pub fn new(py: Python<'_>, obj: Py<PyAny>) -> PyResult<Self> {
        let r: String = obj
            .bind(py)
            .getattr("recovery")
            .and_then(|v| v.extract())
            .unwrap_or_else(|_| "newreno".into());
        let recovery = match r.as_str() {
            "tahoe" | "none" => Recovery::None,
            "reno" => Recovery::Reno,
            "newreno" => Recovery::NewReno,
            other => {
                return Err(pyo3::exceptions::PyValueError::new_err(format!(
                    "recovery = {other:?}: use \"tahoe\", \"reno\" or \"newreno\""
                )))
            }
        };
        Ok(Self { obj, recovery })
    }

    /// Calls `method(window, *args)` and copies the window back.
    fn with_window<'py, A>(
        &self,
        py: Python<'py>,
        w: &mut Window,
        method: &str,
        args: A,
    ) -> PyResult<Bound<'py, PyAny>>
    where
        A: FnOnce(Bound<'py, PyWindow>) -> PyResult<Bound<'py, pyo3::types::PyTuple>>,
    {
        let pw = Bound::new(
            py,
            PyWindow {
                cwnd: w.cwnd,
                ssthresh: w.ssthresh,
                mss: w.mss,
            },
        )?;
        let r = self.obj.bind(py).call_method1(method, args(pw.clone())?)?;
        let b = pw.borrow();
        w.cwnd = b.cwnd;
        w.ssthresh = b.ssthresh;
        Ok(r)
    }
}

fn secs(t: SimTime) -> f64 {
    t.as_secs_f64()
}

impl CongestionControl for PyCongestionControl {
    fn name(&self) -> &'static str {
        "python"
    }

    fn recovery(&self) -> Recovery {
        self.recovery
    }

    fn on_ack(&mut self, w: &mut Window, a: &Ack) {
        let r = Python::attach(|py| {
            let ack = Bound::new(
                py,
                PyAck {
                    now: secs(a.now),
                    bytes_acked: a.acked,
                    flight_before: a.flight_before,
                    snd_una: a.snd_una,
                    snd_nxt: a.snd_nxt,
                    rtt_s: a.rtt.map(secs),
                },
            )?;
            self.with_window(py, w, "on_ack", |pw| {
                pyo3::types::PyTuple::new(py, [pw.into_any(), ack.into_any()])
            })
            .map(|_| ())
        });
        if let Err(e) = r {
            stash(e)
        }
    }

    fn ssthresh_on_loss(&mut self, w: &Window, flight: u64, now: SimTime) -> f64 {
        let mut copy = *w;
        let r = Python::attach(|py| -> PyResult<f64> {
            let v = self.with_window(py, &mut copy, "ssthresh_on_loss", |pw| {
                pyo3::types::PyTuple::new(
                    py,
                    [
                        pw.into_any(),
                        (flight as f64).into_pyobject(py)?.into_any(),
                        secs(now).into_pyobject(py)?.into_any(),
                    ],
                )
            })?;
            v.extract::<f64>()
        });
        r.unwrap_or_else(|e| stash(e))
    }

    fn on_recovery_exit(&mut self, w: &mut Window, now: SimTime) {
        let r = Python::attach(|py| {
            self.with_window(py, w, "on_recovery_exit", |pw| {
                pyo3::types::PyTuple::new(
                    py,
                    [pw.into_any(), secs(now).into_pyobject(py)?.into_any()],
                )
            })
            .map(|_| ())
        });
        if let Err(e) = r {
            stash(e)
        }
    }

    fn on_timeout(&mut self, w: &mut Window, flight: u64, now: SimTime) {
        let r = Python::attach(|py| {
            self.with_window(py, w, "on_timeout", |pw| {
                pyo3::types::PyTuple::new(
                    py,
                    [
                        pw.into_any(),
                        (flight as f64).into_pyobject(py)?.into_any(),
                        secs(now).into_pyobject(py)?.into_any(),
                    ],
                )
            })
            .map(|_| ())
        });
        if let Err(e) = r {
            stash(e)
        }
    }
}
