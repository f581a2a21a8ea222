//! `dominators`: the dominator tree from the top (nested as deep as `--depth`), or with
//! `--flat` the objects with the largest retained sizes anywhere in it.

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

use super::SchemaVersion;
use crate::format::Snapshot;
use crate::heap::dominators::{Dominators as Tree, VIRTUAL_ROOT};
use crate::heap::ObjId;

/// The `dominators` document: the tree, or (`--flat`) the largest objects.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum Dominators {
    Tree(DominatorTree),
    Flat(LargestObjects),
}

/// `dominators`: the immediate children of the virtual root above all GC roots, largest
/// retained first, each with its own children while `--depth` allows.
#[derive(Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DominatorTree {
    pub schema_version: SchemaVersion,
    pub objects: DominatorForest,
    pub reachable_objects: u64,
    pub total_retained_bytes: u64,
    pub weakly_reachable_objects: u64,
}

/// One object of the tree, without its children. `dominated` is how many children it
/// has in the dominator tree (also where `--depth` stops the listing); `root` the kinds
/// of GC root it is, `"weakly reachable"`, or `"held by several GC roots"`.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DominatorObject {
    pub class: String,
    pub dominated: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub label: Option<String>,
    pub object: String,
    pub retained_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub root: Option<String>,
    pub shallow_bytes: u64,
}

/// The nodes shown, in preorder with their levels (0 at the top): flat, so that a tree
/// 200,000 levels deep is built and dropped without recursion. Serialised nested, each
/// node above the last level with a `"children"` array; serde's nesting is recursion,
/// so a deep one is written on a stack sized by [`DominatorForest::stack_bytes`].
pub struct DominatorForest {
    pub nodes: Vec<DominatorObject>,
    pub levels: Vec<usize>,
    /// Levels shown: nodes above the last carry `children`.
    pub depth: usize,
    /// Per node, the index after its subtree.
    ends: Vec<usize>,
}

impl DominatorForest {
    fn new(nodes: Vec<DominatorObject>, levels: Vec<usize>, depth: usize) -> DominatorForest {
        let n = levels.len();
        let mut ends = vec![n; n];
        let mut open: Vec<usize> = Vec::new();
        for (i, &l) in levels.iter().enumerate() {
            while let Some(&top) = open.last() {
                if levels[top] < l {
                    break;
                }
                ends[top] = i;
                open.pop();
            }
            open.push(i);
        }
        DominatorForest {
            nodes,
            levels,
            depth,
            ends,
        }
    }

    /// The children of node `i` (of the virtual root for `None`), in order.
    pub fn children(&self, i: Option<usize>) -> impl Iterator<Item = usize> + '_ {
        let (mut j, end) = match i {
            Some(i) => (i + 1, self.ends[i]),
            None => (0, self.nodes.len()),
        };
        std::iter::from_fn(move || {
            (j < end).then(|| {
                let k = j;
                j = self.ends[k];
                k
            })
        })
    }

    /// The deepest level shown, plus one (0 when empty).
    pub fn height(&self) -> usize {
        self.levels.iter().max().map_or(0, |l| l + 1)
    }

    /// A stack that serialising this forest fits in: serde recurses a few frames per
    /// level (a chain 100,000 deep needed between 1 and 1.25 KiB per level in a debug
    /// build); 4 KiB a level, which is only address space until it is touched.
    pub fn stack_bytes(&self) -> usize {
        (8 << 20) + self.height() * 4096
    }
}

struct Node<'a>(&'a DominatorForest, usize);
struct Kids<'a>(&'a DominatorForest, Option<usize>);

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let Node(f, i) = *self;
        let n = &f.nodes[i];
        let kids = f.levels[i] + 1 < f.depth;
        let mut st = s.serialize_struct("DominatorNode", 7 + kids as usize)?;
        st.serialize_field("class", &n.class)?;
        st.serialize_field("dominated", &n.dominated)?;
        if let Some(l) = &n.label {
            st.serialize_field("label", l)?;
        }
        st.serialize_field("object", &n.object)?;
        st.serialize_field("retained_bytes", &n.retained_bytes)?;
        if let Some(r) = &n.root {
            st.serialize_field("root", r)?;
        }
        st.serialize_field("shallow_bytes", &n.shallow_bytes)?;
        if kids {
            st.serialize_field("children", &Kids(f, Some(i)))?;
        }
        st.end()
    }
}

impl Serialize for Kids<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.children(self.1).map(|k| Node(self.0, k)))
    }
}

impl Serialize for DominatorForest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        Kids(self, None).serialize(s)
    }
}

// What a node of `DominatorForest` is serialised as: a type for the schema only.
/// One object of the dominator tree, with its children on the levels above the last one
/// shown.
#[derive(JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct DominatorNode {
    class: String,
    dominated: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    label: Option<String>,
    object: String,
    retained_bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    root: Option<String>,
    shallow_bytes: u64,
    /// The object's largest children in the dominator tree, on the levels above the
    /// last one shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<DominatorNode>")]
    children: Option<Vec<DominatorNode>>,
}

impl JsonSchema for DominatorForest {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DominatorForest".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(g: &mut SchemaGenerator) -> Schema {
        <Vec<DominatorNode>>::json_schema(g)
    }
}

/// The kinds of GC root `o` is; else whether only weak references reach it or several
/// roots hold it.
pub fn root_words(snap: &Snapshot, d: &Tree, o: ObjId) -> Option<String> {
    let roots = snap.graph.roots_of(o);
    if !roots.is_empty() {
        let mut kinds: Vec<&str> = roots.iter().map(|r| r.kind.name()).collect();
        kinds.dedup();
        return Some(kinds.join(", "));
    }
    if d.is_weakly_reachable(o) {
        return Some("weakly reachable".to_string());
    }
    (d.idom(o) == Some(VIRTUAL_ROOT)).then(|| "held by several GC roots".to_string())
}

/// The part of the dominator tree that `dominators` prints: for the virtual root and every
/// object shown above the last level, its `top` largest children and how many it has
/// (and the count alone for the last level). One scan of the tree per level
/// ([`Tree::top_children`]), not the children lists.
type Shown = crate::heap::index::IdMap<(Vec<ObjId>, usize)>;

fn shown_tree(d: &Tree, top: usize, depth: usize) -> Shown {
    let mut shown = Shown::default();
    let mut level = vec![VIRTUAL_ROOT];
    // A scan of every object per level is cheaper than the children lists for the few
    // levels people print; a deep tree (a long chain) takes the lists, built once, or
    // its levels' scans make it quadratic.
    let deep = depth > 4;
    for _ in 0..=depth {
        if level.is_empty() {
            break;
        }
        let kids: Vec<(Vec<ObjId>, usize)> = if deep {
            level
                .iter()
                .map(|&p| {
                    let c = d.children(p);
                    (c.iter().take(top).copied().collect(), c.len())
                })
                .collect()
        } else {
            d.top_children(&level, top)
        };
        let mut next = Vec::new();
        for (&p, (k, count)) in level.iter().zip(kids) {
            next.extend_from_slice(&k);
            shown.insert(p as u64, (k, count));
        }
        level = next;
    }
    shown
}

fn kids_of(shown: &Shown, o: ObjId) -> (&[ObjId], usize) {
    shown
        .get(&(o as u64))
        .map_or((&[], 0), |(k, c)| (&k[..], *c))
}

impl DominatorTree {
    /// The tree from the top: `top` children per object, `depth` levels (at least 1).
    pub fn of(snap: &Snapshot, d: &Tree, top: usize, depth: usize) -> DominatorTree {
        let depth = depth.max(1);
        let shown = shown_tree(d, top, depth);
        let (mut nodes, mut levels) = (Vec::new(), Vec::new());
        let mut stack: Vec<(ObjId, usize)> = kids_of(&shown, VIRTUAL_ROOT)
            .0
            .iter()
            .take(top)
            .rev()
            .map(|&o| (o, 0))
            .collect();
        while let Some((o, level)) = stack.pop() {
            nodes.push(DominatorObject {
                class: snap.class_name(o).to_string(),
                dominated: kids_of(&shown, o).1,
                label: snap.label(o),
                object: snap.object_name(o),
                retained_bytes: d.retained(o),
                root: root_words(snap, d, o),
                shallow_bytes: snap.graph.shallow_size(o),
            });
            levels.push(level);
            if level + 1 < depth {
                for &c in kids_of(&shown, o).0.iter().take(top).rev() {
                    stack.push((c, level + 1));
                }
            }
        }
        DominatorTree {
            schema_version: SchemaVersion,
            objects: DominatorForest::new(nodes, levels, depth),
            reachable_objects: d.reach.reachable,
            total_retained_bytes: d.total_bytes(),
            weakly_reachable_objects: d.reach.weakly_reachable,
        }
    }
}

/// `dominators --flat`: the objects with the largest retained sizes anywhere in the
/// tree, largest first (ties by id), each with its immediate dominator.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LargestObjects {
    pub schema_version: SchemaVersion,
    pub objects: Vec<LargestObject>,
    pub total_retained_bytes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LargestObject {
    pub class: String,
    /// `null` where the virtual root above the GC roots dominates it.
    pub dominator: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub label: Option<String>,
    pub object: String,
    pub retained_bytes: u64,
    pub shallow_bytes: u64,
}

impl LargestObjects {
    pub fn of(snap: &Snapshot, d: &Tree, top: usize) -> LargestObjects {
        use std::cmp::Reverse;
        use std::collections::BinaryHeap;
        let g = &snap.graph;
        let mut heap: BinaryHeap<Reverse<(u64, Reverse<ObjId>)>> = BinaryHeap::new();
        for o in 0..g.len() as ObjId {
            if let Some(r) = d.retained(o) {
                heap.push(Reverse((r, Reverse(o))));
                if heap.len() > top {
                    heap.pop();
                }
            }
        }
        let mut list: Vec<(u64, ObjId)> = heap
            .into_iter()
            .map(|Reverse((r, Reverse(o)))| (r, o))
            .collect();
        list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        LargestObjects {
            schema_version: SchemaVersion,
            objects: list
                .into_iter()
                .map(|(r, o)| LargestObject {
                    class: snap.class_name(o).to_string(),
                    dominator: match d.idom(o) {
                        Some(VIRTUAL_ROOT) | None => None,
                        Some(x) => Some(snap.object_name(x)),
                    },
                    label: snap.label(o),
                    object: snap.object_name(o),
                    retained_bytes: r,
                    shallow_bytes: g.shallow_size(o),
                })
                .collect(),
            total_retained_bytes: d.total_bytes(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str) -> DominatorObject {
        DominatorObject {
            class: "C".into(),
            dominated: 0,
            label: None,
            object: name.into(),
            retained_bytes: None,
            root: None,
            shallow_bytes: 8,
        }
    }

    #[test]
    fn a_forest_in_preorder_is_written_nested() {
        // a(b(c), d), e: three levels shown, so the third has no `children`.
        let names = ["a", "b", "c", "d", "e"];
        let f = DominatorForest::new(
            names.iter().map(|n| node(n)).collect(),
            vec![0, 1, 2, 1, 0],
            3,
        );
        assert_eq!(f.children(None).collect::<Vec<_>>(), [0, 4]);
        assert_eq!(f.children(Some(0)).collect::<Vec<_>>(), [1, 3]);
        assert_eq!(f.children(Some(1)).collect::<Vec<_>>(), [2]);
        assert_eq!(f.height(), 3);
        let v = serde_json::to_value(&f).unwrap();
        let names_at = |v: &serde_json::Value| -> Vec<String> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|n| n["object"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(names_at(&v), ["a", "e"]);
        assert_eq!(names_at(&v[0]["children"]), ["b", "d"]);
        assert_eq!(names_at(&v[0]["children"][0]["children"]), ["c"]);
        assert!(v[0]["children"][0]["children"][0].get("children").is_none());
        assert_eq!(v[1]["children"], serde_json::json!([]));
        // Every node above the last level has `children`, after its own keys, in the
        // order the document has always had them.
        let raw = serde_json::to_string(&f).unwrap();
        assert_eq!(raw.matches(r#""children":"#).count(), 4);
        assert!(raw.starts_with(
            r#"[{"class":"C","dominated":0,"object":"a","retained_bytes":null,"shallow_bytes":8,"children":[{"#
        ), "{raw}");
    }
}
