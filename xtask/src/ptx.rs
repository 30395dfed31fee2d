//! `cargo xtask ptx [--check]`: builds the Rust kernels crate (`crates/wavefront-gpu/kernels`)
//! to PTX and writes the committed `crates/wavefront-gpu/ptx/kernels.ptx`, so users and CI
//! never need the device toolchain.
//!
//! Pipeline (see `docs/device-toolchain.md` for why): a nested `cargo rustc --release
//! --target nvptx64-nvidia-cuda -Z build-std=core --crate-type cdylib` with `RUSTC_BOOTSTRAP=1`
//! scoped to that one command, its own target dir and the device profile as `--config`
//! settings ([`DEVICE_PROFILE`]; the crate is a workspace member); the target's linker is
//! replaced (`-C linker=`) by a trampoline into `xtask ptx-link`, which runs the llvm-tools
//! component's `llvm-link` (crate bitcode + needed members of the core rlibs) → `opt`
//! (internalize all but the kernels, globaldce, O3) → `llc --mcpu=sm_80`.
//!
//! `--check` rebuilds into a temp file and fails when it differs from the committed PTX, when
//! a kernel is not an `.entry` or when an `.extern` (an unresolved call, e.g. a panic path)
//! remains; when `ptxas` can be found or installed (the `nvidia-cuda-nvcc-cu12` wheel) it also
//! assembles the PTX for sm_90, and says plainly when it cannot.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, bail, ensure};

/// The PTX ISA target the committed file is built for (Ampere and newer, H100/H200 included).
pub(crate) const ARCH: &str = "sm_80";
/// The architecture `--check` assembles for with `ptxas` (the H200's).
const PTXAS_ARCH: &str = "sm_90";
const DEVICE_TARGET: &str = "nvptx64-nvidia-cuda";
const KERNELS_DIR: &str = "crates/wavefront-gpu/kernels";
const COMMITTED: &str = "crates/wavefront-gpu/ptx/kernels.ptx";
const NVCC_WHEEL: &str = "nvidia-cuda-nvcc-cu12==12.9.86";
/// The device build's profile, given on its command line because the kernels crate is a
/// workspace member (a member's own `[profile]` is ignored) and the workspace's release profile
/// is the host's: no unwinding on the GPU, and the whole crate in one unit so every panic path
/// is optimised away before the PTX is written.
const DEVICE_PROFILE: &[&str] = &[
    "profile.release.opt-level=3",
    "profile.release.panic=\"abort\"",
    "profile.release.codegen-units=1",
    "profile.release.debug=false",
    "profile.release.lto=false",
];

/// Arguments of `cargo xtask ptx`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Rebuild into a temp file and fail if the committed PTX is stale or malformed.
    #[arg(long)]
    check: bool,
}

/// Runs `cargo xtask ptx`.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    let root = crate::tidy::workspace_root();
    let built = build(&root)?;
    let text = std::fs::read_to_string(&built)
        .with_context(|| format!("reading the built PTX {}", built.display()))?;
    let kernels = kernel_names(&root)?;
    validate(&text, &kernels)?;
    let committed = root.join(COMMITTED);
    if args.check {
        let old = std::fs::read_to_string(&committed)
            .with_context(|| format!("reading the committed PTX {}", committed.display()))?;
        ensure!(
            old == text,
            "{} is stale: it differs from a fresh build of {KERNELS_DIR} ({}); run `cargo xtask ptx` \
             and commit the result (the header names the toolchain each was built with)",
            committed.display(),
            built.display()
        );
        println!(
            "ptx: {} is up to date ({} kernels, no .extern)",
            COMMITTED,
            kernels.len()
        );
        assemble_check(&root, &committed)?;
    } else {
        std::fs::write(&committed, &text)
            .with_context(|| format!("writing {}", committed.display()))?;
        println!(
            "ptx: wrote {} ({} kernels: {})",
            COMMITTED,
            kernels.len(),
            kernels.join(", ")
        );
    }
    Ok(())
}

/// The device build's own target dir (a nested cargo on the outer one would deadlock).
fn device_target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CUPLAN_PTX_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target-ptx"))
}

/// Builds the kernels and returns the path of the PTX the linker step wrote, with the header.
fn build(root: &Path) -> anyhow::Result<PathBuf> {
    let target_dir = device_target_dir(root);
    std::fs::create_dir_all(&target_dir)?;
    let llvm = llvm_bin()?;
    let trampoline = write_trampoline(&target_dir)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let manifest = root.join(KERNELS_DIR).join("Cargo.toml");
    // Force the link step to run again, so the PTX always comes from this pipeline.
    let status = Command::new(&cargo)
        .args(["clean", "--release", "--target", DEVICE_TARGET, "-p"])
        .arg("cuplan-wavefront-kernels")
        .arg("--manifest-path")
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", &target_dir)
        .status()
        .context("running cargo clean for the kernels crate")?;
    ensure!(status.success(), "cargo clean of the kernels crate failed");
    let status = Command::new(&cargo)
        .args([
            "rustc",
            "--release",
            "--target",
            DEVICE_TARGET,
            "-Z",
            "build-std=core",
        ])
        .args(
            DEVICE_PROFILE
                .iter()
                .flat_map(|setting| ["--config", setting]),
        )
        .args(["--crate-type", "cdylib", "--manifest-path"])
        .arg(&manifest)
        .arg("--")
        .arg(format!("-Clinker={}", trampoline.display()))
        .env("CARGO_TARGET_DIR", &target_dir)
        // Scoped to this one build: unlocks `abi_ptx`, `stdarch_nvptx` and `-Z build-std`.
        .env("RUSTC_BOOTSTRAP", "1")
        .env(
            "CARGO_TARGET_NVPTX64_NVIDIA_CUDA_RUSTFLAGS",
            format!("-Ctarget-cpu={ARCH}"),
        )
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CUPLAN_LLVM_BIN", &llvm)
        .status()
        .context("running the nested cargo for the nvptx64 build")?;
    ensure!(
        status.success(),
        "the nvptx64 build failed; it needs `rustup component add rust-src llvm-tools`"
    );
    let out = target_dir
        .join(DEVICE_TARGET)
        .join("release/deps/cuplan_wavefront_kernels.ptx");
    ensure!(out.is_file(), "the linker step wrote no {}", out.display());
    let body = std::fs::read_to_string(&out)?;
    let stamped = target_dir.join("kernels.ptx");
    std::fs::write(&stamped, format!("{}{body}", header()?))?;
    Ok(stamped)
}

/// The first lines of the committed PTX: where it comes from and which toolchain built it.
fn header() -> anyhow::Result<String> {
    let rustc = String::from_utf8(
        Command::new(rustc())
            .arg("-V")
            .output()
            .context("running rustc -V")?
            .stdout,
    )?;
    Ok(format!(
        "// Generated by `cargo xtask ptx` from {KERNELS_DIR} ({}, {ARCH}). Do not edit:\n\
         // `cargo xtask ptx --check` fails when this file is stale.\n",
        rustc.trim()
    ))
}

fn rustc() -> OsString {
    std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into())
}

/// The llvm-tools component's bin directory (LLVM of rustc's own version; Debian's older
/// LLVM cannot read rustc's bitcode).
fn llvm_bin() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("CUPLAN_LLVM_BIN") {
        return Ok(PathBuf::from(dir));
    }
    let query = |args: &[&str]| -> anyhow::Result<String> {
        let out = Command::new(rustc()).args(args).output()?;
        Ok(String::from_utf8(out.stdout)?)
    };
    let sysroot = query(&["--print", "sysroot"])?;
    let version = query(&["-vV"])?;
    let host = version
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .context("rustc -vV names no host")?;
    let dir = Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(host)
        .join("bin");
    ensure!(
        dir.join("llvm-link").is_file(),
        "no llvm-link in {}: run `rustup component add llvm-tools rust-src`",
        dir.display()
    );
    Ok(dir)
}

/// A two-line script that calls back into this xtask binary as the linker: rustc puts its own
/// arguments first, so `-C linker=` cannot name a subcommand itself.
fn write_trampoline(target_dir: &Path) -> anyhow::Result<PathBuf> {
    let exe = std::env::current_exe().context("locating the xtask binary")?;
    let path = target_dir.join("ptx-linker.sh");
    let quoted = exe.display().to_string().replace('\'', r"'\''");
    std::fs::write(
        &path,
        format!("#!/bin/sh\nexec '{quoted}' ptx-link \"$@\"\n"),
    )?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(path)
}

/// Arguments rustc passes to the nvptx64 linker (flavour `llbc`), in whatever order.
#[derive(Debug, Default, PartialEq, Eq)]
struct LinkRequest {
    exports: Vec<String>,
    objects: Vec<PathBuf>,
    archives: Vec<PathBuf>,
    cpu: Option<String>,
    output: Option<PathBuf>,
}

fn parse_link_args(args: &[OsString]) -> anyhow::Result<LinkRequest> {
    let mut req = LinkRequest::default();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .with_context(|| format!("linker argument {name} without a value"))
        };
        match arg.to_str() {
            Some("--export-symbol") => req
                .exports
                .push(value("--export-symbol")?.to_string_lossy().into()),
            Some("--target-cpu") => req.cpu = Some(value("--target-cpu")?.to_string_lossy().into()),
            Some("-o") => req.output = Some(value("-o")?.into()),
            Some("-L" | "--target") => {
                value("-L/--target")?;
            }
            _ => {
                let path = PathBuf::from(arg);
                match path.extension().and_then(OsStr::to_str) {
                    Some("o") => req.objects.push(path),
                    Some("rlib" | "a") => req.archives.push(path),
                    // `-O3`, `--debug` and the like: llc and opt get their own settings.
                    _ => {}
                }
            }
        }
    }
    ensure!(
        !req.exports.is_empty(),
        "no --export-symbol: no kernels to keep"
    );
    ensure!(!req.objects.is_empty(), "no bitcode object to link");
    Ok(req)
}

/// `xtask ptx-link ARGS`: the linker step rustc runs for the nvptx64 cdylib.
pub(crate) fn link(args: &[OsString]) -> anyhow::Result<()> {
    let req = parse_link_args(args)?;
    let output = req.output.clone().context("no -o output for the PTX")?;
    let llvm = llvm_bin()?;
    let work = output.with_extension("link");
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(&work)?;
    let mut members = Vec::new();
    for (i, archive) in req.archives.iter().enumerate() {
        members.extend(extract_bitcode(
            &llvm,
            archive,
            &work.join(format!("a{i}")),
        )?);
    }
    let linked = work.join("linked.bc");
    let mut cmd = Command::new(llvm.join("llvm-link"));
    cmd.args(&req.objects);
    // Archive members only contribute what the kernels reference, as a static link would.
    for m in &members {
        cmd.arg("--only-needed").arg(m);
    }
    run_tool(cmd.arg("-o").arg(&linked), "llvm-link")?;
    let optimised = work.join("opt.bc");
    run_tool(
        Command::new(llvm.join("opt"))
            .arg(format!(
                "--internalize-public-api-list={}",
                req.exports.join(",")
            ))
            .arg("--passes=internalize,globaldce,default<O3>,globaldce")
            .arg(&linked)
            .arg("-o")
            .arg(&optimised),
        "opt",
    )?;
    let cpu = req.cpu.as_deref().unwrap_or(ARCH);
    run_tool(
        Command::new(llvm.join("llc"))
            .args(["--mtriple=nvptx64-nvidia-cuda", "-O3"])
            .arg(format!("--mcpu={cpu}"))
            .arg(&optimised)
            .arg("-o")
            .arg(&output),
        "llc",
    )?;
    std::fs::remove_dir_all(&work)?;
    Ok(())
}

/// Extracts an rlib's LLVM bitcode members (skipping `lib.rmeta` and anything else).
fn extract_bitcode(llvm: &Path, archive: &Path, into: &Path) -> anyhow::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(into)?;
    let archive = std::path::absolute(archive)?;
    run_tool(
        Command::new(llvm.join("llvm-ar"))
            .arg("x")
            .arg(&archive)
            .current_dir(into),
        "llvm-ar",
    )?;
    let mut members = Vec::new();
    for entry in std::fs::read_dir(into)? {
        let path = entry?.path();
        let head = std::fs::read(&path)?;
        if head.starts_with(b"BC\xC0\xDE") {
            members.push(path);
        }
    }
    members.sort();
    Ok(members)
}

fn run_tool(cmd: &mut Command, name: &str) -> anyhow::Result<()> {
    let out = cmd.output().with_context(|| format!("running {name}"))?;
    ensure!(
        out.status.success(),
        "{name} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(())
}

/// The kernel names: every `extern "ptx-kernel" fn NAME` in the kernels crate's sources.
fn kernel_names(root: &Path) -> anyhow::Result<Vec<String>> {
    let src = std::fs::read_to_string(root.join(KERNELS_DIR).join("src/kernels.rs"))?;
    let names = parse_kernel_names(&src);
    ensure!(
        !names.is_empty(),
        "no extern \"ptx-kernel\" fn in {KERNELS_DIR}/src/kernels.rs"
    );
    Ok(names)
}

fn parse_kernel_names(src: &str) -> Vec<String> {
    src.split("extern \"ptx-kernel\" fn ")
        .skip(1)
        .filter_map(|rest| rest.split('(').next())
        .map(|name| name.trim().to_owned())
        .collect()
}

/// Every kernel is a visible `.entry` and nothing is left to resolve at load time.
fn validate(ptx: &str, kernels: &[String]) -> anyhow::Result<()> {
    for name in kernels {
        ensure!(
            ptx.lines()
                .any(|l| l.starts_with(".visible .entry ")
                    && l[16..].starts_with(&format!("{name}("))),
            "kernel {name} is not a `.visible .entry` in the PTX"
        );
    }
    if let Some(line) = ptx.lines().find(|l| l.trim_start().starts_with(".extern")) {
        bail!(
            "the PTX declares `{}`: a call left unresolved (usually a panic path) would fail to load",
            line.trim()
        );
    }
    Ok(())
}

/// Assembles the PTX for sm_90 with `ptxas` when it is on PATH, in `$CUPLAN_PTXAS`, or
/// installable from the `nvidia-cuda-nvcc-cu12` wheel; says so plainly when it is not.
fn assemble_check(root: &Path, ptx: &Path) -> anyhow::Result<()> {
    let Some(ptxas) = find_ptxas(root) else {
        println!(
            "ptx: SKIPPED assembling for {PTXAS_ARCH}: no ptxas (not on PATH, no $CUPLAN_PTXAS, and \
             `pip install --no-deps --target target-ptx/ptxas {NVCC_WHEEL}` did not work here)"
        );
        return Ok(());
    };
    let cubin = device_target_dir(root).join("kernels.sm_90.cubin");
    run_tool(
        Command::new(&ptxas)
            .args(["-arch", PTXAS_ARCH, "-O3"])
            .arg(ptx)
            .arg("-o")
            .arg(&cubin),
        "ptxas",
    )?;
    println!(
        "ptx: ptxas ({}) assembled it for {PTXAS_ARCH}",
        ptxas.display()
    );
    Ok(())
}

fn find_ptxas(root: &Path) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CUPLAN_PTXAS").map(PathBuf::from) {
        return p.is_file().then_some(p);
    }
    let works = |p: &Path| {
        Command::new(p)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if works(Path::new("ptxas")) {
        return Some("ptxas".into());
    }
    let dir = device_target_dir(root).join("ptxas");
    let wheel = dir.join("nvidia/cuda_nvcc/bin/ptxas");
    if !wheel.is_file() {
        println!(
            "ptx: no ptxas found; trying `pip install --no-deps --target {} {NVCC_WHEEL}`",
            dir.display()
        );
        let _ = Command::new("python3")
            .args(["-m", "pip", "install", "--quiet", "--no-deps", "--target"])
            .arg(&dir)
            .arg(NVCC_WHEEL)
            .status();
    }
    works(&wheel).then_some(wheel)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_arguments_are_sorted_into_their_roles() {
        let args: Vec<OsString> = [
            "--export-symbol",
            "a",
            "--export-symbol",
            "b",
            "k.o",
            "libcore.rlib",
            "-L",
            "/x",
            "--target",
            "nvptx64-nvidia-cuda",
            "--target-cpu",
            "sm_80",
            "-o",
            "out.ptx",
            "-O3",
            "--debug",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        let req = parse_link_args(&args).unwrap();
        assert_eq!(req.exports, ["a", "b"]);
        assert_eq!(req.objects, [PathBuf::from("k.o")]);
        assert_eq!(req.archives, [PathBuf::from("libcore.rlib")]);
        assert_eq!(req.cpu.as_deref(), Some("sm_80"));
        assert_eq!(req.output, Some(PathBuf::from("out.ptx")));
    }

    #[test]
    fn validation_rejects_externs_and_missing_entries() {
        let kernels = vec!["k".to_owned()];
        assert!(validate(".visible .entry k(\n", &kernels).is_ok());
        assert!(validate(".visible .entry j(\n", &kernels).is_err());
        assert!(validate(".visible .entry k(\n.extern .func panic(\n", &kernels).is_err());
    }

    #[test]
    fn the_committed_ptx_has_every_kernel_and_no_extern() {
        let root = crate::tidy::workspace_root();
        let ptx = std::fs::read_to_string(root.join(COMMITTED)).unwrap();
        let kernels = kernel_names(&root).unwrap();
        assert_eq!(kernels.len(), 5, "{kernels:?}");
        validate(&ptx, &kernels).unwrap();
        assert!(ptx.contains(&format!(".target {ARCH}")));
    }
}
