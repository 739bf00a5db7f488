//! The selected item's properties beside the graph: what it is, its attributes with
//! where each value comes from, a call's compile-time attributes and overloads, its
//! source and metadata, and its editor (`node_editor.rs`).

use leptos::prelude::*;

use super::node_editor::{NodeEditorView, TerminalEditorView};
use graft::edit::Edit;

use crate::state::{AppState, FieldAt, Slot, Target};

#[component]
pub(super) fn Properties() -> impl IntoView {
    let state = expect_context::<AppState>();
    let props = move || state.properties();
    view! {
        {move || props().map(|p| {
            // Where an edit finds the selected node: its graph's path and its index.
            // (None: the node has no address, and these actions send nothing.)
            let address = StoredValue::new(p.editor.as_ref().map(|e| (e.graph.clone(), e.index)));
            view! {
            <section class="props" data-testid="properties">
                <h3 title=format!("{} {}", p.title, p.kind)>{p.title.clone()} " " <small>{p.kind.clone()}</small></h3>
                <p class="props-name" data-testid="properties-name" title=p.name.clone()>{p.name.clone()}</p>
                {p.problem.clone().map(|text| view! { <p class="attr-error" data-testid="call-problem">{text}</p> })}
                <Show when={let d = p.domain.clone(); move || !d.is_empty()}>
                    <p>"domain " {p.domain.clone()}</p>
                </Show>
                <table class="props-attrs">
                    {p.attributes.iter().map(|(name, value, source)| view! {
                        <tr data-testid="property-attribute">
                            <td>{name.clone()}</td>
                            <td>{value.clone()}</td>
                            <td class="props-source">{*source}</td>
                        </tr>
                    }).collect_view()}
                </table>
                {p.call.clone().map(|call| {
                    let node = call.node;
                    // The generic stays when this call was its last (`domain.name`, as a key).
                    let function = StoredValue::new(call.function.clone());
                    let rows = call.attributes.iter().map(|(name, default, given)| {
                        let name = name.clone();
                        let placeholder = default.clone().map_or_else(|| "required".to_string(), |d| format!("default {d}"));
                        let testid = format!("call-attr-{name}");
                        // Checked as the user types; only a valid value is applied.
                        let problem = RwSignal::new(None::<String>);
                        let typed = StoredValue::new(String::new());
                        let (check_name, set_name) = (name.clone(), name.clone());
                        view! {
                            <tr>
                                <td>{name.clone()}</td>
                                <td>
                                    <input
                                        type="text"
                                        data-testid=testid
                                        class:invalid=move || problem.get().is_some()
                                        placeholder=placeholder
                                        prop:value=given.clone().unwrap_or_default()
                                        on:input=move |e| {
                                            let value = event_target_value(&e);
                                            typed.set_value(value.clone());
                                            if value.trim().is_empty() {
                                                problem.set(None);
                                            } else {
                                                // The engine's answer for a value since replaced is dropped, and so
                                                // is one that comes after an edit redrew the editor (its field and
                                                // signals are gone).
                                                let checked = value.clone();
                                                state.check_call_attribute(node, check_name.clone(), value, move |p| {
                                                    if typed.try_with_value(|t| *t == checked) == Some(true) {
                                                        let _ = problem.try_set(p);
                                                    }
                                                });
                                            }
                                        }
                                        on:change=move |e| {
                                            // The engine checks it again: a refused value shows beside the field.
                                            let value = event_target_value(&e);
                                            if !value.trim().is_empty()
                                                && let Some(address) = address.get_value()
                                            {
                                                let at = FieldAt { target: Target::Node(node), slot: Slot::CallAttribute(set_name.clone()) };
                                                state.specialize_call(address, function.get_value(), format!("{set_name} = {value}"), Some(at));
                                            }
                                        }
                                    />
                                    {move || problem.get().map(|p| view! { <div class="attr-error" data-testid="call-attr-error">{p}</div> })}
                                    {let refused = name.clone(); move || state.field_error(Target::Node(node), Slot::CallAttribute(refused.clone())).map(|p| view! { <div class="attr-error" data-testid="field-error">{p}</div> })}
                                </td>
                            </tr>
                        }
                    }).collect_view();
                    let overload = if call.overload.is_empty() { "generic".to_string() } else { format!("overload {}", call.overload) };
                    let current = call.overload.clone();
                    let choices = call.overloads.iter().map(|o| {
                        let label = if o.is_empty() { "generic".to_string() } else { o.clone() };
                        view! { <option value=o.clone() selected=*o == current>{label}</option> }
                    }).collect_view();
                    view! {
                        <div class="call-editor" data-testid="call-editor">
                            <p><b>"Compile-time attributes of " {call.function.clone()}</b> " " <small data-testid="call-overload">{overload}</small></p>
                            <label>
                                "uses "
                                <select
                                    data-testid="call-overload-select"
                                    title="Point the call at another overload of the same function (undo with Ctrl+Z)"
                                    on:change=move |e| {
                                        if let Some((graph, node)) = address.get_value() {
                                            state.edit(Edit::UseOverload { graph, node, overload: event_target_value(&e) }, None)
                                        }
                                    }
                                >
                                    {choices}
                                </select>
                            </label>
                            <table class="props-attrs">{rows}</table>
                            <button data-testid="call-specialize" title="Bind the call's attributes into an overload (undo with Ctrl+Z)" on:click=move |_| {
                                if let Some(address) = address.get_value() {
                                    state.specialize_call(address, function.get_value(), String::new(), None)
                                }
                            }>"Specialize"</button>
                        </div>
                    }
                })}
                {p.standard_body.map(|(_, kind)| {
                    let from = match kind {
                        graft::library::BodyKind::Static => "the function body onnx defines for it",
                        graft::library::BodyKind::Built => "the body onnx builds for this call (its attributes and input types)",
                    };
                    view! {
                        <p class="standard-body">
                            <button data-testid="expand-standard" title="Replace the node by the ops of its function body (undo with Ctrl+Z)" on:click=move |_| {
                                if let Some((graph, node)) = address.get_value() {
                                    state.edit(Edit::ExpandStandard { graph, node }, None)
                                }
                            }>"Expand into its body"</button>
                            " " <small>{format!("from {from}")}</small>
                        </p>
                    }
                })}
                <p class="props-io">"in: " {p.inputs.join(", ")}</p>
                <p class="props-io">"out: " {p.outputs.join(", ")}</p>
                <Show when={let empty = p.modules.is_empty(); move || !empty}>
                    <div class="props-modules" data-testid="property-modules">
                        <h4>"Module"</h4>
                        <ol>
                            {p.modules.iter().map(|m| view! { <li>{m.clone()}</li> }).collect_view()}
                        </ol>
                    </div>
                </Show>
                {p.source.clone().map(|source| view! {
                    <p class="props-source-line" data-testid="property-source">"source " <code>{source}</code></p>
                })}
                <Show when={let empty = p.metadata.is_empty(); move || !empty}>
                    <details class="props-metadata" data-testid="property-metadata">
                        <summary>{format!("Metadata ({})", p.metadata.len())}</summary>
                        <table>
                            {p.metadata.iter().map(|(key, value)| view! {
                                <tr data-testid="property-metadata-entry">
                                    <td>{key.clone()}</td>
                                    <td><pre>{value.clone()}</pre></td>
                                </tr>
                            }).collect_view()}
                        </table>
                    </details>
                </Show>
                {p.editor.clone().map(|editor| view! { <NodeEditorView editor=editor/> })}
                {p.terminal.clone().map(|editor| view! { <TerminalEditorView editor=editor/> })}
                <pre class="props-doc">{p.doc.clone()}</pre>
            </section>
        }})}
    }
}
