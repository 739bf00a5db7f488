//! The top bar: the app's name, what is loading, and the commands that open and save a
//! model (bundled examples, a file picker, export), and the theme switch.

use leptos::prelude::*;

use crate::platform::{self, PickedFiles};
use crate::state::{AppState, EXAMPLES};

#[component]
pub fn Toolbar() -> impl IntoView {
    let state = expect_context::<AppState>();
    let examples = EXAMPLES
        .iter()
        .map(|e| view! { <option value=e.file>{e.label}</option> })
        .collect_view();
    let selected_example = move || state.example.get().unwrap_or_default();
    let no_model = move || state.summary.with(Option::is_none);
    // Auto (the system's setting), light or dark; remembered across visits.
    platform::on_history_keys(move || state.undo(), move || state.redo());
    platform::on_delete_key(move || state.delete_selected(true));
    platform::on_escape_key(move || state.presenting.set(false));
    // The tab names the open file, as the header does.
    Effect::new(move |_| {
        let title = match state.name.get() {
            Some(name) if !name.is_empty() => format!("{name} — Graft"),
            _ => "Graft: ONNX graph editor".to_string(),
        };
        platform::set_title(&title);
    });
    let theme = RwSignal::new(platform::saved_theme());
    platform::apply_theme(&theme.get_untracked());
    platform::on_system_theme_change(move || platform::apply_theme(&theme.get_untracked()));
    let next_theme = move |_| {
        let next = match theme.get_untracked().as_str() {
            "auto" => "light",
            "light" => "dark",
            _ => "auto",
        };
        platform::apply_theme(next);
        theme.set(next.to_string());
    };
    let theme_label = move || match theme.get().as_str() {
        "light" => "Theme: light",
        "dark" => "Theme: dark",
        _ => "Theme: auto",
    };
    view! {
        <header class="toolbar">
            <div class="brand">
                <img class="brand-mark" src="icons/graft.svg" alt="" width="22" height="22"/>
                <span class="brand-name">"Graft"</span>
            </div>
            <span class="toolbar-model" data-testid="toolbar-model" title=move || state.name.get().unwrap_or_default()>
                {move || state.name.get().unwrap_or_default()}
            </span>
            <div class="toolbar-spacer"></div>
            <div class="toolbar-actions">
                <button
                    class="button"
                    data-testid="theme-toggle"
                    title="Switch between the system's theme, light and dark"
                    on:click=next_theme
                >
                    {theme_label}
                </button>
                <label class="select">
                    <span class="visually-hidden">"Bundled example"</span>
                    <select
                        data-testid="example-select"
                        prop:value=selected_example
                        on:change=move |ev| state.open_example_named(&event_target_value(&ev))
                    >
                        <option value="" disabled=true>"Examples…"</option>
                        {examples}
                    </select>
                </label>
                <label class="button">
                    "Open files…"
                    <input
                        class="visually-hidden"
                        type="file"
                        multiple=true
                        data-testid="file-input"
                        on:change=move |ev| state.open_files(PickedFiles::from_input_event(&ev))
                    />
                </label>
                <label class="button" class:button-disabled=no_model title="Insert another model into this one, with its inputs bound to values of this one">
                    "Inline model…"
                    <input
                        class="visually-hidden"
                        type="file"
                        multiple=true
                        data-testid="inline-input"
                        disabled=no_model
                        on:change=move |ev| state.begin_inline(PickedFiles::from_input_event(&ev))
                    />
                </label>
                <button
                    class="button"
                    data-testid="undo"
                    title="Undo the last edit (Ctrl+Z)"
                    disabled=move || !state.can_undo.get()
                    on:click=move |_| state.undo()
                >
                    "Undo"
                </button>
                <button
                    class="button"
                    data-testid="redo"
                    title="Redo the last undone edit (Ctrl+Shift+Z)"
                    disabled=move || !state.can_redo.get()
                    on:click=move |_| state.redo()
                >
                    "Redo"
                </button>
                <button
                    class="button"
                    data-testid="present"
                    title="Presentation mode: only the canvas, larger text (Esc leaves it)"
                    on:click=move |_| state.presenting.update(|p| *p = !*p)
                >
                    {move || if state.presenting.get() { "End presentation" } else { "Present" }}
                </button>
                <button
                    class="button button-primary"
                    data-testid="export-button"
                    title="Save the model as re-encoded by Graft"
                    disabled=no_model
                    on:click=move |_| state.export()
                >
                    "Export .onnx"
                </button>
            </div>
        </header>
    }
}
