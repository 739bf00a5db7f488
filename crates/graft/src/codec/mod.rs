//! The ONNX protobuf codec: the only place that sees the generated prost types.
//!
//! [`import`] decodes the wire format straight into the IR (tensor payloads stay slices
//! of the input buffer) and reports what it found odd, including fields the vendored
//! onnx.proto does not declare; [`export`] encodes the IR back through the prost types
//! generated from that onnx.proto. A model that
//! is imported and not edited exports to a model equal to the input.

mod export;
mod import;
mod proto;
mod skim;
mod wire;

use bytes::Bytes;
use prost::Message as _;

use crate::diag::{Diagnostic, Severity};
pub use crate::ir::UnknownField;
use crate::ir::{Model, Tensor};

/// A model and what the importer noticed about it.
#[derive(Debug)]
pub struct Imported {
    pub model: Model,
    pub diagnostics: Vec<Diagnostic>,
}

#[derive(Clone, Debug, thiserror::Error, PartialEq, Eq)]
pub enum ImportError {
    #[error(
        "this file is not an ONNX model, or it is damaged: its bytes do not decode as ONNX's protobuf ({0})"
    )]
    Decode(String),
    #[error(
        "not an ONNX model: the protobuf decodes but has no graph, no functions and no ir_version"
    )]
    NotAModel,
    #[error("could not read the model's file: {0}")]
    Read(String),
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ExportError {
    #[error(
        "export would drop {} field(s) this version of ONNX does not know (first: field {} of {}); pass allow_loss to export anyway",
        .0.len(), .0[0].field, .0[0].message
    )]
    WouldLoseUnknownFields(Vec<UnknownField>),
    /// A tensor's external data cannot be read: `location` is its data file.
    #[error("the weights in {location:?} cannot be read: {reason}")]
    Embed { location: String, reason: String },
    #[error("cannot read the bytes of {tensor} from the model's file: {reason}")]
    Unread { tensor: String, reason: String },
    #[error("cannot write the model: {0}")]
    Write(String),
}

/// Decodes an ONNX model. Never panics; a buffer that is not a model is an error, and a
/// model with odd content imports with diagnostics.
pub fn import(bytes: Bytes) -> Result<Imported, ImportError> {
    let (model, mut diagnostics) = match import::decode(&bytes) {
        Ok(decoded) => decoded,
        Err(wire::DecodeError::NotAModel) => return Err(ImportError::NotAModel),
        Err(wire::DecodeError::Malformed(message)) => return Err(ImportError::Decode(message)),
    };
    for u in &model.unknown_fields {
        diagnostics.push(Diagnostic::new(
            Severity::Warning,
            "import.unknown-field",
            format!(
                "{} has field {} (wire type {}), which ONNX 1.23 does not define; it cannot be written back",
                u.message, u.field, u.wire_type
            ),
            String::new(),
        ));
    }
    Ok(Imported { model, diagnostics })
}

/// Decodes an ONNX model read through `source` a range at a time, leaving every tensor's
/// `raw_data` of at least `min` bytes in the file (`Tensor::unread`, read back through
/// [`Model::file`], which keeps `source`): a model with a gigabyte of weights costs
/// the memory of its structure (payloads over a megabyte are not even read). The model
/// and its diagnostics are those [`import`] gives for the whole file; a file the
/// skimming does not expect (or that does not decode) is read whole and imported.
pub fn import_from(
    source: std::rc::Rc<dyn crate::external::ReadRange>,
    min: u64,
) -> Result<Imported, ImportError> {
    match skim::skim(&*source, min) {
        Ok((skimmed, holes)) => {
            let whole = holes.is_empty();
            match import(Bytes::from(skimmed)) {
                Ok(imported) if whole => return Ok(imported),
                Ok(mut imported) => {
                    if skim::fill(&mut imported.model, &holes) {
                        // Read back a tensor at a time, ahead: neighbours come together.
                        let ahead = crate::external::ReadAhead::new(source);
                        imported.model.file =
                            Some(crate::external::DataFile::Source(std::rc::Rc::new(ahead)));
                        return Ok(imported);
                    }
                }
                // The file is read again for the importer's exact error.
                Err(_) => {}
            }
        }
        Err(skim::Skim::Read(reason)) => return Err(ImportError::Read(reason)),
        Err(skim::Skim::Unusual) => {}
    }
    let bytes = source.read(0, source.len()).map_err(ImportError::Read)?;
    import(bytes)
}

/// How to export.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// Export even though fields unknown to this ONNX version would be dropped.
    pub allow_loss: bool,
    /// Write external tensors' bytes into the model (from the attached data files).
    pub embed_external: bool,
    /// Write external tensors' bytes into one new data file of this name (relative to
    /// the model), as [`export_to`] returns them: only the ranges the model uses, a
    /// range shared by several tensors once. For an output that is not beside the
    /// data files the model was read with. Ignored with `embed_external`.
    pub external_to: Option<String>,
}

/// The contents of the new data file of [`ExportOptions::external_to`], in order: slices
/// of the attached data files, to be written one after another.
#[derive(Clone, Debug, Default)]
pub struct DataFile {
    pub pieces: Vec<Bytes>,
}

impl DataFile {
    pub fn len(&self) -> u64 {
        self.pieces.iter().map(|p| p.len() as u64).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }
}

/// Encodes the model. Deterministic: the same IR gives the same bytes. (With
/// [`ExportOptions::external_to`], use [`export_to`], which also gives the data file.)
pub fn export(model: &Model, options: &ExportOptions) -> Result<Vec<u8>, ExportError> {
    Ok(build(model, options)?.0.encode_to_vec())
}

/// Encodes the model into `out`, the same bytes as [`export`], without holding the
/// whole encoding in memory: the main graph's initializers are encoded and written
/// one at a time (tensor payloads are shared with the model until then). For big
/// models this halves the peak memory of writing a file. Returns the new data file's
/// contents when [`ExportOptions::external_to`] asks for one (else it is empty).
pub fn export_to(
    model: &Model,
    options: &ExportOptions,
    out: &mut dyn std::io::Write,
) -> Result<DataFile, ExportError> {
    let (mut proto, data) = build(model, options)?;
    let write = |out: &mut dyn std::io::Write, bytes: &[u8]| {
        out.write_all(bytes)
            .map_err(|e| ExportError::Write(e.to_string()))
    };
    let Some(mut graph) = proto.graph.take() else {
        return write(out, &proto.encode_to_vec()).map(|()| data);
    };
    // prost writes fields in tag order, so the model is: fields before `graph` (7),
    // the graph, fields after it; and the graph is: `node` (1), `name` (2),
    // `initializer` (5) one by one, the fields after it.
    let head = proto::ModelProto {
        ir_version: proto.ir_version.take(),
        producer_name: proto.producer_name.take(),
        producer_version: proto.producer_version.take(),
        domain: proto.domain.take(),
        model_version: proto.model_version.take(),
        doc_string: proto.doc_string.take(),
        ..Default::default()
    };
    write(out, &head.encode_to_vec())?;
    let mut key_and_length = Vec::with_capacity(20);
    prost::encoding::encode_key(
        7,
        prost::encoding::WireType::LengthDelimited,
        &mut key_and_length,
    );
    prost::encoding::encode_varint(graph.encoded_len() as u64, &mut key_and_length);
    write(out, &key_and_length)?;
    let initializers = std::mem::take(&mut graph.initializer);
    let graph_head = proto::GraphProto {
        node: std::mem::take(&mut graph.node),
        name: graph.name.take(),
        ..Default::default()
    };
    write(out, &graph_head.encode_to_vec())?;
    drop(graph_head);
    let mut buffer = Vec::new();
    for tensor in &initializers {
        buffer.clear();
        prost::encoding::message::encode(5, tensor, &mut buffer);
        write(out, &buffer)?;
    }
    write(out, &graph.encode_to_vec())?;
    write(out, &proto.encode_to_vec())?;
    Ok(data)
}

fn build(
    model: &Model,
    options: &ExportOptions,
) -> Result<(proto::ModelProto, DataFile), ExportError> {
    if !model.unknown_fields.is_empty() && !options.allow_loss {
        return Err(ExportError::WouldLoseUnknownFields(
            model.unknown_fields.clone(),
        ));
    }
    let failure = std::cell::RefCell::new(None);
    // The new data file: its pieces, and where each source range went.
    type Placed = crate::hash::FxMap<(String, u64, usize), u64>;
    let moved: std::cell::RefCell<(DataFile, Placed, u64)> = Default::default();
    let relocate = |t: &Tensor| -> Option<export::Payload> {
        let ext = t.external_ref()?;
        let bytes = match crate::external::resolve(model, t, &ext) {
            Ok(bytes) => bytes,
            Err(reason) => {
                failure.borrow_mut().get_or_insert(ExportError::Embed {
                    location: ext.location.clone(),
                    reason,
                });
                return None;
            }
        };
        if options.embed_external {
            return Some(export::Payload::Embed(bytes));
        }
        let location = options.external_to.clone()?;
        let length = bytes.len() as u64;
        let (file, placed, end) = &mut *moved.borrow_mut();
        let key = (ext.location, ext.offset, bytes.len());
        let offset = *placed.entry(key).or_insert_with(|| {
            let at = *end;
            *end += length;
            file.pieces.push(bytes);
            at
        });
        Some(export::Payload::Moved {
            location,
            offset,
            length,
        })
    };
    let exporter = export::Exporter {
        model,
        unread_failure: Default::default(),
        // A failed read leaves the payloads to be read one at a time, which names the
        // tensor whose read fails.
        unread: crate::external::read_unread(model).unwrap_or_default(),
        relocate: (options.embed_external || options.external_to.is_some())
            .then_some(&relocate as &dyn Fn(&Tensor) -> Option<export::Payload>),
    };
    let proto = exporter.model();
    let unread_failure = exporter.unread_failure.into_inner();
    if let Some(e) = failure.into_inner().or(unread_failure) {
        return Err(e);
    }
    Ok((proto, moved.into_inner().0))
}
