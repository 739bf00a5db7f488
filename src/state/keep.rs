//! The kept session, so that no edit is lost: after every change to the edit log
//! (and, a little later, to the view) the page writes the open that brought the
//! model, its edit log and the view to the browser's store (`platform::sessions`).
//! A reload, a crash or a closed tab can then restore it: the same open, the same
//! edits replayed, so the same bytes. Chosen files are kept with their session up to
//! [`FILES_LIMIT`]; above it only their fingerprints are, and the page asks for the
//! file again. Also here: the hooks scripts drive the editor by (`__graftApply`,
//! `__graftExport`).

use std::cell::RefCell;

use serde::{Deserialize, Serialize};

use leptos::prelude::*;

use super::AppState;
use super::protocol::Request;
use crate::platform::{self, PickedFiles, sessions};

/// Chosen files are kept with their session when together they are at most this
/// many bytes (`?keeplimit=BYTES` sets another, for tests).
pub const FILES_LIMIT: u64 = 100 << 20;
/// How many sessions with edits are kept (the newest).
pub const SESSIONS_KEPT: usize = 10;
/// A change of the view alone is written this long after it settles.
const VIEW_DELAY_MS: u64 = 300;
/// The session the user chose not to restore (not offered again).
const DECLINED_KEY: &str = "graft.restoreDeclined";

#[derive(Default)]
struct Keep {
    /// The session the open model is kept as; none while nothing is to be written
    /// (the engine stopped, its log not yet given back).
    id: Option<String>,
    /// The session the next open continues (a restore, a restarted engine).
    restoring: Option<String>,
    /// Whether a write is waiting: soon (a log change), later (a view change).
    soon: bool,
    later: bool,
}

thread_local! {
    static KEEP: RefCell<Keep> = RefCell::default();
}

/// A kept session, as the store holds it.
#[derive(Serialize, Deserialize)]
struct Record {
    id: String,
    name: String,
    /// When it was written (ms since the epoch; the store sets it).
    #[serde(default)]
    saved: f64,
    open: Request,
    /// Each edit's JSON, as the edit log has it.
    log: Vec<String>,
    /// The URL fragment of the view (open groups, selection, camera).
    view: Option<String>,
}

/// A chosen file of a kept session.
#[derive(Deserialize, Clone, PartialEq, Debug)]
pub struct FileInfo {
    pub name: String,
    pub size: f64,
    pub hash: String,
}

/// A kept session, as the list shows it.
#[derive(Deserialize, Clone, PartialEq, Debug)]
pub struct Kept {
    pub id: String,
    pub name: String,
    pub saved: f64,
    pub edits: usize,
    pub log_bytes: f64,
    pub files: Vec<FileInfo>,
    /// Whether the files are kept too (else the page asks for them).
    pub files_kept: bool,
}

/// Every kept session, the newest first, and the site's storage use and quota
/// (bytes) when the browser says.
#[derive(Deserialize, Clone, PartialEq, Debug, Default)]
pub struct KeptList {
    pub sessions: Vec<Kept>,
    pub usage: Option<f64>,
    pub quota: Option<f64>,
}

impl Kept {
    /// Whether it is the session of the open model.
    pub fn is_current(&self) -> bool {
        KEEP.with(|k| k.borrow().id.as_deref() == Some(self.id.as_str()))
    }
}

/// The limit in force: [`FILES_LIMIT`] unless `?keeplimit=` says another.
pub fn files_limit() -> u64 {
    platform::query_parameter("keeplimit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(FILES_LIMIT)
}

/// A model opened: it is kept from now on, as a new session unless it continues one
/// (a restore, a restarted engine). A new session's files are kept.
pub(super) fn opened(state: AppState) {
    let (id, fresh) = KEEP.with(|k| {
        let mut k = k.borrow_mut();
        let (id, fresh) = match k.restoring.take() {
            Some(id) => (id, false),
            None => (sessions::new_id(), true),
        };
        k.id = Some(id.clone());
        (id, fresh)
    });
    if fresh {
        let files = match state.kept() {
            Some((Request::OpenFiles, files, _)) => files,
            _ => None,
        };
        wasm_bindgen_futures::spawn_local(async move {
            if let Some(files) = files
                && let Err(e) = sessions::save_files(&id, &files, files_limit()).await
            {
                platform::log_error(&format!("the session's files were not kept: {e}"));
            }
            if let Err(e) = sessions::prune(&id, SESSIONS_KEPT).await {
                platform::log_error(&format!("old sessions were not pruned: {e}"));
            }
        });
    }
    changed(state);
}

/// The edit log changed: written on the next turn.
pub(super) fn changed(state: AppState) {
    schedule(state, false);
}

/// The view changed: written once it settles.
pub fn view_changed(state: AppState) {
    schedule(state, true);
}

/// The engine stopped and took the log the page keeps with it: nothing is written
/// until the new engine gives it back (when `restarting`; else until another open).
pub(super) fn engine_stopped(restarting: bool) {
    KEEP.with(|k| {
        let mut k = k.borrow_mut();
        let id = k.id.take();
        k.restoring = if restarting { id } else { None };
    });
}

fn schedule(state: AppState, later: bool) {
    let wait = KEEP.with(|k| {
        let mut k = k.borrow_mut();
        let flag = if later { &mut k.later } else { &mut k.soon };
        !std::mem::replace(flag, true)
    });
    if wait {
        platform::after_ms(if later { VIEW_DELAY_MS } else { 0 }, move || {
            KEEP.with(|k| {
                let mut k = k.borrow_mut();
                *(if later { &mut k.later } else { &mut k.soon }) = false;
            });
            write(state);
        });
    }
}

/// Writes the open model's session.
fn write(state: AppState) {
    let Some(id) = KEEP.with(|k| k.borrow().id.clone()) else {
        return;
    };
    let Some((open, _, log)) = state.kept() else {
        return;
    };
    // A view still to be restored is the view.
    let view = state.initial_view.get_value().or_else(platform::fragment);
    let record = Record {
        id,
        name: state.name.get_untracked().unwrap_or_default(),
        saved: 0.0,
        open,
        log,
        view,
    };
    let Ok(json) = serde_json::to_string(&record) else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = sessions::save(&json).await {
            platform::log_error(&format!("the session was not kept: {e}"));
        }
    });
}

/// Every kept session.
pub async fn list() -> Result<KeptList, String> {
    let json = sessions::list().await?;
    serde_json::from_str(&json).map_err(|e| format!("the session list does not read: {e}"))
}

pub async fn discard(id: &str) -> Result<(), String> {
    sessions::discard(id).await
}

/// The session to offer to restore: the newest with edits that is not the open
/// model's and was not declined.
pub async fn offer() -> Option<Kept> {
    let declined = platform::remembered(DECLINED_KEY);
    let current = KEEP.with(|k| {
        let k = k.borrow();
        [k.id.clone(), k.restoring.clone()]
    });
    list()
        .await
        .map_err(|e| platform::log_error(&format!("the kept sessions do not read: {e}")))
        .ok()?
        .sessions
        .into_iter()
        .find(|s| {
            s.edits > 0
                && declined.as_deref() != Some(s.id.as_str())
                && !current.iter().flatten().any(|c| *c == s.id)
        })
}

/// The user chose not to restore `id`: it is not offered again (it stays listed).
pub fn decline(id: &str) {
    platform::remember(DECLINED_KEY, id);
}

/// How a restore went on.
pub enum Restoring {
    /// The model is opening; its edits are applied once it is in.
    Started,
    /// The session's files were not kept: the user must choose them again.
    NeedsFiles(Vec<FileInfo>),
}

/// Restores the kept session `id`: opens its model as it was opened (from `chosen`
/// when the user gave its files again: they must be the same files, by
/// fingerprint), replays its edit log and restores its view. The session goes on
/// as the open model's.
pub async fn restore(
    state: AppState,
    id: &str,
    chosen: Option<PickedFiles>,
) -> Result<Restoring, String> {
    let loaded = sessions::load(id)
        .await?
        .ok_or("That session is no longer kept.")?;
    let record: Record = serde_json::from_str(&loaded.record)
        .map_err(|e| format!("The kept session does not read: {e}"))?;
    let infos: Vec<FileInfo> = serde_json::from_str(&loaded.infos).unwrap_or_default();
    let files = match (&record.open, loaded.files, chosen) {
        (Request::OpenFiles, _, Some(chosen)) => {
            let mut given = sessions::fingerprints(&chosen).await?;
            let mut wanted: Vec<String> = infos.iter().map(|f| f.hash.clone()).collect();
            given.sort();
            wanted.sort();
            if given != wanted {
                let names: Vec<&str> = infos.iter().map(|f| f.name.as_str()).collect();
                return Err(format!(
                    "Those are not the files this session was made from ({}): their \
                     fingerprints differ. Nothing was restored.",
                    names.join(", ")
                ));
            }
            Some(chosen)
        }
        (Request::OpenFiles, Some(kept), None) if !kept.is_empty() => Some(kept),
        (Request::OpenFiles, _, None) => return Ok(Restoring::NeedsFiles(infos)),
        _ => None,
    };
    KEEP.with(|k| k.borrow_mut().restoring = Some(record.id.clone()));
    state.initial_view.set_value(record.view);
    state.open_with_log(record.open, files, &record.log);
    Ok(Restoring::Started)
}

/// `?restore`: restores the newest kept session with edits without asking; whether
/// one was (a session whose files must be chosen again is not).
pub async fn restore_latest(state: AppState) -> bool {
    let Ok(list) = list().await else {
        return false;
    };
    let Some(latest) = list.sessions.into_iter().find(|s| s.edits > 0) else {
        return false;
    };
    matches!(
        restore(state, &latest.id, None).await,
        Ok(Restoring::Started)
    )
}

/// The hooks scripts drive the editor by:
/// - `window.__graftApply(log)`: applies an edit log (a JSON array of edits, as
///   `graft apply` reads, given as text or as the array), all of it or none, each
///   edit undoable; resolves to `{status: "ok", applied}` or
///   `{status: "error", message, index}` (`index`: the edit at fault, from 0, or
///   null when the log itself is);
/// - `window.__graftExport()`: resolves to the open model's bytes (a `Uint8Array`),
///   as Export saves them; rejects with why not.
pub fn expose_hooks(state: AppState) {
    platform::expose_promise("__graftApply", move |log, settle| {
        let Some(log) = log else {
            let json =
                serde_json::json!({"status": "error", "message": "no log given", "index": null});
            settle.json(&json.to_string());
            return;
        };
        state.apply_log(log, move |result| {
            let json = match result {
                Ok(applied) => serde_json::json!({"status": "ok", "applied": applied}),
                Err((index, message)) => {
                    serde_json::json!({"status": "error", "message": message, "index": index})
                }
            };
            settle.json(&json.to_string());
        });
    });
    platform::expose_promise("__graftExport", move |_, settle| {
        state.model_bytes(move |result| match result {
            Ok(bytes) => settle.bytes(&bytes),
            Err(message) => settle.fail(&message),
        });
    });
}
