//! An instance list's filter: every row's id and value matched by the one matcher, on a
//! thread of its own, its matches so far published while it runs.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::super::Ctx;
use crate::heap::matcher::{Kind, Matcher};
use crate::heap::ObjId;

/// A filter's result, from its thread: all the rows in order, the filter, and the
/// matches (positions in the rows, the best kind first) with how each matched.
pub(super) struct Filtered {
    pub(super) objs: Arc<Vec<(u64, ObjId)>>,
    /// Whether `objs` is in the list's order (else in object order: matches so far).
    pub(super) ordered: bool,
    pub(super) filter: String,
    pub(super) kinds: Vec<Kind>,
    pub(super) shown: Vec<u32>,
}

/// What a running filter has found: how many values it has matched, and the matches so
/// far as the pane would show them, published every [`PUBLISH_EVERY`] while it runs
/// (each publication wakes the run loop, whose tick takes it; so does the count read,
/// when nothing new matched meanwhile): on 5.5 M sessions of the 50 M-object dump the whole
/// filter takes seconds, and the first matches are on screen once the [`Head`] is read
/// (about 1 ms).
#[derive(Default)]
pub(super) struct SoFar {
    pub(super) done: std::sync::atomic::AtomicUsize,
    /// Values read between two looks at what has been found, and a pause after each
    /// (tests).
    pub(super) step: usize,
    pub(super) pause: std::time::Duration,
    pub(super) latest: std::sync::Mutex<Option<Filtered>>,
    /// Wakes the run loop when there is something new to draw.
    pub(super) notify: crate::ui::events::Notifier,
    /// `done` when the pane last looked ([`SoFar::moved`]).
    pub(super) seen: std::sync::atomic::AtomicUsize,
}

impl SoFar {
    pub(super) fn take(&self) -> Option<Filtered> {
        self.latest.lock().ok()?.take()
    }

    fn publish(&self, f: Filtered) {
        if let Ok(mut l) = self.latest.lock() {
            *l = Some(f);
        }
        self.notify.arrived();
    }

    /// Whether more values have been read since the pane last asked (the count it
    /// shows moved).
    pub(super) fn moved(&self) -> bool {
        let done = self.done.load(Ordering::Relaxed);
        self.seen.swap(done, Ordering::Relaxed) != done
    }
}

/// How often a running filter publishes its matches so far.
const PUBLISH_EVERY: std::time::Duration = std::time::Duration::from_millis(200);
/// Values read before the first look at what has been found; each chunk after it is
/// twice the last, up to [`LAST_CHUNK`].
const FIRST_CHUNK: usize = 4096;
/// Rows matched before all are gathered ([`Head`]): a few milliseconds' reading.
pub(super) const HEAD_ROWS: usize = 1024;
const LAST_CHUNK: usize = 1 << 16;
/// Matches that fill a screen: published at once, however soon.
const SCREENFUL: usize = 100;

/// How `o` matches `m`, if it does: its name and id as a substring, its value (its
/// label, else its first fields: `id=4242 user="user-42"`) as a substring or fuzzily.
fn kind_of(ctx: &Ctx, m: &Matcher, o: ObjId) -> Option<Kind> {
    let snap = ctx.snap;
    let mut text = snap.name_and_label(o);
    // No label: the first fields are its value (`id=4242`, `user="user-42"`).
    if text.ends_with(' ') {
        text.push_str(&snap.first_fields(o));
    }
    let (name, value) = text.split_once(' ').unwrap_or((&text, ""));
    // Fuzzy matches in the value only: an address or id in hex or digits fuzzy-matches
    // most short patterns, and scoring millions of them took seconds.
    m.substring(name)
        .into_iter()
        .chain(m.substring(value))
        .min()
        .or_else(|| m.find(value))
}

/// The first rows of a list in object order, and the matches among them (positions in
/// `rows`): what a filter over millions of rows shows first, before those rows are
/// gathered (about 100 ms for 5.5 M sessions) and put in object order.
pub(super) struct Head {
    rows: Vec<(u64, ObjId)>,
    found: Vec<(Kind, u32)>,
}

/// Matches `rows` (the list's first in object order, [`super::rows::first`]) and
/// publishes those that match as the matches so far.
pub(super) fn match_head(
    rows: Vec<(u64, ObjId)>,
    filter: &str,
    ctx: &Ctx,
    cancel: &AtomicBool,
    so_far: &SoFar,
) -> Head {
    use rayon::prelude::*;
    let m = Matcher::new(filter);
    // In the order the list shows them: the best kind first, then by the sort key and
    // the object (`rows` is in object order, so its positions order as the objects).
    let mut ranked: Vec<(Kind, u64, u32)> = (0..rows.len() as u32)
        .into_par_iter()
        .filter_map(|k| {
            if cancel.load(Ordering::Relaxed) {
                return None;
            }
            let kind = kind_of(ctx, &m, rows[k as usize].1)?;
            Some((kind, rows[k as usize].0, k))
        })
        .collect();
    ranked.sort_unstable();
    so_far.done.fetch_add(rows.len(), Ordering::Relaxed);
    let found: Vec<(Kind, u32)> = ranked.iter().map(|&(kind, _, k)| (kind, k)).collect();
    if !found.is_empty() && !cancel.load(Ordering::Relaxed) {
        let (kinds, shown) = found.iter().copied().unzip();
        so_far.publish(Filtered {
            objs: Arc::new(rows.clone()),
            ordered: false,
            filter: filter.to_string(),
            kinds,
            shown,
        });
    }
    Head { rows, found }
}

/// The rows of `objs` that `filter` matches by the one matcher (the histogram's,
/// `--filter`'s): the id or the value exactly, as a prefix, as a substring, then
/// fuzzily; the best kind first, in the list's order within each kind. Empty once
/// `cancel` is set. The `head`'s rows (the first of `objs` in object order) are not
/// read again.
pub(super) fn matches(
    objs: &Arc<Vec<(u64, ObjId)>>,
    ordered: bool,
    filter: &str,
    ctx: &Ctx,
    cancel: &AtomicBool,
    so_far: &SoFar,
    head: Head,
) -> (Vec<Kind>, Vec<u32>) {
    let m = Matcher::new(filter);
    // On every core: each instance's name and label are decoded from the dump (a
    // million V8 strings take seconds on one), in object order, so that the records
    // are read front to back rather than in the list's order.
    use rayon::prelude::*;
    let mut order: Vec<u32> = (0..objs.len() as u32).collect();
    order.par_sort_unstable_by_key(|&k| objs[k as usize].1);
    // Each match with what puts it in the list's order within its kind: its position
    // where `objs` is in that order, else the sort key and then the position (`objs`
    // is then in object order, so the position orders as the object does).
    let sort_key = |k: u32| if ordered { 0 } else { objs[k as usize].0 };
    let one = |k: u32| {
        if cancel.load(Ordering::Relaxed) {
            return None;
        }
        Some((kind_of(ctx, &m, objs[k as usize].1)?, sort_key(k), k))
    };
    // In chunks, so that the matches so far can be published between them. `found` is
    // kept in order: each chunk's matches are sorted and merged into it, so that
    // publishing them sorts nothing (sorting all that was found at each publication
    // took a tenth of a filter over millions of rows).
    let add = |found: &mut Vec<(Kind, u64, u32)>, mut new: Vec<(Kind, u64, u32)>| {
        new.sort_unstable();
        *found = merged(std::mem::take(found), new);
    };
    let mut found: Vec<(Kind, u64, u32)> = Vec::new();
    let mut published = std::time::Instant::now();
    // When the count read was last drawn for want of new matches.
    let mut counted = published;
    let mut shown_once = false;
    let mut copying = std::time::Duration::ZERO;
    // A test's fixed step, or chunks that grow from a small first one: the first
    // screenful of matches is published as soon as it is found.
    let fixed = Some(so_far.step).filter(|&s| s > 0);
    let mut size = fixed.unwrap_or(FIRST_CHUNK);
    let mut at = 0;
    // The head's rows are the first in object order: their matches are taken, at the
    // rows' places in `objs`.
    let n = head.rows.len();
    if n <= order.len() && (0..n).all(|i| objs[order[i] as usize].1 == head.rows[i].1) {
        let from_head = (head.found.iter())
            .map(|&(kind, i)| (kind, sort_key(order[i as usize]), order[i as usize]))
            .collect();
        add(&mut found, from_head);
        at = n;
        shown_once = !found.is_empty();
        if fixed.is_none() {
            size = (n * 2).clamp(FIRST_CHUNK, LAST_CHUNK);
        }
    } else {
        // Not the same rows (never expected): all are read.
        so_far.done.fetch_sub(n, Ordering::Relaxed);
    }
    while at < order.len() {
        let chunk = &order[at..(at + size).min(order.len())];
        at += chunk.len();
        if fixed.is_none() {
            size = (size * 2).min(LAST_CHUNK);
        }
        let new = chunk.par_iter().filter_map(|&k| one(k)).collect();
        add(&mut found, new);
        if cancel.load(Ordering::Relaxed) {
            return Default::default();
        }
        so_far.done.fetch_add(chunk.len(), Ordering::Relaxed);
        if !so_far.pause.is_zero() {
            std::thread::sleep(so_far.pause);
        }
        // Copying what it has found costs more as it grows: it is done at most a
        // tenth of the time.
        let every = if so_far.pause.is_zero() {
            PUBLISH_EVERY.max(10 * copying)
        } else {
            so_far.pause
        };
        let screenful = !shown_once && found.len() >= SCREENFUL;
        if (screenful || published.elapsed() >= every) && !found.is_empty() {
            shown_once = true;
            let t = std::time::Instant::now();
            let (kinds, shown) = found.iter().map(|&(kind, _, k)| (kind, k)).unzip();
            copying = t.elapsed();
            so_far.publish(Filtered {
                objs: objs.clone(),
                ordered,
                filter: filter.to_string(),
                kinds,
                shown,
            });
            published = std::time::Instant::now();
            counted = published;
        } else if counted.elapsed() >= every {
            // Nothing to publish: the count read is drawn again all the same.
            so_far.notify.arrived();
            counted = std::time::Instant::now();
        }
    }
    found.into_iter().map(|(kind, _, k)| (kind, k)).unzip()
}

/// `a` and `b`, each in order, merged into one in order.
fn merged<T: Copy + Ord>(a: Vec<T>, b: Vec<T>) -> Vec<T> {
    if a.is_empty() {
        return b;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if b[j] < a[i] {
            out.push(b[j]);
            j += 1;
        } else {
            out.push(a[i]);
            i += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// `objs` (in object order) in the list's order, and the matches `shown` (with their
/// `kinds`) moved to the same rows there, the best kind first and in the list's order
/// within each.
pub(super) fn in_list_order(
    objs: &[(u64, ObjId)],
    kinds: Vec<Kind>,
    shown: Vec<u32>,
    filter: String,
) -> Filtered {
    use rayon::prelude::*;
    let mut perm: Vec<u32> = (0..objs.len() as u32).collect();
    perm.par_sort_unstable_by_key(|&u| objs[u as usize]);
    let mut at = vec![0u32; objs.len()];
    for (i, &u) in perm.iter().enumerate() {
        at[u as usize] = i as u32;
    }
    let sorted = perm.iter().map(|&u| objs[u as usize]).collect();
    let mut rows: Vec<(Kind, u32)> = kinds
        .into_iter()
        .zip(shown.iter().map(|&k| at[k as usize]))
        .collect();
    rows.par_sort_unstable();
    let (kinds, shown) = rows.into_iter().unzip();
    Filtered {
        objs: Arc::new(sorted),
        ordered: true,
        filter,
        kinds,
        shown,
    }
}

#[cfg(test)]
mod tests {
    use super::merged;

    /// Two sorted runs of every length up to 40, interleaved in every way a pseudo-random
    /// draw gives, merge to the sort of both.
    #[test]
    fn merged_runs_are_the_sort_of_both() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut draw = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 50
        };
        for n in 0..40 {
            for m in 0..40 {
                let mut a: Vec<u64> = (0..n).map(|_| draw()).collect();
                let mut b: Vec<u64> = (0..m).map(|_| draw()).collect();
                a.sort_unstable();
                b.sort_unstable();
                let mut both = [a.clone(), b.clone()].concat();
                both.sort_unstable();
                assert_eq!(merged(a, b), both);
            }
        }
    }
}
