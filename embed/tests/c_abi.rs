//! The C ABI from C: `tests/c/embed_driver.c`, compiled with the host C
//! compiler (found by the `cc` crate, which honours `CC` and `CFLAGS`)
//! against the committed header `include/wr_core_embed.h`, linked with the
//! staticlib this test builds (profile `embed`, feature `standalone`), and
//! run. Every vector of tests/common goes through it, and its own C-side
//! checks of null pointers, storage and buffers must pass.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::OnceLock;

use common::{Answer, Embedding, Mode};

/// The arguments `.ci/run` would build the staticlib with (same target
/// directory as the other artefacts).
const BUILD: &[&str] = &[
    "rustc",
    "-p",
    "wr-core-embed",
    "--lib",
    "--crate-type",
    "staticlib",
    "--profile",
    "embed",
    "--features",
    "standalone",
];

fn host_triple() -> String {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(&rustc)
        .arg("-vV")
        .output()
        .unwrap_or_else(|e| panic!("{rustc:?} -vV: {e}"));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV names the host")
        .to_string()
}

/// Builds the staticlib and compiles and links the driver, once.
fn driver_path() -> &'static Path {
    static DRIVER: OnceLock<PathBuf> = OnceLock::new();
    DRIVER.get_or_init(|| {
        common::cargo_build("the C staticlib", BUILD, "");
        let dir = common::artefact_target_dir();
        let lib = dir.join("embed/libwr_core_embed.a");
        assert!(lib.is_file(), "{} was not built", lib.display());
        let here = Path::new(env!("CARGO_MANIFEST_DIR"));
        let exe = dir.join("embed_driver");
        let host = host_triple();
        let compiler = cc::Build::new()
            .target(&host)
            .host(&host)
            .opt_level(1)
            .debug(false)
            .cargo_metadata(false)
            .emit_rerun_if_env_changed(false)
            .try_get_compiler()
            .unwrap_or_else(|e| {
                panic!("no C compiler for {host} (install gcc or clang, or set CC): {e}")
            });
        let mut cmd = compiler.to_command();
        cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic"])
            .arg("-I")
            .arg(here.join("include"))
            .arg(here.join("tests/c/embed_driver.c"))
            .arg(&lib)
            .arg("-o")
            .arg(&exe);
        let out = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler {cmd:?}: {e}"));
        assert!(
            out.status.success(),
            "compiling the C driver failed: {cmd:?}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        exe
    })
}

fn hex(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "-".into();
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(field: &str) -> Option<Vec<u8>> {
    match field {
        "null" => None,
        "-" => Some(Vec::new()),
        _ => Some(
            (0..field.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&field[i..i + 2], 16).expect("hex from the driver"))
                .collect(),
        ),
    }
}

struct Driver {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Driver {
    fn start() -> Driver {
        let mut child = Command::new(driver_path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the C driver starts");
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Driver {
            child,
            stdin,
            stdout,
        }
    }

    fn ask(&mut self, command: &str) -> String {
        writeln!(self.stdin, "{command}").expect("the driver reads");
        self.stdin.flush().expect("the driver reads");
        let mut answer = String::new();
        self.stdout
            .read_line(&mut answer)
            .expect("the driver answers");
        assert!(
            !answer.is_empty(),
            "the C driver stopped answering after {:.80}",
            command
        );
        answer.trim_end().to_string()
    }

    fn number<T: std::str::FromStr>(field: Option<&str>, answer: &str) -> T {
        field
            .and_then(|f| f.parse().ok())
            .unwrap_or_else(|| panic!("unexpected answer {answer:?}"))
    }

    /// Ends the driver; it must exit with status 0.
    fn finish(mut self) {
        drop(self.stdin);
        let status = self.child.wait().expect("the driver exits");
        assert!(status.success(), "the C driver exited with {status}");
    }
}

impl Embedding for Driver {
    fn parse(&mut self, mode: Mode, body: &[u8], token: &[u8]) -> i32 {
        let a = self.ask(&format!(
            "parse {} {} {}",
            mode.key(),
            hex(token),
            hex(body)
        ));
        Driver::number(Some(&a), &a)
    }

    fn allowed(&mut self, path: &[u8]) -> (i32, Answer) {
        let a = self.ask(&format!("allowed {}", hex(path)));
        let f: Vec<&str> = a.split(' ').collect();
        assert_eq!(f.len(), 7, "unexpected answer {a:?}");
        let answer = Answer {
            allowed: Driver::number(Some(f[1]), &a),
            overflow: Driver::number(Some(f[2]), &a),
            reading: Driver::number(Some(f[3]), &a),
            rule_kind: Driver::number(Some(f[4]), &a),
            rule_line: Driver::number(Some(f[5]), &a),
            pattern: unhex(f[6]),
        };
        (Driver::number(Some(f[0]), &a), answer)
    }

    fn crawl_delay_ms(&mut self) -> (i32, u64) {
        let a = self.ask("delay");
        let mut f = a.split(' ');
        (Driver::number(f.next(), &a), Driver::number(f.next(), &a))
    }

    fn rule_count(&mut self) -> i32 {
        let a = self.ask("count");
        Driver::number(Some(&a), &a)
    }

    fn overflowed(&mut self) -> i32 {
        let a = self.ask("overflowed");
        Driver::number(Some(&a), &a)
    }

    fn host_matches(&mut self, host: &[u8], domain: &[u8]) -> i32 {
        let a = self.ask(&format!("host {} {}", hex(host), hex(domain)));
        Driver::number(Some(&a), &a)
    }

    fn host_matches_any(&mut self, host: &[u8], domains: &[&[u8]]) -> (i32, usize) {
        let mut command = format!("hostany {}", hex(host));
        for d in domains {
            command.push(' ');
            command.push_str(&hex(d));
        }
        let a = self.ask(&command);
        let mut f = a.split(' ');
        let ret = Driver::number(f.next(), &a);
        let index = match f.next() {
            Some("none") => usize::MAX,
            other => Driver::number(other, &a),
        };
        (ret, index)
    }
}

#[test]
fn every_vector_through_the_c_abi_from_c() {
    let mut driver = Driver::start();
    let report = common::run_all(&mut driver);
    driver.finish();
    report.assert("C", common::MIN_CHECKS);
}

#[test]
fn the_c_side_checks_pass() {
    let mut driver = Driver::start();
    let answer = driver.ask("selftest");
    let checks: usize = answer
        .strip_prefix("ok ")
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the C self-test: {answer}"));
    // Every EXPECT of the source ran (the macro's own definition aside).
    let source = include_str!("c/embed_driver.c");
    let written = source.matches("EXPECT(").count() - 1;
    assert_eq!(checks, written, "the C self-test stopped early");
    let size: usize = driver.ask("size").parse().expect("a size");
    assert_eq!(
        size,
        wr_core_embed::fixed::wr_fixed_policy_size(),
        "same build, same layout"
    );
    driver.finish();
}

#[test]
fn the_driver_refuses_what_it_cannot_read() {
    let mut child = Command::new(driver_path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the C driver starts");
    writeln!(child.stdin.take().expect("piped"), "frobnicate").expect("the driver reads");
    let out = child.wait_with_output().expect("the driver exits");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown command"));
}
