'use strict';
// Streaming structural check of a V8 .heapsnapshot of any size (constant memory apart from
// one byte per node): reads the file once in 16 MiB chunks and checks that
//   - it starts with {"snapshot": and the meta gives node and edge field lists;
//   - "nodes" holds node_count * node_fields numbers, "edges" edge_count * edge_fields;
//   - the edge_count column sums to the number of edges;
//   - every to_node is a multiple of the node field count and below node_count * fields;
//   - every edge type is inside its type list (node types outside the list are only
//     counted: the older Chrome file in corpus/v8 has such nodes);
//   - every node name (and string-named edge name) indexes the strings table, whose
//     entries are counted (JSON strings, escapes honoured);
//   - the file ends with the closing "]}" after strings.
// Also prints the sum of self sizes (= the retained size of the synthetic root, when
// every node is attached to the dominator tree, as memlab does), the number of nodes no
// edge points at (besides node 0), and where each top-level section starts (byte offset).
//
// Usage: node bench/v8-validate.js SNAPSHOT      -> one JSON line; exit 1 on a problem
const fs = require('fs');

const file = process.argv[2];
if (!file) { console.error('usage: node bench/v8-validate.js SNAPSHOT'); process.exit(2); }
const fd = fs.openSync(file, 'r');
const size = fs.fstatSync(fd).size;
const CH = 16 << 20;
const buf = Buffer.allocUnsafe(CH);

// header: up to "nodes":[
let headBuf = Buffer.alloc(Math.min(size, 1 << 16));
fs.readSync(fd, headBuf, 0, headBuf.length, 0);
const head = headBuf.toString('latin1');
const problems = [];
if (!/^\s*\{"snapshot":/.test(head)) problems.push('does not start with {"snapshot":');
const ni = head.indexOf('"nodes":[');
const snapshot = JSON.parse(head.slice(head.indexOf('{"snapshot":') + 12, head.lastIndexOf('}', ni) + 1));
const meta = snapshot.meta;
const NF = meta.node_fields.length, EF = meta.edge_fields.length;
const nTypes = meta.node_types[meta.node_fields.indexOf('type')].length;
const eTypesList = meta.edge_types[meta.edge_fields.indexOf('type')];
const eTypes = eTypesList.length;
const oType = meta.node_fields.indexOf('type'), oName = meta.node_fields.indexOf('name');
const oSize = meta.node_fields.indexOf('self_size'), oEc = meta.node_fields.indexOf('edge_count');
const eType = meta.edge_fields.indexOf('type'), eName = meta.edge_fields.indexOf('name_or_index');
const eTo = meta.edge_fields.indexOf('to_node');
const numericEdge = new Set(['element', 'hidden'].map((t) => eTypesList.indexOf(t)));
const N = snapshot.node_count, E = snapshot.edge_count;

// streaming scanner state
let section = null;          // current top-level key
let inArray = false;
const offsets = {};
let num = 0, inNum = false, neg = false;
let fieldIdx = 0, count = 0;
let edgeSum = 0, selfTotal = 0, maxNameIdx = -1, maxEdgeNameIdx = -1;
let edgeRec = [0, 0, 0];
const badNodeTypes = {}; // real files do this: the older Chrome file in corpus/v8 has type 12 with 12 types
const referenced = new Uint8Array(N);
let strCount = 0, inStr = false, esc = false;
let keyBuf = '', collectingKey = false;
let depth = 0, done = false, tail = '';

function onNumber(v) {
    if (section === 'nodes') {
        const f = count % NF;
        if (f === oType && v >= nTypes) badNodeTypes[v] = (badNodeTypes[v] || 0) + 1;
        if (f === oName && v > maxNameIdx) maxNameIdx = v;
        if (f === oSize) selfTotal += v;
        if (f === oEc) edgeSum += v;
    } else if (section === 'edges') {
        const f = count % EF;
        edgeRec[f] = v;
        if (f === EF - 1) {
            const t = edgeRec[eType], to = edgeRec[eTo];
            if (t >= eTypes) problems.length < 20 && problems.push(`edge ${Math.floor(count / EF)}: type ${t}`);
            if (to % NF !== 0 || to >= N * NF) problems.length < 20 && problems.push(`edge ${Math.floor(count / EF)}: to_node ${to}`);
            else referenced[to / NF] = 1;
            if (!numericEdge.has(t) && edgeRec[eName] > maxEdgeNameIdx) maxEdgeNameIdx = edgeRec[eName];
        }
    }
    count++;
}

let pos = 0;
const t0 = Date.now();
while (pos < size && !done) {
    const n = fs.readSync(fd, buf, 0, CH, pos);
    for (let i = 0; i < n; i++) {
        const c = buf[i];
        if (inStr) {
            if (esc) { esc = false; continue; }
            if (c === 92) { esc = true; continue; }
            if (c === 34) {
                inStr = false;
                if (collectingKey) { collectingKey = false; }
                else if (section === 'strings' && inArray) strCount++;
                continue;
            }
            if (collectingKey && keyBuf.length < 64) keyBuf += String.fromCharCode(c);
            continue;
        }
        if (inArray && (section === 'nodes' || section === 'edges' || section === 'locations' ||
            section === 'trace_function_infos' || section === 'trace_tree' || section === 'samples')) {
            if (c >= 48 && c <= 57) { num = num * 10 + (c - 48); inNum = true; continue; }
            if (c === 45) { neg = true; continue; }
            if (inNum) { if (section === 'nodes' || section === 'edges') onNumber(neg ? -num : num); else count++; }
            inNum = false; num = 0; neg = false;
            if (c === 93) { // ]
                if (section === 'nodes' && count !== N * NF) problems.push(`nodes has ${count} numbers, expected ${N * NF}`);
                if (section === 'edges' && count !== E * EF) problems.push(`edges has ${count} numbers, expected ${E * EF}`);
                inArray = false; section = null; count = 0;
            }
            continue;
        }
        if (c === 34) { // "
            inStr = true;
            if (!inArray && depth === 1) { collectingKey = true; keyBuf = ''; }
            continue;
        }
        if (c === 123) { depth++; continue; }
        if (c === 125) {
            depth--;
            if (depth === 0) { done = true; tail = buf.toString('latin1', Math.max(0, i - 1), i + 1); }
            continue;
        }
        if (c === 91) { // [
            if (depth === 1 && !inArray && keyBuf) {
                section = keyBuf; inArray = true; count = 0; offsets[section] = pos + i - keyBuf.length - 3;
                keyBuf = '';
            } else if (section === 'strings' && inArray) problems.push('nested array in strings');
            continue;
        }
        if (c === 93 && section === 'strings' && inArray) { inArray = false; section = null; continue; }
    }
    pos += n;
}
fs.closeSync(fd);
if (!done) problems.push('no closing } at top level');
if (edgeSum !== E) problems.push(`edge_count column sums to ${edgeSum}, header says ${E}`);
if (maxNameIdx >= strCount) problems.push(`node name index ${maxNameIdx} >= ${strCount} strings`);
if (maxEdgeNameIdx >= strCount) problems.push(`edge name index ${maxEdgeNameIdx} >= ${strCount} strings`);
let unreferenced = 0;
for (let i = 1; i < N; i++) if (!referenced[i]) unreferenced++;
const out = {
    file, bytes: size, node_fields: NF, edge_fields: EF, nodes: N, edges: E, strings: strCount,
    node_types_outside_meta: badNodeTypes, self_size_total: selfTotal, nodes_without_referrer: unreferenced, section_offsets: offsets,
    seconds: (Date.now() - t0) / 1000, ok: problems.length === 0, problems,
};
console.log(JSON.stringify(out));
process.exit(problems.length ? 1 : 0);
