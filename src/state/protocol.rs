//! The messages between the page and the engine. The session ([`Session`]) runs in a
//! dedicated Web Worker (`engine.rs`); the page (`handle.rs`) sends it [`Request`]s and
//! renders the [`Update`]s that come back. Both are JSON; files travel beside them as
//! the browser's `File` objects (never copied on the page), drawings as plain strings
//! and downloads as bytes.

use serde::{Deserialize, Serialize};

use graft::ir::{NodeId, ValueId};
use graft::view::svg::Detail;
use graft::view::{ItemId, Rect};

use super::{
    CompareView, FieldAt, FieldError, FunctionInfo, InlineView, Problem, Properties, RunOutcome,
    RunView, SearchHit, WorkStatus,
};

/// One request with its sequence number (the page numbers them from 1) and the work
/// budget a test may set on the page (`window.__graftWorkBudgetMs`).
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Envelope {
    pub seq: u64,
    pub budget: Option<f64>,
    /// The state of the model the request was made on (the `Document::serial` the
    /// page last had): the ids it carries belong to that state.
    pub serial: u64,
    pub request: Request,
}

/// What of the model's state a request names (see [`Request::names`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Names {
    /// Nothing by id (names, paths, the open model as a whole).
    Nothing,
    /// Items of the view: they hold only for the exact state they came from, and are
    /// carried through one edit or undo (as the selection is), else dropped.
    Items,
    /// Nodes, values or functions by id, to read.
    ReadIds,
    /// Nodes, values or functions by id, to change: refused when the ids may since
    /// name other things (`OpenModel::ids_from`).
    EditIds,
    /// Graphs by path, nodes by index, values by name (an [`graft::edit::Edit`]): an
    /// add or a delete moves indices while ids hold, so they hold for the exact
    /// state they came from only.
    Addresses,
}

/// What the page asks of the engine. Requests marked "files" come with the files the
/// user picked or dropped; those marked with an [`Answer`] get one in the update that
/// handles them.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Request {
    /// A bundled example, by file name, and its address (absolute: the worker has no
    /// page to resolve it against).
    OpenExample {
        file: String,
        url: String,
    },
    /// A model at an absolute address of the page's origin (`?model=`).
    OpenUrl(String),
    /// Files.
    OpenFiles,
    CancelOpen,
    /// Files.
    BeginInline,
    InlineBind(usize, Option<String>),
    InlineExpose(usize, bool),
    InlinePrefix(String),
    InlineAsFunction(Option<String>),
    ApplyInline,
    CancelInline,
    Undo,
    Redo,
    GoToStep(usize),
    DismissError,
    /// Answer: [`Answer::Download`].
    Export,
    /// Answer: [`Answer::Download`].
    ExportLog,
    /// Answer: [`Answer::Download`].
    ExportSvg,
    /// Answer: [`Answer::Png`].
    ExportPng,
    Toggle(ItemId),
    ExpandToDepth(usize),
    StepLevel(bool),
    CancelWork,
    Select(Vec<ItemId>),
    /// Shift+click: the node joins the selection or leaves it (anything else: nothing).
    ShiftSelect(ItemId),
    /// Answer: [`Answer::Rect`], where the item is drawn (its groups opened).
    Reveal(ItemId),
    /// Answer: [`Answer::Hits`].
    Search(String),
    /// Answer: [`Answer::Hits`].
    CallSites(usize),
    /// Answer: [`Answer::Problem`].
    CheckCallAttribute(NodeId, String, String),
    /// One edit in the core's own vocabulary, the log's (graphs by path, nodes by
    /// index, values by name), from the editor field `at` (where a refusal shows).
    /// The addresses hold for the state it was made on only.
    Edit {
        edit: graft::edit::Edit,
        at: Option<FieldAt>,
    },
    DeleteSelected(bool),
    /// Files (one `.npy`).
    SetInitializer(ValueId),
    CompareWithStep(usize),
    /// Files.
    CompareWithFiles,
    SetSideBySide(bool),
    ToggleOther(ItemId),
    /// Selects the open model's node matched with the other model's item.
    SelectFromOther(ItemId),
    CloseCompare,
    /// Answer: [`Answer::Item`], the item a change of the list jumps to.
    CompareItem(usize),
    /// Answer: [`Answer::Item`], the item a problem jumps to.
    ProblemItem(usize),
    /// Answer: [`Answer::Text`].
    Text(Option<usize>),
    /// Answer: [`Answer::Applied`].
    ApplyText(Option<usize>, String),
    /// Answer: [`Answer::Problem`].
    NewFunctionProblem(String),
    /// Outlines the selected nodes into a new function. Answer: [`Answer::Done`].
    Outline(String),
    /// Opens the groups at these paths and selects the item at the other.
    RestoreView(Vec<String>, Option<String>),
    LibraryKeep(usize, bool),
    /// The part of the graph the page shows, for the open model `opened`.
    Viewport(Viewport),
    /// The first model is drawn: warm the layout code up.
    Warm,
    /// Runs the open model in onnxruntime-web. Before it, each `(input, URL)` of
    /// `given` is fetched and given (`?input=`), and the bundled example's inputs
    /// `example` the first time; `data` asks for the outputs' elements. `bridge` and
    /// `ort` are the absolute addresses of the runtime's bridge module and of
    /// onnxruntime-web's directory. Answer: [`Answer::Run`].
    Run {
        given: Vec<(String, String)>,
        example: Vec<(String, String)>,
        data: bool,
        bridge: String,
        ort: String,
    },
    SetRunSize(String, i64),
    SetRunSeed(u64),
    /// Files (one `.npy`): the array for the input.
    GiveRunInput(String),
    ClearRunInput(String),
    /// An input filled with the value the text names ("" for its default).
    SetRunFill(String, String),
    ReuseRunInputs,
    /// An edit log (`Update::log`) to apply to the model being opened, or the open
    /// one, and what the banner says then: how a restarted engine gets the session
    /// back.
    Restore {
        log: String,
        note: String,
    },
    /// An edit log (a JSON array of edits, as `graft apply` reads) to apply to the
    /// open model, all or none (`window.__graftApply`). Answer: [`Answer::Logged`].
    ApplyLog(String),
    /// The open model's bytes, as Export would save them (`window.__graftExport`).
    /// Answer: [`Answer::Model`].
    ModelBytes,
    /// Stops the engine as a panic would (only a page opened with `?faults` sends
    /// it: the test of the restart).
    Fault,
    /// Runs the open model and the one it is compared with on the same inputs.
    RunCompare {
        bridge: String,
        ort: String,
    },
    /// Colours the graph by a statistic of each node's outputs on the last run's
    /// inputs (`None`: no colours).
    Colour {
        by: Option<super::run::Colouring>,
        bridge: String,
        ort: String,
    },
    /// The graph's colouring as a Model Explorer node-data file. Answer:
    /// [`Answer::Download`].
    ExportNodeData,
    /// Files (one Model Explorer node-data `.json`): colours the graph by it.
    ImportNodeData,
    /// What the item computes on the last run's inputs. Answer: [`Answer::Values`].
    Probe {
        item: ItemId,
        bridge: String,
        ort: String,
    },
}

impl Request {
    /// What of the model's state the request names by id.
    pub fn names(&self) -> Names {
        match self {
            Request::Toggle(_)
            | Request::Select(_)
            | Request::ShiftSelect(_)
            | Request::Reveal(_)
            | Request::Probe { .. } => Names::Items,
            Request::CallSites(_)
            | Request::CheckCallAttribute(..)
            | Request::CompareItem(_)
            | Request::ProblemItem(_)
            | Request::Text(Some(_)) => Names::ReadIds,
            Request::SetInitializer(_)
            | Request::ApplyText(Some(_), _)
            | Request::LibraryKeep(..) => Names::EditIds,
            Request::Edit { .. } => Names::Addresses,
            _ => Names::Nothing,
        }
    }

    /// Whether handling it can change no more than the drawing, the selection or
    /// nothing at all: the document's parts (summary, history, library…) are not
    /// looked at again after it.
    pub fn leaves_document(&self) -> bool {
        matches!(
            self,
            Request::Toggle(_)
                | Request::ExpandToDepth(_)
                | Request::StepLevel(_)
                | Request::Select(_)
                | Request::ShiftSelect(_)
                | Request::Reveal(_)
                | Request::Search(_)
                | Request::CallSites(_)
                | Request::CheckCallAttribute(..)
                | Request::CompareItem(_)
                | Request::ProblemItem(_)
                | Request::Text(_)
                | Request::NewFunctionProblem(_)
                | Request::Viewport(_)
                | Request::Warm
                | Request::ToggleOther(_)
                | Request::Probe { .. }
        )
    }
}

/// The region of the graph the page draws (a screen and a margin around it), at a
/// level of detail, for the `opened`-th model.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    pub x: f32,
    pub y: f32,
    pub w: f32,
    pub h: f32,
    pub detail: Detail,
    pub opened: u64,
}

impl Viewport {
    pub fn rect(&self) -> Rect {
        Rect {
            x: self.x,
            y: self.y,
            w: self.w,
            h: self.h,
        }
    }
}

/// A reply to a request that asks for something.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Answer {
    Rect(Option<(f32, f32, f32, f32)>),
    Hits(Vec<SearchHit>),
    Problem(Option<String>),
    Item(Option<ItemId>),
    Text(Option<(String, Vec<String>)>),
    Applied(Result<(), graft::host::EngineError>),
    Done(bool),
    /// A file to save: its name and type; the bytes come beside the message.
    Download {
        name: String,
        mime: String,
    },
    Run(RunOutcome),
    /// Each output of a node: its name and what it holds (or why not).
    Values(super::run::ValuesShown),
    /// How many edits of a log were applied, or why none was (and which edit).
    Logged(Result<usize, (Option<usize>, String)>),
    /// The open model's bytes (they come beside the message), or why not.
    Model {
        error: Option<String>,
        #[serde(skip)]
        bytes: Vec<u8>,
    },
    /// An SVG document to rasterize and save as `name`, `width` x `height`.
    Png {
        name: String,
        width: f64,
        height: f64,
    },
}

/// A change of the edit log: keep the first `keep` edits, then append `add` (each
/// edit's JSON, as `graft apply` reads them).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct LogChange {
    pub keep: usize,
    pub add: Vec<String>,
}

/// What the page shows of the open model and its history, sent when it changes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Document {
    pub serial: u64,
    pub opened: u64,
    pub name: Option<String>,
    pub example: Option<String>,
    pub summary: Option<graft::Summary>,
    /// The functions as `domain.name:overload`.
    pub functions: Vec<String>,
    pub can_undo: bool,
    pub can_redo: bool,
    pub history: (Vec<String>, Vec<String>),
    pub problems: Vec<Problem>,
    pub library: Vec<FunctionInfo>,
}

/// The banner's error, the opening note and a refused field's error.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Messages {
    pub error: Option<String>,
    pub pending: Option<String>,
    pub field: Option<FieldError>,
}

/// The inline dialog: what it shows and each input's candidates.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Draft {
    pub view: InlineView,
    pub candidates: Vec<Vec<graft::inline::Candidate>>,
}

/// The laid-out graph's size, its minimap, and where the view is (for the URL).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct SceneInfo {
    pub size: Option<(f32, f32)>,
    pub overview: Option<(String, usize)>,
    /// The expanded groups' paths, for a shared link (none when there are more than
    /// a link names).
    pub open_paths: Vec<String>,
    /// Where the last selected item is.
    pub selected_path: Option<String>,
}

/// The selection, carried by the engine through edits: the model state it belongs
/// to, the items, and how many of them are nodes.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
pub struct Selection {
    pub serial: u64,
    pub items: Vec<ItemId>,
    pub nodes: usize,
}

/// Reads a part that may be absent (unchanged) or `null` (changed to nothing): a
/// present field is `Some`, whatever its value. (Plain serde reads both as `None`.)
fn present<'de, T: Deserialize<'de>, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// What the engine sends back: the parts that changed (`None`: unchanged), and the
/// answer to a request. `seq` is the last request handled; `done` the requests whose
/// work ended here (an open, a file read, an expand in pieces end later than they
/// are handled).
#[derive(Serialize, Deserialize, Debug, Clone, Default)]
pub struct Update {
    pub seq: u64,
    pub done: Vec<u64>,
    pub answer: Option<(u64, Answer)>,
    pub document: Option<Document>,
    pub palette: Option<Vec<(String, String)>>,
    pub messages: Option<Messages>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub draft: Option<Option<Draft>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub compare: Option<Option<CompareView>>,
    pub side_by_side: Option<bool>,
    pub selection: Option<Selection>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub properties: Option<Option<Properties>>,
    pub scene: Option<SceneInfo>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub work: Option<Option<WorkStatus>>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub run: Option<Option<RunView>>,
    /// The model (`opened`) the drawings beside this message are of.
    pub drawn: Option<u64>,
    /// What changed in the open model's edit log since the last update: the page
    /// keeps a copy to restart a stopped engine with nothing lost.
    pub log: Option<LogChange>,
    pub timings: Vec<(String, f64)>,
}
