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
    let error = v
        .error
        .clone()
        .map(|e| view! { <p class="run-error" role="alert" data-testid="run-error">{e}</p> });
    let inputs = v
        .inputs
        .iter()
        .map(|input| {
            let name = input.name.clone();
            let (pick, clear) = (name.clone(), name.clone());
            let source = match &input.given {
                Some(label) => view! {
                    <span class="run-source" data-testid="run-input-source">{label.clone()}</span>
                    <button class="link" title="Use a seeded random array instead" on:click=move |_| state.clear_run_input(clear.clone())>
                        "use random"
                    </button>
                }
                .into_any(),
                None => view! { <span class="run-source" data-testid="run-input-source">"random"</span> }.into_any(),
            };
            view! {
                <tr data-testid="run-input">
                    <td class="run-name">{name}</td>
                    <td class="run-type">{input.declared.clone()}</td>
                    <td>{source}</td>
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

/// The histogram as bars, min at the left and max at the right.
fn histogram(s: &Stats) -> impl IntoView + use<> {
    let top = s.histogram.iter().copied().max().unwrap_or(0).max(1) as f64;
    let n = s.histogram.len().max(1) as f64;
    let bars = s
        .histogram
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let h = 40.0 * c as f64 / top;
            view! {
                <rect
                    x=format!("{:.2}", i as f64 * 240.0 / n)
                    y=format!("{:.2}", 40.0 - h)
                    width=format!("{:.2}", 240.0 / n - 1.0)
                    height=format!("{h:.2}")
                >
                    <title>{format!("{c}")}</title>
                </rect>
            }
        })
        .collect_view();
    view! {
        <svg class="run-histogram" data-testid="run-histogram" viewBox="0 0 240 40" width="240" height="40" role="img" aria-label="Histogram of the finite values">
            {bars}
        </svg>
    }
}

/// The 2-D slice, blue for the smallest value through white to red for the largest.
fn heat_map(s: &Stats) -> Option<impl IntoView + use<>> {
    let heat = s.heat.as_ref()?;
    let (lo, hi) = (s.min?, s.max?);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let cell = (160.0 / heat.rows.max(heat.cols) as f64).clamp(2.0, 16.0);
    let cells = heat
        .values
        .iter()
        .enumerate()
        .map(|(k, &v)| {
            let (r, c) = (k / heat.cols, k % heat.cols);
            let t = if v.is_finite() { (v - lo) / span } else { 0.5 };
            let fill = heat_colour(t, v.is_finite());
            view! {
                <rect
                    x=format!("{:.1}", c as f64 * cell)
                    y=format!("{:.1}", r as f64 * cell)
                    width=format!("{cell:.1}")
                    height=format!("{cell:.1}")
                    fill=fill
                />
            }
        })
        .collect_view();
    let (w, h) = (heat.cols as f64 * cell, heat.rows as f64 * cell);
    let note = if heat.step > 1 {
        format!(
            "the last two dimensions at index 0, every {}th row and column",
            heat.step
        )
    } else {
        "the last two dimensions at index 0".to_string()
    };
    Some(view! {
        <figure class="run-heat">
            <svg data-testid="run-heat" viewBox=format!("0 0 {w:.1} {h:.1}") width=format!("{w:.0}") height=format!("{h:.0}") role="img" aria-label="Heat map of a 2-D slice">
                {cells}
            </svg>
            <figcaption>{note}</figcaption>
        </figure>
    })
}

/// A diverging colour for `t` in [0, 1]: blue, white at the middle, red; grey for NaN
/// and Inf.
fn heat_colour(t: f64, finite: bool) -> String {
    if !finite {
        return "#888".into();
    }
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
