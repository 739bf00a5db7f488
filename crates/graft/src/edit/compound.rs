//! Compound edits: one pass each (specialize, use an overload, expand a standard op,
//! rename or delete a function, inline a model or calls, outline, replace the model
//! or a function by text), all or nothing, undone by what they changed
//! ([`ModelDiff`]; replacing the whole model keeps the model before).

use super::apply::{Restore, err};
use super::diff::ModelDiff;
use super::{Change, EditError, Field};
use crate::ir::Model;

/// Applies a compound change (the primitive ones are `apply.rs`'s), recording in
/// `undo` what it changed.
pub(super) fn apply(
    model: &mut Model,
    change: &Change,
    undo: &mut Vec<Restore>,
) -> Result<(), EditError> {
    match change {
        Change::Specialize {
            node,
            attributes,
            keep,
        } => {
            let options = crate::specialize::SpecializeOptions {
                keep: keep.clone(),
                only: None,
            };
            compound(model, undo, |m| {
                crate::specialize::specialize_with(m, *node, attributes, &options).map(|_| ())
            })?;
        }
        Change::SpecializeAll { function, keep } => {
            let options = crate::specialize::SpecializeOptions {
                keep: keep.clone(),
                only: function.clone(),
            };
            compound(model, undo, |m| {
                crate::specialize::specialize_all_with(m, &options).map(|_| ())
            })?;
        }
        Change::UseOverload { node, overload } => {
            compound(model, undo, |m| {
                crate::specialize::use_overload(m, *node, overload)
            })?;
        }
        Change::ExpandStandard { node } => {
            compound(model, undo, |m| {
                crate::library::expand_standard(m, *node).map(|_| ())
            })?;
        }
        Change::RenameFunction { function, to } => {
            compound(model, undo, |m| {
                crate::library::rename_function(m, function, &to.domain, &to.name).map(|_| ())
            })?;
        }
        Change::DeleteFunction { function } => {
            compound(model, undo, |m| {
                crate::library::delete_function(m, function)
            })?;
        }
        // It only appends to the host: undone by truncating, with no copy.
        Change::InlineModel { guest, options } => {
            let (_, u) = crate::inline::inline_model_undoable(model, guest, options)
                .map_err(|e| err(Field::Edit, e.to_string()))?;
            undo.push(Restore::Inline(u));
        }
        Change::InlineCalls { function } => {
            let which = match function {
                None => crate::library::Which::All,
                Some(key) => crate::library::Which::Key(key.clone()),
            };
            compound(model, undo, |m| {
                crate::library::inline_calls(m, &which).map(|_| ())
            })?;
        }
        Change::Outline { nodes, function } => {
            compound(model, undo, |m| {
                crate::library::outline(m, nodes, &function.domain, &function.name).map(|_| ())
            })?;
        }
        Change::ReplaceModel { text } => {
            let parsed = crate::text::parse_model(text).map_err(text_error)?;
            let mut new = parsed.model;
            new.external_files = model.external_files.clone();
            // Tensors the text leaves in the model's file (`unread`) still read from it.
            new.file = model.file.clone();
            let before = std::mem::replace(model, new);
            undo.push(Restore::Model(Box::new(before)));
        }
        Change::ReplaceFunction {
            function: key,
            text,
        } => {
            let f = model
                .find_function(key)
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
            if new_key != *key && model.find_function(&new_key).is_some() {
                return Err(err(
                    Field::Function,
                    format!("a function {new_key} already exists"),
                ));
            }
            let position = model.functions.iter().position(|&g| g == f).unwrap_or(0);
            let text = parsed.model;
            compound(model, undo, |model| {
                let (ids, _) = model.absorb(text);
                model.functions.retain(|&g| g != f);
                for (k, id) in ids.into_iter().enumerate() {
                    model
                        .functions
                        .insert((position + k).min(model.functions.len()), id);
                }
                Ok::<(), EditError>(())
            })?;
        }
        // The primitive changes: `apply.rs`.
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
