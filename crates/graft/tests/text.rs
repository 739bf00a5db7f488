//! Data-driven tests of the text format: every `tests/text/*.onnxtxt` file is ONNX
//! text, then a line `# ==== expected ====`, then what Graft makes of it: the printed
//! model and its diagnostics, or the parse error with its caret. `UPDATE_EXPECT=1
//! cargo test -p graft --test text` rewrites the expectations.
//!
//! Besides the snapshot, each file that parses is checked for the round trip:
//! print(parse(print(parse(x)))) == print(parse(x)), and the model exports to the
//! same bytes after a print → parse. A first line `# kind: graph` or
//! `# kind: function` parses the file as a graph or a function.

use std::path::{Path, PathBuf};

use graft::text;

mod support;
use support::Fixture;

#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Model,
    Graph,
    Function,
}

fn parse(kind: Kind, input: &str) -> Result<graft::Imported, text::ParseError> {
    match kind {
        Kind::Model => text::parse_model(input),
        Kind::Graph => text::parse_graph(input),
        Kind::Function => text::parse_function(input),
    }
}

fn print(kind: Kind, m: &graft::Model) -> String {
    match kind {
        Kind::Model => text::print_model(m),
        Kind::Graph => m.graph.map(|g| text::print_graph(m, g)).unwrap_or_default(),
        Kind::Function => m
            .functions
            .first()
            .map(|&f| text::print_function(m, f))
            .unwrap_or_default(),
    }
}

fn export(m: &graft::Model) -> Vec<u8> {
    graft::export(m, &graft::ExportOptions::default()).unwrap_or_default()
}

/// What the file's input gives, as the expected section shows it; and the problems
/// with its round trip.
fn run(kind: Kind, input: &str) -> (String, Vec<String>) {
    let mut problems = Vec::new();
    let parsed = match parse(kind, input) {
        Ok(p) => p,
        Err(e) => return (format!("error: {e}\n"), problems),
    };
    let printed = print(kind, &parsed.model);
    let mut shown = printed.clone();
    if !parsed.diagnostics.is_empty() {
        shown.push_str("\n# diagnostics:\n");
        for d in &parsed.diagnostics {
            shown.push_str(&format!("# {d}\n"));
        }
    }
    match parse(kind, &printed) {
        Ok(again) => {
            let reprinted = print(kind, &again.model);
            if reprinted != printed {
                problems.push(format!(
                    "print(parse(print(parse(x)))) differs from print(parse(x)):\n{reprinted}"
                ));
            }
            if export(&again.model) != export(&parsed.model) {
                problems.push("parse(print(m)) exports different bytes than m".into());
            }
            if !printed.contains("#@") {
                let plain = text::ParseOptions { annotations: false };
                if kind == Kind::Model
                    && text::parse_model_with(&printed, &plain)
                        .map(|p| export(&p.model))
                        .ok()
                        != Some(export(&parsed.model))
                {
                    problems.push("without annotations the printed text reads differently".into());
                }
            }
        }
        Err(e) => problems.push(format!("the printed text does not parse:\n{e}\n{printed}")),
    }
    (shown, problems)
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/text");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "onnxtxt"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn text_fixtures() {
    let files = fixtures();
    assert!(files.len() >= 10, "only {} fixtures found", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let fixture = Fixture::read(path);
        let kind = match fixture.input.lines().next() {
            Some("# kind: graph") => Kind::Graph,
            Some("# kind: function") => Kind::Function,
            _ => Kind::Model,
        };
        let (actual, problems) = run(kind, &fixture.input);
        let name = path.display();
        failures.extend(problems.into_iter().map(|p| format!("{name}: {p}")));
        failures.extend(fixture.check(&actual, "the output"));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Nesting beyond the limit is a clear error, not a stack overflow.
#[test]
fn deep_nesting_is_an_error() {
    let depth = text::MAX_GRAPH_DEPTH as usize + 1;
    let mut s =
        String::from("<ir_version: 8, opset_import: [\"\" : 18]>\ng0 (bool c) => (float y) {\n");
    for i in 1..depth {
        s.push_str(&format!(
            "y{i} = If(c) <then_branch = g{i} () => (float y{i}) {{\n"
        ));
    }
    for i in (1..depth).rev() {
        s.push_str(&format!("}}, else_branch = e{i} () => (float y{i}) {{ y{i} = Constant <value_float = 1.0> () }}>\n"));
    }
    s.push_str("}\n");
    let err = text::parse_model(&s).expect_err("too deep");
    assert!(err.message.contains("nest more than 64"), "{err}");

    let types = format!(
        "g (seq({}float{}) x) => () {{}}",
        "seq(".repeat(80),
        ")".repeat(80)
    );
    let err = text::parse_graph(&types).expect_err("too deep");
    assert!(err.message.contains("nest more than"), "{err}");

    // Within the limit it parses, prints and parses again.
    let ok_depth = 40;
    let mut s =
        String::from("<ir_version: 8, opset_import: [\"\" : 18]>\ng0 (bool c) => (float y) {\n");
    for i in 1..ok_depth {
        s.push_str(&format!(
            "y{i} = If(c) <then_branch = g{i} () => (float y{i}) {{\n"
        ));
    }
    s.push_str(&format!("y{ok_depth} = Constant <value_float = 1.0> ()\n"));
    for i in (1..ok_depth).rev() {
        s.push_str(&format!("}}, else_branch = e{i} () => (float y{i}) {{ y{i} = Constant <value_float = 1.0> () }}>\n"));
    }
    s.push_str("}\n");
    let parsed = text::parse_model(&s).expect("parses");
    let printed = text::print_model(&parsed.model);
    let again = text::parse_model(&printed).expect("parses again");
    assert_eq!(text::print_model(&again.model), printed);
}

/// Arbitrary bytes never panic the parser.
#[test]
fn garbage_is_an_error_not_a_panic() {
    let seeds = [
        "<ir_version: 8> g (float x) => (float y) { y = Relu(x) }",
        "#@ {raw_data: true}\ng (float[2] x) => (float[2] y) <float[2] w = {1, 2}> { y = Add(x, w) }",
        "f <a: float = 1.0> (x) => (y) { y = Identity(x) }",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for seed in seeds {
        let chars: Vec<char> = seed.chars().collect();
        for _ in 0..2000 {
            let mut c = chars.clone();
            for _ in 0..(next() % 4 + 1) {
                let i = (next() as usize) % c.len();
                match next() % 3 {
                    0 => {
                        c.remove(i);
                    }
                    1 => c.insert(
                        i,
                        "{}<>()[],:=@\"#.-x0 \n"
                            .chars()
                            .nth((next() % 20) as usize)
                            .unwrap_or(' '),
                    ),
                    _ => {
                        let j = (next() as usize) % c.len();
                        c.swap(i, j)
                    }
                }
                if c.is_empty() {
                    break;
                }
            }
            let s: String = c.into_iter().collect();
            let _ = text::parse_model(&s);
            let _ = text::parse_graph(&s);
            let _ = text::parse_function(&s);
        }
    }
}

/// The text pane shows checker errors at their line: each node's line in the printed
/// model, annotation lines skipped, a body's node at the line of the node holding it.
#[test]
fn printed_nodes_know_their_lines() {
    let text = r#"<ir_version: 10, opset_import: ["": 18]>
main (float[N] x, bool c) => (y) {
  a = Relu(x)
  [named] b = LeakyRelu <alpha = 0.5> (a)
  y = If(c) <
    then_branch = t () => (t_out) { t_out = Neg(b) },
    else_branch = e () => (e_out) { e_out = Abs(b) }
  >
}
"#;
    let mut model = graft::text::parse_model(text).unwrap().model;
    let g = model.graph.unwrap();
    let nodes = model.graph(g).nodes.clone();
    // A doc string is an annotation line above its node.
    model.nodes[nodes[1]].doc_string = Some("the gate".into());
    let (printed, lines) = graft::text::print_with_lines(&model, None);
    let line = |n| graft::text::line_of(&model, &lines, n).unwrap();
    let at = |l: usize| printed.lines().nth(l - 1).unwrap().trim().to_string();
    assert!(at(line(nodes[0])).starts_with("a = Relu"), "{printed}");
    assert!(
        at(line(nodes[1])).starts_with("[named] b = LeakyRelu"),
        "{printed}"
    );
    assert!(at(line(nodes[1]) - 1).starts_with("#@"), "{printed}");
    assert!(at(line(nodes[2])).starts_with("y = If"), "{printed}");
    let then = model.node(nodes[2]).attributes[0].graphs().next().unwrap();
    let inner = model.graph(then).nodes[0];
    assert_eq!(line(inner), line(nodes[2]));
}
