//! The function library beside the graph: the model's local functions by domain,
//! with their overloads, attributes, documentation and call sites, and the library's
//! actions (inline, specialize, rename).

use leptos::prelude::*;

use graft::edit::Edit;
use graft::view::ItemId;

use crate::state::{AppState, FunctionInfo, SearchHit};

/// The model's local functions by domain: overload, declared attributes with
/// defaults, documentation, and the call sites (any depth) with jump-to.
#[component]
pub(super) fn FunctionLibrary(
    on_jump: impl Fn(ItemId) + Copy + Send + Sync + 'static,
) -> impl IntoView {
    let state = expect_context::<AppState>();
    let open = RwSignal::new(None::<usize>);
    // The call sites, once the engine has found them (the entry opens then).
    let sites = RwSignal::new(None::<Vec<SearchHit>>);
    let library = Memo::new(move |_| state.function_library());
    // A new model: nothing is open in the library.
    Effect::new(move |_| {
        let _ = state.name.get();
        open.set(None);
        sites.set(None);
    });
    let rename = RwSignal::new(String::new());
    // After an action the list changes under the panel: close it.
    let close = move || {
        open.set(None);
        sites.set(None);
    };
    let show = move |f: &FunctionInfo| {
        let index = f.index;
        // What an edit names this function by.
        let key = StoredValue::new(f.key.clone());
        let title = if f.overload.is_empty() {
            format!("{}.{}", f.domain, f.name)
        } else {
            format!("{}.{}:{}", f.domain, f.name, f.overload)
        };
        let attributes = f
            .attributes
            .iter()
            .map(|(name, default)| view! { <li>{name.clone()} " " <span class="lib-default">{default.clone()}</span></li> })
            .collect_view();
        let doc = f.doc.clone();
        let kept = f.kept;
        view! {
            <li class="lib-function" data-testid="library-function">
                <button
                    class="lib-name"
                    on:click=move |_| {
                        if open.get_untracked() == Some(index) {
                            open.set(None);
                            sites.set(None);
                        } else {
                            open.set(Some(index));
                            state.call_sites(index, move |hits| {
                                if open.try_get_untracked() == Some(Some(index)) {
                                    sites.set(Some(hits));
                                }
                            });
                        }
                    }
                >
                    {title}
                </button>
                <Show when=move || open.get() == Some(index) && sites.with(Option::is_some)>
                    <ul class="lib-attrs">{attributes.clone()}</ul>
                    <p class="lib-doc">{doc.clone()}</p>
                    <p class="lib-count" data-testid="call-site-count">
                        {move || format!("{} call sites", sites.with(|s| s.as_ref().map_or(0, Vec::len)))}
                    </p>
                    <div class="lib-actions">
                        <button
                            data-testid="lib-inline-all"
                            title="Replace every call by the function's body (undo with Ctrl+Z)"
                            disabled=move || sites.with(|s| s.as_ref().is_none_or(Vec::is_empty))
                            on:click=move |_| {
                                state.edit(Edit::InlineCalls { function: key.get_value() }, None);
                                close();
                            }
                        >
                            "Inline all calls"
                        </button>
                        <button
                            data-testid="lib-specialize-all"
                            title="Specialize every call whose attributes are all constant into its overload (undo with Ctrl+Z)"
                            disabled=move || sites.with(|s| s.as_ref().is_none_or(Vec::is_empty))
                            on:click=move |_| {
                                // The functions marked "keep" stay when their last call goes.
                                let keep = library.with_untracked(|l| {
                                    l.iter().filter(|f| f.kept).map(|f| f.key.clone()).collect()
                                });
                                state.edit(Edit::SpecializeAll { function: key.get_value(), keep }, None);
                                close();
                            }
                        >
                            "Specialize all calls"
                        </button>
                        <button
                            data-testid="lib-delete"
                            title="Remove the function (only when nothing calls it)"
                            disabled=move || sites.with(|s| s.as_ref().is_some_and(|v| !v.is_empty()))
                            on:click=move |_| {
                                state.edit(Edit::DeleteFunction { function: key.get_value() }, None);
                                close();
                            }
                        >
                            "Delete"
                        </button>
                        <form on:submit=move |e| {
                            e.prevent_default();
                            let to = rename.get_untracked().trim().to_string();
                            state.edit(Edit::RenameFunction { function: key.get_value(), to }, None);
                            rename.set(String::new());
                            close();
                        }>
                            <input
                                type="text"
                                data-testid="lib-rename-input"
                                placeholder="new DOMAIN.NAME"
                                prop:value=move || rename.get()
                                on:input=move |e| rename.set(event_target_value(&e))
                            />
                            <button type="submit" data-testid="lib-rename">"Rename"</button>
                        </form>
                    </div>
                    <label class="lib-keep" title="Specializing its last call does not remove it from the library">
                        <input
                            type="checkbox"
                            data-testid="lib-keep"
                            prop:checked=kept
                            on:change=move |e| state.library_keep(index, event_target_checked(&e))
                        />
                        " keep when no call is left"
                    </label>
                    <ul class="search-results">
                        <For each=move || sites.get().unwrap_or_default() key=|h| h.item let:hit>
                            <li data-testid="call-site" on:click=move |_| on_jump(hit.item)>
                                <span class="hit-title">{hit.title.clone()}</span>
                                " "
                                <span class="hit-name">{hit.subtitle.clone()}</span>
                                <div class="hit-path">{hit.path.clone()}</div>
                            </li>
                        </For>
                    </ul>
                </Show>
            </li>
        }
    };
    view! {
        <Show when=move || !library.get().is_empty()>
            <section class="library" data-testid="function-library">
                <h3>"Functions"</h3>
                <ul class="lib-list">
                    {move || library.get().iter().map(show).collect_view()}
                </ul>
            </section>
        </Show>
    }
}
