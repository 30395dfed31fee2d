//! A driver library that loads but lacks entry points is an error value, not a panic: a stub
//! `libcuda.so` with only `cuInit` is built with the system C compiler and found first through
//! `LD_LIBRARY_PATH` by a child run of this test (the driver library is loaded once per process).

use std::path::Path;
use std::process::Command;

use cuplan_wavefront_gpu::{Device, GpuError};

const CHILD: &str = "CUPLAN_STUB_DRIVER_CHILD";

#[test]
fn a_driver_without_its_entry_points_is_an_incomplete_driver() {
    if std::env::var_os(CHILD).is_some() {
        match Device::open(0) {
            Err(GpuError::IncompleteDriver { library, missing }) => {
                assert!(library.starts_with("libcuda.so"), "{library}");
                assert!(!missing.contains(&"cuInit"), "{missing:?}");
                assert!(missing.contains(&"cuDeviceGetCount"), "{missing:?}");
                assert!(missing.contains(&"cuLaunchKernel"), "{missing:?}");
            }
            other => panic!("expected an incomplete driver, got {other:?}"),
        }
        return;
    }
    if !cfg!(target_os = "linux") {
        eprintln!("skipped: the stub driver is built as a Linux shared library");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    if !build_stub_driver(dir.path()) {
        eprintln!("skipped: no C compiler (cc) to build the stub driver library");
        return;
    }
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "a_driver_without_its_entry_points_is_an_incomplete_driver",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .env("LD_LIBRARY_PATH", dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "child run failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Builds `libcuda.so` (the first name cudarc tries) exporting only `cuInit`.
fn build_stub_driver(dir: &Path) -> bool {
    let source = dir.join("stub.c");
    std::fs::write(
        &source,
        "int cuInit(unsigned int flags) { (void)flags; return 0; }\n",
    )
    .unwrap();
    Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(dir.join("libcuda.so"))
        .arg(&source)
        .status()
        .is_ok_and(|s| s.success())
}
