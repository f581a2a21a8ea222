//! HPROF pass 1: the top-level records (UTF8 places, LOAD CLASS names, stack traces,
//! the heap dump bodies), then every body's sub-records, in parallel where there are
//! several, for each object's address and record offset, the class dumps and the GC roots,
//! merged in file order. See the parent module for the whole.

use super::*;

/// A GC root as pass 1 finds it, before addresses are resolved.
pub(super) struct RawRoot {
    pub(super) addr: u64,
    pub(super) kind: RootKind,
    pub(super) thread: u32,
    pub(super) frame: u32,
}

/// What pass 1 learns.
#[derive(Default)]
pub(super) struct Pass1 {
    pub(super) utf8: IdMap<(usize, usize)>,
    pub(super) class_names: IdMap<u64>,
    /// What the heap dump bodies hold, merged in file order.
    pub(super) heap: Part,
    /// STACK FRAME records: frame id → (method name id, source file id, class serial,
    /// line).
    pub(super) frames: IdMap<(u64, u64, u32, i32)>,
    /// STACK TRACE records: serial → (thread serial, frame ids).
    pub(super) traces: std::collections::HashMap<u32, (u32, Vec<u64>)>,
    /// LOAD CLASS: class serial → class id.
    pub(super) class_serials: std::collections::HashMap<u32, u64>,
    pub(super) truncated: Option<u64>,
    pub(super) warnings: Vec<String>,
    pub(super) saw_segments: bool,
    pub(super) saw_heap: bool,
    pub(super) saw_end: bool,
    pub(super) stack_frames: usize,
    pub(super) stack_traces: usize,
    /// The first heap dump sub-record unreadable where the file goes on: the file is
    /// damaged, not cut, and is refused with this (exit 2), as every format refuses
    /// damage (a file that ends early opens as far as it is whole instead).
    pub(super) damage: Option<crate::error::ParseError>,
}

/// What pass 1 learns from heap dump bodies: object ids and record offsets, class
/// dumps, GC roots, heap names and thread objects, in file order.
#[derive(Default)]
pub(super) struct Part {
    pub(super) objs: Vec<(u64, u64)>,
    pub(super) class_dumps: Vec<(u64, usize)>,
    /// The class dumps' bytes in all: what their classes take in memory grows with them.
    pub(super) class_dump_bytes: u64,
    pub(super) roots: Vec<RawRoot>,
    pub(super) heap_names: Vec<u64>,
    /// ROOT THREAD OBJECT: (thread object id, thread serial, stack trace serial).
    pub(super) thread_objects: Vec<(u64, u32, u32)>,
}

impl Part {
    pub(super) fn add_heap_name(&mut self, name: u64) {
        if !self.heap_names.contains(&name) {
            self.heap_names.push(name);
        }
    }

    /// Appends what a later body held.
    pub(super) fn append(&mut self, mut later: Part) {
        self.objs.append(&mut later.objs);
        self.class_dumps.append(&mut later.class_dumps);
        self.class_dump_bytes += later.class_dump_bytes;
        self.roots.append(&mut later.roots);
        for name in later.heap_names {
            self.add_heap_name(name);
        }
        self.thread_objects.append(&mut later.thread_objects);
    }

    /// Notes one sub-record: an object, a class dump, a root or a heap's name.
    pub(super) fn visit(&mut self, tag: u8, rec: &[u8], off: u64, id: usize) {
        match tag {
            INSTANCE_DUMP | OBJECT_ARRAY_DUMP | PRIMITIVE_ARRAY_DUMP | PRIMITIVE_ARRAY_NODATA => {
                self.objs.push((be_id(&rec[1..], id), off));
            }
            CLASS_DUMP => {
                let cid = be_id(&rec[1..], id);
                self.objs.push((cid, off));
                self.class_dumps.push((cid, off as usize));
                self.class_dump_bytes += rec.len() as u64;
            }
            HEAP_DUMP_INFO => self.add_heap_name(be_id(&rec[5..], id)),
            t => {
                let Some((kind, extra)) = root_kind(t) else {
                    return;
                };
                let addr = be_id(&rec[1..], id);
                let (thread, frame) = match extra {
                    8 => (be_u32(&rec[1 + id..]), be_u32(&rec[5 + id..])),
                    4 => (be_u32(&rec[1 + id..]), u32::MAX),
                    _ => (u32::MAX, u32::MAX),
                };
                if t == ROOT_THREAD_OBJECT {
                    self.thread_objects.push((addr, thread, frame));
                    // The third field is a stack trace serial, not a frame.
                    self.roots.push(RawRoot {
                        addr,
                        kind,
                        thread,
                        frame: u32::MAX,
                    });
                } else if addr != 0 {
                    self.roots.push(RawRoot {
                        addr,
                        kind,
                        thread,
                        frame,
                    });
                }
            }
        }
    }
}

/// Walks the top-level records: strings, classes, frames and traces are noted, the heap
/// dump records returned in runs for [`walk_body`] (a HotSpot dump holds thousands of
/// 1 MiB segments, which are walked in parallel).
pub(super) fn top_level(b: &[u8], h: &Header, p: &mut Pass1) -> Vec<Body> {
    let id = h.id_size;
    let mut bodies = Runs::default();
    let mut pos = h.data_start;
    let len = b.len();
    while pos < len {
        if len - pos < 9 {
            p.truncated = Some(pos as u64);
            break;
        }
        let tag = b[pos];
        let rlen = be_u32(&b[pos + 5..]) as usize;
        let body_start = pos + 9;
        let claimed_end = body_start.saturating_add(rlen);
        let cut = claimed_end > len;
        let body_end = claimed_end.min(len);
        let body = &b[body_start..body_end];
        match tag {
            UTF8 if !cut && rlen >= id => {
                p.utf8.insert(be_id(body, id), (body_start + id, rlen - id));
            }
            LOAD_CLASS if !cut && rlen >= 8 + 2 * id => {
                let serial = be_u32(body);
                let class_id = be_id(&body[4..], id);
                let name_id = be_id(&body[8 + id..], id);
                p.class_names.insert(class_id, name_id);
                p.class_serials.insert(serial, class_id);
            }
            STACK_FRAME => {
                p.stack_frames += 1;
                if !cut && rlen >= 4 * id + 8 {
                    let fid = be_id(body, id);
                    let method = be_id(&body[id..], id);
                    let source = be_id(&body[3 * id..], id);
                    let at = 4 * id;
                    let class = be_u32(&body[at..]);
                    let line = be_u32(&body[at + 4..]) as i32;
                    p.frames.insert(fid, (method, source, class, line));
                }
            }
            STACK_TRACE => {
                p.stack_traces += 1;
                if !cut && rlen >= 12 {
                    let (serial, thread, n) = (
                        be_u32(body),
                        be_u32(&body[4..]),
                        be_u32(&body[8..]) as usize,
                    );
                    // The frame count is checked against the record's bytes.
                    let n = n.min((rlen - 12) / id);
                    let frames = (0..n).map(|k| be_id(&body[12 + k * id..], id)).collect();
                    p.traces.insert(serial, (thread, frames));
                }
            }
            HEAP_DUMP | HEAP_DUMP_SEGMENT => {
                if tag == HEAP_DUMP_SEGMENT {
                    p.saw_segments = true;
                }
                p.saw_heap = true;
                bodies.add(pos, body_end, cut);
                // A cut body says where the file ends once it is walked.
                if cut {
                    break;
                }
            }
            HEAP_DUMP_END => p.saw_end = true,
            _ => {}
        }
        if cut {
            if p.truncated.is_none() {
                p.truncated = Some(pos as u64);
            }
            break;
        }
        pos = claimed_end;
    }
    bodies.list
}

pub(super) fn pass1(
    b: &[u8],
    h: &Header,
    progress: &Progress,
    release: &(dyn Fn(std::ops::Range<usize>) + Sync),
) -> Pass1 {
    let id = h.id_size;
    let mut p = Pass1::default();
    let bodies = top_level(b, h, &mut p);
    // The smallest object record is about 25 bytes and a typical one 40-50: reserving
    // for one object per 48 bytes avoids most regrowth (each regrowth copies the whole
    // vector) and never exceeds what the file's size justifies.
    p.heap.objs =
        crate::sys::huge::with_capacity(bodies.iter().map(|x| x.end - x.start).sum::<usize>() / 48);
    for_bodies(
        &bodies,
        progress,
        |body| {
            let mut part = Part::default();
            let end = walk_body(b, body, id, release, |tag, rec, off| {
                part.visit(tag, rec, off, id);
                true
            });
            (part, end)
        },
        |body, (part, end)| {
            p.heap.append(part);
            p.body_end(body, end);
        },
    );
    p.finish(b.len());
    progress.set(b.len() as u64);
    p
}
