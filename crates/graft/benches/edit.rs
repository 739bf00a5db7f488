//! One edit on the 50k-node model, natively (`cargo bench -p graft --bench edit`): set
//! an attribute of a node in its first section (the alpha of a LeakyRelu added there),
//! held to the checker as the app does, then undo it, each followed by what
//! the app does after an edit — inference and checks brought up to date with what it
//! touched, the summary, the edited box rewritten and its groups laid out again (the
//! node's section and namespace open). Against it, what a tool without incremental
//! passes does after any edit: the whole checker and the whole inference.

use std::path::PathBuf;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use graft::edit::{Edit, History};
use graft::view::{ItemKind, Scene, View};

fn edit(c: &mut Criterion) {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target/corpus"));
    let path = corpus.join("generated/large_50k.onnx");
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("missing {}", path.display());
        return;
    };
    let mut model = graft::import(bytes::Bytes::from(bytes))
        .expect("large_50k imports")
        .model;
    let main = model.graph.expect("a main graph");
    // The model's ops have no attributes (and one an op does not declare is refused):
    // a LeakyRelu added after node 100 (its alpha written out) is the node edited.
    let mut history = History::default();
    let after = model.graph(main).nodes[100];
    let read = model.node(after).outputs[0].expect("an output");
    let input = model.value(read).name.clone();
    history
        .apply(
            &mut model,
            Edit::AddNode {
                graph: "main".into(),
                op_type: "LeakyRelu".into(),
                domain: String::new(),
                inputs: vec![input],
                outputs: Vec::new(),
                attributes: String::new(),
                defaults: true,
                name: String::new(),
                at: None,
            },
        )
        .expect("the LeakyRelu is added");
    let k = 101;
    let target = model.graph(main).nodes[k];
    assert_eq!(model.node(target).op_type(), "LeakyRelu");
    let mut inferred = Arc::new(graft::infer::infer(&model));
    let mut checked = graft::check::Checked::new(&model);
    let mut scene = Scene::new(View::of_model(&model).expect("a view"));
    let found = scene.view.find(
        &model,
        1_000_000,
        |item| matches!(item.kind, ItemKind::Node { node, .. } if node == target),
    );
    scene.reveal(&model, found[0]);
    scene.layout(&model, &mut || false).expect("laid out");
    let mut group = c.benchmark_group("edit");
    group.sample_size(30);
    let mut round = 0u64;
    group.bench_function(
        "set-attribute+undo/large_50k (incremental, as the app)",
        |b| {
            b.iter(|| {
                round += 1;
                for undo in [false, true] {
                    let touched = if undo {
                        history.undo(&mut model).expect("an edit to undo").1
                    } else {
                        let edit = Edit::SetAttribute {
                            graph: "main".into(),
                            node: k,
                            attribute: format!("alpha = 0.{round}"),
                        };
                        // As the app: held to the checker it keeps current.
                        history
                            .apply_checked(&mut model, edit, &mut checked)
                            .expect("applies")
                    };
                    scene.view.inferred = None;
                    let mut inf =
                        Arc::try_unwrap(std::mem::take(&mut inferred)).expect("not shared");
                    inf.update_touched(&model, &touched);
                    inferred = Arc::new(inf);
                    if undo {
                        checked.update(&model, &touched);
                    }
                    let summary = graft::Summary::of(&model, checked.diagnostics());
                    assert!(scene.refresh_nodes(&model, &touched.nodes));
                    scene.view.inferred = Some(inferred.clone());
                    scene.layout(&model, &mut || false).expect("laid out");
                    std::hint::black_box(summary);
                }
            })
        },
    );
    group.bench_function("check+infer/large_50k (everything again, once)", |b| {
        b.iter(|| {
            let d = graft::check::check(&model);
            let i = graft::infer::infer(&model);
            (d, i)
        })
    });
    group.finish();
}

criterion_group!(benches, edit);
criterion_main!(benches);
