//! The browser, and the only module that touches web-sys and js-sys: starting the
//! engine's worker and carrying the messages both ways, reading files the user picked
//! or dropped and fetching a bundled example (in the worker), and saving bytes as a
//! download (on the page).
//! Everything it hands to the rest of the app is plain Rust (`LoadedFile`, `Bytes`,
//! `String` errors), so `state/` and the components stay free of browser types.
//! `files` reads and saves files, `worker` runs the engine's worker and onnxruntime-web,
//! `sessions` is the store of kept sessions (IndexedDB).

mod files;
pub mod sessions;
mod worker;

pub use files::*;
pub use worker::*;

use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use js_sys::{Array, Uint8Array};
use leptos::ev;
use leptos::prelude::{
    document, on_cleanup, request_animation_frame, set_timeout, window, window_event_listener,
};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    Blob, BlobPropertyBag, File, FileList, HtmlAnchorElement, HtmlInputElement,
    ReadableStreamDefaultReader, Response, Url,
};

fn js_message(value: &JsValue) -> String {
    if let Some(error) = value.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    value.as_string().unwrap_or_else(|| format!("{value:?}"))
}

/// Where a pointer event happened, in CSS pixels relative to the element it was
/// attached to (`currentTarget`).
pub fn pointer_in_target(event: &ev::MouseEvent) -> (f64, f64) {
    let rect = event
        .current_target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|e| e.get_bounding_client_rect());
    let (left, top) = rect.map_or((0.0, 0.0), |r| (r.left(), r.top()));
    (
        f64::from(event.client_x()) - left,
        f64::from(event.client_y()) - top,
    )
}

/// Pointer position in CSS pixels of the window.
pub fn pointer(event: &ev::MouseEvent) -> (f64, f64) {
    (f64::from(event.client_x()), f64::from(event.client_y()))
}

/// Whether Shift was held during a click.
pub fn shift_held(event: &ev::MouseEvent) -> bool {
    event.shift_key()
}

/// Which mouse buttons are held (`MouseEvent.buttons`).
pub fn buttons(event: &ev::MouseEvent) -> u16 {
    event.buttons()
}

/// The wheel's vertical movement in pixels, and stops the page from scrolling.
pub fn wheel_delta(event: &ev::WheelEvent) -> f64 {
    event.prevent_default();
    let lines = event.delta_mode() == 1;
    event.delta_y() * if lines { 16.0 } else { 1.0 }
}

/// The value of `attribute` on the event's target or its nearest ancestor that has it.
pub fn target_attribute(event: &ev::MouseEvent, attribute: &str) -> Option<String> {
    let element = event
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())?;
    let holder = element.closest(&format!("[{attribute}]")).ok()??;
    holder.get_attribute(attribute)
}

/// The size in CSS pixels of the element with `data-testid`=`testid`.
pub fn element_size(testid: &str) -> Option<(f64, f64)> {
    let element = window()
        .document()?
        .query_selector(&format!("[data-testid=\"{testid}\"]"))
        .ok()??;
    let rect = element.get_bounding_client_rect();
    Some((rect.width(), rect.height()))
}

/// Sets `window.__graftReady`, which benchmarks and tests wait for.
pub fn set_ready(ready: bool) {
    let _ = js_sys::Reflect::set(
        &window(),
        &JsValue::from_str("__graftReady"),
        &JsValue::from_bool(ready),
    );
}

/// The `name` parameter of the page's query string.
pub fn query_parameter(name: &str) -> Option<String> {
    let search = window().location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    params.get(name)
}

/// Sets the page's title (the browser tab's label).
pub fn set_title(title: &str) {
    if let Some(document) = window().document() {
        document.set_title(title);
    }
}

/// Takes the `name` parameter out of the page's address (the fragment stays), so a
/// reload does not bring back what it named.
pub fn drop_query_parameter(name: &str) {
    let location = window().location();
    let Ok(params) = web_sys::UrlSearchParams::new_with_str(&location.search().unwrap_or_default())
    else {
        return;
    };
    if params.get(name).is_none() {
        return;
    }
    params.delete(name);
    let query = String::from(params.to_string());
    let url = format!(
        "{}{}{query}{}",
        location.pathname().unwrap_or_default(),
        if query.is_empty() { "" } else { "?" },
        location.hash().unwrap_or_default()
    );
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Every `name` parameter of the page's query string, in order.
pub fn query_parameters(name: &str) -> Vec<String> {
    let Some(params) = window()
        .location()
        .search()
        .ok()
        .and_then(|s| web_sys::UrlSearchParams::new_with_str(&s).ok())
    else {
        return Vec::new();
    };
    params
        .get_all(name)
        .iter()
        .filter_map(|v| v.as_string())
        .collect()
}

/// Sets `window[name]` to the value `json` reads as, for the tests and scripts that
/// drive the page (`window.__graftRun`).
pub fn publish_json(name: &str, json: &str) {
    if let Ok(value) = js_sys::JSON::parse(json) {
        let _ = js_sys::Reflect::set(&window(), &JsValue::from_str(name), &value);
    }
}

/// Whether a key event comes from a field the keys are typed into (not a file input,
/// which keeps the focus after a file is chosen).
fn in_text_field(e: &web_sys::KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| match el.tag_name().as_str() {
            "TEXTAREA" | "SELECT" => true,
            // A file input keeps the focus after a file is chosen: Esc then still
            // cancels the open, as it would anywhere else on the page.
            "INPUT" => el.get_attribute("type").as_deref() != Some("file"),
            _ => false,
        })
}

/// The page's URL fragment without `#` (`None` when empty).
pub fn fragment() -> Option<String> {
    let hash = window().location().hash().ok()?;
    let hash = hash.trim_start_matches('#');
    (!hash.is_empty()).then(|| hash.to_string())
}

/// Replaces the URL fragment (no new history entry, no navigation); an empty one is
/// removed.
pub fn set_fragment(fragment: &str) {
    let location = window().location();
    let url = if fragment.is_empty() {
        format!(
            "{}{}",
            location.pathname().unwrap_or_default(),
            location.search().unwrap_or_default()
        )
    } else {
        format!("#{fragment}")
    };
    if location.hash().ok().as_deref() == Some(url.as_str()) {
        return;
    }
    if let Ok(history) = window().history() {
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Calls `f` on every key pressed outside text fields, with the key's name
/// (`KeyboardEvent.key`). Esc in a text field leaves the field (a second Esc is then
/// the page's). The listener lives as long as the page.
pub fn on_key(f: impl Fn(String) + 'static) {
    window_event_listener(ev::keydown, move |e| {
        let typing = in_text_field(&e);
        if typing && e.key() == "Escape" {
            if let Some(field) = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlElement>().ok())
            {
                let _ = field.blur();
            }
        } else if !typing && !e.ctrl_key() && !e.meta_key() && !e.alt_key() {
            f(e.key());
        }
    });
}

/// Calls `undo` on Ctrl+Z (Cmd+Z) and `redo` on Ctrl+Shift+Z or Ctrl+Y, pressed outside
/// text fields. Lives as long as the page.
pub fn on_history_keys(undo: impl Fn() + 'static, redo: impl Fn() + 'static) {
    window_event_listener(ev::keydown, move |e| {
        let typing = in_text_field(&e);
        if typing || !(e.ctrl_key() || e.meta_key()) {
            return;
        }
        let key = e.key().to_ascii_lowercase();
        if key == "z" && !e.shift_key() {
            e.prevent_default();
            undo();
        } else if (key == "z" && e.shift_key()) || key == "y" {
            e.prevent_default();
            redo();
        }
    });
}

/// Calls `f` on Delete pressed outside text fields. Lives as long as the page.
pub fn on_delete_key(f: impl Fn() + 'static) {
    window_event_listener(ev::keydown, move |e| {
        let typing = in_text_field(&e);
        if !typing && e.key() == "Delete" {
            e.prevent_default();
            f();
        }
    });
}

/// Calls `f` on Escape (anywhere). Lives as long as the page.
pub fn on_escape_key(f: impl Fn() + 'static) {
    window_event_listener(ev::keydown, move |e| {
        if e.key() == "Escape" {
            f();
        }
    });
}

/// `f` hears the pointer's x in the window and the mouse buttons held, on every move
/// anywhere on the page (a drag that leaves the element it started on), until the
/// component that asked is gone.
pub fn on_mouse_move(f: impl Fn(f64, u16) + 'static) {
    let handle = window_event_listener(ev::mousemove, move |e| {
        f(f64::from(e.client_x()), e.buttons())
    });
    on_cleanup(move || handle.remove());
}

/// Calls `f` whenever the window changes size. The listener lives as long as the page.
pub fn on_resize(f: impl Fn() + 'static) {
    window_event_listener(ev::resize, move |_| f());
}

const THEME_KEY: &str = "graft.theme";
const DARK_QUERY: &str = "(prefers-color-scheme: dark)";

/// The theme the user chose last time (`auto`, `light` or `dark`), from local storage.
/// A value the page remembers across visits (`localStorage`), if any.
pub fn remembered(key: &str) -> Option<String> {
    window()
        .local_storage()
        .ok()
        .flatten()
        .and_then(|s| s.get_item(key).ok().flatten())
}

/// Remembers `value` under `key` across visits (quietly not, where storage is off).
pub fn remember(key: &str, value: &str) {
    if let Some(storage) = window().local_storage().ok().flatten() {
        let _ = storage.set_item(key, value);
    }
}

pub fn saved_theme() -> String {
    remembered(THEME_KEY)
        .filter(|t| matches!(t.as_str(), "auto" | "light" | "dark"))
        .unwrap_or_else(|| "auto".into())
}

/// Applies and remembers a theme choice: sets `data-theme` on the root element to
/// `light` or `dark` (`auto` follows the system setting). The style sheets key every
/// dark colour on that attribute.
pub fn apply_theme(choice: &str) {
    remember(THEME_KEY, choice);
    let dark = match choice {
        "dark" => true,
        "light" => false,
        _ => system_prefers_dark(),
    };
    if let Some(root) = document().document_element() {
        let _ = root.set_attribute("data-theme", if dark { "dark" } else { "light" });
    }
}

fn system_prefers_dark() -> bool {
    window()
        .match_media(DARK_QUERY)
        .ok()
        .flatten()
        .is_some_and(|q| q.matches())
}

/// Calls `f` when the system's light/dark setting changes. Lives as long as the page.
pub fn on_system_theme_change(f: impl Fn() + 'static) {
    let Some(query) = window().match_media(DARK_QUERY).ok().flatten() else {
        return;
    };
    let callback = Closure::<dyn Fn()>::new(f);
    query.set_onchange(Some(callback.as_ref().unchecked_ref()));
    callback.forget();
}

/// Calls the global `setTimeout` (the page's or the worker's) with `callback`.
fn global_timeout(callback: &JsValue, ms: i32) {
    let global = js_sys::global();
    if let Ok(set) = js_sys::Reflect::get(&global, &JsValue::from_str("setTimeout"))
        .and_then(|f| f.dyn_into::<js_sys::Function>())
    {
        let _ = set.call2(&global, callback, &JsValue::from(ms));
    }
}

/// Runs `f` once the event loop has had a turn (a zero-delay timeout): lets the page
/// paint and take input, or the worker take a message, between pieces of long work.
pub fn soon(f: impl FnOnce() + 'static) {
    after_ms(0, f);
}

/// Runs `f` after `ms` milliseconds.
pub fn after_ms(ms: u64, f: impl FnOnce() + 'static) {
    let callback = Closure::once_into_js(f);
    global_timeout(&callback, i32::try_from(ms).unwrap_or(i32::MAX));
}

/// Resolves on a later turn of the event loop (a zero-delay timeout), for async work
/// that must let the browser (or the worker's messages) run in between.
pub async fn next_turn() {
    let promise = js_sys::Promise::new(&mut |resolve, _| global_timeout(&resolve, 0));
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Runs `f` once the next frame is painted. A `requestAnimationFrame` callback runs
/// after the DOM updates pending now (Leptos applies them in microtasks) and just
/// before that frame's style, layout and paint; a zero-delay timeout queued from it
/// runs when they are done.
pub fn after_next_paint(f: impl FnOnce() + 'static) {
    request_animation_frame(move || set_timeout(f, Duration::ZERO));
}

/// The work budget a test set on the page (`window.__graftWorkBudgetMs`), which the
/// engine uses instead of its own.
pub fn work_budget_ms() -> Option<f64> {
    js_sys::Reflect::get(&window(), &JsValue::from_str("__graftWorkBudgetMs"))
        .ok()
        .and_then(|v| v.as_f64())
}

/// Milliseconds since the page (or the worker) started (`performance.now()`).
pub fn now_ms() -> f64 {
    js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("performance"))
        .ok()
        .and_then(|p| p.dyn_into::<web_sys::Performance>().ok())
        .map_or(0.0, |p| p.now())
}

thread_local! {
    /// Timings published in the worker, sent to the page with the next update.
    static TIMINGS: std::cell::RefCell<Vec<(String, f64)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The timings published in the worker since the last call.
pub fn take_timings() -> Vec<(String, f64)> {
    TIMINGS.with(|t| std::mem::take(&mut *t.borrow_mut()))
}

/// Publishes a timing as `window.__graftTimings[name]` (milliseconds), for the
/// benchmarks that drive the page; in the worker, it goes to the page with the next
/// update.
pub fn publish_timing(name: &str, ms: f64) {
    if in_worker() {
        TIMINGS.with(|t| t.borrow_mut().push((name.to_string(), ms)));
        return;
    }
    let key = JsValue::from_str("__graftTimings");
    let timings = js_sys::Reflect::get(&window(), &key)
        .ok()
        .filter(|v| v.is_object())
        .unwrap_or_else(|| js_sys::Object::new().into());
    let _ = js_sys::Reflect::set(&timings, &JsValue::from_str(name), &JsValue::from_f64(ms));
    let _ = js_sys::Reflect::set(&window(), &key, &timings);
}

/// Sets `window[name]` to a string, for the benchmarks that drive the page.
pub fn publish_text(name: &str, text: &str) {
    let _ = js_sys::Reflect::set(
        &window(),
        &JsValue::from_str(name),
        &JsValue::from_str(text),
    );
}

/// The largest canvas side browsers reliably allocate; bigger drawings are scaled down.
const MAX_CANVAS_SIDE: f64 = 16_384.0;

/// Rasterizes an SVG document (`width` x `height` CSS pixels) and saves it as a PNG
/// download named `name`. Runs asynchronously: the image decodes, is drawn on a canvas,
/// and the canvas is encoded; failures after this returns are logged to the console.
pub fn download_png(name: &str, svg: &str, width: f64, height: f64) -> Result<(), String> {
    use wasm_bindgen::closure::Closure;
    let fail = |e: JsValue| format!("could not prepare the PNG ({})", js_message(&e));
    let parts = Array::of1(&JsValue::from_str(svg));
    let options = BlobPropertyBag::new();
    options.set_type("image/svg+xml");
    let blob = Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let image = web_sys::HtmlImageElement::new().map_err(fail)?;
    let scale = (MAX_CANVAS_SIDE / width.max(height).max(1.0)).min(2.0);
    let (w, h) = ((width * scale).ceil(), (height * scale).ceil());
    let name = name.to_string();
    let loaded = image.clone();
    let svg_url = url.clone();
    let onload = Closure::once(move || {
        let result = (|| -> Result<(), JsValue> {
            let document = window().document().ok_or("no document")?;
            let canvas: web_sys::HtmlCanvasElement =
                document.create_element("canvas")?.dyn_into()?;
            canvas.set_width(w as u32);
            canvas.set_height(h as u32);
            let context: web_sys::CanvasRenderingContext2d = canvas
                .get_context("2d")?
                .ok_or("no 2d context")?
                .dyn_into()?;
            context.set_fill_style_str("#ffffff");
            context.fill_rect(0.0, 0.0, w, h);
            context.draw_image_with_html_image_element_and_dw_and_dh(&loaded, 0.0, 0.0, w, h)?;
            let saved = Closure::once(move |blob: Option<Blob>| {
                if let Some(blob) = blob
                    && let Err(e) = save_blob(&name, &blob)
                {
                    web_sys::console::error_1(&JsValue::from_str(&e));
                }
            });
            canvas.to_blob(saved.as_ref().unchecked_ref())?;
            saved.forget();
            Ok(())
        })();
        let _ = Url::revoke_object_url(&svg_url);
        if let Err(e) = result {
            web_sys::console::error_1(&JsValue::from_str(&format!(
                "PNG export failed: {}",
                js_message(&e)
            )));
        }
    });
    image.set_onload(Some(onload.as_ref().unchecked_ref()));
    onload.forget();
    image.set_src(&url);
    Ok(())
}

/// `url` resolved against the page's address (the engine's worker has none of its
/// own to resolve it against).
pub fn absolute_url(url: &str) -> String {
    document()
        .base_uri()
        .ok()
        .flatten()
        .and_then(|base| Url::new_with_base(url, &base).ok())
        .map_or_else(|| url.to_string(), |u| u.href())
}

/// Whether this code runs in the engine's worker (there is no window).
pub fn in_worker() -> bool {
    js_sys::global().dyn_into::<web_sys::Window>().is_err()
}

/// Logs an error to the console.
pub fn log_error(message: &str) {
    web_sys::console::error_1(&JsValue::from_str(message));
}

/// The key of the message a panicking engine sends the page before it stops.
const PANIC: &str = "panic";

/// What shows a panic's text.
type Report = Rc<dyn Fn(String)>;

thread_local! {
    /// On the page: what shows a panic in the banner ([`on_page_panic`]).
    static PAGE_PANIC: std::cell::RefCell<Option<Report>> =
        const { std::cell::RefCell::new(None) };
}

/// Makes every panic say what and where: its message and place go to the console,
/// and from the engine's worker to the page (which shows them when the engine
/// stops), from the page to the banner ([`on_page_panic`]).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map(|l| format!(" at {}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        let where_ = if in_worker() { "engine" } else { "page" };
        let text = format!("{where_} panicked{place}: {message}");
        log_error(&text);
        if in_worker() {
            let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
            let report = js_sys::Object::new();
            let _ = js_sys::Reflect::set(&report, &PANIC.into(), &JsValue::from_str(&text));
            let _ = scope.post_message(&report);
        } else if let Some(report) =
            PAGE_PANIC.with(|r| r.try_borrow().ok().and_then(|r| r.clone()))
        {
            // Later, from the event loop: the panic may have come while the page's
            // state was in use.
            set_timeout(move || report(text), Duration::ZERO);
        }
    }));
}

/// On the page: makes `f` callable from a script as `window[name]()`.
pub fn expose(name: &str, f: impl Fn() + 'static) {
    let closure = Closure::<dyn Fn()>::new(f);
    let _ = js_sys::Reflect::set(&window(), &JsValue::from_str(name), closure.as_ref());
    closure.forget();
}

/// What settles the promise a script awaits from a function [`expose_promise`]
/// made. Dropped unsettled (its request never answered: the engine stopped), it
/// rejects.
pub struct Settle(Option<(js_sys::Function, js_sys::Function)>);

impl Settle {
    /// Resolves to the value `json` reads as.
    pub fn json(mut self, json: &str) {
        if let Some((resolve, reject)) = self.0.take() {
            match js_sys::JSON::parse(json) {
                Ok(value) => resolve.call1(&JsValue::NULL, &value),
                Err(e) => reject.call1(&JsValue::NULL, &e),
            }
            .ok();
        }
    }

    /// Resolves to a `Uint8Array` of `bytes`.
    pub fn bytes(mut self, bytes: &[u8]) {
        if let Some((resolve, _)) = self.0.take() {
            let _ = resolve.call1(&JsValue::NULL, &Uint8Array::from(bytes));
        }
    }

    /// Rejects with an `Error` saying `message`.
    pub fn fail(mut self, message: &str) {
        if let Some((_, reject)) = self.0.take() {
            let _ = reject.call1(&JsValue::NULL, &js_sys::Error::new(message));
        }
    }
}

impl Drop for Settle {
    fn drop(&mut self) {
        if let Some((_, reject)) = self.0.take() {
            let error = js_sys::Error::new("the engine stopped before it answered");
            let _ = reject.call1(&JsValue::NULL, &error);
        }
    }
}

/// On the page: makes `window[name](arg)` callable from a script, returning a
/// promise that `f` settles. `f` gets the argument as text: a string as it is,
/// anything else as its JSON (`None` when there is none).
pub fn expose_promise(name: &str, f: impl Fn(Option<String>, Settle) + 'static) {
    let closure = Closure::<dyn Fn(JsValue) -> js_sys::Promise>::new(move |arg: JsValue| {
        let text = if arg.is_undefined() || arg.is_null() {
            None
        } else if let Some(text) = arg.as_string() {
            Some(text)
        } else {
            js_sys::JSON::stringify(&arg)
                .ok()
                .and_then(|s| s.as_string())
        };
        let mut settle = None;
        let promise = js_sys::Promise::new(&mut |resolve, reject| {
            settle = Some(Settle(Some((resolve, reject))));
        });
        if let Some(settle) = settle {
            f(text, settle);
        }
        promise
    });
    let _ = js_sys::Reflect::set(&window(), &JsValue::from_str(name), closure.as_ref());
    closure.forget();
}

/// On the page: `report` shows a panic of the page's code (its message and place).
pub fn on_page_panic(report: impl Fn(String) + 'static) {
    PAGE_PANIC.with(|r| *r.borrow_mut() = Some(Rc::new(report)));
}

/// Saves `bytes` as a download named `name` of type `mime`.
pub fn download_as(name: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let parts = Array::of1(&Uint8Array::from(bytes));
    let options = BlobPropertyBag::new();
    options.set_type(mime);
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &options)
        .map_err(|e| format!("could not prepare the download ({})", js_message(&e)))?;
    save_blob(name, &blob)
}
