//! What Graft writes is complete and valid: the defects found on real models, each
//! as a regression test. New outputs carry types; deleting a node takes its
//! `value_info` along; a stray `value_info` is a warning and is kept; a tensor's byte
//! count is its size in its element type; missing or short external data is
//! reported, and an export to another place moves only the bytes the model uses.

use bytes::Bytes;
use graft::edit::{Edit, apply};
use graft::{ExportOptions, Model, Severity, Summary};

fn parse(text: &str) -> Model {
    graft::text::parse_model(text).unwrap().model
}

fn codes(m: &Model, severity: Severity) -> Vec<&'static str> {
    graft::check::check(m)
        .into_iter()
        .filter(|d| d.severity == severity)
        .map(|d| d.code)
        .collect()
}

/// Export, import again: the diagnostics of the import and of the checker.
fn reimport(m: &Model) -> (Model, Vec<graft::Diagnostic>) {
    let bytes = graft::export(m, &ExportOptions::default()).unwrap();
    let imported = graft::import(Bytes::from(bytes)).unwrap();
    let mut diagnostics = imported.diagnostics;
    diagnostics.extend(graft::check::check(&imported.model));
    (imported.model, diagnostics)
}

fn errors(diagnostics: &[graft::Diagnostic]) -> Vec<String> {
    diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(ToString::to_string)
        .collect()
}

#[test]
fn a_new_model_output_states_its_inferred_type_or_is_refused() {
    let text = r#"<ir_version: 10, opset_import: ["": 18, "com.x": 1]>
main (float[N, 3] x) => (float[N, 3] y) {
  a = Relu(x)
  u = com.x.Opaque(a)
  y = Neg(a)
}"#;
    let mut m = parse(text);
    apply(
        &mut m,
        &Edit::AddOutput {
            graph: "main".into(),
            value: "a".into(),
        },
    )
    .unwrap();
    let printed = graft::text::print_model(&m);
    assert!(
        printed.contains("=> (float[N,3] y, float[N,3] a)"),
        "{printed}"
    );
    let (_, diagnostics) = reimport(&m);
    assert_eq!(errors(&diagnostics), Vec::<String>::new());

    // Nothing is known of `u`: a model output needs an element type, so it is refused
    // and the model is unchanged.
    let before = graft::text::print_model(&m);
    let refused = apply(
        &mut m,
        &Edit::AddOutput {
            graph: "main".into(),
            value: "u".into(),
        },
    )
    .unwrap_err();
    assert!(
        refused.to_string().contains("inference does not know"),
        "{refused}"
    );
    assert_eq!(graft::text::print_model(&m), before);
}

#[test]
fn deleting_a_node_takes_its_value_info_along_and_undo_restores_it() {
    let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[N] x) => (float[N] y) <float[N] a, float[N] b> {
  a = Identity(x)
  b = Relu(a)
  y = Neg(b)
}"#;
    let mut m = parse(text);
    let before = graft::export(&m, &ExportOptions::default()).unwrap();
    let undo = apply(
        &mut m,
        &Edit::DeleteNodes {
            graph: "main".into(),
            nodes: vec![0],
            reconnect: true,
        },
    )
    .unwrap();
    let printed = graft::text::print_model(&m);
    assert!(!printed.contains("float[N] a"), "{printed}");
    assert!(printed.contains("float[N] b"), "{printed}");
    let (_, diagnostics) = reimport(&m);
    assert!(
        diagnostics.iter().all(|d| d.severity < Severity::Warning),
        "{diagnostics:?}"
    );
    graft::edit::undo(&mut m, undo);
    assert_eq!(
        graft::export(&m, &ExportOptions::default()).unwrap(),
        before
    );
}

#[test]
fn a_stray_value_info_is_a_warning_and_is_kept() {
    // As exporters write it: a value_info entry for a value no node produces.
    let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[N] x) => (float[N] y) <float[N] ghost> {
  y = Neg(x)
}"#;
    let parsed = graft::text::parse_model(text).unwrap();
    let stray: Vec<_> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.severity, d.code))
        .collect();
    assert_eq!(stray, [(Severity::Warning, "import.stray-value-info")]);
    let bytes = graft::export(&parsed.model, &ExportOptions::default()).unwrap();
    let imported = graft::import(Bytes::from(bytes.clone())).unwrap();
    let codes_seen: Vec<_> = imported
        .diagnostics
        .iter()
        .map(|d| (d.severity, d.code))
        .collect();
    assert_eq!(codes_seen, [(Severity::Warning, "import.stray-value-info")]);
    assert_eq!(codes(&imported.model, Severity::Error), Vec::<&str>::new());
    // Kept losslessly.
    assert_eq!(
        graft::export(&imported.model, &ExportOptions::default()).unwrap(),
        bytes
    );
}

#[test]
fn byte_counts_follow_the_element_type_not_the_storage_field() {
    let m = parse(
        r#"<ir_version: 10, opset_import: ["": 18]>
main (uint8[3] x) => (uint8[3] y) <uint8[3] w = {1, 2, 3}, int16[2] h = {7, 8}, float[2] f = {1.0, 2.0}> {
  y = Add(x, w)
}"#,
    );
    // uint8 and int16 travel in int32_data (4 bytes an element on the wire).
    let graph = m.graph(m.graph.unwrap());
    assert!(
        graph
            .initializers
            .iter()
            .all(|i| i.tensor.raw_data.is_none())
    );
    assert_eq!(graph.initializers[0].tensor.int32_data.len(), 3);
    let summary = Summary::of(&m, &[]);
    assert_eq!(summary.initializer_bytes, 3 + 2 * 2 + 2 * 4);
}

const EXTERNAL: &str = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) <float[4] w = ["location": "w.bin", "offset": "8", "length": "16"]> {
  y = Mul(x, w)
}"#;

#[test]
fn missing_or_short_external_data_is_an_error_of_the_checker() {
    let mut m = parse(EXTERNAL);
    assert_eq!(codes(&m, Severity::Error), ["check.external-data"]);
    let message = graft::check::check(&m)[0].message.clone();
    assert!(message.contains("\"w.bin\" is missing"), "{message}");
    m.attach_external("w.bin", Bytes::from(vec![0u8; 20]));
    assert_eq!(codes(&m, Severity::Error), ["check.external-data"]);
    let message = graft::check::check(&m)[0].message.clone();
    assert!(
        message.contains("outside \"w.bin\" (20 bytes)"),
        "{message}"
    );
    m.attach_external("w.bin", Bytes::from(vec![0u8; 24]));
    assert_eq!(codes(&m, Severity::Error), Vec::<&str>::new());
}

/// A data file read a range at a time, counting the bytes read.
struct Ranges {
    file: Vec<u8>,
    read: std::cell::Cell<u64>,
}

impl graft::external::ReadRange for Ranges {
    fn len(&self) -> u64 {
        self.file.len() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        self.read.set(self.read.get() + (end - start));
        Ok(Bytes::copy_from_slice(
            &self.file[start as usize..end as usize],
        ))
    }
}

#[test]
fn a_data_file_kept_as_a_source_is_checked_without_reading_and_read_a_tensor_at_a_time() {
    let mut m = parse(EXTERNAL);
    let mut file = vec![0xAAu8; 8];
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    file.extend_from_slice(&[0xBB; 1000]);
    let source = std::rc::Rc::new(Ranges {
        file: file.clone(),
        read: std::cell::Cell::new(0),
    });
    m.attach_external_source("w.bin", source.clone());
    assert_eq!(codes(&m, Severity::Error), Vec::<&str>::new());
    assert_eq!(source.read.get(), 0, "the checker reads nothing");
    // Short: the checker says so, still without reading.
    let mut short = parse(EXTERNAL);
    short.attach_external_source(
        "w.bin",
        std::rc::Rc::new(Ranges {
            file: vec![0; 20],
            read: std::cell::Cell::new(0),
        }),
    );
    assert_eq!(codes(&short, Severity::Error), ["check.external-data"]);
    // An export that embeds the data reads the tensor's 16 bytes, nothing more.
    let options = ExportOptions {
        embed_external: true,
        ..ExportOptions::default()
    };
    let bytes = graft::export(&m, &options).unwrap();
    assert_eq!(source.read.get(), 16);
    let embedded = graft::import(Bytes::from(bytes)).unwrap().model;
    let tensor = &embedded.all_initializers().next().unwrap().1.tensor;
    assert_eq!(tensor.raw_data.as_deref(), Some(&file[8..24]));
}

#[test]
fn an_export_elsewhere_moves_only_the_used_bytes_into_a_new_data_file() {
    let mut m = parse(EXTERNAL);
    let mut file = vec![0xAAu8; 8];
    for v in [1.0f32, 2.0, 3.0, 4.0] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    file.extend_from_slice(&[0xBB; 100]);
    m.attach_external("w.bin", Bytes::from(file.clone()));
    let options = ExportOptions {
        external_to: Some("out.onnx.data".into()),
        ..ExportOptions::default()
    };
    let mut out = Vec::new();
    let data = graft::export_to(&m, &options, &mut out).unwrap();
    assert_eq!(data.len(), 16);
    let data: Vec<u8> = data.pieces.iter().flat_map(|p| p.to_vec()).collect();
    assert_eq!(data, file[8..24]);
    let mut moved = graft::import(Bytes::from(out)).unwrap().model;
    let ext = moved
        .all_initializers()
        .next()
        .unwrap()
        .1
        .tensor
        .external_ref();
    let ext = ext.unwrap();
    assert_eq!(
        (ext.location.as_str(), ext.offset, ext.length),
        ("out.onnx.data", 0, Some(16))
    );
    moved.attach_external("out.onnx.data", Bytes::from(data));
    assert_eq!(codes(&moved, Severity::Error), Vec::<&str>::new());

    // Without the data, the export is refused, naming the file.
    let bare = parse(EXTERNAL);
    let refused = graft::export_to(&bare, &options, &mut Vec::new()).unwrap_err();
    assert!(refused.to_string().contains("w.bin"), "{refused}");
}

#[test]
fn an_attribute_value_of_the_wrong_type_is_refused_in_the_users_terms() {
    let text = r#"<ir_version: 10, opset_import: ["": 18, "local": 1]>
main (float[4] x) => (float[4] y, float[4] z) {
  y = LeakyRelu <alpha = 0.1> (x)
  z = local.Scale (x)
}
<domain: "local", opset_import: ["": 18]>
Scale <gain: float = 1.0> (p) => (q) {
  k = Constant <value_float: float = @gain> ()
  q = Mul(p, k)
}"#;
    let mut m = parse(text);
    let set = |node: usize, attribute: &str| Edit::SetAttribute {
        graph: "main".into(),
        node,
        attribute: attribute.into(),
    };
    for (node, attribute, message) in [
        (0, "alpha = abc", "alpha expects a float; `abc` is not one"),
        (
            0,
            "alpha = [1, 2]",
            "alpha expects a float; `[1, 2]` is not one",
        ),
        (
            1,
            "gain = \"loud\"",
            "gain expects a float; `\"loud\"` is not one",
        ),
    ] {
        let e = apply(&mut m, &set(node, attribute)).unwrap_err();
        assert_eq!(e.message, message, "{attribute}");
        let name = attribute.split(' ').next().unwrap().to_string();
        assert_eq!(e.field, graft::edit::Field::Attribute(name));
    }
    // A good value, and several attributes at once, still apply.
    apply(&mut m, &set(0, "alpha = 0.3")).unwrap();
    apply(&mut m, &set(1, "gain = 2")).unwrap();
    let printed = graft::text::print_model(&m);
    assert!(printed.contains("LeakyRelu <alpha = 0.3>"), "{printed}");
    assert!(
        printed.contains("local.Scale <gain = 2.0>") || printed.contains("local.Scale <gain = 2>"),
        "{printed}"
    );
}
