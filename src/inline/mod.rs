//! The inline dialog: binds each input of the dropped or picked guest model to a host
//! value (or a new graph input), chooses which outputs become graph outputs, the name
//! prefix and the mode. The canvas previews the result with the new nodes highlighted;
//! Apply keeps it (one undoable step), Cancel puts the host back.

use leptos::prelude::*;

use crate::state::AppState;

#[component]
pub fn InlineDialog() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let view = state.inline.get()?;
        let inputs = view
            .inputs
            .iter()
            .enumerate()
            .map(|(index, (name, ty, bound))| {
                let list = format!("inline-candidates-{index}");
                let options = state
                    .inline_candidates(index)
                    .into_iter()
                    .map(|c| {
                        let label = c.ty.unwrap_or_else(|| "type not stated".into());
                        view! { <option value=c.name>{label}</option> }
                    })
                    .collect_view();
                view! {
                    <tr>
                        <td class="inline-name">{name.clone()}</td>
                        <td class="inline-type">{ty.clone().unwrap_or_default()}</td>
                        <td>
                            <input
                                type="search"
                                list=list.clone()
                                placeholder="new graph input"
                                data-testid=format!("inline-bind-{name}")
                                prop:value=bound.clone().unwrap_or_default()
                                on:change=move |e| {
                                    let value = event_target_value(&e);
                                    state.inline_bind(index, (!value.is_empty()).then_some(value));
                                }
                            />
                            <datalist id=list>{options}</datalist>
                        </td>
                    </tr>
                }
            })
            .collect_view();
        let outputs = view
            .outputs
            .iter()
            .enumerate()
            .map(|(index, (name, ty, exposed))| {
                view! {
                    <tr>
                        <td class="inline-name">{name.clone()}</td>
                        <td class="inline-type">{ty.clone().unwrap_or_default()}</td>
                        <td>
                            <label>
                                <input
                                    type="checkbox"
                                    data-testid=format!("inline-expose-{name}")
                                    prop:checked=*exposed
                                    on:change=move |e| state.inline_expose(index, event_target_checked(&e))
                                />
                                " graph output"
                            </label>
                        </td>
                    </tr>
                }
            })
            .collect_view();
        let as_function = view.as_function.clone();
        let function_on = as_function.is_some();
        let error = view.error.clone();
        let failed = error.is_some();
        Some(view! {
            <aside class="inline-dialog" data-testid="inline-dialog" role="dialog" aria-label="Inline a model">
                <h2>{format!("Inline {} into {}", view.guest, view.host)}</h2>
                <h3>"Inputs"</h3>
                <table class="inline-table">
                    <thead><tr><th>"guest input"</th><th>"type"</th><th>"reads host value"</th></tr></thead>
                    <tbody>{inputs}</tbody>
                </table>
                <h3>"Outputs"</h3>
                <table class="inline-table">
                    <thead><tr><th>"guest output"</th><th>"type"</th><th></th></tr></thead>
                    <tbody>{outputs}</tbody>
                </table>
                <h3>"Names and mode"</h3>
                <label class="inline-field">
                    "Prefix "
                    <input
                        type="text"
                        data-testid="inline-prefix"
                        prop:value=view.prefix.clone()
                        on:change=move |e| state.inline_prefix(event_target_value(&e))
                    />
                </label>
                <label class="inline-field">
                    <input
                        type="checkbox"
                        data-testid="inline-as-function-toggle"
                        prop:checked=function_on
                        on:change=move |e| {
                            let on = event_target_checked(&e);
                            state.inline_as_function(on.then(|| "local.Guest".to_string()));
                        }
                    />
                    " as one local function "
                    <input
                        type="text"
                        data-testid="inline-as-function"
                        disabled=!function_on
                        prop:value=as_function.unwrap_or_default()
                        on:change=move |e| state.inline_as_function(Some(event_target_value(&e)))
                    />
                </label>
                {match error {
                    Some(e) => view! { <p class="inline-error" data-testid="inline-error" role="alert">{e}</p> }.into_any(),
                    None => view! {
                        <p class="inline-ok" data-testid="inline-summary">
                            {format!("The preview adds {} node(s) to the main graph (outlined in green).", view.added)}
                        </p>
                    }.into_any(),
                }}
                <div class="inline-actions">
                    <button class="button button-primary" data-testid="inline-apply" disabled=failed on:click=move |_| state.apply_inline()>"Apply"</button>
                    <button class="button" data-testid="inline-cancel" on:click=move |_| state.cancel_inline()>"Cancel"</button>
                </div>
            </aside>
        })
    }
}
