//! The banners: why the last open or export failed (the model that was open stays open
//! underneath), and how far an open has come, with Cancel.

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

/// How far the open in progress has come (bytes read, then each stage), with Cancel:
/// it floats over the page, so nothing moves when it comes and goes. Only its text
/// follows the progress: the Cancel button stays the same element throughout.
#[component]
pub fn OpeningBanner() -> impl IntoView {
    let state = expect_context::<AppState>();
    view! {
        <Show when=move || state.pending.with(Option::is_some)>
            <div class="banner banner-opening" role="status" aria-live="polite">
                <p class="banner-message" data-testid="open-progress">
                    {move || state.pending.get().unwrap_or_default()}
                </p>
                <button
                    class="button"
                    data-testid="open-cancel"
                    title="Stop opening; the model that is open stays as it is (Esc)"
                    on:click=move |_| state.cancel_open()
                >
                    "Cancel"
                </button>
            </div>
        </Show>
    }
}
