//! Queue disciplines written in Python (`bufferlab.QueueDisc` subclasses), run by the engine
//! through the core's `QueueDisc` trait. The engine keeps the packets themselves: Python sees
//! read-only views (`Packet`) and hands them back from `dequeue`; the adapter matches them by
//! uid. The `QueueContext` given to each call lends the call's `QueueCtx` (clock, link, the
//! queue's own random stream, drops) for the duration of that call only.

use std::collections::HashMap;

use bufferlab_core::packet::{Ecn, Packet, PacketKind};
use bufferlab_core::qdisc::{DropReason, QueueCtx, QueueDisc};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use rand::RngExt;

use crate::python_error::stash;

/// A read-only view of a packet in a Python queue discipline.
#[pyclass(frozen, module = "bufferlab._core", name = "Packet")]
pub struct PacketView {
    #[pyo3(get)]
    uid: u64,
    #[pyo3(get)]
    flow: u32,
    #[pyo3(get)]
    size: u32,
    #[pyo3(get)]
    protocol: &'static str,
    #[pyo3(get)]
    kind: &'static str,
    #[pyo3(get)]
    ecn: &'static str,
    #[pyo3(get)]
    ecn_capable: bool,
    #[pyo3(get, name = "class_")]
    class: u8,
    #[pyo3(get)]
    created: f64,
    #[pyo3(get)]
    arrival: f64,
}

#[pymethods]
impl PacketView {
    fn __repr__(&self) -> String {
        format!(
            "Packet(uid={}, flow={}, size={}, {}, ecn={})",
            self.uid, self.flow, self.size, self.kind, self.ecn
        )
    }
}

impl PacketView {
    fn of(p: &Packet) -> Self {
        let (protocol, kind) = match p.kind {
            PacketKind::UdpData => ("udp", "udp"),
            PacketKind::TcpData => ("tcp", "tcp_data"),
            PacketKind::TcpAck => ("tcp", "tcp_ack"),
        };
        let ecn = match p.ecn {
            Ecn::NotEct => "not_ect",
            Ecn::Ect0 => "ect0",
            Ecn::Ect1 => "ect1",
            Ecn::Ce => "ce",
        };
        Self {
            uid: p.uid,
            flow: p.flow.0,
            size: p.size,
            protocol,
            kind,
            ecn,
            ecn_capable: p.ecn.is_capable(),
            class: p.class,
            created: p.created.as_secs_f64(),
            arrival: p.enqueued.as_secs_f64(),
        }
    }
}

/// What a Python discipline sees of the engine during one call.
#[pyclass(unsendable, module = "bufferlab._core", name = "QueueContext")]
pub struct QueueContext {
    /// Valid only while the enqueue/dequeue call that created it runs.
    cx: *mut QueueCtx<'static>,
    stored: *mut Stored,
    #[pyo3(get)]
    now: f64,
    /// The exact simulated time in integer picoseconds.
    #[pyo3(get)]
    now_ps: u64,
    #[pyo3(get)]
    link_rate_bps: u64,
    #[pyo3(get)]
    link_busy: bool,
}

impl QueueContext {
    fn check(&self) -> PyResult<()> {
        if self.cx.is_null() {
            return Err(PyRuntimeError::new_err(
                "a QueueContext is only valid during the call it was given to",
            ));
        }
        Ok(())
    }
}

#[pymethods]
impl QueueContext {
    /// A uniform float in [0, 1) from the queue's own random stream.
    fn random(&self) -> PyResult<f64> {
        self.check()?;
        // SAFETY: non-null only while the QueueCtx it points to is borrowed by the running call.
        let cx = unsafe { &mut *self.cx };
        Ok(cx.rng().random::<f64>())
    }

    /// Packets the engine counts as stored in this queue.
    #[getter]
    fn len_packets(&self) -> PyResult<usize> {
        self.check()?;
        Ok(unsafe { &*self.stored }.map.len())
    }

    /// Bytes the engine counts as stored in this queue.
    #[getter]
    fn len_bytes(&self) -> PyResult<u64> {
        self.check()?;
        Ok(unsafe { &*self.stored }.bytes)
    }

    /// Drops a stored packet (for disciplines that drop at dequeue).
    #[pyo3(signature = (pkt, reason = "custom"))]
    fn drop(&self, pkt: &Bound<'_, PacketView>, reason: &str) -> PyResult<()> {
        self.check()?;
        let stored = unsafe { &mut *self.stored };
        let p = stored.take(pkt.get().uid).ok_or_else(|| {
            PyValueError::new_err(format!(
                "packet {} is not stored in this queue",
                pkt.get().uid
            ))
        })?;
        unsafe { &mut *self.cx }.drop(p, reason_of(reason));
        Ok(())
    }
}

fn reason_of(s: &str) -> DropReason {
    DropReason::ALL
        .into_iter()
        .find(|r| r.as_str() == s && *r != DropReason::LinkLoss)
        .unwrap_or(DropReason::Custom)
}

/// The packets a Python discipline has accepted, by uid (lookups only, so the map's order
/// never matters for results).
#[derive(Default)]
struct Stored {
    map: HashMap<u64, Packet>,
    bytes: u64,
}

impl Stored {
    fn put(&mut self, p: Packet) {
        self.bytes += p.size as u64;
        self.map.insert(p.uid, p);
    }
    fn take(&mut self, uid: u64) -> Option<Packet> {
        let p = self.map.remove(&uid)?;
        self.bytes -= p.size as u64;
        Some(p)
    }
}

pub struct PyQueueDisc {
    obj: Py<PyAny>,
    stored: Stored,
}

impl PyQueueDisc {
    pub fn new(obj: Py<PyAny>) -> Self {
        Self {
            obj,
            stored: Stored::default(),
        }
    }

    /// Calls `method` with a context lending `cx`; the context is invalidated afterwards.
    fn call<'py>(
        &mut self,
        py: Python<'py>,
        cx: &mut QueueCtx,
        method: &str,
        view: Option<PacketView>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let ctx = Bound::new(
            py,
            QueueContext {
                // SAFETY: the lifetime is erased only for the duration of this call; the pointer
                // is nulled before returning, and the object cannot cross threads (unsendable).
                cx: (cx as *mut QueueCtx).cast::<QueueCtx<'static>>(),
                stored: &mut self.stored as *mut Stored,
                now: cx.now.as_secs_f64(),
                now_ps: cx.now.0,
                link_rate_bps: cx.link_rate.bps(),
                link_busy: cx.link_busy,
            },
        )?;
        let r = match view {
            Some(v) => self
                .obj
                .bind(py)
                .call_method1(method, (Bound::new(py, v)?, ctx.clone())),
            None => self.obj.bind(py).call_method1(method, (ctx.clone(),)),
        };
        let mut c = ctx.borrow_mut();
        c.cx = std::ptr::null_mut();
        c.stored = std::ptr::null_mut();
        r
    }
}

/// Reads `"accept"`, `"mark"`, `"drop"` or `("drop", reason)`.
fn verdict(r: &Bound<'_, PyAny>) -> PyResult<(String, Option<String>)> {
    if let Ok(s) = r.cast::<PyString>() {
        return Ok((s.to_string(), None));
    }
    if let Ok(t) = r.cast::<PyTuple>() {
        if t.len() == 2 {
            return Ok((
                t.get_item(0)?.str()?.to_string(),
                Some(t.get_item(1)?.str()?.to_string()),
            ));
        }
    }
    Err(PyValueError::new_err(format!(
        "enqueue must return \"accept\", \"mark\" or (\"drop\", reason), not {}",
        r.repr()?
    )))
}

impl QueueDisc for PyQueueDisc {
    fn enqueue(&mut self, mut pkt: Packet, cx: &mut QueueCtx) {
        let outcome = Python::attach(|py| -> PyResult<(String, Option<String>)> {
            let r = self.call(py, cx, "enqueue", Some(PacketView::of(&pkt)))?;
            verdict(&r)
        });
        match outcome {
            Ok((v, reason)) => match v.as_str() {
                "accept" => self.stored.put(pkt),
                "mark" => {
                    if cx.mark(&mut pkt) {
                        self.stored.put(pkt)
                    } else {
                        cx.drop(
                            pkt,
                            reason
                                .as_deref()
                                .map(reason_of)
                                .unwrap_or(DropReason::Custom),
                        )
                    }
                }
                "drop" => cx.drop(
                    pkt,
                    reason
                        .as_deref()
                        .map(reason_of)
                        .unwrap_or(DropReason::Custom),
                ),
                other => stash(PyValueError::new_err(format!(
                    "enqueue returned {other:?}; expected \"accept\", \"mark\" or \"drop\""
                ))),
            },
            Err(e) => stash(e),
        }
    }

    fn dequeue(&mut self, cx: &mut QueueCtx) -> Option<Packet> {
        let uid = Python::attach(|py| -> PyResult<Option<u64>> {
            let r = self.call(py, cx, "dequeue", None)?;
            if r.is_none() {
                return Ok(None);
            }
            let v = r.cast::<PacketView>().map_err(|_| {
                PyValueError::new_err("dequeue must return a packet it was given, or None")
            })?;
            Ok(Some(v.get().uid))
        });
        match uid {
            Ok(None) => None,
            Ok(Some(uid)) => match self.stored.take(uid) {
                Some(p) => Some(p),
                None => stash(PyValueError::new_err(format!(
                    "dequeue returned packet {uid}, which is not stored in this queue"
                ))),
            },
            Err(e) => stash(e),
        }
    }

    fn len_packets(&self) -> usize {
        self.stored.map.len()
    }

    fn len_bytes(&self) -> u64 {
        self.stored.bytes
    }

    fn kind(&self) -> &'static str {
        "python"
    }

    fn average(&self) -> Option<f64> {
        Python::attach(|py| {
            self.obj
                .bind(py)
                .call_method0("average")
                .ok()
                .and_then(|v| v.extract::<Option<f64>>().ok())
                .flatten()
        })
    }
}
