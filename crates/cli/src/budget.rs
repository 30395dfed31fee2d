//! The memory budget of the commands that hold per-goal or per-agent tables (`batch`,
//! `mapf`): `--memory-limit SIZE`, with a default derived from the memory available.

use std::str::FromStr;

/// The default budget's ceiling: every Moving AI scenario file runs within it.
pub(crate) const DEFAULT_CEILING: u64 = 2 << 30;

/// The smallest budget accepted: below it not even one distance map of a small map fits.
pub(crate) const MIN_BYTES: u64 = 1 << 20;

/// A memory budget in bytes, parsed from `--memory-limit` (`2GiB`, `512M`, `1.5G`, `100000`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemoryLimit(u64);

impl MemoryLimit {
    /// The budget when `--memory-limit` is not given: half the memory the kernel reports as
    /// available, at most [`DEFAULT_CEILING`] (and that ceiling where nothing is reported).
    pub(crate) fn default_for_this_machine() -> MemoryLimit {
        let half_available = available_bytes().map_or(DEFAULT_CEILING, |b| b / 2);
        MemoryLimit(half_available.clamp(MIN_BYTES, DEFAULT_CEILING))
    }

    /// The budget given on the command line, or the default.
    pub(crate) fn or_default(given: Option<MemoryLimit>) -> MemoryLimit {
        given.unwrap_or_else(MemoryLimit::default_for_this_machine)
    }

    /// The budget in bytes.
    pub(crate) fn bytes(self) -> u64 {
        self.0
    }
}

impl FromStr for MemoryLimit {
    type Err = String;

    fn from_str(text: &str) -> Result<MemoryLimit, String> {
        let size: bytesize::ByteSize = text.trim().parse().map_err(|_| {
            format!("{text:?} is not a size (write it as bytes or with a unit: 512M, 2GiB)")
        })?;
        if size.as_u64() < MIN_BYTES {
            return Err(format!(
                "{text:?} is below the smallest budget, {}",
                bytesize::ByteSize(MIN_BYTES).display().iec()
            ));
        }
        Ok(MemoryLimit(size.as_u64()))
    }
}

impl std::fmt::Display for MemoryLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", bytesize::ByteSize(self.0).display().iec())
    }
}

/// `MemAvailable` of `/proc/meminfo`, where the system has one.
fn available_bytes() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_and_without_units() {
        assert_eq!("2GiB".parse(), Ok(MemoryLimit(2 << 30)));
        assert_eq!("512MiB".parse(), Ok(MemoryLimit(512 << 20)));
        assert_eq!("3000000".parse(), Ok(MemoryLimit(3_000_000)));
        assert_eq!("1.5 GiB".parse(), Ok(MemoryLimit(3 << 29)));
    }

    #[test]
    fn nonsense_and_tiny_budgets_are_refused() {
        for text in ["", "-1G", "lots", "NaN", "1K", "0"] {
            assert!(text.parse::<MemoryLimit>().is_err(), "{text:?} accepted");
        }
    }

    #[test]
    fn the_default_stays_within_the_ceiling() {
        let d = MemoryLimit::default_for_this_machine().bytes();
        assert!((MIN_BYTES..=DEFAULT_CEILING).contains(&d), "{d}");
    }
}
