//! The session: which model is open, its summary, what is loading, and the error to
//! show. [`Session`] is plain Rust (the open/replace rules live here) and lives in the
//! engine's Web Worker (`engine`), which runs the page's requests on it; [`AppState`]
//! is the page's reactive handle the components share: it sends the requests
//! (`protocol`) and keeps what the engine sends back in signals.
//!
//! One module per concern, each an `impl Session` block (in the style of message
//! handlers): `opening` (loads, the banner, export), `document` (every edit, undo
//! and redo, through the open model's `graft::host::Host`, which owns the model, its
//! history and what is derived from them), `canvas` (groups, expand-all, drawing), `navigation`
//! (search, links, the selection across states), `problems`, `properties` (the panel
//! and the editors it offers, the call editor's check), `node_edit` (the node and
//! terminal editors, the text pane), `library` (the function
//! library's actions), `inline` (the inline dialog), `run` (running the model: its
//! inputs and what came out); `engine`, `protocol` and `handle`
//! ([`AppState`]) as above. This
//! file holds the types they share: the session, the open model, examples, field
//! errors.

use std::sync::Arc;

use graft::hash::FxMap;
use graft::ir::{NodeId, Touched};
use graft::view::svg::{self, Detail};
use graft::view::{ItemId, ItemKind, Progress, Rect, Scene, Snapshot, View};
use graft::{Diagnostic, ExportOptions, Model, Severity, Summary};
use leptos::prelude::*;

use crate::platform::{self, LoadedFile, PickedFiles};

mod canvas;
mod compare;
mod document;
pub mod engine;
mod handle;
mod inline;
pub mod keep;
mod library;
mod navigation;
mod node_edit;
mod opening;
mod problems;
mod properties;
pub mod protocol;
mod run;

pub use compare::CompareView;
pub use handle::AppState;
pub use inline::InlineView;
pub use properties::{NodeEditor, Properties, TerminalEditor};
pub use run::{Colouring, HEAT_CLASSES, RunComparison, RunOutcome, RunView, ValuesShown};

/// A model shipped with the app, served from `examples/`, with what it shows and
/// one or two things to try on it.
#[derive(Debug)]
pub struct Example {
    pub file: &'static str,
    pub label: &'static str,
    pub about: &'static str,
    pub try_this: &'static [&'static str],
    /// Inputs that come with it, as `examples/inputs/<model>/<input>.npy` (made by
    /// `tests/interop/make_examples.py`): the Run tab gives them on the first run.
    pub inputs: &'static [&'static str],
}

pub const EXAMPLES: &[Example] = &[
    Example {
        file: "functions_and_control_flow.onnx",
        label: "Functions and control flow",
        about: "Two calls of a local function, ScaledTanh, with different compile-time \
                values of alpha, and an If whose branches are graphs of their own. Calls \
                and branches open in place.",
        try_this: &[
            "Click + on the call act1 to see ScaledTanh's body with alpha bound to 0.5.",
            "Select act1 and set alpha to 0.2 in its editor: a new overload, alpha_0p2, \
             appears on the canvas and in the library. Compare with \"the model as \
             opened\" shows the overload against its generic; Ctrl+Z takes it back.",
            "Run it (the Run tab), then select act1 and press Specialize, Compare with \
             \"the model as opened\" and press \"Run this model and …\": the outputs \
             stay the same. Set alpha to 0.2 instead and run both again: the list shows \
             which values moved, the most first.",
        ],
        inputs: &[],
    },
    Example {
        file: "function_library.onnx",
        label: "Function library: overloads and defaults",
        about: "A library of functions with attribute defaults and existing overloads \
                (ONNX IR 10): the library panel lists each with its calls.",
        try_this: &[
            "Open a function in the library and jump to one of its calls.",
            "Press \"Specialize all calls\" and watch each call get its overload.",
        ],
        inputs: &[],
    },
    Example {
        file: "live_specialization.onnx",
        label: "Live specialization: a 280-node function",
        about: "One call of a 280-node function whose body depends on its attributes: \
                specializing it folds what becomes constant.",
        try_this: &[
            "Select the call and change one of its attributes: the overload is built and \
             drawn as you type.",
            "Then Compare with \"the model as opened\": the list shows the Ifs and \
             constants the specialization folded away, and the call is marked with the \
             changes inside it.",
        ],
        inputs: &[],
    },
    Example {
        file: "silero_vad.onnx",
        label: "silero-vad: nested Ifs",
        about: "A voice-activity model whose If branches hold further Ifs.",
        try_this: &["Press e to expand everything, then c to collapse it again."],
        inputs: &["input", "state", "sr"],
    },
    Example {
        file: "transformer_24.onnx",
        label: "Transformer, 24 layers (torch-style names)",
        about: "Node names like /model/layers.3/attn/MatMul become nested groups.",
        try_this: &["Search for a node of layer 7 and jump to it."],
        inputs: &["hidden_in", "attention_mask"],
    },
    Example {
        file: "torch_transformer.onnx",
        label: "A torch export: modules and their classes",
        about: "A small transformer exported by torch's dynamo exporter: its flat nodes \
                are grouped by the modules they came from, each labelled with its class.",
        try_this: &[
            "Open enc · TransformerEncoder, then a layer, and select a node: the \
             properties show its module path, the source line that made it and its \
             metadata.",
        ],
        inputs: &[],
    },
    Example {
        file: "transformer_1000.onnx",
        label: "Large: 21,000 nodes, 1,000 layers",
        about: "A big model: groups are laid out as you open them, and the minimap \
                shows where you are.",
        try_this: &[
            "Press e: expanding everything runs in pieces, with a progress bar and \
                     Cancel.",
        ],
        inputs: &["hidden_in", "attention_mask"],
    },
    Example {
        file: "mlp.onnx",
        label: "MLP",
        about: "A tiny multi-layer perceptron, 4 → 16 → 16 → 3.",
        try_this: &[
            "Select the Softmax and add a Sigmoid after it from the palette; then look \
             at the History tab and export the edit log.",
            "Drop this model file onto the inline zone of another model to inline it \
             (its input x bound to a value of that model); then Compare with \"the \
             model as opened\" marks what the inline added and renamed.",
        ],
        inputs: &[],
    },
];

/// The example opened when the page loads.
pub const STARTUP_EXAMPLE: &str = "functions_and_control_flow.onnx";

const EXAMPLES_URL: &str = "examples";

/// Where the runtime's bridge module is served (`assets/runtime/`).
const RUNTIME_BRIDGE: &str = "runtime/graft-runtime.js";

/// Where `cargo xtask` copies onnxruntime-web's wasm build (`ort.wasm.min.mjs` and
/// its `.wasm`).
const ORT_DIR: &str = "ort/";

/// The name a download gets when the model has none.
const DEFAULT_FILE_NAME: &str = "model.onnx";

pub fn example(file: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.file == file)
}

/// Where the open model came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Example(&'static str),
    Files,
}

/// A model that opened: the core's document host (the model, its history and what
/// is derived from them) and what the page shows of it.
#[derive(Debug)]
pub struct OpenModel {
    /// The model file's name.
    pub name: String,
    pub origin: Origin,
    /// Every change goes through its door (`Host::apply`); it keeps inference, the
    /// checks, the importer's findings and the summary current.
    pub doc: graft::host::Host,
    /// The laid-out graph (`None` for a model without a graph).
    pub scene: Option<Scene>,
    /// Nodes the checker reports an error at (drawn with a badge).
    pub problem_nodes: FxMap<NodeId, ()>,
}

impl OpenModel {
    pub fn model(&self) -> &Model {
        self.doc.model()
    }

    pub fn summary(&self) -> &Arc<Summary> {
        self.doc.summary()
    }

    /// Which state of the model this is: new for every open, edit and preview
    /// (`Host::serial`). Item ids mean something only together with it.
    pub fn serial(&self) -> u64 {
        self.doc.serial()
    }
}

/// The nodes `summary`'s errors point at.
fn problem_nodes(summary: &Summary) -> FxMap<NodeId, ()> {
    summary
        .diagnostics
        .iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .filter_map(|d| d.at.node)
        .map(|n| (n, ()))
        .collect()
}

/// How the items of one state of the model map into the next (an edit or an undo):
/// the app carries its selection through it.
#[derive(Debug)]
struct Moves {
    from: u64,
    to: u64,
    items: FxMap<ItemId, ItemId>,
    /// What to select afterwards instead (an outline selects its new call).
    focus: Option<ItemId>,
}

/// Identifies one load; only the latest one may replace the open model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(u64);

#[derive(Debug)]
struct Pending {
    ticket: Ticket,
    what: String,
}

/// A change of many groups (expand all, one level more or less) being laid out in
/// pieces, so the page stays responsive and the user can cancel.
#[derive(Debug)]
struct Work {
    /// Which run this is: a piece scheduled for an earlier run does nothing.
    run: u64,
    what: &'static str,
    /// The scene as it was, for Cancel.
    before: Snapshot,
    /// Group layouts to do, as counted by the first piece.
    total: usize,
    remaining: usize,
}

/// What a piece of [`Session::work_step`] left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// More pieces to do.
    More,
    /// Laid out and placed: the new picture is ready.
    Finished,
    /// The run was cancelled or its model replaced.
    Gone,
}

/// How far a [`Work`] has come, for the progress bar.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct WorkStatus {
    pub run: u64,
    #[serde(deserialize_with = "graft::interned::deserialize")]
    pub what: graft::interned::Static,
    pub done: usize,
    pub total: usize,
}

#[derive(Debug, Default)]
pub struct Session {
    open: Option<OpenModel>,
    error: Option<String>,
    /// The last refused edit made from an editor's field, shown beside that field.
    field_error: Option<FieldError>,
    pending: Option<Pending>,
    issued: u64,
    work: Option<Work>,
    runs: u64,
    /// The inline being set up in the dialog.
    draft: Option<inline::Draft>,
    /// Functions the user keeps in the library even when no call is left
    /// (specialization removes other generics it leaves uncalled).
    kept: std::collections::BTreeSet<graft::ir::FunctionKey>,
    /// How the last edit or undo moved the items.
    moves: Option<Moves>,
    /// How many models have been opened (not edited): the canvas fits each new one.
    opened: u64,
    /// The model the open one is compared with, and the diff.
    compare: Option<compare::Comparison>,
    /// The Run tab's choices and the last run.
    model_runs: run::Runs,
}

impl Session {
    pub fn open(&self) -> Option<&OpenModel> {
        self.open.as_ref()
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Why the last edit made from `field` of `target`'s editor was refused, if it was
    /// (the engine sends the page the refused field with its message).
    #[cfg(test)]
    pub fn field_error(&self, target: Target, field: &Slot) -> Option<&str> {
        let e = self.field_error.as_ref()?;
        (e.at.target == target && e.at.slot == *field).then_some(e.message.as_str())
    }

    /// What is loading, e.g. `Opening mlp.onnx…`.
    pub fn pending(&self) -> Option<&str> {
        self.pending.as_ref().map(|p| p.what.as_str())
    }
}

/// At most this many items are built by "expand all" (deeply nested calls multiply).
const EXPAND_LIMIT: usize = 200_000;
/// Search builds at most this many items while looking into unopened groups.
const SEARCH_ITEM_LIMIT: usize = 300_000;
/// The minimap shows boxes down to this many levels below the root.
const MINIMAP_DEPTH: u32 = 3;
/// The minimap's longer side in CSS pixels (the longer side of the graph maps to it).
pub const MINIMAP_SIDE: f64 = 180.0;
/// A shared link names the open groups only up to this many (beyond, an expand-all's
/// thousands would make an address of many kilobytes, written at every pan): it keeps
/// the example, the selection and the camera.
const LINK_GROUPS: usize = 200;
/// At most this many search results are listed.
const SEARCH_RESULTS: usize = 200;

/// One search result.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchHit {
    pub item: ItemId,
    pub title: String,
    pub subtitle: String,
    /// The groups it sits in, outermost first.
    pub path: String,
    /// For a value that crosses group boundaries (one terminal per boundary): the
    /// path of every other terminal of it, listed once under the first.
    pub also: Vec<String>,
}

/// One problem in the problems list.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Problem {
    /// Its index in the summary's diagnostics.
    pub index: usize,
    pub error: bool,
    pub code: String,
    pub message: String,
    pub location: String,
    pub at_node: bool,
}

/// One local function in the function library.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FunctionInfo {
    /// Position in the model's function list.
    pub index: usize,
    /// `DOMAIN.NAME[:OVERLOAD]`, as an edit names it.
    pub key: String,
    pub domain: String,
    pub name: String,
    pub overload: String,
    /// Declared attributes with their defaults.
    pub attributes: Vec<(String, String)>,
    pub doc: String,
    /// Kept in the library when no call is left.
    pub kept: bool,
}

/// Search results for `found`: title, name, and the groups each sits in.
fn hits(view: &View, found: Vec<ItemId>) -> Vec<SearchHit> {
    // A value is one hit, however many group boundaries it crosses: its terminals
    // after the first are its other places.
    let mut first_of: FxMap<graft::ir::ValueId, usize> = FxMap::default();
    let mut out: Vec<SearchHit> = Vec::new();
    for hit in found.into_iter().filter_map(|id| {
        let item = view.item(id)?;
        let mut path = Vec::new();
        let mut current = item.parent;
        while let Some(p) = current {
            let parent = view.item(p)?;
            if parent.parent.is_some() {
                path.push(if parent.subtitle.is_empty() {
                    parent.title.clone()
                } else {
                    format!("{} {}", parent.title, parent.subtitle)
                });
            }
            current = parent.parent;
        }
        path.reverse();
        let value = match item.kind {
            ItemKind::In { value } | ItemKind::Out { value } => Some(value),
            _ => None,
        };
        Some((
            value,
            SearchHit {
                item: id,
                title: item.title.clone(),
                subtitle: item.subtitle.clone(),
                path: path.join(" › "),
                also: Vec::new(),
            },
        ))
    }) {
        let (value, hit) = hit;
        if let Some(v) = value {
            if let Some(&k) = first_of.get(&v) {
                out[k].also.push(hit.path);
                continue;
            }
            first_of.insert(v, out.len());
        }
        if out.len() == SEARCH_RESULTS {
            break;
        }
        out.push(hit);
    }
    out
}

/// Data files opened with a model and kept where they are: each read a tensor at a
/// time when its bytes are needed (an export, a comparison), by file name.
pub type DataSources = Vec<(String, std::rc::Rc<dyn graft::external::ReadRange>)>;

/// Opens the model among `files` (the others are its external-data files), all its
/// stages at once (the tests' way; the app runs them a turn apart).
#[cfg(test)]
fn open_files(files: Vec<LoadedFile>, origin: Origin) -> Result<OpenModel, String> {
    let mut loading = Loading::decode(ModelFile::Read(files), Vec::new(), origin)?;
    loading.check();
    loading.infer();
    Ok(loading.lay_out())
}

/// The model file to open: read into memory with any data files (a fetched example, a
/// URL), or a chosen file read a range at a time.
pub enum ModelFile {
    Read(Vec<LoadedFile>),
    Source(String, std::rc::Rc<dyn graft::external::ReadRange>),
}

impl ModelFile {
    /// Imports the model and attaches its data files and `sources`. Returns its file
    /// name, the model and the importer's diagnostics.
    fn load(self, sources: DataSources) -> Result<(String, Model, Vec<Diagnostic>), String> {
        match self {
            ModelFile::Read(files) => load_model(files, sources),
            ModelFile::Source(name, source) => load_model_from(name, source, sources),
        }
    }
}

/// A model being opened, stage by stage: the app runs the stages with turns of the
/// event loop between them once one has run long enough, so that the page paints the
/// progress and takes a Cancel (`AppState::load`).
pub struct Loading {
    name: String,
    origin: Origin,
    model: Model,
    imported: Arc<Vec<Diagnostic>>,
    checked: Option<graft::check::Checked>,
    inferred: Option<Arc<graft::infer::Inferred>>,
}

impl Loading {
    /// The first stage: imports the model among `files` and attaches the others and
    /// `sources` as its data files.
    pub fn decode(
        files: ModelFile,
        sources: DataSources,
        origin: Origin,
    ) -> Result<Loading, String> {
        let (name, model, imported) = files.load(sources)?;
        Ok(Loading {
            name,
            origin,
            model,
            imported: Arc::new(imported),
            checked: None,
            inferred: None,
        })
    }

    /// How many nodes the model has, in every graph and function: for the progress
    /// note.
    pub fn nodes(&self) -> usize {
        self.model.nodes.len()
    }

    /// Runs the checker.
    pub fn check(&mut self) {
        self.checked = Some(graft::check::Checked::new(&self.model));
    }

    /// Infers types and shapes.
    pub fn infer(&mut self) {
        self.inferred = Some(Arc::new(graft::infer::infer(&self.model)));
    }

    /// The last stage: builds the view, lays it out, and gives the model to open
    /// (a stage skipped before runs here).
    pub fn lay_out(self) -> OpenModel {
        let checked = self
            .checked
            .unwrap_or_else(|| graft::check::Checked::new(&self.model));
        let inferred = self
            .inferred
            .unwrap_or_else(|| Arc::new(graft::infer::infer(&self.model)));
        let doc = graft::host::Host::from_parts(self.model, self.imported, checked, inferred);
        open_model(self.name, self.origin, doc)
    }
}

/// Imports the model among `files` and attaches the others, and `sources`, as its
/// external data. Returns its file name, the model and the importer's diagnostics.
fn load_model(
    mut files: Vec<LoadedFile>,
    sources: DataSources,
) -> Result<(String, Model, Vec<Diagnostic>), String> {
    use graft::external::DataFile;
    let index = model_file(&files).ok_or("No file was given.")?;
    let main = files.remove(index);
    let imported = graft::import(main.bytes).map_err(|e| format!("{}: {e}", main.name))?;
    let data = files
        .into_iter()
        .map(|f| (f.name, DataFile::Bytes(f.bytes)))
        .chain(
            sources
                .into_iter()
                .map(|(name, s)| (name, DataFile::Source(s))),
        );
    Ok(with_data_files(main.name, imported, data))
}

/// Tensor payloads of at least this many bytes stay in a chosen model file until
/// something needs them (`graft::codec::import_from`): weights, not the small
/// constants inference and folding read (shapes, axes, scales: a few dozen bytes).
const UNREAD_FROM: u64 = 4 << 10;

/// Imports the model `name` read through `source` (a chosen file: its big payloads
/// are left in it) and attaches `sources` as its external data.
fn load_model_from(
    name: String,
    source: std::rc::Rc<dyn graft::external::ReadRange>,
    sources: DataSources,
) -> Result<(String, Model, Vec<Diagnostic>), String> {
    use graft::external::DataFile;
    let imported =
        graft::codec::import_from(source, UNREAD_FROM).map_err(|e| format!("{name}: {e}"))?;
    let data = sources
        .into_iter()
        .map(|(name, s)| (name, DataFile::Source(s)));
    Ok(with_data_files(name, imported, data))
}

/// The model `name` with `data` attached as its data files; a file no tensor refers
/// to is reported.
fn with_data_files(
    name: String,
    imported: graft::Imported,
    data: impl Iterator<Item = (String, graft::external::DataFile)>,
) -> (String, Model, Vec<Diagnostic>) {
    let mut model = imported.model;
    let mut diagnostics = imported.diagnostics;
    for (file, data) in data {
        if !attach(&mut model, &file, data) {
            diagnostics.push(Diagnostic::new(
                Severity::Warning,
                "app.unused-file",
                format!(
                    "{file} was opened with the model, but no tensor of {name} keeps its data there"
                ),
                String::new(),
            ));
        }
    }
    (name, model, diagnostics)
}

/// What an editor edits: a node, or a value (a graph input or output).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Target {
    Node(NodeId),
    Value(graft::ir::ValueId),
}

/// A field of an editor.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Slot {
    Name,
    Input(usize),
    Output(usize),
    /// The attribute row (set or remove).
    Attribute,
    /// "Add after…".
    Add,
    Type,
    NewInput,
    /// A call's compile-time attribute, by name.
    CallAttribute(String),
    /// A button of the editor (remove, replace data).
    Action,
    /// Any other field, by the name the editor gives it.
    Named(String),
}

/// The field an edit came from.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldAt {
    pub target: Target,
    pub slot: Slot,
}

impl FieldAt {
    /// Where the core's [`graft::edit::Field`] puts the error, within this editor: a
    /// specialization refused for one attribute goes beside that attribute.
    fn refined(self, field: &graft::edit::Field) -> FieldAt {
        match (&self.slot, field) {
            (Slot::CallAttribute(_), graft::edit::Field::Attribute(name)) if !name.is_empty() => {
                FieldAt {
                    slot: Slot::CallAttribute(name.clone()),
                    ..self
                }
            }
            _ => self,
        }
    }
}

/// A refused edit and the field it came from.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FieldError {
    pub at: FieldAt,
    pub message: String,
}

/// The view of `doc`'s model with the types inference found where the model states
/// none.
fn typed_view(doc: &graft::host::Host) -> Option<View> {
    let mut view = View::of_model(doc.model())?;
    view.inferred = Some(doc.inferred().clone());
    Some(view)
}

/// The model `doc` holds, shown: its view built and laid out.
fn open_model(name: String, origin: Origin, doc: graft::host::Host) -> OpenModel {
    let scene = typed_view(&doc).and_then(|view| {
        let mut scene = Scene::new(view);
        scene.layout(doc.model(), &mut || false).ok().map(|_| scene)
    });
    OpenModel {
        name,
        origin,
        problem_nodes: problem_nodes(doc.summary()),
        scene,
        doc,
    }
}

/// The model of `doc` after an edit, its view built again with the groups open that
/// were open in `before`; returns it and which item became which (`renumbered`: the
/// model was replaced, so items are matched by what they show, not by ids).
fn open_edited(
    before: Option<&View>,
    doc: &graft::host::Host,
    renumbered: bool,
) -> (Option<Scene>, FxMap<ItemId, ItemId>) {
    let mut items = FxMap::default();
    let scene = typed_view(doc).and_then(|view| {
        let mut scene = Scene::new(view);
        if let Some(old) = before {
            items = scene.follow(doc.model(), old, renumbered);
        }
        scene.layout(doc.model(), &mut || false).ok().map(|_| scene)
    });
    (scene, items)
}

/// Whether a file opened with others is the model (the first such is; else the
/// first file).
pub fn is_model_name(name: &str) -> bool {
    name.to_ascii_lowercase().ends_with(".onnx")
}

/// Which file is the model: the first `.onnx` one, else the first.
fn model_file(files: &[LoadedFile]) -> Option<usize> {
    files
        .iter()
        .position(|f| is_model_name(&f.name))
        .or_else(|| (!files.is_empty()).then_some(0))
}

/// Attaches the data file `name` under its own name and under every external location
/// that ends in that name (a model may refer to `weights/model.data`; a browser only
/// gives the file name). Returns whether the model refers to it.
fn attach(model: &mut Model, name: &str, file: graft::external::DataFile) -> bool {
    let locations: Vec<String> = model
        .external_locations()
        .into_iter()
        .filter(|l| l.rsplit(['/', '\\']).next() == Some(name))
        .collect();
    for location in &locations {
        model.external_files.insert(location.clone(), file.clone());
    }
    model.external_files.insert(name.to_string(), file);
    !locations.is_empty()
}

#[cfg(test)]
mod tests;
