//! The graph canvas: the laid-out model drawn as SVG, only the part on screen and at
//! the detail the zoom allows. Drag pans, the wheel zooms around the pointer, a click
//! on a group's `+`/`−` expands or collapses it in place, a click on a box selects it
//! and shows its properties, Shift+click adds a node to the selection or takes it
//! out. Beside it: a bundled example's guide (`guide.rs`), search over every graph,
//! function body and subgraph, the problems list (`problems.rs`), the comparison with
//! another model (`compare.rs`), the selected nodes with Outline… (`outline.rs`), the
//! properties of the selected item (`properties.rs`) with its editor
//! (`node_editor.rs`), and the function library (`library.rs`). The selection keeps
//! the top of the side panel; the lists scroll below it; a splitter widens the panel.
//! Presentation mode hides the side and enlarges the drawing.

mod compare;
mod guide;
mod library;
mod node_editor;
mod outline;
mod problems;
mod properties;

use leptos::prelude::*;

use graft::view::svg::{Detail, STYLE};
use graft::view::{ItemId, Rect};

use crate::platform;
use crate::state::{AppState, MINIMAP_SIDE, SearchHit};

use compare::Compare;
use guide::ExampleGuide;
use library::FunctionLibrary;
use outline::Outline;
use problems::Problems;
use properties::Properties;

/// Zoom limits (screen pixels per layout unit).
const MIN_ZOOM: f64 = 0.02;
const MAX_ZOOM: f64 = 4.0;
/// How much presentation mode enlarges the drawing.
const PRESENT_ZOOM: f64 = 1.4;
/// The zoom a model opens at when fitting it whole would make text unreadable.
const READABLE_ZOOM: f64 = 0.75;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Camera {
    x: f64,
    y: f64,
    zoom: f64,
}

/// The side panel's usual width, its bounds when dragged, and where the width the
/// user chose is kept.
const SIDE_WIDTH: f64 = 320.0;
const SIDE_WIDTH_MIN: f64 = 240.0;
const SIDE_WIDTH_MAX: f64 = 900.0;
const SIDE_WIDTH_KEY: &str = "graft.side-width";

#[component]
pub fn GraphPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let camera = RwSignal::new(Camera {
        x: 0.0,
        y: 0.0,
        zoom: 1.0,
    });
    // Presentation mode enlarges the drawing (and gives it back on leaving).
    Effect::new(move |previous: Option<bool>| {
        let now = state.presenting.get();
        if previous.is_some_and(|p| p != now) {
            let factor = if now {
                PRESENT_ZOOM
            } else {
                1.0 / PRESENT_ZOOM
            };
            camera.update(|c| c.zoom = (c.zoom * factor).clamp(MIN_ZOOM, MAX_ZOOM));
        }
        now
    });
    let size = RwSignal::new((1200.0f64, 800.0f64));
    let selection = state.selection;
    let results = RwSignal::new(Vec::<SearchHit>::new());
    let searched = RwSignal::new(false);
    let help = RwSignal::new(false);
    let ready = RwSignal::new(false);
    // (pointer x, y, camera x, y) at the start of a drag; whether it moved.
    let drag = StoredValue::new(None::<(f64, f64, f64, f64)>);
    let moved = StoredValue::new(false);

    let measure = move || {
        // Only on a real change: redrawing replaces the elements under the pointer,
        // and a click whose press and release hit different elements is lost.
        if let Some((w, h)) = platform::element_size("graph")
            && w > 0.0
            && h > 0.0
            && size.get_untracked() != (w, h)
        {
            size.set((w, h));
        }
    };
    // The region drawn (see the effect that sets it, below).
    let drawn = RwSignal::new(None::<(Rect, Detail, u64)>);
    // Fits the whole graph; with `readable`, never below a zoom where text is drawn
    // (the graph's top then shows first, as a page would).
    let fit_with = move |readable: bool| {
        measure();
        let Some((gw, gh)) = state.graph_size() else {
            return;
        };
        let (w, h) = size.get_untracked();
        let margin = 24.0;
        let mut zoom = ((w - 2.0 * margin) / f64::from(gw.max(1.0)))
            .min((h - 2.0 * margin) / f64::from(gh.max(1.0)))
            .clamp(MIN_ZOOM, 1.0);
        if readable {
            zoom = zoom.max(READABLE_ZOOM);
        }
        camera.set(Camera {
            x: (w - f64::from(gw) * zoom) / 2.0,
            y: margin,
            zoom,
        });
        // Drawn again even where the old region covers the screen: an expand that
        // ends in this fit leaves its own drawing out (`AppState::expand_to_depth`).
        drawn.set(None);
    };
    let fit = move || fit_with(false);
    let center_on = move |r: Rect| {
        measure();
        let (w, h) = size.get_untracked();
        let zoom = camera.get_untracked().zoom.max(0.8);
        camera.set(Camera {
            x: w / 2.0 - f64::from(r.x + r.w / 2.0) * zoom,
            y: h / 2.0 - f64::from(r.y + r.h / 2.0) * zoom,
            zoom,
        });
    };

    platform::on_resize(measure);
    // Side by side halves the canvas: fit again once the panes are laid out.
    Effect::new(move |previous: Option<bool>| {
        let now = state.side_by_side();
        if previous.is_some_and(|p| p != now) {
            platform::after_next_paint(fit);
        }
        now
    });

    // A newly opened model: fit it and clear what belonged to the previous one. An
    // edit keeps the camera (and the engine carries the selection).
    Effect::new(move |_| {
        let _ = state.opened.get();
        results.set(Vec::new());
        searched.set(false);
        if state.name.get_untracked().is_some() {
            // Untracked: the effect follows the open model, not every redraw.
            untrack(|| fit_with(true));
            // A shared view: its groups, selection and camera, on the first model.
            if let Some(fragment) = state.initial_view.try_update_value(Option::take).flatten()
                && let Some((x, y, zoom)) = untrack(|| state.restore_fragment(&fragment))
            {
                camera.set(Camera {
                    x,
                    y,
                    zoom: zoom.clamp(MIN_ZOOM, MAX_ZOOM),
                });
            }
        }
    });
    // The URL fragment follows the view (open groups, selection, camera), so the
    // address can be shared.
    Effect::new(move |_| {
        let c = camera.get();
        if !ready.get() || state.initial_view.with_value(Option::is_some) {
            return;
        }
        platform::set_fragment(&state.view_fragment((c.x, c.y, c.zoom)));
        crate::state::keep::view_changed(state);
    });
    // Ready (`window.__graftReady`, which tests and benchmarks wait for) once the open
    // model's drawing is here and nothing is loading.
    Effect::new(move |_| {
        let opened = state.opened.get();
        let now = state.pending.get().is_none()
            && state.name.get().is_some()
            && state.drawn.get() == opened;
        if now != ready.get_untracked() {
            ready.set(now);
            platform::set_ready(now);
            if now && opened == 1 {
                platform::publish_timing("page_first_drawn_ms", platform::now_ms());
                state.warm();
            }
        }
    });

    // A link from another tab (a run's failing node): select the item and centre on it
    // once the drawing is here.
    Effect::new(move |_| {
        if !ready.get() {
            return;
        }
        if let Some(item) = state.goto.get() {
            state.goto.set(None);
            state.select(vec![item]);
            state.reveal(item, center_on);
        }
    });

    let expand_all = move || state.expand_to_depth(usize::MAX, fit);
    let collapse_all = move || state.expand_to_depth(0, fit);
    platform::on_key(move |key| match key.as_str() {
        "f" => fit(),
        "e" => expand_all(),
        "c" => collapse_all(),
        "?" => help.update(|h| *h = !*h),
        "]" => state.step_level(true),
        "[" => state.step_level(false),
        "Escape" => {
            state.cancel_work();
            state.cancel_open();
            help.set(false);
            state.select(Vec::new());
        }
        "Enter" | " " => {
            if let Some(item) = selection.with_untracked(|s| s.last().copied()) {
                state.toggle(item);
            }
        }
        "+" | "=" => camera.update(|c| c.zoom = (c.zoom * 1.25).min(MAX_ZOOM)),
        "-" => camera.update(|c| c.zoom = (c.zoom / 1.25).max(MIN_ZOOM)),
        _ => {}
    });

    // What is drawn: the screen plus a margin of one screen on every side, at the
    // zoom's level of detail. Panning within the margin only moves the drawing (a
    // transform); the drawing is redone when the screen leaves it or the detail
    // changes, so a pan costs a redraw every screenful, not every mousemove.
    // With the count of models opened it was worked out for: a newly opened model is
    // drawn once, in the region its fit gives, not first at the old camera.
    Effect::new(move |_| {
        let c = camera.get();
        let (w, h) = size.get();
        let screen = Rect {
            x: (-c.x / c.zoom) as f32,
            y: (-c.y / c.zoom) as f32,
            w: (w / c.zoom) as f32,
            h: (h / c.zoom) as f32,
        };
        let detail = Detail::for_zoom(c.zoom as f32);
        let opened = state.opened.get_untracked();
        let covered = drawn.with_untracked(|d| {
            d.is_some_and(|(r, dd, o)| dd == detail && o == opened && contains(r, screen))
        });
        if !covered {
            let margin = Rect {
                x: screen.x - screen.w,
                y: screen.y - screen.h,
                w: screen.w * 3.0,
                h: screen.h * 3.0,
            };
            drawn.set(Some((margin, detail, opened)));
            state.set_viewport(margin, detail, opened);
        }
    });
    // The engine's drawing of that region (a newly opened model's comes once its fit
    // has set the region).
    let content = move || state.svg();
    let other_content = move || state.other_svg();
    let transform = move || {
        let c = camera.get();
        format!("translate({:.2},{:.2}) scale({:.5})", c.x, c.y, c.zoom)
    };

    let on_wheel = move |e: leptos::ev::WheelEvent| {
        let delta = platform::wheel_delta(&e);
        let (px, py) = platform::pointer_in_target(&e);
        camera.update(|c| {
            let zoom = (c.zoom * (-delta * 0.0015).exp()).clamp(MIN_ZOOM, MAX_ZOOM);
            // Keep the layout point under the pointer where it is.
            c.x = px - (px - c.x) * zoom / c.zoom;
            c.y = py - (py - c.y) * zoom / c.zoom;
            c.zoom = zoom;
        });
    };
    let on_down = move |e: leptos::ev::MouseEvent| {
        let (px, py) = platform::pointer(&e);
        let c = camera.get_untracked();
        drag.set_value(Some((px, py, c.x, c.y)));
        moved.set_value(false);
    };
    let on_move = move |e: leptos::ev::MouseEvent| {
        let Some((sx, sy, cx, cy)) = drag.get_value() else {
            return;
        };
        if platform::buttons(&e) & 1 == 0 {
            drag.set_value(None);
            return;
        }
        let (px, py) = platform::pointer(&e);
        if (px - sx).abs() + (py - sy).abs() > 3.0 {
            moved.set_value(true);
        }
        if moved.get_value() {
            camera.update(|c| {
                c.x = cx + px - sx;
                c.y = cy + py - sy;
            });
        }
    };
    let on_up = move |_| drag.set_value(None);
    let on_click = move |e: leptos::ev::MouseEvent| {
        if moved.get_value() {
            return;
        }
        let shift = platform::shift_held(&e);
        if let Some(id) = platform::target_attribute(&e, "data-toggle").and_then(|s| s.parse().ok())
        {
            state.toggle(id);
            if !shift {
                state.select(vec![id]);
            }
        } else if let Some(id) =
            platform::target_attribute(&e, "data-item").and_then(|s| s.parse().ok())
        {
            if shift {
                // Shift+click: a node joins the selection, or leaves it.
                state.shift_select(id);
            } else {
                state.select(vec![id]);
            }
        } else if !shift {
            state.select(Vec::new());
        }
    };
    // The other model beside (side by side): the same camera; a click opens its
    // groups or selects the matched node of the open model.
    let on_click_other = move |e: leptos::ev::MouseEvent| {
        if moved.get_value() {
            return;
        }
        if let Some(id) = platform::target_attribute(&e, "data-toggle").and_then(|s| s.parse().ok())
        {
            state.toggle_other(id);
        } else if let Some(id) =
            platform::target_attribute(&e, "data-item").and_then(|s| s.parse().ok())
        {
            state.select_from_other(id);
        }
    };
    let on_dblclick = move |e: leptos::ev::MouseEvent| {
        if let Some(id) = platform::target_attribute(&e, "data-item").and_then(|s| s.parse().ok()) {
            state.toggle(id);
        }
    };

    // The side panel's width: dragged on its splitter, kept across visits.
    let side_width = RwSignal::new(
        platform::remembered(SIDE_WIDTH_KEY)
            .and_then(|w| w.parse::<f64>().ok())
            .unwrap_or(SIDE_WIDTH),
    );
    let set_side_width = move |w: f64| {
        let w = w.clamp(SIDE_WIDTH_MIN, SIDE_WIDTH_MAX);
        side_width.set(w);
        platform::remember(SIDE_WIDTH_KEY, &format!("{w:.0}"));
        measure();
    };
    // While the splitter is dragged: where the drag started and the width then.
    let resizing = StoredValue::new(None::<(f64, f64)>);
    platform::on_mouse_move(move |x, buttons| {
        let Some((start, width)) = resizing.try_get_value().flatten() else {
            return;
        };
        if buttons & 1 == 0 {
            resizing.set_value(None);
            return;
        }
        set_side_width(width + start - x);
    });

    let query = RwSignal::new(String::new());
    let run_search = move || {
        let q = query.get_untracked();
        let searching = !q.is_empty();
        state.search(q, move |hits| {
            results.set(hits);
            searched.set(searching);
        });
    };
    let jump = move |item: ItemId| {
        state.select(vec![item]);
        state.reveal(item, center_on);
    };

    view! {
        <div class="graph-page">
            <Show when=move || state.side_by_side()>
                <div
                    class="graph graph-other"
                    data-testid="graph-other"
                    on:wheel=on_wheel
                    on:mousedown=on_down
                    on:mousemove=on_move
                    on:mouseup=on_up
                    on:click=on_click_other
                >
                    <svg class="graph-svg" width="100%" height="100%">
                        <g inner_html=format!("<style>{STYLE}</style>")></g>
                        <g class="graph-content" transform=transform inner_html=other_content></g>
                    </svg>
                    <span class="graph-other-label">{move || state.comparison().map(|c| c.label).unwrap_or_default()}</span>
                </div>
            </Show>
            <div
                class="graph"
                data-testid="graph"
                on:wheel=on_wheel
                on:mousedown=on_down
                on:mousemove=on_move
                on:mouseup=on_up
                on:click=on_click
                on:dblclick=on_dblclick
            >
                <svg class="graph-svg" width="100%" height="100%">
                    <g inner_html=format!("<style>{STYLE}</style>")></g>
                    <g class="graph-content" transform=transform inner_html=content></g>
                </svg>
                <div class="graph-controls">
                    <button data-testid="fit" title="Fit (f)" on:click=move |e| { e.stop_propagation(); fit() }>"Fit"</button>
                    <button data-testid="expand-all" title="Expand all (e)" on:click=move |e| { e.stop_propagation(); expand_all() }><span class="wide">"Expand all"</span><span class="narrow">"+ all"</span></button>
                    <button data-testid="collapse-all" title="Collapse all (c)" on:click=move |e| { e.stop_propagation(); collapse_all() }><span class="wide">"Collapse all"</span><span class="narrow">"− all"</span></button>
                    <button data-testid="level-down" title="Open one more level (])" on:click=move |e| { e.stop_propagation(); state.step_level(true) }><span class="wide">"+1 level"</span><span class="narrow">"+1"</span></button>
                    <button data-testid="level-up" title="Close the deepest level ([)" on:click=move |e| { e.stop_propagation(); state.step_level(false) }><span class="wide">"−1 level"</span><span class="narrow">"−1"</span></button>
                    <button data-testid="export-svg" title="Export the drawing as SVG" on:click=move |e| { e.stop_propagation(); state.export_svg() }><span class="wide">"Export SVG"</span><span class="narrow">"SVG"</span></button>
                    <button data-testid="export-png" title="Export the drawing as PNG" on:click=move |e| { e.stop_propagation(); state.export_png() }><span class="wide">"Export PNG"</span><span class="narrow">"PNG"</span></button>
                    <button data-testid="help" title="Shortcuts (?)" on:click=move |e| { e.stop_propagation(); help.update(|h| *h = !*h) }>"?"</button>
                </div>
                <div class="overlay-legend-box" on:click=|e| e.stop_propagation() on:mousedown=|e| e.stop_propagation()>
                    <crate::run::OverlayLegend/>
                </div>
                <Show when=move || state.run.with(|r| r.as_ref().is_none_or(|r| r.overlay.is_none()))>
                    <KindLegend/>
                </Show>
                <Show when=move || ready.get()>
                    <span data-testid="graph-ready" hidden></span>
                </Show>
                <Minimap camera=camera size=size/>
                {move || state.work.get().map(|w| view! {
                    <div class="work" data-testid="work-progress" role="status" on:click=|e| e.stop_propagation() on:mousedown=|e| e.stop_propagation()>
                        <span>{format!("{}… {} of {} groups laid out", w.what, w.done, w.total)}</span>
                        <progress max=w.total value=w.done></progress>
                        <button data-testid="work-cancel" title="Put the graph back as it was (Esc)" on:click=move |_| state.cancel_work()>"Cancel"</button>
                    </div>
                })}
                <Show when=move || help.get()>
                    <div class="graph-help" data-testid="help-overlay">
                        <p><b>"Keyboard"</b></p>
                        <p>"f fit · e expand all · c collapse all · ] open a level · [ close a level · + / − zoom"</p>
                        <p>"Enter or Space: expand/collapse the selected group · Esc: clear, or cancel a running expand or open"</p>
                        <p>"Mouse: drag to pan, wheel to zoom, click + / − or double-click a group"</p>
                        <p>"Shift+click: add a node to the selection or take it out; Outline… (beside the graph) makes the selected nodes a function"</p>
                        <p><b>"Editing"</b></p>
                        <p>"Delete: delete the selected nodes (a one-in, one-out node is passed through) · Ctrl+Z undo · Ctrl+Shift+Z or Ctrl+Y redo · Esc in a field: leave it"</p>
                        <p>"Drop files anywhere on the page: a model (with its .data files) opens, or, on the inline zone, is inserted into the open one; Open files… and Inline model… do the same"</p>
                    </div>
                </Show>
            </div>
            <div
                class="side-splitter"
                data-testid="side-splitter"
                role="separator"
                aria-orientation="vertical"
                title="Drag to widen the side panel; double-click for its usual width"
                on:mousedown=move |e: leptos::ev::MouseEvent| {
                    e.prevent_default();
                    resizing.set_value(Some((platform::pointer(&e).0, side_width.get_untracked())));
                }
                on:dblclick=move |_| set_side_width(SIDE_WIDTH)
            ></div>
            <aside class="graph-side" data-testid="graph-side" style=move || format!("width: {:.0}px", side_width.get())>
                <form class="search" on:submit=move |e| { e.prevent_default(); run_search() }>
                    <input
                        type="search"
                        placeholder="Search nodes, functions, subgraphs"
                        data-testid="search-input"
                        prop:value=move || query.get()
                        on:input=move |e| query.set(event_target_value(&e))
                    />
                    <button type="submit" data-testid="search-button">"Search"</button>
                </form>
                // What is selected keeps its place at the top; the lists scroll below it.
                <div class="side-selection" data-testid="side-selection">
                    <Outline/>
                    <Properties/>
                    <crate::run::NodeValues/>
                </div>
                <div class="side-lists">
                <Show when=move || searched.get()>
                    <p class="search-count" data-testid="search-count">
                        {move || format!("{} found", results.get().len())}
                    </p>
                </Show>
                <ul class="search-results" data-testid="search-results">
                    <For each=move || results.get() key=|h| h.item let:hit>
                        <li data-testid="search-result" on:click=move |_| jump(hit.item)>
                            <div class="hit-line" title=format!("{} {}", hit.title, hit.subtitle)>
                                <span class="hit-title">{hit.title.clone()}</span>
                                " "
                                <span class="hit-name">{hit.subtitle.clone()}</span>
                            </div>
                            <div class="hit-path" title=hit.path.clone()>{hit.path.clone()}</div>
                            {(!hit.also.is_empty()).then(|| view! {
                                <div class="hit-path" data-testid="search-result-also" title=hit.also.join("\n")>
                                    {format!("and {} more place{}", hit.also.len(), if hit.also.len() == 1 { "" } else { "s" })}
                                </div>
                            })}
                        </li>
                    </For>
                </ul>
                <Problems on_jump=jump/>
                <Compare on_jump=jump/>
                <ExampleGuide/>
                <FunctionLibrary on_jump=jump/>
                </div>
            </aside>
        </div>
    }
}

/// The key to the colours of the kinds of op (`graft::view::kind`), each swatch
/// drawn with the canvas's own classes, so it is what the nodes show in either
/// theme. Folded until opened; hidden while a run's values colour the graph.
#[component]
fn KindLegend() -> impl IntoView {
    let rows = graft::view::kind::OpKind::ALL
        .iter()
        .map(|k| {
            view! {
                <li data-testid="kind-legend-entry" data-class=k.class()>
                    // As markup: the box must be the group's own child, as on the canvas.
                    <svg
                        width="22"
                        height="12"
                        inner_html=format!(
                            "<g class=\"g-node {}\"><rect class=\"g-box\" x=\"1\" y=\"1\" width=\"20\" height=\"10\" rx=\"2\"/></g>",
                            k.class()
                        )
                    ></svg>
                    {k.label()}
                </li>
            }
        })
        .collect_view();
    view! {
        <details class="kind-legend" data-testid="kind-legend" on:click=|e| e.stop_propagation() on:mousedown=|e| e.stop_propagation()>
            <summary>"Colours"</summary>
            <ul>{rows}</ul>
        </details>
    }
}

/// Whether `outer` holds all of `inner`.
fn contains(outer: Rect, inner: Rect) -> bool {
    inner.x >= outer.x
        && inner.y >= outer.y
        && inner.x + inner.w <= outer.x + outer.w
        && inner.y + inner.h <= outer.y + outer.h
}

/// The whole graph small, with the screen's outline; a click centres the view there.
/// Shown when the graph at full size is much bigger than the screen.
#[component]
fn Minimap(camera: RwSignal<Camera>, size: RwSignal<(f64, f64)>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let overview = Memo::new(move |_| state.graph_overview());
    let graph = Memo::new(move |_| state.graph_size().unwrap_or((1.0, 1.0)));
    let scale = move || {
        let (w, h) = graph.get();
        MINIMAP_SIDE / f64::from(w.max(h).max(1.0))
    };
    // Big: more than two screens at full size in either direction.
    let shown = move || {
        let (gw, gh) = graph.get();
        let (w, h) = size.get();
        f64::from(gw) > 2.0 * w || f64::from(gh) > 2.0 * h
    };
    let outline = move || {
        let c = camera.get();
        let (w, h) = size.get();
        let k = scale();
        (
            -c.x / c.zoom * k,
            -c.y / c.zoom * k,
            w / c.zoom * k,
            h / c.zoom * k,
        )
    };
    let on_click = move |e: leptos::ev::MouseEvent| {
        e.stop_propagation();
        let (mx, my) = platform::pointer_in_target(&e);
        let k = scale();
        let (w, h) = size.get_untracked();
        camera.update(|c| {
            c.x = w / 2.0 - mx / k * c.zoom;
            c.y = h / 2.0 - my / k * c.zoom;
        });
    };
    view! {
        <Show when=shown>
            <div
                class="minimap"
                data-testid="minimap"
                on:click=on_click
                on:mousedown=|e| e.stop_propagation()
            >
                <svg
                    width=move || format!("{:.0}", (f64::from(graph.get().0) * scale()).max(8.0))
                    height=move || format!("{:.0}", (f64::from(graph.get().1) * scale()).max(8.0))
                >
                    <g inner_html=move || overview.get().map(|(s, _)| s).unwrap_or_default()></g>
                    <rect
                        class="minimap-view"
                        x=move || format!("{:.1}", outline().0)
                        y=move || format!("{:.1}", outline().1)
                        width=move || format!("{:.1}", outline().2)
                        height=move || format!("{:.1}", outline().3)
                    ></rect>
                </svg>
            </div>
        </Show>
    }
}
