//! `graft::builder`: calls checked against the schema, failed calls leave the builder
//! unchanged, scopes, bodies, functions, and what `build` produces. Numbers against
//! spox: `tests/interop/spox_side_by_side.py`.

use graft::builder::{
    Body, BuildError, Builder, Signature, opset18, opset21, tensor_f32, tensor_i64,
};
use graft::ir::{AttrValue, Model};

fn text(model: &Model) -> String {
    graft::text::print_model(model)
}

fn no_errors(model: &Model) {
    let errors: Vec<_> = graft::check::check(model)
        .into_iter()
        .filter(|d| d.severity == graft::Severity::Error)
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
}

#[test]
fn failed_calls_leave_the_builder_unchanged() {
    let make = |with_failures: bool| -> Result<Model, BuildError> {
        let b = Builder::new();
        let ops = opset18::Ops::new(&b);
        let x = b.input("x", "float[N, 3]")?;
        let i = b.input("i", "int64[3]")?;
        if with_failures {
            // Element types that break a type constraint.
            let e = ops.add(&x, &i).unwrap_err().to_string();
            assert!(
                e.contains("Add (opset 18)") && e.contains("share type T"),
                "{e}"
            );
            let e = ops.sqrt(&i).unwrap_err().to_string();
            assert!(e.contains("input X is tensor(int64), but T allows"), "{e}");
            // An attribute the schema does not declare, a missing required one.
            let e = ops.relu(&x).map(|_| ()).and_then(|_| {
                b.op("", "Relu", 18, &[Some(&x)])
                    .attr("alpha", AttrValue::Float(1.0))
                    .out()
                    .map(|_| ())
            });
            assert!(
                e.unwrap_err()
                    .to_string()
                    .contains("has no attribute \"alpha\"")
            );
            let e = b
                .op("", "Cast", 18, &[Some(&x)])
                .out()
                .unwrap_err()
                .to_string();
            assert!(e.contains("attribute \"to\" is required"), "{e}");
            // A body that fails after adding nodes.
            let o = ops.clone();
            let cond = b.input("c", "bool[]")?;
            let e = ops
                .if_(&cond)
                .then_branch(Body::new(move |_| {
                    let _ = o.neg(&x)?;
                    Err(BuildError::Usage("stop".into()))
                }))
                .else_branch(Body::new(|_| Ok(vec![])))
                .out();
            assert_eq!(e.unwrap_err(), BuildError::Usage("stop".into()));
            // A name already taken.
            assert!(b.input("x", "float").is_err());
        }
        let y = ops.relu(&x)?;
        b.build(&[("x", &x)], &[("y", &y)])
    };
    let clean = make(false).unwrap();
    let after = make(true).unwrap();
    no_errors(&after);
    // The failed relu above added a node before the failing attribute check, which
    // the build keeps only if an output needs it: equal models.
    assert_eq!(
        text(&clean).replace("relu_2", "relu_1"),
        text(&after).replace("relu_2", "relu_1")
    );
}

#[test]
fn scopes_are_checked() {
    let b = Builder::new();
    let other = Builder::new();
    let ops = opset18::Ops::new(&b);
    opset18::Ops::new(&other);
    let x = b.input("x", "float[2]").unwrap();
    let y = other.input("y", "float[2]").unwrap();
    let e = ops.add(&x, &y).unwrap_err().to_string();
    assert!(e.contains("another builder"), "{e}");
    // A value of one branch is not visible in the other.
    let c = b.input("c", "bool[]").unwrap();
    let leaked = std::rc::Rc::new(std::cell::Cell::new(None));
    let (o1, o2, l1, l2) = (ops.clone(), ops.clone(), leaked.clone(), leaked.clone());
    let e = ops
        .if_(&c)
        .then_branch(Body::new(move |_| {
            let v = o1.neg(&x)?;
            l1.set(Some(v));
            Ok(vec![v])
        }))
        .else_branch(Body::new(move |_| Ok(vec![o2.abs(&l2.get().unwrap())?])))
        .out()
        .unwrap_err()
        .to_string();
    assert!(e.contains("not in scope"), "{e}");
    // A function body sees nothing outside.
    let o = ops.clone();
    let e = b
        .function(Signature::new("local", "F", &["a"], &["r"]), move |a| {
            Ok(vec![o.add(&a[0], &x)?])
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("not in scope"), "{e}");
    // Another opset of the default domain in the same builder.
    let ops21 = opset21::Ops::new(&b);
    let e = ops21.relu(&x).unwrap_err().to_string();
    assert!(e.contains("uses opset 18"), "{e}");
}

#[test]
fn loop_scan_and_variadic_outputs() -> Result<(), BuildError> {
    let b = Builder::new();
    let ops = opset18::Ops::new(&b);
    let x = b.input("x", "float[6, 4]")?;
    // Split into three by num_outputs.
    let parts = ops.split(&x).axis(0).num_outputs(3).outs()?;
    assert_eq!(parts.len(), 3);
    assert_eq!(b.ty(&parts[0]).unwrap().to_string(), "float[2,4]");
    // TopK has two outputs.
    let k = b.constant(tensor_i64(&[1], &[2]))?;
    assert!(
        ops.top_k(&x, &k)
            .out()
            .unwrap_err()
            .to_string()
            .contains("outs()")
    );
    let top = ops.top_k(&x, &k).outs()?;
    assert_eq!(b.ty(&top[1]).unwrap().to_string(), "int64[6,2]");
    // A Loop carrying one state and scanning one output.
    let trip = b.constant(tensor_i64(&[], &[3]))?;
    let o = ops.clone();
    let body = Body::with_inputs(
        &[("i", "int64[]"), ("cond", "bool[]"), ("acc", "float[6, 4]")],
        move |ins| {
            let next = o.add(&ins[2], &x)?;
            let keep = o.identity(&ins[1])?;
            let seen = o.reduce_sum(&next).keepdims(0).out()?;
            Ok(vec![keep, next, seen])
        },
    );
    let outs = ops.loop_(&[&x]).m(&trip).body(body).outs()?;
    assert_eq!(outs.len(), 2);
    assert_eq!(b.ty(&outs[0]).unwrap().to_string(), "float[6,4]");
    assert_eq!(b.ty(&outs[1]).unwrap().to_string(), "float[?]");
    // Scan over the rows, summing them.
    let o = ops.clone();
    let init = b.constant(tensor_f32(&[4], &[0.0; 4]))?;
    let body = Body::with_inputs(&[("s", "float[4]"), ("row", "float[4]")], move |ins| {
        let s = o.add(&ins[0], &ins[1])?;
        Ok(vec![s, o.identity(&s)?])
    });
    let scan = ops
        .scan(&[&init, &x])
        .num_scan_inputs(1)
        .body(body)
        .outs()?;
    assert_eq!(b.ty(&scan[1]).unwrap().to_string(), "float[6,4]");
    let m = b.build(
        &[("x", &x)],
        &[("p0", &parts[0]), ("state", &outs[0]), ("sums", &scan[0])],
    )?;
    no_errors(&m);
    Ok(())
}

#[test]
fn static_function_with_attribute_parameters() -> Result<(), BuildError> {
    let b = Builder::new();
    let ops = opset18::Ops::new(&b);
    let o = ops.clone();
    let scale = b.function(
        Signature::new("local", "Scale", &["a"], &["r"])
            .attribute("alpha", Some(AttrValue::Float(1.0))),
        move |a| {
            let k = o
                .constant()
                .into_call()
                .attr_ref("value_float", "alpha")
                .out()?;
            Ok(vec![o.mul(&a[0], &k)?])
        },
    )?;
    let x = b.input("x", "float[N]")?;
    let y = b
        .call(&scale, &[&x])
        .attr("alpha", AttrValue::Float(2.0))
        .out()?;
    assert_eq!(b.ty(&y).unwrap().to_string(), "float[N]");
    let e = b
        .call(&scale, &[&x])
        .attr("beta", AttrValue::Float(2.0))
        .out()
        .unwrap_err();
    assert!(e.to_string().contains("no attribute \"beta\""), "{e}");
    let m = b.build(&[("x", &x)], &[("y", &y)])?;
    no_errors(&m);
    // Attribute defaults need IR 9; the function's domain is imported.
    assert_eq!(m.ir_version, Some(9));
    let t = text(&m);
    assert!(t.contains("\"local\" : 1"), "{t}");
    assert!(t.contains("value_float: float = @alpha"), "{t}");
    assert!(t.contains("Scale <alpha = 1.0> (a)"), "{t}");
    Ok(())
}

#[test]
fn context_dependent_functions_make_overloads() -> Result<(), BuildError> {
    let b = Builder::new();
    let ops = opset18::Ops::new(&b);
    let o = ops.clone();
    let f = b.function_builder(
        Signature::new("my", "Scale", &["x"], &["y"]).attribute("alpha", None),
        move |call, x| {
            let alpha = call.float("alpha").unwrap_or(1.0);
            // The body depends on the input's element type.
            let k = o.builder().constant(tensor_f32(&[], &[alpha]))?;
            let k = match call.elem_type(0) {
                Some(t) if t != graft::ir::dtype::FLOAT => o.cast_like(&k, &x[0])?,
                _ => k,
            };
            Ok(vec![o.mul(&x[0], &k)?])
        },
    )?;
    let x = b.input("x", "float[3]")?;
    let d = b.input("d", "double[3]")?;
    let half = AttrValue::Float(0.5);
    let y1 = b.call(&f, &[&x]).attr("alpha", half.clone()).out()?;
    let y2 = b.call(&f, &[&y1]).attr("alpha", half.clone()).out()?;
    let y3 = b
        .call(&f, &[&y2])
        .attr("alpha", AttrValue::Float(3.0))
        .out()?;
    let y4 = b.call(&f, &[&d]).attr("alpha", half).out()?;
    assert_eq!(b.ty(&y4).unwrap().to_string(), "double[3]");
    let e = b.call(&f, &[&x]).out().unwrap_err().to_string();
    assert!(e.contains("attribute \"alpha\" is required"), "{e}");
    let m = b.build(&[("x", &x), ("d", &d)], &[("y", &y3), ("z", &y4)])?;
    no_errors(&m);
    let overloads: Vec<String> = m
        .functions
        .iter()
        .map(|&id| m.function(id).overload.clone().unwrap_or_default())
        .collect();
    assert_eq!(overloads, ["alpha_0p5", "alpha_3", "alpha_0p5__t2"]);
    assert_eq!(m.ir_version, Some(10));
    // Each overload records its binding, as the specializer's do.
    assert_eq!(
        graft::specialize::binding_of(&m, m.functions[1])[0].value(),
        Some(&AttrValue::Float(3.0))
    );
    Ok(())
}

#[test]
fn build_keeps_what_the_outputs_need() -> Result<(), BuildError> {
    let b = Builder::new();
    let ops = opset18::Ops::new(&b);
    let x = b.input("x", "float[N, 2]")?;
    let unused = b.input("unused", "float[2]")?;
    // An ai.onnx.ml node no output needs: its domain is not imported.
    let _ = b
        .op("ai.onnx.ml", "Normalizer", 1, &[Some(&x)])
        .attr("norm", graft::builder::string("L2"))
        .out()?;
    let _ = ops.neg(&unused)?;
    let w = b.initializer("w", tensor_f32(&[2], &[1.0, 2.0]))?;
    let _ = b.initializer("spare", tensor_f32(&[1], &[1.0]))?;
    let y = ops.mul(&x, &w)?;
    let m = b.build(&[("x", &x)], &[("y", &y), ("x_again", &x)])?;
    no_errors(&m);
    let t = text(&m);
    assert_eq!(m.opset_import.len(), 1, "{t}");
    assert!(
        !t.contains("spare") && !t.contains("Normalizer") && !t.contains("Neg"),
        "{t}"
    );
    // An output that is an input goes through an Identity.
    assert!(t.contains("x_again = Identity(x)"), "{t}");
    // Leaving out an input the outputs need is an error.
    let e = b.build(&[], &[("y", &y)]).unwrap_err().to_string();
    assert!(e.contains("need input \"x\""), "{e}");
    // With the ml node as an output, its domain is imported.
    let n = b
        .op("ai.onnx.ml", "Normalizer", 1, &[Some(&x)])
        .attr("norm", graft::builder::string("L2"))
        .out()?;
    let m = b.build(&[("x", &x)], &[("n", &n)])?;
    assert_eq!(m.opset_import.len(), 1);
    assert_eq!(m.opset_import[0].domain.as_deref(), Some("ai.onnx.ml"));
    assert_eq!(m.ir_version, Some(3));
    Ok(())
}
