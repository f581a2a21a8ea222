//! The front door: detect a dump's format from its first bytes and open it.
//!
//! Owns format detection, the [`Snapshot`] that a reader returns and the [`Decoder`]
//! trait through which views ask a format for what the index does not keep. One module
//! per format; HPROF, V8, Go, MoarVM (v2 and v3) and Dart are built. A format that is
//! recognised before its reader exists answers [`Error::Unsupported`] (exit code 2), so
//! that a user with such a file learns what they have rather than "unknown format".

pub mod budget;
mod cached;
pub mod dart;
pub mod go;
pub mod hprof;
pub mod memory;
pub mod moarvm;
pub mod read;
mod roles;
pub mod v8;
mod words;

use std::path::Path;

use crate::error::{Error, ParseError, Result};
use crate::heap::{Graph, ObjId};
use crate::progress::Progress;
use crate::source::Source;

pub use cached::PendingEntry;
pub use roles::{Reference, Roles};
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

    /// How the leak suspects read this format's classes.
    /// What indexing `bytes` of this format needs at most (each format's `need.rs`;
    /// see [`memory::need`]).
    pub fn memory_need(self, bytes: &[u8]) -> Option<memory::Need> {
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
    pub fn quick_memory_need(self, bytes: &[u8]) -> Option<memory::Need> {
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
        use crate::heap::codec::decode;
        Some(match self {
            Format::Hprof => Box::new(decode::<hprof::decode::HprofDecoder>(state)?),
            Format::V8 => Box::new(decode::<v8::decode::V8Decoder>(state)?),
            Format::Go => Box::new(decode::<go::decode::GoDecoder>(state)?),
            Format::MoarVm => Box::new(decode::<moarvm::decode::MoarDecoder>(state)?),
            Format::Dart => Box::new(decode::<dart::decode::DartDecoder>(state)?),
        })
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
    /// Elements not listed in `fields` (arrays list only their first elements).
    pub more_elements: u64,
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
    /// Finds an object by its `OBJECT` name.
    fn find_object(&self, bytes: &[u8], g: &Graph, name: &str) -> Option<ObjId>;
    /// Fields with values, previews and lengths.
    fn inspect(&self, bytes: &[u8], g: &Graph, o: ObjId) -> Inspection;
    /// The name of the reference from `from` to `to`: a field name, `[index]`, a static
    /// field, a property or variable name. `None` when `from` does not refer to `to`.
    fn edge_label(&self, bytes: &[u8], g: &Graph, from: ObjId, to: ObjId) -> Option<String>;
    /// [`Decoder::edge_label`] of each of `to`, in one pass of `from`'s references where
    /// the format allows it (an array of millions: [`crate::heap::positions`]).
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
    /// The decoder's own state in the index cache's encoding ([`crate::heap::codec`]), or
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

/// One opened snapshot: its bytes, its index, and the format's decoder.
pub struct Snapshot {
    pub source: Source,
    pub format: Format,
    /// The version as the file states it, e.g. `JAVA PROFILE 1.0.2`.
    pub format_version: String,
    pub id_size: Option<u32>,
    pub graph: Graph,
    /// How many threads the snapshot lists: the length of `thread_list` where the format
    /// has threads (Java threads as `jstack` lists them, goroutines), else 0.
    pub threads: usize,
    /// The threads with their frames and locals, where the format has them.
    pub thread_list: Vec<crate::heap::Thread>,
    /// Offset where the file stops being whole, when it was cut short.
    pub truncated: Option<u64>,
    pub warnings: Vec<String>,
    /// Format-specific facts for `summary`: (label, value).
    pub facts: Vec<(String, String)>,
    pub decoder: Box<dyn Decoder>,
    /// Every snapshot the file holds (one for most formats; MoarVM files hold several),
    /// and which of them this one is.
    pub snapshots: Vec<SnapshotInfo>,
    pub snapshot_index: usize,
    /// The index cache entry this snapshot's index was read from or written to, once it
    /// has one: where its dominator tree is kept too ([`crate::cache::store_tree`]).
    pub cache_entry: std::sync::OnceLock<crate::cache::Entry>,
}

impl Snapshot {
    /// What a reader makes of one dump before its own parts: the source, the format and
    /// its version, the index and the decoder; not cut short, no warnings nor facts, no
    /// threads, no word size, the file's only snapshot, no cache entry yet. Readers set
    /// what differs with `Snapshot { .., ..Snapshot::of(..) }`.
    pub fn of(
        source: Source,
        format: Format,
        format_version: String,
        graph: Graph,
        decoder: Box<dyn Decoder>,
    ) -> Snapshot {
        Snapshot {
            source,
            format,
            format_version,
            id_size: None,
            graph,
            threads: 0,
            thread_list: Vec::new(),
            truncated: None,
            warnings: Vec::new(),
            facts: Vec::new(),
            decoder,
            snapshots: Vec::new(),
            snapshot_index: 0,
            cache_entry: Default::default(),
        }
    }
}

/// One snapshot of a file that may hold several, as `summary` lists them.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SnapshotInfo {
    pub index: usize,
    /// A few words that tell it from the others: time, GC sequence number, totals.
    pub label: String,
    pub objects: u64,
}

/// Splits a `FILE#N` suffix (snapshot N of a file with several, 0-based) from a path.
/// A path that names an existing file is taken whole, so a file whose name has a `#`
/// in it still opens.
pub fn split_snapshot_suffix(path: &Path) -> (std::path::PathBuf, Option<usize>) {
    if path.exists() {
        return (path.to_path_buf(), None);
    }
    let s = path.to_string_lossy();
    if let Some((file, n)) = s.rsplit_once('#') {
        if let Ok(n) = n.parse::<usize>() {
            return (std::path::PathBuf::from(file), Some(n));
        }
    }
    (path.to_path_buf(), None)
}

impl Snapshot {
    pub fn bytes(&self) -> &[u8] {
        self.source.bytes()
    }

    pub fn object_name(&self, o: ObjId) -> String {
        self.decoder.object_name(self.bytes(), &self.graph, o)
    }

    pub fn class_name(&self, o: ObjId) -> &str {
        &self.graph.classes[self.graph.class_of.get(o as usize) as usize].name
    }

    /// The object named `name` the way the tool prints it (`0x…`, `@N`, `#N`). A bare
    /// number means the same as the format's own prefix before it, where the format names
    /// objects by a prefix and a number: `68253` is `@68253` in V8, `#12` is `12` in
    /// MoarVM and Dart. HPROF and Go addresses keep their `0x` (see [`Self::object_prefix`]).
    pub fn find_object(&self, name: &str) -> Option<ObjId> {
        let name = name.trim();
        let bare = !name.is_empty() && name.bytes().all(|c| c.is_ascii_digit());
        match self.object_prefix() {
            Some(p) if bare => {
                self.decoder
                    .find_object(self.bytes(), &self.graph, &format!("{p}{name}"))
            }
            _ => self.decoder.find_object(self.bytes(), &self.graph, name),
        }
    }

    /// The sign before an object's number where the format names objects by one (`@` for a
    /// V8 node id, `#` for a MoarVM collectable or Dart object index); `None` for the
    /// formats that name objects by their address (HPROF, Go: `0x…`).
    pub fn object_prefix(&self) -> Option<char> {
        match self.format {
            Format::V8 => Some('@'),
            Format::MoarVm | Format::Dart => Some('#'),
            Format::Hprof | Format::Go => None,
        }
    }

    pub fn inspect(&self, o: ObjId) -> Inspection {
        self.decoder.inspect(self.bytes(), &self.graph, o)
    }

    pub fn edge_label(&self, from: ObjId, to: ObjId) -> Option<String> {
        self.decoder.edge_label(self.bytes(), &self.graph, from, to)
    }

    /// The names of the references from `from` to each of `to` ([`Decoder::edge_labels`]).
    pub fn edge_labels(&self, from: ObjId, to: &[ObjId]) -> Vec<Option<String>> {
        self.decoder
            .edge_labels(self.bytes(), &self.graph, from, to)
    }

    pub fn label(&self, o: ObjId) -> Option<String> {
        self.decoder.label(self.bytes(), &self.graph, o)
    }

    /// `"NAME LABEL"`: what the instance filter matches.
    pub fn name_and_label(&self, o: ObjId) -> String {
        self.decoder.name_and_label(self.bytes(), &self.graph, o)
    }

    /// The first two value fields of `o` as `name=value` (`id=4242 user="user-42"`):
    /// primitives and strings, what tells apart instances that have no label.
    pub fn first_fields(&self, o: ObjId) -> String {
        if let Some(f) = self.decoder.first_fields(self.bytes(), &self.graph, o) {
            return f;
        }
        first_fields_of(&self.inspect(o), |s| self.string_word(s))
    }

    /// The text of `s` as a value word (quoted, cut), if `s` is a string.
    pub fn string_word(&self, s: ObjId) -> Option<String> {
        string_word(self.decoder.content(self.bytes(), &self.graph, s))
    }

    /// What an instance list shows in its Value column and `/` matches there: the
    /// object's label, or else its first two primitive fields.
    pub fn value_words(&self, o: ObjId) -> String {
        self.label(o).unwrap_or_else(|| self.first_fields(o))
    }

    pub fn persistent_ids(&self) -> Option<(&'static str, Vec<u64>)> {
        self.decoder.persistent_ids(self.bytes(), &self.graph)
    }

    /// The name of the thread with this serial: the label of the object that its
    /// thread root (HPROF's ROOT THREAD OBJECT) names, or `None`.
    pub fn thread_name(&self, serial: u32) -> Option<String> {
        if serial == u32::MAX {
            return None;
        }
        if self.format == Format::Go {
            return self
                .thread_list
                .iter()
                .find(|t| t.serial == serial)
                .map(|t| t.name.clone());
        }
        let r = self
            .graph
            .roots
            .iter()
            .find(|r| r.kind == crate::heap::RootKind::ThreadObject && r.thread == serial)?;
        self.label(r.obj)
    }

    /// DevTools' "distance": how many references lie between the snapshot's root and
    /// `o` along the shortest strong path (a GC root is at 1 below V8's synthetic root,
    /// itself at 0; for formats without such a root a GC root is at 0). `None` when no
    /// strong path reaches it.
    pub fn distance(&self, o: ObjId) -> Option<u64> {
        let p = crate::heap::paths::to_roots(&self.graph, o, 1, false);
        let p = p.first()?;
        let below_root = self.format == Format::V8 && p[0] != 0;
        Some((p.len() - 1) as u64 + below_root as u64)
    }

    /// All the root records of `o` in words, repeats removed, joined by "; ".
    pub fn describe_roots(&self, o: ObjId) -> String {
        let mut out: Vec<String> = Vec::new();
        for r in self.graph.roots_of(o) {
            let d = self.describe_root(r);
            if !out.contains(&d) {
                out.push(d);
            }
        }
        out.join("; ")
    }

    /// A root in words: its kind, and for a thread-bound root the thread and frame
    /// ("Java frame, thread \"main\" (serial 1), frame 3").
    pub fn describe_root(&self, r: &crate::heap::Root) -> String {
        let mut s = r.kind.name().to_string();
        if matches!(
            r.kind,
            crate::heap::RootKind::DataSegment | crate::heap::RootKind::BssSegment
        ) && r.frame != u32::MAX
        {
            return format!("{s} +0x{:x}", r.frame);
        }
        if r.kind == crate::heap::RootKind::GoroutineFrame {
            let t = self.thread_list.iter().find(|t| t.serial == r.thread);
            if let Some(t) = t {
                s.push_str(&format!(", {}", t.name));
                if let Some(f) = t.frames.get(r.frame as usize) {
                    s.push_str(&format!(", frame {} {}", r.frame, f.function));
                }
            }
            return s;
        }
        if r.thread != u32::MAX && r.kind != crate::heap::RootKind::ThreadObject {
            match self.thread_name(r.thread) {
                Some(name) => s.push_str(&format!(", thread {name} (serial {})", r.thread)),
                None => s.push_str(&format!(", thread serial {}", r.thread)),
            }
            if r.frame != u32::MAX {
                s.push_str(&format!(", frame {}", r.frame));
            }
        }
        s
    }
}

/// The class histogram of `path` without building the index, where that is quicker:
/// an HPROF file (one parallel pass, [`hprof::quick_histogram`]) with no index cache
/// entry to read instead. `None` for every other case, where [`open`] is the way.
pub fn quick_histogram(path: &Path, progress: &Progress) -> Result<Option<hprof::QuickHistogram>> {
    let Some((source, path)) = quick_source(path, progress)? else {
        return Ok(None);
    };
    let path = path.as_path();
    let mut q =
        hprof::quick_histogram(source.bytes(), progress).map_err(|e| Error::parse(path, e))?;
    let mut w = source.warnings.clone();
    w.append(&mut q.warnings);
    q.warnings = w;
    Ok(Some(q))
}

/// The mapped file for a walk without the index: an HPROF file (not `FILE#N`) with no
/// index cache entry to read instead.
fn quick_source(path: &Path, progress: &Progress) -> Result<Option<(Source, std::path::PathBuf)>> {
    let (file, which) = split_snapshot_suffix(path);
    if which.is_some() {
        return Ok(None);
    }
    let path = file.as_path();
    crate::alloc::reading(path);
    let source = crate::source::open_checked(path, progress, &|b| detect(b).map(|_| ()))?;
    if detect(source.bytes()).map_err(|e| Error::parse(path, e))? != Format::Hprof {
        return Ok(None);
    }
    if crate::cache::key(path, None, &source).is_some_and(|k| crate::cache::has_entry(&k)) {
        return Ok(None);
    }
    Ok(Some((source, file)))
}

/// The waste report of an HPROF file without the index, when it has no index cache
/// entry (see [`hprof::QuickWaste`]); `None` for other formats, for a file with an
/// entry, and for a file the walk leaves to the index.
pub fn quick_waste(
    path: &Path,
    progress: &Progress,
    top: usize,
) -> Result<Option<hprof::QuickWaste>> {
    let Some((source, path)) = quick_source(path, progress)? else {
        return Ok(None);
    };
    let path = path.as_path();
    // The walk keeps a few words per string, array and collection: held to the index's
    // estimate, so that HEAPTUI_MEMORY_LIMIT means the same for `waste` either way.
    memory::check(path, Format::Hprof, source.bytes())?;
    let q = hprof::quick_waste(source.bytes(), progress, top).map_err(|e| Error::parse(path, e))?;
    Ok(q.map(|mut q| {
        let mut w = source.warnings.clone();
        w.append(&mut q.warnings);
        q.warnings = w;
        q
    }))
}

/// Opens a dump of any format: maps (or decompresses) it, detects the format and builds
/// the index.
///
/// `path` may end in `#N` to pick snapshot N of a file that holds several (see
/// [`split_snapshot_suffix`]); without it, the last snapshot is opened.
pub fn open(path: &Path, progress: &Progress) -> Result<Snapshot> {
    let (mut snap, pending) = open_deferring_cache(path, progress)?;
    if let Some(p) = pending {
        if let Err(e) = p.store(&snap, progress) {
            snap.warnings.push(e);
        }
    }
    Ok(snap)
}

/// [`open`], leaving the index cache entry to the caller: the TUI hands the index to the
/// user first and writes the entry after (1.6 s for a 3 GB dump).
pub fn open_deferring_cache(
    path: &Path,
    progress: &Progress,
) -> Result<(Snapshot, Option<PendingEntry>)> {
    let (file, which) = split_snapshot_suffix(path);
    let path = file.as_path();
    crate::alloc::reading(path);
    let source = crate::source::open_checked(path, progress, &|b| detect(b).map(|_| ()))?;
    let format = detect(source.bytes()).map_err(|e| Error::parse(path, e))?;
    let key = crate::cache::key(path, which, &source);
    let mut rejected = None;
    if let Some(k) = &key {
        progress.phase("reading the index cache", 0);
        match cached::load(k, source.bytes().len() as u64) {
            Ok(r) => return Ok((r.over(source), None)),
            Err(why) => rejected = why,
        }
    }
    let bytes = source.bytes();
    memory::check(path, format, bytes)?;
    let mut snap = match format {
        Format::Hprof => hprof::open(source, progress).map_err(|e| Error::parse(path, e))?,
        Format::V8 => v8::open(source, progress).map_err(|e| Error::parse(path, e))?,
        Format::Go => go::open(source, progress).map_err(|e| Error::parse(path, e))?,
        Format::Dart => dart::open(source, progress).map_err(|e| Error::parse(path, e))?,
        // Several snapshots per file: the reader decodes only the one asked for.
        Format::MoarVm => moarvm::open(source, which, progress)?,
    };
    if snap.snapshots.is_empty() {
        snap.snapshots.push(SnapshotInfo {
            index: 0,
            label: snap.format_version.clone(),
            objects: snap.graph.len() as u64,
        });
    }
    if let Some(n) = which {
        if n != snap.snapshot_index {
            return Err(Error::Usage(format!(
                "{}: has {} snapshot(s); #{n} is not one of them (0-based)",
                path.display(),
                snap.snapshots.len()
            )));
        }
    }
    let mut w = std::mem::take(&mut snap.source.warnings);
    w.append(&mut snap.warnings);
    snap.warnings = w;
    if let Some(why) = rejected {
        snap.warnings
            .push(format!("index cache entry not used and rebuilt: {why}"));
    }
    // The index is built: the file's pages are only read again on demand.
    snap.source.release(0..snap.source.bytes().len());
    Ok((snap, key.map(PendingEntry)))
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
