//! Runs in the engine: the model, a comparison, the colouring and a probe, each
//! planned by the session, run in onnxruntime-web (loaded once, on the first run)
//! and finished by the session.

use super::*;

/// Runs the open model for request `seq` (see [`Request::Run`]): gives the inputs
/// fetched from `given` (and the example's, the first time), loads onnxruntime-web
/// the first time, runs, and answers with the outcome. The page hears that the run
/// started (the Run tab shows it) before the runtime loads.
pub(super) async fn run_model(
    seq: u64,
    given: Vec<(String, String)>,
    example: Vec<(String, String)>,
    data: bool,
    bridge: String,
    ort: String,
) {
    let example = if with(|e| e.session.wants_example_inputs()) {
        example
    } else {
        Vec::new()
    };
    let mut failed = None;
    for (name, url) in example.into_iter().chain(given) {
        let label = url.rsplit('/').next().unwrap_or(&url).to_string();
        let given = match platform::fetch_bytes(&url, &mut |_, _| true).await {
            Ok(bytes) => change(|s| s.give_run_input(&name, &label, &bytes)),
            Err(e) => Err(format!("{label}: {e}")),
        };
        if let Err(e) = given {
            failed = Some(format!("Input {name}: {e}"));
            break;
        }
    }
    let plan = match failed {
        Some(message) => Err(message),
        None => change(Session::plan_run),
    };
    let outcome = match plan {
        Err(message) => {
            change(|s| s.fail_run(message.clone()));
            RunOutcome::Error(message)
        }
        Ok(plan) => {
            progress();
            let started = platform::now_ms();
            let result = async {
                let runtime = runtime(&bridge, &ort).await?;
                let (ms, outputs) = runtime
                    .run(&plan.key, &plan.model, &plan.inputs, &plan.outputs)
                    .await?;
                Ok((ms, runtime.version.clone(), outputs))
            }
            .await;
            platform::publish_timing("run_engine_ms", platform::now_ms() - started);
            change(|s| s.finish_run(plan, result, data))
        }
    };
    with(|e| e.done.push(seq));
    send(Some((seq, Answer::Run(outcome))), false, None);
}

/// Runs the open model and the one it is compared with on the same inputs, one after
/// the other, and records each pair's largest difference.
pub(super) async fn run_compare(bridge: &str, ort: &str) {
    let plan = match change(Session::plan_compare) {
        Ok(plan) => plan,
        Err(message) => {
            change(|s| s.fail_run(message));
            return;
        }
    };
    change(Session::start_extra_run);
    progress();
    let result = match run_plan(&plan.current, bridge, ort).await {
        Ok(current) => run_plan(&plan.other, bridge, ort)
            .await
            .map(|other| (current, other)),
        Err(e) => Err(e),
    };
    change(|s| s.finish_compare(plan, result));
}

/// Runs the open model with every node's outputs exposed, and colours the graph by
/// `by`.
pub(super) async fn colour(by: super::run::Colouring, bridge: &str, ort: &str) {
    let (plan, nodes) = match with(|e| e.session.plan_overlay()) {
        Ok(p) => p,
        Err(message) => {
            change(|s| s.fail_run(message));
            return;
        }
    };
    change(Session::start_extra_run);
    progress();
    let result = run_plan(&plan, bridge, ort).await;
    change(|s| s.finish_overlay(by, plan.stamp, nodes, result));
}

/// What `item` computes on the last run's inputs, each output summed up.
pub(super) async fn probe(item: ItemId, bridge: &str, ort: &str) -> super::run::ValuesShown {
    let (plan, outputs) = with(|e| e.session.plan_probe(item))?;
    let got = run_plan(&plan, bridge, ort)
        .await
        .map_err(|e| format!("The run failed: {e}"))?;
    Ok(outputs
        .into_iter()
        .map(|(_, name)| {
            let stats = got
                .iter()
                .find(|(n, _)| *n == name)
                .ok_or_else(|| "onnxruntime gave no value".to_string())
                .and_then(|(_, t)| graft::values::stats(t));
            (name, stats)
        })
        .collect())
}

/// Runs `plan` in onnxruntime-web (loaded the first time); its outputs by name.
pub(super) async fn run_plan(
    plan: &super::run::RunPlan,
    bridge: &str,
    ort: &str,
) -> Result<super::run::Named, String> {
    let runtime = runtime(bridge, ort).await?;
    let (_, got) = runtime
        .run(&plan.key, &plan.model, &plan.inputs, &plan.outputs)
        .await?;
    Ok(got)
}

/// onnxruntime-web, loaded the first time it is needed.
pub(super) async fn runtime(
    bridge: &str,
    ort: &str,
) -> Result<std::rc::Rc<platform::Runtime>, String> {
    if let Some(r) = RUNTIME.with(|r| r.borrow().clone()) {
        return Ok(r);
    }
    let loaded = std::rc::Rc::new(platform::Runtime::load(bridge, ort).await?);
    RUNTIME.with(|r| *r.borrow_mut() = Some(loaded.clone()));
    Ok(loaded)
}
