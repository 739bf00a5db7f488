//! Type and shape inference: ONNX text in, the inferred type of named values out (`?`
//! when unknown), one test per operator family.

mod common;

use std::collections::BTreeMap;

use graft::infer::{apply, infer};

fn model(text: &str) -> graft::Model {
    let imported = graft::text::parse_model(text).expect("the test model parses");
    imported.model
}

/// Every value's inferred type by name (`?` when unknown).
fn types(text: &str) -> (BTreeMap<String, String>, Vec<String>) {
    let m = model(text);
    let inferred = infer(&m);
    let mut out = BTreeMap::new();
    for (id, v) in m.values.iter() {
        let t = inferred.get(id).map_or("?".to_string(), |t| t.to_string());
        out.insert(v.name.clone(), t);
    }
    let diags = inferred.diagnostics.iter().map(|d| d.to_string()).collect();
    (out, diags)
}

#[track_caller]
fn check(text: &str, expected: &[(&str, &str)]) {
    let (got, diags) = types(text);
    for (name, ty) in expected {
        assert_eq!(
            got.get(*name).map(String::as_str),
            Some(*ty),
            "value {name}; all: {got:#?}; diagnostics: {diags:#?}"
        );
    }
}

const H18: &str = "<ir_version: 8, opset_import: [\"\" : 18]>";
const H11: &str = "<ir_version: 7, opset_import: [\"\" : 11]>";

#[test]
fn elementwise_broadcasting_and_unary_ops() {
    check(
        &format!(
            "{H18} g (float[N,1,5] a, float[3,1] b, float[M] c, bool[N,3,5] k) => (w) {{
                s = Add(a, b)
                r = Relu(s)
                e = Equal(s, r)
                u = Mul(a, c)
                w = Where(k, s, r)
                q = Pow(b, b)
                t = Cast <to = 7> (r)
                x = Not(e)
            }}"
        ),
        &[
            ("s", "float[N,3,5]"),
            ("r", "float[N,3,5]"),
            ("e", "bool[N,3,5]"),
            ("u", "float[N,1,5]"),
            ("w", "float[N,3,5]"),
            ("q", "float[3,1]"),
            ("t", "int64[N,3,5]"),
            ("x", "bool[N,3,5]"),
        ],
    );
}

#[test]
fn incompatible_broadcast_is_reported_and_unknown() {
    let (got, diags) = types(&format!(
        "{H18} g (float[2,3] a, float[4] b) => (s) {{ s = Add(a, b) }}"
    ));
    assert_eq!(got["s"], "float");
    assert!(
        diags.iter().any(|d| d.contains("infer.broadcast")),
        "{diags:?}"
    );
}

#[test]
fn matmul_and_gemm() {
    check(
        &format!(
            "{H18} g (float[B,S,64] x, float[64,32] w, float[64] v, float[8,B,4,5] p, float[5,6] q, float[10,7] a, float[3,7] b) => (y) {{
                y = MatMul(x, w)
                z = MatMul(x, v)
                o = MatMul(v, w)
                pq = MatMul(p, q)
                g = Gemm <transB = 1> (a, b)
            }}"
        ),
        &[
            ("y", "float[B,S,32]"),
            ("z", "float[B,S]"),
            ("o", "float[32]"),
            ("pq", "float[8,B,4,6]"),
            ("g", "float[10,3]"),
        ],
    );
}

#[test]
fn convolution_and_pooling() {
    check(
        &format!(
            "{H18} g (float[N,3,224,224] x, float[64,3,7,7] w, float[64,16,3,3] wt) => (y) {{
                c = Conv <strides = [2, 2], pads = [3, 3, 3, 3]> (x, w)
                s = Conv <auto_pad = \"SAME_UPPER\", strides = [2, 2]> (x, w)
                y = MaxPool <kernel_shape = [3, 3], strides = [2, 2], pads = [1, 1, 1, 1]> (c)
                a = AveragePool <kernel_shape = [2, 2], strides = [2, 2], ceil_mode = 1> (y)
                gp = GlobalAveragePool(a)
                t = ConvTranspose <strides = [2, 2], pads = [1, 1, 1, 1], output_padding = [1, 1]> (c, wt)
            }}"
        ),
        &[
            ("c", "float[N,64,112,112]"),
            ("s", "float[N,64,112,112]"),
            ("y", "float[N,64,56,56]"),
            ("a", "float[N,64,28,28]"),
            ("gp", "float[N,64,1,1]"),
            ("t", "float[N,16,224,224]"),
        ],
    );
}

#[test]
fn reshape_flatten_squeeze_unsqueeze_transpose() {
    check(
        &format!(
            "{H18} g (float[N,4,6] x, float[2,1,3,1] s) => (r) {{
                shape = Constant <value = int64[3] {{0, -1, 3}}> ()
                r = Reshape(x, shape)
                f = Flatten <axis = 2> (x)
                f0 = Flatten <axis = 0> (x)
                ax = Constant <value = int64[2] {{1, -1}}> ()
                q = Squeeze(s, ax)
                qa = Squeeze(s)
                u = Unsqueeze(x, ax)
                t = Transpose <perm = [2, 0, 1]> (x)
                tr = Transpose(x)
            }}"
        ),
        &[
            ("r", "float[N,8,3]"),
            ("f", "float[?,6]"),
            ("f0", "float[1,?]"),
            ("q", "float[2,3]"),
            ("qa", "float[2,3]"),
            ("u", "float[N,1,4,6,1]"),
            ("t", "float[6,N,4]"),
            ("tr", "float[6,4,N]"),
        ],
    );
    // Before opset 13 the axes are attributes.
    check(
        &format!(
            "{H11} g (float[2,1,3] x) => (q) {{
                q = Squeeze <axes = [1]> (x)
                u = Unsqueeze <axes = [0, 4]> (x)
            }}"
        ),
        &[("q", "float[2,3]"), ("u", "float[1,2,1,3,1]")],
    );
}

#[test]
fn concat_split_slice_gather() {
    check(
        &format!(
            "{H18} g (float[N,4,6] x, float[N,2,6] y, int64[5,7] i) => (c) {{
                c = Concat <axis = 1> (x, y)
                a, b = Split <axis = 2, num_outputs = 2> (c)
                sizes = Constant <value = int64[2] {{1, 5}}> ()
                p, q = Split <axis = 2> (x, sizes)
                st = Constant <value = int64[2] {{1, -4}}> ()
                en = Constant <value = int64[2] {{9223372036854775807, -1}}> ()
                axs = Constant <value = int64[2] {{1, 2}}> ()
                sl = Slice(x, st, en, axs)
                gx = Gather <axis = 1> (x, i)
                z = Constant <value = int64 {{0}}> ()
                gs = Gather(x, z)
            }}"
        ),
        &[
            ("c", "float[N,6,6]"),
            ("a", "float[N,6,3]"),
            ("b", "float[N,6,3]"),
            ("p", "float[N,4,1]"),
            ("q", "float[N,4,5]"),
            ("sl", "float[N,3,3]"),
            ("gx", "float[N,5,7,6]"),
            ("gs", "float[4,6]"),
        ],
    );
}

#[test]
fn expand_tile_pad_and_reductions() {
    check(
        &format!(
            "{H18} g (float[N,1,6] x) => (e) {{
                s = Constant <value = int64[3] {{1, 5, 1}}> ()
                e = Expand(x, s)
                reps = Constant <value = int64[3] {{1, 2, 3}}> ()
                t = Tile(x, reps)
                pads = Constant <value = int64[6] {{0, 1, 2, 0, 1, 2}}> ()
                p = Pad(x, pads)
                ax = Constant <value = int64[1] {{-1}}> ()
                rs = ReduceSum(x, ax)
                rm = ReduceMean <keepdims = 0> (x, ax)
                rall = ReduceMax <keepdims = 0> (x)
                am = ArgMax <axis = 2> (x)
            }}"
        ),
        &[
            ("e", "float[N,5,6]"),
            ("t", "float[N,2,18]"),
            ("p", "float[N,3,10]"),
            ("rs", "float[N,1,1]"),
            ("rm", "float[N,1]"),
            ("rall", "float[]"),
            ("am", "int64[N,1,1]"),
        ],
    );
    // ReduceMean takes axes as an attribute before opset 18.
    check(
        "<ir_version: 8, opset_import: [\"\" : 13]> g (float[N,3,4] x) => (m) {
            m = ReduceMean <axes = [1, 2], keepdims = 0> (x)
        }",
        &[("m", "float[N]")],
    );
}

#[test]
fn normalization_shape_size_constants_range() {
    check(
        &format!(
            "{H18} g (float[B,S,64] x, float[64] gamma) => (y) {{
                y, mean, inv = LayerNormalization <axis = -1> (x, gamma)
                sm = Softmax <axis = 1> (x)
                sh = Shape(x)
                sh2 = Shape <start = 1, end = -1> (x)
                n = Size(x)
                k = Constant <value_ints = [1, 2, 3]> ()
                f = Constant <value_float = 1.5> ()
                cs = ConstantOfShape <value = int32[1] {{7}}> (k)
                r = Range(start, limit, delta)
                start = Constant <value = int64 {{2}}> ()
                limit = Constant <value = int64 {{11}}> ()
                delta = Constant <value = int64 {{3}}> ()
                r2 = Range(start, limit, delta)
                d = Dropout(x)
                i = Identity(x)
            }}"
        ),
        &[
            ("y", "float[B,S,64]"),
            ("mean", "float[B,S,1]"),
            ("sm", "float[B,S,64]"),
            ("sh", "int64[3]"),
            ("sh2", "int64[1]"),
            ("n", "int64[]"),
            ("k", "int64[3]"),
            ("f", "float[]"),
            ("cs", "int32[1,2,3]"),
            // Its inputs come later: not in topological order, so unknown.
            ("r", "?"),
            ("r2", "int64[3]"),
            ("d", "float[B,S,64]"),
            ("i", "float[B,S,64]"),
        ],
    );
}

#[test]
fn element_types_come_from_the_schema() {
    check(
        &format!(
            "{H18} g (float[N,10] x, uint8[4] q, float s) => (v) {{
                v, i = TopK <axis = 1> (x, k)
                k = Constant <value = int64[1] {{3}}> ()
                v2, i2 = TopK <axis = 1> (x, k)
                nz = NonZero(x)
                dq = DequantizeLinear(q, s)
                ql = QuantizeLinear(x, s)
                rn = RandomNormal <shape = [2, 3]> ()
                el = EyeLike <dtype = 7> (x)
                cl = CastLike(q, x)
            }}"
        ),
        &[
            ("v", "float[N,?]"),
            ("i", "int64[N,?]"),
            ("v2", "float[N,3]"),
            ("i2", "int64[N,3]"),
            ("nz", "int64[2,?]"),
            ("dq", "float[4]"),
            ("ql", "uint8[N,10]"),
            ("rn", "float[2,3]"),
            ("el", "int64[N,10]"),
            ("cl", "float[4]"),
        ],
    );
}

#[test]
fn shape_gather_concat_reshape_chain() {
    check(
        &format!(
            "{H18} g (float[B,S,512] x) => (y) {{
                s = Shape(x)
                i0 = Constant <value = int64 {{0}}> ()
                i1 = Constant <value = int64[1] {{1}}> ()
                b = Gather(s, i0)
                sq = Gather(s, i1)
                ax = Constant <value = int64[1] {{0}}> ()
                bu = Unsqueeze(b, ax)
                heads = Constant <value = int64[2] {{8, 64}}> ()
                shape = Concat <axis = 0> (bu, sq, heads)
                y = Reshape(x, shape)
                t = Transpose <perm = [0, 2, 1, 3]> (y)
                last = Slice(s, mstart, mend)
                mstart = Constant <value = int64[1] {{-1}}> ()
                mend = Constant <value = int64[1] {{9223372036854775807}}> ()
                last2 = Slice(s, mstart, mend)
                two = Constant <value = int64[1] {{2}}> ()
                half = Div(last2, two)
                flat = Concat <axis = 0> (bu, sq, two, half)
                z = Reshape(x, flat)
                c = Cast <to = 7> (s)
                e = Expand(i0, c)
            }}"
        ),
        &[
            ("shape", "int64[4]"),
            ("y", "float[B,S,8,64]"),
            ("t", "float[B,8,S,64]"),
            ("z", "float[B,S,2,256]"),
            ("e", "int64[B,S,512]"),
        ],
    );
}

#[test]
fn if_merges_branches_and_loop_infers_its_body() {
    check(
        &format!(
            "{H18} g (bool c, float[N,4] x, int64 m) => (y) {{
                y = If(c) <then_branch = t () => (a) {{ a = Relu(x) }}, else_branch = e () => (b) {{ b = Neg(x) }}>
                z = If(c) <then_branch = t2 () => (a2) {{ a2 = Relu(x) }}, else_branch = e2 () => (b2) {{ b2 = Transpose(x) }}>
                init = Constant <value = float[2] {{0, 0}}> ()
                s, scan = Loop(m, c, init) <body = body (int64 i, bool cond, float[2] acc) => (cond_out, acc_out, out) {{
                    cond_out = Identity(cond)
                    acc_out = Add(acc, acc)
                    out = Cast <to = 7> (acc)
                }}>
            }}"
        ),
        &[
            ("a", "float[N,4]"),
            ("y", "float[N,4]"),
            ("z", "float[?,?]"),
            ("acc_out", "float[2]"),
            ("s", "float[2]"),
            ("scan", "int64[?,2]"),
        ],
    );
}

#[test]
fn scan_removes_and_restores_the_scan_axis() {
    check(
        &format!(
            "{H18} g (float[4] h, float[T,4] xs) => (hn, ys) {{
                hn, ys = Scan (h, xs) <num_scan_inputs = 1, body = body (float[4] hi, float[4] xi) => (ho, yo) {{
                    ho = Add(hi, xi)
                    yo = Identity(ho)
                }}>
            }}"
        ),
        &[("ho", "float[4]"), ("hn", "float[4]"), ("ys", "float[T,4]")],
    );
}

#[test]
fn calls_infer_the_body_with_the_call_types_and_attributes() {
    let text = "<ir_version: 10, opset_import: [\"\" : 18, \"local\" : 1]>
        g (float[N,3] x, double[5] d) => (y, z) {
            y = local.CastTo <t = 7> (x)
            z = local.CastTo <t = 11> (d)
            w = local.Twice (x)
        }
        <domain: \"local\", opset_import: [\"\" : 18]>
        CastTo <t> (a) => (b) { b = Cast <to: int = @t> (a) }
        <domain: \"local\", opset_import: [\"\" : 18]>
        Twice (a) => (b) { s = Add(a, a) b = Relu(s) }";
    check(
        text,
        &[
            ("y", "int64[N,3]"),
            ("z", "double[5]"),
            ("w", "float[N,3]"),
            ("s", "float[N,3]"),
        ],
    );
}

#[test]
fn stated_types_win_and_contradictions_are_reported() {
    let text = format!(
        "{H18} g (float[N,4] x) => (int64[N,4] y) <float[N,5] r, float[?,4] n> {{
            r = Relu(x)
            n = Neg(x)
            y = Abs(x)
        }}"
    );
    let (got, diags) = types(&text);
    assert_eq!(got["r"], "float[N,5]");
    assert_eq!(got["n"], "float[N,4]");
    assert_eq!(got["y"], "int64[N,4]");
    assert!(
        diags
            .iter()
            .any(|d| d.contains("infer.shape-mismatch") && d.contains("r is stated")),
        "{diags:?}"
    );
    assert!(
        diags
            .iter()
            .any(|d| d.contains("infer.type-mismatch") && d.contains("y is stated")),
        "{diags:?}"
    );
}

#[test]
fn apply_writes_value_info_and_keeps_stated_types() {
    let mut m = model(&format!(
        "{H18} g (float[N,4] x) => (y) <float[N,4] r> {{
            r = Relu(x)
            n = Neg(r)
            y = Abs(n)
        }}"
    ));
    let inferred = infer(&m);
    let written = apply(&mut m, &inferred);
    assert_eq!(written, 2);
    let text = graft::text::print_model(&m);
    assert!(text.contains("=> (float[N,4] y)"), "{text}");
    assert!(text.contains("<float[N,4] r, float[N,4] n>"), "{text}");
    // Applying again writes nothing more.
    let again = infer(&m);
    assert_eq!(apply(&mut m, &again), 0);
}

#[test]
fn bad_input_gives_unknown_never_a_panic() {
    check(
        &format!(
            "{H18} g (float[2,3] x, float y) => (a) {{
                a = NoSuchOp(x)
                b = Transpose <perm = [0, 7]> (x)
                bad = Constant <value = int64[2] {{-5, 3}}> ()
                c = Reshape(x, bad)
                d = Relu(a)
                e = Unsqueeze(x, x)
                f = Gather <axis = 9> (x, x)
                g = MatMul(y, y)
                h = Concat <axis = 4> (x, x)
                i = Split <axis = 1, num_outputs = 0> (x)
                j = Conv(x, x)
                k = Slice(x, bad, bad, bad)
                l = custom.Op(x)
                m = Reshape(x)
                n = Add()
            }}"
        ),
        &[
            ("a", "?"),
            ("b", "float"),
            ("c", "float"),
            ("d", "?"),
            ("e", "float"),
            ("f", "float"),
            ("g", "float"),
            ("h", "float"),
            ("j", "float"),
            ("k", "float"),
            ("l", "?"),
            ("m", "float"),
            ("n", "?"),
        ],
    );
    // Dimensions and constants at the edges of i64: unknown, no overflow.
    check(
        &format!(
            "{H18} g (float[9223372036854775807,2] x, float[2,2,2,2] w) => (p) {{
                pads = Constant <value = int64[4] {{9223372036854775807, 0, 1, 0}}> ()
                p = Pad(x, pads)
                st = Constant <value = int64[1] {{-9223372036854775808}}> ()
                sl = Slice(x, st, st, st, st)
                big = Constant <value = int64[2] {{-9223372036854775808, -1}}> ()
                r = Reshape(x, big)
                ra = Range(big0, big1, one)
                big0 = Constant <value = int64 {{-9223372036854775808}}> ()
                big1 = Constant <value = int64 {{9223372036854775807}}> ()
                one = Constant <value = int64 {{1}}> ()
                ra2 = Range(big0, big1, one)
                c = ConvTranspose <strides = [9223372036854775807, 1]> (w, w)
                d = DepthToSpace <blocksize = 4294967296> (w)
            }}"
        ),
        &[("p", "float[?,2]"), ("r", "float"), ("ra2", "int64[?]")],
    );
    // No graph, no opset imports, an empty model: nothing to infer, nothing panics.
    let empty = graft::Model::default();
    assert_eq!(infer(&empty).counts().values, 0);
    let m = model("<ir_version: 8> g (float[2] x) => (y) { y = Relu(x) }");
    let inferred = infer(&m);
    assert_eq!(inferred.counts().unknown, 1);
}

#[test]
fn recursion_in_functions_is_unknown_not_a_hang() {
    check(
        "<ir_version: 10, opset_import: [\"\" : 18, \"local\" : 1]>
        g (float[3] x) => (y) { y = local.F (x) }
        <domain: \"local\", opset_import: [\"\" : 18, \"local\" : 1]>
        F (a) => (b) { b = local.F (a) }",
        &[("y", "?")],
    );
}

#[test]
fn dft_uneven_split_and_scalar_outputs() {
    check(
        &format!(
            "{H18} g (float[B,100,1] x, int64[5] s) => (d) {{
                d = DFT <onesided = 1> (x)
                p, q, r = Split <num_outputs = 3> (s)
            }}"
        ),
        &[
            ("d", "float[B,51,2]"),
            ("p", "int64[2]"),
            ("q", "int64[2]"),
            ("r", "int64[1]"),
        ],
    );
}

#[test]
fn sequences_carry_their_element_shape() {
    check(
        &format!(
            "{H18} g (float[N,3] a, float[N,3] b, float[N,4] c, int64 i) => (x) {{
                s = SequenceConstruct(a, b)
                x = SequenceAt(s, i)
                t = SequenceInsert(s, c)
                y = SequenceAt(t, i)
                p = SplitToSequence <axis = 1> (a)
                z = SequenceAt(p, i)
                n = SequenceLength(s)
            }}"
        ),
        &[
            ("s", "seq(float[N,3])"),
            ("x", "float[N,3]"),
            ("t", "seq(float[N,?])"),
            ("y", "float[N,?]"),
            ("p", "seq(float[N,1])"),
            ("z", "float[N,1]"),
            ("n", "int64[]"),
        ],
    );
}

#[test]
fn a_function_body_gets_what_all_its_calls_agree_on() {
    check(
        "<ir_version: 10, opset_import: [\"\" : 18, \"local\" : 1]>
        g (float[N,3] x, float[M,3] y, double[2] d) => (p, q) {
            p = local.Twice (x)
            q = local.Twice (y)
            r = local.Once (d)
        }
        <domain: \"local\", opset_import: [\"\" : 18]>
        Twice (a) => (b) { s = Add(a, a) b = Relu(s) }
        <domain: \"local\", opset_import: [\"\" : 18]>
        Once (a2) => (b2) { b2 = Neg(a2) }
        <domain: \"local\", opset_import: [\"\" : 18]>
        Never (a3) => (b3) { b3 = Shape(a3) }",
        &[
            ("p", "float[N,3]"),
            ("q", "float[M,3]"),
            ("s", "float[?,3]"),
            ("b2", "double[2]"),
            // Never called: only what the body says by itself.
            ("b3", "int64[?]"),
        ],
    );
}

/// Incremental re-inference: after each edit, `Inferred::update` gives exactly what a
/// fresh `infer` of the edited model gives.
mod incremental {
    use super::{H18, model};
    use graft::Model;
    use graft::infer::{Inferred, Updated, infer};
    use graft::ir::{
        AttrKind, AttrValue, Attribute, DimValue, Node, NodeId, Value, ValueDef, ValueId,
    };

    fn value(m: &Model, name: &str) -> ValueId {
        m.values
            .iter()
            .find(|(_, v)| v.name == name)
            .map(|(id, _)| id)
            .unwrap_or_else(|| panic!("no value {name}"))
    }

    /// The node that defines the value `name`.
    fn producer(m: &Model, name: &str) -> NodeId {
        let v = value(m, name);
        m.nodes
            .iter()
            .find(|(_, n)| n.outputs.contains(&Some(v)))
            .map(|(id, _)| id)
            .unwrap_or_else(|| panic!("no producer of {name}"))
    }

    /// The nodes that read the value `name`.
    fn consumers(m: &Model, name: &str) -> Vec<NodeId> {
        let v = value(m, name);
        m.nodes
            .iter()
            .filter(|(_, n)| n.inputs.contains(&Some(v)))
            .map(|(id, _)| id)
            .collect()
    }

    fn set_attr(m: &mut Model, n: NodeId, name: &str, v: AttrValue) {
        let node = &mut m.nodes[n];
        match node
            .attributes
            .iter_mut()
            .find(|a| a.name.as_deref() == Some(name))
        {
            Some(a) => a.kind = AttrKind::Value(v),
            None => node.attributes.push(Attribute {
                name: Some(name.to_string()),
                doc_string: None,
                kind: AttrKind::Value(v),
            }),
        }
    }

    /// Appends `output = op(inputs)` to the graph of the value `inputs[0]`.
    fn append(m: &mut Model, op: &str, inputs: &[&str], output: &str) -> NodeId {
        let ins: Vec<Option<ValueId>> = inputs.iter().map(|i| Some(value(m, i))).collect();
        let g = m.values[value(m, inputs[0])].graph;
        let out = m.values.push(Value {
            name: output.to_string(),
            graph: g,
            def: ValueDef::Input,
        });
        let n = m.nodes.push(Node {
            graph: g,
            op_type: Some(op.to_string()),
            domain: None,
            overload: None,
            name: None,
            inputs: ins,
            outputs: vec![Some(out)],
            attributes: Vec::new(),
            doc_string: None,
            metadata_props: Vec::new(),
            device_configurations: Vec::new(),
        });
        m.values[out].def = ValueDef::Node(n);
        m.graphs[g].nodes.push(n);
        n
    }

    /// Every value's type (`?` when unknown) and the diagnostics, sorted.
    fn snapshot(m: &Model, inferred: &Inferred) -> (Vec<String>, Vec<String>) {
        let types = m
            .values
            .iter()
            .map(|(id, v)| {
                let t = inferred.get(id).map_or("?".to_string(), |t| t.to_string());
                format!("{} {}: {t}", id.index(), v.name)
            })
            .collect();
        let mut diags: Vec<String> = inferred.diagnostics.iter().map(|d| d.to_string()).collect();
        diags.sort();
        (types, diags)
    }

    #[track_caller]
    fn same_as_fresh(m: &Model, updated: &Inferred, what: &str) {
        let fresh = infer(m);
        let (ft, fd) = snapshot(m, &fresh);
        let (ut, ud) = snapshot(m, updated);
        for (f, u) in ft.iter().zip(&ut) {
            assert_eq!(u, f, "{what}: updated vs fresh");
        }
        assert_eq!(ut.len(), ft.len(), "{what}");
        assert_eq!(ud, fd, "{what}: diagnostics");
    }

    /// Applies `edit` (which returns the changed nodes), updates, and compares with a
    /// fresh inference; returns the model and the updated result.
    #[track_caller]
    fn check_edit(
        text: &str,
        what: &str,
        edit: impl FnOnce(&mut Model) -> Vec<NodeId>,
    ) -> (Model, Inferred, Updated) {
        let mut m = model(text);
        let mut inferred = infer(&m);
        let changed = edit(&mut m);
        let updated = inferred.update(&m, &changed);
        same_as_fresh(&m, &inferred, what);
        (m, inferred, updated)
    }

    fn ty(m: &Model, inferred: &Inferred, name: &str) -> String {
        inferred
            .get(value(m, name))
            .map_or("?".to_string(), |t| t.to_string())
    }

    fn chain() -> String {
        format!(
            "{H18} g (float[N,3,4] x) => (z) <float[N,4,3] k> {{
                t = Transpose <perm = [0, 2, 1]> (x)
                s = Shape(t)
                r = LeakyRelu <alpha = 0.1> (t)
                k = Reshape(r, s)
                z = Add(k, k)
                u = Neg(x)
            }}"
        )
    }

    #[test]
    fn an_attribute_change_propagates_through_shapes_and_constants() {
        let (m, inferred, updated) = check_edit(&chain(), "perm", |m| {
            let n = producer(m, "t");
            set_attr(m, n, "perm", AttrValue::Ints(vec![2, 1, 0]));
            vec![n]
        });
        assert_eq!(ty(&m, &inferred, "t"), "float[4,3,N]");
        // t, s, r and k; k states its type, so z keeps its type and is not recomputed,
        // nor is u.
        assert_eq!(
            updated,
            Updated {
                nodes: 4,
                full: false
            }
        );
        // k states [N,4,3]: the contradiction is reported now.
        assert!(
            inferred
                .diagnostics
                .iter()
                .any(|d| d.code == "infer.shape-mismatch"),
            "{:?}",
            inferred.diagnostics
        );
        // And undoing the edit takes the diagnostic away again.
        let mut m = m;
        let mut inferred = inferred;
        let n = producer(&m, "t");
        set_attr(&mut m, n, "perm", AttrValue::Ints(vec![0, 2, 1]));
        inferred.update(&m, &[n]);
        same_as_fresh(&m, &inferred, "perm undone");
        assert!(
            inferred.diagnostics.is_empty(),
            "{:?}",
            inferred.diagnostics
        );
    }

    #[test]
    fn an_attribute_change_that_keeps_the_types_stays_local() {
        let (m, inferred, updated) = check_edit(&chain(), "alpha", |m| {
            let n = producer(m, "r");
            set_attr(m, n, "alpha", AttrValue::Float(0.2));
            vec![n]
        });
        assert_eq!(
            updated,
            Updated {
                nodes: 1,
                full: false
            }
        );
        assert_eq!(ty(&m, &inferred, "z"), "float[N,4,3]");
    }

    #[test]
    fn appended_nodes_get_types_one_at_a_time() {
        let mut m = model(&chain());
        let mut inferred = infer(&m);
        let n = append(&mut m, "Transpose", &["z"], "w");
        assert_eq!(
            inferred.update(&m, &[n]),
            Updated {
                nodes: 1,
                full: false
            }
        );
        same_as_fresh(&m, &inferred, "append w");
        assert_eq!(ty(&m, &inferred, "w"), "float[3,4,N]");
        let n = append(&mut m, "MatMul", &["w", "u"], "p");
        inferred.update(&m, &[n]);
        same_as_fresh(&m, &inferred, "append p");
        assert_eq!(ty(&m, &inferred, "p"), "float[3,4,4]");
        // A broadcast error in a new node is reported, as by a fresh run.
        let n = append(&mut m, "Add", &["w", "x"], "bad");
        inferred.update(&m, &[n]);
        same_as_fresh(&m, &inferred, "append bad");
    }

    fn branches() -> String {
        format!(
            "{H18} g (bool c, float[2,3] x) => (q) {{
                y = If(c) <then_branch = t () => (a) {{ a0 = Transpose <perm = [1, 0]> (x) a = Relu(a0) }},
                           else_branch = e () => (b) {{ b = Transpose <perm = [1, 0]> (x) }}>
                q = Neg(y)
                l = Shape(y)
            }}"
        )
    }

    #[test]
    fn edits_inside_an_if_branch_reach_the_owner_and_beyond() {
        let (m, inferred, updated) = check_edit(&branches(), "then perm", |m| {
            let n = producer(m, "a0");
            set_attr(m, n, "perm", AttrValue::Ints(vec![0, 1]));
            vec![n]
        });
        assert_eq!(ty(&m, &inferred, "a"), "float[2,3]");
        assert_eq!(ty(&m, &inferred, "q"), "float[?,?]");
        // a0 and a, then y (with both branches again), q and l.
        assert_eq!(
            updated,
            Updated {
                nodes: 8,
                full: false
            }
        );
        // A change inside the branch that keeps the branch's output.
        check_edit(&branches(), "then relu", |m| {
            let n = producer(m, "a");
            m.nodes[n].op_type = Some("Abs".to_string());
            vec![n]
        });
        // A change of an outer value the branches capture.
        check_edit(&branches(), "captured x", |m| {
            let x = value(m, "x");
            let g = m.graph.unwrap();
            let input = m.graphs[g]
                .inputs
                .iter_mut()
                .find(|i| i.value == Some(x))
                .unwrap();
            if let Some(graft::ir::TypeValue::Tensor(t)) =
                input.ty.as_mut().and_then(|t| t.value.as_mut())
                && let Some(s) = t.shape.as_mut()
            {
                s.dims[0].value = Some(DimValue::Value(5));
            }
            Vec::new()
        });
    }

    #[test]
    fn several_changed_nodes_in_one_update() {
        let (.., updated) = check_edit(&branches(), "branch and outer", |m| {
            let inner = producer(m, "a0");
            set_attr(m, inner, "perm", AttrValue::Ints(vec![0, 1]));
            let outer = producer(m, "q");
            m.nodes[outer].op_type = Some("Shape".to_string());
            vec![outer, inner, outer]
        });
        assert!(!updated.full);
        let (.., updated) = check_edit(&chain(), "two in the chain", |m| {
            let t = producer(m, "t");
            set_attr(m, t, "perm", AttrValue::Ints(vec![1, 0, 2]));
            let u = producer(m, "u");
            m.nodes[u].op_type = Some("Shape".to_string());
            vec![u, t]
        });
        assert!(!updated.full);
    }

    #[test]
    fn a_changed_input_shape_reaches_its_consumers() {
        let (m, inferred, _) = check_edit(&chain(), "x stated", |m| {
            let x = value(m, "x");
            let g = m.graph.unwrap();
            let input = m.graphs[g]
                .inputs
                .iter_mut()
                .find(|i| i.value == Some(x))
                .unwrap();
            if let Some(graft::ir::TypeValue::Tensor(t)) =
                input.ty.as_mut().and_then(|t| t.value.as_mut())
                && let Some(s) = t.shape.as_mut()
            {
                s.dims[0].value = Some(DimValue::Param("B".to_string()));
                s.dims[2].value = Some(DimValue::Value(7));
            }
            consumers(m, "x")
        });
        assert_eq!(ty(&m, &inferred, "t"), "float[B,7,3]");
        assert_eq!(ty(&m, &inferred, "u"), "float[B,3,7]");
    }

    #[test]
    fn an_edited_initializer_reaches_its_consumers_unnamed() {
        let text = format!(
            "{H18} g (float[2,6] x) => (z) <int64[2] s = {{3, 4}}, float[6] w = {{1, 2, 3, 4, 5, 6}}> {{
                y = Reshape(x, s)
                z = Relu(y)
                v = Add(x, w)
            }}"
        );
        let (m, inferred, updated) = check_edit(&text, "shape initializer", |m| {
            let s = value(m, "s");
            let g = m.graph.unwrap();
            let init = m.graphs[g]
                .initializers
                .iter_mut()
                .find(|i| i.value == Some(s))
                .unwrap();
            init.tensor.raw_data = None;
            init.tensor.segment = None;
            init.tensor.int64_data = vec![4, 3];
            Vec::new()
        });
        assert_eq!(ty(&m, &inferred, "z"), "float[4,3]");
        // y and z; not v.
        assert_eq!(
            updated,
            Updated {
                nodes: 2,
                full: false
            }
        );
        check_edit(&text, "float initializer", |m| {
            let w = value(m, "w");
            let g = m.graph.unwrap();
            let init = m.graphs[g]
                .initializers
                .iter_mut()
                .find(|i| i.value == Some(w))
                .unwrap();
            init.tensor.dims = vec![1, 6];
            Vec::new()
        });
    }

    #[test]
    fn loops_and_scans_follow_their_inputs() {
        let text = format!(
            "{H18} g (int64 n, bool c, float[2,3] v, float[5,2] xs) => (o, so) {{
                v2 = Transpose <perm = [0, 1]> (v)
                o, out = Loop(n, c, v2) <body = b (int64 i, bool ci, float vi) => (bool co, float vo, float sc) {{
                    co = Identity(ci)
                    vo = Relu(vi)
                    sc = Neg(v2)
                }}>
                xs2 = Transpose <perm = [0, 1]> (xs)
                so = Scan(xs2) <num_scan_inputs = 1, body = sb (float[2] el) => (float y) {{ y = Neg(el) }}>
            }}"
        );
        check_edit(&text, "loop state", |m| {
            let n = producer(m, "v2");
            set_attr(m, n, "perm", AttrValue::Ints(vec![1, 0]));
            vec![n]
        });
        check_edit(&text, "scan input", |m| {
            let n = producer(m, "xs2");
            set_attr(m, n, "perm", AttrValue::Ints(vec![1, 0]));
            vec![n]
        });
        check_edit(&text, "loop body", |m| {
            let n = producer(m, "sc");
            m.nodes[n].op_type = Some("Shape".to_string());
            vec![n]
        });
    }

    #[test]
    fn what_update_cannot_bound_falls_back_to_a_full_run() {
        let text = "<ir_version: 8, opset_import: [\"\" : 18, \"local\" : 1]>
            g (float[N,3] x) => (z) {
                y = Transpose <perm = [1, 0]> (x)
                z = local.F(y)
            }
            <domain: \"local\", opset_import: [\"\" : 18]>
            F (a) => (b) { b = Relu(a) }";
        let (.., updated) = check_edit(text, "call input", |m| {
            let n = producer(m, "y");
            set_attr(m, n, "perm", AttrValue::Ints(vec![0, 1]));
            vec![n]
        });
        assert!(updated.full);
        let (.., updated) = check_edit(text, "function body", |m| {
            let n = producer(m, "b");
            m.nodes[n].op_type = Some("Transpose".to_string());
            vec![n]
        });
        assert!(updated.full);
        let (.., updated) = check_edit(text, "removed node", |m| {
            let n = producer(m, "y");
            let g = m.graph.unwrap();
            m.graphs[g].nodes.retain(|&k| k != n);
            vec![n]
        });
        assert!(updated.full);
    }

    /// Random single-node attribute edits on the smaller corpus models and the onnx
    /// node tests (seeded).
    #[test]
    fn corpus_attribute_edits_match_a_fresh_run() {
        let Some(dir) = crate::common::corpus() else {
            eprintln!("no corpus: skipped");
            return;
        };
        let files = crate::common::small_models(&dir, 3_000_000);
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut edits, mut incremental) = (0, 0);
        for path in &files {
            let Some(mut m) = crate::common::load(path) else {
                continue;
            };
            let mut inferred = infer(&m);
            // Nodes with an integer attribute.
            let candidates: Vec<NodeId> = m
                .nodes
                .iter()
                .filter(|(_, n)| {
                    n.attributes.iter().any(|a| {
                        matches!(
                            a.kind,
                            AttrKind::Value(AttrValue::Int(_) | AttrValue::Ints(_))
                        )
                    })
                })
                .map(|(id, _)| id)
                .collect();
            if candidates.is_empty() {
                continue;
            }
            for _ in 0..4 {
                let n = candidates[(next() % candidates.len() as u64) as usize];
                let r = next();
                for a in &mut m.nodes[n].attributes {
                    match &mut a.kind {
                        AttrKind::Value(AttrValue::Int(i)) => {
                            *i = if r % 2 == 0 {
                                i.wrapping_add(1)
                            } else {
                                i.wrapping_sub(1)
                            };
                            break;
                        }
                        AttrKind::Value(AttrValue::Ints(v)) if !v.is_empty() => {
                            if r % 2 == 0 {
                                v.reverse();
                            } else {
                                v[0] = v[0].wrapping_add(1);
                            }
                            break;
                        }
                        _ => {}
                    }
                }
                let updated = inferred.update(&m, &[n]);
                same_as_fresh(
                    &m,
                    &inferred,
                    &format!("{}: node {}", path.display(), n.index()),
                );
                edits += 1;
                if !updated.full {
                    incremental += 1;
                }
            }
        }
        eprintln!(
            "{edits} edits over {} models, {incremental} incremental",
            files.len()
        );
        assert!(
            edits == 0 || incremental > 0,
            "every edit fell back to a full run"
        );
    }
}
