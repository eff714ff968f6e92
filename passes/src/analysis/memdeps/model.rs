//! What the dataflow sees of a function: memory objects, the descriptors of
//! their bytes, and each memory instruction's use and definition, as plain
//! data (so the engine runs on hand-written programs as well as on LLVM IR).

use super::intervals::Interval;

/// Index of an object in [`Program::objects`].
pub type ObjId = u32;
/// Index of a descriptor in [`Program::descs`].
pub type DescId = u32;
/// Index of a memory instruction in [`Program::accesses`] (`#N` is `N - 1`).
pub type AccessId = u32;

/// Where the last write of a byte may come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Def {
    /// Written before the function started (or never: an alloca's undefined bytes).
    Entry,
    /// Memory instruction `#(id + 1)`.
    Access(AccessId),
    /// Any definition of the object: a record with more than
    /// [`MAX_DEFS`](super::dataflow::MAX_DEFS) definitions keeps this instead,
    /// so that stores through unknown offsets (every one of which may reach
    /// every later use) cost constant space per record, not linear.
    Any,
}

/// A variable of the patent: an alloca, a global, a `noalias` argument, or
/// "other memory" (what no name reaches).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub name: String,
    /// Size in bytes when known.
    pub size: Option<u64>,
}

impl Object {
    /// The bytes of the object: `[0, size-1]`, or every offset when the size is unknown.
    pub fn span(&self) -> Interval {
        match self.size {
            Some(0) | None => (0, u64::MAX),
            Some(n) => (0, n - 1),
        }
    }
}

/// The bytes a descriptor names: exact when offset and size are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Range {
    Exact(u64, u64),
    Inexact,
}

/// A memory descriptor (variable, offset, size).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Desc {
    pub obj: ObjId,
    pub range: Range,
}

/// What one use or definition touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ref {
    /// The instruction names this descriptor (its must-descriptor); it
    /// may-touches every other descriptor of the object that overlaps it.
    Must(DescId),
    /// No must-descriptor (a pointer of unknown origin, a call): it may touch
    /// any byte of these objects.
    May(Vec<ObjId>),
}

/// A memory instruction: its use (done first, clause a3) and its definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Access {
    pub use_: Option<Ref>,
    pub def: Option<Ref>,
    /// The definition may not happen (masked store, `cmpxchg`): it adds to
    /// the descriptor's definitions instead of replacing them (Fig. 8).
    pub predicated: bool,
}

/// A loop that writes every byte of `desc` in each run, on its exit edge
/// `from -> to` (blocks): the dataflow kills `desc` there, as an exact
/// definition by `defs`, every definition of the object inside the loop
/// (whichever wrote a byte last, it is one of them). See [`super::fills`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fill {
    pub from: usize,
    pub to: usize,
    pub desc: DescId,
    pub defs: Vec<AccessId>,
}

/// A function as the dataflow sees it. Block `b` of the CFG holds the
/// accesses `blocks[b]`, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub objects: Vec<Object>,
    pub descs: Vec<Desc>,
    pub accesses: Vec<Access>,
    pub blocks: Vec<Vec<AccessId>>,
    /// The descriptors of each object, for overlap queries.
    pub descs_of: Vec<Vec<DescId>>,
    /// Loop fills, killed on their exit edges (sound rules only).
    pub fills: Vec<Fill>,
}

impl Program {
    /// Adds an object and its whole descriptor, which is always the first
    /// of its descriptors.
    pub fn add_object(&mut self, name: impl Into<String>, size: Option<u64>) -> ObjId {
        self.objects.push(Object { name: name.into(), size });
        self.descs_of.push(Vec::new());
        let obj = (self.objects.len() - 1) as ObjId;
        self.whole(obj);
        obj
    }

    /// The descriptor `(obj, range)`, interned. Exact ranges are clipped to
    /// the object (bytes outside it are undefined behaviour to touch).
    pub fn desc(&mut self, obj: ObjId, range: Range) -> DescId {
        let d = Desc { obj, range };
        if let Some(&id) = self.descs_of[obj as usize].iter().find(|&&id| self.descs[id as usize] == d) {
            return id;
        }
        self.descs.push(d);
        let id = (self.descs.len() - 1) as DescId;
        self.descs_of[obj as usize].push(id);
        id
    }

    /// The descriptor of a whole object: where `entry` definitions live.
    pub fn whole(&mut self, obj: ObjId) -> DescId {
        match self.objects[obj as usize].size {
            Some(n) if n > 0 => self.desc(obj, Range::Exact(0, n - 1)),
            _ => self.desc(obj, Range::Inexact),
        }
    }

    /// The bytes a descriptor may touch: its interval, or the whole object when inexact.
    pub fn span(&self, d: DescId) -> Interval {
        let desc = self.descs[d as usize];
        match desc.range {
            Range::Exact(lo, hi) => (lo, hi),
            Range::Inexact => self.objects[desc.obj as usize].span(),
        }
    }

    pub fn is_exact(&self, d: DescId) -> bool {
        matches!(self.descs[d as usize].range, Range::Exact(..))
    }

    pub fn push_access(&mut self, block: usize, a: Access) -> AccessId {
        self.accesses.push(a);
        let id = (self.accesses.len() - 1) as AccessId;
        self.blocks[block].push(id);
        id
    }

    /// The other descriptors of `d`'s object whose bytes overlap `d`'s: its
    /// may-descriptors.
    pub fn may_descs(&self, d: DescId) -> Vec<DescId> {
        let (lo, hi) = self.span(d);
        self.descs_of[self.descs[d as usize].obj as usize]
            .iter()
            .copied()
            .filter(|&m| m != d && overlap((lo, hi), self.span(m)).is_some())
            .collect()
    }

    /// `(obj, [lo,hi])` or `(obj, inexact)`.
    pub fn desc_name(&self, d: DescId) -> String {
        let desc = self.descs[d as usize];
        let obj = &self.objects[desc.obj as usize].name;
        match desc.range {
            Range::Exact(lo, hi) => format!("({obj},[{lo},{hi}])"),
            Range::Inexact => format!("({obj},inexact)"),
        }
    }
}

/// The common bytes of two intervals.
pub fn overlap(a: Interval, b: Interval) -> Option<Interval> {
    let (lo, hi) = (a.0.max(b.0), a.1.min(b.1));
    (lo <= hi).then_some((lo, hi))
}
