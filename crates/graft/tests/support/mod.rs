//! What the fixture tests share: splitting a fixture of `tests/cases/` into its model
//! sections, the `# needs-edit` IR edits, and the list of fixtures.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use graft::ir::{Model, SparseInitializer, SparseTensor, Tensor, dtype};

/// One model of a fixture: the text from one `# --- label ---` line to the next.
pub struct Section {
    pub label: String,
    pub text: String,
    pub expect_check: Option<String>,
    pub needs_edit: Vec<String>,
}

/// Splits a fixture into its model sections; the first is `main`.
pub fn sections(src: &str) -> Vec<Section> {
    let mut out = vec![Section {
        label: "main".into(),
        text: String::new(),
        expect_check: None,
        needs_edit: Vec::new(),
    }];
    for line in src.lines() {
        if let Some(label) = line
            .strip_prefix("# --- ")
            .and_then(|rest| rest.trim_end().strip_suffix(" ---"))
        {
            out.push(Section {
                label: label.to_string(),
                text: String::new(),
                expect_check: None,
                needs_edit: Vec::new(),
            });
            continue;
        }
        let Some(section) = out.last_mut() else {
            continue;
        };
        section.text.push_str(line);
        section.text.push('\n');
        if let Some(value) = line.strip_prefix("# expect-check:") {
            section.expect_check = Some(value.trim().to_string());
        } else if let Some(value) = line.strip_prefix("# needs-edit:") {
            section.needs_edit.push(value.trim().to_string());
        }
    }
    out
}

/// The IR edits that `# needs-edit` lines describe, by case number and section.
/// Attaches the data files a section's `# external-data: FILE float32 = v, ...` lines
/// give (the bytes of each file).
pub fn attach_external_data(text: &str, model: &mut Model) -> Result<(), String> {
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# external-data:") {
            let (head, values) = rest.split_once('=').ok_or("bad external-data line")?;
            let file = head.split_whitespace().next().ok_or("no file")?;
            let mut bytes = Vec::new();
            for v in values.split(',') {
                let v: f32 = v.trim().parse().map_err(|_| format!("bad value {v:?}"))?;
                bytes.extend_from_slice(&v.to_le_bytes());
            }
            model.attach_external(file, bytes::Bytes::from(bytes));
        }
    }
    Ok(())
}

pub fn apply_edit(case: &str, label: &str, model: &mut Model) -> Result<(), String> {
    match (case, label) {
        // "replace initializer S of the guest graph by a sparse initializer named S with
        // dims [4], values float[1] {3.0} and indices int64[1] {2}"
        ("14", "guest") => {
            let g = model.graph.ok_or("no main graph")?;
            let Model { graphs, values, .. } = model;
            let graph = &mut graphs[g];
            let at = graph
                .initializers
                .iter()
                .position(|i| i.value.is_some_and(|v| values[v].name == "S"))
                .ok_or("no initializer S")?;
            let dense = graph.initializers.remove(at);
            if dense.tensor.dims != [4] {
                return Err(format!("S has dims {:?}, not [4]", dense.tensor.dims));
            }
            graph.sparse_initializers.push(SparseInitializer {
                value: dense.value,
                tensor: SparseTensor {
                    values: Some(Tensor {
                        dims: vec![1],
                        data_type: Some(dtype::FLOAT),
                        float_data: vec![3.0],
                        ..Tensor::default()
                    }),
                    indices: Some(Tensor {
                        dims: vec![1],
                        data_type: Some(dtype::INT64),
                        int64_data: vec![2],
                        ..Tensor::default()
                    }),
                    dims: vec![4],
                },
            });
            Ok(())
        }
        // "set doc_string "negates the scaled input" on node 1 (Neg) of the guest graph"
        ("25", "guest") => {
            let g = model.graph.ok_or("no main graph")?;
            let n = *model.graphs[g].nodes.get(1).ok_or("no node 1")?;
            let node = &mut model.nodes[n];
            if node.op_type() != "Neg" {
                return Err(format!("node 1 is {}, not Neg", node.op_type()));
            }
            node.doc_string = Some("negates the scaled input".into());
            Ok(())
        }
        _ => Err("no edit is implemented for this section".into()),
    }
}

pub fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "onnxtxt"))
        .collect();
    files.sort();
    files
}

pub fn case_number(path: &Path) -> String {
    path.file_name()
        .and_then(|n| n.to_str())
        .map(|n| n.chars().take(2).collect())
        .unwrap_or_default()
}

/// Export then import gives the same model (compared as printed text).
pub fn survives_round_trip(model: &Model) -> Result<(), String> {
    let bytes =
        graft::export(model, &graft::ExportOptions::default()).map_err(|e| e.to_string())?;
    let back = graft::import(bytes::Bytes::from(bytes)).map_err(|e| e.to_string())?;
    let (a, b) = (
        graft::text::print_model(model),
        graft::text::print_model(&back.model),
    );
    if a != b {
        return Err(format!("export/import changed the model:\n{a}\n----\n{b}"));
    }
    Ok(())
}

/// `tests/DIR/NN.expected.onnxtxt` for the first run of case NN, `NN-K...` for the
/// K-th.
pub fn expected_path(dir: &str, nn: &str, k: usize) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    if k == 1 {
        dir.join(format!("{nn}.expected.onnxtxt"))
    } else {
        dir.join(format!("{nn}-{k}.expected.onnxtxt"))
    }
}

/// The checker's errors, printed (warnings left out).
pub fn checker_errors(model: &Model) -> Vec<String> {
    graft::check::check(model)
        .iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .map(|d| d.to_string())
        .collect()
}

/// No checker error, and the model survives export then import.
pub fn check_clean(model: &Model) -> Result<(), String> {
    let errors = checker_errors(model);
    if !errors.is_empty() {
        return Err(format!(
            "checker errors:\n{}\n{}",
            errors.join("\n"),
            graft::text::print_model(model)
        ));
    }
    survives_round_trip(model)
}

// Snapshots. `expect-test` is not used: two of the suites keep each fixture's input
// and its expectation in one file, below `EXPECTED`, which its `expect_file!` (a
// whole file, named at compile time) cannot rewrite; `UPDATE_EXPECT=1` is the same
// switch it uses.

/// Whether `UPDATE_EXPECT` is set: snapshots are written, not compared.
fn updating() -> bool {
    std::env::var_os("UPDATE_EXPECT").is_some()
}

/// Compares `got` with the snapshot `file` (with `UPDATE_EXPECT` set, writes it
/// instead); a failure message, naming `what`, when they differ.
pub fn snapshot(file: &Path, got: &str, what: &str) -> Option<String> {
    if updating() {
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).expect("create the snapshot folder");
        }
        std::fs::write(file, got).expect("write the snapshot");
        return None;
    }
    let want = std::fs::read_to_string(file).unwrap_or_default();
    (want != got).then(|| {
        format!(
            "{what}: differs from {}\n--- got ---\n{got}",
            file.display()
        )
    })
}

/// The line between a fixture's input and what the input gives.
pub const EXPECTED: &str = "# ==== expected ====";

/// A fixture file: its input, then a line [`EXPECTED`] and the expectation (absent
/// in a new fixture).
pub struct Fixture {
    pub path: PathBuf,
    /// The input, ending with a newline.
    pub input: String,
    pub expected: Option<String>,
}

impl Fixture {
    pub fn read(path: &Path) -> Fixture {
        let content = std::fs::read_to_string(path).unwrap_or_default();
        let (input, expected) = match content.split_once(&format!("\n{EXPECTED}\n")) {
            Some((i, e)) => (format!("{i}\n"), Some(e.to_string())),
            None => (content, None),
        };
        Fixture {
            path: path.to_path_buf(),
            input,
            expected,
        }
    }

    /// Compares `actual` with the expectation (with `UPDATE_EXPECT` set, writes it
    /// below the input instead); a failure message, naming `what`, when they differ.
    pub fn check(&self, actual: &str, what: &str) -> Option<String> {
        if self.expected.as_deref() == Some(actual) {
            return None;
        }
        let name = self.path.display();
        if updating() {
            let body = format!(
                "{}\n{EXPECTED}\n{actual}",
                self.input.trim_end_matches('\n')
            );
            std::fs::write(&self.path, body).unwrap_or_else(|e| panic!("{name}: {e}"));
            return None;
        }
        Some(format!(
            "{name}: {what} differs from the expectation (UPDATE_EXPECT=1 to accept):\n\
             --- expected\n{}\n--- actual\n{actual}",
            self.expected.as_deref().unwrap_or_default()
        ))
    }
}
