//! The problems of the open model, as the checker finds them after every edit: errors
//! first, each with its location; a click on one that points at a node jumps to it
//! (opening the groups it sits in). The nodes with errors carry a red badge on the
//! canvas; fixing the problem (or undoing the edit that made it) clears both.

use leptos::prelude::*;

use graft::view::ItemId;

use crate::state::AppState;

#[component]
pub fn Problems(on_jump: impl Fn(ItemId) + Copy + Send + Sync + 'static) -> impl IntoView {
    let state = expect_context::<AppState>();
    let problems = Memo::new(move |_| state.problems());
    let errors = move || problems.with(|p| p.iter().filter(|x| x.error).count());
    let open = RwSignal::new(true);
    view! {
        <Show when=move || problems.with(|p| !p.is_empty())>
            <section class="problems" data-testid="problems">
                <h3>
                    <button class="link" on:click=move |_| open.update(|o| *o = !*o)>
                        {move || format!("Problems: {} error(s), {} warning(s)", errors(), problems.with(Vec::len) - errors())}
                    </button>
                </h3>
                <Show when=move || open.get()>
                    <ul class="problem-list">
                        <For
                            each=move || problems.get()
                            key=|p| (p.index, p.message.clone())
                            let:p
                        >
                            {
                                let index = p.index;
                                let jumps = p.at_node;
                                view! {
                                    <li
                                        class="problem"
                                        class:problem-error=p.error
                                        class:problem-jump=jumps
                                        data-testid="problem"
                                        title=p.location.clone()
                                        on:click=move |_| {
                                            if jumps {
                                                state.problem_item(index, on_jump);
                                            }
                                        }
                                    >
                                        <code>{p.code.clone()}</code>
                                        " "
                                        {p.message.clone()}
                                    </li>
                                }
                            }
                        </For>
                    </ul>
                </Show>
            </section>
        </Show>
    }
}
