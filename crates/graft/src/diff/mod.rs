//! Comparing two models: what was added, removed, changed, renamed, inlined.
//!
//! Functions match by full id (domain, name, overload); an overload only B has is
//! compared with its generic in A, so a specialization shows what it folded. Graphs
//! match by owner: the main graphs, the bodies of matched functions, and the subgraphs
//! of matched nodes by attribute. Within a graph, nodes match by name, then by
//! structure (`matching`), and values through the matched nodes. A call in A whose
//! outputs B computes with unmatched nodes from the same inputs is reported as inlined
//! (and the reverse as outlined), not as a removal and many additions.
//!
//! The result holds ids of both models; [`Diff::report`] and [`Diff::to_json`] write it
//! with names and paths. It is deterministic: everything is listed in file order.

mod content;
mod matching;

use serde_json::{Value as Json, json};

use crate::diag::Location;
use crate::hash::{FxMap, FxSet};
use crate::ir::{
    AttrKind, Attribute, FunctionId, FunctionKey, GraphId, Model, NodeId, StringPair, Type, ValueId,
};
use matching::{Looking, Matcher, Pairing, Side};

/// One field that differs: its name, and its text in A and in B (`None`: absent).
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    pub a: Option<String>,
    pub b: Option<String>,
}

impl Field {
    fn new(name: impl Into<String>, a: Option<String>, b: Option<String>) -> Self {
        Self {
            name: name.into(),
            a,
            b,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FunctionChange {
    /// Only B has it; an overload is compared with its generic in A, when there is one.
    Added {
        b: FunctionId,
        against: Option<FunctionId>,
    },
    Removed {
        a: FunctionId,
    },
    /// Both have it and its declaration differs (its body's changes are in `graphs`).
    Changed {
        a: FunctionId,
        b: FunctionId,
        fields: Vec<Field>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeChange {
    Added(NodeId),
    Removed(NodeId),
    /// Matched, and renamed or changed (`fields`: overload, attributes, inputs, arity,
    /// doc string, metadata).
    Changed {
        a: NodeId,
        b: NodeId,
        renamed: bool,
        fields: Vec<Field>,
    },
    /// A call in A whose body B has in its place: `nodes` of B.
    Inlined {
        call: NodeId,
        nodes: Vec<NodeId>,
    },
    /// Nodes of A that B has replaced by a call.
    Outlined {
        nodes: Vec<NodeId>,
        call: NodeId,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ValueChange {
    /// A graph input, output or initializer only B has.
    Added {
        b: ValueId,
        role: &'static str,
    },
    Removed {
        a: ValueId,
        role: &'static str,
    },
    Renamed {
        a: ValueId,
        b: ValueId,
    },
    /// The declared type (from the inputs, outputs or `value_info`).
    Type {
        a: ValueId,
        b: ValueId,
        from: Option<String>,
        to: Option<String>,
    },
    /// An initializer's content; the largest absolute difference when element type and
    /// dims agree.
    Initializer {
        a: ValueId,
        b: ValueId,
        from: String,
        to: String,
        max_abs_diff: Option<f64>,
    },
}

/// The differences within one pair of matched graphs.
#[derive(Clone, Debug, PartialEq)]
pub struct GraphDiff {
    pub a: GraphId,
    pub b: GraphId,
    /// The matched nodes (A, B), in A's order.
    pub pairs: Vec<(NodeId, NodeId)>,
    pub fields: Vec<Field>,
    pub nodes: Vec<NodeChange>,
    pub values: Vec<ValueChange>,
}

impl GraphDiff {
    fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.nodes.is_empty() && self.values.is_empty()
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diff {
    /// Model fields: IR version, opsets, producer, doc string, metadata…
    pub model: Vec<Field>,
    pub functions: Vec<FunctionChange>,
    /// Every pair of matched graphs, changed or not, parents before their subgraphs.
    pub graphs: Vec<GraphDiff>,
}

/// How many of each kind of change a diff has.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub nodes_added: usize,
    pub nodes_removed: usize,
    pub nodes_changed: usize,
    pub nodes_renamed: usize,
    pub calls_inlined: usize,
    pub calls_outlined: usize,
    pub values_added: usize,
    pub values_removed: usize,
    pub values_renamed: usize,
    pub types_changed: usize,
    pub initializers_changed: usize,
    pub functions_added: usize,
    pub functions_removed: usize,
    pub functions_changed: usize,
    pub model_fields: usize,
}

/// One change as text, for a report or a list.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// `+` added, `-` removed, `~` changed, `=` renamed, `>` inlined, `<` outlined.
    pub sign: &'static str,
    pub text: String,
    /// The graph pair it is in (an index into [`Diff::graphs`]), if any.
    pub graph: Option<usize>,
    pub at: At,
}

/// Where a change can be shown in B.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum At {
    /// The model as a whole (or something only A has outside any graph).
    Model,
    /// Its graph (a removed node, a value): the graph pair's B side.
    Graph,
    NodeB(NodeId),
    FunctionB(FunctionId),
}

fn arrow(f: &Field) -> String {
    format!(
        "{}: {} → {}",
        f.name,
        f.a.as_deref().unwrap_or("(none)"),
        f.b.as_deref().unwrap_or("(none)")
    )
}

/// Compares model `a` with model `b`.
pub fn diff(a: &Model, b: &Model) -> Diff {
    let (sa, sb) = (Side::new(a), Side::new(b));
    let mut out = Diff {
        model: model_fields(a, b),
        ..Diff::default()
    };
    if let (Some(ga), Some(gb)) = (a.graph, b.graph) {
        // Training graphs see the main graph: one pairing for all of them.
        let mut roots = vec![(ga, gb)];
        for (x, y) in a.training_info.iter().zip(&b.training_info) {
            for pair in [
                (x.initialization, y.initialization),
                (x.algorithm, y.algorithm),
            ] {
                if let (Some(p), Some(q)) = pair {
                    roots.push((p, q));
                }
            }
        }
        scope(&sa, &sb, &roots, &mut out.graphs);
    }
    // Functions by full id; a duplicated id (an invalid model) pairs in file order.
    let keyed = |m: &Model| -> Vec<(FunctionKey, usize, FunctionId)> {
        let mut seen: FxMap<FunctionKey, usize> = FxMap::default();
        m.functions
            .iter()
            .map(|&f| {
                let key = m.function(f).key();
                let k = seen.entry(key.clone()).or_default();
                *k += 1;
                (key, *k, f)
            })
            .collect()
    };
    let (keys_a, keys_b) = (keyed(a), keyed(b));
    let index =
        |keys: &[(FunctionKey, usize, FunctionId)]| -> FxMap<(FunctionKey, usize), FunctionId> {
            keys.iter()
                .map(|(key, k, f)| ((key.clone(), *k), *f))
                .collect()
        };
    let (index_a, index_b) = (index(&keys_a), index(&keys_b));
    let find = |index: &FxMap<(FunctionKey, usize), FunctionId>, key: &FunctionKey, k: usize| {
        index.get(&(key.clone(), k)).copied()
    };
    for (key, k, fa) in &keys_a {
        match find(&index_b, key, *k) {
            Some(fb) => {
                let fields = function_fields(a, *fa, b, fb);
                if !fields.is_empty() {
                    out.functions.push(FunctionChange::Changed {
                        a: *fa,
                        b: fb,
                        fields,
                    });
                }
                let bodies = (a.function(*fa).body, b.function(fb).body);
                scope(&sa, &sb, &[bodies], &mut out.graphs);
            }
            None => out.functions.push(FunctionChange::Removed { a: *fa }),
        }
    }
    for (key, k, fb) in &keys_b {
        if find(&index_a, key, *k).is_some() {
            continue;
        }
        let fb = *fb;
        let generic = FunctionKey {
            overload: String::new(),
            ..key.clone()
        };
        let against = (!key.overload.is_empty())
            .then(|| sa.index.get(&generic))
            .flatten();
        out.functions.push(FunctionChange::Added { b: fb, against });
        if let Some(fa) = against {
            let bodies = (a.function(fa).body, b.function(fb).body);
            scope(&sa, &sb, &[bodies], &mut out.graphs);
        }
    }
    out
}

/// Matches scope trees that share one pairing: the root pairs, each followed by the
/// subgraphs of its matched nodes.
fn scope(sa: &Side, sb: &Side, roots: &[(GraphId, GraphId)], out: &mut Vec<GraphDiff>) {
    let mut pairing = Pairing::default();
    let mut todo: Vec<(GraphId, GraphId)> = roots.iter().rev().copied().collect();
    while let Some((ga, gb)) = todo.pop() {
        Matcher::new(sa, sb, &mut pairing, ga, gb).run();
        let graph = classify(sa, sb, &pairing, ga, gb);
        // Subgraphs of matched nodes, by attribute name and position, in node order.
        let mut subs = Vec::new();
        for &na in &sa.model.graph(ga).nodes {
            let Some(&nb) = pairing.nodes_ab.get(&na) else {
                continue;
            };
            let y = sb.model.node(nb);
            for attr in &sa.model.node(na).attributes {
                if let Some(other) = y.attributes.iter().find(|o| o.name() == attr.name()) {
                    subs.extend(attr.graphs().zip(other.graphs()));
                }
            }
        }
        todo.extend(subs.into_iter().rev());
        out.push(graph);
    }
}

fn classify(sa: &Side, sb: &Side, p: &Pairing, ga: GraphId, gb: GraphId) -> GraphDiff {
    let (am, bm) = (sa.model, sb.model);
    let (x, y) = (am.graph(ga), bm.graph(gb));
    let look_a = Looking {
        side: sa,
        graph: ga,
        nodes: &p.nodes_ab,
        values: &p.values_ab,
    };
    let look_b = Looking {
        side: sb,
        graph: gb,
        nodes: &p.nodes_ba,
        values: &p.values_ba,
    };
    let (mut claimed_a, mut claimed_b) = (FxSet::default(), FxSet::default());
    let inlined = matching::inlined(&look_a, &look_b, &mut claimed_b);
    let outlined = matching::inlined(&look_b, &look_a, &mut claimed_a);
    let inlined_calls: FxSet<NodeId> = inlined.iter().map(|r| r.call).collect();
    let outlined_calls: FxSet<NodeId> = outlined.iter().map(|r| r.call).collect();

    let mut nodes = Vec::new();
    let mut pairs = Vec::new();
    for &na in &x.nodes {
        if let Some(&nb) = p.nodes_ab.get(&na) {
            pairs.push((na, nb));
            let fields = node_fields(am, na, bm, nb, p);
            let renamed = am.node(na).name() != bm.node(nb).name();
            if renamed || !fields.is_empty() {
                nodes.push(NodeChange::Changed {
                    a: na,
                    b: nb,
                    renamed,
                    fields,
                });
            }
        } else if !claimed_a.contains(&na) && !inlined_calls.contains(&na) {
            nodes.push(NodeChange::Removed(na));
        }
    }
    for &nb in &y.nodes {
        if !p.nodes_ba.contains_key(&nb)
            && !claimed_b.contains(&nb)
            && !outlined_calls.contains(&nb)
        {
            nodes.push(NodeChange::Added(nb));
        }
    }
    nodes.extend(inlined.into_iter().map(|r| NodeChange::Inlined {
        call: r.call,
        nodes: r.nodes,
    }));
    nodes.extend(outlined.into_iter().map(|r| NodeChange::Outlined {
        nodes: r.nodes,
        call: r.call,
    }));

    let mut fields = Vec::new();
    if x.name != y.name {
        fields.push(Field::new("name", x.name.clone(), y.name.clone()));
    }
    fields.extend(documentation(
        (&x.doc_string, &x.metadata_props),
        (&y.doc_string, &y.metadata_props),
    ));

    GraphDiff {
        a: ga,
        b: gb,
        pairs,
        fields,
        nodes,
        values: value_changes(am, ga, bm, gb, p),
    }
}

fn value_changes(
    am: &Model,
    ga: GraphId,
    bm: &Model,
    gb: GraphId,
    p: &Pairing,
) -> Vec<ValueChange> {
    let (x, y) = (am.graph(ga), bm.graph(gb));
    fn declared(g: &crate::ir::Graph) -> FxMap<ValueId, &Type> {
        g.inputs
            .iter()
            .chain(&g.outputs)
            .chain(&g.value_info)
            .filter_map(|i| Some((i.value?, i.ty.as_ref()?)))
            .collect()
    }
    let (types_a, types_b) = (declared(x), declared(y));
    let inits_b: FxMap<ValueId, &crate::ir::Tensor> = y
        .initializers
        .iter()
        .filter_map(|i| Some((i.value?, &i.tensor)))
        .collect();
    let mut out = Vec::new();

    // Values A's graph defines, in order: inputs, initializers, node outputs.
    let mut defined: Vec<ValueId> = x.inputs.iter().filter_map(|i| i.value).collect();
    defined.extend(x.initializers.iter().filter_map(|i| i.value));
    defined.extend(
        x.nodes
            .iter()
            .flat_map(|&n| am.node(n).outputs.iter().flatten().copied()),
    );
    let mut seen = FxSet::default();
    for va in defined {
        if !seen.insert(va) {
            continue;
        }
        let Some(&vb) = p.values_ab.get(&va) else {
            continue;
        };
        if am.value(va).name != bm.value(vb).name {
            out.push(ValueChange::Renamed { a: va, b: vb });
        }
        let (ta, tb) = (types_a.get(&va), types_b.get(&vb));
        if ta != tb {
            out.push(ValueChange::Type {
                a: va,
                b: vb,
                from: ta.map(|t| t.to_string()),
                to: tb.map(|t| t.to_string()),
            });
        }
    }
    for init in &x.initializers {
        let Some(va) = init.value else { continue };
        let Some(&vb) = p.values_ab.get(&va) else {
            continue;
        };
        let Some(tb) = inits_b.get(&vb) else { continue };
        if content::tensor(am, &init.tensor) != content::tensor(bm, tb) {
            out.push(ValueChange::Initializer {
                a: va,
                b: vb,
                from: content::tensor_type(&init.tensor),
                to: content::tensor_type(tb),
                max_abs_diff: content::max_abs_diff(am, &init.tensor, bm, tb),
            });
        }
    }

    // The interface and initializers one side lacks.
    let roles = |g: &crate::ir::Graph| -> Vec<(ValueId, &'static str)> {
        let mut list: Vec<(ValueId, &'static str)> = Vec::new();
        list.extend(g.inputs.iter().filter_map(|i| Some((i.value?, "input"))));
        list.extend(g.outputs.iter().filter_map(|i| Some((i.value?, "output"))));
        list.extend(
            g.initializers
                .iter()
                .filter_map(|i| Some((i.value?, "initializer"))),
        );
        list
    };
    let (ra, rb) = (roles(x), roles(y));
    let (set_a, set_b): (FxSet<_>, FxSet<_>) =
        (ra.iter().copied().collect(), rb.iter().copied().collect());
    for &(va, role) in &ra {
        let kept = p
            .values_ab
            .get(&va)
            .is_some_and(|vb| set_b.contains(&(*vb, role)));
        if !kept {
            out.push(ValueChange::Removed { a: va, role });
        }
    }
    for &(vb, role) in &rb {
        let kept = p
            .values_ba
            .get(&vb)
            .is_some_and(|va| set_a.contains(&(*va, role)));
        if !kept {
            out.push(ValueChange::Added { b: vb, role });
        }
    }
    out
}

fn node_fields(am: &Model, na: NodeId, bm: &Model, nb: NodeId, p: &Pairing) -> Vec<Field> {
    let (x, y) = (am.node(na), bm.node(nb));
    let mut out = Vec::new();
    let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
    if x.op_type() != y.op_type() || x.domain() != y.domain() {
        out.push(Field::new(
            "op",
            Some(format!("{}.{}", x.domain(), x.op_type())),
            Some(format!("{}.{}", y.domain(), y.op_type())),
        ));
    }
    if x.overload() != y.overload() {
        out.push(Field::new("overload", opt(x.overload()), opt(y.overload())));
    }
    out.extend(attribute_fields(am, &x.attributes, bm, &y.attributes));
    if x.inputs.len() != y.inputs.len() {
        out.push(Field::new(
            "inputs",
            Some(x.inputs.len().to_string()),
            Some(y.inputs.len().to_string()),
        ));
    }
    for (k, (ia, ib)) in x.inputs.iter().zip(&y.inputs).enumerate() {
        let same = match (ia, ib) {
            (None, None) => true,
            (Some(ia), Some(ib)) => match p.values_ab.get(ia) {
                Some(w) => w == ib,
                // Both unpaired: what computes them differs, and that is reported there.
                None => !p.values_ba.contains_key(ib),
            },
            _ => false,
        };
        if !same {
            let name = |m: &Model, v: &Option<ValueId>| v.map(|v| m.value(v).name.clone());
            out.push(Field::new(format!("input {k}"), name(am, ia), name(bm, ib)));
        }
    }
    if x.outputs.len() != y.outputs.len() {
        out.push(Field::new(
            "outputs",
            Some(x.outputs.len().to_string()),
            Some(y.outputs.len().to_string()),
        ));
    }
    out.extend(documentation(
        (&x.doc_string, &x.metadata_props),
        (&y.doc_string, &y.metadata_props),
    ));
    out
}

/// Attributes by name: added, removed, or with another value (graphs by kind only:
/// their contents are compared as subgraphs).
fn attribute_fields(am: &Model, a: &[Attribute], bm: &Model, b: &[Attribute]) -> Vec<Field> {
    let text = |m: &Model, attr: &Attribute| match &attr.kind {
        AttrKind::Value(v) => crate::text::attr_text(m, v),
        AttrKind::Ref { name, .. } => format!("@{name}"),
        AttrKind::Raw(_) => "(malformed)".to_string(),
    };
    let mut out = Vec::new();
    for x in a {
        match b.iter().find(|y| y.name() == x.name()) {
            None => out.push(Field::new(
                format!("attribute {}", x.name()),
                Some(text(am, x)),
                None,
            )),
            Some(y) => {
                if content::attribute_value(am, x) != content::attribute_value(bm, y) {
                    out.push(Field::new(
                        format!("attribute {}", x.name()),
                        Some(text(am, x)),
                        Some(text(bm, y)),
                    ));
                }
            }
        }
    }
    for y in b {
        if !a.iter().any(|x| x.name() == y.name()) {
            out.push(Field::new(
                format!("attribute {}", y.name()),
                None,
                Some(text(bm, y)),
            ));
        }
    }
    out
}

/// A doc string and metadata that differ.
fn documentation(
    (doc_a, meta_a): (&Option<String>, &[StringPair]),
    (doc_b, meta_b): (&Option<String>, &[StringPair]),
) -> Vec<Field> {
    let mut out = Vec::new();
    if doc_a != doc_b {
        out.push(Field::new("doc_string", doc_a.clone(), doc_b.clone()));
    }
    out.extend(pairs_fields("metadata", meta_a, meta_b));
    out
}

fn pairs_fields(what: &str, a: &[StringPair], b: &[StringPair]) -> Vec<Field> {
    let mut out = Vec::new();
    let get = |list: &[StringPair], k: &str| {
        list.iter()
            .find(|p| p.key() == k)
            .map(|p| p.value().to_string())
    };
    let mut keys: Vec<&str> = a.iter().map(StringPair::key).collect();
    keys.extend(
        b.iter()
            .map(StringPair::key)
            .filter(|k| !a.iter().any(|p| p.key() == *k)),
    );
    for k in keys {
        let (x, y) = (get(a, k), get(b, k));
        if x != y {
            out.push(Field::new(format!("{what} {k}"), x, y));
        }
    }
    out
}

fn opsets_fields(a: &[crate::ir::OpsetId], b: &[crate::ir::OpsetId]) -> Vec<Field> {
    let pairs = |list: &[crate::ir::OpsetId]| -> Vec<StringPair> {
        list.iter()
            .map(|o| {
                let domain = o.normalized_domain();
                let domain = if domain.is_empty() { "ai.onnx" } else { domain };
                StringPair::new(domain, o.version.map_or("?".into(), |v| v.to_string()))
            })
            .collect()
    };
    pairs_fields("opset", &pairs(a), &pairs(b))
}

fn model_fields(a: &Model, b: &Model) -> Vec<Field> {
    let mut out = Vec::new();
    let num = |v: Option<i64>| v.map(|v| v.to_string());
    if a.ir_version != b.ir_version {
        out.push(Field::new(
            "ir_version",
            num(a.ir_version),
            num(b.ir_version),
        ));
    }
    out.extend(opsets_fields(&a.opset_import, &b.opset_import));
    for (name, x, y) in [
        ("producer_name", &a.producer_name, &b.producer_name),
        ("producer_version", &a.producer_version, &b.producer_version),
        ("domain", &a.domain, &b.domain),
        ("doc_string", &a.doc_string, &b.doc_string),
    ] {
        if x != y {
            out.push(Field::new(name, x.clone(), y.clone()));
        }
    }
    if a.model_version != b.model_version {
        out.push(Field::new(
            "model_version",
            num(a.model_version),
            num(b.model_version),
        ));
    }
    out.extend(pairs_fields(
        "metadata",
        &a.metadata_props,
        &b.metadata_props,
    ));
    if a.training_info.len() != b.training_info.len() {
        out.push(Field::new(
            "training_info",
            Some(a.training_info.len().to_string()),
            Some(b.training_info.len().to_string()),
        ));
    }
    out
}

fn function_fields(am: &Model, fa: FunctionId, bm: &Model, fb: FunctionId) -> Vec<Field> {
    let (x, y) = (am.function(fa), bm.function(fb));
    let mut out = Vec::new();
    if x.attribute != y.attribute {
        out.push(Field::new(
            "attributes",
            Some(x.attribute.join(", ")),
            Some(y.attribute.join(", ")),
        ));
    }
    out.extend(
        attribute_fields(am, &x.attribute_proto, bm, &y.attribute_proto)
            .into_iter()
            .map(|f| Field {
                name: format!("default {}", f.name),
                ..f
            }),
    );
    out.extend(opsets_fields(&x.opset_import, &y.opset_import));
    out.extend(documentation(
        (&x.doc_string, &x.metadata_props),
        (&y.doc_string, &y.metadata_props),
    ));
    out
}

impl Diff {
    pub fn counts(&self) -> Counts {
        let mut c = Counts {
            model_fields: self.model.len(),
            ..Counts::default()
        };
        for f in &self.functions {
            match f {
                FunctionChange::Added { .. } => c.functions_added += 1,
                FunctionChange::Removed { .. } => c.functions_removed += 1,
                FunctionChange::Changed { .. } => c.functions_changed += 1,
            }
        }
        for g in &self.graphs {
            for n in &g.nodes {
                match n {
                    NodeChange::Added(_) => c.nodes_added += 1,
                    NodeChange::Removed(_) => c.nodes_removed += 1,
                    NodeChange::Changed {
                        renamed, fields, ..
                    } => {
                        c.nodes_renamed += usize::from(*renamed);
                        c.nodes_changed += usize::from(!fields.is_empty());
                    }
                    NodeChange::Inlined { .. } => c.calls_inlined += 1,
                    NodeChange::Outlined { .. } => c.calls_outlined += 1,
                }
            }
            for v in &g.values {
                match v {
                    ValueChange::Added { .. } => c.values_added += 1,
                    ValueChange::Removed { .. } => c.values_removed += 1,
                    ValueChange::Renamed { .. } => c.values_renamed += 1,
                    ValueChange::Type { .. } => c.types_changed += 1,
                    ValueChange::Initializer { .. } => c.initializers_changed += 1,
                }
            }
            c.model_fields += g.fields.iter().filter(|f| f.name != "name").count();
        }
        c
    }

    /// Whether the models are the same but for the names of nodes, values and graphs.
    pub fn same_up_to_names(&self) -> bool {
        let c = self.counts();
        c == Counts {
            nodes_renamed: c.nodes_renamed,
            values_renamed: c.values_renamed,
            ..Counts::default()
        }
    }

    /// The pairs of graphs that have a change.
    pub fn changed_graphs(&self) -> impl Iterator<Item = &GraphDiff> {
        self.graphs.iter().filter(|g| !g.is_empty())
    }

    /// Every change as a line of text, in order: the model's fields, the functions,
    /// then each changed graph's (`graph`: its index in `graphs`).
    pub fn lines(&self, a: &Model, b: &Model) -> Vec<Line> {
        let mut out = Vec::new();
        let mut push = |sign, text: String, graph, at| {
            out.push(Line {
                sign,
                text,
                graph,
                at,
            })
        };
        for f in &self.model {
            push("~", format!("model {}", arrow(f)), None, At::Model);
        }
        for f in &self.functions {
            match f {
                FunctionChange::Added { b: fb, against } => {
                    let mut text = format!("function {}", b.function(*fb).key());
                    if let Some(fa) = against {
                        text.push_str(&format!(" (compared with {})", a.function(*fa).key()));
                    }
                    push("+", text, None, At::FunctionB(*fb));
                }
                FunctionChange::Removed { a: fa } => {
                    let text = format!("function {}", a.function(*fa).key());
                    push("-", text, None, At::Model);
                }
                FunctionChange::Changed { b: fb, fields, .. } => {
                    for field in fields {
                        let text = format!("function {} {}", b.function(*fb).key(), arrow(field));
                        push("~", text, None, At::FunctionB(*fb));
                    }
                }
            }
        }
        for (k, g) in self.graphs.iter().enumerate() {
            if g.is_empty() {
                continue;
            }
            let graph = Some(k);
            for f in &g.fields {
                push("~", format!("graph {}", arrow(f)), graph, At::Graph);
            }
            for n in &g.nodes {
                match n {
                    NodeChange::Added(nb) => push("+", node_label(b, *nb), graph, At::NodeB(*nb)),
                    NodeChange::Removed(na) => push("-", node_label(a, *na), graph, At::Graph),
                    NodeChange::Changed {
                        a: na,
                        b: nb,
                        renamed,
                        fields,
                    } => {
                        if *renamed {
                            let text =
                                format!("{} renamed {:?}", node_label(a, *na), b.node(*nb).name());
                            push("=", text, graph, At::NodeB(*nb));
                        }
                        for f in fields {
                            let text = format!("{} {}", node_label(a, *na), arrow(f));
                            push("~", text, graph, At::NodeB(*nb));
                        }
                    }
                    NodeChange::Inlined { call, nodes } => {
                        let text = format!(
                            "{} inlined as {} node{}",
                            node_label(a, *call),
                            nodes.len(),
                            if nodes.len() == 1 { "" } else { "s" }
                        );
                        let at = nodes.first().map_or(At::Graph, |&n| At::NodeB(n));
                        push(">", text, graph, at);
                    }
                    NodeChange::Outlined { nodes, call } => {
                        let text = format!(
                            "{} node{} outlined into {}",
                            nodes.len(),
                            if nodes.len() == 1 { "" } else { "s" },
                            node_label(b, *call)
                        );
                        push("<", text, graph, At::NodeB(*call));
                    }
                }
            }
            for v in &g.values {
                let (sign, text) = value_line(a, b, v);
                push(sign, text, graph, At::Graph);
            }
        }
        out
    }

    /// A readable report: one line a change, under the path of its graph, then the
    /// counts.
    pub fn report(&self, a: &Model, b: &Model) -> String {
        let mut out = String::new();
        let mut current = None;
        for line in self.lines(a, b) {
            if line.graph != current
                && let Some(k) = line.graph
            {
                let g = &self.graphs[k];
                out.push_str(&format!("{}:\n", graph_path(a, g.a, b, g.b)));
            }
            current = line.graph;
            let indent = if line.graph.is_some() { "  " } else { "" };
            out.push_str(&format!("{indent}{} {}\n", line.sign, line.text));
        }
        let c = self.counts();
        out.push_str(&format!(
            "{} added, {} removed, {} changed, {} renamed, {} inlined, {} outlined nodes; \
             {} values renamed, {} types and {} initializers changed; \
             functions: {} added, {} removed, {} changed\n",
            c.nodes_added,
            c.nodes_removed,
            c.nodes_changed,
            c.nodes_renamed,
            c.calls_inlined,
            c.calls_outlined,
            c.values_renamed,
            c.types_changed,
            c.initializers_changed,
            c.functions_added,
            c.functions_removed,
            c.functions_changed,
        ));
        out
    }

    /// The diff as a JSON document with names and paths (its shape is documented in
    /// the CLI's help and kept stable).
    pub fn to_json(&self, a: &Model, b: &Model) -> Json {
        let field = |f: &Field| json!({"field": f.name, "a": f.a, "b": f.b});
        let functions: Vec<Json> = self
            .functions
            .iter()
            .map(|f| match f {
                FunctionChange::Added { b: fb, against } => json!({
                    "change": "added",
                    "function": b.function(*fb).key().to_string(),
                    "compared_with": against.map(|fa| a.function(fa).key().to_string()),
                }),
                FunctionChange::Removed { a: fa } => json!({
                    "change": "removed",
                    "function": a.function(*fa).key().to_string(),
                }),
                FunctionChange::Changed { a: fa, fields, .. } => json!({
                    "change": "changed",
                    "function": a.function(*fa).key().to_string(),
                    "fields": fields.iter().map(field).collect::<Vec<_>>(),
                }),
            })
            .collect();
        let graphs: Vec<Json> = self
            .changed_graphs()
            .map(|g| {
                let nodes: Vec<Json> = g
                    .nodes
                    .iter()
                    .map(|n| match n {
                        NodeChange::Added(nb) => json!({"change": "added", "b": node_json(b, *nb)}),
                        NodeChange::Removed(na) => {
                            json!({"change": "removed", "a": node_json(a, *na)})
                        }
                        NodeChange::Changed {
                            a: na,
                            b: nb,
                            renamed,
                            fields,
                        } => json!({
                            "change": if fields.is_empty() { "renamed" } else { "changed" },
                            "a": node_json(a, *na),
                            "b": node_json(b, *nb),
                            "renamed": renamed,
                            "fields": fields.iter().map(field).collect::<Vec<_>>(),
                        }),
                        NodeChange::Inlined { call, nodes } => json!({
                            "change": "inlined",
                            "a": node_json(a, *call),
                            "b": nodes.iter().map(|&n| node_json(b, n)).collect::<Vec<_>>(),
                        }),
                        NodeChange::Outlined { nodes, call } => json!({
                            "change": "outlined",
                            "a": nodes.iter().map(|&n| node_json(a, n)).collect::<Vec<_>>(),
                            "b": node_json(b, *call),
                        }),
                    })
                    .collect();
                let values: Vec<Json> = g.values.iter().map(|v| value_json(a, b, v)).collect();
                json!({
                    "path": graph_path(a, g.a, b, g.b),
                    "fields": g.fields.iter().map(field).collect::<Vec<_>>(),
                    "nodes": nodes,
                    "values": values,
                })
            })
            .collect();
        json!({
            "same_up_to_names": self.same_up_to_names(),
            "counts": self.counts(),
            "model": self.model.iter().map(field).collect::<Vec<_>>(),
            "functions": functions,
            "graphs": graphs,
        })
    }
}

fn graph_path(a: &Model, ga: GraphId, b: &Model, gb: GraphId) -> String {
    let (pa, pb) = (
        Location::graph(ga).describe(a),
        Location::graph(gb).describe(b),
    );
    if pa == pb {
        pa
    } else {
        format!("{pa} (B: {pb})")
    }
}

/// `"conv1" (Conv)`, or `Conv #3` (its position in its graph) when unnamed.
fn node_label(m: &Model, n: NodeId) -> String {
    let node = m.node(n);
    if node.name().is_empty() {
        let k = m
            .graph(node.graph)
            .nodes
            .iter()
            .position(|&x| x == n)
            .unwrap_or(0);
        format!("{} #{k}", node.op_type())
    } else {
        format!("{:?} ({})", node.name(), node.op_type())
    }
}

fn node_json(m: &Model, n: NodeId) -> Json {
    let node = m.node(n);
    let k = m.graph(node.graph).nodes.iter().position(|&x| x == n);
    json!({"name": node.name(), "op": node.op_type(), "domain": node.domain(), "index": k})
}

fn value_line(a: &Model, b: &Model, v: &ValueChange) -> (&'static str, String) {
    let name = |m: &Model, v: ValueId| format!("{:?}", m.value(v).name);
    match v {
        ValueChange::Added { b: vb, role } => ("+", format!("{role} {}", name(b, *vb))),
        ValueChange::Removed { a: va, role } => ("-", format!("{role} {}", name(a, *va))),
        ValueChange::Renamed { a: va, b: vb } => (
            "=",
            format!("value {} renamed {}", name(a, *va), name(b, *vb)),
        ),
        ValueChange::Type {
            a: va, from, to, ..
        } => (
            "~",
            format!(
                "value {} type: {} → {}",
                name(a, *va),
                from.as_deref().unwrap_or("(none)"),
                to.as_deref().unwrap_or("(none)")
            ),
        ),
        ValueChange::Initializer {
            a: va,
            from,
            to,
            max_abs_diff,
            ..
        } => {
            let mut s = format!("initializer {} content", name(a, *va));
            if from != to {
                s.push_str(&format!(": {from} → {to}"));
            }
            if let Some(d) = max_abs_diff {
                s.push_str(&format!(", max |a-b| {d}"));
            }
            ("~", s)
        }
    }
}

fn value_json(a: &Model, b: &Model, v: &ValueChange) -> Json {
    let name = |m: &Model, v: ValueId| m.value(v).name.clone();
    match v {
        ValueChange::Added { b: vb, role } => {
            json!({"change": "added", "role": role, "b": name(b, *vb)})
        }
        ValueChange::Removed { a: va, role } => {
            json!({"change": "removed", "role": role, "a": name(a, *va)})
        }
        ValueChange::Renamed { a: va, b: vb } => {
            json!({"change": "renamed", "a": name(a, *va), "b": name(b, *vb)})
        }
        ValueChange::Type {
            a: va,
            b: vb,
            from,
            to,
        } => json!({
            "change": "type", "a": name(a, *va), "b": name(b, *vb), "from": from, "to": to,
        }),
        ValueChange::Initializer {
            a: va,
            b: vb,
            from,
            to,
            max_abs_diff,
        } => json!({
            "change": "initializer", "a": name(a, *va), "b": name(b, *vb),
            "from": from, "to": to, "max_abs_diff": max_abs_diff,
        }),
    }
}
