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

/// onnxruntime-web, pinned: the runtime the app's Run tab loads on the first run.
pub const ORT_WEB_VERSION: &str = "1.31.1";
/// The npm tarball's SHA-1 (`npm view onnxruntime-web@1.31.1 dist.shasum`).
const ORT_WEB_SHASUM: &str = "309e196c733e90a038e0380867dde308a994de92";
/// What the app serves of it: the wasm-only ES module and its single-threaded-capable
/// wasm build (the other builds, WebGPU and WebGL, are left out).
pub const ORT_WEB_FILES: &[&str] = &[
    "ort.wasm.min.mjs",
    "ort-wasm-simd-threaded.mjs",
    "ort-wasm-simd-threaded.wasm",
];

/// onnxruntime-web's files from npm, fetched once into target/tools and checked
/// against the pinned checksum; gives their directory.
pub fn ort_web(root: &Path) -> Result<std::path::PathBuf, String> {
    let dir = root.join(format!("target/tools/onnxruntime-web-{ORT_WEB_VERSION}"));
    if ORT_WEB_FILES.iter().all(|f| dir.join(f).exists()) {
        return Ok(dir);
    }
    println!("fetching onnxruntime-web {ORT_WEB_VERSION} from npm");
    let work = root.join("target/tools/npm-pack");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
    run(Command::new("npm")
        .args([
            "pack",
            "--silent",
            &format!("onnxruntime-web@{ORT_WEB_VERSION}"),
        ])
        .current_dir(&work))?;
    let tarball = work.join(format!("onnxruntime-web-{ORT_WEB_VERSION}.tgz"));
    let sum = Command::new("sha1sum")
        .arg(&tarball)
        .output()
        .map_err(|e| format!("sha1sum: {e}"))?;
    let sum = String::from_utf8_lossy(&sum.stdout);
    if sum.split_whitespace().next() != Some(ORT_WEB_SHASUM) {
        return Err(format!(
            "{}: checksum {sum} is not the pinned {ORT_WEB_SHASUM}",
            tarball.display()
        ));
    }
    run(Command::new("tar")
        .arg("xzf")
        .arg(&tarball)
        .current_dir(&work))?;
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for f in ORT_WEB_FILES {
        let from = work.join("package/dist").join(f);
        std::fs::copy(&from, dir.join(f)).map_err(|e| format!("{}: {e}", from.display()))?;
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(dir)
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
