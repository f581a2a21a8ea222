//! Hand-built byte streams for `tests/hostile.rs`: small writers for each format's
//! records, so that a hostile input is a few readable lines. None of them checks what it
//! writes: lying is the point.
#![allow(dead_code)]

/// An HPROF file under construction: header, top-level records, and one HEAP DUMP
/// SEGMENT collected from the sub-record helpers.
pub struct Hprof {
    pub id: usize,
    pub bytes: Vec<u8>,
    pub heap: Vec<u8>,
}

impl Hprof {
    /// `JAVA PROFILE 1.0.2` with identifiers of `id` bytes (only 4 and 8 make sense).
    pub fn new(id: usize) -> Self {
        let mut bytes = b"JAVA PROFILE 1.0.2\0".to_vec();
        bytes.extend_from_slice(&(id as u32).to_be_bytes());
        bytes.extend_from_slice(&[0; 8]);
        Hprof {
            id,
            bytes,
            heap: Vec::new(),
        }
    }

    /// An identifier in the file's width (big-endian, cut to `id` bytes).
    pub fn idb(&self, v: u64) -> Vec<u8> {
        v.to_be_bytes()[8 - self.id..].to_vec()
    }

    /// A top-level record: tag, time 0, length, body.
    pub fn record(&mut self, tag: u8, body: &[u8]) {
        self.record_len(tag, body.len() as u32, body);
    }

    /// A top-level record whose length field says `len`, whatever the body is.
    pub fn record_len(&mut self, tag: u8, len: u32, body: &[u8]) {
        self.bytes.push(tag);
        self.bytes.extend_from_slice(&0u32.to_be_bytes());
        self.bytes.extend_from_slice(&len.to_be_bytes());
        self.bytes.extend_from_slice(body);
    }

    /// A UTF8 record with raw (possibly invalid) bytes.
    pub fn utf8(&mut self, id: u64, text: &[u8]) {
        let mut b = self.idb(id);
        b.extend_from_slice(text);
        self.record(0x01, &b);
    }

    /// LOAD CLASS: serial, class id, name id.
    pub fn load_class(&mut self, serial: u32, class: u64, name: u64) {
        let mut b = serial.to_be_bytes().to_vec();
        b.extend(self.idb(class));
        b.extend_from_slice(&0u32.to_be_bytes());
        b.extend(self.idb(name));
        self.record(0x02, &b);
    }

    /// UTF8 `name` under `name_id` and LOAD CLASS of `class` with it.
    pub fn named_class(&mut self, serial: u32, class: u64, name_id: u64, name: &[u8]) {
        self.utf8(name_id, name);
        self.load_class(serial, class, name_id);
    }

    /// The class `name` (UTF8 id 1, LOAD CLASS serial 1) at `class`, and its CLASS DUMP
    /// without a superclass; `fields` are (name, type code), their names under UTF8 ids
    /// 2, 3, ….
    pub fn one_class(&mut self, class: u64, name: &str, fields: &[(&str, u8)]) {
        self.named_class(1, class, 1, name.as_bytes());
        let mut dump = Vec::new();
        for (k, &(field, t)) in fields.iter().enumerate() {
            let id = k as u64 + 2;
            self.utf8(id, field.as_bytes());
            dump.push((id, t));
        }
        self.class_dump(class, 0, &dump);
    }

    /// The classes `C0` … `C{n-1}` at 0x100_0000 + 16 k (LOAD CLASS serials from
    /// `serial` on, names under UTF8 ids 0x10_0000 + k), each extending the one before,
    /// with one field of type `t` whose name is UTF8 id `field`. Returns the deepest's id.
    pub fn class_chain(&mut self, n: u64, serial: u32, field: u64, t: u8) -> u64 {
        for k in 0..n {
            let class = 0x100_0000 + 16 * k;
            self.named_class(
                serial + k as u32,
                class,
                0x10_0000 + k,
                format!("C{k}").as_bytes(),
            );
            self.class_dump(class, if k == 0 { 0 } else { class - 16 }, &[(field, t)]);
        }
        0x100_0000 + 16 * (n - 1)
    }

    /// CLASS DUMP with no constants or statics; `fields` are (name id, type code).
    pub fn class_dump(&mut self, class: u64, super_id: u64, fields: &[(u64, u8)]) {
        let mut r = vec![0x20];
        r.extend(self.idb(class));
        r.extend_from_slice(&0u32.to_be_bytes());
        r.extend(self.idb(super_id));
        r.extend(vec![0; self.id * 5]); // loader, signers, domain, reserved x2
        r.extend_from_slice(&0u32.to_be_bytes()); // instance size
        r.extend_from_slice(&0u16.to_be_bytes()); // constant pool
        r.extend_from_slice(&0u16.to_be_bytes()); // statics
        r.extend_from_slice(&(fields.len() as u16).to_be_bytes());
        for &(name, t) in fields {
            r.extend(self.idb(name));
            r.push(t);
        }
        self.heap.extend(r);
    }

    /// INSTANCE DUMP with the given field bytes.
    pub fn instance(&mut self, obj: u64, class: u64, data: &[u8]) {
        let mut r = vec![0x21];
        r.extend(self.idb(obj));
        r.extend_from_slice(&0u32.to_be_bytes());
        r.extend(self.idb(class));
        r.extend_from_slice(&(data.len() as u32).to_be_bytes());
        r.extend_from_slice(data);
        self.heap.extend(r);
    }

    /// INSTANCE DUMP whose field bytes are the given references, in the id width.
    pub fn instance_refs(&mut self, obj: u64, class: u64, refs: &[u64]) {
        let data: Vec<u8> = refs.iter().flat_map(|&r| self.idb(r)).collect();
        self.instance(obj, class, &data);
    }

    /// PRIMITIVE ARRAY DUMP of bytes (type 8).
    pub fn byte_array(&mut self, obj: u64, data: &[u8]) {
        let mut r = vec![0x23];
        r.extend(self.idb(obj));
        r.extend_from_slice(&0u32.to_be_bytes());
        r.extend_from_slice(&(data.len() as u32).to_be_bytes());
        r.push(8);
        r.extend_from_slice(data);
        self.heap.extend(r);
    }

    /// ROOT JNI GLOBAL.
    pub fn jni_global(&mut self, obj: u64) {
        let mut r = vec![0x01];
        r.extend(self.idb(obj));
        r.extend(self.idb(0x9999));
        self.heap.extend(r);
    }

    /// ROOT STICKY CLASS.
    pub fn sticky(&mut self, class: u64) {
        let mut r = vec![0x05];
        r.extend(self.idb(class));
        self.heap.extend(r);
    }

    /// The file: the records so far, the heap as one HEAP DUMP SEGMENT, HEAP DUMP END.
    pub fn finish(mut self) -> Vec<u8> {
        let heap = std::mem::take(&mut self.heap);
        if !heap.is_empty() {
            self.record(0x1c, &heap);
        }
        self.record(0x2c, &[]);
        self.bytes
    }
}

/// The start of a chain of links (4-byte ids): class `Link` (0x100, one reference
/// field `next`), a sticky class, and a JNI global on the first link (0x1000); the
/// links are [`link_record`]s.
pub fn link_chain_head() -> Hprof {
    let mut h = Hprof::new(4);
    h.one_class(0x100, "Link", &[("next", 2)]);
    h.sticky(0x100);
    h.jni_global(0x1000);
    h
}

/// The INSTANCE DUMP of link `k` of `n` in a [`link_chain_head`] chain: at
/// 0x1000 + 16 k, referring to the next (the last to null).
pub fn link_record(k: u32, n: u32) -> [u8; 21] {
    let id = 0x1000 + 16 * k;
    let next = if k + 1 == n { 0 } else { id + 16 };
    let mut r = [0u8; 21];
    r[0] = 0x21;
    r[1..5].copy_from_slice(&id.to_be_bytes());
    r[9..13].copy_from_slice(&0x100u32.to_be_bytes());
    r[13..17].copy_from_slice(&4u32.to_be_bytes());
    r[17..21].copy_from_slice(&next.to_be_bytes());
    r
}

/// A V8 `.heapsnapshot` with the given node fields (names; types follow from the name),
/// flat `nodes` and `edges` arrays, strings, and the counts the header claims.
pub fn v8_snapshot(
    node_fields: &[&str],
    nodes: &[i64],
    edges: &[i64],
    strings: &[&str],
    node_count: usize,
    edge_count: usize,
) -> Vec<u8> {
    let types: Vec<String> = node_fields
        .iter()
        .map(|f| match *f {
            "type" => r#"["hidden","array","string","object","code","closure","regexp","number","native","synthetic","concatenated string","sliced string","symbol","bigint","object shape"]"#.to_string(),
            "name" => "\"string\"".to_string(),
            _ => "\"number\"".to_string(),
        })
        .collect();
    let fields: Vec<String> = node_fields.iter().map(|f| format!("\"{f}\"")).collect();
    let join = |v: &[i64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let strs: Vec<String> = strings
        .iter()
        .map(|s| serde_json::to_string(s).unwrap())
        .collect();
    format!(
        concat!(
            r#"{{"snapshot":{{"meta":{{"node_fields":[{}],"node_types":[{}],"#,
            r#""edge_fields":["type","name_or_index","to_node"],"#,
            r#""edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]}},"#,
            r#""node_count":{},"edge_count":{}}},"#,
            "\n\"nodes\":[{}],\n\"edges\":[{}],\n\"strings\":[{}]}}"
        ),
        fields.join(","),
        types.join(","),
        node_count,
        edge_count,
        join(nodes),
        join(edges),
        strs.join(",")
    )
    .into_bytes()
}

/// Writes a V8 snapshot of `n` minimal nodes (five one-digit fields, `3,0,0,0,0`: 10
/// bytes a node, the most a byte of file can hold), node 0 the synthetic root with
/// `edges` edges to the others in turn; the header claims `counts` (nodes, edges).
pub fn write_v8_minimal(
    w: &mut impl std::io::Write,
    n: u64,
    edges: u64,
    counts: (u64, u64),
) -> std::io::Result<()> {
    write!(
        w,
        concat!(
            r#"{{"snapshot":{{"meta":{{"node_fields":["type","name","id","self_size","edge_count"],"#,
            r#""node_types":[["hidden","array","string","object","code","closure","regexp","number","native","synthetic"],"string","number","number","number"],"#,
            r#""edge_fields":["type","name_or_index","to_node"],"#,
            r#""edge_types":[["context","element","property","internal","hidden","shortcut","weak"],"string_or_number","node"]}},"#,
            r#""node_count":{},"edge_count":{}}},"#,
            "\n\"nodes\":[9,0,1,0,{}"
        ),
        counts.0, counts.1, edges
    )?;
    for _ in 1..n {
        w.write_all(b",3,0,0,0,0")?;
    }
    w.write_all(b"],\n\"edges\":[")?;
    for k in 0..edges {
        if k > 0 {
            w.write_all(b",")?;
        }
        write!(w, "1,{k},{}", 5 * (k % (n - 1) + 1))?;
    }
    w.write_all(b"],\n\"strings\":[\"a\"]}")
}

/// Unsigned LEB128 (Dart, Go's uvarint).
pub fn uleb(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return out;
        }
        out.push(b | 0x80);
    }
}

/// A LEB128 length and the bytes.
pub fn leb_str(s: &[u8]) -> Vec<u8> {
    let mut v = uleb(s.len() as u64);
    v.extend_from_slice(s);
    v
}

/// A Dart `dartheap` header up to (not including) the class count: magic, flags,
/// isolate name, shallow size, capacity, external size.
pub fn dart_head() -> Vec<u8> {
    let mut b = b"dartheap".to_vec();
    b.extend(uleb(0));
    b.extend(leb_str(b"main"));
    b.extend(uleb(100));
    b.extend(uleb(200));
    b.extend(uleb(0));
    b
}

/// One Dart class with no fields: flags, name, library name, URI, reserved, 0 fields.
pub fn dart_class(name: &str, uri: &str) -> Vec<u8> {
    let mut b = uleb(0);
    b.extend(leb_str(name.as_bytes()));
    b.extend(leb_str(b""));
    b.extend(leb_str(uri.as_bytes()));
    b.extend(leb_str(b""));
    b.extend(uleb(0));
    b
}

/// A Dart header ([`dart_head`]) and four classes: the three synthetic ones (1 Root,
/// 2 Read-Only Pages, 3 Isolate) and 4 `dart:core::Foo`. The reference count is next.
pub fn dart_head_with_foo() -> Vec<u8> {
    let mut b = dart_head();
    b.extend(uleb(4));
    for (name, uri) in [("Root", ""), ("Read-Only Pages", ""), ("Isolate", "")] {
        b.extend(dart_class(name, uri));
    }
    b.extend(dart_class("Foo", "dart:core"));
    b
}

/// The eight-byte, NUL-padded block name of MoarVM v3.
pub fn name8(n: &str) -> Vec<u8> {
    let mut v = n.as_bytes().to_vec();
    v.resize(8, 0);
    v
}

/// A zstd frame without a content size, as MoarVM writes them.
pub fn zstd_frame(data: &[u8]) -> Vec<u8> {
    let mut e = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    e.include_contentsize(false).unwrap();
    e.window_log(20).unwrap();
    std::io::Write::write_all(&mut e, data).unwrap();
    e.finish().unwrap()
}

/// A MoarVM v3 metadata block (`filemeta`, `snapmeta`).
pub fn moar_meta(name: &str, json: &str) -> Vec<u8> {
    let mut b = name8(name);
    b.extend((json.len() as u64 + 1).to_le_bytes());
    b.extend(json.as_bytes());
    b.push(0);
    b
}

/// A MoarVM v3 column of `size`-byte little-endian entries.
pub fn moar_column(name: &str, size: usize, values: &[u64]) -> Vec<u8> {
    let data: Vec<u8> = values
        .iter()
        .flat_map(|v| v.to_le_bytes()[..size].to_vec())
        .collect();
    let mut b = name8(name);
    b.extend((size as u16).to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend(zstd_frame(&data));
    b
}

/// A MoarVM v3 `strings` block.
pub fn moar_strings(list: &[&str]) -> Vec<u8> {
    let heap: Vec<u8> = list
        .iter()
        .flat_map(|s| {
            let mut v = (s.len() as u32).to_le_bytes().to_vec();
            v.extend(s.as_bytes());
            v
        })
        .collect();
    let mut b = name8("strings");
    b.extend(0u64.to_le_bytes());
    b.extend(zstd_frame(&heap));
    b
}

/// A MoarVM v3 table of contents: (block name, start, end) entries, then its own start.
pub fn moar_toc(at: u64, entries: &[(&str, u64, u64)]) -> Vec<u8> {
    let mut b = name8("toc");
    b.extend((entries.len() as u64).to_le_bytes());
    for (n, s, e) in entries {
        b.extend(name8(n));
        b.extend(s.to_le_bytes());
        b.extend(e.to_le_bytes());
    }
    b.extend(at.to_le_bytes());
    b
}

/// The end of a MoarVM v3 file begun by [`moar_v3_head`]: the snapshot's table of
/// contents, the empty end one, and the outer one, whose final pointer is
/// `final_ptr(actual)`.
pub fn moar_v3_tail(
    mut b: Vec<u8>,
    mut outer: Vec<TocEntry>,
    at: u64,
    final_ptr: impl Fn(u64) -> u64,
) -> Vec<u8> {
    let inner_at = b.len() as u64;
    b.extend(moar_toc(inner_at, &[("snapmeta", at, at + 1)]));
    outer.push(("toc", inner_at, b.len() as u64 - 8));
    let end_at = b.len() as u64;
    b.extend(moar_toc(end_at, &[]));
    outer.push(("toc", end_at, b.len() as u64 - 8));
    let final_at = b.len() as u64;
    b.extend(moar_toc(final_ptr(final_at), &outer));
    b
}

/// A table of contents entry: (name, start, end).
pub type TocEntry = (&'static str, u64, u64);

/// The start of a MoarVM v3 file: the magic, the file's metadata and one snapshot's
/// (with the totals `totals`, JSON members), the outer table of contents so far, and
/// where the snapshot's metadata is.
pub fn moar_v3_head(totals: &str) -> (Vec<u8>, Vec<TocEntry>, u64) {
    let mut b = b"MoarHeapDumpv003".to_vec();
    let fm = b.len() as u64;
    b.extend(moar_meta(
        "filemeta",
        r#"{"subversion": 1, "start_time": 1000}"#,
    ));
    let outer = vec![("filemeta", fm, b.len() as u64)];
    let at = b.len() as u64;
    b.extend(moar_meta(
        "snapmeta",
        &format!(r#"{{"snap_time": 2000, "gc_seq_num": 0, {totals}}}"#),
    ));
    (b, outer, at)
}

/// A whole MoarVM v3 file with one snapshot of two collectables (a frame `#0` that
/// refers to a `Foo` `#1` by the name "x"), whose final TOC pointer (the last 8 bytes)
/// is `final_ptr(actual)`: pass `|a| a` for an honest file.
pub fn moar_v3_file(final_ptr: impl Fn(u64) -> u64) -> Vec<u8> {
    let (mut b, outer, at) = moar_v3_head(r#""total_heap_size": 48, "total_refs": 1"#);
    for (name, size, v) in [
        ("colkind", 2, &[9u64, 1][..]),
        ("colsize", 2, &[0, 48]),
        ("coltofi", 4, &[0, 0]),
        ("colrfcnt", 4, &[1, 0]),
        ("colrfstr", 8, &[0, 0]),
        ("colusize", 8, &[0, 0]),
        ("refdescr", 8, &[2]),
        ("reftrget", 8, &[1]),
    ] {
        b.extend(moar_column(name, size, v));
    }
    b.extend(moar_strings(&["x", "P6opaque", "Foo"]));
    b.extend(moar_column("reprname", 4, &[1]));
    b.extend(moar_column("typename", 4, &[2]));
    moar_v3_tail(b, outer, at, final_ptr)
}

/// An HPROF file (8-byte ids) of `n` instances of one class without fields, in one
/// segment: 25 bytes per instance.
pub fn hprof_instances(n: usize) -> Vec<u8> {
    let mut h = Hprof::new(8);
    h.heap.reserve(n * 25 + 64);
    h.class_dump(0x100, 0, &[]);
    for i in 0..n as u64 {
        h.instance(0x10000 + 16 * i, 0x100, &[]);
    }
    h.finish()
}

/// A whole MoarVM v3 file with one snapshot of `n` collectables (the root, then `n - 1`
/// objects of type `Foo` with no size and no references) and `pad` bytes of letters in
/// a string, so that the file is large enough for its columns to be within the ratio
/// limit (`MAX_EXPANSION`): all-zero columns compress a thousandfold.
pub fn moar_v3_claiming(n: usize, pad: usize) -> Vec<u8> {
    let (mut b, outer, at) = moar_v3_head(r#""total_heap_size": 0, "total_refs": 0"#);
    let mut kinds = vec![1u64; n];
    kinds[0] = 9;
    let zeros = vec![0u64; n];
    for (name, size, v) in [
        ("colkind", 2, &kinds[..]),
        ("colsize", 2, &zeros[..]),
        ("coltofi", 4, &zeros[..]),
        ("colrfcnt", 4, &zeros[..]),
        ("colrfstr", 8, &zeros[..]),
        ("colusize", 8, &zeros[..]),
        ("refdescr", 8, &[]),
        ("reftrget", 8, &[]),
    ] {
        b.extend(moar_column(name, size, v));
    }
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let letters: String = (0..pad).map(|_| letter(&mut x) as char).collect();
    b.extend(moar_strings(&["P6opaque", "Foo", &letters]));
    b.extend(moar_column("reprname", 4, &[0]));
    b.extend(moar_column("typename", 4, &[1]));
    moar_v3_tail(b, outer, at, |a| a)
}

/// A letter (or one of the six signs between `Z` and `a`) drawn from `x`: text that
/// compresses about as badly as text can.
pub fn letter(x: &mut u64) -> u8 {
    b'A' + (super::xorshift(x) % 58) as u8
}

/// The class name of [`emoji_hprof`] (as the dump holds it, `/` for `.`): a ZWJ family,
/// a flag, a skin-tone modifier, VS16, a keycap, a subdivision flag (tag characters), a
/// zero-width space and CJK, each a sequence whose width a terminal may draw otherwise
/// than it is measured.
pub const EMOJI_CLASS: &str = "com/x/Fam\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}Flag\u{1f1fa}\u{1f1f8}Skin\u{1f44d}\u{1f3fd}Heart\u{2764}\u{fe0f}Key#\u{fe0f}\u{20e3}Eng\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}Zw\u{200b}sp\u{65e5}\u{672c}End";

/// The text of [`emoji_hprof`]'s string.
pub const EMOJI_TEXT: &str =
    "Fam\u{1f468}\u{200d}\u{1f469}\u{200d}\u{1f467}Skin\u{1f44d}\u{1f3ff}Heart\u{2764}\u{fe0f}\u{65e5}End";

/// An HPROF file (8-byte ids) whose class [`EMOJI_CLASS`] has one instance `0x1000`, a
/// JNI global, whose field `ref` holds a UTF-16 `java.lang.String` `0x2000` of
/// [`EMOJI_TEXT`] (its `value` the `byte[]` `0x3000`): a chain of three for the
/// dominator tree and the paths.
pub fn emoji_hprof() -> Vec<u8> {
    let mut h = Hprof::new(8);
    h.named_class(1, 0x100, 1, EMOJI_CLASS.as_bytes());
    h.named_class(2, 0x200, 2, b"java/lang/String");
    h.utf8(3, b"value");
    h.utf8(4, b"coder");
    h.utf8(5, b"ref");
    h.class_dump(0x100, 0, &[(5, 2)]);
    h.class_dump(0x200, 0, &[(3, 2), (4, 8)]);
    h.instance_refs(0x1000, 0x100, &[0x2000]);
    let mut s = 0x3000u64.to_be_bytes().to_vec();
    s.push(1);
    h.instance(0x2000, 0x200, &s);
    let utf16: Vec<u8> = EMOJI_TEXT
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    h.byte_array(0x3000, &utf16);
    h.jni_global(0x1000);
    h.finish()
}

/// An HPROF file (8-byte ids) whose class `com.x.Box` has one instance `0x1000`, a JNI
/// global, holding two distinct UTF-16 `java.lang.String`s `0x2000` and `0x2100` of the
/// same `text` (their `value`s the `byte[]`s `0x3000` and `0x3100`): one duplicate-string
/// finding for `waste`.
pub fn twin_strings_hprof(text: &str) -> Vec<u8> {
    let mut h = Hprof::new(8);
    h.named_class(1, 0x100, 1, b"com/x/Box");
    h.named_class(2, 0x200, 2, b"java/lang/String");
    h.utf8(3, b"value");
    h.utf8(4, b"coder");
    h.utf8(5, b"a");
    h.utf8(6, b"b");
    h.class_dump(0x100, 0, &[(5, 2), (6, 2)]);
    h.class_dump(0x200, 0, &[(3, 2), (4, 8)]);
    h.instance_refs(0x1000, 0x100, &[0x2000, 0x2100]);
    let utf16: Vec<u8> = text.encode_utf16().flat_map(|u| u.to_le_bytes()).collect();
    for (s, v) in [(0x2000u64, 0x3000u64), (0x2100, 0x3100)] {
        let mut f = v.to_be_bytes().to_vec();
        f.push(1);
        h.instance(s, 0x200, &f);
        h.byte_array(v, &utf16);
    }
    h.jni_global(0x1000);
    h.finish()
}

/// An HPROF file (8-byte ids) of `n` classes `com/x/C{k}` and nothing else: each its
/// UTF8 name, its LOAD CLASS and a CLASS DUMP of four `int` fields (issue 40: 750,000
/// such classes took 550 MB where 190 MB was estimated, and the kernel killed the
/// process in a 600 MiB cgroup).
pub fn many_classes(n: u64) -> Vec<u8> {
    let mut h = Hprof::new(8);
    for f in 0..4u64 {
        h.utf8(10 + f, format!("field{f}").as_bytes());
    }
    let fields: Vec<(u64, u8)> = (0..4).map(|f| (10 + f, 10)).collect();
    for k in 0..n {
        let class = 0x100_0000 + 16 * k;
        h.named_class(
            k as u32 + 1,
            class,
            0x10_0000 + k,
            format!("com/x/C{k}").as_bytes(),
        );
        h.class_dump(class, 0, &fields);
    }
    h.finish()
}

/// `n` classes each extending the one before (4-byte ids), one field of type `t` each
/// (10 `int`, 2 a reference), and one instance `0x1000` of the deepest, held by a JNI
/// global.
pub fn class_hierarchy(n: u64, t: u8) -> Vec<u8> {
    let mut h = Hprof::new(4);
    h.utf8(1, b"f");
    let deepest = h.class_chain(n, 1, 1, t);
    h.instance(0x1000, deepest, &vec![0u8; 4 * 512]);
    h.jni_global(0x1000);
    h.finish()
}
