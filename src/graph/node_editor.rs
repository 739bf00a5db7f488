//! The selected node's editor: its name, what each input reads (an initializer's data
//! replaced from a NumPy `.npy` file), its output names, its
//! attributes (set as ONNX text, or removed), Delete (optionally passing a one-in,
//! one-out node through), and Add after… (an operator from the schema registry, read
//! from this node's first output, attribute defaults written out). Every change is one
//! undoable edit; a refused one shows under its field, in the core's words, and
//! changes nothing. It works
//! wherever the node is: the main graph, a function body, an If/Loop/Scan body. A
//! selected graph input or output gets its own editor: name, stated type, remove, and
//! beside an input, a new input.

use leptos::prelude::*;

use graft::edit::Edit;

use crate::platform::PickedFiles;
use crate::state::{AppState, FieldAt, NodeEditor, Slot, Target, TerminalEditor};

/// Why the last edit from `slot` of `target`'s editor was refused, shown under it.
fn field_error(state: AppState, target: Target, slot: Slot) -> impl IntoView {
    move || {
        state.field_error(target, slot.clone()).map(|message| {
            view! { <p class="field-error" data-testid="field-error" role="alert">{message}</p> }
        })
    }
}

#[component]
pub fn NodeEditorView(editor: NodeEditor) -> impl IntoView {
    let state = expect_context::<AppState>();
    let node = editor.node;
    let at = Target::Node(node);
    let on_change = |f: Box<dyn Fn(String)>| move |e: leptos::ev::Event| f(event_target_value(&e));
    // Each field sends one edit, in the log's vocabulary: this node is node `index`
    // of the graph at `graph`.
    let (graph, index) = (StoredValue::new(editor.graph.clone()), editor.index);
    let edit = move |slot: Slot, make: &dyn Fn(String) -> Edit| {
        let at = FieldAt { target: at, slot };
        state.edit(graph.with_value(|g| make(g.clone())), Some(at));
    };
    let outputs_of = StoredValue::new(editor.outputs.clone());
    let output = move |k: usize| outputs_of.with_value(|o| o.get(k).cloned().unwrap_or_default());
    let inputs = editor
        .inputs
        .iter()
        .zip(&editor.initializers)
        .enumerate()
        .map(|(k, (value, initializer))| {
            let npy = initializer.map(|init| {
                view! {
                    <label class="link" title="Replace this initializer's data by a NumPy .npy file's array (undo with Ctrl+Z)">
                        ".npy…"
                        <input
                            class="visually-hidden"
                            type="file"
                            accept=".npy"
                            data-testid=format!("node-input-{k}-npy")
                            on:change=move |e| state.set_initializer(init, PickedFiles::from_input_event(&e))
                        />
                    </label>
                }
            });
            view! {
                <label class="node-edit-row">
                    <span>{format!("in {k}")}</span>
                    <input
                        type="text"
                        data-testid=format!("node-input-{k}")
                        title="The value this input reads; empty disconnects it"
                        prop:value=value.clone()
                        on:change=on_change(Box::new(move |v| {
                            let value = v.trim().to_string();
                            edit(Slot::Input(k), &|graph| Edit::SetInput { graph, node: index, index: k, value: value.clone() })
                        }))
                    />
                    {npy}
                </label>
                {field_error(state, at, Slot::Input(k))}
            }
        })
        .collect_view();
    let outputs = editor
        .outputs
        .iter()
        .enumerate()
        .map(|(k, value)| {
            view! {
                <label class="node-edit-row">
                    <span>{format!("out {k}")}</span>
                    <input
                        type="text"
                        data-testid=format!("node-output-{k}")
                        title="Rename this value; every reader follows"
                        prop:value=value.clone()
                        on:change=on_change(Box::new(move |v| {
                            let (from, to) = (output(k), v.trim().to_string());
                            if !from.is_empty() {
                                edit(Slot::Output(k), &|graph| Edit::RenameValue { graph, from: from.clone(), to: to.clone() })
                            }
                        }))
                    />
                    <button
                        class="link"
                        data-testid=format!("node-output-{k}-to-graph")
                        title="Make this value an output of the graph (undo with Ctrl+Z)"
                        on:click=move |_| {
                            let value = output(k);
                            if !value.is_empty() {
                                edit(Slot::Output(k), &|graph| Edit::AddOutput { graph, value: value.clone() })
                            }
                        }
                    >
                        "→ output"
                    </button>
                </label>
                {field_error(state, at, Slot::Output(k))}
            }
        })
        .collect_view();
    let attributes = editor
        .attributes
        .iter()
        .map(|(name, text)| {
            let name = name.clone();
            let remove = name.clone();
            // A body is summarized; it is seen on the canvas, opened in place.
            let open = editor.bodies.contains(&name).then(|| {
                view! {
                    <button
                        class="link"
                        data-testid=format!("node-open-body-{name}")
                        title="Open or close this node on the canvas, its bodies in place"
                        on:click=move |_| {
                            if let Some(item) = state.selection.with_untracked(|s| s.last().copied()) {
                                state.toggle(item);
                            }
                        }
                    >
                        "open"
                    </button>
                }
            });
            view! {
                <li class="node-edit-attr" data-testid="node-attr">
                    <code>{text.clone()}</code>
                    {open}
                    <button
                        class="link"
                        data-testid=format!("node-remove-attr-{name}")
                        title="Remove this attribute (undo with Ctrl+Z)"
                        on:click=move |_| edit(Slot::Attribute, &|graph| Edit::RemoveAttribute { graph, node: index, name: remove.clone() })
                    >
                        "remove"
                    </button>
                </li>
            }
        })
        .collect_view();
    let reconnect = RwSignal::new(true);
    let palette = StoredValue::new(state.palette());
    let chosen = RwSignal::new(String::new());
    let chosen_doc = move || {
        let op = chosen.get();
        palette.with_value(|p| p.iter().find(|(n, _)| *n == op).map(|(_, d)| d.clone()))
    };
    let options = palette.with_value(|p| {
        p.iter()
            .map(|(name, _)| view! { <option value=name.clone()></option> })
            .collect_view()
    });
    view! {
        <div class="node-editor" data-testid="node-editor">
            <label class="node-edit-row">
                <span>"name"</span>
                <input
                    type="text"
                    data-testid="node-name"
                    prop:value=editor.name.clone()
                    on:change=on_change(Box::new(move |v| {
                        let to = v.trim().to_string();
                        edit(Slot::Name, &|graph| Edit::RenameNode { graph, node: index, to: to.clone() })
                    }))
                />
            </label>
            {field_error(state, at, Slot::Name)}
            <label class="node-edit-row">
                <span>"doc"</span>
                <input
                    type="text"
                    data-testid="node-doc"
                    placeholder="what this node does"
                    title="The node's doc string (empty removes it; undo with Ctrl+Z)"
                    prop:value=editor.doc_string.clone()
                    on:change=on_change(Box::new(move |v| {
                        let doc = v.trim().to_string();
                        edit(Slot::Named("doc".into()), &|graph| Edit::SetDocString { graph, node: Some(index), doc: doc.clone() })
                    }))
                />
            </label>
            {field_error(state, at, Slot::Named("doc".into()))}
            {inputs}
            {outputs}
            <ul class="node-edit-attrs">{attributes}</ul>
            <label class="node-edit-row">
                <span>"set"</span>
                <input
                    type="text"
                    data-testid="node-set-attr"
                    placeholder="alpha = 0.5"
                    title="Set an attribute, as ONNX text (undo with Ctrl+Z)"
                    on:change=move |e| {
                        let attribute = event_target_value(&e).trim().to_string();
                        if !attribute.is_empty() {
                            edit(Slot::Attribute, &|graph| Edit::SetAttribute { graph, node: index, attribute: attribute.clone() });
                        }
                    }
                />
            </label>
            {field_error(state, at, Slot::Attribute)}
            <div class="node-edit-actions">
                <button
                    data-testid="node-delete"
                    title="Delete the selected nodes (Delete key; undo with Ctrl+Z)"
                    on:click=move |_| state.delete_selected(reconnect.get_untracked())
                >
                    "Delete"
                </button>
                <label title="What read a deleted one-in, one-out node's output reads its input instead">
                    <input
                        type="checkbox"
                        data-testid="node-reconnect"
                        prop:checked=move || reconnect.get()
                        on:change=move |e| reconnect.set(event_target_checked(&e))
                    />
                    " reconnect"
                </label>
            </div>
            <label class="node-edit-row">
                <span>"add after"</span>
                <input
                    type="text"
                    list="op-palette"
                    data-testid="node-add-op"
                    placeholder="operator…"
                    title="Add a node of this operator reading this node's output (undo with Ctrl+Z)"
                    on:input=move |e| chosen.set(event_target_value(&e))
                    on:change=move |e| {
                        let op = event_target_value(&e);
                        let known = palette.with_value(|p| p.iter().any(|(n, _)| *n == op));
                        // The new node reads this node's first output.
                        let input = outputs_of.with_value(|o| o.iter().find(|v| !v.is_empty()).cloned());
                        if known && let Some(input) = input {
                            edit(Slot::Add, &|graph| Edit::AddNode {
                                graph,
                                op_type: op.clone(),
                                domain: String::new(),
                                inputs: vec![input.clone()],
                                outputs: Vec::new(),
                                attributes: String::new(),
                                defaults: true,
                                name: String::new(),
                                at: None,
                            });
                        }
                    }
                />
            </label>
            {field_error(state, at, Slot::Add)}
            <datalist id="op-palette">{options}</datalist>
            {move || chosen_doc().map(|d| view! { <p class="node-edit-doc" data-testid="node-add-doc">{d}</p> })}
        </div>
    }
}

/// A graph input's or output's editor: rename it, set its stated type (element type,
/// shape, symbolic dims, as ONNX text), remove it; beside an input, add another.
#[component]
pub fn TerminalEditorView(editor: TerminalEditor) -> impl IntoView {
    let state = expect_context::<AppState>();
    let value = editor.value;
    let input = editor.input;
    // Each field sends one edit, in the log's vocabulary: this value is `name` in
    // the graph at `graph`.
    let (graph, name) = (
        StoredValue::new(editor.graph.clone()),
        StoredValue::new(editor.name.clone()),
    );
    let edit = move |slot: Slot, make: &dyn Fn(String, String) -> Edit| {
        let at = FieldAt {
            target: Target::Value(value),
            slot,
        };
        state.edit(make(graph.get_value(), name.get_value()), Some(at));
    };
    let new_name = RwSignal::new(String::new());
    let new_type = RwSignal::new(String::new());
    view! {
        <div class="node-editor" data-testid="terminal-editor">
            <label class="node-edit-row">
                <span>"name"</span>
                <input
                    type="text"
                    data-testid="terminal-name"
                    title="Rename; every reader follows"
                    prop:value=editor.name.clone()
                    on:change=move |e| {
                        let to = event_target_value(&e).trim().to_string();
                        edit(Slot::Name, &|graph, from| Edit::RenameValue { graph, from, to: to.clone() })
                    }
                />
            </label>
            {field_error(state, Target::Value(value), Slot::Name)}
            <label class="node-edit-row">
                <span>"type"</span>
                <input
                    type="text"
                    data-testid="terminal-type"
                    placeholder="float[batch, 4]"
                    title="The stated type as ONNX text: element type, fixed or symbolic dims"
                    prop:value=editor.ty.clone()
                    on:change=move |e| {
                        let ty = event_target_value(&e).trim().to_string();
                        edit(Slot::Type, &|graph, name| Edit::SetType { graph, name, ty: ty.clone() })
                    }
                />
            </label>
            {field_error(state, Target::Value(value), Slot::Type)}
            <div class="node-edit-actions">
                <button
                    data-testid="terminal-remove"
                    title=if input { "Remove this input (only when nothing reads it)" } else { "Remove this output (the value stays)" }
                    on:click=move |_| edit(Slot::Action, &|graph, name| match input {
                        true => Edit::RemoveInput { graph, name },
                        false => Edit::RemoveOutput { graph, name },
                    })
                >
                    {if input { "Remove input" } else { "Remove output" }}
                </button>
            </div>
            {field_error(state, Target::Value(value), Slot::Action)}
            <Show when=move || input>
                <div class="node-edit-row">
                    <span>"new input"</span>
                    <input
                        type="text"
                        data-testid="terminal-new-name"
                        placeholder="name"
                        on:input=move |e| new_name.set(event_target_value(&e))
                    />
                    <input
                        type="text"
                        data-testid="terminal-new-type"
                        placeholder="float[N]"
                        on:input=move |e| new_type.set(event_target_value(&e))
                    />
                    <button
                        data-testid="terminal-add"
                        title="Add a graph input (undo with Ctrl+Z)"
                        on:click=move |_| {
                            let (name, ty) = (new_name.get_untracked().trim().to_string(), new_type.get_untracked().trim().to_string());
                            edit(Slot::NewInput, &|graph, _| Edit::AddInput { graph, name: name.clone(), ty: ty.clone() })
                        }
                    >
                        "Add"
                    </button>
                </div>
                {field_error(state, Target::Value(value), Slot::NewInput)}
            </Show>
        </div>
    }
}
