//! Flat layout: geometry invariants, stubs, ranking, cancellation, degenerate input.

use graft_layout::{Edge, Graph, Layout, NodeBox, Options, Rect, Route, layout, synth};

fn never() -> impl FnMut() -> bool {
    || false
}

fn run(g: &Graph) -> Layout {
    layout(g, &Options::default(), &mut never()).expect("not cancelled")
}

fn e(from: u32, to: u32) -> Edge {
    Edge {
        from,
        to,
        from_port: 0,
        to_port: 0,
    }
}

fn boxes(n: usize) -> Vec<NodeBox> {
    vec![
        NodeBox {
            width: 60.0,
            height: 28.0
        };
        n
    ]
}

fn centre_y(r: &Rect) -> f32 {
    r.y + r.h * 0.5
}

/// Every edge of a DAG goes from a higher rank to a strictly lower one.
fn assert_downward(g: &Graph, l: &Layout) {
    for (i, e) in g.edges.iter().enumerate() {
        let (a, b) = (&l.nodes[e.from as usize], &l.nodes[e.to as usize]);
        assert!(
            b.y >= a.y + a.h,
            "edge {i} ({}->{}) does not point down: {a:?} {b:?}",
            e.from,
            e.to
        );
    }
}

/// No two nodes of one rank overlap (they keep `node_sep` apart).
fn assert_no_overlap(l: &Layout, sep: f32) {
    let mut v: Vec<(f32, f32, f32)> = l
        .nodes
        .iter()
        .map(|r| (centre_y(r), r.x, r.x + r.w))
        .collect();
    v.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    for w in v.windows(2) {
        if w[0].0 == w[1].0 {
            assert!(
                w[1].1 >= w[0].2 + sep - 0.01,
                "overlap in rank y={}: {:?} {:?}",
                w[0].0,
                w[0],
                w[1]
            );
        }
    }
}

/// Curves are well-formed splines from the source's bottom to the target's top.
fn assert_routes(g: &Graph, l: &Layout) {
    assert_eq!(l.routes.len(), g.edges.len());
    for (i, (e, r)) in g.edges.iter().zip(&l.routes).enumerate() {
        let (a, b) = (&l.nodes[e.from as usize], &l.nodes[e.to as usize]);
        match r {
            Route::Curve(p) => {
                assert!(
                    p.len() >= 4 && (p.len() - 1) % 3 == 0,
                    "edge {i}: {}",
                    p.len()
                );
                let (s, t) = (p[0], p[p.len() - 1]);
                assert!(
                    (s.y - (a.y + a.h)).abs() < 0.01,
                    "edge {i} start {s:?} {a:?}"
                );
                assert!(s.x >= a.x - 0.01 && s.x <= a.x + a.w + 0.01);
                assert!((t.y - b.y).abs() < 0.01, "edge {i} end {t:?} {b:?}");
                assert!(t.x >= b.x - 0.01 && t.x <= b.x + b.w + 0.01);
                for q in p {
                    assert!(q.x.is_finite() && q.y.is_finite());
                }
            }
            Route::Stub {
                source_stub,
                target_stub,
            } => {
                assert!((source_stub[0].y - (a.y + a.h)).abs() < 0.01);
                assert!(source_stub[1].y > source_stub[0].y);
                assert!((target_stub[1].y - b.y).abs() < 0.01);
                assert!(target_stub[0].y < target_stub[1].y);
            }
        }
    }
}

fn chain(n: usize) -> Graph {
    Graph {
        nodes: boxes(n),
        edges: (1..n as u32).map(|i| e(i - 1, i)).collect(),
    }
}

#[test]
fn empty_and_single() {
    let l = run(&Graph::default());
    assert!(l.nodes.is_empty() && l.routes.is_empty());
    assert_eq!(l.stats.ranks, 0);
    let g = Graph {
        nodes: boxes(1),
        edges: vec![],
    };
    let l = run(&g);
    assert_eq!(l.nodes.len(), 1);
    assert_eq!(l.nodes[0].x, 16.0);
    assert_eq!(l.width, 60.0 + 32.0);
}

#[test]
fn small_dag_geometry() {
    // a diamond with a skip edge and a two-output node
    let g = Graph {
        nodes: boxes(5),
        edges: vec![
            e(0, 1),
            Edge {
                from: 0,
                to: 2,
                from_port: 1,
                to_port: 0,
            },
            e(1, 3),
            Edge {
                from: 2,
                to: 3,
                from_port: 0,
                to_port: 1,
            },
            e(3, 4),
            e(0, 4),
        ],
    };
    let l = run(&g);
    assert_downward(&g, &l);
    assert_no_overlap(&l, 24.0);
    assert_routes(&g, &l);
    // node 0 has two output ports: port 1 sits at 3/4 of its width
    if let Route::Curve(p) = &l.routes[1] {
        let r = l.nodes[0];
        assert!((p[0].x - (r.x + 0.75 * r.w)).abs() < 0.01);
    } else {
        panic!("expected a curve");
    }
    // the long edge 0->4 has a dummy
    assert_eq!(l.stats.dummies, 2);
    assert_eq!(l.stats.ranks, 4);
}

#[test]
fn transformer_invariants() {
    for shared in [false, true] {
        let g = synth::transformer(1500, shared);
        let l = run(&g);
        assert_downward(&g, &l);
        assert_no_overlap(&l, 24.0);
        assert_routes(&g, &l);
        assert!(l.width > 0.0 && l.height > 0.0);
    }
    let g = synth::resnet(600);
    let l = run(&g);
    assert_downward(&g, &l);
    assert_no_overlap(&l, 24.0);
    assert_routes(&g, &l);
}

#[test]
fn deterministic() {
    let g = synth::transformer(2000, true);
    let a = run(&g);
    let b = run(&g);
    assert_eq!(a, b);
}

#[test]
fn deep_chain_on_small_stack() {
    // The wasm stack is 1 MiB: no phase may recurse.
    let h = std::thread::Builder::new()
        .stack_size(1 << 20)
        .spawn(|| {
            let g = chain(10_000);
            let l = run(&g);
            assert_eq!(l.stats.ranks, 10_000);
            assert_eq!(l.stats.dummies, 0);
            assert_downward(&g, &l);
            // a chain is straight
            let x0 = l.nodes[0].x;
            assert!(l.nodes.iter().all(|r| (r.x - x0).abs() < 0.01));
        })
        .unwrap();
    h.join().expect("deep chain laid out on a 1 MiB stack");
}

#[test]
fn stubs_for_a_shared_mask() {
    // 32 blocks, one mask / cos / sin feeding all of them
    let g = synth::transformer(32 * 96, true);
    let on = run(&g);
    let off = layout(
        &g,
        &Options {
            stub_min_consumers: 0,
            stub_min_span: 0,
            ..Options::default()
        },
        &mut never(),
    )
    .unwrap();
    assert_eq!(off.stats.stubs, 0);
    // mask: 32 consumers, cos and sin: 64 each
    assert!(on.stats.stubs >= 32 + 64 + 64, "stubs {}", on.stats.stubs);
    for (e, r) in g.edges.iter().zip(&on.routes) {
        let consumers = g.edges.iter().filter(|x| x.from == e.from).count();
        if consumers >= 8 {
            assert!(matches!(r, Route::Stub { .. }));
        }
    }
    assert!(
        on.stats.dummies * 10 < off.stats.dummies,
        "dummies with stubs {} without {}",
        on.stats.dummies,
        off.stats.dummies
    );
    assert_downward(&g, &on);
    assert_downward(&g, &off);
    assert_routes(&g, &on);
}

#[test]
fn long_edges_become_stubs() {
    // 0 -> ... -> 40 and a skip 0 -> 40 spanning 40 ranks
    let mut g = chain(41);
    g.edges.push(e(0, 40));
    let l = run(&g);
    assert!(matches!(l.routes[40], Route::Stub { .. }));
    assert_eq!(l.stats.stubs, 1);
    assert_eq!(l.stats.dummies, 0);
    // with a short skip it is a curve through dummies
    let mut g = chain(10);
    g.edges.push(e(0, 9));
    let l = run(&g);
    assert!(matches!(l.routes[9], Route::Curve(_)));
    assert_eq!(l.stats.dummies, 8);
}

#[test]
fn pull_down_puts_constants_next_to_their_consumer() {
    // 0 -> 1 -> 2 -> 3 -> 4 -> 5; Constant 6 -> 5; side chain 0 -> 7 -> 8 -> 4
    let mut g = chain(6);
    g.nodes.extend(boxes(3));
    g.edges.push(e(6, 5));
    g.edges.push(e(0, 7));
    g.edges.push(e(7, 8));
    g.edges.push(e(8, 4));
    let l = run(&g);
    let c = |i: usize| centre_y(&l.nodes[i]);
    assert_eq!(c(6), c(4), "constant sits one rank above its consumer");
    assert_eq!(c(8), c(3), "side chain ends right above its consumer");
    assert_eq!(c(7), c(2));
    assert_eq!(l.stats.dummies, 1, "only the edge 0 -> 7 is long");
    assert_downward(&g, &l);
}

#[test]
fn pull_up_keeps_joins_under_their_inputs() {
    // three early values joined by one node whose only consumer is far down
    let mut g = chain(8);
    g.nodes.extend(boxes(1)); // node 8 joins 0, 1, 2 and feeds 7
    g.edges.extend([e(0, 8), e(1, 8), e(2, 8), e(8, 7)]);
    let l = run(&g);
    let c = |i: usize| centre_y(&l.nodes[i]);
    assert_eq!(c(8), c(3), "the join stays right under its last input");
    assert_downward(&g, &l);
}

#[test]
fn cancellation() {
    let g = synth::transformer(3000, false);
    assert!(layout(&g, &Options::default(), &mut || true).is_err());
    for stop_at in [1, 2, 3, 5, 8, 12] {
        let mut calls = 0;
        let r = layout(&g, &Options::default(), &mut || {
            calls += 1;
            calls >= stop_at
        });
        assert!(r.is_err(), "cancel on call {stop_at}");
    }
    let mut calls = 0;
    let r = layout(&g, &Options::default(), &mut || {
        calls += 1;
        false
    });
    assert!(r.is_ok());
    assert!(
        calls > 10,
        "cancel is polled during the layout ({calls} calls)"
    );
}

#[test]
fn cycles_are_broken() {
    // 0 -> 1 -> 2 -> 0, and 2 -> 3
    let g = Graph {
        nodes: boxes(4),
        edges: vec![e(0, 1), e(1, 2), e(2, 0), e(2, 3), e(1, 0)],
    };
    let l = run(&g);
    assert_no_overlap(&l, 24.0);
    for (i, (ed, r)) in g.edges.iter().zip(&l.routes).enumerate() {
        let Route::Curve(p) = r else {
            panic!("edge {i} is a curve")
        };
        assert!(p.len() >= 4);
        let t = p[p.len() - 1];
        let b = l.nodes[ed.to as usize];
        let (s, a) = (p[0], l.nodes[ed.from as usize]);
        // every route starts on its source and ends on its target
        assert!(s.x >= a.x - 0.01 && s.x <= a.x + a.w + 0.01);
        assert!(t.x >= b.x - 0.01 && t.x <= b.x + b.w + 0.01);
        assert!((s.y - a.y).abs() < 0.01 || (s.y - (a.y + a.h)).abs() < 0.01);
        assert!((t.y - b.y).abs() < 0.01 || (t.y - (b.y + b.h)).abs() < 0.01);
    }
    // a ring of 1000 nodes
    let mut g = chain(1000);
    g.edges.push(e(999, 0));
    let l = run(&g);
    assert_eq!(l.stats.ranks, 1000);
}

#[test]
fn degenerate_input_does_not_panic() {
    let nan = f32::NAN;
    let g = Graph {
        nodes: vec![
            NodeBox {
                width: 0.0,
                height: 0.0,
            },
            NodeBox {
                width: nan,
                height: f32::INFINITY,
            },
            NodeBox {
                width: -5.0,
                height: -1.0,
            },
            NodeBox {
                width: 10.0,
                height: 10.0,
            },
        ],
        edges: vec![
            e(0, 0),
            e(0, 1),
            e(0, 1),
            e(0, 1),
            e(1, 2),
            e(2, 1),
            e(3, 99),
            e(99, 3),
            e(u32::MAX, u32::MAX),
            Edge {
                from: 2,
                to: 3,
                from_port: u16::MAX,
                to_port: u16::MAX,
            },
            e(3, 3),
        ],
    };
    for opts in [
        Options::default(),
        Options {
            node_sep: nan,
            rank_sep: -3.0,
            margin: f32::INFINITY,
            stub_min_consumers: 1,
            stub_min_span: 1,
        },
        Options {
            node_sep: 0.0,
            rank_sep: 0.0,
            margin: 0.0,
            stub_min_consumers: 0,
            stub_min_span: 0,
        },
    ] {
        let l = layout(&g, &opts, &mut never()).unwrap();
        assert_eq!(l.nodes.len(), 4);
        assert_eq!(l.routes.len(), g.edges.len());
        for i in [6, 7, 8] {
            assert_eq!(l.routes[i], Route::Curve(vec![]), "out-of-range edge {i}");
        }
        assert!(
            matches!(&l.routes[0], Route::Curve(p) if p.len() == 7),
            "self loop"
        );
        for r in &l.nodes {
            assert!(r.x.is_finite() && r.y.is_finite() && r.w >= 0.0 && r.h >= 0.0);
        }
        assert!(l.width.is_finite() && l.height.is_finite());
    }
    // only edges, all invalid
    let g = Graph {
        nodes: vec![],
        edges: vec![e(0, 1)],
    };
    let l = run(&g);
    assert_eq!(l.routes, vec![Route::Curve(vec![])]);
    // many isolated nodes
    let g = Graph {
        nodes: boxes(500),
        edges: vec![],
    };
    let l = run(&g);
    assert_no_overlap(&l, 24.0);
    // a wide fan-out below the stub threshold, and one above it
    for fan in [5u32, 50] {
        let g = Graph {
            nodes: boxes(fan as usize + 1),
            edges: (1..=fan).map(|i| e(0, i)).collect(),
        };
        let l = run(&g);
        assert_no_overlap(&l, 24.0);
        assert_routes(&g, &l);
        assert_eq!(l.stats.stubs, if fan >= 8 { fan } else { 0 });
    }
}

#[test]
fn json_output() {
    let g = Graph {
        nodes: vec![
            NodeBox {
                width: 10.5,
                height: 20.0,
            },
            NodeBox {
                width: 3.0,
                height: 4.0,
            },
        ],
        edges: vec![e(0, 1)],
    };
    assert_eq!(
        synth::to_json(&g),
        r#"{"nodes":[[10.5,20],[3,4]],"edges":[[0,1]]}"#
    );
    let t = synth::transformer(1000, true);
    assert!(
        t.nodes.len() <= 1000 && t.nodes.len() > 800,
        "{}",
        t.nodes.len()
    );
    let r = synth::resnet(1000);
    assert!(
        r.nodes.len() <= 1000 && r.nodes.len() > 950,
        "{}",
        r.nodes.len()
    );
}

/// A small deterministic generator for random layered DAGs.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as u32
    }
}

#[test]
fn crossing_count_matches_brute_force() {
    for seed in 0..20u64 {
        let mut rng = Lcg(seed);
        // levels of 2..8 nodes; every node below level 0 has 1..3 parents one level up
        let levels = 2 + rng.next(5) as usize;
        let mut level_nodes: Vec<Vec<u32>> = Vec::new();
        let mut g = Graph::default();
        for l in 0..levels {
            let k = 2 + rng.next(7);
            let ids: Vec<u32> = (0..k).map(|i| g.nodes.len() as u32 + i).collect();
            g.nodes.extend(boxes(k as usize));
            if l > 0 {
                let above = &level_nodes[l - 1];
                for &v in &ids {
                    for _ in 0..1 + rng.next(3) {
                        g.edges
                            .push(e(above[rng.next(above.len() as u32) as usize], v));
                    }
                }
            }
            level_nodes.push(ids);
        }
        let l = run(&g);
        assert_eq!(l.stats.dummies, 0);
        assert_downward(&g, &l);
        assert_no_overlap(&l, 24.0);
        // distinct layout edges, by node centre x
        let mut segs: Vec<(u32, u32)> = g.edges.iter().map(|x| (x.from, x.to)).collect();
        segs.sort_unstable();
        segs.dedup();
        let cx = |i: u32| {
            let r = l.nodes[i as usize];
            r.x + r.w * 0.5
        };
        let cy = |i: u32| centre_y(&l.nodes[i as usize]);
        let mut brute = 0u64;
        for (i, a) in segs.iter().enumerate() {
            for b in &segs[i + 1..] {
                if cy(a.0) != cy(b.0) || cy(a.1) != cy(b.1) {
                    continue;
                }
                let up = cx(a.0) - cx(b.0);
                let dn = cx(a.1) - cx(b.1);
                if up * dn < 0.0 {
                    brute += 1;
                }
            }
        }
        assert_eq!(l.stats.crossings, brute, "seed {seed}");
    }
}

#[test]
fn no_sideways_drift_on_deep_repetitive_graphs() {
    // Many identical blocks must not walk off to one side.
    let small = run(&synth::transformer(1000, true));
    let big = run(&synth::transformer(6000, true));
    assert!(
        big.width <= small.width * 1.2,
        "width grows with depth: {} vs {}",
        big.width,
        small.width
    );
    let small = run(&synth::transformer(1000, false));
    let big = run(&synth::transformer(6000, false));
    assert!(big.width <= small.width * 1.2);
}
