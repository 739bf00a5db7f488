//! Graph paths: `main`, `fn:DOMAIN.NAME[:OVERLOAD]`, then `/N.ATTR` or `/N.ATTR[K]`
//! per nested body.

use super::{EditError, Field};
use crate::ir::{AttrValue, FunctionKey, GraphId, GraphOwner, Model};

/// The graph a path names.
pub fn resolve_path(model: &Model, path: &str) -> Result<GraphId, EditError> {
    let err = |m: String| EditError::new(Field::Graph, format!("graph {path:?}: {m}"));
    let mut parts = path.split('/');
    let root = parts.next().unwrap_or("");
    let mut g = match root {
        "" | "main" => model
            .graph
            .ok_or_else(|| err("the model has no main graph".into()))?,
        _ => {
            let key = root
                .strip_prefix("fn:")
                .ok_or_else(|| err("a path starts with main or fn:DOMAIN.NAME".into()))?;
            let key = parse_key(key);
            let f = model
                .find_function(&key)
                .ok_or_else(|| err(format!("no function {key}")))?;
            model.function(f).body
        }
    };
    for part in parts {
        let (node, rest) = part
            .split_once('.')
            .ok_or_else(|| err(format!("{part:?} is not N.ATTRIBUTE")))?;
        let n: usize = node
            .parse()
            .map_err(|_| err(format!("{node:?} is not a node index")))?;
        let (attr, index) = match rest.strip_suffix(']').and_then(|r| r.split_once('[')) {
            Some((a, k)) => (
                a,
                Some(
                    k.parse::<usize>()
                        .map_err(|_| err(format!("{k:?} is not an index")))?,
                ),
            ),
            None => (rest, None),
        };
        let id = *model
            .graph(g)
            .nodes
            .get(n)
            .ok_or_else(|| err(format!("no node {n}")))?;
        let value = model
            .node(id)
            .attributes
            .iter()
            .find(|a| a.name() == attr)
            .and_then(|a| a.value())
            .ok_or_else(|| err(format!("node {n} has no graph attribute {attr:?}")))?;
        g = match (value, index) {
            (AttrValue::Graph(sub), None) => *sub,
            (AttrValue::Graphs(subs), Some(k)) => *subs
                .get(k)
                .ok_or_else(|| err(format!("{attr}[{k}] does not exist")))?,
            _ => return Err(err(format!("node {n}'s {attr:?} is not a body"))),
        };
    }
    Ok(g)
}

/// `DOMAIN.NAME[:OVERLOAD]` (the domain is what comes before the last dot).
pub(crate) fn parse_key(text: &str) -> FunctionKey {
    let (base, overload) = text.split_once(':').unwrap_or((text, ""));
    let (domain, name) = base.rsplit_once('.').unwrap_or(("", base));
    FunctionKey {
        domain: crate::ir::normalize_domain(domain).to_string(),
        name: name.to_string(),
        overload: overload.to_string(),
    }
}

/// The path of a graph (for the app, which edits what it shows).
pub fn graph_path(model: &Model, graph: GraphId) -> Option<String> {
    let mut parts = Vec::new();
    let mut g = graph;
    for _ in 0..=model.graphs.len() {
        match model.graphs.get(g)?.owner {
            GraphOwner::Model => {
                if model.graph != Some(g) {
                    return None;
                }
                parts.push("main".to_string());
                break;
            }
            GraphOwner::Function(f) => {
                let key = model.function_arena.get(f)?.key();
                let mut text = format!("fn:{}.{}", key.domain, key.name);
                if !key.overload.is_empty() {
                    text.push(':');
                    text.push_str(&key.overload);
                }
                parts.push(text);
                break;
            }
            GraphOwner::Training(_) => return None,
            GraphOwner::Node(n) => {
                let node = model.nodes.get(n)?;
                let k = model.graph(node.graph).nodes.iter().position(|&x| x == n)?;
                let mut found = None;
                for a in &node.attributes {
                    match a.value() {
                        Some(AttrValue::Graph(sub)) if *sub == g => {
                            found = Some(format!("{k}.{}", a.name()));
                        }
                        Some(AttrValue::Graphs(subs)) => {
                            if let Some(i) = subs.iter().position(|s| *s == g) {
                                found = Some(format!("{k}.{}[{i}]", a.name()));
                            }
                        }
                        _ => {}
                    }
                }
                parts.push(found?);
                g = node.graph;
            }
        }
    }
    parts.reverse();
    Some(parts.join("/"))
}
