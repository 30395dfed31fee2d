//! `cargo xtask conformance`: the full-data conformance run. Every query of the Moving AI
//! corpus under `../shared/data` through every JPS-family engine (`cargo test --workspace`
//! checks only a deterministic sample). Skips with a message where the data is absent.

use std::process::Command;

/// Arguments of `cargo xtask conformance`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Extra arguments for the test harness (after `--`), e.g. `--exact NAME`.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    harness: Vec<String>,
}

/// Runs `cargo test -p cuplan-jps --test conformance` (test profile, opt-level 3) with
/// `CUPLAN_CONFORMANCE=full`, showing the test's report of what it checked.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .current_dir(crate::tidy::workspace_root())
        .env("CUPLAN_CONFORMANCE", "full")
        .args([
            "test",
            "-p",
            "cuplan-jps",
            "--profile",
            "test",
            "--test",
            "conformance",
            "--",
            "--nocapture",
        ])
        .args(&args.harness)
        .status()?;
    anyhow::ensure!(status.success(), "conformance run failed ({status})");
    Ok(())
}
