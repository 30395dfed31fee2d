//! `Backend`: which engine runs a wavefront search, and how `Auto` resolves.

use std::fmt;
use std::str::FromStr;

use crate::WavefrontError;

/// The engine that runs a search.
///
/// `Auto` picks CUDA when the crate is built with the `cuda` feature and a device answers,
/// else the CPU. `Cuda` never falls back silently: without a usable device it is an error
/// ([`WavefrontError::BackendUnavailable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
#[non_exhaustive]
pub enum Backend {
    /// CUDA when available, else CPU.
    #[default]
    Auto,
    /// The CPU wavefront (rayon across goals).
    Cpu,
    /// The CUDA wavefront; an error when no device or no CUDA support is built in.
    Cuda,
}

/// The engine a [`Backend`] request resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolved {
    Cpu,
}

impl Backend {
    /// Resolves `Auto` and checks that `Cuda` can run; the CPU is always available.
    pub(crate) fn resolve(self) -> Result<Resolved, WavefrontError> {
        match self {
            Backend::Auto | Backend::Cpu => Ok(Resolved::Cpu),
            Backend::Cuda => Err(WavefrontError::BackendUnavailable {
                backend: self,
                reason: cuda_unavailable_reason().into(),
            }),
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn cuda_unavailable_reason() -> &'static str {
    "this build has no CUDA support (enable the `cuda` feature)"
}

// cuda hook (cuplan-wavefront-gpu): distance maps, batched A* and the space-time search
// reach the GPU through `cuda.rs` before resolving; a search that still resolves `Cuda` here
// has no CUDA path, so asking for CUDA there is an error rather than a CPU run under a CUDA
// label.
#[cfg(feature = "cuda")]
fn cuda_unavailable_reason() -> &'static str {
    "this search has no CUDA path"
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Cuda => "cuda",
        })
    }
}

impl FromStr for Backend {
    type Err = WavefrontError;

    /// Parses `auto`, `cpu` or `cuda` (ASCII case-insensitive).
    fn from_str(s: &str) -> Result<Backend, WavefrontError> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "cuda" => Ok(Backend::Cuda),
            _ => Err(WavefrontError::UnknownBackend { name: s.into() }),
        }
    }
}
