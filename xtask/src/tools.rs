//! Installing what the build and tests need, only when the right version is missing.
//! Every tool comes from a registry this machine reaches (rustup's target, crates.io,
//! PyPI, Debian); nothing downloads its own binaries.

use std::path::Path;
use std::process::Command;

use crate::{run, sh_output};

pub const TRUNK_VERSION: &str = "0.21.14";

/// The wasm32 target, trunk, and the wasm-bindgen CLI matching Cargo.lock.
pub fn web(root: &Path) -> Result<(), String> {
    let targets = sh_output("rustup", &["target", "list", "--installed"]).unwrap_or_default();
    if !targets
        .lines()
        .any(|l| l.trim() == "wasm32-unknown-unknown")
    {
        run(Command::new("rustup").args(["target", "add", "wasm32-unknown-unknown"]))?;
    }
    let trunk = sh_output("trunk", &["--version"]).unwrap_or_default();
    if !trunk.contains(TRUNK_VERSION) {
        println!("installing trunk {TRUNK_VERSION} (about 15 minutes on 2 cores)");
        run(Command::new("cargo").args([
            "install",
            "--locked",
            &format!("trunk@{TRUNK_VERSION}"),
        ]))?;
    }
    let wanted = locked_version(root, "wasm-bindgen")?;
    let have = sh_output("wasm-bindgen", &["--version"]).unwrap_or_default();
    if !have.split_whitespace().any(|w| w == wanted) {
        println!("installing wasm-bindgen-cli {wanted} (about 4 minutes)");
        // Not --locked: the CLI's own lock file names a crate version the registry lacks.
        run(Command::new("cargo").args(["install", &format!("wasm-bindgen-cli@{wanted}")]))?;
    }
    Ok(())
}

/// Debian's Chromium and its WebDriver, for the browser tier.
pub fn chromium() -> Result<(), String> {
    if Path::new("/usr/bin/chromium").exists() && Path::new("/usr/bin/chromedriver").exists() {
        return Ok(());
    }
    println!("installing chromium and chromium-driver from Debian");
    run(Command::new("apt-get").arg("update"))?;
    run(Command::new("apt-get").args(["install", "-y", "chromium", "chromium-driver"]))
}

/// The interop venv under target/, rebuilt when the pinned requirements change.
pub fn venv(root: &Path) -> Result<std::path::PathBuf, String> {
    let requirements = root.join("tests/interop/requirements.txt");
    let wanted = std::fs::read_to_string(&requirements)
        .map_err(|e| format!("{}: {e}", requirements.display()))?;
    pinned_venv(
        &root.join("target/venv"),
        &wanted,
        &["-r".as_ref(), requirements.as_os_str()],
    )
}

/// A venv at `dir` with what `install` (pip install's arguments) names, made again
/// when `wanted` (the pins as they read) differs from what it was made with; gives
/// its python.
pub fn pinned_venv(
    dir: &Path,
    wanted: &str,
    install: &[&std::ffi::OsStr],
) -> Result<std::path::PathBuf, String> {
    let python = dir.join("bin/python");
    let stamp = dir.join("requirements.installed");
    if python.exists() && std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted) {
        return Ok(python);
    }
    println!("creating the venv at {}", dir.display());
    run(Command::new("python3")
        .args(["-m", "venv", "--clear"])
        .arg(dir))?;
    run(Command::new(&python)
        .args([
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
        ])
        .args(install))?;
    std::fs::write(&stamp, wanted).map_err(|e| format!("{}: {e}", stamp.display()))?;
    Ok(python)
}

/// The version of a package in Cargo.lock.
fn locked_version(root: &Path, package: &str) -> Result<String, String> {
    let lock =
        std::fs::read_to_string(root.join("Cargo.lock")).map_err(|e| format!("Cargo.lock: {e}"))?;
    let needle = format!("name = \"{package}\"\nversion = \"");
    let start = lock
        .find(&needle)
        .ok_or_else(|| format!("{package} is not in Cargo.lock"))?
        + needle.len();
    let end = lock[start..].find('"').ok_or("malformed Cargo.lock")? + start;
    Ok(lock[start..end].to_string())
}
