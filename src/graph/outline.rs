//! The selected nodes, and Outline…: the nodes become a new local function and one
//! call where they were. The name is checked as it is typed (by the core's rules);
//! Apply is one undoable edit, and an error (a selection across two graphs, one that
//! leaves and re-enters) shows in the banner with the model unchanged.

use leptos::prelude::*;

use crate::state::AppState;

#[component]
pub fn Outline() -> impl IntoView {
    let state = expect_context::<AppState>();
    let nodes = Memo::new(move |_| state.selected_node_count());
    let editing = RwSignal::new(false);
    let name = RwSignal::new(String::new());
    // Nothing to say about an empty field, and nothing to apply. Checked as it is typed:
    // the engine answers for the text it checked, and an answer for an older text is
    // dropped, so what shows is always about the text in the field.
    let checked = RwSignal::new(None::<(String, Option<String>)>);
    Effect::new(move |_| {
        let text = name.get();
        if text.trim().is_empty() {
            checked.set(None);
        } else {
            state.new_function_problem(text.clone(), move |p| {
                // A late answer may find the form closed: nothing to show.
                if name.try_get_untracked().as_ref() == Some(&text) {
                    checked.set(Some((text, p)));
                }
            });
        }
    });
    // The engine's problem with the text in the field (none while it is unanswered).
    let problem = move || {
        checked.with(|c| {
            c.as_ref()
                .filter(|(t, _)| name.with(|n| n == t))
                .and_then(|(_, p)| p.clone())
        })
    };
    let blank = move || name.with(|n| n.trim().is_empty());
    // Apply (the button or Enter) is on unless the text is known to be refused. Typed
    // faster than the check answers, the engine checks the name again as it applies,
    // and a bad one shows in the banner with the model unchanged. (A disabled submit
    // button would also swallow Enter.)
    let may_apply = move || !blank() && problem().is_none();
    // Nothing selected any more: the form closes.
    Effect::new(move |_| {
        if nodes.get() == 0 {
            editing.set(false);
        }
    });
    let apply = move || {
        if may_apply() {
            state.outline(name.get_untracked(), move |done| {
                if done {
                    name.set(String::new());
                    editing.set(false);
                }
            });
        }
    };
    let count = move || match nodes.get() {
        1 => "1 node selected".to_string(),
        n => format!("{n} nodes selected"),
    };
    view! {
        <Show when=move || { nodes.get() > 0 }>
            <section class="selection" data-testid="selection">
                <p>
                    <b data-testid="selection-count">{count}</b>
                    " "
                    <small>"Shift+click adds or removes a node"</small>
                </p>
                <Show
                    when=move || editing.get()
                    fallback=move || view! {
                        <button
                            data-testid="outline-open"
                            title="Make the selected nodes a new local function, called where they were"
                            on:click=move |_| editing.set(true)
                        >
                            "Outline…"
                        </button>
                    }
                >
                    <form
                        class="outline-form"
                        data-testid="outline-form"
                        on:submit=move |e| {
                            e.prevent_default();
                            apply();
                        }
                    >
                        <label>
                            "New function "
                            <input
                                type="text"
                                data-testid="outline-name"
                                placeholder="DOMAIN.NAME, e.g. my.Block"
                                autofocus
                                prop:value=move || name.get()
                                on:input=move |e| name.set(event_target_value(&e))
                            />
                        </label>
                        {move || problem().map(|p| view! {
                            <p class="outline-error" data-testid="outline-name-error" role="alert">{p}</p>
                        })}
                        <div class="outline-actions">
                            <button
                                type="submit"
                                data-testid="outline-apply"
                                title="Outline (undo with Ctrl+Z)"
                                disabled=move || !may_apply()
                            >
                                "Outline"
                            </button>
                            <button
                                type="button"
                                data-testid="outline-cancel"
                                on:click=move |_| editing.set(false)
                            >
                                "Cancel"
                            </button>
                        </div>
                    </form>
                </Show>
            </section>
        </Show>
    }
}
