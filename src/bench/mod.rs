//! `?bench=layout`: the layout benchmark in wasm, for BENCHMARKS.md. Lays out the
//! synthetic graphs of `graft_layout::synth` (first call, then warm) and a real model
//! with every group expanded, and publishes the timings as JSON in
//! `window.__graftLayoutBench` and on the page. The browser benchmark reads them; the
//! native figures come from `cargo bench -p graft-layout` on the same graphs.

use leptos::prelude::*;
use leptos::task::spawn_local;

use graft_layout::{Options, synth};

use crate::platform;

/// Warm runs per graph (the median is reported).
const WARM_RUNS: usize = 5;

fn time(f: &mut dyn FnMut()) -> f64 {
    let start = platform::now_ms();
    f();
    platform::now_ms() - start
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn flat(name: &str, graph: &graft_layout::Graph) -> String {
    let options = Options::default();
    let mut run = || {
        let _ = graft_layout::layout(graph, &options, &mut || false);
    };
    let first = time(&mut run);
    let warm = median((0..WARM_RUNS).map(|_| time(&mut run)).collect());
    format!(
        "{{\"graph\":\"{name}\",\"nodes\":{},\"first_ms\":{first:.2},\"warm_ms\":{warm:.2}}}",
        graph.nodes.len()
    )
}

/// Every group of a model expanded, laid out by the core's scene (first, then warm
/// with the cache dropped).
fn expanded(name: &str, bytes: bytes::Bytes) -> String {
    let Ok(imported) = graft::import(bytes) else {
        return format!("{{\"graph\":\"{name}\",\"error\":\"import failed\"}}");
    };
    let model = imported.model;
    let mut run = || {
        if let Some(view) = graft::view::View::of_model(&model) {
            let mut scene = graft::view::Scene::new(view);
            scene.expand_to_depth(&model, usize::MAX, 1_000_000);
            let _ = scene.layout(&model, &mut || false);
        }
    };
    let first = time(&mut run);
    let warm = median((0..WARM_RUNS).map(|_| time(&mut run)).collect());
    format!(
        "{{\"graph\":\"{name} (all groups expanded, build + layout)\",\"nodes\":{},\"first_ms\":{first:.2},\"warm_ms\":{warm:.2}}}",
        model.nodes.len()
    )
}

#[component]
pub fn LayoutBench() -> impl IntoView {
    let result = RwSignal::new(String::from("running…"));
    spawn_local(async move {
        let mut rows = Vec::new();
        // One group of 1,000 nodes first: that is what an expand costs.
        rows.push(flat("group 1k", &synth::transformer(1_000, false)));
        // What the app does once its first model is drawn (`warm.rs`: one round per
        // turn), then the first layout of another 1k group: what a user's first
        // expand costs in the app.
        let mut warm_up = 0.0;
        for _ in 0..crate::warm::ROUNDS {
            warm_up += time(&mut crate::warm::round);
            platform::next_turn().await;
        }
        let first = flat(
            "group 1k, after the warm-up",
            &synth::transformer(1_200, false),
        );
        rows.push(first.replacen('{', &format!("{{\"warm_up_ms\":{warm_up:.2},"), 1));
        for (n, mask) in [
            (20_000, false),
            (50_000, false),
            (20_000, true),
            (50_000, true),
        ] {
            let name = format!("flat {}k{}", n / 1000, if mask { " + mask" } else { "" });
            rows.push(flat(&name, &synth::transformer(n, mask)));
        }
        if let Ok(bytes) =
            platform::fetch_bytes("examples/transformer_1000.onnx", &mut |_, _| true).await
        {
            rows.push(expanded("transformer_1000", bytes));
        }
        // The engine compiles hot wasm functions again with its optimizing tier after a
        // while: the 1k group warm again, after the big graphs, is what a user's
        // later expand costs.
        rows.push(flat(
            "group 1k, after the others",
            &synth::transformer(1_000, false),
        ));
        let json = format!("[{}]", rows.join(","));
        platform::publish_text("__graftLayoutBench", &json);
        result.set(json);
    });
    view! { <pre data-testid="layout-bench">{move || result.get()}</pre> }
}
