#!/usr/bin/env python3
"""Compare two ONNX model files as protobuf messages.

usage: equal.py A B

Both files are loaded with onnx.load(path, load_external_data=False) and compared with
`==` on ModelProto (protobuf equality: field presence, exact float bits and unknown
fields all count). Exit 0 when equal; otherwise print which top-level fields differ and
the first differing path, and exit 1.

The helpers here are also used by check_roundtrip.py.
"""

from __future__ import annotations

import math
import struct
import sys

import onnx
from google.protobuf.message import Message

_MAX_SHOW = 80


def load(path: str) -> onnx.ModelProto:
    return onnx.load(path, load_external_data=False)


def _is_repeated(field) -> bool:
    rep = getattr(field, "is_repeated", None)
    if rep is None:  # older protobuf
        rep = field.label == field.LABEL_REPEATED
    return bool(rep)


def _is_message(field) -> bool:
    return field.type in (field.TYPE_MESSAGE, field.TYPE_GROUP)


def _key(v):
    """Comparison key for a scalar: floats by their bits (NaN == NaN, -0.0 != 0.0)."""
    if isinstance(v, float):
        return struct.pack("<d", v)
    return v


def _show(v) -> str:
    if isinstance(v, (bytes, bytearray)):
        if len(v) > 32:
            return f"<{len(v)} bytes>"
        return repr(bytes(v))
    if isinstance(v, float) and (math.isnan(v) or v == 0.0):
        return f"{v!r} (bits {struct.pack('>d', v).hex()})"
    s = repr(v)
    return s if len(s) <= _MAX_SHOW else s[: _MAX_SHOW - 3] + "..."


def _label(msg: Message) -> str:
    """A short hint for list elements: op_type/name of nodes, name of others."""
    parts = []
    for attr in ("op_type", "name", "key"):
        f = msg.DESCRIPTOR.fields_by_name.get(attr)
        if f is not None and not _is_repeated(f) and getattr(msg, attr):
            parts.append(repr(getattr(msg, attr)))
    return "(" + " ".join(parts) + ")" if parts else ""


def first_difference(a: Message, b: Message, path: str = "") -> str | None:
    """Path and description of the first difference between two messages of one type,
    or None when they are equal."""
    if a == b:
        return None
    for field in a.DESCRIPTOR.fields:
        name = field.name
        p = f"{path}.{name}" if path else name
        va, vb = getattr(a, name), getattr(b, name)
        if _is_repeated(field):
            la, lb = len(va), len(vb)
            for i in range(min(la, lb)):
                if _is_message(field):
                    d = first_difference(va[i], vb[i], f"{p}[{i}]{_label(va[i])}")
                    if d:
                        return d
                elif _key(va[i]) != _key(vb[i]):
                    return f"{p}[{i}]: {_show(va[i])} != {_show(vb[i])}"
            if la != lb:
                return f"{p}: {la} entries != {lb} entries"
            continue
        has_a = a.HasField(name) if field.has_presence else None
        has_b = b.HasField(name) if field.has_presence else None
        if has_a != has_b:
            shown_a = _show(va) if has_a and not _is_message(field) else ("set" if has_a else "absent")
            shown_b = _show(vb) if has_b and not _is_message(field) else ("set" if has_b else "absent")
            return f"{p}: {shown_a} in A, {shown_b} in B"
        if _is_message(field):
            d = first_difference(va, vb, p)
            if d:
                return d
        elif _key(va) != _key(vb):
            return f"{p}: {_show(va)} != {_show(vb)}"
    return f"{path or '<model>'}: unknown fields differ ({_unknown_summary(a)} in A, {_unknown_summary(b)} in B)"


def _unknown_summary(msg: Message) -> str:
    try:
        from google.protobuf import unknown_fields

        fields = unknown_fields.UnknownFieldSet(msg)
        nums = [f.field_number for f in fields]
    except Exception:  # pragma: no cover - older/newer protobuf without the module
        return "?"
    return "fields " + ",".join(map(str, nums)) if nums else "none"


def differing_top_fields(a: onnx.ModelProto, b: onnx.ModelProto) -> list[str]:
    """Names of the ModelProto fields that differ (graph fields as graph.<name>)."""
    out = []
    for field in a.DESCRIPTOR.fields:
        name = field.name
        va, vb = getattr(a, name), getattr(b, name)
        if name == "graph" and a.HasField("graph") and b.HasField("graph"):
            sub = [f"graph.{g.name}" for g in va.DESCRIPTOR.fields
                   if not _field_equal(va, vb, g)]
            out += sub
            if not sub and va != vb:
                out.append("graph (unknown fields)")
            continue
        if not _field_equal(a, b, field):
            out.append(name)
    if not out and a != b:
        out.append("unknown fields")
    return out


def _field_equal(a: Message, b: Message, field) -> bool:
    name = field.name
    va, vb = getattr(a, name), getattr(b, name)
    if _is_repeated(field):
        if len(va) != len(vb):
            return False
        if _is_message(field):
            return all(x == y for x, y in zip(va, vb))
        return all(_key(x) == _key(y) for x, y in zip(va, vb))
    if field.has_presence and a.HasField(name) != b.HasField(name):
        return False
    if _is_message(field):
        return va == vb
    return _key(va) == _key(vb)


def describe(a: onnx.ModelProto, b: onnx.ModelProto) -> str | None:
    """None when equal, else a one-line description of what differs."""
    if a == b:
        return None
    fields = differing_top_fields(a, b)
    first = first_difference(a, b)
    return f"differs in {', '.join(fields) or '?'}; first difference: {first}"


def compare_files(path_a: str, path_b: str) -> str | None:
    """None when both files load to equal ModelProto, else what went wrong."""
    try:
        a = load(path_a)
    except Exception as e:
        return f"cannot load A ({path_a}): {type(e).__name__}: {e}"
    try:
        b = load(path_b)
    except Exception as e:
        return f"cannot load B ({path_b}): {type(e).__name__}: {e}"
    return describe(a, b)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    msg = compare_files(argv[0], argv[1])
    if msg is None:
        print("equal")
        return 0
    print(msg)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
