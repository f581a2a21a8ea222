'use strict';
// Writes a 17-node V8 heap snapshot (Node 20 layout) whose graph holds the cases where
// dominator semantics differ between tools, to check an implementation against memlab:
//
//   node bench/v8-edge-cases.js OUT.heapsnapshot
//   bench/v8-compare.sh OUT.heapsnapshot       (or node bench/v8-memlab-top.js OUT 20)
//
// ids are 2 * index + 1; self size of an object = 100 + index (so every subtree sum is
// distinct). The graph:
//   root(@1) -element-> (GC roots)(@3) -element-> A(@7)
//   root -shortcut-> global(@5) -property-> A        (global is not page-owned: the flag
//                                                   pass skips root shortcuts, so this
//                                                   edge into page-owned A is ignored)
//   A -property-> B(@9) -property-> A (cycle), B -property-> C(@13)
//   A -weak-> W(@11)                   W is weakly reachable only
//   W -property-> WC(@15) -property-> WCC(@17); W -property-> B (weak-only into strong:
//                                                   ignored by memlab's page-owned rule)
//   X(@19) <-> Y(@21) -> Z(@23)        unreachable cycle with a child
//   O(@25) -> OC(@27)                  no referrer at all
//   SelfRef(@29) -> itself             only referrer is itself
//   A -shortcut-> ShortcutOnly(@31) -property-> SC(@33)   only a non-root shortcut refers
//
// memlab 2.0.5 gives (idom, retained): (GC roots) root 313; A (GC roots) 313; B A 210;
// C B 106; global root 102; W root 320; WC W 215; WCC WC 108; X root 109; Y root 110;
// Z root 111; O root 225; OC O 113; SelfRef root 114; ShortcutOnly root 231; SC
// ShortcutOnly 116; root 1635 (= all self sizes). See bench/v8-memlab-semantics.md.
const fs = require('fs');

const out = process.argv[2];
if (!out) { console.error('usage: node bench/v8-edge-cases.js OUT.heapsnapshot'); process.exit(2); }
const NODE_TYPES = ['hidden', 'array', 'string', 'object', 'code', 'closure', 'regexp', 'number',
    'native', 'synthetic', 'concatenated string', 'sliced string', 'symbol', 'bigint',
    'object shape', 'wasm object'];
const EDGE_TYPES = ['context', 'element', 'property', 'internal', 'hidden', 'shortcut', 'weak'];
const meta = {
    node_fields: ['type', 'name', 'id', 'self_size', 'edge_count', 'trace_node_id', 'detachedness'],
    node_types: [NODE_TYPES, 'string', 'number', 'number', 'number', 'number', 'number'],
    edge_fields: ['type', 'name_or_index', 'to_node'],
    edge_types: [EDGE_TYPES, 'string_or_number', 'node'],
    trace_function_info_fields: ['function_id', 'name', 'script_name', 'script_id', 'line', 'column'],
    trace_node_fields: ['id', 'function_info_index', 'count', 'size', 'children'],
    sample_fields: ['timestamp_us', 'last_assigned_id'],
    location_fields: ['object_index', 'script_id', 'line', 'column'],
};
const strings = ['<dummy>', ''];
const S = (s) => { let i = strings.indexOf(s); if (i < 0) { strings.push(s); i = strings.length - 1; } return i; };
const defs = [
    ['synthetic', '', [['element', 1, 1], ['shortcut', 'global', 2]]],
    ['synthetic', '(GC roots)', [['element', 1, 3]]],
    ['object', 'global', [['property', 'a', 3]]],
    ['object', 'A', [['property', 'b', 4], ['weak', 'w', 5], ['shortcut', 's', 15]]],
    ['object', 'B', [['property', 'a', 3], ['property', 'c', 6]]],
    ['object', 'W', [['property', 'wc', 7], ['property', 'b', 4]]],
    ['object', 'C', []],
    ['object', 'WC', [['property', 'x', 8]]],
    ['object', 'WCC', []],
    ['object', 'X', [['property', 'y', 10]]],
    ['object', 'Y', [['property', 'x', 9], ['property', 'z', 11]]],
    ['object', 'Z', []],
    ['object', 'O', [['property', 'oc', 13]]],
    ['object', 'OC', []],
    ['object', 'SelfRef', [['property', 'me', 14]]],
    ['object', 'ShortcutOnly', [['property', 'c', 16]]],
    ['object', 'SC', []],
];
const nodes = [], edges = [];
defs.forEach(([t, name, es], i) => {
    nodes.push(NODE_TYPES.indexOf(t), S(name), 2 * i + 1, t === 'synthetic' ? 0 : 100 + i, es.length, 0, 0);
    for (const [et, nm, to] of es) {
        edges.push(EDGE_TYPES.indexOf(et), et === 'element' || et === 'hidden' ? nm : S(nm), to * 7);
    }
});
const line = (a, k) => a.reduce((acc, v, i) => acc + (i === 0 ? '' : i % k === 0 ? '\n,' : ',') + v, '');
fs.writeFileSync(out,
    '{"snapshot":' + JSON.stringify({ meta, node_count: defs.length, edge_count: edges.length / 3, trace_function_count: 0 }) +
    ',\n"nodes":[' + line(nodes, 7) + '],\n"edges":[' + line(edges, 3) +
    '],\n"trace_function_infos":[],\n"trace_tree":[],\n"samples":[],\n"locations":[],\n"strings":[' +
    strings.map((s) => JSON.stringify(s)).join(',\n') + ']}');
console.log(out);
