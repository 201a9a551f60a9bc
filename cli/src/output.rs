//! Where a command's output goes: the one module every command that
//! writes a file uses (the digest's `-o`, `export -o`, `import -o`, the
//! selftest record), so that what one learned the others know (issue #20).
//!
//! - `-`, `/dev/stdout` (and its `/dev/fd/1`, `/proc/self/fd/1` spellings)
//!   are standard output, written as a stream. Renaming a file over
//!   `/dev/stdout` would follow the link to whatever the shell opened:
//!   `-o /dev/stdout >> journal.md` replaced the journal.
//! - A file is written whole or not at all: a temporary file with a random
//!   name, created exclusively (`O_EXCL`, never through a planted symlink),
//!   in the target's own directory, written, synced, then renamed over the
//!   target. A reader sees the old file or the new one, never half.
//! - A symlink is written through to its target: replacing the link would
//!   leave the file it points at stale for ever.
//! - A device, a FIFO or a socket is refused before any work, `--force` or
//!   not: the rename would replace `/dev/full` with a regular file.
//! - The target's permissions are kept (a 0600 digest stays 0600), and its
//!   owner where the process may set it; a new file gets the umask's.
//! - A hard link is kept: the rename gives the name a new file, and every
//!   other name of the old one (a link in a synced folder, say) would keep
//!   the old contents for ever (issue #20). A target with more than one
//!   name is therefore written in place, after the whole new contents are
//!   written and synced to the temporary file: a reader may see it half
//!   written for that moment, but nothing is lost: if the write in place
//!   fails (a full disk), the temporary file is kept, and the error names
//!   it.

use std::io::Write;
use std::path::{Path, PathBuf};

/// A checked place to write: standard output, or a regular file (which
/// may not exist yet) whose directory exists and takes a temporary file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Standard output, written as a stream.
    Stdout,
    /// A regular file: `path` is the file written (a symlink's target),
    /// `named` what the user named.
    File { path: PathBuf, named: PathBuf },
}

/// Names that mean standard output, never a file to rename over.
fn is_stream_name(p: &Path) -> bool {
    ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
        .iter()
        .any(|s| p.as_os_str() == *s)
}

/// [`Output::check`] for a command: the error names the output.
pub fn checked(named: Option<&Path>) -> Result<Output, String> {
    Output::check(named).map_err(|e| {
        let shown = named.unwrap_or(Path::new("")).display();
        format!("cannot write {shown}: {e}")
    })
}

/// [`checked`], and a file that exists already taken only with `force`
/// (`export` and `import`).
pub fn checked_new(named: Option<&Path>, force: bool) -> Result<Output, String> {
    let output = checked(named)?;
    if output.exists() && !force {
        return Err(format!(
            "{} exists; pass --force to replace it",
            output.display()
        ));
    }
    Ok(output)
}

impl Output {
    /// The output `named` (`None`: standard output), checked before any
    /// work: a symlink is resolved to its target, a directory, a device,
    /// a FIFO or a socket is refused, and a temporary file must be
    /// creatable beside the target. The error says why, without the path
    /// (the caller names it).
    pub fn check(named: Option<&Path>) -> std::io::Result<Output> {
        let Some(named) = named.filter(|n| !is_stream_name(n)) else {
            return Ok(Output::Stdout);
        };
        let path = resolve(named)?;
        match std::fs::metadata(&path) {
            Ok(m) if m.is_dir() => return Err(std::io::Error::other("it is a directory")),
            Ok(m) if !m.is_file() => return Err(not_regular()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let dir = parent(&path);
        if !dir.is_dir() {
            return Err(std::io::Error::other("its directory does not exist"));
        }
        // Created and removed at once: a digest that cannot be written
        // after its run would lose its new items, which the state already
        // counts as seen.
        drop(temp_in(&path)?);
        Ok(Output::File {
            path,
            named: named.to_path_buf(),
        })
    }

    /// Whether the file exists (standard output never "exists").
    pub fn exists(&self) -> bool {
        match self {
            Output::Stdout => false,
            Output::File { path, .. } => path.exists(),
        }
    }

    /// What to call this output in a message.
    pub fn display(&self) -> String {
        match self {
            Output::Stdout => "standard output".to_string(),
            Output::File { named, .. } => named.display().to_string(),
        }
    }

    /// Writes `contents`: a stream to standard output, or atomically to
    /// the file (see the module docs).
    pub fn write(&self, contents: &[u8]) -> std::io::Result<()> {
        match self {
            Output::Stdout => {
                let mut so = std::io::stdout().lock();
                so.write_all(contents)?;
                so.flush()
            }
            Output::File { path, .. } => write_atomic(path, contents),
        }
    }
}

fn not_regular() -> std::io::Error {
    std::io::Error::other(
        "it is not a regular file (a device, FIFO or socket); name a file, or `-` for standard output",
    )
}

/// A symlink's target (followed to the end), else the path itself. A
/// dangling symlink is refused.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(path).map_err(|e| {
            std::io::Error::other(format!(
                "it is a symlink whose target cannot be reached ({e})"
            ))
        }),
        _ => Ok(path.to_path_buf()),
    }
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// A new temporary file beside `path`: `.NAME.` + random + `.tmp`,
/// created with `O_CREAT|O_EXCL` (by `tempfile`), so a planted file or
/// link of that name makes it pick another name instead of writing
/// through it. Mode 0666 less the umask, as any new file.
fn temp_in(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::other("not a file path"))?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut b = tempfile::Builder::new();
    b.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        b.permissions(std::fs::Permissions::from_mode(0o666));
    }
    b.tempfile_in(parent(path))
}

/// Writes `contents` to the regular file `path` (a resolved target)
/// atomically, keeping an existing file's permissions and owner.
pub fn write_atomic(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let existing = match std::fs::metadata(path) {
        Ok(m) if !m.is_file() => return Err(not_regular()),
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let mut tmp = temp_in(path)?;
    tmp.write_all(contents)?;
    if let Some(m) = &existing {
        tmp.as_file().set_permissions(m.permissions())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            // Only root (or a member of the group) may give the file
            // away; where the process may not, it stays the writer's.
            let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(m.uid()), Some(m.gid()));
        }
    }
    tmp.as_file().sync_all()?;
    if existing.as_ref().is_some_and(|m| links(m) > 1) {
        return write_in_place(path, contents, tmp);
    }
    // On error the temporary file is removed when `e.file` drops.
    tmp.persist(path).map_err(|e| e.error)?;
    // The rename itself, on disk: best effort (not every file system lets
    // a directory be opened and synced).
    if let Ok(d) = std::fs::File::open(parent(path)) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// How many names the file has (1 where the platform does not say).
fn links(m: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        m.nlink()
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        1
    }
}

/// Writes `contents` over the file `path` itself, every name of it seeing
/// the new contents; `tmp` already holds them, synced. On success `tmp`
/// is removed; on failure it is kept, and the error says where.
fn write_in_place(
    path: &Path,
    contents: &[u8],
    tmp: tempfile::NamedTempFile,
) -> std::io::Result<()> {
    let write = || -> std::io::Result<()> {
        // No O_TRUNC: the file is cut to length only once the new
        // contents are in, so it is never empty on the way.
        let mut f = std::fs::OpenOptions::new().write(true).open(path)?;
        f.write_all(contents)?;
        f.set_len(contents.len() as u64)?;
        f.sync_all()
    };
    match write() {
        Ok(()) => tmp.close(),
        Err(e) => {
            let kept = tmp.into_temp_path().keep().map_err(|k| k.error)?;
            Err(std::io::Error::new(
                e.kind(),
                format!(
                    "{e} (writing over it in place, to keep its other hard links; the whole \
                     new contents are in {})",
                    kept.display()
                ),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(tag: &str) -> tempfile::TempDir {
        tempfile::Builder::new()
            .prefix(&format!("wr-output-{tag}"))
            .tempdir()
            .unwrap()
    }

    #[test]
    fn atomic_write_replaces_whole_file_and_leaves_no_temporary() {
        let d = dir("whole");
        let p = d.path().join("digest.md");
        write_atomic(&p, b"one").unwrap();
        write_atomic(&p, b"two").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("digest.md")]);
    }

    #[test]
    fn stream_names_are_standard_output() {
        for n in ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
            assert_eq!(Output::check(Some(Path::new(n))).unwrap(), Output::Stdout);
        }
        assert_eq!(Output::check(None).unwrap(), Output::Stdout);
    }

    /// The old temporary name was `.NAME.tmp-PID`: a link planted there
    /// truncated whatever it pointed at. The temporary file is now random
    /// and exclusive: a link at the old name is left alone.
    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_the_old_temporary_name_is_not_followed() {
        let d = dir("planted");
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let p = d.path().join("digest.md");
        let planted = d
            .path()
            .join(format!(".digest.md.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_atomic(&p, b"digest").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&p).unwrap(), b"digest");
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let d = dir("mode");
        let p = d.path().join("digest.md");
        std::fs::write(&p, b"old").unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
        write_atomic(&p, b"new").unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600);
    }

    /// Issue #20: the rename gave the target a new file, and its other
    /// hard links kept the old contents. Every name now sees the new
    /// contents, no temporary file is left, and a file with one name is
    /// still replaced by a rename (a new inode).
    #[cfg(unix)]
    #[test]
    fn hard_links_are_kept() {
        use std::os::unix::fs::MetadataExt;
        let d = dir("links");
        let p = d.path().join("digest.md");
        let other = d.path().join("synced-digest.md");
        std::fs::write(&p, b"an old and longer digest").unwrap();
        std::fs::hard_link(&p, &other).unwrap();
        let ino = std::fs::metadata(&p).unwrap().ino();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        assert_eq!(std::fs::read(&other).unwrap(), b"new");
        assert_eq!(std::fs::metadata(&p).unwrap().ino(), ino);
        assert_eq!(std::fs::metadata(&p).unwrap().nlink(), 2);
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 2);
        std::fs::remove_file(&other).unwrap();
        write_atomic(&p, b"newer").unwrap();
        assert_ne!(
            std::fs::metadata(&p).unwrap().ino(),
            ino,
            "one name: renamed"
        );
        assert_eq!(std::fs::read(&p).unwrap(), b"newer");
    }

    /// README: "a directory, device, FIFO or socket is refused before
    /// anything is fetched" (the socket and the directory; the device
    /// below, the FIFO in cli/tests/it/output_files.rs).
    #[cfg(unix)]
    #[test]
    fn a_socket_or_a_directory_is_refused() {
        let d = dir("socket");
        let sock = d.path().join("digest.sock");
        let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        let e = Output::check(Some(&sock)).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = Output::check(Some(d.path())).unwrap_err();
        assert!(e.to_string().contains("directory"), "{e}");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(&sock).unwrap().file_type().is_socket());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_device_is_refused() {
        let e = Output::check(Some(Path::new("/dev/null"))).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = write_atomic(Path::new("/dev/null"), b"x").unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }
}
