//! Files: what the user picked or dropped (read whole, or in ranges for the tensors
//! an export needs), fetched URLs with progress, and saving bytes as a download.

use std::cell::Cell;
use std::rc::Rc;

use super::*;

/// A file's name and contents, read into memory.
#[derive(Clone, Debug)]
pub struct LoadedFile {
    pub name: String,
    pub bytes: Bytes,
}

/// Files the user chose or dropped, not read yet.
#[derive(Clone)]
pub struct PickedFiles(pub(super) Vec<File>);

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
pub(super) struct FileRanges(File);

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
pub(super) const READ_SLICE: usize = 8 << 20;
/// How many slices are being read at once.
pub(super) const READS_AHEAD: usize = 3;

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
pub(super) fn save_blob(name: &str, blob: &Blob) -> Result<(), String> {
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

pub(super) fn carries_files(event: &ev::DragEvent) -> bool {
    event
        .data_transfer()
        .is_some_and(|dt| dt.types().includes(&JsValue::from_str("Files"), 0))
}
