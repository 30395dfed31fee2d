//! The algorithm selector shared by the library, the CLI and the benchmarks.

use crate::JpsError;

/// One of the optimal search algorithms of this crate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(into = "&'static str", try_from = "String"))]
#[non_exhaustive]
pub enum Algorithm {
    /// Textbook A* (octile heuristic, binary heap) over single steps: the baseline.
    AStar,
    /// Jump Point Search with cell-by-cell jumps and the no-corner-cutting pruning rules.
    Jps,
    /// JPS whose straight jumps scan 64 cells per word with bit tricks (block-based JPS).
    JpsBit,
    /// JPS-Bit that does not push the intermediate jump points of diagonal jumps.
    JpsBitPrune,
    /// JPS+ : jumps looked up in a precomputed per-cell, per-direction table.
    JpsBitPre,
    /// JPS+ with intermediate jump points pruned.
    JpsBitPrunePre,
}

impl Algorithm {
    /// Every algorithm, baseline first.
    pub const ALL: [Algorithm; 6] = [
        Algorithm::AStar,
        Algorithm::Jps,
        Algorithm::JpsBit,
        Algorithm::JpsBitPrune,
        Algorithm::JpsBitPre,
        Algorithm::JpsBitPrunePre,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::AStar => "astar",
            Algorithm::Jps => "jps",
            Algorithm::JpsBit => "jps-bit",
            Algorithm::JpsBitPrune => "jps-bitprune",
            Algorithm::JpsBitPre => "jps-bitpre",
            Algorithm::JpsBitPrunePre => "jps-bitprunepre",
        }
    }

    /// Whether [`Planner::new`](crate::Planner::new) builds a jump table for it.
    pub fn is_preprocessed(self) -> bool {
        matches!(self, Algorithm::JpsBitPre | Algorithm::JpsBitPrunePre)
    }

    /// Whether it prunes intermediate jump points (paths then need turning points restored).
    pub(crate) fn is_pruned(self) -> bool {
        matches!(self, Algorithm::JpsBitPrune | Algorithm::JpsBitPrunePre)
    }
}

impl std::str::FromStr for Algorithm {
    type Err = JpsError;

    fn from_str(s: &str) -> Result<Algorithm, JpsError> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| JpsError::UnknownAlgorithm {
                name: s.to_string(),
                valid: Algorithm::ALL.map(Algorithm::name).join(", "),
            })
    }
}

impl std::fmt::Display for Algorithm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Serialises as [`Algorithm::name`].
impl From<Algorithm> for &'static str {
    fn from(algorithm: Algorithm) -> &'static str {
        algorithm.name()
    }
}

/// Parses a name as [`FromStr`](std::str::FromStr) does (the serde form).
impl TryFrom<String> for Algorithm {
    type Error = JpsError;

    fn try_from(name: String) -> Result<Algorithm, JpsError> {
        name.parse()
    }
}
