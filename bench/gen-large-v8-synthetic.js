'use strict';
// Writes a large, valid V8 heap snapshot (.heapsnapshot, the layout Node 20 writes) without
// running a program that big: the graph is a deterministic function of the node index, and
// the file is streamed to disk in three passes (nodes, edges, then locations and strings)
// with O(1) memory. Made for files above 4 GiB (more than 2^32 bytes) that a real Node
// process could only produce with ~20 GB of RAM (see bench/gen-large-v8.sh).
//
// Usage: node bench/gen-large-v8-synthetic.js OUT.heapsnapshot [NODES_MILLIONS]
//   NODES_MILLIONS (default 65, decimals allowed): about how many nodes to write.
//   ~71 bytes of file per node (a real Node 20 file has ~84-86): 65 M nodes give ~4.6 GB
//   (4.6e9 bytes > 2^32), ~215 M edges, in ~95 s with ~100 MB of memory. Check a file
//   with bench/v8-validate.js (streaming, any size).
//   Progress and a summary (nodes, edges, bytes, seconds) go to stderr; the last line
//   on stdout is one JSON object with the same figures.
//
// The file matches Node 20's: the same meta (7 node fields, 16 node types, 7 edge types),
// the same key order (snapshot, nodes, edges, trace_function_infos, trace_tree, samples,
// locations, strings), one node / edge / location / string per line, each line after the
// first starting with a comma, strings[0] = "<dummy>", edges grouped by owner in node
// order, to_node and object_index = node index * 7, odd ids for heap objects and even ids
// for embedder nodes.
//
// The graph, modelled on what gen-large-v8.js builds in a real process:
//   synthetic root "" (id 1) --element--> "(GC roots)" --element--> (Internalized
//   strings), (Strong roots), (Stack roots), (Handle scope), (Builtins), (Global handles),
//   (Eternal handles), (Startup object cache); root --shortcut--> global object; root
//   --element--> "C++ roots", "Node / Environment" (embedder, even ids).
//   global.heaptuiStore = Store {regions: Array -> Region x R, catalog: Array -> Product x
//   2000, categories: Category binary tree (255), log: EventNode chain}
//   Region {customers: Array -> (object elements) -> Customer x 1000, first}
//   per customer (14 nodes): Customer {name, email (concatenated string), address,
//   orders: Array -> (object elements) -> Order x 2 (each with a heap-number total, a
//   shared Product, a back edge to the customer; the second links to the first),
//   onChange: closure -> Context {c: the customer, counter: Object}, tag (shared Tag),
//   next (the region's next customer), weak "cache" edge to a shared Product};
//   object shapes ("system / Map") shared per class, reached through "map" edges;
//   EventNode chain, one per 3 customers: next + payload (a long chain: deep DFS);
//   WeakCacheEntry objects, one per 10,000 customers, referenced only through weak edges
//   (weakly reachable), each holding an edge back into the strongly reachable heap.
const fs = require('fs');

const out = process.argv[2];
const millions = Number(process.argv[3] === undefined ? 65 : process.argv[3]);
if (!out || !(millions > 0)) {
    console.error('usage: node bench/gen-large-v8-synthetic.js OUT.heapsnapshot [NODES_MILLIONS]');
    process.exit(2);
}

// ---- meta, exactly as Node 20 (V8 11.3) writes it ----
const NODE_TYPES = ['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number',
    'native', 'synthetic', 'concatenated string', 'sliced string', 'symbol', 'bigint',
    'object shape', 'wasm object'];
const EDGE_TYPES = ['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'];
const META = {
    node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
    node_types: [NODE_TYPES, 'string', 'number', 'number', 'number', 'number', 'number'],
    edge_fields: ['type', 'name_or_index', 'to_node'],
    edge_types: [EDGE_TYPES, 'string_or_number', 'node'],
    trace_function_info_fields: ['function_id', 'name', 'script_name', 'script_id', 'line', 'column'],
    trace_node_fields: ['id', 'function_info_index', 'count', 'size', 'children'],
    sample_fields: ['timestamp_us', 'last_assigned_id'],
    location_fields: ['object_index', 'script_id', 'line', 'column'],
};
const NF = 7;
const T = Object.fromEntries(NODE_TYPES.map((t, i) => [t, i]));
const E = Object.fromEntries(EDGE_TYPES.map((t, i) => [t, i]));

// ---- string table: fixed part, then cities, then two unique strings per customer ----
const FIXED = ['<dummy>', '', '(GC roots)', '(Internalized strings)', '(Strong roots)', '(Stack roots)',
    '(Handle scope)', '(Builtins)', '(Global handles)', '(Eternal handles)', '(Startup object cache)',
    'C++ roots', 'Node / Environment', 'global', 'Store', 'Array', '(object elements)', 'system / Map',
    'Customer', 'Address', 'Order', 'Region', 'Product', 'Tag', 'Category', 'EventNode', 'WeakCacheEntry',
    'Object', 'system / Context', 'heap number', 'onChange', 'system / SharedFunctionInfo', '@example.org',
    // edge names
    'heaptuiStore', 'regions', 'catalog', 'categories', 'log', 'map', 'elements', 'customers', 'first',
    'code', 'name', 'email', 'address', 'orders', 'tag', 'next', 'cache', 'city', 'street', 'customer',
    'total', 'product', 'prev', 'context', 'shared', 'previous', 'c', 'counter', 'changes', 'label',
    'category', 'left', 'right', 'payload', 'owner', 'key', 'principal_realm', 'first', 'second',
    'cache_entry', 'global_proxy', 'process', '(Read-only roots)', 'system / FixedArray', 'properties'];
const S = {};
FIXED.forEach((s, i) => { if (!(s in S)) S[s] = i; });
const CITY0 = FIXED.length;
const NCITY = 60;
const cityName = (i) => `City of ${['North', 'South', 'East', 'West'][i % 4]} ${i}`;
const UNIQ0 = CITY0 + NCITY;

// ---- layout ----
const SUBROOTS = ['(Internalized strings)', '(Read-only roots)', '(Strong roots)', '(Stack roots)', '(Handle scope)',
    '(Builtins)', '(Global handles)', '(Eternal handles)', '(Startup object cache)'];
const SHAPES = ['Customer', 'Address', 'Array', 'Order', 'onChange', 'Object', 'heap number', 'Region',
    'Product', 'Tag', 'Category', 'EventNode', 'WeakCacheEntry', 'Store', 'global', 'system / Context'];
const U = 14;                 // nodes per customer
const PER_REGION = 1000;
const NTAG = 40, NCAT = 255, NPROD = 2000;

let n = 0;
const ROOT = n++, GCROOTS = n++;
const SUB0 = n; n += SUBROOTS.length;
const SUB = (name) => SUB0 + SUBROOTS.indexOf(name);
const CPP = n++, ENV = n++;
const GLOBAL = n++, STORE = n++, REG_ARR = n++, REG_ELEMS = n++, CAT_ARR = n++, CAT_ELEMS = n++;
const SHAPE0 = n; n += SHAPES.length;
const SHAPE = (name) => SHAPE0 + SHAPES.indexOf(name);
const SFI = n++, MODCTX = n++, EXAMPLE = n++, EMPTY = n++;
const CITY_N0 = n; n += NCITY;
const TAG0 = n; n += NTAG;
const CATN0 = n; n += NCAT;
const PROD0 = n; n += NPROD;
const PREFIX = n;

// solve units so that the total is about the requested node count
const want = Math.round(millions * 1e6);
// total = PREFIX + 3*R + U*units + ceil(units/3) + ceil(units/10000), R = ceil(units/1000)
let units = Math.max(1, Math.floor((want - PREFIX) / (U + 3 / PER_REGION + 1 / 3 + 1 / 10000)));
const R = Math.ceil(units / PER_REGION);
const REGION0 = PREFIX;            // 3 nodes per region: Region, Array, (object elements)
const UNIT0 = REGION0 + 3 * R;
const NEV = Math.ceil(units / 3);
const EV0 = UNIT0 + U * units;
const NWEAK = Math.ceil(units / 10000);
const WEAK0 = EV0 + NEV;
const NODES = WEAK0 + NWEAK;

// ---- one node at a time: fills cur* and the edge scratch ----
let cType = 0, cName = 0, cId = 0, cSize = 0, ne = 0;
let eT = new Int32Array(4096), eN = new Int32Array(4096), eTo = new Int32Array(4096);
function grow(a) { const b = new Int32Array(a.length * 2); b.set(a); return b; }
function edge(type, nameOrIndex, to) {
    if (ne === eT.length) { eT = grow(eT); eN = grow(eN); eTo = grow(eTo); } // regions array: > 4096 edges
    eT[ne] = type; eN[ne] = nameOrIndex; eTo[ne] = to; ne++;
}
const prop = (name, to) => edge(E.property, S[name], to);
const internal = (name, to) => edge(E.internal, S[name], to);
function node(type, name, size, i) { cType = type; cName = name; cSize = size; cId = 2 * i + 1; ne = 0; }
const strSize = (len) => 16 + Math.ceil(len / 8) * 8;
const customerOf = (u) => UNIT0 + U * u;

function gen(i) {
    if (i >= UNIT0 && i < EV0) {
        const u = Math.floor((i - UNIT0) / U), k = (i - UNIT0) % U, b = customerOf(u);
        switch (k) {
        case 0: { // Customer
            node(T.object, S.Customer, 72, i);
            internal('map', SHAPE('Customer')); internal('properties', EMPTY); internal('elements', EMPTY);
            prop('name', b + 1); prop('email', b + 13); prop('address', b + 2); prop('orders', b + 3);
            prop('tag', TAG0 + (u % NTAG)); prop('onChange', b + 7);
            if ((u + 1) % PER_REGION !== 0 && u + 1 < units) prop('next', customerOf(u + 1));
            edge(E.weak, S.cache, PROD0 + ((u * 7) % NPROD));
            if (u % 10000 === 0) edge(E.weak, S.cache_entry, WEAK0 + u / 10000);
            return;
        }
        case 1: node(T.string, UNIQ0 + 2 * u, strSize(`customer-${u}`.length), i); return;
        case 2:
            node(T.object, S.Address, 40, i);
            internal('map', SHAPE('Address')); internal('properties', EMPTY); prop('city', CITY_N0 + (u % NCITY)); prop('street', b + 8);
            return;
        case 3: node(T.object, S.Array, 32, i); internal('map', SHAPE('Array')); internal('elements', b + 4); return;
        case 4: node(T.array, S['(object elements)'], 32, i); edge(E.element, 0, b + 5); edge(E.element, 1, b + 6); return;
        case 5: case 6:
            node(T.object, S.Order, 56, i);
            internal('map', SHAPE('Order')); internal('properties', EMPTY); internal('elements', EMPTY); prop('customer', b); prop('total', b + 4 + k);
            prop('product', PROD0 + ((u * 13 + k) % NPROD));
            if (k === 6) prop('prev', b + 5);
            return;
        case 7:
            node(T.closure, S.onChange, 64, i);
            internal('map', SHAPE('onChange')); internal('context', b + 11); internal('shared', SFI);
            return;
        case 8: node(T.string, UNIQ0 + 2 * u + 1, strSize(`${u} Elm Street`.length), i); return;
        case 9: case 10: node(T.number, S['heap number'], 16, i); internal('map', SHAPE('heap number')); return;
        case 11:
            node(T.object, S['system / Context'], 56, i);
            internal('map', SHAPE('system / Context'));
            edge(E.context, S.c, b); edge(E.context, S.counter, b + 12); internal('previous', MODCTX);
            return;
        case 12: node(T.object, S.Object, 32, i); internal('map', SHAPE('Object')); internal('properties', EMPTY); return;
        case 13:
            node(T['concatenated string'], UNIQ0 + 2 * u, 32, i);
            internal('first', b + 1); internal('second', EXAMPLE);
            return;
        }
    }
    if (i >= REGION0 && i < UNIT0) {
        const r = Math.floor((i - REGION0) / 3), k = (i - REGION0) % 3;
        const c0 = r * PER_REGION, c1 = Math.min(units, c0 + PER_REGION);
        if (k === 0) {
            node(T.object, S.Region, 56, i);
            internal('map', SHAPE('Region')); prop('customers', i + 1); prop('first', customerOf(c0));
            prop('code', CITY_N0 + (r % NCITY));
        } else if (k === 1) {
            node(T.object, S.Array, 32, i); internal('map', SHAPE('Array')); internal('elements', i + 1);
        } else {
            node(T.array, S['(object elements)'], 16 + 8 * (c1 - c0), i);
            for (let c = c0; c < c1; c++) edge(E.element, c - c0, customerOf(c));
        }
        return;
    }
    if (i >= EV0 && i < WEAK0) {
        const k = i - EV0;
        node(T.object, S.EventNode, 48, i);
        internal('map', SHAPE('EventNode')); internal('properties', EMPTY);
        if (k + 1 < NEV) prop('next', i + 1);
        prop('payload', customerOf(Math.min(units - 1, 3 * k)));
        return;
    }
    if (i >= WEAK0) {
        const k = i - WEAK0;
        node(T.object, S.WeakCacheEntry, 40, i);
        internal('map', SHAPE('WeakCacheEntry'));
        prop('owner', customerOf(k * 10000)); prop('key', CITY_N0 + (k % NCITY));
        return;
    }
    if (i >= CITY_N0 && i < CITY_N0 + NCITY) {
        node(T.string, CITY0 + (i - CITY_N0), strSize(cityName(i - CITY_N0).length), i); return;
    }
    if (i >= TAG0 && i < TAG0 + NTAG) {
        node(T.object, S.Tag, 32, i); internal('map', SHAPE('Tag')); prop('label', CITY_N0 + (i - TAG0)); return;
    }
    if (i >= CATN0 && i < CATN0 + NCAT) {
        const c = i - CATN0; // heap-ordered binary tree: children 2c+1, 2c+2
        node(T.object, S.Category, 48, i); internal('map', SHAPE('Category'));
        if (2 * c + 1 < NCAT) prop('left', CATN0 + 2 * c + 1);
        if (2 * c + 2 < NCAT) prop('right', CATN0 + 2 * c + 2);
        return;
    }
    if (i >= PROD0 && i < PROD0 + NPROD) {
        const p = i - PROD0;
        node(T.object, S.Product, 48, i); internal('map', SHAPE('Product'));
        prop('category', CATN0 + (p % NCAT)); prop('label', CITY_N0 + (p % NCITY));
        return;
    }
    if (i >= SHAPE0 && i < SHAPE0 + SHAPES.length) { node(T['object shape'], S['system / Map'], 80, i); return; }
    if (i >= SUB0 && i < SUB0 + SUBROOTS.length) {
        const name = SUBROOTS[i - SUB0];
        node(T.synthetic, S[name], 0, i);
        if (name === '(Internalized strings)') {
            for (let c = 0; c < NCITY; c++) edge(E.element, c, CITY_N0 + c);
            edge(E.element, NCITY, EXAMPLE);
        } else if (name === '(Read-only roots)') {
            edge(E.element, 0, EMPTY);
        } else if (name === '(Strong roots)') {
            for (let s = 0; s < SHAPES.length; s++) edge(E.element, s, SHAPE0 + s);
        } else if (name === '(Stack roots)') {
            edge(E.element, 0, STORE);
        } else if (name === '(Builtins)') {
            edge(E.element, 0, SFI);
        } else if (name === '(Global handles)') {
            edge(E.element, 0, GLOBAL);
        }
        return;
    }
    switch (i) {
    case ROOT:
        node(T.synthetic, S[''], 0, i);
        edge(E.element, 1, GCROOTS); edge(E.shortcut, S.global, GLOBAL);
        edge(E.element, 2, CPP); edge(E.element, 3, ENV);
        return;
    case GCROOTS:
        node(T.synthetic, S['(GC roots)'], 0, i);
        for (let s = 0; s < SUBROOTS.length; s++) edge(E.element, s + 1, SUB0 + s);
        return;
    case CPP: node(T.synthetic, S['C++ roots'], 0, i); cId = 1779229696; return;
    case ENV: node(T.synthetic, S['Node / Environment'], 2568, i); cId = 1779357376; internal('principal_realm', GLOBAL); return;
    case GLOBAL:
        node(T.object, S.global, 40, i); internal('map', SHAPE('global'));
        prop('heaptuiStore', STORE); prop('global', GLOBAL);
        return;
    case STORE:
        node(T.object, S.Store, 64, i); internal('map', SHAPE('Store'));
        prop('regions', REG_ARR); prop('catalog', CAT_ARR); prop('categories', CATN0); prop('log', EV0);
        return;
    case REG_ARR: node(T.object, S.Array, 32, i); internal('map', SHAPE('Array')); internal('elements', REG_ELEMS); return;
    case REG_ELEMS:
        node(T.array, S['(object elements)'], 16 + 8 * R, i);
        for (let r = 0; r < R; r++) edge(E.element, r, REGION0 + 3 * r);
        return;
    case CAT_ARR: node(T.object, S.Array, 32, i); internal('map', SHAPE('Array')); internal('elements', CAT_ELEMS); return;
    case CAT_ELEMS:
        node(T.array, S['(object elements)'], 16 + 8 * NPROD, i);
        for (let p = 0; p < NPROD; p++) edge(E.element, p, PROD0 + p);
        return;
    case SFI: node(T.code, S['system / SharedFunctionInfo'], 56, i); return;
    case MODCTX: node(T.object, S['system / Context'], 72, i); internal('map', SHAPE('system / Context')); return;
    case EXAMPLE: node(T.string, S['@example.org'], strSize(12), i); return;
    case EMPTY: node(T.array, S['system / FixedArray'], 16, i); return;
    }
    throw new Error('no node ' + i);
}

// ---- buffered writer with hand-rolled integer formatting ----
const fd = fs.openSync(out, 'w');
const BUF = Buffer.allocUnsafe(16 << 20);
let pos = 0, written = 0;
function flush() { let off = 0; while (off < pos) off += fs.writeSync(fd, BUF, off, pos - off); written += pos; pos = 0; }
function raw(s) { if (pos + s.length * 3 > BUF.length) flush(); pos += BUF.write(s, pos); }
function ch(c) { if (pos + 1 > BUF.length) flush(); BUF[pos++] = c; }
const digits = new Uint8Array(24);
function num(v) {
    if (pos + 24 > BUF.length) flush();
    if (v === 0) { BUF[pos++] = 48; return; }
    let d = 0;
    while (v > 0) { const q = Math.floor(v / 10); digits[d++] = 48 + (v - q * 10); v = q; }
    while (d > 0) BUF[pos++] = digits[--d];
}
const COMMA = 44, NL = 10;

const t0 = Date.now();
let edgeCount = 0;
for (let i = 0; i < NODES; i++) { gen(i); edgeCount += ne; }
const header = { meta: META, node_count: NODES, edge_count: edgeCount, trace_function_count: 0 };
raw('{"snapshot":' + JSON.stringify(header) + ',\n"nodes":[');
const progress = (what, i, total) => {
    if ((i & 0xfffff) === 0) process.stderr.write(`\r${what} ${(100 * i / total).toFixed(0)}%   `);
};
for (let i = 0; i < NODES; i++) {
    progress('nodes', i, NODES);
    gen(i);
    if (i > 0) { ch(NL); ch(COMMA); }
    num(cType); ch(COMMA); num(cName); ch(COMMA); num(cId); ch(COMMA); num(cSize); ch(COMMA);
    num(ne); ch(COMMA); ch(48); ch(COMMA); ch(48);
}
raw('],\n"edges":[');
let firstEdge = true;
for (let i = 0; i < NODES; i++) {
    progress('edges', i, NODES);
    gen(i);
    for (let k = 0; k < ne; k++) {
        if (!firstEdge) { ch(NL); ch(COMMA); }
        firstEdge = false;
        num(eT[k]); ch(COMMA); num(eN[k]); ch(COMMA); num(eTo[k] * NF);
    }
}
raw('],\n"trace_function_infos":[],\n"trace_tree":[],\n"samples":[],\n"locations":[');
// one location per closure (object_index, script_id, line, column), as Node writes them
for (let u = 0; u < units; u++) {
    if (u > 0) { ch(NL); ch(COMMA); }
    num((customerOf(u) + 7) * NF); ch(COMMA); num(77); ch(COMMA); num(200); ch(COMMA); num(24);
}
raw('],\n"strings":[');
const q = (s) => JSON.stringify(s);
for (let s = 0; s < FIXED.length; s++) raw((s > 0 ? ',\n' : '') + q(FIXED[s]));
for (let c = 0; c < NCITY; c++) raw(',\n' + q(cityName(c)));
for (let u = 0; u < units; u++) {
    progress('strings', u, units);
    raw(',\n' + q(`customer-${u}`) + ',\n' + q(`${u} Elm Street`));
}
raw(']}');
flush();
fs.closeSync(fd);
const seconds = (Date.now() - t0) / 1000;
const result = { file: out, nodes: NODES, edges: edgeCount, customers: units, regions: R, bytes: written, seconds };
process.stderr.write(`\rwrote ${out}: ${NODES} nodes, ${edgeCount} edges, ${written} bytes ` +
    `(${(written / NODES).toFixed(1)} bytes/node) in ${seconds.toFixed(1)} s\n`);
console.log(JSON.stringify(result));
