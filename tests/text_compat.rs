//! The ONNX text format against onnx's own parser and printer, over the corpus.
//!
//! `tests/interop/text_compat.py print` has onnx.printer write every corpus model as
//! text; this test parses those texts with Graft, prints every corpus model with
//! Graft and parses that back (with and without annotations), writing the results
//! under `target/interop/text/`; `text_compat.py check` then compares with onnx `==`:
//! (a) onnx.printer's text reads the same in Graft as in onnx.parser, (b) Graft's
//! text reads the same in onnx.parser as in Graft (annotations being comments to
//! onnx), (c) Graft's print → parse gives back the model. Here, on the Rust side:
//! printing is deterministic and print → parse → print is a fixed point.

use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use graft::ExportOptions;
use graft::text::{ParseOptions, parse_model, parse_model_with, print_model};
use graft_tests::corpus;

/// Models larger than this are left out (printing 125 MB of weights as decimal text
/// proves nothing the smaller ones do not, and would take minutes).
const MAX_BYTES: u64 = 20_000_000;

fn write(path: &Path, bytes: &[u8]) {
    if let Some(parent) = path.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

fn with_ext(root: &Path, rel: &Path, ext: &str) -> PathBuf {
    let mut name = rel.as_os_str().to_owned();
    name.push(ext);
    root.join(name)
}

fn python(script: &Path, args: &[&std::ffi::OsStr]) -> (bool, String) {
    let out = Command::new(corpus::python())
        .arg(script)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", corpus::python().display()));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn text_format_agrees_with_onnx_parser_and_printer() {
    let Some(dir) = corpus::dir() else { return };
    if !corpus::python().exists() {
        assert!(
            std::env::var_os("GRAFT_REQUIRE_CORPUS").is_none(),
            "no Python at {}",
            corpus::python().display()
        );
        eprintln!("skipped: no Python at {}", corpus::python().display());
        return;
    }
    let root = corpus::root();
    let work = root.join("target/interop/text");
    let _ = std::fs::remove_dir_all(&work);
    let script = root.join("tests/interop/text_compat.py");
    let max = MAX_BYTES.to_string();
    let (ok, out) = python(
        &script,
        &[
            "print".as_ref(),
            dir.as_os_str(),
            work.as_os_str(),
            "--max-bytes".as_ref(),
            max.as_ref(),
        ],
    );
    println!("{out}");
    assert!(ok, "text_compat.py print failed");

    let started = std::time::Instant::now();
    let mut failures = Vec::new();
    let mut count = 0;
    for path in corpus::models(&dir) {
        if std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_BYTES) {
            continue;
        }
        count += 1;
        let rel = path.strip_prefix(&dir).unwrap_or(&path).to_path_buf();
        let show = rel.display();

        // (a) onnx.printer's text, read by Graft.
        let onnx_text = with_ext(&work.join("onnx_printed"), &rel, ".txt");
        if let Ok(bytes) = std::fs::read(&onnx_text) {
            let result = String::from_utf8(bytes)
                .map_err(|_| "the text is not UTF-8".to_string())
                .and_then(|t| parse_model(&t).map_err(|e| e.to_string()))
                .and_then(|p| {
                    graft::export(&p.model, &ExportOptions::default()).map_err(|e| e.to_string())
                });
            match result {
                Ok(b) => write(&with_ext(&work.join("a"), &rel, ".onnx"), &b),
                Err(e) => write(&with_ext(&work.join("a"), &rel, ".err"), e.as_bytes()),
            }
        }

        // (b), (c) Graft's text of the model.
        let bytes = Bytes::from(std::fs::read(&path).unwrap_or_default());
        let Ok(imported) = graft::import(bytes) else {
            failures.push(format!("{show}: does not import"));
            continue;
        };
        let text = print_model(&imported.model);
        if print_model(&imported.model) != text {
            failures.push(format!("{show}: printing is not deterministic"));
        }
        write(
            &with_ext(&work.join("graft_printed"), &rel, ".txt"),
            text.as_bytes(),
        );
        let options = ExportOptions {
            allow_loss: true,
            ..ExportOptions::default()
        };
        match parse_model(&text) {
            Ok(parsed) => {
                if print_model(&parsed.model) != text {
                    failures.push(format!(
                        "{show}: print(parse(print(m))) differs from print(m)"
                    ));
                }
                match graft::export(&parsed.model, &options) {
                    Ok(b) => write(&with_ext(&work.join("graft_parsed"), &rel, ".onnx"), &b),
                    Err(e) => failures.push(format!("{show}: export of the parse: {e}")),
                }
            }
            Err(e) => failures.push(format!("{show}: Graft cannot parse its own text: {e}")),
        }
        let plain = ParseOptions { annotations: false };
        match parse_model_with(&text, &plain).map(|p| graft::export(&p.model, &options)) {
            Ok(Ok(b)) => write(&with_ext(&work.join("graft_std"), &rel, ".onnx"), &b),
            Ok(Err(e)) => failures.push(format!("{show}: export without annotations: {e}")),
            Err(e) => failures.push(format!("{show}: cannot parse without annotations: {e}")),
        }
    }
    println!(
        "graft: {count} models printed and parsed in {:.1?}",
        started.elapsed()
    );

    fixtures(&root, &work.join("fixtures"), &mut failures);

    let allow = root.join("tests/interop/text_allowlist.txt");
    let (ok, out) = python(
        &script,
        &[
            "check".as_ref(),
            dir.as_os_str(),
            work.as_os_str(),
            "--allow".as_ref(),
            allow.as_os_str(),
        ],
    );
    println!("{out}");
    assert!(
        failures.is_empty(),
        "{} failures on the Rust side:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(ok, "text_compat.py check found failures (see above)");
}

/// The snapshot fixtures of `crates/graft/tests/text`: their input and Graft's print
/// of it, with Graft's reading (annotations off) for check (d).
fn fixtures(root: &Path, out: &Path, failures: &mut Vec<String>) {
    let dir = root.join("crates/graft/tests/text");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        failures.push(format!("no fixtures at {}", dir.display()));
        return;
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
        .collect();
    files.sort();
    for path in files {
        let Some(stem) = path.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        let content = std::fs::read_to_string(&path).unwrap_or_default();
        let input = content
            .split_once("\n# ==== expected ====\n")
            .map_or(content.as_str(), |(i, _)| i)
            .to_string()
            + "\n";
        let kind = match input.lines().next() {
            Some("# kind: graph") => "graph",
            Some("# kind: function") => "function",
            _ => "model",
        };
        write(&out.join(format!("{stem}.kind")), kind.as_bytes());
        let read = |text: &str, annotations: bool| match kind {
            "graph" => graft::text::parse_graph(text),
            "function" => graft::text::parse_function(text),
            _ => parse_model_with(text, &ParseOptions { annotations }),
        };
        let printed = match read(&input, true) {
            Ok(p) => Some(match kind {
                "graph" => p
                    .model
                    .graph
                    .map(|g| graft::text::print_graph(&p.model, g))
                    .unwrap_or_default(),
                "function" => p
                    .model
                    .functions
                    .first()
                    .map(|&f| graft::text::print_function(&p.model, f))
                    .unwrap_or_default(),
                _ => print_model(&p.model),
            }),
            Err(_) => None,
        };
        let mut stages = vec![("input", input.clone())];
        stages.extend(printed.map(|p| ("printed", p)));
        for (stage, text) in stages {
            write(&out.join(format!("{stem}.{stage}.txt")), text.as_bytes());
            match read(&text, false).map(|p| graft::export(&p.model, &ExportOptions::default())) {
                Ok(Ok(b)) => write(&out.join(format!("{stem}.{stage}.onnx")), &b),
                Ok(Err(e)) => failures.push(format!("fixture {stem}: export: {e}")),
                Err(e) => write(
                    &out.join(format!("{stem}.{stage}.err")),
                    e.to_string().as_bytes(),
                ),
            }
        }
    }
}
