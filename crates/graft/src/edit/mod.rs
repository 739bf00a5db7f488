//! Edits: one value per change a user makes, in the main graph, a function body or an
//! If/Loop/Scan body at any depth, each applied with an undo record, and a history
//! that undoes and redoes them and exports its log as JSON for `graft apply`.
//!
//! ```
//! use graft::edit::{Edit, History};
//!
//! let text = "<ir_version: 8, opset_import: [\"\" : 18]>\n\
//!     g (float[N] x) => (y) { a = LeakyRelu <alpha = 0.1> (x) y = Neg(a) }";
//! let mut model = graft::text::parse_model(text).unwrap().model;
//! let before = graft::text::print_model(&model);
//! let mut history = History::default();
//! history.apply(&mut model, Edit::RenameValue { graph: "main".into(), from: "a".into(), to: "act".into() }).unwrap();
//! history.apply(&mut model, Edit::SetAttribute { graph: "main".into(), node: 0, attribute: "alpha = 0.2".into() }).unwrap();
//! assert!(graft::text::print_model(&model).contains("act = LeakyRelu <alpha = 0.2> (x)"));
//! // A refused edit changes nothing.
//! assert!(history.apply(&mut model, Edit::RenameValue { graph: "main".into(), from: "x".into(), to: "y".into() }).is_err());
//! history.undo(&mut model);
//! history.undo(&mut model);
//! assert_eq!(graft::text::print_model(&model), before);
//! history.redo(&mut model).unwrap();
//! // The log (what is applied now) replays on the original: `graft apply`.
//! assert_eq!(history.log().len(), 1);
//! let json = history.log_json();
//! let mut again = graft::text::parse_model(text).unwrap().model;
//! graft::edit::replay(&mut again, &json).unwrap();
//! assert_eq!(graft::text::print_model(&again), graft::text::print_model(&model));
//! ```
//!
//! Decisions:
//!
//! - **Addressing.** An edit names its graph by a path: `main`, `fn:DOMAIN.NAME` (or
//!   `fn:DOMAIN.NAME:OVERLOAD`) for a function body, followed by `/N.ATTR` (or
//!   `/N.ATTR[K]` for a GRAPHS attribute) for the body held by node `N` (its index in
//!   the graph) — e.g. `main/3.then_branch`. Nodes are indices in their graph, values
//!   are names. Indices are what the graph is when the edit applies, so a log replays
//!   on the model it was made on.
//! - **Values in text.** Attributes are ONNX text (`alpha = 0.5`, `axes = [0, 1]`),
//!   types are ONNX text (`float[N, 3]`), as `graft::text` reads them.
//! - **Two forms.** An [`Edit`] is the serialized record (the log, `graft apply`). A
//!   UI makes a [`Change`]: ids (of nodes, values, graphs) and typed values (an
//!   [`crate::ir::Attribute`], a [`crate::ir::Type`]), read from what the user typed
//!   by [`read_attributes`] and [`read_type`] at the field. The two convert at the
//!   edge: [`Edit::resolve`] reads a record against the model, [`Change::record`]
//!   writes the record of a change (before it applies; an id that names nothing in
//!   the model is refused there). Every edit is applied as a [`Change`].
//! - **Undo records, not snapshots.** A primitive edit records only what it changed
//!   (a node list, a node's inputs or attributes, a name, a graph's inputs or
//!   outputs); tensor payloads are shared, never copied. Nodes an edit deletes stay in
//!   the arenas (ids are never reused), so undo puts back the very same ids. The
//!   compound edits (specialize, inline calls, outline, …) record what they changed:
//!   the arena entries they modified, as they were, how long each arena was, and the
//!   model's own fields (`diff.rs`); replacing the whole model by text keeps the model
//!   before.
//! - **Refusal.** An edit that cannot apply (no such graph, node or value, a name
//!   already used in the scope tree, a value defined after the node that would read
//!   it, a type or attribute that does not parse) is an [`EditError`] and changes
//!   nothing. So is an edit that would leave the model worse by the checker (more
//!   errors than before: a wrong attribute type, a dangling reference after deleting
//!   a node that is still read, a model output of unknown type): [`History`],
//!   [`apply_checked`] and [`replay`] undo it and name the first new error. A model
//!   that was clean stays clean through every edit.
//! - **Redo** applies the edit again; the log holds the edits in force (undone ones
//!   are dropped from it when a new edit is made).

mod apply;
mod change;
mod compound;
mod diff;
mod npy;
mod path;

use serde::{Deserialize, Serialize};

use crate::check::Checked;
use crate::diag::{Diagnostic, Severity};
use crate::ir::{Model, Touched};

pub use apply::Undo;
pub use change::{
    Change, Documented, live_node, live_value, read_attributes, read_type, visible_value,
};
pub use npy::{base64_encode, npy_bytes, npy_tensor};
pub use path::{graph_path, resolve_path};

/// One change to a model. See the module documentation for the addressing.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "snake_case")]
pub enum Edit {
    /// Sets (adds or replaces) attributes of a node, as ONNX text: `alpha = 0.5`, or a
    /// reference to an attribute of the enclosing function: `alpha: float = @a`.
    SetAttribute {
        graph: String,
        node: usize,
        attribute: String,
    },
    RemoveAttribute {
        graph: String,
        node: usize,
        name: String,
    },
    /// Renames a value (a graph input or output, an initializer, a node output);
    /// every reference follows, in subgraphs too.
    RenameValue {
        graph: String,
        from: String,
        to: String,
    },
    /// Renames a node (`""` removes the name).
    RenameNode {
        graph: String,
        node: usize,
        to: String,
    },
    /// Deletes nodes. With `reconnect`, a deleted node with one input and one output
    /// is passed through: what read its output reads its input.
    DeleteNodes {
        graph: String,
        nodes: Vec<usize>,
        #[serde(default)]
        reconnect: bool,
    },
    /// Adds a node. `inputs` are value names (`""` omits one); `outputs` are new value
    /// names (generated from the op when empty); `attributes` is ONNX text; with
    /// `defaults`, every schema attribute with a default that is not given is written
    /// out. The node goes after the last producer of its inputs (or at `at`).
    AddNode {
        graph: String,
        op_type: String,
        #[serde(default)]
        domain: String,
        #[serde(default)]
        inputs: Vec<String>,
        #[serde(default)]
        outputs: Vec<String>,
        #[serde(default)]
        attributes: String,
        #[serde(default)]
        defaults: bool,
        #[serde(default)]
        name: String,
        #[serde(default)]
        at: Option<usize>,
    },
    /// Connects input `index` of a node to a value (`""` disconnects it).
    SetInput {
        graph: String,
        node: usize,
        index: usize,
        value: String,
    },
    /// Adds a graph input (or a function input: `ty` is then ignored).
    AddInput {
        graph: String,
        name: String,
        #[serde(default)]
        ty: String,
    },
    /// Removes a graph input that nothing reads.
    RemoveInput {
        graph: String,
        name: String,
    },
    /// Makes a value a graph output.
    AddOutput {
        graph: String,
        value: String,
    },
    /// Removes a graph output (the value stays).
    RemoveOutput {
        graph: String,
        name: String,
    },
    /// Sets the stated type of a graph input or output (element type, shape,
    /// symbolic dims), as ONNX text: `float[batch, 3]`.
    SetType {
        graph: String,
        name: String,
        ty: String,
    },
    /// Replaces an initializer's value with an `.npy` file's array (base64 in the log).
    SetInitializer {
        graph: String,
        name: String,
        npy_base64: String,
    },
    /// Specializes a call (node) of a local function, setting `attributes` (ONNX
    /// text) first; see `crate::specialize`.
    Specialize {
        graph: String,
        node: usize,
        #[serde(default)]
        attributes: String,
        /// Functions kept even when no call of them is left (`DOMAIN.NAME[:OVERLOAD]`).
        #[serde(default)]
        keep: Vec<String>,
    },
    /// Specializes every call whose attributes are all values, or only the calls of
    /// `function` (`DOMAIN.NAME`) when it is given.
    SpecializeAll {
        #[serde(default)]
        function: String,
        #[serde(default)]
        keep: Vec<String>,
    },
    /// Points a call at another existing overload of its function.
    UseOverload {
        graph: String,
        node: usize,
        overload: String,
    },
    /// Replaces a standard-op node by its function body.
    ExpandStandard {
        graph: String,
        node: usize,
    },
    RenameFunction {
        function: String,
        to: String,
    },
    /// Deletes a function nothing calls.
    DeleteFunction {
        function: String,
    },
    /// Inlines another model (`.onnx` bytes, base64) into a graph: `bindings` are
    /// (guest input, host value) pairs, `expose` (guest output, new output name or
    /// `""`) pairs; with `function` (`DOMAIN.NAME`) the guest becomes one function
    /// and a call. See `crate::inline`.
    InlineModel {
        graph: String,
        guest_base64: String,
        #[serde(default)]
        bindings: Vec<(String, String)>,
        #[serde(default)]
        expose: Vec<(String, String)>,
        #[serde(default)]
        expose_all: bool,
        #[serde(default)]
        prefix: String,
        #[serde(default)]
        function: String,
        /// The version to use of a non-default domain both models import.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        domain_versions: Vec<(String, i64)>,
    },
    /// Inlines the calls of one function (`DOMAIN.NAME[:OVERLOAD]`) or, when empty,
    /// of every local function.
    InlineCalls {
        #[serde(default)]
        function: String,
    },
    /// Outlines nodes of one graph into a new function `DOMAIN.NAME` and one call.
    Outline {
        graph: String,
        nodes: Vec<usize>,
        function: String,
    },
    /// Replaces the whole model by ONNX text (the text pane); the attached external
    /// data stays. Text that does not parse is refused with its line and column.
    ReplaceModel {
        text: String,
    },
    /// Replaces one function (`DOMAIN.NAME[:OVERLOAD]`) by ONNX text, in place.
    ReplaceFunction {
        function: String,
        text: String,
    },
    /// Sets the doc string of node `node` of `graph`, of `graph` itself (a function's
    /// body: of the function), or, with `graph` empty, of the model. `""` removes it.
    SetDocString {
        #[serde(default)]
        graph: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        node: Option<usize>,
        doc: String,
    },
}

/// One line for a history panel: `Rename value a → act (main)`. Nodes are named by
/// their index (`node 5`); [`describe_in`] names them as the model has them.
pub fn describe(edit: &Edit) -> String {
    describe_with(edit, &|_, k| format!("node {k}"))
}

/// [`describe`] with each node named as `model` (the model the edit applies to) has
/// it: its op and name, `Softmax "head/Softmax"`, or `node 5 (Softmax)` unnamed.
pub fn describe_in(model: &Model, edit: &Edit) -> String {
    describe_with(edit, &|graph, k| {
        let node = path::resolve_path(model, graph)
            .ok()
            .and_then(|g| model.graph(g).nodes.get(k).copied())
            .map(|n| model.node(n));
        match node {
            Some(n) if !n.name().is_empty() => format!("{} {:?}", n.op_type(), n.name()),
            Some(n) => format!("node {k} ({})", n.op_type()),
            None => format!("node {k}"),
        }
    })
}

fn describe_with(edit: &Edit, node_name: &dyn Fn(&str, usize) -> String) -> String {
    let at = |g: &str| {
        if g == "main" {
            String::new()
        } else {
            format!(" in {g}")
        }
    };
    match edit {
        Edit::SetAttribute {
            graph,
            node,
            attribute,
        } => {
            format!(
                "Set {attribute} on {}{}",
                node_name(graph, *node),
                at(graph)
            )
        }
        Edit::RemoveAttribute { graph, node, name } => {
            format!(
                "Remove attribute {name} of {}{}",
                node_name(graph, *node),
                at(graph)
            )
        }
        Edit::RenameValue { graph, from, to } => format!("Rename {from} → {to}{}", at(graph)),
        Edit::RenameNode { graph, node, to } => {
            format!("Rename {} → {to:?}{}", node_name(graph, *node), at(graph))
        }
        Edit::DeleteNodes {
            graph,
            nodes,
            reconnect,
        } => format!(
            "Delete {}{}{}",
            match nodes.as_slice() {
                [one] => node_name(graph, *one),
                _ => format!("{} nodes", nodes.len()),
            },
            if *reconnect { " (reconnected)" } else { "" },
            at(graph)
        ),
        Edit::AddNode { graph, op_type, .. } => format!("Add {op_type}{}", at(graph)),
        Edit::SetInput {
            graph,
            node,
            index,
            value,
        } if value.is_empty() => {
            format!(
                "Disconnect input {index} of {}{}",
                node_name(graph, *node),
                at(graph)
            )
        }
        Edit::SetInput {
            graph,
            node,
            index,
            value,
        } => {
            format!(
                "Connect {value} to input {index} of {}{}",
                node_name(graph, *node),
                at(graph)
            )
        }
        Edit::AddInput { graph, name, .. } => format!("Add input {name}{}", at(graph)),
        Edit::RemoveInput { graph, name } => format!("Remove input {name}{}", at(graph)),
        Edit::AddOutput { graph, value } => format!("Add output {value}{}", at(graph)),
        Edit::RemoveOutput { graph, name } => format!("Remove output {name}{}", at(graph)),
        Edit::SetType { graph, name, ty } => format!("Type {name}: {ty}{}", at(graph)),
        Edit::SetInitializer { graph, name, .. } => format!("Replace {name}{}", at(graph)),
        Edit::Specialize {
            graph,
            node,
            attributes,
            ..
        } if attributes.is_empty() => {
            format!("Specialize {}{}", node_name(graph, *node), at(graph))
        }
        Edit::Specialize {
            graph,
            node,
            attributes,
            ..
        } => {
            format!(
                "Specialize {} with {attributes}{}",
                node_name(graph, *node),
                at(graph)
            )
        }
        Edit::SpecializeAll { function, .. } if function.is_empty() => {
            "Specialize all calls".into()
        }
        Edit::SpecializeAll { function, .. } => format!("Specialize the calls of {function}"),
        Edit::UseOverload {
            graph,
            node,
            overload,
        } => {
            format!(
                "Call overload {overload} from {}{}",
                node_name(graph, *node),
                at(graph)
            )
        }
        Edit::ExpandStandard { graph, node } => {
            format!("Expand {}{}", node_name(graph, *node), at(graph))
        }
        Edit::RenameFunction { function, to } => format!("Rename {function} → {to}"),
        Edit::DeleteFunction { function } => format!("Delete {function}"),
        Edit::InlineModel {
            graph, function, ..
        } if function.is_empty() => {
            format!("Inline a model{}", at(graph))
        }
        Edit::InlineModel {
            graph, function, ..
        } => {
            format!("Inline a model as {function}{}", at(graph))
        }
        Edit::InlineCalls { function } if function.is_empty() => "Inline every call".into(),
        Edit::InlineCalls { function } => format!("Inline the calls of {function}"),
        Edit::Outline {
            graph,
            nodes,
            function,
        } => {
            format!("Outline {} nodes into {function}{}", nodes.len(), at(graph))
        }
        Edit::ReplaceModel { .. } => "Edit the model as text".into(),
        Edit::ReplaceFunction { function, .. } => format!("Edit {function} as text"),
        Edit::SetDocString { graph, node, .. } => match node {
            Some(k) => format!("Document {}{}", node_name(graph, *k), at(graph)),
            None if graph.is_empty() => "Document the model".into(),
            None => format!("Document the graph {graph}"),
        },
    }
}

/// Why an edit was refused, and which of its fields is at fault; the model is
/// unchanged.
#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq, Serialize, Deserialize)]
#[error("{message}")]
pub struct EditError {
    pub field: Field,
    pub message: String,
}

impl EditError {
    pub fn new(field: Field, message: impl Into<String>) -> Self {
        Self {
            field,
            message: message.into(),
        }
    }
}

/// The part of an edit an [`EditError`] is about, so that a UI can show the error
/// beside the field the user filled in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Field {
    /// `graph`: the path names no graph (or one the edit cannot change).
    Graph,
    /// `node` or `nodes`: no such node.
    Node,
    /// A value the edit reads or names (`from`, `value`, `name` of an existing input,
    /// output or initializer).
    Value,
    /// Input `k` of the node (`SetInput`'s `index`, `AddNode`'s `inputs[k]`).
    Input(usize),
    /// A new name (`to`, a new input's `name`, an output of `AddNode`).
    NewName,
    /// An attribute, by name (empty when the text names none).
    Attribute(String),
    /// `op_type` or `domain` of a new node.
    Op,
    /// A type given as text.
    Type,
    /// Data given with the edit: an `.npy` array, a guest model.
    Data,
    /// `function`: the function the edit names.
    Function,
    /// `text` (the model or a function as ONNX text), at a line and column.
    Text { line: usize, column: usize },
    /// The edit as a whole: it would leave the model invalid, a transform refused
    /// it, or the log around it is malformed.
    Edit,
}

/// Applies one edit (a record, resolved against `model`); on success, what undoes
/// it. This is the bare edit: it does not hold the model to the checker
/// ([`apply_checked`] does, and so do [`History`] and [`replay`]).
pub fn apply(model: &mut Model, edit: &Edit) -> Result<Undo, EditError> {
    let change = edit.resolve(model)?;
    apply::apply(model, &change)
}

/// Applies one change only when it leaves the model no worse by the checker: no more
/// errors than before (on a clean model, none). `checked` is the check of `model`;
/// on success it is the check of the edited model (brought up to date with what the
/// change touched), and the change's record (for the log), its undo record and what
/// it touched are returned. A change whose ids name nothing in the model, or that
/// would add an error, is refused, naming the id or the first new error; the model
/// and `checked` are as they were.
pub fn apply_checked(
    model: &mut Model,
    change: &Change,
    checked: &mut Checked,
) -> Result<(Edit, Undo, Touched), EditError> {
    let record = change.record(model)?;
    let (u, touched) = held_to_checker(model, change, checked)?;
    Ok((record, u, touched))
}

/// Applies a change (its ids checked) and keeps it only when the checker finds no
/// more errors than before.
fn held_to_checker(
    model: &mut Model,
    change: &Change,
    checked: &mut Checked,
) -> Result<(Undo, Touched), EditError> {
    let before = checked.errors();
    let u = apply::apply(model, change)?;
    let touched = u.touched(model);
    let mut after = checked.clone();
    after.update(model, &touched);
    if after.errors() > before {
        let old = checked.diagnostics();
        let is_error = |d: &&Diagnostic| d.severity == Severity::Error;
        let new = after.diagnostics().iter().filter(is_error);
        let mut new = new.filter(|d| {
            !old.iter()
                .any(|o| o.code == d.code && o.message == d.message)
        });
        let first = new
            .next()
            .or_else(|| after.diagnostics().iter().find(is_error))
            .cloned();
        undo(model, u);
        return Err(invalid(first.as_ref()));
    }
    *checked = after;
    Ok((u, touched))
}

/// The refusal of an edit that would leave the model invalid, naming the first new
/// error.
pub(crate) fn invalid(first: Option<&Diagnostic>) -> EditError {
    EditError::new(
        Field::Edit,
        format!(
            "it would leave the model invalid, so it is not applied: {}",
            first.map_or_else(|| "more errors".to_string(), |d| d.to_string())
        ),
    )
}

/// Undoes an edit (the model must be as the edit left it).
pub fn undo(model: &mut Model, undo: Undo) {
    apply::undo(model, undo);
}

/// Applies a JSON log (an array of edits, as [`History::log_json`] writes) as the
/// document host does ([`crate::host::Command::Log`]): every edit held to the checker
/// and to inference, all or none. On the first refused edit the model is as it was,
/// and the error names the edit's position.
pub fn replay(model: &mut Model, json: &str) -> Result<usize, EditError> {
    let edits: Vec<Edit> = serde_json::from_str(json)
        .map_err(|e| EditError::new(Field::Edit, format!("the edit log: {e}")))?;
    let mut host = crate::host::Host::open(std::mem::take(model), Vec::new());
    let applied = host.apply(crate::host::Command::Log(edits));
    *model = host.into_model();
    match applied {
        Ok(applied) => Ok(applied.edits),
        Err(crate::host::EngineError::InLog { index, error }) => Err(EditError::new(
            error.field,
            format!("edit {} of the log: {}", index + 1, error.message),
        )),
        Err(e) => Err(EditError::new(Field::Edit, e.to_string())),
    }
}

/// Undo and redo over a model's edits, without a fixed limit.
#[derive(Debug, Default)]
pub struct History {
    /// Each edit in force with its undo, its stamp ([`History::stamps`]) and its
    /// line ([`describe_in`] the model it applied to).
    done: Vec<(Edit, Undo, u64, String)>,
    /// The undone edits with their lines, next to redo last.
    undone: Vec<(Edit, String)>,
}

/// The last stamp given, across every history (a new one's stamps never repeat an
/// old one's).
static STAMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl History {
    /// Applies `edit` when it leaves the model no worse by the checker (checking the
    /// whole model before and after; [`History::apply_checked`] keeps a check
    /// current instead). On success it is undoable and the redo list is dropped.
    /// Returns what it touched.
    pub fn apply(&mut self, model: &mut Model, edit: Edit) -> Result<Touched, EditError> {
        self.apply_checked(model, edit, &mut Checked::new(model))
    }

    /// [`History::apply`] with `checked`, the check of `model`, brought up to date
    /// (see [`apply_checked`]). The edit, as given, is its record in the log.
    pub fn apply_checked(
        &mut self,
        model: &mut Model,
        edit: Edit,
        checked: &mut Checked,
    ) -> Result<Touched, EditError> {
        let change = edit.resolve(model)?;
        let line = describe_in(model, &edit);
        let (u, touched) = held_to_checker(model, &change, checked)?;
        self.push(edit, u, line);
        self.undone.clear();
        Ok(touched)
    }

    /// Applies `edits` in order, each as [`History::apply_checked`] does, all or
    /// none: on the first one refused, the ones before it are undone, and the model,
    /// `checked` and the redo list are as they were. The error carries the refused
    /// edit's position (from 0).
    pub fn apply_all(
        &mut self,
        model: &mut Model,
        edits: Vec<Edit>,
        checked: &mut Checked,
    ) -> Result<usize, (usize, EditError)> {
        let (undone, check) = (self.undone.clone(), checked.clone());
        let total = edits.len();
        for (k, edit) in edits.into_iter().enumerate() {
            if let Err(e) = self.apply_checked(model, edit, checked) {
                for _ in 0..k {
                    self.undo(model);
                }
                self.undone = undone;
                *checked = check;
                return Err((k, e));
            }
        }
        Ok(total)
    }

    /// Applies a change made by ids (a UI's) as [`History::apply_checked`] does; its
    /// record in the log is [`Change::record`]'s.
    pub fn apply_change(
        &mut self,
        model: &mut Model,
        change: &Change,
        checked: &mut Checked,
    ) -> Result<Touched, EditError> {
        let edit = change.record(model)?;
        let line = describe_in(model, &edit);
        let (u, touched) = held_to_checker(model, change, checked)?;
        self.push(edit, u, line);
        self.undone.clear();
        Ok(touched)
    }

    /// Undoes the last edit; returns it and what undoing it touched, or `None` when
    /// there is nothing to undo.
    pub fn undo(&mut self, model: &mut Model) -> Option<(Edit, Touched)> {
        let (edit, u, _, line) = self.done.pop()?;
        let touched = u.touched_by_undo(model);
        undo(model, u);
        self.undone.push((edit.clone(), line));
        Some((edit, touched))
    }

    /// Takes back the last edit as if it had never been made: undone and not
    /// redoable. Returns what undoing it touched.
    pub(crate) fn take_back(&mut self, model: &mut Model) -> Option<Touched> {
        let (_, u, _, _) = self.done.pop()?;
        let touched = u.touched_by_undo(model);
        undo(model, u);
        Some(touched)
    }

    /// Puts back the redo list a taken-back edit cleared.
    pub(crate) fn keep_undone(&mut self, undone: Vec<(Edit, String)>) {
        self.undone = undone;
    }

    /// Applies the last undone edit again; returns it and what it touched.
    pub fn redo(&mut self, model: &mut Model) -> Result<Option<(Edit, Touched)>, EditError> {
        let Some((edit, line)) = self.undone.pop() else {
            return Ok(None);
        };
        match apply(model, &edit) {
            Ok(u) => {
                let touched = u.touched(model);
                self.push(edit.clone(), u, line);
                Ok(Some((edit, touched)))
            }
            Err(e) => {
                self.undone.push((edit, line));
                Err(e)
            }
        }
    }

    pub fn can_undo(&self) -> bool {
        !self.done.is_empty()
    }

    pub fn can_redo(&self) -> bool {
        !self.undone.is_empty()
    }

    fn push(&mut self, edit: Edit, undo: Undo, line: String) {
        let stamp = STAMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        self.done.push((edit, undo, stamp, line));
    }

    /// The edits in force, oldest first.
    pub fn log(&self) -> Vec<&Edit> {
        self.done.iter().map(|(e, ..)| e).collect()
    }

    /// The history panel's lines: the edits in force (oldest first), then the undone
    /// ones (the next to redo first), each named as the model was when it applied.
    pub fn lines(&self) -> (Vec<String>, Vec<String>) {
        (
            self.done.iter().map(|(.., line)| line.clone()).collect(),
            self.undone
                .iter()
                .rev()
                .map(|(_, line)| line.clone())
                .collect(),
        )
    }

    /// A stamp for each edit in force, oldest first, new for every edit applied or
    /// redone in any history: two logs agree up to where their stamps do, so a copy of the log is
    /// kept up to date with the edits past that point alone.
    pub fn stamps(&self) -> Vec<u64> {
        self.done.iter().map(|(_, _, s, _)| *s).collect()
    }

    /// The undone edits with their lines, next to redo last.
    pub fn undone(&self) -> &[(Edit, String)] {
        &self.undone
    }

    /// [`History::log`] as JSON, for `graft apply`.
    pub fn log_json(&self) -> String {
        serde_json::to_string_pretty(&self.log()).unwrap_or_else(|_| "[]".into())
    }
}
