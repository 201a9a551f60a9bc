//! One run at a time per state directory (R4a across processes).
//!
//! R4 keeps one request in flight per host, spaced by max(1 s,
//! Crawl-delay), and R8 fetches a source at most once an hour. Inside one
//! process the gate and the scheduler hold both; two `wr-feeds` processes
//! on one state directory each had their own gate, so a host saw up to
//! three requests in flight, gaps under a second, a robots.txt fetched
//! again a second after another process had stored its Crawl-delay, and
//! every source fetched by each process.
//!
//! The cure chosen is the simplest that holds every property at once: a
//! process that opens the pipeline takes an exclusive advisory lock on
//! `<state dir>/lock` and keeps it until the pipeline is dropped. A second
//! process waits for it (up to [`crate::config::Config::lock_wait`], saying
//! so), then opens the store and finds everything the first one learned:
//! robots.txt with its Crawl-delay, the per-host schedule, R8's last runs,
//! the items seen. A lease per host in SQLite would let runs overlap on
//! different hosts, at the price of a protocol where one bug is a second
//! request in flight; a daily digest gains nothing from that overlap.
//!
//! The lock is the operating system's (`flock` on Unix, `LockFileEx` on
//! Windows, through `std::fs::File::try_lock`): it is released when the
//! process ends, however it ends, so a killed run never leaves a stale
//! lock behind.
//!
//! On Unix the state directory itself is locked too (a directory opened
//! read-only takes `flock` like a file). A lock on `lock` alone was lost
//! when the file was deleted during a run: the next run created a new
//! `lock`, locked it at once, and two runs had requests in flight to one
//! host (issue #20). The directory cannot be replaced under a run without
//! taking the store with it. The `lock` file is still locked, second, so
//! that a run of an older wr-feeds, which knows only the file, is kept
//! out as before.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The held lock; released on drop.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
    /// The state directory, locked (Unix).
    _dir: Option<File>,
    path: PathBuf,
}

/// Why the lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The lock file could not be created or locked.
    #[error("cannot lock {}: {source}", path.display())]
    Io {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Another process held it for longer than we wait.
    #[error(
        "another wr-feeds run still holds {} after {} s; try again when it has finished",
        path.display(),
        waited.as_secs()
    )]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        waited: Duration,
    },
}

impl RunLock {
    /// Takes the lock of state directory `dir` (created if missing),
    /// waiting up to `wait` while another process holds it; `on_wait` is
    /// called once, when the first attempt finds it held.
    pub fn acquire(
        dir: &Path,
        wait: Duration,
        on_wait: &mut dyn FnMut(&Path),
    ) -> Result<RunLock, LockError> {
        let path = dir.join("lock");
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        // The directory first, then the file, always in that order.
        #[cfg(unix)]
        let dir_handle = Some(File::open(dir).map_err(io)?);
        #[cfg(not(unix))]
        let dir_handle: Option<File> = None;
        let mut dir_locked = dir_handle.is_none();
        // Wall time, not the pipeline's clock: this waits for another
        // process, which a virtual clock knows nothing of.
        let started = Instant::now();
        let mut told = false;
        loop {
            if !dir_locked {
                match dir_handle.as_ref().map(File::try_lock) {
                    Some(Ok(())) | None => dir_locked = true,
                    Some(Err(TryLockError::WouldBlock)) => {}
                    Some(Err(TryLockError::Error(e))) => return Err(io(e)),
                }
            }
            if dir_locked {
                match file.try_lock() {
                    Ok(()) => {
                        return Ok(RunLock {
                            _file: file,
                            _dir: dir_handle,
                            path,
                        })
                    }
                    Err(TryLockError::WouldBlock) => {}
                    Err(TryLockError::Error(e)) => return Err(io(e)),
                }
            }
            let waited = started.elapsed();
            if waited >= wait {
                return Err(LockError::Busy { path, waited });
            }
            if !told {
                on_wait(&path);
                told = true;
            }
            std::thread::sleep(Duration::from_millis(100).min(wait - waited));
        }
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_then_gives_up_and_gets_it_once_free() {
        let dir = std::env::temp_dir().join(format!("wr-lock-{}", std::process::id()));
        let first = RunLock::acquire(&dir, Duration::ZERO, &mut |_| {}).unwrap();
        let mut told = 0;
        let e = RunLock::acquire(&dir, Duration::from_millis(250), &mut |_| told += 1)
            .expect_err("held by the first");
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
        assert!(e.to_string().contains("another wr-feeds run"), "{e}");
        assert_eq!(told, 1);
        drop(first);
        let again = RunLock::acquire(&dir, Duration::ZERO, &mut |_| {}).unwrap();
        assert_eq!(again.path(), dir.join("lock"));
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Issue #20: deleting `lock` during a run let a second run in at once.
    #[cfg(unix)]
    #[test]
    fn a_deleted_lock_file_does_not_let_a_second_run_in() {
        let dir = std::env::temp_dir().join(format!("wr-lock-deleted-{}", std::process::id()));
        let first = RunLock::acquire(&dir, Duration::ZERO, &mut |_| {}).unwrap();
        std::fs::remove_file(dir.join("lock")).unwrap();
        let e = RunLock::acquire(&dir, Duration::from_millis(150), &mut |_| {})
            .expect_err("the first run still holds the state directory");
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
        drop(first);
        let again = RunLock::acquire(&dir, Duration::ZERO, &mut |_| {}).unwrap();
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
