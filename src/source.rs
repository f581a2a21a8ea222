//! Getting a dump's bytes: memory-mapping the file, or, for gzip input, decompressing it
//! once into the user's cache directory and mapping that.
//!
//! The dump itself is never written. HotSpot's `GC.heap_dump -gz=N` writes many
//! concatenated gzip members (one per MiB of dump), so the decoder must be multi-member:
//! a single-member decoder silently stops after the first MiB. The decompressed copy is
//! keyed by the input's canonical path, size and modification time; the key and the
//! expected length are kept beside it and checked before reuse, and the copy is written
//! under a temporary name and renamed, so a half-written copy is never mapped.

use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use crate::error::{Error, ParseError, Result};
use crate::sys::files::{cache_dir, check_room, create_exclusive, private_dir, write_private};
use crate::sys::progress::Progress;

/// The bytes of one dump.
pub struct Source {
    /// The path the user named.
    pub path: PathBuf,
    map: Option<Mmap>,
    /// The map is of a file (so its pages can be released and read back); false for
    /// bytes wrapped from memory, whose pages would be lost.
    file_backed: bool,
    /// Set when the bytes come from a decompressed copy in the cache.
    pub decompressed: Option<PathBuf>,
    /// Problems met while getting the bytes (e.g. a gzip stream that ends early).
    pub warnings: Vec<String>,
}

impl Source {
    pub fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }

    /// Tells the kernel that this process is done with the pages of `range` for now: they
    /// leave the process's resident set (`RssFile`) but stay in the page cache, and a
    /// later read faults them back in. Readers call it behind their scan, so that indexing
    /// a 4 GB dump does not leave 4 GB of it mapped in; the file's pages are the page
    /// cache's, not this process's memory. Only whole pages inside `range` are released.
    pub fn release(&self, range: std::ops::Range<usize>) {
        let Some(map) = &self.map else { return };
        if !self.file_backed {
            return;
        }
        let page = 4096;
        let start = range.start.div_ceil(page) * page;
        let end = (range.end.min(map.len()) / page) * page;
        if end > start {
            // SAFETY: the map is a read-only mapping of a file this process never writes;
            // MADV_DONTNEED only drops the page-table entries, and a later access reads
            // the same bytes back from the page cache. No reference observes a change.
            let _ = unsafe {
                map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, start, end - start)
            };
        }
    }

    /// A map of a file (`map_file`).
    fn from_file_map(path: &Path, map: Option<Mmap>) -> Self {
        Source {
            file_backed: true,
            ..Source::from_map(path, map)
        }
    }

    /// Wraps bytes already in memory (tests, fuzzing).
    pub fn from_map(path: &Path, map: Option<Mmap>) -> Self {
        Source {
            path: path.to_path_buf(),
            map,
            file_backed: false,
            decompressed: None,
            warnings: Vec::new(),
        }
    }

    /// Copies `bytes` into an anonymous map made read-only before any reader sees it
    /// (tests, fuzzing, truncation sweeps): the readers get exactly `bytes.len()` bytes,
    /// behind the same read-only guarantee as a mapped file. An empty input gets no map
    /// at all, as an empty file does (a map cannot be empty).
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> std::io::Result<Self> {
        if bytes.is_empty() {
            return Ok(Source::from_map(path, None));
        }
        let mut m = memmap2::MmapMut::map_anon(bytes.len())?;
        m.copy_from_slice(bytes);
        Ok(Source::from_map(path, Some(m.make_read_only()?)))
    }
}

fn map_file(path: &Path) -> Result<Option<Mmap>> {
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    let len = f.metadata().map_err(|e| Error::io(path, e))?.len();
    if len == 0 {
        return Ok(None);
    }
    // SAFETY: the map is read-only. Another process truncating the file while we read
    // it raises SIGBUS (the risk of every mmap-based reader: MAT, hprof-slurp); the CLI
    // installs a handler that restores the terminal and says so
    // (`ui::terminal::install_sigbus_handler`), and we never map a file we write.
    let m = unsafe { Mmap::map(&f) }.map_err(|e| Error::io(path, e))?;
    // So that a SIGBUS on it names this file.
    crate::sys::maps::register(&m, path, crate::sys::maps::Kind::Dump);
    Ok(Some(m))
}

/// Refuses what is not a regular file (or a link to one) before anything opens it: a
/// FIFO would block the open until a writer came, a device or a socket is no dump, and
/// a directory cannot be mapped.
pub fn check_regular(path: &Path) -> Result<()> {
    use std::os::unix::fs::FileTypeExt;
    let m = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let t = m.file_type();
    if t.is_file() {
        return Ok(());
    }
    let what = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO (named pipe)"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    };
    Err(Error::io(
        path,
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{what}, not a regular file: heaptui reads dumps from regular files"),
        ),
    ))
}

/// The first `n` bytes of the dump at `path` (fewer if it is shorter), decompressed when
/// it is a gzip file: enough to tell its format without opening it.
pub fn first_bytes(path: &Path, n: usize) -> Result<Vec<u8>> {
    check_regular(path)?;
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut head = Vec::with_capacity(n);
    f.take(n as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(path, e))?;
    if !head.starts_with(&[0x1f, 0x8b]) {
        return Ok(head);
    }
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    let mut out = Vec::with_capacity(n);
    // A stream that is not gzip after all reads as what it gave until then.
    let _ = flate2::read::MultiGzDecoder::new(f)
        .take(n as u64)
        .read_to_end(&mut out);
    Ok(out)
}

/// What a decompressed stream's first bytes must pass before the rest is written out
/// (the formats' magic: `crate::format::detect`), so that a gzip of something else is
/// refused at once rather than decompressed whole into the cache first.
pub type Check<'a> = &'a (dyn Fn(&[u8]) -> std::result::Result<(), ParseError> + Sync);

/// Opens `path`: maps it, or decompresses a gzip file into the cache and maps that.
pub fn open(path: &Path, progress: &Progress) -> Result<Source> {
    open_checked(path, progress, &|_| Ok(()))
}

/// [`open`], with a gzip file's first decompressed bytes passed through `check` first.
pub fn open_checked(path: &Path, progress: &Progress, check: Check) -> Result<Source> {
    check_regular(path)?;
    let mut magic = [0u8; 2];
    {
        let mut f = File::open(path).map_err(|e| Error::io(path, e))?;
        let mut got = 0;
        while got < 2 {
            match f.read(&mut magic[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) => return Err(Error::io(path, e)),
            }
        }
        if got < 2 || magic != [0x1f, 0x8b] {
            return Ok(Source::from_file_map(path, map_file(path)?));
        }
    }
    let (mut copy, mut warnings) = gunzip_cached(path, progress, check)?;
    let map = match map_file(&copy) {
        // Another heaptui pruned the copy between our check and our open: make it again.
        Err(Error::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            (copy, warnings) = gunzip_cached(path, progress, check)?;
            map_file(&copy)?
        }
        m => m?,
    };
    let mut s = Source::from_file_map(path, map);
    s.decompressed = Some(copy);
    s.warnings = warnings;
    Ok(s)
}

fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Counts the compressed bytes consumed, for progress and error offsets.
struct Counting<R> {
    inner: R,
    count: u64,
    progress: Progress,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        self.progress.set(self.count);
        Ok(n)
    }
}

/// Deflate cannot expand data by more than about 1032:1; more output than that means a
/// corrupt or hostile stream, and we stop before filling the disk.
const MAX_GZIP_RATIO: u64 = 1032;

fn gunzip_cached(path: &Path, progress: &Progress, check: Check) -> Result<(PathBuf, Vec<String>)> {
    let meta = std::fs::metadata(path).map_err(|e| Error::io(path, e))?;
    let canon = path.canonicalize().map_err(|e| Error::io(path, e))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    // The inode's number and change time too: a rewrite that keeps the size and sets the
    // modification time back (`touch -r`) changes those. And a sample of the compressed
    // bytes.
    use std::os::unix::fs::MetadataExt;
    let sample = {
        let f = File::open(path).map_err(|e| Error::io(path, e))?;
        // SAFETY: read-only map of the dump; see `map_file`.
        match unsafe { Mmap::map(&f) } {
            Ok(m) => sample_hash(&m),
            Err(_) => 0,
        }
    };
    let key = format!(
        "heaptui-gunzip 2\npath={}\nsize={}\nmtime={}\ninode={}\nctime={}.{}\nsample={:016x}\n",
        canon.display(),
        meta.len(),
        mtime,
        meta.ino(),
        meta.ctime(),
        meta.ctime_nsec(),
        sample
    );
    let dir = cache_dir()
        .ok_or_else(|| Error::Usage("no cache directory for decompressing a gzip dump".into()))?
        .join("gunzip");
    private_dir(&dir).map_err(|e| Error::io(&dir, e))?;
    let stem = format!("{:016x}", fnv1a(key.as_bytes()));
    let data_path = dir.join(format!("{stem}.hprof"));
    let key_path = dir.join(format!("{stem}.key"));

    // Reuse only when the key matches and the copy has exactly the recorded length.
    if let Ok(saved) = std::fs::read_to_string(&key_path) {
        if let Some(rest) = saved.strip_prefix(&key) {
            let mut len = None;
            let mut warnings = Vec::new();
            for line in rest.lines() {
                if let Some(v) = line.strip_prefix("length=") {
                    len = v.parse::<u64>().ok();
                } else if let Some(v) = line.strip_prefix("warning=") {
                    warnings.push(v.to_string());
                }
            }
            let actual = std::fs::metadata(&data_path).map(|m| m.len()).ok();
            if len.is_some() && len == actual {
                // Marks the copy as recently used, for [`prune_gunzip`].
                if let Ok(f) = File::options().append(true).open(&key_path) {
                    let _ = f.set_modified(std::time::SystemTime::now());
                }
                return Ok((data_path, warnings));
            }
        }
    }

    // Room on the disk first: at least the compressed size (a heap dump does not
    // shrink when decompressed; the trailer's stated length is no guide, since a cut
    // file ends in compressed data), then every 64 MiB written.
    let no_room = |why: String| {
        Error::io(
            path,
            std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                format!("no room to decompress it: {why}"),
            ),
        )
    };
    check_room(&dir, 0, meta.len()).map_err(no_room)?;
    progress.phase("decompressing", meta.len());
    let f = File::open(path).map_err(|e| Error::io(path, e))?;
    let counting = Counting {
        inner: BufReader::with_capacity(1 << 20, f),
        count: 0,
        progress: progress.clone(),
    };
    let mut dec = flate2::read::MultiGzDecoder::new(counting);
    static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let serial = SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = dir.join(format!("{stem}.tmp{}-{serial}", std::process::id()));
    // Removes the temporary file on every way out but the rename into place.
    struct Unplaced<'a>(&'a Path);
    impl Drop for Unplaced<'_> {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(self.0);
        }
    }
    let _unplaced = Unplaced(&tmp);
    let _listed = crate::sys::tmpfiles::register(&tmp);
    let mut out = std::io::BufWriter::with_capacity(
        1 << 20,
        create_exclusive(&tmp).map_err(|e| Error::io(&tmp, e))?,
    );
    let limit = meta.len().saturating_mul(MAX_GZIP_RATIO) + (1 << 20);
    let mut written = 0u64;
    let mut buf = vec![0u8; 1 << 20];
    let mut warnings = Vec::new();
    // The first bytes, until they are checked.
    let mut head: Option<Vec<u8>> = Some(Vec::new());
    let checked = |head: &[u8]| {
        check(head).map_err(|e| {
            Error::parse(
                path,
                ParseError::new(
                    e.offset,
                    format!("{}, in the decompressed content", e.expected),
                    e.found,
                ),
            )
        })
    };
    loop {
        match dec.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if let Some(h) = head.as_mut() {
                    h.extend_from_slice(&buf[..n.min(HEAD - h.len().min(HEAD))]);
                    if h.len() >= HEAD {
                        checked(h)?;
                        head = None;
                    }
                }
                if (written + n as u64) >> 26 != written >> 26 {
                    check_room(&dir, written, 1 << 26).map_err(no_room)?;
                }
                written += n as u64;
                if written > limit {
                    return Err(Error::parse(
                        path,
                        ParseError::new(
                            dec.get_ref().count,
                            format!("a gzip stream expanding at most {MAX_GZIP_RATIO}:1"),
                            format!("more than {written} bytes of output"),
                        ),
                    ));
                }
                out.write_all(&buf[..n]).map_err(|e| Error::io(&tmp, e))?;
            }
            Err(e) => {
                if written == 0 {
                    return Err(Error::parse(
                        path,
                        ParseError::new(dec.get_ref().count, "a gzip stream", e.to_string()),
                    ));
                }
                warnings.push(format!(
                    "gzip stream ends early near compressed byte {} ({e}); using the {written} bytes decompressed before it",
                    dec.get_ref().count
                ));
                break;
            }
        }
    }
    if let Some(h) = head {
        checked(&h)?;
    }
    out.flush().map_err(|e| Error::io(&tmp, e))?;
    drop(out);
    // The key first, then the copy: a key without its copy (or with a copy of another
    // length) is never trusted, and a copy is pruned only together with its key.
    let mut saved = format!("{key}length={written}\n");
    for w in &warnings {
        saved.push_str(&format!("warning={w}\n"));
    }
    write_private(&key_path, saved.as_bytes()).map_err(|e| Error::io(&key_path, e))?;
    std::fs::rename(&tmp, &data_path).map_err(|e| Error::io(&data_path, e))?;
    prune_gunzip(&dir, &data_path);
    Ok((data_path, warnings))
}

/// Decompressed bytes checked against the formats before the rest is written.
const HEAD: usize = 64 << 10;

/// How many decompressed copies the cache keeps (the most recently used ones).
pub const KEEP_GUNZIP: usize = 4;

/// Bounds the decompressed copies: keeps the [`KEEP_GUNZIP`] most recently used (by
/// their key's modification time, which a reuse refreshes), `current` among them, and
/// removes temporary files left by processes that are gone
/// ([`crate::sys::tmpfiles::stale`]). A copy that another heaptui still maps
/// stays readable there until it is unmapped; one it is about to open is made again
/// ([`open`]).
fn prune_gunzip(dir: &Path, current: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut keys: Vec<(std::time::SystemTime, PathBuf)> = Vec::new();
    let mut others: Vec<PathBuf> = Vec::new();
    for e in rd.flatten() {
        let p = e.path();
        match p.extension().and_then(|x| x.to_str()) {
            Some("key") => {
                let t = e.metadata().and_then(|m| m.modified());
                keys.push((t.unwrap_or(std::time::UNIX_EPOCH), p));
            }
            _ => others.push(p),
        }
    }
    keys.sort_by_key(|k| std::cmp::Reverse(k.0));
    let current_key = current.with_extension("key");
    let mut kept = 0;
    for (_, k) in &keys {
        if *k == current_key {
            continue;
        }
        kept += 1;
        if kept >= KEEP_GUNZIP {
            let _ = std::fs::remove_file(k.with_extension("hprof"));
            let _ = std::fs::remove_file(k);
        }
    }
    for p in others {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some((_, rest)) = name.split_once(".tmp") {
            // `<stem>.tmp<pid>-<serial>`: removed once its process is gone (Linux).
            let pid = rest.split('-').next().and_then(|v| v.parse::<u32>().ok());
            if pid.is_some_and(|pid| crate::sys::tmpfiles::stale(&p, pid)) {
                let _ = std::fs::remove_file(&p);
            }
        }
        // A copy without its key is not removed: heaptui writes the key before the copy
        // and removes them together, so such a file may not be heaptui's own.
    }
}

/// The bytes hashed at each end of a file by [`sample_hash`].
const EDGE: usize = 64 << 10;

/// A hash of the first and last [`EDGE`] bytes and of 64 blocks of 4 KiB spread evenly
/// between them (a rewrite in the middle that keeps the size is seen too).
pub fn sample_hash(b: &[u8]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&b[..b.len().min(EDGE)]);
    h.update(&b[b.len().saturating_sub(EDGE)..]);
    if b.len() > 2 * EDGE {
        let span = b.len() - 2 * EDGE;
        for k in 0..64 {
            let at = EDGE + span / 64 * k;
            h.update(&b[at..(at + 4096).min(b.len())]);
        }
    }
    h.digest()
}
