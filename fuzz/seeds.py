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

Plus, for every format, one plain prefix of the raw file (a truncated input). Runs in a
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

    gz = os.path.join(out, "gzip")
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
