//! Layout benchmarks on synthetic ONNX-like graphs.
//!
//! `cargo bench -p graft-layout -- --warm-up-time 1 --measurement-time 3`
//! prints each graph's layout stats (ranks, dummies, crossings, stubs) to stderr
//! once, then times it.

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use graft_layout::{Compound, Graph, Options, layout, synth};
use std::hint::black_box;

fn never() -> impl FnMut() -> bool {
    || false
}

/// `cargo bench` passes `--bench`; under `cargo test --all-targets` criterion only
/// smoke-tests each benchmark (unoptimised), so the big graphs are left out there.
fn benching() -> bool {
    std::env::args().any(|a| a == "--bench")
}

fn flat_case(c: &mut Criterion, name: &str, g: &Graph) {
    let opts = Options::default();
    let l = layout(g, &opts, &mut never()).unwrap();
    eprintln!(
        "stats {name}: nodes={} edges={} ranks={} dummies={} crossings={} stubs={}",
        g.nodes.len(),
        g.edges.len(),
        l.stats.ranks,
        l.stats.dummies,
        l.stats.crossings,
        l.stats.stubs
    );
    let mut grp = c.benchmark_group("flat");
    if g.nodes.len() >= 20_000 {
        grp.sample_size(10);
    }
    grp.bench_function(name, |b| {
        b.iter(|| layout(black_box(g), &opts, &mut never()).unwrap())
    });
    grp.finish();
}

fn flat(c: &mut Criterion) {
    let sizes: &[(&str, usize)] = if benching() {
        &[
            ("1k", 1_000),
            ("5k", 5_000),
            ("20k", 20_000),
            ("50k", 50_000),
        ]
    } else {
        &[("1k", 1_000)]
    };
    for &(label, n) in sizes {
        flat_case(
            c,
            &format!("transformer_{label}"),
            &synth::transformer(n, false),
        );
        flat_case(
            c,
            &format!("transformer_mask_{label}"),
            &synth::transformer(n, true),
        );
    }
    if benching() {
        flat_case(c, "resnet_20k", &synth::resnet(20_000));
    }
}

fn compound(c: &mut Criterion) {
    let opts = Options::default();
    let mut grp = c.benchmark_group("compound");
    grp.sample_size(10);

    // 50k nodes, one group per block, every group expanded, laid out from scratch.
    let total = if benching() { 50_000 } else { 3_000 };
    let (tree, edges) = synth::grouped_transformer(total, true, 1);
    let groups: Vec<u32> = (0..tree.parent.len() as u32)
        .filter(|&i| i > 0 && tree.is_group[i as usize])
        .collect();
    let mut all = Compound::new(tree, edges);
    for &gi in &groups {
        all.set_expanded(gi, true);
    }
    {
        let mut probe = all.clone();
        probe.layout(&opts, &mut never()).unwrap();
        let root = probe.rect(0).unwrap();
        eprintln!(
            "stats grouped_50k_all_expanded: groups={} unit_layouts={} visible={} routes={} size={}x{}",
            groups.len(),
            probe.relayout_count(),
            probe.visible().count(),
            probe.routes().len(),
            root.w,
            root.h
        );
    }
    grp.bench_function("grouped_50k_all_expanded", |b| {
        b.iter_batched(
            || all.clone(),
            |mut cmp| {
                cmp.layout(&opts, &mut never()).unwrap();
                cmp
            },
            BatchSize::LargeInput,
        )
    });
    grp.bench_function("grouped_50k_all_expanded_routes", |b| {
        let mut done = all.clone();
        done.layout(&opts, &mut never()).unwrap();
        b.iter(|| black_box(done.routes()))
    });

    // ~1000-node groups (11 blocks each), all collapsed; expanding one lays out
    // that group and the root.
    let (tree, edges) = synth::grouped_transformer(total, true, 11);
    // the middle group (group ids are 1..=groups)
    let groups = tree.is_group.iter().skip(1).filter(|&&g| g).count() as u32;
    let target = 1 + groups / 2;
    let group_size = tree.parent.iter().filter(|&&p| p == target).count();
    let mut base = Compound::new(tree, edges);
    base.layout(&opts, &mut never()).unwrap();
    {
        let mut probe = base.clone();
        probe.set_expanded(target, true);
        probe.layout(&opts, &mut never()).unwrap();
        eprintln!(
            "stats expand_one_group: group_nodes={group_size} unit_layouts={} visible={}",
            probe.relayout_count(),
            probe.visible().count()
        );
    }
    grp.bench_function("expand_one_1000_node_group", |b| {
        b.iter_batched(
            || base.clone(),
            |mut cmp| {
                cmp.set_expanded(target, true);
                cmp.layout(&opts, &mut never()).unwrap();
                cmp
            },
            BatchSize::LargeInput,
        )
    });
    grp.finish();
}

criterion_group!(benches, flat, compound);
criterion_main!(benches);
