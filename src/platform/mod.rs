//! The browser, and the only module that touches web-sys and js-sys: starting the
//! engine's worker and carrying the messages both ways, reading files the user picked
//! or dropped and fetching a bundled example (in the worker), and saving bytes as a
//! download (on the page).
//! Everything it hands to the rest of the app is plain Rust (`LoadedFile`, `Bytes`,
//! `String` errors), so `state.rs` and the components stay free of browser types.
//! `sessions` is the store of kept sessions (IndexedDB).

pub mod sessions;

use std::cell::Cell;
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

/// A file's name and contents, read into memory.
#[derive(Clone, Debug)]
pub struct LoadedFile {
    pub name: String,
    pub bytes: Bytes,
}

/// Files the user chose or dropped, not read yet.
#[derive(Clone)]
pub struct PickedFiles(Vec<File>);

impl PickedFiles {
    /// The files of an `<input type=file>` change event. Clears the input afterwards so
    /// that choosing the same file again opens it again.
    pub fn from_input_event(event: &ev::Event) -> Self {
        let Some(input) = event
            .target()
            .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
        else {
            return Self(Vec::new());
        };
        let files = Self::from_list(input.files());
        input.set_value("");
        files
    }

    fn from_list(list: Option<FileList>) -> Self {
        let files = list
            .map(|list| (0..list.length()).filter_map(|i| list.get(i)).collect())
            .unwrap_or_default();
        Self(files)
    }

    /// Files the page sent to the worker.
    pub fn from_files(files: Vec<File>) -> Self {
        Self(files)
    }

    /// Takes out every file but the model (the first `is_model` accepts, else the
    /// first), each kept as a source that reads a range of it when asked
    /// (`FileReaderSync`, in the engine's worker): a data file is never read whole.
    pub fn take_data_files(
        &mut self,
        is_model: impl Fn(&str) -> bool,
    ) -> Vec<(String, Rc<dyn graft::external::ReadRange>)> {
        let Some(index) = self
            .0
            .iter()
            .position(|f| is_model(&f.name()))
            .or_else(|| (!self.0.is_empty()).then_some(0))
        else {
            return Vec::new();
        };
        let model = self.0.remove(index);
        let data = std::mem::replace(&mut self.0, vec![model]);
        data.into_iter()
            .map(|file| {
                let name = file.name();
                let source: Rc<dyn graft::external::ReadRange> = Rc::new(FileRanges(file));
                (name, source)
            })
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The first file, kept as a source that reads a range of it when asked
    /// (`FileReaderSync`, in the engine's worker), with its name.
    pub fn into_source(self) -> Option<(String, Rc<dyn graft::external::ReadRange>)> {
        let file = self.0.into_iter().next()?;
        let name = file.name();
        let source: Rc<dyn graft::external::ReadRange> = Rc::new(FileRanges(file));
        Some((name, source))
    }

    /// The names, comma separated, for progress messages.
    pub fn names(&self) -> String {
        self.0.iter().map(File::name).collect::<Vec<_>>().join(", ")
    }

    /// Every file's size in bytes, together.
    pub fn size(&self) -> u64 {
        self.0.iter().map(|f| f.size() as u64).sum()
    }

    /// Reads every file into memory, a slice at a time straight into the app's
    /// memory, so that no second whole copy is held on the page. `progress` hears the
    /// bytes read and the total after each slice, and stops the read by returning
    /// false.
    pub async fn read(
        self,
        progress: &mut dyn FnMut(u64, u64) -> bool,
    ) -> Result<Vec<LoadedFile>, String> {
        let total = self.size();
        let mut done = 0;
        let mut loaded = Vec::with_capacity(self.0.len());
        for file in self.0 {
            let name = file.name();
            let size = file.size() as usize;
            let failed =
                |e: JsValue| format!("{name}: could not read the file ({})", js_message(&e));
            // The reads of the next slices are under way while one is copied.
            let mut reads = std::collections::VecDeque::new();
            let mut asked = 0;
            let mut ask = |reads: &mut std::collections::VecDeque<_>| -> Result<(), String> {
                while asked < size && reads.len() < READS_AHEAD {
                    let end = (asked + READ_SLICE).min(size);
                    let slice = file
                        .slice_with_f64_and_f64(asked as f64, end as f64)
                        .map_err(failed)?;
                    reads.push_back((asked, end, JsFuture::from(slice.array_buffer())));
                    asked = end;
                }
                Ok(())
            };
            // Reserved, not zeroed: each slice zeroes and fills only its own part, so
            // no one task touches the whole file (zeroing 1 GB at once took 0.7 s).
            let mut bytes = Vec::with_capacity(size);
            ask(&mut reads)?;
            while let Some((at, end, read)) = reads.pop_front() {
                let buffer = read.await.map_err(failed)?;
                ask(&mut reads)?;
                let chunk = Uint8Array::new(&buffer);
                if chunk.length() as usize != end - at {
                    return Err(format!("{name}: the file changed while it was read"));
                }
                bytes.resize(end, 0);
                chunk.copy_to(&mut bytes[at..end]);
                done += (end - at) as u64;
                if !progress(done, total) {
                    return Err(format!("{name}: reading it was cancelled"));
                }
            }
            loaded.push(LoadedFile {
                name,
                bytes: Bytes::from(bytes),
            });
        }
        Ok(loaded)
    }
}

/// A file read a range at a time, synchronously (`FileReaderSync` exists in workers
/// only: the engine's).
struct FileRanges(File);

impl graft::external::ReadRange for FileRanges {
    fn len(&self) -> u64 {
        self.0.size() as u64
    }

    fn read(&self, start: u64, end: u64) -> Result<Bytes, String> {
        let name = self.0.name();
        let failed = |e: JsValue| format!("{name}: could not read it ({})", js_message(&e));
        let slice = self
            .0
            .slice_with_f64_and_f64(start as f64, end as f64)
            .map_err(failed)?;
        let buffer = web_sys::FileReaderSync::new()
            .and_then(|r| r.read_as_array_buffer(&slice))
            .map_err(failed)?;
        let bytes = Uint8Array::new(&buffer).to_vec();
        if bytes.len() as u64 != end - start {
            return Err(format!("{name}: the file changed since it was opened"));
        }
        Ok(Bytes::from(bytes))
    }
}

/// How much of a file is read at a time: big enough that reading costs little more
/// than the copy, small enough that a copy is a few milliseconds.
const READ_SLICE: usize = 8 << 20;
/// How many slices are being read at once.
const READS_AHEAD: usize = 3;

/// Fetches a file served beside the app (a bundled example, a `?model=` URL), reading
/// its body as a stream straight into the app's memory. `progress` hears the bytes
/// read and the total (0 when the server does not say), and stops the read by
/// returning false.
pub async fn fetch_bytes(
    url: &str,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<Bytes, String> {
    let failed = |e: JsValue| format!("could not read it ({})", js_message(&e));
    let global = js_sys::global();
    let fetch = js_sys::Reflect::get(&global, &JsValue::from_str("fetch"))
        .and_then(|f| f.dyn_into::<js_sys::Function>())
        .and_then(|f| f.call1(&global, &JsValue::from_str(url)))
        .map_err(|e| format!("could not fetch it ({})", js_message(&e)))?;
    let response = JsFuture::from(js_sys::Promise::from(fetch))
        .await
        .map_err(|e| format!("could not fetch it ({})", js_message(&e)))?;
    let response: Response = response
        .dyn_into()
        .map_err(|_| "the fetch did not return a response".to_string())?;
    if !response.ok() {
        return Err(format!("could not fetch it (HTTP {})", response.status()));
    }
    let total = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|l| l.parse::<u64>().ok())
        .unwrap_or(0);
    let Some(body) = response.body() else {
        return Ok(Bytes::new());
    };
    let reader: ReadableStreamDefaultReader = body
        .get_reader()
        .dyn_into()
        .map_err(|_| "the response's body gave no reader".to_string())?;
    // Content-Length counts encoded bytes; it is a good first capacity, not a limit.
    let mut bytes = Vec::with_capacity(usize::try_from(total).unwrap_or(0));
    loop {
        let step = JsFuture::from(reader.read()).await.map_err(failed)?;
        let done = js_sys::Reflect::get(&step, &"done".into()).map_err(failed)?;
        if done.is_truthy() {
            break;
        }
        let value = js_sys::Reflect::get(&step, &"value".into()).map_err(failed)?;
        let chunk: Uint8Array = value
            .dyn_into()
            .map_err(|_| "the response's body is not bytes".to_string())?;
        let at = bytes.len();
        bytes.resize(at + chunk.length() as usize, 0);
        chunk.copy_to(&mut bytes[at..]);
        if !progress(bytes.len() as u64, total.max(bytes.len() as u64)) {
            let _ = reader.cancel();
            return Err("reading it was cancelled".to_string());
        }
    }
    Ok(Bytes::from(bytes))
}

/// Clicks a download link for an in-memory blob (nothing leaves the machine) and
/// releases the blob's URL a little later: the browser reads it after the click
/// returns.
fn save_blob(name: &str, blob: &Blob) -> Result<(), String> {
    let url = Url::create_object_url_with_blob(blob)
        .map_err(|e| format!("could not prepare the download ({})", js_message(&e)))?;
    let anchor: HtmlAnchorElement = window()
        .document()
        .and_then(|d| d.create_element("a").ok())
        .and_then(|a| a.dyn_into().ok())
        .ok_or_else(|| "could not prepare the download (no document)".to_string())?;
    anchor.set_href(&url);
    anchor.set_download(name);
    anchor.click();
    set_timeout(
        move || {
            let _ = Url::revoke_object_url(&url);
        },
        Duration::from_secs(30),
    );
    Ok(())
}

/// Listens for files dragged over and dropped anywhere on the page. `on_hover(true)`
/// when files enter the window, `on_hover(false)` when they leave or are dropped, and
/// `on_drop` with the dropped files and the `data-drop` value of the element they were
/// dropped on (or its nearest ancestor with one). The listeners live as long as the
/// page.
pub fn on_file_drop(
    on_hover: impl Fn(bool) + 'static,
    on_drop: impl Fn(PickedFiles, Option<String>) + 'static,
) {
    let on_hover = Rc::new(on_hover);
    // dragenter/dragleave fire for every element crossed; count them to know when the
    // drag has left the window.
    let depth = Rc::new(Cell::new(0u32));
    {
        let (depth, on_hover) = (depth.clone(), on_hover.clone());
        window_event_listener(ev::dragenter, move |e| {
            if carries_files(&e) {
                e.prevent_default();
                depth.set(depth.get() + 1);
                on_hover(true);
            }
        });
    }
    window_event_listener(ev::dragover, move |e| {
        if carries_files(&e) {
            // Without this the browser navigates to the dropped file.
            e.prevent_default();
            if let Some(dt) = e.data_transfer() {
                dt.set_drop_effect("copy");
            }
        }
    });
    {
        let (depth, on_hover) = (depth.clone(), on_hover.clone());
        window_event_listener(ev::dragleave, move |e| {
            if carries_files(&e) {
                depth.set(depth.get().saturating_sub(1));
                if depth.get() == 0 {
                    on_hover(false);
                }
            }
        });
    }
    window_event_listener(ev::drop, move |e| {
        if !carries_files(&e) {
            return;
        }
        e.prevent_default();
        depth.set(0);
        on_hover(false);
        let files = PickedFiles::from_list(e.data_transfer().and_then(|dt| dt.files()));
        let zone = e
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|el| el.closest("[data-drop]").ok().flatten())
            .and_then(|el| el.get_attribute("data-drop"));
        if !files.is_empty() {
            on_drop(files, zone);
        }
    });
}

fn carries_files(event: &ev::DragEvent) -> bool {
    event
        .data_transfer()
        .is_some_and(|dt| dt.types().includes(&JsValue::from_str("Files"), 0))
}

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

/// A message from the engine: the update's JSON, the drawings beside it (main graph,
/// other model), and bytes (a download).
pub struct FromEngine {
    pub json: String,
    pub svg: Option<String>,
    pub other: Option<String>,
    pub bytes: Option<Vec<u8>>,
}

/// The engine's worker, seen from the page. Requests posted before it has started
/// wait in a queue.
pub struct EngineWorker {
    worker: web_sys::Worker,
    started: Rc<Cell<bool>>,
    queue: Rc<std::cell::RefCell<Vec<JsValue>>>,
}

/// The message the worker sends once it listens.
const STARTED: &str = "graft-engine-started";

impl EngineWorker {
    /// Starts the engine: a module worker that loads this same wasm module (the
    /// compiled module is handed over, not fetched or compiled again) and runs its
    /// `main`, which sees no window and serves requests (`state::engine`).
    pub fn start(
        on_message: impl Fn(FromEngine) + 'static,
        on_error: impl Fn(String) + 'static,
    ) -> Result<Self, String> {
        let failed = |e: JsValue| format!("could not start the engine ({})", js_message(&e));
        let glue = document()
            .query_selector("link[rel=modulepreload]")
            .map_err(failed)?
            .and_then(|l| js_sys::Reflect::get(&l, &JsValue::from_str("href")).ok())
            .and_then(|h| h.as_string())
            .ok_or("could not start the engine (the app's script is not linked)")?;
        let script = format!(
            "import init from {glue:?};\
             self.onmessage = (e) => {{ self.onmessage = null; init({{ module_or_path: e.data }}); }};"
        );
        let options = BlobPropertyBag::new();
        options.set_type("text/javascript");
        let blob = Blob::new_with_str_sequence_and_options(
            &Array::of1(&JsValue::from_str(&script)),
            &options,
        )
        .map_err(failed)?;
        let url = Url::create_object_url_with_blob(&blob).map_err(failed)?;
        let worker_options = web_sys::WorkerOptions::new();
        worker_options.set_type(web_sys::WorkerType::Module);
        let worker = web_sys::Worker::new_with_options(&url, &worker_options).map_err(failed)?;
        let started = Rc::new(Cell::new(false));
        let queue: Rc<std::cell::RefCell<Vec<JsValue>>> = Rc::default();
        // What the engine said of its panic; the banner shows it when it stops,
        // whichever of the two the page hears first.
        let on_error = Rc::new(on_error);
        let panicked: Rc<std::cell::RefCell<Option<String>>> = Rc::default();
        let stopped: Rc<std::cell::RefCell<Option<String>>> = Rc::default();
        {
            let (started, queue, target) = (started.clone(), queue.clone(), worker.clone());
            let (on_error, panicked, stopped) =
                (on_error.clone(), panicked.clone(), stopped.clone());
            let handler =
                Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
                    let data = e.data();
                    if let Some(text) = js_sys::Reflect::get(&data, &JsValue::from_str(PANIC))
                        .ok()
                        .and_then(|v| v.as_string())
                    {
                        let stop = stopped.borrow().clone();
                        if let Some(stop) = stop {
                            on_error(format!("{stop}; {text}"));
                        }
                        *panicked.borrow_mut() = Some(text);
                        return;
                    }
                    if data.as_string().as_deref() == Some(STARTED) {
                        started.set(true);
                        for message in queue.borrow_mut().drain(..) {
                            let _ = target.post_message(&message);
                        }
                        return;
                    }
                    let text = |key: &str| {
                        js_sys::Reflect::get(&data, &JsValue::from_str(key))
                            .ok()
                            .and_then(|v| v.as_string())
                    };
                    let bytes = js_sys::Reflect::get(&data, &JsValue::from_str("bytes"))
                        .ok()
                        .and_then(|v| v.dyn_into::<Uint8Array>().ok())
                        .map(|a| a.to_vec());
                    on_message(FromEngine {
                        json: text("json").unwrap_or_default(),
                        svg: text("svg"),
                        other: text("other"),
                        bytes,
                    });
                });
            worker.set_onmessage(Some(handler.as_ref().unchecked_ref()));
            handler.forget();
        }
        // The engine failed (a crash in its code): say so on the page.
        let failure = Closure::<dyn Fn(web_sys::ErrorEvent)>::new(move |e: web_sys::ErrorEvent| {
            log_error(&format!("engine: {}", e.message()));
            *stopped.borrow_mut() = Some(e.message());
            let panic = panicked.borrow().clone();
            match panic {
                Some(text) => on_error(format!("{}; {text}", e.message())),
                None => on_error(e.message()),
            }
        });
        worker.set_onerror(Some(failure.as_ref().unchecked_ref()));
        failure.forget();
        worker
            .post_message(&wasm_bindgen::module())
            .map_err(failed)?;
        Ok(Self {
            worker,
            started,
            queue,
        })
    }

    /// Stops the worker.
    pub fn terminate(&self) {
        self.worker.terminate();
    }

    /// Sends a request's JSON, with the picked files beside it (the browser passes
    /// `File` objects by reference: nothing is read on the page).
    pub fn post(&self, json: &str, files: Option<PickedFiles>) {
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"json".into(), &JsValue::from_str(json));
        let list = Array::new();
        for file in files.map(|f| f.0).unwrap_or_default() {
            list.push(&file);
        }
        let _ = js_sys::Reflect::set(&message, &"files".into(), &list);
        if self.started.get() {
            let _ = self.worker.post_message(&message);
        } else {
            self.queue.borrow_mut().push(message.into());
        }
    }
}

/// In the worker: calls `f` with each request's JSON and files, and tells the page it
/// listens.
pub fn worker_listen(f: impl Fn(String, Vec<File>) + 'static) {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let handler = Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |e: web_sys::MessageEvent| {
        let data = e.data();
        let json = js_sys::Reflect::get(&data, &JsValue::from_str("json"))
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        let files = js_sys::Reflect::get(&data, &JsValue::from_str("files"))
            .ok()
            .and_then(|v| v.dyn_into::<Array>().ok())
            .map(|a| a.iter().filter_map(|f| f.dyn_into::<File>().ok()).collect())
            .unwrap_or_default();
        f(json, files);
    });
    scope.set_onmessage(Some(handler.as_ref().unchecked_ref()));
    handler.forget();
    let _ = scope.post_message(&JsValue::from_str(STARTED));
}

/// In the worker: sends an update's JSON to the page, with the drawings and bytes
/// beside it (the bytes' buffer is handed over, not copied).
pub fn worker_post(json: &str, svg: Option<String>, other: Option<String>, bytes: Option<Vec<u8>>) {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let message = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&message, &"json".into(), &JsValue::from_str(json));
    if let Some(svg) = svg {
        let _ = js_sys::Reflect::set(&message, &"svg".into(), &JsValue::from_str(&svg));
    }
    if let Some(other) = other {
        let _ = js_sys::Reflect::set(&message, &"other".into(), &JsValue::from_str(&other));
    }
    let transfer = Array::new();
    if let Some(bytes) = bytes {
        let array = Uint8Array::from(bytes.as_slice());
        transfer.push(&array.buffer());
        let _ = js_sys::Reflect::set(&message, &"bytes".into(), &array);
    }
    if let Err(e) = scope.post_message_with_transfer(&message, &transfer) {
        log_error(&format!(
            "engine: cannot send an update ({})",
            js_message(&e)
        ));
    }
}

/// onnxruntime-web, loaded in the engine's worker the first time the user runs a
/// model: the module `assets/runtime/graft-runtime.js` (at `bridge`, an absolute
/// address of the app's origin) that wraps it.
pub struct Runtime {
    bridge: JsValue,
    pub version: String,
}

/// Calls `module[name](args…)` and awaits the promise it gives.
async fn call_async(module: &JsValue, name: &str, args: &Array) -> Result<JsValue, String> {
    let function = js_sys::Reflect::get(module, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| format!("the runtime bridge has no {name}"))?;
    let promise = function.apply(module, args).map_err(|e| js_message(&e))?;
    JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| js_message(&e))
}

impl Runtime {
    /// Imports the bridge at `bridge` and onnxruntime-web from the directory `ort`.
    pub async fn load(bridge: &str, ort: &str) -> Result<Self, String> {
        let import = js_sys::Function::new_with_args("url", "return import(url)");
        let module = import
            .call1(&JsValue::NULL, &JsValue::from_str(bridge))
            .map_err(|e| js_message(&e))?;
        let bridge = JsFuture::from(js_sys::Promise::from(module))
            .await
            .map_err(|e| {
                format!(
                    "the runtime is not in this build ({}); `cargo xtask serve` builds it",
                    js_message(&e)
                )
            })?;
        let version = call_async(&bridge, "load", &Array::of1(&JsValue::from_str(ort)))
            .await
            .map_err(|e| format!("onnxruntime-web did not load ({e})"))?;
        Ok(Self {
            bridge,
            version: version.as_string().unwrap_or_default(),
        })
    }

    /// Runs `model` (named by `key`: the same key reuses the session) on `inputs` and
    /// gives the `outputs` asked for, with the run's time in milliseconds.
    pub async fn run(
        &self,
        key: &str,
        model: &[u8],
        inputs: &[(String, graft::ir::Tensor)],
        outputs: &[String],
    ) -> Result<(f64, Vec<(String, graft::ir::Tensor)>), String> {
        let feeds = Array::new();
        for (name, tensor) in inputs {
            let dtype = graft::values::numpy_name(tensor.data_type())
                .ok_or_else(|| format!("input {name}: this element type cannot be run"))?;
            let bytes = tensor
                .raw_data
                .as_ref()
                .ok_or_else(|| format!("input {name}: its values are not raw bytes"))?;
            let o = js_sys::Object::new();
            let dims: Array = tensor
                .dims
                .iter()
                .map(|&d| JsValue::from_f64(d as f64))
                .collect();
            let _ = js_sys::Reflect::set(&o, &"name".into(), &JsValue::from_str(name));
            let _ = js_sys::Reflect::set(&o, &"dtype".into(), &JsValue::from_str(dtype));
            let _ = js_sys::Reflect::set(&o, &"dims".into(), &dims);
            let _ = js_sys::Reflect::set(&o, &"bytes".into(), &Uint8Array::from(&bytes[..]));
            feeds.push(&o);
        }
        let names: Array = outputs.iter().map(|n| JsValue::from_str(n)).collect();
        let args = Array::of4(
            &JsValue::from_str(key),
            &Uint8Array::from(model),
            &feeds,
            &names,
        );
        let result = call_async(&self.bridge, "run", &args).await?;
        let field = |o: &JsValue, k: &str| {
            js_sys::Reflect::get(o, &JsValue::from_str(k)).unwrap_or(JsValue::UNDEFINED)
        };
        let ms = field(&result, "ms").as_f64().unwrap_or(0.0);
        let mut out = Vec::new();
        for o in Array::from(&field(&result, "outputs")).iter() {
            let name = field(&o, "name").as_string().unwrap_or_default();
            let dtype = field(&o, "dtype").as_string().unwrap_or_default();
            let data_type = graft::values::from_numpy_name(&dtype).ok_or_else(|| {
                format!("output {name} is a {dtype} tensor; only numbers can be shown")
            })?;
            let dims = Array::from(&field(&o, "dims"))
                .iter()
                .map(|d| d.as_f64().unwrap_or(0.0) as i64)
                .collect();
            let bytes = Uint8Array::new(&field(&o, "bytes")).to_vec();
            let tensor = graft::ir::Tensor {
                dims,
                data_type: Some(data_type),
                raw_data: Some(Bytes::from(bytes)),
                ..graft::ir::Tensor::default()
            };
            out.push((name, tensor));
        }
        Ok((ms, out))
    }
}
