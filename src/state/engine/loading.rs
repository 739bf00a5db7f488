//! Opening in the engine: fetching a URL, reading chosen files with progress, and
//! the open in stages (decode, check, infer, view, layout), each a yield point so a
//! Cancel is taken between two of them.

use super::*;

/// Fetches `url` as the file `name` for the load `ticket`, showing the bytes read.
pub(super) async fn fetch(
    ticket: Ticket,
    name: String,
    url: &str,
) -> Result<Vec<LoadedFile>, String> {
    let bytes = platform::fetch_bytes(url, &mut read_progress(ticket, &name))
        .await
        .map_err(|e| format!("{name}: {e}"))?;
    Ok(vec![LoadedFile { name, bytes }])
}

/// The progress of reading `what` for the load `ticket`: it shows the bytes read (at
/// most every 50 ms), and stops the read once the load is cancelled or replaced.
pub(super) fn read_progress(ticket: Ticket, what: &str) -> impl FnMut(u64, u64) -> bool + use<> {
    let what = what.to_string();
    let mut shown = f64::NEG_INFINITY;
    move |done, total| {
        let now = platform::now_ms();
        if now - shown < 50.0 && done < total {
            return with(|e| e.session.is_current(ticket));
        }
        shown = now;
        let note = format!(
            "Reading {what}: {} of {}…",
            crate::format::bytes(done),
            crate::format::bytes(total)
        );
        let current = change(|s| s.progress(ticket, note));
        progress();
        current
    }
}

/// Opens the model among `files` for the load `ticket` (request `seq`) in stages
/// (decode, check, infer, lay out), each a turn of the worker's event loop, so that a
/// Cancel or a later open stops it between two of them and the open model stays as
/// it was. The model opens, or its error shows, once all are done.
pub(super) async fn load(
    seq: u64,
    ticket: Ticket,
    name: &str,
    origin: Origin,
    files: Result<ModelFile, String>,
    beside: Beside,
) {
    let started = platform::now_ms();
    let opened = stages(ticket, name, origin, files, beside).await;
    // A kept log belongs to this open: applied if it opened, else dropped.
    let restore = with(|e| e.restore.take());
    if let Some(opened) = opened {
        let shown = platform::now_ms();
        let fine = change(|s| {
            s.finish_open(ticket, opened);
            s.error().is_none()
        });
        if let Some((log, note)) = restore.filter(|_| fine) {
            change(|s| s.restore(&log, note));
        }
        platform::publish_timing("open_show_ms", platform::now_ms() - shown);
        platform::publish_timing("open_ms", platform::now_ms() - started);
    }
    with(|e| e.done.push(seq));
    send(None, true, None);
}

/// Where the data files of a model being opened come from: given with it (files
/// from this machine), or fetched from beside its URL.
pub(super) enum Beside {
    Files(DataSources),
    Url(String),
}

/// The stages of [`load`]; `None` when the load stopped being current. Each stage's
/// time is published (`open_decode_ms`…) for the browser benchmark.
pub(super) async fn stages(
    ticket: Ticket,
    name: &str,
    origin: Origin,
    files: Result<ModelFile, String>,
    beside: Beside,
) -> Option<Result<OpenModel, String>> {
    fn timed<T>(stage: &str, f: impl FnOnce() -> T) -> T {
        let started = platform::now_ms();
        let out = f();
        platform::publish_timing(&format!("open_{stage}_ms"), platform::now_ms() - started);
        out
    }
    if !stage(ticket, format!("Decoding {name}…")).await {
        return None;
    }
    let (sources, url) = match beside {
        Beside::Files(sources) => (sources, None),
        Beside::Url(url) => (Vec::new(), Some(url)),
    };
    let decoded = timed("decode", || {
        files.and_then(|files| Loading::decode(files, sources, origin))
    });
    let mut loading = match decoded {
        Ok(loading) => loading,
        Err(message) => return Some(Err(message)),
    };
    // A model fetched from the page's origin has its data files beside it there, as
    // on disk: each is read now (one the server does not have is left missing, and
    // the checker says which).
    if let Some(url) = url {
        let base = &url[..url.rfind('/').map_or(0, |k| k + 1)];
        for location in loading.model.external_locations() {
            if !stage(ticket, format!("Reading {location}…")).await {
                return None;
            }
            let read = &mut read_progress(ticket, &location);
            if let Ok(bytes) = platform::fetch_bytes(&format!("{base}{location}"), read).await {
                loading.model.attach_external(location, bytes);
            }
        }
    }
    let nodes = crate::format::count(loading.nodes() as u64);
    if !stage(ticket, format!("Checking {nodes} nodes…")).await {
        return None;
    }
    timed("check", || loading.check());
    if !stage(ticket, format!("Inferring the types of {nodes} nodes…")).await {
        return None;
    }
    timed("infer", || loading.infer());
    if !stage(ticket, format!("Laying out {name}…")).await {
        return None;
    }
    Some(Ok(timed("layout", || loading.lay_out())))
}

/// Shows `what` as the load's progress and yields a turn, so that a Cancel sent
/// meanwhile is taken. False when the load is no longer current.
pub(super) async fn stage(ticket: Ticket, what: String) -> bool {
    if !change(|s| s.progress(ticket, what)) {
        return false;
    }
    progress();
    platform::next_turn().await;
    with(|e| e.session.is_current(ticket))
}
