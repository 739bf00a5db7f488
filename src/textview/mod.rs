//! The text tab: the open model, or one of its functions, in ONNX text. Edit turns the
//! text into a text area; Apply replaces the model (or the function) by what it says,
//! as one undoable edit, and the canvas follows; text that does not parse is refused
//! with its line and column (the caret goes there), the model unchanged. Text that parses but breaks a checker rule is
//! applied (as any edit may be), and the checker's errors are listed under the text
//! at their lines until they are fixed or undone. The core prints and parses; this
//! component only chooses what to show.

use leptos::prelude::*;

use crate::state::AppState;

#[component]
pub fn TextPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    // `None`: the whole model; `Some(i)`: the model's i-th function.
    let scope = RwSignal::new(None::<usize>);
    // Another model resets the choice.
    Effect::new(move |_| {
        state.name.track();
        scope.set(None);
    });
    // The text of the model as it stands: asked again after every change of it.
    let printed = RwSignal::new(None::<(String, Vec<String>)>);
    Effect::new(move |_| {
        let (which, serial) = (scope.get(), state.serial());
        state.text(which, move |t| {
            // A late answer may find the tab closed (`try_`: its signals are gone).
            if scope.try_get_untracked() == Some(which) && state.serial() == serial {
                printed.set(t);
            }
        });
    });
    let text = move || printed.get().map(|(text, _)| text);
    let checked = move || {
        printed
            .get()
            .map(|(_, problems)| problems)
            .unwrap_or_default()
    };
    let editing = RwSignal::new(false);
    let draft = RwSignal::new(String::new());
    let problem = RwSignal::new(None::<String>);
    let editor = NodeRef::<leptos::html::Textarea>::new();
    // Another model or scope ends an edit.
    Effect::new(move |_| {
        scope.track();
        state.name.track();
        editing.set(false);
        problem.set(None);
    });
    let start = move |_| {
        draft.set(printed.get_untracked().map(|(t, _)| t).unwrap_or_default());
        problem.set(None);
        editing.set(true);
    };
    let apply = move |_| {
        state.apply_text(
            scope.get_untracked(),
            draft.get_untracked(),
            move |r| match r {
                Ok(()) => {
                    problem.set(None);
                    editing.set(false);
                }
                Err(e) => {
                    // Text that does not parse: the caret goes to where it stops.
                    if let Some(graft::edit::Field::Text { line, column }) =
                        e.edit_error().map(|e| &e.field)
                        && let Some(area) = editor.get_untracked()
                    {
                        let at = caret_at(&area.value(), *line, *column);
                        let _ = area.focus();
                        let _ = area.set_selection_range(at, at);
                    }
                    problem.set(Some(e.to_string()));
                }
            },
        )
    };
    let options = move || {
        state
            .functions
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, key)| view! { <option value=i.to_string()>{key}</option> })
            .collect_view()
    };
    let on_change = move |ev| {
        let value = event_target_value(&ev);
        scope.set(value.parse::<usize>().ok());
    };
    view! {
        <section class="text-panel" aria-label="ONNX text">
            <div class="text-toolbar">
                <label class="select">
                    <span class="text-label">"Show"</span>
                    <select
                        data-testid="text-scope"
                        prop:value=move || scope.get().map(|i| i.to_string()).unwrap_or_default()
                        on:change=on_change
                    >
                        <option value="">"The whole model"</option>
                        {options}
                    </select>
                </label>
                <Show
                    when=move || editing.get()
                    fallback=move || view! {
                        <button class="button" data-testid="text-edit" title="Edit the text and apply it as one undoable edit" on:click=start>"Edit"</button>
                    }
                >
                    <button class="button button-primary" data-testid="text-apply" title="Replace by this text (undo with Ctrl+Z)" on:click=apply>"Apply"</button>
                    <button class="button" data-testid="text-cancel" on:click=move |_| { editing.set(false); problem.set(None); }>"Cancel"</button>
                </Show>
            </div>
            {move || problem.get().map(|p| view! { <p class="text-error" data-testid="text-error">{p}</p> })}
            {move || {
                let problems = checked();
                (!problems.is_empty()).then(|| view! {
                    <ul class="text-checked" data-testid="text-checked" title="The checker's errors at their lines (fix them, or undo with Ctrl+Z)">
                        {problems.into_iter().map(|p| view! { <li>{p}</li> }).collect_view()}
                    </ul>
                })
            }}
            <Show
                when=move || editing.get()
                fallback=move || view! { <pre class="text-view" data-testid="text-view">{move || text().unwrap_or_default()}</pre> }
            >
                <textarea
                    class="text-view text-edit"
                    data-testid="text-editor"
                    node_ref=editor
                    spellcheck="false"
                    prop:value=move || draft.get()
                    on:input=move |e| draft.set(event_target_value(&e))
                ></textarea>
            </Show>
        </section>
    }
}

/// The offset in UTF-16 code units (a text area's selection counts those) of the
/// 1-based `line` and `column` (in characters) of `text`; past the end, its end.
fn caret_at(text: &str, line: usize, column: usize) -> u32 {
    let mut at = 0;
    for (k, l) in text.split('\n').enumerate() {
        if k + 1 == line {
            let before = l.chars().take(column.saturating_sub(1));
            return (at + before.map(char::len_utf16).sum::<usize>()) as u32;
        }
        at += l.encode_utf16().count() + 1;
    }
    text.encode_utf16().count() as u32
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_caret_goes_to_a_line_and_column() {
        let text = "a (x) => (y) {\n  y = Ré(x)\n}";
        assert_eq!(super::caret_at(text, 1, 1), 0);
        assert_eq!(super::caret_at(text, 2, 3), 17);
        // `é` is one UTF-16 unit, a character past the BMP two.
        assert_eq!(super::caret_at(text, 2, 9), 23);
        assert_eq!(super::caret_at("😀x\ny", 1, 2), 2);
        assert_eq!(super::caret_at("😀x\ny", 2, 1), 4);
        // Past the end of the text, or of a line: the end of either.
        assert_eq!(super::caret_at(text, 9, 1), 28);
        assert_eq!(super::caret_at("ab\ncd", 1, 9), 2);
    }
}
