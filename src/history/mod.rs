//! The history tab: every edit made since the model opened, the ones undone greyed
//! below the current step; a click goes to that step. The edit log exports as JSON
//! for `graft apply`. Sessions… lists the sessions kept in the browser.

use leptos::prelude::*;

use crate::state::AppState;

#[component]
pub fn HistoryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let rows = move || {
        let (done, undone) = state.history.get();
        let count = done.len();
        let done_rows = done.into_iter().enumerate().map(move |(k, line)| {
            let current = k + 1 == count;
            view! {
                <li
                    class="history-step"
                    class:history-current=current
                    data-testid="history-step"
                    title="Go back to just after this edit"
                    on:click=move |_| state.go_to_step(k + 1)
                >
                    <span class="history-number">{k + 1}</span>
                    {line}
                </li>
            }
        });
        let undone_rows = undone.into_iter().enumerate().map(move |(k, line)| {
            view! {
                <li
                    class="history-step history-undone"
                    data-testid="history-undone"
                    title="Redo up to this edit"
                    on:click=move |_| state.go_to_step(count + k + 1)
                >
                    <span class="history-number">{count + k + 1}</span>
                    {line}
                </li>
            }
        });
        done_rows
            .map(IntoAny::into_any)
            .chain(undone_rows.map(IntoAny::into_any))
            .collect_view()
    };
    let empty = move || state.history.with(|(d, u)| d.is_empty() && u.is_empty());
    view! {
        <section class="history-panel" aria-label="Edit history">
            <div class="history-toolbar">
                <button
                    class="button"
                    data-testid="history-start"
                    title="Undo every edit"
                    disabled=move || !state.can_undo.get()
                    on:click=move |_| state.go_to_step(0)
                >
                    "Back to the opened model"
                </button>
                <button
                    class="button"
                    data-testid="export-log"
                    title="Save the edits in force as JSON; `graft apply LOG MODEL -o OUT` replays them"
                    disabled=move || !state.can_undo.get()
                    on:click=move |_| state.export_log()
                >
                    "Export edit log"
                </button>
                <crate::sessions::SessionsButton/>
            </div>
            <Show
                when=move || !empty()
                fallback=|| view! { <p class="history-empty">"No edits yet."</p> }
            >
                <ol class="history-list" data-testid="history-list">{rows}</ol>
            </Show>
        </section>
    }
}
