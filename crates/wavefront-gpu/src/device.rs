//! [`Device`]: a CUDA context and stream with the embedded PTX loaded.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr,
    LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::Ptx;

use crate::{GpuError, PTX};

/// A CUDA device with the wavefront kernels loaded; all work goes through one stream, so
/// operations issued in order run in order.
#[derive(Debug)]
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    name: String,
    pub(crate) distance_init: CudaFunction,
    pub(crate) distance_levels: CudaFunction,
    pub(crate) distance_sparse_levels: CudaFunction,
    pub(crate) space_time_step: CudaFunction,
    pub(crate) reserve_words: CudaFunction,
}

impl Device {
    /// Opens device `ordinal` and loads the kernels.
    ///
    /// Errors: [`GpuError::NoDriver`] when the CUDA driver library cannot be loaded and
    /// [`GpuError::IncompleteDriver`] when it lacks an entry point the backend calls (both
    /// checked first, because cudarc panics on either), [`GpuError::NoDevice`] when the driver
    /// has no such device, [`GpuError::Driver`] for any other failure (e.g. a driver too old
    /// for the PTX).
    pub fn open(ordinal: usize) -> Result<Device, GpuError> {
        check_driver()?;
        let count = match CudaContext::device_count() {
            Ok(n) => usize::try_from(n).unwrap_or(0),
            // cuInit itself reports a machine with a driver but no device.
            Err(e) if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_NO_DEVICE => 0,
            Err(e) => return Err(GpuError::driver("initialising CUDA")(e)),
        };
        if ordinal >= count {
            return Err(GpuError::NoDevice { ordinal, count });
        }
        let ctx = CudaContext::new(ordinal).map_err(GpuError::driver("creating a context"))?;
        let name = ctx
            .name()
            .map_err(GpuError::driver("reading the device name"))?;
        let stream = ctx.default_stream();
        let module = ctx
            .load_module(Ptx::from_src(PTX))
            .map_err(GpuError::driver("loading the kernels' PTX"))?;
        let function = |name: &str| {
            module
                .load_function(name)
                .map_err(GpuError::driver("loading a kernel"))
        };
        Ok(Device {
            distance_init: function("distance_init")?,
            distance_levels: function("distance_levels")?,
            distance_sparse_levels: function("distance_sparse_levels")?,
            space_time_step: function("space_time_step")?,
            reserve_words: function("reserve_words")?,
            ctx,
            stream,
            name,
        })
    }

    /// The device's name as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `(free, total)` device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize), GpuError> {
        self.ctx
            .mem_get_info()
            .map_err(GpuError::driver("querying device memory"))
    }

    /// Waits for all work issued so far.
    pub fn synchronize(&self) -> Result<(), GpuError> {
        self.stream
            .synchronize()
            .map_err(GpuError::driver("synchronising the stream"))
    }

    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// A zeroed device buffer of `len` elements.
    pub(crate) fn zeros<T: DeviceRepr + cudarc::driver::ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<CudaSlice<T>, GpuError> {
        self.stream
            .alloc_zeros(len.max(1))
            .map_err(GpuError::driver("allocating device memory"))
    }

    /// A device copy of `data`.
    pub(crate) fn upload<T: DeviceRepr>(&self, data: &[T]) -> Result<CudaSlice<T>, GpuError> {
        // Callers never upload nothing: a zero-length allocation is not a valid buffer.
        debug_assert!(!data.is_empty());
        self.stream
            .clone_htod(data)
            .map_err(GpuError::driver("copying to the device"))
    }

    /// The device's copy of `src` as a host vector (waits for the stream).
    pub(crate) fn download<T: DeviceRepr + Default + Clone>(
        &self,
        src: &impl DevicePtr<T>,
    ) -> Result<Vec<T>, GpuError> {
        self.stream
            .clone_dtoh(src)
            .map_err(GpuError::driver("copying from the device"))
    }

    /// Launches `function` with one by-value launch struct.
    ///
    /// # Safety
    /// `param` must satisfy the kernel's documented contract for the launch shape `config`.
    pub(crate) unsafe fn launch<P: Copy>(
        &self,
        function: &CudaFunction,
        config: LaunchConfig,
        param: P,
    ) -> Result<(), GpuError> {
        let param = Param(param);
        let mut builder = self.stream.launch_builder(function);
        builder.arg(&param);
        // SAFETY: every kernel takes exactly one by-value launch struct, and `Param` is
        // `repr(transparent)` over it, so the argument matches the kernel's signature; what
        // its pointers must cover is the caller's contract (this function's `# Safety`).
        unsafe { builder.launch(config) }
            .map(|_| ())
            .map_err(GpuError::driver("launching a kernel"))
    }
}

/// The driver entry points the backend reaches through cudarc: opening a device, buffers,
/// copies, launches, events and what their `Drop`s call, and error strings. cudarc resolves
/// each on its first call and panics when it is missing, so all are checked up front.
const DRIVER_ENTRY_POINTS: &[&str] = &[
    "cuInit",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetName",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxGetCurrent",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuModuleLoadData",
    "cuModuleGetFunction",
    "cuModuleUnload",
    "cuMemAlloc_v2",
    "cuMemAllocAsync",
    "cuMemFree_v2",
    "cuMemFreeAsync",
    "cuMemsetD8Async",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemGetInfo_v2",
    "cuLaunchKernel",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventDestroy_v2",
    "cuGetErrorName",
    "cuGetErrorString",
];

/// Loads the driver library cudarc would load (the first of its candidate names that
/// loads) and checks that it has every entry point in [`DRIVER_ENTRY_POINTS`].
fn check_driver() -> Result<(), GpuError> {
    let (library, lib) = ["cuda", "nvcuda"]
        .into_iter()
        .flat_map(cudarc::get_lib_name_candidates)
        .find_map(|name| {
            // SAFETY: loading the driver runs its initialisers, as cudarc's own loading does.
            let lib = unsafe { libloading::Library::new(&name) }.ok()?;
            Some((name, lib))
        })
        .ok_or(GpuError::NoDriver)?;
    let missing: Vec<&'static str> = DRIVER_ENTRY_POINTS
        .iter()
        .copied()
        // SAFETY: the symbol is only looked up, never called through this type.
        .filter(|name| unsafe { lib.get::<*const ()>(name.as_bytes()) }.is_err())
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(GpuError::IncompleteDriver { library, missing })
    }
}

/// A launch struct passed by value (its bytes become the kernel's `.param` aggregate).
#[repr(transparent)]
struct Param<P>(P);

// SAFETY: the launch structs are `#[repr(C)]`, `Copy`, made of pointers and `u32`s, laid out
// identically on host and device.
unsafe impl<P: Copy> DeviceRepr for Param<P> {}

/// Device address of a buffer as the raw pointer type of a launch struct field.
pub(crate) fn addr<T>(device: &Device, buf: &CudaSlice<T>) -> *const T {
    let (ptr, _sync) = buf.device_ptr(device.stream());
    ptr as usize as *const T
}

/// Device address of a buffer the kernel writes.
pub(crate) fn addr_mut<T>(device: &Device, buf: &mut CudaSlice<T>) -> *mut T {
    let (ptr, _sync) = buf.device_ptr_mut(device.stream());
    ptr as usize as *mut T
}
