//! The heap dump bodies: where the HEAP DUMP and HEAP DUMP SEGMENT records are, and the
//! walks of their sub-records, in parallel.
//!
//! The unit of work is a run of consecutive top-level records ([`Body`]) of about 1 MiB,
//! not a record: HotSpot writes segments of about 1 MiB, one per run, but nothing stops a
//! file from being millions of tiny (or empty, 9-byte) segments, and one list entry and
//! one walk result per record then took 20 times the file's size (a 27 MB file of empty
//! segments took 551 MB; a 270 MB one asked for a 5 GB vector and aborted). Runs keep
//! the list and the results in proportion to the file's megabytes; batches of runs are
//! bounded by count as well as by bytes, and the warnings a walk can give are capped.

use super::*;
use crate::error::ParseError;

/// The bytes a run of records spans, at most (a larger record is a run of its own).
const RUN_BYTES: usize = 1 << 20;
/// Walk results held at once, at most, while a batch is merged.
const BATCH_RUNS: usize = 256;

/// A run of consecutive top-level records, from the header of a HEAP DUMP (SEGMENT)
/// record to the end of the last such record in the run (at most [`RUN_BYTES`], or one
/// record): the heap dump bodies in it are walked together, any other record between
/// them is passed over. `cut`: the file ends inside the run's last record.
#[derive(Clone, Copy, Debug)]
pub(super) struct Body {
    pub start: usize,
    pub end: usize,
    pub cut: bool,
}

/// Collects the heap dump records into runs, as [`top_level`] meets them.
#[derive(Default)]
pub(super) struct Runs {
    pub list: Vec<Body>,
}

impl Runs {
    /// Adds the heap dump record whose header is at `pos` and which ends at `end` (the
    /// end of the file when `cut`).
    pub fn add(&mut self, pos: usize, end: usize, cut: bool) {
        if let Some(last) = self.list.last_mut() {
            if end - last.start <= RUN_BYTES && !last.cut {
                last.end = end;
                last.cut = cut;
                return;
            }
        }
        self.list.push(Body {
            start: pos,
            end,
            cut,
        });
    }
}

/// How the walk of a run ended.
#[derive(Default)]
pub(super) struct BodyEnd {
    /// The file ends inside the sub-record at this offset.
    pub cut: Option<u64>,
    /// The first sub-record that could not be read where the file goes on: damage
    /// (an unknown tag, a length past its record), which ends the walk of the run.
    pub damage: Option<ParseError>,
}

/// Walks the sub-records of the heap dump bodies in `run`, in file order, calling
/// `visit(tag, record, offset)` with each whole record until it returns false. Pages
/// already walked are released every 64 MiB (a body can be the whole heap), and the
/// run's when it is done.
pub(super) fn walk_body(
    b: &[u8],
    run: Body,
    id: usize,
    release: &(dyn Fn(std::ops::Range<usize>) + Sync),
    mut visit: impl FnMut(u8, &[u8], u64) -> bool,
) -> BodyEnd {
    let mut end = BodyEnd::default();
    let mut released = run.start;
    let mut pos = run.start;
    // [`top_level`] put whole record headers in the run, each record's bytes inside it
    // but for the last one's when `cut`.
    'records: while pos + 9 <= run.end {
        let tag = b[pos];
        let claimed_end = (pos + 9).saturating_add(be_u32(&b[pos + 5..]) as usize);
        let body = Body {
            start: pos + 9,
            end: claimed_end.min(run.end),
            cut: claimed_end > run.end,
        };
        pos = claimed_end;
        if tag != HEAP_DUMP && tag != HEAP_DUMP_SEGMENT {
            continue;
        }
        let bytes = &b[body.start..body.end];
        let base = body.start as u64;
        let mut c = Cursor::new(bytes, base);
        while !c.is_empty() {
            let at = c.offset() as usize;
            if at - released > (64 << 20) {
                release(released..at);
                released = at;
            }
            let pos = c.pos();
            let len = match sub_record_len(&c, bytes, id) {
                Ok(l) => l,
                Err(e) => {
                    // In a record whose length runs past the end of the file, whatever
                    // cannot be read is where the file was cut (or its length damaged:
                    // the same answer, read as far as it is whole).
                    if body.cut {
                        end.cut = Some(c.offset());
                    } else {
                        end.damage = Some(ParseError::new(
                            e.offset,
                            format!(
                                "{} (in the heap dump record at byte offset {})",
                                e.expected,
                                base - 9
                            ),
                            e.found,
                        ));
                        break 'records;
                    }
                    continue 'records;
                }
            };
            if !visit(bytes[pos], &bytes[pos..pos + len], base + pos as u64) {
                break 'records;
            }
            // `len` was checked against the body by `sub_record_len`.
            let _ = c.skip(len, "sub-record");
        }
    }
    release(released..run.end);
    end
}

/// Walks `runs` on the thread pool, a batch of about 64 MiB (and at most
/// [`BATCH_RUNS`] runs) at a time, and hands each run's result to `merge` in file order.
pub(super) fn for_bodies<P: Send>(
    runs: &[Body],
    progress: &Progress,
    work: impl Fn(Body) -> P + Sync,
    mut merge: impl FnMut(Body, P),
) {
    use rayon::prelude::*;
    let mut i = 0;
    while i < runs.len() {
        let mut j = i;
        let mut bytes = 0;
        while j < runs.len() && (j == i || (bytes < (64 << 20) && j - i < BATCH_RUNS)) {
            bytes += runs[j].end - runs[j].start;
            j += 1;
        }
        let parts: Vec<P> = runs[i..j].par_iter().map(|&run| work(run)).collect();
        for (k, part) in parts.into_iter().enumerate() {
            merge(runs[i + k], part);
        }
        progress.set(runs[j - 1].end as u64);
        i = j;
    }
}

impl Pass1 {
    /// Takes in how a run's walk ended: a cut marks the truncation point; damage (a
    /// record unreadable where the file goes on) is kept, the first in file order, and
    /// refuses the file ([`Pass1::damage`]).
    pub(super) fn body_end(&mut self, run: Body, end: BodyEnd) {
        if let Some(off) = end.cut {
            self.truncated = Some(off);
        }
        if self.damage.is_none() {
            self.damage = end.damage;
        }
        if run.cut && self.truncated.is_none() {
            self.truncated = Some(run.end as u64);
        }
    }

    /// After every body: a dump with no heap, or with segments never closed, was cut.
    pub(super) fn finish(&mut self, len: usize) {
        if self.truncated.is_none() && !self.saw_heap {
            // A dump whose records stop before any heap dump was cut short (the heap
            // comes last in every writer's output).
            self.truncated = Some(len as u64);
            self.warnings
                .push("the file holds no heap dump record".into());
        }
        if self.truncated.is_none() && self.saw_segments && !self.saw_end {
            self.truncated = Some(len as u64);
            self.warnings
                .push("the heap dump segments are not closed by a HEAP DUMP END record".into());
        }
    }
}
