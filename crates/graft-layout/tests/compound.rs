//! Compound layout: caching, relayout counts, stable positions, border routes.

use graft_layout::{
    Compound, Edge, GROUP_HEADER, NodeBox, Options, Point, Rect, Route, Tree, synth,
};

fn never() -> impl FnMut() -> bool {
    || false
}

fn e(from: u32, to: u32) -> Edge {
    Edge {
        from,
        to,
        from_port: 0,
        to_port: 0,
    }
}

/// ```text
/// 0 root
/// ├─ 1 A: 4 a1, 5 a2, 6 D (7 d1, 8 d2)
/// ├─ 2 B: 9 b1, 10 b2
/// ├─ 3 C: 11 c1, 12 c2
/// └─ 13 r
/// ```
fn sample() -> (Tree, Vec<Edge>) {
    let parent = vec![0, 0, 0, 0, 1, 1, 1, 6, 6, 2, 2, 3, 3, 0];
    let is_group: Vec<bool> = (0..14).map(|i| matches!(i, 0 | 1 | 2 | 3 | 6)).collect();
    let size: Vec<NodeBox> = (0..14)
        .map(|i| NodeBox {
            width: if is_group[i] {
                120.0
            } else {
                50.0 + 5.0 * i as f32
            },
            height: 28.0,
        })
        .collect();
    let edges = vec![
        e(13, 4),
        e(4, 5),
        e(5, 7),
        e(7, 8),
        e(8, 9),
        e(9, 10),
        e(10, 11),
        e(11, 12),
        e(4, 12),
        e(13, 9),
    ];
    (
        Tree {
            parent,
            size,
            is_group,
        },
        edges,
    )
}

fn lay(c: &mut Compound) -> u32 {
    c.layout(&Options::default(), &mut never()).unwrap();
    c.relayout_count()
}

fn rel(c: &Compound, item: u32, frame: u32) -> (f32, f32) {
    let a = c.rect(item).unwrap();
    let f = c.rect(frame).unwrap();
    (a.x - f.x, a.y - f.y)
}

fn inside(inner: &Rect, outer: &Rect) -> bool {
    inner.x >= outer.x - 0.01
        && inner.y >= outer.y + GROUP_HEADER - 0.01
        && inner.x + inner.w <= outer.x + outer.w + 0.01
        && inner.y + inner.h <= outer.y + outer.h + 0.01
}

fn on_bottom(p: Point, r: &Rect) -> bool {
    (p.y - (r.y + r.h)).abs() < 0.01 && p.x >= r.x - 0.01 && p.x <= r.x + r.w + 0.01
}

fn on_top(p: Point, r: &Rect) -> bool {
    (p.y - r.y).abs() < 0.01 && p.x >= r.x - 0.01 && p.x <= r.x + r.w + 0.01
}

/// The item drawn for `x` (its highest collapsed ancestor, or itself).
fn drawn(c: &Compound, tree: &Tree, x: u32) -> u32 {
    let mut v = x;
    let mut z = x;
    while z != 0 {
        z = tree.parent[z as usize];
        if z != 0 && !c.is_expanded(z) {
            v = z;
        }
    }
    v
}

/// Geometry checks over everything visible.
fn check(c: &Compound, tree: &Tree, edges: &[Edge]) {
    let vis: Vec<u32> = c.visible().collect();
    for &i in &vis {
        let r = c.rect(i).expect("visible items are placed");
        let p = tree.parent[i as usize];
        if p != 0 {
            assert!(inside(&r, &c.rect(p).unwrap()), "item {i} inside group {p}");
        }
    }
    // siblings do not overlap
    for (k, &i) in vis.iter().enumerate() {
        for &j in &vis[k + 1..] {
            if tree.parent[i as usize] != tree.parent[j as usize] {
                continue;
            }
            let (a, b) = (c.rect(i).unwrap(), c.rect(j).unwrap());
            let apart = a.x + a.w <= b.x + 0.01
                || b.x + b.w <= a.x + 0.01
                || a.y + a.h <= b.y + 0.01
                || b.y + b.h <= a.y + 0.01;
            assert!(apart, "items {i} and {j} overlap: {a:?} {b:?}");
        }
    }
    // every visible edge has a route from its drawn source to its drawn target
    let routes = c.routes();
    for (ei, ed) in edges.iter().enumerate() {
        let (a, b) = (drawn(c, tree, ed.from), drawn(c, tree, ed.to));
        let got = routes.iter().find(|(k, _)| *k as usize == ei);
        if a == b {
            assert!(got.is_none(), "edge {ei} is hidden inside {a}");
            continue;
        }
        let (_, route) = got.unwrap_or_else(|| panic!("edge {ei} has a route"));
        let (ra, rb) = (c.rect(a).unwrap(), c.rect(b).unwrap());
        match route {
            Route::Curve(p) => {
                assert!(p.len() >= 4 && (p.len() - 1) % 3 == 0);
                assert!(
                    on_bottom(p[0], &ra),
                    "edge {ei} starts at {a}: {:?} {ra:?}",
                    p[0]
                );
                assert!(on_top(p[p.len() - 1], &rb), "edge {ei} ends at {b}");
            }
            Route::Stub {
                source_stub,
                target_stub,
            } => {
                assert!(on_bottom(source_stub[0], &ra));
                assert!(on_top(target_stub[1], &rb));
            }
        }
    }
}

#[test]
fn expanding_relayouts_only_the_group_and_its_ancestors() {
    let (tree, edges) = sample();
    let mut c = Compound::new(tree.clone(), edges.clone());
    assert_eq!(c.visible().collect::<Vec<_>>(), vec![1, 2, 3, 13]);
    assert_eq!(lay(&mut c), 1, "root only");
    check(&c, &tree, &edges);
    assert_eq!(lay(&mut c), 0, "nothing changed");

    c.set_expanded(1, true);
    assert_eq!(lay(&mut c), 2, "A and root");
    check(&c, &tree, &edges);
    c.set_expanded(6, true);
    assert_eq!(lay(&mut c), 3, "D, A and root");
    check(&c, &tree, &edges);
    let a_kids: Vec<(f32, f32)> = [4, 5, 6].iter().map(|&i| rel(&c, i, 1)).collect();
    let d_kids: Vec<(f32, f32)> = [7, 8].iter().map(|&i| rel(&c, i, 6)).collect();

    c.set_expanded(2, true);
    assert_eq!(lay(&mut c), 2, "B and root");
    check(&c, &tree, &edges);
    c.set_expanded(3, true);
    assert_eq!(lay(&mut c), 2, "C and root");
    check(&c, &tree, &edges);
    let b_kids: Vec<(f32, f32)> = [9, 10].iter().map(|&i| rel(&c, i, 2)).collect();
    // A and D were not laid out again: their contents kept their places
    assert_eq!(
        a_kids,
        [4, 5, 6].iter().map(|&i| rel(&c, i, 1)).collect::<Vec<_>>()
    );
    assert_eq!(
        d_kids,
        [7, 8].iter().map(|&i| rel(&c, i, 6)).collect::<Vec<_>>()
    );

    // collapsing D lays out A and the root; expanding it again reuses D's cache
    c.set_expanded(6, false);
    assert!(!c.is_expanded(6));
    assert_eq!(lay(&mut c), 2);
    check(&c, &tree, &edges);
    assert!(c.rect(7).is_none(), "hidden items have no rectangle");
    c.set_expanded(6, true);
    assert_eq!(lay(&mut c), 2);
    check(&c, &tree, &edges);
    assert_eq!(
        d_kids,
        [7, 8].iter().map(|&i| rel(&c, i, 6)).collect::<Vec<_>>()
    );
    assert_eq!(
        b_kids,
        [9, 10].iter().map(|&i| rel(&c, i, 2)).collect::<Vec<_>>()
    );

    // a toggle inside a collapsed group: only that subtree's ancestors go stale
    c.set_expanded(1, false);
    c.set_expanded(6, false);
    assert_eq!(lay(&mut c), 1, "A collapsed: only the root");
    c.set_expanded(1, true);
    assert_eq!(lay(&mut c), 2, "A (D collapsed) and root");
    check(&c, &tree, &edges);

    // new options lay out every visible expanded group again
    c.layout(
        &Options {
            node_sep: 30.0,
            ..Options::default()
        },
        &mut never(),
    )
    .unwrap();
    assert_eq!(c.relayout_count(), 4);
    check(&c, &tree, &edges);

    // the root and leaves cannot be toggled
    c.set_expanded(0, false);
    c.set_expanded(4, true);
    assert!(c.is_expanded(0) && !c.is_expanded(4));
}

#[test]
fn edges_crossing_group_borders_get_routes() {
    let (tree, edges) = sample();
    let mut c = Compound::new(tree.clone(), edges.clone());
    for g in [1, 2, 3, 6] {
        c.set_expanded(g, true);
    }
    lay(&mut c);
    check(&c, &tree, &edges);
    let routes = c.routes();
    assert_eq!(routes.len(), edges.len());
    // d2 (inside D inside A) -> b1 (inside B): leaves D and A at their bottom
    // borders and enters B at its top border
    let (_, r) = routes.iter().find(|(k, _)| *k == 4).unwrap();
    let Route::Curve(p) = r else {
        panic!("a curve")
    };
    let (a, d, b) = (c.rect(1).unwrap(), c.rect(6).unwrap(), c.rect(2).unwrap());
    let crosses = |y: f32| p.iter().any(|q| (q.y - y).abs() < 0.01);
    assert!(crosses(d.y + d.h) && crosses(a.y + a.h) && crosses(b.y));
    for q in p {
        assert!(q.x.is_finite() && q.y.is_finite());
    }

    // partly collapsed: the same edge now starts at the A box
    c.set_expanded(1, false);
    lay(&mut c);
    check(&c, &tree, &edges);
}

#[test]
fn cancel_and_degenerate_trees() {
    let (tree, edges) = sample();
    let mut c = Compound::new(tree.clone(), edges.clone());
    c.set_expanded(1, true);
    assert!(c.layout(&Options::default(), &mut || true).is_err());
    assert!(c.routes().is_empty() && c.rect(0).is_none());
    lay(&mut c);
    check(&c, &tree, &edges);
    // cancelling part-way (after the first unit) leaves nothing stale to read
    c.set_expanded(2, true);
    c.set_expanded(1, false);
    let mut calls = 0;
    let r = c.layout(&Options::default(), &mut || {
        calls += 1;
        calls > 6
    });
    assert!(r.is_err());
    assert!(c.routes().is_empty() && c.rect(0).is_none() && c.rect(9).is_none());
    lay(&mut c);
    check(&c, &tree, &edges);

    // empty tree, no edges
    let mut c = Compound::new(Tree::default(), vec![e(0, 1), e(5, 6)]);
    lay(&mut c);
    assert_eq!(c.visible().count(), 0);
    assert!(c.routes().is_empty());
    assert!(c.rect(0).is_some());

    // cycles in parents, parents out of range or leaves, short size lists,
    // self loops, edges to ancestors, out-of-range edges, NaN sizes
    let tree = Tree {
        parent: vec![0, 2, 3, 1, 99, 5, 4, 0],
        size: vec![
            NodeBox {
                width: f32::NAN,
                height: -1.0,
            };
            3
        ],
        is_group: vec![true, true, true, true, false, false],
    };
    let edges = vec![
        e(1, 2),
        e(3, 4),
        e(4, 4),
        e(5, 6),
        e(6, 7),
        e(7, 100),
        e(2, 2),
    ];
    let mut c = Compound::new(tree.clone(), edges);
    for g in 0..8 {
        c.set_expanded(g, true);
    }
    lay(&mut c);
    let vis: Vec<u32> = c.visible().collect();
    assert_eq!(vis.len(), 7, "every item but the root is drawn: {vis:?}");
    for i in vis {
        let r = c.rect(i).unwrap();
        assert!(r.x.is_finite() && r.y.is_finite());
    }
    let _ = c.routes();
}

#[test]
fn deep_nesting_on_small_stack() {
    let h = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            // group g_k = 2k+1 holds leaf 2k+2 and group g_{k+1}
            let depth = 2000u32;
            let n = 2 * depth as usize + 1;
            let mut parent = vec![0u32; n];
            let mut is_group = vec![false; n];
            is_group[0] = true;
            for k in 0..depth {
                let g = 2 * k + 1;
                is_group[g as usize] = true;
                parent[g as usize] = if k == 0 { 0 } else { g - 2 };
                parent[g as usize + 1] = g;
            }
            let size = vec![
                NodeBox {
                    width: 40.0,
                    height: 20.0
                };
                n
            ];
            // leaf k -> leaf k+1 crosses into the next group; plus first -> last
            let mut edges: Vec<Edge> = (0..depth - 1).map(|k| e(2 * k + 2, 2 * k + 4)).collect();
            edges.push(e(2, 2 * depth));
            let tree = Tree {
                parent,
                size,
                is_group,
            };
            let mut c = Compound::new(tree.clone(), edges.clone());
            for k in 0..depth {
                c.set_expanded(2 * k + 1, true);
            }
            assert_eq!(lay(&mut c), depth + 1);
            let routes = c.routes();
            assert_eq!(routes.len(), edges.len());
            let leaf = c.rect(2 * depth).unwrap();
            assert!(leaf.y > 0.0);
            c.set_expanded(2 * depth - 1, false);
            assert_eq!(lay(&mut c), depth, "every ancestor of the innermost group");
        })
        .unwrap();
    h.join().expect("deep nesting on a 1 MiB stack");
}

#[test]
fn grouped_transformer_all_expanded() {
    let (tree, edges) = synth::grouped_transformer(2000, true, 1);
    let groups: Vec<u32> = (1..tree.parent.len() as u32)
        .filter(|&i| tree.is_group[i as usize])
        .collect();
    assert!(groups.len() >= 15);
    let mut c = Compound::new(tree.clone(), edges.clone());
    assert_eq!(lay(&mut c), 1);
    check(&c, &tree, &edges);
    for &g in &groups {
        c.set_expanded(g, true);
    }
    assert_eq!(lay(&mut c), groups.len() as u32 + 1);
    check(&c, &tree, &edges);
    let routes = c.routes();
    assert_eq!(routes.len(), edges.len());
    let stubs = routes
        .iter()
        .filter(|(_, r)| matches!(r, Route::Stub { .. }))
        .count();
    assert!(
        stubs >= 3 * groups.len(),
        "mask, cos and sin are stubs: {stubs}"
    );
    // expanding one more time changes nothing; collapsing one group re-lays out the root
    assert_eq!(lay(&mut c), 0);
    c.set_expanded(groups[3], false);
    assert_eq!(lay(&mut c), 1);
    check(&c, &tree, &edges);
}
