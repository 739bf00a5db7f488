//! The page layout: toolbar on top, the error banner under it, the summary below, and
//! the drop overlay above everything while files are dragged in.

use leptos::prelude::*;

use crate::banner::ErrorBanner;
use crate::drop::DropOverlay;
use crate::state::{AppState, STARTUP_EXAMPLE};
use crate::summary::SummaryPanel;
use crate::toolbar::Toolbar;

#[component]
pub fn App() -> impl IntoView {
    let state = AppState::new();
    provide_context(state);
    state.open_example(STARTUP_EXAMPLE);
    view! {
        <div class="app">
            <Toolbar/>
            <main class="app-main">
                <ErrorBanner/>
                <SummaryPanel/>
            </main>
            <DropOverlay/>
        </div>
    }
}
