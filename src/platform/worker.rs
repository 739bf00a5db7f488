//! The engine's worker from the page's side (start, post, restart) and from the
//! worker's (listen, post back), and onnxruntime-web loaded in the worker.

use std::cell::Cell;
use std::rc::Rc;

use super::*;

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
pub(super) const STARTED: &str = "graft-engine-started";

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
pub(super) async fn call_async(
    module: &JsValue,
    name: &str,
    args: &Array,
) -> Result<JsValue, String> {
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
