//! Dropping files anywhere on the page opens them; while files are dragged over the
//! page an overlay says what will happen. With a model open the overlay has two
//! zones: open the dropped model instead, or inline it into the open one.

use leptos::prelude::*;

use crate::platform;
use crate::state::AppState;

#[component]
pub fn DropOverlay() -> impl IntoView {
    let state = expect_context::<AppState>();
    let hovering = RwSignal::new(false);
    platform::on_file_drop(
        move |over| {
            if hovering.get_untracked() != over {
                hovering.set(over);
            }
        },
        move |files, zone| match zone.as_deref() {
            Some("inline") => state.begin_inline(files),
            _ => state.open_files(files),
        },
    );
    let host = move || state.name.get();
    view! {
        <Show when=move || hovering.get()>
            {move || match host() {
                None => view! {
                    <div class="drop-overlay" data-testid="drop-zone">
                        <div class="drop-card">
                            <p class="drop-title">"Drop to open"</p>
                            <p class="drop-hint">
                                "An .onnx model, with its external-data files if it has any."
                            </p>
                        </div>
                    </div>
                }
                .into_any(),
                Some(name) => view! {
                    <div class="drop-overlay drop-two" data-testid="drop-zone">
                        <div class="drop-card" data-drop="open" data-testid="drop-open">
                            <p class="drop-title">"Drop here to open"</p>
                            <p class="drop-hint">"Replaces the open model."</p>
                        </div>
                        <div class="drop-card" data-drop="inline" data-testid="drop-inline">
                            <p class="drop-title">"Drop here to inline"</p>
                            <p class="drop-hint">{format!("Inserts the dropped model into {name}.")}</p>
                        </div>
                    </div>
                }
                .into_any(),
            }}
        </Show>
    }
}
