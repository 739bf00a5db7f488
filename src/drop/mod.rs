//! Dropping files anywhere on the page opens them; while files are dragged over the
//! page an overlay says what will happen.

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
        move |files| state.open_files(files),
    );
    view! {
        <Show when=move || hovering.get()>
            <div class="drop-overlay" data-testid="drop-zone">
                <div class="drop-card">
                    <p class="drop-title">"Drop to open"</p>
                    <p class="drop-hint">
                        "An .onnx model, with its external-data files if it has any."
                    </p>
                </div>
            </div>
        </Show>
    }
}
