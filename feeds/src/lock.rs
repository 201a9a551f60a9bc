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
//! process waits for it (see "How long a run waits" below, saying so and
//! how long so far), then opens the store and finds everything the first
//! one learned:
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
//!
//! # How long a run waits
//!
//! As long as the run it waits for, while that run makes progress. A fixed
//! 30 minutes was shorter than an honest run: 1,000 sources on hosts with
//! `Crawl-delay: 2` take 33.5 minutes, and the waiting run gave up on a
//! run that was doing its job (issue #20). The holder now beats a heart:
//! it touches the `lock` file's modification time as its pipeline steps
//! ([`RunLock::beat`], at most once a second). A waiting run watches that
//! time and gives up only when
//!
//! - it has not changed for [`LockWait::stall`] (default 10 minutes,
//!   [`crate::config::DEFAULT_LOCK_STALL`]): twice the longest a working
//!   run goes without a step (a wait of at most
//!   [`crate::config::DEFAULT_MAX_WAIT`], 5 minutes, or one request's
//!   timeout). A run that is stuck, or of an older wr-feeds that beats no
//!   heart, is given up on after that long; or
//! - it has waited [`LockWait::most`] in all (default 24 hours,
//!   [`crate::config::DEFAULT_LOCK_WAIT`]): runs of a daily digest are not
//!   worth stacking for longer than a day.
//!
//! The silence is measured on the waiting process's own monotonic clock,
//! from the last change it saw, so two machines' clocks (a shared state
//! directory) or a clock stepped during the wait do not shorten it.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long [`RunLock::acquire`] waits for a run that holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockWait {
    /// Give up when the holder's heartbeat has not changed for this long.
    pub stall: Duration,
    /// Give up after this long in all, progress or not.
    pub most: Duration,
    /// Call `on_wait` again after each such interval of waiting.
    pub report_every: Duration,
}

impl LockWait {
    /// Do not wait at all (`reset`, which never waits for a run).
    pub const NONE: LockWait = LockWait {
        stall: Duration::ZERO,
        most: Duration::ZERO,
        report_every: Duration::MAX,
    };
}

/// The held lock; released on drop.
#[derive(Debug)]
pub struct RunLock {
    file: File,
    /// The state directory, locked (Unix).
    _dir: Option<File>,
    path: PathBuf,
    /// When [`RunLock::beat`] last touched the file.
    last_beat: Option<Instant>,
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
    /// Another process held it for longer than we wait in all.
    #[error(
        "another wr-feeds run still holds {} after {} s of waiting, the most a run waits; \
         try again when it has finished",
        path.display(),
        waited.as_secs()
    )]
    Busy {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        waited: Duration,
    },
    /// The process holding it made no progress for [`LockWait::stall`].
    #[error(
        "another wr-feeds run holds {} but has made no progress for {} s (waited {} s in all): \
         it may be stuck, or an older wr-feeds; try again when it has finished",
        path.display(),
        silent.as_secs(),
        waited.as_secs()
    )]
    Stalled {
        /// The lock file.
        path: PathBuf,
        /// How long we waited.
        waited: Duration,
        /// How long its heartbeat had not changed.
        silent: Duration,
    },
}

/// The holder's heartbeat as this process sees it: the lock file's
/// modification time (`None` when it cannot be read, e.g. deleted).
fn heartbeat(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// One attempt at the locks, the directory's first (kept once taken, in
/// `dir_locked`), then the file's: whether both are held now.
fn try_take(dir: Option<&File>, dir_locked: &mut bool, file: &File) -> std::io::Result<bool> {
    if !*dir_locked {
        match dir.map(File::try_lock) {
            Some(Ok(())) | None => *dir_locked = true,
            Some(Err(TryLockError::WouldBlock)) => return Ok(false),
            Some(Err(TryLockError::Error(e))) => return Err(e),
        }
    }
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(TryLockError::WouldBlock) => Ok(false),
        Err(TryLockError::Error(e)) => Err(e),
    }
}

impl RunLock {
    /// Takes the lock of state directory `dir` (created if missing),
    /// waiting as `wait` says while another process holds it (see the
    /// module docs); `on_wait` is called with the lock file and how long
    /// it has waited so far when the first attempt finds it held, then
    /// after each [`LockWait::report_every`] of waiting.
    pub fn acquire(
        dir: &Path,
        wait: LockWait,
        on_wait: &mut dyn FnMut(&Path, Duration),
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
        let mut told: Option<Duration> = None;
        let mut seen = heartbeat(&path);
        let mut seen_at = started;
        loop {
            if try_take(dir_handle.as_ref(), &mut dir_locked, &file).map_err(io)? {
                return Ok(RunLock {
                    file,
                    _dir: dir_handle,
                    path,
                    last_beat: None,
                });
            }
            let now = Instant::now();
            let waited = now.duration_since(started);
            let beat = heartbeat(&path);
            if beat != seen {
                seen = beat;
                seen_at = now;
            }
            let silent = now.duration_since(seen_at);
            if waited >= wait.most {
                return Err(LockError::Busy { path, waited });
            }
            if silent >= wait.stall {
                return Err(LockError::Stalled {
                    path,
                    waited,
                    silent,
                });
            }
            let due = match told {
                None => true,
                Some(at) => waited.saturating_sub(at) >= wait.report_every,
            };
            if due {
                on_wait(&path, waited);
                told = Some(waited);
            }
            let left = (wait.most - waited).min(wait.stall - silent);
            std::thread::sleep(Duration::from_millis(100).min(left));
        }
    }

    /// Says "still working" to a run waiting for this one: touches the
    /// lock file's modification time, at most once a second. Best effort:
    /// a file system that refuses costs the waiting run its patience
    /// ([`LockWait::stall`]), never a second run in (the lock is held).
    pub fn beat(&mut self) {
        let now = Instant::now();
        if self
            .last_beat
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            return;
        }
        self.last_beat = Some(now);
        let _ = self.file.set_modified(SystemTime::now());
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
        let first = RunLock::acquire(&dir, LockWait::NONE, &mut |_, _| {}).unwrap();
        let mut told = 0;
        let wait = LockWait {
            stall: Duration::from_secs(60),
            most: Duration::from_millis(250),
            report_every: Duration::from_secs(60),
        };
        let e = RunLock::acquire(&dir, wait, &mut |_, _| told += 1).expect_err("held by the first");
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
        assert!(e.to_string().contains("another wr-feeds run"), "{e}");
        assert_eq!(told, 1);
        drop(first);
        let again = RunLock::acquire(&dir, LockWait::NONE, &mut |_, _| {}).unwrap();
        assert_eq!(again.path(), dir.join("lock"));
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Issue #20: deleting `lock` during a run let a second run in at once.
    #[cfg(unix)]
    #[test]
    fn a_deleted_lock_file_does_not_let_a_second_run_in() {
        let dir = std::env::temp_dir().join(format!("wr-lock-deleted-{}", std::process::id()));
        let first = RunLock::acquire(&dir, LockWait::NONE, &mut |_, _| {}).unwrap();
        std::fs::remove_file(dir.join("lock")).unwrap();
        let wait = LockWait {
            stall: Duration::from_secs(60),
            most: Duration::from_millis(150),
            report_every: Duration::from_secs(60),
        };
        let e = RunLock::acquire(&dir, wait, &mut |_, _| {})
            .expect_err("the first run still holds the state directory");
        assert!(matches!(e, LockError::Busy { .. }), "{e}");
        drop(first);
        let again = RunLock::acquire(&dir, LockWait::NONE, &mut |_, _| {}).unwrap();
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Issue #20: a waiting run gave up after a fixed 30 minutes, though an
    /// honest run of 1,000 sources at Crawl-delay 2 takes 33.5. It now
    /// waits as long as the holder beats its heart, well past `stall`
    /// (here 400 ms, the holder working for 1.5 s), says how long it has
    /// waited so far, and gets the lock when the holder ends. With the old
    /// fixed wait of `stall`, it gave up at 400 ms.
    #[test]
    fn a_waiting_run_waits_as_long_as_the_holder_makes_progress() {
        let dir = std::env::temp_dir().join(format!("wr-lock-beat-{}", std::process::id()));
        let mut first = RunLock::acquire(&dir, LockWait::NONE, &mut |_, _| {}).unwrap();
        let holder = std::thread::spawn(move || {
            let started = Instant::now();
            while started.elapsed() < Duration::from_millis(1500) {
                // `beat` touches at most once a second; the test's holder
                // steps faster than that, so it forgets its last beat.
                first.last_beat = None;
                first.beat();
                std::thread::sleep(Duration::from_millis(50));
            }
            drop(first);
        });
        let wait = LockWait {
            stall: Duration::from_millis(400),
            most: Duration::from_secs(120),
            report_every: Duration::from_millis(300),
        };
        let started = Instant::now();
        let mut reports = Vec::new();
        let got = RunLock::acquire(&dir, wait, &mut |_, waited| reports.push(waited));
        let waited = started.elapsed();
        holder.join().unwrap();
        let got = got.expect("the holder made progress until it ended");
        assert!(waited >= Duration::from_millis(1400), "{waited:?}");
        assert!(reports.len() >= 3, "{reports:?}");
        assert!(reports[0] < Duration::from_millis(100), "{reports:?}");
        assert!(
            reports.windows(2).all(|w| w[1] > w[0]),
            "each report says how long so far: {reports:?}"
        );
        drop(got);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A holder that stops beating (stuck, or an older wr-feeds) is given
    /// up on after `stall` of silence, with a message that says so.
    #[test]
    fn a_silent_holder_is_given_up_on_after_the_stall() {
        let dir = std::env::temp_dir().join(format!("wr-lock-silent-{}", std::process::id()));
        let first = RunLock::acquire(&dir, LockWait::NONE, &mut |_, _| {}).unwrap();
        let wait = LockWait {
            stall: Duration::from_millis(300),
            most: Duration::from_secs(120),
            report_every: Duration::from_secs(60),
        };
        let e = RunLock::acquire(&dir, wait, &mut |_, _| {}).expect_err("silent holder");
        assert!(matches!(e, LockError::Stalled { .. }), "{e}");
        assert!(e.to_string().contains("no progress"), "{e}");
        drop(first);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
