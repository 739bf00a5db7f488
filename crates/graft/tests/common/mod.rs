//! What several integration tests share: the generated corpus's smaller models.

use std::path::PathBuf;

/// The corpus directory (`GRAFT_CORPUS`, else `target/corpus`), if it is complete.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus"))
        });
    dir.join(".complete").exists().then_some(dir)
}

/// The `.onnx` files under the corpus's `real`, `generated` and `node` directories
/// smaller than `max_bytes`, sorted.
pub fn small_models(dir: &std::path::Path, max_bytes: u64) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.join("real"), dir.join("generated"), dir.join("node")];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "onnx")
                && e.metadata().is_ok_and(|md| md.len() < max_bytes)
            {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// The model in `path`, or `None` when it cannot be read or imported.
pub fn load(path: &std::path::Path) -> Option<graft::Model> {
    let bytes = std::fs::read(path).ok()?;
    Some(graft::import(bytes.into()).ok()?.model)
}
