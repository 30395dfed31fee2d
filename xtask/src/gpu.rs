//! `cargo xtask gpu-test`: builds the self-contained GPU check binary `cuplan-gpu-test`
//! (crate cuplan-wavefront-gpu, feature `gpu-test`) and runs it.
//!
//! The binary needs no Rust toolchain where it runs: it embeds the PTX and loads the CUDA
//! driver library at run time. Copy `target-gpu-test/cuplan-gpu-test` to a GPU machine and run
//! it there; on a machine without a CUDA driver or device it prints why and exits 0 (or 1 with
//! `--require-gpu`).

use std::path::PathBuf;
use std::process::Command;

use anyhow::{Context, ensure};

/// Arguments of `cargo xtask gpu-test`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Only build (and copy) the binary; do not run it.
    #[arg(long)]
    pub(crate) build_only: bool,
    /// Arguments passed to the binary (see `cuplan-gpu-test --help`).
    #[arg(last = true)]
    pub(crate) rest: Vec<String>,
}

/// Runs `cargo xtask gpu-test`.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let root = crate::tidy::workspace_root();
    // Its own target dir: the outer cargo still holds the workspace one.
    let target_dir = std::env::var_os("CUPLAN_GPU_TEST_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target-gpu-test"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args([
            "build",
            "--release",
            "-p",
            "cuplan-wavefront-gpu",
            "--features",
            "gpu-test",
        ])
        .args(["--bin", "cuplan-gpu-test"])
        .env("CARGO_TARGET_DIR", &target_dir)
        .current_dir(&root)
        .status()
        .context("running cargo build for cuplan-gpu-test")?;
    ensure!(status.success(), "building cuplan-gpu-test failed");
    let built = target_dir.join("release/cuplan-gpu-test");
    let copy = target_dir.join("cuplan-gpu-test");
    std::fs::copy(&built, &copy).with_context(|| format!("copying {}", built.display()))?;
    println!(
        "gpu-test: built {} (self-contained; copy it to a GPU machine)",
        copy.display()
    );
    if args.build_only {
        return Ok(());
    }
    let data = root.join("../shared/data");
    let status = Command::new(&copy)
        .arg("--data")
        .arg(&data)
        .args(&args.rest)
        .status()
        .with_context(|| format!("running {}", copy.display()))?;
    ensure!(status.success(), "cuplan-gpu-test failed ({status})");
    Ok(())
}
