#!/usr/bin/env python3
"""Check the acceptance fixtures of semantics.md §6 against onnx and onnxruntime.

usage: cases.py [--out DIR] [--graft BIN] [--only NN[,NN...]] [--table] [-v]

Reads every crates/graft/tests/cases/NN-*.onnxtxt (the header grammar is in
crates/graft/tests/cases/README.md). For every model section of every fixture:

1. parse it with onnx.parser.parse_model (no `# needs-edit` edit is applied: those are
   for the Rust test) and save it to DIR/NN[-label].onnx, writing any
   `# external-data:` file beside it;
2. run onnx.checker.check_model(path, full_check=True) and compare its verdict, `valid`
   or the first line of the error, with the `# onnx-checker:` line;
3. when `# expect-check:` lists no error code and there is no `# ort: skip` line, run
   the model in onnxruntime on deterministic inputs and compare every graph output with
   its `# reference:` numpy expression (a section that should run but has no reference
   for some output fails);
4. with --graft BIN, also run `BIN check --json` and compare the error and warning
   codes with `# expect-check:` (sections with `# needs-edit` are skipped there: the
   edit changes the model).

A fixture passes when all of its sections pass. The last line printed is
`cases: N passed, M failed`; the exit code is 1 when M > 0.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import onnx.checker
import onnx.numpy_helper
import onnx.parser

ROOT = Path(__file__).resolve().parents[2]
CASES = ROOT / "crates" / "graft" / "tests" / "cases"

SECTION = re.compile(r"^# --- ([A-Za-z0-9_-]+) ---\s*$")
HEADER = re.compile(r"^# ([a-z][a-z -]*): ?(.*)$")
CASE_LINE = re.compile(r"^# case (\d\d: .*)$")
HEADER_KEYS = {
    "case",
    "what this fixture shows",
    "expect-check",
    "onnx-checker",
    "expect-inline",
    "inline",
    "expect-specialize",
    "specialize",
    "inline-calls",
    "expect-roundtrip",
    "reference",
    "input",
    "dims",
    "ort",
    "needs-edit",
    "external-data",
}

# numpy dtypes of the TensorProto element types the fixtures use.
DTYPES = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.DOUBLE: np.float64,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,
    onnx.TensorProto.BOOL: np.bool_,
}


@dataclass
class Section:
    label: str
    text: str
    headers: dict[str, list[str]] = field(default_factory=dict)

    def one(self, key: str) -> str | None:
        values = self.headers.get(key)
        return values[0] if values else None


def read_fixture(path: Path) -> list[Section]:
    """Splits a fixture at `# --- label ---` lines; header lines belong to their section."""
    sections = [Section("main", "")]
    lines: list[str] = []
    for line in path.read_text().splitlines():
        m = SECTION.match(line)
        if m:
            sections[-1].text = "\n".join(lines) + "\n"
            sections.append(Section(m.group(1), ""))
            lines = []
            continue
        lines.append(line)
        h = HEADER.match(line)
        c = CASE_LINE.match(line)
        if c:
            sections[-1].headers.setdefault("case", []).append(c.group(1))
        elif h and h.group(1) in HEADER_KEYS:
            sections[-1].headers.setdefault(h.group(1), []).append(h.group(2).strip())
    sections[-1].text = "\n".join(lines) + "\n"
    return sections


def expected_codes(value: str) -> tuple[set[str], set[str]]:
    """(error codes, warning codes) of an `expect-check` value."""
    errors, warnings = set(), set()
    if value.strip() == "valid":
        return errors, warnings
    for word in value.split():
        word = word.split("*")[0]  # `code*N` counts occurrences; here only presence.
        if word.startswith("warn:"):
            warnings.add(word[len("warn:"):])
        elif word.startswith("check."):
            errors.add(word)
    return errors, warnings


def checker_verdict(path: Path) -> str:
    try:
        onnx.checker.check_model(str(path), full_check=True)
        return "valid"
    except Exception as e:  # ValidationError, InferenceError and others
        lines = [line for line in str(e).strip().splitlines() if line.strip()]
        return lines[0].strip() if lines else type(e).__name__


def default_input(info: onnx.ValueInfoProto, dims: dict[str, int]) -> np.ndarray:
    t = info.type.tensor_type
    dtype = DTYPES[t.elem_type]
    shape = []
    for d in t.shape.dim:
        if d.HasField("dim_value"):
            shape.append(d.dim_value)
        else:
            shape.append(dims.get(d.dim_param, 2))
    n = int(np.prod(shape)) if shape else 1
    if dtype == np.bool_:
        data = np.arange(n) % 2 == 0
    elif np.issubdtype(dtype, np.integer):
        data = np.arange(n) - n // 2
    else:
        data = np.linspace(-1.5, 2.0, n) if n > 1 else np.array([0.5])
    return np.asarray(data, dtype=dtype).reshape(shape)


def parse_assignments(values: list[str]) -> list[tuple[str, str]]:
    out = []
    for v in values:
        name, _, expr = v.partition("=")
        out.append((name.strip(), expr.strip()))
    return out


def run_ort(path: Path, model: onnx.ModelProto, section: Section) -> list[str]:
    """Problems found running the model; empty when every output matches its reference."""
    import onnxruntime as ort

    dims = {}
    for d in section.headers.get("dims", []):
        for part in d.split(","):
            k, _, v = part.partition("=")
            dims[k.strip()] = int(v)
    env = {"np": np}
    overrides = dict(parse_assignments(section.headers.get("input", [])))
    initialized = {t.name for t in model.graph.initializer}
    feeds = {}
    for info in model.graph.input:
        if info.name in initialized and info.name not in overrides:
            continue  # an optional input: its initializer is the default
        if info.name in overrides:
            value = eval(overrides[info.name], {"np": np})  # noqa: S307 (fixture text)
            value = np.asarray(value, dtype=DTYPES[info.type.tensor_type.elem_type])
        else:
            value = default_input(info, dims)
        feeds[info.name] = value
        env[info.name] = value
    for info in model.graph.input:
        if info.name not in env:  # defaulted inputs are visible to the reference too
            init = next(t for t in model.graph.initializer if t.name == info.name)
            env[info.name] = onnx.numpy_helper.to_array(init)

    options = ort.SessionOptions()
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        names = [o.name for o in session.get_outputs()]
        results = session.run(None, feeds)
    except Exception as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return [f"onnxruntime failed: {first}"]

    references = parse_assignments(section.headers.get("reference", []))
    problems = []
    referenced = {name for name, _ in references}
    for name in names:
        if name not in referenced:
            problems.append(f"output {name!r} has no reference")
    actual = dict(zip(names, results))
    for name, expr in references:
        if name not in actual:
            problems.append(f"reference for {name!r}, which is not an output")
            continue
        expected = np.asarray(eval(expr, dict(env)))  # noqa: S307 (fixture text)
        got = actual[name]
        if got.shape != expected.shape:
            problems.append(f"{name}: shape {got.shape}, expected {expected.shape}")
        elif not np.allclose(got.astype(np.float64), expected.astype(np.float64),
                             rtol=1e-5, atol=1e-6):
            problems.append(f"{name}: got {got.tolist()}, expected {expected.tolist()}")
    return problems


def graft_codes(graft: str, path: Path) -> tuple[set[str], set[str]] | str:
    p = subprocess.run([graft, "check", "--json", str(path)], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        return f"graft exited {p.returncode}: {p.stderr.strip()}"
    # Only the checker's codes: `graft check` also prints the importer's diagnostics.
    diagnostics = [d for d in json.loads(p.stdout) if d["code"].startswith("check.")]
    errors = {d["code"] for d in diagnostics if d["severity"] == "error"}
    warnings = {d["code"] for d in diagnostics if d["severity"] == "warning"}
    return errors, warnings


def show_codes(errors: set[str], warnings: set[str]) -> str:
    words = sorted(errors) + [f"warn:{w}" for w in sorted(warnings)]
    return " ".join(words) if words else "valid"


def check_section(nn: str, section: Section, out: Path, graft: str | None,
                  verbose: bool) -> tuple[list[str], dict]:
    problems: list[str] = []
    row: dict = {"section": section.label}
    stem = nn if section.label == "main" else f"{nn}-{section.label}"
    expect = section.one("expect-check")
    if expect is None:
        return [f"{section.label}: no `# expect-check:` line"], row
    row["expect"] = expect
    try:
        model = onnx.parser.parse_model(section.text)
    except Exception as e:
        return [f"{section.label}: onnx.parser failed: {str(e).strip().splitlines()[0]}"], row
    path = out / f"{stem}.onnx"
    for spec in section.headers.get("external-data", []):
        # `FILE DTYPE = v1, v2, ...`
        head, _, values = spec.partition("=")
        file, dtype = head.split()
        data = np.array([float(v) for v in values.split(",")], dtype=np.dtype(dtype))
        (out / file).write_bytes(data.tobytes())
    onnx.save(model, str(path))

    verdict = checker_verdict(path)
    row["onnx-checker"] = verdict
    recorded = section.one("onnx-checker")
    if recorded is None:
        problems.append(f"{section.label}: no `# onnx-checker:` line (verdict: {verdict})")
    elif recorded != verdict:
        problems.append(f"{section.label}: onnx.checker says {verdict!r}, "
                        f"the fixture records {recorded!r}")

    errors, _ = expected_codes(expect)
    skip = section.one("ort")
    if not errors and skip is None:
        ort_problems = run_ort(path, model, section)
        row["ort"] = "yes" if not ort_problems else "FAILED"
        problems += [f"{section.label}: {p}" for p in ort_problems]
    else:
        row["ort"] = "no" if errors else "skip"

    if graft is not None:
        got = graft_codes(graft, path)
        if isinstance(got, str):
            problems.append(f"{section.label}: {got}")
        else:
            row["graft"] = show_codes(*got)
            if section.headers.get("needs-edit"):
                row["graft"] += " (unedited)"
            elif got != expected_codes(expect):
                problems.append(f"{section.label}: graft check reports {show_codes(*got)}, "
                                f"expected {expect}")
    if verbose:
        print(f"  {stem}: {row}")
    return problems, row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="where to write the .onnx files")
    ap.add_argument("--graft", help="the graft binary; also compare its check codes")
    ap.add_argument("--only", help="comma-separated case numbers")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--table", action="store_true",
                    help="also print a markdown table, one row per model section")
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="graft-cases-"))
    out.mkdir(parents=True, exist_ok=True)
    only = {f"{int(n):02d}" for n in args.only.split(",")} if args.only else None

    fixtures = sorted(CASES.glob("[0-9][0-9]-*.onnxtxt"))
    passed = failed = 0
    rows = []
    for path in fixtures:
        nn = path.name[:2]
        if only and nn not in only:
            continue
        problems = []
        sections = read_fixture(path)
        case = sections[0].one("case")
        first_line = path.read_text().startswith(f"# case {nn}: ")
        if case is None or not first_line:
            problems.append("the first line must be `# case NN: ...` with the file's number")
        for section in sections:
            p, row = check_section(nn, section, out, args.graft, args.verbose)
            problems += p
            rows.append((nn, row))
        if problems:
            failed += 1
            print(f"FAIL {path.name}")
            for p in problems:
                print(f"     {p}")
        else:
            passed += 1
            if args.verbose:
                print(f"ok   {path.name}")
    if args.table:
        print("| case | section | expect-check | graft | onnx.checker | ort ran |")
        print("|---|---|---|---|---|---|")
        for nn, row in rows:
            print(f"| {nn} | {row.get('section')} | {row.get('expect', '')} | "
                  f"{row.get('graft', '-')} | {row.get('onnx-checker', '')} | "
                  f"{row.get('ort', '')} |")
    print(f"cases: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
