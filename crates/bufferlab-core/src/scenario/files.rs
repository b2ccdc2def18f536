//! Files a scenario names (a link's delivery trace, a workload's flow-size CDF): read from the
//! scenario file's folder and never from outside it, as a study's files stay in the study's
//! folder (`python/bufferlab/study/spec.py` `_inside`). A path through `..` above the folder,
//! an absolute path or a link leading out of it is refused; so is anything but a regular file
//! (a device such as /dev/zero would never end) and a file larger than the caller's bound, so
//! that no scenario, however hostile, reads what it should not or exhausts the memory.

use super::ScenarioError;
use std::path::{Component, Path, PathBuf};

/// The text of the file `given` names, relative to `base` (the scenario's folder; None: the
/// working folder), at most `max_bytes` long; `what` says what the file is in the error for a
/// file too large ("a trace", "a CDF"), `hint` how to make it smaller. Every error names
/// `field`.
pub fn read_inside(
    field: &str,
    base: Option<&Path>,
    given: &str,
    max_bytes: u64,
    what: &str,
    hint: &str,
) -> Result<String, ScenarioError> {
    let err = |m: String| ScenarioError::field(field, m);
    if given.is_empty() || given.chars().any(char::is_control) {
        return Err(err(format!(
            "{given:?}: give a file name without control characters"
        )));
    }
    let outside = || {
        err(format!(
            "{given:?} is outside the scenario's folder; give a path inside it (copy the file there)"
        ))
    };
    // by its words first (`..` above the folder, an absolute path), then by where it leads
    let mut depth = 0usize;
    for c in Path::new(given).components() {
        match c {
            Component::Normal(_) => depth += 1,
            Component::CurDir => {}
            Component::ParentDir => depth = depth.checked_sub(1).ok_or_else(outside)?,
            Component::RootDir | Component::Prefix(_) => return Err(outside()),
        }
    }
    let base: PathBuf = base.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let folder = base
        .canonicalize()
        .map_err(|e| err(format!("the scenario's folder {}: {e}", base.display())))?;
    let path = base.join(given);
    let real = path
        .canonicalize()
        .map_err(|e| err(format!("{given:?}: cannot open {}: {e}", path.display())))?;
    if !real.starts_with(&folder) {
        return Err(outside());
    }
    let meta = std::fs::metadata(&real).map_err(|e| err(format!("{given:?}: {e}")))?;
    if !meta.is_file() {
        return Err(err(format!("{given:?} is not a file")));
    }
    if meta.len() > max_bytes {
        return Err(err(format!(
            "{given:?} holds {} bytes, more than the {max_bytes} {what} may; {hint}",
            meta.len()
        )));
    }
    std::fs::read_to_string(&real)
        .map_err(|e| err(format!("{given:?}: cannot read it as text: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> PathBuf {
        let d = std::env::temp_dir().join(format!("bl-files-{}", std::process::id()));
        std::fs::create_dir_all(d.join("sub")).unwrap();
        std::fs::write(d.join("sub/a.txt"), "1\n2\n").unwrap();
        std::fs::write(d.join("big.txt"), "x".repeat(100)).unwrap();
        d
    }

    fn read(base: &Path, given: &str) -> Result<String, String> {
        read_inside("f", Some(base), given, 50, "a file", "shorten it").map_err(|e| e.to_string())
    }

    #[test]
    fn a_file_inside_is_read_and_one_outside_refused() {
        let d = folder();
        assert_eq!(read(&d, "sub/a.txt").unwrap(), "1\n2\n");
        assert_eq!(read(&d, "sub/../sub/./a.txt").unwrap(), "1\n2\n");
        for bad in ["../x", "sub/../../x", "/etc/passwd", ""] {
            let e = read(&d, bad).unwrap_err();
            assert!(e.contains('f'), "{bad}: {e}");
        }
        assert!(read(&d, "../x").unwrap_err().contains("outside"));
        assert!(read(&d, "big.txt").unwrap_err().contains("100 bytes"));
        assert!(read(&d, "sub").unwrap_err().contains("not a file"));
        #[cfg(unix)]
        {
            let link = d.join("zero");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
            assert!(read(&d, "zero").unwrap_err().contains("outside"));
        }
        std::fs::remove_dir_all(&d).unwrap();
    }
}
