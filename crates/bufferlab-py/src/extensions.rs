//! The core's `Extensions` for Python: finds and instantiates the classes a scenario names
//! (`class = "module:Class"` or `"path/to/file.py:Class"`, relative to the scenario's folder).
//!
//! Importing a class runs its module's code, so a scenario file (data) names Python only when
//! its caller said to trust it (`allow_python`: `bufferlab run --allow-python`); otherwise the
//! class is refused before anything is imported (docs/cli.md "What runs code").

use std::path::PathBuf;

use bufferlab_core::ext::Extensions;
use bufferlab_core::qdisc::QueueDisc;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::pycc::PyCongestionControl;
use crate::pyqdisc::PyQueueDisc;
use bufferlab_core::tcp::cc::CongestionControl;

pub struct PyExtensions {
    /// Folder of the scenario file: module search path and base of relative file paths.
    pub base_dir: Option<PathBuf>,
    /// The caller trusts the scenario's Python classes: without it none is imported.
    pub allow_python: bool,
}

impl PyExtensions {
    /// Refuses a class when the caller did not say to trust the scenario's Python.
    fn check_trusted(&self, class: &str) -> Result<(), String> {
        if self.allow_python {
            return Ok(());
        }
        Err(format!(
            "\"{class}\" names Python code, and a scenario file is data: bufferlab imports the \
             classes it names only when told to trust them; add --allow-python (Python: \
             allow_python=True) if you trust this scenario and its Python files"
        ))
    }
}

impl PyExtensions {
    /// Imports `spec` ("module:Class" or "file.py:Class") and calls the class with `params`.
    fn instantiate<'py>(
        &self,
        py: Python<'py>,
        spec: &str,
        params: &serde_json::Value,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (module, class) = spec.rsplit_once(':').ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "class \"{spec}\": write it as module:Class or file.py:Class"
            ))
        })?;
        let importlib = py.import("importlib")?;
        let m = if module.ends_with(".py") {
            let mut path = PathBuf::from(module);
            if path.is_relative() {
                if let Some(base) = &self.base_dir {
                    path = base.join(path);
                }
            }
            let name = format!(
                "bufferlab_user_{}",
                path.file_stem().and_then(|s| s.to_str()).unwrap_or("ext")
            );
            let util = py.import("importlib.util")?;
            let spec_obj = util.call_method1(
                "spec_from_file_location",
                (name.as_str(), path.to_string_lossy().as_ref()),
            )?;
            if spec_obj.is_none() {
                return Err(pyo3::exceptions::PyFileNotFoundError::new_err(format!(
                    "{}: no such Python file",
                    path.display()
                )));
            }
            let m = util.call_method1("module_from_spec", (&spec_obj,))?;
            py.import("sys")?
                .getattr("modules")?
                .set_item(name.as_str(), &m)?;
            spec_obj
                .getattr("loader")?
                .call_method1("exec_module", (&m,))?;
            m
        } else {
            if let Some(base) = &self.base_dir {
                let sys_path = py.import("sys")?.getattr("path")?;
                let b = base.to_string_lossy().to_string();
                if !sys_path.contains(b.as_str())? {
                    sys_path.call_method1("insert", (0, b))?;
                }
            }
            importlib.call_method1("import_module", (module,))?
        };
        let cls = m.getattr(class)?;
        let kwargs = PyDict::new(py);
        if let serde_json::Value::Object(map) = params {
            let json = py.import("json")?;
            for (k, v) in map {
                kwargs.set_item(k, json.call_method1("loads", (v.to_string(),))?)?;
            }
        }
        cls.call((), Some(&kwargs))
    }
}

fn message(py: Python<'_>, spec: &str, e: PyErr) -> String {
    let text = e.value(py).str().map(|s| s.to_string()).unwrap_or_default();
    format!(
        "{spec}: {}: {text}",
        e.get_type(py)
            .name()
            .map(|n| n.to_string())
            .unwrap_or_default()
    )
}

impl Extensions for PyExtensions {
    fn queue_disc(
        &self,
        class: &str,
        params: &serde_json::Value,
    ) -> Result<Box<dyn QueueDisc>, String> {
        self.check_trusted(class)?;
        Python::attach(|py| {
            let obj = self
                .instantiate(py, class, params)
                .map_err(|e| message(py, class, e))?;
            for m in ["enqueue", "dequeue"] {
                if !obj.hasattr(m).unwrap_or(false) {
                    return Err(format!("{class}: a queue discipline needs a {m} method (subclass bufferlab.QueueDisc)"));
                }
            }
            Ok(Box::new(PyQueueDisc::new(obj.unbind())) as Box<dyn QueueDisc>)
        })
    }

    fn congestion_control(
        &self,
        class: &str,
        params: &serde_json::Value,
    ) -> Result<Box<dyn CongestionControl>, String> {
        self.check_trusted(class)?;
        Python::attach(|py| {
            let obj = self
                .instantiate(py, class, params)
                .map_err(|e| message(py, class, e))?;
            for m in [
                "on_ack",
                "ssthresh_on_loss",
                "on_recovery_exit",
                "on_timeout",
            ] {
                if !obj.hasattr(m).unwrap_or(false) {
                    return Err(format!("{class}: a congestion controller needs a {m} method (subclass bufferlab.CongestionControl)"));
                }
            }
            let cc =
                PyCongestionControl::new(py, obj.unbind()).map_err(|e| message(py, class, e))?;
            Ok(Box::new(cc) as Box<dyn CongestionControl>)
        })
    }
}
