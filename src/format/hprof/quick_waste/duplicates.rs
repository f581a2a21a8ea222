//! The duplicate strings and arrays of the walk's entries (see the parent module).

use super::*;

/// The duplicate strings and arrays, at most `top` of each. `prims` is sorted by
/// address, `strings` (address, record offset) too. Each string takes its value
/// array's entry (a merge of the two lists by the array's address), so that the array
/// is counted with its string and not again; then one sort by content key brings
/// equal contents together.
#[allow(clippy::too_many_arguments)]
pub(super) fn duplicates(
    b: &[u8],
    id: usize,
    layout: &Layout,
    sl: Option<StringLayout>,
    mut values: Vec<(u64, u64, bool)>,
    mut prims: Vec<Prim>,
    top: usize,
    name: &mut dyn FnMut(u64, String) -> ObjId,
    lap: &dyn Fn(&str),
) -> (Vec<DupString>, Vec<DupArray>) {
    // (value array, string, UTF-16), by value array.
    values.par_sort_unstable();
    lap("string values read");
    let extra: Vec<Prim> = prims
        .par_chunks_mut(1 << 16)
        .flat_map_iter(|chunk| {
            let mut extra = Vec::new();
            let mut j = values.partition_point(|v| v.0 < chunk[0].addr);
            for p in chunk.iter_mut() {
                while j < values.len() && values[j].0 < p.addr {
                    j += 1;
                }
                let byte_array = (p.off >> TYPE_SHIFT) as u8 == 8;
                let (array, array_key) = (p.addr, p.hash);
                let mut taken = false;
                while j < values.len() && values[j].0 == array {
                    let (_, s, utf16) = values[j];
                    j += 1;
                    if !byte_array {
                        continue;
                    }
                    // The array's key has its bytes and length: the string's adds how
                    // they encode its text.
                    let enc = if utf16 {
                        Encoding::Utf16Le
                    } else {
                        Encoding::Latin1
                    };
                    let e = Prim {
                        addr: s,
                        off: p.off | STRING | if utf16 { UTF16 } else { 0 },
                        hash: content_key(array_key, 0, 0, enc as u64),
                    };
                    if taken {
                        extra.push(e);
                    } else {
                        *p = e;
                        taken = true;
                    }
                }
            }
            extra
        })
        .collect();
    drop(values);
    prims.extend(extra);
    lap("strings joined");
    prims.par_sort_unstable_by_key(|x| x.hash);
    lap("sorted");
    // (count, bytes each, example address, its offset).
    let mut groups: Vec<(u64, u64, u64, u64)> = Vec::new();
    for run in prims.chunk_by(|a, b| a.hash == b.hash) {
        if run.len() >= 2 {
            let first = run.iter().min_by_key(|x| x.addr).unwrap_or(&run[0]);
            let (_, _, _, mut bytes) = prim_rec(b, id, layout, first.off);
            if first.off & STRING != 0 {
                bytes += sl.map_or(0, |sl| sl.bytes);
            }
            // Copies that cost nothing waste nothing: no finding.
            if bytes > 0 {
                groups.push((run.len() as u64, bytes, first.addr, first.off));
            }
        }
    }
    drop(prims);
    groups.sort_unstable_by(|a, b| {
        let w = |x: &(u64, u64, u64, u64)| (x.0 - 1).saturating_mul(x.1);
        w(b).cmp(&w(a)).then(a.2.cmp(&b.2))
    });
    let (mut dup_strings, mut dup_arrays) = (Vec::new(), Vec::new());
    for (count, bytes_each, addr, off) in groups {
        if dup_strings.len() >= top && dup_arrays.len() >= top {
            break;
        }
        let (ty, n, elems, _) = prim_rec(b, id, layout, off);
        if off & STRING != 0 && dup_strings.len() < top {
            let utf16 = off & UTF16 != 0;
            let c = crate::format::Content {
                string: true,
                data: elems.into(),
                length: n,
                bytes: bytes_each,
                owns: None,
                encoding: if utf16 {
                    Encoding::Utf16Le
                } else {
                    Encoding::Latin1
                },
            };
            dup_strings.push(DupString {
                text: c.text(),
                count,
                bytes_each,
                example: name(addr, "java.lang.String".into()),
            });
        } else if off & STRING == 0 && dup_arrays.len() < top {
            let class = if (4..=11).contains(&ty) {
                format!("{}[]", type_name(ty))
            } else {
                "unknown[]".to_string()
            };
            dup_arrays.push(DupArray {
                preview: None,
                length: n,
                count,
                bytes_each,
                example: name(addr, class),
            });
        }
    }
    (dup_strings, dup_arrays)
}
