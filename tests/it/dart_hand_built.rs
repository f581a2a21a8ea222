//! Dart heap snapshots built by hand, for what the real files of `fixtures/dart` cannot
//! show: every tag, a 64-bit VM's Smis, negative integers, cut strings, and hostile
//! counts that must be refused with their offset. The real files are checked in
//! `dart_fixture.rs`.

use crate::common;

use common::*;

fn uleb(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

fn sleb(out: &mut Vec<u8>, mut v: i64) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        let done = (v == 0 && b & 0x40 == 0) || (v == -1 && b & 0x40 != 0);
        out.push(if done { b } else { b | 0x80 });
        if done {
            return;
        }
    }
}

fn s(out: &mut Vec<u8>, t: &str) {
    uleb(out, t.len() as u64);
    out.extend_from_slice(t.as_bytes());
}

/// One object of a hand-built stream: class id (1-origin), size, data bytes (tag
/// included), references.
struct Obj {
    class: u64,
    size: u64,
    data: Vec<u8>,
    refs: Vec<u64>,
}

fn tag(t: u64) -> Vec<u8> {
    let mut v = Vec::new();
    uleb(&mut v, t);
    v
}

fn utf16(text: &str, keep: usize) -> Vec<u8> {
    let units: Vec<u16> = text.encode_utf16().collect();
    let mut v = tag(6);
    uleb(&mut v, units.len() as u64);
    let k = keep.min(units.len());
    uleb(&mut v, k as u64);
    for u in &units[..k] {
        v.extend_from_slice(&u.to_le_bytes());
    }
    v
}

fn latin1(text: &[u8], keep: usize) -> Vec<u8> {
    let mut v = tag(5);
    uleb(&mut v, text.len() as u64);
    let k = keep.min(text.len());
    uleb(&mut v, k as u64);
    v.extend_from_slice(&text[..k]);
    v
}

/// The header up to the class count: the magic, no flags, the isolate `main`, and its
/// shallow size, capacity and external size.
fn head(shallow: u64, capacity: u64, external: u64) -> Vec<u8> {
    let mut b = b"dartheap".to_vec();
    uleb(&mut b, 0);
    s(&mut b, "main");
    for v in [shallow, capacity, external] {
        uleb(&mut b, v);
    }
    b
}

/// Classes: 1 Root, 2 Read-Only Pages, 3 Isolate (field "app"), 4 dart:core::_Smi,
/// 5 dart:core::_Mint, 6 _OneByteString, 7 _TwoByteString, 8 _Double, 9 Null, 10 bool,
/// 11 dart:core::_List (type_arguments_, length_), 12 package:t/t.dart::Box (a, b, c, d),
/// 13 Function (VM internal, no library).
fn stream(objs: &[Obj], hashes: Option<&[u64]>) -> Vec<u8> {
    let mut b = head(1000, 4096, 64);
    let classes: &[(&str, &str, &[&str])] = &[
        ("Root", "", &[]),
        ("Read-Only Pages", "", &[]),
        ("Isolate", "", &["app"]),
        ("_Smi", "dart:core", &[]),
        ("_Mint", "dart:core", &[]),
        ("_OneByteString", "dart:core", &[]),
        ("_TwoByteString", "dart:core", &[]),
        ("_Double", "dart:core", &[]),
        ("Null", "dart:core", &[]),
        ("bool", "dart:core", &[]),
        ("_List", "dart:core", &["type_arguments_", "length_"]),
        ("Box", "package:t/t.dart", &["a", "b", "c", "d"]),
        ("Function", "", &[]),
    ];
    uleb(&mut b, classes.len() as u64);
    for (name, lib, fields) in classes {
        uleb(&mut b, 0);
        s(&mut b, name);
        s(&mut b, &lib.replace(':', "."));
        s(&mut b, lib);
        s(&mut b, "");
        uleb(&mut b, fields.len() as u64);
        for (i, f) in fields.iter().enumerate() {
            uleb(&mut b, 1);
            uleb(&mut b, i as u64);
            s(&mut b, f);
            s(&mut b, "");
        }
    }
    uleb(&mut b, objs.iter().map(|o| o.refs.len() as u64).sum());
    uleb(&mut b, objs.len() as u64);
    for o in objs {
        uleb(&mut b, o.class);
        uleb(&mut b, o.size);
        b.extend_from_slice(&o.data);
        uleb(&mut b, o.refs.len() as u64);
        for &r in &o.refs {
            uleb(&mut b, r);
        }
    }
    uleb(&mut b, 1);
    uleb(&mut b, 4);
    uleb(&mut b, 64);
    s(&mut b, "Unknown native function");
    if let Some(h) = hashes {
        for &x in h {
            uleb(&mut b, x);
        }
    }
    b
}

fn obj(class: u64, size: u64, data: Vec<u8>, refs: &[u64]) -> Obj {
    Obj {
        class,
        size,
        data,
        refs: refs.to_vec(),
    }
}

/// A small heap with every data tag: `smi_word` is how the VM writes the Smi −7.
fn edge_case_objects(smi_word: u64) -> Vec<Obj> {
    let mut smi = tag(3);
    uleb(&mut smi, smi_word);
    let mut mint = tag(3);
    sleb(&mut mint, -9_000_000_000);
    let mut dbl = tag(4);
    dbl.extend_from_slice(&(-2.5f64).to_le_bytes());
    let mut boolean = tag(2);
    uleb(&mut boolean, 1);
    let mut len = tag(7);
    uleb(&mut len, 2);
    let mut name = tag(8);
    s(&mut name, "Box.method");
    let long: Vec<u8> = (0..300).map(|i| b'a' + (i % 26) as u8).collect();
    vec![
        obj(1, 0, tag(0), &[2, 3]),               // #1 Root
        obj(2, 0, tag(0), &[]),                   // #2 Read-Only Pages
        obj(3, 0, tag(0), &[4]),                  // #3 Isolate: app = #4
        obj(12, 24, tag(0), &[5, 6, 7, 0, 8]),    // #4 Box a=-7 b=mint c=double d=0 [4]=list
        obj(4, 0, smi, &[]),                      // #5 Smi -7
        obj(5, 16, mint, &[]),                    // #6 Mint
        obj(8, 16, dbl, &[]),                     // #7 double -2.5
        obj(11, 24, len, &[0, 5, 9, 10]),         // #8 _List of 2: UTF-16, cut Latin-1
        obj(7, 32, utf16("Grüße 🌍!", 128), &[]), // #9 UTF-16 with a surrogate pair
        obj(6, 320, latin1(&long, 128), &[]),     // #10 Latin-1, 300 long, 128 kept
        obj(10, 0, boolean, &[]),                 // #11 true (unreachable)
        obj(9, 0, tag(1), &[]),                   // #12 null (unreachable)
        obj(13, 40, name, &[11, 12]),             // #13 Function (unreachable)
        obj(7, 24, utf16("ĀĀĀĀĀĀĀĀĀĀ", 4), &[]),  // #14 UTF-16, 10 long, 4 kept
    ]
}

#[test]
fn hand_built_every_tag_negative_ints_and_cut_strings() {
    use heaptui::format::Value;
    let hashes: Vec<u64> = (0..14).map(|i| if i == 3 { 77 } else { 0 }).collect();
    for (word, bits) in [(((1u64 << 32) - 7), "32-bit"), (u64::MAX - 6, "64-bit")] {
        let b = stream(&edge_case_objects(word), Some(&hashes));
        let snap = open_bytes(&b).unwrap();
        assert!(snap.truncated.is_none(), "{:?}", snap.warnings);
        assert!(snap.warnings.is_empty(), "{:?}", snap.warnings);
        let wf = snap.facts.iter().find(|f| f.0 == "word size").unwrap();
        assert!(wf.1.starts_with(bits), "{}", wf.1);
        assert_eq!(snap.graph.len(), 14);
        assert_eq!(snap.class_name(3), "package:t/t.dart::Box");
        assert_eq!(snap.class_name(12), "Function");
        let ins = snap.inspect(3);
        let f = |n: &str| {
            ins.fields
                .iter()
                .find(|f| f.name == n)
                .unwrap()
                .value
                .clone()
        };
        assert_eq!(f("a"), Value::Int(-7), "{bits}");
        assert_eq!(f("b"), Value::Int(-9_000_000_000));
        assert_eq!(f("c"), Value::Float(-2.5));
        assert!(
            matches!(f("d"), Value::Missing(_)),
            "reference 0: no object"
        );
        assert_eq!(f("[0]"), Value::Object(7));
        assert_eq!(snap.label(4).as_deref(), Some("-7"));
        // The list: length data, elements named [k] after its two fields.
        assert_eq!(snap.inspect(7).length, Some(2));
        assert_eq!(snap.edge_label(7, 8).as_deref(), Some("[0]"));
        assert_eq!(snap.edge_label(7, 9).as_deref(), Some("[1]"));
        assert_eq!(snap.edge_label(7, 4).as_deref(), Some("length_"));
        assert_eq!(snap.edge_label(2, 3).as_deref(), Some("app"));
        // Reference 0 is no edge: Box has four.
        assert_eq!(snap.graph.edges(3).len(), 4);
        // Strings: UTF-16 whole, Latin-1 cut at 128 of 300, UTF-16 cut at 4 of 10.
        let u = snap.inspect(8);
        assert_eq!(u.preview.as_deref(), Some("Grüße 🌍!"));
        assert_eq!(u.length, Some(9));
        let l = snap.inspect(9);
        assert_eq!(l.length, Some(300));
        assert_eq!(l.preview.as_ref().unwrap().chars().count(), 129);
        assert!(snap.label(9).unwrap().ends_with("(300 chars)"));
        let c = snap.inspect(13);
        assert_eq!(c.preview.as_deref(), Some("ĀĀĀĀ…"));
        assert_eq!(c.length, Some(10));
        // bool, null, name.
        assert_eq!(snap.label(10).as_deref(), Some("true"));
        assert_eq!(snap.label(11).as_deref(), Some("null"));
        assert_eq!(snap.label(12).as_deref(), Some("Box.method"));
        // Unreachable: #11, #12, #13 (40 bytes), #14 (24 bytes).
        let u = snap.facts.iter().find(|f| f.0 == "unreachable").unwrap();
        assert!(u.1.starts_with("4 objects, 64 bytes"), "{}", u.1);
        // External property on #4, hashes: only #4 has one.
        assert!(snap.inspect(3).facts.iter().any(|f| f
            == &(
                "external size".to_string(),
                "64 bytes (shallow 24 bytes)".to_string()
            )));
        let (_, ids) = snap.persistent_ids().unwrap();
        assert_eq!(ids[3], 77);
        assert_eq!(ids.iter().filter(|&&h| h != 0).count(), 1);
        assert_eq!(snap.find_object("#4"), Some(3));
        assert_eq!(snap.find_object("#15"), None);
        assert_eq!(snap.find_object("#0"), None);
    }
    // Two streams whose hashed objects differ: nothing is kept, and objects without a
    // hash do not count as matches, so diff says they are not of one process.
    let a = scratch().join("hashes-a.dartheap");
    let b2 = scratch().join("hashes-b.dartheap");
    let other: Vec<u64> = (0..14).map(|i| if i == 3 { 78 } else { 0 }).collect();
    std::fs::write(&a, stream(&edge_case_objects((1 << 32) - 7), Some(&hashes))).unwrap();
    std::fs::write(&b2, stream(&edge_case_objects((1 << 32) - 7), Some(&other))).unwrap();
    let v = json_of(&heaptui(&[
        "diff",
        a.to_str().unwrap(),
        b2.to_str().unwrap(),
        "--json",
    ]));
    assert!(v["objects"].is_null(), "{v}");
    assert!(
        v.to_string()
            .contains("no identity hash is in both snapshots"),
        "{v}"
    );
    // The same without the hash codes: whole, no persistent ids.
    let b = stream(&edge_case_objects((1 << 32) - 7), None);
    let snap = open_bytes(&b).unwrap();
    assert!(snap.truncated.is_none());
    assert!(snap.persistent_ids().is_none());
}

#[test]
fn hostile_counts_are_refused_with_their_offset() {
    // A reference count of 2^40 in object #4 of a stream of a few hundred bytes: the
    // objects before it open, the rest is refused without sizing anything from it.
    let mut objs = edge_case_objects((1 << 32) - 7);
    objs[3].refs = vec![];
    let clean = stream(&objs, None);
    let mut b = clean.clone();
    // Find object #4's reference count: it is the only "12, 24, 0, 0" run (Box, 24
    // bytes, no data, zero references) after the class table.
    let pat = [12u8, 24, 0, 0];
    let at = b.windows(4).rposition(|w| w == pat).unwrap();
    let mut big = Vec::new();
    uleb(&mut big, 1 << 40);
    b.splice(at + 3..at + 4, big);
    let snap = open_bytes(&b).unwrap();
    assert_eq!(snap.graph.len(), 3);
    assert_eq!(snap.truncated, Some(at as u64));
    let w = snap
        .warnings
        .iter()
        .find(|w| w.contains("1099511627776"))
        .unwrap();
    assert!(w.contains(&format!("object #4 at byte offset {at}")), "{w}");

    // A class count of 2^60 in the header: an error naming its offset.
    let mut h = head(1, 1, 1);
    let count_at = h.len() as u64;
    uleb(&mut h, 1 << 60);
    h.extend_from_slice(&[0; 32]);
    let Err(e) = open_bytes(&h) else {
        panic!("opened")
    };
    assert_eq!(e.offset, count_at);
    assert!(e.expected.contains("classes"), "{e}");
    // An object count beyond 32-bit ids, and an eleven-byte LEB128.
    let mut o = stream(&[], None);
    let n_at = o.len() - 28; // the object count 0 before the external properties
    assert_eq!(o[n_at], 0);
    let mut huge = Vec::new();
    uleb(&mut huge, 1 << 33);
    o.splice(n_at..n_at + 1, huge);
    let Err(e) = open_bytes(&o) else {
        panic!("opened")
    };
    assert_eq!(e.offset, n_at as u64);
    let mut l = b"dartheap".to_vec();
    l.extend_from_slice(&[0xff; 11]);
    assert!(open_bytes(&l).is_err());
    // A header cut short (once refused as "not built yet"): exit 2, what was expected.
    let err = summary_refused("a.dart", b"dartheap\x01\x02");
    assert!(
        err.contains("byte offset 9") && err.contains("isolate name"),
        "{err}"
    );
    // Through the binary: exit 2, the file and the offset named.
    let err = summary_refused("hostile.dartheap", &h);
    assert!(err.contains(&format!("byte offset {count_at}")), "{err}");
}
