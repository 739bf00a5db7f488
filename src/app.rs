//! The page layout: toolbar on top, the error banner under it, then tabs (the graph,
//! the summary, the ONNX text, the edit history, running the model), the offer to
//! restore the last kept session and the Sessions dialog, and the drop overlay above
//! everything while files are dragged in.

use leptos::prelude::*;

use crate::banner::{ErrorBanner, OpeningBanner};
use crate::drop::DropOverlay;
use crate::graph::GraphPanel;
use crate::history::HistoryPanel;
use crate::inline::InlineDialog;
use crate::run::RunPanel;
use crate::sessions::{RestoreOffer, SessionsDialog};
use crate::state::{AppState, RunOutcome, STARTUP_EXAMPLE};
use crate::summary::SummaryPanel;
use crate::textview::TextPanel;
use crate::toolbar::Toolbar;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    // `?model=URL` (same origin) opens that model instead of the startup example; a
    // shared view (`#example=…&open=…&sel=…&cam=…`) names its example and is restored
    // once the model is drawn.
    let fragment = crate::platform::fragment();
    let shared_example = fragment.as_deref().and_then(|f| {
        f.split('&')
            .find_map(|kv| kv.strip_prefix("example="))
            .and_then(crate::state::example)
            .map(|e| e.file)
    });
    state.initial_view.set_value(fragment);
    // `?restore` restores the last kept session instead; else the last one is offered.
    crate::sessions::start(state, move || {
        match crate::platform::query_parameter("model") {
            Some(url) => state.open_url(url),
            None => state.open_example(shared_example.unwrap_or(STARTUP_EXAMPLE)),
        }
    });
    run_when_drawn(state);
    let tab = RwSignal::new(Tab::Graph);
    // A link to an item from another tab shows the graph (which then centres on it).
    Effect::new(move |_| {
        if state.goto.with(Option::is_some) {
            tab.set(Tab::Graph);
        }
    });
    let tab_button = move |which: Tab, label: &'static str, testid: &'static str| {
        view! {
            <button
                class="tab"
                class:tab-active=move || tab.get() == which
                role="tab"
                aria-selected=move || (tab.get() == which).to_string()
                data-testid=testid
                on:click=move |_| tab.set(which)
            >
                {label}
            </button>
        }
    };
    view! {
        <div class="app" class:presenting=move || state.presenting.get() data-testid="app">
            <Toolbar/>
            <main class="app-main">
                <OpeningBanner/>
                <ErrorBanner/>
                <nav class="tabs" role="tablist">
                    {tab_button(Tab::Graph, "Graph", "tab-graph")}
                    {tab_button(Tab::Summary, "Summary", "tab-summary")}
                    {tab_button(Tab::Text, "Text", "tab-text")}
                    {tab_button(Tab::History, "History", "tab-history")}
                    {tab_button(Tab::Run, "Run", "tab-run")}
                </nav>
                {move || match tab.get() {
                    Tab::Graph => view! { <GraphPanel/> }.into_any(),
                    Tab::Summary => view! { <SummaryPanel/> }.into_any(),
                    Tab::Text => view! { <TextPanel/> }.into_any(),
                    Tab::History => view! { <HistoryPanel/> }.into_any(),
                    Tab::Run => view! { <RunPanel/> }.into_any(),
                }}
            </main>
            <InlineDialog/>
            <RestoreOffer/>
            <SessionsDialog/>
            <DropOverlay/>
        </div>
    }
}

/// `?run`: once the opened model is drawn, run it once with the inputs
/// `?input=NAME:URL` names (`.npy` files of the app's origin; repeatable; random for
/// any input not given), and set `window.__graftRun` to the outcome:
/// `{status: "ok", outputs: {NAME: {dtype, shape, data}}}` (`data` a flat array of
/// numbers for outputs up to 10^6 elements, else null) or `{status: "error", message}`.
fn run_when_drawn(state: AppState) {
    if crate::platform::query_parameter("run").is_none() {
        return;
    }
    let given: Vec<(String, String)> = crate::platform::query_parameters("input")
        .into_iter()
        .filter_map(|p| {
            let (name, url) = p.split_once(':')?;
            Some((name.to_string(), crate::platform::absolute_url(url)))
        })
        .collect();
    let started = StoredValue::new(false);
    Effect::new(move |_| {
        let opened = state.opened.get();
        let drawn = opened > 0
            && state.pending.get().is_none()
            && state.name.get().is_some()
            && state.drawn.get() == opened;
        if drawn && !started.get_value() {
            started.set_value(true);
            state.run_model(given.clone(), true, |outcome| {
                let json = match outcome {
                    RunOutcome::Ok(outputs) => {
                        let outputs: serde_json::Map<String, serde_json::Value> = outputs
                            .into_iter()
                            .map(|o| {
                                let value = serde_json::json!({
                                    "dtype": o.dtype,
                                    "shape": o.shape,
                                    "data": o.data,
                                });
                                (o.name, value)
                            })
                            .collect();
                        serde_json::json!({"status": "ok", "outputs": outputs})
                    }
                    RunOutcome::Error(message) => {
                        serde_json::json!({"status": "error", "message": message})
                    }
                };
                crate::platform::publish_json("__graftRun", &json.to_string());
            });
        }
    });
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Graph,
    Summary,
    Text,
    History,
    Run,
}
