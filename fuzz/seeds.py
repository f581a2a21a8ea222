#!/usr/bin/env python3
"""Builds the fuzzers' seed corpora from the repository's fixtures.

    fuzz/seeds.py [OUT_DIR]        (default: fuzz/corpus)

Writes OUT_DIR/{hprof,v8,go,moarvm,dart,gzip}/seed-*. The fixtures are megabytes; a fuzzer wants
inputs of tens of kilobytes that are still *well-formed*, so that mutations start deep
inside the readers rather than at their first length check. So each fixture is shrunk
along its own record structure rather than merely cut:

- HPROF: the header, the first top-level records up to a budget (names, classes, stack
  traces), then one HEAP DUMP SEGMENT holding a run of whole heap sub-records (from the
  start of the heap, and a second seed from its middle), then HEAP DUMP END.
- V8: the JSON parsed and rewritten with the first N nodes, the edges between them, the
  strings they name (renumbered) and the node/edge counts made to match.
- Go: the header, every record that is not an object up to a budget (params, types,
  goroutines, frames, segments, memstats, profiles), the first objects, then EOF.
- gzip: a few of the above compressed, as one member and as several concatenated
  members (HotSpot's `-gz` output), plus one cut short.

Plus, for every format, one plain prefix of the raw file (a truncated input), and
hand-built seeds of each hostile shape of issue 28 (`issue_28_seeds`). Runs in a
few seconds; deterministic, so CI and a person get the same seeds. Standard library only.
"""

import gzip
import json
import os
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.path.join(ROOT, "..", "shared", "corpus")


def gunzip(rel):
    with gzip.open(os.path.join(ROOT, "fixtures", rel), "rb") as f:
        return f.read()


def shared(rel):
    p = os.path.join(SHARED, rel)
    if not os.path.exists(p):
        return None
    with open(p, "rb") as f:
        return f.read()


# ---------------------------------------------------------------- HPROF

def hprof_sub_len(b, pos, idz):
    """Length of the heap sub-record at `pos` (tag included), or None when unknown."""
    tag = b[pos]
    fixed = {0xFF: idz, 0x05: idz, 0x07: idz, 0x89: idz, 0x8A: idz, 0x8B: idz,
             0x8C: idz, 0x8D: idz, 0x90: idz, 0x01: 2 * idz, 0x04: idz + 4,
             0x06: idz + 4, 0x02: idz + 8, 0x03: idz + 8, 0x08: idz + 8,
             0x8E: idz + 8, 0xC3: idz + 9, 0xFE: 4 + idz}
    if tag in fixed:
        return 1 + fixed[tag]
    sizes = {2: idz, 4: 1, 8: 1, 5: 2, 9: 2, 6: 4, 10: 4, 7: 8, 11: 8}
    p = pos + 1
    if tag == 0x21:
        p += idz + 4 + idz
        n = struct.unpack_from(">I", b, p)[0]
        return p + 4 + n - pos
    if tag == 0x22:
        p += idz + 4
        n = struct.unpack_from(">I", b, p)[0]
        return p + 4 + idz + n * idz - pos
    if tag == 0x23:
        p += idz + 4
        n = struct.unpack_from(">I", b, p)[0]
        return p + 5 + n * sizes[b[p + 4]] - pos
    if tag == 0x20:
        p += idz + 4 + 6 * idz + 4
        cp = struct.unpack_from(">H", b, p)[0]
        p += 2
        for _ in range(cp):
            p += 2
            p += 1 + sizes[b[p]]
        st = struct.unpack_from(">H", b, p)[0]
        p += 2
        for _ in range(st):
            p += idz
            p += 1 + sizes[b[p]]
        nf = struct.unpack_from(">H", b, p)[0]
        p += 2 + nf * (idz + 1)
        return p - pos
    return None


def hprof_record(tag, body):
    return bytes([tag]) + struct.pack(">II", 0, len(body)) + body


def hprof_seeds(b, names_budget, heap_budget):
    """Well-formed small HPROFs from a large one: [from the heap's start, its middle]."""
    nul = b.index(b"\0")
    idz = struct.unpack_from(">I", b, nul + 1)[0]
    header = b[: nul + 13]
    pos = nul + 13
    prefix = bytearray()
    heap = []  # (start, end) of every heap dump body
    while pos + 9 <= len(b):
        tag = b[pos]
        n = struct.unpack_from(">I", b, pos + 5)[0]
        end = min(pos + 9 + n, len(b))
        if tag in (0x0C, 0x1C):
            heap.append((pos + 9, end))
        elif tag != 0x2C and len(prefix) + end - pos <= names_budget:
            prefix += b[pos:end]
        pos = end
    subs = []  # (start, end) of every heap sub-record
    for start, end in heap:
        p = start
        while p < end:
            n = hprof_sub_len(b, p, idz)
            if n is None or p + n > end:
                break
            subs.append((p, p + n))
            p += n
    out = []
    for first in (0, len(subs) // 2):
        body = bytearray()
        for s, e in subs[first:]:
            if len(body) + e - s > heap_budget:
                continue  # a big array: skip it, keep filling with smaller records
            body += b[s:e]
            if len(body) > heap_budget * 0.95:
                break
        out.append(bytes(header + prefix + hprof_record(0x1C, bytes(body))
                         + hprof_record(0x2C, b"")))
    return out


# ---------------------------------------------------------------- V8

def v8_seed(text, max_nodes):
    """The first `max_nodes` nodes of a snapshot and the edges among them."""
    s = json.loads(text)
    meta = s["snapshot"]["meta"]
    nf = len(meta["node_fields"])
    ef = len(meta["edge_fields"])
    ec_i = meta["node_fields"].index("edge_count")
    name_i = meta["node_fields"].index("name")
    et_i = meta["edge_fields"].index("type")
    en_i = meta["edge_fields"].index("name_or_index")
    to_i = meta["edge_fields"].index("to_node")
    edge_types = meta["edge_types"][0]
    numeric = {edge_types.index(t) for t in ("element", "hidden") if t in edge_types}
    nodes, edges, strings = s["nodes"], s["edges"], s["strings"]
    count = min(max_nodes, len(nodes) // nf)
    remap = {}

    def string(i):
        if i not in remap:
            remap[i] = len(remap)
        return remap[i]

    new_nodes, new_edges = [], []
    e = 0
    for k in range(len(nodes) // nf):
        node = nodes[k * nf:(k + 1) * nf]
        mine = edges[e * ef:(e + node[ec_i]) * ef]
        e += node[ec_i]
        if k >= count:
            break
        kept = []
        for j in range(0, len(mine), ef):
            edge = list(mine[j:j + ef])
            if edge[to_i] // nf >= count:
                continue
            if edge[et_i] not in numeric:
                edge[en_i] = string(edge[en_i])
            kept.extend(edge)
        node = list(node)
        node[name_i] = string(node[name_i])
        node[ec_i] = len(kept) // ef
        new_nodes.extend(node)
        new_edges.extend(kept)
    new_strings = [None] * len(remap)
    for old, new in remap.items():
        new_strings[new] = strings[old] if old < len(strings) else ""
    s["snapshot"]["node_count"] = count
    s["snapshot"]["edge_count"] = len(new_edges) // ef
    if "trace_function_count" in s["snapshot"]:
        s["snapshot"]["trace_function_count"] = 0
    s["nodes"], s["edges"], s["strings"] = new_nodes, new_edges, new_strings
    for k in ("trace_function_infos", "trace_tree", "samples", "locations"):
        if k in s:
            s[k] = []
    # V8's own layout: one node or edge per line, so line-oriented mutations make sense.
    out = ['{"snapshot":' + json.dumps(s["snapshot"], separators=(",", ":"))]
    for key, width in (("nodes", nf), ("edges", ef)):
        rows = [",".join(map(str, s[key][i:i + width]))
                for i in range(0, len(s[key]), width)]
        out.append('\n"%s":[%s]' % (key, ",\n".join(rows)))
    for k in ("trace_function_infos", "trace_tree", "samples", "locations"):
        if k in s:
            out.append('\n"%s":[]' % k)
    out.append('\n"strings":[%s]}' % ",\n".join(json.dumps(x) for x in s["strings"]))
    return ",".join(out).encode()


# ---------------------------------------------------------------- Go

def uvarint(b, p):
    x, shift = 0, 0
    while True:
        c = b[p]
        p += 1
        x |= (c & 0x7F) << shift
        if c < 0x80:
            return x, p
        shift += 7


def go_record_end(b, p):
    """(kind, end) of the record at `p`."""
    kind, p = uvarint(b, p)

    def u(p, n=1):
        for _ in range(n):
            _, p = uvarint(b, p)
        return p

    def s(p):
        n, p = uvarint(b, p)
        return p + n

    def fields(p):
        while True:
            k, p = uvarint(b, p)
            if k == 0:
                return p
            p = u(p)

    if kind == 0:
        return kind, p
    if kind == 1:
        return kind, fields(s(u(p)))
    if kind == 2:
        return kind, u(s(p))
    if kind == 3:
        return kind, u(s(u(p, 2)))
    if kind == 4:
        return kind, u(s(u(p, 8)), 4)
    if kind == 5:
        return kind, fields(s(u(s(u(p, 3)), 3)))
    if kind == 6:
        return kind, u(s(s(u(p, 4))))
    if kind in (7, 11):
        return kind, u(p, 5)
    if kind == 8:
        return kind, u(p, 2)
    if kind == 9:
        return kind, u(p, 3)
    if kind == 10:
        return kind, u(p, 281)
    if kind in (12, 13):
        return kind, fields(s(u(p)))
    if kind == 14:
        return kind, u(p, 7)
    if kind == 15:
        return kind, u(p, 6)
    if kind == 16:
        p = u(p, 2)
        n, p = uvarint(b, p)
        for _ in range(n):
            p = u(s(s(p)))
        return kind, u(p, 2)
    if kind == 17:
        return kind, u(p, 2)
    raise ValueError("go record kind %d at %d" % (kind, p))


def go_seed(b, other_budget, object_budget, skip_fraction=0.0):
    """Params, the objects (from `skip_fraction` of the way through them) and the other
    records, each up to a budget, then EOF."""
    start = b.index(b"\n") + 1
    total, p = 0, start
    while p < len(b):
        kind, p = go_record_end(b, p)
        total += kind == 1
        if kind == 0:
            break
    skip_objects = int(total * skip_fraction)
    header = b[:start]
    others, objects = bytearray(), bytearray()
    p, seen = start, 0
    while p < len(b):
        kind, end = go_record_end(b, p)
        if kind == 0:
            break
        if kind == 1:
            seen += 1
            if seen > skip_objects and len(objects) + end - p <= object_budget:
                objects += b[p:end]
        elif kind == 6 or len(others) + end - p <= other_budget:
            others += b[p:end]
        p = end
    # Params first (the pointer size), objects, then the rest in file order, then EOF.
    recs = go_split(others)
    params = b"".join(r for k, r in recs if k == 6)
    rest = b"".join(r for k, r in recs if k != 6)
    return bytes(header + params + objects + rest + b"\x00")


def go_split(others):
    recs, p = [], 0
    while p < len(others):
        kind, end = go_record_end(others, p)
        recs.append((kind, bytes(others[p:end])))
        p = end
    return recs


# ---------------------------------------------------------------- issue 28's shapes

# Hostile names (defect 15): a ZWJ family, a flag, a skin tone, VS16, a keycap, a
# subdivision flag, a zero-width space, CJK; 300 stacked marks, bidi overrides, an OSC 52
# write, DEL.
EMOJI = ("Fam\U0001f468\u200d\U0001f469\u200d\U0001f467Flag\U0001f1fa\U0001f1f8Skin"
         "\U0001f44d\U0001f3fdHeart\u2764\ufe0fKey#\ufe0f\u20e3Eng\U0001f3f4\U000e0067"
         "\U000e0062\U000e0065\U000e006e\U000e0067\U000e007fZw\u200bsp\u65e5\u672cEnd")
ZALGO = "Za" + "\u0301" * 300 + "lgo\u202etxet\u2066\u200b\x1b]52;c;eA==\x07\x7f"


def hprof4(records, heap):
    """An HPROF with 4-byte ids: the top-level RECORDS (bytes), HEAP as one segment."""
    return (b"JAVA PROFILE 1.0.2\0" + struct.pack(">I", 4) + bytes(8) + b"".join(records)
            + hprof_record(0x1C, heap) + hprof_record(0x2C, b""))


def h_utf8(i, text):
    return hprof_record(0x01, struct.pack(">I", i) + text)


def h_load(serial, cls, name):
    return hprof_record(0x02, struct.pack(">IIII", serial, cls, 0, name))


def h_class(cls, sup, fields):
    """CLASS DUMP, 4-byte ids, no constants or statics; FIELDS: (name id, type)."""
    r = b"\x20" + struct.pack(">III", cls, 0, sup) + bytes(4 * 5) + struct.pack(">IHHH", 0, 0, 0, len(fields))
    return r + b"".join(struct.pack(">IB", n, t) for n, t in fields)


def h_instance(obj, cls, data):
    return b"\x21" + struct.pack(">IIII", obj, 0, cls, len(data)) + data


def hprof_chain(n):
    """Defects 4, 5, 7: `Link` objects each holding the next, the first a JNI global."""
    recs = [h_utf8(1, b"Link"), h_load(1, 0x100, 1), h_utf8(2, b"next")]
    heap = bytearray(h_class(0x100, 0, [(2, 2)]) + b"\x05" + struct.pack(">I", 0x100)
                     + b"\x01" + struct.pack(">II", 0x1000, 0x9999))
    for k in range(n):
        nxt = 0 if k + 1 == n else 0x1000 + 16 * (k + 1)
        heap += h_instance(0x1000 + 16 * k, 0x100, struct.pack(">I", nxt))
    return hprof4(recs, bytes(heap))


def hprof_hierarchy(n, loop=False):
    """Defect 6: N classes each extending the one before (LOOP: the first extends the
    last), one int field each, an instance of the deepest held by a JNI global."""
    recs, heap = [h_utf8(1, b"f")], bytearray()
    for k in range(n):
        cls = 0x100000 + 16 * k
        recs += [h_utf8(0x1000 + k, b"C%d" % k), h_load(k + 1, cls, 0x1000 + k)]
        sup = cls - 16 if k else (0x100000 + 16 * (n - 1) if loop else 0)
        heap += h_class(cls, sup, [(1, 10)])
    heap += h_instance(0x10, 0x100000 + 16 * (n - 1), bytes(4 * min(n, 600)))
    heap += b"\x01" + struct.pack(">II", 0x10, 0x9999)
    return hprof4(recs, bytes(heap))


def hprof_names():
    """Defect 15: classes named EMOJI and ZALGO, an instance of each, a UTF-16 string of
    both held by the first."""
    recs = [h_utf8(1, EMOJI.encode()), h_load(1, 0x100, 1), h_utf8(2, b"java/lang/String"),
            h_load(2, 0x200, 2), h_utf8(3, ZALGO.encode()), h_load(3, 0x300, 3),
            h_utf8(4, b"value"), h_utf8(5, b"coder"), h_utf8(6, b"ref")]
    text = (EMOJI + ZALGO).encode("utf-16-le")
    heap = (h_class(0x100, 0, [(6, 2)]) + h_class(0x200, 0, [(4, 2), (5, 8)])
            + h_class(0x300, 0, [])
            + h_instance(0x1000, 0x100, struct.pack(">I", 0x2000))
            + h_instance(0x2000, 0x200, struct.pack(">IB", 0x3000, 1))
            + b"\x23" + struct.pack(">IIIB", 0x3000, 0, len(text), 8) + text
            + h_instance(0x4000, 0x300, b"")
            + b"\x01" + struct.pack(">II", 0x1000, 0x9999)
            + b"\x01" + struct.pack(">II", 0x4000, 0x9999))
    return hprof4(recs, heap)


V8_META = ('{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],'
           '"node_types":[["hidden","array","string","object","code","closure","regexp",'
           '"number","native","synthetic"],"string","number","number","number"],'
           '"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context",'
           '"element","property","internal","hidden","shortcut","weak"],"string_or_number",'
           '"node"]},"node_count":%d,"edge_count":%d},\n"nodes":[%s],\n"edges":[%s],\n'
           '"strings":%s}')


def v8_chain(n):
    """Defects 4, 5, 7: the root holds node 1, each node the next by property "next"."""
    nodes = ["9,0,1,0,1"] + ["3,1,%d,16,%d" % (2 * k + 3, 0 if k + 1 == n else 1) for k in range(n)]
    edges = ["2,2,5"] + ["2,2,%d" % (5 * (k + 2)) for k in range(n - 1)]
    return (V8_META % (n + 1, n, ",".join(nodes), ",".join(edges),
                       json.dumps(["", "Link", "next"]))).encode()


def v8_names():
    """Defect 15: objects named EMOJI and ZALGO, and a string of both."""
    nodes = "9,0,1,0,3,3,1,3,40,0,3,2,5,40,0,2,3,7,24,0"
    edges = "2,4,5,2,4,10,2,4,15"
    return (V8_META % (4, 3, nodes, edges,
                       json.dumps(["", EMOJI, ZALGO, EMOJI + ZALGO, "p"]))).encode()


def dart_lstr(s):
    return uleb(len(s)) + s


def dart_classes(names):
    b = bytearray(b"dartheap") + uleb(0) + dart_lstr(b"main") + uleb(100) + uleb(200) + uleb(0)
    b += uleb(3 + len(names))
    for name, uri in [(b"Root", b""), (b"Read-Only Pages", b""), (b"Isolate", b"")] + names:
        b += uleb(0) + dart_lstr(name) + dart_lstr(b"") + dart_lstr(uri) + dart_lstr(b"") + uleb(0)
    return b


def dart_chain(n):
    """Defects 4, 5, 7: objects of class Foo each referring to the next."""
    b = dart_classes([(b"Foo", b"dart:core")])
    b += uleb(3 + n - 1) + uleb(3 + n)
    for c in (1, 2, 3):
        b += bytes([c, 0, 0, 1, 4])
    for k in range(n):
        b += bytes([4, 16, 0]) + (uleb(1) + uleb(5 + k) if k + 1 < n else uleb(0))
    return bytes(b + uleb(0))


def dart_bad_object(class_id, size):
    """Defect 16: a fourth object of class CLASS_ID (9: no class) or SIZE (2^64 - 1)."""
    b = dart_classes([(b"Foo", b"dart:core")])
    b += uleb(1) + uleb(5) + bytes([1, 0, 0, 1, 4, 2, 0, 0, 0, 3, 0, 0, 0])
    b += uleb(class_id) + uleb(size) + bytes([0, 0]) + bytes([4, 16, 0, 0])
    return bytes(b + uleb(0))


def dart_names():
    """Defect 15: classes named EMOJI and ZALGO (libraries too), an object of each."""
    b = dart_classes([(EMOJI.encode(), ZALGO.encode()), (ZALGO.encode(), EMOJI.encode())])
    b += uleb(2) + uleb(5)
    b += bytes([1, 0, 0, 2, 4, 5, 2, 0, 0, 0, 3, 0, 0, 0])
    b += bytes([4, 32, 0, 0, 5, 48, 0, 0])
    return bytes(b + uleb(0))


def go_bad_kind(seed):
    """Defect 16: the Go seed with the kind of its middle record set to 99."""
    p = seed.index(b"\n") + 1
    starts = []
    while p < len(seed):
        kind, end = go_record_end(seed, p)
        if kind == 0:
            break
        starts.append(p)
        p = end
    b = bytearray(seed)
    b[starts[len(starts) // 2]] = 99
    return bytes(b)


def zstd_blocks(parts):
    """A zstd frame (no content size, 1 MiB window) of raw and RLE blocks: each part is
    bytes (raw blocks) or (byte, count) (RLE blocks), so that a few bytes stand for
    megabytes without a compressor."""
    out = bytearray(b"\x28\xb5\x2f\xfd") + bytes([0x00, (20 - 10) << 3])
    blocks = []
    for part in parts:
        if isinstance(part, tuple):
            byte, count = part
            while count > 0:
                k = min(count, 1 << 17)
                blocks.append((1, k, bytes([byte])))
                count -= k
        else:
            for i in range(0, len(part), 1 << 17):
                c = part[i:i + (1 << 17)]
                blocks.append((0, len(c), c))
    blocks = blocks or [(0, 0, b"")]
    for k, (kind, size, body) in enumerate(blocks):
        last = 1 if k == len(blocks) - 1 else 0
        out += ((size << 3) | (kind << 1) | last).to_bytes(3, "little") + body
    return bytes(out)


def moar_v3_claiming(n, kinds_raw):
    """Defect 2: one snapshot whose columns claim N collectables in a few bytes (RLE
    blocks): the root, then objects of kind 0x0101 (an unknown kind) or, KINDS_RAW, of
    kind 1 (the colkind column then raw)."""
    name8 = lambda x: x.encode().ljust(8, b"\0")
    meta = lambda name, t: name8(name) + (len(t) + 1).to_bytes(8, "little") + t.encode() + b"\0"
    col = lambda name, size, parts: (name8(name) + size.to_bytes(2, "little")
                                     + (0).to_bytes(8, "little") + zstd_blocks(parts))

    def toc(at, entries):
        b = name8("toc") + len(entries).to_bytes(8, "little")
        for nm, a, e in entries:
            b += name8(nm) + a.to_bytes(8, "little") + e.to_bytes(8, "little")
        return b + at.to_bytes(8, "little")

    b = bytearray(b"MoarHeapDumpv003")
    fm = len(b)
    b += meta("filemeta", '{"subversion": 1, "start_time": 1000}')
    outer = [("filemeta", fm, len(b))]
    at = len(b)
    b += meta("snapmeta", '{"snap_time": 2000, "gc_seq_num": 0, "total_heap_size": 0, '
                          '"total_refs": 0}')
    kinds = [b"\x09\x00" + b"\x01\x00" * (n - 1)] if kinds_raw else [b"\x09\x00", (1, 2 * (n - 1))]
    b += col("colkind", 2, kinds)
    for name, size in (("colsize", 2), ("coltofi", 4), ("colrfcnt", 4), ("colrfstr", 8),
                       ("colusize", 8)):
        b += col(name, size, [(0, size * n)])
    b += col("refdescr", 8, []) + col("reftrget", 8, [])
    heap = b"".join(len(x).to_bytes(4, "little") + x for x in (b"P6opaque", b"Foo"))
    b += name8("strings") + (0).to_bytes(8, "little") + zstd_blocks([heap])
    b += col("reprname", 4, [(0).to_bytes(4, "little")])
    b += col("typename", 4, [(1).to_bytes(4, "little")])
    inner = len(b)
    b += toc(inner, [("snapmeta", at, at + 1)])
    outer.append(("toc", inner, len(b) - 8))
    end_at = len(b)
    b += toc(end_at, [])
    outer.append(("toc", end_at, len(b) - 8))
    b += toc(len(b), outer)
    return bytes(b)


def issue_28_seeds(out, go_small):
    """One seed (or a few) per shape of issue 28 that a reader sees; the gzip ones are
    added with the other gzip seeds."""
    h = os.path.join(out, "hprof")
    write(h, "seed-chain-5000", hprof_chain(5000))
    write(h, "seed-hierarchy-1000", hprof_hierarchy(1000))
    write(h, "seed-hierarchy-loop-300", hprof_hierarchy(300, loop=True))
    write(h, "seed-hostile-names", hprof_names())
    v = os.path.join(out, "v8")
    write(v, "seed-chain-3000", v8_chain(3000))
    write(v, "seed-hostile-names", v8_names())
    d = os.path.join(out, "dart")
    write(d, "seed-chain-10000", dart_chain(10000))
    write(d, "seed-bad-class-id", dart_bad_object(9, 16))
    write(d, "seed-hostile-names", dart_names())
    m = os.path.join(out, "moarvm")
    write(m, "seed-claims-rle-60000", moar_v3_claiming(60000, False))
    write(m, "seed-claims-objects-20000", moar_v3_claiming(20000, True))
    if go_small is not None:
        write(os.path.join(out, "go"), "seed-bad-kind", go_bad_kind(go_small))


# ---------------------------------------------------------------- issue 40's shapes

def hprof_many_classes(n):
    """Defect 4: N classes of four int fields and nothing else (their classes' memory
    is held to the budget)."""
    recs = [h_utf8(1 + f, b"field%d" % f) for f in range(4)]
    heap = bytearray()
    for k in range(n):
        cls = 0x100000 + 16 * k
        recs += [h_utf8(0x1000 + k, b"com/x/C%d" % k), h_load(k + 1, cls, 0x1000 + k)]
        heap += h_class(cls, 0, [(1 + f, 10) for f in range(4)])
    return hprof4(recs, bytes(heap))


def hprof_doubled(b):
    """Defect 6: every heap dump segment of B written twice (each object id repeats)."""
    return hprof_segments_as(b, lambda segs: [s for s in segs for _ in (0, 1)])


def hprof_segments_as(b, f):
    """B with its heap dump segments replaced, where the first one was, by F(segments)."""
    idz = struct.unpack(">I", b[b.index(0) + 1:b.index(0) + 5])[0]
    head = b.index(0) + 1 + 12
    recs, pos = [], head
    while pos + 9 <= len(b):
        n = struct.unpack(">I", b[pos + 5:pos + 9])[0]
        recs.append(b[pos:pos + 9 + n])
        pos += 9 + n
    segs = [r for r in recs if r[0] in (0x0C, 0x1C)]
    out, done = bytearray(b[:head]), False
    for r in recs:
        if r[0] in (0x0C, 0x1C):
            if not done:
                out += b"".join(f(segs))
                done = True
        else:
            out += r
    del idz
    return bytes(out)


def hprof_zeroed_middle(b):
    """Defect 8: the middle half of B's heap zeroed (an unknown sub-record tag 0)."""
    head = b.index(0) + 1 + 12
    pos = head
    while pos + 9 <= len(b):
        n = struct.unpack(">I", b[pos + 5:pos + 9])[0]
        if b[pos] in (0x0C, 0x1C) and n > 64:
            s = pos + 9
            return b[:s + n // 4] + bytes(n // 2) + b[s + n // 4 + n // 2:]
        pos += 9 + n
    return b


def v8_long_to_node():
    """Defect 8: a chain whose first edge's to_node has 20 digits."""
    t = v8_chain(50)
    i = t.index(b'"edges":[') + len(b'"edges":[')
    j = t.index(b",", t.index(b",", i) + 1) + 1
    k = j
    while t[k:k + 1].isdigit():
        k += 1
    return t[:j] + b"12345678901234567890" + t[k:]


def issue_40_seeds(out):
    """One seed per shape of issue 40 that a reader sees."""
    h = os.path.join(out, "hprof")
    chain = hprof_chain(2000)
    write(h, "seed-many-classes-3000", hprof_many_classes(3000))
    write(h, "seed-segments-doubled", hprof_doubled(chain))
    write(h, "seed-zeroed-middle", hprof_zeroed_middle(chain))
    write(os.path.join(out, "v8"), "seed-long-to-node", v8_long_to_node())


# ---------------------------------------------------------------- main

def write(d, name, data):
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def zstd_raw(data):
    """A zstd frame of raw (stored) blocks, no content size, 1 MiB window: what MoarVM's
    frames look like to a reader, without needing a compressor here."""
    out = bytearray(b"\x28\xb5\x2f\xfd")
    out += bytes([0x00, (20 - 10) << 3])
    chunks = [data[i:i + 65536] for i in range(0, len(data), 65536)] or [b""]
    for k, c in enumerate(chunks):
        last = 1 if k == len(chunks) - 1 else 0
        out += ((len(c) << 3) | last).to_bytes(3, "little")
        out += c
    return bytes(out)


def moar_v3(snapshots, seed):
    """A synthetic MoarVM v3 (MoarHeapDumpv003) file: SNAPSHOTS snapshots of a small heap
    with every kind of collectable (root, the root sets, objects, type objects, STables,
    frames) and references described by string and by index, laid out block by block as
    src/format/moarvm/v3.rs reads real files (tests/common/hostile.rs has the two-object
    version). The real fixtures are too big for a fuzzer's input."""
    import json
    import random
    rnd = random.Random(seed)
    name8 = lambda n: n.encode().ljust(8, b"\0")

    def meta(name, obj):
        t = json.dumps(obj).encode()
        return name8(name) + (len(t) + 1).to_bytes(8, "little") + t + b"\0"

    def column(name, size, values):
        data = b"".join((v & ((1 << (8 * size)) - 1)).to_bytes(size, "little") for v in values)
        return name8(name) + size.to_bytes(2, "little") + (0).to_bytes(8, "little") + zstd_raw(data)

    def toc(at, entries):
        b = name8("toc") + len(entries).to_bytes(8, "little")
        for n, a, e in entries:
            b += name8(n) + a.to_bytes(8, "little") + e.to_bytes(8, "little")
        return b + at.to_bytes(8, "little")

    strings = ["x", "P6opaque", "Foo", "Bar", "VMArray", "BOOTArray", "VMHash", "Hash",
               "name", "value", "main", "app.nqp", "<unit>", "helper", "cuid-1", "cuid-2",
               "Permanent roots", "\u00e9t\u00e9 \u2603"]
    sidx = {x: i for i, x in enumerate(strings)}
    types = [("P6opaque", "Foo"), ("P6opaque", "Bar"), ("VMArray", "BOOTArray"), ("VMHash", "Hash")]
    frames = [("main", "cuid-1", 3, "app.nqp"), ("helper", "cuid-2", 17, "app.nqp")]
    b = bytearray(b"MoarHeapDumpv003")
    fm = len(b)
    b += meta("filemeta", {"subversion": 1, "start_time": 1000})
    outer = [("filemeta", fm, len(b))]
    for snap in range(snapshots):
        # Collectables: 0 the root, 1-7 the root sets (kinds 5-11), then the heap.
        kinds = [9] + list(range(5, 12))
        tofi = [0] * 8
        n_heap = 12 + rnd.randrange(20) + 10 * snap
        for _ in range(n_heap):
            k = rnd.choice([1, 1, 1, 1, 2, 3, 4])
            kinds.append(k)
            tofi.append(rnd.randrange(len(frames)) if k == 4 else rnd.randrange(len(types)))
        n = len(kinds)
        sizes = [0] * 8 + [rnd.choice([16, 24, 48, 96, 200]) for _ in range(n_heap)]
        usizes = [0] * 8 + [rnd.choice([0, 0, 0, 64, 4096]) for _ in range(n_heap)]
        refs = []  # per collectable: [(desc, target)]
        for i in range(n):
            r = []
            if i == 0:
                r = [(1 | (k << 2), k) for k in range(1, 8)]
            elif i < 8:
                r = [(1 | (j << 2), rnd.randrange(8, n)) for j in range(rnd.randrange(1, 4))]
            else:
                for j in range(rnd.randrange(0, 4)):
                    desc = rnd.choice([2 | (sidx["name"] << 2), 2 | (sidx["value"] << 2),
                                       1 | (j << 2), 0])
                    r.append((desc, rnd.randrange(8, n)))
            refs.append(r)
        first, counts, descs, targets = [], [], [], []
        for r in refs:
            first.append(len(descs))
            counts.append(len(r))
            descs += [d for d, _ in r]
            targets += [t for _, t in r]
        at = len(b)
        b += meta("snapmeta", {"snap_time": 2000 + snap, "gc_seq_num": snap,
                               "total_heap_size": sum(sizes), "total_refs": len(descs)})
        for name, size, v in [("colkind", 2, kinds), ("colsize", 2, sizes), ("coltofi", 4, tofi),
                              ("colrfcnt", 4, counts), ("colrfstr", 8, first),
                              ("colusize", 8, usizes), ("refdescr", 8, descs),
                              ("reftrget", 8, targets)]:
            b += column(name, size, v)
        if snap == 0:
            heap = b"".join(len(x.encode()).to_bytes(4, "little") + x.encode() for x in strings)
            b += name8("strings") + (0).to_bytes(8, "little") + zstd_raw(heap)
            b += column("reprname", 4, [sidx[r] for r, _ in types])
            b += column("typename", 4, [sidx[t] for _, t in types])
            b += column("sfname", 4, [sidx[f[0]] for f in frames])
            b += column("sfcuid", 4, [sidx[f[1]] for f in frames])
            b += column("sfline", 4, [f[2] for f in frames])
            b += column("sffile", 4, [sidx[f[3]] for f in frames])
        inner = len(b)
        b += toc(inner, [("snapmeta", at, at + 1)])
        outer.append(("toc", inner, len(b) - 8))
    end_at = len(b)
    b += toc(end_at, [])
    outer.append(("toc", end_at, len(b) - 8))
    final_at = len(b)
    b += toc(final_at, outer)
    return bytes(b)


def uleb(v):
    out = bytearray()
    while True:
        b, v = v & 0x7F, v >> 7
        if v == 0:
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def dart_referencing(n, k, short, size=16):
    """A Dart snapshot: the three synthetic objects, then N objects of class Foo of SIZE
    bytes with K one-byte references each; the header's reference count SHORT less than
    there are."""
    lstr = lambda s: uleb(len(s)) + s
    cls = lambda name, uri: uleb(0) + lstr(name) + lstr(b"") + lstr(uri) + lstr(b"") + uleb(0)
    b = bytearray(b"dartheap") + uleb(0) + lstr(b"main") + uleb(100) + uleb(200) + uleb(0)
    b += uleb(4)
    for name, uri in ((b"Root", b""), (b"Read-Only Pages", b""), (b"Isolate", b""),
                      (b"Foo", b"dart:core")):
        b += cls(name, uri)
    b += uleb(3 + n * k - short) + uleb(3 + n)
    for c in (1, 2, 3):
        b += bytes([c, 0, 0, 1, 4])
    b += (bytes([4]) + uleb(size) + bytes([0]) + uleb(k) + bytes(4 + j % 100 for j in range(k))) * n
    return bytes(b + uleb(0))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "fuzz", "corpus")
    small = {}  # one small seed per format, for the gzip corpus

    hprofs = [("nocoops", gunzip("java/nocoops/heap-live.hprof.gz")),
              ("coops", gunzip("java/coops/heap-live-jvmgz.hprof.gz"))]
    for name in ("hprof/jdk8u-jhat-hprof-32.bin", "hprof/RI.hprof",
                 "android/leak_service_binder.hprof"):
        data = shared(name)
        if data is not None:
            hprofs.append((os.path.basename(name).split(".")[0], data))
    for name, data in hprofs:
        for budget, (names, heap) in (("s", (4000, 12000)), ("l", (20000, 80000))):
            for k, seed in enumerate(hprof_seeds(data, names, heap)):
                write(os.path.join(out, "hprof"), "seed-%s-%s%d" % (name, budget, k), seed)
                small.setdefault("hprof", seed)
        write(os.path.join(out, "hprof"), "seed-%s-cut" % name, data[:65536])
    # Issue 28, defect 1: thousands of empty heap dump segments, then some holding one
    # sub-record of an unknown tag and some one root each (one walk result per record
    # took 20 times the file's size).
    head = b"JAVA PROFILE 1.0.2\0" + struct.pack(">I", 8) + bytes(8)
    tiny = (hprof_record(0x1C, b"") * 3000
            + hprof_record(0x1C, b"\x77" + bytes(8)) * 300
            + hprof_record(0x1C, b"\xff" + struct.pack(">Q", 0x1000)) * 300)
    write(os.path.join(out, "hprof"), "seed-tiny-segments",
          head + tiny + hprof_record(0x2C, b""))

    v8s = [("node", gunzip("node/baseline.heapsnapshot.gz")),
           ("chromium", gunzip("chromium/detached.heapsnapshot.gz"))]
    with open(os.path.join(ROOT, "tests", "data", "v8-edge-cases.heapsnapshot"), "rb") as f:
        write(os.path.join(out, "v8"), "seed-edge-cases", f.read())
    # Issue 28, defect 3: minimal nodes (the most a byte can hold), a root with an edge
    # to each, and the counts of the header one short of the arrays.
    meta = ('{"snapshot":{"meta":{"node_fields":["type","name","id","self_size","edge_count"],'
            '"node_types":[["hidden","array","string","object","code","closure","regexp",'
            '"number","native","synthetic"],"string","number","number","number"],'
            '"edge_fields":["type","name_or_index","to_node"],"edge_types":[["context",'
            '"element","property","internal","hidden","shortcut","weak"],"string_or_number",'
            '"node"]},"node_count":%d,"edge_count":%d},\n"nodes":[9,0,1,0,%d%s],\n'
            '"edges":[%s],\n"strings":["a"]}')
    for n, short in ((3000, 0), (300, 1)):
        seed = meta % (n - short, n - 1 - short, n - 1, ",3,0,0,0,0" * (n - 1),
                       ",".join("1,%d,%d" % (k, 5 * (k + 1)) for k in range(n - 1)))
        write(os.path.join(out, "v8"), "seed-minimal-nodes-%d-%d" % (n, short), seed.encode())
    # Issue 28, defect 3: "object" listed 300 times in the meta, a node of each, and
    # many strings (a table of the strings per type was made for each).
    types = ",".join(['"object"'] * 300)
    seed = meta.replace('"node_types":[["hidden","array","string","object","code","closure",'
                        '"regexp","number","native","synthetic"]', '"node_types":[[%s]' % types)
    seed = seed.replace('"strings":["a"]', '"strings":[%s]' % ",".join('"%d"' % i for i in range(3000)))
    seed = seed % (301, 0, 0, "".join(",%d,%d,0,0,0" % (t, t) for t in range(300)), "")
    write(os.path.join(out, "v8"), "seed-repeated-types", seed.encode())
    # Issue 28, defect 16: a self_size of 20 digits.
    write(os.path.join(out, "v8"), "seed-twenty-digits",
          (meta % (2, 0, 0, ",3,0,0,12345678901234567890,0", "")).encode())
    for name, data in v8s:
        for n in (60, 300, 700):
            seed = v8_seed(data, n)
            write(os.path.join(out, "v8"), "seed-%s-%d" % (name, n), seed)
            if n == 300:
                small.setdefault("v8", seed)
        write(os.path.join(out, "v8"), "seed-%s-cut" % name, data[:65536])

    for name in ("heap.dump.gz", "heap-memprofile.dump.gz"):
        data = gunzip("go/" + name)
        stem = name.split(".")[0]
        for budget, (others, objs, skip) in (("s", (6000, 6000, 0.0)),
                                             ("l", (30000, 70000, 0.0)),
                                             ("m", (20000, 50000, 0.5))):
            seed = go_seed(data, others, objs, skip)
            write(os.path.join(out, "go"), "seed-%s-%s" % (stem, budget), seed)
            if budget == "s":
                small.setdefault("go", seed)
        write(os.path.join(out, "go"), "seed-%s-cut" % stem, data[:65536])

    # MoarVM: the hand-built hostile file, and the heads of the real v2 and v3 files (a
    # v3 head holds no whole snapshot, so it exercises the refusals and the zstd path).
    with open(os.path.join(ROOT, "fixtures", "moarvm", "zstd-bomb.mvmheap"), "rb") as f:
        write(os.path.join(out, "moarvm"), "seed-zstd-bomb", f.read())
    # Whole synthetic v3 files (one and three snapshots), which open: without them no
    # input reached the snapshot decoder, the graph or the walk.
    for snaps, seed in ((1, 1), (1, 2), (3, 3)):
        write(os.path.join(out, "moarvm"), "seed-synthetic-v3-%d-%d" % (snaps, seed),
              moar_v3(snaps, seed))
    for v in ("v2", "v3"):
        data = gunzip("moarvm/app-%s.mvmheap.gz" % v)
        for n in (16384, 65536, 131072):
            write(os.path.join(out, "moarvm"), "seed-%s-%d" % (v, n), data[:n])

    # Dart: heads of the real snapshots (a cut among the objects opens as far as whole).
    for name in ("before", "after"):
        data = gunzip("dart/%s.dartheap.gz" % name)
        for n in (8192, 32768, 131072):
            write(os.path.join(out, "dart"), "seed-%s-%d" % (name, n), data[:n])

    # Issue 28, defect 3: objects of one-byte references, the header's reference count
    # exact and one short.
    for short in (0, 1):
        write(os.path.join(out, "dart"), "seed-one-byte-references-%d" % short,
              dart_referencing(400, 50, short))
    # Issue 28, defect 16: a shallow size of 2^64 - 1 (it wrapped the totals).
    write(os.path.join(out, "dart"), "seed-size-2-64", dart_referencing(3, 1, 0, 2**64 - 1))

    issue_28_seeds(out, small.get("go"))
    issue_40_seeds(out)

    gz = os.path.join(out, "gzip")
    # Issue 28, defect 11: content that is no dump (a megabyte of zeros, text) is refused
    # from its first bytes, before the rest is decompressed.
    write(gz, "seed-zeros", gzip.compress(bytes(1 << 20), 9, mtime=0))
    write(gz, "seed-text", gzip.compress(b"not a heap dump\n" * 4096, 9, mtime=0))
    for fmt, seed in sorted(small.items()):
        one = gzip.compress(seed, 6, mtime=0)
        write(gz, "seed-%s" % fmt, one)
        # Several members, as HotSpot's `GC.heap_dump -gz` writes them.
        third = len(seed) // 3 + 1
        members = b"".join(gzip.compress(seed[i:i + third], 1, mtime=0)
                           for i in range(0, len(seed), third))
        write(gz, "seed-%s-members" % fmt, members)
        write(gz, "seed-%s-cut" % fmt, one[: len(one) * 2 // 3])


if __name__ == "__main__":
    main()
