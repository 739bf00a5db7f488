//! What several integration tests share: the generated corpus's smaller models, and
//! the check that what the document host derives is current.

#![allow(dead_code)] // Each test uses its part.

use std::path::PathBuf;

/// A model with a bit of everything an edit reaches: an initializer, an If with two
/// branches, and a call of a local function with an attribute.
pub const MODEL: &str = r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[N, 3] x, bool c) => (float[N, 3] y, float[N, 3] z) <float[3] w = {1, 2, 3}> {
  a = Mul(x, w)
  b = Relu(a)
  y = If(c) <
    then_branch = t () => (t_out) { t1 = Neg(b) t_out = Abs(t1) },
    else_branch = e () => (e_out) { e_out = Identity(b) }
  >
  z = local.Scale <alpha = 2.0> (b)
}
<domain: "local", opset_import: ["": 18]>
Scale <alpha: float = 1.0> (p) => (q) {
  k = Constant <value_float: float = @alpha> ()
  m = Mul(p, k)
  q = Relu(m)
}
"#;

/// The corpus directory (`GRAFT_CORPUS`, else `target/corpus`), if it is complete. A
/// test without it skips, unless `GRAFT_REQUIRE_CORPUS` is set (as `cargo xtask
/// test` sets it): then it fails, so that no test passes without its data.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus"))
        });
    let complete = dir.join(".complete").exists();
    assert!(
        complete || std::env::var_os("GRAFT_REQUIRE_CORPUS").is_none(),
        "GRAFT_REQUIRE_CORPUS is set but {} holds no complete corpus (cargo xtask corpus)",
        dir.display()
    );
    complete.then_some(dir)
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

/// What `host` derived (the check, inference and its findings, the summary) equals
/// fresh runs on its model.
#[track_caller]
pub fn derived_is_current(host: &graft::host::Host, what: &str) {
    let m = host.model();
    let listed = |d: &mut dyn Iterator<Item = String>| {
        let mut l: Vec<String> = d.collect();
        l.sort();
        l
    };
    assert_eq!(
        listed(
            &mut host
                .checked()
                .diagnostics()
                .iter()
                .map(|d| format!("{d:?}"))
        ),
        listed(&mut graft::check::check(m).iter().map(|d| format!("{d:?}"))),
        "{what}: the check kept current vs fresh"
    );
    let fresh = graft::infer::infer(m);
    for (v, value) in m.values.iter() {
        let show = |i: &graft::infer::Inferred| i.get(v).map(|t| t.to_string());
        assert_eq!(
            show(host.inferred()),
            show(&fresh),
            "{what}: the type of {:?} kept current vs fresh",
            value.name
        );
    }
    assert_eq!(
        listed(&mut host.inferred().diagnostics.iter().map(|d| d.to_string())),
        listed(&mut fresh.diagnostics.iter().map(|d| d.to_string())),
        "{what}: inference's findings"
    );
    let mut diagnostics = host.imported().to_vec();
    diagnostics.extend(host.checked().diagnostics().iter().cloned());
    assert_eq!(
        format!("{:?}", host.summary()),
        format!("{:?}", graft::Summary::of(m, &diagnostics)),
        "{what}: the summary"
    );
}
