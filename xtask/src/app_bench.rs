//! `cargo xtask bench-app`: the browser benchmark (tests/app_bench.rs). Builds the app
//! if `dist/` is missing, fetches Netron's wheel from PyPI and unpacks its static site
//! under `target/netron` (once), then runs the benchmark in release mode. Results go to
//! `target/bench/app.json`, `app.md` and `shots/`.
//!
//! With `GRAFT_APP_BENCH_SCALE=1` it measures the scale models instead (200k nodes; 1 GB
//! of weights, embedded and external), written under `target/scale` by
//! `tests/interop/scale_models.py` when missing, and times the edits on the 200k one.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::tools;

/// The Netron release the benchmark compares against.
pub const NETRON_VERSION: &str = "9.3.3";

/// Model Explorer and its ONNX adapter, the other peer, from PyPI.
const MODEL_EXPLORER: &[&str] = &[
    "ai-edge-model-explorer==0.1.34",
    "model-explorer-onnx==0.4.2",
];

pub fn run(root: &Path) -> Result<(), String> {
    if !root.join("dist/index.html").is_file() {
        crate::trunk_build(root)?;
    }
    tools::chromium()?;
    let python = match std::env::var_os("GRAFT_PYTHON") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => tools::venv(root)?,
    };
    let netron = netron(root, &python)?;
    let corpus = match std::env::var_os("GRAFT_CORPUS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => crate::corpus(root)?,
    };
    println!(
        "== bench-app: Graft (dist/) against Netron {NETRON_VERSION} and Model Explorer, corpus {}",
        corpus.display()
    );
    let mut bench = Command::new("cargo");
    bench.env("GRAFT_MODEL_EXPLORER", model_explorer(root)?);
    if std::env::var("GRAFT_APP_BENCH_SCALE").is_ok_and(|v| v == "1") {
        let models = scale_models(root, &python)?;
        bench
            .env("GRAFT_APP_BENCH_MODELS", models.join(","))
            .env("GRAFT_APP_BENCH_INTERACT", "scale_200k")
            .env("GRAFT_APP_BENCH_OUT", root.join("target/bench/scale"));
    }
    crate::run(
        bench
            .args([
                "test",
                "--release",
                "-p",
                "graft-tests",
                "--test",
                "app_bench",
            ])
            .env("GRAFT_APP_BENCH", "1")
            .env("GRAFT_CORPUS", &corpus)
            .env("GRAFT_NETRON", &netron)
            .current_dir(root),
    )
}

/// Model Explorer's `model-explorer` program, in its own venv under
/// `target/me-venv` (its dependencies are not the interop venv's), installed when the
/// pins change.
fn model_explorer(root: &Path) -> Result<PathBuf, String> {
    let dir = root.join("target/me-venv");
    let pins: Vec<&std::ffi::OsStr> = MODEL_EXPLORER.iter().map(|p| p.as_ref()).collect();
    tools::pinned_venv(&dir, &MODEL_EXPLORER.join("\n"), &pins)?;
    Ok(dir.join("bin/model-explorer"))
}

/// Writes the scale models under `target/scale` (the script keeps those up to date)
/// and gives their paths.
fn scale_models(root: &Path, python: &Path) -> Result<Vec<String>, String> {
    let dir = root.join("target/scale");
    crate::run(
        Command::new(python)
            .arg(root.join("tests/interop/scale_models.py"))
            .arg(&dir),
    )?;
    Ok(
        ["scale_200k.onnx", "scale_1g.onnx", "scale_1g_external.onnx"]
            .iter()
            .map(|name| dir.join(name).display().to_string())
            .collect(),
    )
}

/// Netron's static site (the directory with `index.html`), unpacked from its PyPI
/// wheel; downloads the wheel only when it is missing.
fn netron(root: &Path, python: &Path) -> Result<PathBuf, String> {
    let dir = root.join("target/netron");
    let unpacked = dir.join("unpacked");
    let site = unpacked.join("netron");
    let marker = format!("<meta name=\"version\" content=\"{NETRON_VERSION}\">");
    let current = |site: &Path| {
        std::fs::read_to_string(site.join("index.html")).is_ok_and(|html| html.contains(&marker))
    };
    if current(&site) {
        return Ok(site);
    }
    let wheel = dir.join(format!("netron-{NETRON_VERSION}-py3-none-any.whl"));
    if !wheel.is_file() {
        println!("downloading netron {NETRON_VERSION} from PyPI");
        crate::run(
            Command::new(python)
                .args([
                    "-m",
                    "pip",
                    "download",
                    "--disable-pip-version-check",
                    "--no-deps",
                    "--only-binary=:all:",
                    &format!("netron=={NETRON_VERSION}"),
                    "-d",
                ])
                .arg(&dir),
        )?;
    }
    if unpacked.exists() {
        std::fs::remove_dir_all(&unpacked).map_err(|e| format!("{}: {e}", unpacked.display()))?;
    }
    // A wheel is a zip file; Python's zipfile unpacks it without another tool.
    crate::run(
        Command::new(python)
            .args(["-m", "zipfile", "-e"])
            .arg(&wheel)
            .arg(&unpacked),
    )?;
    if !current(&site) {
        return Err(format!(
            "{} holds no Netron {NETRON_VERSION} site at netron/index.html",
            wheel.display()
        ));
    }
    Ok(site)
}
