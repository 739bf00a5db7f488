//! Calls of model-local functions: the rules live in [`crate::calls`]; the checker
//! reports what they find.

use super::Checker;
use crate::calls::CallBinding;
use crate::ir::{FunctionId, NodeId};

impl Checker<'_> {
    /// The problems of call `n` of `callee` (arity, attributes, omitted inputs, graphs
    /// passed in). A malformed attribute is reported by the node rules, wherever it is.
    pub(super) fn call(&mut self, n: NodeId, callee: FunctionId) {
        let binding = CallBinding::bind(self.model, n, callee);
        for p in binding.problems {
            if p.code != "check.attribute-malformed" {
                self.report(p.severity, p.code, p.message, p.at);
            }
        }
    }
}
