'use strict';
// Checks and explains memlab's dominator tree on one V8 heap snapshot.
//
// Usage: node --max-old-space-size=16384 bench/v8-memlab-semantics.js SNAPSHOT
//   (memlab is found as in bench/v8-memlab-top.js: $MEMLAB_DIR or NODE_PATH)
//
// 1. Loads the file and computes dominators and retained sizes with memlab
//    (utils.getSnapshotFromFile + TraceFinder.calculateAllNodesRetainedSizes).
// 2. Independently of memlab's code (own loops over the raw nodes/edges arrays memlab
//    loaded), rebuilds the graph memlab's Lengauer-Tarjan runs on and classifies nodes:
//    - page-owned flag (TraceFinder.flagReachableNodesFromWindow): reachable from the
//      first node (the synthetic root) through its edges except shortcut edges and
//      element edges to "(Document DOM trees)", then through every non-weak edge;
//    - essential edge (TraceFinder.computeDominatorsAndRetainedSizes' isEssential):
//      not a self edge, not weak, not shortcut unless from the root, and not from a
//      non-page-owned node into a page-owned node unless from the root;
//    - step 1: reached from the root over essential edges;
//    - step 2: not reached, but reached from a node all of whose referrers are weak or
//      shortcut (Utils.hasOnlyWeakReferrers), these roots taken in node order;
//    - step 3: the rest (only referenced by other unreached nodes).
// 3. Computes dominators on that graph plus an edge root -> v for every node of step 2
//    and 3 that has no essential referrer, and root -> every step-3 node, with the
//    Cooper-Harvey-Kennedy iteration, and retained sizes as self_size summed over the
//    dominated subtree; then compares idom and retained size node by node with memlab's.
// Prints one JSON document: counts per class of node and edge, and the differences.
const path = require('path');

const file = process.argv[2];
if (!file) { console.error('usage: node bench/v8-memlab-semantics.js SNAPSHOT'); process.exit(2); }
const memlabDir = process.env.MEMLAB_DIR || '/tmp/heaptui-bench/memlab';
function load(name) {
    try { return require(require.resolve(name, { paths: [memlabDir, path.join(memlabDir, 'node_modules')] })); }
    catch (e) { return require(name); }
}
const core = load('@memlab/core');
core.config.muteConsole = true;
const realWrite = process.stdout.write.bind(process.stdout);
process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);

(async () => {
    const snap = await core.utils.getSnapshotFromFile(path.resolve(file), { buildNodeIdIndex: true });
    new core.TraceFinder().calculateAllNodesRetainedSizes(snap);

    const raw = snap.snapshot;
    const meta = raw.snapshot.meta;
    const NF = snap._nodeFieldsCount, EF = snap._edgeFieldsCount;
    const nodesA = raw.nodes, edgesA = raw.edges;
    const N = nodesA.length / NF, E = edgesA.length / EF;
    const nf = meta.node_fields;
    const oType = nf.indexOf('type'), oName = nf.indexOf('name'), oId = nf.indexOf('id');
    const oSize = nf.indexOf('self_size'), oEc = nf.indexOf('edge_count');
    const ef = meta.edge_fields; // memlab appended 'invisible' to this list; offsets still hold
    const eType = ef.indexOf('type'), eName = ef.indexOf('name_or_index'), eTo = ef.indexOf('to_node');
    const edgeTypes = meta.edge_types[eType];
    const nodeTypes = meta.node_types[oType];
    const T_WEAK = edgeTypes.indexOf('weak'), T_SHORT = edgeTypes.indexOf('shortcut');
    const T_ELEM = edgeTypes.indexOf('element');
    const N_SYNTH = nodeTypes.indexOf('synthetic');
    const strings = raw.strings;

    const first = new Uint32Array(N + 1);
    for (let i = 0, e = 0; i < N; i++) { first[i] = e; e += nodesA[i * NF + oEc]; }
    first[N] = E;
    const to = (e) => edgesA[e * EF + eTo] / NF;
    const et = (e) => edgesA[e * EF + eType];

    // page-owned flags
    const flag = new Uint8Array(N);
    const stack = new Uint32Array(N + 1);
    let sp = 0;
    for (let e = first[0]; e < first[1]; e++) {
        const w = to(e), t = et(e);
        if (t === T_ELEM) {
            if (nodesA[w * NF + oType] === N_SYNTH && strings[nodesA[w * NF + oName]] === '(Document DOM trees)') continue;
        } else if (t === T_SHORT) continue;
        stack[sp++] = w; flag[w] = 1;
    }
    while (sp > 0) {
        const v = stack[--sp];
        for (let e = first[v]; e < first[v + 1]; e++) {
            const w = to(e);
            if (flag[w] || et(e) === T_WEAK) continue;
            flag[w] = 1; stack[sp++] = w;
        }
    }
    const essential = (v, t, w) => v !== w && t !== T_WEAK && (t !== T_SHORT || v === 0) &&
        !(v !== 0 && flag[w] && !flag[v]);

    // edge census
    const census = {};
    for (const n of edgeTypes) census[n] = { all: 0, essential: 0 };
    let selfEdges = 0, pageOwnedCut = 0, rootShortcuts = 0;
    for (let v = 0; v < N; v++) {
        for (let e = first[v]; e < first[v + 1]; e++) {
            const w = to(e), t = et(e);
            census[edgeTypes[t]].all++;
            if (essential(v, t, w)) census[edgeTypes[t]].essential++;
            if (v === w) selfEdges++;
            if (v !== 0 && v !== w && t !== T_WEAK && (t !== T_SHORT) && flag[w] && !flag[v]) pageOwnedCut++;
            if (v === 0 && t === T_SHORT) rootShortcuts++;
        }
    }

    // reverse essential adjacency; count of all referrers that are not weak/shortcut
    const predCount = new Uint32Array(N + 1);
    const strongRef = new Uint8Array(N); // has a referrer whose type is not weak/shortcut
    for (let v = 0; v < N; v++) {
        for (let e = first[v]; e < first[v + 1]; e++) {
            const w = to(e), t = et(e);
            if (t !== T_WEAK && t !== T_SHORT) strongRef[w] = 1;
            if (essential(v, t, w)) predCount[w]++;
        }
    }
    const predStart = new Uint32Array(N + 1);
    for (let i = 0, s = 0; i < N; i++) { predStart[i] = s; s += predCount[i]; predStart[N] = s; }
    const preds = new Uint32Array(predStart[N]);
    const fill = predStart.slice(0, N);
    for (let v = 0; v < N; v++) {
        for (let e = first[v]; e < first[v + 1]; e++) {
            const w = to(e);
            if (essential(v, et(e), w)) preds[fill[w]++] = v;
        }
    }

    // DFS order as memlab: root, then weak-only orphans in node order, then the rest
    const step = new Uint8Array(N); // 0 = unvisited, 1, 2, 3
    const order = new Uint32Array(N); // preorder
    let n = 0;
    const cursor = new Uint32Array(N);
    const post = new Uint32Array(N); let pn = 0;
    function dfs(r, s) {
        let top = 0;
        stack[top++] = r; step[r] = s; order[n++] = r; cursor[r] = first[r];
        while (top > 0) {
            const v = stack[top - 1];
            let pushed = false;
            while (cursor[v] < first[v + 1]) {
                const e = cursor[v]++;
                const w = to(e);
                if (step[w] || !essential(v, et(e), w)) continue;
                step[w] = s; order[n++] = w; cursor[w] = first[w]; stack[top++] = w; pushed = true;
                break;
            }
            if (!pushed) { top--; post[pn++] = v; }
        }
    }
    dfs(0, 1);
    const reached1 = n;
    let orphanRoots = 0;
    for (let v = 0; v < N; v++) if (!step[v] && !strongRef[v]) { orphanRoots++; dfs(v, 2); }
    const reached2 = n - reached1;
    const step3 = [];
    for (let v = 0; v < N; v++) if (!step[v]) { step[v] = 3; order[n++] = v; post[pn++] = v; step3.push(v); }
    // extra root edges
    const rootEdge = new Uint8Array(N);
    let noEssentialRef = 0;
    for (let v = 1; v < N; v++) {
        if (predStart[v + 1] - predStart[v] === 0 || step[v] === 3) {
            rootEdge[v] = 1;
            if (predStart[v + 1] - predStart[v] === 0) noEssentialRef++;
        }
    }

    // Cooper-Harvey-Kennedy on reverse postorder
    const rpoNum = new Uint32Array(N); // higher = earlier in RPO? use postorder numbers
    for (let i = 0; i < N; i++) rpoNum[post[i]] = i; // root has the highest post number? not for multiple DFS trees
    // make the root the highest
    const rootPost = N; // virtual: treat root as N
    const pnum = (v) => (v === 0 ? rootPost : rpoNum[v]);
    const UNDEF = 0xffffffff;
    const idom = new Uint32Array(N).fill(UNDEF);
    idom[0] = 0;
    const intersect = (a, b) => {
        while (a !== b) {
            while (pnum(a) < pnum(b)) a = idom[a];
            while (pnum(b) < pnum(a)) b = idom[b];
        }
        return a;
    };
    let changed = true, rounds = 0;
    while (changed) {
        changed = false; rounds++;
        for (let i = N - 1; i >= 0; i--) {
            const b = post[i];
            if (b === 0) continue;
            let nd = rootEdge[b] ? 0 : UNDEF;
            for (let k = predStart[b]; k < predStart[b + 1]; k++) {
                const p = preds[k];
                if (idom[p] === UNDEF) continue;
                nd = nd === UNDEF ? p : intersect(p, nd);
            }
            if (nd !== UNDEF && idom[b] !== nd) { idom[b] = nd; changed = true; }
        }
    }
    // retained sizes: children after parents in a BFS of the tree; accumulate in reverse
    const retained = new Float64Array(N);
    for (let v = 0; v < N; v++) retained[v] = nodesA[v * NF + oSize];
    const kids = new Uint32Array(N + 1);
    for (let v = 1; v < N; v++) kids[idom[v]]++;
    const kStart = new Uint32Array(N + 1);
    for (let i = 0, s = 0; i < N; i++) { kStart[i] = s; s += kids[i]; kStart[N] = s; }
    const kList = new Uint32Array(N);
    const kf = kStart.slice(0, N);
    for (let v = 1; v < N; v++) kList[kf[idom[v]]++] = v;
    const bfs = new Uint32Array(N); let bn = 0; bfs[bn++] = 0;
    for (let i = 0; i < bn; i++) { const v = bfs[i]; for (let k = kStart[v]; k < kStart[v + 1]; k++) bfs[bn++] = kList[k]; }
    for (let i = bn - 1; i > 0; i--) { const v = bfs[i]; retained[idom[v]] += retained[v]; }

    // compare with memlab
    let idomDiff = 0, retDiff = 0;
    const examples = [];
    for (let v = 0; v < N; v++) {
        const node = snap.nodes.get(v);
        const mDom = node.dominatorNode ? node.dominatorNode.nodeIndex : -1;
        const mRet = node.retainedSize;
        const d1 = mDom !== idom[v], d2 = mRet !== Math.floor(retained[v]);
        if (d1) idomDiff++;
        if (d2) retDiff++;
        if ((d1 || d2) && examples.length < 20) {
            examples.push({ id: node.id, name: node.name, type: node.type, step: step[v],
                memlab_idom_id: mDom >= 0 ? nodesA[mDom * NF + oId] : null, check_idom_id: nodesA[idom[v] * NF + oId],
                memlab_retained: mRet, check_retained: retained[v] });
        }
    }
    const step3Named = step3.slice(0, 10).map((v) => ({ id: nodesA[v * NF + oId], name: strings[nodesA[v * NF + oName]],
        type: nodeTypes[nodesA[v * NF + oType]], self_size: nodesA[v * NF + oSize] }));
    let unflagged = 0;
    const unflaggedFirst = [];
    for (let v = 0; v < N; v++) {
        if (flag[v]) continue;
        unflagged++;
        if (unflaggedFirst.length < 10) unflaggedFirst.push({ id: nodesA[v * NF + oId], name: strings[nodesA[v * NF + oName]],
            type: nodeTypes[nodesA[v * NF + oType]], self_size: nodesA[v * NF + oSize], step: step[v] });
    }
    let step2Bytes = 0, step3Bytes = 0;
    for (let v = 0; v < N; v++) {
        if (step[v] === 2) step2Bytes += nodesA[v * NF + oSize];
        if (step[v] === 3) step3Bytes += nodesA[v * NF + oSize];
    }
    const out = {
        file: path.resolve(file), nodes: N, edges: E,
        root: { id: nodesA[oId], name: strings[nodesA[oName]], type: nodeTypes[nodesA[oType]] },
        not_page_owned_nodes: unflagged, not_page_owned_first: unflaggedFirst,
        edges_by_type: census, self_edges: selfEdges, root_shortcut_edges: rootShortcuts,
        edges_cut_by_page_owned_rule: pageOwnedCut,
        step1_reached_from_root: reached1,
        step2_weak_only_roots: orphanRoots, step2_nodes: reached2, step2_self_bytes: step2Bytes,
        step3_nodes: step3.length, step3_self_bytes: step3Bytes, step3_first: step3Named,
        nodes_without_essential_referrer: noEssentialRef,
        check: { algorithm: 'Cooper-Harvey-Kennedy', rounds, idom_differences: idomDiff,
            retained_differences: retDiff, examples },
    };
    process.stdout.write = realWrite;
    process.stdout.write(JSON.stringify(out, null, 1) + '\n');
})().catch((e) => { process.stdout.write = realWrite; console.error(e && e.stack || e); process.exit(1); });
