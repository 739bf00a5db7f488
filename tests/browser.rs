//! The browser tier: the built app in headless Chromium, driven the way a person uses it
//! (open an example, pick files, drop files, export), with what the page shows checked
//! against what the core computes natively for the same files.
//!
//! Needs `dist/` (trunk build), Chromium and chromedriver, so every test is ignored in
//! a plain `cargo test` (reported as ignored, never as passed); `cargo xtask test`
//! builds the app and runs them with `--ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use graft::Summary;
use graft_tests::corpus::root;
use graft_tests::e2e::{self, App};
use graft_tests::webdriver::{testid, unless_stale, wait_until};
use serde_json::json;

const STARTUP_EXAMPLE: &str = "functions_and_control_flow.onnx";

/// What the core reports for a model file (and the data files beside it).
fn native_summary(model: &Path, data: &[&Path]) -> Summary {
    let bytes = std::fs::read(model).unwrap_or_else(|e| panic!("{}: {e}", model.display()));
    let imported = graft::import(bytes::Bytes::from(bytes))
        .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
    let mut model_ir = imported.model;
    for file in data {
        let bytes = std::fs::read(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        model_ir.attach_external(file_name(file), bytes::Bytes::from(bytes));
    }
    // The app shows the importer's findings and the checker's.
    let mut diagnostics = imported.diagnostics;
    diagnostics.extend(graft::check::check(&model_ir));
    Summary::of(&model_ir, &diagnostics)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default()
        .to_string()
}

/// Checks every fact the summary panel shows against the native summary.
fn assert_summary_matches(app: &App, expected: &Summary, what: &str) {
    let counts = [
        ("nodes-total", expected.nodes_total as u64),
        ("nodes-main", expected.nodes_main as u64),
        ("functions", expected.functions as u64),
        ("overloads", expected.overloads as u64),
        ("initializers", expected.initializers as u64),
        ("initializer-bytes", expected.initializer_bytes),
        ("external-tensors", expected.external_tensors as u64),
        ("max-depth", expected.max_subgraph_depth as u64),
    ];
    for (id, value) in counts {
        assert_eq!(app.number(id), value, "{what}: [data-testid={id}]");
    }
    // What a person reads, not only the data attribute: the count with separators.
    assert_eq!(
        app.text("nodes-total").replace(',', ""),
        expected.nodes_total.to_string(),
        "{what}: nodes-total text"
    );
    let ir = expected
        .ir_version
        .map_or("—".to_string(), |v| v.to_string());
    assert_eq!(app.text("ir-version"), ir, "{what}: IR version");
    let producer = app.text("producer");
    assert!(
        producer.contains(expected.producer_name.trim())
            && producer.contains(expected.producer_version.trim()),
        "{what}: producer shows {producer:?}, the model says {:?} {:?}",
        expected.producer_name,
        expected.producer_version
    );
    let opsets = app.text("opsets");
    for opset in &expected.opset_import {
        let domain = if opset.domain.is_empty() {
            "ai.onnx"
        } else {
            &opset.domain
        };
        let version = opset.version.map_or("?".to_string(), |v| v.to_string());
        assert!(
            opsets.contains(&format!("{domain} {version}")),
            "{what}: opsets show {opsets:?}, missing {domain} {version}"
        );
    }
    for (id, entries) in [("inputs", &expected.inputs), ("outputs", &expected.outputs)] {
        let shown = app.text(id);
        for entry in entries.iter() {
            assert!(
                shown.contains(&entry.name) && shown.contains(&entry.r#type),
                "{what}: {id} show {shown:?}, missing {} {}",
                entry.name,
                entry.r#type
            );
        }
    }
    let metadata = app.text("metadata");
    for (key, value) in &expected.metadata {
        assert!(
            metadata.contains(key.as_str()) && metadata.contains(value.trim()),
            "{what}: metadata shows {metadata:?}, missing {key}={value}"
        );
    }
    let diagnostics = app.text("diagnostics");
    for d in &expected.diagnostics {
        assert!(
            diagnostics.contains(d.code) && diagnostics.contains(d.message.trim()),
            "{what}: diagnostics show {diagnostics:?}, missing {d}"
        );
    }
}

fn example(name: &str) -> PathBuf {
    root().join("assets/examples").join(name)
}

/// The corpus directory; the browser tier needs it, so a missing corpus fails.
fn corpus() -> PathBuf {
    graft_tests::corpus::dir().expect("the browser tier needs the corpus: run `cargo xtask corpus`")
}

fn python() -> PathBuf {
    let python = graft_tests::corpus::python();
    assert!(
        python.exists(),
        "no Python with onnx at {}: set GRAFT_PYTHON or run `cargo xtask test`",
        python.display()
    );
    python
}

/// Whether the onnx package reads `a` and `b` as equal ModelProtos.
fn assert_equal_models(a: &Path, b: &Path) {
    let output = Command::new(python())
        .arg(root().join("tests/interop/equal.py"))
        .arg(a)
        .arg(b)
        .output()
        .unwrap_or_else(|e| panic!("cannot run equal.py: {e}"));
    assert!(
        output.status.success(),
        "exported {} differs from {}:\n{}{}",
        b.display(),
        a.display(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

fn choose_files(app: &App, files: &[&Path]) {
    let input = app.wait("file-input");
    app.browser
        .choose_files(&input, files)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn bundled_example_summary_appears_on_load() {
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    let expected = native_summary(&example(STARTUP_EXAMPLE), &[]);
    assert!(
        expected.nodes_total > 0 && expected.functions > 0,
        "the startup example should show functions and nodes"
    );
    assert_summary_matches(&app, &expected, STARTUP_EXAMPLE);
    assert_eq!(app.error(), "", "no error on a clean start");
    let select = app.wait("example-select");
    assert_eq!(
        app.browser.property(&select, "value").unwrap(),
        json!(STARTUP_EXAMPLE),
        "the example picker shows the open example"
    );
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn example_picker_opens_the_other_example() {
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    let option = app
        .browser
        .wait_for(
            &format!("{} option[value=\"mlp.onnx\"]", testid("example-select")),
            e2e::TIMEOUT,
        )
        .unwrap();
    app.browser.click(&option).unwrap();
    app.wait_for_model("mlp.onnx");
    assert_summary_matches(&app, &native_summary(&example("mlp.onnx"), &[]), "mlp.onnx");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn corpus_models_open_through_the_file_picker() {
    let corpus = corpus();
    let mut models = vec![
        corpus.join("generated/nested_functions.onnx"),
        corpus.join("generated/overloads.onnx"),
        corpus.join("generated/control_flow.onnx"),
        corpus.join("generated/metadata_everything.onnx"),
        corpus.join("node/test_abs/model.onnx"),
    ];
    models.extend(
        graft_tests::corpus::files(&corpus.join("real"), &[".onnx"])
            .into_iter()
            .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() < 4 << 20))
            .take(2),
    );
    models.retain(|p| p.exists());
    assert!(
        models.len() >= 3,
        "too few corpus models found under {}",
        corpus.display()
    );
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    for model in &models {
        let name = file_name(model);
        choose_files(&app, &[model]);
        app.wait_for_model(&name);
        assert_summary_matches(
            &app,
            &native_summary(model, &[]),
            &model.display().to_string(),
        );
        assert_eq!(app.error(), "", "{name}: no error");
    }
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_corrupt_file_shows_an_error_and_keeps_the_open_model() {
    let corrupt = corpus().join("corrupt/random.bin");
    let bytes = std::fs::read(&corrupt).unwrap_or_else(|e| panic!("{}: {e}", corrupt.display()));
    let import_error = graft::import(bytes::Bytes::from(bytes))
        .expect_err("random.bin must not import")
        .to_string();

    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    let before = app.text("summary");
    choose_files(&app, &[&corrupt]);
    let error = app.wait_for_error();
    assert!(
        error.contains(&format!("random.bin: {import_error}")),
        "the error names the file and says why: {error:?}"
    );
    assert_eq!(
        app.text("model-name"),
        STARTUP_EXAMPLE,
        "the previous model stays open"
    );
    assert_eq!(
        app.text("summary"),
        before,
        "the previous summary is unchanged"
    );

    // Opening a good model afterwards clears the error.
    let good = example("mlp.onnx");
    choose_files(&app, &[&good]);
    app.wait_for_model("mlp.onnx");
    assert_eq!(app.error(), "", "a model that opens clears the error");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn export_downloads_a_model_equal_to_the_input() {
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    let corpus_model = corpus().join("generated/metadata_everything.onnx");
    // Chosen files keep their big payloads in the file until the export reads them:
    // silero_vad's in Constants of If branches, rapidocr rec's in Constants (22 of 64
    // KiB or more, one of 3 MB, jumped over while opening).
    let rec = corpus()
        .join("real/rapidocr-onnxruntime/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx");
    for (name, input) in [
        (STARTUP_EXAMPLE.to_string(), example(STARTUP_EXAMPLE)),
        (file_name(&corpus_model), corpus_model.clone()),
        ("silero_vad.onnx".to_string(), example("silero_vad.onnx")),
        (file_name(&rec), rec.clone()),
    ] {
        if name != STARTUP_EXAMPLE {
            choose_files(&app, &[&input]);
            app.wait_for_model(&name);
        }
        app.click("export-button");
        let downloaded = app
            .browser
            .wait_for_download(&name, e2e::TIMEOUT)
            .unwrap_or_else(|e| panic!("{e}"));
        let size = std::fs::metadata(&downloaded).unwrap().len();
        assert!(size > 0, "{name}: the download is empty");
        assert_equal_models(&input, &downloaded);
        assert_eq!(app.error(), "", "{name}: export shows no error");
    }
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_chosen_file_changed_on_disk_fails_the_export_by_name_and_stays_open() {
    let scratch = graft_tests::webdriver::TempDir::new("changed").unwrap();
    let model = scratch.path().join("rec.onnx");
    let rec = corpus()
        .join("real/rapidocr-onnxruntime/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx");
    std::fs::copy(&rec, &model).unwrap();
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    choose_files(&app, &[&model]);
    app.wait_for_model("rec.onnx");
    let summary = app.text("summary");
    // Its weights are still in the file, which is written again meanwhile.
    let mut bytes = std::fs::read(&model).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(&model, &bytes).unwrap();
    app.click("export-button");
    let error = app.wait_for_error();
    assert!(
        error.contains("cannot read the bytes of") && error.contains("from the model's file"),
        "{error}"
    );
    assert_eq!(app.text("model-name"), "rec.onnx", "the model stays open");
    assert_eq!(app.text("summary"), summary, "and unchanged");
}

/// A model whose tensors live in a data file, and that file.
fn external_model(scratch: &Path) -> (PathBuf, PathBuf) {
    let generated = corpus().join("generated");
    let model = generated.join("large_10k_external.onnx");
    let data = generated.join("large_10k_external.onnx.data");
    if model.exists() && data.exists() {
        return (model, data);
    }
    // No corpus copy: write a small one with the onnx package.
    let model = scratch.join("small_external.onnx");
    let script = r#"
import sys, numpy as np, onnx
from onnx import helper, numpy_helper, TensorProto
w = numpy_helper.from_array(np.arange(4096, dtype=np.float32).reshape(64, 64), "w")
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [w])
m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
onnx.save_model(m, sys.argv[1], save_as_external_data=True, all_tensors_to_one_file=True,
    location="small_external.onnx.data", size_threshold=0)
"#;
    let status = Command::new(python())
        .args(["-c", script])
        .arg(&model)
        .status()
        .expect("cannot run python");
    assert!(
        status.success(),
        "writing a model with external data failed"
    );
    (model, scratch.join("small_external.onnx.data"))
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn external_data_opened_with_its_model_is_supplied() {
    let scratch = graft_tests::webdriver::TempDir::new("external").unwrap();
    let (model, data) = external_model(scratch.path());
    let name = file_name(&model);
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);

    // The model alone: its data file is reported missing.
    choose_files(&app, &[&model]);
    app.wait_for_model(&name);
    let alone = native_summary(&model, &[]);
    assert!(alone.external_tensors > 0, "{name} has external tensors");
    assert_eq!(
        app.number("external-tensors"),
        alone.external_tensors as u64
    );
    let files = app.text("external-files");
    assert!(
        files.contains("missing") && !files.contains("supplied"),
        "{files:?}"
    );

    // The model with its data file (data file first: the .onnx one is the model).
    choose_files(&app, &[&data, &model]);
    let supplied = wait_until(e2e::TIMEOUT, "the data file to be supplied", || {
        let Some(element) = app.browser.by_testid("external-files")? else {
            return Ok(None);
        };
        let text = app.browser.text(&element)?;
        Ok((text.contains("supplied") && !text.contains("missing")).then_some(text))
    })
    .unwrap_or_else(|e| panic!("{e}; error banner: {:?}", app.error()));
    assert!(supplied.contains(&file_name(&data)), "{supplied:?}");
    assert_eq!(app.text("model-name"), name);
    let expected = native_summary(&model, &[&data]);
    assert!(expected.external_files.iter().all(|(_, present)| *present));
    assert_summary_matches(&app, &expected, &name);
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn opening_shows_its_progress_and_cancel_keeps_the_open_model() {
    let large = corpus().join("generated/large_10k.onnx");
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    let before = app.text("summary");
    choose_files(&app, &[&large]);
    // 125 MB are read a slice at a time, then decoded, checked, inferred and laid
    // out: Cancel is there all along. It is clicked as soon as it shows (in the page:
    // a round trip per step from here could miss an open this fast), and what the
    // progress said then is kept.
    let progress = app
        .browser
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
               const look = () => {
                 const cancel = document.querySelector('[data-testid="open-cancel"]');
                 if (!cancel) return requestAnimationFrame(look);
                 const said = document.querySelector('[data-testid="open-progress"]').textContent;
                 cancel.click();
                 done(said);
               };
               look();"#,
            vec![],
        )
        .unwrap();
    let progress = progress.as_str().unwrap_or_default().to_string();
    assert!(
        [
            "Opening large_10k.onnx",
            "Reading large_10k.onnx",
            "Decoding",
            "Checking",
            "Inferring",
            "Laying out",
            "Drawing"
        ]
        .iter()
        .any(|stage| progress.contains(stage)),
        "the banner says how far the open has come: {progress:?}"
    );
    assert!(
        app.get("open-cancel").is_none(),
        "the progress goes once cancelled"
    );
    // Long enough for the cancelled open to have finished had it gone on.
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert_eq!(
        app.text("model-name"),
        STARTUP_EXAMPLE,
        "the open model stays"
    );
    assert_eq!(app.text("summary"), before, "and is unchanged");
    assert_eq!(app.error(), "", "a cancel is not an error");

    // Esc cancels too, with the focus on the file input that chose the file (where a
    // browser leaves it after its file dialog).
    choose_files(&app, &[&large]);
    app.browser
        .execute(
            r#"document.querySelector('[data-testid="file-input"]').focus();"#,
            vec![],
        )
        .unwrap();
    app.browser.press_keys(&[], "\u{E00C}").unwrap();
    std::thread::sleep(std::time::Duration::from_secs(3));
    assert_eq!(
        app.text("model-name"),
        STARTUP_EXAMPLE,
        "Esc leaves the open model"
    );
    assert!(app.get("open-cancel").is_none(), "and ends the progress");
    assert_eq!(app.error(), "", "without an error");

    // Not cancelled, the same file opens and the progress goes away.
    choose_files(&app, &[&large]);
    app.wait_for_model("large_10k.onnx");
    assert!(
        app.get("open-progress").is_none(),
        "the progress goes once open"
    );
    assert_summary_matches(&app, &native_summary(&large, &[]), "large_10k.onnx");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_file_dropped_on_the_page_opens() {
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    // What a drop delivers: a DataTransfer holding the file, dispatched at the page
    // (not on the "inline" zone, so the dropped model replaces the open one).
    drop_file(&app, "examples/mlp.onnx", "mlp.onnx", "main");
    app.wait_for_model("mlp.onnx");
    assert!(
        app.get("drop-zone").is_none(),
        "the drop zone goes away after the drop"
    );
    assert_summary_matches(
        &app,
        &native_summary(&example("mlp.onnx"), &[]),
        "dropped mlp.onnx",
    );
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn the_page_fits_1280x720_in_light_and_dark() {
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    app.browser.set_viewport(1280, 720).unwrap();
    let out = root().join("target/browser");
    let mut backgrounds = Vec::new();
    for dark in [false, true] {
        app.browser.set_color_scheme(dark).unwrap();
        // Let the style recalculation land before measuring.
        std::thread::sleep(Duration::from_millis(200));
        let layout = app
            .browser
            .execute(
                "return [document.documentElement.scrollWidth, window.innerWidth,
                         getComputedStyle(document.body).backgroundColor];",
                vec![],
            )
            .unwrap();
        let (scroll, inner) = (layout[0].as_u64().unwrap(), layout[1].as_u64().unwrap());
        assert!(
            scroll <= inner,
            "no horizontal scrolling at 1280 wide ({scroll} > {inner})"
        );
        backgrounds.push(layout[2].as_str().unwrap_or_default().to_string());
        let theme = if dark { "dark" } else { "light" };
        app.browser
            .screenshot(&out.join(format!("summary-{theme}.png")))
            .unwrap();
    }
    assert_ne!(
        backgrounds[0], backgrounds[1],
        "the dark theme changes the page"
    );

    // The theme switch overrides the system setting (still dark here): auto, light,
    // dark, auto again; the choice survives a reload.
    let state = |app: &App| {
        let v = app
            .browser
            .execute(
                "return [document.documentElement.dataset.theme,
                         getComputedStyle(document.body).backgroundColor];",
                vec![],
            )
            .unwrap();
        (
            v[0].as_str().unwrap_or_default().to_string(),
            v[1].as_str().unwrap_or_default().to_string(),
        )
    };
    assert_eq!(state(&app), ("dark".to_string(), backgrounds[1].clone()));
    let switch = app.wait("theme-toggle");
    assert_eq!(app.browser.text(&switch).unwrap(), "Theme: auto");
    app.browser.click(&switch).unwrap();
    assert_eq!(
        state(&app),
        ("light".to_string(), backgrounds[0].clone()),
        "forced light"
    );
    app.browser.goto(&app.url).unwrap();
    app.wait_for_model(STARTUP_EXAMPLE);
    assert_eq!(state(&app).0, "light", "the choice is remembered");
    let switch = app.wait("theme-toggle");
    app.browser.click(&switch).unwrap();
    assert_eq!(
        state(&app),
        ("dark".to_string(), backgrounds[1].clone()),
        "forced dark"
    );
    app.browser.set_color_scheme(false).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(state(&app).0, "dark", "a forced theme ignores the system");
    app.browser.click(&switch).unwrap();
    assert_eq!(state(&app).0, "light", "auto follows the system again");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn text_tab_shows_the_model_and_each_function_as_the_core_prints_them() {
    let path = example(STARTUP_EXAMPLE);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let model = graft::import(bytes::Bytes::from(bytes))
        .expect("imports")
        .model;
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    app.click("tab-text");
    let text_of = |app: &App| {
        let view = app.wait("text-view");
        app.browser
            .property(&view, "textContent")
            .unwrap()
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let expected = graft::text::print_model(&model);
    assert!(
        expected.contains("=>"),
        "the printed model has a graph signature"
    );
    let shows = |app: &App, expected: &str| {
        wait_until(
            e2e::TIMEOUT,
            "the text view to show the printed text",
            || Ok((text_of(app) == expected).then_some(())),
        )
    };
    shows(&app, &expected).unwrap_or_else(|e| {
        panic!(
            "{e}: text tab shows {:?}, expected {expected:?}",
            text_of(&app)
        )
    });

    let shots = graft_tests::corpus::root().join("target/browser");
    let _ = std::fs::create_dir_all(&shots);
    let _ = app.browser.screenshot(&shots.join("text-tab.png"));

    let function = *model.functions.first().expect("the example has a function");
    let option = app
        .browser
        .wait_for(
            &format!("{} option[value=\"0\"]", testid("text-scope")),
            e2e::TIMEOUT,
        )
        .unwrap();
    app.browser.click(&option).unwrap();
    let expected = graft::text::print_function(&model, function);
    shows(&app, &expected).unwrap_or_else(|e| {
        panic!(
            "{e}: function text shows {:?}, expected {expected:?}",
            text_of(&app)
        )
    });
}

/// The text of every drawn box of the graph, one string.
fn graph_text(app: &App) -> String {
    let graph = app.wait("graph");
    app.browser
        .property(&graph, "textContent")
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Clicks the expand/collapse marker of the box whose node is named `name` (found
/// again if a redraw replaced it: see [`click_node`]).
fn toggle(app: &App, name: &str) {
    let css = format!("{} g[data-name=\"{name}\"] [data-toggle]", testid("graph"));
    wait_until(e2e::TIMEOUT, &format!("a click on {name}'s marker"), || {
        let marker = app.browser.wait_for(&css, e2e::TIMEOUT)?;
        unless_stale(app.browser.click(&marker))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

fn wait_for_graph_text(app: &App, needle: &str, what: &str) {
    wait_until(e2e::TIMEOUT, what, || {
        Ok(graph_text(app).contains(needle).then_some(()))
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}: the graph shows {:?}\n{}",
            graph_text(app),
            app.diagnosis()
        )
    });
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn graph_expands_a_function_call_and_an_if_in_place() {
    let app = App::open();
    // Tall enough that the expanded bodies stay on screen (only what is on screen is
    // drawn).
    app.browser.set_viewport(1600, 2400).unwrap();
    app.wait("graph-ready");
    let ready = app
        .browser
        .execute("return window.__graftReady === true;", vec![])
        .unwrap();
    assert_eq!(ready, json!(true), "window.__graftReady is set once drawn");
    let collapsed = graph_text(&app);
    assert!(
        collapsed.contains("ScaledTanh") && collapsed.contains("act1"),
        "the call is drawn: {collapsed:?}"
    );
    assert!(
        !collapsed.contains("value_float"),
        "the body is not drawn while collapsed"
    );

    // The call with alpha = 0.5: its body shows the call's value, not @alpha.
    toggle(&app, "act1");
    wait_for_graph_text(&app, "value_float = 0.5", "the expanded call to show alpha");
    assert!(!graph_text(&app).contains("@alpha"));
    // The call without alpha: the function's default, marked as such.
    toggle(&app, "act2");
    wait_for_graph_text(
        &app,
        "value_float = 1.0 (default)",
        "the second call to show the default",
    );

    // The If: both branches, with the outer values they read as inputs.
    toggle(&app, "gate/if");
    wait_for_graph_text(&app, "then_branch", "the If's branches");
    let text = graph_text(&app);
    assert!(
        text.contains("else_branch") && text.contains("Relu"),
        "{text:?}"
    );

    let shots = root().join("target/browser");
    let _ = std::fs::create_dir_all(&shots);
    let _ = app.browser.screenshot(&shots.join("graph-expanded.png"));

    // Collapsing puts the call back to one box.
    toggle(&app, "act1");
    wait_until(e2e::TIMEOUT, "the call to collapse", || {
        Ok((!graph_text(&app).contains("value_float = 0.5")).then_some(()))
    })
    .unwrap();
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn search_finds_a_node_inside_a_function_body_and_jumps_to_it() {
    let app = App::open();
    app.wait("graph-ready");
    assert!(
        !graph_text(&app).contains("unscale"),
        "the body node is not drawn before the search"
    );
    let input = app.wait("search-input");
    app.browser.send_keys(&input, "unscale\n").unwrap();
    let results = wait_until(e2e::TIMEOUT, "search results", || {
        let found = app.browser.find_all(&testid("search-result"))?;
        Ok((!found.is_empty()).then_some(found))
    })
    .unwrap();
    // One Div named "unscale" per call of ScaledTanh.
    assert_eq!(results.len(), 2, "both call sites' bodies hold the node");
    app.browser.click(&results[0]).unwrap();
    wait_for_graph_text(&app, "unscale", "the found node to be drawn");
    let selected = app
        .browser
        .find(&format!(
            "{} g.g-hit[data-name=\"unscale\"]",
            testid("graph")
        ))
        .unwrap();
    let hits = app
        .browser
        .execute(
            "return [...document.querySelectorAll('g.g-hit')].map(g => g.outerHTML.slice(0, 120));",
            vec![],
        )
        .unwrap();
    assert!(selected.is_some(), "the found node is highlighted: {hits}");
    let props = app.text("properties");
    assert!(
        props.contains("Div"),
        "the properties show the op: {props:?}"
    );
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_torch_export_is_grouped_by_its_modules_and_shows_their_metadata() {
    let app = app_at("torch_transformer.onnx");

    app.wait("graph-ready");
    wait_for_graph_text(&app, "enc · TransformerEncoder", "the module groups");
    assert!(graph_text(&app).contains("head · Linear"));
    // The search finds a node of the first layer's attention; its properties show
    // where in the torch program it came from.
    let input = app.wait("search-input");
    app.browser.send_keys(&input, "node_linear\n").unwrap();
    let results = wait_until(e2e::TIMEOUT, "search results", || {
        let found = app.browser.find_all(&testid("search-result"))?;
        Ok((!found.is_empty()).then_some(found))
    })
    .unwrap();
    app.browser.click(&results[0]).unwrap();
    wait_for_graph_text(
        &app,
        "enc.layers.0 · TransformerEncoderLayer",
        "the layer opened",
    );
    let modules = app.text("property-modules");
    assert!(
        modules.contains("enc.layers.0.self_attn · torch.nn.modules.activation.MultiheadAttention"),
        "{modules}"
    );
    let source = app.text("property-source");
    assert!(
        source.contains("in forward: return self.head(self.enc(x))"),
        "{source}"
    );
    let metadata = app.text("property-metadata");
    assert!(metadata.contains("Metadata (5)"), "{metadata}");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_model_url_in_the_query_opens_that_model() {
    let app = app_at("transformer_24.onnx");

    app.wait("graph-ready");
    app.wait_for_model("transformer_24.onnx");
    // Another model picked: the address names it alone, so a reload opens it (with
    // its selection), not the URL's model with the example's view.
    app.click_css(&format!(
        "{} option[value=\"{STARTUP_EXAMPLE}\"]",
        testid("example-select")
    ));
    app.wait_for_model(STARTUP_EXAMPLE);
    app.click("tab-graph");
    app.browser.set_viewport(1600, 1400).unwrap();
    click_node(&app, "residual", false);
    let address = wait_until(e2e::TIMEOUT, "the selection in the address", || {
        let href = app
            .browser
            .execute("return window.location.href;", vec![])?;
        let href = href.as_str().unwrap_or_default().to_string();
        Ok(href.contains("sel=").then_some(href))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(
        !address.contains("model=") && address.contains(&format!("example={STARTUP_EXAMPLE}")),
        "{address}"
    );
    app.browser.goto(&address).unwrap();
    app.wait_for_model(STARTUP_EXAMPLE);
    app.click("tab-graph");
    app.wait("graph-ready");
    wait_until(e2e::TIMEOUT, "residual selected again", || {
        Ok(app
            .browser
            .find(&format!(
                "{} g.g-hit[data-name=\"residual\"]",
                testid("graph")
            ))?
            .map(|_| ()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

/// `?model=` reads the model's data files from beside it on the same origin, as a
/// file on disk is read with the files beside it; one the server does not have is
/// named, with what to do.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_model_url_reads_its_external_data_from_beside_it() {
    // The MLP example with its weights in a data file beside it, as torch writes.
    let (with, without) = (
        e2e::dist().join("test-external"),
        e2e::dist().join("test-missing"),
    );
    for dir in [&with, &without] {
        let _ = std::fs::remove_dir_all(dir);
        std::fs::create_dir_all(dir).unwrap();
    }
    python_passes(
        r#"
import sys, onnx
from onnx.external_data_helper import convert_model_to_external_data
m = onnx.load("assets/examples/mlp.onnx")
convert_model_to_external_data(m, all_tensors_to_one_file=True,
                               location="mlp_external.onnx.data", size_threshold=0)
onnx.save_model(m, sys.argv[1] + "/mlp_external.onnx")
"#,
        with.to_str().unwrap(),
    );
    std::fs::copy(
        with.join("mlp_external.onnx"),
        without.join("mlp_external.onnx"),
    )
    .unwrap();

    let app = App::open();
    app.browser
        .goto(&format!(
            "{}?model=test-external/mlp_external.onnx",
            app.url
        ))
        .unwrap();
    app.wait_for_model("mlp_external.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
    let problems = app.get("problems").map(|p| app.browser.text(&p).unwrap());
    assert!(
        !problems.as_deref().unwrap_or("").contains("external data"),
        "{problems:?}"
    );
    let bytes = exported_bytes(&app);
    let exported = graft::import(bytes.into()).expect("the export imports");
    assert!(
        exported.model.external_locations().is_empty(),
        "the weights are embedded"
    );

    app.browser
        .goto(&format!("{}?model=test-missing/mlp_external.onnx", app.url))
        .unwrap();
    app.wait_for_model("mlp_external.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
    let problems = app.text("problems");
    assert!(
        problems.contains("\"mlp_external.onnx.data\" is missing")
            && problems.contains("not found beside the model"),
        "{problems}"
    );
    let refused = try_exported_bytes(&app).unwrap_err();
    assert!(
        refused.contains("mlp_external.onnx.data") && !refused.contains("of tensor"),
        "{refused}"
    );
}

/// Selecting an If shows each body as a summary (its node count, inputs and
/// outputs) with "open", not its text: silero_vad's If dumped about 7 MB, weights
/// and all, and pushed the node's own controls a million pixels down.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn an_if_shows_its_bodies_as_summaries_that_open_in_place() {
    let app = app_at("silero_vad.onnx");
    app.browser.set_viewport(1600, 1400).unwrap();

    app.wait_for_model("silero_vad.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
    click_node(&app, "If_0", false);
    let editor = app.text("node-editor");
    assert!(
        editor.len() < 20_000,
        "{} characters in the editor",
        editor.len()
    );
    assert!(
        editor.contains("then_branch: a body of ") && editor.contains("else_branch: a body of "),
        "{editor}"
    );
    let before = graph_text(&app);
    app.click("node-open-body-then_branch");
    wait_until(e2e::TIMEOUT, "the If opened in place", || {
        Ok((graph_text(&app).len() > before.len() + 100).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

/// The header and the tab name the open file; the help lists the editing keys and
/// drag and drop.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn the_header_and_the_tab_name_the_open_file() {
    let app = App::open();
    app.wait_for_model(STARTUP_EXAMPLE);
    assert_eq!(app.text("toolbar-model"), STARTUP_EXAMPLE);
    let title = app
        .browser
        .execute("return document.title;", vec![])
        .unwrap();
    assert_eq!(
        title,
        serde_json::json!(format!("{STARTUP_EXAMPLE} — Graft"))
    );
    app.click_css(&format!(
        "{} option[value=\"mlp.onnx\"]",
        testid("example-select")
    ));
    app.wait_for_model("mlp.onnx");
    assert_eq!(app.text("toolbar-model"), "mlp.onnx");
    app.click("tab-graph");
    app.click("help");
    let help = app.text("help-overlay");
    assert!(
        help.contains("Delete") && help.contains("Ctrl+Z") && help.contains("Drop files"),
        "{help}"
    );
}

/// Esc clears the selection everywhere: the properties, and the selection's count
/// and Outline….
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn escape_clears_the_whole_selection() {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.wait("graph-ready");
    click_node(&app, "fc2/MatMul", false);
    assert_eq!(app.text("selection-count"), "1 node selected");
    app.wait("outline-open");
    // In a field of the node's editor, Esc leaves the field and keeps the selection.
    let name = app.wait("node-name");
    app.browser.click(&name).unwrap();
    app.browser.press_keys(&[], "\u{E00C}").unwrap();
    let focused = app
        .browser
        .execute(
            "return document.activeElement.dataset.testid || '';",
            vec![],
        )
        .unwrap();
    assert_ne!(
        focused,
        serde_json::json!("node-name"),
        "Esc left the field"
    );
    assert_eq!(app.text("selection-count"), "1 node selected");
    app.browser.press_keys(&[], "\u{E00C}").unwrap();
    wait_until(e2e::TIMEOUT, "the selection gone", || {
        let left = app.browser.find_all(&testid("selection"))?.len()
            + app
                .browser
                .find_all(&format!("{} g.g-hit", testid("graph")))?
                .len();
        Ok((left == 0).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn function_library_lists_functions_and_jumps_to_call_sites() {
    let app = App::open();
    app.wait("graph-ready");
    let library = app.wait("function-library");
    let text = app.browser.text(&library).unwrap();
    assert!(text.contains("graft.examples.ScaledTanh"), "{text:?}");
    let name = app
        .browser
        .wait_for(
            &format!("{} .lib-name", testid("library-function")),
            e2e::TIMEOUT,
        )
        .unwrap();
    app.browser.click(&name).unwrap();
    assert_eq!(app.text("call-site-count"), "2 call sites");
    let text = app.browser.text(&app.wait("function-library")).unwrap();
    assert!(text.contains("alpha") && text.contains("= 1.0"), "{text:?}");
    let sites = app.browser.find_all(&testid("call-site")).unwrap();
    assert_eq!(sites.len(), 2);
    app.browser.click(&sites[1]).unwrap();
    wait_until(e2e::TIMEOUT, "the second call to be selected", || {
        Ok(app
            .browser
            .find(&format!("{} g.g-hit[data-name=\"act2\"]", testid("graph")))?
            .map(|_| ()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn the_drawn_graph_exports_as_svg_and_png() {
    let app = App::open();
    app.wait("graph-ready");
    toggle(&app, "act1");
    wait_for_graph_text(&app, "value_float = 0.5", "the expanded call");
    app.click("export-svg");
    let svg = app
        .browser
        .wait_for_download("functions_and_control_flow.svg", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("value_float = 0.5"));
    app.click("export-png");
    let png = app
        .browser
        .wait_for_download("functions_and_control_flow.png", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG file");
    assert!(
        bytes.len() > 10_000,
        "a drawing, not an empty image: {} bytes",
        bytes.len()
    );
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_large_model_gets_a_minimap_that_moves_the_view() {
    let app = App::open();
    app.wait("graph-ready");
    let option = app
        .browser
        .wait_for(
            &format!(
                "{} option[value=\"transformer_1000.onnx\"]",
                testid("example-select")
            ),
            e2e::TIMEOUT,
        )
        .unwrap();
    app.browser.click(&option).unwrap();
    app.wait_for_model("transformer_1000.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
    // Every layer open: far bigger than the screen.
    app.click("expand-all");
    let minimap = app.wait("minimap");
    let transform = |app: &App| {
        app.browser
            .execute(
                "return document.querySelector('.graph-content').getAttribute('transform');",
                vec![],
            )
            .unwrap()
    };
    let before = transform(&app);
    app.browser.click(&minimap).unwrap();
    wait_until(e2e::TIMEOUT, "the view to move", || {
        Ok((transform(&app) != before).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let shots = root().join("target/browser");
    let _ = std::fs::create_dir_all(&shots);
    let _ = app
        .browser
        .screenshot(&shots.join("graph-large-minimap.png"));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn expand_all_shows_progress_and_cancel_puts_the_graph_back() {
    let app = App::open();
    let url = format!("{}?model=examples/transformer_1000.onnx", app.url);
    app.browser.goto(&url).unwrap();
    app.wait("graph-ready");
    let drawn = |app: &App| {
        app.browser
            .execute(
                "return document.querySelector('.graph-content').innerHTML;",
                vec![],
            )
            .unwrap()
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let before = drawn(&app);
    assert!(!before.is_empty());

    // One group per piece, so the run lasts long enough to be cancelled by hand.
    app.browser
        .execute("window.__graftWorkBudgetMs = 0;", vec![])
        .unwrap();
    app.click("expand-all");
    let progress = app.wait("work-progress");
    let text = app.browser.text(&progress).unwrap();
    assert!(text.starts_with("Expanding…"), "{text}");
    app.click("work-cancel");
    wait_until(e2e::TIMEOUT, "the progress bar to go", || {
        Ok(app.get("work-progress").is_none().then_some(()))
    })
    .unwrap();
    assert_eq!(
        drawn(&app),
        before,
        "cancel puts back the picture it started from"
    );

    // Left to run (default budget), expand-all finishes and draws the expanded graph.
    app.browser
        .execute(
            "delete window.__graftWorkBudgetMs; window.__graftTimings = {};",
            vec![],
        )
        .unwrap();
    app.click("expand-all");
    let ms = wait_until(e2e::TIMEOUT, "expand-all to finish", || {
        let v = app
            .browser
            .execute("return (window.__graftTimings || {}).expand_ms;", vec![])?;
        Ok(v.as_f64())
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(app.get("work-progress").is_none());
    assert_ne!(
        drawn(&app),
        before,
        "the expanded graph is drawn ({ms:.0} ms)"
    );
}

/// Opens the first function of the library panel.
fn open_library_entry(app: &App) {
    app.click_css(&format!("{} .lib-name", testid("library-function")));
}

/// Drops `url` (served by the app) as `name` on the element `selector`.
fn drop_file(app: &App, url: &str, name: &str, selector: &str) {
    graft_tests::webdriver::drop_file(&app.browser, url, name, selector).unwrap();
}

/// The native checks of an exported file: Graft imports it and its checker finds no
/// error; `onnx.checker` (full) accepts it; then `script` runs in Python with `np`,
/// `onnx`, `ort` and the file's `path` in scope (onnxruntime numerics).
fn check_export_natively(path: &Path, script: &str) {
    let imported = graft::import(std::fs::read(path).unwrap().into()).expect("the export imports");
    let errors: Vec<_> = graft::check::check(&imported.model)
        .into_iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    python_passes(
        &format!(
            "import sys, numpy as np, onnx, onnxruntime as ort\npath = sys.argv[1]\nonnx.checker.check_model(path, full_check=True)\n{script}"
        ),
        &path.to_string_lossy(),
    );
}

/// Runs `program` in the interop Python (from the repository's root) with `arg` as
/// `sys.argv[1]`; it must pass.
fn python_passes(program: &str, arg: &str) {
    let output = Command::new(python())
        .arg("-c")
        .arg(program)
        .arg(arg)
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Drops the MLP example on the inline zone and waits for the dialog.
fn drop_mlp_on_the_inline_zone(app: &App) {
    drop_file(app, "examples/mlp.onnx", "mlp.onnx", &testid("drop-inline"));
    app.wait("inline-dialog");
}

/// Binds the guest's input x to the host's x, applies, and waits for the dialog to
/// close.
fn apply_inline_bound_to_x(app: &App) {
    let bind = app.wait("inline-bind-x");
    app.browser.clear(&bind).unwrap();
    app.browser.send_keys(&bind, "x\u{E004}").unwrap();
    app.wait("inline-summary");
    app.click("inline-apply");
    wait_until(e2e::TIMEOUT, "the dialog to close", || {
        Ok(app.get("inline-dialog").is_none().then_some(()))
    })
    .unwrap();
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_model_dropped_on_the_inline_zone_is_previewed_applied_and_exported() {
    let app = app_at("mlp.onnx");

    app.wait("graph-ready");
    let host_nodes = graph_text(&app);

    drop_mlp_on_the_inline_zone(&app);
    let summary = app.text("inline-summary");
    assert!(summary.contains("adds 6 node"), "{summary}");
    assert!(
        app.browser.find(".g-node.g-new").unwrap().is_some(),
        "the new nodes are highlighted on the canvas"
    );
    app.browser
        .screenshot(&root().join("target/browser/inline-preview.png"))
        .unwrap();
    // A wrong binding: the error shows, Apply is off.
    let bind = app.wait("inline-bind-x");
    app.browser
        .send_keys(&bind, "layer0.weight\u{E004}")
        .unwrap();
    let error = app.wait("inline-error");
    let message = app.browser.text(&error).unwrap();
    assert!(message.contains("layer0.weight"), "{message}");
    let apply = app.wait("inline-apply");
    assert_eq!(
        app.browser.property(&apply, "disabled").unwrap(),
        json!(true)
    );
    // The guest reads the host's own input x instead.
    apply_inline_bound_to_x(&app);
    assert!(
        graph_text(&app).len() > host_nodes.len(),
        "the result is drawn"
    );

    // The exported file passes the native checks, and both outputs agree.
    app.click("export-button");
    let downloaded = app
        .browser
        .wait_for_download("mlp.onnx", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    check_export_natively(
        &downloaded,
        r#"
x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
a, b = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(["probs", "mlp/probs"], {"x": x})
assert np.allclose(a, b), (a, b)
"#,
    );

    // Undo brings the host back.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the host's drawing", || {
        Ok((graph_text(&app) == host_nodes).then_some(()))
    })
    .unwrap();
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn the_library_inlines_all_calls_renames_and_undo_brings_them_back() {
    let app = App::open();
    app.wait("graph-ready");
    // Rename: the library and the drawn calls follow.
    open_library_entry(&app);
    let input = app.wait("lib-rename-input");
    app.browser.send_keys(&input, "my.Block").unwrap();
    app.click("lib-rename");
    wait_until(e2e::TIMEOUT, "the renamed function", || {
        let text = app.browser.text(&app.wait("function-library"))?;
        Ok(text.contains("my.Block").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the old name after undo", || {
        let text = app.browser.text(&app.wait("function-library"))?;
        Ok(text.contains("graft.examples.ScaledTanh").then_some(()))
    })
    .unwrap();

    // Inline all calls: the function is gone and its body's nodes are drawn in place.
    open_library_entry(&app);
    app.click("lib-inline-all");
    wait_until(e2e::TIMEOUT, "the library to empty", || {
        Ok(app.get("function-library").is_none().then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(graph_text(&app).contains("Tanh"), "{}", graph_text(&app));
    app.click("undo");
    app.wait("function-library");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_call_attribute_edit_specializes_live_undo_and_export() {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.wait("graph-ready");
    // Select the call act1 (alpha = 0.5) and set alpha = 0.2 in its editor.
    let box_css = format!("{} g[data-name=\"act1\"] > text.g-t", testid("graph"));
    let call = app.browser.wait_for(&box_css, e2e::TIMEOUT).unwrap();
    app.browser.click(&call).unwrap();
    app.wait("call-editor");
    assert_eq!(app.text("call-overload"), "generic");
    let alpha = app.wait("call-attr-alpha");
    // An invalid value is refused as it is typed, and nothing changes.
    app.browser.clear(&alpha).unwrap();
    app.browser.send_keys(&alpha, "[1, 2]").unwrap();
    let error = app.text("call-attr-error");
    assert!(error.contains("expects a float"), "{error}");
    app.browser.send_keys(&alpha, "\u{E004}").unwrap();
    assert_eq!(app.text("call-overload"), "generic");
    let alpha = app.wait("call-attr-alpha");
    app.browser.clear(&alpha).unwrap();
    app.browser.send_keys(&alpha, "0.2\u{E004}").unwrap();
    wait_for_graph_text(&app, "alpha_0p2", "the call to show its new overload");
    let library = app.browser.text(&app.wait("function-library")).unwrap();
    assert!(library.contains("ScaledTanh:alpha_0p2"), "{library}");
    // Published once the redrawn frame is painted, a frame after the text shows.
    wait_until(e2e::TIMEOUT, "the edit-to-redraw time", || {
        let ms = app.browser.execute(
            "return (window.__graftTimings || {}).specialize_ms;",
            vec![],
        )?;
        Ok(ms.as_f64())
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // The other call (act2) takes the same overload from its editor's list.
    let other_css = format!("{} g[data-name=\"act2\"] > text.g-t", testid("graph"));
    let other = app.browser.wait_for(&other_css, e2e::TIMEOUT).unwrap();
    app.browser.click(&other).unwrap();
    let option_css = format!(
        "{} option[value=\"alpha_0p2\"]",
        testid("call-overload-select")
    );
    let option = app.browser.wait_for(&option_css, e2e::TIMEOUT).unwrap();
    app.browser.click(&option).unwrap();
    wait_until(e2e::TIMEOUT, "both calls to use the overload", || {
        Ok((graph_text(&app).matches("alpha_0p2").count() >= 2).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}: {}\n{}", graph_text(&app), app.diagnosis()));

    // Export: the native checks pass and onnxruntime runs the overload.
    app.click("export-button");
    let downloaded = app
        .browser
        .wait_for_download(STARTUP_EXAMPLE, e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    check_export_natively(
        &downloaded,
        r#"
assert any(f.overload == "alpha_0p2" for f in onnx.load(path).functions)
ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": np.ones((2, 8), np.float32)})
"#,
    );

    // Undo twice (the choice, then the specialization): the generic calls are back.
    app.click("undo");
    wait_until(
        e2e::TIMEOUT,
        "one overloaded call after the first undo",
        || Ok((graph_text(&app).matches("alpha_0p2").count() == 1).then_some(())),
    )
    .unwrap();
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the generic call after undo", || {
        Ok((!graph_text(&app).contains("alpha_0p2")).then_some(()))
    })
    .unwrap();
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_standard_op_expands_into_its_function_body_undo_and_export() {
    let app = app_at("mlp.onnx");

    app.wait("graph-ready");
    let before = graph_text(&app);
    // Find the first Relu and select it; its properties offer the expansion.
    let input = app.wait("search-input");
    app.browser.send_keys(&input, "layer0/Relu\n").unwrap();
    let result = app.wait("search-result");
    app.browser.click(&result).unwrap();
    // The Relu's input is typed by inference (the model states no intermediate types).
    let props = app.text("properties");
    assert!(props.contains("layer0.linear: float[batch,16]"), "{props}");
    app.click("expand-standard");
    // Relu-14's body at opset 18: Max(X, CastLike(0, X)).
    wait_for_graph_text(&app, "Max", "the body's ops to be drawn");
    assert!(
        graph_text(&app).contains("CastLike"),
        "{}",
        graph_text(&app)
    );

    // The export passes the native checks and computes what the original computes.
    app.click("export-button");
    let downloaded = app
        .browser
        .wait_for_download("mlp.onnx", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    let original = example("mlp.onnx");
    check_export_natively(
        &downloaded,
        &format!(
            r#"
ops = [n.op_type for n in onnx.load(path).graph.node]
assert ops.count("Relu") == 1 and "Max" in ops, ops
x = np.linspace(-3, 3, 20, dtype=np.float32).reshape(5, 4)
run = lambda p: ort.InferenceSession(p, providers=["CPUExecutionProvider"]).run(None, {{"x": x}})
assert np.allclose(run(path)[0], run({original:?})[0])
"#
        ),
    );

    // Undo puts the Relu back.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the original drawing", || {
        Ok((graph_text(&app) == before).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn the_library_specializes_all_calls_and_keeps_the_generic_when_asked() {
    let app = App::open();
    app.wait("graph-ready");
    let library = |app: &App| app.browser.text(&app.wait("function-library")).unwrap();
    // Kept: both calls get overloads and the generic stays listed.
    open_library_entry(&app);
    app.click("lib-keep");
    app.click("lib-specialize-all");
    wait_until(e2e::TIMEOUT, "the overloads in the library", || {
        let text = library(&app);
        Ok(
            (text.contains("ScaledTanh:alpha_0p5") && text.contains("ScaledTanh:alpha_1"))
                .then_some(text),
        )
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert_eq!(
        app.browser
            .find_all(&testid("library-function"))
            .unwrap()
            .len(),
        3,
        "the generic is kept: {}",
        library(&app)
    );
    // Undo, un-keep, again: the generic goes.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the generic alone", || {
        Ok((!library(&app).contains("alpha_0p5")).then_some(()))
    })
    .unwrap();
    open_library_entry(&app);
    app.click("lib-keep");
    app.click("lib-specialize-all");
    wait_until(e2e::TIMEOUT, "two overloads and no generic", || {
        let n = app.browser.find_all(&testid("library-function"))?.len();
        Ok((n == 2 && library(&app).contains("alpha_0p5")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", library(&app)));
}

/// The title text of the box whose node is named `name`, to click as a person would.
fn node_box(app: &App, name: &str) -> graft_tests::webdriver::Element {
    let css = format!("{} g[data-name=\"{name}\"] > text.g-t", testid("graph"));
    app.browser
        .wait_for(&css, e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
}

/// Clicks (or Shift+clicks) a node's box as it is drawn now. The engine sends each new
/// drawing a moment after the change that made it (a selection highlighted, a group
/// opened), so a box found just before such a redraw is gone by the click: it is
/// found again, as a person would click the box on screen.
fn click_node(app: &App, name: &str, shift: bool) {
    wait_until(e2e::TIMEOUT, &format!("a click on {name}"), || {
        let found = node_box(app, name);
        let clicked = if shift {
            app.browser.shift_click(&found)
        } else {
            app.browser.click(&found)
        };
        unless_stale(clicked)
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn shift_clicked_nodes_outline_into_a_function_with_undo_and_export() {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.wait("graph-ready");
    let before = graph_text(&app);
    let library = |app: &App| app.browser.text(&app.wait("function-library")).unwrap();
    let library_before = library(&app);

    // Click one node, Shift+click two more: three nodes selected, all highlighted.
    click_node(&app, "fc2/MatMul", false);
    click_node(&app, "fc2/Add", true);
    click_node(&app, "residual", true);
    wait_until(e2e::TIMEOUT, "three nodes selected", || {
        Ok(app
            .get("selection-count")
            .and_then(|e| app.browser.text(&e).ok())
            .filter(|t| t == "3 nodes selected"))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let highlighted = app
        .browser
        .find_all(&format!("{} g.g-hit", testid("graph")))
        .unwrap();
    assert_eq!(highlighted.len(), 3, "the selection is highlighted");
    // Shift+click again takes a node out.
    click_node(&app, "residual", true);
    wait_until(e2e::TIMEOUT, "two nodes selected", || {
        Ok((app.text("selection-count") == "2 nodes selected").then_some(()))
    })
    .unwrap();
    click_node(&app, "residual", true);

    // Outline…: the name is checked as it is typed.
    app.click("outline-open");
    let name = app.wait("outline-name");
    let apply = app.wait("outline-apply");
    let says = |app: &App, needle: &str| {
        wait_until(e2e::TIMEOUT, needle, || {
            Ok(app
                .get("outline-name-error")
                .and_then(|e| app.browser.text(&e).ok())
                .filter(|t| t.contains(needle)))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
    };
    app.browser.send_keys(&name, "Residual").unwrap();
    says(&app, "DOMAIN.NAME");
    assert_eq!(
        app.browser.property(&apply, "disabled").unwrap(),
        json!(true)
    );
    // Enter with a bad name does nothing.
    app.browser.send_keys(&name, "\u{E007}").unwrap();
    assert_eq!(graph_text(&app), before, "nothing outlined");
    app.browser.clear(&name).unwrap();
    app.browser
        .send_keys(&name, "graft.examples.ScaledTanh")
        .unwrap();
    says(&app, "already exists");
    app.browser.clear(&name).unwrap();
    app.browser.send_keys(&name, "my.Residual").unwrap();
    wait_until(e2e::TIMEOUT, "the name to be accepted", || {
        Ok(app.get("outline-name-error").is_none().then_some(()))
    })
    .unwrap();
    app.click("outline-apply");

    // One call replaces the three nodes; the library lists the new function.
    wait_until(e2e::TIMEOUT, "the library to list my.Residual", || {
        Ok(library(&app).contains("my.Residual").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let outlined = graph_text(&app);
    assert!(
        outlined.contains("Residual") && !outlined.contains("fc2/MatMul"),
        "{outlined}"
    );
    assert_eq!(app.error(), "", "no error");
    // The new call is selected and is a group that expands to the three nodes.
    let call_css = format!("{} g.g-call.g-hit", testid("graph"));
    let call = app.browser.wait_for(&call_css, e2e::TIMEOUT).unwrap();
    let props = app.text("properties");
    assert!(props.contains("function call"), "{props}");
    let marker = app
        .browser
        .find(&format!("{call_css} [data-toggle]"))
        .unwrap()
        .unwrap_or(call);
    app.browser.click(&marker).unwrap();
    wait_for_graph_text(&app, "fc2/MatMul", "the call's body");
    assert!(graph_text(&app).contains("residual"));
    app.browser
        .screenshot(&root().join("target/browser/outline-expanded.png"))
        .unwrap();

    // Export: valid, and onnxruntime gives what the bundled example gives.
    app.click("export-button");
    let downloaded = app
        .browser
        .wait_for_download(STARTUP_EXAMPLE, e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    let original = example(STARTUP_EXAMPLE);
    check_export_natively(
        &downloaded,
        &format!(
            r#"
m = onnx.load(path)
assert [f.name for f in m.functions if f.domain == "my"] == ["Residual"], m.functions
assert not any(n.name in ("fc2/MatMul", "fc2/Add", "residual") for n in m.graph.node)
x = (np.arange(16, dtype=np.float32).reshape(2, 8) - 8) / 4
run = lambda p: ort.InferenceSession(p, providers=["CPUExecutionProvider"]).run(None, {{"x": x}})
for a, b in zip(run(path), run({original:?})):
    assert np.allclose(a, b, atol=1e-6), (a, b)
"#
        ),
    );

    // Undo: the three nodes are back, the function is gone.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the model before the outline", || {
        Ok((!library(&app).contains("my.Residual")).then_some(()))
    })
    .unwrap();
    assert_eq!(library(&app), library_before);
    wait_for_graph_text(&app, "fc2/MatMul", "the nodes back in the main graph");

    // Nodes of two graphs (the main graph, a function body) are refused with a
    // message, and nothing changes.
    toggle(&app, "act1");
    wait_for_graph_text(&app, "unscale", "act1's body");
    let expanded = graph_text(&app);
    click_node(&app, "fc1/Add", false);
    click_node(&app, "unscale", true);
    wait_until(e2e::TIMEOUT, "two nodes selected", || {
        Ok((app.text("selection-count") == "2 nodes selected").then_some(()))
    })
    .unwrap();
    app.click("outline-open");
    app.browser
        .send_keys(&app.wait("outline-name"), "my.Mixed\n")
        .unwrap();
    let error = app.wait_for_error();
    assert!(error.contains("not all in one graph"), "{error}");
    assert_eq!(library(&app), library_before);
    assert_eq!(graph_text(&app), expanded, "the model is unchanged");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn edits_undo_and_redo_by_keyboard_the_history_and_the_log_replays_to_the_export() {
    const CONTROL: &str = "\u{E009}";
    const SHIFT: &str = "\u{E008}";
    let app = App::open();
    app.wait("graph-ready");
    let library = |app: &App| app.browser.text(&app.wait("function-library")).unwrap();
    // Two edits: rename the function, then specialize all its calls.
    open_library_entry(&app);
    let input = app.wait("lib-rename-input");
    app.browser.send_keys(&input, "my.Block").unwrap();
    app.click("lib-rename");
    wait_until(e2e::TIMEOUT, "the renamed function", || {
        Ok(library(&app).contains("my.Block").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    open_library_entry(&app);
    app.click("lib-specialize-all");
    wait_until(e2e::TIMEOUT, "the overloads", || {
        Ok(library(&app).contains("my.Block:alpha_0p5").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Ctrl+Z undoes the specialization, Ctrl+Shift+Z redoes it, Ctrl+Z again.
    let body = app.browser.find("body").unwrap().unwrap();
    app.browser.click(&body).unwrap();
    app.browser.press_keys(&[CONTROL], "z").unwrap();
    wait_until(e2e::TIMEOUT, "the undone specialization", || {
        let text = library(&app);
        Ok((text.contains("my.Block") && !text.contains("alpha_0p5")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.browser.press_keys(&[CONTROL, SHIFT], "z").unwrap();
    wait_until(e2e::TIMEOUT, "the redone specialization", || {
        Ok(library(&app).contains("alpha_0p5").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.browser.press_keys(&[CONTROL], "z").unwrap();
    wait_until(e2e::TIMEOUT, "undone again", || {
        Ok((!library(&app).contains("alpha_0p5")).then_some(()))
    })
    .unwrap();
    // The history tab: one edit in force, one undone; a click on it redoes it.
    app.click("tab-history");
    app.wait("history-list");
    let steps = app.browser.find_all(&testid("history-step")).unwrap();
    let undone = app.browser.find_all(&testid("history-undone")).unwrap();
    assert_eq!((steps.len(), undone.len()), (1, 1));
    let line = app.browser.text(&steps[0]).unwrap();
    assert!(line.contains("my.Block"), "{line}");
    app.browser.click(&undone[0]).unwrap();
    wait_until(e2e::TIMEOUT, "two edits in force", || {
        Ok((app.browser.find_all(&testid("history-step"))?.len() == 2).then_some(()))
    })
    .unwrap();
    // The log and the model, exported; the log replayed natively gives the same model.
    app.click("export-log");
    let log = app
        .browser
        .wait_for_download("functions_and_control_flow.edits.json", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    app.click("tab-graph");
    app.click("export-button");
    let exported = app
        .browser
        .wait_for_download("functions_and_control_flow.onnx", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    let original = std::fs::read(example("functions_and_control_flow.onnx")).unwrap();
    let mut model = graft::import(bytes::Bytes::from(original)).unwrap().model;
    let json = std::fs::read_to_string(&log).unwrap();
    assert_eq!(graft::edit::replay(&mut model, &json).unwrap(), 2, "{json}");
    let replayed = log.with_file_name("replayed.onnx");
    std::fs::write(
        &replayed,
        graft::export(&model, &graft::ExportOptions::default()).unwrap(),
    )
    .unwrap();
    assert_equal_models(&replayed, &exported);
}

/// The open model as the Text tab prints it (back on the Graph tab afterwards).
fn model_text(app: &App) -> String {
    app.click("tab-text");
    let text = app.text("text-view");
    app.click("tab-graph");
    app.wait("graph-ready");
    text
}

/// Picks the MLP in the example list and waits for its drawing.
fn open_mlp(app: &App) {
    let option = format!("{} option[value=\"mlp.onnx\"]", testid("example-select"));
    app.browser
        .click(&app.browser.wait_for(&option, e2e::TIMEOUT).unwrap())
        .unwrap();
    app.wait_for_model("mlp.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
}

/// The text under the editor field whose edit was refused, once it shows.
fn field_error(app: &App) -> String {
    wait_until(e2e::TIMEOUT, "the refusal under its field", || {
        Ok(app
            .get("field-error")
            .and_then(|e| app.browser.text(&e).ok()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
}

/// Replaces the text of the input `id` by `text` and commits it, as a person would:
/// Ctrl+A, the text, Enter (which fires `change` once, with the new text).
fn type_into(app: &App, id: &str, text: &str) {
    type_into_css(app, &testid(id), text);
}

/// Replaces the text of the field `css` selects with `text`, then presses Enter.
fn type_into_css(app: &App, css: &str, text: &str) {
    app.keys_css(css, &format!("\u{E009}a\u{E000}{text}\u{E007}"));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn an_editing_session_undo_redo_and_the_log_replays_to_the_export() {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.wait("graph-ready");
    open_mlp(&app);
    let diagnostics = |app: &App| {
        app.click("tab-summary");
        let text = app.text("diagnostics");
        app.click("tab-graph");
        app.wait("graph-ready");
        text
    };
    let editor_shows = |app: &App, id: &str, want: &str| {
        wait_until(e2e::TIMEOUT, want, || {
            let el = app.wait(id);
            let v = app.browser.property(&el, "value")?;
            Ok((v == json!(want)).then_some(()))
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    };
    // Add a Sigmoid after the Softmax, from the palette; it is selected.
    click_node(&app, "Softmax", false);
    app.wait("node-editor");
    type_into(&app, "node-add-op", "Sigmoid");
    editor_shows(&app, "node-input-0", "probs");
    // Rename its output; connect its input to logits instead.
    type_into(&app, "node-output-0", "gate");
    editor_shows(&app, "node-output-0", "gate");
    type_into(&app, "node-input-0", "logits");
    editor_shows(&app, "node-input-0", "logits");
    // An attribute Sigmoid does not declare would make the model invalid: refused,
    // said under the field (not in the banner), and nothing changes.
    type_into(&app, "node-set-attr", "bogus = 1");
    let refused = field_error(&app);
    assert!(refused.contains("check.attribute-unknown"), "{refused}");
    assert_eq!(app.error(), "", "the refusal is at its field");
    assert!(!diagnostics(&app).contains("bogus"));
    assert!(
        app.browser.find(".g-node.g-bad").unwrap().is_none(),
        "no badge"
    );
    // Change the Softmax's axis, then delete it, passing it through.
    click_node(&app, "Softmax", false);
    type_into(&app, "node-set-attr", "axis = 1");
    wait_until(e2e::TIMEOUT, "axis = 1 in the editor", || {
        let text = app.browser.text(&app.wait("node-editor"))?;
        Ok(text.contains("axis = 1").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("node-delete");
    wait_until(e2e::TIMEOUT, "the Softmax gone", || {
        Ok((!graph_text(&app).contains("Softmax")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Undo twice (the delete, the axis), redo once (the axis).
    for _ in 0..2 {
        app.click("undo");
    }
    app.click("redo");
    app.click("tab-history");
    wait_until(e2e::TIMEOUT, "four edits in force, one undone", || {
        let done = app.browser.find_all(&testid("history-step"))?.len();
        let undone = app.browser.find_all(&testid("history-undone"))?.len();
        Ok((done == 4 && undone == 1).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Export the log and the model: the log replayed natively gives the same model.
    app.click("export-log");
    let log = app
        .browser
        .wait_for_download("mlp.edits.json", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    app.click("tab-graph");
    app.click("export-button");
    let exported = app
        .browser
        .wait_for_download("mlp.onnx", e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}"));
    let json = std::fs::read_to_string(&log).unwrap();
    for kind in ["add_node", "rename_value", "set_input", "set_attribute"] {
        assert!(json.contains(kind), "{kind} missing from {json}");
    }
    let original = std::fs::read(example("mlp.onnx")).unwrap();
    let mut model = graft::import(bytes::Bytes::from(original)).unwrap().model;
    assert_eq!(graft::edit::replay(&mut model, &json).unwrap(), 4, "{json}");
    let replayed = log.with_file_name("mlp.replayed.onnx");
    std::fs::write(
        &replayed,
        graft::export(&model, &graft::ExportOptions::default()).unwrap(),
    )
    .unwrap();
    assert_equal_models(&replayed, &exported);
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_graph_input_is_renamed_and_retyped_in_place_and_undone() {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.wait("graph-ready");
    open_mlp(&app);
    let before = model_text(&app);
    // The input's box: a terminal titled with the value's name.
    let terminal = |app: &App, name: &str| {
        let css = format!("{} g.g-io > text.g-t", testid("graph"));
        wait_until(e2e::TIMEOUT, name, || {
            for t in app.browser.find_all(&css)? {
                if app.browser.text(&t)?.trim() == name {
                    return Ok(Some(t));
                }
            }
            Ok(None)
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
    };
    app.browser.click(&terminal(&app, "x")).unwrap();
    app.wait("terminal-editor");
    type_into(&app, "terminal-type", "float[N, 4]");
    wait_until(e2e::TIMEOUT, "the new type", || {
        Ok(model_text(&app).contains("float[N,4] x").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.browser.click(&terminal(&app, "x")).unwrap();
    type_into(&app, "terminal-name", "features");
    wait_until(e2e::TIMEOUT, "the new name, read by the Gemm", || {
        let text = model_text(&app);
        Ok((text.contains("float[N,4] features") && text.contains("Gemm(features,")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("undo");
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the model as opened", || {
        Ok((model_text(&app) == before).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_function_edited_as_text_is_applied_refused_at_its_line_and_undone() {
    let app = App::open();
    app.wait("graph-ready");
    app.click("tab-text");
    let scope = app.wait("text-scope");
    app.browser
        .click(
            &app.browser
                .find(&format!("{} option[value=\"0\"]", testid("text-scope")))
                .unwrap()
                .unwrap(),
        )
        .unwrap();
    let _ = scope;
    wait_until(e2e::TIMEOUT, "the function's text", || {
        Ok(app
            .text("text-view")
            .contains("ScaledTanh <alpha")
            .then_some(()))
    })
    .unwrap();
    let original = app.text("text-view");
    // Text that does not parse: refused at its line, nothing changes.
    app.click("text-edit");
    let editor = app.wait("text-editor");
    app.browser.clear(&editor).unwrap();
    app.browser
        .send_keys(&editor, "ScaledTanh (X) => (Y) {\n  Y = \n}")
        .unwrap();
    app.click("text-apply");
    let error = app.text("text-error");
    assert!(error.contains("line 3"), "{error}");
    // The refusal comes typed, with its line and column: the caret goes there, in
    // the focused text area (the offset counted in UTF-16 units, as a browser does).
    let column: usize = error
        .split("line 3, column ")
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("no column in {error}"));
    let caret = app
        .browser
        .execute(
            r#"const t = document.activeElement;
               return t && t.dataset.testid === 'text-editor'
                 ? [t.selectionStart, t.selectionEnd, t.value] : null;"#,
            vec![],
        )
        .unwrap();
    let lines: Vec<&str> = caret[2]
        .as_str()
        .expect("the editor's text")
        .split('\n')
        .collect();
    let offset = lines[0].len() + 1 + lines[1].len() + 1 + column - 1;
    assert_eq!(
        caret[0], offset,
        "the caret at line 3, column {column}: {caret}"
    );
    assert_eq!(caret[1], offset, "{caret}");
    app.click("text-cancel");
    assert_eq!(app.text("text-view"), original);
    // The body's Tanh becomes a Sigmoid: applied as one edit.
    app.click("text-edit");
    let editor = app.wait("text-editor");
    app.browser.clear(&editor).unwrap();
    let edited = "<domain: \"graft.examples\", opset_import: [\"\" : 18]>\n\
                  ScaledTanh <alpha = 1.0> (X) => (Y) {\n\
                  alpha_value = Constant <value_float: float = @alpha> ()\n\
                  scaled = Mul(X, alpha_value)\n\
                  squashed = Sigmoid(scaled)\n\
                  Y = Div(squashed, alpha_value)\n}";
    app.browser.send_keys(&editor, edited).unwrap();
    app.click("text-apply");
    wait_until(e2e::TIMEOUT, "the applied text", || {
        Ok(app
            .get("text-view")
            .and_then(|v| app.browser.text(&v).ok())
            .filter(|t| t.contains("squashed = Sigmoid(scaled)"))
            .map(|_| ()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Text that parses but breaks a checker rule (an attribute Sigmoid does not
    // have) is refused, naming the rule; the applied text stays.
    app.click("text-edit");
    let editor = app.wait("text-editor");
    app.browser.clear(&editor).unwrap();
    app.browser
        .send_keys(
            &editor,
            &edited.replace("Sigmoid(scaled)", "Sigmoid <gain = 2.0> (scaled)"),
        )
        .unwrap();
    app.click("text-apply");
    let refused = wait_until(e2e::TIMEOUT, "the refusal", || {
        Ok(app
            .get("text-error")
            .and_then(|v| app.browser.text(&v).ok()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(refused.contains("check.attribute-unknown"), "{refused}");
    app.click("text-cancel");
    assert!(app.text("text-view").contains("squashed = Sigmoid(scaled)"));
    // Undo puts the function back as it was.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the original text", || {
        Ok((app.text("text-view") == original).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.text("text-view")));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn each_example_explains_itself_and_presentation_mode_hides_the_panels() {
    let app = App::open();
    app.wait("graph-ready");
    let about = app.text("example-about");
    assert!(about.contains("ScaledTanh"), "{about}");
    let steps = app.browser.find_all(&testid("example-step")).unwrap();
    assert_eq!(steps.len(), 3);
    assert!(app.browser.text(&steps[1]).unwrap().contains("alpha_0p2"));
    assert!(app.browser.text(&steps[2]).unwrap().contains("Run tab"));
    // Present: the side panel and the tabs go; Esc brings them back.
    let side_shown = |app: &App| {
        app.browser.execute(
            "const s = document.querySelector('.graph-side'); \
             return !!s && getComputedStyle(s).display !== 'none';",
            vec![],
        )
    };
    app.click("present");
    wait_until(e2e::TIMEOUT, "the panels hidden", || {
        Ok((side_shown(&app)? == json!(false)).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // The header's buttons are one line each, inside the header (on a laptop's
    // screen).
    app.browser.set_viewport(1024, 768).unwrap();
    let fits = app
        .browser
        .execute(
            "const bar = document.querySelector('.toolbar').getBoundingClientRect();
             return [...document.querySelectorAll('.toolbar .button')].map(b => {
               const r = b.getBoundingClientRect();
               const line = parseFloat(getComputedStyle(b).lineHeight) || 1.5 * parseFloat(getComputedStyle(b).fontSize);
               return [b.textContent.trim(), r.height < 1.5 * line + 16 && r.bottom <= bar.bottom + 0.5 && r.top >= bar.top - 0.5];
             });",
            vec![],
        )
        .unwrap();
    let fits = fits.as_array().unwrap();
    assert!(
        !fits.is_empty() && fits.iter().all(|f| f[1] == json!(true)),
        "buttons wrapped or clipped presenting: {fits:?}"
    );
    app.browser.press_keys(&[], "\u{E00C}").unwrap();
    wait_until(e2e::TIMEOUT, "the panels back", || {
        Ok((side_shown(&app)? == json!(true)).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_shared_link_restores_the_example_open_groups_selection_and_camera() {
    let app = App::open();
    app.browser.set_viewport(1600, 2400).unwrap();
    app.wait("graph-ready");
    // Open the call act1, select it.
    toggle(&app, "act1");
    wait_for_graph_text(&app, "value_float = 0.5", "the expanded call");
    click_node(&app, "act1", false);
    app.wait("call-editor");
    let hash = wait_until(e2e::TIMEOUT, "the fragment to name the view", || {
        let h = app
            .browser
            .execute("return window.location.hash;", vec![])?;
        let h = h.as_str().unwrap_or_default().to_string();
        Ok((h.contains("example=functions_and_control_flow.onnx")
            && h.contains("open=")
            && h.contains("sel="))
        .then_some(h))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // A fresh page at that address (a fragment change alone would not load one): the
    // same call open and selected.
    app.browser.goto("about:blank").unwrap();
    app.browser.goto(&format!("{}{hash}", app.url)).unwrap();
    app.wait("graph-ready");
    wait_for_graph_text(&app, "value_float = 0.5", "the call open again");
    app.wait("call-editor");
    let restored = app
        .browser
        .execute("return window.location.hash;", vec![])
        .unwrap();
    let cam = |h: &str| h.split("cam=").nth(1).unwrap_or_default().to_string();
    assert_eq!(cam(restored.as_str().unwrap_or_default()), cam(&hash));
    // Another example through the fragment.
    app.browser.goto("about:blank").unwrap();
    app.browser
        .goto(&format!("{}#example=mlp.onnx", app.url))
        .unwrap();
    app.wait_for_model("mlp.onnx");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn an_initializer_is_replaced_from_an_npy_file_and_undone() {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.wait("graph-ready");
    open_mlp(&app);
    // A float32 array of three values, as numpy.save writes it.
    let mut header = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }".to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut npy = b"\x93NUMPY\x01\x00".to_vec();
    npy.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    npy.extend_from_slice(header.as_bytes());
    for v in [1.5f32, 2.5, 3.5] {
        npy.extend_from_slice(&v.to_le_bytes());
    }
    let dir = root().join("target/browser");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bias.npy");
    std::fs::write(&file, &npy).unwrap();
    let before = model_text(&app);
    click_node(&app, "layer2/Gemm", false);
    let input = app.wait("node-input-2-npy");
    app.browser.choose_files(&input, &[&file]).unwrap();
    wait_until(e2e::TIMEOUT, "the new bias", || {
        Ok(model_text(&app)
            .contains("\"layer2.bias\" = {1.5, 2.5, 3.5}")
            .then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the bias as it was", || {
        Ok((model_text(&app) == before).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_problem_is_listed_and_badged_a_click_selects_its_node_and_a_fix_clears_it() {
    let scratch = graft_tests::webdriver::TempDir::new("problem").unwrap();
    let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[2] x) => (float[2] y) {
  gate = Sigmoid <bogus = 1> (x)
  y = Neg(gate)
}"#;
    let model = graft::text::parse_model(text).unwrap().model;
    let path = scratch.path().join("bogus.onnx");
    std::fs::write(&path, graft::export(&model, &Default::default()).unwrap()).unwrap();
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.wait_for_model(STARTUP_EXAMPLE);
    choose_files(&app, &[&path]);
    app.wait_for_model("bogus.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
    // Listed beside the canvas, and a badge on the node.
    let problems = app.text("problems");
    assert!(problems.contains("bogus"), "{problems}");
    assert!(
        app.browser.find(".g-node.g-bad").unwrap().is_some(),
        "the node carries a badge"
    );
    // A click on the problem selects its node.
    let problem = app.browser.find_all(&testid("problem")).unwrap();
    app.browser.click(&problem[0]).unwrap();
    wait_until(e2e::TIMEOUT, "the node selected", || {
        let el = app.wait("node-output-0");
        let v = app.browser.property(&el, "value")?;
        Ok((v == json!("gate")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Removing the attribute fixes it: the problem and the badge go.
    app.browser
        .click(&app.wait("node-remove-attr-bogus"))
        .unwrap();
    wait_until(e2e::TIMEOUT, "the problem gone", || {
        let listed = app
            .get("problems")
            .and_then(|p| app.browser.text(&p).ok())
            .unwrap_or_default();
        Ok((!listed.contains("bogus")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(
        app.browser.find(".g-node.g-bad").unwrap().is_none(),
        "the badge is gone"
    );
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn nodes_are_edited_inside_a_function_body_and_an_if_branch_with_undo() {
    let app = App::open();
    app.browser.set_viewport(1600, 2400).unwrap();
    app.wait("graph-ready");
    let before = model_text(&app);
    // Inside the call's body: the function's node, for every call.
    toggle(&app, "act1");
    wait_for_graph_text(&app, "value_float = 0.5", "the expanded call");
    click_node(&app, "scale", false);
    type_into(&app, "node-output-0", "scaled_x");
    wait_until(e2e::TIMEOUT, "the renamed value in the function", || {
        let text = model_text(&app);
        Ok((text.contains("scaled_x = Mul(X, alpha_value)")
            && text.contains("squashed = Tanh(scaled_x)"))
        .then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Inside the If's then branch: an attribute on its Relu.
    toggle(&app, "gate/if");
    wait_for_graph_text(&app, "then_branch", "the If's branches");
    click_node(&app, "then/relu", false);
    // An attribute Relu does not have: refused, the branch unchanged.
    type_into(&app, "node-set-attr", "note = 1");
    let refused = field_error(&app);
    assert!(refused.contains("check.attribute-unknown"), "{refused}");
    assert!(model_text(&app).contains("then_out = Relu(amplified)"));
    // Its doc string, the edit kind added last, from the same editor.
    type_into(&app, "node-doc", "clips the amplified signal");
    wait_until(e2e::TIMEOUT, "the doc string in the branch", || {
        let text = model_text(&app);
        Ok(text
            .contains("doc_string: \"clips the amplified signal\"")
            .then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Two undos (the doc string, the rename) give the model back.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the doc string undone", || {
        Ok((!model_text(&app).contains("clips the amplified")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the model as opened", || {
        Ok((model_text(&app) == before).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

/// Opens the live_specialization example, selects the call `tower` and gives its
/// `mode` field of the call editor, emptied.
fn tower_mode_field(app: &App) -> graft_tests::webdriver::Element {
    app.browser.set_viewport(1600, 1400).unwrap();
    app.browser
        .goto(&format!(
            "{}?model=examples/live_specialization.onnx",
            app.url
        ))
        .unwrap();
    app.wait("graph-ready");
    click_node(app, "tower", false);
    app.wait("call-editor");
    let mode = app.wait("call-attr-mode");
    app.browser.clear(&mode).unwrap();
    mode
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn compare_with_the_model_as_opened_marks_what_a_specialization_folded() {
    let app = App::open();
    // Specialize the call tower with mode = 1 from its editor.
    let mode = tower_mode_field(&app);
    app.browser.send_keys(&mode, "1\u{E004}").unwrap();
    wait_for_graph_text(&app, "mode_1", "the call to show its overload");

    // Compare with the model as opened.
    let option_css = format!("{} option[value=\"0\"]", testid("compare-select"));
    let option = app.browser.wait_for(&option_css, e2e::TIMEOUT).unwrap();
    app.browser.click(&option).unwrap();
    let summary = app.text("compare-summary");
    assert!(summary.contains("the model as opened"), "{summary}");
    let rows: Vec<String> = app
        .browser
        .find_all(&testid("compare-row"))
        .unwrap()
        .iter()
        .map(|r| app.browser.text(r).unwrap())
        .collect();
    // The 12 Ifs the specialization folded, the call's new overload, the overload.
    let folded = rows
        .iter()
        .filter(|r| r.starts_with("-") && r.ends_with("(If)"))
        .count();
    assert_eq!(folded, 12, "{rows:#?}");
    assert!(
        rows.iter()
            .any(|r| r.contains("\"tower\" (Tower) overload")),
        "{rows:#?}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with("+ function")),
        "{rows:#?}"
    );
    // The call is marked changed on the canvas, in amber (not the blue of a call
    // or of "inlined"), in either theme.
    let marked = format!("{} g.g-changed[data-name=\"tower\"]", testid("graph"));
    app.browser
        .wait_for(&marked, e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // (Unselected: a selected node is drawn in the selection's colour. The first Esc
    // leaves the editor's field, the second clears the selection.)
    app.browser.press_keys(&[], "\u{E00C}").unwrap();
    app.browser.press_keys(&[], "\u{E00C}").unwrap();
    wait_until(e2e::TIMEOUT, "the call unselected", || {
        let hits = app
            .browser
            .find_all(&format!("{} g.g-hit", testid("graph")))?;
        Ok(hits.is_empty().then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let amber = "rgb(217, 119, 6)";
    let stroke = format!("{marked} > rect");
    assert_eq!(computed(&app, &stroke, "stroke"), amber, "light theme");
    choose_theme(&app, "dark");
    assert_eq!(computed(&app, &stroke, "stroke"), amber, "dark theme");
    choose_theme(&app, "auto");
    // Collapsed, the call says how many changes its body holds.
    let note = format!("{} text.g-note", testid("graph"));
    let note = app.browser.wait_for(&note, e2e::TIMEOUT).unwrap();
    let note = app.browser.text(&note).unwrap();
    assert!(note.ends_with(" changed inside"), "{note}");

    // Side by side: the model as opened on the left. Opening its call there shows the
    // folded nodes ghosted; a drag on it pans both; a click on its node selects the
    // matched node of the open model.
    app.click("compare-side");
    let other = app.wait("graph-other");
    let toggle = format!(
        "{} g[data-name=\"tower\"] g[data-toggle] rect",
        testid("graph-other")
    );
    let toggle = app.browser.wait_for(&toggle, e2e::TIMEOUT).unwrap();
    // Turning side by side on fits the halved canvas again: wait for the call to be
    // inside the left pane.
    wait_until(e2e::TIMEOUT, "the other model fitted in its pane", || {
        let inside = app.browser.execute(
            "const p = arguments[0].getBoundingClientRect(), t = arguments[1].getBoundingClientRect(); \
             return t.x >= p.x && t.x + t.width <= p.x + p.width && t.y >= p.y && t.y + t.height <= p.y + p.height;",
            vec![other.to_json(), toggle.to_json()],
        )?;
        Ok(inside.as_bool().filter(|&b| b))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.browser.click(&toggle).unwrap();
    let ghosts = format!("{} g.g-removed", testid("graph-other"));
    // The body's first nodes (what is drawn around the view): the mode's constant and
    // the test on it, both folded away.
    wait_until(e2e::TIMEOUT, "the folded nodes ghosted", || {
        let mut names = Vec::new();
        for g in app.browser.find_all(&ghosts)? {
            names.push(app.browser.attribute(&g, "data-name")?.unwrap_or_default());
        }
        Ok(
            (names.iter().any(|n| n == "mode_value") && names.iter().any(|n| n == "is_sharp"))
                .then_some(()),
        )
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // The matched call opens on the open model's side too, so the drawings line up;
    // the halved canvas keeps its toolbar on one line, in short labels.
    let opened = format!("{} g.g-group[data-name=\"tower\"]", testid("graph"));
    app.browser
        .wait_for(&opened, e2e::TIMEOUT)
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let toolbar = app
        .browser
        .execute(
            "const c = document.querySelector('.graph:not(.graph-other) .graph-controls'); \
             const b = c.querySelector('button').getBoundingClientRect(); \
             return [c.getBoundingClientRect().height, b.height, c.getBoundingClientRect().right, \
                     c.parentElement.getBoundingClientRect().right];",
            vec![],
        )
        .unwrap();
    let [height, button, right, pane] = [0, 1, 2, 3].map(|k| toolbar[k].as_f64().unwrap());
    assert!(height < button * 1.5, "one line: {toolbar:?}");
    assert!(right <= pane, "inside its pane: {toolbar:?}");
    let transforms = |app: &App| -> Vec<String> {
        app.browser
            .find_all(".graph g.graph-content")
            .unwrap()
            .iter()
            .map(|g| {
                app.browser
                    .attribute(g, "transform")
                    .unwrap()
                    .unwrap_or_default()
            })
            .collect()
    };
    let before = transforms(&app);
    assert_eq!(before.len(), 2);
    app.browser.drag(&other, 120, 60).unwrap();
    wait_until(e2e::TIMEOUT, "both panes panned together", || {
        let now = transforms(&app);
        Ok((now[0] == now[1] && now[0] != before[0]).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}: {before:?} -> {:?}", transforms(&app)));
    // Esc clears the selection first (the specialization left tower selected).
    app.browser.press_keys(&[], "\u{E00C}").unwrap();
    wait_until(e2e::TIMEOUT, "nothing selected", || {
        Ok(app
            .browser
            .find_all(&testid("properties"))?
            .is_empty()
            .then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let other_box = format!(
        "{} g[data-name=\"tower\"] > text.g-t",
        testid("graph-other")
    );
    let other_box = app.browser.wait_for(&other_box, e2e::TIMEOUT).unwrap();
    app.browser.click(&other_box).unwrap();
    wait_until(e2e::TIMEOUT, "the open model's tower selected", || {
        let props = app.text("properties");
        Ok(props.contains("tower").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));

    // Undo: the comparison is made again, and the models are the same up to names.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the same model after undo", || {
        let text = app.text("compare-summary");
        Ok(text.contains("the same up to names").then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("compare-close");
    wait_until(e2e::TIMEOUT, "the comparison closed", || {
        Ok(app
            .browser
            .find_all(&testid("compare-summary"))?
            .is_empty()
            .then_some(()))
    })
    .unwrap();
}

/// The app opened on `?model=examples/NAME`, the page's own link to a model.
fn app_at(name: &str) -> App {
    let app = App::open();
    app.browser
        .goto(&format!("{}?model=examples/{name}", app.url))
        .unwrap();
    app
}

/// Waits for `window.__graftRun` (set by `?run`) and gives it.
fn wait_for_run(app: &App) -> serde_json::Value {
    // Loading onnxruntime-web (a 15 MB wasm) on a busy machine takes a while.
    wait_until(Duration::from_secs(120), "window.__graftRun", || {
        let v = app
            .browser
            .execute("return window.__graftRun ?? null", vec![])?;
        Ok((!v.is_null()).then_some(v))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
}

/// Runs `script` in Python with `np`, `ort`, `json` and `run` (the page's
/// `window.__graftRun`, as JSON) in scope; it must pass its asserts.
fn check_in_python(run: &serde_json::Value, script: &str) {
    python_passes(
        &format!(
            "import sys, json, numpy as np, onnxruntime as ort\nrun = json.loads(sys.argv[1])\n{script}"
        ),
        &run.to_string(),
    );
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn run_in_the_page_gives_what_onnxruntime_gives_for_the_same_inputs() {
    let app = App::open();
    let inputs = "input=input:examples/inputs/silero_vad/input.npy\
                  &input=state:examples/inputs/silero_vad/state.npy\
                  &input=sr:examples/inputs/silero_vad/sr.npy";
    app.browser
        .goto(&format!(
            "{}?model=examples/silero_vad.onnx&run&{inputs}",
            app.url
        ))
        .unwrap();
    let run = wait_for_run(&app);
    assert_eq!(run["status"], "ok", "{run}");
    assert_eq!(run["outputs"]["output"]["dtype"], "float32", "{run}");
    assert_eq!(
        run["outputs"]["stateN"]["shape"],
        json!([2, 1, 128]),
        "{run}"
    );
    check_in_python(
        &run,
        r#"
d = "assets/examples/inputs/silero_vad/"
feeds = {n: np.load(d + n + ".npy") for n in ["input", "state", "sr"]}
sess = ort.InferenceSession("assets/examples/silero_vad.onnx", providers=["CPUExecutionProvider"])
for name, want in zip([o.name for o in sess.get_outputs()], sess.run(None, feeds)):
    got = run["outputs"][name]
    assert got["dtype"] == str(want.dtype), (name, got["dtype"], want.dtype)
    assert tuple(got["shape"]) == want.shape, (name, got["shape"], want.shape)
    g = np.array(got["data"], np.float64).reshape(want.shape)
    assert np.allclose(g, want, rtol=1e-4, atol=1e-5), (name, np.max(np.abs(g - want)))
"#,
    );
    // A model onnxruntime refuses: the message comes back, and the model stays open.
    app.browser
        .goto(&format!(
            "{}?model=examples/function_library.onnx&run",
            app.url
        ))
        .unwrap();
    let run = wait_for_run(&app);
    assert_eq!(run["status"], "error", "{run}");
    let message = run["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("The run failed"), "{message}");
    app.wait_for_model("function_library.onnx");
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn the_run_tab_runs_a_bundled_example_and_shows_its_outputs() {
    let app = App::open();
    app.wait("graph-ready");
    app.click("tab-run");
    // functions_and_control_flow: x is float[batch,8]; batch = 2, seed 0.
    type_into(&app, "run-size-batch", "2");
    app.click("run-button");
    let outputs = wait_until(Duration::from_secs(120), "the outputs", || {
        let found = app.browser.find_all(&testid("run-output"))?;
        Ok((found.len() == 2).then_some(found))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let text = app.text("run-outputs");
    assert!(
        text.contains("probs") && text.contains("float[2,3]"),
        "{text}"
    );
    assert!(app.get("run-error").is_none());
    assert_eq!(
        app.browser
            .find_all(&testid("run-histogram"))
            .unwrap()
            .len(),
        2
    );
    // The same seeded input, natively, run in Python's onnxruntime: the page's numbers.
    let x = graft::values::random_tensor(graft::ir::dtype::FLOAT, &[2, 8], 0).unwrap();
    let dir = root().join("target/browser-run");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("x.npy"), graft::values::npy_bytes(&x).unwrap()).unwrap();
    let probs = app.browser.text(&outputs[0]).unwrap();
    let shown = json!({ "text": probs });
    check_in_python(
        &shown,
        r#"
x = np.load("target/browser-run/x.npy")
sess = ort.InferenceSession("assets/examples/functions_and_control_flow.onnx", providers=["CPUExecutionProvider"])
probs = sess.run(["probs"], {"x": x})[0]
text = run["text"]
def shown(v):
    m = np.floor(np.log10(abs(v))) if v != 0 else 0
    return np.round(v, int(max(3 - m, 0)))
for label, v in [("min", probs.min()), ("max", probs.max()), ("mean", probs.mean())]:
    want = shown(float(v))
    at = text.index(label) + len(label)
    got = float(text[at:].split()[0])
    assert abs(got - want) <= 1e-3 * max(abs(want), 1e-3), (label, got, want, text)
"#,
    );
    // The graph coloured by each node's max |x|, with its legend.
    app.click_css(&format!(
        "{} option[value=\"max-abs\"]",
        testid("run-colour")
    ));
    app.click("tab-graph");
    let legend = app.text("overlay-legend");
    assert!(legend.contains("max |x|"), "{legend}");
    let coloured = format!("{} g[class*=\"g-heat-\"]", testid("graph"));
    wait_until(e2e::TIMEOUT, "coloured nodes", || {
        Ok((app.browser.find_all(&coloured)?.len() >= 5).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Each node has its legend's colour, in the dark theme too.
    choose_theme(&app, "dark");
    let pairs = app
        .browser
        .execute(
            "return [...arguments[0].querySelectorAll('g[class*=\"g-heat-\"]')].map(g => {
               const heat = [...g.classList].find(c => c.startsWith('g-heat-'));
               const swatch = document.querySelector('.legend-swatch.' + heat);
               return [heat, getComputedStyle(g.querySelector(':scope > rect')).fill,
                       swatch ? getComputedStyle(swatch).backgroundColor : 'no swatch'];
             });",
            vec![app.wait("graph").to_json()],
        )
        .unwrap();
    let pairs = pairs.as_array().unwrap();
    assert!(pairs.len() >= 5, "{pairs:?}");
    for p in pairs {
        assert_eq!(
            p[1], p[2],
            "a node's fill is its legend's colour: {pairs:?}"
        );
    }
    choose_theme(&app, "auto");
    // Saved as Model Explorer node data: each node's value under its id there (its name).
    app.click("overlay-export");
    let saved = app
        .browser
        .wait_for_download("functions_and_control_flow.node-data.json", e2e::TIMEOUT)
        .unwrap();
    let text = std::fs::read_to_string(&saved).unwrap();
    let data: serde_json::Value = serde_json::from_str(&text).unwrap();
    let graph = data["gated_residual_block"]["results"]
        .as_object()
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        graph.contains_key("fc1/MatMul") && graph.contains_key("head/Softmax"),
        "{text}"
    );
    // Read back from a file: colours from "imported" data, its name in the legend.
    let edited = text.replace("\"max |x|\"", "\"from elsewhere\"");
    let dir = root().join("target/browser-run");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("node-data.json");
    std::fs::write(&file, edited).unwrap();
    app.click("tab-run");
    let input = app.wait("run-import-node-data");
    app.browser.choose_files(&input, &[&file]).unwrap();
    app.click("tab-graph");
    wait_until(e2e::TIMEOUT, "the imported legend", || {
        Ok(app
            .get("overlay-legend")
            .and_then(|e| app.browser.text(&e).ok())
            .filter(|t| t.contains("from elsewhere")))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // An edit makes the outputs stale until the next run, and takes the colours away.
    click_node(&app, "act1", false);
    type_into(&app, "node-name", "act_one");
    wait_for_graph_text(&app, "act_one", "the renamed call");
    wait_until(e2e::TIMEOUT, "the colours gone", || {
        Ok(
            (app.browser.find_all(&coloured)?.is_empty() && app.get("overlay-legend").is_none())
                .then_some(()),
        )
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("tab-run");
    app.wait("run-stale");
    // The size given to `batch` is remembered for the next visit.
    app.browser.goto(&app.url).unwrap();
    app.wait("graph-ready");
    app.click("tab-run");
    let size = app.wait("run-size-batch");
    wait_until(e2e::TIMEOUT, "batch = 2 remembered", || {
        Ok((app.browser.property(&size, "value")?.as_str() == Some("2")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

/// The first number after `label` in `text` (a shown statistic: `min 0.1235`).
fn shown_number(text: &str, label: &str) -> f64 {
    let at = text
        .find(label)
        .unwrap_or_else(|| panic!("no {label} in {text:?}"))
        + label.len();
    text[at..]
        .split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or_else(|| panic!("no number after {label} in {text:?}"))
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_value_inside_an_expanded_call_is_what_onnxruntime_computes_there() {
    let app = App::open();
    app.browser.set_viewport(1600, 1200).unwrap();
    app.wait("graph-ready");
    app.click("tab-run");
    app.click("run-button");
    wait_until(Duration::from_secs(120), "the outputs", || {
        Ok((app.browser.find_all(&testid("run-output"))?.len() == 2).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // Inside act1 (ScaledTanh with alpha 0.5): its Tanh node.
    app.click("tab-graph");
    app.wait("graph-ready");
    toggle(&app, "act1");
    wait_for_graph_text(&app, "unscale", "act1's body");
    click_node(&app, "tanh", false);
    let text = wait_until(Duration::from_secs(120), "the Tanh's values", || {
        if let Some(e) = app.get("node-values-error") {
            return Err(app.browser.text(&e)?);
        }
        Ok(app
            .get("node-value")
            .and_then(|e| app.browser.text(&e).ok()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(text.contains("float[1,16]"), "{text}");
    // Python: the same seeded input; the call's input exposed as an output, and the
    // body's Tanh computed from it with alpha 0.5.
    let x = graft::values::random_tensor(graft::ir::dtype::FLOAT, &[1, 8], 0).unwrap();
    let dir = root().join("target/browser-run");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("x1.npy"), graft::values::npy_bytes(&x).unwrap()).unwrap();
    let shown = json!({
        "min": shown_number(&text, "min"),
        "max": shown_number(&text, "max"),
        "mean": shown_number(&text, "mean"),
    });
    python_passes(
        r#"
import sys, json, numpy as np, onnx, onnxruntime as ort
shown = json.loads(sys.argv[1])
m = onnx.load("assets/examples/functions_and_control_flow.onnx")
m.graph.output.append(onnx.helper.make_tensor_value_info("fc1.out", onnx.TensorProto.FLOAT, None))
sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
fc1 = sess.run(["fc1.out"], {"x": np.load("target/browser-run/x1.npy")})[0]
t = np.tanh(fc1 * np.float32(0.5))
for k, v in [("min", t.min()), ("max", t.max()), ("mean", t.mean())]:
    assert abs(shown[k] - float(v)) <= 1e-3 * max(abs(float(v)), 1e-3), (k, shown[k], float(v))
"#,
        &shown.to_string(),
    );
}

/// Runs both models of the comparison (the Run tab's button) and gives each output's
/// shown largest difference, by name, once the numbers are there.
/// The computed style property `prop` of the first element `css` selects.
fn computed(app: &App, css: &str, prop: &str) -> String {
    let v = app
        .browser
        .execute(
            "const e = document.querySelector(arguments[0]);
             return e ? getComputedStyle(e)[arguments[1]] : 'no element';",
            vec![css.into(), prop.into()],
        )
        .unwrap();
    v.as_str().unwrap_or_default().to_string()
}

/// Presses the theme switch until it says `theme` (auto, light, dark).
fn choose_theme(app: &App, theme: &str) {
    let want = format!("Theme: {theme}");
    for _ in 0..3 {
        let switch = app.wait("theme-toggle");
        if app.browser.text(&switch).unwrap() == want {
            return;
        }
        app.browser.click(&switch).unwrap();
    }
    let switch = app.wait("theme-toggle");
    assert_eq!(app.browser.text(&switch).unwrap(), want);
}

fn compare_runs(app: &App) -> Vec<(String, String)> {
    let before = app
        .get("run-comparison")
        .and_then(|e| app.browser.text(&e).ok());
    app.click("run-compare");
    wait_until(Duration::from_secs(120), "the comparison run", || {
        if let Some(e) = app.get("run-error") {
            return Err(app.browser.text(&e)?);
        }
        let Some(now) = app.get("run-comparison") else {
            return Ok(None);
        };
        let text = app.browser.text(&now)?;
        if Some(&text) == before.as_ref() {
            return Ok(None);
        }
        let mut rows = Vec::new();
        for row in app.browser.find_all(&testid("run-compare-output"))? {
            let name = app
                .browser
                .attribute(&row, "data-name")?
                .unwrap_or_default();
            let text = app.browser.text(&row)?;
            let shown = text.trim_start_matches(&name).trim().to_string();
            rows.push((name, shown));
        }
        Ok((!rows.is_empty()).then_some(rows))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_specialized_call_computes_what_the_generic_did_and_a_changed_alpha_moves_values() {
    let app = App::open();
    app.browser.set_viewport(1600, 1200).unwrap();
    app.wait("graph-ready");
    // Bind act1's attributes into an overload: the same computation.
    click_node(&app, "act1", false);
    app.wait("call-editor");
    app.click("call-specialize");
    wait_for_graph_text(&app, "alpha_0p5", "act1 calling its overload");
    let option_css = format!("{} option[value=\"0\"]", testid("compare-select"));
    app.click_css(&option_css);
    app.wait("compare-summary");
    app.click("tab-run");
    let rows = compare_runs(&app);
    assert_eq!(
        rows,
        vec![
            ("probs".to_string(), "0".to_string()),
            ("gate".to_string(), "0".to_string())
        ]
    );
    let text = app.text("run-comparison");
    assert!(text.contains("(0 moved)"), "{text}");
    // Now alpha 0.2 on act1: the outputs move, and the values after act1 with them.
    app.click("tab-graph");
    app.wait("graph-ready");
    click_node(&app, "act1", false);
    type_into(&app, "call-attr-alpha", "0.2");
    wait_for_graph_text(&app, "alpha_0p2", "act1 calling the new overload");
    app.click("tab-run");
    let rows = compare_runs(&app);
    let probs: f64 = rows[0].1.parse().unwrap_or_else(|_| panic!("{rows:?}"));
    assert!(probs > 0.0, "{rows:?}");
    let moved = app.browser.find_all(&testid("run-compare-value")).unwrap();
    let first = app.browser.attribute(&moved[0], "data-name").unwrap();
    let text = app.text("run-comparison");
    assert!(!text.contains("(0 moved)"), "{text}");
    assert!(first.is_some(), "{text}");
}

/// Clicks the elements with these test ids one after another in one task of the page,
/// as a quick hand or a script does: the second request leaves before the page has
/// seen what the engine made of the first.
fn click_in_one_task(app: &App, ids: &[&str]) {
    let clicked = app
        .browser
        .execute(
            "return arguments[0].map(id => {
                 const el = document.querySelector(`[data-testid=\"${id}\"]`);
                 if (el) el.click();
                 return !!el;
             });",
            vec![json!(ids)],
        )
        .unwrap();
    assert_eq!(clicked, json!(vec![true; ids.len()]), "{ids:?}");
}

/// Searches for `name` and clicks the first result (the node is then selected).
fn select_by_search(app: &App, name: &str) {
    let input = app.wait("search-input");
    app.browser
        .send_keys(&input, &format!("\u{E009}a\u{E000}{name}\n"))
        .unwrap();
    let css = testid("search-result");
    wait_until(e2e::TIMEOUT, &format!("a search result for {name}"), || {
        let Some(found) = app.browser.find(&css)? else {
            return Ok(None);
        };
        // The results redraw as the query settles, so the result may go stale
        // between being read and being clicked: it is then found again.
        let Some(text) = unless_stale(app.browser.text(&found))? else {
            return Ok(None);
        };
        if !text.contains(name) {
            return Ok(None);
        }
        unless_stale(app.browser.click(&found))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    wait_until(e2e::TIMEOUT, &format!("{name} in the properties"), || {
        Ok(app
            .get("properties")
            .and_then(|p| app.browser.text(&p).ok())
            .filter(|t| t.contains(name))
            .map(|_| ()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

/// The console's errors that a panic or a trap leaves.
fn panics(app: &App) -> Vec<String> {
    app.browser
        .console_log()
        .unwrap_or_default()
        .into_iter()
        .filter(|l| l.contains("panicked") || l.contains("unreachable"))
        .collect()
}

/// Issue 35.1: Undo and "Expand into its body" in the same task, after inlining the
/// MLP into itself with `mlp/layer1/Relu` selected. The expand was made on the
/// inlined model, whose undo cut the arenas back: the engine used to index with the
/// dead id and die, losing the open model. Now it refuses, says so, and goes on.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn undo_raced_with_expand_after_an_inline_is_refused_and_the_engine_lives() {
    let app = app_at("mlp.onnx");
    app.browser.set_viewport(1600, 1400).unwrap();

    app.wait("graph-ready");
    let host = graph_text(&app);
    drop_mlp_on_the_inline_zone(&app);
    apply_inline_bound_to_x(&app);
    select_by_search(&app, "mlp/layer1/Relu");
    app.wait("expand-standard");

    click_in_one_task(&app, &["undo", "expand-standard"]);
    let said = app.wait_for_error();
    assert!(
        said.contains("Nothing was changed") && !said.contains("engine stopped"),
        "{said}\n{}",
        app.diagnosis()
    );
    wait_until(e2e::TIMEOUT, "the host's drawing after the undo", || {
        Ok((graph_text(&app) == host).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(panics(&app).is_empty(), "{}", app.diagnosis());
    // The engine goes on: search, select and expand work on the model as it is.
    select_by_search(&app, "layer1/Relu");
    app.click("expand-standard");
    wait_for_graph_text(&app, "CastLike", "the expanded Relu");
}

/// Issue 35.2: after a text Apply that adds `layer1/Relu2`, with it selected, Undo
/// raced with a rename from its editor. The undo brings back the model as it was,
/// whose ids name other nodes (`layer2/Gemm` has the id `layer1/Relu2` had): the
/// rename used to land there and drop the redo. Now it is refused; and undoing the
/// Apply unraced leaves nothing selected and closes the editor, not moving it to
/// `layer2/Gemm`.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn undo_raced_with_a_rename_after_a_text_apply_renames_nothing() {
    let app = app_at("mlp.onnx");
    app.browser.set_viewport(1600, 1400).unwrap();

    app.wait("graph-ready");
    let original = model_text(&app);
    let relu = r#"["layer1/Relu"] "layer1.out" = Relu("layer1.linear")"#;
    assert!(original.contains(relu), "{original}");
    let edited = original.replace(
        relu,
        &format!("{relu}\n   [\"layer1/Relu2\"] \"layer1.out2\" = Relu(\"layer1.out\")"),
    );
    app.click("tab-text");
    app.click("text-edit");
    let editor = app.wait("text-editor");
    app.browser
        .execute(
            "arguments[0].value = arguments[1];
             arguments[0].dispatchEvent(new Event('input', { bubbles: true }));",
            vec![editor.to_json(), json!(edited)],
        )
        .unwrap();
    app.click("text-apply");
    wait_until(e2e::TIMEOUT, "the applied text", || {
        Ok(app
            .get("text-view")
            .and_then(|v| app.browser.text(&v).ok())
            .filter(|t| t.contains("layer1/Relu2"))
            .map(|_| ()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    app.click("tab-graph");
    app.wait("graph-ready");

    // The race: Undo, then the rename, in one task.
    select_by_search(&app, "layer1/Relu2");
    app.wait("node-name");
    let renamed = app
        .browser
        .execute(
            "const name = document.querySelector('[data-testid=\"node-name\"]');
             document.querySelector('[data-testid=\"undo\"]').click();
             name.value = 'stale_rename';
             name.dispatchEvent(new Event('change', { bubbles: true }));
             return true;",
            vec![],
        )
        .unwrap();
    assert_eq!(renamed, json!(true));
    let said = app.wait_for_error();
    assert!(said.contains("Nothing was changed"), "{said}");
    let now = model_text(&app);
    assert!(!now.contains("stale_rename"), "{now}");
    assert_eq!(now, original, "the undo, and nothing else");
    let redo = app.wait("redo");
    assert_eq!(
        app.browser.property(&redo, "disabled").unwrap(),
        json!(false),
        "the redo is kept"
    );
    // Nothing is selected after the undo: the node is gone.
    assert!(app.get("node-editor").is_none(), "{}", app.diagnosis());

    // Unraced: redo, select it again, undo: nothing selected, the editor closed.
    app.click_css(".banner-dismiss");
    app.click("redo");
    wait_for_graph_text(&app, "layer1/Relu2", "the redone Apply");
    select_by_search(&app, "layer1/Relu2");
    app.wait("node-editor");
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the editor to close", || {
        Ok((app.get("node-editor").is_none() && app.get("properties").is_none()).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(!graph_text(&app).contains("layer1/Relu2"));
    assert!(panics(&app).is_empty(), "{}", app.diagnosis());
}

/// Issue 35.3: in a call's attribute editor, `2`, Enter, and `5` at once. The
/// specialization redraws the editor while the check of what was typed is on its
/// way; its answer used to reach a field already gone and trap the page with no
/// message. Now nothing panics, and the call shows its new overload.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn typing_on_while_a_call_attribute_applies_does_not_trap_the_page() {
    let app = App::open();
    let mode = tower_mode_field(&app);
    app.browser.send_keys(&mode, "2\u{E007}5").unwrap();
    wait_for_graph_text(&app, "mode_2", "the call to show its overload");
    // The check's answer comes after the redraw: give it time to land.
    std::thread::sleep(Duration::from_millis(1500));
    assert!(panics(&app).is_empty(), "{}", app.diagnosis());
    assert_eq!(app.error(), "", "{}", app.diagnosis());
}

/// Issue 35: an engine that dies anyway (here one told to, with `?faults`) is started
/// again from the kept session: the model opened again from where it came from and
/// its edit log applied, so no edit is lost, and the banner says what stopped it,
/// where, and what was kept.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_stopped_engine_is_restarted_with_the_open_model_and_its_edits() {
    let app = open_mlp_with_faults();
    rename_softmax(&app);
    click_node(&app, "renamed_softmax", false);
    type_into(&app, "node-add-op", "Sigmoid");
    wait_for_graph_text(&app, "Sigmoid", "the added node");
    let edited = model_text(&app);

    app.browser
        .execute("window.__graftEngineFault();", vec![])
        .unwrap();
    let said = wait_for_restart(&app);
    assert!(said.contains("2 edit(s)"), "{said}");
    assert!(
        said.contains("engine panicked at src/state/engine.rs"),
        "the panic's place: {said}"
    );
    wait_until(e2e::TIMEOUT, "the edited model, open again", || {
        Ok((model_text(&app) == edited).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // The edits are undoable in the new engine.
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the undone Sigmoid", || {
        Ok((!graph_text(&app).contains("Sigmoid")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(graph_text(&app).contains("renamed_softmax"));
}

/// The MLP, open in a page that may be told to stop its engine (`?faults`).
fn open_mlp_with_faults() -> App {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    app.browser
        .goto(&format!("{}?model=examples/mlp.onnx&faults=1", app.url))
        .unwrap();
    app.wait("graph-ready");
    app
}

/// Renames the MLP's Softmax to `renamed_softmax` in the node editor.
fn rename_softmax(app: &App) {
    click_node(app, "Softmax", false);
    app.wait("node-editor");
    type_into(app, "node-name", "renamed_softmax");
    wait_for_graph_text(app, "renamed_softmax", "the renamed node");
}

/// Waits for the banner to say the engine was started again; gives what it says.
fn wait_for_restart(app: &App) -> String {
    // Read in the page: the banner is redrawn as the engine's word comes in.
    wait_until(e2e::TIMEOUT, "the restart in the banner", || {
        let said = app.browser.execute(
            "return document.querySelector('[data-testid=\"error\"]')?.textContent || '';",
            vec![],
        )?;
        let said = said.as_str().unwrap_or_default().to_string();
        Ok(said.contains("started again").then_some(said))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()))
}

/// The open model's bytes, as `window.__graftExport()` gives them.
fn exported_bytes(app: &App) -> Vec<u8> {
    try_exported_bytes(app).unwrap_or_else(|e| panic!("no bytes: {e}"))
}

/// The open model's bytes, or why `window.__graftExport()` gave none.
fn try_exported_bytes(app: &App) -> Result<Vec<u8>, String> {
    let got = app.browser.execute_async(
        "const done = arguments[arguments.length - 1];
         window.__graftExport().then(b => done(Array.from(b)), e => done('failed: ' + e));",
        vec![],
    )?;
    let bytes = got.as_array().ok_or_else(|| got.to_string())?;
    bytes
        .iter()
        .map(|b| b.as_u64().and_then(|b| u8::try_from(b).ok()))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("not bytes: {got}"))
}

/// Waits until the open model's bytes are `want` (an open and its replay settle).
fn wait_for_bytes(app: &App, want: &[u8], what: &str) {
    wait_until(e2e::TIMEOUT, what, || {
        let ready = app.browser.execute(
            "return !!document.querySelector('[data-testid=\"graph-ready\"]');",
            vec![],
        )?;
        // Until the open is in, there is no model to export.
        let same = ready.as_bool() == Some(true)
            && try_exported_bytes(app).is_ok_and(|bytes| bytes == want);
        Ok(same.then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

/// Applies an edit log through `window.__graftApply`; gives its answer.
fn apply_by_script(app: &App, log: &str) -> serde_json::Value {
    app.browser
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.__graftApply(arguments[0]).then(done, e => done({status: 'rejected', message: String(e)}));",
            vec![serde_json::Value::String(log.into())],
        )
        .unwrap()
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn edits_by_hand_and_by_script_survive_a_reload_a_restore_and_a_crash() {
    let app = open_mlp_with_faults();
    let opened = exported_bytes(&app);
    rename_softmax(&app);

    // A script's edits: all applied, each undoable like the user's.
    let answer = apply_by_script(
        &app,
        r#"[{"edit": "add_node", "graph": "main", "op_type": "Sigmoid", "inputs": ["probs"], "outputs": ["gate"]},
            {"edit": "add_output", "graph": "main", "value": "gate"}]"#,
    );
    assert_eq!(answer["status"], "ok", "{answer}");
    assert_eq!(answer["applied"], 2, "{answer}");
    wait_for_graph_text(&app, "Sigmoid", "the scripted node");
    let edited = exported_bytes(&app);
    assert_ne!(edited, opened);

    // A log with a bad edit: refused whole, naming the edit; the model is unchanged.
    let answer = apply_by_script(
        &app,
        r#"[{"edit": "rename_value", "graph": "main", "from": "x", "to": "x_in"},
            {"edit": "rename_node", "graph": "main", "node": 99, "to": "n"}]"#,
    );
    assert_eq!(answer["status"], "error", "{answer}");
    assert_eq!(answer["index"], 1, "{answer}");
    assert!(
        answer["message"].as_str().unwrap_or_default().len() > 5,
        "{answer}"
    );
    assert_eq!(
        exported_bytes(&app),
        edited,
        "a refused log changes nothing"
    );
    let answer = apply_by_script(&app, "not json");
    assert_eq!(answer["status"], "error", "{answer}");
    assert!(answer["index"].is_null(), "{answer}");

    // A reload with ?restore: the same bytes, without asking.
    app.browser
        .goto(&format!("{}?restore&faults=1", app.url))
        .unwrap();
    // As an open does, it sets __graftReady once restored; the bytes are as before.
    wait_until(e2e::TIMEOUT, "window.__graftReady", || {
        let ready = app
            .browser
            .execute("return window.__graftReady === true;", vec![])?;
        Ok((ready.as_bool() == Some(true)).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(
        exported_bytes(&app) == edited,
        "the restored bytes differ: {}\n{}",
        graph_text(&app),
        app.diagnosis()
    );
    assert!(graph_text(&app).contains("renamed_softmax"));

    // A plain reload opens the bundled example and offers the kept session.
    app.browser.goto(&format!("{}?faults=1", app.url)).unwrap();
    app.wait("graph-ready");
    app.wait("restore-offer");
    app.click("restore-accept");
    wait_for_bytes(&app, &edited, "the session restored from the offer");

    // A crash of the engine: restarted with the same bytes; the edits still undo.
    app.browser
        .execute("window.__graftEngineFault();", vec![])
        .unwrap();
    wait_for_restart(&app);
    wait_for_bytes(&app, &edited, "the restarted engine's model");
    app.click("undo");
    wait_until(e2e::TIMEOUT, "the undone scripted output", || {
        Ok(try_exported_bytes(&app)
            .is_ok_and(|bytes| bytes != edited)
            .then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));

    // The list shows the open session with its edits in force, and the bundled
    // example's (opened by the plain reload, no edits), which it discards.
    app.click("tab-history");
    app.click("sessions-button");
    app.wait("sessions-dialog");
    let rows = || -> Result<Vec<String>, String> {
        let rows = app.browser.execute(
            "return [...document.querySelectorAll('[data-testid=\"session-row\"]')].map(r => r.textContent);",
            vec![],
        )?;
        Ok(rows
            .as_array()
            .map(|r| {
                r.iter()
                    .map(|t| t.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default())
    };
    let listed = wait_until(e2e::TIMEOUT, "two kept sessions", || {
        let listed = rows()?;
        Ok((listed.len() == 2).then_some(listed))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(
        listed
            .iter()
            .any(|r| r.contains("open now") && r.contains("edits")),
        "{listed:?}"
    );
    app.click("session-discard");
    wait_until(e2e::TIMEOUT, "one kept session", || {
        let listed = rows()?;
        Ok((listed.len() == 1 && listed[0].contains("open now")).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_chosen_file_above_the_limit_is_asked_for_again_and_checked_by_fingerprint() {
    let app = App::open();
    app.browser.set_viewport(1600, 1400).unwrap();
    // No file is kept with its session at this limit.
    app.browser
        .goto(&format!("{}?keeplimit=0", app.url))
        .unwrap();
    app.wait_for_model(STARTUP_EXAMPLE);
    choose_files(&app, &[&example("mlp.onnx")]);
    app.wait_for_model("mlp.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
    rename_softmax(&app);
    let edited = exported_bytes(&app);

    app.browser
        .goto(&format!("{}?keeplimit=0", app.url))
        .unwrap();
    app.wait_for_model(STARTUP_EXAMPLE);
    let before = exported_bytes(&app);
    app.click("restore-accept");
    let input = app.wait("restore-file");
    // Another file: refused by its fingerprint; the open model stays as it was.
    app.browser
        .choose_files(&input, &[&example("function_library.onnx")])
        .unwrap();
    let said = app.text("restore-error");
    assert!(said.contains("fingerprints differ"), "{said}");
    assert!(said.contains("mlp.onnx"), "names the file wanted: {said}");
    assert_eq!(
        exported_bytes(&app),
        before,
        "a refused restore changes nothing"
    );
    // The same file: restored, with its edit.
    let input = app.wait("restore-file");
    app.browser
        .choose_files(&input, &[&example("mlp.onnx")])
        .unwrap();
    app.click("tab-graph");
    wait_for_bytes(&app, &edited, "the session restored from the chosen file");
    assert!(graph_text(&app).contains("renamed_softmax"));
}

/// A real model's run (silero_vad): the inputs whose names say their value get it and
/// say so (`sr` 16000, `state` 0); a run that fails inside a node names it, and its
/// link shows the node; a typed size and value make the run succeed, and the
/// histogram is labelled with its range and counts.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_real_models_run_gets_named_defaults_typed_values_and_a_link_to_the_failing_node() {
    let app = app_at("silero_vad.onnx");
    app.browser.set_viewport(1600, 1000).unwrap();

    app.wait_for_model("silero_vad.onnx");
    app.click("tab-run");
    let source = |name: &str| {
        app.text_css(&format!(
            "[data-testid=\"run-input\"][data-name=\"{name}\"] [data-testid=\"run-input-source\"]"
        ))
    };
    let sr = source("sr");
    assert!(
        sr.starts_with("16000: from its name, a sample rate"),
        "{sr}"
    );
    assert!(source("state").starts_with("0: from its name, a recurrent state"));
    assert_eq!(source("input"), "random");
    // One sample is too short for the model's padding: the run fails inside a node.
    app.click("run-button");
    let error = wait_until(Duration::from_secs(120), "the run's error", || {
        Ok(app.get("run-error").and_then(|e| app.browser.text(&e).ok()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(error.starts_with("The run failed at node \""), "{error}");
    assert!(
        !error.contains("onnxruntime_src") && !error.contains(".cc:"),
        "{error}"
    );
    let node = error
        .split('"')
        .nth(1)
        .unwrap_or_else(|| panic!("{error}"))
        .to_string();
    let link = app.text("run-error-node");
    assert_eq!(link, format!("Show {node} in the graph"));
    app.click("run-error-node");
    // The graph shows, with the node selected.
    wait_until(e2e::TIMEOUT, "the failing node selected", || {
        Ok(app
            .get("properties-name")
            .and_then(|e| app.browser.text(&e).ok())
            .filter(|t| *t == node))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // 512 samples, and the input filled with a typed value: the run succeeds.
    app.click("tab-run");
    type_into(&app, "run-size-input[1]", "512");
    let field =
        "[data-testid=\"run-input\"][data-name=\"input\"] [data-testid=\"run-input-value\"]";
    type_into_css(&app, field, "0.25");
    wait_until(e2e::TIMEOUT, "the typed value", || {
        Ok(Some(source("input")).filter(|s| s == "every element 0.25"))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // A value the type cannot hold is refused by name.
    let sr_field =
        "[data-testid=\"run-input\"][data-name=\"sr\"] [data-testid=\"run-input-value\"]";
    type_into_css(&app, sr_field, "1.5");
    wait_until(e2e::TIMEOUT, "the refused value", || {
        Ok(app
            .get("run-error")
            .and_then(|e| app.browser.text(&e).ok())
            .filter(|t| t.contains("Input sr: `1.5` is not a whole number")))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert!(source("sr").starts_with("16000"));
    app.click("run-button");
    wait_until(Duration::from_secs(120), "the outputs", || {
        let found = app.browser.find_all(&testid("run-output"))?;
        Ok((found.len() == 2 && app.get("run-error").is_none()).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    // The histogram says its range and its tallest bar's count.
    let lo = app.text("run-histogram-lo");
    let hi = app.text("run-histogram-hi");
    let top = app.text("run-histogram-top");
    assert!(
        lo.parse::<f64>().is_ok() && hi.parse::<f64>().is_ok(),
        "{lo} {hi}"
    );
    assert!(top.parse::<u64>().is_ok_and(|n| n >= 1), "{top}");
    // "use random" sets sr's default aside, and the tab offers it back.
    app.click_css(
        "[data-testid=\"run-input\"][data-name=\"sr\"] button[title^=\"Use a seeded random\"]",
    );
    wait_until(e2e::TIMEOUT, "sr random", || {
        Ok(Some(source("sr")).filter(|s| s == "random"))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    assert_eq!(app.text("run-input-default"), "use 16000, its default");
    app.click("run-input-default");
    wait_until(e2e::TIMEOUT, "sr 16000 again", || {
        Ok(Some(source("sr")).filter(|s| s.starts_with("16000: from its name")))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
}

/// The side panel: the selection's properties stay at the top whatever the lists
/// below hold, the panel widens by its splitter (and keeps the width), and a long
/// name is cut with an ellipsis, whole on hover, without widening the panel.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn the_side_panel_keeps_the_properties_in_view_widens_and_cuts_long_names() {
    let app = App::open();
    app.browser.set_viewport(1400, 800).unwrap();
    app.wait("graph-ready");
    // Many search results, then a node selected: its properties are at the top.
    let input = app.wait("search-input");
    app.browser.send_keys(&input, "a\n").unwrap();
    app.wait("search-result");
    click_node(&app, "residual", false);
    let top = app
        .browser
        .execute(
            "const p = document.querySelector('[data-testid=properties]').getBoundingClientRect(); \
             const s = document.querySelector('[data-testid=search-results]').getBoundingClientRect(); \
             return [p.top, s.top, window.innerHeight];",
            vec![],
        )
        .unwrap();
    let [props, results, height] = [0, 1, 2].map(|k| top[k].as_f64().unwrap());
    assert!(props < results && props < height / 3.0, "{top:?}");
    // Dragged 200 px to the left, the panel is 200 px wider, and stays so.
    let width = |app: &App| {
        app.browser
            .execute(
                "return document.querySelector('[data-testid=graph-side]').getBoundingClientRect().width;",
                vec![],
            )
            .unwrap()
            .as_f64()
            .unwrap()
    };
    let before = width(&app);
    let splitter = app.wait("side-splitter");
    app.browser.drag(&splitter, -200, 0).unwrap();
    let after = width(&app);
    assert!((after - before - 200.0).abs() < 8.0, "{before} -> {after}");
    app.browser.goto(&app.url).unwrap();
    app.wait("graph-ready");
    assert!((width(&app) - after).abs() < 1.0);
    // A long name: one line with an ellipsis, the whole name as its title.
    let long = format!("a_very_long_node_name_{}", "that_goes_on_".repeat(12));
    click_node(&app, "residual", false);
    type_into(&app, "node-name", &long);
    let name = format!("{} [data-testid=properties-name]", testid("graph-side"));
    wait_until(e2e::TIMEOUT, "the long name", || {
        Ok(app
            .browser
            .find(&name)?
            .and_then(|e| app.browser.attribute(&e, "title").ok().flatten())
            .filter(|t| *t == long))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let fits = app
        .browser
        .execute(
            "const n = document.querySelector(arguments[0]); const side = document.querySelector('[data-testid=graph-side]'); \
             return [getComputedStyle(n).textOverflow, n.scrollWidth > n.clientWidth, side.scrollWidth <= side.clientWidth + 1];",
            vec![serde_json::json!(name)],
        )
        .unwrap();
    assert_eq!(fits, serde_json::json!(["ellipsis", true, true]));
}

/// Bug 5: on a torch export, expand all, collapse all, then one level: the layer
/// group is drawn collapsed at a collapsed group's size, not as an empty box of its
/// expanded size.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn a_group_collapsed_after_expand_all_is_drawn_at_its_collapsed_size() {
    let app = app_at("torch_transformer.onnx");

    app.wait("graph-ready");
    let layer = |app: &App| {
        app.browser
            .execute(
                "const g = [...document.querySelectorAll('[data-testid=graph] g.g-node')].find(g => \
                   [...g.children].some(t => t.matches('text.g-t') && t.textContent.startsWith('enc.layers.0 ·'))); \
                 if (!g) return null; const r = g.querySelector(':scope > rect'); \
                 return [Number(r.getAttribute('width')), Number(r.getAttribute('height')), g.classList.contains('g-group')];",
                vec![],
            )
            .unwrap()
    };
    for key in ["e", "c", "]"] {
        app.browser
            .execute("window.__graftTimings = {};", vec![])
            .unwrap();
        app.browser.press_keys(&[], key).unwrap();
        wait_until(e2e::TIMEOUT, &format!("{key} done"), || {
            let v = app
                .browser
                .execute("return (window.__graftTimings || {}).expand_ms;", vec![])?;
            Ok(v.as_f64())
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    }
    let shown = wait_until(e2e::TIMEOUT, "the layer drawn", || {
        let v = layer(&app);
        Ok((!v.is_null()).then_some(v))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let (w, h) = (shown[0].as_f64().unwrap(), shown[1].as_f64().unwrap());
    assert_eq!(shown[2], serde_json::json!(false), "collapsed: {shown:?}");
    assert!(w < 400.0 && h < 120.0, "a collapsed box, not {w} × {h}");
}

/// The three pictures `docs/screenshots/` keeps (written to `target/screenshots/`,
/// copied by hand when the app's look changes): silero_vad's If selected, its bodies
/// summed up; the Run tab after a run of rapidocr rec, its [40, 6625] output a
/// 40-row heat map with its scale; the dark theme with the run's colours.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn screenshots_of_an_if_a_run_and_the_dark_theme() {
    let app = App::open();
    let out = root().join("target/screenshots");
    app.browser.set_viewport(1440, 900).unwrap();
    app.browser
        .goto(&format!("{}?model=examples/silero_vad.onnx", app.url))
        .unwrap();
    app.wait_for_model("silero_vad.onnx");
    app.click("tab-graph");
    app.wait("graph-ready");
    click_node(&app, "If_0", false);
    app.wait("node-open-body-then_branch");
    // Its bodies' long output lists wrap inside the panel.
    let wide = app
        .browser
        .execute(
            "const s = document.querySelector('[data-testid=side-selection]'); \
             return [s.scrollWidth, s.clientWidth];",
            vec![],
        )
        .unwrap();
    assert!(
        wide[0].as_f64().unwrap() <= wide[1].as_f64().unwrap() + 1.0,
        "nothing runs off the panel: {wide:?}"
    );
    app.browser
        .screenshot(&out.join("silero-vad-if-selected.png"))
        .unwrap();

    let rec = corpus()
        .join("real/rapidocr-onnxruntime/rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx");
    choose_files(&app, &[&rec]);
    app.wait_for_model(&file_name(&rec));
    app.click("tab-run");
    // Its height is a dimension named "?".
    type_into(&app, "run-size-?", "48");
    type_into(&app, "run-size-p2o.DynamicDimension.1", "320");
    app.click("run-button");
    wait_until(Duration::from_secs(180), "the outputs", || {
        Ok(app.get("run-heat").map(|_| ()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    let heat = app
        .browser
        .execute(
            "const h = document.querySelector('[data-testid=run-heat]'); \
             return [h.querySelectorAll('rect').length, h.getBoundingClientRect().height];",
            vec![],
        )
        .unwrap();
    assert_eq!(
        heat[0],
        serde_json::json!(40 * 48),
        "each cell a block of rows and columns"
    );
    assert!(heat[1].as_f64().unwrap() >= 80.0, "not a strip: {heat:?}");
    let scale = app.text("run-heat-scale");
    assert!(scale.split_whitespace().count() >= 2, "{scale}");
    app.browser
        .screenshot(&out.join("rapidocr-rec-run.png"))
        .unwrap();

    app.click_css(&format!(
        "{} option[value=\"max-abs\"]",
        testid("run-colour")
    ));
    app.click("tab-graph");
    let coloured = format!("{} g[class*=\"g-heat-\"]", testid("graph"));
    wait_until(e2e::TIMEOUT, "coloured nodes", || {
        Ok((app.browser.find_all(&coloured)?.len() >= 5).then_some(()))
    })
    .unwrap_or_else(|e| panic!("{e}\n{}", app.diagnosis()));
    choose_theme(&app, "dark");
    app.browser
        .screenshot(&out.join("dark-theme-run-colours.png"))
        .unwrap();
    choose_theme(&app, "auto");
}

/// Colour by kind of op: each node's box has its kind's colour, the legend's swatch
/// for that kind shows the same colour, in the light and the dark theme, and the
/// kinds' colours differ.
#[test]
#[ignore = "browser tier: needs dist/ and Chromium; `cargo xtask test` runs it"]
fn nodes_are_coloured_by_kind_of_op_with_a_legend_in_both_themes() {
    let app = App::open();
    app.wait("graph-ready");
    app.click_css(&format!("{} summary", testid("kind-legend")));
    let entries = app.browser.find_all(&testid("kind-legend-entry")).unwrap();
    assert_eq!(entries.len(), 9);
    let legend_text = app.text("kind-legend");
    for label in [
        "convolution and linear",
        "activation",
        "normalization",
        "pooling",
        "shape and indexing",
        "arithmetic",
        "control flow",
        "function call",
        "quantization",
    ] {
        assert!(legend_text.contains(label), "{label}: {legend_text}");
    }
    let pairs = |app: &App| {
        app.browser
            .execute(
                "return [...document.querySelectorAll('[data-testid=kind-legend-entry]')].map(e => {
                   const c = e.dataset.class;
                   const swatch = getComputedStyle(e.querySelector('rect')).fill;
                   const node = document.querySelector('[data-testid=graph] g.g-node.' + c + ' > rect.g-box');
                   return [c, swatch, node ? getComputedStyle(node).fill : null];
                 });",
                vec![],
            )
            .unwrap()
    };
    for theme in ["light", "dark"] {
        choose_theme(&app, theme);
        let shown = pairs(&app);
        let shown = shown.as_array().unwrap();
        let drawn: Vec<_> = shown.iter().filter(|p| !p[2].is_null()).collect();
        // The example has matrix products, activations, arithmetic, an If and calls.
        for class in ["g-k-linear", "g-k-activation", "g-k-control", "g-call"] {
            assert!(
                drawn.iter().any(|p| p[0] == class),
                "{theme}: {class} drawn: {shown:?}"
            );
        }
        for p in &drawn {
            assert_eq!(
                p[1], p[2],
                "{theme}: a node's fill is its legend's colour: {shown:?}"
            );
        }
        let mut fills: Vec<String> = shown.iter().map(|p| p[1].to_string()).collect();
        fills.sort();
        fills.dedup();
        assert!(
            fills.len() >= 8,
            "{theme}: the kinds' colours differ: {shown:?}"
        );
    }
    choose_theme(&app, "auto");
}
