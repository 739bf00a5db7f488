#!/usr/bin/env python3
"""Write every operator schema onnx knows, with its full version history, as text.

usage: dump_schemas.py OUT_FILE

`cargo xtask schemas` runs this and commits the output as
crates/graft/src/schema/onnx-<version>.schemas; the core embeds and parses it
(crates/graft/src/schema/parse.rs). The output is deterministic: schemas sorted by
(domain, name, since_version), attributes by name, everything else in declared order.

The format, one record per line, fields separated by TAB:

    # comment
    onnx VERSION                       the onnx package the file was written from
    R DOMAIN MIN MAX                   opset version range of a domain
    S DOMAIN NAME SINCE DEPRECATED SUPPORT DETERMINISM MIN_IN MAX_IN MIN_OUT MAX_OUT
                                       starts a schema; the records below belong to it
    D DOC                              its documentation
    I NAME TYPE OPTION HOMOGENEOUS MIN_ARITY DIFFERENTIATION DESCRIPTION    an input
    O (as I)                           an output
    T NAME DESCRIPTION ALLOWED...      a type constraint; one field per allowed type
    A NAME TYPE REQUIRED DESCRIPTION DEFAULT_KIND VALUE...    an attribute
    F OPSET HEX                        a function body for that opset: FunctionProto bytes
    C OPSET                            a context-dependent function exists for that opset

Booleans are 0/1; OPTION is single|optional|variadic; SUPPORT is common|experimental;
DETERMINISM and DIFFERENTIATION are yes|no|unknown. DEFAULT_KIND is `-` (no default),
float|int|string (one VALUE), floats|ints|strings (one VALUE per element) or proto (one
VALUE: the AttributeProto bytes in hex, for any default that is not one of those).
Floats are the shortest decimal that gives back the same float32.

Text fields escape `\\` `\t` `\n` `\r`. A field that is exactly `\=` repeats what the
previous schema of the same operator has in that place: its doc (D), the description of
the input/output/attribute/type constraint of the same name, or (as the only ALLOWED
field) the allowed types of the type constraint of the same name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import onnx.defs
from onnx import AttributeProto
from onnx.onnx_cpp2py_export import defs as cdefs

SAME = "\\="

OPTION = {
    onnx.defs.OpSchema.FormalParameterOption.Single: "single",
    onnx.defs.OpSchema.FormalParameterOption.Optional: "optional",
    onnx.defs.OpSchema.FormalParameterOption.Variadic: "variadic",
}
SUPPORT = {
    onnx.defs.OpSchema.SupportType.COMMON: "common",
    onnx.defs.OpSchema.SupportType.EXPERIMENTAL: "experimental",
}
DETERMINISM = {
    onnx.defs.OpSchema.NodeDeterminism.Deterministic: "yes",
    onnx.defs.OpSchema.NodeDeterminism.NonDeterministic: "no",
    onnx.defs.OpSchema.NodeDeterminism.Unknown: "unknown",
}
DIFFERENTIATION = {
    onnx.defs.OpSchema.DifferentiationCategory.Differentiable: "yes",
    onnx.defs.OpSchema.DifferentiationCategory.NonDifferentiable: "no",
    onnx.defs.OpSchema.DifferentiationCategory.Unknown: "unknown",
}


def esc(text: str) -> str:
    return (
        text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")
    )


def line(*fields: str) -> str:
    return "\t".join(fields) + "\n"


def flag(b: bool) -> str:
    return "1" if b else "0"


def float32_text(value: float) -> str | None:
    """The shortest decimal that parses back to the same float32 bits, if finite."""
    f = np.float32(value)
    if not np.isfinite(f):
        return None
    text = str(f)
    if np.float32(text).tobytes() != f.tobytes():
        return None
    return text


def default_fields(name: str, attr: AttributeProto) -> list[str]:
    """DEFAULT_KIND and VALUEs of an attribute's default (`-` when it has none)."""
    if attr.ByteSize() == 0:
        return ["-"]
    simple = attr.name == name and not attr.doc_string and not attr.ref_attr_name
    set_fields = {f.name for f, _ in attr.ListFields()} - {"name", "type"}
    t = attr.type
    value_field = {
        AttributeProto.FLOAT: "f",
        AttributeProto.INT: "i",
        AttributeProto.STRING: "s",
        AttributeProto.FLOATS: "floats",
        AttributeProto.INTS: "ints",
        AttributeProto.STRINGS: "strings",
    }.get(t)
    # A scalar needs its field set; an empty list has none set.
    is_list = t in (AttributeProto.FLOATS, AttributeProto.INTS, AttributeProto.STRINGS)
    if simple and value_field and set_fields <= {value_field} and (is_list or set_fields):
        try:
            if t == AttributeProto.FLOAT:
                text = float32_text(attr.f)
                if text is not None:
                    return ["float", text]
            elif t == AttributeProto.INT:
                return ["int", str(attr.i)]
            elif t == AttributeProto.STRING:
                return ["string", esc(attr.s.decode("utf-8"))]
            elif t == AttributeProto.FLOATS:
                texts = [float32_text(v) for v in attr.floats]
                if all(x is not None for x in texts):
                    return ["floats", *texts]
            elif t == AttributeProto.INTS:
                return ["ints", *(str(v) for v in attr.ints)]
            elif t == AttributeProto.STRINGS:
                return ["strings", *(esc(s.decode("utf-8")) for s in attr.strings)]
        except UnicodeDecodeError:
            pass
    return ["proto", attr.SerializeToString(deterministic=True).hex()]


def text_or_same(text: str, previous: str | None) -> str:
    return SAME if previous is not None and previous == text else esc(text)


def param_lines(tag: str, params, previous) -> list[str]:
    before = {p.name: p.description for p in previous} if previous is not None else {}
    out = []
    for p in params:
        out.append(
            line(
                tag,
                esc(p.name),
                esc(p.type_str),
                OPTION[p.option],
                flag(p.is_homogeneous),
                str(p.min_arity),
                DIFFERENTIATION[p.differentiation_category],
                text_or_same(p.description, before.get(p.name)),
            )
        )
    return out


def schema_lines(s, prev) -> list[str]:
    out = [
        line(
            "S",
            esc(s.domain),
            esc(s.name),
            str(s.since_version),
            flag(s.deprecated),
            SUPPORT[s.support_level],
            DETERMINISM[s.node_determinism],
            str(s.min_input),
            str(s.max_input),
            str(s.min_output),
            str(s.max_output),
        )
    ]
    out.append(line("D", text_or_same(s.doc or "", (prev.doc or "") if prev else None)))
    out += param_lines("I", s.inputs, prev.inputs if prev else None)
    out += param_lines("O", s.outputs, prev.outputs if prev else None)
    before = {t.type_param_str: t for t in prev.type_constraints} if prev else {}
    for t in s.type_constraints:
        old = before.get(t.type_param_str)
        allowed = list(t.allowed_type_strs)
        if old is not None and list(old.allowed_type_strs) == allowed:
            allowed_fields = [SAME]
        else:
            allowed_fields = [esc(a) for a in allowed]
        desc = text_or_same(t.description, old.description if old else None)
        out.append(line("T", esc(t.type_param_str), desc, *allowed_fields))
    before_attrs = prev.attributes if prev else {}
    for name in sorted(s.attributes):
        a = s.attributes[name]
        old = before_attrs.get(name)
        out.append(
            line(
                "A",
                esc(name),
                AttributeProto.AttributeType.Name(int(a.type.value)).lower(),
                flag(a.required),
                text_or_same(a.description, old.description if old else None),
                *default_fields(name, a.default_value),
            )
        )
    if s.has_function:
        versions = sorted(s.function_opset_versions)
        bodies = [s.get_function_with_opset_version(v) for v in versions]
        # `function_body` (what onnx calls the body) is the one of the latest opset.
        assert bodies and bodies[-1] == s._function_body, (s.name, s.since_version)
        out += [line("F", str(v), b.hex()) for v, b in zip(versions, bodies)]
    else:
        assert not list(s.function_opset_versions), (s.name, s.since_version)
    if s.has_context_dependent_function:
        versions = sorted(s.context_dependent_function_opset_versions)
        assert versions, (s.name, s.since_version)
        out += [line("C", str(v)) for v in versions]
    return out


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    schemas = sorted(
        onnx.defs.get_all_schemas_with_history(),
        key=lambda s: (s.domain, s.name, s.since_version),
    )
    out = [
        "# Operator schemas of onnx, all domains and versions. Generated by\n",
        "# tests/interop/dump_schemas.py (the format is described there); do not edit,\n",
        "# run `cargo xtask schemas`.\n",
        line("onnx", onnx.__version__),
    ]
    for domain, (lo, hi) in sorted(cdefs.schema_version_map().items()):
        out.append(line("R", esc(domain), str(lo), str(hi)))
    prev = None
    for s in schemas:
        same_op = prev is not None and (prev.domain, prev.name) == (s.domain, s.name)
        out += schema_lines(s, prev if same_op else None)
        prev = s
    Path(sys.argv[1]).write_text("".join(out), encoding="utf-8", newline="\n")


if __name__ == "__main__":
    main()
