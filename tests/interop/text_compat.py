#!/usr/bin/env python3
"""Compatibility of Graft's ONNX text format with onnx.parser and onnx.printer.

usage: text_compat.py print CORPUS_DIR WORK_DIR [--max-bytes N]
       text_compat.py check CORPUS_DIR WORK_DIR [--allow ALLOWLIST]

`print` writes, for every corpus model (same walk as check_roundtrip.py, models larger
than --max-bytes skipped), the text onnx.printer gives under WORK_DIR/onnx_printed/
(REL.txt), or REL.print_error when onnx.printer fails. The Rust side
(tests/text_compat.rs) then writes, per model:

  a/REL.onnx            Graft's parse of onnx_printed/REL.txt, exported (or a/REL.err)
  graft_printed/REL.txt Graft's print of the corpus model
  graft_std/REL.onnx    Graft's parse of that text with annotations off (as onnx.parser
                        reads it: `#@` lines are comments)
  graft_parsed/REL.onnx Graft's parse of that text, exported

`check` then compares, with protobuf `==` on ModelProto:

  (a) onnx.parser(onnx_printed) == a/REL.onnx; both rejecting the text also agrees
  (b) onnx.parser(graft_printed) == graft_std/REL.onnx; onnx.parser must read it
  (c) the corpus model == graft_parsed/REL.onnx (lossless print -> parse)
  (d) for the snapshot fixtures (crates/graft/tests/text/*.onnxtxt) that the Rust side
      copies to WORK_DIR/fixtures/: their input text and Graft's print of it read the
      same in onnx.parser as in Graft with annotations off (NAME.input.txt vs
      NAME.input.onnx or .err, NAME.printed.txt vs NAME.printed.onnx); both rejecting
      also agrees. NAME.kind says model, graph or function.

ALLOWLIST lines are `CHECK PATTERN  # reason` (CHECK is a, b, c or d; PATTERN a path
or an fnmatch glob relative to the corpus, or for d a fixture file name); every entry needs a reason. Allow-listed cases
are skipped and listed. One line per check: `text (X): N passed, M failed`; the exit
code is 1 when any check has failures.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx  # noqa: E402
from check_roundtrip import corpus_models  # noqa: E402
from equal import describe, load  # noqa: E402


def cmd_print(corpus: Path, work: Path, max_bytes: int) -> int:
    out = work / "onnx_printed"
    printed = failed = skipped = 0
    t0 = time.monotonic()
    for rel in corpus_models(corpus):
        path = corpus / rel
        if path.stat().st_size > max_bytes:
            skipped += 1
            continue
        target = out / (rel + ".txt")
        target.parent.mkdir(parents=True, exist_ok=True)
        error = out / (rel + ".print_error")
        try:
            text = onnx.printer.to_text(load(str(path)))
        except Exception as e:  # onnx.printer cannot print every model
            error.write_text(f"{type(e).__name__}: {e}\n", encoding="utf-8")
            target.unlink(missing_ok=True)
            failed += 1
            continue
        error.unlink(missing_ok=True)
        target.write_text(text, encoding="utf-8", errors="surrogateescape")
        printed += 1
    print(f"onnx.printer: {printed} printed, {failed} not printable, {skipped} larger than "
          f"{max_bytes} bytes skipped, in {time.monotonic() - t0:.1f} s")
    return 0


def read_allowlist(path: Path) -> list[tuple[str, str, str]]:
    entries = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        spec, sep, reason = line.partition("#")
        parts = spec.split()
        if not sep or not reason.strip() or len(parts) != 2 or parts[0] not in "abcd":
            raise SystemExit(f"{path}:{n}: expected `CHECK PATTERN  # reason`: {raw!r}")
        entries.append((parts[0], parts[1], reason.strip()))
    return entries


def parse_text(path: Path, kind: str = "model"):
    """onnx.parser's model (graph, function) of a text file, or the error message."""
    text = path.read_bytes().decode("utf-8", errors="surrogateescape")
    parse = {"model": onnx.parser.parse_model, "graph": onnx.parser.parse_graph,
             "function": onnx.parser.parse_function}[kind]
    try:
        return parse(text), None
    except Exception as e:
        first = str(e).strip().splitlines()
        return None, f"{type(e).__name__}: {' | '.join(first[:3])[:300]}"


def load_or_error(path: Path):
    if not path.is_file():
        return None, f"missing {path}"
    try:
        return load(str(path)), None
    except Exception as e:
        return None, f"cannot load {path}: {e}"


def cmd_check(corpus: Path, work: Path, allow_path: Path | None) -> int:
    allow = read_allowlist(allow_path) if allow_path else []
    used: set[tuple[str, str]] = set()
    counts = {c: [0, 0] for c in "abcd"}
    skipped: list[str] = []
    not_printable = 0
    both_reject = 0
    annotated = 0
    t0 = time.monotonic()

    def allowed(check: str, rel: str) -> str | None:
        for c, pattern, reason in allow:
            if c == check and fnmatch.fnmatchcase(rel, pattern):
                used.add((c, pattern))
                return reason
        return None

    def record(check: str, rel: str, problem: str | None) -> None:
        reason = allowed(check, rel)
        if reason is not None:
            skipped.append(f"SKIP ({check}) {rel}  # {reason}"
                           + ("" if problem else "  [passes now: remove the entry]"))
            return
        if problem is None:
            counts[check][0] += 1
        else:
            counts[check][1] += 1
            print(f"FAIL ({check}) {rel}: {problem}")

    for rel in corpus_models(corpus):
        onnx_text = work / "onnx_printed" / (rel + ".txt")
        graft_text = work / "graft_printed" / (rel + ".txt")
        if (work / "onnx_printed" / (rel + ".print_error")).exists():
            not_printable += 1
        elif onnx_text.exists():
            ref, ref_err = parse_text(onnx_text)
            err_file = work / "a" / (rel + ".err")
            if err_file.exists():
                graft_err = err_file.read_text(encoding="utf-8").strip().splitlines()[0]
                graft = None
            else:
                graft, graft_err = load_or_error(work / "a" / (rel + ".onnx"))
            if ref is None and graft is None:
                problem = None  # both reject the text
                both_reject += 1
            elif ref is None:
                problem = f"onnx.parser rejects the text ({ref_err}) but Graft reads it"
            elif graft is None:
                problem = f"Graft rejects the text ({graft_err}) but onnx.parser reads it"
            else:
                problem = describe(ref, graft)
            record("a", rel, problem)
        if not graft_text.exists():
            continue
        if b"#@" in graft_text.read_bytes():
            annotated += 1
        ref, ref_err = parse_text(graft_text)
        graft, graft_err = load_or_error(work / "graft_std" / (rel + ".onnx"))
        if ref is None:
            problem = f"onnx.parser rejects Graft's text: {ref_err}"
        elif graft is None:
            problem = graft_err
        else:
            problem = describe(ref, graft)
        record("b", rel, problem)
        original, original_err = load_or_error(corpus / rel)
        parsed, parsed_err = load_or_error(work / "graft_parsed" / (rel + ".onnx"))
        if original is None or parsed is None:
            problem = original_err or parsed_err
        else:
            problem = describe(original, parsed)
        record("c", rel, problem)

    fixtures = work / "fixtures"
    for kind_file in sorted(fixtures.glob("*.kind")) if fixtures.is_dir() else []:
        name = kind_file.name[: -len(".kind")]
        kind = kind_file.read_text(encoding="utf-8").strip()
        for stage in ("input", "printed"):
            text = fixtures / f"{name}.{stage}.txt"
            if not text.exists():
                continue
            ref, ref_err = parse_text(text, kind)
            err_file = fixtures / f"{name}.{stage}.err"
            if err_file.exists():
                graft, graft_err = None, err_file.read_text(encoding="utf-8").strip()
            else:
                graft, graft_err = load_or_error(fixtures / f"{name}.{stage}.onnx")
                if graft is not None and kind == "graph":
                    graft = graft.graph
                elif graft is not None and kind == "function":
                    graft = graft.functions[0] if graft.functions else None
            if ref is None and graft is None:
                problem = None
            elif ref is None:
                problem = f"{stage}: onnx.parser rejects it ({ref_err}) but Graft reads it"
            elif graft is None:
                problem = f"{stage}: Graft rejects it ({graft_err}) but onnx.parser reads it"
            elif ref == graft:
                problem = None
            elif kind == "model":
                problem = f"{stage}: {describe(ref, graft)}"
            else:
                from equal import first_difference
                problem = f"{stage}: {first_difference(ref, graft)}"
            record("d", f"{name}.onnxtxt", problem)

    for line in skipped:
        print(line)
    for c, pattern, reason in allow:
        if (c, pattern) not in used:
            print(f"note: allow-list entry matches nothing: {c} {pattern}  # {reason}")
    print(f"(a): onnx.parser and Graft both reject {both_reject} of onnx.printer's texts; "
          f"(b): {annotated} of Graft's texts have `#@` annotations, which onnx.parser "
          f"reads as comments (compared with Graft reading them as comments too)")
    print(f"{not_printable} models onnx.printer cannot print; checked in "
          f"{time.monotonic() - t0:.1f} s")
    names = {
        "a": "onnx.printer text, Graft parse == onnx.parser parse",
        "b": "Graft print, onnx.parser parse == Graft parse",
        "c": "Graft print, Graft parse == original",
        "d": "fixtures (input and printed), Graft parse == onnx.parser parse",
    }
    for c in "abcd":
        print(f"text ({c}) {names[c]}: {counts[c][0]} passed, {counts[c][1]} failed")
    return 1 if any(v[1] for v in counts.values()) else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("command", choices=["print", "check"])
    ap.add_argument("corpus_dir", type=Path)
    ap.add_argument("work_dir", type=Path)
    ap.add_argument("--max-bytes", type=int, default=20_000_000)
    ap.add_argument("--allow", type=Path)
    args = ap.parse_args()
    if not args.corpus_dir.is_dir():
        print(f"text_compat: no corpus at {args.corpus_dir}", file=sys.stderr)
        return 2
    if args.command == "print":
        return cmd_print(args.corpus_dir, args.work_dir, args.max_bytes)
    return cmd_check(args.corpus_dir, args.work_dir, args.allow)


if __name__ == "__main__":
    sys.exit(main())
