//! IR → ONNX text. Deterministic, one node per line, attributes inline, nested graphs
//! indented. Everything is written in onnx.parser's syntax where it has one; the rest
//! goes into `#@` annotations (see `README.md`), which a model without such content
//! never gets.

use super::parse::Defaults;
use super::print_tensor::{TName, raw_form};
use super::values;
use super::write::*;
use crate::ir::*;

const INDENT: &str = "   ";
/// Lists of value infos stay on one line up to this many characters.
const INLINE_WIDTH: usize = 72;

/// Where a graph is written: its name syntax differs.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Pos {
    /// Model graph, or a graph inside an annotation: the name may be quoted.
    Top,
    /// GRAPH attribute value: the name must be a plain identifier.
    Attr,
}

pub(super) struct Printer<'m> {
    pub m: &'m Model,
    pub out: String,
    pub defaults: Defaults,
    /// Inside an annotation: strings use Graft's escapes.
    pub hidden: u32,
    /// How many captures are running (their output goes elsewhere first).
    captures: u32,
    /// Where each node written straight into `out` starts (byte offset).
    pub starts: Vec<(NodeId, usize)>,
}

impl<'m> Printer<'m> {
    pub fn new(m: &'m Model) -> Self {
        Self {
            m,
            out: String::new(),
            defaults: Defaults::default(),
            hidden: 0,
            captures: 0,
            starts: Vec::new(),
        }
    }

    pub fn into_string(self) -> String {
        self.out
    }

    fn indent(&mut self, level: usize) {
        for _ in 0..level {
            self.out.push_str(INDENT);
        }
    }

    fn value_name(&self, v: Option<ValueId>) -> &'m str {
        v.and_then(|v| self.m.values.get(v))
            .map_or("", |v| v.name.as_str())
    }

    /// Writes an annotation record on `#@` lines before the item at `level`.
    fn emit_annotation(&mut self, level: usize, rec: &str) {
        for line in rec.split('\n') {
            self.indent(level);
            self.out.push_str("#@ ");
            self.out.push_str(line);
            self.out.push('\n');
        }
    }

    /// Runs `f` with an empty output and returns what it wrote, as annotation text
    /// (strings with Graft's escapes).
    fn capture_hidden(&mut self, f: impl FnOnce(&mut Self)) -> String {
        self.hidden += 1;
        let text = self.capture(f);
        self.hidden -= 1;
        text
    }

    /// Runs `f` with an empty output and returns what it wrote.
    pub(super) fn capture(&mut self, f: impl FnOnce(&mut Self)) -> String {
        let saved = std::mem::take(&mut self.out);
        self.captures += 1;
        f(self);
        self.captures -= 1;
        std::mem::replace(&mut self.out, saved)
    }

    // ----- defaults -----

    /// Picks the file defaults that make the text shortest: what most nodes and
    /// tensors of these graphs are like.
    pub fn choose_defaults(&mut self, roots: &[GraphId]) {
        let mut domain = (0usize, 0usize);
        let mut name = (0usize, 0usize);
        let mut raw = (0usize, 0usize);
        let mut attr_raw = (0usize, 0usize);
        let mut stack: Vec<GraphId> = roots.to_vec();
        let mut seen = std::collections::HashSet::new();
        let count_tensor = |t: &Tensor, raw: &mut (usize, usize)| {
            if raw_form(t) {
                raw.0 += 1;
            } else if t.raw_data.is_none()
                && valid_dtype(t.data_type).and_then(values::unit).is_some()
            {
                raw.1 += 1;
            }
        };
        while let Some(g) = stack.pop() {
            if !seen.insert(g) {
                continue;
            }
            let Some(graph) = self.m.graphs.get(g) else {
                continue;
            };
            for i in &graph.initializers {
                count_tensor(&i.tensor, &mut raw);
            }
            for &n in &graph.nodes {
                let Some(node) = self.m.nodes.get(n) else {
                    continue;
                };
                match node.domain.as_deref() {
                    None => domain.0 += 1,
                    Some("") => domain.1 += 1,
                    _ => {}
                }
                for a in &node.attributes {
                    stack.extend(a.graphs());
                    let tensors: &[Tensor] = match &a.kind {
                        AttrKind::Value(AttrValue::Tensor(t)) => std::slice::from_ref(t),
                        AttrKind::Value(AttrValue::Tensors(ts)) => ts,
                        _ => &[],
                    };
                    for t in tensors {
                        match t.name.as_deref() {
                            None => name.0 += 1,
                            Some("") => name.1 += 1,
                            _ => {}
                        }
                        count_tensor(t, &mut attr_raw);
                    }
                }
            }
        }
        self.defaults = Defaults {
            node_domain_none: domain.0 > domain.1,
            tensor_name_none: name.0 > name.1,
            raw_data: raw.0 > raw.1,
            attribute_raw_data: attr_raw.0 > attr_raw.1,
        };
    }

    fn write_defaults(&self, r: &mut Rec) {
        if self.defaults.node_domain_none {
            r.key("node_domain").push_str("none");
        }
        if self.defaults.tensor_name_none {
            r.key("tensor_name").push_str("none");
        }
        if self.defaults.raw_data {
            r.key("raw_data").push_str("true");
        }
        if self.defaults.attribute_raw_data {
            r.key("attribute_raw_data").push_str("true");
        }
    }

    // ----- model -----

    pub fn model(&mut self) {
        let h = self.hidden > 0;
        let m = self.m;
        let mut roots: Vec<GraphId> = m.graph.into_iter().collect();
        roots.extend(
            m.functions
                .iter()
                .filter_map(|&f| m.function_arena.get(f))
                .map(|f| f.body),
        );
        for t in &m.training_info {
            roots.extend(t.initialization);
            roots.extend(t.algorithm);
        }
        self.choose_defaults(&roots);

        let mut r = Rec::default();
        self.write_defaults(&mut r);
        if m.graph.is_none() {
            r.key("graph").push_str("none");
        }
        let opsets_in_header = opsets_standard(&m.opset_import);
        if !opsets_in_header {
            write_ann_opsets(r.key("opset_import"), &m.opset_import);
        }
        let metadata_in_header = pairs_standard(&m.metadata_props);
        if !metadata_in_header {
            write_ann_pairs(r.key("metadata_props"), &m.metadata_props);
        }
        if !m.configuration.is_empty() {
            write_list(r.key("configuration"), &m.configuration, |out, c| {
                let mut cr = Rec::default();
                if let Some(n) = &c.name {
                    write_ann_str(cr.key("name"), n);
                }
                if let Some(n) = c.num_devices {
                    values::write_i64(cr.key("num_devices"), i64::from(n));
                }
                if !c.device.is_empty() {
                    write_list(cr.key("device"), &c.device, |out, d| write_ann_str(out, d));
                }
                out.push_str(&cr.finish());
            });
        }
        if !m.training_info.is_empty() {
            let infos = self.capture_hidden(|p| {
                let mut first = true;
                p.out.push('[');
                for t in &m.training_info {
                    if !first {
                        p.out.push_str(", ");
                    }
                    first = false;
                    let mut tr = Rec::default();
                    if let Some(g) = t.initialization {
                        let text = p.capture(|p| p.graph(g, 0, Pos::Top));
                        tr.key("initialization").push_str(&text);
                    }
                    if let Some(g) = t.algorithm {
                        let text = p.capture(|p| p.graph(g, 0, Pos::Top));
                        tr.key("algorithm").push_str(&text);
                    }
                    if !t.initialization_binding.is_empty() {
                        write_ann_pairs(
                            tr.key("initialization_binding"),
                            &t.initialization_binding,
                        );
                    }
                    if !t.update_binding.is_empty() {
                        write_ann_pairs(tr.key("update_binding"), &t.update_binding);
                    }
                    p.out.push_str(&tr.finish());
                }
                p.out.push(']');
            });
            r.key("training_info").push_str(&infos);
        }
        if !r.is_empty() {
            self.emit_annotation(0, &r.finish());
        }

        let mut header: Vec<(&str, String)> = Vec::new();
        let mut s = String::new();
        if let Some(v) = m.ir_version {
            values::write_i64(&mut s, v);
            header.push(("ir_version", std::mem::take(&mut s)));
        }
        // An entry without domain or version is written as "" or 0 for onnx.parser,
        // and exactly in the annotation.
        if !m.opset_import.is_empty() {
            write_opsets(&mut s, &m.opset_import, h);
            header.push(("opset_import", std::mem::take(&mut s)));
        }
        for (key, value) in [
            ("producer_name", &m.producer_name),
            ("producer_version", &m.producer_version),
            ("domain", &m.domain),
        ] {
            if let Some(v) = value {
                write_onnx_str(&mut s, v, h);
                header.push((key, std::mem::take(&mut s)));
            }
        }
        if let Some(v) = m.model_version {
            values::write_i64(&mut s, v);
            header.push(("model_version", std::mem::take(&mut s)));
        }
        if let Some(v) = &m.doc_string {
            write_onnx_str(&mut s, v, h);
            header.push(("doc_string", std::mem::take(&mut s)));
        }
        if !m.metadata_props.is_empty() {
            write_onnx_pairs(&mut s, &m.metadata_props, h);
            header.push(("metadata_props", std::mem::take(&mut s)));
        }
        self.header(&header);

        match m.graph {
            Some(g) => self.graph(g, 0, Pos::Top),
            // Placeholder that `graph: none` drops; onnx.parser needs a graph.
            None => self.out.push_str("\"\" () => () {\n}"),
        }
        self.out.push('\n');
        for &f in &m.functions {
            self.out.push('\n');
            self.function(f, false);
        }
    }

    fn header(&mut self, entries: &[(&str, String)]) {
        if entries.is_empty() {
            return;
        }
        self.out.push_str("<\n");
        for (i, (k, v)) in entries.iter().enumerate() {
            self.out.push_str(INDENT);
            self.out.push_str(k);
            self.out.push_str(": ");
            self.out.push_str(v);
            if i + 1 < entries.len() {
                self.out.push(',');
            }
            self.out.push('\n');
        }
        self.out.push_str(">\n");
    }

    /// A graph on its own, after a line with the defaults its text relies on.
    pub fn standalone_graph(&mut self, id: GraphId) {
        self.choose_defaults(&[id]);
        let mut r = Rec::default();
        self.write_defaults(&mut r);
        if !r.is_empty() {
            self.emit_annotation(0, &r.finish());
        }
        self.graph(id, 0, Pos::Top);
        self.out.push('\n');
    }

    // ----- functions -----

    pub fn function(&mut self, id: FunctionId, standalone: bool) {
        let h = self.hidden > 0;
        let m = self.m;
        let Some(f) = m.function_arena.get(id) else {
            return;
        };
        let body = m.graphs.get(f.body);
        let mut r = Rec::default();
        if standalone {
            self.choose_defaults(&[f.body]);
            self.write_defaults(&mut r);
        }
        if f.name.is_none() {
            r.key("name").push_str("none");
        }
        let opsets_in_header = opsets_standard(&f.opset_import);
        if !opsets_in_header {
            write_ann_opsets(r.key("opset_import"), &f.opset_import);
        }
        if !f.metadata_props.is_empty() {
            write_ann_pairs(r.key("metadata_props"), &f.metadata_props);
        }
        // The attribute declarations, written first so that the annotation knows
        // which defaults need extras.
        let mut extras = Rec::default();
        let mut raw = Rec::default();
        let decls = self.capture(|p| {
            let mut first = true;
            for a in &f.attribute {
                if !first {
                    p.out.push_str(", ");
                }
                first = false;
                write_name(&mut p.out, a, h);
            }
            for (i, a) in f.attribute_proto.iter().enumerate() {
                if p.attr_standard(a) {
                    if !first {
                        p.out.push_str(", ");
                    }
                    first = false;
                    p.attr(a, i, 0, &mut extras);
                } else {
                    let text = p.hidden_raw_attr(a);
                    index_entry(&mut raw, i, &text);
                }
            }
        });
        if !extras.is_empty() {
            r.key("attrs").push_str(&extras.finish());
        }
        if !raw.is_empty() {
            r.key("raw_attrs").push_str(&raw.finish());
        }
        if !r.is_empty() {
            self.emit_annotation(0, &r.finish());
        }
        let mut header: Vec<(&str, String)> = Vec::new();
        let mut s = String::new();
        if let Some(d) = &f.domain {
            write_onnx_str(&mut s, d, h);
            header.push(("domain", std::mem::take(&mut s)));
        }
        if let Some(o) = &f.overload {
            write_onnx_str(&mut s, o, h);
            header.push(("overload", std::mem::take(&mut s)));
        }
        if !f.opset_import.is_empty() {
            write_opsets(&mut s, &f.opset_import, h);
            header.push(("opset_import", std::mem::take(&mut s)));
        }
        if let Some(d) = &f.doc_string {
            write_onnx_str(&mut s, d, h);
            header.push(("doc_string", std::mem::take(&mut s)));
        }
        self.header(&header);
        write_name(&mut self.out, f.name.as_deref().unwrap_or(""), h);
        if !decls.is_empty() {
            self.out.push_str(" <");
            self.out.push_str(&decls);
            self.out.push('>');
        }
        let Some(body) = body else {
            self.out.push_str(" () => () {\n}\n");
            return;
        };
        self.out.push_str(" (");
        for (i, vi) in body.inputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let n = self.value_name(vi.value);
            write_name(&mut self.out, n, h);
        }
        self.out.push_str(") => (");
        for (i, vi) in body.outputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let n = self.value_name(vi.value);
            write_name(&mut self.out, n, h);
        }
        self.out.push(')');
        if !body.value_info.is_empty() {
            self.out.push_str(" <");
            self.entries(&body.value_info, &[], 0);
            self.out.push('>');
        }
        self.out.push_str(" {\n");
        for &n in &body.nodes {
            self.node(n, 1);
        }
        self.out.push_str("}\n");
    }

    // ----- graphs -----

    /// Writes a graph whose first line continues the current one; its last line ends
    /// with `}` (no newline).
    fn graph(&mut self, id: GraphId, level: usize, pos: Pos) {
        let h = self.hidden > 0;
        let m = self.m;
        let Some(g) = m.graphs.get(id) else {
            self.out.push_str("_ () => () {\n}");
            return;
        };
        let mut r = Rec::default();
        match (&g.name, pos) {
            (Some(n), Pos::Top) => write_name(&mut self.out, n, h),
            (Some(n), Pos::Attr) if attr_graph_name(n) => self.out.push_str(n),
            (Some(n), Pos::Attr) => {
                self.out.push('_');
                write_ann_str(r.key("name"), n);
            }
            (None, Pos::Top) => {
                self.out.push_str("\"\"");
                r.key("name").push_str("none");
            }
            (None, Pos::Attr) => {
                self.out.push('_');
                r.key("name").push_str("none");
            }
        }
        if let Some(d) = &g.doc_string {
            write_ann_str(r.key("doc_string"), d);
        }
        if !g.metadata_props.is_empty() {
            write_ann_pairs(r.key("metadata_props"), &g.metadata_props);
        }
        if !g.sparse_initializers.is_empty() {
            let text = self.capture_hidden(|p| {
                write_list_with(p, &g.sparse_initializers, |p, s| {
                    let name = s.value.map(|v| p.value_name(Some(v)));
                    p.sparse(&s.tensor, Some(name));
                });
            });
            r.key("sparse_initializers").push_str(&text);
        }
        if !g.quantization_annotation.is_empty() {
            write_list(
                r.key("quantization_annotation"),
                &g.quantization_annotation,
                |out, q| {
                    let mut qr = Rec::default();
                    if let Some(n) = &q.tensor_name {
                        write_ann_str(qr.key("tensor_name"), n);
                    }
                    if !q.quant_parameter_tensor_names.is_empty() {
                        write_ann_pairs(
                            qr.key("quant_parameter_tensor_names"),
                            &q.quant_parameter_tensor_names,
                        );
                    }
                    out.push_str(&qr.finish());
                },
            );
        }
        self.out.push_str(" (");
        self.entries(&g.inputs, &[], level);
        self.out.push_str(") => (");
        self.entries(&g.outputs, &[], level);
        self.out.push(')');
        if !g.initializers.is_empty() || !g.value_info.is_empty() {
            self.out.push_str(" <");
            self.entries(&g.value_info, &g.initializers, level);
            self.out.push('>');
        }
        if r.is_empty() {
            self.out.push_str(" {\n");
        } else {
            self.out.push('\n');
            self.emit_annotation(level, &r.finish());
            self.indent(level);
            self.out.push_str("{\n");
        }
        for &n in &g.nodes {
            self.node(n, level + 1);
        }
        self.indent(level);
        self.out.push('}');
    }

    /// Value-info entries (initializers first), inline when there is one plain entry,
    /// one per line otherwise.
    fn entries(&mut self, infos: &[ValueInfo], inits: &[Initializer], level: usize) {
        let h = self.hidden > 0;
        let total = infos.len() + inits.len();
        if total == 0 {
            return;
        }
        let mut texts = Vec::with_capacity(total);
        for i in inits {
            let mut r = Rec::default();
            let name = match i.value {
                Some(v) => self.value_name(Some(v)),
                None => {
                    r.key("name").push_str("none");
                    ""
                }
            };
            let text =
                self.capture(|p| p.tensor(&i.tensor, TName::Value(name), true, false, &mut r));
            texts.push((text, r));
        }
        for vi in infos {
            let mut r = Rec::default();
            let text = self.capture(|p| {
                if let Some(t) = &vi.ty {
                    if type_exact(t) {
                        write_type(&mut p.out, t, h);
                        p.out.push(' ');
                    } else {
                        let stripped = strip_denotations(t);
                        if type_structure(&stripped, true) {
                            write_type(&mut p.out, &stripped, h);
                            p.out.push(' ');
                        }
                        write_ann_type(r.key("type"), t);
                    }
                }
                match vi.value {
                    Some(v) => {
                        let n = p.value_name(Some(v));
                        write_name(&mut p.out, n, h)
                    }
                    None => {
                        p.out.push_str("\"\"");
                        r.key("name").push_str("none");
                    }
                }
                if let Some(d) = &vi.doc_string {
                    write_ann_str(r.key("doc_string"), d);
                }
                if !vi.metadata_props.is_empty() {
                    write_ann_pairs(r.key("metadata_props"), &vi.metadata_props);
                }
            });
            texts.push((text, r));
        }
        let width: usize = texts.iter().map(|(t, _)| t.len() + 2).sum();
        let plain = texts.iter().all(|(t, r)| r.is_empty() && !t.contains('\n'));
        if plain && (total == 1 || width <= INLINE_WIDTH) {
            for (i, (text, _)) in texts.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.out.push_str(text);
            }
            return;
        }
        self.out.push('\n');
        for (i, (text, r)) in texts.iter().enumerate() {
            if !r.is_empty() {
                self.emit_annotation(level + 1, &r.finish());
            }
            self.indent(level + 1);
            self.out.push_str(text);
            if i + 1 < total {
                self.out.push(',');
            }
            self.out.push('\n');
        }
        self.indent(level);
    }

    // ----- nodes -----

    fn node(&mut self, id: NodeId, level: usize) {
        let h = self.hidden > 0;
        let m = self.m;
        let Some(n) = m.nodes.get(id) else {
            return;
        };
        let mut r = Rec::default();
        let start = self.out.len();
        if self.captures == 0 {
            self.starts.push((id, start));
        }
        self.indent(level);
        if let Some(name) = &n.name {
            self.out.push('[');
            write_name(&mut self.out, name, h);
            self.out.push_str("] ");
        }
        for (i, &v) in n.outputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.io_name(v);
        }
        if !n.outputs.is_empty() {
            self.out.push(' ');
        }
        self.out.push_str("= ");
        // Operator: `domain.op:overload`, as far as the syntax can say it.
        let op_ok = n.op_type.as_deref().is_some_and(crate::ir::is_identifier);
        let written_domain = match n.domain.as_deref() {
            Some(d) if op_ok && domain_writable(d) => d,
            _ => "",
        };
        let written_op = n
            .op_type
            .as_deref()
            .filter(|o| crate::ir::is_identifier(o))
            .unwrap_or("");
        if !written_domain.is_empty() {
            self.out.push_str(written_domain);
            self.out.push('.');
        }
        self.out.push_str(written_op);
        let parsed_domain = if !written_domain.is_empty() {
            Some(written_domain)
        } else if self.defaults.node_domain_none {
            None
        } else {
            Some("")
        };
        if parsed_domain != n.domain.as_deref() {
            write_ann_opt_str(r.key("domain"), n.domain.as_deref());
        }
        if Some(written_op) != n.op_type.as_deref() {
            write_ann_opt_str(r.key("op_type"), n.op_type.as_deref());
        }
        let written_overload = n
            .overload
            .as_deref()
            .filter(|o| crate::ir::is_identifier(o));
        if let Some(o) = written_overload {
            self.out.push(':');
            self.out.push_str(o);
        }
        if written_overload != n.overload.as_deref() {
            write_ann_opt_str(r.key("overload"), n.overload.as_deref());
        }
        // Attributes: those ONNX syntax can write, inline; the others as records.
        let mut extras = Rec::default();
        let mut raw = Rec::default();
        let standard: Vec<bool> = n.attributes.iter().map(|a| self.attr_standard(a)).collect();
        let has_graph = n
            .attributes
            .iter()
            .zip(&standard)
            .any(|(a, &s)| s && matches!(a.kind, AttrKind::Value(AttrValue::Graph(_))));
        let attrs = self.capture(|p| {
            let mut first = true;
            for (i, (a, &s)) in n.attributes.iter().zip(&standard).enumerate() {
                if s {
                    if !first {
                        p.out.push_str(", ");
                    }
                    first = false;
                    p.attr(a, i, level, &mut extras);
                } else {
                    let text = p.hidden_raw_attr(a);
                    index_entry(&mut raw, i, &text);
                }
            }
        });
        if !attrs.is_empty() && !has_graph {
            self.out.push_str(" <");
            self.out.push_str(&attrs);
            self.out.push('>');
        }
        self.out.push_str(if attrs.is_empty() || has_graph {
            "("
        } else {
            " ("
        });
        for (i, &v) in n.inputs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.io_name(v);
        }
        self.out.push(')');
        if !attrs.is_empty() && has_graph {
            self.out.push_str(" <");
            self.out.push_str(&attrs);
            self.out.push('>');
        }
        self.out.push('\n');
        if let Some(d) = &n.doc_string {
            write_ann_str(r.key("doc_string"), d);
        }
        if !n.metadata_props.is_empty() {
            write_ann_pairs(r.key("metadata_props"), &n.metadata_props);
        }
        if !n.device_configurations.is_empty() {
            write_list(
                r.key("device_configurations"),
                &n.device_configurations,
                write_node_device,
            );
        }
        if !extras.is_empty() {
            r.key("attrs").push_str(&extras.finish());
        }
        if !raw.is_empty() {
            r.key("raw_attrs").push_str(&raw.finish());
        }
        if !r.is_empty() {
            let line = self.out.split_off(start);
            self.emit_annotation(level, &r.finish());
            self.out.push_str(&line);
        }
    }

    fn io_name(&mut self, v: Option<ValueId>) {
        let h = self.hidden > 0;
        match v {
            Some(v) if !self.value_name(Some(v)).is_empty() => {
                let n = self.value_name(Some(v));
                write_name(&mut self.out, n, h)
            }
            _ => self.out.push_str("\"\""),
        }
    }

    // ----- attributes -----

    /// Whether ONNX attribute syntax writes this attribute (extras aside) and
    /// onnx.parser reads it back whole.
    fn attr_standard(&self, a: &Attribute) -> bool {
        if !a.name.as_deref().is_some_and(crate::ir::is_identifier) {
            return false;
        }
        match &a.kind {
            AttrKind::Ref { .. } => true,
            AttrKind::Value(v) => match v {
                AttrValue::Float(f) => values::f32_printable(*f),
                AttrValue::Int(_) | AttrValue::Ints(_) | AttrValue::Tensor(_) => true,
                AttrValue::Graph(g) => self.m.graphs.get(*g).is_some(),
                AttrValue::String(s) => onnx_text(s),
                AttrValue::TypeProto(t) => type_exact(t),
                AttrValue::Floats(v) => v.iter().all(|f| values::f32_printable(*f)),
                AttrValue::Strings(v) => v.iter().all(|s| onnx_text(s)),
                // onnx.parser drops the elements of these lists: written as records.
                AttrValue::Tensors(_)
                | AttrValue::Graphs(_)
                | AttrValue::SparseTensor(_)
                | AttrValue::SparseTensors(_)
                | AttrValue::TypeProtos(_) => false,
            },
            AttrKind::Raw(_) => false,
        }
    }

    /// Writes `name = value` (check [`Self::attr_standard`] first); extras go to
    /// `extras` under the attribute's index.
    /// `name = value, ...` for attributes as a node writes them (doc strings left out).
    pub fn attribute_list(&mut self, attributes: &[Attribute]) {
        let mut extras = Rec::default();
        for (i, a) in attributes.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.attr(a, i, 0, &mut extras);
        }
    }

    fn attr(&mut self, a: &Attribute, index: usize, level: usize, extras: &mut Rec) {
        let h = self.hidden > 0;
        let mut x = Rec::default();
        self.out.push_str(a.name());
        match &a.kind {
            AttrKind::Ref { name, ty } => {
                self.out.push_str(": ");
                self.out.push_str(ty.name());
                self.out.push_str(" = @");
                write_name(&mut self.out, name, h);
            }
            AttrKind::Value(v) => {
                let empty_list = match v {
                    AttrValue::Floats(l) => l.is_empty(),
                    AttrValue::Ints(l) => l.is_empty(),
                    AttrValue::Strings(l) => l.is_empty(),
                    _ => false,
                };
                if empty_list {
                    self.out.push_str(": ");
                    self.out.push_str(v.attr_type().name());
                    self.out.push_str(" = []");
                } else {
                    self.out.push_str(" = ");
                    self.attr_value(v, level, &mut x);
                }
            }
            AttrKind::Raw(_) => {}
        }
        if let Some(d) = &a.doc_string {
            write_ann_str(x.key("doc_string"), d);
        }
        if !x.is_empty() {
            index_entry(extras, index, &x.finish());
        }
    }

    fn attr_value(&mut self, v: &AttrValue, level: usize, x: &mut Rec) {
        let h = self.hidden > 0;
        match v {
            AttrValue::Float(f) => values::write_f32(&mut self.out, *f, true),
            AttrValue::Int(i) => values::write_i64(&mut self.out, *i),
            AttrValue::String(s) => write_onnx_str(&mut self.out, &String::from_utf8_lossy(s), h),
            AttrValue::Tensor(t) => {
                let mut tr = Rec::default();
                self.tensor(t, TName::Attr, false, true, &mut tr);
                if !tr.is_empty() {
                    x.key("tensor").push_str(&tr.finish());
                }
            }
            AttrValue::Graph(g) => self.graph(*g, level, Pos::Attr),
            AttrValue::TypeProto(t) => write_type(&mut self.out, t, h),
            AttrValue::Floats(l) => {
                let out = &mut self.out;
                write_list(out, l, |out, &f| values::write_f32(out, f, true));
            }
            AttrValue::Ints(l) => write_ints(&mut self.out, l),
            AttrValue::Strings(l) => write_list(&mut self.out, l, |out, s| {
                write_onnx_str(out, &String::from_utf8_lossy(s), h)
            }),
            _ => {}
        }
    }

    fn hidden_raw_attr(&mut self, a: &Attribute) -> String {
        self.hidden += 1;
        let text = self.raw_attr(a);
        self.hidden -= 1;
        text
    }

    /// An attribute as a record of `AttributeProto` fields.
    fn raw_attr(&mut self, a: &Attribute) -> String {
        let mut r = Rec::default();
        if let Some(n) = &a.name {
            write_ann_str(r.key("name"), n);
        }
        if let Some(d) = &a.doc_string {
            write_ann_str(r.key("doc_string"), d);
        }
        let ty_name = |out: &mut String, t: Option<i32>| match t.and_then(AttrType::from_proto) {
            Some(t) => out.push_str(t.name()),
            None => write_ann_opt_int(out, t.map(i64::from)),
        };
        match &a.kind {
            AttrKind::Ref { name, ty } => {
                write_ann_str(r.key("ref_attr_name"), name);
                ty_name(r.key("type"), Some(ty.to_proto()));
            }
            AttrKind::Value(v) => {
                ty_name(r.key("type"), Some(v.attr_type().to_proto()));
                self.raw_value(&mut r, v);
            }
            AttrKind::Raw(raw) => {
                if let Some(n) = &raw.ref_attr_name {
                    write_ann_str(r.key("ref_attr_name"), n);
                }
                if raw.r#type.is_some() {
                    ty_name(r.key("type"), raw.r#type);
                }
                if let Some(f) = raw.f {
                    self.raw_value(&mut r, &AttrValue::Float(f));
                }
                if let Some(i) = raw.i {
                    values::write_i64(r.key("i"), i);
                }
                if let Some(s) = &raw.s {
                    write_ann_bytes(r.key("s"), s);
                }
                if let Some(t) = &raw.t {
                    let text = self.capture(|p| p.ann_tensor(t, true));
                    r.key("t").push_str(&text);
                }
                if let Some(g) = raw.g {
                    let text = self.capture(|p| p.graph(g, 0, Pos::Top));
                    r.key("g").push_str(&text);
                }
                if let Some(s) = &raw.sparse_tensor {
                    let text = self.capture(|p| p.sparse(s, None));
                    r.key("sparse_tensor").push_str(&text);
                }
                if let Some(t) = &raw.tp {
                    write_ann_type(r.key("tp"), t);
                }
                self.raw_lists(
                    &mut r,
                    &raw.floats,
                    &raw.ints,
                    &raw.strings,
                    &raw.tensors,
                    &raw.graphs,
                    &raw.sparse_tensors,
                    &raw.type_protos,
                );
            }
        }
        r.finish()
    }

    fn raw_value(&mut self, r: &mut Rec, v: &AttrValue) {
        match v {
            AttrValue::Float(f) => {
                if values::f32_printable(*f) {
                    values::write_f32(r.key("f"), *f, true);
                } else {
                    values::write_u64(r.key("f_bits"), u64::from(f.to_bits()));
                }
            }
            AttrValue::Int(i) => values::write_i64(r.key("i"), *i),
            AttrValue::String(s) => write_ann_bytes(r.key("s"), s),
            AttrValue::Tensor(t) => {
                let text = self.capture(|p| p.ann_tensor(t, true));
                r.key("t").push_str(&text);
            }
            AttrValue::Graph(g) => {
                let text = self.capture(|p| p.graph(*g, 0, Pos::Top));
                r.key("g").push_str(&text);
            }
            AttrValue::SparseTensor(s) => {
                let text = self.capture(|p| p.sparse(s, None));
                r.key("sparse_tensor").push_str(&text);
            }
            AttrValue::TypeProto(t) => write_ann_type(r.key("tp"), t),
            AttrValue::Floats(l) => self.raw_lists(r, l, &[], &[], &[], &[], &[], &[]),
            AttrValue::Ints(l) => self.raw_lists(r, &[], l, &[], &[], &[], &[], &[]),
            AttrValue::Strings(l) => self.raw_lists(r, &[], &[], l, &[], &[], &[], &[]),
            AttrValue::Tensors(l) => self.raw_lists(r, &[], &[], &[], l, &[], &[], &[]),
            AttrValue::Graphs(l) => self.raw_lists(r, &[], &[], &[], &[], l, &[], &[]),
            AttrValue::SparseTensors(l) => self.raw_lists(r, &[], &[], &[], &[], &[], l, &[]),
            AttrValue::TypeProtos(l) => self.raw_lists(r, &[], &[], &[], &[], &[], &[], l),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn raw_lists(
        &mut self,
        r: &mut Rec,
        floats: &[f32],
        ints: &[i64],
        strings: &[bytes::Bytes],
        tensors: &[Tensor],
        graphs: &[GraphId],
        sparse: &[SparseTensor],
        types: &[Type],
    ) {
        if !floats.is_empty() {
            if floats.iter().all(|f| values::f32_printable(*f)) {
                write_list(r.key("floats"), floats, |out, &f| {
                    values::write_f32(out, f, true)
                });
            } else {
                write_list(r.key("floats_bits"), floats, |out, f| {
                    values::write_u64(out, u64::from(f.to_bits()))
                });
            }
        }
        if !ints.is_empty() {
            write_ints(r.key("ints"), ints);
        }
        if !strings.is_empty() {
            write_list(r.key("strings"), strings, |out, s| write_ann_bytes(out, s));
        }
        if !tensors.is_empty() {
            let text = self.capture(|p| write_list_with(p, tensors, |p, t| p.ann_tensor(t, true)));
            r.key("tensors").push_str(&text);
        }
        if !graphs.is_empty() {
            let text =
                self.capture(|p| write_list_with(p, graphs, |p, &g| p.graph(g, 0, Pos::Top)));
            r.key("graphs").push_str(&text);
        }
        if !sparse.is_empty() {
            let text = self.capture(|p| write_list_with(p, sparse, |p, s| p.sparse(s, None)));
            r.key("sparse_tensors").push_str(&text);
        }
        if !types.is_empty() {
            write_list(r.key("type_protos"), types, write_ann_type);
        }
    }
}

pub(super) fn write_list_with<T>(
    p: &mut Printer<'_>,
    items: &[T],
    mut f: impl FnMut(&mut Printer<'_>, &T),
) {
    p.out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            p.out.push_str(", ");
        }
        f(p, item);
    }
    p.out.push(']');
}
