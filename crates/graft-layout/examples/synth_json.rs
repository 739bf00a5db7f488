//! Writes the benchmark graphs as JSON for other layout engines:
//! `cargo run --release -p graft-layout --example synth_json -- OUT_DIR`.
//!
//! Files: `transformer_{1k,5k,20k,50k}.json`, `transformer_mask_{...}.json`,
//! `resnet_20k.json`, each `{"nodes":[[w,h],...],"edges":[[from,to],...]}`.

use graft_layout::synth;
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let dir = PathBuf::from(std::env::args().nth(1).unwrap_or_else(|| "graphs".into()));
    std::fs::create_dir_all(&dir)?;
    let mut graphs = Vec::new();
    for (label, n) in [
        ("1k", 1_000),
        ("5k", 5_000),
        ("20k", 20_000),
        ("50k", 50_000),
    ] {
        graphs.push((format!("transformer_{label}"), synth::transformer(n, false)));
        graphs.push((
            format!("transformer_mask_{label}"),
            synth::transformer(n, true),
        ));
    }
    graphs.push(("resnet_20k".to_string(), synth::resnet(20_000)));
    for (name, g) in graphs {
        let path = dir.join(format!("{name}.json"));
        std::fs::write(&path, synth::to_json(&g))?;
        println!(
            "{} nodes={} edges={}",
            path.display(),
            g.nodes.len(),
            g.edges.len()
        );
    }
    Ok(())
}
