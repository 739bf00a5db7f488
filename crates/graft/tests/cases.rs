//! The acceptance cases of semantics.md §6, as ONNX text fixtures (`tests/cases/`,
//! grammar in `tests/cases/README.md`): every model section is read with Graft's text
//! parser, the `# needs-edit` edits (what ONNX text cannot say) are applied to the IR,
//! and `graft::check::check` must report exactly the codes of its `# expect-check` line.
//!
//! `tests/interop/cases.py` checks the same files against onnx.parser, onnx.checker and
//! onnxruntime.

mod support;

use std::collections::BTreeMap;

use graft::Severity;
use graft::ir::Model;
use support::{apply_edit, case_number, fixtures, sections};

/// Diagnostic codes by severity, each with how many times it must occur (`None`: at
/// least once).
#[derive(Debug, Default, PartialEq)]
struct Codes {
    errors: BTreeMap<String, Option<usize>>,
    warnings: BTreeMap<String, Option<usize>>,
}

/// Reads an `expect-check` value: `valid`, or codes, `warn:code`, `code*N`.
fn expected(value: &str) -> Result<Codes, String> {
    let mut codes = Codes::default();
    if value == "valid" {
        return Ok(codes);
    }
    for word in value.split_whitespace() {
        let (word, warning) = match word.strip_prefix("warn:") {
            Some(rest) => (rest, true),
            None => (word, false),
        };
        let (code, count) = match word.split_once('*') {
            Some((code, n)) => (
                code,
                Some(
                    n.parse::<usize>()
                        .map_err(|_| format!("bad count in {word:?}"))?,
                ),
            ),
            None => (word, None),
        };
        let well_formed = code.strip_prefix("check.").is_some_and(|rest| {
            !rest.is_empty() && rest.chars().all(|c| c.is_ascii_lowercase() || c == '-')
        });
        if !well_formed {
            return Err(format!("{word:?} is not a check code"));
        }
        let map = if warning {
            &mut codes.warnings
        } else {
            &mut codes.errors
        };
        map.insert(code.to_string(), count);
    }
    Ok(codes)
}

/// Whether the diagnostics match the expectation: the same codes per severity, and the
/// exact number where one is given.
fn matches(expect: &Codes, got: &[(Severity, &str)]) -> bool {
    let side = |want: &BTreeMap<String, Option<usize>>, severity: Severity| {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for (s, code) in got {
            if *s == severity {
                *counts.entry(code).or_default() += 1;
            }
        }
        counts.len() == want.len()
            && want
                .iter()
                .all(|(code, n)| match counts.get(code.as_str()) {
                    Some(&k) => n.is_none_or(|n| n == k),
                    None => false,
                })
    };
    side(&expect.errors, Severity::Error) && side(&expect.warnings, Severity::Warning)
}

fn show(got: &[(Severity, &str)]) -> String {
    let mut words: Vec<String> = got
        .iter()
        .filter_map(|(s, code)| match s {
            Severity::Error => Some(code.to_string()),
            Severity::Warning => Some(format!("warn:{code}")),
            Severity::Info => None,
        })
        .collect();
    words.sort();
    words.dedup();
    if words.is_empty() {
        "valid".into()
    } else {
        words.join(" ")
    }
}

/// Graft's text parser; the parser's own diagnostics are not what these cases test.
fn parse(src: &str) -> Result<Model, String> {
    graft::text::parse_model(src)
        .map(|imported| imported.model)
        .map_err(|e| e.to_string())
}

/// The files are the 60 cases, numbered, each section with an `expect-check` line that
/// reads, the inline cases with a guest (runs without the text parser).
#[test]
fn fixtures_are_well_formed() {
    let files = fixtures();
    let numbers: Vec<String> = files.iter().map(|p| case_number(p)).collect();
    let want: Vec<String> = (1..=60).map(|n| format!("{n:02}")).collect();
    assert_eq!(numbers, want, "one fixture per case, 01..60");
    let mut problems = Vec::new();
    for path in &files {
        let nn = case_number(path);
        let src = std::fs::read_to_string(path).expect("fixture is UTF-8");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        if !src.starts_with(&format!("# case {nn}: ")) {
            problems.push(format!("{name}: must start with `# case {nn}: `"));
        }
        let parts = sections(&src);
        let n: u32 = nn.parse().unwrap_or(0);
        if n <= 30 && !parts.iter().any(|s| s.label == "guest") {
            problems.push(format!(
                "{name}: an inline case needs a `# --- guest ---` section"
            ));
        }
        if n <= 30 && !src.contains("# expect-inline:") {
            problems.push(format!("{name}: an inline case needs `# expect-inline:`"));
        }
        for s in &parts {
            match s.expect_check.as_deref().map(expected) {
                None => problems.push(format!("{name} [{}]: no `# expect-check:`", s.label)),
                Some(Err(e)) => problems.push(format!("{name} [{}]: {e}", s.label)),
                Some(Ok(_)) => {}
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn checker_verdicts_match_the_cases() {
    let mut failures = Vec::new();
    let (mut passed, mut failed) = (0usize, 0usize);
    for path in fixtures() {
        let nn = case_number(&path);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?");
        let src = std::fs::read_to_string(&path).expect("fixture is UTF-8");
        for section in sections(&src) {
            let at = format!("{name} [{}]", section.label);
            let result = (|| -> Result<(), String> {
                let expect_line = section.expect_check.as_deref().ok_or("no expect-check")?;
                let expect = expected(expect_line)?;
                for code in expect.errors.keys().chain(expect.warnings.keys()) {
                    if !graft::check::CODES.iter().any(|(c, _)| c == code) {
                        return Err(format!("{code} is expected but not in check::CODES"));
                    }
                }
                let mut model = parse(&section.text).map_err(|e| format!("parse: {e}"))?;
                support::attach_external_data(&section.text, &mut model)?;
                if !section.needs_edit.is_empty() {
                    apply_edit(&nn, &section.label, &mut model)
                        .map_err(|e| format!("needs-edit: {e}"))?;
                }
                let diagnostics = graft::check::check(&model);
                let got: Vec<(Severity, &str)> =
                    diagnostics.iter().map(|d| (d.severity, d.code)).collect();
                if matches(&expect, &got) {
                    Ok(())
                } else {
                    let detail: Vec<String> =
                        diagnostics.iter().map(|d| format!("    {d}")).collect();
                    Err(format!(
                        "expected {expect_line}, got {}\n{}",
                        show(&got),
                        detail.join("\n")
                    ))
                }
            })();
            match result {
                Ok(()) => passed += 1,
                Err(e) => {
                    failed += 1;
                    failures.push(format!("{at}: {e}"));
                }
            }
        }
    }
    println!("cases: {passed} sections passed, {failed} failed");
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn expectations_read() {
    let codes = expected("check.a-b*3 warn:check.c").expect("reads");
    assert_eq!(codes.errors.get("check.a-b"), Some(&Some(3)));
    assert_eq!(codes.warnings.get("check.c"), Some(&None));
    assert!(expected("valid").expect("reads").errors.is_empty());
    assert!(expected("check.Bad").is_err());
    let got = [
        (Severity::Error, "check.a-b"),
        (Severity::Error, "check.a-b"),
        (Severity::Error, "check.a-b"),
        (Severity::Warning, "check.c"),
    ];
    assert!(matches(&codes, &got));
    assert!(!matches(&codes, &got[1..]));
    assert!(!matches(&expected("valid").expect("reads"), &got));
}
