//! The front door: detect a dump's format from its first bytes and open it.
//!
//! Owns format detection, the listing of what each format offers (its reader, its
//! memory need, its quick passes, its roles), the [`Snapshot`] that a reader returns
//! (`snapshot.rs`) and the [`Decoder`] trait through which views ask a format for what the index does not keep. One module
//! per format; HPROF, V8, Go, MoarVM (v2 and v3) and Dart are built. A format that is
//! recognised before its reader exists answers [`crate::error::Error::Unsupported`] (exit code 2), so
//! that a user with such a file learns what they have rather than "unknown format".

pub mod cached;
pub mod dart;
pub mod go;
pub mod holders;
pub mod hprof;
pub mod moarvm;
mod quick;
pub mod read;
mod roles;
mod snapshot;
pub mod texts;

pub use snapshot::id_number;
pub mod v8;
mod words;

use crate::error::{ParseError, Result};
use crate::heap::{Graph, ObjId};
use crate::source::Source;
use crate::sys::memory::Need;
use crate::sys::progress::Progress;

pub use quick::{QuickHistogram, QuickWaste};
pub use roles::{Reference, Roles};
pub use snapshot::{Snapshot, SnapshotInfo};
pub use words::{first_fields_of, string_word, value_word};

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Format {
    Hprof,
    V8,
    Go,
    MoarVm,
    Dart,
}

impl Format {
    /// The `"format"` value of `summary --json`.
    pub fn id(self) -> &'static str {
        match self {
            Format::Hprof => "hprof",
            Format::V8 => "v8",
            Format::Go => "go",
            Format::MoarVm => "moarvm",
            Format::Dart => "dart",
        }
    }

    /// What indexing `bytes` of this format needs at most (each format's `need.rs`),
    /// found before any of it is read beyond a header; `None` for MoarVM format 3, whose
    /// reader checks the counts once it has listed the snapshots.
    pub fn memory_need(self, bytes: &[u8]) -> Option<Need> {
        match self {
            Format::Hprof => hprof::need::need(bytes),
            Format::V8 => v8::need::need(bytes),
            Format::Go => go::need::need(bytes),
            Format::MoarVm => moarvm::need::need(bytes),
            Format::Dart => dart::need::need(bytes),
        }
    }

    /// A bound at least [`Format::memory_need`]'s, quicker to find (V8's without
    /// counting the strings' quotes over the whole file): enough where it fits.
    pub fn quick_memory_need(self, bytes: &[u8]) -> Option<Need> {
        match self {
            Format::V8 => v8::need::quick_need(bytes),
            _ => self.memory_need(bytes),
        }
    }

    pub fn roles(self) -> &'static dyn Roles {
        match self {
            Format::Hprof => &hprof::roles::HprofRoles,
            Format::V8 => &v8::roles::V8Roles,
            Format::Go => &go::roles::GoRoles,
            Format::MoarVm => &moarvm::roles::MoarVmRoles,
            Format::Dart => &dart::roles::DartRoles,
        }
    }

    /// The decoder whose state [`Decoder::save_state`] gave, for a snapshot read back
    /// from the index cache; `None` when the state does not read back.
    pub fn decoder_from_state(self, state: &[u8]) -> Option<Box<dyn Decoder>> {
        use crate::sys::codec::decode;
        Some(match self {
            Format::Hprof => Box::new(decode::<hprof::decode::HprofDecoder>(state)?),
            Format::V8 => Box::new(decode::<v8::decode::V8Decoder>(state)?),
            Format::Go => Box::new(decode::<go::decode::GoDecoder>(state)?),
            Format::MoarVm => Box::new(decode::<moarvm::decode::MoarDecoder>(state)?),
            Format::Dart => Box::new(decode::<dart::decode::DartDecoder>(state)?),
        })
    }

    /// Opens `source`, the dump at `path` in this format: builds the index of snapshot
    /// `which` of the file (`None`: the last; only MoarVM files hold several).
    pub fn open(
        self,
        path: &std::path::Path,
        source: Source,
        which: Option<usize>,
        progress: &Progress,
    ) -> Result<Snapshot> {
        let parse = |e| crate::error::Error::parse(path, e);
        match self {
            Format::Hprof => hprof::open(source, progress).map_err(parse),
            Format::V8 => v8::open(source, progress).map_err(parse),
            Format::Go => go::open(source, progress).map_err(parse),
            Format::Dart => dart::open(source, progress).map_err(parse),
            // Several snapshots per file: the reader decodes only the one asked for.
            Format::MoarVm => moarvm::open(source, which, progress),
        }
    }

    /// Whether this format offers passes that answer without the index
    /// ([`Format::quick_histogram`], [`Format::quick_waste`]).
    pub fn has_quick_passes(self) -> bool {
        matches!(self, Format::Hprof)
    }

    /// The class histogram of `bytes` without building the index, where this format
    /// has a quicker pass for it ([`QuickHistogram`]; HPROF, which may leave a file to
    /// the index: `Some(Ok(None))`); `None` elsewhere.
    pub fn quick_histogram(
        self,
        bytes: &[u8],
        progress: &Progress,
    ) -> Option<Result<Option<QuickHistogram>, ParseError>> {
        match self {
            Format::Hprof => Some(hprof::quick_histogram(bytes, progress)),
            _ => None,
        }
    }

    /// The waste report of `bytes` without building the index, where this format has a
    /// quicker pass for it ([`QuickWaste`]; HPROF, which may leave a file to the index:
    /// `Some(Ok(None))`); `None` elsewhere.
    pub fn quick_waste(
        self,
        bytes: &[u8],
        progress: &Progress,
        top: usize,
    ) -> Option<Result<Option<QuickWaste>, ParseError>> {
        match self {
            Format::Hprof => Some(hprof::quick_waste(bytes, progress, top)),
            _ => None,
        }
    }

    /// Whether an object can keep its id from one snapshot to the next, which the
    /// three-snapshot view matches objects by: V8's node ids do, and a Dart snapshot's
    /// identity hashes where the VM wrote them; HPROF and Go name objects by address, which
    /// moves, and MoarVM by its index in the snapshot.
    pub fn ids_can_survive(self) -> bool {
        matches!(self, Format::V8 | Format::Dart)
    }

    /// The sign before an object's number where the format names objects by one (`@` for
    /// a V8 node id, `#` for a MoarVM collectable or Dart object index); `None` for the
    /// formats that name objects by their address (HPROF, Go: `0x…`).
    pub fn object_prefix(self) -> Option<char> {
        match self {
            Format::V8 => Some('@'),
            Format::MoarVm | Format::Dart => Some('#'),
            Format::Hprof | Format::Go => None,
        }
    }

    /// Whether the snapshot's threads carry their own names (goroutines), rather than
    /// being named by the object their thread root holds (a Java `Thread`).
    pub fn names_threads_itself(self) -> bool {
        self == Format::Go
    }

    /// Whether the graph has a synthetic root above the GC roots (V8's node 0), which
    /// DevTools counts in an object's distance.
    pub fn has_synthetic_root(self) -> bool {
        self == Format::V8
    }

    /// What the query tables call a named reference of this format: `property` (V8's
    /// properties, context variables and internal slots) or `field`.
    pub fn reference_kind(self) -> &'static str {
        if self == Format::V8 {
            "property"
        } else {
            "field"
        }
    }

    /// The name a person reads.
    pub fn title(self) -> &'static str {
        match self {
            Format::Hprof => "HPROF",
            Format::V8 => "V8 heap",
            Format::Go => "Go heap dump",
            Format::MoarVm => "MoarVM heap",
            Format::Dart => "Dart VM heap",
        }
    }
}

const EXPECTED_MAGIC: &str =
    "a heap snapshot: \"JAVA PROFILE 1.0.x\" (HPROF), '{' (V8 .heapsnapshot), \
\"goX.Y heap dump\" (Go), \"MoarHeapDumpv00N\" (MoarVM), \"dartheap\" (Dart) or gzip 1F 8B";

const V8_KEYS: &[&str] = &[
    "snapshot",
    "nodes",
    "edges",
    "strings",
    "locations",
    "trace_function_infos",
    "trace_tree",
    "samples",
];

fn printable_prefix(b: &[u8]) -> String {
    if b.is_empty() {
        return "end of file (an empty file)".to_string();
    }
    read::quoted_bytes(b)
}

/// Detects the format from the first bytes.
pub fn detect(b: &[u8]) -> Result<Format, ParseError> {
    if b.starts_with(b"JAVA PROFILE 1.0.") {
        return Ok(Format::Hprof);
    }
    if b.starts_with(b"MoarHeapDumpv00") {
        return Ok(Format::MoarVm);
    }
    if b.starts_with(b"dartheap") {
        return Ok(Format::Dart);
    }
    if b.starts_with(b"go1.") {
        let head = &b[..b.len().min(32)];
        if head.windows(11).any(|w| w == b" heap dump\n") {
            return Ok(Format::Go);
        }
    }
    // V8: a JSON object whose first key is one of the snapshot's (keys may come in any
    // order), after optional whitespace and a UTF-8 byte-order mark.
    let mut i = if b.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    let skip_ws = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_whitespace() && i < 4096 {
            i += 1;
        }
        i
    };
    i = skip_ws(i);
    if b.get(i) == Some(&b'{') {
        let j = skip_ws(i + 1);
        if b.get(j) == Some(&b'"') {
            let rest = &b[j + 1..];
            if V8_KEYS
                .iter()
                .any(|k| rest.starts_with(k.as_bytes()) && rest.get(k.len()) == Some(&b'"'))
            {
                return Ok(Format::V8);
            }
        }
    }
    Err(ParseError::new(0, EXPECTED_MAGIC, printable_prefix(b)))
}

/// A float as text in its shortest round-trip form: the fewest digits that read back as
/// the same value, written positionally from 1e-4 up to 1e16 (`0.5`, `3.141592653589793`)
/// and with an exponent outside it (`1.5e300`, `5e-324`), so no value prints as hundreds
/// of digits. `NaN`, `inf` and `-inf` as Rust writes them. Used wherever a value is shown.
pub fn float_text(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || !x.is_finite() || (1e-4..1e16).contains(&a) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// A 32-bit float (Java `float`) as the `f64` whose shortest form is the float's own:
/// `0.1f32` becomes `0.1`, not `0.10000000149011612`, in the text and in JSON. The value
/// differs from the float by less than the float's own precision.
pub fn widen_f32(x: f32) -> f64 {
    if x.is_finite() {
        format!("{x:e}").parse().unwrap_or(x as f64)
    } else {
        x as f64
    }
}

/// A field's value, decoded from the dump.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A UTF-16 code unit (Java `char`); shown as the character when it is one.
    Char(u16),
    /// A reference to an object of the snapshot.
    Object(ObjId),
    /// A reference to an id with no object in the dump, in the format's own notation.
    Missing(String),
    Text(String),
}

/// One field (or element, or static) of an inspected object.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub name: String,
    /// The type as the runtime names it: `int`, `boolean`, `object`, ...
    pub ty: String,
    pub value: Value,
    /// A static field of a class object (or another value held by the class itself).
    pub is_static: bool,
}

/// What a format can say about one object beyond the index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inspection {
    pub fields: Vec<Field>,
    /// Elements not listed in `fields` after them (arrays list a page of elements).
    pub more_elements: u64,
    /// Where the next page of elements starts ([`Decoder::inspect_from`]'s `from`), when
    /// [`Inspection::more_elements`] are left: the listed ones and those of the pages
    /// before (a V8 closure's context variables, listed after its first page, are not
    /// counted in).
    pub next_from: u64,
    /// The first characters of a string, or the first elements of an array.
    pub preview: Option<String>,
    /// Length of a string (characters) or array (elements).
    pub length: Option<u64>,
    /// What was wrong with the record, in words (its fields run past it, ...).
    pub problems: Vec<String>,
    /// Format-specific facts: (label, value), e.g. a V8 node's id, type and allocation
    /// site.
    pub facts: Vec<(String, String)>,
}

/// What a format answers on demand about objects, from the mapped bytes. None of these
/// may read outside the object's own record (plus, for a string, its value array); a
/// record that is not whole is reported in [`Inspection::problems`], never a panic.
pub trait Decoder: Send + Sync {
    /// The object's name in the CLI's `OBJECT` syntax (`0x…` for HPROF and Go).
    fn object_name(&self, bytes: &[u8], g: &Graph, o: ObjId) -> String;
    /// The number in the object's name: its address (HPROF, Go) or id (`@N`, `#N`); by
    /// default read back from the name. `None` for a name without one.
    fn object_number(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Option<u64> {
        id_number(&self.object_name(bytes, g, o))
    }
    /// Finds an object by its `OBJECT` name.
    fn find_object(&self, bytes: &[u8], g: &Graph, name: &str) -> Option<ObjId>;
    /// Fields with values, previews and lengths.
    fn inspect(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Inspection {
        self.inspect_from(bytes, g, o, 0)
    }
    /// [`Decoder::inspect`] with what it lists a page of (an array's elements, a node's
    /// references, a Go object's words) listed from the `from`th on: the inspector's
    /// next page. [`Inspection::more_elements`] counts those after the page.
    fn inspect_from(&self, bytes: &[u8], g: &Graph, o: ObjId, from: u64) -> Inspection;
    /// The name of the reference from `from` to `to`: a field name, `[index]`, a static
    /// field, a property or variable name. `None` when `from` does not refer to `to`.
    fn edge_label(&self, bytes: &[u8], g: &Graph, from: ObjId, to: ObjId) -> Option<String>;
    /// [`Decoder::edge_label`] of each of `to`, in one pass of `from`'s references where
    /// the format allows it (an array of millions: [`crate::heap::positions`]). A target
    /// named again in `to` gets the name of `from`'s next reference to it, in the index's
    /// order (past the last, its first again): all of `from`'s references asked at once
    /// (the `refs` table) are each named by its own place, `[0]` and `[3]` for an array
    /// that holds one object twice, not `[0]` twice. This default names each one at a
    /// time, by its first place; every format overrides it.
    fn edge_labels(
        &self,
        bytes: &[u8],
        g: &Graph,
        from: ObjId,
        to: &[ObjId],
    ) -> Vec<Option<String>> {
        to.iter()
            .map(|&t| self.edge_label(bytes, g, from, t))
            .collect()
    }
    /// The names of all of `from`'s references, in the index's order, each given to
    /// `name` (`None`: it has none), once per reference: the `refs` table's way, which
    /// names 92 M references of the 50 M-object dump. By default
    /// [`Decoder::edge_labels`] of them all; a format that can give its names without a
    /// string for each overrides it.
    fn each_edge_label(
        &self,
        bytes: &[u8],
        g: &Graph,
        from: ObjId,
        name: &mut dyn FnMut(Option<&str>),
    ) {
        let to = &g.out_targets[g.edges(from)];
        for l in self.edge_labels(bytes, g, from, to) {
            name(l.as_deref());
        }
    }
    /// A few words that tell this object from others of its class (the class a class
    /// object stands for, a string's text, a boxed number's value), or `None`.
    fn label(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Option<String>;
    /// `"NAME LABEL"`, the text an instance filter matches (the label empty when there
    /// is none). A decoder that can read both from one look at the record overrides it.
    fn name_and_label(&self, bytes: &[u8], g: &Graph, o: ObjId) -> String {
        format!(
            "{} {}",
            self.object_name(bytes, g, o),
            self.label(bytes, g, o).unwrap_or_default()
        )
    }
    /// The first two value fields of `o` as `name=value` (primitives, strings' text:
    /// [`first_fields_of`]), where the decoder can read them without a whole inspection; `None` to let [`Snapshot::first_fields`] inspect.
    fn first_fields(&self, _bytes: &[u8], _g: &Graph, _o: ObjId) -> Option<String> {
        None
    }
    /// Ids that name the same object in every snapshot of one process (V8 node ids, Dart
    /// identity hashes), in object order, and what they are called; `None` where the
    /// format has none (HPROF and Go addresses move between snapshots). 0 means "this
    /// object has no id": it is never matched, new or gone.
    fn persistent_ids(&self, _bytes: &[u8], _g: &Graph) -> Option<(&'static str, Vec<u64>)> {
        None
    }
    /// The decoder's own state in the index cache's encoding ([`crate::sys::codec`]), or
    /// `None` when it cannot be cached.
    fn save_state(&self) -> Option<Vec<u8>> {
        None
    }
    /// The classes whose instances have [`Content`] (strings, primitive arrays), for the
    /// waste report; empty where the format keeps no such contents (MoarVM and Go write
    /// no string text, Dart no array elements).
    fn content_classes(&self, _bytes: &[u8], _g: &Graph) -> Vec<crate::heap::ClassId> {
        Vec::new()
    }
    /// The contents of a string or primitive array, whole, for comparing objects; `None`
    /// for other objects and for contents the dump did not keep whole.
    fn content<'a>(&self, _bytes: &'a [u8], _g: &Graph, _o: ObjId) -> Option<Content<'a>> {
        None
    }
    /// The names of the classes `o`'s class extends, nearest first, where the format has
    /// subclasses (HPROF instances); empty elsewhere.
    fn superclasses(&self, _bytes: &[u8], _g: &Graph, _o: ObjId) -> Vec<String> {
        Vec::new()
    }
    /// Bytes of memory the decoder's own state holds (what it keeps beside the graph to
    /// decode on demand: string tables, per-object or per-edge side columns), counted
    /// with the graph in `summary`'s `index_bytes`. Vectors by capacity; maps and strings
    /// estimated.
    fn heap_bytes(&self) -> u64 {
        0
    }
}

/// What a string or primitive array holds, as [`Decoder::content`] gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Content<'a> {
    /// A string (the data is its text in UTF-8) rather than an array (element bytes).
    pub string: bool,
    pub data: std::borrow::Cow<'a, [u8]>,
    /// Characters of a string, elements of an array.
    pub length: u64,
    /// What one copy costs: the object, and for a Java `String` its value array.
    pub bytes: u64,
    /// The object whose contents these are, where it is not the object itself (a Java
    /// `String`'s value array): counted with the string, never again as an array.
    pub owns: Option<ObjId>,
    /// How `data` encodes a string's text (the bytes as the dump has them, so that
    /// millions of strings are compared without being converted).
    pub encoding: Encoding,
}

/// The encoding of a [`Content`]'s data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Latin1,
    Utf16Le,
    /// An array's element bytes.
    Binary,
}

impl Content<'_> {
    /// A string's text (an array's bytes as Latin-1).
    pub fn text(&self) -> String {
        match self.encoding {
            Encoding::Utf8 => String::from_utf8_lossy(&self.data).into_owned(),
            Encoding::Latin1 | Encoding::Binary => self.data.iter().map(|&b| b as char).collect(),
            Encoding::Utf16Le => {
                let units: Vec<u16> = self
                    .data
                    .chunks_exact(2)
                    .map(|p| u16::from_le_bytes([p[0], p[1]]))
                    .collect();
                String::from_utf16_lossy(&units)
            }
        }
    }
}

/// Bytes of a vector's buffer, by capacity.
pub fn vec_bytes<T>(v: &Vec<T>) -> u64 {
    (v.capacity() * std::mem::size_of::<T>()) as u64
}

/// Bytes of a hash map's table, estimated: a slot of key and value plus a control byte
/// per bucket (hashbrown keeps at least an eighth of its buckets free).
pub fn map_bytes<K, V, S>(m: &std::collections::HashMap<K, V, S>) -> u64 {
    (m.capacity() * 8 / 7 * (std::mem::size_of::<(K, V)>() + 1)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_every_magic() {
        assert_eq!(detect(b"JAVA PROFILE 1.0.2\0").unwrap(), Format::Hprof);
        assert_eq!(detect(b"JAVA PROFILE 1.0.3\0").unwrap(), Format::Hprof);
        assert_eq!(detect(b"{\"snapshot\":{}").unwrap(), Format::V8);
        assert_eq!(detect(b"\n  {\n \"nodes\":[]").unwrap(), Format::V8);
        assert_eq!(detect(b"go1.7 heap dump\n").unwrap(), Format::Go);
        assert_eq!(detect(b"MoarHeapDumpv002").unwrap(), Format::MoarVm);
        assert_eq!(detect(b"MoarHeapDumpv003").unwrap(), Format::MoarVm);
        assert_eq!(detect(b"dartheap\x01").unwrap(), Format::Dart);
    }

    #[test]
    fn rejects_others_saying_what_was_expected() {
        let e = detect(b"hello world").unwrap_err();
        assert_eq!(e.offset, 0);
        assert!(e.expected.contains("JAVA PROFILE"));
        assert!(e.found.contains("hello world"));
        assert!(detect(b"").unwrap_err().found.contains("empty"));
        assert!(detect(b"{\"foo\": 1}").is_err());
        assert!(detect(b"go1.7 heap dum").is_err());
    }
}
