//! Drawing a [`Scene`] as SVG: the CLI's `graft render`, the app's export, and the
//! app's canvas (which draws only the part on screen, at the detail the zoom allows).

use std::fmt::Write;

use graft_layout::{Rect, Route};

use super::scene::{HEADER, LINE, MAX_LINES, Placed, TEXT_PX, TITLE_PX};

use super::{AttrSource, Item, ItemKind, Scene};

/// How much to draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Everything: texts, attributes, edge labels.
    Full,
    /// Boxes and edges, titles only.
    Titles,
    /// Boxes and edges only (zoomed far out).
    Boxes,
}

impl Detail {
    /// The detail for a zoom factor (screen px per layout unit): text is dropped
    /// once it would be drawn smaller than a few pixels.
    pub fn for_zoom(zoom: f32) -> Detail {
        if zoom * TEXT_PX >= 6.0 {
            Detail::Full
        } else if zoom * TITLE_PX >= 4.0 {
            Detail::Titles
        } else {
            Detail::Boxes
        }
    }
}

/// The style sheet the drawing's classes use (light theme; the app overrides
/// colours for its dark theme). Group frames are solid: a dashed outline around a
/// group thousands of pixels tall costs software rasterizers a frame's budget on
/// every pan (measured: 14 against 60 frames per second on the 50k model).
pub const STYLE: &str = "\
.g-node rect{fill:#fff;stroke:#5b6b7f;stroke-width:1}\
.g-node.g-group rect.g-frame{fill:#f3f6fa;stroke:#8a9bb0}\
.g-node.g-call rect{fill:#eef4ff;stroke:#3b6fd8}\
.g-node.g-io rect{fill:#f4f0e6;stroke:#a08850}\
.g-node.g-hit rect{stroke:#e0531f;stroke-width:3}\
.g-node.g-group.g-hit rect.g-frame{stroke:#e0531f;stroke-width:3}\
.g-node.g-new>rect{stroke:#16a34a;stroke-width:3}\
.g-t{font:600 12px sans-serif;fill:#1b2430}\
.g-s{font:10px sans-serif;fill:#4a5566}\
.g-a{font:10px sans-serif;fill:#2b3a55}\
.g-a.g-default{fill:#8a6d00;font-style:italic}\
.g-a.g-unset{fill:#b02a2a}\
.g-x{font:700 12px sans-serif;fill:#3b6fd8;pointer-events:none}\
.g-node rect.g-xr{fill:transparent;stroke:none;cursor:pointer}\
.g-e{fill:none;stroke:#7c8a9c;stroke-width:1.2}\
.g-stub{stroke:#b0662a;stroke-width:1.2}\
.g-sl{font:9px sans-serif;fill:#b0662a}\
.g-el{font:9px sans-serif;fill:#6b7686}";

/// A whole standalone SVG document of the scene.
pub fn document(scene: &Scene, model: &crate::ir::Model) -> String {
    let margin = 16.0;
    let (w, h) = (scene.width + 2.0 * margin, scene.height + 2.0 * margin);
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"{:.0} {:.0} {w:.0} {h:.0}\">",
        -margin, -margin
    );
    let _ = write!(out, "<style>{STYLE}</style>{DEFS}");
    let everything = Rect {
        x: f32::MIN / 4.0,
        y: f32::MIN / 4.0,
        w: f32::MAX / 2.0,
        h: f32::MAX / 2.0,
    };
    out.push_str(&region(
        scene,
        model,
        everything,
        Detail::Full,
        &[],
        &|_| false,
    ));
    out.push_str("</svg>");
    out
}

/// The SVG elements (no `<svg>` wrapper) of what lies in `view`, drawn at `detail`;
/// the `selected` items are highlighted, and every item `marked` says (class `g-new`: e.g. the nodes an
/// inline preview adds). Groups come before their children so frames sit behind.
pub fn region(
    scene: &Scene,
    model: &crate::ir::Model,
    view: Rect,
    detail: Detail,
    selected: &[super::ItemId],
    marked: &dyn Fn(&Item) -> bool,
) -> String {
    let mut out = String::new();
    let mut items: Vec<&Placed> = scene.items_in(view).collect();
    items.sort_by_key(|p| p.depth);
    for p in &items {
        item(
            &mut out,
            scene,
            p,
            detail,
            selected.contains(&p.item),
            marked,
        );
    }
    for e in scene.edges_in(view) {
        match &e.route {
            Route::Curve(points) if points.len() >= 2 => {
                let _ = write!(
                    out,
                    "<path class=\"g-e\" d=\"M{:.1} {:.1}",
                    points[0].x, points[0].y
                );
                for c in points[1..].chunks(3) {
                    if let [a, b, p] = c {
                        let _ = write!(
                            out,
                            "C{:.1} {:.1} {:.1} {:.1} {:.1} {:.1}",
                            a.x, a.y, b.x, b.y, p.x, p.y
                        );
                    } else if let Some(p) = c.last() {
                        let _ = write!(out, "L{:.1} {:.1}", p.x, p.y);
                    }
                }
                out.push_str("\" marker-end=\"url(#g-arrow)\"/>");
                // The tensor type, where the model states it, beside the edge's middle.
                if detail == Detail::Full
                    && let Some(ty) = scene.view.types.get(&e.value)
                {
                    let mid = points[points.len() / 2];
                    let _ = write!(
                        out,
                        "<text class=\"g-el\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                        mid.x + 4.0,
                        mid.y,
                        escape(ty)
                    );
                }
            }
            Route::Curve(_) => {}
            Route::Stub {
                source_stub,
                target_stub,
            } => {
                for s in [source_stub, target_stub] {
                    let _ = write!(
                        out,
                        "<line class=\"g-stub\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/>",
                        s[0].x, s[0].y, s[1].x, s[1].y
                    );
                }
                if detail == Detail::Full {
                    let name = &model.value(e.value).name;
                    let _ = write!(
                        out,
                        "<text class=\"g-sl\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                        target_stub[0].x + 3.0,
                        target_stub[0].y + 2.0,
                        escape(name)
                    );
                }
            }
        }
    }
    out
}

fn item(
    out: &mut String,
    scene: &Scene,
    p: &Placed,
    detail: Detail,
    hit: bool,
    marked: &dyn Fn(&Item) -> bool,
) {
    let Some(item) = scene.view.item(p.item) else {
        return;
    };
    let r = p.rect;
    let mut class = String::from("g-node");
    match item.kind {
        ItemKind::In { .. } | ItemKind::Out { .. } => class.push_str(" g-io"),
        ItemKind::Node {
            callee: Some(_), ..
        } => class.push_str(" g-call"),
        _ => {}
    }
    let open = item.is_group && item.expanded;
    if open {
        class.push_str(" g-group");
    }
    if hit {
        class.push_str(" g-hit");
    }
    if marked(item) {
        class.push_str(" g-new");
    }
    let _ = write!(
        out,
        "<g class=\"{class}\" data-item=\"{}\" data-name=\"{}\"><rect class=\"{}\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"4\"/>",
        p.item,
        escape(&item.subtitle),
        if open { "g-frame" } else { "g-box" },
        r.x,
        r.y,
        r.w,
        r.h
    );
    if detail != Detail::Boxes {
        let mut y = r.y + if open { 17.0 } else { 15.0 };
        let x = r.x + 8.0;
        let _ = write!(
            out,
            "<text class=\"g-t\" x=\"{x:.1}\" y=\"{y:.1}\">{}</text>",
            escape(&item.title)
        );
        if item.is_group {
            // The marker with a square hit area around it.
            let (mx, my) = (r.x + r.w - 20.0, r.y + 3.0);
            let _ = write!(
                out,
                "<g data-toggle=\"{}\"><rect class=\"g-xr\" x=\"{mx:.1}\" y=\"{my:.1}\" width=\"18\" height=\"18\"/><text class=\"g-x\" x=\"{:.1}\" y=\"{y:.1}\">{}</text></g>",
                p.item,
                mx + 5.0,
                if open { "−" } else { "+" }
            );
        }
        if detail == Detail::Full && !open {
            let mut lines: Vec<(String, &str)> = Vec::new();
            if !item.subtitle.is_empty() {
                lines.push((escape(&item.subtitle), "g-s"));
            }
            if let Some(b) = &item.badge {
                lines.push((escape(b), "g-s"));
            }
            for a in item.attrs.iter().take(MAX_LINES) {
                let class = match a.source {
                    AttrSource::Given | AttrSource::Call => "g-a",
                    AttrSource::Default => "g-a g-default",
                    AttrSource::Unset => "g-a g-unset",
                };
                let mark = if a.source == AttrSource::Default {
                    " (default)"
                } else {
                    ""
                };
                lines.push((
                    format!("{} = {}{mark}", escape(&a.name), escape(&a.value)),
                    class,
                ));
            }
            let room = MAX_LINES.saturating_sub(item.attrs.len().min(MAX_LINES));
            for w in item.weights.iter().take(room) {
                lines.push((escape(w), "g-s"));
            }
            for (text, class) in lines {
                y += LINE;
                let _ = write!(
                    out,
                    "<text class=\"{class}\" x=\"{x:.1}\" y=\"{y:.1}\">{text}</text>"
                );
            }
        } else if detail == Detail::Full && open && !item.subtitle.is_empty() {
            let _ = write!(
                out,
                "<text class=\"g-s\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x + graft_layout::text_width(&item.title, TITLE_PX) * 1.1 + 12.0,
                r.y + HEADER - 9.0,
                escape(&item.subtitle)
            );
        }
    }
    out.push_str("</g>");
}

/// The minimap's picture: the boxes of drawn items down to `max_depth` levels below
/// the root, no text and no edges (a handful of shapes even for a 50k-node model
/// with groups open).
pub fn overview(scene: &Scene, max_depth: u32) -> String {
    let mut out = String::new();
    for p in scene.placed.iter().filter(|p| p.depth <= max_depth) {
        let open = scene
            .view
            .item(p.item)
            .is_some_and(|i| i.is_group && i.expanded);
        let _ = write!(
            out,
            "<rect class=\"{}\" x=\"{:.0}\" y=\"{:.0}\" width=\"{:.0}\" height=\"{:.0}\"/>",
            if open { "m-group" } else { "m-box" },
            p.rect.x,
            p.rect.y,
            p.rect.w.max(1.0),
            p.rect.h.max(1.0)
        );
    }
    out
}

/// Escapes text for SVG content and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The arrow marker the edges refer to (put once in `<defs>`).
pub const DEFS: &str = "<defs><marker id=\"g-arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0L8 4L0 8z\" fill=\"#7c8a9c\"/></marker></defs>";
