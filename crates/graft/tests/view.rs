//! Data-driven tests of the view model and its layout: every `tests/view/*.onnxtxt` file
//! is ONNX text, then a line `# ==== expected ====`, then the outline of the view with
//! every group expanded (kinds, titles, names, attribute values and where they come
//! from, terminals). `UPDATE_EXPECT=1 cargo test -p graft --test view` rewrites the
//! expectations.
//!
//! Each file is also laid out, collapsed and fully expanded, and the geometry is
//! checked: siblings never overlap, children sit inside their group's frame, and every
//! edge joins two drawn items.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use graft::view::{AttrSource, ItemId, ItemKind, Rect, Scene, View};

mod support;
use support::Fixture;

fn outline(model: &graft::Model, view: &View) -> String {
    let mut out = String::new();
    let mut stack = vec![(view.root(), 0usize)];
    while let Some((id, depth)) = stack.pop() {
        let Some(item) = view.item(id) else { continue };
        let kind = match &item.kind {
            ItemKind::Graph { .. } => "graph",
            ItemKind::In { .. } => "in",
            ItemKind::Out { .. } => "out",
            ItemKind::Node {
                callee: Some(_), ..
            } => "call",
            ItemKind::Node { .. } if item.is_group => "control",
            ItemKind::Node { .. } => "node",
            ItemKind::Subgraph { .. } => "subgraph",
            ItemKind::Namespace { .. } => "namespace",
            ItemKind::Section { .. } => "section",
        };
        let _ = write!(out, "{}{kind} {}", "  ".repeat(depth), item.title);
        if !item.subtitle.is_empty() {
            let _ = write!(out, " [{}]", item.subtitle);
        }
        if let Some(b) = &item.badge {
            let _ = write!(out, " <{b}>");
        }
        for a in &item.attrs {
            let source = match a.source {
                AttrSource::Given => "",
                AttrSource::Call => " (call)",
                AttrSource::Default => " (default)",
                AttrSource::Unset => " (unset)",
            };
            let _ = write!(out, " {}={}{source}", a.name, a.value);
        }
        if !item.weights.is_empty() {
            let _ = write!(out, " weights: {}", item.weights.join(", "));
        }
        let names = |values: &[graft::ir::ValueId]| {
            values
                .iter()
                .map(|&v| model.value(v).name.clone())
                .collect::<Vec<_>>()
                .join(",")
        };
        if item.is_group && !matches!(item.kind, ItemKind::Graph { .. }) {
            let _ = write!(
                out,
                " reads({}) makes({})",
                names(&item.consumes),
                names(&item.produces)
            );
        }
        out.push('\n');
        if let Some(children) = &item.children {
            stack.extend(children.iter().rev().map(|&c| (c, depth + 1)));
        }
    }
    out
}

fn inside(inner: Rect, outer: Rect) -> bool {
    let e = 0.5;
    inner.x >= outer.x - e
        && inner.y >= outer.y - e
        && inner.x + inner.w <= outer.x + outer.w + e
        && inner.y + inner.h <= outer.y + outer.h + e
}

fn overlap(a: Rect, b: Rect) -> bool {
    a.x < b.x + b.w - 0.5 && b.x < a.x + a.w - 0.5 && a.y < b.y + b.h - 0.5 && b.y < a.y + a.h - 0.5
}

/// Geometry every laid-out scene must have.
fn check_geometry(scene: &Scene, what: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let view = &scene.view;
    for p in &scene.placed {
        if !(p.rect.w > 0.0 && p.rect.h > 0.0 && p.rect.x.is_finite() && p.rect.y.is_finite()) {
            problems.push(format!("{what}: item {} has box {:?}", p.item, p.rect));
        }
        let parent = view.item(p.item).and_then(|i| i.parent);
        if let Some(parent) = parent
            && let Some(frame) = scene.rect(parent)
            && !inside(p.rect, frame)
        {
            problems.push(format!(
                "{what}: item {} {:?} is outside its group {parent} {:?}",
                p.item, p.rect, frame
            ));
        }
    }
    // Siblings never overlap.
    let mut by_parent: std::collections::BTreeMap<ItemId, Vec<(ItemId, Rect)>> = Default::default();
    for p in &scene.placed {
        if let Some(parent) = view.item(p.item).and_then(|i| i.parent) {
            by_parent.entry(parent).or_default().push((p.item, p.rect));
        }
    }
    for siblings in by_parent.values() {
        for (i, a) in siblings.iter().enumerate() {
            for b in &siblings[i + 1..] {
                if overlap(a.1, b.1) {
                    problems.push(format!("{what}: items {} and {} overlap", a.0, b.0));
                }
            }
        }
    }
    for e in &scene.edges {
        if scene.rect(e.from).is_none() || scene.rect(e.to).is_none() {
            problems.push(format!("{what}: an edge joins an item that is not drawn"));
        }
    }
    problems
}

fn run(input: &str) -> (String, Vec<String>) {
    let parsed = match graft::text::parse_model(input) {
        Ok(p) => p,
        Err(e) => return (format!("error: {e}\n"), Vec::new()),
    };
    let model = parsed.model;
    let Some(view) = View::of_model(&model) else {
        return ("no graph\n".into(), Vec::new());
    };
    let mut scene = Scene::new(view);
    let mut problems = Vec::new();
    if scene.layout(&model, &mut || false).is_err() {
        problems.push("layout cancelled".into());
    }
    problems.extend(check_geometry(&scene, "collapsed"));
    scene.expand_to_depth(&model, usize::MAX, 100_000);
    if scene.layout(&model, &mut || false).is_err() {
        problems.push("layout cancelled".into());
    }
    problems.extend(check_geometry(&scene, "expanded"));
    (outline(&model, &scene.view), problems)
}

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/view");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "onnxtxt"))
        .collect();
    files.sort();
    files
}

#[test]
fn view_snapshots() {
    let mut failures = Vec::new();
    for path in files() {
        let fixture = Fixture::read(&path);
        let (actual, problems) = run(&fixture.input);
        let name = path.display();
        failures.extend(problems.into_iter().map(|p| format!("{name}: {p}")));
        failures.extend(fixture.check(&actual, "the outline"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The model of `tests/view/calls.onnxtxt` (its input part).
fn calls_model() -> graft::Model {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/view/calls.onnxtxt");
    model_of(&Fixture::read(&path).input)
}

fn model_of(text: &str) -> graft::Model {
    graft::text::parse_model(text).expect("parses").model
}

#[test]
fn expanding_one_group_relays_out_only_it_and_its_ancestors() {
    let model = calls_model();
    let mut scene = Scene::new(View::of_model(&model).expect("graph"));
    scene.layout(&model, &mut || false).unwrap();
    let root_children: Vec<ItemId> = scene.view.item(0).and_then(|i| i.children.clone()).unwrap();
    let calls: Vec<ItemId> = root_children
        .iter()
        .copied()
        .filter(|&c| scene.view.item(c).is_some_and(|i| i.is_group))
        .collect();
    assert_eq!(calls.len(), 3, "three calls at the top");
    // Expand the last call (Twice), then one call inside it.
    assert!(scene.set_expanded(&model, calls[2], true));
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(scene.last_layouts, 2, "the call and the root");
    let inner: Vec<ItemId> = scene
        .view
        .item(calls[2])
        .and_then(|i| i.children.clone())
        .unwrap();
    let first_call = inner
        .iter()
        .copied()
        .find(|&c| scene.view.item(c).is_some_and(|i| i.is_group))
        .unwrap();
    let sibling_before: Vec<Rect> = inner.iter().filter_map(|&c| scene.rect(c)).collect();
    let frame_before = scene.rect(calls[2]).unwrap();
    let _ = sibling_before;
    assert!(scene.set_expanded(&model, first_call, true));
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(
        scene.last_layouts, 3,
        "the inner call, its caller and the root"
    );
    // Collapsing and expanding again reuses the cached inner layout.
    assert!(scene.set_expanded(&model, first_call, false));
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(scene.last_layouts, 2, "only the ancestors");
    assert!(scene.set_expanded(&model, first_call, true));
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(
        scene.last_layouts, 2,
        "the inner layout came from the cache"
    );
    // The first call above (a sibling of the expanded one) kept its size.
    let a = scene.rect(calls[0]).unwrap();
    assert!(a.w > 0.0 && frame_before.w > 0.0);
}

#[test]
fn search_finds_nodes_inside_unopened_calls_and_reveal_opens_them() {
    let model = calls_model();
    let mut scene = Scene::new(View::of_model(&model).expect("graph"));
    scene.layout(&model, &mut || false).unwrap();
    // "m" is the Mul in Scale: one per call of Scale, four calls in all
    // (two at the top, two inside Twice).
    let found: Vec<ItemId> = scene
        .view
        .search(&model, "Mul", 10_000)
        .into_iter()
        .filter(|&id| scene.view.item(id).is_some_and(|i| i.title == "Mul"))
        .collect();
    assert_eq!(found.len(), 4, "{found:?}");
    let deepest = *found.last().unwrap();
    assert!(!scene.view.is_visible(deepest));
    assert!(scene.reveal(&model, deepest));
    scene.layout(&model, &mut || false).unwrap();
    assert!(scene.view.is_visible(deepest));
    assert!(scene.rect(deepest).is_some(), "the found node is drawn");
}

#[test]
fn a_group_of_thousands_is_split_into_sections() {
    let mut text = String::from(
        "<\n ir_version: 10,\n opset_import: [\"\" : 18]\n>\nmain (float[4] x) => (float[4] y) {\n",
    );
    let n = 2500;
    for k in 0..n {
        let input = if k == 0 {
            "x".to_string()
        } else {
            format!("v{}", k - 1)
        };
        let output = if k == n - 1 {
            "y".to_string()
        } else {
            format!("v{k}")
        };
        let _ = writeln!(text, "   {output} = Relu({input})");
    }
    text.push_str("}\n");
    let model = model_of(&text);
    let mut scene = Scene::new(View::of_model(&model).expect("graph"));
    scene.layout(&model, &mut || false).unwrap();
    let children = scene.view.item(0).and_then(|i| i.children.clone()).unwrap();
    let sections = children
        .iter()
        .filter(|&&c| {
            matches!(
                scene.view.item(c).map(|i| &i.kind),
                Some(ItemKind::Section { .. })
            )
        })
        .count();
    assert_eq!(
        sections, 3,
        "2,500 nodes make three sections of at most 1,000"
    );
    // Sections chain: each reads what the previous makes.
    assert_eq!(scene.edges.len(), 4, "x -> s1 -> s2 -> s3 -> y");
    assert!(check_geometry(&scene, "sections").is_empty());
}

#[test]
fn deeply_nested_ifs_build_and_lay_out_on_a_small_stack() {
    // Deep nesting through subgraphs: the view and the layout are iterative.
    let depth = 60;
    let mut body = String::from("out_0 = Identity(x)");
    for k in 1..=depth {
        body = format!(
            "out_{k} = If(c) <then_branch = t{k} () => (float[4] out_{p}) {{\n{body}\n}}, else_branch = e{k} () => (float[4] e_{k}) {{\n e_{k} = Identity(x)\n}}>",
            p = k - 1
        );
    }
    let text = format!(
        "<\n ir_version: 10,\n opset_import: [\"\" : 18]\n>\nmain (bool c, float[4] x) => (float[4] out_{depth}) {{\n{body}\n}}\n"
    );
    assert!(
        graft::text::parse_model(&text).is_ok(),
        "60 levels are within the parser limit (64)"
    );
    // A model stays on the thread that made it (its data files may be sources that
    // are not `Send`): the text goes to the small stack, and is parsed there.
    let handle = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(move || {
            let Ok(parsed) = graft::text::parse_model(&text) else {
                return false;
            };
            let model = parsed.model;
            let mut scene = Scene::new(View::of_model(&model).expect("graph"));
            scene.expand_to_depth(&model, usize::MAX, 1_000_000);
            scene.layout(&model, &mut || false).is_ok()
        })
        .unwrap();
    assert!(handle.join().unwrap_or(false), "laid out on a 1 MiB stack");
}

#[test]
fn levels_open_and_close_one_at_a_time() {
    let model = calls_model();
    let mut scene = Scene::new(View::of_model(&model).expect("graph"));
    scene.layout(&model, &mut || false).unwrap();
    let open = |scene: &Scene| {
        scene
            .view
            .items
            .iter()
            .filter(|i| i.is_group && i.expanded && i.parent.is_some())
            .count()
    };
    assert_eq!(scene.expand_one_level(&model), 3, "the three calls");
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(open(&scene), 3);
    assert_eq!(
        scene.expand_one_level(&model),
        2,
        "the two calls inside Twice"
    );
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(open(&scene), 5);
    assert_eq!(
        scene.collapse_one_level(&model),
        4,
        "the innermost open groups"
    );
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(
        open(&scene),
        1,
        "only Twice, which held open calls, stays open"
    );
    assert!(check_geometry(&scene, "levels").is_empty());
}

#[test]
fn torch_name_scopes_make_the_namespace_groups() {
    // 80 nodes (above the namespace threshold) named `node_K`, with torch's module
    // scopes: the first 40 in `layers.0.attn`, the rest in `layers.1.mlp`.
    let mut text = String::from(
        "<\n ir_version: 10,\n opset_import: [\"\" : 18]\n>\nmain (float[4] x) => (float[4] y) {\n",
    );
    let n = 80;
    for k in 0..n {
        let input = if k == 0 {
            "x".to_string()
        } else {
            format!("v{}", k - 1)
        };
        let output = if k == n - 1 {
            "y".to_string()
        } else {
            format!("v{k}")
        };
        let _ = writeln!(text, "   {output} = Relu({input})");
    }
    text.push_str("}\n");
    let mut model = model_of(&text);
    let main = model.graph.expect("main graph");
    let nodes = model.graph(main).nodes.clone();
    for (k, &id) in nodes.iter().enumerate() {
        let (layer, module) = if k < 40 {
            ("layers.0", "attn")
        } else {
            ("layers.1", "mlp")
        };
        let node = &mut model.nodes[id];
        node.name = Some(format!("node_{k}"));
        let scopes = format!("['', '{layer}', '{layer}.{module}', 'node_{k}']");
        node.metadata_props.push(graft::ir::StringPair::new(
            "pkg.torch.onnx.name_scopes",
            scopes,
        ));
    }
    let view = View::of_model(&model).expect("graph");
    let top: Vec<String> = view
        .item(0)
        .and_then(|i| i.children.clone())
        .unwrap()
        .iter()
        .filter_map(|&c| view.item(c))
        .filter(|i| matches!(i.kind, ItemKind::Namespace { .. }))
        .map(|i| i.title.clone())
        .collect();
    assert_eq!(
        top,
        ["layers.0", "layers.1"],
        "one group per module, no shared root level"
    );

    // A malformed scope list falls back to the node name.
    let mut broken = model.clone();
    for &id in &nodes {
        broken.nodes[id].metadata_props[0] =
            graft::ir::StringPair::new("pkg.torch.onnx.name_scopes", "['', 'x");
    }
    let view = View::of_model(&broken).expect("graph");
    let groups = view
        .item(0)
        .and_then(|i| i.children.clone())
        .unwrap()
        .iter()
        .filter(|&&c| {
            matches!(
                view.item(c).map(|i| &i.kind),
                Some(ItemKind::Namespace { .. })
            )
        })
        .count();
    assert_eq!(groups, 0, "plain names without `/` make no namespaces");
}

/// A chain of 80 Relus after a Constant, as torch's dynamo exporter writes them: in
/// `enc.layers.0` / `enc.layers.1` (each a `TransformerEncoderLayer` inside the
/// `TransformerEncoder` `enc`), then 8 in `head` (a `Linear`). With `namespace` set,
/// the module path is recorded that way (`name: class` levels) instead of the name
/// scopes. The Constant records nothing.
fn dynamo_style(namespace: bool) -> graft::Model {
    let mut text = String::from(
        "<\n ir_version: 10,\n opset_import: [\"\" : 18]\n>\nmain (float[4] x) => (float[4] y) {\n   k = Constant <value = float[4] {1, 2, 3, 4}> ()\n   v0 = Add(x, k)\n",
    );
    let n = 88;
    for k in 1..=n {
        let output = if k == n {
            "y".to_string()
        } else {
            format!("v{k}")
        };
        let _ = writeln!(text, "   {output} = Relu(v{})", k - 1);
    }
    text.push_str("}\n");
    let mut model = model_of(&text);
    let main = model.graph.expect("main graph");
    let nodes = model.graph(main).nodes.clone();
    let root = ("", "__main__.Net");
    let enc = ("enc", "torch.nn.modules.transformer.TransformerEncoder");
    let layer = "torch.nn.modules.transformer.TransformerEncoderLayer";
    for (k, &id) in nodes.iter().enumerate().skip(1) {
        let own = format!("relu_{k}");
        let levels: Vec<(String, String)> = match k {
            1..=40 => vec![enc, ("enc.layers.0", layer)],
            41..=80 => vec![enc, ("enc.layers.1", layer)],
            _ => vec![("head", "torch.nn.modules.linear.Linear")],
        }
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .chain([(own.clone(), "aten.relu.default".to_string())])
        .collect();
        let all: Vec<(String, String)> = std::iter::once((root.0.to_string(), root.1.to_string()))
            .chain(levels)
            .collect();
        let node = &mut model.nodes[id];
        node.name = Some(format!("node_{k}"));
        let mut add = |key: &str, value: String| {
            node.metadata_props
                .push(graft::ir::StringPair::new(key, value));
        };
        if namespace {
            let levels: Vec<String> = all.iter().map(|(s, c)| format!("{s}: {c}")).collect();
            add("namespace", levels.join("/"));
        } else {
            let list = |f: fn(&(String, String)) -> &String| {
                let items: Vec<String> = all.iter().map(|x| format!("'{}'", f(x))).collect();
                format!("[{}]", items.join(", "))
            };
            add("pkg.torch.onnx.name_scopes", list(|x| &x.0));
            add("pkg.torch.onnx.class_hierarchy", list(|x| &x.1));
        }
        add(
            "pkg.torch.onnx.stack_trace",
            "File \"/src/net.py\", line 16, in forward\n    return self.head(self.enc(x))\n  \
             File \"/venv/site-packages/torch/nn/modules/module.py\", line 1773, in _call_impl\n    \
             return forward_call(*args, **kwargs)"
                .to_string(),
        );
    }
    model
}

/// The titles of the groups among `item`'s children.
fn group_titles(view: &mut View, model: &graft::Model, item: ItemId) -> Vec<String> {
    let children = view.children(model, item).to_vec();
    children
        .iter()
        .filter_map(|&c| view.item(c))
        .filter(|i| matches!(i.kind, ItemKind::Namespace { .. }))
        .map(|i| i.title.clone())
        .collect()
}

#[test]
fn module_paths_and_classes_label_the_groups() {
    for namespace in [false, true] {
        let model = dynamo_style(namespace);
        let mut view = View::of_model(&model).expect("graph");
        let root = view.root();
        assert_eq!(
            group_titles(&mut view, &model, root),
            ["enc · TransformerEncoder", "head · Linear"],
            "namespace metadata: {namespace}"
        );
        let enc = view.children(&model, root).to_vec();
        let enc = enc
            .into_iter()
            .find(|&c| view.item(c).is_some_and(|i| i.title.starts_with("enc ")))
            .unwrap();
        assert_eq!(
            group_titles(&mut view, &model, enc),
            [
                "enc.layers.0 · TransformerEncoderLayer",
                "enc.layers.1 · TransformerEncoderLayer"
            ]
        );
        // The Constant records no module: it sits in its reader's, the first layer.
        let layer0 = view.children(&model, enc).to_vec();
        let layer0 = layer0
            .into_iter()
            .find(|&c| {
                view.item(c)
                    .is_some_and(|i| i.title.starts_with("enc.layers.0"))
            })
            .unwrap();
        let inside = view.children(&model, layer0).to_vec();
        let ops: Vec<String> = inside
            .iter()
            .filter_map(|&c| view.item(c))
            .filter(|i| matches!(i.kind, ItemKind::Node { .. }))
            .map(|i| i.title.clone())
            .collect();
        assert_eq!(
            ops.iter().filter(|o| *o == "Constant").count(),
            1,
            "{ops:?}"
        );
        // The properties: the modules with their classes, the source line, and every
        // metadata entry.
        let node = *inside
            .iter()
            .find(|&&c| view.item(c).is_some_and(|i| i.title == "Relu"))
            .unwrap();
        let p = graft::view::panel::properties(&model, &view, node).unwrap();
        assert_eq!(
            p.modules,
            [
                "enc · torch.nn.modules.transformer.TransformerEncoder",
                "enc.layers.0 · torch.nn.modules.transformer.TransformerEncoderLayer"
            ]
        );
        assert_eq!(
            p.source.as_deref(),
            Some("File \"/src/net.py\", line 16, in forward: return self.head(self.enc(x))"),
            "the model's own frame, not torch's"
        );
        assert_eq!(p.metadata.len(), if namespace { 2 } else { 3 });
    }
}

#[test]
fn expand_all_runs_in_pieces_and_a_snapshot_undoes_it() {
    let model = calls_model();
    let mut scene = Scene::new(View::of_model(&model).expect("graph"));
    scene.layout(&model, &mut || false).unwrap();
    let before: Vec<(ItemId, Rect)> = scene.placed.iter().map(|p| (p.item, p.rect)).collect();
    let snapshot = scene.snapshot();

    scene.expand_to_depth(&model, usize::MAX, 100_000);
    // One group per piece: each call stops after one layout, with fewer remaining.
    let mut remaining = Vec::new();
    while let graft::view::Progress::Pending { remaining: r } = scene
        .layout_some(&model, &mut || true, &mut || false)
        .unwrap()
    {
        remaining.push(r);
        // Until the last piece, the earlier placement is still what is drawn.
        let now: Vec<(ItemId, Rect)> = scene.placed.iter().map(|p| (p.item, p.rect)).collect();
        assert_eq!(now.len(), before.len());
    }
    assert!(remaining.len() >= 3, "several pieces: {remaining:?}");
    assert!(
        remaining.windows(2).all(|w| w[1] + 1 == w[0]),
        "{remaining:?}"
    );
    let expanded = scene.placed.len();
    assert!(expanded > before.len(), "expand-all draws more");
    assert!(check_geometry(&scene, "expand all in pieces").is_empty());

    // The same result as in one go.
    let mut whole = Scene::new(View::of_model(&model).expect("graph"));
    whole.expand_to_depth(&model, usize::MAX, 100_000);
    whole.layout(&model, &mut || false).unwrap();
    assert_eq!(whole.placed.len(), expanded);
    assert_eq!((whole.width, whole.height), (scene.width, scene.height));

    // Restoring the snapshot gives back the earlier picture exactly.
    scene.restore(snapshot);
    let after: Vec<(ItemId, Rect)> = scene.placed.iter().map(|p| (p.item, p.rect)).collect();
    assert_eq!(after.len(), before.len());
    for ((a, ra), (b, rb)) in before.iter().zip(&after) {
        assert_eq!(a, b);
        assert_eq!((ra.x, ra.y, ra.w, ra.h), (rb.x, rb.y, rb.w, rb.h));
    }
    // And the scene still works: expanding again lays out from there.
    scene.expand_to_depth(&model, usize::MAX, 100_000);
    scene.layout(&model, &mut || false).unwrap();
    assert_eq!(scene.placed.len(), expanded);
}

#[test]
fn an_edited_model_keeps_what_was_open_and_says_which_item_became_which() {
    let text = r#"<ir_version: 10, opset_import: ["": 17, "local": 1]>
main (float[4] x, bool c) => (float[4] y) {
  a = local.F <k = 2> (x)
  b = If (c) <then_branch = g1 () => (float[4] t) { t = Neg(a) }, else_branch = g2 () => (float[4] e) { e = Abs(a) }>
  y = Relu(b)
}
<domain: "local", opset_import: ["": 17]>
F <k> (x) => (y) {
  y = Relu(x)
}
"#;
    let model = model_of(text);
    let mut before = Scene::new(View::of_model(&model).expect("graph"));
    let top = |scene: &Scene, title: &str| {
        let children = scene.view.item(0).and_then(|i| i.children.clone()).unwrap();
        children
            .into_iter()
            .find(|&c| scene.view.item(c).is_some_and(|i| i.title == title))
            .unwrap_or_else(|| panic!("no {title}"))
    };
    let (call, gate, relu) = (top(&before, "F"), top(&before, "If"), top(&before, "Relu"));
    assert!(before.set_expanded(&model, call, true));
    assert!(before.set_expanded(&model, gate, true));
    before.layout(&model, &mut || false).unwrap();

    // The edit: Relu's name changes, nothing else; item ids are those of a fresh view.
    let mut edited = model.clone();
    let g = edited.graph.expect("graph");
    let last = *edited.graph(g).nodes.last().unwrap();
    edited.nodes[last].name = Some("renamed".into());
    let mut after = Scene::new(View::of_model(&edited).expect("graph"));
    let items = after.follow(&edited, &before.view, false);
    after.layout(&edited, &mut || false).unwrap();
    for id in [call, gate] {
        let now = items[&id];
        assert!(after.view.item(now).unwrap().expanded, "{id} stays open");
    }
    assert_eq!(after.view.item(items[&relu]).unwrap().subtitle, "renamed");
    // The If's branches and the call's body are matched too, and everything is placed.
    let matched_inside = items
        .keys()
        .filter(|&&o| before.view.item(o).unwrap().parent == Some(gate))
        .count();
    assert_eq!(matched_inside, 2, "then_branch and else_branch");
    assert_eq!(after.placed.len(), before.placed.len());

    // Collapsed in the old view: collapsed in the new one, its inside not built.
    assert!(before.set_expanded(&model, call, false));
    let mut again = Scene::new(View::of_model(&edited).expect("graph"));
    let items = again.follow(&edited, &before.view, false);
    let now = again.view.item(items[&call]).unwrap();
    assert!(!now.expanded && now.children.is_none());
}

/// Expand all, collapse all, open one level: each group drawn closed has its closed
/// size, not the size it had open (it was drawn as a large empty box), and the
/// drawing equals a fresh layout of the same open groups.
#[test]
fn a_group_closed_by_collapse_all_is_drawn_at_its_closed_size() {
    let model = calls_model();
    let mut scene = Scene::new(View::of_model(&model).expect("graph"));
    scene.layout(&model, &mut || false).unwrap();
    scene.expand_to_depth(&model, usize::MAX, usize::MAX);
    scene.layout(&model, &mut || false).unwrap();
    scene.collapse_all();
    scene.layout(&model, &mut || false).unwrap();
    scene.expand_one_level(&model);
    scene.layout(&model, &mut || false).unwrap();
    let mut fresh = Scene::new(View::of_model(&model).expect("graph"));
    fresh.layout(&model, &mut || false).unwrap();
    fresh.expand_one_level(&model);
    fresh.layout(&model, &mut || false).unwrap();
    let rects = |s: &Scene| -> Vec<(String, Rect)> {
        s.placed
            .iter()
            .map(|p| {
                (
                    s.view
                        .item(p.item)
                        .map_or(String::new(), |i| i.title.clone()),
                    p.rect,
                )
            })
            .collect()
    };
    assert_eq!(rects(&scene), rects(&fresh));
    assert!(check_geometry(&scene, "after collapse all").is_empty());
}

#[test]
fn each_node_is_drawn_in_the_colour_of_its_kind_of_op() {
    use graft::view::kind::{OpKind, op_kind};
    // One op of each kind, a Constant (no kind) and a call.
    let model = model_of(
        r#"<ir_version: 10, opset_import: ["": 18, "my": 1]>
main (float[1,3,8,8] x, float[4,3,3,3] w) => (float[1,4,3,3] y) {
  [conv] c = Conv(x, w)
  [norm] n = BatchNormalization(c, s, s, s, s)
  [relu] r = Relu(n)
  [pool] p = MaxPool <kernel_shape = [2, 2]> (r)
  [quant] q = QuantizeLinear(p, s)
  [dequant] d = DequantizeLinear(q, s)
  [add] a = Add(d, d)
  [shape] y0 = Reshape(a, t)
  [call] y = my.Twice(y0)
  [const] s = Constant <value = float[4] {1, 1, 1, 1}> ()
  [target] t = Constant <value = int64[4] {1, 4, 3, 3}> ()
}
<domain: "my", opset_import: ["": 18]>
Twice (v) => (w) {
  w = Add(v, v)
}"#,
    );
    let view = View::of_model(&model).unwrap();
    let mut scene = Scene::new(view);
    scene.layout(&model, &mut || false).unwrap();
    let everything = Rect {
        x: -1e6,
        y: -1e6,
        w: 2e6,
        h: 2e6,
    };
    let svg = graft::view::svg::region(
        &scene,
        &model,
        everything,
        graft::view::svg::Detail::Full,
        &[],
        &|_| None,
    );
    let class_of = |name: &str| {
        let at = svg
            .find(&format!("data-name=\"{name}\""))
            .unwrap_or_else(|| panic!("{name} is drawn"));
        let start = svg[..at].rfind("class=\"").unwrap() + 7;
        svg[start..at].split('"').next().unwrap().to_string()
    };
    for (name, kind) in [
        ("conv", "g-k-linear"),
        ("norm", "g-k-norm"),
        ("relu", "g-k-activation"),
        ("pool", "g-k-pool"),
        ("quant", "g-k-quant"),
        ("dequant", "g-k-quant"),
        ("add", "g-k-arith"),
        ("shape", "g-k-shape"),
        ("call", "g-call"),
    ] {
        let class = class_of(name);
        assert!(class.split(' ').any(|c| c == kind), "{name}: {class}");
    }
    assert_eq!(
        class_of("const"),
        "g-node",
        "a Constant keeps the plain box"
    );
    // Every kind has its own class and label, and the style sheet colours each.
    let mut classes: Vec<&str> = OpKind::ALL.iter().map(|k| k.class()).collect();
    classes.sort();
    classes.dedup();
    assert_eq!(classes.len(), OpKind::ALL.len());
    for k in OpKind::ALL {
        assert!(
            graft::view::svg::STYLE.contains(&format!(".{}", k.class())),
            "{k:?} is coloured"
        );
    }
    assert_eq!(op_kind("ai.onnx", "If"), Some(OpKind::ControlFlow));
    assert_eq!(op_kind("com.microsoft", "FusedConv"), Some(OpKind::Linear));
    assert_eq!(
        op_kind("my.domain", "Conv"),
        None,
        "another domain's Conv is not ONNX's"
    );
}
