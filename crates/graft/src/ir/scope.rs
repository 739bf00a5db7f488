//! Resolving names by lexical scope while a model is built, the one resolver the
//! binary importer and the text builder share: a graph sees its own names and those of
//! the graphs enclosing it (innermost first); a function body sees only itself; a
//! training graph sees the main graph. An initializer named like an input of its graph
//! is that input's default, not a second definition.

use std::collections::HashMap;
use std::hash::Hasher as _;

use super::{Arena, GraphId, GraphOwner, Value, ValueDef, ValueId};
use crate::diag::{Location, Severity};
use crate::hash::FxHasher;

/// A diagnostic found while building, its location described once the model is whole.
pub type Found = (Severity, &'static str, String, Location);

/// The names one graph defines, by hash: no string is copied to be a key; the value's
/// own name (in the arena) is compared. The rare colliding hashes are kept aside.
#[derive(Clone, Default)]
struct Scope {
    by_hash: HashMap<u64, ValueId, std::hash::BuildHasherDefault<KeyHasher>>,
    collisions: Vec<(u64, ValueId)>,
}

/// Keys are hashes already: the identity. (hashbrown's `HashTable` would hold the
/// ids without it and without the collisions list, but it rehashes through a
/// closure that must read every name from the arena, which a scope's inserts do not
/// carry; this keeps std's map and one line of hasher.)
#[derive(Default)]
struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }

    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

fn hash(name: &str) -> u64 {
    let mut h = FxHasher::default();
    h.write(name.as_bytes());
    h.finish()
}

impl Scope {
    fn get(&self, values: &Arena<ValueId, Value>, name: &str, h: u64) -> Option<ValueId> {
        let &id = self.by_hash.get(&h)?;
        if values.get(id).is_some_and(|v| v.name == name) {
            return Some(id);
        }
        self.collisions
            .iter()
            .find(|&&(ch, c)| ch == h && values.get(c).is_some_and(|v| v.name == name))
            .map(|&(_, c)| c)
    }

    /// Adds `id` under `name`; false when the name is there already.
    fn insert(&mut self, values: &Arena<ValueId, Value>, name: &str, h: u64, id: ValueId) -> bool {
        if self.get(values, name, h).is_some() {
            return false;
        }
        match self.by_hash.entry(h) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(id);
            }
            std::collections::hash_map::Entry::Occupied(_) => self.collisions.push((h, id)),
        }
        true
    }
}

/// The scopes visible at the point being built, innermost last.
#[derive(Default)]
pub struct Resolver {
    scopes: Vec<Scope>,
    /// The main graph's names, kept for training graphs, which may read them.
    main: Option<Scope>,
}

/// The scopes set aside while a function body or a training graph is built.
pub struct Saved(Vec<Scope>);

impl Resolver {
    /// A graph starts: its names form the innermost scope.
    pub fn enter_graph(&mut self) {
        self.scopes.push(Scope::default());
    }

    /// The graph ends; the main graph's names are kept for training graphs.
    pub fn leave_graph(&mut self, owner: GraphOwner) {
        let scope = self.scopes.pop();
        if owner == GraphOwner::Model {
            self.main = scope;
        }
    }

    /// A function body starts: it sees nothing outside itself.
    pub fn enter_function(&mut self) -> Saved {
        Saved(std::mem::replace(&mut self.scopes, vec![Scope::default()]))
    }

    /// A training graph starts: it sees the main graph's names.
    pub fn enter_training(&mut self) -> Saved {
        let main = self.main.clone().unwrap_or_default();
        Saved(std::mem::replace(&mut self.scopes, vec![main]))
    }

    /// Back to the scopes before [`Resolver::enter_function`] or `enter_training`.
    pub fn restore(&mut self, saved: Saved) {
        self.scopes = saved.0;
    }

    /// Room for `n` more names in the innermost scope.
    pub fn reserve(&mut self, n: usize) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.by_hash.reserve(n);
        }
    }

    /// A new value `name` of `graph`, defined in the innermost scope (a name the scope
    /// defined already is reported, and the new value made all the same).
    pub fn define(
        &mut self,
        values: &mut Arena<ValueId, Value>,
        found: &mut Vec<Found>,
        graph: GraphId,
        name: &str,
        def: ValueDef,
    ) -> ValueId {
        let id = values.push(Value {
            name: name.to_owned(),
            graph,
            def,
        });
        let fresh = self
            .scopes
            .last_mut()
            .is_none_or(|scope| scope.insert(values, name, hash(name), id));
        if !fresh {
            found.push((
                Severity::Warning,
                "import.duplicate-name",
                format!("{name:?} is defined more than once in this graph"),
                Location::graph(graph),
            ));
        }
        id
    }

    /// An initializer: it defines its value or, named like an input of its graph,
    /// gives that input a default.
    pub fn define_initializer(
        &mut self,
        values: &mut Arena<ValueId, Value>,
        found: &mut Vec<Found>,
        graph: GraphId,
        name: &str,
    ) -> ValueId {
        if let Some(existing) = self
            .scopes
            .last()
            .and_then(|s| s.get(values, name, hash(name)))
            && values[existing].def == ValueDef::Input
        {
            return existing;
        }
        self.define(values, found, graph, name, ValueDef::Initializer)
    }

    /// The value `name` (a `what`, for the message) denotes where `graph` is being
    /// built, innermost scope first; when no scope has it, it is reported and a new
    /// undefined value stands for it (remembered, so later uses agree). With
    /// `annotation`, the value a `value_info` entry of `graph` names. A name nothing defines is then a warning, not an error:
    /// exporters write such entries, and onnx and onnxruntime accept them. A new
    /// undefined value keeps the entry (it is exported as it came) without standing
    /// for the name anywhere else.
    pub fn resolve_or(
        &mut self,
        values: &mut Arena<ValueId, Value>,
        found: &mut Vec<Found>,
        graph: GraphId,
        name: &str,
        what: &str,
        annotation: bool,
    ) -> ValueId {
        let h = hash(name);
        for scope in self.scopes.iter().rev() {
            if let Some(id) = scope.get(values, name, h) {
                return id;
            }
        }
        found.push(if annotation {
            (
                Severity::Warning,
                "import.stray-value-info",
                format!(
                    "{what} {name:?} names a value nothing in scope defines; it is kept as it is"
                ),
                Location::graph(graph).with(format!("value_info {name:?}")),
            )
        } else {
            (
                Severity::Error,
                "import.undefined-name",
                format!("{what} {name:?} is not defined in this scope"),
                Location::graph(graph),
            )
        });
        let id = values.push(Value {
            name: name.to_owned(),
            graph,
            def: ValueDef::Undefined,
        });
        if !annotation && let Some(scope) = self.scopes.last_mut() {
            scope.insert(values, name, h, id);
        }
        id
    }
}

/// A value info as read, its name not yet resolved.
pub struct NamedInfo<N> {
    pub name: Option<N>,
    pub info: super::ValueInfo,
}

/// What builds a model by name (the importer, the text builder): given its values,
/// resolver and list of findings, it defines and resolves names by the rules above.
pub trait Resolving {
    fn resolving(&mut self) -> (&mut Arena<ValueId, Value>, &mut Resolver, &mut Vec<Found>);

    /// [`Resolver::define`].
    fn define(&mut self, graph: GraphId, name: &str, def: ValueDef) -> ValueId {
        let (values, scopes, found) = self.resolving();
        scopes.define(values, found, graph, name, def)
    }

    /// [`Resolver::define_initializer`].
    fn define_initializer(&mut self, graph: GraphId, name: &str) -> ValueId {
        let (values, scopes, found) = self.resolving();
        scopes.define_initializer(values, found, graph, name)
    }

    /// [`Resolver::resolve_or`], for a use of a name.
    fn resolve(&mut self, graph: GraphId, name: &str, what: &str) -> ValueId {
        let (values, scopes, found) = self.resolving();
        scopes.resolve_or(values, found, graph, name, what, false)
    }

    /// Resolves the names of a list of value infos: graph outputs as uses,
    /// `value_info` entries as annotations ([`Resolver::resolve_or`]).
    fn resolve_infos<N: AsRef<str>>(
        &mut self,
        graph: GraphId,
        infos: Vec<NamedInfo<N>>,
        what: &str,
    ) -> Vec<super::ValueInfo> {
        infos
            .into_iter()
            .map(|NamedInfo { name, mut info }| {
                info.value = name.map(|n| {
                    let (values, scopes, found) = self.resolving();
                    let annotation = what == "value_info";
                    scopes.resolve_or(values, found, graph, n.as_ref(), what, annotation)
                });
                info
            })
            .collect()
    }

    /// An attribute as read: a value or a reference when its fields form one, else
    /// kept raw (every field) and reported.
    fn attribute_kind(
        &mut self,
        name: Option<&str>,
        raw: super::RawAttribute,
        graph: GraphId,
        node: Option<super::NodeId>,
    ) -> super::AttrKind {
        match raw.into_kind() {
            Ok(kind) => kind,
            Err(raw) => {
                let with_ref = if raw.ref_attr_name.is_some() {
                    ", with ref_attr_name"
                } else {
                    ""
                };
                self.resolving().2.push((
                    Severity::Warning,
                    "import.malformed-attribute",
                    format!(
                        "attribute {:?} is malformed (type {:?}{with_ref}); it is kept as it is",
                        name.unwrap_or(""),
                        raw.r#type,
                    ),
                    Location {
                        graph: Some(graph),
                        node,
                        detail: Some(format!("attribute {:?}", name.unwrap_or(""))),
                    },
                ));
                super::AttrKind::Raw(raw)
            }
        }
    }
}
