//! Hostile input: mutated models, absurd lengths, deep nesting, millions of nodes.
//! The importer must answer with a model or a clear error, never a panic or a hang.
//!
//! The mutation run here is short and deterministic (fixed seeds) so CI can afford it;
//! `GRAFT_FUZZ_ITERATIONS` makes it as long as you like (see BENCHMARKS.md for the long
//! run recorded for issue 2).

use std::panic::{AssertUnwindSafe, catch_unwind};

use bytes::Bytes;
use graft_tests::corpus;

/// A seeded generator (a failure replays), with a pick below `n` that takes 0.
struct Rng(fastrand::Rng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.u64(..)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0.usize(..n.max(1))
    }
}

fn mutate(rng: &mut Rng, input: &[u8]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        if out.is_empty() {
            out.push(rng.next() as u8);
            continue;
        }
        let at = rng.below(out.len());
        match rng.below(6) {
            0 => out[at] ^= 1 << rng.below(8),
            1 => out[at] = rng.next() as u8,
            2 => out.truncate(at),
            // A varint length of 2^40 where a length may stand.
            3 => {
                let huge = [0x80, 0x80, 0x80, 0x80, 0x80, 0x20];
                out.splice(at..at, huge);
            }
            4 => {
                let end = (at + rng.below(64)).min(out.len());
                let copy = out[at..end].to_vec();
                let to = rng.below(out.len());
                out.splice(to..to, copy);
            }
            _ => {
                let end = (at + rng.below(16)).min(out.len());
                out.drain(at..end);
            }
        }
    }
    out
}

/// Imports and, when that succeeds, exports: neither may panic.
fn exercise(bytes: Vec<u8>) -> Result<(), String> {
    catch_unwind(AssertUnwindSafe(|| {
        if let Ok(imported) = graft::import(Bytes::from(bytes)) {
            let options = graft::ExportOptions {
                allow_loss: true,
                ..Default::default()
            };
            let _ = graft::export(&imported.model, &options);
            let _ = graft::Summary::of(&imported.model, &imported.diagnostics);
        }
    }))
    .map_err(|_| "panicked".to_string())
}

#[test]
fn mutated_corpus_models_never_panic() {
    let Some(dir) = corpus::dir() else { return };
    let iterations: usize = std::env::var("GRAFT_FUZZ_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000);
    // Small seeds keep each iteration fast; large models add nothing a mutation needs.
    let seeds: Vec<Vec<u8>> = corpus::models(&dir)
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter(|b| b.len() < 64 * 1024)
        .step_by(7)
        .collect();
    assert!(!seeds.is_empty());
    let mut rng = Rng(fastrand::Rng::with_seed(0x9e37_79b9_7f4a_7c15));
    for i in 0..iterations {
        let seed = &seeds[rng.below(seeds.len())];
        let input = mutate(&mut rng, seed);
        if let Err(e) = exercise(input.clone()) {
            let path = std::env::temp_dir().join(format!("graft-crash-{i}.onnx"));
            let _ = std::fs::write(&path, &input);
            panic!("iteration {i}: {e}; input saved to {}", path.display());
        }
    }
}

/// Wraps `inner` as field `number` (length-delimited) of a message.
fn field(number: u32, inner: &[u8], out: &mut Vec<u8>) {
    let varint = |mut v: u64, out: &mut Vec<u8>| loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            break;
        }
        out.push(byte | 0x80);
    };
    varint(u64::from(number) << 3 | 2, out);
    varint(inner.len() as u64, out);
    out.extend_from_slice(inner);
}

#[test]
fn ten_thousand_nested_subgraphs_are_refused_cleanly() {
    // graph { node { attribute { g: graph { node { ... } } } } }, 10,000 levels.
    let mut graph = Vec::new();
    for _ in 0..10_000 {
        let mut attribute = Vec::new();
        field(6, &graph, &mut attribute);
        let mut node = Vec::new();
        field(5, &attribute, &mut node);
        let mut next = Vec::new();
        field(1, &node, &mut next);
        graph = next;
    }
    let mut model = vec![0x08, 10];
    field(7, &graph, &mut model);
    let result = graft::import(Bytes::from(model));
    assert!(
        matches!(&result, Err(graft::ImportError::Decode(m)) if m.contains("recursion")),
        "{:?}",
        result.map(|i| i.model.nodes.len())
    );
}

#[test]
fn huge_declared_lengths_are_errors() {
    // ModelProto field 7 (graph) declaring 2^40 bytes, then nothing.
    let model = [0x08, 10, 0x3a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20];
    assert!(matches!(
        graft::import(Bytes::copy_from_slice(&model)),
        Err(graft::ImportError::Decode(_))
    ));
}

#[test]
fn a_million_tiny_nodes_import() {
    // node { input: "v{i}" output: "v{i+1}" op_type: "Relu" }, a million times.
    let mut graph = Vec::new();
    for i in 0..1_000_000u32 {
        let mut node = Vec::new();
        field(1, format!("v{i}").as_bytes(), &mut node);
        field(2, format!("v{}", i + 1).as_bytes(), &mut node);
        field(4, b"Relu", &mut node);
        field(1, &node, &mut graph);
    }
    let mut input = Vec::new();
    field(1, b"v0", &mut input);
    field(11, &input, &mut graph);
    let mut model = vec![0x08, 10];
    field(7, &graph, &mut model);
    let imported = graft::import(Bytes::from(model)).expect("imports");
    assert_eq!(imported.model.nodes.len(), 1_000_000);
    assert!(
        imported.diagnostics.is_empty(),
        "{:?}",
        &imported.diagnostics[..1]
    );
}
