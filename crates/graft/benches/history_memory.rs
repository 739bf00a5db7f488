//! Memory of an edit history (`cargo bench -p graft --bench history_memory`): the
//! 10k-node model with 132 MB of weights inside (`generated/large_10k.onnx` of the
//! corpus) is imported, then 1,000 edits are applied through `graft::edit::History`
//! (a mix of the kinds a user makes: set an attribute, rename a value, rename a node,
//! add a node, delete a node with reconnection, connect an input). A counting global
//! allocator gives the bytes live on the heap: the model's own footprint (the file's
//! buffer, which tensor payloads are slices of, plus the IR) and the history's on top.
//! Not a timing, so not criterion; the target is history < 1x the model (the
//! total under 2x).

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use graft::edit::{Edit, History};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; only the byte
// count is kept beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        LIVE.fetch_add(new_size, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const STEPS: usize = 1_000;
const COMPOUND_STEPS: usize = 20;

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn main() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::var_os("GRAFT_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| manifest.join("../../target/corpus"));
    let path = corpus.join("generated/large_10k.onnx");
    let start = LIVE.load(Ordering::Relaxed);
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("missing {} (run cargo xtask corpus)", path.display());
        return;
    };
    let Ok(imported) = graft::import(bytes::Bytes::from(bytes)) else {
        eprintln!("{} does not import", path.display());
        return;
    };
    let mut model = imported.model;
    drop(imported.diagnostics);
    let model_bytes = LIVE.load(Ordering::Relaxed) - start;
    let weights: u64 = model
        .graphs
        .iter()
        .flat_map(|(_, g)| &g.initializers)
        .map(|i| i.tensor.payload_bytes())
        .sum();
    let main = model.graph.expect("a main graph");
    let mut history = History::default();
    let mut seed: u64 = 0x853c_49e6_748f_ea9b;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n.max(1) as u64) as usize
    };
    let (mut applied, mut refused) = (0, 0);
    let mut kinds = [0usize; 6];
    while applied < STEPS {
        let nodes = &model.graph(main).nodes;
        let k = next(nodes.len());
        let node = model.node(nodes[k]);
        let output = node
            .outputs
            .iter()
            .flatten()
            .next()
            .map(|&v| model.value(v).name.clone())
            .unwrap_or_default();
        let input = node
            .inputs
            .iter()
            .flatten()
            .next()
            .map(|&v| model.value(v).name.clone())
            .unwrap_or_default();
        let kind = (applied + refused) % 6;
        // Set an attribute the op has: the alpha of an added LeakyRelu (an attribute
        // the op does not declare is refused).
        let leaky = nodes
            .iter()
            .rposition(|&n| model.node(n).op_type() == "LeakyRelu");
        let edit = match kind {
            0 => Edit::SetAttribute {
                graph: "main".into(),
                node: leaky.unwrap_or(k),
                attribute: format!("alpha = 0.{}", 100 + applied),
            },
            1 => Edit::RenameValue {
                graph: "main".into(),
                from: output,
                to: format!("renamed_{applied}"),
            },
            2 => Edit::RenameNode {
                graph: "main".into(),
                node: k,
                to: format!("node_{applied}"),
            },
            3 => Edit::AddNode {
                graph: "main".into(),
                op_type: "LeakyRelu".into(),
                domain: String::new(),
                inputs: vec![output],
                outputs: Vec::new(),
                attributes: String::new(),
                defaults: true,
                name: String::new(),
                at: None,
            },
            4 => Edit::DeleteNodes {
                graph: "main".into(),
                nodes: vec![k],
                reconnect: true,
            },
            _ => Edit::SetInput {
                graph: "main".into(),
                node: k,
                index: 0,
                value: input,
            },
        };
        match history.apply(&mut model, edit) {
            Ok(_) => {
                applied += 1;
                kinds[kind] += 1;
            }
            Err(_) => refused += 1,
        }
    }
    let total = LIVE.load(Ordering::Relaxed) - start;
    let history_bytes = total - model_bytes;
    println!(
        "history_memory: {} ({} nodes, {:.1} MB of weights): model {:.1} MB; after {STEPS} edits \
         (set attribute {}, rename value {}, rename node {}, add node {}, delete node {}, \
         connect {}; {refused} refused) model + history {:.1} MB = {:.2}x the model \
         (the history and the edits' growth of the arenas: {:.1} MB, {:.1} kB per edit)",
        path.display(),
        model.graph(main).nodes.len(),
        weights as f64 / 1e6,
        mb(model_bytes),
        kinds[0],
        kinds[1],
        kinds[2],
        kinds[3],
        kinds[4],
        kinds[5],
        mb(total),
        total as f64 / model_bytes as f64,
        mb(history_bytes),
        history_bytes as f64 / STEPS as f64 / 1e3,
    );
    // Compound steps: outline two adjacent nodes into a function, then inline its
    // calls again; what each step's undo record keeps.
    let before_compound = LIVE.load(Ordering::Relaxed);
    let (mut compound, mut compound_refused) = (0usize, 0usize);
    for k in 0..COMPOUND_STEPS {
        let function = format!("bench.F{}", k / 2);
        let edit = if k % 2 == 0 {
            let at = 20 + 7 * k;
            Edit::Outline {
                graph: "main".into(),
                nodes: vec![at, at + 1],
                function,
            }
        } else {
            Edit::InlineCalls { function }
        };
        match history.apply(&mut model, edit) {
            Ok(_) => compound += 1,
            Err(e) => {
                eprintln!("history_memory: compound step {k} refused: {e}");
                compound_refused += 1;
            }
        }
    }
    let compound_bytes = LIVE.load(Ordering::Relaxed) - before_compound;
    println!(
        "history_memory: {compound} compound steps (outline, inline calls; \
         {compound_refused} refused): {:.1} MB, {:.2} MB per step ({:.1}% of the model)",
        mb(compound_bytes),
        mb(compound_bytes) / compound.max(1) as f64,
        100.0 * compound_bytes as f64 / compound.max(1) as f64 / model_bytes as f64,
    );
    std::hint::black_box(&history);
}
