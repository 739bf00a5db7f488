//! Compare: the open model against the model as opened, an earlier step of its
//! history, or a file. While a comparison is on, the canvas colours what differs
//! (added green, changed amber, inlined blue, a group with a change inside dashed) and
//! this section lists every change under its graph; a click on one jumps to it,
//! opening the groups it sits in. Side by side draws the other model to the left of
//! the canvas (see `super`). Edits keep the comparison up to date.

use leptos::prelude::*;

use graft::view::ItemId;

use crate::platform::PickedFiles;
use crate::state::AppState;

#[component]
pub fn Compare(on_jump: impl Fn(ItemId) + Copy + Send + Sync + 'static) -> impl IntoView {
    let state = expect_context::<AppState>();
    let shown = Memo::new(move |_| state.comparison());
    let steps = Memo::new(move |_| state.steps());
    let choose = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        // Back to "With…", so the same choice again compares again.
        event_target::<web_sys::HtmlSelectElement>(&ev).set_value("");
        if let Ok(step) = value.parse::<usize>() {
            state.compare_with_step(step);
        }
    };
    view! {
        <section class="compare" data-testid="compare">
            <h3>"Compare"</h3>
            <div class="compare-controls">
                <label class="select">
                    <span class="visually-hidden">"Compare with"</span>
                    <select data-testid="compare-select" prop:value="" on:change=choose>
                        <option value="" disabled=true>"With…"</option>
                        <option value="0">"the model as opened"</option>
                        {move || {
                            (1..steps.get())
                                .map(|k| view! { <option value=k.to_string()>{format!("after edit {k}")}</option> })
                                .collect::<Vec<_>>()
                        }}
                    </select>
                </label>
                <label class="button" title="Compare with another model file">
                    "File…"
                    <input
                        class="visually-hidden"
                        type="file"
                        multiple=true
                        data-testid="compare-input"
                        on:change=move |ev| state.compare_with_files(PickedFiles::from_input_event(&ev))
                    />
                </label>
            </div>
            {move || shown.get().map(|c| {
                let rows = c.rows.clone();
                view! {
                    <p class="compare-head" data-testid="compare-summary">
                        {format!("Against {}: ", c.label)}
                        {if c.same { "the same up to names. ".to_string() } else { String::new() }}
                        {c.summary.clone()}
                        " "
                        <button class="link" data-testid="compare-close" on:click=move |_| state.close_compare()>
                            "Close"
                        </button>
                    </p>
                    <label class="compare-side">
                        <input
                            type="checkbox"
                            data-testid="compare-side"
                            prop:checked=move || state.side_by_side()
                            on:change=move |ev| state.set_side_by_side(event_target_checked(&ev))
                        />
                        " Side by side (the other model on the left, removed nodes ghosted)"
                    </label>
                    <ul class="compare-list">
                        {rows.into_iter().enumerate().map(|(index, row)| {
                            let jumps = row.jumps();
                            view! {
                                <li
                                    class="compare-row"
                                    class:compare-jump=jumps
                                    data-testid="compare-row"
                                    title=row.path.clone()
                                    on:click=move |_| {
                                        if jumps {
                                            state.compare_item(index, on_jump);
                                        }
                                    }
                                >
                                    <span class="compare-sign">{row.sign}</span>
                                    " "
                                    {row.text.clone()}
                                </li>
                            }
                        }).collect::<Vec<_>>()}
                    </ul>
                }
            })}
        </section>
    }
}
