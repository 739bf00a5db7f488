#!/usr/bin/env python3
"""Check Graft's lossless round trip against protobuf's own reading of the models.

usage: check_roundtrip.py CORPUS_DIR EXPORT_DIR [--allow ALLOWLIST]

For every *.onnx under CORPUS_DIR (except corrupt/ and hidden folders), the Rust harness
has written a re-exported copy at the same relative path under EXPORT_DIR. Both are
loaded with onnx.load(path, load_external_data=False) and compared with `==` on
ModelProto. A missing or unreadable export is a failure. For each failure the top-level
fields that differ and the first differing path are printed.

ALLOWLIST lines are `relative/path.onnx  # reason` (the path may be a glob such as
`node/test_foo_*/model.onnx`); '#' lines and blank lines are ignored. Allow-listed files
are skipped and listed with their reason. An entry without a reason is an error.

The last line printed is `roundtrip: N passed, M failed`; the exit code is 1 when M > 0.
"""

from __future__ import annotations

import argparse
import fnmatch
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from equal import compare_files  # noqa: E402


def corpus_models(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and not (rel_dir == Path(".") and d == "corrupt"))
        for f in sorted(filenames):
            if f.endswith(".onnx") and not f.startswith("."):
                out.append((rel_dir / f).as_posix())
    return sorted(out)


def read_allowlist(path: Path) -> list[tuple[str, str]]:
    entries = []
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, reason = line.partition("#")
        pattern, reason = pattern.strip(), reason.strip()
        if not sep or not reason:
            raise SystemExit(f"{path}:{n}: allow-list entry needs a '# reason': {raw!r}")
        entries.append((pattern, reason))
    return entries


def main() -> int:
    ap = argparse.ArgumentParser(description="compare re-exported models with the corpus")
    ap.add_argument("corpus_dir", type=Path)
    ap.add_argument("export_dir", type=Path)
    ap.add_argument("--allow", type=Path, help="allow-list file: relative path  # reason")
    args = ap.parse_args()

    if not args.corpus_dir.is_dir():
        print(f"check_roundtrip: no corpus at {args.corpus_dir}", file=sys.stderr)
        return 2
    allow = read_allowlist(args.allow) if args.allow else []
    models = corpus_models(args.corpus_dir)
    if not models:
        print(f"check_roundtrip: no .onnx files under {args.corpus_dir}", file=sys.stderr)
        return 2

    t0 = time.monotonic()
    passed = failed = 0
    skipped: list[tuple[str, str]] = []
    used_patterns: set[str] = set()
    failures: dict[str, int] = {}
    for rel in models:
        hit = next(((p, r) for p, r in allow if fnmatch.fnmatchcase(rel, p)), None)
        if hit:
            used_patterns.add(hit[0])
            skipped.append((rel, hit[1]))
            continue
        exported = args.export_dir / rel
        if not exported.is_file():
            msg = "export missing"
        else:
            msg = compare_files(str(args.corpus_dir / rel), str(exported))
        if msg is None:
            passed += 1
        else:
            failed += 1
            top = rel.split("/", 1)[0]
            failures[top] = failures.get(top, 0) + 1
            print(f"FAIL {rel}: {msg}")

    for rel, reason in skipped:
        print(f"SKIP {rel}  # {reason}")
    for pattern, reason in allow:
        if pattern not in used_patterns:
            print(f"note: allow-list entry matches no corpus file: {pattern}  # {reason}")
    if failures:
        print("failures per folder: " + ", ".join(f"{k} {v}" for k, v in sorted(failures.items())))
    print(f"checked {passed + failed} models, skipped {len(skipped)} (allow-list), "
          f"in {time.monotonic() - t0:.1f} s")
    print(f"roundtrip: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
