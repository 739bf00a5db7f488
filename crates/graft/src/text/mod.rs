//! The ONNX text format: a parser and a printer for the syntax of onnx's
//! `docs/Syntax.md` (as `onnx/defs/parser.cc` implements it), with Graft's
//! annotations for what that syntax cannot say.
//!
//! - [`parse_model`] reads text into the IR the way [`crate::import`] reads protobuf:
//!   names resolved by lexical scope, undefined names and duplicate definitions as
//!   diagnostics. Text in onnx's syntax reads to the same fields onnx.parser gives
//!   (presence included: a node's domain is always set, as onnx sets it).
//! - [`print_model`] writes the IR back, deterministically, one node per line. It is
//!   lossless: printing then parsing gives back the same model (onnx `==`).
//! - What onnx's syntax has no words for (doc strings of graphs and nodes, metadata
//!   outside the model, sparse initializers, `raw_data`, training info, a field set to
//!   its default rather than absent...) is written on `#@` lines: `#@ {key: value}`
//!   annotates the item after it. onnx.parser reads those lines as comments, so text
//!   that Graft prints is always text onnx.parser reads; it only misses what the
//!   annotations add. A model without such content prints without annotations.
//!   `README.md` in this folder lists every annotation.
//!
//! Nesting is bounded: graphs nest at most 64 deep in text, types and annotation
//! records too; deeper input is a parse error, never a stack overflow.

mod annot;
mod ast;
mod build;
mod label;
mod lexer;
mod parse;
mod parse_tensor;
mod print;
mod print_tensor;
mod values;
mod write;

use crate::codec::Imported;
use crate::ir::{FunctionId, GraphId, Model};

pub use label::attr_text;
pub use parse::MAX_GRAPH_DEPTH;

/// A syntax error: where, what, and the line it is on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    pub message: String,
    /// The text of the line (without its line break).
    pub source_line: String,
}

impl ParseError {
    pub(crate) fn at(src: &str, pos: usize, message: String) -> Self {
        let pos = pos.min(src.len());
        let before = src.get(..pos).unwrap_or("");
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = before.matches('\n').count() + 1;
        let column = src
            .get(line_start..pos)
            .map_or(1, |s| s.chars().count() + 1);
        let rest = src.get(line_start..).unwrap_or("");
        let source_line = rest.split('\n').next().unwrap_or("").trim_end_matches('\r');
        Self {
            line,
            column,
            message,
            source_line: source_line.to_string(),
        }
    }
}

impl std::fmt::Display for ParseError {
    /// `line:column: message`, then the line and a caret under the column.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "{}:{}: {}", self.line, self.column, self.message)?;
        writeln!(f, "{}", self.source_line)?;
        let pad: String = self
            .source_line
            .chars()
            .take(self.column.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        write!(f, "{pad}^")
    }
}

impl std::error::Error for ParseError {}

/// How to parse.
#[derive(Clone, Debug)]
pub struct ParseOptions {
    /// Read Graft's `#@` annotations. Off, they are comments, and the text reads
    /// exactly as onnx.parser reads it.
    pub annotations: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        Self { annotations: true }
    }
}

/// Parses a model: an optional `<header>`, the main graph, then functions.
pub fn parse_model(text: &str) -> Result<Imported, ParseError> {
    parse_model_with(text, &ParseOptions::default())
}

pub fn parse_model_with(text: &str, options: &ParseOptions) -> Result<Imported, ParseError> {
    let mut p = parse::Parser::new(text, options.annotations);
    let mut ast = p.model()?;
    let model = std::mem::take(&mut ast.model);
    let mut b = build::Builder::new(model);
    b.model(ast);
    let (model, diagnostics) = b.finish();
    Ok(Imported { model, diagnostics })
}

/// Parses one graph (`name (inputs) => (outputs) {nodes}`) into a model that holds
/// only it, as `model.graph`. Names it uses from outside are reported undefined.
pub fn parse_graph(text: &str) -> Result<Imported, ParseError> {
    let mut p = parse::Parser::new(text, true);
    if p.at_annotation()? {
        p.defaults_annotation()?;
    }
    let graph = p.top_graph()?;
    let t = p.peek()?;
    if !p.at_eof()? {
        return Err(p.unexpected(&t, "the end of the text after the graph"));
    }
    let mut b = build::Builder::new(Model::default());
    let id = b.graph(graph, crate::ir::GraphOwner::Model);
    b.model.graph = Some(id);
    let (model, diagnostics) = b.finish();
    Ok(Imported { model, diagnostics })
}

/// Parses a type as the text format writes it: `float[N, 3]`, `int64[]` (a scalar),
/// `float` (rank unknown), `seq(float[?])`, `optional(int64)`, `map(string, float)`.
///
/// ```
/// let t = graft::text::parse_type("float[N, 3]").unwrap();
/// assert_eq!(t.to_string(), "float[N,3]");
/// ```
pub fn parse_type(text: &str) -> Result<crate::ir::Type, ParseError> {
    let mut p = parse::Parser::new(text, false);
    let ty = p.parse_type()?;
    let t = p.peek()?;
    if !p.at_eof()? {
        return Err(p.unexpected(&t, "the end of the text after the type"));
    }
    Ok(ty)
}

/// Prints a type in the form [`parse_type`] reads back.
///
/// ```
/// let t = graft::text::parse_type("float[N, 3]").unwrap();
/// assert_eq!(graft::text::parse_type(&graft::text::print_type(&t)).unwrap(), t);
/// ```
pub fn print_type(ty: &crate::ir::Type) -> String {
    let mut out = String::new();
    write::write_ann_type(&mut out, ty);
    out
}

/// Parses one function (`<header> name <attrs> (inputs) => (outputs) {nodes}`) into a
/// model that holds only it, as `model.functions[0]`.
pub fn parse_function(text: &str) -> Result<Imported, ParseError> {
    let mut p = parse::Parser::new(text, true);
    let f = p.function(true)?;
    let t = p.peek()?;
    if !p.at_eof()? {
        return Err(p.unexpected(&t, "the end of the text after the function"));
    }
    let mut b = build::Builder::new(Model::default());
    let id = b.function(f);
    b.model.functions.push(id);
    let (model, diagnostics) = b.finish();
    Ok(Imported { model, diagnostics })
}

/// Prints a model. [`parse_model`] reads it back to an equal model.
pub fn print_model(model: &Model) -> String {
    let mut p = print::Printer::new(model);
    p.model();
    p.into_string()
}

/// [`print_model`] (or [`print_function`] of `function`), and the line (1-based) where
/// each node of the printed graph starts; a node inside an If/Loop/Scan body is found
/// at the line of the node holding it.
pub fn print_with_lines(
    model: &Model,
    function: Option<FunctionId>,
) -> (String, crate::hash::FxMap<crate::ir::NodeId, usize>) {
    let mut p = print::Printer::new(model);
    match function {
        Some(f) => p.function(f, true),
        None => p.model(),
    }
    let mut starts = std::mem::take(&mut p.starts);
    starts.sort_by_key(|&(_, offset)| offset);
    let text = p.into_string();
    let mut lines = crate::hash::FxMap::default();
    let (mut line, mut at) = (1, 0);
    for (node, offset) in starts {
        line += text.as_bytes()[at..offset.min(text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        at = offset.min(text.len());
        // Annotation lines (`#@`) come first: the node's own line is the first other.
        let mut own = line;
        for l in text[at..].split('\n') {
            if !l.trim_start().starts_with("#@") {
                break;
            }
            own += 1;
        }
        lines.insert(node, own);
    }
    (text, lines)
}

/// The line of `node` in text [`print_with_lines`] gave: its own, or that of the node
/// holding the body it is in.
pub fn line_of(
    model: &Model,
    lines: &crate::hash::FxMap<crate::ir::NodeId, usize>,
    mut node: crate::ir::NodeId,
) -> Option<usize> {
    for _ in 0..model.graphs.len() + 1 {
        if let Some(&line) = lines.get(&node) {
            return Some(line);
        }
        match model.graphs.get(model.nodes.get(node)?.graph)?.owner {
            crate::ir::GraphOwner::Node(owner) => node = owner,
            _ => return None,
        }
    }
    None
}

/// Prints one graph of a model in the form [`parse_graph`] reads.
pub fn print_graph(model: &Model, graph: GraphId) -> String {
    let mut p = print::Printer::new(model);
    p.standalone_graph(graph);
    p.into_string()
}

/// Prints one function of a model in the form [`parse_function`] reads.
pub fn print_function(model: &Model, function: FunctionId) -> String {
    let mut p = print::Printer::new(model);
    p.function(function, true);
    p.into_string()
}

/// Attributes as a node writes them between `<` and `>` (`alpha = 0.2, to = 7`), the
/// form [`parse_attributes`] reads back; doc strings are left out.
pub fn print_attributes(model: &Model, attributes: &[crate::ir::Attribute]) -> String {
    let mut p = print::Printer::new(model);
    p.attribute_list(attributes);
    p.into_string()
}

/// Parses attributes as a node writes them between `<` and `>`: `alpha = 0.2`,
/// `to = 7, axes = [0, 1]`, `mode = "tanh"`, typed ones like `alpha: float = 2`.
/// Graph values are refused (their graph would belong to no model). Errors point into
/// `text` (line 1).
pub fn parse_attributes(text: &str) -> Result<Vec<crate::ir::Attribute>, ParseError> {
    const HEAD: &str = "<ir_version: 10, opset_import: [\"\": 1]>\ng () => () { _ = _A <";
    let wrapped = format!("{HEAD}{text}> () }}\n");
    let fail = |message: String| ParseError {
        line: 1,
        column: 1,
        message,
        source_line: text.to_string(),
    };
    let imported = parse_model(&wrapped).map_err(|e| {
        let column = if e.line == 2 {
            e.column
                .saturating_sub(HEAD.lines().nth(1).map_or(0, str::len))
        } else {
            1
        };
        ParseError {
            line: 1,
            column: column.max(1),
            message: e.message,
            source_line: text.to_string(),
        }
    })?;
    let model = imported.model;
    let graph = model.graph.ok_or_else(|| fail("no attributes".into()))?;
    let node = model
        .graph(graph)
        .nodes
        .first()
        .copied()
        .ok_or_else(|| fail("no attributes".into()))?;
    let attributes = model.node(node).attributes.clone();
    if attributes.iter().any(|a| a.has_graphs()) {
        return Err(fail("graph-valued attributes cannot be given here".into()));
    }
    if let Some(a) = attributes
        .iter()
        .find(|a| !matches!(a.kind, crate::ir::AttrKind::Value(_)))
    {
        return Err(fail(format!("attribute {:?} has no value", a.name())));
    }
    Ok(attributes)
}
