//! The browser benchmark: how long, in headless Chromium on this machine, from "file
//! chosen" to "graph drawn", for Graft's app and for Netron 9.3.3 on the same files in
//! the same run, and how much memory the page's renderer process holds once the graph
//! is drawn. For Graft on the 50k-node model it also times expanding one section, the
//! frame rate of a drag, and edits made in the node editor with their undos (Ctrl+Z),
//! each from the handler to the next frame painted (`edit_ms`, `undo_ms`), and a
//! comparison with the model as opened (`compare_ms`).
//!
//! Does nothing unless `GRAFT_APP_BENCH=1` (`cargo xtask bench-app` sets it), so `cargo
//! test` stays fast. Settings, all optional:
//!
//! - `GRAFT_APP_BENCH_MODELS`: comma-separated model paths (absolute, or relative to the
//!   corpus directory `GRAFT_CORPUS`); default: the generated models and two real ones;
//!   `none`: only the wasm layout and live specialization figures.
//! - `GRAFT_APP_BENCH_RUNS`: runs per model and app (default 3), a fresh browser each.
//! - `GRAFT_DIST`: the built app (default `dist/`).
//! - `GRAFT_NETRON`: Netron's static directory, the one with `index.html` (default
//!   `target/netron/unpacked/netron`, which `cargo xtask bench-app` fills from the wheel).
//! - `GRAFT_APP_BENCH_INTERACT`: comma-separated parts of file names whose models also
//!   get Graft's interaction timings (default `large_50k`).
//! - `GRAFT_APP_BENCH_OUT`: where `app.json` and `shots/` go (default `target/bench`).
//! - `GRAFT_APP_BENCH_PROFILE=1`: also record a CPU profile of the live specialization
//!   edits (`specialize.cpuprofile`, for Chromium's DevTools) and print the page's
//!   script, style and layout time per edit.
//!
//! How "drawn" is detected, in the page, by a `requestAnimationFrame` loop started just
//! before the file is chosen (t0 = `performance.now()` there):
//!
//! - Graft: `window.__graftReady === true` again (the bench sets it to false and marks
//!   the startup example's boxes as stale before choosing) and the graph SVG holds a
//!   `g[data-item]` that is not one of the stale boxes.
//! - Netron: `<body>` has the class `default` (Netron's `View.show(null)` after
//!   `render` returns) and `#canvas` holds a `.graph-node` or `.graph-input`; its error
//!   dialog (`<body class="alert">`) is reported as an error.
//!
//! t1 is `performance.now()` in the animation frame after the one that saw the graph,
//! so that frame has been painted. A run that is not drawn within 120 s "did not
//! finish"; a WebDriver error other than a timeout means the tab "crashed".
//!
//! Live specialization (issue 6): the bundled `live_specialization.onnx`, its call
//! `tower` opened (a 280-node function; 205 nodes once specialized) and the graph
//! fitted to the screen, so that the whole body is drawn each time; then its attribute
//! `mode` typed into the call editor [`SPECIALIZE_EDITS`] times, alternating 0 and 1
//! (one more edit first, not counted), in each of `GRAFT_APP_BENCH_RUNS` fresh browsers. Each edit is timed by the app
//! (`specialize_ms`: from the change handler to a zero-delay timeout queued in the next
//! animation frame, i.e. once that frame's style, layout and paint are done;
//! `edit_sync_ms`: its synchronous part, the model edited, checked, its view
//! built and laid out) and by the page itself (from the `change` event, seen by a
//! capturing listener, to the same point after the canvas's first DOM mutation).

use std::collections::{HashMap, HashSet};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::{Value, json};

use graft_tests::corpus::root;
use graft_tests::serve::serve_dir;
use graft_tests::webdriver::Browser;

/// How long one model gets to be drawn.
const RUN_TIMEOUT: Duration = Duration::from_secs(120);
/// How long an app gets to start (Graft: its startup example drawn; Netron: its welcome
/// screen).
const START_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest one WebDriver script may block: polls return to the loop this often
/// even when the page is busy.
const SCRIPT_TIMEOUT_MS: u64 = 10_000;

/// The default models, relative to the corpus directory.
const DEFAULT_MODELS: &[&str] = &[
    "real/silero-vad/silero_vad/data/silero_vad.onnx",
    "real/rapidocr-onnxruntime/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
    "real/rapidocr-onnxruntime/rapidocr_onnxruntime/models/ch_PP-OCRv4_det_infer.onnx",
    "real/rapidocr-onnxruntime/rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
    "real/onnx-asr/onnx_asr/preprocessors/data/nemo128_conv.onnx",
    "generated/shared_984.onnx",
    "generated/shared_3k.onnx",
    "generated/large_10k.onnx",
    "generated/large_10k_external.onnx",
    "generated/large_50k.onnx",
];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum App {
    Graft,
    Netron,
    ModelExplorer,
}

impl App {
    fn name(self) -> &'static str {
        match self {
            App::Graft => "graft",
            App::Netron => "netron",
            App::ModelExplorer => "explorer",
        }
    }

    /// The name in the tables.
    fn title(self) -> &'static str {
        match self {
            App::Graft => "Graft",
            App::Netron => "Netron",
            App::ModelExplorer => "Model Explorer",
        }
    }
}

/// Model Explorer's server (`model-explorer --extensions model_explorer_onnx`), which
/// the page uploads each model to; stopped when dropped.
struct ExplorerServer {
    child: std::process::Child,
    addr: SocketAddr,
}

impl ExplorerServer {
    fn start(program: &Path) -> Result<ExplorerServer, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let child = Command::new(program)
            .args(["--host", "127.0.0.1", "--port", &port.to_string()])
            .args([
                "--no_open_in_browser",
                "--extensions",
                "model_explorer_onnx",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", program.display()))?;
        let server = ExplorerServer {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], port)),
        };
        let deadline = Instant::now() + START_TIMEOUT;
        while std::net::TcpStream::connect(server.addr).is_err() {
            if Instant::now() > deadline {
                return Err(format!("Model Explorer did not listen on {}", server.addr));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(server)
    }
}

impl Drop for ExplorerServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One model to open, and the files chosen with it (its external data files).
struct Model {
    name: String,
    path: PathBuf,
    files: Vec<PathBuf>,
    bytes: u64,
    nodes: Option<usize>,
}

/// What one run measured.
#[derive(Default)]
struct Run {
    /// "ok", "did not finish", "crashed" or "error".
    status: String,
    detail: String,
    /// t1 - t0, and when the file input's `change` event fired after t0.
    ms: Option<f64>,
    change_ms: Option<f64>,
    rss_mb: Option<f64>,
    hwm_mb: Option<f64>,
    /// The renderer's resident set again after a forced garbage collection: what the
    /// page holds, without the garbage the collector had not yet reclaimed.
    gc_rss_mb: Option<f64>,
    js_heap_mb: Option<f64>,
    renderers: usize,
    wall_s: f64,
    /// Main-thread long tasks (over 50 ms, the browser's `longtask` entries) from t0 to
    /// the model drawn: the longest, and how many.
    longest_task_ms: Option<f64>,
    long_tasks: u64,
    /// The page's main-thread busy time from t0 to the model drawn (CDP
    /// `Performance.getMetrics` `TaskDuration`, before and after), in milliseconds: a
    /// Web Worker's time is not in it.
    main_thread_ms: Option<f64>,
    /// Graft: the time of each stage of the open, as the app publishes them
    /// (`open_read_ms`, `open_decode_ms`…), and of the page's start (`page_…`: when the
    /// wasm was downloaded, when `main` ran, when the startup example was drawn; from
    /// the navigation), in milliseconds; for every app, how the main-thread time splits
    /// (`main_script_ms`, `main_style_ms`, `main_layout_ms`; the rest is painting,
    /// parsing and the browser's own work).
    stages: Vec<(String, f64)>,
}

/// Graft's interactions on one model, one run.
#[derive(Default)]
struct Interaction {
    expand_ms: Option<f64>,
    items_before: u64,
    items_after: u64,
    idle_fps: Option<f64>,
    pan_fps: Option<f64>,
    pan_worst_frame_ms: Option<f64>,
    pan_redraws: u64,
    /// Edits through the node editor and their undos (Ctrl+Z), as the app times them.
    edit_ms: Vec<f64>,
    undo_ms: Vec<f64>,
    /// Renames of the node (the view is built again) and their undos.
    rename_ms: Vec<f64>,
    rename_undo_ms: Vec<f64>,
    /// Preview updates of the inline dialog (a new prefix typed), with the bundled
    /// MLP dropped on the open model.
    inline_preview_ms: Vec<f64>,
    /// Compare with the model as opened (one node added), to the marks painted.
    compare_ms: Vec<f64>,
    /// Compare with a file of the model with 1% of its nodes changed, from the file
    /// chosen to the marks painted.
    compare_file_ms: Vec<f64>,
    /// Expand all (the button), to the new picture painted, the page's main-thread
    /// busy time meanwhile, and its longest task (0: none over 50 ms).
    expand_all_ms: Option<f64>,
    expand_all_main_ms: Option<f64>,
    expand_all_longest_ms: Option<f64>,
    expand_all_items: u64,
    /// A reload with `?restore` after [`RESTORE_EDITS`] edits by script: navigation to
    /// the restored model drawn.
    restore_ms: Option<f64>,
    error: String,
}

fn main() {
    if !std::env::var("GRAFT_APP_BENCH").is_ok_and(|v| v == "1") {
        eprintln!("app_bench: skipped (set GRAFT_APP_BENCH=1, or run `cargo xtask bench-app`)");
        return;
    }
    if let Err(e) = bench() {
        eprintln!("app_bench: {e}");
        std::process::exit(1);
    }
}

fn bench() -> Result<(), String> {
    let runs: usize = std::env::var("GRAFT_APP_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3)
        .max(1);
    let out_dir = env_path("GRAFT_APP_BENCH_OUT").unwrap_or_else(|| root().join("target/bench"));
    let shots = out_dir.join("shots");
    std::fs::create_dir_all(&shots).map_err(|e| format!("{}: {e}", shots.display()))?;

    let dist = env_path("GRAFT_DIST").unwrap_or_else(|| root().join("dist"));
    if !dist.join("index.html").is_file() {
        return Err(format!(
            "the app is not built at {} (run `cargo xtask bench-app`, or trunk build --release)",
            dist.display()
        ));
    }
    let netron =
        env_path("GRAFT_NETRON").unwrap_or_else(|| root().join("target/netron/unpacked/netron"));
    let netron_ok = netron.join("index.html").is_file();
    if !netron_ok {
        eprintln!(
            "app_bench: Netron is not unpacked at {} (run `cargo xtask bench-app`); \
             measuring Graft only",
            netron.display()
        );
    }
    let (graft_addr, _graft_server) =
        serve_dir(&dist, 0).map_err(|e| format!("cannot serve {}: {e}", dist.display()))?;
    let mut peers = Vec::new();
    if netron_ok {
        let (addr, _thread) =
            serve_dir(&netron, 0).map_err(|e| format!("cannot serve {}: {e}", netron.display()))?;
        peers.push((App::Netron, addr));
    }
    // Model Explorer with its ONNX adapter, when `GRAFT_MODEL_EXPLORER` names its
    // `model-explorer` program (`cargo xtask bench-app` installs it).
    let explorer = match env_path("GRAFT_MODEL_EXPLORER") {
        Some(program) => Some(ExplorerServer::start(&program)?),
        None => {
            eprintln!("app_bench: GRAFT_MODEL_EXPLORER is not set; Model Explorer is not measured");
            None
        }
    };
    if let Some(server) = &explorer {
        peers.push((App::ModelExplorer, server.addr));
    }

    let layout_md = layout_in_wasm(graft_addr)?;
    println!("\n{layout_md}");
    std::fs::write(out_dir.join("layout-wasm.md"), &layout_md)
        .map_err(|e| format!("layout-wasm.md: {e}"))?;

    let specialize_md = live_specialization(graft_addr, &out_dir, runs)?;
    println!("\n{specialize_md}");
    std::fs::write(out_dir.join("specialize.md"), &specialize_md)
        .map_err(|e| format!("specialize.md: {e}"))?;
    if std::env::var("GRAFT_APP_BENCH_MODELS").is_ok_and(|m| m.trim() == "none") {
        return Ok(());
    }

    let models = models()?;
    if models.is_empty() {
        return Err("no model files found (set GRAFT_CORPUS or GRAFT_APP_BENCH_MODELS)".into());
    }
    println!(
        "app_bench: {} models, {runs} runs each, Graft from {}, against {}",
        models.len(),
        dist.display(),
        peers
            .iter()
            .map(|(app, _)| app.title())
            .collect::<Vec<_>>()
            .join(" and "),
    );

    // The models Graft's interactions are timed on (file names containing one of these).
    let interact_with: Vec<String> = std::env::var("GRAFT_APP_BENCH_INTERACT")
        .unwrap_or_else(|_| "large_50k".into())
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let mut results = Vec::new();
    for model in &models {
        println!(
            "\n== {} ({:.1} MB, {} nodes)",
            model.name,
            mb(model.bytes),
            model.nodes.map_or("?".to_string(), |n| n.to_string())
        );
        let interact = interact_with
            .iter()
            .any(|pattern| !pattern.is_empty() && model.name.contains(pattern.as_str()));
        let mut graft_runs = Vec::new();
        let mut peer_runs: Vec<(App, Vec<Run>)> =
            peers.iter().map(|&(app, _)| (app, Vec::new())).collect();
        let mut gave_up: Vec<Option<String>> = vec![None; peers.len()];
        let mut interactions = Vec::new();
        for run in 0..runs {
            let (r, inter) = measure(App::Graft, graft_addr, model, run, &shots, interact);
            print_run(App::Graft, run, &r);
            if let Some(i) = inter {
                print_interaction(run, &i);
                interactions.push(i);
            }
            graft_runs.push(r);
            for (k, &(app, addr)) in peers.iter().enumerate() {
                if let Some(status) = &gave_up[k] {
                    // A run that hit the timeout or crashed would only do so again.
                    peer_runs[k].1.push(Run {
                        status: "skipped".into(),
                        detail: format!("an earlier run: {status}"),
                        ..Run::default()
                    });
                    continue;
                }
                let (r, _) = measure(app, addr, model, run, &shots, false);
                print_run(app, run, &r);
                if r.status == "did not finish" || r.status == "crashed" {
                    gave_up[k] = Some(r.status.clone());
                }
                peer_runs[k].1.push(r);
            }
        }
        results.push(ModelResult {
            model,
            graft: graft_runs,
            peers: peer_runs,
            interactions,
        });
    }

    let table = markdown(&results);
    println!("\n{table}");
    let json = to_json(&results, runs);
    let path = out_dir.join("app.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&json).unwrap_or_default() + "\n",
    )
    .map_err(|e| format!("{}: {e}", path.display()))?;
    let md = out_dir.join("app.md");
    std::fs::write(&md, &table).map_err(|e| format!("{}: {e}", md.display()))?;
    println!("app_bench: wrote {} and {}", path.display(), md.display());
    Ok(())
}

/// The app's `?bench=layout` page: synthetic graphs laid out by graft-layout in wasm
/// (first call in a fresh page, then the median of warm calls) and a model with every
/// group expanded. Returns a markdown table.
fn layout_in_wasm(addr: SocketAddr) -> Result<String, String> {
    let browser = Browser::launch()?;
    browser.goto(&format!("http://{addr}/?bench=layout"))?;
    let started = Instant::now();
    let json = loop {
        let v = browser.execute("return window.__graftLayoutBench || null;", vec![])?;
        if let Some(text) = v.as_str() {
            break text.to_string();
        }
        if started.elapsed() > Duration::from_secs(180) {
            return Err("the wasm layout benchmark did not finish in 180 s".into());
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let rows: Vec<Value> = serde_json::from_str(&json).map_err(|e| format!("{e}: {json}"))?;
    let mut md = String::from(
        "| graph (wasm, headless Chromium) | nodes | first call ms | warm ms (median of 5) |\n|---|---:|---:|---:|\n",
    );
    for r in rows {
        let warm_up = r["warm_up_ms"]
            .as_f64()
            .map(|ms| format!(" (the warm-up took {ms:.1} ms in all)"))
            .unwrap_or_default();
        md.push_str(&format!(
            "| {}{warm_up} | {} | {:.1} | {:.1} |\n",
            r["graph"].as_str().unwrap_or("?"),
            r["nodes"],
            r["first_ms"].as_f64().unwrap_or(f64::NAN),
            r["warm_ms"].as_f64().unwrap_or(f64::NAN)
        ));
    }
    Ok(md)
}

/// How many attribute edits the live specialization figure is taken over.
const SPECIALIZE_EDITS: usize = 15;

/// What one browser's edits measured (the warm-up edit left out).
#[derive(Default)]
struct EditRun {
    app_ms: Vec<f64>,
    sync_ms: Vec<f64>,
    page_ms: Vec<f64>,
    boxes: u64,
    elements: u64,
}

/// The live specialization figure (see the module documentation): `runs` fresh
/// browsers, their edits pooled. A markdown table.
fn live_specialization(addr: SocketAddr, out_dir: &Path, runs: usize) -> Result<String, String> {
    let mut all = EditRun::default();
    for run in 0..runs {
        println!("live specialization, run {}:", run + 1);
        let r = edit_run(addr, out_dir, run)?;
        all.app_ms.extend(r.app_ms);
        all.sync_ms.extend(r.sync_ms);
        all.page_ms.extend(r.page_ms);
        (all.boxes, all.elements) = (r.boxes, r.elements);
    }
    let row = |what: &str, values: &[f64]| {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        // p90 by nearest rank.
        let rank = (sorted.len() as f64 * 0.9).ceil() as usize;
        let p90 = sorted.get(rank.saturating_sub(1)).copied();
        let f = |v: Option<f64>| v.map_or("—".to_string(), |v| format!("{v:.1}"));
        format!(
            "| {what} | {} | {} | {} | {} |\n",
            f(median(values.to_vec())),
            f(p90),
            f(sorted.first().copied()),
            f(sorted.last().copied())
        )
    };
    let EditRun {
        boxes, elements, ..
    } = all;
    let mut md = format!(
        "Re-specializing the call `tower` of `live_specialization.onnx` (a 280-node \
         function, 205 nodes once specialized; {boxes} boxes, {elements} SVG elements \
         drawn), {SPECIALIZE_EDITS} edits of `mode` in the call editor in each of {runs} \
         fresh browsers ({} edits):\n\n\
         | edit to redraw (headless Chromium, wasm) | median ms | p90 ms | min ms | max ms |\n\
         |---|---:|---:|---:|---:|\n",
        all.app_ms.len()
    );
    md.push_str(&row(
        "the app's `specialize_ms` (change handler to painted)",
        &all.app_ms,
    ));
    md.push_str(&row("its synchronous part (`edit_sync_ms`)", &all.sync_ms));
    md.push_str(&row(
        "seen by the page (change event to painted)",
        &all.page_ms,
    ));
    Ok(md)
}

/// One fresh browser: open the example, open the call, fit, edit (see the module
/// documentation). The first run may record a CPU profile.
fn edit_run(addr: SocketAddr, out_dir: &Path, run: usize) -> Result<EditRun, String> {
    let browser = Browser::launch()?;
    browser.set_viewport(1600, 1000)?;
    browser.goto(&format!(
        "http://{addr}/?model=examples/live_specialization.onnx"
    ))?;
    let poll = |what: &str, script: &str| -> Result<Value, String> {
        let started = Instant::now();
        loop {
            let v = browser.execute(script, vec![])?;
            if !v.is_null() && v != json!(false) {
                return Ok(v);
            }
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!("live specialization: {what} within 60 s"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let call = r#"[data-testid="graph"] g[data-name="tower"]"#;
    poll(
        "the model drawn",
        &format!("return window.__graftReady === true && !!document.querySelector('{call}');"),
    )?;
    let drawn = "document.querySelectorAll('[data-testid=\"graph\"] g[data-item]').length";
    let count = || -> Result<u64, String> {
        Ok(browser
            .execute(&format!("return {drawn};"), vec![])?
            .as_u64()
            .unwrap_or(0))
    };
    // Open the call, then fit the graph to the screen.
    let marker = browser
        .find(&format!("{call} [data-toggle]"))?
        .ok_or("live specialization: no expand marker on the call")?;
    let before = count()?;
    browser.click(&marker)?;
    poll(
        "the call's body drawn",
        &format!("return {drawn} > {before} + 20;"),
    )?;
    let fit = browser
        .find(r#"[data-testid="fit"]"#)?
        .ok_or("live specialization: no Fit button")?;
    let before = count()?;
    browser.click(&fit)?;
    poll(
        "the fitted graph drawn",
        &format!("return {drawn} != {before};"),
    )?;

    browser.execute(OBSERVE_EDITS, vec![])?;
    let profile = run == 0 && std::env::var("GRAFT_APP_BENCH_PROFILE").is_ok_and(|v| v == "1");
    let metrics = || -> HashMap<String, f64> {
        browser
            .cdp("Performance.getMetrics", json!({}))
            .ok()
            .and_then(|m| m["metrics"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|m| Some((m["name"].as_str()?.to_string(), m["value"].as_f64()?)))
            .collect()
    };
    let mut metrics_before = HashMap::new();
    if profile {
        browser.cdp("Performance.enable", json!({}))?;
        browser.cdp("Profiler.enable", json!({}))?;
        browser.cdp("Profiler.setSamplingInterval", json!({ "interval": 100 }))?;
        browser.cdp("Profiler.start", json!({}))?;
        metrics_before = metrics();
    }
    let mut out = EditRun::default();
    for k in 0..=SPECIALIZE_EDITS {
        // The call starts at mode = 1.
        let mode = if k % 2 == 0 { "0" } else { "1" };
        browser.execute(
            "if (window.__graftTimings) { delete window.__graftTimings.specialize_ms; } \
             window.__edit = null;",
            vec![],
        )?;
        let input = browser
            .find(r#"[data-testid="call-attr-mode"]"#)?
            .ok_or("live specialization: the call editor shows no `mode`")?;
        browser.clear(&input)?;
        browser.send_keys(&input, &format!("{mode}\u{E004}"))?;
        let v = poll(
            "an edit redrawn",
            &format!("{EDIT_DONE} return done('mode_{mode}');"),
        )?;
        if v["error"].as_str().is_some_and(|e| !e.trim().is_empty()) {
            return Err(format!("live specialization: the app says {}", v["error"]));
        }
        if v["overload"] != json!(true) {
            return Err(format!(
                "live specialization: edit {k} did not show overload mode_{mode}: {v}"
            ));
        }
        out.boxes = v["boxes"].as_u64().unwrap_or(0);
        out.elements = v["elements"].as_u64().unwrap_or(0);
        let ms = |key: &str| v[key].as_f64().unwrap_or(f64::NAN);
        println!(
            "  edit {k:>2} (mode = {mode}): {:.1} ms to painted ({:.1} ms synchronous), \
             the page saw {:.1} ms (canvas changed at {:.1}, next frame at {:.1}){}",
            ms("app"),
            ms("sync"),
            ms("page"),
            ms("mutated"),
            ms("frame"),
            if k == 0 {
                " (warm-up, not counted)"
            } else {
                ""
            }
        );
        if k > 0 {
            out.app_ms.extend(v["app"].as_f64());
            out.sync_ms.extend(v["sync"].as_f64());
            out.page_ms.extend(v["page"].as_f64());
        }
    }
    if profile {
        let after = metrics();
        for name in ["ScriptDuration", "RecalcStyleDuration", "LayoutDuration"] {
            let d = after.get(name).copied().unwrap_or(0.0)
                - metrics_before.get(name).copied().unwrap_or(0.0);
            let per_edit = d * 1e3 / (SPECIALIZE_EDITS + 1) as f64;
            println!("  {name}: {per_edit:.1} ms per edit (polls included)");
        }
        let result = browser.cdp("Profiler.stop", json!({}))?;
        let path = out_dir.join("specialize.cpuprofile");
        std::fs::write(&path, result["profile"].to_string())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        println!("  CPU profile of the edits: {}", path.display());
    }
    if run == 0 {
        let _ = browser.screenshot(&out_dir.join("shots/graft-live-specialization.png"));
    }
    Ok(out)
}

/// Watches the call editor's `mode` field and the canvas: `window.__edit` gets `t0` at
/// the `change` event (capturing, before the app's handler), and `painted` from a
/// zero-delay timeout queued by the animation frame after the canvas's first mutation.
const OBSERVE_EDITS: &str = r#"
const content = document.querySelector('[data-testid="graph"] .graph-content');
document.addEventListener('change', (e) => {
  if (e.target.dataset.testid !== 'call-attr-mode' || e.target.value.trim() === '') return;
  window.__edit = { t0: performance.now(), mutated: null, frame: null, painted: null };
}, true);
new MutationObserver(() => {
  const e = window.__edit;
  if (!e || e.mutated !== null) return;
  e.mutated = performance.now();
  requestAnimationFrame(() => {
    e.frame = performance.now();
    setTimeout(() => { e.painted = performance.now(); }, 0);
  });
}).observe(content, { childList: true, subtree: true, attributes: true });
return true;
"#;

/// Defines `done(overload)`: `null` until both timings of the edit are in, then what
/// was measured and whether the call editor shows `overload`.
const EDIT_DONE: &str = r#"
const done = (overload) => {
  const t = window.__graftTimings || {};
  const e = window.__edit;
  if (t.specialize_ms === undefined || !e || e.painted === null) return null;
  const graph = document.querySelector('[data-testid="graph"]');
  const shown = (document.querySelector('[data-testid="call-overload"]') || {}).textContent || '';
  return {
    app: t.specialize_ms,
    sync: t.edit_sync_ms,
    page: e.painted - e.t0,
    mutated: e.mutated - e.t0,
    frame: e.frame - e.t0,
    overload: shown.includes(overload),
    boxes: graph.querySelectorAll('g[data-item]').length,
    elements: graph.querySelector('.graph-content').getElementsByTagName('*').length,
    error: (document.querySelector('[data-testid="error"]') || {}).textContent || '',
  };
};
"#;

fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

/// The models to measure, with their sizes, node counts and external data files.
fn models() -> Result<Vec<Model>, String> {
    let corpus_dir = env_path("GRAFT_CORPUS").unwrap_or_else(|| root().join("target/corpus"));
    let listed: Vec<PathBuf> = match std::env::var("GRAFT_APP_BENCH_MODELS") {
        Ok(list) if !list.trim().is_empty() => list
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| {
                let p = PathBuf::from(s);
                if p.is_absolute() {
                    p
                } else {
                    corpus_dir.join(p)
                }
            })
            .collect(),
        _ => DEFAULT_MODELS
            .iter()
            .map(|m| corpus_dir.join(m))
            .filter(|p| p.is_file())
            .collect(),
    };
    let mut out = Vec::new();
    for path in listed {
        if !path.is_file() {
            return Err(format!("no model at {}", path.display()));
        }
        let data = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut files = vec![path.clone()];
        let mut bytes = data.len() as u64;
        let nodes = match graft::import(Bytes::from(data)) {
            Ok(imported) => {
                let summary = graft::Summary::of(&imported.model, &imported.diagnostics);
                let dir = path.parent().unwrap_or(Path::new("."));
                for (location, _) in &summary.external_files {
                    let file = dir.join(location);
                    if file.is_file() && !files.contains(&file) {
                        bytes += std::fs::metadata(&file).map_or(0, |m| m.len());
                        files.push(file);
                    }
                }
                Some(summary.nodes_total)
            }
            Err(e) => {
                eprintln!(
                    "app_bench: {}: graft cannot import it: {e:?}",
                    path.display()
                );
                None
            }
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(Model {
            name,
            path,
            files,
            bytes,
            nodes,
        });
    }
    Ok(out)
}

/// One fresh browser: open the app, choose the model's files, wait until drawn, read
/// the renderer's memory, take a screenshot (first run), and for Graft optionally time
/// the interactions.
fn measure(
    app: App,
    addr: SocketAddr,
    model: &Model,
    run: usize,
    shots: &Path,
    interact: bool,
) -> (Run, Option<Interaction>) {
    let started = Instant::now();
    let browser = match Browser::launch() {
        Ok(b) => b,
        Err(e) => {
            return (
                Run {
                    status: "error".into(),
                    detail: format!("cannot start the browser: {e}"),
                    ..Run::default()
                },
                None,
            );
        }
    };
    let driver = browser.driver_pid();
    let (mut result, interaction) =
        match measure_in(&browser, app, addr, model, run, shots, interact) {
            Ok(pair) => pair,
            Err(e) => (
                Run {
                    status: "error".into(),
                    detail: e,
                    ..Run::default()
                },
                None,
            ),
        };
    result.wall_s = started.elapsed().as_secs_f64();
    // Chromium's processes, to stop any that outlive the session (a hung renderer).
    let started_here = descendants(driver);
    drop(browser);
    std::thread::sleep(Duration::from_millis(300));
    for pid in started_here {
        if Path::new(&format!("/proc/{pid}")).exists() {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
    (result, interaction)
}

fn measure_in(
    browser: &Browser,
    app: App,
    addr: SocketAddr,
    model: &Model,
    run: usize,
    shots: &Path,
    interact: bool,
) -> Result<(Run, Option<Interaction>), String> {
    browser.cmd(
        "POST",
        "/timeouts",
        Some(json!({ "script": SCRIPT_TIMEOUT_MS, "pageLoad": 60_000 })),
    )?;
    let url = match app {
        App::Graft => format!("http://{addr}/"),
        App::Netron => {
            // Netron asks for cookie consent on first visit; its own cookie cannot be
            // set on 127.0.0.1 (it adds `domain=.0.1`), so it would ask every time.
            let url = format!("http://{addr}/index.html");
            let _ = browser.cdp(
                "Network.setCookie",
                json!({ "name": "consent", "value": "1", "url": url }),
            );
            url
        }
        App::ModelExplorer => format!("http://{addr}/"),
    };
    browser.goto(&url)?;
    wait_started(browser, app)?;
    let input = match app {
        App::Graft => "[data-testid=\"file-input\"]",
        App::Netron => "#open-file-dialog",
        App::ModelExplorer => "input.upload-input",
    };
    let input = browser
        .find(input)?
        .ok_or_else(|| format!("{}: no file input {input}", app.name()))?;
    let t0 = browser.execute(INSTALL, vec![json!(app.name())])?;
    if t0.as_f64().is_none() {
        return Err(format!("the monitor did not start: {t0}"));
    }
    let files: Vec<&Path> = model.files.iter().map(PathBuf::as_path).collect();
    let busy_before = main_thread_split(browser);
    if let Err(e) = browser.choose_files(&input, &files) {
        return Ok((classify_error(e), None));
    }
    let mut result = wait_drawn(browser);
    // The page's main-thread time while opening, and how it splits (kept with the
    // stages as `main_script_ms`, `main_style_ms`, `main_layout_ms`).
    let mut split = Vec::new();
    if let (Some(before), Some(after)) = (busy_before, main_thread_split(browser)) {
        for (name, a) in after {
            let Some((_, b)) = before.iter().find(|(n, _)| *n == name) else {
                continue;
            };
            match name {
                "TaskDuration" => result.main_thread_ms = Some(a - b),
                "ScriptDuration" => split.push(("main_script_ms".to_string(), a - b)),
                "RecalcStyleDuration" => split.push(("main_style_ms".to_string(), a - b)),
                _ => split.push(("main_layout_ms".to_string(), a - b)),
            }
        }
    }
    if result.status != "ok" {
        if run == 0 {
            let shot = shots.join(format!("{}-{}-failed.png", app.name(), stem(&model.name)));
            let _ = browser.screenshot(&shot);
        }
        return Ok((result, None));
    }
    // The long tasks up to the drawing (the observer hears of them after they end).
    std::thread::sleep(Duration::from_millis(200));
    if let Ok(v) = browser.execute(
        "const b = window.__bench; return b ? [b.longest, b.longTasks] : null;",
        vec![],
    ) {
        result.longest_task_ms = v[0].as_f64();
        result.long_tasks = v[1].as_u64().unwrap_or(0);
    }
    if app == App::Graft
        && let Ok(Value::Array(stages)) = browser.execute(
            "const t = window.__graftTimings || {}; \
             const wasm = performance.getEntriesByType('resource') \
               .find(e => e.name.endsWith('.wasm')); \
             const out = Object.entries(t) \
               .filter(([k]) => k.startsWith('open_') || k.startsWith('page_')); \
             if (wasm) out.push(['page_wasm_loaded_ms', wasm.responseEnd]); \
             return out;",
            vec![],
        )
    {
        result.stages = stages
            .iter()
            .filter_map(|kv| Some((kv[0].as_str()?.to_string(), kv[1].as_f64()?)))
            .collect();
    }
    result.stages.append(&mut split);
    // Memory once drawn: the page's JS heap, and the renderer process's resident set.
    if let Ok(heap) = browser.cdp("Runtime.getHeapUsage", json!({})) {
        result.js_heap_mb = heap["usedSize"].as_f64().map(|b| b / 1e6);
    }
    let renderers = renderers(browser.driver_pid());
    result.renderers = renderers.len();
    if let Some(main) = renderers.iter().max_by_key(|r| r.rss_kb) {
        result.rss_mb = Some(main.rss_kb as f64 * 1024.0 / 1e6);
        result.hwm_mb = Some(main.hwm_kb as f64 * 1024.0 / 1e6);
    }
    if browser
        .cdp("HeapProfiler.collectGarbage", json!({}))
        .is_ok()
    {
        std::thread::sleep(Duration::from_millis(500));
        result.gc_rss_mb = crate::renderers(browser.driver_pid())
            .iter()
            .map(|r| r.rss_kb as f64 * 1024.0 / 1e6)
            .reduce(f64::max);
    }
    if run == 0 {
        let shot = shots.join(format!("{}-{}.png", app.name(), stem(&model.name)));
        if let Err(e) = browser.screenshot(&shot) {
            eprintln!("app_bench: screenshot {}: {e}", shot.display());
        }
    }
    let interaction = (interact && app == App::Graft).then(|| interactions(browser, &model.path));
    if let Some(i) = &interaction
        && run == 0
        && i.error.is_empty()
    {
        let shot = shots.join(format!("graft-{}-expanded.png", stem(&model.name)));
        let _ = browser.screenshot(&shot);
    }
    Ok((result, interaction))
}

fn stem(name: &str) -> &str {
    name.strip_suffix(".onnx").unwrap_or(name)
}

/// Waits until the app can take a file: Graft has drawn its startup example; Netron
/// shows its welcome screen (any notice it raises first is dismissed).
fn wait_started(browser: &Browser, app: App) -> Result<(), String> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        let state = browser.execute(STARTED, vec![json!(app.name())]);
        match state {
            Ok(Value::String(s)) if s == "ready" => return Ok(()),
            Ok(_) => {}
            Err(e) if is_timeout(&e) => {}
            Err(e) => return Err(format!("{} did not start: {e}", app.name())),
        }
        if Instant::now() > deadline {
            return Err(format!(
                "{} did not start in {START_TIMEOUT:?}; console: {}",
                app.name(),
                browser.console_log().unwrap_or_default().join(" | ")
            ));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Polls the in-page monitor until it has seen the graph drawn, an error, a crash, or
/// the timeout.
fn wait_drawn(browser: &Browser) -> Run {
    let deadline = Instant::now() + RUN_TIMEOUT;
    loop {
        let mut busy = None;
        match browser.execute(POLL, vec![]) {
            Ok(state) => {
                let change_ms = state["change"].as_f64();
                if let Some(ms) = state["ms"].as_f64() {
                    return Run {
                        status: "ok".into(),
                        ms: Some(ms),
                        change_ms,
                        ..Run::default()
                    };
                }
                if let Some(error) = state["error"].as_str() {
                    return Run {
                        status: "error".into(),
                        detail: error.to_string(),
                        change_ms,
                        ..Run::default()
                    };
                }
            }
            Err(e) if is_timeout(&e) => busy = Some(e),
            Err(e) => return classify_error(e),
        }
        if Instant::now() > deadline {
            return Run {
                status: "did not finish".into(),
                detail: match busy {
                    Some(e) => format!(
                        "not drawn in {RUN_TIMEOUT:?}; the page was unresponsive at the end ({e})"
                    ),
                    None => format!("not drawn in {RUN_TIMEOUT:?}; the page still responded"),
                },
                ..Run::default()
            };
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn is_timeout(error: &str) -> bool {
    let e = error.to_ascii_lowercase();
    e.contains("timeout") || e.contains("timed out")
}

fn classify_error(error: String) -> Run {
    if is_timeout(&error) {
        return Run {
            status: "did not finish".into(),
            detail: error,
            ..Run::default()
        };
    }
    Run {
        status: "crashed".into(),
        detail: error,
        ..Run::default()
    }
}

/// The page's main-thread busy time so far (CDP `Performance.getMetrics`
/// `TaskDuration`), in milliseconds.
fn main_thread_busy(browser: &Browser) -> Option<f64> {
    main_thread_split(browser)?
        .into_iter()
        .find(|(name, _)| *name == "TaskDuration")
        .map(|(_, ms)| ms)
}

/// The page's main-thread time so far, split as CDP `Performance.getMetrics` splits it
/// (`TaskDuration` in all, and of it `ScriptDuration`, `RecalcStyleDuration`,
/// `LayoutDuration`), in milliseconds.
fn main_thread_split(browser: &Browser) -> Option<Vec<(&'static str, f64)>> {
    browser.cdp("Performance.enable", json!({})).ok()?;
    let metrics = browser.cdp("Performance.getMetrics", json!({})).ok()?;
    let metrics = metrics["metrics"].as_array()?;
    let split = [
        "TaskDuration",
        "ScriptDuration",
        "RecalcStyleDuration",
        "LayoutDuration",
    ]
    .into_iter()
    .filter_map(|name| {
        let seconds = metrics.iter().find(|m| m["name"] == name)?["value"].as_f64()?;
        Some((name, seconds * 1e3))
    })
    .collect();
    Some(split)
}

/// Expand all on the open model, as the button does: to the new picture painted
/// (`expand_ms`), the page's main-thread busy time meanwhile, and its longest task.
fn expand_all(browser: &Browser, out: &mut Interaction) -> Result<(), String> {
    let before = main_thread_busy(browser).ok_or("no main-thread metrics")?;
    let v = browser.execute_async(EXPAND_ALL, vec![])?;
    let after = main_thread_busy(browser).ok_or("no main-thread metrics")?;
    if let Some(e) = v["error"].as_str() {
        return Err(e.to_string());
    }
    out.expand_all_ms = v["ms"].as_f64();
    out.expand_all_longest_ms = v["longest"].as_f64();
    out.expand_all_items = v["items"].as_u64().unwrap_or(0);
    out.expand_all_main_ms = Some(after - before);
    Ok(())
}

/// Graft's interactions on the open model: expanding the first section on screen, the
/// idle frame rate, and the frame rate of a 60-step drag.
fn interactions(browser: &Browser, path: &Path) -> Interaction {
    let mut out = Interaction::default();
    let _ = browser.cmd("POST", "/timeouts", Some(json!({ "script": 80_000 })));
    match browser.execute_async(EXPAND, vec![]) {
        Ok(v) if v["error"].is_string() => out.error = v["error"].as_str().unwrap_or("").into(),
        Ok(v) => {
            out.expand_ms = v["ms"].as_f64();
            out.items_before = v["before"].as_u64().unwrap_or(0);
            out.items_after = v["after"].as_u64().unwrap_or(0);
        }
        Err(e) => out.error = format!("expand: {e}"),
    }
    match browser.execute_async(FRAMES, vec![json!(false), json!(60)]) {
        Ok(v) => out.idle_fps = v["fps"].as_f64(),
        Err(e) => out.error += &format!(" idle frames: {e}"),
    }
    match browser.execute_async(FRAMES, vec![json!(true), json!(60)]) {
        Ok(v) => {
            out.pan_fps = v["fps"].as_f64();
            out.pan_worst_frame_ms = v["worst"].as_f64();
            out.pan_redraws = v["redraws"].as_u64().unwrap_or(0);
        }
        Err(e) => out.error += &format!(" pan: {e}"),
    }
    if let Err(e) = edit_timings(browser, path, &mut out) {
        out.error += &format!(" edits: {e}");
    }
    // Last: it changes what is drawn.
    if let Err(e) = expand_all(browser, &mut out) {
        out.error += &format!(" expand all: {e}");
    }
    // After everything: it reloads the page.
    if let Err(e) = restore_timing(browser, &mut out) {
        out.error += &format!(" restore: {e}");
    }
    let _ = browser.cmd(
        "POST",
        "/timeouts",
        Some(json!({ "script": SCRIPT_TIMEOUT_MS })),
    );
    out
}

/// The node the edit timings select (by the search) and edit: in the first section of
/// `large_50k.onnx`.
const EDIT_NODE: &str = "b20/Mul";
/// Attribute edits (each undone) per run.
const EDIT_ROUNDS: usize = 10;
/// Renames (each undone) per run.
const RENAME_ROUNDS: usize = 10;
/// Inline preview updates per run.
const INLINE_ROUNDS: usize = 5;
/// Comparisons with the model as opened per run.
const COMPARE_ROUNDS: usize = 3;

/// Edits on the open model as a user makes them: the search finds [`EDIT_NODE`] and
/// selects it; it is renamed and that undone ([`RENAME_ROUNDS`] times); a LeakyRelu is
/// added after it, and its `alpha` set in the node editor and undone with Ctrl+Z
/// ([`EDIT_ROUNDS`] times); a model is dropped to inline and its preview updated
/// ([`INLINE_ROUNDS`] times). Each is timed by
/// the app (`edit_ms`, `undo_ms`: from the handler to the next frame painted, so
/// apply, inference, checks, view, layout and drawing).
fn edit_timings(browser: &Browser, path: &Path, out: &mut Interaction) -> Result<(), String> {
    use graft_tests::webdriver::{testid, wait_until};
    const CONTROL: &str = "\u{E009}";
    const SELECT_ALL: &str = "\u{E009}a\u{E000}";
    let wait = Duration::from_secs(30);
    let input = browser.wait_for(&testid("search-input"), wait)?;
    browser.send_keys(&input, &format!("{EDIT_NODE}\n"))?;
    let found = wait_until(wait, "search results", || {
        Ok(browser
            .find_all(&testid("search-result"))?
            .into_iter()
            .next())
    })?;
    browser.click(&found)?;
    let timed = |name: &str, act: &dyn Fn() -> Result<(), String>| -> Result<f64, String> {
        browser.execute(
            "if (window.__graftTimings) delete window.__graftTimings[arguments[0]];",
            vec![json!(name)],
        )?;
        act()?;
        wait_until(wait, name, || {
            let v = browser.execute(
                "return window.__graftTimings ? window.__graftTimings[arguments[0]] : null;",
                vec![json!(name)],
            )?;
            Ok(v.as_f64())
        })
    };
    let undo = || {
        browser.execute(
            "document.activeElement && document.activeElement.blur();",
            vec![],
        )?;
        browser.press_keys(&[CONTROL], "z")
    };
    // The canvas must show the edit, and not after its undo: a refused edit or a
    // missed key would time nothing.
    let drawn = |text: &str, expected: bool| -> Result<(), String> {
        let shown = browser.execute(
            "return document.querySelector('[data-testid=\"graph\"]').textContent.includes(arguments[0]);",
            vec![json!(text)],
        )?;
        if shown.as_bool() == Some(expected) {
            Ok(())
        } else {
            Err(format!("{text:?} drawn: {shown}, expected {expected}"))
        }
    };
    for k in 0..RENAME_ROUNDS {
        let field = browser.wait_for(&testid("node-name"), wait)?;
        let name = format!("b20/renamed_{k}");
        let text = format!("{SELECT_ALL}{name}\u{E007}");
        out.rename_ms
            .push(timed("edit_ms", &|| browser.send_keys(&field, &text))?);
        let props = browser.text(&browser.wait_for(&testid("properties"), wait)?)?;
        if !props.contains(&name) {
            return Err(format!("the renamed node is not selected: {props:?}"));
        }
        out.rename_undo_ms.push(timed("undo_ms", &undo)?);
    }
    // The model's ops have no attributes, and an attribute an op does not declare is
    // refused (it would break the model): then add a LeakyRelu after the node (selected,
    // its `alpha` written out) and time edits of its `alpha`.
    let add = browser.wait_for(&testid("node-add-op"), wait)?;
    browser.send_keys(&add, "LeakyRelu\u{E007}")?;
    // Its title, not just its name anywhere in the panel: the node's own panel names
    // the op it is adding until the engine's update selects the new node.
    wait_until(wait, "the added LeakyRelu selected", || {
        let props = browser.text(&browser.wait_for(&testid("properties"), wait)?)?;
        Ok(props.starts_with("LeakyRelu").then_some(()))
    })?;
    for k in 0..EDIT_ROUNDS {
        let field = browser.wait_for(&testid("node-set-attr"), wait)?;
        let alpha = format!("0.{}7", k + 1);
        let text = format!("{SELECT_ALL}alpha = {alpha}\u{E007}");
        out.edit_ms
            .push(timed("edit_ms", &|| browser.send_keys(&field, &text))?);
        drawn(&alpha, true)?;
        out.undo_ms.push(timed("undo_ms", &undo)?);
        drawn(&alpha, false)?;
    }
    // Compare with the model as opened (the LeakyRelu added): the diff, its list and
    // the canvas marks, to the next frame painted; then closed.
    for _ in 0..COMPARE_ROUNDS {
        let option = format!("{} option[value=\"0\"]", testid("compare-select"));
        let option = browser.wait_for(&option, wait)?;
        out.compare_ms
            .push(timed("compare_ms", &|| browser.click(&option))?);
        let summary = browser.text(&browser.wait_for(&testid("compare-summary"), wait)?)?;
        if !summary.contains("1 added") {
            return Err(format!(
                "the comparison does not show the added node: {summary:?}"
            ));
        }
        browser.click(&browser.wait_for(&testid("compare-close"), wait)?)?;
    }
    // Compare with a file: the open model with every 100th node's op changed (1%).
    let changed = one_percent_changed(path)?;
    for _ in 0..COMPARE_ROUNDS {
        let input = browser.wait_for(&testid("compare-input"), wait)?;
        let file = changed.to_str().unwrap_or_default().to_string();
        out.compare_file_ms
            .push(timed("compare_ms", &|| browser.send_keys(&input, &file))?);
        let summary = browser.text(&browser.wait_for(&testid("compare-summary"), wait)?)?;
        if !summary.contains(&one_percent_name(path)) {
            return Err(format!("the comparison is not with the file: {summary:?}"));
        }
        browser.click(&browser.wait_for(&testid("compare-close"), wait)?)?;
    }
    // The inline dialog: the bundled MLP dropped on the open model, its prefix changed
    // (each change inlines again, checks, lays out and draws the preview), then Cancel.
    graft_tests::webdriver::drop_file(
        browser,
        "examples/mlp.onnx",
        "mlp.onnx",
        &testid("drop-inline"),
    )?;
    browser.wait_for(&testid("inline-summary"), wait)?;
    for k in 0..INLINE_ROUNDS {
        let field = browser.wait_for(&testid("inline-prefix"), wait)?;
        let prefix = format!("guest{k}");
        let text = format!("{SELECT_ALL}{prefix}\u{E004}");
        out.inline_preview_ms.push(timed("inline_preview_ms", &|| {
            browser.send_keys(&field, &text)
        })?);
        drawn(&prefix, true)?;
    }
    browser.click(&browser.wait_for(&testid("inline-cancel"), wait)?)?;
    Ok(())
}

/// Edits the restore timing applies by script before the reload.
const RESTORE_EDITS: usize = 100;

/// The open model's bytes as `__graftExport` gives them, by their SHA-256 (hex).
const DIGEST: &str = r#"
const done = arguments[arguments.length - 1];
window.__graftExport()
  .then(b => crypto.subtle.digest('SHA-256', b))
  .then(h => done(Array.from(new Uint8Array(h)).map(x => x.toString(16).padStart(2, '0')).join('')),
        e => done('failed: ' + e));
"#;

/// The longest edit log of the sessions the page keeps (IndexedDB `graft`).
const KEPT_EDITS: &str = r#"
const done = arguments[arguments.length - 1];
const open = indexedDB.open('graft');
open.onerror = () => done(null);
open.onsuccess = () => {
  const db = open.result;
  if (!db.objectStoreNames.contains('sessions')) { db.close(); done(null); return; }
  const all = db.transaction('sessions').objectStore('sessions').getAll();
  all.onerror = () => { db.close(); done(null); };
  all.onsuccess = () => { db.close(); done(Math.max(0, ...all.result.map(s => s.log.length))); };
};
"#;

/// Restoring a kept session: [`RESTORE_EDITS`] renames of the main graph's first
/// nodes applied by `__graftApply` (one log, all or none), the session written, then
/// the page reloaded with `?restore`, timed from the navigation to the restored model
/// drawn (`page_first_drawn_ms`: the page's start, the kept record and file read from
/// IndexedDB, the open, and every edit of the log replayed). The restored model must
/// export the same bytes as before the reload.
fn restore_timing(browser: &Browser, out: &mut Interaction) -> Result<(), String> {
    use graft_tests::webdriver::wait_until;
    let wait = Duration::from_secs(60);
    let log: Vec<Value> = (0..RESTORE_EDITS)
        .map(|k| json!({"edit": "rename_node", "graph": "main", "node": k, "to": format!("restored_{k}")}))
        .collect();
    let answer = browser.execute_async(
        "const done = arguments[arguments.length - 1];
         window.__graftApply(arguments[0]).then(done, e => done({status: 'rejected', message: String(e)}));",
        vec![Value::Array(log)],
    )?;
    if answer["status"] != "ok" {
        return Err(format!("the script's edits: {answer}"));
    }
    let before = browser.execute_async(DIGEST, vec![])?;
    if before.as_str().is_none_or(|d| d.starts_with("failed")) {
        return Err(format!("export before the reload: {before}"));
    }
    wait_until(wait, "the session kept with its edits", || {
        let kept = browser.execute_async(KEPT_EDITS, vec![])?;
        Ok((kept.as_u64() >= Some(RESTORE_EDITS as u64)).then_some(()))
    })?;
    let url = browser.execute("return location.origin + '/?restore';", vec![])?;
    browser.goto(url.as_str().unwrap_or_default())?;
    let ms = wait_until(wait, "the restored model drawn", || {
        let v = browser.execute(
            "return window.__graftReady === true && window.__graftTimings \
               ? (window.__graftTimings.page_first_drawn_ms ?? null) : null;",
            vec![],
        )?;
        Ok(v.as_f64())
    })?;
    let after = browser.execute_async(DIGEST, vec![])?;
    if after != before {
        return Err(format!(
            "the restored model differs: {after} after, {before} before"
        ));
    }
    out.restore_ms = Some(ms);
    Ok(())
}

/// Writes the model at `path` with every 100th main-graph node's op changed (Add and
/// Sub, Mul and Div, Relu and Sigmoid swapped) beside the bench's output, once.
/// Where the 1%-changed copy of the model at `path` is written.
fn one_percent_name(path: &Path) -> String {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    format!("{}_1pct.onnx", stem(name))
}

fn one_percent_changed(path: &Path) -> Result<PathBuf, String> {
    // Written afresh for each model: a copy kept under one name was once the other
    // model's, and the comparison measured two different models.
    let out = root().join("target/bench").join(one_percent_name(path));
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut model = graft::import(Bytes::from(bytes))
        .map_err(|e| e.to_string())?
        .model;
    let main = model.graph.ok_or("no main graph")?;
    let nodes = model.graph(main).nodes.clone();
    for &n in nodes.iter().step_by(100) {
        let node = &mut model.nodes[n];
        let other = match node.op_type() {
            "Add" => "Sub",
            "Sub" => "Add",
            "Mul" => "Div",
            "Div" => "Mul",
            "Relu" => "Sigmoid",
            "Sigmoid" => "Relu",
            _ => continue,
        };
        node.op_type = Some(other.to_string());
    }
    let encoded =
        graft::export(&model, &graft::ExportOptions::default()).map_err(|e| e.to_string())?;
    std::fs::create_dir_all(out.parent().unwrap_or(Path::new("."))).map_err(|e| e.to_string())?;
    std::fs::write(&out, encoded).map_err(|e| e.to_string())?;
    Ok(out)
}

/// A renderer process of the browser, and its memory in kB.
struct Renderer {
    rss_kb: u64,
    hwm_kb: u64,
}

/// Every process descended from `ancestor`.
fn descendants(ancestor: u32) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        if let Some(ppid) = after
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok())
        {
            children.entry(ppid).or_default().push(pid);
        }
    }
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![ancestor];
    while let Some(pid) = stack.pop() {
        for &child in children.get(&pid).map(Vec::as_slice).unwrap_or(&[]) {
            if seen.insert(child) {
                out.push(child);
                stack.push(child);
            }
        }
    }
    out
}

/// The renderer processes among chromedriver's descendants.
fn renderers(driver: u32) -> Vec<Renderer> {
    let mut out = Vec::new();
    for pid in descendants(driver) {
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        // Zygote children rewrite their title: the arguments are joined by spaces then.
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let args: Vec<&str> = cmdline.split_whitespace().collect();
        // Chromium's own UI (`--top-chrome-webui`) is not the page.
        if !args.contains(&"--type=renderer")
            || args.contains(&"--top-chrome-webui")
            || args.contains(&"--extension-process")
        {
            continue;
        }
        let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) else {
            continue;
        };
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0)
        };
        out.push(Renderer {
            rss_kb: field("VmRSS:"),
            hwm_kb: field("VmHWM:"),
        });
    }
    out
}

fn print_run(app: App, run: usize, r: &Run) {
    match r.ms {
        Some(ms) => println!(
            "  {:<6} run {}: {:>9.1} ms (change event at {:.1} ms), renderer RSS {:.0} MB \
             (peak {:.0} MB, {:.0} MB after GC, {} renderers), JS heap {:.1} MB, longest task \
             {:.0} ms ({} long), main thread busy {:.0} ms",
            app.name(),
            run + 1,
            ms,
            r.change_ms.unwrap_or(f64::NAN),
            r.rss_mb.unwrap_or(f64::NAN),
            r.hwm_mb.unwrap_or(f64::NAN),
            r.gc_rss_mb.unwrap_or(f64::NAN),
            r.renderers,
            r.js_heap_mb.unwrap_or(f64::NAN),
            r.longest_task_ms.unwrap_or(f64::NAN),
            r.long_tasks,
            r.main_thread_ms.unwrap_or(f64::NAN),
        ),
        None => println!(
            "  {:<6} run {}: {}: {} ({:.0} s)",
            app.name(),
            run + 1,
            r.status,
            r.detail,
            r.wall_s
        ),
    }
    if !r.stages.is_empty() {
        let stages: Vec<String> = r
            .stages
            .iter()
            .map(|(k, ms)| {
                format!(
                    "{} {ms:.0}",
                    k.trim_start_matches("open_").trim_end_matches("_ms")
                )
            })
            .collect();
        println!(
            "  {:<6} run {}: stages (ms): {}",
            app.name(),
            run + 1,
            stages.join(", ")
        );
    }
}

fn print_interaction(run: usize, i: &Interaction) {
    println!(
        "  graft  run {}: expand one section {:.1} ms ({} -> {} boxes drawn); \
         idle {:.1} fps; drag {:.1} fps (worst frame {:.1} ms, {} redraws){}{}{}{}",
        run + 1,
        i.expand_ms.unwrap_or(f64::NAN),
        i.items_before,
        i.items_after,
        i.idle_fps.unwrap_or(f64::NAN),
        i.pan_fps.unwrap_or(f64::NAN),
        i.pan_worst_frame_ms.unwrap_or(f64::NAN),
        i.pan_redraws,
        if i.edit_ms.is_empty() {
            String::new()
        } else {
            format!(
                "; set attribute {:.1} ms, undo {:.1} ms (medians of {}); rename {:.1} ms, undo {:.1} ms; inline preview {:.1} ms; compare {:.1} ms, with a 1%-changed file {:.1} ms",
                median(i.edit_ms.clone()).unwrap_or(f64::NAN),
                median(i.undo_ms.clone()).unwrap_or(f64::NAN),
                i.edit_ms.len(),
                median(i.rename_ms.clone()).unwrap_or(f64::NAN),
                median(i.rename_undo_ms.clone()).unwrap_or(f64::NAN),
                median(i.inline_preview_ms.clone()).unwrap_or(f64::NAN),
                median(i.compare_ms.clone()).unwrap_or(f64::NAN),
                median(i.compare_file_ms.clone()).unwrap_or(f64::NAN),
            )
        },
        match i.expand_all_ms {
            Some(ms) => format!(
                "; expand all {ms:.1} ms, main thread {:.1} ms, longest task {:.0} ms, {} boxes",
                i.expand_all_main_ms.unwrap_or(f64::NAN),
                i.expand_all_longest_ms.unwrap_or(f64::NAN),
                i.expand_all_items
            ),
            None => String::new(),
        },
        match i.restore_ms {
            Some(ms) =>
                format!("; restore after a reload with {RESTORE_EDITS} more edits {ms:.0} ms"),
            None => String::new(),
        },
        if i.error.is_empty() {
            String::new()
        } else {
            format!("; {}", i.error)
        }
    );
}

fn median(mut values: Vec<f64>) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let n = values.len();
    Some(if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    })
}

fn ok_values(runs: &[Run], f: impl Fn(&Run) -> Option<f64>) -> Vec<f64> {
    runs.iter()
        .filter(|r| r.status == "ok")
        .filter_map(f)
        .collect()
}

/// "1234" for the median of the drawn runs, or the status of the runs that were not.
fn time_cell(runs: &[Run]) -> String {
    let times = ok_values(runs, |r| r.ms);
    let failed: Vec<&Run> = runs
        .iter()
        .filter(|r| r.status != "ok" && r.status != "skipped")
        .collect();
    let mut cell = match median(times.clone()) {
        Some(m) => format!("{m:.0}"),
        None => String::new(),
    };
    if !failed.is_empty() {
        let mut statuses: Vec<&str> = failed.iter().map(|r| r.status.as_str()).collect();
        statuses.dedup();
        let note = format!("{} ({}/{})", statuses.join(", "), failed.len(), runs.len());
        cell = if cell.is_empty() {
            note
        } else {
            format!("{cell}; {note}")
        };
    }
    if cell.is_empty() {
        cell = "—".into();
    }
    cell
}

fn mem_cell(runs: &[Run]) -> String {
    match (
        median(ok_values(runs, |r| r.rss_mb)),
        median(ok_values(runs, |r| r.hwm_mb)),
    ) {
        (Some(rss), Some(hwm)) => match median(ok_values(runs, |r| r.gc_rss_mb)) {
            Some(gc) => format!("{rss:.0} (peak {hwm:.0}, after GC {gc:.0})"),
            None => format!("{rss:.0} (peak {hwm:.0})"),
        },
        _ => "—".into(),
    }
}

/// One model's runs: Graft's, each peer's, and Graft's interactions.
struct ModelResult<'a> {
    model: &'a Model,
    graft: Vec<Run>,
    peers: Vec<(App, Vec<Run>)>,
    interactions: Vec<Interaction>,
}

fn markdown(results: &[ModelResult]) -> String {
    let mut s = String::new();
    let peers: Vec<App> = results
        .first()
        .map(|r| r.peers.iter().map(|(app, _)| *app).collect())
        .unwrap_or_default();
    let mut head = vec![
        "model".to_string(),
        "nodes".into(),
        "file MB".into(),
        "Graft median ms".into(),
    ];
    for app in &peers {
        head.push(format!("{} median ms", app.title()));
        head.push(format!("{} / Graft", app.title()));
    }
    head.push("Graft renderer MB".into());
    head.extend(
        peers
            .iter()
            .map(|app| format!("{} renderer MB", app.title())),
    );
    head.push("Graft longest task ms".into());
    head.extend(
        peers
            .iter()
            .map(|app| format!("{} longest task ms", app.title())),
    );
    head.push("Graft main thread ms".into());
    head.extend(
        peers
            .iter()
            .map(|app| format!("{} main thread ms", app.title())),
    );
    s.push_str(&format!("| {} |\n", head.join(" | ")));
    s.push_str(&format!("|---|{}\n", "---:|".repeat(head.len() - 1)));
    let longest = |runs: &[Run]| {
        runs.iter()
            .filter_map(|r| r.longest_task_ms)
            .fold(None, |acc: Option<f64>, v| {
                Some(acc.map_or(v, |a| a.max(v)))
            })
            .map_or("—".to_string(), |v| {
                if v > 0.0 {
                    format!("{v:.0}")
                } else {
                    "none over 50".to_string()
                }
            })
    };
    for result in results {
        let graft = &result.graft;
        let g = median(ok_values(graft, |r| r.ms));
        let mut row = vec![
            result.model.name.clone(),
            result
                .model
                .nodes
                .map_or("?".to_string(), |n| n.to_string()),
            format!("{:.1}", mb(result.model.bytes)),
            time_cell(graft),
        ];
        for (_, runs) in &result.peers {
            let n = median(ok_values(runs, |r| r.ms));
            let ratio = match (g, n) {
                (Some(g), Some(n)) if g > 0.0 => format!("{:.1}×", n / g),
                (Some(g), None) if runs.iter().any(|r| r.status == "did not finish") => {
                    format!("> {:.0}×", RUN_TIMEOUT.as_secs_f64() * 1e3 / g)
                }
                _ => "—".into(),
            };
            row.push(time_cell(runs));
            row.push(ratio);
        }
        row.push(mem_cell(graft));
        row.extend(result.peers.iter().map(|(_, runs)| mem_cell(runs)));
        row.push(longest(graft));
        row.extend(result.peers.iter().map(|(_, runs)| longest(runs)));
        let busy = |runs: &[Run]| {
            median(ok_values(runs, |r| r.main_thread_ms))
                .map_or("—".to_string(), |v| format!("{v:.0}"))
        };
        row.push(busy(graft));
        row.extend(result.peers.iter().map(|(_, runs)| busy(runs)));
        s.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    let inter: Vec<_> = results
        .iter()
        .filter(|r| !r.interactions.is_empty())
        .map(|r| (r.model, &r.interactions))
        .collect();
    if !inter.is_empty() {
        s.push_str(
            "\n| model (Graft) | expand one section, median ms | idle fps | drag fps, median | \
             worst drag frame ms | set attribute ms | its undo ms | rename node ms | its undo ms | \
             inline preview update ms | compare with the model as opened ms | \
             compare with a 1%-changed file ms | expand all ms | its main-thread ms | \
             its longest task ms | boxes drawn |\n\
             |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        );
        for (model, i) in &inter {
            let expand = median(i.iter().filter_map(|x| x.expand_ms).collect());
            let idle = median(i.iter().filter_map(|x| x.idle_fps).collect());
            let pan = median(i.iter().filter_map(|x| x.pan_fps).collect());
            let worst = i
                .iter()
                .filter_map(|x| x.pan_worst_frame_ms)
                .fold(None, |acc: Option<f64>, v| {
                    Some(acc.map_or(v, |a| a.max(v)))
                });
            let f = |v: Option<f64>, digits: usize| {
                v.map_or("—".to_string(), |v| format!("{v:.digits$}"))
            };
            let all = |pick: fn(&Interaction) -> &Vec<f64>| {
                median(i.iter().flat_map(|x| pick(x).iter().copied()).collect())
            };
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                model.name,
                f(expand, 1),
                f(idle, 1),
                f(pan, 1),
                f(worst, 1),
                f(all(|x| &x.edit_ms), 1),
                f(all(|x| &x.undo_ms), 1),
                f(all(|x| &x.rename_ms), 1),
                f(all(|x| &x.rename_undo_ms), 1),
                f(all(|x| &x.inline_preview_ms), 1),
                f(all(|x| &x.compare_ms), 1),
                f(all(|x| &x.compare_file_ms), 1),
                f(median(i.iter().filter_map(|x| x.expand_all_ms).collect()), 1),
                f(median(i.iter().filter_map(|x| x.expand_all_main_ms).collect()), 1),
                f(i.iter().filter_map(|x| x.expand_all_longest_ms).reduce(f64::max), 0),
                i.first().map_or(0, |x| x.expand_all_items),
            ));
        }
        s.push_str(&format!(
            "\n| model (Graft) | restore after a reload, {RESTORE_EDITS} more edits by script, median ms (navigation to drawn) | runs |\n|---|---:|---:|\n"
        ));
        for (model, i) in &inter {
            let restore: Vec<f64> = i.iter().filter_map(|x| x.restore_ms).collect();
            let n = restore.len();
            s.push_str(&format!(
                "| {} | {} | {n} |\n",
                model.name,
                median(restore).map_or("—".to_string(), |v| format!("{v:.0}")),
            ));
        }
    }
    s
}

fn run_json(r: &Run) -> Value {
    json!({
        "status": r.status,
        "detail": r.detail,
        "ms": r.ms,
        "change_event_ms": r.change_ms,
        "renderer_rss_mb": r.rss_mb,
        "renderer_peak_rss_mb": r.hwm_mb,
        "renderer_rss_after_gc_mb": r.gc_rss_mb,
        "renderer_processes": r.renderers,
        "js_heap_used_mb": r.js_heap_mb,
        "wall_s": r.wall_s,
        "longest_task_ms": r.longest_task_ms,
        "long_tasks": r.long_tasks,
        "main_thread_ms": r.main_thread_ms,
        "stages_ms": r
            .stages
            .iter()
            .map(|(k, ms)| (k.clone(), json!(ms)))
            .collect::<serde_json::Map<String, Value>>(),
    })
}

fn app_json(runs: &[Run]) -> Value {
    json!({
        "median_ms": median(ok_values(runs, |r| r.ms)),
        "median_renderer_rss_mb": median(ok_values(runs, |r| r.rss_mb)),
        "median_renderer_peak_rss_mb": median(ok_values(runs, |r| r.hwm_mb)),
        "summary": time_cell(runs),
        "runs": runs.iter().map(run_json).collect::<Vec<_>>(),
    })
}

fn to_json(results: &[ModelResult], runs: usize) -> Value {
    let chromium = Command::new(
        std::env::var("GRAFT_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into()),
    )
    .arg("--version")
    .output()
    .ok()
    .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    .unwrap_or_default();
    json!({
        "what": "time from choosing the file to the graph drawn (t1 - t0, in-page performance.now()), \
                 headless Chromium, fresh browser per run; renderer memory once drawn",
        "chromium": chromium,
        "netron": "9.3.3 (PyPI wheel, served from 127.0.0.1)",
        "runs_per_model": runs,
        "timeout_s": RUN_TIMEOUT.as_secs(),
        "cpus": std::thread::available_parallelism().map_or(0, |n| n.get()),
        "model_explorer": "ai-edge-model-explorer with model-explorer-onnx (versions: `cargo xtask \
                           bench-app`), its server on 127.0.0.1; renderer memory excludes the server",
        "models": results.iter().map(|r| {
            let mut peers = serde_json::Map::new();
            for (app, runs) in &r.peers {
                peers.insert(app.name().to_string(), app_json(runs));
            }
            json!({
            "model": r.model.name,
            "path": r.model.path,
            "files": r.model.files,
            "bytes": r.model.bytes,
            "nodes": r.model.nodes,
            "graft": app_json(&r.graft),
            "peers": peers,
            "graft_interactions": r.interactions.iter().map(|i| json!({
                "expand_ms": i.expand_ms,
                "items_before": i.items_before,
                "items_after": i.items_after,
                "idle_fps": i.idle_fps,
                "drag_fps": i.pan_fps,
                "drag_worst_frame_ms": i.pan_worst_frame_ms,
                "drag_redraws": i.pan_redraws,
                "set_attribute_ms": i.edit_ms,
                "set_attribute_undo_ms": i.undo_ms,
                "rename_node_ms": i.rename_ms,
                "rename_node_undo_ms": i.rename_undo_ms,
                "inline_preview_ms": i.inline_preview_ms,
                "compare_ms": i.compare_ms,
                "compare_file_ms": i.compare_file_ms,
                "expand_all_ms": i.expand_all_ms,
                "expand_all_main_thread_ms": i.expand_all_main_ms,
                "expand_all_longest_task_ms": i.expand_all_longest_ms,
                "expand_all_boxes_drawn": i.expand_all_items,
                "restore_ms": i.restore_ms,
                "error": i.error,
            })).collect::<Vec<_>>(),
        })}).collect::<Vec<_>>(),
    })
}

/// Returns "ready" once the app can take a file (`arguments[0]`: the app). Dismisses a
/// Netron notice (cookie consent) if one shows.
const STARTED: &str = r#"
const app = arguments[0];
if (app === 'explorer') {
  return document.querySelector('input.upload-input') ? 'ready' : 'waiting';
}
if (app === 'graft') {
  const input = document.querySelector('[data-testid="file-input"]');
  const drawn = document.querySelector('[data-testid="graph"] g[data-item]');
  return window.__graftReady === true && input && drawn ? 'ready' : 'waiting';
}
const body = document.body;
if (!body || !window.__view__) return 'waiting';
const classes = Array.from(body.classList);
if (classes.includes('notification') || classes.includes('alert')) {
  const button = document.getElementById('message-button');
  if (button && button.style.display !== 'none' && button.onclick) button.click();
  return 'notice';
}
return classes.length === 1 && classes[0] === 'welcome' && document.getElementById('open-file-dialog')
  ? 'ready' : 'waiting';
"#;

/// Starts the in-page monitor and returns t0. `arguments[0]`: the app.
const INSTALL: &str = r#"
const app = arguments[0];
const b = window.__bench = { t0: 0, change: null, seen: null, done: null, error: null,
  longest: 0, longTasks: 0 };
// Long tasks from here on (the page's start is not the model's opening).
try {
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) {
      if (e.startTime < b.t0 || (b.done !== null && e.startTime > b.done)) continue;
      b.longTasks += 1;
      b.longest = Math.max(b.longest, e.duration);
    }
  }).observe({ type: 'longtask' });
} catch (e) { b.longest = null; }
let check;
if (app === 'graft') {
  // The startup example's boxes, and the ready flag, must not count for the new model.
  for (const g of document.querySelectorAll('[data-testid="graph"] g[data-item]')) g.__benchStale = true;
  window.__graftReady = false;
  const input = document.querySelector('[data-testid="file-input"]');
  input.addEventListener('change', () => { if (b.change === null) b.change = performance.now(); }, { capture: true });
  check = () => {
    if (window.__graftReady !== true) return null;
    const g = document.querySelector('[data-testid="graph"] g[data-item]');
    if (g && !g.__benchStale) return 'done';
    const e = document.querySelector('[data-testid="error"]');
    if (e && e.textContent.trim()) return 'error: ' + e.textContent.trim();
    return null;
  };
} else if (app === 'explorer') {
  // Choosing a file lists it; "View selected models" uploads it to the server, which
  // converts it with the ONNX adapter; the page then lays it out and draws it with
  // WebGL behind a "Processing graph..." panel. Drawn: the canvas is there and the
  // panel is gone.
  const input = document.querySelector('input.upload-input');
  input.addEventListener('change', () => {
    if (b.change === null) b.change = performance.now();
    const view = () => {
      const button = document.querySelector('.btn-view-models');
      if (button && !button.disabled) button.click(); else setTimeout(view, 10);
    };
    setTimeout(view, 0);
  }, { capture: true });
  check = () => {
    const canvas = document.querySelector('webgl-renderer canvas');
    const busy = document.querySelector('.processing-msg-container');
    if (canvas && canvas.width > 0 && !busy) return 'done';
    const failed = document.querySelector('.mat-mdc-snack-bar-label, .error-message');
    if (failed && /error|fail/i.test(failed.textContent)) return 'error: ' + failed.textContent.trim();
    return null;
  };
} else {
  const input = document.getElementById('open-file-dialog');
  input.addEventListener('change', () => { if (b.change === null) b.change = performance.now(); }, { capture: true });
  check = () => {
    const classes = document.body.classList;
    if (classes.contains('alert')) {
      const m = document.getElementById('message-text');
      return 'error: ' + (m ? m.innerText : 'alert');
    }
    if (classes.contains('default') &&
        document.querySelector('#target #canvas .graph-node, #target #canvas .graph-input')) return 'done';
    return null;
  };
}
const tick = () => {
  let r = null;
  try { r = check(); } catch (e) { r = 'error: monitor: ' + e; }
  if (r === 'done') {
    b.seen = performance.now();
    requestAnimationFrame(() => { b.done = performance.now(); });
    return;
  }
  if (r) { b.error = r; return; }
  requestAnimationFrame(tick);
};
b.t0 = performance.now();
requestAnimationFrame(tick);
return b.t0;
"#;

/// The monitor's state: `ms` once drawn, `error` if the app said so.
const POLL: &str = r#"
const b = window.__bench;
if (!b) return { error: 'the monitor is gone (the page reloaded?)' };
return {
  ms: b.done === null ? null : b.done - b.t0,
  change: b.change === null ? null : b.change - b.t0,
  error: b.error,
};
"#;

/// Clicks the first section's `+` on screen and times it until the redraw is painted
/// (the content's first mutation, then two animation frames, as for opening a model).
const EXPAND: &str = r#"
const done = arguments[arguments.length - 1];
const graph = document.querySelector('[data-testid="graph"]');
const toggle = graph && graph.querySelector('g[data-item] [data-toggle]');
if (!toggle) { done({ error: 'no [data-toggle] on screen' }); return; }
const content = graph.querySelector('.graph-content') || graph.querySelector('svg');
const count = () => graph.querySelectorAll('g[data-item]').length;
const before = count();
let t0 = 0;
let fired = false;
const observer = new MutationObserver(() => {
  if (fired) return;
  fired = true;
  observer.disconnect();
  requestAnimationFrame(() => requestAnimationFrame(() => {
    done({ ms: performance.now() - t0, before, after: count() });
  }));
});
observer.observe(content, { childList: true, subtree: true, attributes: true });
const box = toggle.getBoundingClientRect();
const init = { bubbles: true, cancelable: true, view: window, button: 0,
  clientX: box.left + box.width / 2, clientY: box.top + box.height / 2 };
t0 = performance.now();
toggle.dispatchEvent(new MouseEvent('click', init));
"#;

/// Clicks Expand all and waits for the app's `expand_ms` (published once the new
/// picture is painted); returns it, the longest main-thread task meanwhile (0: none
/// over 50 ms) and the boxes drawn.
const EXPAND_ALL: &str = r#"
const done = arguments[arguments.length - 1];
const t = window.__graftTimings || (window.__graftTimings = {});
delete t.expand_ms;
let longest = 0;
const observer = new PerformanceObserver(list => {
  for (const e of list.getEntries()) longest = Math.max(longest, e.duration);
});
observer.observe({ type: 'longtask' });
const start = performance.now();
document.querySelector('[data-testid="expand-all"]').click();
const poll = () => {
  const ms = (window.__graftTimings || {}).expand_ms;
  if (ms !== undefined) {
    setTimeout(() => {
      observer.disconnect();
      const items = document.querySelectorAll('[data-testid="graph"] g[data-item]').length;
      done({ ms, longest, items });
    }, 200);
  } else if (performance.now() - start > 60000) {
    done({ error: 'expand all did not finish in 60 s' });
  } else {
    setTimeout(poll, 20);
  }
};
poll();
"#;

/// Counts animation frames: `arguments[0]` whether to drag the graph (mousedown, one
/// mousemove per frame, mouseup), `arguments[1]` how many frames. Returns fps from the
/// frames' timestamps, the longest frame, and how often the content was redrawn.
const FRAMES: &str = r#"
const done = arguments[arguments.length - 1];
const drag = arguments[0];
const frames = arguments[1];
const graph = document.querySelector('[data-testid="graph"]');
const content = graph.querySelector('.graph-content') || graph;
let redraws = 0;
const observer = new MutationObserver((list) => { redraws += list.length; });
observer.observe(content, { childList: true });
const r = graph.getBoundingClientRect();
let x = r.left + r.width / 2, y = r.top + r.height / 2;
const fire = (type, buttons) => graph.dispatchEvent(new MouseEvent(type, {
  bubbles: true, cancelable: true, view: window, button: 0, buttons, clientX: x, clientY: y }));
const stamps = [];
let i = 0;
const step = (ts) => {
  stamps.push(ts);
  if (i === frames) {
    if (drag) fire('mouseup', 0);
    observer.disconnect();
    let worst = 0;
    for (let k = 1; k < stamps.length; k++) worst = Math.max(worst, stamps[k] - stamps[k - 1]);
    const span = stamps[stamps.length - 1] - stamps[0];
    done({ fps: span > 0 ? (stamps.length - 1) * 1000 / span : null, worst, redraws });
    return;
  }
  i++;
  if (drag) {
    // Back and forth, so the view stays over the graph.
    const dir = i <= frames / 2 ? 1 : -1;
    x += 6 * dir; y += 4 * dir;
    fire('mousemove', 1);
  }
  requestAnimationFrame(step);
};
if (drag) fire('mousedown', 1);
requestAnimationFrame(step);
"#;
