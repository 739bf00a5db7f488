//! `graft::codec::import_from`: a model read through a source a range at a time, its
//! big initializers' `raw_data` left in the file (`Tensor::unread`) and read back only
//! by what needs the bytes. The corpus-wide check (every model exports the same bytes
//! read either way) is in `tests/conformance.rs`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use bytes::Bytes;
use graft::codec::import_from;
use graft::external::ReadRange;
use graft::ir::{Tensor, dtype};
use graft::{ExportError, ExportOptions};

/// A file in memory that counts the bytes read and can be made to fail.
struct Source {
    bytes: Bytes,
    read: Cell<u64>,
    fail: Cell<bool>,
    calls: RefCell<Vec<(u64, u64)>>,
}

impl Source {
    fn new(bytes: &[u8]) -> Rc<Source> {
        Rc::new(Source {
            bytes: Bytes::copy_from_slice(bytes),
            read: Cell::new(0),
            fail: Cell::new(false),
            calls: RefCell::default(),
        })
    }
}

impl ReadRange for Source {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        if self.fail.get() {
            return Err("the file is gone".into());
        }
        assert!(
            start <= end && end <= self.len(),
            "read {start}..{end} out of range"
        );
        self.read.set(self.read.get() + end - start);
        self.calls.borrow_mut().push((start, end));
        Ok(self.bytes.slice(start as usize..end as usize))
    }
}

/// A model with `count` float initializers of `size` elements each (values that say
/// which tensor and element they are), added up by a chain of Adds.
fn weights_model(count: usize, size: usize) -> Vec<u8> {
    let mut text = String::from(
        "<ir_version: 8, opset_import: [\"\" : 18]>\ng (float[N] x) => (float[N] y)\n<",
    );
    let inits: Vec<String> = (0..count)
        .map(|i| format!("float[1] w{i} = {{0.0}}"))
        .collect();
    text.push_str(&inits.join(", "));
    text.push_str(">\n{\n");
    let mut last = "x".to_string();
    for i in 0..count {
        let out = if i + 1 == count {
            "y".to_string()
        } else {
            format!("a{i}")
        };
        text.push_str(&format!("  {out} = Add ({last}, w{i})\n"));
        last = out;
    }
    text.push('}');
    let mut model = graft::text::parse_model(&text)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
        .model;
    let graph = model.graph.expect("a graph");
    for (i, init) in model.graphs[graph].initializers.iter_mut().enumerate() {
        let values: Vec<u8> = (0..size)
            .flat_map(|k| ((i * 1000 + k) as f32).to_le_bytes())
            .collect();
        init.tensor = Tensor {
            dims: vec![size as i64],
            data_type: Some(dtype::FLOAT),
            raw_data: Some(Bytes::from(values)),
            doc_string: Some(format!("weight {i}")),
            ..Tensor::default()
        };
    }
    graft::export(&model, &ExportOptions::default()).expect("exports")
}

/// The model's bytes, whatever it holds.
fn export_all(model: &graft::Model) -> Result<Vec<u8>, ExportError> {
    let options = ExportOptions {
        allow_loss: true,
        ..Default::default()
    };
    graft::export(model, &options)
}

fn unread_count(model: &graft::Model) -> usize {
    model
        .all_initializers()
        .filter(|(_, i)| i.tensor.unread.is_some())
        .count()
}

#[test]
fn big_payloads_stay_in_the_file_and_the_model_exports_the_same_bytes() {
    // Payloads of megabytes are jumped over: the first read (a megabyte) and the
    // tensors' headers are read, not the 16 MB of weights.
    let bytes = weights_model(4, 1_000_000);
    let source = Source::new(&bytes);
    let imported = import_from(source.clone(), 64 << 10).expect("imports");
    assert_eq!(unread_count(&imported.model), 4);
    let read = source.read.get();
    assert!(
        read < (1 << 20) + 4096,
        "read {read} of {} bytes",
        bytes.len()
    );

    let whole = graft::import(Bytes::from(bytes.clone())).expect("imports");
    assert_eq!(imported.diagnostics, whole.diagnostics);
    // The text shows the range left in the file.
    assert!(graft::text::print_model(&imported.model).contains(", 4000000]"));
    let exported = graft::export(&imported.model, &ExportOptions::default()).expect("exports");
    assert!(exported == bytes, "the export differs from the file");
    let mut streamed = Vec::new();
    graft::export_to(&imported.model, &ExportOptions::default(), &mut streamed).expect("writes");
    assert!(streamed == bytes);
}

#[test]
fn payloads_under_a_megabyte_are_read_through_in_few_reads_and_not_kept() {
    let bytes = weights_model(40, 20_000);
    let source = Source::new(&bytes);
    let imported = import_from(source.clone(), 64 << 10).expect("imports");
    assert_eq!(unread_count(&imported.model), 40);
    let reads = source.calls.borrow().len();
    assert!(reads < 10, "{reads} reads");
    // The export reads the 40 payloads, which lie next to one another, at once.
    source.calls.borrow_mut().clear();
    let exported = graft::export(&imported.model, &ExportOptions::default()).unwrap();
    assert!(exported == bytes);
    assert_eq!(source.calls.borrow().len(), 1);
}

#[test]
fn small_payloads_are_read_and_a_file_without_big_ones_is_read_once() {
    let bytes = weights_model(5, 100);
    let source = Source::new(&bytes);
    let imported = import_from(source.clone(), 64 << 10).expect("imports");
    assert_eq!(unread_count(&imported.model), 0);
    assert!(imported.model.file.is_none(), "no file is kept for nothing");
    assert_eq!(source.read.get(), bytes.len() as u64);
    let exported = graft::export(&imported.model, &ExportOptions::default()).unwrap();
    assert!(exported == bytes);
}

#[test]
fn values_of_an_unread_tensor_are_read_when_asked() {
    let bytes = weights_model(3, 20_000);
    let source = Source::new(&bytes);
    let model = import_from(source.clone(), 1 << 10).expect("imports").model;
    let before = source.read.get();
    let tensor = &model.graphs[model.graph.unwrap()].initializers[2].tensor;
    assert_eq!(tensor.payload_bytes(), 80_000);
    let numbers = graft::values::numbers_in(Some(&model), tensor).expect("numbers");
    assert_eq!(numbers.len(), 20_000);
    assert_eq!(numbers[5], 2005.0);
    // The last tensor: it and the rest of the file (a few bytes), read ahead.
    let read = source.read.get() - before;
    assert!((80_000..80_100).contains(&read), "read {read}");
    // Without its model, there is nothing to read them from.
    assert!(graft::values::elements(None, tensor).is_none());
}

#[test]
fn a_file_that_cannot_be_read_any_more_fails_the_export_by_name_and_changes_nothing() {
    let bytes = weights_model(3, 20_000);
    let source = Source::new(&bytes);
    let model = import_from(source.clone(), 1 << 10).expect("imports").model;
    let text = graft::text::print_model(&model);
    source.fail.set(true);
    let error = graft::export(&model, &ExportOptions::default()).expect_err("cannot read");
    assert!(
        matches!(&error, ExportError::Unread { reason, .. } if reason.contains("gone")),
        "{error}"
    );
    assert_eq!(graft::text::print_model(&model), text);
    source.fail.set(false);
    assert!(graft::export(&model, &ExportOptions::default()).unwrap() == bytes);
}

#[test]
fn a_failed_read_while_opening_is_an_error_not_a_panic() {
    let source = Source::new(&weights_model(3, 20_000));
    source.fail.set(true);
    let error = import_from(source, 1 << 10).expect_err("cannot read");
    assert_eq!(
        error.to_string(),
        "could not read the model's file: the file is gone"
    );
}

#[test]
fn every_truncation_fails_or_succeeds_as_the_whole_file_does() {
    let bytes = weights_model(3, 2_000);
    let step = (bytes.len() / 300).max(1);
    for cut in (0..bytes.len()).step_by(step).chain([bytes.len() - 1]) {
        let part = &bytes[..cut];
        let whole = graft::import(Bytes::copy_from_slice(part)).map(|i| export_all(&i.model));
        let skimmed = import_from(Source::new(part), 256).map(|i| export_all(&i.model));
        assert_eq!(skimmed, whole, "cut at {cut} of {}", bytes.len());
    }
}

#[test]
fn two_models_in_one_file_merge_as_protobuf_does() {
    let mut twice = weights_model(2, 20_000);
    twice.extend_from_slice(&weights_model(1, 30_000));
    let source = Source::new(&twice);
    let skimmed = import_from(source.clone(), 1 << 10).map(|i| export_all(&i.model));
    let whole = graft::import(Bytes::from(twice.clone())).map(|i| export_all(&i.model));
    assert_eq!(skimmed, whole);
}

#[test]
fn a_file_laid_out_unusually_is_read_whole() {
    // A group (wire type 3), which onnx.proto never has: the importer skips it as an
    // unknown field, the walk does not guess.
    let mut bytes = weights_model(2, 20_000);
    // Field 51: start group (51 << 3 | 3, as a varint), a varint field 1, end group.
    bytes.extend_from_slice(&[0x9b, 0x03, 0x08, 0x01, 0x9c, 0x03]);
    let source = Source::new(&bytes);
    let skimmed = import_from(source.clone(), 1 << 10).map(|i| export_all(&i.model));
    let whole = graft::import(Bytes::from(bytes.clone())).map(|i| export_all(&i.model));
    assert_eq!(skimmed, whole);
    assert!(source.read.get() >= bytes.len() as u64, "read whole");
}

#[test]
fn payloads_in_constants_subgraphs_and_function_bodies_stay_in_the_file_too() {
    let text = r#"<ir_version: 10, opset_import: ["" : 18, "local" : 1]>
g (bool c, float[N] x) => (float[N] y) {
  k = Constant <value = float[1] {0.0}> ()
  t = local.F (x, k)
  y = If (c) <
    then_branch = b1 () => (float[N] o1) { w1 = Constant <value = float[1] {0.0}> () o1 = Add (t, w1) },
    else_branch = b2 () => (float[N] o2) <float[1] w2 = {0.0}> { o2 = Sub (t, w2) }
  >
}
<domain: "local", opset_import: ["" : 18]>
F (a, b) => (r) {
  w3 = Constant <value = float[1] {0.0}> ()
  s = Mul (a, w3)
  r = Add (s, b)
}"#;
    let mut model = graft::text::parse_model(text)
        .unwrap_or_else(|e| panic!("{e}"))
        .model;
    // Every tensor gets 100,000 floats.
    let big = |t: &mut Tensor| {
        t.dims = vec![100_000];
        t.raw_data = Some(Bytes::from(vec![7u8; 400_000]));
    };
    for graph in model.graphs.items_mut() {
        graph
            .initializers
            .iter_mut()
            .for_each(|i| big(&mut i.tensor));
    }
    for node in model.nodes.items_mut() {
        for a in &mut node.attributes {
            if let graft::ir::AttrKind::Value(graft::ir::AttrValue::Tensor(t)) = &mut a.kind {
                big(t);
            }
        }
    }
    let bytes = graft::export(&model, &ExportOptions::default()).unwrap();
    let imported = import_from(Source::new(&bytes), 64 << 10).expect("imports");
    let unread = |t: &Tensor| t.unread.is_some() as usize;
    let in_attributes: usize = imported
        .model
        .nodes
        .iter()
        .flat_map(|(_, n)| &n.attributes)
        .map(|a| match &a.kind {
            graft::ir::AttrKind::Value(graft::ir::AttrValue::Tensor(t)) => unread(t),
            _ => 0,
        })
        .sum();
    assert_eq!(
        in_attributes, 3,
        "the three Constants, one in a function body"
    );
    assert_eq!(
        unread_count(&imported.model),
        1,
        "the initializer of a branch"
    );
    assert!(export_all(&imported.model).unwrap() == bytes);
}

#[test]
fn a_tensor_with_two_raw_data_fields_keeps_the_last_as_protobuf_does() {
    fn delimited(out: &mut Vec<u8>, field: u8, body: &[u8]) {
        out.push(field << 3 | 2);
        out.push(body.len() as u8);
        out.extend_from_slice(body);
    }
    let mut tensor = vec![0x08, 4, 0x10, 1];
    delimited(&mut tensor, 8, b"w");
    delimited(&mut tensor, 9, &[1; 16]);
    delimited(&mut tensor, 9, &[2; 16]);
    let mut graph = Vec::new();
    delimited(&mut graph, 5, &tensor);
    let mut model = vec![0x08, 8];
    delimited(&mut model, 7, &graph);
    let export = |m: &graft::Model| graft::export(m, &ExportOptions::default()).unwrap();
    let whole = graft::import(Bytes::from(model.clone())).unwrap().model;
    let skimmed = import_from(Source::new(&model), 8).unwrap().model;
    assert_eq!(unread_count(&skimmed), 0);
    assert_eq!(export(&skimmed), export(&whole));
    let raw = whole.graphs[whole.graph.unwrap()].initializers[0]
        .tensor
        .raw_data
        .clone();
    assert_eq!(raw.as_deref(), Some(&[2u8; 16][..]));
}

#[test]
fn the_text_of_a_model_with_unread_payloads_edits_without_losing_them() {
    let bytes = weights_model(3, 20_000);
    let mut model = import_from(Source::new(&bytes), 1 << 10)
        .expect("imports")
        .model;
    let text = graft::text::print_model(&model);
    assert!(text.contains("unread: ["), "the range is written");
    // Read back, the text is the same model.
    let mut again = graft::text::parse_model(&text).expect("parses").model;
    again.file = model.file.clone();
    assert!(export_all(&again).unwrap() == bytes);
    // Replacing the model by its text, edited, keeps the weights.
    let edited = text.replace("weight 1", "the second weight");
    let mut history = graft::edit::History::default();
    history
        .apply(&mut model, graft::edit::Edit::ReplaceModel { text: edited })
        .expect("applies");
    let exported = export_all(&model).unwrap();
    let whole = graft::import(Bytes::from(exported)).unwrap().model;
    let tensor = &whole.graphs[whole.graph.unwrap()].initializers[1].tensor;
    assert_eq!(tensor.doc_string.as_deref(), Some("the second weight"));
    assert_eq!(tensor.raw_data.as_ref().map(|r| r.len()), Some(80_000));
}

#[test]
fn comparing_two_models_left_in_their_files_reads_them_a_chunk_at_a_time() {
    let bytes = weights_model(40, 20_000);
    let (a, b) = (Source::new(&bytes), Source::new(&bytes));
    let model_a = import_from(a.clone(), 1 << 10).unwrap().model;
    let model_b = import_from(b.clone(), 1 << 10).unwrap().model;
    a.calls.borrow_mut().clear();
    b.calls.borrow_mut().clear();
    let diff = graft::diff::diff(&model_a, &model_b);
    assert_eq!(
        diff.counts(),
        graft::diff::Counts::default(),
        "the same model"
    );
    // 40 tensors of 80 KB, 3.2 MB in all: one read ahead each.
    assert_eq!((a.calls.borrow().len(), b.calls.borrow().len()), (1, 1));
}
