//! The comparison with another model and side by side.

use super::*;

#[test]
fn compare_with_the_model_as_opened_shows_what_a_specialization_folded() {
    let mut session = Session::default();
    open(&mut session, vec![example_file("live_specialization.onnx")]);
    let node = graft::specialize::find_node(session.open().unwrap().model(), "tower").unwrap();
    assert!(
        session.specialize_call(node, "mode = 1"),
        "{:?}",
        session.error()
    );
    let printed = graft::text::print_model(session.open().unwrap().model());
    assert!(session.compare_with_step(0));
    // Going back to the step and forth again leaves the model as it was.
    assert_eq!(
        graft::text::print_model(session.open().unwrap().model()),
        printed
    );
    assert!(session.can_undo());

    let shown = session.comparison().expect("a comparison");
    assert!(!shown.same, "{}", shown.summary);
    let texts: Vec<String> = shown
        .rows
        .iter()
        .map(|r| format!("{} {}", r.sign, r.text))
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("+ function ") && t.contains("(compared with ")),
        "{texts:#?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("~ \"tower\" (Tower) overload")),
        "{texts:#?}"
    );
    let folded = shown
        .rows
        .iter()
        .filter(|r| r.sign == "-" && r.text.ends_with("(If)"))
        .count();
    assert!(folded > 0, "the folded Ifs are listed: {texts:#?}");

    // The call is marked on the canvas, and a folded node's row jumps to a call.
    let tower = item_of(&session, "tower");
    let row = shown
        .rows
        .iter()
        .position(|r| r.sign == "-" && r.text.ends_with("(If)"))
        .unwrap();
    assert!(session.compare_item(row).is_some());
    let open = session.open().unwrap();
    let scene = open.scene.as_ref().unwrap();
    let item = scene.view.item(tower).unwrap();
    let mark = session.compare_mark(item).expect("the call is marked");
    assert_eq!(mark.class, "g-changed");
    // Collapsed, it says how much changed in its body.
    let note = mark.note.expect("a note");
    assert!(note.ends_with(" changed inside"), "{note}");

    // Side by side: the model as opened is drawn beside; opening its call shows the
    // folded nodes ghosted, and the open model's selection is highlighted there.
    assert!(session.set_side_by_side(true));
    let everything = Rect {
        x: -1e6,
        y: -1e6,
        w: 2e6,
        h: 2e6,
    };
    let svg = session.other_svg(everything, Detail::Full, &[]);
    let before_name = svg.split("data-name=\"tower\"").next().unwrap();
    let id: ItemId = before_name
        .rsplit("data-item=\"")
        .next()
        .and_then(|rest| rest.split('"').next())
        .and_then(|n| n.parse().ok())
        .expect("the other model's tower is drawn");
    assert_eq!(session.matched_in_open(id), Some(tower));
    assert!(session.toggle_other(id));
    let expanded = |s: &Session, item: ItemId| {
        let scene = s.open().unwrap().scene.as_ref().unwrap();
        scene.view.item(item).unwrap().expanded
    };
    assert!(
        expanded(&session, tower),
        "the matched call opens on the open model's side too"
    );
    let svg = session.other_svg(everything, Detail::Full, &[tower]);
    assert!(
        svg.matches("g-removed").count() >= 15,
        "the folded Constants, Equal and Ifs"
    );
    assert!(svg.contains("g-hit"), "the counterpart of the selection");
    // Closing it on the open model's side closes it beside.
    assert!(session.toggle(tower));
    assert!(!expanded(&session, tower));
    let svg = session.other_svg(everything, Detail::Full, &[tower]);
    assert_eq!(
        svg.matches("g-removed").count(),
        0,
        "the body is closed beside"
    );
    assert!(session.toggle(tower));

    // Undo: the diff is made again, and the models are the same.
    assert!(session.undo());
    session.refresh_compare();
    assert!(session.comparison().unwrap().same);
    assert!(
        session.side_by_side(),
        "the other drawing stays across the edit"
    );
    session.close_compare();
    assert!(session.comparison().is_none());
    assert!(!session.side_by_side());
}

#[test]
fn compare_with_a_file_and_a_bad_file_changes_nothing() {
    let mut session = Session::default();
    let base = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[4] x) => (float[4] y) {
  [a] t = Relu(x)
  [b] y = Neg(t)
}"#;
    open(&mut session, vec![text_file("base.onnx", base)]);
    let other = base.replace("[b] y = Neg(t)", "[b] y = Neg(t)\n  [c] z = Abs(t)");
    let other = other.replace("=> (float[4] y)", "=> (float[4] y, float[4] z)");
    session
        .compare_with_files(ModelFile::Read(vec![text_file("other.onnx", &other)]))
        .expect("compares");
    let shown = session.comparison().expect("a comparison");
    assert_eq!(shown.label, "other.onnx");
    let texts: Vec<String> = shown
        .rows
        .iter()
        .map(|r| format!("{} {}", r.sign, r.text))
        .collect();
    // The open model lacks what the file has: from the file's side, removed.
    assert!(texts.contains(&"- \"c\" (Abs)".to_string()), "{texts:?}");
    assert!(texts.contains(&"- output \"z\"".to_string()), "{texts:?}");

    // A file that is no model: an error, and the comparison stays as it was.
    let before = session.comparison();
    assert!(
        session
            .compare_with_files(ModelFile::Read(vec![junk("junk.onnx")]))
            .is_err()
    );
    assert_eq!(session.comparison(), before);
}
