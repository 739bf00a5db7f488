//! Compound edits: one pass each (specialize, use an overload, expand a standard op,
//! rename or delete a function, inline a model or calls, outline, replace the model
//! or a function by text), all or nothing, undone by what they changed
//! ([`ModelDiff`]; replacing the whole model keeps the model before).

use bytes::Bytes;

use super::apply::{Restore, attribute_error, attribute_named, err, node_at};
use super::diff::ModelDiff;
use super::npy::base64_decode;
use super::path::{parse_key, resolve_path};
use super::{Edit, EditError, Field};
use crate::ir::Model;

/// Applies a compound edit (the primitive ones are `apply.rs`'s), recording in `undo`
/// the model as it was.
pub(super) fn apply(
    model: &mut Model,
    edit: &Edit,
    undo: &mut Vec<Restore>,
) -> Result<(), EditError> {
    match edit {
        Edit::Specialize {
            graph,
            node,
            attributes,
            keep,
        } => {
            let g = resolve_path(model, graph)?;
            let n = node_at(model, g, *node)?;
            let attrs = if attributes.trim().is_empty() {
                Vec::new()
            } else {
                crate::text::parse_attributes(attributes).map_err(|e| {
                    err(attribute_named(attributes), attribute_error(attributes, &e))
                })?
            };
            let options = crate::specialize::SpecializeOptions {
                keep: keep.iter().map(|k| parse_key(k)).collect(),
                only: None,
            };
            compound(model, undo, |m| {
                crate::specialize::specialize_with(m, n, &attrs, &options).map(|_| ())
            })?;
        }
        Edit::SpecializeAll { function, keep } => {
            let options = crate::specialize::SpecializeOptions {
                keep: keep.iter().map(|k| parse_key(k)).collect(),
                only: (!function.is_empty()).then(|| parse_key(function)),
            };
            compound(model, undo, |m| {
                crate::specialize::specialize_all_with(m, &options).map(|_| ())
            })?;
        }
        Edit::UseOverload {
            graph,
            node,
            overload,
        } => {
            let g = resolve_path(model, graph)?;
            let n = node_at(model, g, *node)?;
            compound(model, undo, |m| {
                crate::specialize::use_overload(m, n, overload)
            })?;
        }
        Edit::ExpandStandard { graph, node } => {
            let g = resolve_path(model, graph)?;
            let n = node_at(model, g, *node)?;
            compound(model, undo, |m| {
                crate::library::expand_standard(m, n).map(|_| ())
            })?;
        }
        Edit::RenameFunction { function, to } => {
            let to = parse_key(to);
            compound(model, undo, |m| {
                crate::library::rename_function(m, &parse_key(function), &to.domain, &to.name)
                    .map(|_| ())
            })?;
        }
        Edit::DeleteFunction { function } => {
            compound(model, undo, |m| {
                crate::library::delete_function(m, &parse_key(function))
            })?;
        }
        Edit::InlineModel {
            graph,
            guest_base64,
            bindings,
            expose,
            expose_all,
            prefix,
            function,
        } => {
            let g = resolve_path(model, graph)?;
            let bytes = base64_decode(guest_base64)
                .map_err(|e| err(Field::Data, format!("guest_base64: {e}")))?;
            let guest = crate::import(Bytes::from(bytes))
                .map_err(|e| err(Field::Data, format!("the guest model: {e}")))?
                .model;
            let mode = if function.is_empty() {
                crate::inline::Mode::Nodes
            } else {
                let key = parse_key(function);
                crate::inline::Mode::Function {
                    domain: key.domain,
                    name: key.name,
                }
            };
            let opts = crate::inline::InlineOptions {
                bindings: bindings.clone(),
                expose: expose
                    .iter()
                    .map(|(o, n)| (o.clone(), (!n.is_empty()).then(|| n.clone())))
                    .collect(),
                expose_all: *expose_all,
                prefix: (!prefix.is_empty()).then(|| prefix.clone()),
                target: (Some(g) != model.graph).then_some(g),
                mode,
                domain_versions: Vec::new(),
            };
            compound(model, undo, |m| {
                crate::inline::inline_model(m, &guest, &opts).map(|_| ())
            })?;
        }
        Edit::InlineCalls { function } => {
            let which = if function.is_empty() {
                crate::library::Which::All
            } else {
                crate::library::Which::Key(parse_key(function))
            };
            compound(model, undo, |m| {
                crate::library::inline_calls(m, &which).map(|_| ())
            })?;
        }
        Edit::Outline {
            graph,
            nodes,
            function,
        } => {
            let g = resolve_path(model, graph)?;
            let ids = nodes
                .iter()
                .map(|&k| node_at(model, g, k))
                .collect::<Result<Vec<_>, _>>()?;
            let key = parse_key(function);
            compound(model, undo, |m| {
                crate::library::outline(m, &ids, &key.domain, &key.name).map(|_| ())
            })?;
        }
        Edit::ReplaceModel { text } => {
            let parsed = crate::text::parse_model(text).map_err(text_error)?;
            let mut new = parsed.model;
            new.external_files = model.external_files.clone();
            let before = std::mem::replace(model, new);
            undo.push(Restore::Model(Box::new(before)));
        }
        Edit::ReplaceFunction { function, text } => {
            let key = parse_key(function);
            let f = model
                .find_function(&key)
                .ok_or_else(|| err(Field::Function, format!("no local function {key}")))?;
            let parsed = crate::text::parse_function(text).map_err(text_error)?;
            let new_key = parsed
                .model
                .functions
                .first()
                .map(|&g| parsed.model.function(g).key())
                .ok_or_else(|| {
                    err(
                        Field::Text { line: 1, column: 1 },
                        "the text holds no function",
                    )
                })?;
            if new_key != key && model.find_function(&new_key).is_some() {
                return Err(err(
                    Field::Function,
                    format!("a function {new_key} already exists"),
                ));
            }
            let position = model.functions.iter().position(|&g| g == f).unwrap_or(0);
            compound(model, undo, |model| {
                let (ids, _) = model.absorb(parsed.model);
                model.functions.retain(|&g| g != f);
                for (k, id) in ids.into_iter().enumerate() {
                    model
                        .functions
                        .insert((position + k).min(model.functions.len()), id);
                }
                Ok::<(), EditError>(())
            })?;
        }
        // The primitive edits: `apply.rs`.
        _ => {}
    }
    Ok(())
}

/// Text that does not parse, at its line and column.
fn text_error(e: crate::text::ParseError) -> EditError {
    err(
        Field::Text {
            line: e.line,
            column: e.column,
        },
        format!("line {}, column {}: {}", e.line, e.column, e.message),
    )
}

/// A compound edit: one of the passes (all or nothing each), undone by what it
/// changed.
fn compound<E: std::fmt::Display>(
    model: &mut Model,
    undo: &mut Vec<Restore>,
    run: impl FnOnce(&mut Model) -> Result<(), E>,
) -> Result<(), EditError> {
    let before = model.clone();
    if let Err(e) = run(model) {
        *model = before;
        return Err(err(Field::Edit, e.to_string()));
    }
    undo.push(Restore::Diff(Box::new(ModelDiff::between(before, model))));
    Ok(())
}
