//! The IR: one arena per kind of thing, typed ids between them, names as labels.
//!
//! A `Model` owns every graph (main graph, subgraphs held by GRAPH/GRAPHS attributes,
//! training graphs, function bodies), node, value and function in four arenas. Graphs
//! record where they live (`GraphOwner`), which gives each subgraph its lexical scope.
//! Values are resolved by scope on import: a node input is the `ValueId` that its name
//! denotes where the node stands, so a rename changes one label and every reference
//! follows.

mod attr;
mod copy;
mod data;
mod file;
mod ids;
mod names;
mod scope;
mod touched;
mod walk;

pub use attr::{AttrKind, AttrType, AttrValue, Attribute, RawAttribute};
pub use copy::{Copier, ValueMap};
pub use data::{
    DATA_LOCATION_EXTERNAL, DeviceConfiguration, Dim, DimValue, ExternalRef, IntIntList,
    NodeDeviceConfiguration, OpsetId, Segment, Shape, ShardedDim, ShardingSpec, SimpleShardedDim,
    SparseTensor, StringPair, Tensor, TensorAnnotation, TensorType, Type, TypeValue, dtype,
    normalize_domain,
};
pub use file::{DataFile, ReadAhead, ReadRange, Unread};
pub use ids::{Arena, ArenaId, FunctionId, GraphId, NodeId, ValueId};
pub use names::{Names, is_identifier, is_keyword, snake_case};
pub use scope::{Found, NamedInfo, Resolver, Resolving, Saved};
pub use touched::{Ids, Touched};
pub use walk::{FunctionIndex, ScopeTree, call_key};

/// An ONNX model.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub ir_version: Option<i64>,
    pub opset_import: Vec<OpsetId>,
    pub producer_name: Option<String>,
    pub producer_version: Option<String>,
    pub domain: Option<String>,
    pub model_version: Option<i64>,
    pub doc_string: Option<String>,
    /// The main graph (absent only in malformed models).
    pub graph: Option<GraphId>,
    pub metadata_props: Vec<StringPair>,
    pub training_info: Vec<TrainingInfo>,
    /// Model-local functions in file order.
    pub functions: Vec<FunctionId>,
    pub configuration: Vec<DeviceConfiguration>,

    pub graphs: Arena<GraphId, Graph>,
    pub nodes: Arena<NodeId, Node>,
    pub values: Arena<ValueId, Value>,
    pub function_arena: Arena<FunctionId, Function>,

    /// Fields the input had that the vendored onnx.proto does not declare (a newer
    /// ONNX). Export refuses to drop them unless told to.
    pub unknown_fields: Vec<UnknownField>,
    /// External-data files, by the location tensors name them with: their bytes, or a
    /// source that reads a range when a tensor's bytes are needed.
    pub external_files: std::collections::BTreeMap<String, DataFile>,
    /// The model's own file, when the importer left tensors' `raw_data` in it
    /// (`Tensor::unread`).
    pub file: Option<DataFile>,
}

/// A field present in the input that the vendored schema does not declare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownField {
    /// The message type that holds it, e.g. `NodeProto`.
    pub message: &'static str,
    pub field: u32,
    pub wire_type: u8,
}

/// Where a graph lives; the chain of owners is its lexical scope.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GraphOwner {
    /// The main graph.
    Model,
    /// A GRAPH or GRAPHS attribute of a node (the node's graph is the enclosing scope).
    Node(NodeId),
    /// The body of a function; it sees nothing outside itself.
    Function(FunctionId),
    /// `initialization` or `algorithm` of `training_info[i]`; it sees the main graph.
    Training(usize),
}

/// A `GraphProto`, or the body of a `FunctionProto`.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    pub owner: GraphOwner,
    pub name: Option<String>,
    pub doc_string: Option<String>,
    /// Nodes in file order.
    pub nodes: Vec<NodeId>,
    pub inputs: Vec<ValueInfo>,
    pub outputs: Vec<ValueInfo>,
    pub value_info: Vec<ValueInfo>,
    pub initializers: Vec<Initializer>,
    pub sparse_initializers: Vec<SparseInitializer>,
    pub quantization_annotation: Vec<TensorAnnotation>,
    pub metadata_props: Vec<StringPair>,
}

impl Graph {
    pub fn new(owner: GraphOwner) -> Self {
        Self {
            owner,
            name: None,
            doc_string: None,
            nodes: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            value_info: Vec::new(),
            initializers: Vec::new(),
            sparse_initializers: Vec::new(),
            quantization_annotation: Vec::new(),
            metadata_props: Vec::new(),
        }
    }
}

/// A `ValueInfoProto` entry (graph input, output, or `value_info`). `value` is `None`
/// when the entry has no name field at all.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValueInfo {
    pub value: Option<ValueId>,
    pub ty: Option<Type>,
    pub doc_string: Option<String>,
    pub metadata_props: Vec<StringPair>,
}

/// An initializer: the tensor (its `name` unset) and the value it defines.
#[derive(Clone, Debug, PartialEq)]
pub struct Initializer {
    pub value: Option<ValueId>,
    pub tensor: Tensor,
}

/// A sparse initializer: the value is named by `tensor.values`.
#[derive(Clone, Debug, PartialEq)]
pub struct SparseInitializer {
    pub value: Option<ValueId>,
    pub tensor: SparseTensor,
}

/// A `NodeProto`.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub graph: GraphId,
    pub op_type: Option<String>,
    pub domain: Option<String>,
    pub overload: Option<String>,
    pub name: Option<String>,
    /// `None` is the empty name: an omitted optional input.
    pub inputs: Vec<Option<ValueId>>,
    /// `None` is the empty name: an unused optional output.
    pub outputs: Vec<Option<ValueId>>,
    pub attributes: Vec<Attribute>,
    pub doc_string: Option<String>,
    pub metadata_props: Vec<StringPair>,
    pub device_configurations: Vec<NodeDeviceConfiguration>,
}

impl Node {
    pub fn op_type(&self) -> &str {
        self.op_type.as_deref().unwrap_or("")
    }

    /// The domain, with `ai.onnx` normalized to `""`.
    pub fn domain(&self) -> &str {
        normalize_domain(self.domain.as_deref().unwrap_or(""))
    }

    pub fn overload(&self) -> &str {
        self.overload.as_deref().unwrap_or("")
    }

    pub fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }
}

/// How a value comes to exist.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// A graph input or a function's formal input (possibly with an initializer as
    /// default).
    Input,
    /// An initializer or sparse initializer that is not also an input.
    Initializer,
    /// Output of a node.
    Node(NodeId),
    /// Referenced, but defined nowhere in scope (reported on import).
    Undefined,
}

/// A named SSA value.
#[derive(Clone, Debug, PartialEq)]
pub struct Value {
    pub name: String,
    pub graph: GraphId,
    pub def: ValueDef,
}

/// A `FunctionProto`. Its inputs, outputs and `value_info` are those of its body graph.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: Option<String>,
    pub domain: Option<String>,
    pub overload: Option<String>,
    pub body: GraphId,
    /// Declared attributes without default (`attribute`).
    pub attribute: Vec<String>,
    /// Declared attributes with default (`attribute_proto`).
    pub attribute_proto: Vec<Attribute>,
    pub doc_string: Option<String>,
    pub opset_import: Vec<OpsetId>,
    pub metadata_props: Vec<StringPair>,
}

/// The identity of a function: (normalized domain, name, overload).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionKey {
    pub domain: String,
    pub name: String,
    pub overload: String,
}

impl std::fmt::Display for FunctionKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if !self.domain.is_empty() {
            write!(f, "{}.", self.domain)?;
        }
        f.write_str(&self.name)?;
        if !self.overload.is_empty() {
            write!(f, ":{}", self.overload)?;
        }
        Ok(())
    }
}

impl Function {
    pub fn key(&self) -> FunctionKey {
        FunctionKey {
            domain: normalize_domain(self.domain.as_deref().unwrap_or("")).to_string(),
            name: self.name.clone().unwrap_or_default(),
            overload: self.overload.clone().unwrap_or_default(),
        }
    }
}

/// A `TrainingInfoProto`.
#[derive(Clone, Debug, Default)]
pub struct TrainingInfo {
    pub initialization: Option<GraphId>,
    pub algorithm: Option<GraphId>,
    pub initialization_binding: Vec<StringPair>,
    pub update_binding: Vec<StringPair>,
}

impl Model {
    pub fn graph(&self, id: GraphId) -> &Graph {
        &self.graphs[id]
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id]
    }

    pub fn value(&self, id: ValueId) -> &Value {
        &self.values[id]
    }

    pub fn function(&self, id: FunctionId) -> &Function {
        &self.function_arena[id]
    }

    /// The graph that encloses `graph` lexically, if any.
    pub fn parent_graph(&self, graph: GraphId) -> Option<GraphId> {
        match self.graphs[graph].owner {
            GraphOwner::Node(node) => Some(self.nodes[node].graph),
            GraphOwner::Training(_) => self.graph,
            GraphOwner::Model | GraphOwner::Function(_) => None,
        }
    }

    /// How many GRAPH attributes deep `graph` sits (the main graph and function bodies
    /// are 0).
    pub fn depth(&self, graph: GraphId) -> usize {
        let mut depth = 0;
        let mut current = graph;
        while let GraphOwner::Node(node) = self.graphs[current].owner {
            depth += 1;
            current = self.nodes[node].graph;
        }
        depth
    }

    /// The model's version of an operator set (domain normalized), if imported.
    pub fn opset_version(&self, domain: &str) -> Option<i64> {
        let domain = normalize_domain(domain);
        self.opset_import
            .iter()
            .find(|o| o.normalized_domain() == domain)
            .and_then(|o| o.version)
    }

    /// The function a key names.
    pub fn find_function(&self, key: &FunctionKey) -> Option<FunctionId> {
        self.functions
            .iter()
            .copied()
            .find(|&f| self.function_arena[f].key() == *key)
    }

    /// Moves everything `other` holds into this model's arenas (ids shifted, names
    /// unchanged) and returns its functions and its main graph by their new ids. Nothing
    /// becomes reachable from this model's roots: the caller decides what to attach.
    pub fn absorb(&mut self, other: Model) -> (Vec<FunctionId>, Option<GraphId>) {
        let (g0, n0, v0, f0) = (
            self.graphs.len(),
            self.nodes.len(),
            self.values.len(),
            self.function_arena.len(),
        );
        let g = |id: GraphId| GraphId::from_index(id.index() + g0);
        let n = |id: NodeId| NodeId::from_index(id.index() + n0);
        let v = |id: ValueId| ValueId::from_index(id.index() + v0);
        let f = |id: FunctionId| FunctionId::from_index(id.index() + f0);
        let infos = |list: &mut Vec<ValueInfo>| {
            for info in list {
                info.value = info.value.map(v);
            }
        };
        for mut graph in other.graphs.into_items() {
            graph.owner = match graph.owner {
                GraphOwner::Node(id) => GraphOwner::Node(n(id)),
                GraphOwner::Function(id) => GraphOwner::Function(f(id)),
                owner => owner,
            };
            for id in &mut graph.nodes {
                *id = n(*id);
            }
            infos(&mut graph.inputs);
            infos(&mut graph.outputs);
            infos(&mut graph.value_info);
            for i in &mut graph.initializers {
                i.value = i.value.map(v);
            }
            for i in &mut graph.sparse_initializers {
                i.value = i.value.map(v);
            }
            self.graphs.push(graph);
        }
        for mut node in other.nodes.into_items() {
            node.graph = g(node.graph);
            for id in node.inputs.iter_mut().chain(&mut node.outputs).flatten() {
                *id = v(*id);
            }
            for a in &mut node.attributes {
                a.map_graphs(g);
            }
            self.nodes.push(node);
        }
        for mut value in other.values.into_items() {
            value.graph = g(value.graph);
            if let ValueDef::Node(id) = value.def {
                value.def = ValueDef::Node(n(id));
            }
            self.values.push(value);
        }
        for mut function in other.function_arena.into_items() {
            function.body = g(function.body);
            for a in &mut function.attribute_proto {
                a.map_graphs(g);
            }
            self.function_arena.push(function);
        }
        (
            other.functions.into_iter().map(f).collect(),
            other.graph.map(g),
        )
    }

    /// Every initializer of every graph with the graph it belongs to.
    pub fn all_initializers(&self) -> impl Iterator<Item = (GraphId, &Initializer)> {
        self.graphs
            .iter()
            .flat_map(|(g, graph)| graph.initializers.iter().map(move |i| (g, i)))
    }
}
