//! Exact octile path costs: `straight + diagonal · √2` held as two integers.

use std::cmp::Ordering;

/// Fixed-point scale of [`OctileCost::key`]: one straight step is `2^42`.
pub const KEY_STRAIGHT: u64 = 1 << 42;
/// One diagonal step in key units: `round(√2 · 2^42)`.
pub const KEY_DIAGONAL: u64 = 6_219_777_023_951; // round(1.4142135623730951 * 2^42)

/// Largest diagonal-step count for which [`OctileCost::key`] orders costs exactly like the
/// real numbers they stand for (see [`OctileCost::key`]).
pub const KEY_EXACT_DIAGONAL_LIMIT: u32 = 1_000_000;

/// The cost of an octile path: `straight` unit steps and `diagonal` steps of length √2.
///
/// Comparison is exact (no floating point): `a₁ + b₁√2 < a₂ + b₂√2` is decided on integers.
/// Two costs with different step counts can never be equal because √2 is irrational, so
/// equality of the real values is equality of the pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OctileCost {
    /// Number of straight steps (cost 1 each).
    pub straight: u32,
    /// Number of diagonal steps (cost √2 each).
    pub diagonal: u32,
}

impl OctileCost {
    /// The zero cost.
    pub const ZERO: OctileCost = OctileCost {
        straight: 0,
        diagonal: 0,
    };

    /// A cost of `straight` unit steps and `diagonal` √2 steps.
    #[inline]
    pub const fn new(straight: u32, diagonal: u32) -> OctileCost {
        OctileCost { straight, diagonal }
    }

    /// The real value as `f64`.
    #[inline]
    pub fn to_f64(self) -> f64 {
        f64::from(self.straight) + f64::from(self.diagonal) * std::f64::consts::SQRT_2
    }

    /// A monotone fixed-point key for priority queues: `straight·2^42 + diagonal·round(√2·2^42)`.
    ///
    /// For two costs whose diagonal counts differ by less than [`KEY_EXACT_DIAGONAL_LIMIT`] and
    /// whose straight counts are below 2^21, `a.key() < b.key()` exactly when `a < b`: the
    /// rounding error of the key is at most `Δdiagonal / 2^43`, smaller than the gap
    /// `|Δa + Δb√2| ≥ 0.35 / |Δb|` between distinct octile values that √2's continued fraction
    /// guarantees. Keys of sums are sums of keys, so heuristics stay consistent in key space.
    #[inline]
    pub const fn key(self) -> u64 {
        self.straight as u64 * KEY_STRAIGHT + self.diagonal as u64 * KEY_DIAGONAL
    }

    /// Whether this exact cost matches a benchmark length within the data README's tolerance
    /// `max(1e-4, 2e-5 · length)`. For a `.scen` query use
    /// [`ScenEntry::accepts`](crate::ScenEntry::accepts), which also knows how many decimals the
    /// file printed.
    pub fn matches_length(self, length: f64) -> bool {
        (self.to_f64() - length).abs() <= f64::max(1e-4, 2e-5 * length)
    }

    /// The octile distance between two cells on an open grid (the A* heuristic).
    #[inline]
    pub fn between(a: crate::Cell, b: crate::Cell) -> OctileCost {
        let (straight, diagonal) = a.octile_steps(b);
        OctileCost { straight, diagonal }
    }
}

impl std::ops::Add for OctileCost {
    type Output = OctileCost;
    #[inline]
    fn add(self, rhs: OctileCost) -> OctileCost {
        OctileCost {
            straight: self.straight + rhs.straight,
            diagonal: self.diagonal + rhs.diagonal,
        }
    }
}

impl std::ops::AddAssign for OctileCost {
    #[inline]
    fn add_assign(&mut self, rhs: OctileCost) {
        *self = *self + rhs;
    }
}

impl Ord for OctileCost {
    fn cmp(&self, other: &OctileCost) -> Ordering {
        // Compare da with db·√2, where da = a1 - a2 and db = b2 - b1.
        let da = i128::from(self.straight) - i128::from(other.straight);
        let db = i128::from(other.diagonal) - i128::from(self.diagonal);
        match (da.signum(), db.signum()) {
            (0, 0) => Ordering::Equal,
            (sa, sb) if sa != sb => {
                // Signs differ (or one side is zero): the sign of da - db√2 is known.
                if sa > sb {
                    Ordering::Greater
                } else {
                    Ordering::Less
                }
            }
            (s, _) => {
                let lhs = da * da;
                let rhs = 2 * db * db;
                let mag = lhs.cmp(&rhs);
                if s > 0 { mag } else { mag.reverse() }
            }
        }
    }
}

impl PartialOrd for OctileCost {
    fn partial_cmp(&self, other: &OctileCost) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Display for OctileCost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.8}", self.to_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_order_agrees_with_floats_where_floats_are_clear() {
        let costs = [
            (0, 0),
            (1, 0),
            (0, 1),
            (2, 0),
            (3, 2),
            (4, 1),
            (7, 5),
            (10, 0),
            (0, 7),
        ];
        for &(a1, b1) in &costs {
            for &(a2, b2) in &costs {
                let x = OctileCost::new(a1, b1);
                let y = OctileCost::new(a2, b2);
                let fx = x.to_f64();
                let fy = y.to_f64();
                assert_eq!(x.cmp(&y), fx.partial_cmp(&fy).unwrap(), "{x:?} vs {y:?}");
                assert_eq!(x.key().cmp(&y.key()), x.cmp(&y));
            }
        }
    }

    #[test]
    fn near_ties_are_ordered_exactly() {
        // 99 straight steps vs 70 diagonals: 70√2 = 98.9949..., so the diagonals are cheaper.
        let a = OctileCost::new(99, 0);
        let b = OctileCost::new(0, 70);
        assert!(b < a);
        // A Pell pair (p, q) with p² - 2q² = 1: 665857 > 470832·√2 by about 7.5e-7.
        let p = OctileCost::new(665_857, 0);
        let q = OctileCost::new(0, 470_832);
        assert!(q < p);
        assert!(q.key() < p.key());
    }

    #[test]
    fn tolerance_follows_the_data_readme() {
        let c = OctileCost::new(1, 1);
        assert!(c.matches_length(2.41421356));
        assert!(c.matches_length(2.41425));
        assert!(!c.matches_length(2.41));
    }
}
