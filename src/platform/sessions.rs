//! The kept sessions' store: IndexedDB, through the module the app serves at
//! `sessions/graft-sessions.js` (`assets/sessions/`), imported on first use. Records
//! cross as JSON; a session's files as `File` objects (the browser stores and gives
//! back the files themselves, not copies read into the page).

use std::cell::RefCell;

use js_sys::Array;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::{PickedFiles, absolute_url, js_message};

/// Where the module is served.
const MODULE: &str = "sessions/graft-sessions.js";

thread_local! {
    static LOADED: RefCell<Option<JsValue>> = const { RefCell::new(None) };
}

/// The module, imported once.
async fn module() -> Result<JsValue, String> {
    if let Some(module) = LOADED.with(|m| m.borrow().clone()) {
        return Ok(module);
    }
    let import = js_sys::Function::new_with_args("url", "return import(url)");
    let promise = import
        .call1(&JsValue::NULL, &JsValue::from_str(&absolute_url(MODULE)))
        .map_err(|e| js_message(&e))?;
    let module = JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| format!("the session store did not load ({})", js_message(&e)))?;
    LOADED.with(|m| *m.borrow_mut() = Some(module.clone()));
    Ok(module)
}

/// Calls the module's `name(args…)` and awaits it.
async fn call(name: &str, args: &[JsValue]) -> Result<JsValue, String> {
    let module = module().await?;
    let function = js_sys::Reflect::get(&module, &JsValue::from_str(name))
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
        .ok_or_else(|| format!("the session store has no {name}"))?;
    let args: Array = args.iter().collect();
    let promise = function.apply(&module, &args).map_err(|e| js_message(&e))?;
    JsFuture::from(js_sys::Promise::from(promise))
        .await
        .map_err(|e| js_message(&e))
}

fn parse(json: &str) -> Result<JsValue, String> {
    js_sys::JSON::parse(json).map_err(|e| js_message(&e))
}

fn stringify(value: &JsValue) -> Result<String, String> {
    js_sys::JSON::stringify(value)
        .map_err(|e| js_message(&e))?
        .as_string()
        .ok_or_else(|| "a kept record does not read".to_string())
}

fn files_array(files: &PickedFiles) -> Array {
    files.0.iter().collect()
}

/// A new session's id: the time and a random part, so that tabs opened together do
/// not share one.
pub fn new_id() -> String {
    let random = (js_sys::Math::random() * f64::from(u32::MAX)) as u32;
    format!("{:x}-{random:08x}", js_sys::Date::now() as u64)
}

/// `ms` (since the epoch) as the user's locale writes a date and time.
pub fn when(ms: f64) -> String {
    js_sys::Date::new(&JsValue::from_f64(ms))
        .to_locale_string("default", &JsValue::UNDEFINED)
        .into()
}

/// Keeps (or replaces) a session's record, given as JSON.
pub async fn save(record: &str) -> Result<(), String> {
    call("save", &[parse(record)?]).await.map(drop)
}

/// Keeps a session's files (their names, sizes and fingerprints; the files too when
/// together they are at most `limit` bytes); whether the files were kept.
pub async fn save_files(id: &str, files: &PickedFiles, limit: u64) -> Result<bool, String> {
    let kept = call(
        "saveFiles",
        &[id.into(), files_array(files).into(), (limit as f64).into()],
    )
    .await?;
    Ok(kept.as_bool() == Some(true))
}

/// A kept session: its record's JSON, its files' names, sizes and fingerprints
/// (JSON), and the files when they were kept.
pub struct Loaded {
    pub record: String,
    pub infos: String,
    pub files: Option<PickedFiles>,
}

/// The session `id`, if it is kept.
pub async fn load(id: &str) -> Result<Option<Loaded>, String> {
    let value = call("load", &[id.into()]).await?;
    if value.is_null() || value.is_undefined() {
        return Ok(None);
    }
    let field = |name: &str| js_sys::Reflect::get(&value, &JsValue::from_str(name));
    let record = stringify(&field("record").map_err(|e| js_message(&e))?)?;
    let infos = stringify(&field("infos").map_err(|e| js_message(&e))?)?;
    let blobs = field("blobs").map_err(|e| js_message(&e))?;
    let files = blobs.dyn_into::<Array>().ok().map(|list| {
        PickedFiles::from_files(list.iter().filter_map(|f| f.dyn_into().ok()).collect())
    });
    Ok(Some(Loaded {
        record,
        infos,
        files,
    }))
}

/// Every kept session and the storage in use, as the module's `list` writes it.
pub async fn list() -> Result<String, String> {
    call("list", &[])
        .await?
        .as_string()
        .ok_or_else(|| "the session list does not read".to_string())
}

pub async fn discard(id: &str) -> Result<(), String> {
    call("discard", &[id.into()]).await.map(drop)
}

/// Drops the sessions with no edits but `keep`, and the oldest beyond `max`.
pub async fn prune(keep: &str, max: usize) -> Result<(), String> {
    call("prune", &[keep.into(), (max as f64).into()])
        .await
        .map(drop)
}

/// Each file's fingerprint, as [`save_files`] keeps it.
pub async fn fingerprints(files: &PickedFiles) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for file in &files.0 {
        let hash = call("fingerprint", &[file.clone().into()]).await?;
        out.push(hash.as_string().unwrap_or_default());
    }
    Ok(out)
}
