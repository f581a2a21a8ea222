//! The names of many of an object's references at once ([`Referrer::of_array`],
//! [`Referrer::of_instance`], [`Referrer::of_class`]): a part of the decoder (its parent
//! module), kept apart for its one pass over a record.
//!
//! The references come as the index lists them (pass 2: the class first, then the
//! elements or the reference fields in record order, then the classes a loader defined),
//! and one target may come several times: an array holding it at `[0]` and `[3]`, two
//! fields of one instance. Each is named by its own place, in turn
//! ([`crate::heap::positions::in_turn`]): the first by the first place that holds it,
//! the second by the second. Naming each by the first (`[0]` twice) was the old way.

use super::{HprofDecoder, Record};
use crate::format::read::be_id;
use crate::format::Value;
use crate::heap::positions::in_turn;
use crate::heap::{Graph, ObjId};

/// An object whose references to others are named, read from the dump's bytes.
pub(super) struct Referrer<'a> {
    pub d: &'a HprofDecoder,
    pub b: &'a [u8],
    pub g: &'a Graph,
    pub from: ObjId,
}

impl Referrer<'_> {
    /// `[i]`, the index in the object array `from` (its record `rec`) of each of `to`, in
    /// one pass over the array (its class, where `to` holds it, `<class>`); `None` when `from` is not an
    /// object array, for [`crate::format::Decoder::edge_label`] one at a time.
    pub fn of_array(&self, to: &[ObjId], rec: &Record<'_>) -> Option<Vec<Option<String>>> {
        let Self { d, b, g, .. } = *self;
        let &Record::ObjArray { class, elems, .. } = rec else {
            return None;
        };
        let ids = elems.chunks_exact(d.id_size).map(|e| be_id(e, d.id_size));
        if self.all_in_order(to, 1 + ids.clone().filter(|&e| e != 0).count()) {
            let places = ids.enumerate().filter(|&(_, e)| e != 0);
            let names = places.map(|(i, _)| Some(format!("[{i}]")));
            return Some(
                std::iter::once(Some("<class>".to_string()))
                    .chain(names)
                    .collect(),
            );
        }
        let want: Vec<u64> = to.iter().map(|&t| d.address(b, g, t)).collect();
        // The array's class is named as edge_label names it (an array of millions asked
        // one by one took a pass over the array for each: hours for the 50 M-object dump).
        let at = in_turn(&want, std::iter::once(class).chain(ids));
        Some(
            at.into_iter()
                .map(|i| match i? {
                    0 => Some("<class>".to_string()),
                    i => Some(format!("[{}]", i - 1)),
                })
                .collect(),
        )
    }

    /// The field of the instance `from` (its record `rec`) that holds each of `to`, in one
    /// pass over its
    /// fields by their raw ids (the addresses of `to` read once, no field resolved to an
    /// object): `<class>` for its class, `None` where no field holds it (the index's
    /// reference from a class loader to a class it defined, [`Referrer::defined_class`]).
    /// `None` when `from` is not an instance.
    pub fn of_instance(&self, to: &[ObjId], rec: &Record<'_>) -> Option<Vec<Option<String>>> {
        let Self { d, b, g, .. } = *self;
        let &Record::Instance { class, data, .. } = rec else {
            return None;
        };
        let id = d.id_size;
        let f = d.fields(b, g, class);
        // (raw id, name) of the class and of every reference field, in the fields' order.
        let mut held: Vec<(u64, &str)> = vec![(class, "<class>")];
        let mut at = 0usize;
        for (name, t) in &f.0 {
            let size = crate::format::hprof::spec::type_size(*t, id)?;
            let raw = data.get(at..at + size)?;
            if *t == crate::format::hprof::spec::T_OBJECT {
                held.push((be_id(raw, id), name.as_str()));
            }
            at += size;
        }
        if self.all_in_order(to, held.iter().filter(|h| h.0 != 0).count()) {
            let names = held
                .iter()
                .filter(|h| h.0 != 0)
                .map(|h| Some(h.1.to_string()));
            return Some(names.collect());
        }
        let want: Vec<u64> = to.iter().map(|&t| d.address(b, g, t)).collect();
        let at = in_turn(&want, held.iter().map(|(raw, _)| *raw));
        Some(
            at.into_iter()
                .map(|i| i.map(|i| held[i].1.to_string()))
                .collect(),
        )
    }

    /// The field of the class object `from` that holds each of `to` (`<super>`, a
    /// constant pool entry, `static NAME`), from one inspection of it, each target in
    /// turn; `None` where none holds it ([`Referrer::defined_class`]). `None` when `from`
    /// is not a class.
    pub fn of_class(&self, to: &[ObjId]) -> Option<Vec<Option<String>>> {
        use crate::format::Decoder;
        let Self { d, b, g, from } = *self;
        let Ok(Record::Class(..)) = d.record(b, g, from) else {
            return None;
        };
        let held: Vec<(u64, String)> = d
            .inspect(b, g, from)
            .fields
            .into_iter()
            .filter_map(|f| match f.value {
                Value::Object(t) => Some((t as u64, static_name(f.is_static, f.name))),
                _ => None,
            })
            .collect();
        let want: Vec<u64> = to.iter().map(|&t| t as u64).collect();
        let at = in_turn(&want, held.iter().map(|(t, _)| *t));
        Some(
            at.into_iter()
                .map(|i| i.map(|i| held[i].1.clone()))
                .collect(),
        )
    }

    /// Gives `name` the name of each of `to`, all of `from`'s references (its record
    /// `rec`), when they are in the record's order ([`Referrer::all_in_order`]): the
    /// field names as the class lists them, an array's `[i]` written into one buffer;
    /// `false` (and nothing named) otherwise.
    pub fn each_in_order(
        &self,
        to: &[ObjId],
        rec: &Record<'_>,
        name: &mut dyn FnMut(Option<&str>),
    ) -> bool {
        use std::fmt::Write;
        let Self { d, b, g, .. } = *self;
        match *rec {
            Record::ObjArray { elems, .. } => {
                let ids = elems.chunks_exact(d.id_size).map(|e| be_id(e, d.id_size));
                if !self.all_in_order(to, 1 + ids.clone().filter(|&e| e != 0).count()) {
                    return false;
                }
                name(Some("<class>"));
                let mut buf = String::with_capacity(16);
                for (i, _) in ids.enumerate().filter(|&(_, e)| e != 0) {
                    buf.clear();
                    let _ = write!(buf, "[{i}]");
                    name(Some(&buf));
                }
                true
            }
            Record::Instance { class, data, .. } => {
                let id = d.id_size;
                let f = d.fields(b, g, class);
                let mut held: Vec<&str> = vec!["<class>"];
                let mut at = 0usize;
                for (n, t) in &f.0 {
                    let Some(size) = crate::format::hprof::spec::type_size(*t, id) else {
                        return false;
                    };
                    let Some(raw) = data.get(at..at + size) else {
                        return false;
                    };
                    if *t == crate::format::hprof::spec::T_OBJECT && be_id(raw, id) != 0 {
                        held.push(n.as_str());
                    }
                    at += size;
                }
                if !self.all_in_order(to, held.len()) {
                    return false;
                }
                held.into_iter().for_each(|n| name(Some(n)));
                true
            }
            _ => false,
        }
    }

    /// Whether `to` is every reference of `from` as the index lists them, and the record
    /// holds `held` of them (its class and the places that are not null): then none was
    /// left out (a reference to an object the dump lacks) nor added (a class loader's
    /// defined classes), and the k-th reference is the k-th place, named without looking
    /// up any target's address (a read from a random place in the dump for each).
    fn all_in_order(&self, to: &[ObjId], held: usize) -> bool {
        let Self { g, from, .. } = *self;
        to.len() == held && g.out_targets.get(g.edges(from)) == Some(to)
    }

    /// `<defined class>` where `to` is a class the class loader `from` defined (the
    /// index's reference from a loader to each of its classes, which no field holds).
    pub fn defined_class(&self, to: ObjId) -> Option<String> {
        let Self { d, b, g, from } = *self;
        let from_addr = d.address(b, g, from);
        match d.record(b, g, to).ok()? {
            Record::Class(c, ..) if c.loader_id == from_addr => Some("<defined class>".into()),
            _ => None,
        }
    }
}

/// A field's name as a reference's: `static NAME` for a class's static field, the
/// bracketed names (`<super>`, `<constant pool #3>`) as they are.
pub(super) fn static_name(is_static: bool, name: String) -> String {
    if is_static && !name.starts_with('<') {
        format!("static {name}")
    } else {
        name
    }
}
