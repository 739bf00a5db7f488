//! The Run tab: run the open model in the browser (onnxruntime-web, loaded on the
//! first run) and see what comes out. Each input is a seeded random array (with the
//! sizes given for its symbolic dimensions), an `.npy` file, or the last run's; a
//! bundled example brings its own. Each output shows its type, shape, min, max, mean,
//! standard deviation, NaN and Inf counts, a histogram, and a 2-D slice as a heat map.
//! With a comparison on, both models run on the same inputs. The graph panel shows two
//! more parts of it: `NodeValues` (what the selected node computes) and
//! `OverlayLegend` (the graph coloured by a statistic of each node's outputs, saved and
//! read as Model Explorer node data).

use leptos::prelude::*;

use crate::format::number;
use crate::platform::PickedFiles;
use crate::state::{AppState, Colouring, HEAT_CLASSES, RunView, ValuesShown};
use graft::values::Stats;
use graft::view::ItemId;

#[component]
pub fn RunPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let view_of = move || state.run.get();
    let running = move || state.run.with(|r| r.as_ref().is_some_and(|r| r.running));
    let run = move |_| state.run_model(Vec::new(), false, |_| {});
    view! {
        <section class="run-panel" aria-label="Run the model" data-testid="run-panel">
            <div class="run-toolbar">
                <button
                    class="button button-primary"
                    data-testid="run-button"
                    title="Run the model in this browser with the inputs below (onnxruntime-web; nothing leaves your machine)"
                    disabled=move || running() || state.run.with(|r| r.as_ref().is_none_or(|r| r.problem.is_some()))
                    on:click=run
                >
                    {move || if running() { "Running…" } else { "Run" }}
                </button>
                <label class="run-seed">
                    "Seed "
                    <input
                        type="number"
                        min="0"
                        data-testid="run-seed"
                        prop:value=move || state.run.with(|r| r.as_ref().map_or(0, |r| r.seed)).to_string()
                        on:change=move |e| {
                            if let Ok(seed) = event_target_value(&e).trim().parse::<u64>() {
                                state.set_run_seed(seed);
                            }
                        }
                    />
                </label>
                <label class="run-seed" title="Colour each node of the graph by a statistic of its outputs on the last run's inputs">
                    "Colour the graph by "
                    <select
                        data-testid="run-colour"
                        disabled=move || state.run.with(|r| r.as_ref().is_none_or(|r| r.last.is_none() || r.stale))
                        on:change=move |e| {
                            let by = match event_target_value(&e).as_str() {
                                "max-abs" => Some(Colouring::MaxAbs),
                                "non-finite" => Some(Colouring::NonFinite),
                                _ => None,
                            };
                            state.colour(by);
                        }
                    >
                        <option value="none" selected=move || state.run.with(|r| r.as_ref().is_none_or(|r| r.overlay.is_none()))>"nothing"</option>
                        <option value="max-abs" selected=move || overlay_is(state, Colouring::MaxAbs)>"max |x|"</option>
                        <option value="non-finite" selected=move || overlay_is(state, Colouring::NonFinite)>"NaN and Inf count"</option>
                    </select>
                </label>
                <label class="link" title="Colour the graph by a Model Explorer node-data file (.json)">
                    "Import node data…"
                    <input
                        class="visually-hidden"
                        type="file"
                        accept=".json"
                        data-testid="run-import-node-data"
                        on:change=move |e| state.import_node_data(PickedFiles::from_input_event(&e))
                    />
                </label>
                <button
                    class="button"
                    data-testid="run-reuse"
                    title="Give every input the array the last run had"
                    disabled=move || !state.run.with(|r| r.as_ref().is_some_and(|r| r.has_previous))
                    on:click=move |_| state.reuse_run_inputs()
                >
                    "Use the last run's inputs"
                </button>
            </div>
            {move || view_of().map(|v| contents(state, v))}
        </section>
    }
}

fn overlay_is(state: AppState, by: Colouring) -> bool {
    state.run.with(|r| {
        r.as_ref()
            .and_then(|r| r.overlay.as_ref())
            .is_some_and(|o| o.by == by)
    })
}

/// The graph's colouring explained: what it shows and its colours from low to high.
#[component]
pub fn OverlayLegend() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || {
        let o = state
            .run
            .with(|r| r.as_ref().and_then(|r| r.overlay.clone()))?;
        let swatches = HEAT_CLASSES
            .iter()
            .map(|class| view! { <span class=format!("legend-swatch {class}")></span> })
            .collect_view();
        let (lo, hi) = match o.by {
            Colouring::MaxAbs => (number(o.lo.max(o.hi / 1e4)), number(o.hi)),
            Colouring::NonFinite => ("none".to_string(), "some".to_string()),
            Colouring::Imported => (number(o.lo), number(o.hi)),
        };
        let scale = if o.by == Colouring::MaxAbs {
            " (log scale, 4 decades)"
        } else {
            ""
        };
        Some(view! {
            <div class="overlay-legend" data-testid="overlay-legend">
                <span>
                    {if o.by == Colouring::Imported {
                        format!("{}: ", o.label)
                    } else {
                        format!("{} of each node's outputs{scale}: ", o.label)
                    }}
                </span>
                <span data-testid="overlay-lo">{lo}</span>
                {swatches}
                <span data-testid="overlay-hi">{hi}</span>
                <span class="run-note">{format!(" {} nodes", o.nodes)}</span>
                <button class="link" data-testid="overlay-export" title="Save these values as a Model Explorer node-data file" on:click=move |_| state.export_node_data()>"save"</button>
                <button class="link" data-testid="overlay-clear" on:click=move |_| state.colour(None)>"clear"</button>
            </div>
        })
    }
}

fn contents(state: AppState, v: RunView) -> impl IntoView {
    let problem = v
        .problem
        .clone()
        .map(|p| view! { <p class="run-error" role="alert" data-testid="run-problem">{p}</p> });
    let failed_at = v.failed_at.clone();
    let error = v.error.clone().map(|e| {
        let link = failed_at.map(|node| {
            let label = format!("Show {node} in the graph");
            view! {
                " "
                <button class="link" data-testid="run-error-node" on:click=move |_| state.show_node(node.clone())>{label}</button>
            }
        });
        view! { <p class="run-error" role="alert" data-testid="run-error">{e}{link}</p> }
    });
    let inputs = v
        .inputs
        .iter()
        .map(|input| {
            let name = input.name.clone();
            let (pick, clear, fill) = (name.clone(), name.clone(), name.clone());
            let random = move || {
                let clear = clear.clone();
                view! {
                    <button class="link" title="Use a seeded random array instead" on:click=move |_| state.clear_run_input(clear.clone())>
                        "use random"
                    </button>
                }
            };
            let source = match (&input.given, &input.fill, &input.why) {
                (Some(label), _, _) => view! {
                    <span class="run-source" data-testid="run-input-source">{label.clone()}</span>
                    {random()}
                }
                .into_any(),
                (None, Some(v), Some(why)) => view! {
                    <span class="run-source" data-testid="run-input-source" title=why.clone()>{format!("{v}: {why}")}</span>
                    {random()}
                }
                .into_any(),
                (None, Some(v), None) => view! {
                    <span class="run-source" data-testid="run-input-source">{format!("every element {v}")}</span>
                    {random()}
                }
                .into_any(),
                (None, None, _) => view! { <span class="run-source" data-testid="run-input-source">"random"</span> }.into_any(),
            };
            let typed = input.fill.clone().filter(|_| input.given.is_none()).unwrap_or_default();
            let back = input.default.clone().map(|d| {
                let name = name.clone();
                view! {
                    " "
                    <button class="link" data-testid="run-input-default" title="Give it the value its name makes obvious again" on:click=move |_| state.set_run_fill(name.clone(), String::new())>
                        {format!("use {d}, its default")}
                    </button>
                }
            });
            view! {
                <tr data-testid="run-input" data-name=name.clone()>
                    <td class="run-name">{name.clone()}</td>
                    <td class="run-type">{input.declared.clone()}</td>
                    <td class="run-value">
                        <input
                            class="run-fill"
                            data-testid="run-input-value"
                            placeholder="random"
                            title="A number fills every element (a scalar input takes it as is); empty: the default"
                            prop:value=typed
                            on:change=move |e| state.set_run_fill(fill.clone(), event_target_value(&e))
                        />
                    </td>
                    <td>{source}{back}</td>
                    <td>
                        <label class="link" title="Give this input a NumPy .npy file's array">
                            ".npy…"
                            <input
                                class="visually-hidden"
                                type="file"
                                accept=".npy"
                                data-testid="run-input-npy"
                                on:change=move |e| state.give_run_input(pick.clone(), PickedFiles::from_input_event(&e))
                            />
                        </label>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let sizes = v
        .sizes
        .iter()
        .map(|(symbol, size)| {
            let s = symbol.clone();
            view! {
                <label class="run-size" data-testid="run-size">
                    {symbol.clone()} " = "
                    <input
                        type="number"
                        min="0"
                        data-testid=format!("run-size-{symbol}")
                        prop:value=size.to_string()
                        on:change=move |e| {
                            if let Ok(n) = event_target_value(&e).trim().parse::<i64>() {
                                state.set_run_size(s.clone(), n);
                            }
                        }
                    />
                </label>
            }
        })
        .collect_view();
    let last = v.last.clone().map(|last| {
        let rows = last
            .outputs
            .iter()
            .map(|(name, stats)| output(name, stats, "run-output"))
            .collect_view();
        let stale = v.stale.then(|| {
            view! { <p class="run-stale" data-testid="run-stale">"The model changed since this run; run again to see its outputs."</p> }
        });
        view! {
            <h3 class="run-heading">
                "Outputs "
                <span class="run-time" data-testid="run-time">
                    {format!("{} ms, onnxruntime-web {}", number(last.ms), last.runtime)}
                </span>
            </h3>
            {stale}
            <div class="run-outputs" data-testid="run-outputs">{rows}</div>
        }
    });
    let compare = v.compare_with.clone().map(|with| {
        let running = v.running;
        let result = v.comparison.clone().map(comparison);
        view! {
            <h3 class="run-heading">"Before and after"</h3>
            <p>
                <button
                    class="button"
                    data-testid="run-compare"
                    title="Run this model and the one it is compared with on the same inputs, and show how far each value moved"
                    disabled=running
                    on:click=move |_| state.run_compare()
                >
                    {format!("Run this model and {with}")}
                </button>
            </p>
            {result}
        }
    });
    view! {
        {problem}
        <h3 class="run-heading">"Inputs"</h3>
        <table class="run-inputs">
            <tbody>{inputs}</tbody>
        </table>
        <div class="run-sizes">{sizes}</div>
        {error}
        {compare}
        {last}
    }
}

/// How many moved values the comparison lists.
const MOVED_SHOWN: usize = 20;

/// The largest absolute difference of each output, then of the values that moved most.
fn comparison(c: crate::state::RunComparison) -> impl IntoView {
    let row = |(name, d): &(String, Result<f64, String>), testid: &'static str| {
        let (text, moved) = match d {
            Ok(d) => (number(*d), *d != 0.0),
            Err(e) => (e.clone(), true),
        };
        view! {
            <tr data-testid=testid data-name=name.clone() class:run-moved=moved>
                <td class="run-name">{name.clone()}</td>
                <td class="run-diff">{text}</td>
            </tr>
        }
    };
    let outputs = c
        .outputs
        .iter()
        .map(|o| row(o, "run-compare-output"))
        .collect_view();
    let moved = c
        .values
        .iter()
        .filter(|(_, d)| d.as_ref().map_or(true, |d| *d != 0.0))
        .count();
    let values = c
        .values
        .iter()
        .take(MOVED_SHOWN)
        .map(|v| row(v, "run-compare-value"))
        .collect_view();
    view! {
        <div class="run-comparison" data-testid="run-comparison">
            <p>{format!("Against {}: the largest |difference| of each output, then of the {} matched values ({} moved).", c.with, c.values.len(), moved)}</p>
            <table class="run-inputs">
                <tbody>{outputs}</tbody>
            </table>
            <table class="run-inputs">
                <tbody>{values}</tbody>
            </table>
        </div>
    }
}

fn output(
    name: &str,
    stats: &Result<Stats, String>,
    testid: &'static str,
) -> impl IntoView + use<> {
    let body = match stats {
        Err(e) => view! { <p class="run-error">{e.clone()}</p> }.into_any(),
        Ok(s) => {
            let shown = |v: Option<f64>| v.map_or("–".to_string(), number);
            let facts = [
                ("min", shown(s.min)),
                ("max", shown(s.max)),
                ("mean", shown(s.mean)),
                ("std", shown(s.std)),
                ("NaN", s.nan.to_string()),
                ("Inf", s.inf.to_string()),
            ]
            .into_iter()
            .map(|(k, v)| {
                view! {
                    <div class="run-fact" data-testid=format!("run-{}", k.to_lowercase())>
                        <dt>{k}</dt>
                        <dd>{v}</dd>
                    </div>
                }
            })
            .collect_view();
            view! {
                <dl class="run-facts">{facts}</dl>
                {histogram(s)}
                {heat_map(s)}
            }
            .into_any()
        }
    };
    let ty = stats.as_ref().ok().map(|s| {
        let dims: Vec<String> = s.dims.iter().map(i64::to_string).collect();
        format!("{}[{}]", s.data_type, dims.join(","))
    });
    view! {
        <article class="run-output" data-testid=testid data-name=name.to_string()>
            <h4>
                <span class="run-name">{name.to_string()}</span>
                " "
                <span class="run-type">{ty}</span>
            </h4>
            {body}
        </article>
    }
}

/// What the selected node computes on the last run's inputs, under its properties:
/// asked of the engine when the selection or the model changes (and only once the
/// model has been run and not edited since).
#[component]
pub fn NodeValues() -> impl IntoView {
    let state = expect_context::<AppState>();
    // The item and model state the values are of, and the values (None while asked).
    let values = RwSignal::new(None::<(ItemId, u64, Option<ValuesShown>)>);
    Effect::new(move |_| {
        let item = state.selection.with(|s| s.last().copied());
        let serial = state.serial();
        let ran = state
            .run
            .with(|r| r.as_ref().is_some_and(|r| r.last.is_some() && !r.stale));
        let Some(item) = item.filter(|_| ran) else {
            values.set(None);
            return;
        };
        if values.with_untracked(|v| {
            v.as_ref()
                .is_some_and(|(i, s, _)| *i == item && *s == serial)
        }) {
            return;
        }
        values.set(Some((item, serial, None)));
        state.probe(item, move |shown| {
            // An answer for a selection since changed is dropped.
            if values.with_untracked(|v| {
                v.as_ref()
                    .is_some_and(|(i, s, _)| *i == item && *s == serial)
            }) {
                values.set(Some((item, serial, Some(shown))));
            }
        });
    });
    move || {
        let (_, _, shown) = values.get()?;
        let body = match shown {
            None => view! { <p class="run-stale">"Computing…"</p> }.into_any(),
            Some(Err(e)) => {
                view! { <p class="run-note" data-testid="node-values-error">{e}</p> }.into_any()
            }
            Some(Ok(outputs)) => outputs
                .iter()
                .map(|(name, stats)| output(name, stats, "node-value"))
                .collect_view()
                .into_any(),
        };
        Some(view! {
            <section class="props node-values" data-testid="node-values">
                <h3>"Values " <small>"on the last run's inputs"</small></h3>
                {body}
            </section>
        })
    }
}

/// The histogram as bars, min at the left and max at the right, with its range
/// under it and the tallest bar's count beside it; each bar's title gives its range
/// and count.
fn histogram(s: &Stats) -> impl IntoView + use<> {
    let top = s.histogram.iter().copied().max().unwrap_or(0);
    let n = s.histogram.len().max(1) as f64;
    let (lo, hi) = (s.min.unwrap_or(0.0), s.max.unwrap_or(0.0));
    let width = (hi - lo) / n;
    // Plot area: x from 40 to 280, y from 4 to 44; labels around it.
    let bars = s
        .histogram
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let h = 40.0 * c as f64 / top.max(1) as f64;
            let from = lo + width * i as f64;
            view! {
                <rect
                    x=format!("{:.2}", 40.0 + i as f64 * 240.0 / n)
                    y=format!("{:.2}", 44.0 - h)
                    width=format!("{:.2}", (240.0 / n - 1.0).max(0.5))
                    height=format!("{h:.2}")
                >
                    <title>{format!("{} to {}: {c}", number(from), number(from + width))}</title>
                </rect>
            }
        })
        .collect_view();
    view! {
        <svg class="run-histogram" data-testid="run-histogram" viewBox="0 0 290 62" width="290" height="62" role="img" aria-label="Histogram of the finite values">
            <line class="run-axis" x1="40" y1="44.5" x2="280" y2="44.5"/>
            <line class="run-axis" x1="39.5" y1="4" x2="39.5" y2="44.5"/>
            <text class="run-tick" data-testid="run-histogram-top" x="36" y="10" text-anchor="end">{top.to_string()}</text>
            <text class="run-tick" x="36" y="44" text-anchor="end">"0"</text>
            <text class="run-tick" data-testid="run-histogram-lo" x="40" y="57" text-anchor="start">{number(lo)}</text>
            <text class="run-tick" data-testid="run-histogram-hi" x="280" y="57" text-anchor="end">{number(hi)}</text>
            {bars}
        </svg>
        <p class="run-note" data-testid="run-histogram-note">{format!("{} finite values in {} bars; the tallest holds {}", crate::format::count(s.count - s.nan - s.inf), s.histogram.len(), crate::format::count(top))}</p>
    }
}

/// The 2-D slice, each axis with its own step, coloured on the slice's own scale
/// (`Heat::shade`: zero white when both signs occur), with the scale under it.
fn heat_map(s: &Stats) -> Option<impl IntoView + use<>> {
    let heat = s.heat.as_ref()?;
    let cw = (240.0 / heat.cols as f64).clamp(2.0, 16.0);
    let ch = (160.0 / heat.rows as f64).clamp(2.0, 16.0);
    let cells = heat
        .values
        .iter()
        .enumerate()
        .map(|(k, &v)| {
            let (r, c) = (k / heat.cols, k % heat.cols);
            let fill = heat
                .shade(v)
                .map_or_else(|| "#888".to_string(), heat_colour);
            view! {
                <rect
                    x=format!("{:.1}", c as f64 * cw)
                    y=format!("{:.1}", r as f64 * ch)
                    width=format!("{cw:.1}")
                    height=format!("{ch:.1}")
                    fill=fill
                />
            }
        })
        .collect_view();
    let (w, h) = (heat.cols as f64 * cw, heat.rows as f64 * ch);
    let note = if heat.row_step * heat.col_step > 1 {
        format!(
            "the last two dimensions at index 0; each cell the largest |value| of {} × {}",
            heat.row_step, heat.col_step
        )
    } else {
        "the last two dimensions at index 0".to_string()
    };
    // The scale: the palette's part this slice uses, from lo to hi.
    let (from, to) = (
        heat.shade(heat.lo).unwrap_or(0.0),
        heat.shade(heat.hi).unwrap_or(1.0),
    );
    let stops = (0..=8)
        .map(|i| {
            let t = from + (to - from) * f64::from(i) / 8.0;
            view! { <stop offset=format!("{}%", i * 100 / 8) stop-color=heat_colour(t)/> }
        })
        .collect_view();
    // Each scale its own gradient: the page shows several maps at once.
    static GRADIENTS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let id = format!(
        "run-heat-gradient-{}",
        GRADIENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    let clipped = if heat.clipped {
        " (beyond: end colours)"
    } else {
        ""
    };
    let zero = (heat.lo < 0.0 && heat.hi > 0.0)
        .then(|| view! { <text class="run-tick" x="120" y="22" text-anchor="middle">"0"</text> });
    Some(view! {
        <figure class="run-heat">
            <svg data-testid="run-heat" viewBox=format!("0 0 {w:.1} {h:.1}") width=format!("{w:.0}") height=format!("{h:.0}") role="img" aria-label="Heat map of a 2-D slice">
                {cells}
            </svg>
            <svg class="run-heat-scale" data-testid="run-heat-scale" viewBox="0 0 240 26" width="240" height="26" role="img" aria-label="Colour scale">
                <defs>
                    <linearGradient id=id.clone()>{stops}</linearGradient>
                </defs>
                <rect x="0" y="0" width="240" height="10" fill=format!("url(#{id})")/>
                <text class="run-tick" data-testid="run-heat-lo" x="0" y="22" text-anchor="start">{number(heat.lo)}</text>
                {zero}
                <text class="run-tick" data-testid="run-heat-hi" x="240" y="22" text-anchor="end">{format!("{}{clipped}", number(heat.hi))}</text>
            </svg>
            <figcaption>{note}</figcaption>
        </figure>
    })
}

/// A diverging colour for `t` in [0, 1]: blue, white at the middle, red.
fn heat_colour(t: f64) -> String {
    let t = t.clamp(0.0, 1.0);
    let (r, g, b) = if t < 0.5 {
        let u = t * 2.0;
        (40.0 + 215.0 * u, 90.0 + 165.0 * u, 220.0 + 35.0 * u)
    } else {
        let u = (t - 0.5) * 2.0;
        (255.0 - 35.0 * u, 255.0 - 195.0 * u, 255.0 - 215.0 * u)
    };
    format!("rgb({r:.0},{g:.0},{b:.0})")
}
