//! `cargo xtask schemas [--check]`: the operator schema registry the core embeds,
//! written from the pinned onnx package by `tests/interop/dump_schemas.py`.
//!
//! The file is committed, so building Graft needs neither Python nor onnx; `--check`
//! (run by `cargo xtask test`) fails when it is stale.

use std::path::Path;
use std::process::Command;

use crate::{run as run_cmd, tools};

const OUT: &str = "crates/graft/src/schema/onnx-1.23.2.schemas";

pub fn run(root: &Path, check: bool) -> Result<(), String> {
    let python = tools::venv(root)?;
    let tmp_dir = root.join("target/schemas");
    std::fs::create_dir_all(&tmp_dir).map_err(|e| format!("{}: {e}", tmp_dir.display()))?;
    let tmp = tmp_dir.join("onnx.schemas");
    run_cmd(
        Command::new(python)
            .arg(root.join("tests/interop/dump_schemas.py"))
            .arg(&tmp),
    )?;
    let fresh = std::fs::read(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    let out = root.join(OUT);
    if std::fs::read(&out).ok().as_deref() == Some(fresh.as_slice()) {
        return Ok(());
    }
    if check {
        return Err(format!("{OUT} is stale; run `cargo xtask schemas`"));
    }
    std::fs::write(&out, fresh).map_err(|e| format!("{}: {e}", out.display()))?;
    println!("wrote {OUT}");
    Ok(())
}
