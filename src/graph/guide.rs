//! For a bundled example: what it shows and a step or two to try on it (teaching and
//! demos). It can be folded away; presentation mode (the toolbar's Present) hides it
//! with the other panels.

use leptos::prelude::*;

use crate::state::{AppState, example};

#[component]
pub fn ExampleGuide() -> impl IntoView {
    let state = expect_context::<AppState>();
    let folded = RwSignal::new(false);
    let guide = move || state.example.get().and_then(example);
    view! {
        {move || guide().map(|e| view! {
            <section class="guide" data-testid="example-guide">
                <h3>
                    <button class="link" title="Fold or unfold" on:click=move |_| folded.update(|f| *f = !*f)>
                        {format!("About: {}", e.label)}
                    </button>
                </h3>
                <Show when=move || !folded.get()>
                    <p data-testid="example-about">{e.about}</p>
                    <ol class="guide-steps">
                        {e.try_this.iter().map(|step| view! { <li data-testid="example-step">{*step}</li> }).collect_view()}
                    </ol>
                </Show>
            </section>
        })}
    }
}
