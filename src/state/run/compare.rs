//! A comparison run: the open model and the one it is compared with, on the same
//! inputs, and how far each output and each matched value moved.

use super::*;

/// Both models of a comparison run on the same inputs: each plan, and the values to
/// compare, each as (what it is, its name in the open model's run, in the other's).
pub struct ComparePlan {
    pub current: RunPlan,
    pub other: RunPlan,
    pub with: String,
    pub outputs: Vec<(String, String, String)>,
    pub values: Vec<(String, String, String)>,
}

/// The largest absolute difference of each output and each matched intermediate value
/// between the open model and the one it is compared with, on the same inputs.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct RunComparison {
    /// What the open model was run against ("the model as opened").
    pub with: String,
    pub outputs: Vec<(String, Result<f64, String>)>,
    /// Largest difference first.
    pub values: Vec<(String, Result<f64, String>)>,
}

impl Session {
    /// The plan for running the open model and the one it is compared with on the
    /// same inputs (those the next run would get): the outputs paired by name (else
    /// by position), and the outputs of the matched main-graph nodes (the diff's
    /// pairs, at most [`MAX_COMPARED_NODES`]) paired by index.
    pub fn plan_compare(&mut self) -> Result<ComparePlan, String> {
        let c = self
            .compare
            .as_ref()
            .ok_or("Compare the model with another first (the Graph tab's Compare).")?;
        let open = self.open.as_ref().ok_or("No model is open.")?;
        let base = self.make_plan()?;
        let mut current = open.doc.model().clone();
        let mut other = c.other.clone();
        let (current_names, other_names) = (output_names(&current), output_names(&other));
        let outputs: Vec<(String, String, String)> = current_names
            .iter()
            .enumerate()
            .filter_map(|(k, name)| {
                let there = other_names
                    .iter()
                    .find(|n| *n == name)
                    .or_else(|| other_names.get(k))?;
                Some((name.clone(), name.clone(), there.clone()))
            })
            .collect();
        let (Some(main_b), Some(main_a)) = (current.graph, other.graph) else {
            return Err("A model has no graph.".into());
        };
        let mut pairs: Vec<(graft::ir::NodeId, graft::ir::NodeId)> = c
            .to_other
            .iter()
            .filter(|(nb, na)| {
                current.nodes.get(**nb).is_some_and(|n| n.graph == main_b)
                    && other.nodes.get(**na).is_some_and(|n| n.graph == main_a)
            })
            .map(|(nb, na)| (*nb, *na))
            .collect();
        pairs.sort();
        pairs.truncate(MAX_COMPARED_NODES);
        let (nbs, nas): (Vec<_>, Vec<_>) = pairs.iter().copied().unzip();
        let shown_b = graft::values::expose(&mut current, &nbs);
        let shown_a = graft::values::expose(&mut other, &nas);
        let mut values = Vec::new();
        for (b, a) in shown_b.iter().zip(&shown_a) {
            for (k, name) in b {
                if let Some((_, there)) = a.iter().find(|(j, _)| j == k)
                    && !outputs.iter().any(|(_, n, _)| n == name)
                {
                    values.push((name.clone(), name.clone(), there.clone()));
                }
            }
        }
        let names = |pairs: &[(String, String, String)],
                     pick: fn(&(String, String, String)) -> &String| {
            pairs.iter().map(|p| pick(p).clone()).collect::<Vec<_>>()
        };
        let (opened, serial) = self.stamp();
        let mut current_outputs = names(&outputs, |p| &p.1);
        current_outputs.extend(names(&values, |p| &p.1));
        let mut other_outputs = names(&outputs, |p| &p.2);
        other_outputs.extend(names(&values, |p| &p.2));
        Ok(ComparePlan {
            current: RunPlan {
                stamp: (opened, serial),
                key: format!("compare:{opened}:{serial}:open"),
                model: runtime_bytes(&current)?,
                inputs: base.inputs.clone(),
                outputs: current_outputs,
            },
            other: RunPlan {
                stamp: (opened, serial),
                key: format!("compare:{opened}:{serial}:other"),
                model: runtime_bytes(&other)?,
                inputs: base.inputs,
                outputs: other_outputs,
            },
            with: c.label.clone(),
            outputs,
            values,
        })
    }

    /// What the runs of a comparison plan gave: each pair's largest difference.
    pub fn finish_compare(&mut self, plan: ComparePlan, result: Result<(Named, Named), String>) {
        if plan.current.stamp.0 != self.opened {
            return;
        }
        let runs = self.runs();
        runs.running = false;
        let (current, other) = match result {
            Ok(r) => r,
            Err(message) => {
                runs.error = Some(format!("The comparison run failed: {message}"));
                return;
            }
        };
        runs.error = None;
        let find = |got: &[(String, Tensor)], name: &str| {
            got.iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .ok_or_else(|| format!("no value {name}"))
        };
        let difference = |(label, a, b): &(String, String, String)| {
            let d = find(&current, a).and_then(|x| {
                let y = find(&other, b)?;
                graft::values::max_abs_difference(None, &x, None, &y)
            });
            (label.clone(), d)
        };
        let outputs = plan.outputs.iter().map(difference).collect();
        let mut values: Vec<(String, Result<f64, String>)> =
            plan.values.iter().map(difference).collect();
        values.sort_by(|x, y| {
            let key = |r: &Result<f64, String>| r.as_ref().map_or(f64::INFINITY, |d| *d);
            key(&y.1).total_cmp(&key(&x.1))
        });
        runs.compared = Some((
            plan.current.stamp,
            RunComparison {
                with: plan.with,
                outputs,
                values,
            },
        ));
    }
}
