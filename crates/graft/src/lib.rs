//! Graft's core: the ONNX IR, its lossless codec, and (in later modules) the text
//! format, checker and passes. Pure Rust: no browser, no file system, no threads; the
//! same code runs in the wasm app, the CLI and the tests.

pub mod builder;
pub mod calls;
pub mod check;
pub mod codec;
pub mod diag;
pub mod diff;
pub mod edit;
pub mod external;
pub mod hash;
pub mod host;
pub mod infer;
pub mod inline;
pub mod interned;
pub mod ir;
pub mod library;
pub mod opset;
pub mod schema;
pub mod specialize;
pub mod summary;
pub mod text;
pub mod values;
pub mod view;

pub use codec::{
    DataFile, ExportError, ExportOptions, ImportError, Imported, export, export_to, import,
};
pub use diag::{Diagnostic, Severity};
pub use ir::Model;
pub use summary::Summary;
