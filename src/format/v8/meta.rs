//! The layout of a V8 heap snapshot: the field positions and type codes of `snapshot.meta`
//! ([`Cols`]), and the one scan that finds where each top-level value starts and indexes
//! every string ([`scan`]). The arrays are read by the parent module (nodes) and `edges`.

use crate::error::ParseError;
use crate::sys::progress::Progress;

use super::json::{skip_string, skip_value, skip_ws, Cut};
use super::Release;

/// Field positions and type codes, from `snapshot.meta`.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Cols {
    pub nf: usize,
    pub n_type: usize,
    pub n_name: usize,
    pub n_id: usize,
    pub n_size: usize,
    pub n_edges: usize,
    pub n_detached: Option<usize>,
    pub ef: usize,
    pub e_type: usize,
    pub e_name: usize,
    pub e_to: usize,
    pub node_types: Vec<String>,
    pub edge_types: Vec<String>,
    pub lf: usize,
    pub l_obj: Option<usize>,
    pub l_script: Option<usize>,
    pub l_line: Option<usize>,
    pub l_col: Option<usize>,
}

impl Cols {
    pub fn edge_type(&self, name: &str) -> Option<i64> {
        self.edge_types
            .iter()
            .position(|t| t == name)
            .map(|p| p as i64)
    }
}

pub(super) fn string_list(v: &serde_json::Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

pub(super) fn parse_meta(
    b: &[u8],
    start: usize,
    end: usize,
) -> Result<(Cols, serde_json::Value), ParseError> {
    let bad = |what: &str| {
        ParseError::new(
            start as u64,
            what.to_string(),
            "a snapshot header without it",
        )
    };
    let v: serde_json::Value = serde_json::from_slice(&b[start..end]).map_err(|e| {
        ParseError::new(
            start as u64,
            "the snapshot header (a JSON object)",
            e.to_string(),
        )
    })?;
    let meta = &v["meta"];
    let nodes = string_list(&meta["node_fields"]).ok_or_else(|| bad("meta.node_fields"))?;
    let edges = string_list(&meta["edge_fields"]).ok_or_else(|| bad("meta.edge_fields"))?;
    let node_types =
        string_list(&meta["node_types"][0]).ok_or_else(|| bad("meta.node_types[0]"))?;
    let edge_types =
        string_list(&meta["edge_types"][0]).ok_or_else(|| bad("meta.edge_types[0]"))?;
    let locs = string_list(&meta["location_fields"]).unwrap_or_default();
    let n = |f: &str| nodes.iter().position(|x| x == f);
    let e = |f: &str| edges.iter().position(|x| x == f);
    let l = |f: &str| locs.iter().position(|x| x == f);
    let need = |p: Option<usize>, what: &str| p.ok_or_else(|| bad(what));
    let cols = Cols {
        nf: nodes.len(),
        n_type: need(n("type"), "node field \"type\"")?,
        n_name: need(n("name"), "node field \"name\"")?,
        n_id: need(n("id"), "node field \"id\"")?,
        n_size: need(n("self_size"), "node field \"self_size\"")?,
        n_edges: need(n("edge_count"), "node field \"edge_count\"")?,
        n_detached: n("detachedness"),
        ef: edges.len(),
        e_type: need(e("type"), "edge field \"type\"")?,
        e_name: need(e("name_or_index"), "edge field \"name_or_index\"")?,
        e_to: need(e("to_node"), "edge field \"to_node\"")?,
        node_types,
        edge_types,
        lf: locs.len(),
        l_obj: l("object_index"),
        l_script: l("script_id"),
        l_line: l("line"),
        l_col: l("column"),
    };
    if cols.nf == 0 || cols.ef == 0 || cols.nf > 64 || cols.ef > 64 {
        return Err(ParseError::new(
            start as u64,
            "1 to 64 node fields and edge fields",
            format!("{} and {}", cols.nf, cols.ef),
        ));
    }
    Ok((cols, v))
}

/// Where the top-level values are.
#[derive(Default)]
pub(super) struct Sections {
    pub(super) meta: Option<(usize, usize)>,
    /// Position just after the `[` of each array.
    pub(super) nodes: Option<usize>,
    pub(super) edges: Option<usize>,
    /// Position of the `]` closing `edges`, when the file has it.
    pub(super) edges_end: Option<usize>,
    pub(super) locations: Option<usize>,
    /// Offset of every string's opening quote.
    pub(super) strings: Vec<u64>,
    pub(super) truncated: Option<u64>,
}

/// Walks the top-level object, noting where each value is and indexing `strings`.
pub(super) fn scan(
    b: &[u8],
    progress: &Progress,
    release: &Release<'_>,
) -> Result<Sections, ParseError> {
    let mut s = Sections::default();
    let bom = if b.starts_with(&[0xef, 0xbb, 0xbf]) {
        3
    } else {
        0
    };
    let mut pos = skip_ws(b, bom);
    if b.get(pos) != Some(&b'{') {
        return Err(ParseError::new(
            pos as u64,
            "'{' opening the snapshot",
            "something else",
        ));
    }
    pos += 1;
    let cut = |s: &mut Sections, at: usize| {
        s.truncated.get_or_insert(at as u64);
    };
    loop {
        pos = skip_ws(b, pos);
        match b.get(pos) {
            None => {
                cut(&mut s, pos);
                break;
            }
            Some(b'}') => break,
            Some(b',') => {
                pos += 1;
                continue;
            }
            Some(b'"') => {}
            Some(&c) => {
                return Err(ParseError::new(
                    pos as u64,
                    "a key in quotes, ',' or '}'",
                    format!("byte 0x{c:02x}"),
                ))
            }
        }
        let key_end = match skip_string(b, pos) {
            Ok(e) => e,
            Err(Cut(_)) => {
                cut(&mut s, pos);
                break;
            }
        };
        let key = &b[pos + 1..key_end - 1];
        let key_at = pos;
        pos = skip_ws(b, key_end);
        if b.get(pos) != Some(&b':') {
            if pos >= b.len() {
                cut(&mut s, key_at);
                break;
            }
            return Err(ParseError::new(
                pos as u64,
                "':' after a key",
                "something else",
            ));
        }
        pos = skip_ws(b, pos + 1);
        progress.set(pos as u64);
        let is_array = b.get(pos) == Some(&b'[');
        match key {
            b"nodes" | b"edges" | b"locations" if is_array => {
                let start = pos + 1;
                match key {
                    b"nodes" => s.nodes = Some(start),
                    b"edges" => {
                        s.edges = Some(start);
                        // A repeated key's end is not the end of an earlier "edges": an
                        // end before the start made the edges reader index backwards
                        // (fuzz/README.md, v8 crash 2).
                        s.edges_end = None;
                    }
                    _ => s.locations = Some(start),
                }
                // Integers only: the first ']' closes the array. Without one the file
                // was cut inside it; the tokenizer finds how much of it is whole (for
                // `locations`, which is read only on demand, the key is the limit).
                // In 16 MiB windows, searched on every core, each released once searched
                // (the readers map the pages again when they come to them).
                let found = first_close(b, start, release).map(|at| at - start);
                match found {
                    Some(k) => {
                        if key == b"edges" {
                            s.edges_end = Some(start + k);
                        }
                        // Skipped for now; the tokenizers read it again.
                        release(start..start + k);
                        pos = start + k + 1
                    }
                    None => {
                        if key == b"locations" {
                            cut(&mut s, key_at);
                        }
                        break;
                    }
                }
            }
            b"strings" if is_array => {
                let mut i = pos + 1;
                let mut closed = false;
                s.strings.reserve((b.len() - i) / 16);
                loop {
                    i = skip_ws(b, i);
                    match b.get(i) {
                        Some(b'"') => match skip_string(b, i) {
                            Ok(e) => {
                                s.strings.push(i as u64);
                                i = e;
                                if s.strings.len() % 65536 == 0 {
                                    progress.set(i as u64);
                                }
                            }
                            Err(_) => break,
                        },
                        Some(b',') => i += 1,
                        Some(b']') => {
                            closed = true;
                            i += 1;
                            break;
                        }
                        Some(&c) => {
                            return Err(ParseError::new(
                                i as u64,
                                "a string, ',' or ']' in \"strings\"",
                                format!("byte 0x{c:02x}"),
                            ))
                        }
                        None => break,
                    }
                }
                if !closed {
                    cut(&mut s, i.min(b.len()));
                    break;
                }
                pos = i;
            }
            _ => match skip_value(b, pos) {
                Ok(e) => {
                    // The first: the one the memory check read (`super::declared`).
                    if key == b"snapshot" && s.meta.is_none() {
                        s.meta = Some((pos, e));
                    }
                    pos = e;
                }
                Err(Ok(Cut(_))) => {
                    cut(&mut s, key_at);
                    break;
                }
                Err(Err(e)) => return Err(e),
            },
        }
    }
    Ok(s)
}

/// The offset of the first `]` from `start`, searched in 16 MiB windows on the thread
/// pool, the windows before it released.
pub(super) fn first_close(b: &[u8], start: usize, release: &Release<'_>) -> Option<usize> {
    use rayon::prelude::*;
    const WINDOW: usize = 16 << 20;
    let windows: Vec<usize> = (start..b.len()).step_by(WINDOW).collect();
    let window = |from: usize| &b[from..(from + WINDOW).min(b.len())];
    let first = windows
        .par_iter()
        .position_first(|&from| memchr::memchr(b']', window(from)).is_some());
    let before = first.unwrap_or(windows.len());
    for &from in &windows[..before] {
        release(from..(from + WINDOW).min(b.len()));
    }
    let from = windows[first?];
    memchr::memchr(b']', window(from)).map(|k| from + k)
}
