//! The in-browser run benchmark (issue 19): for each model, the time from asking for a
//! run to the outputs painted in headless Chromium (`run_ms`, measured by the app from
//! the request to the frame after the outputs arrived), the first run of a page (which
//! loads onnxruntime-web) and a second one (the Run button again, the session reused),
//! against onnxruntime in Python on the same inputs in the same run (its session
//! creation plus its first run, and its best later run); and the largest difference
//! between the page's outputs and Python's.
//!
//! Does nothing unless `GRAFT_RUN_BENCH=1` (`cargo xtask bench-run` sets it).
//! `GRAFT_RUN_BENCH_RUNS` sets the fresh pages per model (default 3). The models, their
//! inputs and Python's outputs are written under `dist/run-bench/` (served with the
//! app, so the page fetches them from its own origin) by `tests/interop/run_bench.py`;
//! the table goes to stdout and `target/bench/run.json`.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use graft_tests::corpus::root;
use graft_tests::e2e::App;
use graft_tests::webdriver::wait_until;

/// How long one run may take, the page's load and onnxruntime-web's included.
const TIMEOUT: Duration = Duration::from_secs(300);

fn main() {
    if std::env::var("GRAFT_RUN_BENCH").ok().as_deref() != Some("1") {
        println!("run_bench: skipped (GRAFT_RUN_BENCH=1, set by `cargo xtask bench-run`, runs it)");
        return;
    }
    let corpus = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/corpus"));
    let runs: usize = std::env::var("GRAFT_RUN_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let examples = root().join("assets/examples");
    let inputs = examples.join("inputs/silero_vad");
    let file = |name: &str| json!({ "file": inputs.join(format!("{name}.npy")) });
    let rapidocr = corpus.join("real/rapidocr-onnxruntime/rapidocr_onnxruntime/models");
    let specs = json!([
        { "name": "silero_vad", "path": examples.join("silero_vad.onnx"),
          "feeds": { "input": { "fill": file("input") }, "state": { "fill": file("state") },
                     "sr": { "fill": file("sr") } } },
        { "name": "rapidocr_rec", "path": rapidocr.join("ch_PP-OCRv4_rec_infer.onnx"),
          "feeds": { "x": { "shape": [1, 3, 48, 320] } } },
        { "name": "large_10k", "path": corpus.join("generated/large_10k.onnx"),
          "feeds": { "x": { "shape": [1, 96] } } },
        { "name": "rapidocr_det", "path": rapidocr.join("ch_PP-OCRv4_det_infer.onnx"),
          "feeds": { "x": { "shape": [1, 3, 320, 320] } } },
        { "name": "rapidocr_cls", "path": rapidocr.join("ch_ppocr_mobile_v2.0_cls_infer.onnx"),
          "feeds": { "x": { "shape": [1, 3, 48, 192] } } },
        { "name": "nemo128_conv",
          "path": corpus.join("real/onnx-asr/onnx_asr/preprocessors/data/nemo128_conv.onnx"),
          "feeds": { "waveforms": { "shape": [1, 16000] },
                     "waveforms_lens": { "shape": [1], "fill": 16000 } } },
        { "name": "functions_and_control_flow",
          "path": examples.join("functions_and_control_flow.onnx"),
          "feeds": { "x": { "shape": [2, 8] } } },
        { "name": "transformer_24", "path": examples.join("transformer_24.onnx"),
          "feeds": { "hidden_in": { "fill": { "file": examples.join("inputs/transformer_24/hidden_in.npy") } },
                     "attention_mask": { "fill": { "file": examples.join("inputs/transformer_24/attention_mask.npy") } } } },
    ]);
    let specs: Vec<Value> = specs
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| PathBuf::from(s["path"].as_str().unwrap()).exists())
        .cloned()
        .collect();
    let out = root().join("dist/run-bench");
    let bench = root().join("target/bench");
    std::fs::create_dir_all(&bench).unwrap();
    let spec_path = bench.join("run-spec.json");
    std::fs::write(&spec_path, serde_json::to_string(&specs).unwrap()).unwrap();
    let status = Command::new(graft_tests::corpus::python())
        .arg(root().join("tests/interop/run_bench.py"))
        .arg(&spec_path)
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success(), "run_bench.py failed");

    let mut table = Vec::new();
    println!(
        "| model | Graft first run (ms) | Graft second run (ms) | onnxruntime Python session + run (ms) | its best run (ms) | ratio first / Python | max abs diff |"
    );
    println!("|---|---|---|---|---|---|---|");
    for spec in &specs {
        let name = spec["name"].as_str().unwrap();
        let here = out.join(name);
        let python: Value =
            serde_json::from_str(&std::fs::read_to_string(here.join("python.json")).unwrap())
                .unwrap();
        let query: String = python["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pair| {
                let input = pair[0].as_str().unwrap();
                let file = pair[1].as_str().unwrap();
                format!(
                    "&input={}",
                    encode(&format!("{input}:run-bench/{name}/{file}"))
                )
            })
            .collect();
        let mut first = Vec::new();
        let mut second = Vec::new();
        let mut worst: f64 = 0.0;
        for _ in 0..runs {
            let app = App::open();
            let url = format!("{}?model=run-bench/{name}/model.onnx&run{query}", app.url);
            app.browser.goto(&url).unwrap();
            let run = wait_until(TIMEOUT, "window.__graftRun", || {
                let v = app
                    .browser
                    .execute("return window.__graftRun ?? null", vec![])?;
                Ok((!v.is_null()).then_some(v))
            })
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", app.diagnosis()));
            assert_eq!(run["status"], "ok", "{name}: {run}");
            let ms = run_ms(&app, None);
            first.push(ms);
            // The Run button again: the session is reused.
            app.click("tab-run");
            app.click("run-button");
            second.push(run_ms(&app, Some(ms)));
            for pair in python["outputs"].as_array().unwrap() {
                let output = pair[0].as_str().unwrap();
                let bytes = std::fs::read(here.join(pair[1].as_str().unwrap())).unwrap();
                let want =
                    graft::values::numbers(&graft::edit::npy_tensor(&bytes).unwrap()).unwrap();
                let got: Vec<f64> = run["outputs"][output]["data"]
                    .as_array()
                    .unwrap_or_else(|| panic!("{name}: no data for {output}"))
                    .iter()
                    .map(|v| v.as_f64().unwrap_or(f64::NAN))
                    .collect();
                assert_eq!(got.len(), want.len(), "{name}: {output}");
                for (g, w) in got.iter().zip(&want) {
                    worst = worst.max((g - w).abs());
                }
            }
        }
        let median = |v: &mut Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        let (f, s) = (median(&mut first), median(&mut second));
        let py = python["create_ms"].as_f64().unwrap() + python["first_run_ms"].as_f64().unwrap();
        let best = python["best_run_ms"].as_f64().unwrap();
        println!(
            "| {name} | {f:.0} | {s:.0} | {py:.0} | {best:.1} | {:.1}x | {worst:.2e} |",
            f / py
        );
        table.push(json!({
            "model": name, "graft_first_ms": first, "graft_second_ms": second,
            "python_create_plus_run_ms": py, "python_best_run_ms": best,
            "onnxruntime": python["onnxruntime"], "max_abs_diff": worst,
        }));
    }
    std::fs::write(
        bench.join("run.json"),
        serde_json::to_string_pretty(&table).unwrap(),
    )
    .unwrap();
}

/// `window.__graftTimings.run_ms` once it is there and differs from `before`.
fn run_ms(app: &App, before: Option<f64>) -> f64 {
    wait_until(TIMEOUT, "run_ms", || {
        let v = app
            .browser
            .execute("return window.__graftTimings?.run_ms ?? null", vec![])?;
        Ok(v.as_f64().filter(|ms| Some(*ms) != before))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
}

/// `text` for a URL's query: everything but unreserved characters percent-encoded.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
