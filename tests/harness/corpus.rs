//! Where the test corpus is, and how to walk it.
//!
//! `cargo xtask corpus` writes it under `target/corpus`; it is never committed. Tests
//! that need it skip with a message when it is absent, unless `GRAFT_REQUIRE_CORPUS=1`
//! (set by `cargo xtask test`), where its absence is a failure.

use std::path::{Path, PathBuf};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// The corpus directory, or `None` (after saying why) when the test should skip.
pub fn dir() -> Option<PathBuf> {
    let dir = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/corpus"));
    if dir.join(".complete").exists() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("GRAFT_REQUIRE_CORPUS").is_none(),
        "the corpus is missing at {}: run `cargo xtask corpus`",
        dir.display()
    );
    eprintln!(
        "skipped: no corpus at {} (run `cargo xtask corpus`)",
        dir.display()
    );
    None
}

/// Every file under `dir` whose name ends with one of `extensions`, sorted.
pub fn files(dir: &Path, extensions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if extensions.iter().any(|e| {
                path.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(e))
            }) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Every model of the corpus except the deliberately corrupt files.
pub fn models(dir: &Path) -> Vec<PathBuf> {
    files(dir, &[".onnx"])
        .into_iter()
        .filter(|p| !p.starts_with(dir.join("corrupt")))
        .collect()
}

/// The acceptance cases' sections as ONNX text, each named `FILE [K]`: a case holds a
/// model, and for an inline case a guest after `# --- guest ---`.
pub fn case_sections() -> Vec<(String, String)> {
    let cases = root().join("crates/graft/tests/cases");
    let mut out = Vec::new();
    for path in files(&cases, &[".onnxtxt"]) {
        let text = std::fs::read_to_string(&path).expect("a case file reads");
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
        let name = name.unwrap_or_default();
        let mut sections = vec![String::new()];
        for line in text.lines() {
            if line.starts_with("# --- ") {
                sections.push(String::new());
            } else if let Some(last) = sections.last_mut() {
                last.push_str(line);
                last.push('\n');
            }
        }
        for (k, section) in sections.into_iter().enumerate() {
            out.push((format!("{name} [{k}]"), section));
        }
    }
    out
}

/// The Python interpreter of the interop venv.
pub fn python() -> PathBuf {
    std::env::var_os("GRAFT_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/venv/bin/python"))
}
