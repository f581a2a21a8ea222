//! Which objects the descent passes through (loaders, classes, globals, contexts, root
//! sets), which are the runtime's own, and which classes are collections, per format.

use super::*;

/// Whether an object only carries what it dominates: the descent looks below it.
pub fn pass_through(snap: &Snapshot, o: ObjId) -> bool {
    let name = snap.class_name(o);
    match snap.format {
        Format::Hprof => {
            name == "java.lang.Class"
                || name == "java.lang.Module"
                || name == "java.lang.ref.Finalizer"
                || is_class_loader(name)
        }
        Format::V8 => {
            name == "(synthetic)"
                || name == "global"
                || name.starts_with("Window")
                || name == "system / Context"
                || name.starts_with("system / NativeContext")
                || name == "(closure)"
                || name == "(object properties)"
                || snap
                    .graph
                    .roots_of(o)
                    .iter()
                    .any(|r| matches!(r.kind, RootKind::Synthetic | RootKind::GlobalObject))
        }
        Format::MoarVm => {
            snap.graph.roots_of(o).iter().any(|r| {
                matches!(
                    r.kind,
                    RootKind::MoarPermanent
                        | RootKind::MoarInstance
                        | RootKind::MoarCStack
                        | RootKind::MoarThread
                        | RootKind::MoarInterGen
                        | RootKind::MoarCallStack
                )
            }) || matches!(
                name,
                "Stash"
                    | "GLOBAL"
                    | "BOOTCode"
                    | "Code"
                    | "Sub"
                    | "Method"
                    | "Block"
                    | "Routine"
                    | "BOOTStaticFrame"
                    | "BOOTCompUnit"
                    | "BOOTContext"
                    | "BOOTHash"
                    | "Scalar"
                    | "BOOTException"
            ) || name.starts_with("Permanent roots")
                || name.ends_with("roots")
                || name.contains("(Frame)")
                || name.starts_with("Frame")
                || is_moar_frame(name)
        }
        Format::Dart => {
            let short = name.rsplit("::").next().unwrap_or(name);
            matches!(
                short,
                "Class"
                    | "Library"
                    | "Field"
                    | "Script"
                    | "Isolate"
                    | "ObjectStore"
                    | "Root"
                    | "ClassTable"
                    | "FieldTable"
                    | "Namespace"
                    | "Closure"
                    | "Context"
                    | "Function"
            ) || name.starts_with("Root")
        }
        Format::Go => false,
    }
}

/// A MoarVM call frame's class: `name (file:line)`.
pub(super) fn is_moar_frame(name: &str) -> bool {
    name.ends_with(')') && name.contains(" (") && name.contains(':')
}

pub(super) fn is_class_loader(name: &str) -> bool {
    let last = name.rsplit(['.', '$']).next().unwrap_or(name);
    last.ends_with("ClassLoader") || name == "java.lang.ClassLoader"
}

/// A runtime's own object that a user does not allocate or fix (reported only from 10 %).
pub(super) fn internal(snap: &Snapshot, o: ObjId) -> bool {
    let name = snap.class_name(o);
    match snap.format {
        Format::V8 => {
            (name.starts_with('(') && name != "(closure)") || name.starts_with("system / ")
        }
        // The compiler's and the VM's own objects.
        Format::MoarVm => {
            name.ends_with("(STable)")
                || name.starts_with("NQP")
                || name.starts_with("Perl6::")
                || name.starts_with("QAST::")
                || name.starts_with("QRegex::")
                || name.starts_with("BOOT")
                || name == "SCRef"
        }
        // The VM's own objects: no library in the name (`KernelProgramInfo`, `Code`).
        Format::Dart => !name.contains("::"),
        _ => false,
    }
}

/// A collection's plumbing: backing arrays and tables, entry nodes, runtime containers.
/// Neither the title's member nor (for an array) the object a fix touches.
pub fn is_structural(format: Format, name: &str) -> bool {
    match format {
        Format::Hprof => {
            name.ends_with("[]")
                || name.ends_with("$Node")
                || name.ends_with("$TreeNode")
                || name.ends_with("$Entry")
                || name.ends_with("$TreeBin")
                || name.ends_with("$ForwardingNode")
                || name.ends_with("$LinkedHashMap$Entry")
                || name == "java.lang.Object"
        }
        Format::V8 => {
            name == "(array)"
                || name == "(object elements)"
                || name == "(object properties)"
                || name == "(system)"
                || name == "(object shape)"
                || name.starts_with("system / ")
        }
        Format::MoarVm => matches!(
            name,
            "BOOTArray"
                | "BOOTHash"
                | "VMArray"
                | "Scalar"
                | "BOOTIntArray"
                | "BOOTStrArray"
                | "IterationBuffer"
        ),
        Format::Dart => {
            let short = name.rsplit("::").next().unwrap_or(name);
            matches!(
                short,
                "_List"
                    | "_GrowableList"
                    | "_ImmutableList"
                    | "_Map"
                    | "_Set"
                    | "_HashMap"
                    | "_HashSet"
                    | "_LinkedHashMap"
                    | "_InternalLinkedHashMap"
                    | "_CompactLinkedHashSet"
                    | "_Uint32List"
                    | "Array"
                    | "GrowableObjectArray"
                    | "TypeArguments"
                    | "_HashMapEntry"
            )
        }
        Format::Go => name.starts_with("runtime."),
    }
}

/// Whether an object is a collection (its class says so).
pub(super) fn is_collection(format: Format, name: &str) -> bool {
    match format {
        Format::Hprof => {
            let last = name.rsplit('.').next().unwrap_or(name);
            [
                "Map",
                "Set",
                "List",
                "Deque",
                "Queue",
                "Vector",
                "Hashtable",
                "Stack",
                "Bag",
                "Cache",
            ]
            .iter()
            .any(|k| last.ends_with(k))
        }
        Format::V8 => matches!(name, "Map" | "Set" | "WeakMap" | "WeakSet" | "Array"),
        Format::MoarVm => matches!(name, "Hash" | "Array" | "List" | "Map" | "Set" | "Bag"),
        Format::Dart => {
            let short = name.rsplit("::").next().unwrap_or(name);
            short.contains("Map")
                || short.contains("Set")
                || short.contains("List")
                || short.contains("Queue")
        }
        Format::Go => false,
    }
}
