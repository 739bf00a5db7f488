//! Shape rules and small-constant propagation, one function per operator family.

mod ranges;

use super::types::output_types;
use super::{Ctx, D, Engine, MAX_CONST, Ty, attr_value, norm_axis};
use crate::ir::{
    AttrValue, Dim, DimValue, Node, NodeId, Shape, Tensor, TensorType, Type, TypeValue, ValueDef,
    dtype,
};

/// The values of a small int64/int32 tensor.
pub(crate) fn tensor_consts(t: &Tensor) -> Option<Vec<D>> {
    if !matches!(t.data_type(), dtype::INT64 | dtype::INT32)
        || t.element_count()? > MAX_CONST as u64
    {
        return None;
    }
    let values = crate::opset::edit::tensor_ints(t)?;
    if values.len() as u64 != t.element_count()? {
        return None;
    }
    Some(values.into_iter().map(D::Val).collect())
}

type Shapes = Vec<Option<Vec<D>>>;

/// Output types and constant values of a node of a standard (or unknown) operator.
pub(crate) fn infer_node(
    e: &mut Engine,
    n: NodeId,
    node: &Node,
    ctx: &Ctx,
) -> (Vec<Option<Ty>>, Vec<Option<Vec<D>>>) {
    let domain = node.domain();
    let Some(version) = ctx.version(domain) else {
        return (Vec::new(), Vec::new());
    };
    let Some(schema) = crate::schema::lookup(domain, node.op_type(), version) else {
        return (Vec::new(), Vec::new());
    };
    let ins: Vec<Option<&Ty>> = node.inputs.iter().map(|&v| e.ty(v)).collect();
    let mut outs = output_types(schema, node, ctx, &ins);
    let mut cx = Cx {
        e,
        node,
        ctx,
        ins,
        ver: version,
        shapes: vec![None; node.outputs.len()],
        consts: vec![None; node.outputs.len()],
        problems: Vec::new(),
        retyped: Vec::new(),
    };
    if domain.is_empty() {
        if let Some(p) = cx.attribute_range() {
            cx.problems.push(("infer.attribute-range", p));
        }
        cx.rule();
    } else if domain == "ai.onnx.ml"
        && matches!(
            node.op_type(),
            "Binarizer" | "Imputer" | "LabelEncoder" | "Normalizer" | "Scaler"
        )
        && let Some(s) = cx.shape(0)
    {
        // Element-wise on their input.
        let s = s.to_vec();
        cx.out(0, s);
    }
    let Cx {
        shapes,
        consts,
        problems,
        retyped,
        ..
    } = cx;
    for (k, t) in retyped {
        if let Some(slot) = outs.get_mut(k) {
            *slot = Some(t);
        }
    }
    for (k, s) in shapes.into_iter().enumerate() {
        let Some(s) = s else { continue };
        match outs.get_mut(k) {
            Some(Some(Ty::Tensor { shape, .. })) => *shape = Some(s),
            Some(slot @ None) => *slot = Some(Ty::tensor(0, Some(s))),
            _ => {}
        }
    }
    outs.resize(node.outputs.len(), None);
    for (code, p) in problems {
        e.report_node(n, code, p);
    }
    (outs, consts)
}

struct Cx<'a, 'm> {
    e: &'a Engine<'m>,
    node: &'a Node,
    ctx: &'a Ctx<'a>,
    ins: Vec<Option<&'a Ty>>,
    ver: i64,
    shapes: Shapes,
    consts: Vec<Option<Vec<D>>>,
    problems: Vec<(&'static str, String)>,
    /// Outputs whose whole type a rule decides (sequences with element shapes).
    retyped: Vec<(usize, Ty)>,
}

fn prod(dims: &[D]) -> D {
    dims.iter()
        .try_fold(1i64, |acc, d| match d {
            D::Val(v) => acc.checked_mul(*v),
            _ => None,
        })
        .map_or(D::Unk, D::Val)
}

fn vals(dims: &[D]) -> Option<Vec<i64>> {
    dims.iter()
        .map(|d| match d {
            D::Val(v) => Some(*v),
            _ => None,
        })
        .collect()
}

fn div_ceil(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) == (b < 0)) {
        q + 1
    } else {
        q
    })
}

fn div_floor(a: i64, b: i64) -> Option<i64> {
    if b == 0 {
        return None;
    }
    let q = a.checked_div(b)?;
    Some(if (a % b != 0) && ((a < 0) != (b < 0)) {
        q - 1
    } else {
        q
    })
}

/// Multidirectional (numpy) broadcasting of shapes.
fn broadcast(shapes: &[&[D]]) -> Result<Vec<D>, String> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = Vec::with_capacity(rank);
    for i in 0..rank {
        let mut val: Option<i64> = None;
        let mut sym: Option<u32> = None;
        let mut many_syms = false;
        let mut unknown = false;
        for s in shapes {
            let Some(j) = (i + s.len()).checked_sub(rank) else {
                continue;
            };
            match s.get(j) {
                Some(D::Val(1)) | None => {}
                Some(D::Val(v)) => {
                    if let Some(w) = val
                        && w != *v
                    {
                        return Err(format!("dimensions {w} and {v} do not broadcast"));
                    }
                    val = Some(*v);
                }
                Some(D::Sym(s)) => {
                    if sym.is_some_and(|t| t != *s) {
                        many_syms = true;
                    }
                    sym = Some(*s);
                }
                Some(D::Unk) => unknown = true,
            }
        }
        out.push(match (val, sym) {
            (Some(v), _) => D::Val(v),
            (None, None) if !unknown => D::Val(1),
            (None, Some(s)) if !unknown && !many_syms => D::Sym(s),
            _ => D::Unk,
        });
    }
    Ok(out)
}

/// Operators whose first output has the shape of their first input.
fn same_shape(op: &str) -> bool {
    matches!(
        op,
        "Abs"
            | "Acos"
            | "Acosh"
            | "Asin"
            | "Asinh"
            | "Atan"
            | "Atanh"
            | "BitwiseNot"
            | "Cast"
            | "CastLike"
            | "Ceil"
            | "Celu"
            | "Clip"
            | "Cos"
            | "Cosh"
            | "CumSum"
            | "Elu"
            | "Erf"
            | "Exp"
            | "Floor"
            | "Gelu"
            | "HardSigmoid"
            | "HardSwish"
            | "Hardmax"
            | "Identity"
            | "InstanceNormalization"
            | "IsInf"
            | "IsNaN"
            | "LRN"
            | "LeakyRelu"
            | "Log"
            | "LogSoftmax"
            | "LpNormalization"
            | "MeanVarianceNormalization"
            | "Mish"
            | "Neg"
            | "Not"
            | "Reciprocal"
            | "Relu"
            | "Round"
            | "Selu"
            | "Shrink"
            | "Sigmoid"
            | "Sign"
            | "Sin"
            | "Sinh"
            | "Softmax"
            | "Softplus"
            | "Softsign"
            | "Sqrt"
            | "Swish"
            | "Tan"
            | "Tanh"
            | "ThresholdedRelu"
            | "Trilu"
            | "QuantizeLinear"
            | "DequantizeLinear"
            | "ReverseSequence"
            | "RandomNormalLike"
            | "RandomUniformLike"
            | "Bernoulli"
            | "EyeLike"
            | "ScatterElements"
            | "ScatterND"
            | "Scatter"
            | "GroupNormalization"
            | "RMSNormalization"
            | "DynamicQuantizeLinear"
            | "Dropout"
            | "BatchNormalization"
            | "LayerNormalization"
            | "SkipLayerNormalization"
            | "FastGelu"
            | "BiasGelu"
    )
}

fn broadcasting(op: &str) -> bool {
    matches!(
        op,
        "Add"
            | "Sub"
            | "Mul"
            | "Div"
            | "Pow"
            | "Mod"
            | "Equal"
            | "Less"
            | "Greater"
            | "LessOrEqual"
            | "GreaterOrEqual"
            | "And"
            | "Or"
            | "Xor"
            | "Where"
            | "Max"
            | "Min"
            | "Mean"
            | "Sum"
            | "PRelu"
            | "BitShift"
            | "BitwiseAnd"
            | "BitwiseOr"
            | "BitwiseXor"
    )
}

impl<'a, 'm> Cx<'a, 'm> {
    fn shape(&self, i: usize) -> Option<&'a [D]> {
        self.ins.get(i).copied().flatten().and_then(Ty::shape)
    }

    fn present(&self, i: usize) -> bool {
        self.node.inputs.get(i).copied().flatten().is_some()
    }

    fn cv(&self, i: usize) -> Option<&'a [D]> {
        let v = self.node.inputs.get(i).copied().flatten()?;
        let e: &'a Engine<'m> = self.e;
        e.consts.get(&v).map(Vec::as_slice)
    }

    fn ints(&self, i: usize) -> Option<Vec<i64>> {
        vals(self.cv(i)?)
    }

    fn attr(&self, name: &str) -> Option<&'a AttrValue> {
        attr_value(self.node, name, self.ctx)
    }

    fn ai(&self, name: &str) -> Option<i64> {
        match self.attr(name)? {
            AttrValue::Int(i) => Some(*i),
            _ => None,
        }
    }

    fn ais(&self, name: &str) -> Option<Vec<i64>> {
        match self.attr(name)? {
            AttrValue::Ints(i) => Some(i.clone()),
            _ => None,
        }
    }

    fn astr(&self, name: &str) -> Option<&'a str> {
        match self.attr(name)? {
            AttrValue::String(s) => std::str::from_utf8(s).ok(),
            _ => None,
        }
    }

    fn out(&mut self, k: usize, shape: Vec<D>) {
        if let Some(slot) = self.shapes.get_mut(k) {
            *slot = Some(shape);
        }
    }

    fn out_const(&mut self, k: usize, values: Vec<D>) {
        if values.len() <= MAX_CONST
            && let Some(slot) = self.consts.get_mut(k)
        {
            *slot = Some(values);
        }
    }

    /// Axes given as an attribute before `since`, as input `input` from it on.
    fn axes(&self, since: i64, input: usize) -> Option<Option<Vec<i64>>> {
        if self.ver < since {
            Some(self.ais("axes"))
        } else if self.present(input) {
            self.ints(input).map(Some)
        } else {
            Some(None)
        }
    }

    fn rule(&mut self) {
        let op = self.node.op_type();
        if same_shape(op) {
            if let Some(s) = self.shape(0) {
                let s = s.to_vec();
                self.out(0, s.clone());
                if matches!(op, "Dropout" | "DynamicQuantizeLinear") {
                    // Dropout's mask has the input's shape; the quantizer's scale and
                    // zero point are scalars.
                    if op == "Dropout" {
                        self.out(1, s.clone());
                    } else {
                        self.out(1, Vec::new());
                        self.out(2, Vec::new());
                    }
                }
                if op == "LayerNormalization" {
                    let axis = self.ai("axis").unwrap_or(-1);
                    if let Some(a) = norm_axis(axis, s.len()) {
                        let stat: Vec<D> = s
                            .iter()
                            .enumerate()
                            .map(|(i, &d)| if i < a { d } else { D::Val(1) })
                            .collect();
                        self.out(1, stat.clone());
                        self.out(2, stat);
                    }
                }
            }
            if op == "BatchNormalization" {
                for k in 1..self.node.outputs.len() {
                    if let Some(s) = self.shape(k + 2) {
                        self.out(k, s.to_vec());
                    }
                }
            }
            if matches!(op, "Cast" | "Identity") {
                let keep = op == "Identity"
                    || matches!(
                        self.ai("to").and_then(|t| i32::try_from(t).ok()),
                        Some(dtype::INT64 | dtype::INT32)
                    );
                if keep && let Some(c) = self.cv(0) {
                    self.out_const(0, c.to_vec());
                }
            }
            return;
        }
        if broadcasting(op) {
            return self.broadcast_rule(op);
        }
        match op {
            "MatMul" | "MatMulInteger" => self.matmul(),
            "Gemm" => self.gemm(),
            "Conv" | "ConvInteger" | "MaxPool" | "AveragePool" | "LpPool" => self.conv_pool(op),
            "ConvTranspose" => self.conv_transpose(),
            "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => {
                if let Some(s) = self.shape(0) {
                    let out = s
                        .iter()
                        .enumerate()
                        .map(|(i, &d)| if i < 2 { d } else { D::Val(1) })
                        .collect();
                    self.out(0, out);
                }
            }
            "Reshape" => self.reshape(),
            "Flatten" => self.flatten(),
            "Squeeze" => self.squeeze(),
            "Unsqueeze" => self.unsqueeze(),
            "Transpose" => self.transpose(),
            "Concat" => self.concat(),
            "Split" => self.split(),
            "Slice" => self.slice(),
            "Gather" => self.gather(),
            "GatherElements" => {
                if let Some(s) = self.shape(1) {
                    self.out(0, s.to_vec());
                }
            }
            "Expand" => self.expand(),
            "Tile" => self.tile(),
            "Pad" => self.pad(),
            "Resize" | "Upsample" => self.resize(op),
            "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1"
            | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp" | "ReduceSumSquare" => {
                self.reduce(op)
            }
            "ArgMax" | "ArgMin" => self.argmax(),
            "Shape" => self.shape_op(),
            "Size" => {
                self.out(0, Vec::new());
                if let Some(D::Val(n)) = self.shape(0).map(prod) {
                    self.out_const(0, vec![D::Val(n)]);
                }
            }
            "Constant" => self.constant(),
            "ConstantOfShape" => self.constant_of_shape(),
            "Range" => self.range(),
            "TopK" => self.topk(),
            "NonZero" => {
                if let Some(s) = self.shape(0) {
                    let r = i64::try_from(s.len()).unwrap_or(0);
                    self.out(0, vec![D::Val(r), D::Unk]);
                }
            }
            "DepthToSpace" | "SpaceToDepth" => self.depth_space(op),
            "RandomNormal" | "RandomUniform" => {
                if let Some(s) = self.ais("shape") {
                    self.out(0, s.into_iter().map(D::Val).collect());
                }
            }
            "LSTM" | "GRU" | "RNN" => self.rnn(),
            "DFT" => self.dft(),
            "SequenceConstruct" | "SequenceInsert" | "SequenceAt" | "SplitToSequence" => {
                self.sequence(op)
            }
            "OptionalHasElement" | "SequenceLength" => self.out(0, Vec::new()),
            // Einsum, OneHot, Compress, NonMaxSuppression, ai.onnx.ml, …: element
            // types only.
            _ => {}
        }
    }

    fn broadcast_rule(&mut self, op: &str) {
        let shapes: Option<Vec<&[D]>> = (0..self.node.inputs.len())
            .map(|i| {
                if self.present(i) {
                    self.shape(i)
                } else {
                    Some(&[][..])
                }
            })
            .collect();
        if let Some(shapes) = shapes {
            match broadcast(&shapes) {
                Ok(s) => self.out(0, s),
                Err(p) => self.problems.push(("infer.broadcast", p)),
            }
        }
        // Small-constant arithmetic.
        if let ("Add" | "Sub" | "Mul" | "Div", Some(a), Some(b)) = (op, self.cv(0), self.cv(1)) {
            let n = a.len().max(b.len());
            if (a.len() == n || a.len() == 1) && (b.len() == n || b.len() == 1) {
                fn get(s: &[D], i: usize) -> Option<&D> {
                    if s.len() == 1 { s.first() } else { s.get(i) }
                }
                let values = (0..n)
                    .map(|i| match (get(a, i), get(b, i)) {
                        (Some(D::Val(x)), Some(D::Val(y))) => match op {
                            "Add" => x.checked_add(*y),
                            "Sub" => x.checked_sub(*y),
                            "Mul" => x.checked_mul(*y),
                            _ => x.checked_div(*y),
                        }
                        .map_or(D::Unk, D::Val),
                        (Some(&x), Some(D::Val(1))) if matches!(op, "Mul" | "Div") => x,
                        (Some(&x), Some(D::Val(0))) if matches!(op, "Add" | "Sub") => x,
                        (Some(D::Val(1)), Some(&y)) if op == "Mul" => y,
                        (Some(D::Val(0)), Some(&y)) if op == "Add" => y,
                        _ => D::Unk,
                    })
                    .collect();
                self.out_const(0, values);
            }
        }
    }

    fn matmul(&mut self) {
        let (Some(a), Some(b)) = (self.shape(0), self.shape(1)) else {
            return;
        };
        if a.is_empty() || b.is_empty() {
            return;
        }
        let a2: Vec<D> = if a.len() == 1 {
            vec![D::Val(1), a.first().copied().unwrap_or(D::Unk)]
        } else {
            a.to_vec()
        };
        let b2: Vec<D> = if b.len() == 1 {
            vec![b.first().copied().unwrap_or(D::Unk), D::Val(1)]
        } else {
            b.to_vec()
        };
        let (Some((ab, am)), Some((bb, bm))) = (
            a2.split_at_checked(a2.len() - 2),
            b2.split_at_checked(b2.len() - 2),
        ) else {
            return;
        };
        let mut out = match broadcast(&[ab, bb]) {
            Ok(s) => s,
            Err(p) => {
                self.problems.push(("infer.broadcast", p));
                return;
            }
        };
        if a.len() > 1 {
            out.push(am.first().copied().unwrap_or(D::Unk));
        }
        if b.len() > 1 {
            out.push(bm.get(1).copied().unwrap_or(D::Unk));
        }
        if let (Some(D::Val(k1)), Some(D::Val(k2))) = (am.get(1), bm.first())
            && k1 != k2
        {
            let p = format!("MatMul inner dimensions {k1} and {k2} differ");
            self.problems.push(("infer.broadcast", p));
        }
        self.out(0, out);
    }

    fn gemm(&mut self) {
        let (Some(a), Some(b)) = (self.shape(0), self.shape(1)) else {
            return;
        };
        let (&[a0, a1], &[b0, b1]) = (a, b) else {
            return;
        };
        let m = if self.ai("transA").unwrap_or(0) != 0 {
            a1
        } else {
            a0
        };
        let n = if self.ai("transB").unwrap_or(0) != 0 {
            b0
        } else {
            b1
        };
        self.out(0, vec![m, n]);
    }

    fn conv_pool(&mut self, op: &str) {
        let Some(x) = self.shape(0) else { return };
        if x.len() < 3 {
            return;
        }
        let n = x.len() - 2;
        let w = if matches!(op, "Conv" | "ConvInteger") {
            self.shape(1)
        } else {
            None
        };
        let kernel = self
            .ais("kernel_shape")
            .or_else(|| w.and_then(|w| w.get(2..)).and_then(vals));
        let strides = self.ais("strides").unwrap_or_else(|| vec![1; n]);
        let dilations = self.ais("dilations").unwrap_or_else(|| vec![1; n]);
        let pads = self.ais("pads").unwrap_or_else(|| vec![0; 2 * n]);
        let auto_pad = self.astr("auto_pad").unwrap_or("NOTSET");
        let ceil = self.ai("ceil_mode").unwrap_or(0) != 0;
        let mut out = Vec::with_capacity(x.len());
        out.push(x.first().copied().unwrap_or(D::Unk));
        out.push(match w {
            Some(w) => w.first().copied().unwrap_or(D::Unk),
            None if matches!(op, "Conv" | "ConvInteger") => D::Unk,
            None => x.get(1).copied().unwrap_or(D::Unk),
        });
        for i in 0..n {
            let d = x.get(i + 2).copied().unwrap_or(D::Unk);
            let dim = (|| {
                let D::Val(input) = d else { return None };
                let s = *strides.get(i)?;
                let dil = *dilations.get(i)?;
                let k = *kernel.as_ref()?.get(i)?;
                let eff = dil.checked_mul(k.checked_sub(1)?)?.checked_add(1)?;
                match auto_pad {
                    "SAME_UPPER" | "SAME_LOWER" => div_ceil(input, s),
                    "VALID" => div_floor(input.checked_sub(eff)?, s)?.checked_add(1),
                    _ => {
                        let total = input
                            .checked_add(*pads.get(i)?)?
                            .checked_add(*pads.get(i + n)?)?
                            .checked_sub(eff)?;
                        let mut o = if ceil {
                            div_ceil(total, s)?.checked_add(1)?
                        } else {
                            div_floor(total, s)?.checked_add(1)?
                        };
                        if ceil
                            && o.checked_sub(1)?.checked_mul(s)?
                                >= input.checked_add(*pads.get(i)?)?
                        {
                            o -= 1;
                        }
                        Some(o)
                    }
                }
            })();
            out.push(dim.map_or(D::Unk, D::Val));
        }
        self.out(0, out.clone());
        if op == "MaxPool" {
            self.out(1, out);
        }
    }

    fn conv_transpose(&mut self) {
        let (Some(x), w) = (self.shape(0), self.shape(1)) else {
            return;
        };
        if x.len() < 3 {
            return;
        }
        let n = x.len() - 2;
        let group = self.ai("group").unwrap_or(1);
        let kernel = self
            .ais("kernel_shape")
            .or_else(|| w.and_then(|w| w.get(2..)).and_then(vals));
        let strides = self.ais("strides").unwrap_or_else(|| vec![1; n]);
        let dilations = self.ais("dilations").unwrap_or_else(|| vec![1; n]);
        let pads = self.ais("pads").unwrap_or_else(|| vec![0; 2 * n]);
        let out_pad = self.ais("output_padding").unwrap_or_else(|| vec![0; n]);
        let output_shape = self.ais("output_shape");
        let auto_pad = self.astr("auto_pad").unwrap_or("NOTSET");
        let mut out = vec![
            x.first().copied().unwrap_or(D::Unk),
            match w.and_then(|w| w.get(1)) {
                Some(D::Val(c)) => c.checked_mul(group).map_or(D::Unk, D::Val),
                _ => D::Unk,
            },
        ];
        for i in 0..n {
            let dim = (|| {
                if let Some(os) = &output_shape {
                    return os.get(os.len().checked_sub(n)? + i).copied();
                }
                let D::Val(input) = x.get(i + 2).copied()? else {
                    return None;
                };
                let s = *strides.get(i)?;
                if matches!(auto_pad, "SAME_UPPER" | "SAME_LOWER") {
                    return input.checked_mul(s);
                }
                let k = *kernel.as_ref()?.get(i)?;
                let eff = dilations
                    .get(i)?
                    .checked_mul(k.checked_sub(1)?)?
                    .checked_add(1)?;
                let p = if auto_pad == "VALID" {
                    0
                } else {
                    pads.get(i)? + pads.get(i + n)?
                };
                s.checked_mul(input.checked_sub(1)?)?
                    .checked_add(*out_pad.get(i)?)?
                    .checked_add(eff)?
                    .checked_sub(p)
            })();
            out.push(dim.map_or(D::Unk, D::Val));
        }
        self.out(0, out);
    }

    fn reshape(&mut self) {
        let Some(target) = self.cv(1) else {
            if let Some(&[D::Val(k)]) = self.shape(1)
                && let Ok(k) = usize::try_from(k)
                && k <= MAX_CONST
            {
                self.out(0, vec![D::Unk; k]);
            }
            return;
        };
        let x = self.shape(0);
        let allowzero = self.ai("allowzero").unwrap_or(0) != 0;
        let mut out = Vec::with_capacity(target.len());
        let mut minus = None;
        // onnx's rule: the -1 is the input's element count over the output's known
        // dimensions, where a 0 that copies a symbolic input dimension takes that
        // dimension out of both products (here: any symbolic dimension the output
        // repeats at the same position, or copies).
        let mut out_product: Option<i64> = Some(1);
        let mut cancelled = vec![false; x.map_or(0, <[D]>::len)];
        for (i, &d) in target.iter().enumerate() {
            let dim = match d {
                D::Val(0) if !allowzero => {
                    let dim = x.and_then(|x| x.get(i)).copied().unwrap_or(D::Unk);
                    if !matches!(dim, D::Val(_))
                        && let Some(c) = cancelled.get_mut(i)
                    {
                        *c = true;
                    }
                    dim
                }
                D::Val(-1) if minus.is_none() => {
                    minus = Some(i);
                    out.push(D::Unk);
                    continue;
                }
                D::Val(v) if v < 0 => return,
                d => d,
            };
            let zero_copy = matches!(d, D::Val(0)) && !allowzero;
            match dim {
                _ if zero_copy && !matches!(dim, D::Val(_)) => {}
                D::Val(v) => out_product = out_product.and_then(|p| p.checked_mul(v)),
                D::Sym(s) => {
                    match x.and_then(|x| {
                        x.iter().enumerate().position(|(j, &e)| {
                            e == D::Sym(s) && !cancelled.get(j).copied().unwrap_or(true)
                        })
                    }) {
                        Some(j) => {
                            if let Some(c) = cancelled.get_mut(j) {
                                *c = true;
                            }
                        }
                        None => out_product = None,
                    }
                }
                D::Unk => out_product = None,
            }
            out.push(dim);
        }
        if let (Some(i), Some(x), Some(op)) = (minus, x, out_product) {
            let in_product = x
                .iter()
                .zip(&cancelled)
                .try_fold(1i64, |acc, (&d, &c)| match d {
                    _ if c => Some(acc),
                    D::Val(v) => acc.checked_mul(v),
                    _ => None,
                });
            if let Some(ip) = in_product
                && op != 0
                && ip.checked_rem(op) == Some(0)
                && let Some(slot) = out.get_mut(i)
            {
                *slot = ip.checked_div(op).map_or(D::Unk, D::Val);
            }
        }
        if let Some(c) = self.cv(0)
            && matches!(prod(&out), D::Val(n) if usize::try_from(n).ok() == Some(c.len()))
        {
            self.out_const(0, c.to_vec());
        }
        self.out(0, out);
    }

    fn flatten(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let axis = self.ai("axis").unwrap_or(1);
        let r = i64::try_from(x.len()).unwrap_or(0);
        let a = if axis < 0 { axis + r } else { axis };
        let Some(a) = usize::try_from(a).ok().filter(|&a| a <= x.len()) else {
            return;
        };
        let (lo, hi) = x.split_at(a);
        self.out(0, vec![prod(lo), prod(hi)]);
    }

    fn squeeze(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let Some(axes) = self.axes(13, 1) else { return };
        let out: Vec<D> = match axes {
            Some(axes) => {
                let Some(axes) = axes
                    .iter()
                    .map(|&a| norm_axis(a, x.len()))
                    .collect::<Option<Vec<usize>>>()
                else {
                    return;
                };
                x.iter()
                    .enumerate()
                    .filter(|(i, _)| !axes.contains(i))
                    .map(|(_, &d)| d)
                    .collect()
            }
            None => {
                if x.iter().any(|d| !matches!(d, D::Val(_))) {
                    return;
                }
                x.iter().copied().filter(|&d| d != D::Val(1)).collect()
            }
        };
        self.out(0, out);
        if let Some(c) = self.cv(0) {
            self.out_const(0, c.to_vec());
        }
    }

    fn unsqueeze(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let Some(Some(axes)) = self.axes(13, 1) else {
            return;
        };
        let rank = x.len() + axes.len();
        let Some(mut axes) = axes
            .iter()
            .map(|&a| norm_axis(a, rank))
            .collect::<Option<Vec<usize>>>()
        else {
            return;
        };
        axes.sort_unstable();
        let mut it = x.iter();
        let out = (0..rank)
            .map(|i| {
                if axes.binary_search(&i).is_ok() {
                    D::Val(1)
                } else {
                    it.next().copied().unwrap_or(D::Unk)
                }
            })
            .collect();
        self.out(0, out);
        if let Some(c) = self.cv(0) {
            self.out_const(0, c.to_vec());
        }
    }

    fn transpose(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let perm: Vec<usize> = match self.ais("perm") {
            Some(p) => match p
                .iter()
                .map(|&a| usize::try_from(a).ok().filter(|&a| a < x.len()))
                .collect::<Option<Vec<usize>>>()
            {
                Some(p) => p,
                None => return,
            },
            None => (0..x.len()).rev().collect(),
        };
        if perm.len() != x.len() {
            return;
        }
        let out = perm
            .iter()
            .map(|&p| x.get(p).copied().unwrap_or(D::Unk))
            .collect();
        self.out(0, out);
    }

    fn concat(&mut self) {
        let shapes: Option<Vec<&[D]>> =
            (0..self.node.inputs.len()).map(|i| self.shape(i)).collect();
        let axis = self.ai("axis").unwrap_or(0);
        if let Some(shapes) = shapes
            && let Some(first) = shapes.first()
            && shapes.iter().all(|s| s.len() == first.len())
            && let Some(a) = norm_axis(axis, first.len())
        {
            let out = (0..first.len())
                .map(|i| {
                    let mut dims = shapes.iter().map(|s| s.get(i).copied().unwrap_or(D::Unk));
                    if i == a {
                        dims.try_fold(0i64, |acc, d| match d {
                            D::Val(v) => acc.checked_add(v),
                            _ => None,
                        })
                        .map_or(D::Unk, D::Val)
                    } else {
                        let dims: Vec<D> = dims.collect();
                        dims.iter()
                            .copied()
                            .find(|d| matches!(d, D::Val(_)))
                            .or_else(|| dims.iter().copied().find(|d| matches!(d, D::Sym(_))))
                            .unwrap_or(D::Unk)
                    }
                })
                .collect();
            self.out(0, out);
        }
        // Values of a 1-D concatenation; an input of known length whose values are
        // not known contributes unknown values (onnx's partial data propagation).
        if (0..self.node.inputs.len()).any(|i| self.cv(i).is_some()) {
            let mut values = Vec::new();
            for i in 0..self.node.inputs.len() {
                match (self.cv(i), self.shape(i)) {
                    (Some(c), _) => values.extend_from_slice(c),
                    (None, Some(&[D::Val(k)]))
                        if usize::try_from(k).is_ok_and(|k| k <= MAX_CONST) =>
                    {
                        values.extend(std::iter::repeat_n(D::Unk, usize::try_from(k).unwrap_or(0)));
                    }
                    _ => return,
                }
            }
            self.out_const(0, values);
        }
    }

    fn split(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let Some(a) = norm_axis(self.ai("axis").unwrap_or(0), x.len()) else {
            return;
        };
        let n = self.node.outputs.len();
        let sizes: Option<Vec<D>> = if self.ver < 13 {
            self.ais("split")
                .map(|s| s.into_iter().map(D::Val).collect())
        } else if self.present(1) {
            match self.ints(1) {
                Some(s) => Some(s.into_iter().map(D::Val).collect()),
                None => Some(vec![D::Unk; n]),
            }
        } else {
            None
        };
        let sizes = sizes.unwrap_or_else(|| {
            let d = x.get(a).copied().unwrap_or(D::Unk);
            match d {
                D::Val(total) if n > 0 => {
                    let n64 = i64::try_from(n).unwrap_or(1);
                    let chunk = div_ceil(total, n64).unwrap_or(0);
                    if total % n64 == 0 {
                        vec![D::Val(total / n64); n]
                    } else if self.ver >= 18 {
                        // onnx: chunks of ceil(total / n), the last one what is left.
                        let last = total - chunk * (n64 - 1);
                        let mut sizes = vec![D::Val(chunk); n - 1];
                        sizes.push(if last >= 0 { D::Val(last) } else { D::Unk });
                        sizes
                    } else {
                        vec![D::Unk; n]
                    }
                }
                _ => vec![D::Unk; n],
            }
        });
        for (k, s) in sizes.into_iter().enumerate().take(n) {
            let mut out = x.to_vec();
            if let Some(slot) = out.get_mut(a) {
                *slot = s;
            }
            self.out(k, out);
        }
    }

    fn slice(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let (starts, ends, axes, steps) = if self.ver < 10 {
            (
                self.ais("starts"),
                self.ais("ends"),
                Some(self.ais("axes")),
                Some(None),
            )
        } else {
            let opt = |i: usize| {
                if self.present(i) {
                    self.ints(i).map(Some)
                } else {
                    Some(None)
                }
            };
            (self.ints(1), self.ints(2), opt(3), opt(4))
        };
        let (Some(starts), Some(ends), Some(axes), Some(steps)) =
            (starts, ends, axes.clone(), steps)
        else {
            // Rank kept; the sliced axes, when known, lose their size.
            let mut out = x.to_vec();
            match axes.flatten() {
                Some(axes) => {
                    for a in axes {
                        if let Some(d) = norm_axis(a, x.len()).and_then(|a| out.get_mut(a)) {
                            *d = D::Unk;
                        }
                    }
                }
                None => out.iter_mut().for_each(|d| *d = D::Unk),
            }
            self.out(0, out);
            return;
        };
        let axes: Vec<i64> = axes.unwrap_or_else(|| (0..starts.len() as i64).collect());
        let steps = steps.unwrap_or_else(|| vec![1; starts.len()]);
        let mut out = x.to_vec();
        let mut ranges = Vec::new();
        for (i, &axis) in axes.iter().enumerate() {
            let (Some(&start), Some(&end), Some(&step), Some(a)) = (
                starts.get(i),
                ends.get(i),
                steps.get(i),
                norm_axis(axis, x.len()),
            ) else {
                return;
            };
            if step == 0 {
                return;
            }
            let Some(slot) = out.get_mut(a) else { return };
            *slot = match *slot {
                D::Val(dim) => {
                    let (s, e, count) = slice_range(dim, start, end, step);
                    ranges.push((a, s, e, step));
                    D::Val(count)
                }
                d if step == 1 && start == 0 && end >= i64::from(i32::MAX) => d,
                _ => D::Unk,
            };
        }
        self.out(0, out);
        if let (Some(c), [(0, s, _, step)]) = (self.cv(0), ranges.as_slice())
            && x.len() == 1
        {
            let mut values = Vec::new();
            let mut i = *s;
            let count = match self.shapes.first() {
                Some(Some(s)) => match s.first() {
                    Some(D::Val(n)) => *n,
                    _ => 0,
                },
                _ => 0,
            };
            for _ in 0..count.min(MAX_CONST as i64) {
                match usize::try_from(i).ok().and_then(|i| c.get(i)) {
                    Some(&v) => values.push(v),
                    None => return,
                }
                i = i.saturating_add(*step);
            }
            self.out_const(0, values);
        }
    }

    fn gather(&mut self) {
        let (Some(x), Some(idx)) = (self.shape(0), self.shape(1)) else {
            return;
        };
        let Some(a) = norm_axis(self.ai("axis").unwrap_or(0), x.len()) else {
            return;
        };
        let out: Vec<D> = x
            .get(..a)
            .unwrap_or(&[])
            .iter()
            .chain(idx)
            .chain(x.get(a + 1..).unwrap_or(&[]))
            .copied()
            .collect();
        self.out(0, out);
        if let (Some(c), Some(indices), 1) = (self.cv(0), self.ints(1), x.len()) {
            let n = i64::try_from(c.len()).unwrap_or(0);
            let values: Option<Vec<D>> = indices
                .iter()
                .map(|&i| {
                    let i = if i < 0 { i + n } else { i };
                    usize::try_from(i).ok().and_then(|i| c.get(i)).copied()
                })
                .collect();
            if let Some(values) = values {
                self.out_const(0, values);
            }
        }
    }

    fn expand(&mut self) {
        let Some(x) = self.shape(0) else { return };
        match self.cv(1) {
            Some(target) => match broadcast(&[x, target]) {
                Ok(s) => self.out(0, s),
                Err(p) => self.problems.push(("infer.broadcast", p)),
            },
            None => {
                if let Some(&[D::Val(k)]) = self.shape(1)
                    && let Ok(k) = usize::try_from(k)
                    && k <= MAX_CONST
                {
                    self.out(0, vec![D::Unk; k.max(x.len())]);
                }
            }
        }
    }

    fn tile(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let out = match self.ints(1) {
            Some(reps) if reps.len() == x.len() => x
                .iter()
                .zip(&reps)
                .map(|(&d, &r)| match d {
                    D::Val(v) => v.checked_mul(r).map_or(D::Unk, D::Val),
                    d if r == 1 => d,
                    _ => D::Unk,
                })
                .collect(),
            Some(_) => return,
            None => vec![D::Unk; x.len()],
        };
        self.out(0, out);
    }

    fn pad(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let n = x.len();
        let pads = if self.ver < 11 {
            self.ais("pads").or_else(|| self.ais("paddings"))
        } else {
            self.ints(1)
        };
        let axes: Option<Vec<usize>> = if self.ver >= 18 && self.present(3) {
            match self.ints(3) {
                Some(a) => a.iter().map(|&a| norm_axis(a, n)).collect(),
                None => None,
            }
        } else {
            Some((0..n).collect())
        };
        let (Some(pads), Some(axes)) = (pads, axes) else {
            self.out(0, vec![D::Unk; n]);
            return;
        };
        if pads.len() != 2 * axes.len() {
            return;
        }
        let mut out = x.to_vec();
        for (i, &a) in axes.iter().enumerate() {
            let (Some(&b), Some(&e)) = (pads.get(i), pads.get(i + axes.len())) else {
                return;
            };
            if let Some(slot) = out.get_mut(a) {
                *slot = match *slot {
                    D::Val(v) => v
                        .checked_add(b)
                        .and_then(|v| v.checked_add(e))
                        .map_or(D::Unk, D::Val),
                    d if b == 0 && e == 0 => d,
                    _ => D::Unk,
                };
            }
        }
        self.out(0, out);
    }

    /// The float values of a constant input (an initializer or a Constant node).
    fn floats(&self, i: usize) -> Option<Vec<f32>> {
        let v = self.node.inputs.get(i).copied().flatten()?;
        let model = self.e.model;
        let value = model.values.get(v)?;
        let tensor = match value.def {
            ValueDef::Node(n) => {
                let p = model.nodes.get(n)?;
                if p.op_type() != "Constant" {
                    return None;
                }
                match p.attributes.first()?.value()? {
                    AttrValue::Tensor(t) => &**t,
                    _ => return None,
                }
            }
            _ => {
                &model
                    .graphs
                    .get(value.graph)?
                    .initializers
                    .iter()
                    .find(|i| i.value == Some(v))?
                    .tensor
            }
        };
        crate::opset::edit::tensor_floats(tensor)
    }

    fn resize(&mut self, op: &str) {
        let Some(x) = self.shape(0) else { return };
        let n = x.len();
        if self.ai("axes").is_some() || self.ais("axes").is_some() {
            return;
        }
        let (scales_at, sizes_at) = match (op, self.ver) {
            ("Upsample", v) if v < 9 => (None, None),
            ("Upsample", _) | (_, 10) => (Some(1), None),
            _ => (Some(2), Some(3)),
        };
        if let Some(s) = sizes_at.filter(|&s| self.present(s))
            && let Some(sizes) = self.cv(s)
        {
            if sizes.len() == n {
                self.out(0, sizes.to_vec());
            }
            return;
        }
        let scales = match scales_at {
            Some(i) => self.floats(i),
            None => match self.attr("scales") {
                Some(AttrValue::Floats(f)) => Some(f.clone()),
                _ => None,
            },
        };
        let out = match scales {
            Some(scales) if scales.len() == n => x
                .iter()
                .zip(&scales)
                .map(|(&d, &s)| match d {
                    D::Val(v) => D::Val((v as f64 * f64::from(s)).floor() as i64),
                    d if s == 1.0 => d,
                    _ => D::Unk,
                })
                .collect(),
            Some(scales) if !scales.is_empty() => return,
            _ => vec![D::Unk; n],
        };
        self.out(0, out);
    }

    fn reduce(&mut self, op: &str) {
        let Some(x) = self.shape(0) else { return };
        let since = if op == "ReduceSum" { 13 } else { 18 };
        let keep = self.ai("keepdims").unwrap_or(1) != 0;
        let noop = self.ai("noop_with_empty_axes").unwrap_or(0) != 0;
        let axes = match self.axes(since, 1) {
            Some(a) => a.unwrap_or_default(),
            None => {
                if keep {
                    self.out(0, vec![D::Unk; x.len()]);
                }
                return;
            }
        };
        if axes.is_empty() && noop {
            self.out(0, x.to_vec());
            return;
        }
        let Some(axes) = axes
            .iter()
            .map(|&a| norm_axis(a, x.len()))
            .collect::<Option<Vec<usize>>>()
        else {
            return;
        };
        let all = axes.is_empty();
        let mut out = Vec::with_capacity(x.len());
        for (i, &d) in x.iter().enumerate() {
            if all || axes.contains(&i) {
                if keep {
                    out.push(D::Val(1));
                }
            } else {
                out.push(d);
            }
        }
        self.out(0, out);
    }

    fn argmax(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let Some(a) = norm_axis(self.ai("axis").unwrap_or(0), x.len()) else {
            return;
        };
        let keep = self.ai("keepdims").unwrap_or(1) != 0;
        let mut out = x.to_vec();
        if keep {
            if let Some(slot) = out.get_mut(a) {
                *slot = D::Val(1);
            }
        } else {
            out.remove(a);
        }
        self.out(0, out);
    }

    fn shape_op(&mut self) {
        let Some(x) = self.shape(0) else {
            self.out(0, vec![D::Unk]);
            return;
        };
        let r = i64::try_from(x.len()).unwrap_or(0);
        let clamp = |v: i64| (if v < 0 { v + r } else { v }).clamp(0, r);
        let start = clamp(self.ai("start").unwrap_or(0));
        let end = clamp(self.ai("end").unwrap_or(r));
        let (s, e) = (
            usize::try_from(start).unwrap_or(0),
            usize::try_from(end).unwrap_or(0),
        );
        let dims = x.get(s..e.max(s)).unwrap_or(&[]);
        self.out(0, vec![D::Val(i64::try_from(dims.len()).unwrap_or(0))]);
        self.out_const(0, dims.to_vec());
    }

    fn constant(&mut self) {
        let Some(a) = self.node.attributes.first() else {
            return;
        };
        let Some(v) = self.attr(a.name()) else { return };
        match v {
            AttrValue::Tensor(t) => {
                self.out(0, t.dims.iter().map(|&d| D::Val(d)).collect());
                if let Some(c) = tensor_consts(t) {
                    self.out_const(0, c);
                }
            }
            AttrValue::SparseTensor(t) => self.out(0, t.dims.iter().map(|&d| D::Val(d)).collect()),
            AttrValue::Float(_) | AttrValue::String(_) => self.out(0, Vec::new()),
            AttrValue::Int(i) => {
                self.out(0, Vec::new());
                self.out_const(0, vec![D::Val(*i)]);
            }
            AttrValue::Floats(f) => self.out(0, vec![D::Val(f.len() as i64)]),
            AttrValue::Strings(f) => self.out(0, vec![D::Val(f.len() as i64)]),
            AttrValue::Ints(i) => {
                self.out(0, vec![D::Val(i.len() as i64)]);
                self.out_const(0, i.iter().map(|&v| D::Val(v)).collect());
            }
            _ => {}
        }
    }

    fn constant_of_shape(&mut self) {
        match self.cv(0) {
            Some(dims) => {
                let dims = dims.to_vec();
                if let (D::Val(n), Some(AttrValue::Tensor(t))) = (prod(&dims), self.attr("value"))
                    && let Some(c) = tensor_consts(t)
                    && let (Some(&v), Ok(n)) = (c.first(), usize::try_from(n))
                    && n <= MAX_CONST
                {
                    self.out_const(0, vec![v; n]);
                }
                self.out(0, dims);
            }
            None => {
                if let Some(&[D::Val(k)]) = self.shape(0)
                    && let Ok(k) = usize::try_from(k)
                    && k <= MAX_CONST
                {
                    self.out(0, vec![D::Unk; k]);
                }
            }
        }
    }

    fn range(&mut self) {
        let scalar = |i: usize| match self.ints(i).as_deref() {
            Some(&[v]) => Some(v),
            _ => None,
        };
        match (scalar(0), scalar(1), scalar(2)) {
            (Some(start), Some(limit), Some(delta)) if delta != 0 => {
                let Some(n) = limit
                    .checked_sub(start)
                    .and_then(|d| div_ceil(d, delta))
                    .map(|n| n.max(0))
                else {
                    self.out(0, vec![D::Unk]);
                    return;
                };
                self.out(0, vec![D::Val(n)]);
                if usize::try_from(n).is_ok_and(|n| n <= MAX_CONST) {
                    self.out_const(
                        0,
                        (0..n)
                            .map(|i| {
                                i.checked_mul(delta)
                                    .and_then(|o| o.checked_add(start))
                                    .map_or(D::Unk, D::Val)
                            })
                            .collect(),
                    );
                }
            }
            _ => {
                let f = |i: usize| match self.floats(i).as_deref() {
                    Some(&[v]) => Some(f64::from(v)),
                    _ => None,
                };
                match (f(0), f(1), f(2)) {
                    (Some(s), Some(l), Some(d)) if d != 0.0 => {
                        let n = ((l - s) / d).ceil().max(0.0) as i64;
                        self.out(0, vec![D::Val(n)]);
                    }
                    _ => self.out(0, vec![D::Unk]),
                }
            }
        }
    }

    fn topk(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let Some(a) = norm_axis(self.ai("axis").unwrap_or(-1), x.len()) else {
            return;
        };
        let k = if self.ver < 10 {
            self.ai("k")
        } else {
            self.ints(1).and_then(|k| k.first().copied())
        };
        let mut out = x.to_vec();
        if let Some(slot) = out.get_mut(a) {
            *slot = k.map_or(D::Unk, D::Val);
        }
        self.out(0, out.clone());
        self.out(1, out);
    }

    /// The element type and shape of a sequence input (symbols the model never
    /// mentions elsewhere are unknown).
    fn seq_element(&self, i: usize) -> Option<(i32, Option<Vec<D>>)> {
        let Some(Ty::Other(t)) = self.ins.get(i).copied().flatten() else {
            return None;
        };
        let Some(TypeValue::Sequence(Some(inner))) = &t.value else {
            return None;
        };
        let Some(TypeValue::Tensor(tt)) = &inner.value else {
            return None;
        };
        let shape = tt.shape.as_ref().map(|s| {
            s.dims
                .iter()
                .map(|d| match &d.value {
                    Some(DimValue::Value(v)) => D::Val(*v),
                    Some(DimValue::Param(p)) => {
                        self.e.sym_ids.get(p).map_or(D::Unk, |&s| D::Sym(s))
                    }
                    None => D::Unk,
                })
                .collect()
        });
        Some((tt.elem_type.unwrap_or(0), shape))
    }

    /// `seq(tensor(elem, shape))` as an IR type.
    fn seq_type(&self, elem: i32, shape: Option<&[D]>) -> Ty {
        let dims = |s: &[D]| Shape {
            dims: s
                .iter()
                .map(|&d| Dim {
                    value: match d {
                        D::Val(v) => Some(DimValue::Value(v)),
                        D::Sym(i) => self
                            .e
                            .symbols
                            .get(i as usize)
                            .map(|n| DimValue::Param(n.clone())),
                        D::Unk => None,
                    },
                    denotation: None,
                })
                .collect(),
        };
        let inner = Type {
            value: Some(TypeValue::Tensor(TensorType {
                elem_type: (elem != 0).then_some(elem),
                shape: shape.map(dims),
            })),
            denotation: None,
        };
        Ty::Other(Type {
            value: Some(TypeValue::Sequence(Some(Box::new(inner)))),
            denotation: None,
        })
    }

    fn sequence(&mut self, op: &str) {
        match op {
            "SequenceAt" => {
                if let Some((_, Some(s))) = self.seq_element(0) {
                    self.out(0, s);
                }
            }
            "SequenceConstruct" => {
                let mut merged: Option<(i32, Option<Vec<D>>)> = None;
                for i in 0..self.node.inputs.len() {
                    let Some(t) = self.ins.get(i).copied().flatten() else {
                        return;
                    };
                    let shape = t.shape().map(<[D]>::to_vec);
                    merged = Some(match merged {
                        None => (t.elem(), shape),
                        Some((e, s)) => (if e == t.elem() { e } else { 0 }, merge_shapes(s, shape)),
                    });
                }
                if let Some((elem, shape)) = merged
                    && elem != 0
                {
                    let t = self.seq_type(elem, shape.as_deref());
                    self.retyped.push((0, t));
                }
            }
            "SequenceInsert" => {
                let (Some((elem, s)), Some(t)) =
                    (self.seq_element(0), self.ins.get(1).copied().flatten())
                else {
                    return;
                };
                let shape = merge_shapes(s, t.shape().map(<[D]>::to_vec));
                let t = self.seq_type(elem, shape.as_deref());
                self.retyped.push((0, t));
            }
            _ => {
                // SplitToSequence: without `split`, pieces of size 1 along the axis.
                let Some(x) = self.shape(0) else { return };
                let elem = self.ins.first().copied().flatten().map_or(0, Ty::elem);
                let Some(a) = norm_axis(self.ai("axis").unwrap_or(0), x.len()) else {
                    return;
                };
                let mut shape = x.to_vec();
                if self.present(1) {
                    if let Some(d) = shape.get_mut(a) {
                        *d = D::Unk;
                    }
                } else if self.ai("keepdims").unwrap_or(1) != 0 {
                    if let Some(d) = shape.get_mut(a) {
                        *d = D::Val(1);
                    }
                } else {
                    shape.remove(a);
                }
                if elem != 0 {
                    let t = self.seq_type(elem, Some(&shape));
                    self.retyped.push((0, t));
                }
            }
        }
    }

    fn dft(&mut self) {
        let Some(x) = self.shape(0) else { return };
        let axis = if self.ver < 20 {
            Some(self.ai("axis").unwrap_or(1))
        } else if self.present(2) {
            self.ints(2).and_then(|a| a.first().copied())
        } else {
            Some(-2)
        };
        let mut out = x.to_vec();
        if let Some(last) = out.last_mut() {
            *last = D::Val(2);
        }
        let Some(a) = axis.and_then(|a| norm_axis(a, x.len())) else {
            self.out(0, vec![D::Unk; x.len()]);
            return;
        };
        let length = if self.present(1) {
            match self.ints(1).as_deref() {
                Some(&[n]) => D::Val(n),
                _ => D::Unk,
            }
        } else {
            x.get(a).copied().unwrap_or(D::Unk)
        };
        let onesided = self.ai("onesided").unwrap_or(0) != 0;
        if let Some(slot) = out.get_mut(a) {
            *slot = match length {
                D::Val(n) if onesided => D::Val(n / 2 + 1),
                _ if onesided => D::Unk,
                d => d,
            };
        }
        self.out(0, out);
    }

    fn depth_space(&mut self, op: &str) {
        let Some(&[n, c, h, w]) = self.shape(0) else {
            return;
        };
        let Some(b) = self.ai("blocksize").filter(|&b| b > 0) else {
            return;
        };
        let f = |d: D, mul: bool| match d {
            D::Val(v) if mul => v.checked_mul(b).map_or(D::Unk, D::Val),
            D::Val(v) if v % b == 0 => D::Val(v / b),
            _ => D::Unk,
        };
        let out = if op == "DepthToSpace" {
            let c = match c {
                D::Val(v) if b.checked_mul(b).is_some_and(|bb| v % bb == 0) => D::Val(v / (b * b)),
                _ => D::Unk,
            };
            vec![n, c, f(h, true), f(w, true)]
        } else {
            let c = match c {
                D::Val(v) => v
                    .checked_mul(b)
                    .and_then(|v| v.checked_mul(b))
                    .map_or(D::Unk, D::Val),
                _ => D::Unk,
            };
            vec![n, c, f(h, false), f(w, false)]
        };
        self.out(0, out);
    }

    fn rnn(&mut self) {
        let (a, b) = match self.shape(0) {
            Some(&[a, b, _]) => (a, b),
            _ => (D::Unk, D::Unk),
        };
        let dirs = D::Val(if self.astr("direction") == Some("bidirectional") {
            2
        } else {
            1
        });
        let hidden = self.ai("hidden_size").map_or(D::Unk, D::Val);
        let batch_first = self.ai("layout").unwrap_or(0) != 0;
        let (seq, batch) = if batch_first { (b, a) } else { (a, b) };
        if batch_first {
            self.out(0, vec![batch, seq, dirs, hidden]);
            self.out(1, vec![batch, dirs, hidden]);
            self.out(2, vec![batch, dirs, hidden]);
        } else {
            self.out(0, vec![seq, dirs, batch, hidden]);
            self.out(1, vec![dirs, batch, hidden]);
            self.out(2, vec![dirs, batch, hidden]);
        }
    }
}

/// What two shapes agree on: the dimensions they share, unknown elsewhere.
fn merge_shapes(a: Option<Vec<D>>, b: Option<Vec<D>>) -> Option<Vec<D>> {
    let (a, b) = (a?, b?);
    (a.len() == b.len()).then(|| {
        a.iter()
            .zip(&b)
            .map(|(&x, &y)| if x == y { x } else { D::Unk })
            .collect()
    })
}

/// Start, end and element count of a slice of a dimension of size `dim` (numpy rules).
fn slice_range(dim: i64, start: i64, end: i64, step: i64) -> (i64, i64, i64) {
    let dim = dim.max(0);
    let norm = |v: i64| if v < 0 { v.saturating_add(dim) } else { v };
    let (s, e) = if step > 0 {
        (norm(start).clamp(0, dim), norm(end).clamp(0, dim))
    } else {
        (norm(start).clamp(-1, dim - 1), norm(end).clamp(-1, dim - 1))
    };
    let count = if step > 0 {
        div_ceil(e - s, step).unwrap_or(0).max(0)
    } else {
        step.checked_neg()
            .and_then(|n| div_ceil(s - e, n))
            .unwrap_or(0)
            .max(0)
    };
    (s, e, count)
}
