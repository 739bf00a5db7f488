//! Every corpus model opens and draws: the view of its main graph (or of each function,
//! for a model without a graph) builds, lays out collapsed and two levels expanded, and
//! the geometry is sane (finite, positive boxes; children inside their group's frame;
//! every edge between drawn items). The SVG drawing of the collapsed view is produced
//! too.

use std::path::Path;

use bytes::Bytes;
use graft::view::{Rect, Scene, View};
use graft_tests::corpus;

/// Items built at most when expanding (models with many nested calls multiply).
const ITEM_LIMIT: usize = 200_000;

fn inside(inner: Rect, outer: Rect) -> bool {
    let e = 0.5;
    inner.x >= outer.x - e
        && inner.y >= outer.y - e
        && inner.x + inner.w <= outer.x + outer.w + e
        && inner.y + inner.h <= outer.y + outer.h + e
}

fn check(scene: &Scene, what: &str, problems: &mut Vec<String>) {
    for p in &scene.placed {
        let r = p.rect;
        if !(r.w > 0.0 && r.h > 0.0 && r.x.is_finite() && r.y.is_finite()) {
            problems.push(format!("{what}: item {} has box {r:?}", p.item));
            return;
        }
        if let Some(parent) = scene.view.item(p.item).and_then(|i| i.parent)
            && let Some(frame) = scene.rect(parent)
            && !inside(r, frame)
        {
            problems.push(format!("{what}: item {} lies outside its group", p.item));
            return;
        }
    }
    if scene
        .edges
        .iter()
        .any(|e| scene.rect(e.from).is_none() || scene.rect(e.to).is_none())
    {
        problems.push(format!("{what}: an edge joins an item that is not drawn"));
    }
}

fn draw(model: &graft::Model, view: View, what: &str, problems: &mut Vec<String>) {
    let mut scene = Scene::new(view);
    if scene.layout(model, &mut || false).is_err() {
        problems.push(format!("{what}: layout cancelled"));
        return;
    }
    check(&scene, &format!("{what} (collapsed)"), problems);
    let svg = graft::view::svg::document(&scene, model);
    if !(svg.starts_with("<svg") && svg.ends_with("</svg>")) {
        problems.push(format!("{what}: the SVG is not a document"));
    }
    scene.expand_to_depth(model, 2, ITEM_LIMIT);
    if scene.layout(model, &mut || false).is_err() {
        problems.push(format!("{what}: layout cancelled"));
        return;
    }
    check(&scene, &format!("{what} (expanded)"), problems);
}

#[test]
fn every_corpus_model_opens_and_draws() {
    let Some(dir) = corpus::dir() else { return };
    let mut problems = Vec::new();
    let mut drawn = 0;
    for path in corpus::models(&dir) {
        // The invalid set holds models that do not import cleanly by design; those that
        // import are drawn like any other.
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let Ok(imported) = graft::import(Bytes::from(bytes)) else {
            continue;
        };
        let model = imported.model;
        let what = path
            .strip_prefix(&dir)
            .unwrap_or(Path::new("?"))
            .display()
            .to_string();
        match View::of_model(&model) {
            Some(view) => draw(&model, view, &what, &mut problems),
            None => {
                for &f in &model.functions {
                    let view = View::of_function(&model, f);
                    draw(&model, view, &format!("{what} function"), &mut problems);
                }
            }
        }
        drawn += 1;
    }
    assert!(drawn > 1000, "only {drawn} corpus models were drawn");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
