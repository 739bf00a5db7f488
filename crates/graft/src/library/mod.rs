//! The function library: the model-local functions and the edits on them — inlining
//! calls (semantics.md §3, "Inlining a call"), outlining nodes into a new function,
//! renaming a function with its call sites, deleting functions nothing calls.
//!
//! Decisions:
//! - Every edit checks everything it needs before it changes anything, so an error
//!   leaves the model as it was. A batch (`inline_calls`) works on a copy and swaps it
//!   in at the end.
//! - Inlining copies the callee's body (subgraphs included) with every attribute
//!   reference bound at the call (call value, else the declared default, else dropped)
//!   and every body value renamed fresh in the caller's whole scope tree (the main
//!   graph with its subgraphs, or the function body the call is in). The call's output
//!   values keep their ids, so every reader follows; an output the call omits gets a
//!   fresh name. A pass-through output becomes an `Identity`.
//! - Removed nodes, graphs and functions stay in the arenas, unreachable (as the opset
//!   converter leaves them); export and the checker walk from the model's roots.

mod builders;
mod inline;
mod outline;
mod standard;

use std::collections::HashSet;

use crate::hash::{FxBuild, FxMap};
use crate::ir::{FunctionId, FunctionIndex, FunctionKey, GraphOwner, Model, NodeId, OpsetId};

pub use inline::inline_call;
pub use outline::{new_function_key, outline};
pub use standard::{
    BodyKind, StandardReport, body_kind, expand_standard, expand_standard_ops, standard_body,
};

/// What went wrong in a library edit. The model is unchanged.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LibraryError {
    #[error("node {0:?} is not in the model")]
    NoNode(NodeId),
    #[error("node {node:?} ({op}) does not call a local function")]
    NotACall { node: NodeId, op: String },
    #[error("no local function {0}")]
    NoFunction(FunctionKey),
    #[error("{key} is still called {calls} time(s); inline or remove those calls first")]
    StillCalled { key: String, calls: usize },
    /// A call the rules of `crate::calls` reject (the checker's code, the call node).
    #[error(transparent)]
    Call(#[from] crate::calls::CallError),
    #[error("local function {0} is recursive; refusing to inline it [check.function-recursion]")]
    Recursion(FunctionKey),
    #[error("{0}")]
    Outline(String),
    #[error("cannot convert the body of {key} from opset {from} to the model's {to}: {reason}")]
    Convert {
        key: String,
        from: i64,
        to: i64,
        reason: String,
    },
    #[error("{op} has no function body at opset {version}")]
    NoStandardBody { op: String, version: i64 },
    #[error("cannot expand {op}: {reason}")]
    StandardBody { op: String, reason: String },
    #[error("a local function {0} already exists")]
    FunctionExists(FunctionKey),
    #[error(
        "{0:?} is not a valid function name (letters, digits and _, not starting with a digit)"
    )]
    BadName(String),
    #[error("{0:?}: give the new function's name as DOMAIN.NAME, e.g. my.Block")]
    NotQualified(String),
    #[error("{0:?} is not a valid domain: identifiers separated by dots")]
    BadDomain(String),
    #[error("a new function needs a domain of its own, not the default domain")]
    DefaultDomain,
    #[error("{0} is a standard operator; a local function cannot take its name")]
    StandardOperator(FunctionKey),
}

/// What `inline_call` did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct InlineCallReport {
    /// The nodes that replaced the call, in order (in the call's graph).
    pub nodes: Vec<NodeId>,
    /// Domains added to the caller's `opset_import` (the model's, or the enclosing
    /// function's).
    pub added_domains: Vec<String>,
    /// Functions removed because nothing calls them any more.
    pub removed: Vec<FunctionKey>,
}

/// What `inline_calls` did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct InlineCallsReport {
    /// How many calls were expanded (nested calls included).
    pub calls: usize,
    /// Functions removed because nothing calls them any more.
    pub removed: Vec<FunctionKey>,
}

/// Which calls `inline_calls` expands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Which {
    /// Every call of every local function, until no local call remains.
    All,
    /// The calls of one function (one overload).
    Key(FunctionKey),
    /// The calls of every overload of a (domain, name).
    Name { domain: String, name: String },
    /// The calls of every function of a domain.
    Domain(String),
}

/// The calls of `key`: in the main graph, the training graphs and every function body,
/// subgraphs at any depth included.
pub fn call_sites(model: &Model, key: &FunctionKey) -> Vec<NodeId> {
    model
        .live_nodes()
        .filter(|&n| crate::ir::call_key(model.node(n)) == *key)
        .collect()
}

/// The functions reachable through calls from the model's roots and from `keep`.
fn reachable(model: &Model, keep: &[FunctionId]) -> HashSet<FunctionId, FxBuild> {
    let functions = FunctionIndex::new(model);
    let mut seen: HashSet<FunctionId, FxBuild> = HashSet::default();
    let mut stack: Vec<FunctionId> = model
        .model_roots()
        .flat_map(|r| functions.callees_under(model, r))
        .chain(keep.iter().copied())
        .collect();
    while let Some(f) = stack.pop() {
        if seen.insert(f) {
            stack.extend(functions.callees_under(model, model.function(f).body));
        }
    }
    seen
}

/// Removes one local function, which nothing may call (the library panel's Delete).
pub fn delete_function(model: &mut Model, key: &FunctionKey) -> Result<(), LibraryError> {
    let f = model
        .find_function(key)
        .ok_or_else(|| LibraryError::NoFunction(key.clone()))?;
    let calls = call_sites(model, key).len();
    if calls > 0 {
        return Err(LibraryError::StillCalled {
            key: key.to_string(),
            calls,
        });
    }
    model.functions.retain(|&g| g != f);
    Ok(())
}

/// Removes the functions nothing in the model calls (directly or through other used
/// functions); their keys, in file order.
pub fn delete_unused(model: &mut Model) -> Vec<FunctionKey> {
    let used = reachable(model, &[]);
    let mut removed = Vec::new();
    let functions = std::mem::take(&mut model.functions);
    for f in functions {
        if used.contains(&f) {
            model.functions.push(f);
        } else {
            removed.push(model.function(f).key());
        }
    }
    removed
}

/// Removes those of `candidates` that nothing calls any more: no call in the model's
/// graphs, nor in the body of a function that stays (repeated until nothing changes).
fn remove_uncalled(
    model: &mut Model,
    candidates: &HashSet<FunctionId, FxBuild>,
) -> Vec<FunctionKey> {
    let mut removed = Vec::new();
    if !model.functions.iter().any(|f| candidates.contains(f)) {
        return removed;
    }
    loop {
        let functions = FunctionIndex::new(model);
        let called: HashSet<FunctionId, FxBuild> = model
            .all_roots()
            .flat_map(|r| functions.callees_under(model, r))
            .collect();
        let before = model.functions.len();
        let mut kept = Vec::with_capacity(before);
        let mut gone = Vec::new();
        for &f in &model.functions {
            if candidates.contains(&f) && !called.contains(&f) {
                removed.push(model.function(f).key());
                gone.push(model.function(f).body);
            } else {
                kept.push(f);
            }
        }
        model.functions = kept;
        // Another round only when a removed body called something.
        if gone
            .iter()
            .all(|&g| functions.callees_under(model, g).next().is_none())
        {
            return removed;
        }
    }
}

/// Adds `domain` at `version` to `imports` when no entry names it; whether it did.
pub(crate) fn import_domain(
    imports: &mut Vec<OpsetId>,
    domain: &str,
    version: Option<i64>,
) -> bool {
    if imports.iter().any(|o| o.normalized_domain() == domain) {
        return false;
    }
    imports.push(OpsetId {
        domain: Some(domain.to_string()),
        version,
    });
    true
}

/// Expands calls until none of the chosen ones is left (nested calls that the expanded
/// bodies contain included, with `Which::All`). Recursive functions are refused. On
/// error the model is unchanged.
pub fn inline_calls(model: &mut Model, which: &Which) -> Result<InlineCallsReport, LibraryError> {
    let functions = FunctionIndex::new(model);
    let chosen = |key: &FunctionKey| match which {
        Which::All => true,
        Which::Key(k) => k == key,
        Which::Name { domain, name } => {
            crate::ir::normalize_domain(domain) == key.domain && *name == key.name
        }
        Which::Domain(domain) => crate::ir::normalize_domain(domain) == key.domain,
    };
    if let Which::Key(k) = which
        && functions.get(k).is_none()
    {
        return Err(LibraryError::NoFunction(k.clone()));
    }
    if let Which::Name { domain, name } = which
        && !functions
            .keys()
            .any(|k| k.domain == crate::ir::normalize_domain(domain) && k.name == *name)
    {
        return Err(LibraryError::NoFunction(FunctionKey {
            domain: domain.clone(),
            name: name.clone(),
            overload: String::new(),
        }));
    }
    // Recursion: a chosen function that reaches itself through calls, the first in
    // file order (not the index's hash order, so the message is the same everywhere).
    for &f in &model.functions {
        let key = model.function(f).key();
        if functions.get(&key) == Some(f) && chosen(&key) && reaches_itself(model, &functions, f) {
            return Err(LibraryError::Recursion(key));
        }
    }

    let mut work = model.clone();
    let chosen_ids: Vec<FunctionId> = functions
        .iter()
        .filter(|(k, _)| chosen(k))
        .map(|(_, f)| f)
        .collect();
    align_bodies(&mut work, &chosen_ids)?;
    let mut engine = inline::Engine::new(&work);
    // Room for the copies of the calls the model's graphs make (nested ones grow the
    // arenas as usual): big models would otherwise move their arenas several times.
    let mut added = 0;
    for root in work.model_roots().collect::<Vec<_>>() {
        for g in work.scope_tree(root) {
            for &n in &work.graph(g).nodes {
                if let Some(f) = engine.functions.callee(&work, n)
                    && chosen(&work.function(f).key())
                {
                    added += work.graph(work.function(f).body).nodes.len();
                }
            }
        }
    }
    work.nodes.reserve(added);
    work.values.reserve(added);
    engine.expected_names = added;
    let mut touched: HashSet<FunctionId, FxBuild> = HashSet::default();
    let mut calls_inside: FxMap<FunctionId, bool> = FxMap::default();
    let mut calls = 0;
    // The model's graphs first, then the bodies of the functions that are still there
    // once the functions the model's graphs no longer call are gone.
    let mut roots = work.model_roots().collect::<Vec<_>>();
    let mut removed = Vec::new();
    for round in 0..2 {
        if round == 1 {
            removed = remove_uncalled(&mut work, &touched);
            roots = work
                .functions
                .iter()
                .map(|&f| work.function(f).body)
                .collect();
        }
        for root in roots.clone() {
            for g in work.scope_tree(root).collect::<Vec<_>>() {
                let mut expansions: FxMap<NodeId, Vec<NodeId>> = FxMap::default();
                let mut queue: Vec<NodeId> = work.graph(g).nodes.clone();
                let mut k = 0;
                while let Some(&n) = queue.get(k) {
                    k += 1;
                    let f = match crate::calls::resolve(&work, &engine.functions, n) {
                        crate::calls::Resolved::Function(f) => f,
                        crate::calls::Resolved::Missing
                            if chosen(&crate::ir::call_key(work.node(n))) =>
                        {
                            return Err(crate::calls::CallError::missing(&work, n).into());
                        }
                        _ => continue,
                    };
                    if !chosen(&work.function(f).key()) {
                        continue;
                    }
                    let nodes = engine.expand(&mut work, n, f)?;
                    touched.insert(f);
                    calls += 1;
                    // The copy holds calls only if the body does.
                    let body_calls = *calls_inside.entry(f).or_insert_with(|| {
                        let body = &work.graph(work.function(f).body).nodes;
                        body.iter()
                            .any(|&b| engine.functions.callee(&work, b).is_some())
                    });
                    if body_calls {
                        queue.extend_from_slice(&nodes);
                    }
                    expansions.insert(n, nodes);
                }
                if !expansions.is_empty() {
                    let old = std::mem::take(&mut work.graphs[g].nodes);
                    let mut new = Vec::with_capacity(old.len() + queue.len());
                    flatten(&old, &expansions, &mut new);
                    work.graphs[g].nodes = new;
                }
            }
        }
    }
    removed.extend(remove_uncalled(&mut work, &touched));
    *model = work;
    Ok(InlineCallsReport { calls, removed })
}

/// Converts the bodies of `fs` whose default-domain version differs from the model's
/// to the model's version (runtimes evaluate bodies there, semantics.md §1) and sets
/// their `opset_import` to it, so that the inlined nodes bind to the caller's version.
/// All or nothing per function.
pub(crate) fn align_bodies(model: &mut Model, fs: &[FunctionId]) -> Result<(), LibraryError> {
    let Some(to) = model.opset_version("") else {
        return Ok(());
    };
    for &f in fs {
        let function = model.function(f);
        let from = function
            .opset_import
            .iter()
            .find(|o| o.normalized_domain().is_empty())
            .and_then(|o| o.version);
        let Some(from) = from.filter(|&v| v != to) else {
            continue;
        };
        let key = function.key().to_string();
        crate::opset::convert_graphs(model, &[function.body], from, to).map_err(|e| {
            LibraryError::Convert {
                key,
                from,
                to,
                reason: e.to_string(),
            }
        })?;
        for o in &mut model.function_arena[f].opset_import {
            if o.normalized_domain().is_empty() {
                o.version = Some(to);
            }
        }
    }
    Ok(())
}

/// `nodes` with every expanded call replaced by its expansion (recursively).
fn flatten(nodes: &[NodeId], expansions: &FxMap<NodeId, Vec<NodeId>>, out: &mut Vec<NodeId>) {
    // An explicit stack: expansions nest as deep as calls do.
    let mut stack: Vec<std::slice::Iter<'_, NodeId>> = vec![nodes.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            Some(n) => match expansions.get(n) {
                Some(inner) => stack.push(inner.iter()),
                None => out.push(*n),
            },
            None => {
                stack.pop();
            }
        }
    }
}

/// Whether `start` calls itself through any chain of calls.
pub(crate) fn reaches_itself(model: &Model, functions: &FunctionIndex, start: FunctionId) -> bool {
    let mut seen: HashSet<FunctionId, FxBuild> = HashSet::default();
    let mut stack: Vec<FunctionId> = functions
        .callees_under(model, model.function(start).body)
        .collect();
    while let Some(f) = stack.pop() {
        if f == start {
            return true;
        }
        if seen.insert(f) {
            stack.extend(functions.callees_under(model, model.function(f).body));
        }
    }
    false
}

/// Renames a function (its overload stays); every call follows, and the model and the
/// functions that call it import the new domain. The new key.
pub fn rename_function(
    model: &mut Model,
    key: &FunctionKey,
    new_domain: &str,
    new_name: &str,
) -> Result<FunctionKey, LibraryError> {
    let new_domain = crate::ir::normalize_domain(new_domain);
    if new_name.is_empty() {
        return Err(LibraryError::BadName(new_name.to_string()));
    }
    let f = model
        .find_function(key)
        .ok_or_else(|| LibraryError::NoFunction(key.clone()))?;
    let new_key = FunctionKey {
        domain: new_domain.to_string(),
        name: new_name.to_string(),
        overload: key.overload.clone(),
    };
    if new_key == *key {
        return Ok(new_key);
    }
    if model.find_function(&new_key).is_some() {
        return Err(LibraryError::FunctionExists(new_key));
    }
    let sites = call_sites(model, key);
    let version = model.opset_version(&key.domain).or(Some(1));
    for &n in &sites {
        let graph = model.node(n).graph;
        let node = &mut model.nodes[n];
        node.domain = Some(new_domain.to_string());
        node.op_type = Some(new_name.to_string());
        if let GraphOwner::Function(h) = model.graphs[model.scope_root(graph)].owner {
            import_domain(
                &mut model.function_arena[h].opset_import,
                new_domain,
                version,
            );
        }
    }
    import_domain(&mut model.opset_import, new_domain, version);
    let function = &mut model.function_arena[f];
    function.domain = Some(new_domain.to_string());
    function.name = Some(new_name.to_string());
    Ok(new_key)
}
