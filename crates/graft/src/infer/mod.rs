//! Type and shape inference: for every value of every graph (main graph, subgraphs,
//! training graphs, function bodies) an element type and a shape, or nothing.
//!
//! ```
//! let text = "<ir_version: 8, opset_import: [\"\" : 18]>\n\
//!     g (float[N, 3] x) => (y) { s = Shape(x) y = Relu(x) }";
//! let model = graft::text::parse_model(text).unwrap().model;
//! let inferred = graft::infer::infer(&model);
//! let g = model.graph.unwrap();
//! let y = model.graph(g).outputs[0].value.unwrap();
//! assert_eq!(inferred.get(y).unwrap().to_string(), "float[N,3]");
//! ```
//!
//! Decisions:
//!
//! - **Unknown** is the absence of knowledge, never an error: a value whose element
//!   type cannot be derived has no type ([`Inferred::get`] gives `None`); a tensor whose
//!   rank cannot be derived has a type without shape; a dimension that cannot be derived
//!   is a dimension with neither value nor parameter (as onnx writes it). Unknown
//!   operators, unknown domains, malformed attributes and out-of-range axes all give
//!   unknown, and inference never panics.
//! - **Stated types win.** A graph input, output or `value_info` entry that states a
//!   type is merged with the inferred one: the stated element type and stated
//!   dimensions are kept, inferred dimensions fill the unknown ones. A contradiction
//!   (another element type, another rank, two different fixed dimensions, two
//!   different fixed dimensions under broadcasting) is reported as a warning
//!   (`infer.type-mismatch`, `infer.shape-mismatch`, `infer.broadcast`) and inference
//!   goes on with the stated type.
//! - **Element types** of every standard operator come from the schema registry: type
//!   parameters are bound from the inputs, outputs take the bound type, fixed types
//!   (`tensor(int64)`) and single-type constraints are taken directly; operators whose
//!   output type is an attribute (Cast `to`, Constant, ConstantOfShape, the Random*
//!   family, EyeLike, Bernoulli, Multinomial, QuantizeLinear, the sequence
//!   constructors) use a small table (`types.rs`).
//! - **Shapes** (`shapes.rs`), with symbolic dimensions carried through: elementwise
//!   ops with multidirectional broadcasting, unary ops, MatMul(Integer), Gemm,
//!   Conv/ConvTranspose/MaxPool/AveragePool/LpPool and the global pools,
//!   Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Gather,
//!   GatherElements, Expand, Tile, Pad, Resize, the Reduce family and ArgMax/ArgMin,
//!   Softmax/LogSoftmax/LayerNormalization/BatchNormalization, Cast, Shape, Size,
//!   Constant, ConstantOfShape, Range, TopK, NonZero, Identity, Dropout, Where,
//!   DepthToSpace/SpaceToDepth, LSTM/GRU/RNN, DFT, and the element shapes of
//!   sequences (SequenceConstruct/Insert/At, SplitToSequence). If merges its branches; Loop and Scan infer their body
//!   with the body inputs' types; a call of a model-local function infers the body
//!   with the call's input types and attributes (references bound by the call), and
//!   the body's values get the merge over all calls (a function never called is
//!   inferred from its own stated types). Standard operators with a function body
//!   but no rule here get element types only.
//! - **Small constants** (int64/int32 tensors of at most 64 elements) keep their
//!   values, possibly symbolic dimensions, through Constant, initializers, Shape,
//!   Size, Gather, Slice, Concat, Unsqueeze, Squeeze, Reshape, Cast, Identity,
//!   ConstantOfShape, Range and Add/Sub/Mul/Div, so that Shape → Gather → Concat →
//!   Reshape chains give Reshape a shape (onnx's `data_prop=True`).
//! - Inference is one pass in node order (the checker requires topological order;
//!   a value used before it is defined is unknown there). Values are keyed by
//!   [`ValueId`]; symbolic dimension names are interned once.
//! - **Incremental**: [`Inferred`] keeps the engine's state (types, small constants,
//!   the symbol table, diagnostics with their values), and [`Inferred::update`]
//!   re-infers after an edit of a few nodes, recomputing only the affected cone and
//!   falling back to a full run when it cannot bound it (`update.rs` documents the
//!   rules). In a graph that is not in topological order a value read before its
//!   definition keeps its last type in an update where a full run has none.

mod shapes;
mod types;
mod update;

pub use update::Updated;

use crate::diag::{Diagnostic, Location, Severity};
use crate::hash::FxMap;
use crate::ir::{
    AttrKind, AttrValue, Attribute, Dim, DimValue, FunctionId, GraphId, GraphOwner, Model, Node,
    NodeId, OpsetId, Shape, TensorType, Type, TypeValue, ValueId, ValueInfo,
};

/// The diagnostic codes inference reports.
pub const CODES: &[(&str, &str)] = &[
    (
        "infer.type-mismatch",
        "a stated type (its kind or element type) disagrees with what produces the value (onnx's full check rejects it)",
    ),
    (
        "infer.shape-mismatch",
        "a stated shape disagrees with the inferred one (rank or a fixed dimension)",
    ),
    (
        "infer.attribute-range",
        "an axis, axes or perm attribute out of the range its input's rank allows (onnx's full check rejects it)",
    ),
    (
        "infer.broadcast",
        "the inputs of a broadcasting or shape-combining operator have incompatible fixed dimensions",
    ),
];

/// How bad a finding of inference is: an error where onnx's full check rejects the
/// model and inference is sure (a stated type against what produces it, an attribute
/// out of its range), a warning otherwise.
pub fn severity(code: &str) -> Severity {
    match code {
        "infer.type-mismatch" | "infer.attribute-range" => Severity::Error,
        _ => Severity::Warning,
    }
}

/// Largest constant (in elements) whose values inference keeps.
pub(crate) const MAX_CONST: usize = 64;

/// One inferred dimension: a value, an interned symbolic name, or unknown.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum D {
    Val(i64),
    Sym(u32),
    Unk,
}

/// An inferred type: a tensor (element type 0 when unknown, shape `None` when the rank
/// is unknown) or any other type as stated or built.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Ty {
    Tensor { elem: i32, shape: Option<Vec<D>> },
    Other(Type),
}

impl Ty {
    pub(crate) fn tensor(elem: i32, shape: Option<Vec<D>>) -> Self {
        Ty::Tensor { elem, shape }
    }

    pub(crate) fn elem(&self) -> i32 {
        match self {
            Ty::Tensor { elem, .. } => *elem,
            Ty::Other(_) => 0,
        }
    }

    /// The kind of type, when it is known: a tensor of unknown element type is not
    /// known to be a tensor (a rule that found only its shape).
    fn case(&self) -> Option<&'static str> {
        Some(match self {
            Ty::Tensor { elem: 0, .. } => return None,
            Ty::Tensor { .. } => "tensor",
            Ty::Other(t) => match t.value.as_ref()? {
                TypeValue::Tensor(_) => "tensor",
                TypeValue::SparseTensor(_) => "sparse tensor",
                TypeValue::Sequence(_) => "sequence",
                TypeValue::Map { .. } => "map",
                TypeValue::Optional(_) => "optional",
                TypeValue::Opaque { .. } => "opaque value",
            },
        })
    }

    pub(crate) fn shape(&self) -> Option<&[D]> {
        match self {
            Ty::Tensor { shape, .. } => shape.as_deref(),
            Ty::Other(_) => None,
        }
    }
}

/// What inference found, and what [`Inferred::update`] needs to re-infer after an edit.
#[derive(Clone, Debug, Default)]
pub struct Inferred {
    types: Vec<Option<Ty>>,
    /// Small constants by value.
    consts: FxMap<ValueId, Vec<D>>,
    symbols: Vec<String>,
    /// Symbol ids by name, so that an update interns the same names to the same ids.
    sym_ids: FxMap<String, u32>,
    /// Contradictions found (warnings; see the module documentation).
    pub diagnostics: Vec<Diagnostic>,
    /// The value each diagnostic is about, in the order of `diagnostics`.
    diag_values: Vec<ValueId>,
    /// Nodes that were calls of model-local functions.
    calls: FxMap<NodeId, ()>,
    /// How many model-local functions the model had.
    functions: usize,
}

/// How much inference knows about a model's values.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Values in the model.
    pub values: usize,
    /// Values with a known type (for tensors: a known element type).
    pub typed: usize,
    /// Tensor values whose rank is known.
    pub shaped: usize,
    /// Values with no type at all.
    pub unknown: usize,
}

impl Inferred {
    /// The inferred type of `value`, `None` when unknown.
    pub fn get(&self, value: ValueId) -> Option<Type> {
        let ty = self.types.get(value.index())?.as_ref()?;
        match ty {
            Ty::Tensor { elem: 0, .. } => None,
            Ty::Tensor { elem, shape } => Some(Type {
                value: Some(TypeValue::Tensor(TensorType {
                    elem_type: Some(*elem),
                    shape: shape.as_ref().map(|dims| Shape {
                        dims: dims.iter().map(|&d| self.dim(d)).collect(),
                    }),
                })),
                denotation: None,
            }),
            Ty::Other(t) => Some(t.clone()),
        }
    }

    fn dim(&self, d: D) -> Dim {
        Dim {
            value: match d {
                D::Val(v) => Some(DimValue::Value(v)),
                D::Sym(s) => self
                    .symbols
                    .get(s as usize)
                    .map(|name| DimValue::Param(name.clone())),
                D::Unk => None,
            },
            denotation: None,
        }
    }

    /// Counts over every value of the model.
    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            values: self.types.len(),
            ..Counts::default()
        };
        for t in &self.types {
            match t {
                None | Some(Ty::Tensor { elem: 0, .. }) => c.unknown += 1,
                Some(Ty::Tensor { shape, .. }) => {
                    c.typed += 1;
                    if shape.is_some() {
                        c.shaped += 1;
                    }
                }
                Some(Ty::Other(_)) => c.typed += 1,
            }
        }
        c
    }
}

/// Infers the type of every value of `model`.
pub fn infer(model: &Model) -> Inferred {
    let mut e = Engine::new(model, Inferred::default());
    e.run();
    e.finish()
}

/// Writes inferred types into `model` as onnx.shape_inference does: a `value_info`
/// entry for every node output of the main graph, its subgraphs and training graphs
/// that has no stated type, and the type of every graph output that states none.
/// Stated types are never changed. Function bodies are left as they are (their
/// values' types depend on the call). Returns how many entries were written.
pub fn apply(model: &mut Model, inferred: &Inferred) -> usize {
    let mut stated = vec![false; model.values.len()];
    for (_, graph) in model.graphs.iter() {
        for info in graph
            .inputs
            .iter()
            .chain(&graph.outputs)
            .chain(&graph.value_info)
        {
            if let (Some(v), true) = (info.value, has_type(info))
                && let Some(s) = stated.get_mut(v.index())
            {
                *s = true;
            }
        }
    }
    let graphs: Vec<GraphId> = model.graphs.iter().map(|(g, _)| g).collect();
    let mut written = 0;
    for g in graphs {
        if in_function(model, g) {
            continue;
        }
        let mut outputs = std::mem::take(&mut model.graphs[g].outputs);
        let mut is_output = FxMap::default();
        for info in &mut outputs {
            let Some(v) = info.value else { continue };
            is_output.insert(v, ());
            if !has_type(info)
                && let Some(t) = inferred.get(v)
            {
                info.ty = Some(t);
                written += 1;
            }
        }
        model.graphs[g].outputs = outputs;
        // Entries go straight into the graph's list (no second list of 50k entries to
        // copy over on large models).
        let mut value_info = std::mem::take(&mut model.graphs[g].value_info);
        let before = value_info.len();
        value_info.reserve(model.graphs[g].nodes.len());
        for &n in &model.graphs[g].nodes {
            for v in model.nodes[n].outputs.iter().flatten() {
                if stated.get(v.index()).copied().unwrap_or(true) || is_output.contains_key(v) {
                    continue;
                }
                if let Some(t) = inferred.get(*v) {
                    value_info.push(ValueInfo {
                        value: Some(*v),
                        ty: Some(t),
                        ..ValueInfo::default()
                    });
                    if let Some(s) = stated.get_mut(v.index()) {
                        *s = true;
                    }
                }
            }
        }
        written += value_info.len() - before;
        model.graphs[g].value_info = value_info;
    }
    written
}

/// A `value_info` entry that states a type (an empty `TypeProto` states none).
fn has_type(info: &ValueInfo) -> bool {
    info.ty.as_ref().is_some_and(|t| t.value.is_some())
}

fn in_function(model: &Model, mut g: GraphId) -> bool {
    loop {
        match model.graphs[g].owner {
            GraphOwner::Function(_) => return true,
            GraphOwner::Node(n) => g = model.nodes[n].graph,
            GraphOwner::Model | GraphOwner::Training(_) => return false,
        }
    }
}

/// Where attribute references of a function body are resolved, and which opsets a
/// graph's nodes use.
pub(crate) struct Ctx<'a> {
    opsets: &'a [OpsetId],
    fallback: &'a [OpsetId],
    /// The attributes of the call whose body is being inferred (references bound).
    attrs: Option<&'a [Attribute]>,
}

impl Ctx<'_> {
    fn version(&self, domain: &str) -> Option<i64> {
        let find = |list: &[OpsetId]| {
            list.iter()
                .find(|o| o.normalized_domain() == domain)
                .and_then(|o| o.version)
        };
        find(self.opsets).or_else(|| find(self.fallback))
    }
}

pub(crate) struct Engine<'m> {
    model: &'m Model,
    pub(crate) types: Vec<Option<Ty>>,
    pub(crate) consts: FxMap<ValueId, Vec<D>>,
    stated: Vec<Option<&'m Type>>,
    symbols: Vec<String>,
    sym_ids: FxMap<String, u32>,
    diagnostics: Vec<Diagnostic>,
    diag_values: Vec<ValueId>,
    reported: FxMap<(ValueId, &'static str), ()>,
    calls: FxMap<NodeId, ()>,
    /// Nodes inferred by this engine (a call's body nodes included).
    nodes_run: usize,
    functions: crate::ir::FunctionIndex,
    /// What binding a call needs of each callee, found once.
    callees: crate::calls::Callees,
    /// Functions whose body is being inferred (a recursive call is unknown).
    active: Vec<FunctionId>,
    /// Merged types of function-body values over all calls.
    fn_types: FxMap<ValueId, Option<Ty>>,
    called: Vec<bool>,
    visited: Vec<bool>,
}

impl<'m> Engine<'m> {
    /// An engine for `model` that starts from the state `from` (empty for a fresh run).
    fn new(model: &'m Model, from: Inferred) -> Self {
        let mut stated = vec![None; model.values.len()];
        for (_, graph) in model.graphs.iter() {
            for info in graph
                .inputs
                .iter()
                .chain(&graph.outputs)
                .chain(&graph.value_info)
            {
                if let (Some(v), Some(t)) = (info.value, &info.ty)
                    && let Some(s) = stated.get_mut(v.index())
                    && s.is_none()
                {
                    *s = Some(t);
                }
            }
        }
        let functions = crate::ir::FunctionIndex::new(model);
        let mut types = from.types;
        types.resize(model.values.len(), None);
        let reported = from
            .diag_values
            .iter()
            .zip(&from.diagnostics)
            .map(|(&v, d)| ((v, d.code), ()))
            .collect();
        Engine {
            model,
            types,
            consts: from.consts,
            stated,
            symbols: from.symbols,
            sym_ids: from.sym_ids,
            diagnostics: from.diagnostics,
            diag_values: from.diag_values,
            reported,
            calls: from.calls,
            nodes_run: 0,
            functions,
            callees: crate::calls::Callees::default(),
            active: Vec::new(),
            fn_types: FxMap::default(),
            called: vec![false; model.function_arena.len()],
            visited: vec![false; model.graphs.len()],
        }
    }

    /// The state as an [`Inferred`].
    fn finish(self) -> Inferred {
        Inferred {
            types: self.types,
            consts: self.consts,
            symbols: self.symbols,
            sym_ids: self.sym_ids,
            diagnostics: self.diagnostics,
            diag_values: self.diag_values,
            calls: self.calls,
            functions: self.model.functions.len(),
        }
    }

    fn run(&mut self) {
        let model = self.model;
        let ctx = Ctx {
            opsets: &model.opset_import,
            fallback: &[],
            attrs: None,
        };
        if let Some(g) = model.graph {
            self.graph_inputs_stated(g);
            self.run_graph(g, &ctx);
        }
        for t in &model.training_info {
            for g in [t.initialization, t.algorithm].into_iter().flatten() {
                self.graph_inputs_stated(g);
                self.run_graph(g, &ctx);
            }
        }
        // Functions never called: from their own stated types.
        for &f in &model.functions {
            if self.called.get(f.index()).copied().unwrap_or(true) {
                continue;
            }
            let func = model.function(f);
            let ctx = Ctx {
                opsets: &func.opset_import,
                fallback: &model.opset_import,
                attrs: None,
            };
            self.graph_inputs_stated(func.body);
            self.run_graph(func.body, &ctx);
        }
        // Subgraphs no node rule reached (e.g. under an unknown operator).
        for (g, graph) in model.graphs.iter() {
            if !self.visited.get(g.index()).copied().unwrap_or(true)
                && !matches!(graph.owner, GraphOwner::Function(_))
            {
                self.graph_inputs_stated(g);
                let ctx = Ctx {
                    opsets: &model.opset_import,
                    fallback: &[],
                    attrs: None,
                };
                self.run_graph(g, &ctx);
            }
        }
        let fn_types = std::mem::take(&mut self.fn_types);
        for (v, t) in fn_types {
            if let Some(slot) = self.types.get_mut(v.index()) {
                *slot = t;
            }
        }
    }

    pub(crate) fn intern(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.sym_ids.get(name) {
            return id;
        }
        let id = u32::try_from(self.symbols.len()).unwrap_or(u32::MAX);
        self.symbols.push(name.to_string());
        self.sym_ids.insert(name.to_string(), id);
        id
    }

    /// A stated IR type as an inferred one.
    fn stated_ty(&mut self, t: &Type) -> Option<Ty> {
        match &t.value {
            None => None,
            Some(TypeValue::Tensor(tt)) => Some(Ty::Tensor {
                elem: tt.elem_type.unwrap_or(0),
                shape: tt.shape.as_ref().map(|s| {
                    s.dims
                        .iter()
                        .map(|d| match &d.value {
                            Some(DimValue::Value(v)) => D::Val(*v),
                            Some(DimValue::Param(p)) => D::Sym(self.intern(p)),
                            None => D::Unk,
                        })
                        .collect()
                }),
            }),
            Some(_) => Some(Ty::Other(t.clone())),
        }
    }

    fn graph_inputs_stated(&mut self, g: GraphId) {
        let model = self.model;
        for info in &model.graphs[g].inputs {
            if let Some(v) = info.value {
                self.set(v, None, None);
            }
        }
    }

    /// Records `inferred` for `v`, merged with its stated type.
    fn set(&mut self, v: ValueId, inferred: Option<Ty>, node: Option<NodeId>) {
        let stated = self.stated.get(v.index()).copied().flatten();
        let ty = match stated.and_then(|s| self.stated_ty(s)) {
            None => inferred,
            Some(s) => match inferred {
                None => Some(s),
                Some(i) => Some(self.merge_stated(v, s, i, node)),
            },
        };
        if let Some(slot) = self.types.get_mut(v.index()) {
            *slot = ty;
        }
    }

    fn merge_stated(&mut self, v: ValueId, stated: Ty, inferred: Ty, node: Option<NodeId>) -> Ty {
        let (
            Ty::Tensor {
                elem: se,
                shape: ss,
            },
            Ty::Tensor {
                elem: ie,
                shape: is,
            },
        ) = (&stated, &inferred)
        else {
            if let (Some(s), Some(i)) = (stated.case(), inferred.case())
                && s != i
            {
                let msg = format!(
                    "{} is stated a {s} but what produces it gives a {i}",
                    self.name(v)
                );
                self.report(v, node, "infer.type-mismatch", msg);
            }
            return stated;
        };
        if *se != 0 && *ie != 0 && se != ie {
            let msg = format!(
                "{} is stated {} but inferred {}",
                self.name(v),
                crate::ir::dtype::name(*se).unwrap_or("?"),
                crate::ir::dtype::name(*ie).unwrap_or("?")
            );
            self.report(v, node, "infer.type-mismatch", msg);
        }
        let elem = if *se != 0 { *se } else { *ie };
        let shape = match (ss, is) {
            (None, s) => s.clone(),
            (Some(s), None) => Some(s.clone()),
            (Some(s), Some(i)) if s.len() != i.len() => {
                let msg = format!(
                    "{} is stated with rank {} but inferred with rank {}",
                    self.name(v),
                    s.len(),
                    i.len()
                );
                self.report(v, node, "infer.shape-mismatch", msg);
                Some(s.clone())
            }
            (Some(s), Some(i)) => {
                let mut out = Vec::with_capacity(s.len());
                let mut bad = None;
                for (k, (&a, &b)) in s.iter().zip(i).enumerate() {
                    out.push(match (a, b) {
                        (D::Val(x), D::Val(y)) if x != y => {
                            bad.get_or_insert((k, x, y));
                            a
                        }
                        (D::Unk, b) => b,
                        (a, _) => a,
                    });
                }
                if let Some((k, x, y)) = bad {
                    let msg = format!(
                        "{} is stated with dimension {k} = {x} but inferred {y}",
                        self.name(v)
                    );
                    self.report(v, node, "infer.shape-mismatch", msg);
                }
                Some(out)
            }
        };
        Ty::Tensor { elem, shape }
    }

    fn name(&self, v: ValueId) -> &str {
        self.model.values.get(v).map_or("", |x| x.name.as_str())
    }

    fn report(&mut self, v: ValueId, node: Option<NodeId>, code: &'static str, msg: String) {
        if self.reported.insert((v, code), ()).is_some() {
            return;
        }
        let model = self.model;
        let graph = model.values.get(v).map(|x| x.graph);
        let at = Location {
            graph,
            node,
            detail: None,
        };
        self.diagnostics
            .push(Diagnostic::at(model, severity(code), code, msg, at));
        self.diag_values.push(v);
    }

    pub(crate) fn report_node(&mut self, node: NodeId, code: &'static str, msg: String) {
        let model = self.model;
        let Some(n) = model.nodes.get(node) else {
            return;
        };
        let Some(v) = n.outputs.iter().flatten().next() else {
            return;
        };
        self.report(*v, Some(node), code, msg);
    }

    fn run_graph(&mut self, g: GraphId, ctx: &Ctx) {
        let model = self.model;
        let Some(graph) = model.graphs.get(g) else {
            return;
        };
        if let Some(slot) = self.visited.get_mut(g.index()) {
            *slot = true;
        }
        self.run_sources(g);
        for &n in &graph.nodes {
            self.node(n, ctx);
        }
    }

    /// Types (and small constants) of a graph's initializers.
    fn run_sources(&mut self, g: GraphId) {
        self.run_sources_of(g, |_| true);
    }

    /// Types (and small constants) of the initializers of `g` that `of` selects.
    fn run_sources_of(&mut self, g: GraphId, of: impl Fn(ValueId) -> bool) {
        let model = self.model;
        let Some(graph) = model.graphs.get(g) else {
            return;
        };
        for init in &graph.initializers {
            let Some(v) = init.value else { continue };
            if !of(v) {
                continue;
            }
            let t = &init.tensor;
            // An input with a default keeps the input's stated type.
            if self.types.get(v.index()).is_some_and(Option::is_some) {
                continue;
            }
            let ty = Ty::tensor(
                t.data_type(),
                Some(t.dims.iter().map(|&d| D::Val(d)).collect()),
            );
            self.set(v, Some(ty), None);
            if let Some(values) = shapes::tensor_consts(t) {
                self.consts.insert(v, values);
            }
        }
        for init in &graph.sparse_initializers {
            let Some(v) = init.value else { continue };
            if !of(v) {
                continue;
            }
            if self.types.get(v.index()).is_some_and(Option::is_some) {
                continue;
            }
            let elem = init
                .tensor
                .values
                .as_ref()
                .map_or(0, crate::ir::Tensor::data_type);
            let t = Type {
                value: Some(TypeValue::SparseTensor(TensorType {
                    elem_type: Some(elem),
                    shape: Some(Shape {
                        dims: init
                            .tensor
                            .dims
                            .iter()
                            .map(|&d| Dim {
                                value: Some(DimValue::Value(d)),
                                denotation: None,
                            })
                            .collect(),
                    }),
                })),
                denotation: None,
            };
            self.set(v, Some(Ty::Other(t)), None);
        }
    }

    fn node(&mut self, n: NodeId, ctx: &Ctx) {
        self.nodes_run += 1;
        let model = self.model;
        let Some(node) = model.nodes.get(n) else {
            return;
        };
        if !self.functions.is_empty()
            && crate::calls::resolve(model, &self.functions, n) == crate::calls::Resolved::Missing
        {
            let e = crate::calls::CallError::missing(model, n);
            self.report_node(n, e.code, format!("{}: {}", e.call, e.message));
        }
        if let Some(f) = self.functions.callee(model, n) {
            self.calls.insert(n, ());
            self.call(n, node, f, ctx);
            return;
        }
        let outs = match (node.domain(), node.op_type()) {
            ("", "If") => self.if_node(node, ctx),
            ("", "Loop") => self.loop_node(node, ctx),
            ("", "Scan") => self.scan_node(node, ctx),
            _ => {
                let (outs, consts) = shapes::infer_node(self, n, node, ctx);
                for (v, c) in node.outputs.iter().zip(consts) {
                    if let (Some(v), Some(c)) = (v, c) {
                        self.consts.insert(*v, c);
                    }
                }
                outs
            }
        };
        for (k, v) in node.outputs.iter().enumerate() {
            if let Some(v) = v {
                self.set(*v, outs.get(k).cloned().flatten(), Some(n));
            }
        }
        // Subgraphs no rule above visited: from their own stated types.
        for g in node.subgraphs() {
            if !self.visited.get(g.index()).copied().unwrap_or(true) {
                self.graph_inputs_stated(g);
                self.run_graph(g, ctx);
            }
        }
    }

    fn ty(&self, v: Option<ValueId>) -> Option<&Ty> {
        v.and_then(|v| self.types.get(v.index()))
            .and_then(Option::as_ref)
    }

    fn graph_attr(&self, node: &'m Node, name: &str, ctx: &Ctx) -> Option<GraphId> {
        match attr_value(node, name, ctx)? {
            AttrValue::Graph(g) => Some(*g),
            _ => None,
        }
    }

    fn outputs_of(&self, g: GraphId) -> Vec<Option<Ty>> {
        let model = self.model;
        model.graphs[g]
            .outputs
            .iter()
            .map(|o| self.ty(o.value).cloned())
            .collect()
    }

    fn if_node(&mut self, node: &'m Node, ctx: &Ctx) -> Vec<Option<Ty>> {
        let then_g = self.graph_attr(node, "then_branch", ctx);
        let else_g = self.graph_attr(node, "else_branch", ctx);
        let mut results = Vec::new();
        for g in [then_g, else_g].into_iter().flatten() {
            self.run_graph(g, ctx);
            results.push(self.outputs_of(g));
        }
        let mut it = results.into_iter();
        let first = it.next().unwrap_or_default();
        match it.next() {
            None => first,
            Some(second) => first
                .into_iter()
                .zip(second)
                .map(|(a, b)| match (a, b) {
                    (Some(a), Some(b)) => Some(merge_branches(a, b)),
                    _ => None,
                })
                .collect(),
        }
    }

    fn loop_node(&mut self, node: &'m Node, ctx: &Ctx) -> Vec<Option<Ty>> {
        let Some(body) = self.graph_attr(node, "body", ctx) else {
            return Vec::new();
        };
        let model = self.model;
        let inputs: Vec<Option<ValueId>> =
            model.graphs[body].inputs.iter().map(|i| i.value).collect();
        for (k, v) in inputs.iter().enumerate() {
            let Some(v) = *v else { continue };
            let t = match k {
                0 => Some(Ty::tensor(crate::ir::dtype::INT64, Some(Vec::new()))),
                1 => Some(Ty::tensor(crate::ir::dtype::BOOL, Some(Vec::new()))),
                _ => match self.ty(node.inputs.get(k).copied().flatten()) {
                    Some(Ty::Tensor { elem, .. }) => Some(Ty::tensor(*elem, None)),
                    other => other.cloned(),
                },
            };
            self.set(v, t, None);
        }
        self.run_graph(body, ctx);
        let outs = self.outputs_of(body);
        let states = node.inputs.len().saturating_sub(2);
        outs.into_iter()
            .skip(1)
            .enumerate()
            .map(|(k, t)| {
                if k < states {
                    t
                } else {
                    match t {
                        Some(Ty::Tensor { elem, shape }) => Some(Ty::tensor(
                            elem,
                            shape.map(|s| std::iter::once(D::Unk).chain(s).collect()),
                        )),
                        _ => None,
                    }
                }
            })
            .collect()
    }

    fn scan_node(&mut self, node: &'m Node, ctx: &Ctx) -> Vec<Option<Ty>> {
        let Some(body) = self.graph_attr(node, "body", ctx) else {
            return Vec::new();
        };
        let version = ctx.version("").unwrap_or(0);
        let model = self.model;
        let scans = attr_int(node, "num_scan_inputs", ctx).unwrap_or(0).max(0) as usize;
        let inputs: Vec<Option<ValueId>> =
            model.graphs[body].inputs.iter().map(|i| i.value).collect();
        let node_inputs: &[Option<ValueId>] = if version < 9 {
            // Scan-8 takes sequence_lens first and has a batch axis: element types only.
            node.inputs.get(1..).unwrap_or(&[])
        } else {
            &node.inputs
        };
        let states = node_inputs.len().saturating_sub(scans);
        let in_axes = attr_ints(node, "scan_input_axes", ctx).unwrap_or_default();
        let mut seq_len = D::Unk;
        for (k, v) in inputs.iter().enumerate() {
            let Some(v) = *v else { continue };
            let outer = self.ty(node_inputs.get(k).copied().flatten()).cloned();
            let t = if version < 9 {
                outer.map(|t| Ty::tensor(t.elem(), None))
            } else if k < states {
                outer
            } else {
                let j = k - states;
                outer.map(|t| {
                    let elem = t.elem();
                    let shape = t.shape().and_then(|s| {
                        let axis = in_axes.get(j).copied().unwrap_or(0);
                        let axis = norm_axis(axis, s.len())?;
                        if j == 0 {
                            seq_len = s.get(axis).copied().unwrap_or(D::Unk);
                        }
                        let mut s = s.to_vec();
                        s.remove(axis);
                        Some(s)
                    });
                    Ty::tensor(elem, shape)
                })
            };
            self.set(v, t, None);
        }
        self.run_graph(body, ctx);
        let outs = self.outputs_of(body);
        let out_axes = attr_ints(node, "scan_output_axes", ctx).unwrap_or_default();
        outs.into_iter()
            .enumerate()
            .map(|(k, t)| {
                if k < states {
                    return t;
                }
                let t = t?;
                if version < 9 {
                    return Some(Ty::tensor(t.elem(), None));
                }
                let elem = t.elem();
                let shape = t.shape().and_then(|s| {
                    let axis = out_axes.get(k - states).copied().unwrap_or(0);
                    let axis = norm_axis(axis, s.len() + 1)?;
                    let mut s = s.to_vec();
                    s.insert(axis, seq_len);
                    Some(s)
                });
                Some(Ty::tensor(elem, shape))
            })
            .collect()
    }

    fn call(&mut self, n: NodeId, node: &'m Node, f: FunctionId, ctx: &Ctx) {
        let model = self.model;
        let func = model.function(f);
        if let Some(c) = self.called.get_mut(f.index()) {
            *c = true;
        }
        let mut outs: Vec<Option<Ty>> = Vec::new();
        if !self.active.contains(&f) {
            // The call binds its attributes by the rules of `crate::calls`, references
            // resolved where the call stands; a call those rules reject is reported
            // (with the checker's code) and inferred as far as its binding goes.
            let binding = crate::calls::CallBinding::bind_with(model, n, f, &mut self.callees);
            if let Err(e) = binding.check_with(model, &self.functions, &mut self.callees) {
                self.report_node(n, e.code, format!("{}: {}", e.call, e.message));
            }
            let mut bound: Vec<Attribute> = Vec::new();
            for b in binding.attrs {
                let value = match b.kind {
                    AttrKind::Value(v) => Some(v),
                    AttrKind::Ref { name, .. } => ctx
                        .attrs
                        .and_then(|attrs| attrs.iter().find(|a| a.name() == name))
                        .and_then(Attribute::value)
                        .cloned(),
                    AttrKind::Raw(_) => None,
                };
                if let Some(v) = value {
                    bound.push(Attribute {
                        name: Some(b.name),
                        doc_string: None,
                        kind: AttrKind::Value(v),
                    });
                }
            }
            let body = func.body;
            let formals: Vec<Option<ValueId>> =
                model.graphs[body].inputs.iter().map(|i| i.value).collect();
            for (k, v) in formals.iter().enumerate() {
                if let Some(v) = *v {
                    let t = self.ty(node.inputs.get(k).copied().flatten()).cloned();
                    let c = node
                        .inputs
                        .get(k)
                        .copied()
                        .flatten()
                        .and_then(|i| self.consts.get(&i).cloned());
                    self.set(v, t, None);
                    match c {
                        Some(c) => self.consts.insert(v, c),
                        None => self.consts.remove(&v),
                    };
                }
            }
            let inner = Ctx {
                opsets: &func.opset_import,
                fallback: &model.opset_import,
                attrs: Some(&bound),
            };
            self.active.push(f);
            self.run_graph(body, &inner);
            self.active.pop();
            outs = self.outputs_of(body);
            self.merge_function_values(body);
        }
        for (k, v) in node.outputs.iter().enumerate() {
            if let Some(v) = v {
                self.set(*v, outs.get(k).cloned().flatten(), Some(n));
            }
        }
    }

    /// Folds the types a call gave a body's values into their merge over all calls.
    fn merge_function_values(&mut self, body: GraphId) {
        let model = self.model;
        for g in model.scope_tree(body) {
            for v in model.defined_in(g) {
                let t = self.types.get(v.index()).cloned().flatten();
                let merged = match self.fn_types.remove(&v) {
                    None => t,
                    Some(prev) => match (prev, t) {
                        (Some(a), Some(b)) => Some(merge_branches(a, b)),
                        _ => None,
                    },
                };
                self.fn_types.insert(v, merged);
            }
        }
    }
}

/// The merge of two types a value may have (If branches, calls of one function):
/// what both agree on.
fn merge_branches(a: Ty, b: Ty) -> Ty {
    match (a, b) {
        (
            Ty::Tensor {
                elem: ea,
                shape: sa,
            },
            Ty::Tensor {
                elem: eb,
                shape: sb,
            },
        ) => {
            let elem = if ea == eb { ea } else { 0 };
            let shape = match (sa, sb) {
                (Some(x), Some(y)) if x.len() == y.len() => Some(
                    x.iter()
                        .zip(&y)
                        .map(|(&p, &q)| if p == q { p } else { D::Unk })
                        .collect(),
                ),
                _ => None,
            };
            Ty::Tensor { elem, shape }
        }
        (a, b) if a == b => a,
        _ => Ty::Tensor {
            elem: 0,
            shape: None,
        },
    }
}

/// An attribute's value, a reference resolved through the call being inferred.
pub(crate) fn attr_value<'a>(node: &'a Node, name: &str, ctx: &Ctx<'a>) -> Option<&'a AttrValue> {
    let a = node.attributes.iter().find(|a| a.name() == name)?;
    match &a.kind {
        AttrKind::Value(v) => Some(v),
        AttrKind::Ref { name: r, .. } => ctx
            .attrs?
            .iter()
            .find(|b| b.name() == r)
            .and_then(Attribute::value),
        AttrKind::Raw(_) => None,
    }
}

pub(crate) fn attr_int(node: &Node, name: &str, ctx: &Ctx) -> Option<i64> {
    match attr_value(node, name, ctx)? {
        AttrValue::Int(i) => Some(*i),
        _ => None,
    }
}

pub(crate) fn attr_ints(node: &Node, name: &str, ctx: &Ctx) -> Option<Vec<i64>> {
    match attr_value(node, name, ctx)? {
        AttrValue::Ints(i) => Some(i.clone()),
        _ => None,
    }
}

/// A possibly negative axis in `0..rank`.
pub(crate) fn norm_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = i64::try_from(rank).ok()?;
    let a = if axis < 0 { axis + r } else { axis };
    if (0..r).contains(&a) {
        usize::try_from(a).ok()
    } else {
        None
    }
}
