//! What kind of op a node is, for its colour on the canvas (and its legend): the
//! convolutions and linear maps, activations, normalizations, pooling, shape and
//! indexing, arithmetic, control flow, function calls and quantization. Readers of
//! Netron's drawing use its colours to find these at a glance; Graft's palette is
//! Okabe and Ito's, which stays apart for the common kinds of colour blindness.

use crate::ir::normalize_domain;

/// The kinds a node's colour tells apart. An op of none of them (a `Constant`, an
/// op of an unknown domain) keeps the plain box.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Linear,
    Activation,
    Normalization,
    Pooling,
    Shape,
    Arithmetic,
    ControlFlow,
    Call,
    Quantization,
}

impl OpKind {
    /// Every kind, in the legend's order.
    pub const ALL: [OpKind; 9] = [
        OpKind::Linear,
        OpKind::Activation,
        OpKind::Normalization,
        OpKind::Pooling,
        OpKind::Shape,
        OpKind::Arithmetic,
        OpKind::ControlFlow,
        OpKind::Call,
        OpKind::Quantization,
    ];

    /// Its class on a node's element (`g-k-linear`…); a call's is `g-call`, which the
    /// drawing has always had.
    pub fn class(self) -> &'static str {
        match self {
            OpKind::Linear => "g-k-linear",
            OpKind::Activation => "g-k-activation",
            OpKind::Normalization => "g-k-norm",
            OpKind::Pooling => "g-k-pool",
            OpKind::Shape => "g-k-shape",
            OpKind::Arithmetic => "g-k-arith",
            OpKind::ControlFlow => "g-k-control",
            OpKind::Call => "g-call",
            OpKind::Quantization => "g-k-quant",
        }
    }

    /// What the legend and the properties call it.
    pub fn label(self) -> &'static str {
        match self {
            OpKind::Linear => "convolution and linear",
            OpKind::Activation => "activation",
            OpKind::Normalization => "normalization",
            OpKind::Pooling => "pooling",
            OpKind::Shape => "shape and indexing",
            OpKind::Arithmetic => "arithmetic",
            OpKind::ControlFlow => "control flow",
            OpKind::Call => "function call",
            OpKind::Quantization => "quantization",
        }
    }
}

/// The kind of op `op_type` of `domain` is (`""`, `ai.onnx`, `ai.onnx.ml`,
/// `com.microsoft`), if it is one of [`OpKind`]'s; a call of a local function is
/// [`OpKind::Call`] whatever its name, which the caller knows.
pub fn op_kind(domain: &str, op_type: &str) -> Option<OpKind> {
    let domain = normalize_domain(domain);
    if !matches!(domain, "" | "ai.onnx" | "com.microsoft" | "ai.onnx.ml") {
        return None;
    }
    let kind = match op_type {
        "QuantizeLinear"
        | "DequantizeLinear"
        | "DynamicQuantizeLinear"
        | "QLinearConv"
        | "QLinearMatMul"
        | "ConvInteger"
        | "MatMulInteger"
        | "QLinearAdd"
        | "QLinearMul"
        | "QLinearSigmoid"
        | "QLinearLeakyRelu"
        | "QLinearConcat"
        | "QLinearAveragePool"
        | "QLinearGlobalAveragePool"
        | "QLinearSoftmax"
        | "DynamicQuantizeMatMul"
        | "MatMulNBits"
        | "QAttention"
        | "QGemm"
        | "MatMulIntegerToFloat" => OpKind::Quantization,
        "Conv"
        | "ConvTranspose"
        | "DeformConv"
        | "MatMul"
        | "Gemm"
        | "Einsum"
        | "FusedConv"
        | "FusedMatMul"
        | "FusedGemm"
        | "Attention"
        | "MultiHeadAttention"
        | "GroupQueryAttention"
        | "LinearRegressor"
        | "LinearClassifier" => OpKind::Linear,
        "Relu" | "LeakyRelu" | "PRelu" | "Sigmoid" | "Tanh" | "Softmax" | "LogSoftmax"
        | "Hardmax" | "Elu" | "Selu" | "Celu" | "Gelu" | "HardSigmoid" | "HardSwish"
        | "Softplus" | "Softsign" | "Mish" | "ThresholdedRelu" | "Swish" | "Clip" | "FastGelu"
        | "BiasGelu" | "QuickGelu" => OpKind::Activation,
        "BatchNormalization"
        | "LayerNormalization"
        | "InstanceNormalization"
        | "GroupNormalization"
        | "LpNormalization"
        | "MeanVarianceNormalization"
        | "RMSNormalization"
        | "LRN"
        | "SkipLayerNormalization"
        | "SimplifiedLayerNormalization"
        | "SkipSimplifiedLayerNormalization"
        | "EmbedLayerNormalization"
        | "Normalizer" => OpKind::Normalization,
        "MaxPool" | "AveragePool" | "GlobalAveragePool" | "GlobalMaxPool" | "LpPool"
        | "GlobalLpPool" | "MaxRoiPool" | "RoiAlign" | "MaxUnpool" => OpKind::Pooling,
        "Reshape" | "Transpose" | "Squeeze" | "Unsqueeze" | "Flatten" | "Concat" | "Split"
        | "Slice" | "Gather" | "GatherElements" | "GatherND" | "Scatter" | "ScatterElements"
        | "ScatterND" | "Shape" | "Size" | "Expand" | "Tile" | "Pad" | "Resize" | "Upsample"
        | "DepthToSpace" | "SpaceToDepth" | "Identity" | "Cast" | "CastLike" | "Range"
        | "ConstantOfShape" | "NonZero" | "OneHot" | "Trilu" | "ReverseSequence" | "Compress"
        | "TopK" | "Unique" | "CenterCropPad" | "Col2Im" | "SplitToSequence"
        | "ConcatFromSequence" | "SequenceAt" | "SequenceConstruct" | "SequenceEmpty"
        | "SequenceErase" | "SequenceInsert" | "SequenceLength" | "GridSample" | "AffineGrid" => {
            OpKind::Shape
        }
        "Add" | "Sub" | "Mul" | "Div" | "Pow" | "Sqrt" | "Exp" | "Log" | "Abs" | "Neg"
        | "Reciprocal" | "Floor" | "Ceil" | "Round" | "Sign" | "Min" | "Max" | "Mean" | "Sum"
        | "Mod" | "Erf" | "Sin" | "Cos" | "Tan" | "Asin" | "Acos" | "Atan" | "Sinh" | "Cosh"
        | "Asinh" | "Acosh" | "Atanh" | "ReduceSum" | "ReduceMean" | "ReduceMax" | "ReduceMin"
        | "ReduceProd" | "ReduceL1" | "ReduceL2" | "ReduceLogSum" | "ReduceLogSumExp"
        | "ReduceSumSquare" | "ArgMax" | "ArgMin" | "CumSum" | "Equal" | "Greater" | "Less"
        | "GreaterOrEqual" | "LessOrEqual" | "And" | "Or" | "Xor" | "Not" | "BitShift"
        | "BitwiseAnd" | "BitwiseOr" | "BitwiseXor" | "BitwiseNot" | "IsNaN" | "IsInf"
        | "Where" | "Det" | "BiasAdd" => OpKind::Arithmetic,
        "If" | "Loop" | "Scan" | "SequenceMap" => OpKind::ControlFlow,
        _ => return None,
    };
    Some(kind)
}
