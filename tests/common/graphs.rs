//! Generated dumps of a known shape, for tests that need a large graph.

/// An HPROF file of `n` objects of one class, each referring to its two children in a
/// binary tree (object i to 2i+1 and 2i+2) rooted by a JNI global at object 0: a
/// graph whose dominator tree is the tree, with retained sizes that double per level.
pub fn hprof_tree(n: u64) -> Vec<u8> {
    let mut h = super::hostile::Hprof::new(8);
    h.named_class(1, 0x100, 0x200, b"com.example.Node");
    h.utf8(0x201, b"left");
    h.utf8(0x202, b"right");
    h.class_dump(0x100, 0, &[(0x201, 2), (0x202, 2)]);
    h.jni_global(0x10000);
    let id = |i: u64| if i < n { 0x10000 + 16 * i } else { 0 };
    for i in 0..n {
        h.instance_refs(id(i), 0x100, &[id(2 * i + 1), id(2 * i + 2)]);
    }
    h.finish()
}
