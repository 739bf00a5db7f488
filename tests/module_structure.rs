//! A transformer exported by torch's dynamo exporter opens grouped by its modules,
//! each group labelled with its module path and class, and its nodes' metadata shows
//! in the properties. The bundled example `torch_transformer.onnx` is such an export;
//! the corpus script writes it again (`generated/torch_dynamo_transformer.onnx`) only
//! where the pinned torch is installed (torch is a 5.5 GB install, not a CI
//! dependency), so that second test is ignored unless asked for, and fails without it.

use std::path::Path;

use bytes::Bytes;
use graft::view::{ItemId, ItemKind, View};
use graft_tests::corpus;

const MODEL: &str = "generated/torch_dynamo_transformer.onnx";

/// The titles of the namespace groups among `item`'s children, with their ids.
fn groups(view: &mut View, model: &graft::Model, item: ItemId) -> Vec<(ItemId, String)> {
    let children = view.children(model, item).to_vec();
    children
        .into_iter()
        .filter_map(|c| Some((c, view.item(c)?)))
        .filter(|(_, i)| matches!(i.kind, ItemKind::Namespace { .. }))
        .map(|(c, i)| (c, i.title.clone()))
        .collect()
}

#[test]
fn the_bundled_torch_export_opens_grouped_by_its_modules() {
    check(&corpus::root().join("assets/examples/torch_transformer.onnx"));
}

/// Needs torch, so it is not part of `cargo xtask test`; run it with `--ignored` on a
/// corpus made with torch. Without its model it fails, never passes checking nothing.
#[test]
#[ignore = "needs the corpus's torch dynamo export (GRAFT_TORCH_PYTHON with torch==2.15.0)"]
fn a_fresh_dynamo_export_opens_grouped_by_its_modules() {
    let dir = corpus::dir().expect("no corpus (cargo xtask corpus)");
    let path = dir.join(MODEL);
    assert!(
        path.exists(),
        "no {MODEL}: the corpus script writes it only with torch==2.15.0 and onnxscript==0.7.2 \
         (GRAFT_TORCH_PYTHON names an interpreter that has them)"
    );
    check(&path);
}

fn check(path: &Path) {
    let bytes = std::fs::read(path).expect("the model");
    let model = graft::import(Bytes::from(bytes)).expect("imports").model;
    let errors = graft::check::check(&model)
        .into_iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .count();
    assert_eq!(errors, 0);
    let mut view = View::of_model(&model).expect("a graph");
    let root = view.root();
    let top = groups(&mut view, &model, root);
    let titles: Vec<&str> = top.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(titles, ["enc · TransformerEncoder", "head · Linear"]);
    let layers = groups(&mut view, &model, top[0].0);
    let titles: Vec<&str> = layers.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        titles,
        [
            "enc.layers.0 · TransformerEncoderLayer",
            "enc.layers.1 · TransformerEncoderLayer",
            "enc.layers.2 · TransformerEncoderLayer"
        ]
    );
    // Inside a layer: its attention and feed-forward modules.
    let inner = groups(&mut view, &model, layers[0].0);
    let titles: Vec<&str> = inner.iter().map(|(_, t)| t.as_str()).collect();
    assert!(
        titles.contains(&"enc.layers.0.self_attn · MultiheadAttention"),
        "{titles:?}"
    );
    // A node's properties: its modules with their classes, its source line (the
    // exporting script's own frame) and every metadata entry.
    let attention = inner[0].0;
    let node = view
        .children(&model, attention)
        .to_vec()
        .into_iter()
        .find(|&c| matches!(view.item(c).map(|i| &i.kind), Some(ItemKind::Node { .. })))
        .expect("a node in the attention group");
    let p = graft::view::panel::properties(&model, &view, node).unwrap();
    assert_eq!(
        p.modules[..2],
        [
            "enc · torch.nn.modules.transformer.TransformerEncoder",
            "enc.layers.0 · torch.nn.modules.transformer.TransformerEncoderLayer"
        ]
    );
    let source = p.source.unwrap_or_default();
    assert!(
        source.contains("in forward: return self.head(self.enc(x))"),
        "{source}"
    );
    let keys: Vec<&str> = p.metadata.iter().map(|(k, _)| k.as_str()).collect();
    for key in [
        "namespace",
        "pkg.torch.onnx.class_hierarchy",
        "pkg.torch.onnx.name_scopes",
        "pkg.torch.onnx.stack_trace",
    ] {
        assert!(keys.contains(&key), "{keys:?}");
    }
}
