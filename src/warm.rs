//! Warming up the layout engine. V8 runs new wasm code in its baseline tier until a
//! function has run enough for its optimizing tier to compile it, so the first layout
//! in a fresh page is several times slower than the next one (BENCHMARKS.md, "Layout
//! in wasm"). It runs in the engine's worker, where the layouts run: a second after
//! the page has drawn the first model (so the warm-up never delays it, nor a file
//! chosen at once), small synthetic layouts run, one per turn of the worker's event
//! loop (a few ms each, so a request waits no longer than that), and a user's first
//! expand or next open lays out with optimized code. Opening a model stops it.

use std::sync::atomic::{AtomicBool, Ordering};

use graft_layout::{Options, synth};

use crate::platform;

/// Synthetic layouts run.
pub const ROUNDS: usize = 24;
/// Nodes in each.
const NODES: usize = 300;

/// One synthetic layout.
pub fn round() {
    let graph = synth::transformer(NODES, false);
    let _ = graft_layout::layout(&graph, &Options::default(), &mut || false);
}

/// Set when a model starts opening: the warm-up gives way (the open warms up the
/// same code anyway).
static STOPPED: AtomicBool = AtomicBool::new(false);

/// Stops the warm-up (what is left of it).
pub fn stop() {
    STOPPED.store(true, Ordering::Relaxed);
}

/// How long after the first drawing the warm-up starts (ms).
const DELAY_MS: u64 = 1_000;

/// Runs [`ROUNDS`] layouts, one per turn, [`DELAY_MS`] after the call, until
/// [`stop`]; only the first call does anything.
pub fn start_once() {
    static STARTED: AtomicBool = AtomicBool::new(false);
    if STARTED.swap(true, Ordering::Relaxed) {
        return;
    }
    STOPPED.store(false, Ordering::Relaxed);
    fn next(left: usize) {
        if left > 0 && !STOPPED.load(Ordering::Relaxed) {
            platform::soon(move || {
                round();
                next(left - 1);
            });
        }
    }
    platform::after_ms(DELAY_MS, || next(ROUNDS));
}
