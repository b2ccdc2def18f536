//! Names from a user's file as file names: a path inside the chosen folder, or a clear refusal.
//!
//! A scenario names its links and nodes freely, and the pcap files are named after them.
//! [`child_path`] is the one way such a name becomes a path: the result is always
//! `dir/<name><suffix>`, a direct child of `dir`. A name that could not be one is refused, never
//! rewritten (a rewrite could make two names one file). Refused: an empty name, `.` and `..`, a
//! name with `/`, `\`, NUL or any other control character, and a file name longer than 255
//! bytes (the limit of the common file systems). The same rules hold in Python
//! (`python/bufferlab/safe_path.py`).

use std::path::{Path, PathBuf};

/// Longest file name (name and suffix, bytes of UTF-8) the common file systems accept.
pub const MAX_FILE_NAME_BYTES: usize = 255;

/// What a refused name may not hold, as the fix in every refusal.
const RULE: &str = "without \"/\", \"\\\", control characters or a lone \".\" or \"..\"";

/// Why `name` cannot be (part of) a file name, or None when it can. Length is checked on the
/// whole file name by [`child_path`].
pub fn name_problem(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("it is empty".into());
    }
    if name == "." || name == ".." {
        return Some(format!("\"{name}\" names a folder"));
    }
    if let Some(sep) = ['/', '\\'].into_iter().find(|&c| name.contains(c)) {
        return Some(format!("it contains \"{sep}\""));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Some(format!(
            "it contains the control character U+{:04X}",
            c as u32
        ));
    }
    None
}

/// A name in a message: quoted, control characters as visible escapes (`\x1b`, `\n`), cut
/// after 120 characters (a name refused for its length can be thousands).
pub fn shown(name: &str) -> String {
    let mut out = String::from("\"");
    for c in name.chars().take(120) {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() && (c as u32) < 0x100 => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push_str(if name.chars().count() > 120 {
        "...\""
    } else {
        "\""
    });
    out
}

/// Checks a name that will be part of a file name; the error names it as `what` (e.g. `link
/// name`) and says the fix.
pub fn check_name(what: &str, name: &str) -> Result<(), String> {
    match name_problem(name) {
        None => Ok(()),
        Some(why) => Err(format!(
            "{what} {} cannot be a file name ({why}); rename it {RULE}",
            shown(name)
        )),
    }
}

/// `dir/<name><suffix>`, a direct child of `dir`; an error (what is wrong, and the fix) when
/// `name` cannot be a file name.
pub fn child_path(dir: &Path, name: &str, suffix: &str) -> Result<PathBuf, String> {
    check_name("name", name)?;
    if !suffix.is_empty() {
        check_name("suffix", suffix)?;
    }
    let file_name = format!("{name}{suffix}");
    if file_name.len() > MAX_FILE_NAME_BYTES {
        return Err(format!(
            "name {} makes a file name of {} bytes, longer than the {MAX_FILE_NAME_BYTES} a file \
             system allows; shorten it",
            shown(name),
            file_name.len()
        ));
    }
    let path = dir.join(&file_name);
    // The rules above make this hold; checked so that no later change to them can break it.
    if path.parent() != Some(dir) || path.file_name() != Some(file_name.as_ref()) {
        return Err(format!(
            "name {} cannot be a file name in {}",
            shown(name),
            dir.display()
        ));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_names_are_children_of_the_folder() {
        let dir = Path::new("caps");
        for name in [
            "bottleneck",
            "x_a-b",
            "lien-é",
            "a b",
            "...",
            ".hidden",
            "-x",
        ] {
            let p = child_path(dir, name, ".pcap").unwrap();
            assert_eq!(p.parent(), Some(dir));
            assert_eq!(p.file_name().unwrap(), format!("{name}.pcap").as_str());
        }
    }

    #[test]
    fn names_that_could_leave_the_folder_are_refused() {
        let dir = Path::new("/tmp/caps");
        for (name, why) in [
            ("../../x", "contains \"/\""),
            ("/abs/x", "contains \"/\""),
            ("a\\b", "contains \"\\\""),
            ("", "is empty"),
            (".", "names a folder"),
            ("..", "names a folder"),
            ("a\0b", "U+0000"),
            ("\x1b]0;pwned\x07", "U+001B"),
            ("new\nline", "U+000A"),
            ("c1\u{85}", "U+0085"),
        ] {
            let e = child_path(dir, name, ".pcap").unwrap_err();
            assert!(e.contains(why), "{name:?}: {e}");
            assert!(e.contains("; rename it without"), "{e}");
            assert!(
                !e.chars().any(|c| c.is_control()),
                "raw control character in {e:?}"
            );
        }
    }

    #[test]
    fn a_file_name_past_255_bytes_is_refused_and_255_is_not() {
        let dir = Path::new("d");
        let fits = "x".repeat(250);
        assert!(child_path(dir, &fits, ".pcap").is_ok());
        let e = child_path(dir, &"x".repeat(251), ".pcap").unwrap_err();
        assert!(e.contains("256 bytes"), "{e}");
        assert!(
            e.contains("...\""),
            "a long name is cut in the message: {e}"
        );
        // Bytes, not characters: 128 two-byte characters are 256 bytes.
        assert!(child_path(dir, &"é".repeat(128), "").is_err());
        assert!(child_path(dir, &"é".repeat(127), "").is_ok());
    }

    #[test]
    fn check_name_says_which_name_and_shows_escapes() {
        let e = check_name("link name", "../../x").unwrap_err();
        assert_eq!(
            e,
            "link name \"../../x\" cannot be a file name (it contains \"/\"); rename it without \
             \"/\", \"\\\", control characters or a lone \".\" or \"..\""
        );
        let e = check_name("node name", "\x1b[2J").unwrap_err();
        assert!(e.starts_with("node name \"\\x1b[2J\""), "{e}");
        assert!(check_name("node name", "r0").is_ok());
    }
}
