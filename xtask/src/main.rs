//! `cargo xtask`: project automation, in Rust so it runs wherever cargo does.
//!
//! - `cargo xtask bench [suite]`: the GPPC-style benchmark (see `bench`).
//! - `cargo xtask conformance`: every query of the benchmark corpus through every engine.
//! - `cargo xtask tidy`: layering and documentation rules (also run by `cargo test`).

#![forbid(unsafe_code)]

mod bench;
mod conformance;
mod gpu;
mod ptx;
mod tidy;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(name = "xtask", about = "cuplan project automation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Benchmark the grid searches (default), or another suite.
    Bench(Box<bench::Args>),
    /// Run the conformance test on every query of ../shared/data (the default test samples).
    Conformance(conformance::Args),
    /// Check the crate layering rule and the documentation rules.
    Tidy,
    /// Build the CUDA kernels to the committed PTX (`--check`: fail if it is stale).
    Ptx(ptx::Args),
    /// Build the self-contained GPU parity/benchmark binary and run it.
    GpuTest(gpu::Args),
    /// The linker step of the nvptx64 build (called by rustc through `cargo xtask ptx`).
    #[command(hide = true)]
    PtxLink {
        /// rustc's linker arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
}

fn main() -> anyhow::Result<()> {
    match Cli::parse().command {
        Command::Bench(args) => bench::run(&args),
        Command::Conformance(args) => conformance::run(&args),
        Command::Ptx(args) => ptx::run(&args),
        Command::GpuTest(args) => gpu::run(&args),
        Command::PtxLink { args } => ptx::link(&args),
        Command::Tidy => {
            let root = tidy::workspace_root();
            let problems = tidy::check(&root)?;
            if problems.is_empty() {
                println!("tidy: ok");
                Ok(())
            } else {
                for p in &problems {
                    eprintln!("tidy: {p}");
                }
                anyhow::bail!("{} tidy problem(s)", problems.len())
            }
        }
    }
}
