//! The files heaptui writes, and where: the user's cache directory (`HEAPTUI_CACHE_DIR`,
//! else the platform's), private directories and files that never follow a planted link,
//! and the disk room left before a write. Everything that writes to the cache (the
//! decompressed copies, the index entries, the kept trees, the spill files) goes through
//! these; none of them knows what the files hold.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The directory for decompressed copies: `$HEAPTUI_CACHE_DIR`, else the platform's
/// user cache directory (`$XDG_CACHE_HOME/heaptui` on Linux). An empty
/// `HEAPTUI_CACHE_DIR` is unset, as the shell's `VAR= cmd` means it (it wrote `./gunzip`
/// and `./index` into the current directory).
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("HEAPTUI_CACHE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    directories::ProjectDirs::from("", "", "heaptui").map(|p| p.cache_dir().to_path_buf())
}

/// The folder of the spill files of an index built on disk: `$HEAPTUI_SPILL_DIR`, else
/// the cache directory's `spill/`.
pub fn spill_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("HEAPTUI_SPILL_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d));
    }
    cache_dir().map(|d| d.join("spill"))
}

/// The kind of memory-backed file system `dir` (or, while it does not exist yet, the
/// nearest folder above it) is on, if it is on one: `tmpfs` (what `/tmp` is on many
/// systems, and Kubernetes' memory-backed `emptyDir`) or `ramfs`. Spill files there take
/// memory like the arrays they hold, and relieve none.
pub fn memory_backed(dir: &Path) -> Option<&'static str> {
    use std::os::unix::ffi::OsStrExt;
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    let existing = dir.ancestors().find(|d| d.exists())?;
    let c = std::ffi::CString::new(existing.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statfs is a valid out-parameter; `c` is a NUL-terminated path.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c.as_ptr(), &mut st) } != 0 {
        return None;
    }
    #[allow(clippy::unnecessary_cast)] // f_type's width differs between targets.
    match st.f_type as i64 {
        TMPFS_MAGIC => Some("tmpfs"),
        RAMFS_MAGIC => Some("ramfs"),
        _ => None,
    }
}

/// Bytes heaptui leaves free on the disk it writes `needed` more bytes of cache files
/// to: as many as it writes, up to 1 GiB (a small file needs little room, a large one
/// leaves a gigabyte); `$HEAPTUI_DISK_RESERVE` bytes when that is set.
pub fn disk_reserve(needed: u64) -> u64 {
    super::env::bytes("HEAPTUI_DISK_RESERVE").unwrap_or(needed.min(1 << 30))
}

/// Bytes an unprivileged user may still write on the file system that holds `dir`, or
/// `None` where that is unknown.
pub fn disk_free(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: a zeroed statvfs is a valid out-parameter; `c` is a NUL-terminated path.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return None;
        }
        Some((st.f_bavail as u64).saturating_mul(st.f_frsize as u64))
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// `Ok` when `needed` more bytes can be written under `dir` with [`disk_reserve`] bytes
/// left free (or when the free space is unknown); otherwise the figures, for the user.
/// `so_far` is what this file already holds: the reserve grows with it.
pub fn check_room(dir: &Path, so_far: u64, needed: u64) -> std::result::Result<(), String> {
    let Some(free) = disk_free(dir) else {
        return Ok(());
    };
    let reserve = disk_reserve(so_far.saturating_add(needed));
    if free >= needed.saturating_add(reserve) {
        return Ok(());
    }
    let mb = |b: u64| b.div_ceil(1 << 20);
    Err(format!(
        "{} MB free on the disk of {}, about {} MB more needed, and heaptui leaves {} MB free ($HEAPTUI_DISK_RESERVE)",
        mb(free),
        dir.display(),
        mb(needed),
        mb(reserve)
    ))
}

/// Makes `dir` and its missing parents readable by this user only (`0700`): the cache
/// holds copies of heap dumps, which hold whatever the program had in memory. Then checks
/// that the folders heaptui keeps there are its own ([`trusted_dir`]).
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    // The folders already there first: nothing is made inside one that is not ours.
    for f in ours(dir).into_iter().filter(|f| f.exists()) {
        own_folder(f)?;
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    trusted_dir(dir)
}

/// Checks, before anything in it is read, written or pruned, that `dir` and every folder
/// between the cache directory and it (`dir` alone outside the cache directory) is this
/// user's own: a folder, not a symbolic link, owned by the effective user, writable by
/// no one else. A folder of ours that others may write to is closed (`0700`); one that
/// is a link, or another user's, is refused with the reason: a shared `/tmp/heaptui-cache`
/// let another user swap a decompressed copy (answers of their choosing) or point
/// `gunzip/` at the victim's own folder for the pruning to empty (issue 40).
pub fn trusted_dir(dir: &Path) -> std::io::Result<()> {
    for f in ours(dir) {
        own_folder(f)?;
    }
    Ok(())
}

/// The folders [`trusted_dir`] checks for `dir`, from the top down.
fn ours(dir: &Path) -> Vec<&Path> {
    let mut folders: Vec<&Path> = vec![dir];
    if let Some(root) = cache_dir().filter(|r| dir.starts_with(r)) {
        folders.extend(dir.ancestors().skip(1).take_while(|a| a.starts_with(&root)));
    }
    folders.reverse();
    folders
}

/// [`trusted_dir`]'s check of one folder.
fn own_folder(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let refuse = |why: String| {
        std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!(
                "{} {why}; heaptui keeps its cache only in folders of its user's own \
                 (set HEAPTUI_CACHE_DIR to one)",
                dir.display()
            ),
        )
    };
    let m = std::fs::symlink_metadata(dir)?;
    if m.file_type().is_symlink() {
        return Err(refuse("is a symbolic link".into()));
    }
    if !m.is_dir() {
        return Err(refuse("is not a folder".into()));
    }
    // SAFETY: geteuid has no failure and no precondition.
    let me = unsafe { libc::geteuid() };
    if m.uid() != me {
        return Err(refuse(format!(
            "belongs to another user (uid {}, not {me})",
            m.uid()
        )));
    }
    if m.mode() & 0o022 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Creates `path` for writing, only if nothing is there: never through a symbolic link
/// (`O_EXCL`, `O_NOFOLLOW`), readable by this user only. A link planted at a predictable
/// temporary name had its target overwritten. A file of ours left there by a process of
/// the same pid is replaced (removing a link removes the link, not its target).
pub fn create_exclusive(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let open = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .custom_flags(libc::O_NOFOLLOW)
            .mode(0o600)
            .open(path)
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            open()
        }
        r => r,
    }
}

/// Writes `bytes` to `path` through an exclusive temporary file and a rename, so that
/// nothing planted at `path` is followed.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    // `<name>.tmp<pid>-key`: a temporary file that the pruning knows as one.
    let tmp = path.with_extension(format!("tmp{}-key", std::process::id()));
    let _listed = crate::sys::tmpfiles::register(&tmp);
    let mut f = create_exclusive(&tmp)?;
    f.write_all(bytes)?;
    drop(f);
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    /// `/dev/shm` is a tmpfs on Linux (skipped where it is not); `/proc` is no memory-backed
    /// file system; a folder that does not exist yet is judged by the nearest one above.
    #[test]
    fn memory_backed_file_systems_are_told_apart() {
        assert_eq!(super::memory_backed(std::path::Path::new("/proc")), None);
        let shm = std::path::Path::new("/dev/shm");
        match super::memory_backed(shm) {
            Some(kind) => {
                assert_eq!(kind, "tmpfs");
                assert_eq!(
                    super::memory_backed(&shm.join("not/made/yet")),
                    Some("tmpfs")
                );
            }
            None => eprintln!("skipped: /dev/shm is not a tmpfs here"),
        }
    }
}
