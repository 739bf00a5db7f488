//! Graft in the browser: a Leptos (client-side) app over the `graft` core. `state.rs`
//! owns the session, `platform.rs` is the only module that touches the browser, and each
//! component lives in its own folder with its stylesheet beside it.

mod app;
mod banner;
mod drop;
mod format;
mod platform;
mod state;
mod summary;
mod textview;
mod toolbar;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
