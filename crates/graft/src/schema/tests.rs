use super::parse::{ParseError, parse};
use super::*;

/// The registry against aggregates of onnx 1.23.2 itself, measured with
/// `onnx.defs.get_all_schemas_with_history()` in target/venv:
/// `Counter(s.domain for s in schemas)`, and for the distinct ops the same over
/// `onnx.defs.get_all_schemas()`.
const SCHEMAS_PER_DOMAIN: [(&str, usize, usize); 4] = [
    // (domain, schemas incl. every version, distinct ops)
    ("", 629, 203),
    ("ai.onnx.ml", 25, 19),
    ("ai.onnx.preview", 1, 1),
    ("ai.onnx.preview.training", 4, 4),
];

/// Parsing the embedded file (900 KB, 659 schemas) natively takes about 7 ms in a
/// release build and 30 ms in a debug build (best of 30 runs on the project's 2-core
/// box while other builds kept it busy, load ≈ 5); `cargo test -p graft --release
/// schema::tests::counts -- --nocapture` prints it. About a quarter of it is splitting
/// lines and fields, a fifth the allocator.
#[test]
fn counts_per_domain_match_onnx() {
    let started = std::time::Instant::now();
    let parsed = parse(SCHEMAS);
    eprintln!("parsing the schema registry took {:?}", started.elapsed());
    let parsed = parsed.unwrap();
    assert_eq!(parsed.onnx_version, "1.23.2");
    assert_eq!(parsed.schemas.len(), 659);

    assert_eq!(
        domains().collect::<Vec<_>>(),
        [
            "",
            "ai.onnx.ml",
            "ai.onnx.preview",
            "ai.onnx.preview.training"
        ]
    );
    for (domain, schemas, distinct) in SCHEMAS_PER_DOMAIN {
        assert_eq!(ops(domain).count(), distinct, "{domain:?}");
        let total: usize = ops(domain).map(|op| history(domain, op).len()).sum();
        assert_eq!(total, schemas, "{domain:?}");
    }
    assert_eq!(all().len(), 659);
    assert_eq!(onnx_version(), "1.23.2");
    // `onnx_cpp2py_export.defs.schema_version_map()`.
    assert_eq!(opset_range(""), Some((1, 28)));
    assert_eq!(opset_range("ai.onnx"), Some((1, 28)));
    assert_eq!(opset_range("ai.onnx.ml"), Some((1, 5)));
    assert_eq!(opset_range("ai.onnx.training"), Some((1, 1)));
    assert_eq!(opset_range("com.example"), None);
}

/// Totals over every schema, from the same Python session: they cover each record
/// kind and the expansion of `\=` (the character counts of the texts).
#[test]
fn totals_match_onnx() {
    let all = all();
    let sum = |f: &dyn Fn(&OpSchema) -> usize| all.iter().map(f).sum::<usize>();
    let chars = |s: &String| s.chars().count();
    let params = |s: &OpSchema| {
        s.inputs
            .iter()
            .chain(&s.outputs)
            .cloned()
            .collect::<Vec<_>>()
    };

    assert_eq!(sum(&|s| s.inputs.len()), 1188);
    assert_eq!(sum(&|s| s.outputs.len()), 741);
    assert_eq!(sum(&|s| s.attributes.len()), 1355);
    assert_eq!(sum(&|s| s.type_constraints.len()), 949);
    let allowed: Vec<&String> = all
        .iter()
        .flat_map(|s| &s.type_constraints)
        .flat_map(|t| &t.allowed)
        .collect();
    assert_eq!(allowed.len(), 8898);
    assert_eq!(allowed.iter().map(|a| chars(a)).sum::<usize>(), 143_164);
    assert_eq!(sum(&|s| chars(&s.doc)), 546_546);
    let param_desc = |s: &OpSchema| params(s).iter().map(|p| chars(&p.description)).sum();
    assert_eq!(sum(&param_desc), 191_368);
    assert_eq!(
        sum(&|s| s.attributes.iter().map(|a| chars(&a.description)).sum()),
        211_958
    );
    assert_eq!(
        sum(&|s| s
            .type_constraints
            .iter()
            .map(|t| chars(&t.description))
            .sum()),
        47_196
    );
    let defaults = |s: &OpSchema| s.attributes.iter().filter(|a| a.default.is_some()).count();
    assert_eq!(sum(&defaults), 637);
    assert_eq!(
        sum(&|s| s.attributes.iter().filter(|a| a.required).count()),
        139
    );
    assert!(
        all.iter()
            .flat_map(|s| &s.attributes)
            .all(|a| a.default_proto.is_none())
    );
    let option = |o: ParamOption| sum(&|s| params(s).iter().filter(|p| p.option == o).count());
    assert_eq!(option(ParamOption::Variadic), 86);
    assert_eq!(option(ParamOption::Optional), 290);
    assert_eq!(sum(&|s| usize::from(s.has_function)), 42);
    assert_eq!(sum(&|s| s.function_bodies.len()), 43);
    let body_bytes = |s: &OpSchema| s.function_bodies.iter().map(|b| b.bytes.len()).sum();
    assert_eq!(sum(&body_bytes), 35_901);
    assert_eq!(sum(&|s| usize::from(s.has_context_dependent_function)), 34);
    assert_eq!(sum(&|s| usize::from(s.deprecated)), 5);
    let experimental = |s: &OpSchema| usize::from(s.support_level == SupportLevel::Experimental);
    assert_eq!(sum(&experimental), 2);
}

#[test]
fn squeeze_axes_moved_from_attribute_to_input() {
    let v12 = lookup("", "Squeeze", 12).unwrap();
    assert_eq!(v12.since_version, 11);
    assert_eq!(v12.attribute("axes").map(|a| a.ty), Some(AttrType::Ints));
    assert!(v12.input("axes").is_none());

    let v13 = lookup("", "Squeeze", 13).unwrap();
    assert_eq!(v13.since_version, 13);
    assert!(v13.attributes.is_empty());
    let axes = v13.input("axes").unwrap();
    assert_eq!(axes.option, ParamOption::Optional);
    assert_eq!(axes.type_str, "tensor(int64)");
    assert_eq!((v13.min_inputs, v13.max_inputs), (1, 2));
}

#[test]
fn clip_versions() {
    let versions: Vec<i64> = history("", "Clip")
        .iter()
        .map(|s| s.since_version)
        .collect();
    assert_eq!(versions, [1, 6, 11, 12, 13]);

    let v6 = lookup("", "Clip", 10).unwrap();
    assert_eq!(v6.since_version, 6);
    assert_eq!(v6.inputs.len(), 1);
    // Defaults are the float32 extremes, written as the shortest decimal.
    let min = v6.attribute("min").unwrap();
    assert_eq!(min.default, Some(AttrValue::Float(f32::MIN)));
    assert!(!min.required);
    let max = v6.attribute("max").unwrap();
    assert_eq!(max.default, Some(AttrValue::Float(f32::MAX)));

    let v11 = lookup("", "Clip", 11).unwrap();
    assert!(v11.attributes.is_empty());
    let names: Vec<&str> = v11.inputs.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["input", "min", "max"]);
    assert_eq!(v11.inputs[1].option, ParamOption::Optional);
    assert_eq!(v11.type_constraint("T").unwrap().allowed.len(), 3);

    let v13 = lookup("", "Clip", 13).unwrap();
    let t = &v13.type_constraint("T").unwrap().allowed;
    assert_eq!(t.len(), 12);
    assert!(t.iter().any(|a| a == "tensor(bfloat16)"));
    // Texts repeated from version 12 with `\=` come back whole.
    let v12 = lookup("", "Clip", 12).unwrap();
    assert_eq!(v13.inputs[0].description, v12.inputs[0].description);
    assert!(!v13.inputs[0].description.is_empty());
}

#[test]
fn functions() {
    let softplus = lookup("", "Softplus", 22).unwrap();
    assert!(softplus.has_function);
    assert!(!softplus.has_context_dependent_function);
    assert_eq!(softplus.function_bodies.len(), 1);
    // A FunctionProto: field 1 (name, length-delimited) "Softplus".
    let body = softplus.function_body_bytes().unwrap();
    assert_eq!(&body[..10], b"\x0a\x08Softplus");
    assert!(softplus.function_body_for_opset(17).is_none());
    assert_eq!(
        softplus.function_body_for_opset(22).unwrap().opset_version,
        18
    );

    // Two bodies; onnx's `function_body` is the later one.
    let mvn = lookup("", "MeanVarianceNormalization", 13).unwrap();
    let opsets: Vec<i64> = mvn
        .function_bodies
        .iter()
        .map(|b| b.opset_version)
        .collect();
    assert_eq!(opsets, [13, 18]);
    assert_eq!(mvn.function_body_for_opset(17).unwrap().opset_version, 13);
    assert_eq!(
        mvn.function_body_bytes(),
        mvn.function_body_for_opset(18).map(|b| b.bytes.as_slice())
    );

    let gelu = lookup("", "Gelu", 20).unwrap();
    assert!(!gelu.has_function);
    assert!(gelu.has_context_dependent_function);
    assert_eq!(gelu.context_dependent_function_opsets, [20]);
    assert_eq!(gelu.function_body_bytes(), None);
    assert_eq!(
        gelu.attribute("approximate").unwrap().default,
        Some(AttrValue::String(bytes::Bytes::from_static(b"none")))
    );
}

#[test]
fn lookup_rules() {
    assert_eq!(lookup("ai.onnx", "Relu", 14), lookup("", "Relu", 14));
    assert_eq!(lookup("", "Relu", 14).unwrap().since_version, 14);
    assert_eq!(history("ai.onnx", "Relu"), history("", "Relu"));
    // Absent below its first version; the latest above the last one onnx knows.
    assert_eq!(lookup("", "Gelu", 19), None);
    assert_eq!(lookup("", "Gelu", 20).unwrap().since_version, 20);
    assert_eq!(lookup("", "Gelu", 1000).unwrap().since_version, 20);
    assert_eq!(lookup("", "Relu", 0), None);
    assert_eq!(lookup("", "NoSuchOp", 20), None);
    assert_eq!(lookup("com.example", "Relu", 20), None);
    assert!(history("", "NoSuchOp").is_empty());
    assert_eq!(ops("com.example").count(), 0);
    // Deprecated schemas are in force where onnx says so, flagged.
    let upsample = lookup("", "Upsample", 10).unwrap();
    assert!(upsample.deprecated);
    assert!(!lookup("", "Upsample", 9).unwrap().deprecated);
}

#[test]
fn attributes() {
    let cast = lookup("", "Cast", 21).unwrap();
    let to = cast.attribute("to").unwrap();
    assert!(to.required);
    assert_eq!(to.ty, AttrType::Int);
    assert_eq!(to.default, None);

    let leaky = lookup("", "LeakyRelu", 16).unwrap();
    let alpha = leaky.attribute("alpha").unwrap();
    assert_eq!(alpha.default, Some(AttrValue::Float(0.01)));
    assert!(!alpha.required);
    assert!(!alpha.description.is_empty());

    // Attributes are sorted by name, which `attribute` relies on.
    for s in all() {
        assert!(s.attributes.windows(2).all(|w| w[0].name < w[1].name));
    }
}

#[test]
fn other_domains() {
    let linear = lookup("ai.onnx.ml", "LinearClassifier", 5).unwrap();
    assert_eq!(linear.since_version, 1);
    assert_eq!(linear.domain, "ai.onnx.ml");
    let post = linear.attribute("post_transform").unwrap();
    assert_eq!(
        post.default,
        Some(AttrValue::String(bytes::Bytes::from_static(b"NONE")))
    );
    assert_eq!(
        linear.output("Y").unwrap().type_str,
        "T2",
        "outputs keep their declared names and types"
    );

    let adagrad = lookup("ai.onnx.preview.training", "Adagrad", 1).unwrap();
    assert_eq!(adagrad.inputs[0].option, ParamOption::Single);
    assert_eq!(adagrad.max_inputs, UNBOUNDED);
    assert_eq!(adagrad.inputs.last().unwrap().option, ParamOption::Variadic);
    assert_eq!(adagrad.support_level, SupportLevel::Common);
}

#[test]
fn parser_rejects_what_the_format_does_not_allow() {
    let header = "S\t\tOp\t1\t0\tcommon\tyes\t1\t1\t1\t1\n";
    let line_of = |text: &str| parse(text).err().map(|e: ParseError| e.line);
    assert!(parse(header).is_ok());
    // Too few, too many fields; a record outside a schema; bad values.
    assert_eq!(line_of("S\t\tOp\t1\n"), Some(1));
    assert_eq!(line_of(&format!("{header}D\tdoc\textra\n")), Some(2));
    assert_eq!(line_of("D\tdoc\n"), Some(1));
    assert_eq!(line_of(&header.replace("common", "rare")), Some(1));
    assert_eq!(line_of(&format!("{header}F\t1\tabc\n")), Some(2));
    assert_eq!(line_of(&format!("{header}F\t1\tzz\n")), Some(2));
    assert_eq!(line_of(&format!("{header}D\tbad \\q escape\n")), Some(2));
    // `\=` needs a previous version of the same op.
    assert_eq!(line_of(&format!("{header}D\t\\=\n")), Some(2));
    let other_op = header.replace("Op", "Other");
    assert_eq!(
        line_of(&format!("{header}D\tx\n{other_op}D\t\\=\n")),
        Some(4)
    );
    assert_eq!(
        line_of(&format!("{header}A\tb\tint\t0\t\t-\nA\ta\tint\t0\t\t-\n")),
        Some(3)
    );
    // Schemas come sorted by (domain, name, since_version), each once.
    assert_eq!(line_of(&format!("{header}{header}")), Some(2));
    assert_eq!(line_of(&format!("{other_op}{header}")), Some(2));
    assert!(
        parse(&format!(
            "{header}{}",
            header.replace("\t1\t0\t", "\t2\t0\t")
        ))
        .is_ok()
    );
}

#[test]
fn parser_expands_escapes_and_repeats() {
    let text = "# comment\n\
        onnx\t9.9\n\
        S\tdom\tOp\t1\t0\tcommon\tunknown\t1\t1\t1\t1\n\
        D\ta\\tb\\nc\\\\d\\re\n\
        I\tx\tT\tvariadic\t0\t2\tno\tfirst\n\
        T\tT\tty\ttensor(float)\ttensor(int64)\n\
        A\tlist\tstrings\t0\td\tstrings\ta,b\t\\t\n\
        S\tdom\tOp\t2\t1\texperimental\tno\t1\t1\t1\t1\n\
        D\t\\=\n\
        I\tx\tT\tsingle\t1\t1\tyes\t\\=\n\
        T\tT\t\\=\t\\=\n\
        A\tlist\tstrings\t1\t\\=\t-\n\
        F\t3\t0aff\n\
        C\t4\n";
    let parsed = parse(text).unwrap();
    assert_eq!(parsed.onnx_version, "9.9");
    let [first, second] = parsed.schemas.as_slice() else {
        panic!("two schemas expected");
    };
    assert_eq!(first.doc, "a\tb\nc\\d\re");
    assert_eq!(second.doc, first.doc);
    assert_eq!(first.determinism, Determinism::Unknown);
    assert_eq!(second.determinism, Determinism::NonDeterministic);
    assert!(second.deprecated);
    assert_eq!(first.inputs[0].min_arity, 2);
    assert!(!first.inputs[0].homogeneous);
    assert_eq!(second.inputs[0].description, "first");
    assert_eq!(
        second.inputs[0].differentiation,
        Differentiation::Differentiable
    );
    assert_eq!(second.type_constraints, first.type_constraints);
    let strings = AttrValue::Strings(vec!["a,b".into(), "\t".into()]);
    assert_eq!(first.attributes[0].default, Some(strings));
    assert_eq!(second.attributes[0].description, "d");
    assert_eq!(second.attributes[0].default, None);
    assert_eq!(second.function_body_bytes(), Some(&[0x0a, 0xff][..]));
    assert_eq!(second.context_dependent_function_opsets, [4]);
}
