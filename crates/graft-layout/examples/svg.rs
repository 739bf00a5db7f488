//! Lays out a synthetic graph and writes it as SVG, with stats and timing:
//! `cargo run --release -p graft-layout --example svg -- KIND NODES OUT.svg`
//! where KIND is `transformer`, `transformer_mask`, `resnet` or `grouped` (a
//! compound transformer with every other group expanded).

use graft_layout::{Compound, Layout, Options, Rect, Route, Stats, layout, synth};
use std::fmt::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let kind = args.get(1).map_or("transformer_mask", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(300);
    let out = args.get(3).map_or("layout.svg", String::as_str);
    if kind == "grouped" {
        grouped(n, out);
        return;
    }
    let g = match kind {
        "resnet" => synth::resnet(n),
        "transformer" => synth::transformer(n, false),
        _ => synth::transformer(n, true),
    };
    // Best of five runs (the machine may be busy).
    let mut ms = f64::INFINITY;
    let mut l = None;
    for _ in 0..5 {
        let t = Instant::now();
        l = Some(layout(&g, &Options::default(), &mut || false).unwrap());
        ms = ms.min(t.elapsed().as_secs_f64() * 1e3);
    }
    let l = l.unwrap();
    println!(
        "{kind} nodes={} edges={} {ms:.2} ms  {:?}  size={}x{}",
        g.nodes.len(),
        g.edges.len(),
        l.stats,
        l.width,
        l.height
    );
    // Total sideways travel of the curves (anchor to anchor): lower is straighter.
    let slant: f32 = l
        .routes
        .iter()
        .map(|r| match r {
            Route::Curve(p) if p.len() >= 4 => p
                .windows(4)
                .step_by(3)
                .map(|w| (w[3].x - w[0].x).abs())
                .sum(),
            _ => 0.0,
        })
        .sum();
    println!("slant per edge: {:.1}", slant / g.edges.len().max(1) as f32);
    let routes: Vec<&Route> = l.routes.iter().collect();
    std::fs::write(out, svg(&l, &[], &l.nodes, &routes)).unwrap();
}

fn grouped(n: usize, out: &str) {
    let (tree, edges) = synth::grouped_transformer(n, true, 1);
    let mut c = Compound::new(tree.clone(), edges);
    let groups: Vec<u32> = (1..tree.parent.len() as u32)
        .filter(|&i| tree.is_group[i as usize])
        .collect();
    for &g in groups.iter().step_by(2) {
        c.set_expanded(g, true);
    }
    let t = Instant::now();
    c.layout(&Options::default(), &mut || false).unwrap();
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let routes = c.routes();
    let root = c.rect(0).unwrap();
    println!(
        "grouped {} groups, {} unit layouts in {ms:.2} ms, {} routes, size={}x{}",
        groups.len(),
        c.relayout_count(),
        routes.len(),
        root.w,
        root.h
    );
    let vis: Vec<u32> = c.visible().collect();
    let boxes: Vec<Rect> = vis
        .iter()
        .filter(|&&i| !c.is_expanded(i))
        .map(|&i| c.rect(i).unwrap())
        .collect();
    let frames: Vec<Rect> = vis
        .iter()
        .filter(|&&i| c.is_expanded(i))
        .map(|&i| c.rect(i).unwrap())
        .collect();
    let l = Layout {
        width: root.w,
        height: root.h,
        nodes: vec![],
        routes: vec![],
        stats: Stats::default(),
    };
    let rs: Vec<&Route> = routes.iter().map(|(_, r)| r).collect();
    std::fs::write(out, svg(&l, &frames, &boxes, &rs)).unwrap();
}

fn svg(l: &Layout, frames: &[Rect], boxes: &[Rect], routes: &[&Route]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="Helvetica,Arial,sans-serif" font-size="12">"#,
        l.width, l.height
    );
    for r in frames {
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="{}" height="{}" rx="6" fill="#f4f4f0" stroke="#999"/>"##,
            r.x, r.y, r.w, r.h
        );
    }
    for r in routes {
        match r {
            Route::Curve(p) if !p.is_empty() => {
                let p = &p[..];
                let mut d = format!("M{},{}", p[0].x, p[0].y);
                for c in p[1..].chunks(3) {
                    let _ = write!(
                        d,
                        " C{},{} {},{} {},{}",
                        c[0].x, c[0].y, c[1].x, c[1].y, c[2].x, c[2].y
                    );
                }
                let _ = writeln!(s, r##"<path d="{d}" fill="none" stroke="#666"/>"##);
            }
            Route::Stub {
                source_stub: a,
                target_stub: b,
            } => {
                for p in [a, b] {
                    let _ = writeln!(
                        s,
                        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#c33"/>"##,
                        p[0].x, p[0].y, p[1].x, p[1].y
                    );
                }
            }
            _ => {}
        }
    }
    for r in boxes {
        let _ = writeln!(
            s,
            r##"<rect x="{}" y="{}" width="{}" height="{}" rx="3" fill="#dde8f4" stroke="#468"/>"##,
            r.x, r.y, r.w, r.h
        );
    }
    s.push_str("</svg>\n");
    s
}
