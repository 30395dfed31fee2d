//! The one home of "a resource limit was reached": the public [`Limit`] every solver reports,
//! the memory [`Budget`] they charge their large structures to, and [`Halt`], why a solver
//! stopped without an answer.

use std::fmt;
use std::time::Duration;

use crate::MapfError;

/// Default of [`SolverConfig::memory_limit`](crate::SolverConfig::memory_limit): 2 GiB, the
/// ceiling of the command line's default budget (every benchmark scenario fits in it).
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;

/// A resource limit that ended a [`solve`](crate::solve) before it found a solution or proved
/// that none exists. A larger budget might find one, so a limit is never "no solution".
#[derive(Debug, Clone, PartialEq, Eq)]
// Serialize only: `what` names a structure by a static string.
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub enum Limit {
    /// [`SolverConfig::time_limit`](crate::SolverConfig::time_limit) passed.
    Time {
        /// The limit in force.
        limit: Duration,
    },
    /// A structure would have taken the memory the solver tracks (distance maps, the map
    /// graph, search trees, reservations) over
    /// [`SolverConfig::memory_limit`](crate::SolverConfig::memory_limit).
    Memory {
        /// The structure that would have grown (`"distance maps"`, `"CBS constraint tree"`, ...).
        what: &'static str,
        /// The tracked total it would have reached.
        bytes: u64,
        /// The limit in force.
        limit: u64,
    },
}

impl fmt::Display for Limit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Limit::Time { limit } => {
                write!(f, "time limit of {} s reached", limit.as_secs_f64())
            }
            Limit::Memory { what, bytes, limit } => write!(
                f,
                "memory limit of {} reached: {what} would take the solver to {}",
                size(*limit),
                size(*bytes)
            ),
        }
    }
}

/// `bytes` for a person: exact bytes, with MiB beside them from 1 MiB on.
fn size(bytes: u64) -> String {
    if bytes < 1 << 20 {
        format!("{bytes} bytes")
    } else {
        format!(
            "{bytes} bytes ({:.1} MiB)",
            bytes as f64 / f64::from(1 << 20)
        )
    }
}

/// The bytes a solve has charged so far against its memory limit.
///
/// *Invariant*: `used <= limit` (a charge that would break it is refused and not recorded).
/// The tracked structures are the ones that grow with the instance or the search; the
/// counts are estimates of their heap size (element sizes times lengths, plus a fixed
/// overhead per allocation), not an allocator measurement.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    limit: u64,
    used: u64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Budget {
        Budget { limit, used: 0 }
    }

    /// Records `bytes` more for `what`, or the [`Limit`] they would break.
    pub(crate) fn charge(&mut self, what: &'static str, bytes: u64) -> Result<(), Limit> {
        self.check(what, bytes)?;
        self.used += bytes;
        Ok(())
    }

    /// Whether `bytes` more (held only for a while, so not recorded) would fit.
    pub(crate) fn check(&self, what: &'static str, bytes: u64) -> Result<(), Limit> {
        let total = self.used.saturating_add(bytes);
        if total > self.limit {
            return Err(Limit::Memory {
                what,
                bytes: total,
                limit: self.limit,
            });
        }
        Ok(())
    }

    /// Gives back `bytes` charged before (a structure dropped).
    pub(crate) fn release(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
    }

    /// A budget of at most `bytes` more than this one has used (the same limit when less is
    /// left): for a search that must stay small whatever the overall budget.
    pub(crate) fn capped(&self, bytes: u64) -> Budget {
        Budget {
            limit: self.limit.min(self.used.saturating_add(bytes)),
            used: self.used,
        }
    }

    /// Bytes still free under the limit.
    pub(crate) fn remaining(&self) -> u64 {
        self.limit - self.used
    }

    /// The limit breach of a lower layer that refused `bytes` held on top of `used` here.
    pub(crate) fn refused(&self, what: &'static str, bytes: u128) -> Limit {
        Limit::Memory {
            what,
            bytes: self
                .used
                .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX)),
            limit: self.limit,
        }
    }
}

/// Why a solver stopped without an answer.
#[derive(Debug)]
pub(crate) enum Halt {
    /// A time or memory limit.
    Limit(Limit),
    /// A lower layer refused its input: a bug or bad input there, never "no solution".
    Error(MapfError),
}

impl From<Limit> for Halt {
    fn from(limit: Limit) -> Halt {
        Halt::Limit(limit)
    }
}

impl From<MapfError> for Halt {
    fn from(err: MapfError) -> Halt {
        Halt::Error(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_charge_is_not_recorded() {
        let mut budget = Budget::new(100);
        assert_eq!(budget.charge("a", 60), Ok(()));
        assert_eq!(
            budget.charge("b", 41),
            Err(Limit::Memory {
                what: "b",
                bytes: 101,
                limit: 100
            })
        );
        assert_eq!(budget.remaining(), 40);
        assert_eq!(budget.charge("c", 40), Ok(()));
        assert_eq!(budget.remaining(), 0);
    }

    #[test]
    fn limits_name_themselves() {
        let time = Limit::Time {
            limit: Duration::from_millis(1500),
        };
        assert_eq!(time.to_string(), "time limit of 1.5 s reached");
        let memory = Limit::Memory {
            what: "CBS constraint tree",
            bytes: 3 << 20,
            limit: 2 << 20,
        };
        assert_eq!(
            memory.to_string(),
            "memory limit of 2097152 bytes (2.0 MiB) reached: CBS constraint tree would take \
             the solver to 3145728 bytes (3.0 MiB)"
        );
    }
}
