//! Conformance over the corpus (`cargo xtask corpus`): every model imports, exports
//! deterministically, re-imports to the same bytes, agrees with a second decoder
//! (`onnx-protobuf`), and is written under `target/interop/roundtrip` for the Python
//! tier to compare with onnx `==`. Corrupt inputs give errors, never panics.

use std::path::Path;

use bytes::Bytes;
use graft::ir::{AttrKind, AttrValue, GraphId, Model, Tensor};
use graft::{ExportOptions, ImportError};
use graft_tests::corpus;
use onnx_protobuf::Message as _;

/// A file in memory, read a range at a time.
struct InMemory(Bytes);

impl graft::external::ReadRange for InMemory {
    fn len(&self) -> u64 {
        self.0.len() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        Ok(self.0.slice(start as usize..end as usize))
    }
}

/// Imports `bytes` as the app does a chosen file: through a source, every initializer
/// payload of 64 bytes or more left unread.
fn import_unread(bytes: &Bytes) -> Result<graft::Imported, ImportError> {
    graft::codec::import_from(std::rc::Rc::new(InMemory(bytes.clone())), 64)
}

/// Whether `f` holds for an initializer or a node's tensor attribute of `model`.
fn any_tensor(model: &Model, f: impl Fn(&Tensor) -> bool) -> bool {
    model.all_initializers().any(|(_, i)| f(&i.tensor))
        || model.nodes.iter().any(|(_, n)| {
            n.attributes
                .iter()
                .any(|a| matches!(&a.kind, AttrKind::Value(AttrValue::Tensor(t)) if f(t)))
        })
}

fn read(path: &Path) -> Bytes {
    Bytes::from(std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

#[test]
fn every_corpus_model_round_trips_and_agrees_with_a_second_decoder() {
    let Some(dir) = corpus::dir() else { return };
    let out_root = corpus::root().join("target/interop/roundtrip");
    let models = corpus::models(&dir);
    assert!(
        models.len() > 100,
        "the corpus holds only {} models",
        models.len()
    );
    let mut failures = Vec::new();
    // Models read through a source that left some payload in the file.
    let mut left_unread = 0;
    for path in &models {
        let rel = path.strip_prefix(&dir).unwrap_or(path);
        let bytes = read(path);
        let imported = match graft::import(bytes.clone()) {
            Ok(i) => i,
            Err(e) => {
                failures.push(format!("{}: import failed: {e}", rel.display()));
                continue;
            }
        };
        let options = ExportOptions {
            // The one model with a field from the future is checked on its own below.
            allow_loss: !imported.model.unknown_fields.is_empty(),
            ..ExportOptions::default()
        };
        let exported = match graft::export(&imported.model, &options) {
            Ok(b) => b,
            Err(e) => {
                failures.push(format!("{}: export failed: {e}", rel.display()));
                continue;
            }
        };
        let again = graft::export(&imported.model, &options).ok();
        if again.as_deref() != Some(exported.as_slice()) {
            failures.push(format!("{}: export is not deterministic", rel.display()));
        }
        let mut streamed = Vec::new();
        if graft::export_to(&imported.model, &options, &mut streamed).is_err()
            || streamed != exported
        {
            failures.push(format!(
                "{}: export_to writes other bytes than export",
                rel.display()
            ));
        }
        match import_unread(&bytes) {
            Ok(i) if i.diagnostics != imported.diagnostics => failures.push(format!(
                "{}: read through a source, other diagnostics",
                rel.display()
            )),
            Ok(i) if graft::export(&i.model, &options).ok().as_ref() != Some(&exported) => failures
                .push(format!(
                    "{}: read through a source, exports other bytes",
                    rel.display()
                )),
            Ok(i) => {
                let unread = |t: &Tensor| t.unread.is_some();
                let big = |t: &Tensor| t.raw_data.as_ref().is_some_and(|r| r.len() >= 64);
                if any_tensor(&i.model, unread) {
                    left_unread += 1;
                } else if any_tensor(&imported.model, big) {
                    failures.push(format!(
                        "{}: read through a source, its payloads were all read",
                        rel.display()
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "{}: read through a source, fails: {e}",
                rel.display()
            )),
        }
        let reimported =
            graft::import(Bytes::from(exported.clone())).map(|i| graft::export(&i.model, &options));
        if !matches!(&reimported, Ok(Ok(b)) if *b == exported) {
            failures.push(format!(
                "{}: import(export(m)) exports different bytes",
                rel.display()
            ));
        }
        match onnx_protobuf::ModelProto::parse_from_bytes(&bytes) {
            Ok(other) => {
                let mut diffs = Vec::new();
                cross_check(&imported.model, &other, &mut diffs);
                if let Some(first) = diffs.first() {
                    failures.push(format!(
                        "{}: differs from onnx-protobuf ({} differences; first: {first})",
                        rel.display(),
                        diffs.len()
                    ));
                }
            }
            Err(e) => failures.push(format!(
                "{}: onnx-protobuf cannot decode: {e}",
                rel.display()
            )),
        }
        let out = out_root.join(rel);
        if let Some(parent) = out.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Err(e) = std::fs::write(&out, &exported) {
            failures.push(format!(
                "{}: cannot write {}: {e}",
                rel.display(),
                out.display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} models failed:\n{}",
        failures.len(),
        models.len(),
        failures.join("\n")
    );
    println!(
        "{} models round-tripped and cross-checked; {left_unread} of them read through a source left payloads unread",
        models.len()
    );
    assert!(
        left_unread > 50,
        "only {left_unread} models left payloads unread"
    );
}

#[test]
fn corrupt_inputs_are_clear_errors() {
    let Some(dir) = corpus::dir() else { return };
    let corrupt = dir.join("corrupt");
    for name in [
        "truncated.onnx",
        "random.bin",
        "tensor.pb",
        "empty.onnx",
        "huge_length.onnx",
    ] {
        let result = graft::import(read(&corrupt.join(name)));
        assert_eq!(
            import_unread(&read(&corrupt.join(name))).map(|i| i.diagnostics),
            result
                .as_ref()
                .map(|i| i.diagnostics.clone())
                .map_err(Clone::clone),
            "{name}: read through a source"
        );
        assert!(
            matches!(result, Err(ImportError::Decode(_) | ImportError::NotAModel)),
            "{name}: expected an error, got {:?}",
            result.map(|i| i.diagnostics)
        );
    }
    // Nesting far beyond what protobuf decoders accept: an error, not a stack overflow.
    let deep = graft::import(read(&corrupt.join("deep_nesting.onnx")));
    assert!(
        matches!(deep, Err(ImportError::Decode(ref m)) if m.contains("recursion")),
        "{deep:?}"
    );
}

#[test]
fn a_field_from_a_newer_onnx_is_reported_and_not_silently_dropped() {
    let Some(dir) = corpus::dir() else { return };
    let imported = graft::import(read(&dir.join("generated/unknown_field.onnx"))).expect("imports");
    let codes: Vec<_> = imported
        .diagnostics
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert!(
        codes
            .iter()
            .any(|(c, m)| *c == "import.unknown-field" && m.contains("NodeProto has field 99")),
        "{codes:?}"
    );
    let refused = graft::export(&imported.model, &ExportOptions::default());
    assert!(
        matches!(refused, Err(graft::ExportError::WouldLoseUnknownFields(ref f)) if f[0].field == 99)
    );
    let allowed = ExportOptions {
        allow_loss: true,
        ..ExportOptions::default()
    };
    assert!(graft::export(&imported.model, &allowed).is_ok());
}

#[test]
fn external_data_is_kept_as_references_or_embedded_on_request() {
    let Some(dir) = corpus::dir() else { return };
    let model_path = dir.join("generated/large_10k_external.onnx");
    let mut imported = graft::import(read(&model_path)).expect("imports without its data file");
    let locations = imported.model.external_locations();
    assert_eq!(locations.len(), 1, "{locations:?}");
    let summary = graft::Summary::of(&imported.model, &imported.diagnostics);
    assert!(
        summary.external_tensors > 0 && summary.external_bytes > 100_000_000,
        "{summary:?}"
    );
    assert_eq!(
        summary.external_files,
        vec![(locations.first().cloned().unwrap_or_default(), false)]
    );

    // Without the data, embedding is refused with a clear error.
    let embed = ExportOptions {
        embed_external: true,
        ..ExportOptions::default()
    };
    let refused = graft::export(&imported.model, &embed);
    assert!(
        matches!(refused, Err(graft::ExportError::Embed { ref reason, .. }) if reason.contains("not found beside the model"))
    );

    for location in &locations {
        imported.model.attach_external(
            location.clone(),
            read(&dir.join("generated").join(location)),
        );
    }
    let embedded = graft::export(&imported.model, &embed).expect("embeds");
    let back = graft::import(Bytes::from(embedded)).expect("re-imports");
    let summary = graft::Summary::of(&back.model, &back.diagnostics);
    assert_eq!(summary.external_tensors, 0);
    // The embedded model carries the same weights as the twin that was saved embedded.
    let twin = graft::import(read(&dir.join("generated/large_10k.onnx"))).expect("imports");
    let payloads = |m: &Model| -> Vec<(String, Bytes)> {
        let mut v: Vec<_> = m
            .all_initializers()
            .map(|(_, i)| {
                let name = i.value.map(|v| m.value(v).name.clone()).unwrap_or_default();
                (name, i.tensor.raw_data.clone().unwrap_or_default())
            })
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    };
    assert!(
        payloads(&back.model) == payloads(&twin.model),
        "embedded weights differ from the twin"
    );
}

// ----- cross-check against onnx-protobuf -----

fn cross_check(model: &Model, other: &onnx_protobuf::ModelProto, diffs: &mut Vec<String>) {
    let eq = |diffs: &mut Vec<String>, what: &str, a: String, b: String| {
        if a != b {
            diffs.push(format!("{what}: graft {a:?} vs onnx-protobuf {b:?}"));
        }
    };
    eq(
        diffs,
        "ir_version",
        format!("{}", model.ir_version.unwrap_or(0)),
        format!("{}", other.ir_version),
    );
    eq(
        diffs,
        "producer_name",
        model.producer_name.clone().unwrap_or_default(),
        other.producer_name.clone(),
    );
    let opsets = |m: &Model| {
        m.opset_import
            .iter()
            .map(|o| {
                format!(
                    "{}:{}",
                    o.domain.as_deref().unwrap_or(""),
                    o.version.unwrap_or(0)
                )
            })
            .collect::<Vec<_>>()
            .join(",")
    };
    eq(
        diffs,
        "opset_import",
        opsets(model),
        other
            .opset_import
            .iter()
            .map(|o| format!("{}:{}", o.domain, o.version))
            .collect::<Vec<_>>()
            .join(","),
    );
    match (model.graph, other.graph.as_ref()) {
        (Some(g), Some(o)) => graph(model, g, o, "graph", diffs),
        (None, None) => {}
        _ => diffs.push("graph presence differs".into()),
    }
    eq(
        diffs,
        "functions",
        model.functions.len().to_string(),
        other.functions.len().to_string(),
    );
    for (&f, o) in model.functions.iter().zip(&other.functions) {
        let func = model.function(f);
        let what = format!("function {}", o.name);
        eq(
            diffs,
            &what,
            func.name.clone().unwrap_or_default(),
            o.name.clone(),
        );
        eq(
            diffs,
            &what,
            func.domain.clone().unwrap_or_default(),
            o.domain.clone(),
        );
        let body = model.graph(func.body);
        eq(
            diffs,
            &format!("{what} nodes"),
            body.nodes.len().to_string(),
            o.node.len().to_string(),
        );
        for (&n, on) in body.nodes.iter().zip(&o.node) {
            node(model, n, on, &what, diffs);
        }
    }
}

fn names(model: &Model, ids: &[Option<graft::ir::ValueId>]) -> Vec<String> {
    ids.iter()
        .map(|v| v.map(|v| model.value(v).name.clone()).unwrap_or_default())
        .collect()
}

fn graph(
    model: &Model,
    id: GraphId,
    o: &onnx_protobuf::GraphProto,
    what: &str,
    diffs: &mut Vec<String>,
) {
    let g = model.graph(id);
    if g.nodes.len() != o.node.len() {
        diffs.push(format!(
            "{what}: {} nodes vs {}",
            g.nodes.len(),
            o.node.len()
        ));
        return;
    }
    if g.initializers.len() != o.initializer.len() {
        diffs.push(format!(
            "{what}: {} initializers vs {}",
            g.initializers.len(),
            o.initializer.len()
        ));
        return;
    }
    for (i, ot) in g.initializers.iter().zip(&o.initializer) {
        let name = i
            .value
            .map(|v| model.value(v).name.clone())
            .unwrap_or_default();
        if name != ot.name {
            diffs.push(format!("{what}: initializer {name:?} vs {:?}", ot.name));
        }
        tensor(
            &i.tensor,
            ot,
            &format!("{what} initializer {name:?}"),
            diffs,
        );
    }
    let io = |infos: &[graft::ir::ValueInfo]| {
        infos
            .iter()
            .map(|vi| {
                vi.value
                    .map(|v| model.value(v).name.clone())
                    .unwrap_or_default()
            })
            .collect::<Vec<_>>()
    };
    if io(&g.inputs) != o.input.iter().map(|v| v.name.clone()).collect::<Vec<_>>() {
        diffs.push(format!("{what}: inputs differ"));
    }
    if io(&g.outputs) != o.output.iter().map(|v| v.name.clone()).collect::<Vec<_>>() {
        diffs.push(format!("{what}: outputs differ"));
    }
    for (&n, on) in g.nodes.iter().zip(&o.node) {
        node(model, n, on, what, diffs);
    }
}

fn node(
    model: &Model,
    id: graft::ir::NodeId,
    o: &onnx_protobuf::NodeProto,
    what: &str,
    diffs: &mut Vec<String>,
) {
    let n = model.node(id);
    let what = format!("{what} > node {:?} ({})", o.name, o.op_type);
    if n.op_type() != o.op_type
        || n.domain.as_deref().unwrap_or("") != o.domain
        || n.name() != o.name
    {
        diffs.push(format!("{what}: identity differs"));
    }
    if names(model, &n.inputs) != o.input || names(model, &n.outputs) != o.output {
        diffs.push(format!("{what}: inputs/outputs differ"));
    }
    if n.attributes.len() != o.attribute.len() {
        diffs.push(format!("{what}: attribute count differs"));
        return;
    }
    for (a, oa) in n.attributes.iter().zip(&o.attribute) {
        let what = format!("{what} > attribute {:?}", oa.name);
        if a.name() != oa.name {
            diffs.push(format!("{what}: name differs"));
        }
        match &a.kind {
            AttrKind::Ref { name, ty } => {
                if *name != oa.ref_attr_name || ty.to_proto() != oa.type_.value() {
                    diffs.push(format!("{what}: reference differs"));
                }
            }
            AttrKind::Value(v) => {
                if v.attr_type().to_proto() != oa.type_.value() {
                    diffs.push(format!("{what}: type differs"));
                }
                let same = match v {
                    AttrValue::Float(f) => f.to_bits() == oa.f.to_bits(),
                    AttrValue::Int(i) => *i == oa.i,
                    AttrValue::String(s) => **s == *oa.s,
                    AttrValue::Floats(v) => v
                        .iter()
                        .map(|f| f.to_bits())
                        .eq(oa.floats.iter().map(|f| f.to_bits())),
                    AttrValue::Ints(v) => *v == oa.ints,
                    AttrValue::Strings(v) => v
                        .iter()
                        .map(|s| &s[..])
                        .eq(oa.strings.iter().map(|s| &s[..])),
                    AttrValue::Tensor(t) => {
                        tensor(t, &oa.t, &what, diffs);
                        true
                    }
                    AttrValue::Graph(g) => {
                        graph(model, *g, &oa.g, &what, diffs);
                        true
                    }
                    AttrValue::Graphs(gs) => {
                        if gs.len() != oa.graphs.len() {
                            return diffs.push(format!("{what}: graph count differs"));
                        }
                        for (g, og) in gs.iter().zip(&oa.graphs) {
                            graph(model, *g, og, &what, diffs);
                        }
                        true
                    }
                    AttrValue::Tensors(ts) => ts.len() == oa.tensors.len(),
                    AttrValue::SparseTensor(_)
                    | AttrValue::SparseTensors(_)
                    | AttrValue::TypeProto(_)
                    | AttrValue::TypeProtos(_) => true,
                };
                if !same {
                    diffs.push(format!("{what}: value differs"));
                }
            }
            AttrKind::Raw(_) => {}
        }
    }
}

fn tensor(t: &Tensor, o: &onnx_protobuf::TensorProto, what: &str, diffs: &mut Vec<String>) {
    let raw = t.raw_data.as_deref().unwrap_or(&[]);
    if t.dims != o.dims || t.data_type() != o.data_type || raw != o.raw_data.as_slice() {
        diffs.push(format!("{what}: tensor dims, type or raw bytes differ"));
    }
    if t.float_data
        .iter()
        .map(|f| f.to_bits())
        .ne(o.float_data.iter().map(|f| f.to_bits()))
        || t.int64_data != o.int64_data
        || t.int32_data != o.int32_data
        || t.double_data
            .iter()
            .map(|f| f.to_bits())
            .ne(o.double_data.iter().map(|f| f.to_bits()))
    {
        diffs.push(format!("{what}: typed tensor data differs"));
    }
}
