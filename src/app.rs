//! The page layout: toolbar on top, the error banner under it, then tabs (the graph,
//! the summary, the ONNX text, the edit history), and the drop overlay above everything while files are
//! dragged in.

use leptos::prelude::*;

use crate::banner::{ErrorBanner, OpeningBanner};
use crate::drop::DropOverlay;
use crate::graph::GraphPanel;
use crate::history::HistoryPanel;
use crate::inline::InlineDialog;
use crate::state::{AppState, STARTUP_EXAMPLE};
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
    match crate::platform::query_parameter("model") {
        Some(url) => state.open_url(url),
        None => state.open_example(shared_example.unwrap_or(STARTUP_EXAMPLE)),
    }
    let tab = RwSignal::new(Tab::Graph);
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
                </nav>
                {move || match tab.get() {
                    Tab::Graph => view! { <GraphPanel/> }.into_any(),
                    Tab::Summary => view! { <SummaryPanel/> }.into_any(),
                    Tab::Text => view! { <TextPanel/> }.into_any(),
                    Tab::History => view! { <HistoryPanel/> }.into_any(),
                }}
            </main>
            <InlineDialog/>
            <DropOverlay/>
        </div>
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Tab {
    Graph,
    Summary,
    Text,
    History,
}
