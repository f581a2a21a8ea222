'use strict';
// Builds a realistic object graph in this Node process and writes a V8 heap snapshot
// of it with v8.writeHeapSnapshot(). Used by bench/gen-large-v8.sh; run it directly as
//
//   node --expose-gc --max-old-space-size=MB bench/gen-large-v8.js OUT UNITS [REPORT.json]
//
// UNITS is the number of "customers" to build (each brings ~30 snapshot nodes: its
// address, orders, line items, strings, a closure and its context, map entries...).
// gen-large-v8.sh calibrates UNITS from a requested node count. The program prints one
// JSON line on stdout with the build and snapshot times, the snapshot's node and edge
// counts (read back from the file's header) and its size.
//
// The graph (class names are the node names in the snapshot):
//   Store (global `heaptuiStore`)
//     .regions: Region[]            one Region per 1,000 customers
//        Region.byId: Map<number, Customer>
//        Region.vip: Set<Customer>   every 7th customer
//        Region.log: EventNode       doubly linked list, one event per 3 customers
//     .catalog: Product[]            2,000 shared products, each with a Category
//     .categories: Category          binary tree of 255 categories (depth 8)
//     .cities: string[]              60 shared city names
//     .tags: Tag[]                   40 shared tags
//     .blobs: ArrayBuffer-backed Uint8Arrays owned by one customer in 500
//   Customer { id, name, email, address, orders, tags, onChange (closure), meta }
//     Address { street (unique string), city (shared), zip }
//     orders: Order[] (0..5)  Order { id, total (heap number), items, customer, prev }
//        items: LineItem[] (1..4)   LineItem { product (shared), qty, note? }
//     onChange: closure capturing the customer and a private counter object
//     meta: plain object literal { created, flags: [..] }
//   plus some garbage made and dropped before the snapshot (collected by gc()).
const v8 = require('v8');
const fs = require('fs');

const out = process.argv[2];
const units = Number(process.argv[3]);
const report = process.argv[4];
if (!out || !Number.isInteger(units) || units < 0) {
    console.error('usage: node --expose-gc gen-large-v8.js OUT UNITS [REPORT.json]');
    process.exit(2);
}
if (typeof global.gc !== 'function') {
    console.error('gen-large-v8.js: run node with --expose-gc');
    process.exit(2);
}

// Deterministic PRNG (mulberry32) so two runs with the same UNITS give the same graph.
let seed = 0x9e3779b9;
function rnd() {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[(rnd() * a.length) | 0];

class Category {
    constructor(name, depth) {
        this.name = name;
        this.depth = depth;
        this.left = null;
        this.right = null;
    }
}
class Product {
    constructor(sku, title, price, category) {
        this.sku = sku;
        this.title = title;
        this.price = price;       // a double: a heap number
        this.category = category;
    }
}
class Tag {
    constructor(label) { this.label = label; this.uses = 0; }
}
class Address {
    constructor(street, city, zip) { this.street = street; this.city = city; this.zip = zip; }
}
class LineItem {
    constructor(product, qty) { this.product = product; this.qty = qty; }
}
class Order {
    constructor(id, customer, prev) {
        this.id = id;
        this.total = 0.5;
        this.items = [];
        this.customer = customer; // back edge: the order does not dominate its customer
        this.prev = prev;         // linked list of a customer's orders
    }
}
class Customer {
    constructor(id, name, email, address) {
        this.id = id;
        this.name = name;
        this.email = email;
        this.address = address;
        this.orders = [];
        this.tags = null;
        this.onChange = null;
        this.meta = null;
    }
}
class EventNode {
    constructor(kind, payload, prev) {
        this.kind = kind;
        this.payload = payload;
        this.prev = prev;
        this.next = null;
        if (prev) prev.next = this;
    }
}
class Region {
    constructor(code) {
        this.code = code;
        this.byId = new Map();
        this.vip = new Set();
        this.log = null;
        this.count = 0;
    }
}
class Store {
    constructor() {
        this.regions = [];
        this.catalog = [];
        this.categories = null;
        this.cities = [];
        this.tags = [];
        this.blobs = [];
        this.createdAt = new Date(0);
    }
}

function buildCategories(depth, prefix) {
    const c = new Category(prefix, depth);
    if (depth < 8) {
        c.left = buildCategories(depth + 1, prefix + 'L');
        c.right = buildCategories(depth + 1, prefix + 'R');
    }
    return c;
}
function allCategories(c, acc) {
    if (!c) return acc;
    acc.push(c);
    allCategories(c.left, acc);
    allCategories(c.right, acc);
    return acc;
}

function makeCustomer(store, region, id) {
    const name = `customer-${id}-${(rnd() * 1e6) | 0}`;
    const email = name + '@example.org';          // a concatenated (cons) string
    const address = new Address(`${id} ${pick(['Elm', 'Oak', 'Birch', 'Pine'])} Street`,
        pick(store.cities), 10000 + ((rnd() * 89999) | 0));
    const c = new Customer(id, name, email, address);
    const norders = (rnd() * 6) | 0;
    let prev = null;
    for (let k = 0; k < norders; k++) {
        const o = new Order(id * 8 + k, c, prev);
        const nitems = 1 + ((rnd() * 4) | 0);
        let total = 0;
        for (let j = 0; j < nitems; j++) {
            const p = pick(store.catalog);
            const li = new LineItem(p, 1 + ((rnd() * 9) | 0));
            if (rnd() < 0.1) li.note = 'gift wrap #' + id + '/' + k;
            total += li.qty * p.price;
            o.items.push(li);
        }
        o.total = total + 0.25;
        c.orders.push(o);
        prev = o;
    }
    if (rnd() < 0.5) c.tags = [pick(store.tags), pick(store.tags)];
    const counter = { changes: 0 };
    c.onChange = (field) => { counter.changes++; return c.id + ':' + field; };
    c.meta = { created: id * 1000, flags: [id % 2 === 0, id % 3 === 0] };
    if (id % 500 === 0) {
        const blob = new Uint8Array(1024 + (id % 4096));
        c.meta.blob = blob;
    }
    region.byId.set(id, c);
    if (id % 7 === 0) region.vip.add(c);
    if (id % 3 === 0) region.log = new EventNode('signup', c, region.log);
    region.count++;
    return c;
}

const t0 = process.hrtime.bigint();
const store = new Store();
globalThis.heaptuiStore = store;
for (let i = 0; i < 60; i++) store.cities.push('City of ' + ['North', 'South', 'East', 'West'][i % 4] + ' ' + i);
for (let i = 0; i < 40; i++) store.tags.push(new Tag('tag-' + i));
store.categories = buildCategories(0, 'cat');
const cats = allCategories(store.categories, []);
for (let i = 0; i < 2000; i++) {
    store.catalog.push(new Product('SKU' + (100000 + i), 'Product number ' + i, 1.5 + (i % 97) * 0.75, pick(cats)));
}
let region = null;
let garbage = [];
for (let id = 1; id <= units; id++) {
    if (region === null || region.count === 1000) {
        region = new Region('R' + store.regions.length);
        store.regions.push(region);
    }
    makeCustomer(store, region, id);
    if (id % 1000 === 0) {
        // Some short-lived garbage, dropped below.
        garbage.push({ tmp: 'scratch ' + id, arr: new Array(16).fill(id) });
        if (garbage.length > 50) garbage = [];
    }
}
garbage = null;
const t1 = process.hrtime.bigint();
global.gc();
global.gc();
const mem = process.memoryUsage();
const t2 = process.hrtime.bigint();
const file = v8.writeHeapSnapshot(out);
const t3 = process.hrtime.bigint();

// node_count and edge_count are in the first few hundred bytes of the file.
const fd = fs.openSync(file, 'r');
const head = Buffer.alloc(8192);
fs.readSync(fd, head, 0, head.length, 0);
fs.closeSync(fd);
const h = head.toString('latin1');
const nodeCount = Number((/"node_count":(\d+)/.exec(h) || [])[1]);
const edgeCount = Number((/"edge_count":(\d+)/.exec(h) || [])[1]);
const result = {
    file,
    units,
    customers: units,
    regions: store.regions.length,
    node_count: nodeCount,
    edge_count: edgeCount,
    bytes: fs.statSync(file).size,
    build_seconds: Number(t1 - t0) / 1e9,
    gc_seconds: Number(t2 - t1) / 1e9,
    snapshot_seconds: Number(t3 - t2) / 1e9,
    heap_used_bytes_before_snapshot: mem.heapUsed,
    rss_bytes_before_snapshot: mem.rss,
};
const line = JSON.stringify(result);
if (report) fs.writeFileSync(report, line + '\n');
console.log(line);
