//! What a runtime's classes and references are to the leak suspects and the waste
//! report: the [`Roles`] each format implements (`<format>/roles.rs`), listed in
//! [`super::Format::roles`].

use super::Snapshot;
use crate::heap::ObjId;

/// One reference of a path from a GC root, for [`Roles::reference_words`]: `path[i - 1]`
/// (of class `from_class`) to `path[i]`, named `label`.
pub struct Reference<'a> {
    pub snap: &'a Snapshot,
    pub path: &'a [ObjId],
    pub i: usize,
    pub label: &'a str,
    pub from_class: &'a str,
}

impl Reference<'_> {
    /// The object the reference comes from.
    pub fn from(&self) -> ObjId {
        self.path[self.i - 1]
    }
}

/// What a runtime's classes are to the leak suspects (`src/suspects/`), one
/// implementation per format (`<format>/roles.rs`), so that the suspects name no format.
pub trait Roles: Sync {
    /// Whether an object (of class `name`) only carries what it dominates: loaders,
    /// classes and their statics, globals, contexts, root sets. The descent looks below.
    fn pass_through(&self, snap: &Snapshot, o: ObjId, name: &str) -> bool;
    /// A runtime's own object that a user does not allocate or fix.
    fn internal(&self, name: &str) -> bool;
    /// A collection's plumbing: backing arrays and tables, entry nodes, runtime
    /// containers: neither the title's member nor (for an array) the object a fix touches.
    fn is_structural(&self, name: &str) -> bool;
    /// Whether an object of class `name` is a collection.
    fn is_collection(&self, name: &str) -> bool;
    /// What the waste report says about this format's duplicate strings, when they are
    /// not what they seem (a format that keeps no string text).
    fn strings_note(&self) -> Option<&'static str> {
        None
    }
    /// The collection classes whose sparse instances the waste report lists (those whose
    /// fields say their capacity and size); none by default.
    fn sparse_classes(&self) -> &'static [&'static str] {
        &[]
    }
    /// Whether objects carry no type (Go): a spreading object below another is taken
    /// for the backing array of the slice or map the one above holds.
    fn untyped(&self) -> bool {
        false
    }
    /// Whether the object a fix touches is the user's object above the engine's own (V8:
    /// an `ArrayBuffer` above its backing store), found by climbing past [`internal`]
    /// objects.
    ///
    /// [`internal`]: Roles::internal
    fn climbs_past_internal(&self) -> bool {
        false
    }
    /// The classes of a thread-local map and of its entries (Java's `ThreadLocalMap`),
    /// whose values are named as a thread's locals.
    fn thread_locals(&self) -> Option<(&'static str, &'static str)> {
        None
    }
    /// The class whose instances are threads even without a thread root (Java's
    /// `java.lang.Thread`); `None` where threads are not objects of the heap.
    fn thread_class(&self) -> Option<&'static str> {
        None
    }
    /// The class of the objects that stand for classes and hold their static fields
    /// (Java's `java.lang.Class`, labelled `class NAME`); `None` where classes are not
    /// objects of the heap.
    fn class_object_class(&self) -> Option<&'static str> {
        None
    }
    /// Whether references are best named by the frame's lexical that holds an object
    /// (MoarVM, which writes most references without a name).
    fn names_by_lexicals(&self) -> bool {
        false
    }
    /// Whether an object of class `name` is a closure or its context, whose references
    /// are closure variables.
    fn is_closure(&self, _name: &str) -> bool {
        false
    }
    /// A reference of a path in a holder's words, and whether the holder stops there;
    /// `None` for the default `LABEL of CLASS`.
    fn reference_words(&self, _r: &Reference) -> Option<(String, bool)> {
        None
    }
    /// Whether a holder that starts at a GC root of class `name` says the root's kind
    /// (not where the holder already names it: a class's static, a global).
    fn says_its_root(&self, _name: &str) -> bool {
        true
    }
    /// Whether an object of class `name` on the way to a holder is part of it (V8's
    /// plain `Object` under `_events`), like a collection's plumbing.
    fn part_of_holder(&self, _name: &str) -> bool {
        false
    }
    /// One word of a name as a narrow screen shows it (Java packages, Dart library
    /// URIs and Go source directories dropped); as it is by default.
    fn brief_word(&self, word: &str) -> String {
        word.to_string()
    }
}
