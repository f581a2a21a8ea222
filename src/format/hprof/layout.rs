//! The object layout of a HotSpot dump (header and reference sizes: compressed oops and
//! class pointers or not), inferred from the gaps between consecutive arrays' addresses,
//! and the sizes it gives to objects the file does not size. See the parent module.

use super::*;

/// What the shallow-size model assumes about the VM's object layout.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub(super) obj_header: u64,
    pub(super) ref_size: u64,
    pub(super) array_header: u64,
    /// Array header for 8-byte elements (differs on 32-bit VMs and ART).
    pub(super) array_header_wide: u64,
    /// ART: instance sizes come from the class dump.
    pub(super) art: bool,
}

impl Layout {
    pub(super) fn array(&self, n: u64, elem: u64) -> u64 {
        let h = if elem == 8 {
            self.array_header_wide
        } else {
            self.array_header
        };
        align8(h + n * elem)
    }
}

/// Bytes HotSpot adds to instances of a class beyond the fields the dump lists: fields
/// the VM injects (`javaClasses.hpp`, JDK 17: `loader_data`, `module_entry`, `vmindex`,
/// ...) and the padding around `@Contended` field groups (`java.lang.Thread`'s
/// thread-local-random group: 128 bytes before and after). The dump cannot show them, but
/// `GC.class_histogram` counts them, and a model without them is wrong for every class
/// loader and thread. Other `@Contended` classes (`Striped64$Cell`, `Exchanger$Node`,
/// ...) are not modelled: their annotation covers the whole class and rounds differently.
/// Returns (bytes added, whether the class's own part ends 8-aligned).
pub(super) fn hidden_bytes(java_name: &str, l: &Layout) -> (u64, bool) {
    let intptr = if l.obj_header == 8 { 4 } else { 8 };
    let extra = match java_name {
        "java.lang.Thread" if l.obj_header > 8 => return (256, true),
        "java.lang.ClassLoader" | "java.lang.Module" | "java.lang.invoke.MemberName" => intptr,
        "java.lang.invoke.ResolvedMethodName" => intptr + l.ref_size,
        "java.lang.invoke.MethodHandleNatives$CallSiteContext" => 2 * intptr,
        "java.lang.StackFrameInfo" => 2,
        "java.lang.InternalError" => 1,
        "java.lang.Class" => 2 * intptr + 8 + 3 * l.ref_size,
        _ => 0,
    };
    (extra, false)
}

/// Whether the layout is inferred from a sample of records (64-bit HotSpot), rather than
/// fixed by the id size or the writer (32-bit VMs, ART).
pub(super) fn layout_is_inferred(h: &Header, art: bool) -> bool {
    h.id_size == 8 && !art
}

/// Infers compressed oops / class pointers from the address gaps after arrays.
pub(super) fn infer_layout(
    b: &[u8],
    h: &Header,
    objs: &[(u64, u64)],
    art: bool,
) -> (Layout, String) {
    if !layout_is_inferred(h, art) {
        let l = Layout {
            obj_header: 8,
            ref_size: 4,
            array_header: 12,
            array_header_wide: 16,
            art,
        };
        let what = if art {
            "ART: instance sizes from the class dumps, 4-byte references"
        } else {
            "32-bit VM: 8-byte headers, 4-byte references"
        };
        return (l, what.to_string());
    }
    let id = h.id_size;
    // Votes: [ccp (16-byte array header), no ccp (24)], [coops (4-byte refs), 8-byte refs]
    let mut hdr = [0u64; 2];
    let mut refs = [0u64; 2];
    for w in objs.windows(2).take(2_000_000) {
        let (addr, off) = w[0];
        let gap = w[1].0.wrapping_sub(addr);
        if gap == 0 || gap > (1 << 20) {
            continue;
        }
        let off = off as usize;
        let Some(rec) = b.get(off..off + 2 + 2 * id + 8) else {
            continue;
        };
        match rec[0] {
            PRIMITIVE_ARRAY_DUMP => {
                let n = super::be_u32(&rec[1 + id + 4..]) as u64;
                let es = type_size(rec[1 + id + 8], id).unwrap_or(1) as u64;
                if gap == align8(16 + n * es) {
                    hdr[0] += 1;
                } else if gap == align8(24 + n * es) {
                    hdr[1] += 1;
                }
            }
            OBJECT_ARRAY_DUMP => {
                let n = super::be_u32(&rec[1 + id + 4..]) as u64;
                if n == 0 {
                    continue;
                }
                if gap == align8(16 + 4 * n) {
                    refs[0] += 1;
                    hdr[0] += 1;
                } else if gap == align8(16 + 8 * n) || gap == align8(24 + 8 * n) {
                    refs[1] += 1;
                }
            }
            _ => {}
        }
    }
    let max_addr = objs.last().map(|o| o.0).unwrap_or(0);
    let (ccp, coops, how) = if hdr[0] + hdr[1] + refs[0] + refs[1] >= 8 {
        (
            hdr[0] >= hdr[1],
            refs[0] >= refs[1] && hdr[0] >= hdr[1],
            format!(
                "inferred from {} array address gaps",
                hdr[0] + hdr[1] + refs[0] + refs[1]
            ),
        )
    } else {
        let small = max_addr < (32u64 << 30);
        (
            small,
            small,
            "assumed from the heap's addresses".to_string(),
        )
    };
    let l = Layout {
        obj_header: if ccp { 12 } else { 16 },
        ref_size: if coops { 4 } else { 8 },
        array_header: if ccp { 16 } else { 24 },
        array_header_wide: if ccp { 16 } else { 24 },
        art: false,
    };
    let what = format!(
        "{}, {} ({how})",
        if coops {
            "compressed oops"
        } else {
            "uncompressed oops"
        },
        if ccp {
            "compressed class pointers"
        } else {
            "uncompressed class pointers"
        }
    );
    (l, what)
}

/// Object records the layout is inferred from: the first [`LAYOUT_SAMPLE`] in file
/// order, sorted by address (HotSpot writes objects in address order, so neighbours in
/// the file are neighbours in memory). The index and the quick histogram take the same
/// sample, so they size objects alike.
pub(super) const LAYOUT_SAMPLE: usize = 2_000_000;

pub(super) fn layout_sample(objs_in_file_order: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut s = objs_in_file_order[..objs_in_file_order.len().min(LAYOUT_SAMPLE)].to_vec();
    s.sort_by_key(|o| o.0);
    s
}
