//! Records the git commit the binary is built from, for the R13 `sha` tag
//! (spec 22.1: "git rev-parse --short HEAD (local)"). `GITHUB_SHA` at run
//! time still wins. Without git the tag says `dev`.

fn main() {
    println!("cargo:rerun-if-changed=../.git/HEAD");
    println!("cargo:rerun-if-changed=../.git/refs/heads");
    println!("cargo:rerun-if-env-changed=WR_GIT_SHA");
    let sha = std::env::var("WR_GIT_SHA").ok().or_else(|| {
        std::process::Command::new("git")
            .args(["rev-parse", "--short=7", "HEAD"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_string())
    });
    if let Some(sha) = sha.filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_hexdigit())) {
        println!("cargo:rustc-env=WR_GIT_SHA={sha}");
    }
}
