//! Best-of-N wall times of the benchmark cases, as a table (robust on a busy
//! machine, where criterion's means wander):
//! `cargo run --release -p graft-layout --example timings -- [RUNS=10]`.

use graft_layout::{Compound, Graph, Options, layout, synth};
use std::time::Instant;

fn best_of(runs: usize, mut f: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| f()).fold(f64::INFINITY, f64::min)
}

fn flat(runs: usize, name: &str, g: &Graph) {
    let opts = Options::default();
    let l = layout(g, &opts, &mut || false).unwrap();
    let ms = best_of(runs, || {
        let t = Instant::now();
        std::hint::black_box(layout(g, &opts, &mut || false).unwrap());
        t.elapsed().as_secs_f64() * 1e3
    });
    let s = l.stats;
    println!(
        "| {name} | {} | {} | {ms:.2} | {} | {} | {} | {} |",
        g.nodes.len(),
        g.edges.len(),
        s.ranks,
        s.dummies,
        s.crossings,
        s.stubs
    );
}

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    println!("| graph | nodes | edges | best ms | ranks | dummies | crossings | stubs |");
    println!("|---|---|---|---|---|---|---|---|");
    for (label, n) in [
        ("1k", 1_000),
        ("5k", 5_000),
        ("20k", 20_000),
        ("50k", 50_000),
    ] {
        flat(
            runs,
            &format!("transformer_{label}"),
            &synth::transformer(n, false),
        );
        flat(
            runs,
            &format!("transformer_mask_{label}"),
            &synth::transformer(n, true),
        );
    }
    flat(runs, "resnet_20k", &synth::resnet(20_000));

    let opts = Options::default();
    let (tree, edges) = synth::grouped_transformer(50_000, true, 1);
    let mut all = Compound::new(tree.clone(), edges);
    for g in 1..tree.parent.len() as u32 {
        all.set_expanded(g, true);
    }
    let ms = best_of(runs, || {
        let mut c = all.clone();
        let t = Instant::now();
        c.layout(&opts, &mut || false).unwrap();
        t.elapsed().as_secs_f64() * 1e3
    });
    println!(
        "| grouped_50k_all_expanded ({} groups) | {} | | {ms:.2} | | | | |",
        tree.is_group.iter().filter(|&&g| g).count() - 1,
        tree.parent.len()
    );

    let (tree, edges) = synth::grouped_transformer(50_000, true, 11);
    let groups = tree.is_group.iter().skip(1).filter(|&&g| g).count() as u32;
    let target = 1 + groups / 2;
    let size = tree.parent.iter().filter(|&&p| p == target).count();
    let mut base = Compound::new(tree, edges);
    base.layout(&opts, &mut || false).unwrap();
    let ms = best_of(runs, || {
        let mut c = base.clone();
        let t = Instant::now();
        c.set_expanded(target, true);
        c.layout(&opts, &mut || false).unwrap();
        t.elapsed().as_secs_f64() * 1e3
    });
    println!("| expand one {size}-node group (+ root of {groups}) | {size} | | {ms:.2} | | | | |");
}
