//! HPROF threads: ROOT THREAD OBJECT names each thread's `java.lang.Thread` and its stack
//! trace; STACK TRACE lists the trace's STACK FRAMEs, innermost first; ROOT JAVA FRAME and
//! ROOT JNI LOCAL give the objects each frame holds (their depth indexes the trace's
//! frames; one object may be held by several frames). Names, ids and states are read
//! from the Thread objects' fields. Android dumps name threads but carry no frames: their
//! locals are "held by the thread".

use std::collections::HashMap;

use crate::format::{Snapshot, Value};
use crate::heap::index::IdMap;
use crate::heap::{Frame, ObjId, RootKind, Thread};

/// `java.lang.Thread.State` from the JVMTI bits HotSpot keeps in `threadStatus`
/// (`jvmtiThreadState`/`java.lang.Thread.State` mapping of `VM.toThreadState`).
fn state(status: i64) -> &'static str {
    const ALIVE: i64 = 0x1;
    const TERMINATED: i64 = 0x2;
    const RUNNABLE: i64 = 0x4;
    const WAITING_INDEFINITELY: i64 = 0x10;
    const WAITING_WITH_TIMEOUT: i64 = 0x20;
    const BLOCKED: i64 = 0x400;
    if status & RUNNABLE != 0 {
        "RUNNABLE"
    } else if status & BLOCKED != 0 {
        "BLOCKED"
    } else if status & WAITING_INDEFINITELY != 0 {
        "WAITING"
    } else if status & WAITING_WITH_TIMEOUT != 0 {
        "TIMED_WAITING"
    } else if status & TERMINATED != 0 {
        "TERMINATED"
    } else if status & ALIVE == 0 {
        "NEW"
    } else {
        "RUNNABLE"
    }
}

fn field<'a>(fields: &'a [crate::format::Field], name: &str) -> Option<&'a Value> {
    fields.iter().find(|f| f.name == name).map(|f| &f.value)
}

/// The text of a `java.lang.String` object.
fn string(snap: &Snapshot, v: Option<&Value>) -> Option<String> {
    match v? {
        Value::Object(s) => snap.inspect(*s).preview,
        _ => None,
    }
}

/// The frames of every stack trace, as (function, location), innermost first: made while
/// pass 1's name tables are at hand.
pub(super) fn trace_frames(
    traces: &HashMap<u32, (u32, Vec<u64>)>,
    frames: &IdMap<(u64, u64, u32, i32)>,
    class_serials: &HashMap<u32, u64>,
    text: &dyn Fn(u64) -> Option<String>,
    class_name: &dyn Fn(u64) -> String,
) -> HashMap<u32, Vec<(String, String)>> {
    traces
        .iter()
        .map(|(&serial, (_, ids))| {
            let list = ids
                .iter()
                .map(|fid| match frames.get(fid) {
                    None => (format!("<frame 0x{fid:x}>"), String::new()),
                    Some(&(method, source, class_serial, line)) => {
                        let class = class_serials
                            .get(&class_serial)
                            .map(|&cid| class_name(cid))
                            .unwrap_or_else(|| format!("<class serial {class_serial}>"));
                        let file = text(source).unwrap_or_default();
                        let location = match line {
                            l if l > 0 => format!("{file}:{l}"),
                            -2 => "Compiled method".to_string(),
                            -3 => "Native Method".to_string(),
                            _ if !file.is_empty() => file,
                            _ => "Unknown Source".to_string(),
                        };
                        let method = text(method).unwrap_or_default();
                        (format!("{class}.{method}"), location)
                    }
                })
                .collect();
            (serial, list)
        })
        .collect()
}

pub(super) fn build(
    snap: &Snapshot,
    thread_objects: &[(Option<ObjId>, u32, u32)],
    trace_frames: &HashMap<u32, Vec<(String, String)>>,
    thread_groups: &[crate::heap::ClassId],
) -> Vec<Thread> {
    let mut out: Vec<Thread> = Vec::new();
    // Thread objects without a ROOT THREAD OBJECT (serial u32::MAX: no stack in the dump).
    let rooted: Vec<ObjId> = thread_objects.iter().filter_map(|t| t.0).collect();
    let unrooted = (0..snap.graph.len() as ObjId).filter(|o| {
        thread_groups.contains(&snap.graph.class_of.get(*o as usize)) && !rooted.contains(o)
    });
    let all: Vec<(Option<ObjId>, u32, u32)> = thread_objects
        .iter()
        .copied()
        .chain(unrooted.map(|o| (Some(o), u32::MAX, u32::MAX)))
        .collect();
    for (obj, serial, trace) in all {
        if serial != u32::MAX && out.iter().any(|t| t.serial == serial) {
            continue;
        }
        let mut t = Thread {
            serial,
            object: obj,
            name: match (obj, serial) {
                (Some(o), u32::MAX) => format!("thread {}", snap.object_name(o)),
                _ => format!("thread serial {serial}"),
            },
            ..Default::default()
        };
        if let Some(o) = obj {
            let ins = snap.inspect(o);
            if let Some(n) = string(snap, field(&ins.fields, "name")) {
                t.name = n;
            }
            if let Some(Value::Int(tid)) = field(&ins.fields, "tid") {
                t.id = Some(*tid as u64);
            }
            if let Some(Value::Int(st)) = field(&ins.fields, "threadStatus") {
                t.state = Some(state(*st).to_string());
            }
            if let Some(Value::Object(group)) = field(&ins.fields, "group") {
                let gi = snap.inspect(*group);
                t.system = string(snap, field(&gi.fields, "name")).as_deref() == Some("system");
            }
        }
        if let Some(list) = trace_frames.get(&trace) {
            t.frames = list
                .iter()
                .map(|(function, location)| Frame {
                    function: function.clone(),
                    location: location.clone(),
                    locals: Vec::new(),
                })
                .collect();
        }
        // A Thread object the dump gives no root is listed only while it runs (Thread.print
        // lists no NEW or TERMINATED threads; heaps hold such objects as garbage too).
        let alive = matches!(t.state.as_deref(), Some(s) if s != "NEW" && s != "TERMINATED");
        if serial == u32::MAX && !alive {
            continue;
        }
        out.push(t);
    }
    // Locals: Java frames and JNI locals, by thread serial and depth.
    for r in &snap.graph.roots {
        if !matches!(
            r.kind,
            RootKind::JavaFrame | RootKind::JniLocal | RootKind::ThreadBlock
        ) {
            continue;
        }
        let Some(t) = out
            .iter_mut()
            .find(|t| t.serial == r.thread && r.thread != u32::MAX)
        else {
            continue;
        };
        let slot = match t.frames.get_mut(r.frame as usize) {
            Some(f) if r.frame != u32::MAX => &mut f.locals,
            _ => &mut t.held,
        };
        if !slot.contains(&r.obj) {
            slot.push(r.obj);
        }
    }
    out.sort_by_key(|t| (t.id.unwrap_or(u64::MAX), t.serial));
    out
}
