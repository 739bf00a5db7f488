//! The model summary panel: header facts, counts, graph inputs and outputs, metadata
//! and the importer's diagnostics. It renders the core's `Summary` as it is; the panel
//! is rebuilt whenever another model opens.

use std::sync::Arc;

use graft::summary::IoEntry;
use graft::{Diagnostic, Severity, Summary};
use leptos::prelude::*;

use crate::format;
use crate::state::AppState;

#[component]
pub fn SummaryPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    move || match (state.summary.get(), state.name.get()) {
        (Some(summary), name) => loaded(summary, name.unwrap_or_default()).into_any(),
        (None, _) => view! { <Empty/> }.into_any(),
    }
}

/// Shown before the first model opens (or if none could be).
#[component]
fn Empty() -> impl IntoView {
    let state = expect_context::<AppState>();
    let message = move || {
        state.pending.get().unwrap_or_else(|| {
            "Open a model: choose an example, pick a file, or drop one anywhere on the page."
                .to_string()
        })
    };
    view! { <p class="summary-empty">{message}</p> }
}

fn loaded(summary: Arc<Summary>, name: String) -> impl IntoView {
    view! {
        <section class="summary" data-testid="summary" aria-label="Model summary">
            <h1 class="summary-title" data-testid="model-name">{name}</h1>
            <div class="summary-grid">
                <div class="summary-column">
                    {model_card(&summary)}
                    {counts_card(&summary)}
                </div>
                <div class="summary-column">
                    {io_card("Inputs", "inputs", &summary.inputs)}
                    {io_card("Outputs", "outputs", &summary.outputs)}
                    {metadata_card(&summary.metadata)}
                    {diagnostics_card(&summary.diagnostics)}
                </div>
            </div>
        </section>
    }
}

fn model_card(summary: &Summary) -> impl IntoView + use<> {
    let ir = summary.ir_version.map(|v| v.to_string());
    let producer = join_nonempty(&summary.producer_name, &summary.producer_version);
    let model_version = summary.model_version.map(|v| v.to_string());
    let domain = non_empty(&summary.domain);
    let opsets = summary
        .opset_import
        .iter()
        .map(|o| {
            let domain = if o.domain.is_empty() {
                "ai.onnx"
            } else {
                o.domain.as_str()
            };
            let version = o.version.map_or_else(|| "?".to_string(), |v| v.to_string());
            view! {
                <li>
                    <span class="opset-domain">{domain.to_string()}</span>
                    " "
                    <span class="opset-version">{version}</span>
                </li>
            }
        })
        .collect_view();
    let doc = non_empty(&summary.doc_string).map(|doc| {
        view! {
            <p class="summary-doc" data-testid="doc-string">{doc}</p>
        }
    });
    view! {
        <section class="card">
            <h2>"Model"</h2>
            <dl class="facts">
                <dt>"IR version"</dt>
                <dd data-testid="ir-version">{or_dash(ir)}</dd>
                <dt>"Opsets"</dt>
                <dd>
                    <ul class="opsets" data-testid="opsets">{opsets}</ul>
                </dd>
                <dt>"Producer"</dt>
                <dd data-testid="producer">{or_dash(producer)}</dd>
                <dt>"Model version"</dt>
                <dd>{or_dash(model_version)}</dd>
                <dt>"Domain"</dt>
                <dd>{or_dash(domain)}</dd>
            </dl>
            {doc}
        </section>
    }
}

fn counts_card(summary: &Summary) -> impl IntoView + use<> {
    let external_files = summary
        .external_files
        .iter()
        .map(|(location, supplied)| {
            let (status, class) = if *supplied {
                ("supplied", "badge badge-ok")
            } else {
                ("missing", "badge badge-warn")
            };
            view! {
                <li>
                    <code>{location.clone()}</code>
                    <span class=class>{status}</span>
                </li>
            }
        })
        .collect_view();
    let has_external = !summary.external_files.is_empty();
    view! {
        <section class="card">
            <h2>"Contents"</h2>
            <dl class="facts counts">
                {number("Nodes, all graphs", "nodes-total", summary.nodes_total as u64)}
                {number("Nodes, main graph", "nodes-main", summary.nodes_main as u64)}
                {number("Functions", "functions", summary.functions as u64)}
                {number("Overloads", "overloads", summary.overloads as u64)}
                {number("Initializers", "initializers", summary.initializers as u64)}
                {size("Initializer data", "initializer-bytes", summary.initializer_bytes)}
                {number("External tensors", "external-tensors", summary.external_tensors as u64)}
                {number("Subgraph depth", "max-depth", summary.max_subgraph_depth as u64)}
            </dl>
            {has_external
                .then(|| {
                    view! {
                        <h3>"External data files"</h3>
                        <ul class="external-files" data-testid="external-files">
                            {external_files}
                        </ul>
                    }
                })}
        </section>
    }
}

fn number(label: &'static str, testid: &'static str, value: u64) -> impl IntoView {
    view! {
        <dt>{label}</dt>
        <dd class="number" data-testid=testid data-value=value.to_string()>
            {format::count(value)}
        </dd>
    }
}

fn size(label: &'static str, testid: &'static str, value: u64) -> impl IntoView {
    let title = format!("{} bytes", format::count(value));
    view! {
        <dt>{label}</dt>
        <dd class="number" data-testid=testid data-value=value.to_string() title=title>
            {format::bytes(value)}
        </dd>
    }
}

fn io_card(
    title: &'static str,
    testid: &'static str,
    entries: &[IoEntry],
) -> impl IntoView + use<> {
    let rows = entries
        .iter()
        .map(|e| {
            view! {
                <tr>
                    <td class="io-name">{or_dash(non_empty(&e.name))}</td>
                    <td class="io-type">
                        <code>{e.r#type.clone()}</code>
                    </td>
                </tr>
            }
        })
        .collect_view();
    let body = if entries.is_empty() {
        view! { <p class="none" data-testid=testid>"None"</p> }.into_any()
    } else {
        view! {
            <table class="table" data-testid=testid>
                <thead>
                    <tr>
                        <th>"Name"</th>
                        <th>"Type and shape"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };
    view! {
        <section class="card">
            <h2>{title} <span class="card-count">{entries.len()}</span></h2>
            {body}
        </section>
    }
}

fn metadata_card(metadata: &[(String, String)]) -> impl IntoView + use<> {
    let body = if metadata.is_empty() {
        view! { <p class="none" data-testid="metadata">"None"</p> }.into_any()
    } else {
        let rows = metadata
            .iter()
            .map(|(key, value)| {
                view! {
                    <tr>
                        <td class="meta-key">{key.clone()}</td>
                        <td class="meta-value">{value.clone()}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table class="table" data-testid="metadata">
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };
    view! {
        <section class="card">
            <h2>"Metadata" <span class="card-count">{metadata.len()}</span></h2>
            {body}
        </section>
    }
}

fn diagnostics_card(diagnostics: &[Diagnostic]) -> impl IntoView + use<> {
    let body = if diagnostics.is_empty() {
        view! { <p class="none" data-testid="diagnostics">"No problems found by the importer or the checker."</p> }
            .into_any()
    } else {
        let items = diagnostics.iter().map(diagnostic).collect_view();
        view! { <ul class="diagnostics" data-testid="diagnostics">{items}</ul> }.into_any()
    };
    view! {
        <section class="card">
            <h2>"Diagnostics" <span class="card-count">{diagnostics.len()}</span></h2>
            {body}
        </section>
    }
}

fn diagnostic(d: &Diagnostic) -> impl IntoView + use<> {
    let (severity, class) = match d.severity {
        Severity::Info => ("info", "badge badge-info"),
        Severity::Warning => ("warning", "badge badge-warn"),
        Severity::Error => ("error", "badge badge-error"),
    };
    let location = non_empty(&d.location).map(|l| view! { <div class="diag-location">{l}</div> });
    view! {
        <li class="diag">
            <span class=class>{severity}</span>
            <div class="diag-body">
                <div>
                    <code class="diag-code">{d.code}</code>
                    " "
                    <span>{d.message.clone()}</span>
                </div>
                {location}
            </div>
        </li>
    }
}

fn non_empty(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.to_string())
}

fn join_nonempty(a: &str, b: &str) -> Option<String> {
    let joined = [a.trim(), b.trim()]
        .into_iter()
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    non_empty(&joined)
}

/// The value, or a dash for a field the model leaves empty.
fn or_dash(value: Option<String>) -> impl IntoView {
    match value {
        Some(v) => view! { <span>{v}</span> }.into_any(),
        None => view! { <span class="none" title="not set">"—"</span> }.into_any(),
    }
}
