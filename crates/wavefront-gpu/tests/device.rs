//! The device handle without a GPU: errors, never panics; and the embedded PTX's shape.

use cuplan_wavefront_gpu::{Device, GpuError, KERNELS, PTX};

#[test]
fn opening_a_device_reports_a_missing_driver_or_device_as_a_value() {
    match Device::open(0) {
        // A GPU machine: the kernels loaded.
        Ok(device) => assert!(!device.name().is_empty()),
        Err(GpuError::NoDriver) => {
            eprintln!("no CUDA driver here: the no-driver path returned an error value");
        }
        Err(GpuError::NoDevice {
            ordinal: 0,
            count: 0,
        }) => {}
        Err(e) => panic!("unexpected error without a usable GPU: {e}"),
    }
}

#[test]
fn a_device_past_the_last_one_is_no_device_or_no_driver() {
    let err = Device::open(10_000).unwrap_err();
    assert!(
        matches!(
            err,
            GpuError::NoDriver
                | GpuError::NoDevice {
                    ordinal: 10_000,
                    ..
                }
        ),
        "{err}"
    );
    assert!(!err.to_string().is_empty());
}

#[test]
fn the_embedded_ptx_defines_every_kernel_and_nothing_external() {
    for name in KERNELS {
        assert!(
            PTX.contains(&format!(".visible .entry {name}(")),
            "{name} missing"
        );
    }
    assert!(!PTX.lines().any(|l| l.trim_start().starts_with(".extern")));
    assert!(PTX.contains(".target sm_80"));
}

/// The host's launch structs have exactly the size of the kernels' `.param` aggregates, so
/// the driver copies every field.
#[test]
fn launch_structs_match_the_ptx_parameter_sizes() {
    use cuplan_wavefront_kernels::launch::{DistanceLaunch, ReserveLaunch, SpaceTimeLaunch};
    let param_size = |kernel: &str| -> usize {
        let key = format!("{kernel}_param_0[");
        let at = PTX
            .find(&key)
            .unwrap_or_else(|| panic!("{kernel} has no param"))
            + key.len();
        PTX[at..].split(']').next().unwrap().parse().unwrap()
    };
    let distance = std::mem::size_of::<DistanceLaunch>();
    assert_eq!(param_size("distance_init"), distance);
    assert_eq!(param_size("distance_levels"), distance);
    assert_eq!(param_size("distance_sparse_levels"), distance);
    assert_eq!(
        param_size("space_time_step"),
        std::mem::size_of::<SpaceTimeLaunch>()
    );
    assert_eq!(
        param_size("reserve_words"),
        std::mem::size_of::<ReserveLaunch>()
    );
}
