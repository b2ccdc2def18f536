//! Carrying a Python exception raised inside a user's extension (a queue discipline or a
//! congestion controller called from deep inside the engine) back out to the caller: the
//! exception is kept in a thread-local slot and the run is aborted with a panic, which
//! `call_core` catches and replaces by the original exception.

use pyo3::PyErr;
use std::cell::RefCell;

thread_local! {
    static PENDING: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// Keeps the first exception and aborts the run.
pub fn stash(e: PyErr) -> ! {
    PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if p.is_none() {
            *p = Some(e);
        }
    });
    std::panic::panic_any(ExtensionRaised)
}

/// The panic payload of an aborted run (recognised, so no "bug in bufferlab" message is shown).
pub struct ExtensionRaised;

/// The exception that aborted the run on this thread, if any.
pub fn take() -> Option<PyErr> {
    PENDING.with(|p| p.borrow_mut().take())
}
