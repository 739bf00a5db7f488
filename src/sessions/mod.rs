//! Kept sessions (`state::keep`): the offer to restore the last one after a reload,
//! a crash or a closed tab, which asks for a file too large to have been kept; and
//! the Sessions dialog, which lists every kept session, restores or discards each,
//! and says how much storage they use.

use leptos::prelude::*;

use crate::format;
use crate::platform::{self, PickedFiles};
use crate::state::AppState;
use crate::state::keep::{self, FileInfo, Kept, KeptList, Restoring};

/// What the offer and the dialog show, shared through context.
#[derive(Clone, Copy)]
pub struct SessionsUi {
    /// The session offered for restoring.
    offer: RwSignal<Option<Kept>>,
    /// A session whose files must be chosen again, and what they were.
    asking: RwSignal<Option<(String, Vec<FileInfo>)>>,
    /// Why a restore failed.
    message: RwSignal<Option<String>>,
    /// Whether the Sessions dialog is open.
    pub dialog: RwSignal<bool>,
    list: RwSignal<Option<KeptList>>,
}

/// Opens the startup model with `open`, or (`?restore`) the newest kept session
/// without asking, falling back to `open`; then offers the last session with edits.
/// Installs the scripts' hooks.
pub fn start(state: AppState, open: impl FnOnce() + 'static) {
    let ui = SessionsUi {
        offer: RwSignal::new(None),
        asking: RwSignal::new(None),
        message: RwSignal::new(None),
        dialog: RwSignal::new(false),
        list: RwSignal::new(None),
    };
    provide_context(ui);
    keep::expose_hooks(state);
    let restore = platform::query_parameter("restore").is_some();
    let mut open = Some(open);
    if !restore && let Some(open) = open.take() {
        open();
    }
    wasm_bindgen_futures::spawn_local(async move {
        if let Some(open) = open {
            if keep::restore_latest(state).await {
                return;
            }
            open();
        }
        if let Some(kept) = keep::offer().await {
            ui.offer.set(Some(kept));
        }
    });
}

/// Restores the session `id` (from `chosen` files when given again).
fn restore(state: AppState, ui: SessionsUi, id: String, chosen: Option<PickedFiles>) {
    wasm_bindgen_futures::spawn_local(async move {
        match keep::restore(state, &id, chosen).await {
            Ok(Restoring::Started) => {
                ui.offer.set(None);
                ui.asking.set(None);
                ui.message.set(None);
                ui.dialog.set(false);
            }
            Ok(Restoring::NeedsFiles(infos)) => {
                ui.message.set(None);
                ui.dialog.set(false);
                ui.asking.set(Some((id, infos)));
            }
            Err(e) => ui.message.set(Some(e)),
        }
    });
}

fn edits(n: usize) -> String {
    if n == 1 {
        "1 edit".into()
    } else {
        format!("{} edits", format::count(n as u64))
    }
}

fn files_text(files: &[FileInfo]) -> String {
    files
        .iter()
        .map(|f| format!("{} ({})", f.name, format::bytes(f.size as u64)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The offer to restore, bottom right, while there is one (or a file to choose
/// again, or why a restore failed).
#[component]
pub fn RestoreOffer() -> impl IntoView {
    let state = expect_context::<AppState>();
    let ui = expect_context::<SessionsUi>();
    let shown = move || {
        ui.offer.with(Option::is_some)
            || ui.asking.with(Option::is_some)
            || ui.message.with(Option::is_some)
    };
    let dismiss = move |_| {
        if let Some(kept) = ui.offer.get_untracked() {
            keep::decline(&kept.id);
        }
        ui.offer.set(None);
        ui.asking.set(None);
        ui.message.set(None);
    };
    let offer_text = move || {
        ui.offer.get().filter(|_| ui.asking.with(Option::is_none)).map(|k| {
            view! {
                <p>
                    "Restore your last session? "
                    <span class="sessions-name">{k.name.clone()}</span>
                    {format!(", {}, kept {}.", edits(k.edits), platform::sessions::when(k.saved))}
                </p>
            }
        })
    };
    let asking_text = move || {
        ui.asking.get().map(|(id, infos)| {
            view! {
                <p>
                    {format!(
                        "The session's files, {}, were larger than Graft keeps ({}). Choose them again to restore it; they are checked by fingerprint.",
                        files_text(&infos),
                        format::bytes(keep::files_limit()),
                    )}
                </p>
                <div class="sessions-actions">
                    <label class="button">
                        "Choose the files…"
                        <input
                            class="visually-hidden"
                            type="file"
                            multiple=true
                            data-testid="restore-file"
                            on:change=move |ev| {
                                let files = PickedFiles::from_input_event(&ev);
                                if !files.is_empty() {
                                    restore(state, ui, id.clone(), Some(files));
                                }
                            }
                        />
                    </label>
                </div>
            }
        })
    };
    let accept = move |_| {
        if let Some(kept) = ui.offer.get_untracked() {
            restore(state, ui, kept.id, None);
        }
    };
    view! {
        <Show when=shown>
            <aside class="sessions-offer" data-testid="restore-offer" role="status">
                {offer_text}
                {asking_text}
                {move || {
                    ui.message
                        .get()
                        .map(|m| view! { <p class="sessions-error" data-testid="restore-error">{m}</p> })
                }}
                <div class="sessions-actions">
                    <Show when=move || ui.offer.with(Option::is_some) && ui.asking.with(Option::is_none)>
                        <button class="button" data-testid="restore-accept" on:click=accept>
                            "Restore"
                        </button>
                    </Show>
                    <button class="button" data-testid="sessions-open" on:click=move |_| ui.dialog.set(true)>
                        "Sessions…"
                    </button>
                    <button class="button" data-testid="restore-dismiss" on:click=dismiss>
                        "Dismiss"
                    </button>
                </div>
            </aside>
        </Show>
    }
}

/// The button that opens the Sessions dialog.
#[component]
pub fn SessionsButton() -> impl IntoView {
    let ui = expect_context::<SessionsUi>();
    view! {
        <button
            class="button"
            data-testid="sessions-button"
            title="The sessions kept in this browser: restore or discard them"
            on:click=move |_| ui.dialog.set(true)
        >
            "Sessions…"
        </button>
    }
}

/// Every kept session, each with Restore and Discard (not the open model's), and the
/// storage in use.
#[component]
pub fn SessionsDialog() -> impl IntoView {
    let state = expect_context::<AppState>();
    let ui = expect_context::<SessionsUi>();
    let refresh = move || {
        wasm_bindgen_futures::spawn_local(async move {
            match keep::list().await {
                Ok(list) => ui.list.set(Some(list)),
                Err(e) => ui.message.set(Some(e)),
            }
        });
    };
    Effect::new(move |_| {
        if ui.dialog.get() {
            refresh();
        }
    });
    let rows = move || {
        let list = ui.list.get().unwrap_or_default();
        if list.sessions.is_empty() {
            return view! { <p class="sessions-note">"No session is kept."</p> }.into_any();
        }
        let rows = list.sessions.into_iter().map(|k| {
            let current = k.is_current();
            let detail = format!(
                "{}, kept {}{}",
                edits(k.edits),
                platform::sessions::when(k.saved),
                match (k.files.is_empty(), k.files_kept) {
                    (true, _) => String::new(),
                    (false, true) => format!("; files kept: {}", files_text(&k.files)),
                    (false, false) => format!("; files asked for again: {}", files_text(&k.files)),
                }
            );
            let id = k.id.clone();
            let discard_id = k.id.clone();
            view! {
                <li class="sessions-row" data-testid="session-row">
                    <span class="sessions-row-text">
                        <span class="sessions-name">{k.name}</span>
                        <br/>
                        <span class="sessions-detail">{detail}</span>
                    </span>
                    {if current {
                        view! { <span class="sessions-note">"open now"</span> }.into_any()
                    } else {
                        view! {
                            <button
                                class="button"
                                data-testid="session-restore"
                                on:click=move |_| restore(state, ui, id.clone(), None)
                            >
                                "Restore"
                            </button>
                            <button
                                class="button"
                                data-testid="session-discard"
                                on:click=move |_| {
                                    let id = discard_id.clone();
                                    wasm_bindgen_futures::spawn_local(async move {
                                        if let Err(e) = keep::discard(&id).await {
                                            ui.message.set(Some(e));
                                        }
                                        if ui.offer.with_untracked(|o| o.as_ref().is_some_and(|k| k.id == id)) {
                                            ui.offer.set(None);
                                        }
                                        refresh();
                                    });
                                }
                            >
                                "Discard"
                            </button>
                        }
                            .into_any()
                    }}
                </li>
            }
        });
        view! { <ul class="sessions-list">{rows.collect_view()}</ul> }.into_any()
    };
    let usage = move || {
        ui.list.get().map(|l| match (l.usage, l.quota) {
            (Some(usage), Some(quota)) => format!(
                "This site uses {} of the {} the browser allows it.",
                format::bytes(usage as u64),
                format::bytes(quota as u64)
            ),
            (Some(usage), None) => format!("This site uses {}.", format::bytes(usage as u64)),
            _ => "The browser does not say how much storage is in use.".to_string(),
        })
    };
    view! {
        <Show when=move || ui.dialog.get()>
            <aside class="sessions-dialog" data-testid="sessions-dialog" role="dialog" aria-label="Kept sessions">
                <h2>"Kept sessions"</h2>
                <p class="sessions-note">
                    {format!(
                        "Each model's edits are kept in this browser, so that a reload, a crash or a closed tab loses nothing. Chosen files up to {} are kept with their session; larger ones are asked for again. The {} newest sessions with edits are kept.",
                        format::bytes(keep::files_limit()),
                        keep::SESSIONS_KEPT,
                    )}
                </p>
                {rows}
                <p class="sessions-note" data-testid="sessions-usage">{usage}</p>
                <div class="sessions-actions">
                    <button class="button" data-testid="sessions-close" on:click=move |_| ui.dialog.set(false)>
                        "Close"
                    </button>
                </div>
            </aside>
        </Show>
    }
}
