//! Drawing a [`Scene`] as SVG: the CLI's `graft render`, the app's export, and the
//! app's canvas (which draws only the part on screen, at the detail the zoom allows).

use std::fmt::Write;

use graft_layout::{Rect, Route};

use super::scene::{HEADER, LINE, MAX_LINES, Placed, TEXT_PX, TITLE_PX};

use super::{AttrSource, Item, ItemKind, Scene};

/// How much to draw.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
/// colours for its dark theme). What a node is (an op of a kind, `kind::OpKind`, a
/// group, a call, an input) sets its colours in the layer `graft-kind`; what is shown about it (a search hit,
/// a new node, a problem, a run's heat, a comparison's mark) is unlayered, so it
/// always wins over its kind and the theme, whatever the selectors' weights. Group
/// frames are solid: a dashed outline around a group thousands of pixels tall costs
/// software rasterizers a frame's budget on every pan (measured: 14 against 60
/// frames per second on the 50k model).
pub const STYLE: &str = "\
@layer graft-kind{\
.g-node rect{fill:#fff;stroke:#5b6b7f;stroke-width:1}\
.g-node.g-group rect.g-frame{fill:#f3f6fa;stroke:#8a9bb0}\
.g-node.g-call rect{fill:#eef4ff;stroke:#3b6fd8}\
.g-node.g-k-linear>rect.g-box{fill:#f8dccb;stroke:#d55e00}\
.g-node.g-k-activation>rect.g-box{fill:#fcebc6;stroke:#e69f00}\
.g-node.g-k-norm>rect.g-box{fill:#cfeee3;stroke:#009e73}\
.g-node.g-k-pool>rect.g-box{fill:#ddf0fb;stroke:#56b4e9}\
.g-node.g-k-shape>rect.g-box{fill:#fbf7cc;stroke:#9c9200}\
.g-node.g-k-arith>rect.g-box{fill:#f4e0ec;stroke:#cc79a7}\
.g-node.g-k-control>rect.g-box{fill:#e6e6e6;stroke:#555}\
.g-node.g-k-quant>rect.g-box{fill:#fff;stroke:#000;stroke-dasharray:4 2}\
.g-node.g-io rect{fill:#f4f0e6;stroke:#a08850}\
.g-t{font:600 12px sans-serif;fill:#1b2430}\
.g-s{font:10px sans-serif;fill:#4a5566}\
.g-a{font:10px sans-serif;fill:#2b3a55}\
.g-a.g-default{fill:#8a6d00;font-style:italic}\
.g-a.g-unset{fill:#b02a2a}\
.g-x{font:700 12px sans-serif;fill:#3b6fd8;pointer-events:none}\
.g-e{fill:none;stroke:#7c8a9c;stroke-width:1.2}\
.g-ah{fill:#7c8a9c;stroke:none}\
.g-stub{stroke:#b0662a;stroke-width:1.2}\
.g-sl{font:9px sans-serif;fill:#b0662a}\
.g-el{font:9px sans-serif;fill:#6b7686}}\
.g-node rect.g-xr{fill:transparent;stroke:none;cursor:pointer}\
.g-node.g-hit rect{stroke:#e0531f;stroke-width:3}\
.g-node.g-group.g-hit rect.g-frame{stroke:#e0531f;stroke-width:3}\
.g-node.g-new>rect{stroke:#16a34a;stroke-width:3}\
.g-node.g-bad>rect{stroke:#dc2626;stroke-width:2.5}\
.g-badge{fill:#dc2626;stroke:#fff;stroke-width:1.5}\
.g-note{font:600 10px sans-serif;fill:#b45309;text-anchor:end}";

/// How [`region`] marks an item: a class on its element (`g-new`, `g-bad`…) and, on a
/// collapsed group, a short note drawn above its box (e.g. `3 changed inside`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mark {
    pub class: &'static str,
    pub note: Option<String>,
}

impl Mark {
    pub fn class(class: &'static str) -> Self {
        Self { class, note: None }
    }
}

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
    let _ = write!(out, "<style>{STYLE}</style>");
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
        &|_| None,
    ));
    out.push_str("</svg>");
    out
}

/// The SVG elements (no `<svg>` wrapper) of what lies in `view`, drawn at `detail`;
/// the `selected` items are highlighted, and every item `marked` marks gets that
/// [`Mark`]'s class (`g-new`: e.g. the nodes an inline preview adds; `g-bad`: a node with
/// a problem, drawn with a red outline and a dot in its corner; the compare marks) and,
/// collapsed, its note. Groups come before their children so frames sit behind. The
/// arrowheads of all edges are one path, drawn last: one element instead of an SVG
/// marker per edge, which the browser styles and paints one by one.
pub fn region(
    scene: &Scene,
    model: &crate::ir::Model,
    view: Rect,
    detail: Detail,
    selected: &[super::ItemId],
    marked: &dyn Fn(&Item) -> Option<Mark>,
) -> String {
    let mut out = String::new();
    let mut items: Vec<&Placed> = scene.items_in(view).collect();
    items.sort_by_key(|p| p.depth);
    for p in &items {
        item(
            &mut out,
            scene,
            model,
            p,
            detail,
            selected.contains(&p.item),
            marked,
        );
    }
    let mut heads = String::new();
    for e in scene.edges_in(view) {
        match &e.route {
            Route::Curve(points) if points.len() >= 2 => {
                let _ = write!(
                    out,
                    "<path class=\"g-e\" d=\"M{} {}",
                    D1(points[0].x),
                    D1(points[0].y)
                );
                for c in points[1..].chunks(3) {
                    if let [a, b, p] = c {
                        let _ = write!(
                            out,
                            "C{} {} {} {} {} {}",
                            D1(a.x),
                            D1(a.y),
                            D1(b.x),
                            D1(b.y),
                            D1(p.x),
                            D1(p.y)
                        );
                    } else if let Some(p) = c.last() {
                        let _ = write!(out, "L{} {}", D1(p.x), D1(p.y));
                    }
                }
                out.push_str("\"/>");
                arrowhead(&mut heads, points);
                // The tensor type, where the model states it, beside the edge's middle.
                if detail == Detail::Full
                    && let Some(ty) = scene.view.type_text(e.value)
                {
                    let mid = points[points.len() / 2];
                    let _ = write!(
                        out,
                        "<text class=\"g-el\" x=\"{}\" y=\"{}\">{}</text>",
                        D1(mid.x + 4.0),
                        D1(mid.y),
                        escape(&ty)
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
                        "<line class=\"g-stub\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                        D1(s[0].x),
                        D1(s[0].y),
                        D1(s[1].x),
                        D1(s[1].y)
                    );
                }
                if detail == Detail::Full {
                    let name = &model.value(e.value).name;
                    let _ = write!(
                        out,
                        "<text class=\"g-sl\" x=\"{}\" y=\"{}\">{}</text>",
                        D1(target_stub[0].x + 3.0),
                        D1(target_stub[0].y + 2.0),
                        escape(name)
                    );
                }
            }
        }
    }
    if !heads.is_empty() {
        let _ = write!(out, "<path class=\"g-ah\" d=\"{heads}\"/>");
    }
    out
}

/// Appends the arrowhead of a curve ending at its last point, pointing the way the
/// curve arrives (from the last control point that differs from the end).
fn arrowhead(out: &mut String, points: &[graft_layout::Point]) {
    let Some((&end, before)) = points.split_last() else {
        return;
    };
    let Some(from) = before
        .iter()
        .rev()
        .find(|p| (p.x - end.x).abs() + (p.y - end.y).abs() > 0.01)
    else {
        return;
    };
    let (dx, dy) = (end.x - from.x, end.y - from.y);
    let len = (dx * dx + dy * dy).sqrt();
    let (ux, uy) = (dx / len, dy / len);
    // As the marker it replaces drew it: 7.2 long, 7.2 wide, the tip 0.9 past the end.
    let tip = (end.x + 0.9 * ux, end.y + 0.9 * uy);
    let base = (tip.0 - 7.2 * ux, tip.1 - 7.2 * uy);
    let _ = write!(
        out,
        "M{} {}L{} {}L{} {}Z",
        D1(tip.0),
        D1(tip.1),
        D1(base.0 - 3.6 * uy),
        D1(base.1 + 3.6 * ux),
        D1(base.0 + 3.6 * uy),
        D1(base.1 - 3.6 * ux)
    );
}

fn item(
    out: &mut String,
    scene: &Scene,
    model: &crate::ir::Model,
    p: &Placed,
    detail: Detail,
    hit: bool,
    marked: &dyn Fn(&Item) -> Option<Mark>,
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
        ItemKind::Node { node, callee: None } => {
            let n = model.node(node);
            if let Some(kind) = super::kind::op_kind(n.domain(), n.op_type()) {
                class.push(' ');
                class.push_str(kind.class());
            }
        }
        _ => {}
    }
    let open = item.is_group && item.expanded;
    if open {
        class.push_str(" g-group");
    }
    if hit {
        class.push_str(" g-hit");
    }
    let mark = marked(item);
    if let Some(m) = &mark {
        class.push(' ');
        class.push_str(m.class);
    }
    let _ = write!(
        out,
        "<g class=\"{class}\" data-item=\"{}\" data-name=\"{}\"><rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\"/>",
        p.item,
        escape(&item.subtitle),
        if open { "g-frame" } else { "g-box" },
        D1(r.x),
        D1(r.y),
        D1(r.w),
        D1(r.h)
    );
    if let Some(note) = mark.as_ref().and_then(|m| m.note.as_ref())
        && item.is_group
        && !open
    {
        let _ = write!(
            out,
            "<text class=\"g-note\" x=\"{}\" y=\"{}\">{}</text>",
            D1(r.x + r.w),
            D1(r.y - 3.0),
            escape(note)
        );
    }
    if mark.as_ref().is_some_and(|m| m.class == "g-bad") {
        let _ = write!(
            out,
            "<circle class=\"g-badge\" cx=\"{}\" cy=\"{}\" r=\"5\"/>",
            D1(r.x + r.w - 2.0),
            D1(r.y + 2.0)
        );
    }
    if detail != Detail::Boxes {
        let mut y = r.y + if open { 17.0 } else { 15.0 };
        let x = r.x + 8.0;
        let _ = write!(
            out,
            "<text class=\"g-t\" x=\"{}\" y=\"{}\">{}</text>",
            D1(x),
            D1(y),
            escape(&item.title)
        );
        if item.is_group {
            // The marker with a square hit area around it.
            let (mx, my) = (r.x + r.w - 20.0, r.y + 3.0);
            let _ = write!(
                out,
                "<g data-toggle=\"{}\"><rect class=\"g-xr\" x=\"{}\" y=\"{}\" width=\"18\" height=\"18\"/><text class=\"g-x\" x=\"{}\" y=\"{}\">{}</text></g>",
                p.item,
                D1(mx),
                D1(my),
                D1(mx + 5.0),
                D1(y),
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
                    "<text class=\"{class}\" x=\"{}\" y=\"{}\">{text}</text>",
                    D1(x),
                    D1(y)
                );
            }
        } else if detail == Detail::Full && open && !item.subtitle.is_empty() {
            let _ = write!(
                out,
                "<text class=\"g-s\" x=\"{}\" y=\"{}\">{}</text>",
                D1(x + graft_layout::text_width(&item.title, TITLE_PX) * 1.1 + 12.0),
                D1(r.y + HEADER - 9.0),
                escape(&item.subtitle)
            );
        }
    }
    out.push_str("</g>");
}

/// The minimap's picture: the boxes of drawn items down to `max_depth` levels below
/// the root, no text and no edges, as two paths (the closed boxes filled, the open
/// groups outlined): two elements however many boxes, so the browser does not style
/// and paint hundreds of tiny rectangles after every edit.
pub fn overview(scene: &Scene, max_depth: u32, side: f32) -> String {
    // In the minimap's pixels: the longer side of the graph is `side` long. A box is
    // at least a pixel, and one drawn already at the same pixels is not drawn again
    // (a 50k-node graph has a few hundred distinct ones, not 50k).
    let k = side / scene.width.max(scene.height).max(1.0);
    let mut seen = crate::hash::FxSet::default();
    let (mut boxes, mut groups) = (String::new(), String::new());
    for p in scene.placed.iter().filter(|p| p.depth <= max_depth) {
        let open = scene
            .view
            .item(p.item)
            .is_some_and(|i| i.is_group && i.expanded);
        let px = |v: f32| (v * k).round() as i64;
        let (x, y) = (px(p.rect.x), px(p.rect.y));
        let (w, h) = (px(p.rect.w).max(1), px(p.rect.h).max(1));
        if !seen.insert((x, y, w, h, open)) {
            continue;
        }
        let d = if open { &mut groups } else { &mut boxes };
        let _ = write!(d, "M{x} {y}h{w}v{h}h{}z", -w);
    }
    format!("<path class=\"m-box\" d=\"{boxes}\"/><path class=\"m-group\" d=\"{groups}\"/>")
}

/// A coordinate written to one decimal (as `{:.1}` would, give or take the rounding of
/// a tie) through integer formatting: `{:.1}` takes the float formatter's exact path,
/// which the canvas would pay thousands of times per redraw.
struct D1(f32);

impl std::fmt::Display for D1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let tenths = (f64::from(self.0) * 10.0).round();
        if !tenths.is_finite() || tenths.abs() >= 1e15 {
            return write!(f, "{:.1}", self.0);
        }
        let t = tenths as i64;
        let sign = if t < 0 { "-" } else { "" };
        let a = t.unsigned_abs();
        write!(f, "{sign}{}.{}", a / 10, a % 10)
    }
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

#[cfg(test)]
mod tests {
    use super::D1;

    #[test]
    fn coordinates_print_as_the_float_formatter_prints_them() {
        let mut x = -5000.0f32;
        while x < 5000.0 {
            let fast = D1(x).to_string();
            let exact = format!("{x:.1}");
            // Ties may round the other way, and -0.0 prints as 0.0.
            let tie = ((f64::from(x) * 10.0).fract().abs() - 0.5).abs() < 1e-3;
            if !tie && exact != "-0.0" {
                assert_eq!(fast, exact, "{x}");
            }
            x += 0.37;
        }
        assert_eq!(D1(f32::NAN).to_string(), "NaN");
        assert_eq!(D1(-12.34).to_string(), "-12.3");
        assert_eq!(D1(1e20).to_string(), format!("{:.1}", 1e20f32));
    }
}
