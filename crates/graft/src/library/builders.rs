//! Context-dependent function bodies of standard operators: what onnx builds per call
//! site (`OpSchema::get_context_dependent_function`) from the call's attributes, which
//! inputs it passes and their element types. Each builder writes the body as ONNX
//! function text, which [`crate::text::parse_function`] reads.
//!
//! Decisions:
//! - Which operators. onnx 1.23.2 has context-dependent bodies for 34 schemas of 22
//!   operators (21 in the default domain). Built here, the ones real models use, and
//!   each at every opset onnx writes a body for:
//!   `Clip`-13 (@13), `Softmax`-13 and `LogSoftmax`-13 (@13, @18),
//!   `LayerNormalization`-17 (@17, @18), `GroupNormalization`-18 (@18) and -21 (@21),
//!   `RMSNormalization`-23 (@23), `Gelu`-20 (@20), `Celu`-12 (@12),
//!   `CastLike`-15/19/21/23/24/25 (each @its own), `Range`-27 (@27),
//!   `DepthToSpace`-28 and `SpaceToDepth`-28 (@28), `CenterCropPad`-18 (@18).
//!   Not built (the caller then has no body for the call): `Attention`-23/24/25 and
//!   `RotaryEmbedding`-23, whose bodies depend on the rank of the inputs, which a
//!   [`CallSite`] does not carry; `Bernoulli`-15/22 (random: an expansion could not be
//!   checked against anything); the training losses `NegativeLogLikelihoodLoss` and
//!   `SoftmaxCrossEntropyLoss` (rare outside training graphs, and many variants);
//!   `SequenceMap`-17 (a body per graph attribute over sequences);
//!   `CausalConvWithState`-27 and `LinearAttention`-27 (new in opset 27, no models yet);
//!   `FlexAttention` (`ai.onnx.preview`, not the default domain).
//! - The same nodes as onnx's body, in the same order and precision (the names are our
//!   own), so an expansion computes exactly what onnx's does; the Shape slices of
//!   `DepthToSpace`/`SpaceToDepth` use `Shape`'s `start`/`end` instead of `Slice`
//!   (the same numbers). `tests/interop/standard_numerics.py` compares both in
//!   onnxruntime.
//! - The body is written for the opset onnx writes it for: the newest of the schema's
//!   context-dependent opsets at or below the call's (a `Softmax` at opset 20 gets the
//!   body for 18, importing `"" : 18`); the inliner converts a body at another version.
//! - The header declares every formal input and output of the schema, and every
//!   attribute by name (so the call's attributes bind); the body uses none of them:
//!   the call's values, else the schema's defaults, are written in as constants.
//! - Where onnx refuses to build (no body), so do we, with a reason: a missing
//!   required attribute, an unsupported `stash_type`, `blocksize` ≤ 0, an unknown
//!   `mode`, a needed element type the model does not state. Where onnx silently
//!   builds something else, we refuse too: a `Gelu` `approximate` other than
//!   `none`/`tanh` (onnx reads it as `none`). A non-finite `epsilon` or `alpha` is
//!   refused as well (not worth spelling as text).
//! - `CastLike` writes `saturate` on its `Cast` only for a float8 target and
//!   `round_mode` only for float8e8m0, the targets they apply to. onnx's body passes
//!   `saturate` whatever the target, which onnxruntime refuses when it is 0 and the
//!   target is not float8; it drops `round_mode`, which the float8e8m0 cast needs.

use std::fmt::Write as _;

use crate::ir::{AttrKind, AttrValue, Attribute};
use crate::schema::{self, OpSchema};

/// What a builder may look at: the call, as the caller's scope sees it.
pub(crate) struct CallSite<'a> {
    /// The operator (default domain).
    pub op: &'a str,
    /// The version of the default domain the call's scope imports.
    pub opset: i64,
    /// The call's attributes (values; a reference to an enclosing function's attribute
    /// has been refused before a builder runs).
    pub attributes: &'a [Attribute],
    /// Per input position: `None` when the call omits it, else its element type
    /// (`TensorProto.DataType` number) when the model states it.
    pub inputs: Vec<Option<Option<i32>>>,
}

/// The body of `site.op` at this call site, as function text, when a builder knows the
/// operator; `Some(Err(reason))` when it does but cannot build for this call (e.g. an
/// input type it needs is not stated).
pub(crate) fn context_dependent_body(site: &CallSite<'_>) -> Option<Result<String, String>> {
    let schema = schema::lookup("", site.op, site.opset)?;
    if !schema.has_context_dependent_function {
        return None;
    }
    let version = schema
        .context_dependent_function_opsets
        .iter()
        .copied()
        .filter(|&v| v <= site.opset)
        .max()?;
    let build: fn(&mut Body<'_>) -> Result<(), String> = match (site.op, schema.since_version) {
        ("Clip", 13) => clip,
        ("Softmax", 13) | ("LogSoftmax", 13) => softmax,
        ("LayerNormalization", 17) => layer_normalization,
        ("GroupNormalization", 18 | 21) => group_normalization,
        ("RMSNormalization", 23) => rms_normalization,
        ("Gelu", 20) => gelu,
        ("Celu", 12) => celu,
        ("CastLike", _) => cast_like,
        ("Range", 27) => range,
        ("DepthToSpace", 28) | ("SpaceToDepth", 28) => depth_space,
        ("CenterCropPad", 18) => center_crop_pad,
        _ => return None,
    };
    let mut body = Body {
        site,
        schema,
        version,
        text: String::new(),
    };
    Some(build(&mut body).map(|()| body.finish()))
}

// Data types (`TensorProto.DataType`) the builders name.
const FLOAT: i32 = 1;
const INT64: i32 = 7;
const BOOL: i32 = 9;
const FLOAT16: i32 = 10;
const DOUBLE: i32 = 11;
const BFLOAT16: i32 = 16;
const FLOAT8E8M0: i32 = 24;
/// The float8 types, where `Cast`'s `saturate` applies.
const FLOAT8S: [i32; 5] = [17, 18, 19, 20, FLOAT8E8M0];

/// A body being written: the call site, the schema in force, the opset the body is
/// written for, and the node lines so far.
struct Body<'a> {
    site: &'a CallSite<'a>,
    schema: &'static OpSchema,
    version: i64,
    text: String,
}

impl Body<'_> {
    /// One node line, written as given (`y = Op <attrs> (inputs)`), indented.
    fn node(&mut self, line: std::fmt::Arguments<'_>) {
        let _ = writeln!(self.text, "   {line}");
    }

    /// `name = Constant <value: tensor = int64[n] {values}> ()`.
    fn int64s(&mut self, name: &str, values: &[i64]) {
        let n = values.len();
        let v = join(values);
        self.node(format_args!(
            "{name} = Constant <value: tensor = int64[{n}] {{{v}}}> ()"
        ));
    }

    /// `name = Constant <value: tensor = int64 {value}> ()`, a scalar.
    fn int64(&mut self, name: &str, value: i64) {
        self.node(format_args!(
            "{name} = Constant <value: tensor = int64 {{{value}}}> ()"
        ));
    }

    /// `name = Constant <value: tensor = float {value}> ()`, a scalar, or `float[1]`.
    fn float(&mut self, name: &str, value: f32, one_d: bool) -> Result<(), String> {
        let v = self.float_literal(value)?;
        let dims = if one_d { "[1]" } else { "" };
        self.node(format_args!(
            "{name} = Constant <value: tensor = float{dims} {{{v}}}> ()"
        ));
        Ok(())
    }

    fn float_literal(&self, value: f32) -> Result<String, String> {
        if value.is_finite() {
            Ok(format!("{value:?}"))
        } else {
            Err(format!(
                "{}: a non-finite float attribute ({value}) is not built",
                self.site.op
            ))
        }
    }

    /// The call's value of attribute `name`, else the schema's default.
    fn attribute(&self, name: &str) -> Result<Option<&AttrValue>, String> {
        match self.site.attributes.iter().find(|a| a.name() == name) {
            Some(a) => match &a.kind {
                AttrKind::Value(v) => Ok(Some(v)),
                _ => Err(format!(
                    "attribute {name} of {} is not a value; the body needs its value",
                    self.site.op
                )),
            },
            None => Ok(self.schema.attribute(name).and_then(|a| a.default.as_ref())),
        }
    }

    fn wrong_type(&self, name: &str, ty: &str) -> String {
        format!("attribute {name} of {} must be {ty}", self.site.op)
    }

    fn required(&self, name: &str) -> String {
        format!(
            "{} needs attribute {name}; the call does not set it",
            self.site.op
        )
    }

    fn int(&self, name: &str) -> Result<Option<i64>, String> {
        match self.attribute(name)? {
            None => Ok(None),
            Some(AttrValue::Int(i)) => Ok(Some(*i)),
            Some(_) => Err(self.wrong_type(name, "an int")),
        }
    }

    fn float_attr(&self, name: &str) -> Result<Option<f32>, String> {
        match self.attribute(name)? {
            None => Ok(None),
            Some(AttrValue::Float(f)) => Ok(Some(*f)),
            Some(_) => Err(self.wrong_type(name, "a float")),
        }
    }

    fn string(&self, name: &str) -> Result<Option<String>, String> {
        match self.attribute(name)? {
            None => Ok(None),
            Some(AttrValue::String(s)) => Ok(Some(String::from_utf8_lossy(s).into_owned())),
            Some(_) => Err(self.wrong_type(name, "a string")),
        }
    }

    fn ints(&self, name: &str) -> Result<Option<Vec<i64>>, String> {
        match self.attribute(name)? {
            None => Ok(None),
            Some(AttrValue::Ints(v)) => Ok(Some(v.clone())),
            Some(_) => Err(self.wrong_type(name, "a list of ints")),
        }
    }

    /// The schema's default `epsilon` when the call omits it; a literal.
    fn epsilon(&self) -> Result<f32, String> {
        self.float_attr("epsilon")?
            .ok_or_else(|| self.required("epsilon"))
    }

    /// Whether the call passes input `i`.
    fn has_input(&self, i: usize) -> bool {
        matches!(self.site.inputs.get(i), Some(Some(_)))
    }

    /// The element type of input `i`, which the body needs.
    fn elem_type(&self, i: usize) -> Result<i32, String> {
        let op = self.site.op;
        let formal = self.schema.inputs.get(i).map_or("?", |f| f.name.as_str());
        match self.site.inputs.get(i) {
            Some(Some(Some(t))) => Ok(*t),
            Some(Some(None)) => Err(format!(
                "{op} needs the element type of input {formal}; the model does not state it"
            )),
            _ => Err(format!("{op} needs input {formal}; the call omits it")),
        }
    }

    /// Fails unless the call passes input `i`.
    fn need_input(&self, i: usize) -> Result<(), String> {
        if self.has_input(i) {
            Ok(())
        } else {
            let formal = self.schema.inputs.get(i).map_or("?", |f| f.name.as_str());
            Err(format!(
                "{} needs input {formal}; the call omits it",
                self.site.op
            ))
        }
    }

    /// The header (every formal and attribute of the schema) and the body.
    fn finish(self) -> String {
        let s = self.schema;
        let mut out = format!(
            "<domain: \"\", opset_import: [\"\" : {}]>\n{}",
            self.version, s.name
        );
        if !s.attributes.is_empty() {
            let names: Vec<&str> = s.attributes.iter().map(|a| a.name.as_str()).collect();
            let _ = write!(out, " <{}>", names.join(", "));
        }
        let inputs: Vec<&str> = s.inputs.iter().map(|f| f.name.as_str()).collect();
        let outputs: Vec<&str> = s.outputs.iter().map(|f| f.name.as_str()).collect();
        let _ = write!(
            out,
            " ({}) => ({})\n{{\n{}}}\n",
            inputs.join(", "),
            outputs.join(", "),
            self.text
        );
        out
    }
}

fn join(values: &[i64]) -> String {
    values
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Clip`-13: `Less`/`Where` against the bounds the call passes.
fn clip(b: &mut Body<'_>) -> Result<(), String> {
    b.need_input(0)?;
    match (b.has_input(1), b.has_input(2)) {
        (true, true) => {
            b.node(format_args!("below = Less (input, min)"));
            b.node(format_args!("raised = Where (below, min, input)"));
            b.node(format_args!("above = Less (max, raised)"));
            b.node(format_args!("output = Where (above, max, raised)"));
        }
        (true, false) => {
            b.node(format_args!("below = Less (input, min)"));
            b.node(format_args!("output = Where (below, min, input)"));
        }
        (false, true) => {
            b.node(format_args!("above = Less (max, input)"));
            b.node(format_args!("output = Where (above, max, input)"));
        }
        (false, false) => b.node(format_args!("output = Identity (input)")),
    }
    Ok(())
}

/// `Softmax`-13 and `LogSoftmax`-13: shift by the max along `axis`, exponentiate,
/// normalize by the sum (or subtract its log).
fn softmax(b: &mut Body<'_>) -> Result<(), String> {
    b.need_input(0)?;
    let axis = b.int("axis")?.ok_or_else(|| b.required("axis"))?;
    b.int64s("axes", &[axis]);
    if b.version >= 18 {
        b.node(format_args!(
            "x_max = ReduceMax <keepdims: int = 1> (input, axes)"
        ));
    } else {
        b.node(format_args!(
            "x_max = ReduceMax <keepdims: int = 1, axes: ints = [{axis}]> (input)"
        ));
    }
    b.node(format_args!("shifted = Sub (input, x_max)"));
    b.node(format_args!("exp = Exp (shifted)"));
    b.node(format_args!(
        "exp_sum = ReduceSum <keepdims: int = 1> (exp, axes)"
    ));
    if b.site.op == "LogSoftmax" {
        b.node(format_args!("log_sum = Log (exp_sum)"));
        b.node(format_args!("output = Sub (shifted, log_sum)"));
    } else {
        b.node(format_args!("output = Div (exp, exp_sum)"));
    }
    Ok(())
}

/// `LayerNormalization`-17: flatten to 2-D at `axis`, normalize each row in the stash
/// type, scale and shift; `Mean` and `InvStdDev` reshaped to the reduced shape.
fn layer_normalization(b: &mut Body<'_>) -> Result<(), String> {
    let t = b.elem_type(0)?;
    b.need_input(1)?;
    let axis = b.int("axis")?.ok_or_else(|| b.required("axis"))?;
    let epsilon = b.epsilon()?;
    let stash = b
        .int("stash_type")?
        .ok_or_else(|| b.required("stash_type"))?;
    if !matches!(i32::try_from(stash), Ok(FLOAT | BFLOAT16)) {
        return Err(format!(
            "LayerNormalization: stash_type {stash} is not float (1) or bfloat16 (16); onnx builds no body"
        ));
    }
    b.float("epsilon_f", epsilon, false)?;
    b.node(format_args!(
        "epsilon_u = Cast <to: int = {stash}> (epsilon_f)"
    ));
    b.node(format_args!("x_shape = Shape (X)"));
    b.int64s("zero_1d", &[0]);
    b.int64s("axis_1d", &[axis]);
    b.node(format_args!(
        "prefix_shape = Slice (x_shape, zero_1d, axis_1d)"
    ));
    if axis < 0 {
        b.node(format_args!("reduced_rank = Neg (axis_1d)"));
    } else {
        b.node(format_args!("rank = Size (x_shape)"));
        b.node(format_args!("reduced_rank = Sub (rank, axis_1d)"));
    }
    b.node(format_args!(
        "suffix_shape = ConstantOfShape <value: tensor = int64[1] {{1}}> (reduced_rank)"
    ));
    b.node(format_args!(
        "reduced_shape = Concat <axis: int = 0> (prefix_shape, suffix_shape)"
    ));
    b.node(format_args!("x_2d = Flatten <axis: int = {axis}> (X)"));
    b.node(format_args!("x_u = Cast <to: int = {stash}> (x_2d)"));
    if b.version >= 18 {
        b.int64s("axes_1", &[1]);
        b.node(format_args!("mean_2d = ReduceMean (x_u, axes_1)"));
        b.node(format_args!("square = Mul (x_u, x_u)"));
        b.node(format_args!("mean_of_square = ReduceMean (square, axes_1)"));
    } else {
        b.node(format_args!(
            "mean_2d = ReduceMean <axes: ints = [1]> (x_u)"
        ));
        b.node(format_args!("square = Mul (x_u, x_u)"));
        b.node(format_args!(
            "mean_of_square = ReduceMean <axes: ints = [1]> (square)"
        ));
    }
    b.node(format_args!("square_of_mean = Mul (mean_2d, mean_2d)"));
    b.node(format_args!(
        "variance = Sub (mean_of_square, square_of_mean)"
    ));
    b.node(format_args!("variance_eps = Add (variance, epsilon_u)"));
    b.node(format_args!("std_dev = Sqrt (variance_eps)"));
    b.node(format_args!("deviation = Sub (x_u, mean_2d)"));
    b.node(format_args!("normalized_u = Div (deviation, std_dev)"));
    b.node(format_args!(
        "normalized = Cast <to: int = {t}> (normalized_u)"
    ));
    b.node(format_args!("scale_2d = Flatten <axis: int = 0> (Scale)"));
    b.node(format_args!("scaled = Mul (normalized, scale_2d)"));
    if b.has_input(2) {
        b.node(format_args!("b_2d = Flatten <axis: int = 0> (B)"));
        b.node(format_args!("shifted = Add (scaled, b_2d)"));
    } else {
        b.node(format_args!("shifted = Identity (scaled)"));
    }
    b.node(format_args!("Y = Reshape (shifted, x_shape)"));
    b.node(format_args!("inv_std_dev_2d = Reciprocal (std_dev)"));
    b.node(format_args!("Mean = Reshape (mean_2d, reduced_shape)"));
    b.node(format_args!(
        "InvStdDev = Reshape (inv_std_dev_2d, reduced_shape)"
    ));
    Ok(())
}

/// `GroupNormalization`-18 (computes in the input type, `scale`/`bias` per group) and
/// -21 (computes in the stash type, `scale`/`bias` per channel): reshape to
/// `[N, groups, -1]`, normalize each group, scale and shift per channel.
fn group_normalization(b: &mut Body<'_>) -> Result<(), String> {
    let t = b.elem_type(0)?;
    b.need_input(1)?;
    b.need_input(2)?;
    let groups = b
        .int("num_groups")?
        .ok_or_else(|| b.required("num_groups"))?;
    let epsilon = b.epsilon()?;
    let stashed = b.schema.since_version >= 21;
    let u = if stashed {
        let stash = b
            .int("stash_type")?
            .ok_or_else(|| b.required("stash_type"))?;
        match i32::try_from(stash) {
            Ok(s @ (FLOAT | FLOAT16 | DOUBLE | BFLOAT16)) => s,
            _ => {
                return Err(format!(
                    "GroupNormalization: stash_type {stash} is not a float type; onnx builds no body"
                ));
            }
        }
    } else {
        t
    };
    let x = if stashed { "x_u" } else { "X" };
    b.float("epsilon_f", epsilon, true)?;
    b.node(format_args!("epsilon_u = Cast <to: int = {u}> (epsilon_f)"));
    if stashed {
        b.node(format_args!("x_u = Cast <to: int = {u}> (X)"));
    }
    b.node(format_args!("x_shape = Shape ({x})"));
    b.node(format_args!(
        "channels = Shape <start: int = 1, end: int = 2> (X)"
    ));
    b.int64s("groups", &[groups]);
    b.node(format_args!("group_size = Div (channels, groups)"));
    b.node(format_args!(
        "batch = Shape <start: int = 0, end: int = 1> (X)"
    ));
    b.node(format_args!("instance_shape = Shape <start: int = 2> (X)"));
    b.node(format_args!(
        "grouped_shape = Concat <axis: int = 0> (batch, groups, group_size, instance_shape)"
    ));
    b.node(format_args!("x_grouped = Reshape ({x}, grouped_shape)"));
    b.int64s("shape_3d", &[0, 0, -1]);
    b.node(format_args!("x_3d = Reshape (x_grouped, shape_3d)"));
    b.int64s("axes_2", &[2]);
    b.node(format_args!("mean = ReduceMean (x_3d, axes_2)"));
    b.node(format_args!("square = Mul (x_3d, x_3d)"));
    b.node(format_args!("mean_of_square = ReduceMean (square, axes_2)"));
    b.node(format_args!("square_of_mean = Mul (mean, mean)"));
    b.node(format_args!(
        "variance = Sub (mean_of_square, square_of_mean)"
    ));
    b.node(format_args!("variance_eps = Add (variance, epsilon_u)"));
    b.node(format_args!("std_dev = Sqrt (variance_eps)"));
    b.node(format_args!("deviation = Sub (x_3d, mean)"));
    if stashed {
        b.node(format_args!("normalized_u = Div (deviation, std_dev)"));
        b.node(format_args!(
            "normalized_x = Reshape (normalized_u, x_shape)"
        ));
        b.node(format_args!(
            "normalized_nc = Reshape (normalized_x, shape_3d)"
        ));
        b.node(format_args!(
            "normalized = Cast <to: int = {t}> (normalized_nc)"
        ));
    } else {
        b.node(format_args!("normalized = Div (deviation, std_dev)"));
    }
    b.int64s("scale_shape", &[1, -1, 1]);
    b.node(format_args!("scale_t = Cast <to: int = {t}> (scale)"));
    b.node(format_args!("bias_t = Cast <to: int = {t}> (bias)"));
    b.node(format_args!("scale_r = Reshape (scale_t, scale_shape)"));
    b.node(format_args!("bias_r = Reshape (bias_t, scale_shape)"));
    b.node(format_args!("scaled = Mul (scale_r, normalized)"));
    b.node(format_args!("shifted = Add (scaled, bias_r)"));
    b.node(format_args!("Y = Reshape (shifted, x_shape)"));
    Ok(())
}

/// `RMSNormalization`-23: divide by the root mean square over the axes from `axis` on,
/// in the stash type, then scale.
fn rms_normalization(b: &mut Body<'_>) -> Result<(), String> {
    let t = b.elem_type(0)?;
    b.need_input(1)?;
    let axis = b.int("axis")?.ok_or_else(|| b.required("axis"))?;
    let epsilon = b.epsilon()?;
    let stash = b
        .int("stash_type")?
        .ok_or_else(|| b.required("stash_type"))?;
    if !matches!(
        i32::try_from(stash),
        Ok(FLOAT | FLOAT16 | DOUBLE | BFLOAT16)
    ) {
        return Err(format!(
            "RMSNormalization: stash_type {stash} is not a float type; onnx builds no body"
        ));
    }
    b.float("epsilon_f", epsilon, false)?;
    b.node(format_args!(
        "epsilon_u = Cast <to: int = {stash}> (epsilon_f)"
    ));
    b.node(format_args!("x_shape = Shape (X)"));
    b.node(format_args!("rank = Size (x_shape)"));
    b.int64("axis", axis);
    if axis < 0 {
        b.node(format_args!("first_axis = Add (rank, axis)"));
    } else {
        b.node(format_args!("first_axis = Identity (axis)"));
    }
    b.int64("one", 1);
    b.node(format_args!("reduce_axes = Range (first_axis, rank, one)"));
    b.node(format_args!("x_u = Cast <to: int = {stash}> (X)"));
    b.node(format_args!("square = Mul (x_u, x_u)"));
    b.node(format_args!(
        "mean_square = ReduceMean (square, reduce_axes)"
    ));
    b.node(format_args!(
        "mean_square_eps = Add (mean_square, epsilon_u)"
    ));
    b.node(format_args!("rms = Sqrt (mean_square_eps)"));
    b.node(format_args!("normalized_u = Div (x_u, rms)"));
    b.node(format_args!(
        "normalized = Cast <to: int = {t}> (normalized_u)"
    ));
    b.node(format_args!("Y = Mul (normalized, scale)"));
    Ok(())
}

/// `Gelu`-20: `0.5·x·(1 + erf(x/√2))`, or with `approximate = "tanh"`
/// `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`; constants cast like `X`.
fn gelu(b: &mut Body<'_>) -> Result<(), String> {
    b.need_input(0)?;
    let approximate = b.string("approximate")?.unwrap_or_else(|| "none".into());
    let tanh = match approximate.as_str() {
        "none" => false,
        "tanh" => true,
        other => {
            return Err(format!(
                "Gelu: approximate must be \"none\" or \"tanh\", not {other:?}"
            ));
        }
    };
    b.float("half", 0.5, false)?;
    b.node(format_args!("half_x = CastLike (half, X)"));
    b.float("one", 1.0, false)?;
    b.node(format_args!("one_x = CastLike (one, X)"));
    if tanh {
        b.float("two_over_pi", std::f32::consts::FRAC_2_PI, false)?;
        b.node(format_args!("two_over_pi_x = CastLike (two_over_pi, X)"));
        b.float("c0", 0.044715, false)?;
        b.node(format_args!("c0_x = CastLike (c0, X)"));
        b.node(format_args!("sqrt_two_over_pi = Sqrt (two_over_pi_x)"));
        b.float("three", 3.0, false)?;
        b.node(format_args!("three_x = CastLike (three, X)"));
        b.node(format_args!("x_cubed = Pow (X, three_x)"));
        b.node(format_args!("c0_x_cubed = Mul (c0_x, x_cubed)"));
        b.node(format_args!("inner = Sum (X, c0_x_cubed)"));
        b.node(format_args!("tanh_in = Mul (sqrt_two_over_pi, inner)"));
        b.node(format_args!("tanh_out = Tanh (tanh_in)"));
        b.node(format_args!("phi = Sum (one_x, tanh_out)"));
    } else {
        b.float("two", 2.0, false)?;
        b.node(format_args!("two_x = CastLike (two, X)"));
        b.node(format_args!("sqrt_two = Sqrt (two_x)"));
        b.node(format_args!("x_scaled = Div (X, sqrt_two)"));
        b.node(format_args!("erf = Erf (x_scaled)"));
        b.node(format_args!("phi = Sum (one_x, erf)"));
    }
    b.node(format_args!("half_times_x = Mul (half_x, X)"));
    b.node(format_args!("Y = Mul (half_times_x, phi)"));
    Ok(())
}

/// `Celu`-12: `alpha · Elu(X / alpha)`.
fn celu(b: &mut Body<'_>) -> Result<(), String> {
    b.need_input(0)?;
    let alpha = b.float_attr("alpha")?.ok_or_else(|| b.required("alpha"))?;
    b.float("alpha", alpha, true)?;
    b.node(format_args!("x_over_alpha = Div (X, alpha)"));
    b.node(format_args!(
        "elu = Elu <alpha: float = 1.0> (x_over_alpha)"
    ));
    b.node(format_args!("Y = Mul (alpha, elu)"));
    Ok(())
}

/// `CastLike`: a `Cast` to the element type of `target_type`; `saturate` (from 19) and
/// `round_mode` (from 25) only where they apply: a float8 target, a float8e8m0 one.
fn cast_like(b: &mut Body<'_>) -> Result<(), String> {
    b.need_input(0)?;
    let to = b.elem_type(1)?;
    let mut attrs = format!("to: int = {to}");
    if b.schema.attribute("saturate").is_some() && FLOAT8S.contains(&to) {
        let saturate = b.int("saturate")?.ok_or_else(|| b.required("saturate"))?;
        let _ = write!(attrs, ", saturate: int = {saturate}");
    }
    if b.schema.attribute("round_mode").is_some() && to == FLOAT8E8M0 {
        let mode = b
            .string("round_mode")?
            .ok_or_else(|| b.required("round_mode"))?;
        if !matches!(mode.as_str(), "up" | "down" | "nearest") {
            return Err(format!(
                "CastLike: round_mode must be \"up\", \"down\" or \"nearest\", not {mode:?}"
            ));
        }
        let _ = write!(attrs, ", round_mode: string = \"{mode}\"");
    }
    b.node(format_args!("output = Cast <{attrs}> (input)"));
    Ok(())
}

/// `Range`-27: the count `max(ceil((limit - start) / delta), 0)` computed in float,
/// then a `Loop` that adds `delta`; float16/bfloat16 inputs run in the stash type.
fn range(b: &mut Body<'_>) -> Result<(), String> {
    let t = b.elem_type(0)?;
    b.need_input(1)?;
    b.need_input(2)?;
    let stash = b
        .int("stash_type")?
        .ok_or_else(|| b.required("stash_type"))?;
    let (start, delta, output) = if matches!(t, FLOAT16 | BFLOAT16) {
        let Ok(s @ (FLOAT | DOUBLE)) = i32::try_from(stash) else {
            return Err(format!(
                "Range: stash_type {stash} is not float (1) or double (11) for a float16/bfloat16 range; onnx builds no body"
            ));
        };
        b.node(format_args!("start_s = Cast <to: int = {s}> (start)"));
        b.node(format_args!("limit_s = Cast <to: int = {s}> (limit)"));
        b.node(format_args!("delta_s = Cast <to: int = {s}> (delta)"));
        b.node(format_args!("span = Sub (limit_s, start_s)"));
        b.node(format_args!("steps = Div (span, delta_s)"));
        ("start_s", "delta_s", "output_s")
    } else {
        b.node(format_args!("span_t = Sub (limit, start)"));
        b.node(format_args!("span = Cast <to: int = {FLOAT}> (span_t)"));
        b.node(format_args!("delta_f = Cast <to: int = {FLOAT}> (delta)"));
        b.node(format_args!("steps = Div (span, delta_f)"));
        ("start", "delta", "output")
    };
    b.node(format_args!("steps_up = Ceil (steps)"));
    b.node(format_args!("count_f = Relu (steps_up)"));
    b.node(format_args!("count = Cast <to: int = {INT64}> (count_f)"));
    b.node(format_args!("go = Cast <to: int = {BOOL}> (count_f)"));
    b.node(format_args!(
        "last, {output} = Loop (count, go, {start}) <body: graph = range_step (int64 i, bool cond_in, prev) => (cond_out, next, item) {{\n      cond_out = Identity (cond_in)\n      next = Add (prev, {delta})\n      item = Identity (prev)\n   }}>"
    ));
    if output != "output" {
        b.node(format_args!("output = Cast <to: int = {t}> ({output})"));
    }
    Ok(())
}

/// `DepthToSpace`-28 and `SpaceToDepth`-28: reshape to 6-D, transpose, reshape.
fn depth_space(b: &mut Body<'_>) -> Result<(), String> {
    b.need_input(0)?;
    let op = b.site.op;
    let block = b.int("blocksize")?.ok_or_else(|| b.required("blocksize"))?;
    if block <= 0 {
        return Err(format!("{op}: blocksize must be positive, not {block}"));
    }
    let area = block
        .checked_mul(block)
        .ok_or_else(|| format!("{op}: blocksize {block} is too large"))?;
    let mode = b.string("mode")?.unwrap_or_else(|| "DCR".into());
    let crd = match mode.as_str() {
        "DCR" => false,
        "CRD" => true,
        other => {
            return Err(format!(
                "{op}: mode must be \"DCR\" or \"CRD\", not {other:?}"
            ));
        }
    };
    let to_space = op == "DepthToSpace";
    b.int64s("block", &[block]);
    b.int64s("block_area", &[area]);
    b.node(format_args!(
        "n = Shape <start: int = 0, end: int = 1> (input)"
    ));
    b.node(format_args!(
        "c = Shape <start: int = 1, end: int = 2> (input)"
    ));
    b.node(format_args!(
        "h = Shape <start: int = 2, end: int = 3> (input)"
    ));
    b.node(format_args!(
        "w = Shape <start: int = 3, end: int = 4> (input)"
    ));
    let (grow, shrink, tmp, perm) = if to_space {
        let tmp = if crd {
            "n, c_out, block, block, h, w"
        } else {
            "n, block, block, c_out, h, w"
        };
        let perm = if crd {
            "0, 1, 4, 2, 5, 3"
        } else {
            "0, 3, 4, 1, 5, 2"
        };
        ("Mul", "Div", tmp, perm)
    } else {
        let perm = if crd {
            "0, 1, 3, 5, 2, 4"
        } else {
            "0, 3, 5, 1, 2, 4"
        };
        ("Div", "Mul", "n, c, h_out, block, w_out, block", perm)
    };
    b.node(format_args!("h_out = {grow} (h, block)"));
    b.node(format_args!("w_out = {grow} (w, block)"));
    b.node(format_args!("c_out = {shrink} (c, block_area)"));
    b.node(format_args!("tmp_shape = Concat <axis: int = 0> ({tmp})"));
    b.node(format_args!(
        "tmp = Reshape <allowzero: int = 1> (input, tmp_shape)"
    ));
    b.node(format_args!(
        "tmp_t = Transpose <perm: ints = [{perm}]> (tmp)"
    ));
    b.node(format_args!(
        "out_shape = Concat <axis: int = 0> (n, c_out, h_out, w_out)"
    ));
    b.node(format_args!(
        "output = Reshape <allowzero: int = 1> (tmp_t, out_shape)"
    ));
    Ok(())
}

/// `CenterCropPad`-18: pad each axis (all, or `axes`) up to the target size evenly,
/// then slice the centre out.
fn center_crop_pad(b: &mut Body<'_>) -> Result<(), String> {
    b.need_input(0)?;
    b.need_input(1)?;
    let axes = b.ints("axes")?;
    b.int64s("two", &[2]);
    if let Some(axes) = &axes {
        b.int64s("axes_t", axes);
        b.node(format_args!("x_shape_all = Shape (input_data)"));
        b.node(format_args!("x_shape = Gather (x_shape_all, axes_t)"));
    } else {
        b.node(format_args!("x_shape = Shape (input_data)"));
    }
    b.node(format_args!("padded_shape = Max (x_shape, shape)"));
    b.node(format_args!("pad = Sub (padded_shape, x_shape)"));
    b.node(format_args!("pad_begin = Div (pad, two)"));
    b.node(format_args!("pad_end = Sub (pad, pad_begin)"));
    b.node(format_args!(
        "pads = Concat <axis: int = 0> (pad_begin, pad_end)"
    ));
    if axes.is_some() {
        b.node(format_args!(
            "padded = Pad (input_data, pads, \"\", axes_t)"
        ));
        b.node(format_args!("padded_shape_all = Shape (padded)"));
        b.node(format_args!(
            "padded_shape_2 = Gather (padded_shape_all, axes_t)"
        ));
    } else {
        b.node(format_args!("padded = Pad (input_data, pads)"));
        b.node(format_args!("padded_shape_2 = Shape (padded)"));
    }
    b.node(format_args!("excess = Sub (padded_shape_2, shape)"));
    b.node(format_args!("starts = Div (excess, two)"));
    b.node(format_args!("ends = Add (starts, shape)"));
    if axes.is_some() {
        b.node(format_args!(
            "output_data = Slice (padded, starts, ends, axes_t)"
        ));
    } else {
        b.node(format_args!("output_data = Slice (padded, starts, ends)"));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
