//! The parser of the registry text (format: `tests/interop/dump_schemas.py`).

use bytes::Bytes;

use super::{
    AttributeSchema, Determinism, Differentiation, FormalParameter, FunctionBody, OpSchema,
    ParamOption, SupportLevel, TypeConstraint,
};
use crate::ir::{AttrType, AttrValue};

/// A field that repeats the previous schema of the same operator.
const SAME: &str = "\\=";

#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub onnx_version: String,
    pub schemas: Vec<OpSchema>,
    pub ranges: Vec<(String, i64, i64)>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("line {line}: {message}")]
pub(super) struct ParseError {
    pub line: usize,
    pub message: String,
}

pub(super) fn parse(text: &str) -> Result<Parsed, ParseError> {
    let mut parsed = Parsed::default();
    // The schema being read; pushed to `parsed.schemas` at the next `S` or the end.
    let mut current: Option<OpSchema> = None;
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |message: String| ParseError {
            line: i + 1,
            message,
        };
        let mut fields = Fields {
            rest: line.split('\t'),
        };
        let tag = fields.next().map_err(&err)?;
        if tag == "S" {
            parsed.schemas.extend(current.take());
            let schema = schema_header(&mut fields).map_err(&err)?;
            // The registry indexes one op's history as a range of the list.
            if parsed
                .schemas
                .last()
                .is_some_and(|p| key(p) >= key(&schema))
            {
                return Err(err(format!("{} is out of order", schema.name)));
            }
            current = Some(schema);
        } else if let Some(schema) = current.as_mut() {
            let previous = parsed
                .schemas
                .last()
                .filter(|p| p.domain == schema.domain && p.name == schema.name);
            schema_record(tag, &mut fields, schema, previous).map_err(&err)?;
        } else {
            file_record(tag, &mut fields, &mut parsed).map_err(&err)?;
        }
        fields.end().map_err(&err)?;
    }
    parsed.schemas.extend(current);
    Ok(parsed)
}

fn key(s: &OpSchema) -> (&str, &str, i64) {
    (&s.domain, &s.name, s.since_version)
}

/// The tab-separated fields of one line.
struct Fields<'a> {
    rest: std::str::Split<'a, char>,
}

impl<'a> Fields<'a> {
    fn next(&mut self) -> Result<&'a str, String> {
        self.rest.next().ok_or_else(|| "too few fields".to_string())
    }

    fn text(&mut self) -> Result<String, String> {
        unescape(self.next()?)
    }

    /// A text field that may be [`SAME`]: then the text `previous` gives.
    fn text_or_same(&mut self, previous: Option<&str>) -> Result<String, String> {
        let field = self.next()?;
        if field == SAME {
            previous
                .map(str::to_string)
                .ok_or_else(|| "`\\=` without a previous version to repeat".to_string())
        } else {
            unescape(field)
        }
    }

    fn int<T: std::str::FromStr>(&mut self) -> Result<T, String> {
        let field = self.next()?;
        field
            .parse()
            .map_err(|_| format!("`{field}` is not a valid number"))
    }

    fn flag(&mut self) -> Result<bool, String> {
        match self.next()? {
            "0" => Ok(false),
            "1" => Ok(true),
            other => Err(format!("`{other}` is not 0 or 1")),
        }
    }

    fn remaining(&mut self) -> impl Iterator<Item = &'a str> + '_ {
        &mut self.rest
    }

    fn end(&mut self) -> Result<(), String> {
        match self.rest.next() {
            None => Ok(()),
            Some(_) => Err("too many fields".to_string()),
        }
    }
}

fn file_record(tag: &str, fields: &mut Fields, parsed: &mut Parsed) -> Result<(), String> {
    match tag {
        "onnx" => parsed.onnx_version = fields.text()?,
        "R" => {
            let domain = fields.text()?;
            let first = fields.int()?;
            let last = fields.int()?;
            parsed.ranges.push((domain, first, last));
        }
        other => return Err(format!("unexpected record `{other}` outside a schema")),
    }
    Ok(())
}

fn schema_header(fields: &mut Fields) -> Result<OpSchema, String> {
    Ok(OpSchema {
        domain: fields.text()?,
        name: fields.text()?,
        since_version: fields.int()?,
        deprecated: fields.flag()?,
        support_level: match fields.next()? {
            "common" => SupportLevel::Common,
            "experimental" => SupportLevel::Experimental,
            other => return Err(format!("unknown support level `{other}`")),
        },
        determinism: match yes_no(fields.next()?)? {
            Some(true) => Determinism::Deterministic,
            Some(false) => Determinism::NonDeterministic,
            None => Determinism::Unknown,
        },
        min_inputs: fields.int()?,
        max_inputs: fields.int()?,
        min_outputs: fields.int()?,
        max_outputs: fields.int()?,
        doc: String::new(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        type_constraints: Vec::new(),
        attributes: Vec::new(),
        has_function: false,
        function_bodies: Vec::new(),
        has_context_dependent_function: false,
        context_dependent_function_opsets: Vec::new(),
    })
}

/// A record of the schema being read; `previous` is the version before it, if any.
fn schema_record(
    tag: &str,
    fields: &mut Fields,
    schema: &mut OpSchema,
    previous: Option<&OpSchema>,
) -> Result<(), String> {
    match tag {
        "D" => schema.doc = fields.text_or_same(previous.map(|p| p.doc.as_str()))?,
        "I" => {
            let before = previous.map(|p| p.inputs.as_slice()).unwrap_or(&[]);
            schema.inputs.push(parameter(fields, before)?);
        }
        "O" => {
            let before = previous.map(|p| p.outputs.as_slice()).unwrap_or(&[]);
            schema.outputs.push(parameter(fields, before)?);
        }
        "T" => {
            let name = fields.text()?;
            let before = previous.and_then(|p| p.type_constraint(&name));
            let description = fields.text_or_same(before.map(|t| t.description.as_str()))?;
            let allowed = match fields.remaining().collect::<Vec<_>>().as_slice() {
                [SAME] => before
                    .map(|t| t.allowed.clone())
                    .ok_or_else(|| "`\\=` without a previous version to repeat".to_string())?,
                list => list.iter().map(|f| unescape(f)).collect::<Result<_, _>>()?,
            };
            schema.type_constraints.push(TypeConstraint {
                name,
                allowed,
                description,
            });
        }
        "A" => {
            let name = fields.text()?;
            let ty_name = fields.next()?;
            let ty =
                AttrType::from_name(ty_name).ok_or_else(|| format!("unknown type `{ty_name}`"))?;
            let required = fields.flag()?;
            let before = previous.and_then(|p| p.attribute(&name));
            let description = fields.text_or_same(before.map(|a| a.description.as_str()))?;
            let (default, default_proto) = attr_default(fields)?;
            if schema.attributes.last().is_some_and(|a| a.name >= name) {
                return Err(format!("attribute `{name}` is out of order"));
            }
            schema.attributes.push(AttributeSchema {
                name,
                ty,
                required,
                default,
                default_proto,
                description,
            });
        }
        "F" => {
            let opset_version = fields.int()?;
            let bytes = hex(fields.next()?)?;
            if schema
                .function_bodies
                .last()
                .is_some_and(|b| b.opset_version >= opset_version)
            {
                return Err("function bodies are out of order".to_string());
            }
            schema.has_function = true;
            schema.function_bodies.push(FunctionBody {
                opset_version,
                bytes,
            });
        }
        "C" => {
            schema.has_context_dependent_function = true;
            schema.context_dependent_function_opsets.push(fields.int()?);
        }
        other => return Err(format!("unexpected record `{other}` in a schema")),
    }
    Ok(())
}

fn parameter(fields: &mut Fields, before: &[FormalParameter]) -> Result<FormalParameter, String> {
    let name = fields.text()?;
    let type_str = fields.text()?;
    let option = match fields.next()? {
        "single" => ParamOption::Single,
        "optional" => ParamOption::Optional,
        "variadic" => ParamOption::Variadic,
        other => return Err(format!("unknown option `{other}`")),
    };
    let homogeneous = fields.flag()?;
    let min_arity = fields.int()?;
    let differentiation = match yes_no(fields.next()?)? {
        Some(true) => Differentiation::Differentiable,
        Some(false) => Differentiation::NonDifferentiable,
        None => Differentiation::Unknown,
    };
    let previous = before.iter().find(|p| p.name == name);
    let description = fields.text_or_same(previous.map(|p| p.description.as_str()))?;
    Ok(FormalParameter {
        name,
        type_str,
        option,
        homogeneous,
        min_arity,
        differentiation,
        description,
    })
}

fn yes_no(field: &str) -> Result<Option<bool>, String> {
    match field {
        "yes" => Ok(Some(true)),
        "no" => Ok(Some(false)),
        "unknown" => Ok(None),
        other => Err(format!("`{other}` is not yes, no or unknown")),
    }
}

/// DEFAULT_KIND and its VALUEs: a simple value, or the serialized `AttributeProto`.
type Default = (Option<AttrValue>, Option<Vec<u8>>);

fn attr_default(fields: &mut Fields) -> Result<Default, String> {
    let kind = fields.next()?;
    let value = match kind {
        "-" => return Ok((None, None)),
        "proto" => return Ok((None, Some(hex(fields.next()?)?))),
        "float" => AttrValue::Float(float(fields.next()?)?),
        "int" => AttrValue::Int(fields.int()?),
        "string" => AttrValue::String(Bytes::from(fields.text()?)),
        "floats" => AttrValue::Floats(fields.remaining().map(float).collect::<Result<_, _>>()?),
        "ints" => AttrValue::Ints(
            fields
                .remaining()
                .map(|f| f.parse().map_err(|_| format!("`{f}` is not an integer")))
                .collect::<Result<_, _>>()?,
        ),
        "strings" => AttrValue::Strings(
            fields
                .remaining()
                .map(|f| unescape(f).map(Bytes::from))
                .collect::<Result<_, _>>()?,
        ),
        other => return Err(format!("unknown default kind `{other}`")),
    };
    Ok((Some(value), None))
}

fn float(field: &str) -> Result<f32, String> {
    field
        .parse()
        .map_err(|_| format!("`{field}` is not a float"))
}

/// Undoes the escapes `\\` `\t` `\n` `\r`.
fn unescape(field: &str) -> Result<String, String> {
    let mut out = String::with_capacity(field.len());
    let mut rest = field;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let mut after = rest[at + 1..].chars();
        out.push(match after.next() {
            Some('\\') => '\\',
            Some('t') => '\t',
            Some('n') => '\n',
            Some('r') => '\r',
            Some(other) => return Err(format!("unknown escape `\\{other}`")),
            None => return Err("`\\` at the end of a field".to_string()),
        });
        rest = after.as_str();
    }
    out.push_str(rest);
    Ok(out)
}

fn hex(field: &str) -> Result<Vec<u8>, String> {
    let digit = |b: u8| match b {
        b'0'..=b'9' => Ok(b - b'0'),
        b'a'..=b'f' => Ok(b - b'a' + 10),
        _ => Err(format!("`{}` is not a hex digit", char::from(b))),
    };
    let bytes = field.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return Err("odd number of hex digits".to_string());
    }
    bytes
        .chunks_exact(2)
        .map(|pair| match pair {
            [hi, lo] => Ok(digit(*hi)? << 4 | digit(*lo)?),
            _ => Err("odd number of hex digits".to_string()),
        })
        .collect()
}
