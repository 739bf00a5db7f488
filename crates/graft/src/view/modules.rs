//! Module structure from node metadata: which modules of the source program a node
//! came from, as torch's exporter (`dynamo=True`) records it, for the namespace groups
//! and their labels, and for the properties panel.
//!
//! The exporter writes, on each node:
//! - `pkg.torch.onnx.name_scopes`: the Python `repr` of the cumulative module paths
//!   from the root (`''`) down to the node's own name,
//!   `['', 'enc', 'enc.layers.0', 'linear']`;
//! - `pkg.torch.onnx.class_hierarchy`: the class of each, in the same order,
//!   `['__main__.Net', 'torch.nn.….TransformerEncoder', '….TransformerEncoderLayer',
//!   'aten.linear.default']`;
//! - `namespace`: the same two joined, `name: class` per level, levels joined by `/`:
//!   `: __main__.Net/enc: torch.nn.….TransformerEncoder/…/linear: aten.linear.default`
//!   (other exporters may write it alone);
//! - `pkg.torch.onnx.stack_trace`: where in the source the node was made.
//!
//! The name scopes win; else the namespace. The first level is the root module (the
//! whole program), the last the node itself: the levels between are its modules.

use crate::ir::Node;

/// The metadata key of torch's cumulative module paths.
pub const TORCH_NAME_SCOPES: &str = "pkg.torch.onnx.name_scopes";
/// The metadata key of torch's module classes (parallel to the name scopes).
pub const TORCH_CLASS_HIERARCHY: &str = "pkg.torch.onnx.class_hierarchy";
/// The metadata key of torch's source stack trace.
pub const TORCH_STACK_TRACE: &str = "pkg.torch.onnx.stack_trace";
/// The metadata key of `name: class` levels joined by `/` (torch, Model Explorer).
pub const NAMESPACE: &str = "namespace";

/// One module a node sits in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// Its full path from the root (`enc.layers.0`).
    pub scope: String,
    /// Its qualified class, when recorded (`torch.nn.modules.linear.Linear`).
    pub class: Option<String>,
}

impl Module {
    /// The class without its package (`Linear`).
    pub fn short_class(&self) -> Option<&str> {
        let class = self.class.as_deref()?;
        class.rsplit('.').next()
    }

    /// `enc.layers.0 · TransformerEncoderLayer`, or the path alone.
    pub fn label(&self) -> String {
        match self.short_class() {
            Some(class) if !class.is_empty() => format!("{} · {class}", self.scope),
            _ => self.scope.clone(),
        }
    }
}

/// A node's recorded module path: its modules, outermost first (the root left out),
/// and its own name at the last level (`linear`). `None` when the node records none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModulePath {
    pub modules: Vec<Module>,
    pub own: String,
}

fn metadata<'n>(node: &'n Node, key: &str) -> Option<&'n str> {
    node.metadata_props
        .iter()
        .find(|p| p.key.as_deref() == Some(key))
        .and_then(|p| p.value.as_deref())
}

/// The module path `node` records (see the module documentation), or `None`.
pub fn module_path(node: &Node) -> Option<ModulePath> {
    let levels: Vec<(String, Option<String>)> =
        match metadata(node, TORCH_NAME_SCOPES).and_then(python_strings) {
            Some(scopes) if scopes.len() >= 2 => {
                let classes = metadata(node, TORCH_CLASS_HIERARCHY)
                    .and_then(python_strings)
                    .filter(|c| c.len() == scopes.len());
                scopes
                    .into_iter()
                    .enumerate()
                    .map(|(k, s)| (s, classes.as_ref().map(|c| c[k].clone())))
                    .collect()
            }
            _ => namespace_levels(metadata(node, NAMESPACE)?)?,
        };
    let ((own, _), inner) = levels.split_last()?;
    let mut modules: Vec<Module> = Vec::new();
    // The first level is the root module; a level that repeats its parent's path (a
    // method of the same module) adds nothing.
    for (scope, class) in inner.iter().skip(1) {
        if scope.is_empty() || modules.last().is_some_and(|m| m.scope == *scope) {
            continue;
        }
        modules.push(Module {
            scope: scope.clone(),
            class: class.clone().filter(|c| !c.is_empty()),
        });
    }
    Some(ModulePath {
        modules,
        own: own.clone(),
    })
}

/// The levels of a `namespace` value: `name: class` each (the root's name is empty;
/// a level without `: ` is a class when first, else a name). `None` when it has
/// fewer than two levels.
fn namespace_levels(text: &str) -> Option<Vec<(String, Option<String>)>> {
    let levels: Vec<(String, Option<String>)> = text
        .split('/')
        .enumerate()
        .map(|(k, level)| match level.split_once(": ") {
            Some((name, class)) => (name.trim().to_string(), Some(class.trim().to_string())),
            None if k == 0 => (String::new(), Some(level.trim().to_string())),
            None => (level.trim().to_string(), None),
        })
        .collect();
    (levels.len() >= 2).then_some(levels)
}

impl ModulePath {
    /// The namespace components for grouping: each module's own segment (its path
    /// past its parent's, `layers.0` under `enc`), then the node's own name.
    pub fn components(&self) -> Vec<String> {
        let mut out = Vec::with_capacity(self.modules.len() + 1);
        let mut parent = "";
        for m in &self.modules {
            let own = m
                .scope
                .strip_prefix(parent)
                .and_then(|rest| {
                    if parent.is_empty() {
                        Some(rest)
                    } else {
                        rest.strip_prefix('.')
                    }
                })
                .filter(|s| !s.is_empty())
                .unwrap_or(&m.scope);
            out.push(own.to_string());
            parent = &m.scope;
        }
        out.push(self.own.clone());
        out
    }
}

/// The readable source location of a torch stack trace (outermost frame first): the
/// innermost `File "…", line N, in f` frame outside torch itself (the model's code,
/// not `torch/nn/modules/…`), else the innermost, with the code line under it.
pub fn source_line(trace: &str) -> Option<String> {
    let lines: Vec<&str> = trace.lines().collect();
    let frames: Vec<usize> = (0..lines.len())
        .filter(|&k| lines[k].trim_start().starts_with("File \""))
        .collect();
    let in_torch = |k: &&usize| {
        let file = lines[**k].split('"').nth(1).unwrap_or("");
        file.contains("/torch/") || file.contains("\\torch\\")
    };
    let k = *frames
        .iter()
        .rev()
        .find(|k| !in_torch(k))
        .or(frames.last())?;
    let frame = lines[k].trim();
    match lines.get(k + 1).map(|l| l.trim()) {
        Some(code) if !code.is_empty() && !code.starts_with("File \"") => {
            Some(format!("{frame}: {code}"))
        }
        _ => Some(frame.to_string()),
    }
}

/// The strings of a Python list literal of strings (`['a', "b\'c"]`), or `None` when
/// the text is anything else.
pub(crate) fn python_strings(text: &str) -> Option<Vec<String>> {
    let mut chars = text.trim().chars().peekable();
    if chars.next()? != '[' {
        return None;
    }
    let mut out = Vec::new();
    loop {
        while chars.next_if(|c| c.is_whitespace() || *c == ',').is_some() {}
        match chars.next()? {
            ']' => break,
            quote @ ('\'' | '"') => {
                let mut s = String::new();
                loop {
                    match chars.next()? {
                        '\\' => s.push(chars.next()?),
                        c if c == quote => break,
                        c => s.push(c),
                    }
                }
                out.push(s);
            }
            _ => return None,
        }
    }
    chars.all(char::is_whitespace).then_some(out)
}
