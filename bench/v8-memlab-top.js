'use strict';
// Top N objects by retained size of a V8 heap snapshot, as computed by memlab.
//
// Usage: node [--max-old-space-size=MB] bench/v8-memlab-top.js SNAPSHOT N [IDS]
//   SNAPSHOT  a .heapsnapshot file
//   N         how many objects to list (largest retained size first)
//   IDS       optional file of node ids (JSON array, or whitespace/comma separated):
//             their memlab figures are added under "lookup" (used by v8-compare.sh to
//             give memlab's retained size of ids that only the other tool listed)
//
// memlab is looked up in $MEMLAB_DIR (default /tmp/heaptui-bench/memlab, where
// `PUPPETEER_SKIP_DOWNLOAD=1 npm install memlab` was run), or anywhere on NODE_PATH.
//
// What is timed, with memlab's own functions (the same steps as @memlab/heap-analysis's
// getFullHeapFromFile, minus its shortest-path and React-Fiber annotations, which do not
// touch retained sizes):
//   seconds_load        @memlab/core utils.getSnapshotFromFile(file, {buildNodeIdIndex})
//                       = HeapParser.parse: reads the nodes/edges arrays into Uint32Arrays,
//                       JSON.parses the rest, builds the edge, referrer, id and location
//                       indexes (lib/heap-data/HeapSnapshot.js _buildMetaData).
//   seconds_dominators  new TraceFinder().calculateAllNodesRetainedSizes(snapshot)
//                       (paths/TraceFinder.js): page-owned flags, Lengauer-Tarjan
//                       dominators, retained sizes, stored per node.
// MEMLAB_FULL=1 also times annotateShortestPaths (seconds_shortest_paths), i.e. the
// whole of getFullHeapFromFile's analysis.
//
// Which nodes are listed: every node of the snapshot except the synthetic root (node 0,
// id 1), which is the root of memlab's dominator tree (its retained size is the sum of
// all self sizes, "total_bytes"); "(GC roots)", its "(...)" children and the other
// synthetic/hidden/array/code nodes ARE listed, because memlab gives each of them a
// dominator and a retained size like any other node. memlab's own "largest objects"
// report (`memlab analyze object-size`, PluginUtils.filterOutLargestObjects with
// isNodeWorthInspecting) hides more: ids <= 3, node types array/native/code/synthetic/
// hidden and the names (Startup object cache), (Global handles), (External strings),
// (Builtins). That filtered list is printed too, as "top_inspectable".
// Ties in retained size are broken by smaller id first.
//
// Output: one JSON document on stdout (memlab's progress messages are muted or sent to
// stderr). Names are memlab's node.name (it prefixes "Detached " to detached nodes).
const path = require('path');
const fs = require('fs');

const [file, nArg, idsFile] = process.argv.slice(2);
const N = Number(nArg);
if (!file || !Number.isInteger(N) || N < 1) {
    console.error('usage: node bench/v8-memlab-top.js SNAPSHOT N [IDS]');
    process.exit(2);
}
const memlabDir = process.env.MEMLAB_DIR || '/tmp/heaptui-bench/memlab';
function load(name) {
    try {
        return require(require.resolve(name, { paths: [memlabDir, path.join(memlabDir, 'node_modules')] }));
    } catch (e) {
        return require(name); // NODE_PATH
    }
}
const core = load('@memlab/core');
const corePkg = load('@memlab/core/package.json');

// memlab prints progress with its Console (stdout); keep stdout for our JSON only.
core.config.muteConsole = true;
const realWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

const NAME_BLOCK = new Set(['(Startup object cache)', '(Global handles)', '(External strings)', '(Builtins)']);
const TYPE_BLOCK = new Set(['array', 'native', 'code', 'synthetic', 'hidden']);
function inspectable(node) { // @memlab/heap-analysis PluginUtils.isNodeWorthInspecting
    return node.id > 3 && !TYPE_BLOCK.has(node.type) && !NAME_BLOCK.has(node.name);
}

// Bounded min-heap of [retained, id, ordinal]; "smaller" = less retained, then larger id.
class TopN {
    constructor(n) { this.n = n; this.a = []; }
    less(x, y) { return x[0] < y[0] || (x[0] === y[0] && x[1] > y[1]); }
    push(item) {
        const a = this.a;
        if (a.length < this.n) {
            a.push(item);
            let i = a.length - 1;
            while (i > 0) {
                const p = (i - 1) >> 1;
                if (!this.less(a[i], a[p])) break;
                [a[i], a[p]] = [a[p], a[i]]; i = p;
            }
        } else if (this.less(a[0], item)) {
            a[0] = item;
            let i = 0;
            for (;;) {
                const l = 2 * i + 1, r = l + 1;
                let m = i;
                if (l < a.length && this.less(a[l], a[m])) m = l;
                if (r < a.length && this.less(a[r], a[m])) m = r;
                if (m === i) break;
                [a[i], a[m]] = [a[m], a[i]]; i = m;
            }
        }
    }
    sorted() { return this.a.slice().sort((x, y) => (y[0] - x[0]) || (x[1] - y[1])); }
}

function describe(node) {
    const dom = node.dominatorNode;
    return {
        id: node.id,
        name: node.name,
        type: node.type,
        self_size: node.self_size,
        retained_size: node.retainedSize,
        dominator_id: dom ? dom.id : null,
    };
}

(async () => {
    const t0 = process.hrtime.bigint();
    const snapshot = await core.utils.getSnapshotFromFile(path.resolve(file), { buildNodeIdIndex: true });
    if (!snapshot) throw new Error('memlab could not parse ' + file);
    const t1 = process.hrtime.bigint();
    const finder = new core.TraceFinder();
    finder.calculateAllNodesRetainedSizes(snapshot);
    const t2 = process.hrtime.bigint();
    let tPaths = null;
    if (process.env.MEMLAB_FULL === '1') {
        finder.annotateShortestPaths(snapshot);
        tPaths = Number(process.hrtime.bigint() - t2) / 1e9;
    }

    const nodes = snapshot.nodes;
    const all = new TopN(N);
    const insp = new TopN(N);
    let selfTotal = 0;
    for (let i = 0; i < nodes.length; i++) {
        const node = nodes.get(i);
        selfTotal += node.self_size;
        if (i === 0) continue; // synthetic root = dominator tree root
        const item = [node.retainedSize, node.id, i];
        all.push(item);
        if (inspectable(node)) insp.push(item);
    }
    const root = nodes.get(0);
    const out = {
        tool: 'memlab',
        memlab_version: corePkg.version,
        file: path.resolve(file),
        seconds_load: Number(t1 - t0) / 1e9,
        seconds_dominators: Number(t2 - t1) / 1e9,
        ...(tPaths === null ? {} : { seconds_shortest_paths: tPaths }),
        nodes: nodes.length,
        edges: snapshot.edges.length,
        total_bytes: selfTotal,
        root: describe(root),
        top: all.sorted().map(([, , i]) => describe(nodes.get(i))),
        top_inspectable: insp.sorted().map(([, , i]) => describe(nodes.get(i))),
    };
    if (idsFile) {
        const text = fs.readFileSync(idsFile, 'utf8').trim();
        const ids = text.startsWith('[') ? JSON.parse(text) : text.split(/[\s,]+/).filter(Boolean).map(Number);
        out.lookup = {};
        for (const id of ids) {
            const node = snapshot.getNodeById(Number(id));
            out.lookup[id] = node ? describe(node) : null;
        }
    }
    process.stdout.write = realWrite;
    process.stdout.write(JSON.stringify(out) + '\n');
})().catch((e) => {
    process.stdout.write = realWrite;
    console.error('v8-memlab-top: ' + (e && e.stack ? e.stack : e));
    process.exit(1);
});
