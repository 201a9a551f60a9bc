//! stderr: messages, colour (off with `NO_COLOR` or when stderr is not a
//! terminal) and the progress bar (only on a terminal, never with `-q`).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;
use wr_feeds::{Event, Progress};

/// Writes `text` to standard output and flushes it. When standard output
/// is gone (a full disk, or a closed pipe, as in `wr-feeds check ... |
/// head -1`) the error names it, and the caller returns it, where
/// `println!` panics: `main` says a full disk in words with exit status 2
/// (issue #20), and ends quietly with 0 on a closed pipe (issue #21).
pub fn print_out(text: &str) -> Result<(), crate::CliError> {
    use std::io::Write;
    let mut so = std::io::stdout().lock();
    so.write_all(text.as_bytes())
        .and_then(|()| so.flush())
        .map_err(stdout_error)
}

/// The error for a failed write to standard output.
pub fn stdout_error(e: std::io::Error) -> crate::CliError {
    crate::CliError::write("to standard output", e)
}

/// How much to say on stderr.
pub struct Ui {
    /// `-q`: errors only.
    pub quiet: bool,
    /// `-v` count.
    pub verbose: u8,
    color: bool,
    bar: Option<ProgressBar>,
    /// Hosts of every request sent (untagged URLs), for selftest.
    pub requests: Vec<String>,
}

impl Ui {
    /// A UI for stderr as it is now.
    pub fn new(quiet: bool, verbose: u8) -> Ui {
        let tty = std::io::stderr().is_terminal();
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var("TERM").is_ok_and(|t| t == "dumb");
        Ui {
            quiet,
            verbose,
            color: tty && !no_color && !dumb,
            bar: None,
            requests: Vec::new(),
        }
    }

    /// Starts a progress bar of `len` steps when stderr is a terminal.
    pub fn start_progress(&mut self, len: u64) {
        if self.quiet || !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::new(len);
        let style = ProgressStyle::with_template("{spinner} [{pos}/{len}] {wide_msg} {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        self.bar = Some(bar);
    }

    /// Removes the progress bar.
    pub fn finish(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    fn line(&self, s: &str) {
        match &self.bar {
            Some(b) => b.suspend(|| eprintln!("{s}")),
            None => eprintln!("{s}"),
        }
    }

    /// An error: always shown.
    pub fn error(&self, msg: &str) {
        self.line(&format!("{} {msg}", self.paint("1;31", "error:")));
    }

    /// A warning: hidden by `-q`.
    pub fn warn(&self, msg: &str) {
        if !self.quiet {
            self.line(&format!("{} {msg}", self.paint("1;33", "warning:")));
        }
    }

    /// Information: hidden by `-q`.
    pub fn info(&self, msg: &str) {
        if !self.quiet {
            self.line(&format!("wr-feeds: {msg}"));
        }
    }

    /// Detail: only with `-v` (level 1) or `-vv` (level 2).
    pub fn detail(&self, level: u8, msg: &str) {
        if !self.quiet && self.verbose >= level {
            self.line(&format!("wr-feeds: {msg}"));
        }
    }

    /// `PASS` / `FAIL` / `SKIP`, coloured.
    pub fn verdict(&self, word: &str) -> String {
        let code = match word {
            "PASS" => "32",
            "FAIL" => "1;31",
            _ => "33",
        };
        self.paint(code, word)
    }
}

impl Progress for Ui {
    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::SourceStarted { name } => {
                if let Some(b) = &self.bar {
                    b.set_message(name.to_string());
                }
                self.detail(2, &format!("source {name}"));
            }
            Event::Request { url } => {
                self.requests.push(url.to_string());
                self.detail(2, &format!("GET {url}"));
            }
            Event::Response { url, status } => {
                if status == 0 {
                    self.detail(2, &format!("    {url}: no response"));
                } else {
                    self.detail(2, &format!("    {url}: {status}"));
                }
            }
            Event::Waiting { duration, .. } => {
                if let Some(b) = &self.bar {
                    b.set_message(format!(
                        "waiting {:.1} s (per-host spacing)",
                        duration.as_secs_f64()
                    ));
                }
                // Sub-50 ms waits (the clock's millisecond rounding) are
                // noise, not a per-host wait worth a line.
                if duration >= std::time::Duration::from_millis(50) {
                    self.detail(2, &format!("waiting {:.1} s", duration.as_secs_f64()));
                }
            }
            Event::SourceDone { name, status } => {
                if let Some(b) = &self.bar {
                    b.inc(1);
                }
                self.detail(1, &format!("{name}: {status}"));
            }
            Event::Notice(msg) => self.warn(msg),
        }
    }
}
