//! HPROF's tables: record tags, heap-dump sub-tags, basic types and their sizes, kept apart
//! from the parsing code (`specs/hprof.md` §3–5).

use crate::heap::RootKind;

// Top-level record tags.
pub const UTF8: u8 = 0x01;
pub const LOAD_CLASS: u8 = 0x02;
pub const STACK_FRAME: u8 = 0x04;
pub const STACK_TRACE: u8 = 0x05;
pub const START_THREAD: u8 = 0x0A;
pub const HEAP_DUMP: u8 = 0x0C;
pub const HEAP_DUMP_SEGMENT: u8 = 0x1C;
pub const HEAP_DUMP_END: u8 = 0x2C;

// Heap-dump sub-record tags.
pub const CLASS_DUMP: u8 = 0x20;
pub const INSTANCE_DUMP: u8 = 0x21;
pub const OBJECT_ARRAY_DUMP: u8 = 0x22;
pub const PRIMITIVE_ARRAY_DUMP: u8 = 0x23;
pub const PRIMITIVE_ARRAY_NODATA: u8 = 0xC3;
pub const HEAP_DUMP_INFO: u8 = 0xFE;
pub const ROOT_THREAD_OBJECT: u8 = 0x08;

/// Basic type code for an object reference.
pub const T_OBJECT: u8 = 2;

/// Size of a value of basic type `t`, `None` for a code outside the table.
#[inline]
pub fn type_size(t: u8, id_size: usize) -> Option<usize> {
    match t {
        T_OBJECT => Some(id_size),
        4 | 8 => Some(1),
        5 | 9 => Some(2),
        6 | 10 => Some(4),
        7 | 11 => Some(8),
        _ => None,
    }
}

/// The Java name of a primitive element type, for naming primitive arrays.
pub fn type_name(t: u8) -> &'static str {
    match t {
        T_OBJECT => "object",
        4 => "boolean",
        5 => "char",
        6 => "float",
        7 => "double",
        8 => "byte",
        9 => "short",
        10 => "int",
        11 => "long",
        _ => "unknown",
    }
}

/// GC-root sub-tags: (tag, kind, bytes after the tag beyond the object id, whether the
/// record carries a thread serial and frame number).
pub fn root_kind(tag: u8) -> Option<(RootKind, usize)> {
    Some(match tag {
        0xFF => (RootKind::Unknown, 0),
        0x01 => (RootKind::JniGlobal, usize::MAX), // + one more id
        0x02 => (RootKind::JniLocal, 8),
        0x03 => (RootKind::JavaFrame, 8),
        0x04 => (RootKind::NativeStack, 4),
        0x05 => (RootKind::SystemClass, 0),
        0x06 => (RootKind::ThreadBlock, 4),
        0x07 => (RootKind::MonitorUsed, 0),
        0x08 => (RootKind::ThreadObject, 8),
        0x89 => (RootKind::InternedString, 0),
        0x8A => (RootKind::Finalizing, 0),
        0x8B => (RootKind::Debugger, 0),
        0x8C => (RootKind::ReferenceCleanup, 0),
        0x8D => (RootKind::VmInternal, 0),
        0x8E => (RootKind::JniMonitor, 8),
        0x90 => (RootKind::Unreachable, 0),
        _ => return None,
    })
}

/// Turns a JVM internal class name (`java/lang/String`, `[B`, `[[Ljava/lang/Object;`)
/// into the Java source form MAT shows (`java.lang.String`, `byte[]`,
/// `java.lang.Object[][]`). Names already in source form (ART) pass through.
pub fn java_name(internal: &str) -> String {
    let dims = internal.bytes().take_while(|&c| c == b'[').count();
    if dims == 0 {
        return internal.replace('/', ".");
    }
    let elem = &internal[dims..];
    let base = match elem {
        "B" => "byte".to_string(),
        "C" => "char".to_string(),
        "D" => "double".to_string(),
        "F" => "float".to_string(),
        "I" => "int".to_string(),
        "J" => "long".to_string(),
        "S" => "short".to_string(),
        "Z" => "boolean".to_string(),
        e if e.starts_with('L') && e.ends_with(';') && e.len() >= 2 => {
            e[1..e.len() - 1].replace('/', ".")
        }
        e => e.replace('/', "."),
    };
    let mut s = base;
    for _ in 0..dims {
        s.push_str("[]");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(java_name("java/lang/String"), "java.lang.String");
        assert_eq!(java_name("[B"), "byte[]");
        assert_eq!(java_name("[[Ljava/lang/String;"), "java.lang.String[][]");
        assert_eq!(
            java_name("java.util.HashMap$Node[]"),
            "java.util.HashMap$Node[]"
        );
        assert_eq!(java_name("["), "[]");
    }
}
