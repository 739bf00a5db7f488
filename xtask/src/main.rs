//! `cargo xtask <command>`: the project's tooling. See README.md for the two set-up
//! commands; the others are for development.

mod codegen;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask <command>

  serve [--port N]   install what is missing, build the app, serve it on 127.0.0.1
  test               everything CI checks
  corpus             generate the test models under target/corpus (cached)
  bench              run the benchmarks and the peer measurements
  codegen [--check]  regenerate (or check) code generated from onnx.proto
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    let result = match args.first().map(String::as_str) {
        Some("codegen") => codegen::run(&root, args.iter().any(|a| a == "--check")),
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
