//! The Dart VM heap snapshot's tables: magic, NonReferenceData tags, the synthetic
//! classes and the references that do not retain. Kept apart from the parsing code so
//! that a change of the format is a change of this file (`specs/dart-heap-snapshot.md`
//! with its corrections, `specs/NOTES.md` §6).

pub const MAGIC: &[u8; 8] = b"dartheap";

/// NonReferenceData tags as the real VM writes them (the spec gives NameData the number
/// 7 as well; the VM writes 8).
pub const TAG_NONE: u64 = 0;
pub const TAG_NULL: u64 = 1;
pub const TAG_BOOL: u64 = 2;
/// `_Mint`: signed LEB128. `_Smi`: the machine word as unsigned LEB128.
pub const TAG_INT: u64 = 3;
/// Eight bytes, little-endian IEEE 754.
pub const TAG_DOUBLE: u64 = 4;
/// length, truncated length (at most 128), that many bytes.
pub const TAG_LATIN1: u64 = 5;
/// length, truncated length (at most 128), twice that many bytes (UTF-16LE).
pub const TAG_UTF16: u64 = 6;
/// length (lists, maps' backing data, typed data, object pools).
pub const TAG_LENGTH: u64 = 7;
/// A UTF-8 name (functions, fields, classes, libraries, scripts, type arguments).
pub const TAG_NAME: u64 = 8;

pub fn tag_name(tag: u64) -> &'static str {
    match tag {
        TAG_NONE => "none",
        TAG_NULL => "null",
        TAG_BOOL => "bool",
        TAG_INT => "integer",
        TAG_DOUBLE => "double",
        TAG_LATIN1 => "Latin-1 string",
        TAG_UTF16 => "UTF-16 string",
        TAG_LENGTH => "length",
        TAG_NAME => "name",
        _ => "unknown",
    }
}

/// The classes the VM puts first (class ids 1–3) for its synthetic objects 1–3.
pub const SYNTHETIC_CLASSES: [&str; 3] = ["Root", "Read-Only Pages", "Isolate"];

/// `(library URI, class)` of small integers: their IntegerData is the machine word.
pub const SMI: (&str, &str) = ("dart:core", "_Smi");

/// References that do not keep their target alive: `(library URI, class, field names)`;
/// an empty field list means every reference past the class's fields (the elements).
/// `_WeakProperty.value_` is an ephemeron's value, alive while its key is: counted as
/// strong here (the key decides, and the key's edge is weak), which can credit a value
/// to its map rather than to nobody.
pub const WEAK: &[(&str, &str, &[&str])] = &[
    ("dart:core", "_WeakProperty", &["key_"]),
    ("dart:core", "_WeakReference", &["target_"]),
    ("dart:_internal", "FinalizerEntry", &["value_", "detach_"]),
    ("", "WeakSerializationReference", &["target_"]),
    ("", "WeakArray", &[]),
];
