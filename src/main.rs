//! Graft in the browser: a Leptos (client-side) app over the `graft` core. `state/`
//! owns the session, `platform/` is the only module that touches the browser, and each
//! component lives in its own folder with its stylesheet beside it.

mod app;
mod banner;
mod bench;
mod drop;
mod format;
mod graph;
mod history;
mod inline;
mod platform;
mod run;
mod sessions;
mod state;
mod summary;
mod textview;
mod toolbar;
mod warm;

fn main() {
    platform::install_panic_hook();
    // The same module runs the engine in its worker (`state::engine`), started by the
    // page (`AppState::new`): there, there is no window.
    if platform::in_worker() {
        state::engine::run();
        return;
    }
    // Where a page's start goes: until here, the download, compile and instantiation
    // of the wasm (the browser benchmark reads these).
    platform::publish_timing("page_start_ms", platform::now_ms());
    if platform::query_parameter("bench").as_deref() == Some("layout") {
        leptos::mount::mount_to_body(bench::LayoutBench);
    } else {
        leptos::mount::mount_to_body(app::App);
    }
}
