//! `cargo xtask <command>`: the project's tooling. README.md documents the two set-up
//! commands (`serve`, `test`); the others are for development.

mod app_bench;
mod codegen;
mod ops;
mod schemas;
mod tools;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

const USAGE: &str = "usage: cargo xtask <command>

  serve [--port N]   install what is missing, build the app, serve it on 127.0.0.1
  test               everything CI checks
  corpus             generate the test models under target/corpus (cached)
  bench              run the benchmarks and measure the peers in the same run
  bench-app          time opening models in the app and in Netron, in headless Chromium
  bench-run          time running models in the app (onnxruntime-web) against onnxruntime
  codegen [--check]  regenerate (or check) the code generated from onnx.proto
  schemas [--check]  regenerate (or check) the operator schemas dumped from onnx
  ops [--check]      regenerate (or check) the builder's operator sets (from the schemas)
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen::run(&root, flag("--check")),
        Some("schemas") => schemas::run(&root, flag("--check")),
        Some("ops") => ops::run(&root, flag("--check")),
        Some("corpus") => corpus(&root).map(|_| ()),
        Some("test") => test(&root),
        Some("serve") => {
            let port = args
                .iter()
                .position(|a| a == "--port")
                .and_then(|i| args.get(i + 1))
                .and_then(|p| p.parse().ok())
                .unwrap_or(8080);
            serve(&root, port)
        }
        Some("bench") => bench(&root),
        Some("bench-app") => app_bench::run(&root),
        Some("bench-run") => bench_run(&root),
        _ => {
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs a command, inheriting stdio; an unsuccessful exit is an error.
pub(crate) fn run(cmd: &mut Command) -> Result<(), String> {
    let shown = format!("{cmd:?}");
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {shown}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({status})"))
    }
}

/// The stdout of a command, or `None` if it cannot run or fails.
pub(crate) fn sh_output(program: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// Generates (or finds up to date) the test corpus; returns its directory.
fn corpus(root: &Path) -> Result<PathBuf, String> {
    let python = tools::venv(root)?;
    let dir = root.join("target/corpus");
    run(Command::new(python)
        .arg(root.join("tests/interop/corpus.py"))
        .arg(&dir))?;
    Ok(dir)
}

/// Builds the app into dist/, with onnxruntime-web copied into dist/ort/ (trunk
/// empties dist/ first). The runtime loads only when the user first runs a model.
fn trunk_build(root: &Path) -> Result<(), String> {
    tools::web(root)?;
    let ort = tools::ort_web(root)?;
    run(Command::new("trunk")
        .args(["build", "--release", "--offline"])
        .current_dir(root))?;
    let into = root.join("dist/ort");
    std::fs::create_dir_all(&into).map_err(|e| format!("{}: {e}", into.display()))?;
    for entry in std::fs::read_dir(&ort).map_err(|e| format!("{}: {e}", ort.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        std::fs::copy(entry.path(), into.join(entry.file_name()))
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
    }
    Ok(())
}

fn serve(root: &Path, port: u16) -> Result<(), String> {
    trunk_build(root)?;
    let dist = root.join("dist");
    let (addr, handle) = graft_tests::serve::serve_dir(&dist, port)
        .map_err(|e| format!("cannot serve {} on 127.0.0.1:{port}: {e}", dist.display()))?;
    println!("Graft is served at http://{addr}/ (Ctrl+C stops it)");
    handle
        .join()
        .map_err(|_| "the server thread stopped unexpectedly".to_string())
}

/// Everything CI checks, in the order that fails fastest.
fn test(root: &Path) -> Result<(), String> {
    let started = Instant::now();
    let step = |name: &str| println!("\n== xtask test: {name} ({:.0?} so far)", started.elapsed());
    let cargo = || {
        let mut c = Command::new("cargo");
        c.current_dir(root);
        c
    };

    step("format");
    run(cargo().args(["fmt", "--all", "--check"]))?;
    step("generated code is current");
    codegen::run(root, true)?;
    schemas::run(root, true)?;
    ops::run(root, true)?;
    step("clippy (native)");
    run(cargo().args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]))?;
    step("clippy (wasm32: core, layout and app)");
    tools::web(root)?;
    run(cargo().args([
        "clippy",
        "--target",
        "wasm32-unknown-unknown",
        "-p",
        "graft",
        "-p",
        "graft-layout",
        "-p",
        "graft-web",
        "--",
        "-D",
        "warnings",
    ]))?;
    step("the core depends on no web crate");
    let tree = sh_output(
        "cargo",
        &[
            "tree", "-p", "graft", "--edges", "normal", "--prefix", "none",
        ],
    )
    .ok_or("cargo tree -p graft failed")?;
    for web in ["wasm-bindgen", "web-sys", "js-sys", "leptos"] {
        if tree.lines().any(|l| l.starts_with(&format!("{web} "))) {
            return Err(format!(
                "crates/graft depends on {web}: the core must stay pure"
            ));
        }
    }
    step("corpus");
    let corpus_dir = corpus(root)?;
    let python = tools::venv(root)?;
    step("trunk build");
    trunk_build(root)?;
    tools::chromium()?;
    step("cargo test (unit, conformance, interop)");
    run(cargo()
        .args(["test", "--workspace", "--all-targets"])
        .env("GRAFT_REQUIRE_CORPUS", "1")
        .env("GRAFT_CORPUS", &corpus_dir)
        .env("GRAFT_PYTHON", &python))?;
    // The browser tests are #[ignore]d in a plain `cargo test` (shown as ignored, not
    // passed); here they run.
    step("browser tests (headless Chromium)");
    run(cargo()
        .args([
            "test",
            "-p",
            "graft-tests",
            "--test",
            "browser",
            "--",
            "--ignored",
        ])
        .env("GRAFT_CORPUS", &corpus_dir)
        .env("GRAFT_PYTHON", &python))?;
    step("doc tests");
    run(cargo().args(["test", "--doc", "-p", "graft"]))?;
    step("interop: round trip compared by onnx ==");
    run(Command::new(&python)
        .arg(root.join("tests/interop/check_roundtrip.py"))
        .arg(&corpus_dir)
        .arg(root.join("target/interop/roundtrip"))
        .arg("--allow")
        .arg(root.join("tests/interop/roundtrip_allowlist.txt")))?;
    step("interop: the 60 acceptance cases in onnx.parser, onnx.checker and onnxruntime");
    run(Command::new(&python)
        .arg(root.join("tests/interop/cases.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft")))?;
    step("interop: opset adapters on the backend node tests, converted to opset 21 (onnxruntime)");
    run(Command::new(&python)
        .arg(root.join("tests/interop/opset_backend.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft"))
        .arg("--node")
        .arg(corpus_dir.join("node"))
        .arg("--out")
        .arg(root.join("target/interop/opset_backend")))?;
    step("interop: calls specialized into overloads, original against result (onnxruntime)");
    run(Command::new(&python)
        .arg(root.join("tests/interop/specialize_numerics.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft"))
        .arg("--fixtures"))?;
    step("interop: function calls inlined, original against result (onnxruntime)");
    run(Command::new(&python)
        .arg(root.join("tests/interop/library_numerics.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft"))
        .arg("--fixtures")
        .arg("--corpus")
        .arg(&corpus_dir))?;
    step("interop: standard ops expanded into their function bodies, against the op (onnxruntime)");
    run(Command::new(&python)
        .arg(root.join("tests/interop/standard_bodies.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft")))?;
    step("interop: context-dependent bodies built by graft against onnx's own (onnxruntime)");
    run(Command::new(&python)
        .arg(root.join("tests/interop/standard_numerics.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft")))?;
    step(
        "interop: inferred types and shapes against onnx.shape_inference (data_prop) over the corpus",
    );
    run(Command::new(&python)
        .arg(root.join("tests/interop/infer_diff.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft"))
        .arg("--corpus")
        .arg(&corpus_dir))?;
    step("interop: graft::builder side by side with spox (onnxruntime)");
    run(cargo().args(["build", "-p", "graft", "--example", "builder_models"]))?;
    run(Command::new(&python)
        .arg(root.join("tests/interop/spox_side_by_side.py"))
        .arg("--example")
        .arg(root.join("target/debug/examples/builder_models"))
        .arg("--out")
        .arg(root.join("target/interop/spox")))?;
    step("interop: inlined models against host and guest run separately (onnxruntime)");
    run(Command::new(&python)
        .arg(root.join("tests/interop/inline_verify.py"))
        .arg("--graft")
        .arg(root.join("target/debug/graft"))
        .arg("--corpus")
        .arg(&corpus_dir)
        .arg("--examples")
        .arg(root.join("assets/examples"))
        .arg("--out")
        .arg(root.join("target/interop/inline")))?;
    println!(
        "\nxtask test: everything passed in {:.0?}",
        started.elapsed()
    );
    Ok(())
}

/// The in-browser run benchmark (tests/run_bench.rs): the app's Run against
/// onnxruntime in Python, in one run. Builds the app first.
fn bench_run(root: &Path) -> Result<(), String> {
    trunk_build(root)?;
    tools::chromium()?;
    let corpus_dir = corpus(root)?;
    let python = tools::venv(root)?;
    run(Command::new("cargo")
        .current_dir(root)
        .args([
            "test",
            "--release",
            "-p",
            "graft-tests",
            "--test",
            "run_bench",
        ])
        .env("GRAFT_RUN_BENCH", "1")
        .env("GRAFT_CORPUS", &corpus_dir)
        .env("GRAFT_PYTHON", &python))
}

/// Criterion benchmarks of the core, and the peers measured in the same run.
fn bench(root: &Path) -> Result<(), String> {
    let corpus_dir = corpus(root)?;
    let python = tools::venv(root)?;
    let generated = corpus_dir.join("generated");
    let files: Vec<PathBuf> = ["large_10k.onnx", "large_50k.onnx"]
        .iter()
        .map(|f| generated.join(f))
        .collect();
    println!("== peer: Python onnx (load, save, checker) and peak memory");
    let peer_json = root.join("target/bench/peer.json");
    std::fs::create_dir_all(root.join("target/bench")).map_err(|e| e.to_string())?;
    run(Command::new(&python)
        .arg(root.join("tests/interop/peer_bench.py"))
        .args(&files)
        .arg("--json")
        .arg(&peer_json))?;
    println!(
        "{}",
        std::fs::read_to_string(&peer_json).unwrap_or_default()
    );
    println!("== graft: peak memory of `graft info` (import only)");
    run(Command::new("cargo")
        .args(["build", "--release", "-p", "graft-cli"])
        .current_dir(root))?;
    for file in &files {
        let out = Command::new(root.join("target/release/graft"))
            .arg("info")
            .arg(file)
            .env("GRAFT_REPORT_PEAK_MEMORY", "1")
            .output()
            .map_err(|e| e.to_string())?;
        let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        println!(
            "{}: file {size} bytes; {}",
            file.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    println!("== graft check against onnx.checker.check_model (check_s in peer.json above)");
    for file in &files {
        // The whole process, as a user runs it: start, read, import, check, print.
        let mut times = Vec::new();
        for _ in 0..15 {
            let start = Instant::now();
            Command::new(root.join("target/release/graft"))
                .arg("check")
                .arg(file)
                .output()
                .map_err(|e| e.to_string())?;
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{}: graft check min {:.1} ms, median {:.1} ms",
            file.display(),
            times[0],
            times[times.len() / 2]
        );
    }
    println!("== inline into itself: peers (onnx.compose, spox), merge time and peak memory");
    let inline_json = root.join("target/bench/inline_peer.json");
    run(Command::new(&python)
        .arg(root.join("tests/interop/inline_bench.py"))
        .args(&files)
        .arg("--json")
        .arg(&inline_json))?;
    println!("== graft inline FILE FILE: whole process (read, inline, write) and peak memory");
    for file in &files {
        let out = root.join("target/bench/inlined.onnx");
        let start = Instant::now();
        let run_out = Command::new(root.join("target/release/graft"))
            .arg("inline")
            .arg(file)
            .arg(file)
            .arg("-o")
            .arg(&out)
            .args(["--prefix", "g"])
            .env("GRAFT_REPORT_PEAK_MEMORY", "1")
            .output()
            .map_err(|e| e.to_string())?;
        let elapsed = start.elapsed();
        let size = std::fs::metadata(file).map(|m| m.len()).unwrap_or(0);
        println!(
            "{}: two inputs {} bytes; {:.0?}; {}",
            file.display(),
            2 * size,
            elapsed,
            String::from_utf8_lossy(&run_out.stderr).trim()
        );
        let _ = std::fs::remove_file(&out);
    }
    println!("== inline every local function call: peer onnx.inliner on called_300.onnx");
    run(Command::new(&python)
        .arg(root.join("tests/interop/inliner_bench.py"))
        .arg(generated.join("called_300.onnx")))?;
    println!("== graft: criterion");
    for bench in ["codec", "inline", "library"] {
        run(Command::new("cargo")
            .args(["bench", "-p", "graft", "--bench", bench])
            .env("GRAFT_CORPUS", &corpus_dir)
            .current_dir(root))?;
    }
    println!("== inline every local function call: peer onnx.inliner on the library bench's chain");
    let chain = root.join("target/bench/chain_250x40.onnx");
    run(Command::new(root.join("target/release/graft"))
        .arg("parse")
        .arg(root.join("target/bench/chain_250x40.onnxtxt"))
        .arg("--output")
        .arg(&chain))?;
    run(Command::new(&python)
        .arg(root.join("tests/interop/inliner_bench.py"))
        .arg(&chain)
        .args(["--runs", "30"]))?;
    Ok(())
}
