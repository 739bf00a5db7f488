//! Typed arena indices. Identity in the IR is always one of these, never a name.

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, serde::Serialize, serde::Deserialize)]
        pub struct $name(u32);

        impl $name {
            /// The position of this id in its arena.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            pub(crate) fn from_index(index: usize) -> Self {
                // Arenas are bounded by the input size, which is far below 2^32 entries
                // (the importer refuses larger inputs before building the IR).
                Self(u32::try_from(index).unwrap_or(u32::MAX))
            }
        }
    };
}

id!(
    /// A node in any graph or function body.
    NodeId
);
id!(
    /// A value (an SSA name) in any graph or function body.
    ValueId
);
id!(
    /// A graph: the main graph, a subgraph (GRAPH/GRAPHS attribute), a training graph,
    /// or the body of a function.
    GraphId
);
id!(
    /// A model-local function.
    FunctionId
);

/// A growable arena indexed by a typed id.
#[derive(Clone, Debug)]
pub struct Arena<I, T> {
    items: Vec<T>,
    _id: std::marker::PhantomData<fn(I) -> I>,
}

impl<I, T> Default for Arena<I, T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            _id: std::marker::PhantomData,
        }
    }
}

/// What an arena needs to know about its id type.
pub trait ArenaId: Copy {
    fn index(self) -> usize;
    fn from_index(index: usize) -> Self;
}

macro_rules! arena_id {
    ($($name:ident),*) => {$(
        impl ArenaId for $name {
            fn index(self) -> usize {
                $name::index(self)
            }
            fn from_index(index: usize) -> Self {
                $name::from_index(index)
            }
        }
    )*};
}
arena_id!(NodeId, ValueId, GraphId, FunctionId);

impl<I: ArenaId, T> Arena<I, T> {
    pub fn push(&mut self, item: T) -> I {
        let id = I::from_index(self.items.len());
        self.items.push(item);
        id
    }

    pub fn reserve(&mut self, additional: usize) {
        self.items.reserve(additional);
    }

    pub fn get(&self, id: I) -> Option<&T> {
        self.items.get(id.index())
    }

    pub fn get_mut(&mut self, id: I) -> Option<&mut T> {
        self.items.get_mut(id.index())
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Drops the items from `len` on (ids at or past it become invalid).
    pub fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
    }

    /// The items, in id order.
    pub fn into_items(self) -> Vec<T> {
        self.items
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (I, &T)> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, item)| (I::from_index(i), item))
    }

    /// Every item, mutably, in id order.
    pub fn items_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.items.iter_mut()
    }
}

impl<I: ArenaId, T> std::ops::Index<I> for Arena<I, T> {
    type Output = T;
    /// Ids are only minted by the arena that holds them, so an id always indexes.
    fn index(&self, id: I) -> &T {
        &self.items[id.index()]
    }
}

impl<I: ArenaId, T> std::ops::IndexMut<I> for Arena<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.items[id.index()]
    }
}
