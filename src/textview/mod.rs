//! The text tab: the open model, or one of its functions, in ONNX text (read-only).
//! The core prints; this component only chooses what to print and shows it.

use leptos::prelude::*;

use crate::state::AppState;

#[component]
pub fn TextPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    // `None`: the whole model; `Some(i)`: the model's i-th function.
    let scope = RwSignal::new(None::<usize>);
    // Another model resets the choice.
    Effect::new(move |_| {
        state.name.track();
        scope.set(None);
    });
    let text = Memo::new(move |_| state.text(scope.get()));
    let options = move || {
        state
            .functions
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, key)| view! { <option value=i.to_string()>{key}</option> })
            .collect_view()
    };
    let on_change = move |ev| {
        let value = event_target_value(&ev);
        scope.set(value.parse::<usize>().ok());
    };
    view! {
        <section class="text-panel" aria-label="ONNX text">
            <div class="text-toolbar">
                <label class="select">
                    <span class="text-label">"Show"</span>
                    <select
                        data-testid="text-scope"
                        prop:value=move || scope.get().map(|i| i.to_string()).unwrap_or_default()
                        on:change=on_change
                    >
                        <option value="">"The whole model"</option>
                        {options}
                    </select>
                </label>
            </div>
            <pre class="text-view" data-testid="text-view">{move || text.get().unwrap_or_default()}</pre>
        </section>
    }
}
