//! The error banner: why the last open or export failed. The model that was open stays
//! open underneath it.

use leptos::prelude::*;

use crate::state::AppState;

#[component]
pub fn ErrorBanner() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        state.error.get().map(|message| {
            view! {
                <div class="banner banner-error" role="alert">
                    <p class="banner-message" data-testid="error">{message}</p>
                    <button
                        class="banner-dismiss"
                        aria-label="Dismiss"
                        title="Dismiss"
                        on:click=move |_| state.dismiss_error()
                    >
                        "×"
                    </button>
                </div>
            }
        })
    }
}
