//! Exact octile path costs: `straight + diagonal · √2` held as two integers.

use std::cmp::Ordering;

/// Fixed-point scale of [`OctileCost::key`]: one straight step is `2^31`.
pub const KEY_STRAIGHT: u64 = 1 << 31;
/// One diagonal step in key units, integer part: `floor(√2 · 2^31)`.
pub const KEY_DIAGONAL: u64 = 0xB504_F333; // isqrt(2^63) = 3_037_000_499
/// One diagonal step in key units, the 64 fraction bits after [`KEY_DIAGONAL`]:
/// `floor(√2 · 2^95) − KEY_DIAGONAL · 2^64`, so `KEY_DIAGONAL + KEY_DIAGONAL_FRACTION / 2^64`
/// is √2 · 2^31 truncated after 64 fraction bits (√2 after 95).
pub const KEY_DIAGONAL_FRACTION: u64 = 0xF9DE_6484_597D_89B3;

/// [`OctileCost::key`] orders two costs exactly like the real numbers they stand for when their
/// diagonal counts differ by less than this (and both are below `2^32`, far above any search's
/// costs; see [`OctileCost::key`] for the proof).
pub const KEY_EXACT_DIAGONAL_LIMIT: u32 = 1 << 29;

/// The cost of an octile path: `straight` unit steps and `diagonal` steps of length √2.
///
/// Comparison is exact (no floating point): `a₁ + b₁√2 < a₂ + b₂√2` is decided on integers.
/// Two costs with different step counts can never be equal because √2 is irrational, so
/// equality of the real values is equality of the pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
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

    /// A monotone fixed-point key for priority queues: `floor(straight·2^31 + diagonal·K)`,
    /// where `K = KEY_DIAGONAL + KEY_DIAGONAL_FRACTION / 2^64` is √2·2^31 truncated after 64
    /// fraction bits, computed exactly in integers (one `u64 × u64 → u128` product).
    ///
    /// **Exact order.** For two costs below `2^32` whose diagonal counts differ by less than
    /// [`KEY_EXACT_DIAGONAL_LIMIT`] (`2^29`), `x.key() < y.key()` exactly when `x < y`, and the
    /// keys are equal only for equal costs. The proof (`F` is the unrounded key
    /// `a·2^31 + b·K`, `X = √2·2^31`):
    ///
    /// 1. *Gap between octile values.* For `(Δa, Δb) ≠ (0, 0)`, `Δa² − 2Δb²` is a nonzero
    ///    integer (√2 is irrational), so `|Δa + Δb√2| = |Δa² − 2Δb²| / |Δa − Δb√2|
    ///    ≥ 1 / (|Δa| + √2|Δb|)`. Either `|Δa + Δb√2| ≥ 1`, or `|Δa| < √2|Δb| + 1` and then
    ///    `|Δa + Δb√2| > 1 / (2√2|Δb| + 1)`.
    /// 2. *Truncation.* `0 ≤ X − K < 2^-64`, so `F(x) − F(y) = 2^31·(Δa + Δb√2) − Δb·(X − K)`
    ///    differs from the exact scaled difference by less than `|Δb| · 2^-64 < 2^-35`.
    /// 3. *Gap survives the floor.* With `|Δb| < 2^29`, `2√2|Δb| + 1 < 2^30.5 + 1 < 2^31 / 1.4`,
    ///    so `x > y` gives `F(x) − F(y) > 1.4 − 2^-35 > 1`, hence
    ///    `floor(F(x)) > floor(F(y))`. Nothing saturates: `a + b√2 < 2^32` gives
    ///    `a·2^31 < 2^63` and `b·K < 2^31.5 · 2^31.5 = 2^63`.
    ///
    /// The key is `floor((a + b√2)·2^31)` itself unless `b√2·2^31` lies less than `b·2^-64` above
    /// an integer, which the proof does not need to exclude (it never relies on the exact
    /// floor). Beyond the hypotheses the key stays monotone up to the truncation (and
    /// saturates instead of wrapping), but may merge or swap near-equal costs.
    ///
    /// **Why the hypotheses hold in a search** (`cuplan-jps` checks them per grid): with a
    /// consistent heuristic every node popped before the goal has `f ≤ C*`, and every pushed
    /// `f` is a popped node's `f` plus at most twice a jump's octile length, so
    /// `f ≤ C* + 2√2·max(w, h)`; an optimal path visits distinct free cells, so
    /// `C* ≤ √2·(free − 1)`. Every `g` and `f` therefore has at most `free + 2·max(w, h)`
    /// diagonal steps, below `2^29` for the grid crate's `2^28` cells and `2^20` sides.
    ///
    /// Keys of sums are **not** sums of keys (each key is rounded once): compute `f`'s key as
    /// `(g + h).key()`.
    #[inline]
    pub const fn key(self) -> u64 {
        let b = self.diagonal as u64;
        // `b · KEY_DIAGONAL < 2^32 · 2^31.5`; adding the fraction's carry (< b) still fits.
        let fraction_carry = ((b as u128 * KEY_DIAGONAL_FRACTION as u128) >> 64) as u64;
        let diagonal = b * KEY_DIAGONAL + fraction_carry;
        (self.straight as u64 * KEY_STRAIGHT).saturating_add(diagonal)
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

    /// A small deterministic generator (xorshift64*), so the tests need no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: u64) -> u64 {
            self.next() % n
        }
    }

    fn assert_key_order(x: OctileCost, y: OctileCost) {
        assert_eq!(x.key().cmp(&y.key()), x.cmp(&y), "{x:?} vs {y:?}");
    }

    /// The convergents `p / q` of √2 (`p² − 2q² = ±1`, the nearest ties there are) with
    /// `q < limit`.
    fn pell_pairs(limit: u64) -> Vec<(u64, u64)> {
        let mut pairs = Vec::new();
        let (mut p, mut q) = (1u64, 1u64);
        while q < limit {
            pairs.push((p, q));
            (p, q) = (p + 2 * q, p + q);
        }
        pairs
    }

    #[test]
    fn pell_near_ties_are_ordered_at_large_magnitudes() {
        let limit = u64::from(KEY_EXACT_DIAGONAL_LIMIT);
        let pairs = pell_pairs(limit);
        // The largest pair has q = 225,058,681 in 2^27..2^28, |p − q√2| ≈ 1 / (2√2·q) ≈ 2^-29.
        assert!(pairs.iter().any(|&(_, q)| q > 1 << 27));
        for &(p, q) in &pairs {
            assert!((p * p).abs_diff(2 * q * q) == 1);
            // Multiples k·(p, q) are near ties too (gap k / (2√2·q)); shared offsets move the
            // pair to large magnitudes without changing its difference.
            for k in [1, 2, 3] {
                if k * q >= limit {
                    continue;
                }
                for (s, d) in [(0, 0), (1 << 28, 0), (0, 1 << 28), (1 << 29, 1 << 28)] {
                    let x = OctileCost::new((k * p + s) as u32, d as u32);
                    let y = OctileCost::new(s as u32, (k * q + d) as u32);
                    assert_ne!(x.cmp(&y), Ordering::Equal);
                    assert_key_order(x, y);
                    assert_key_order(y, x);
                    // One step either way turns the near tie into a clear order.
                    let x1 = OctileCost::new(x.straight - 1, x.diagonal);
                    assert_key_order(x1, y);
                }
            }
        }
    }

    #[test]
    fn key_order_agrees_with_exact_order_on_random_and_adversarial_pairs() {
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let limit = u64::from(KEY_EXACT_DIAGONAL_LIMIT);
        for _ in 0..200_000 {
            // Random pairs anywhere below the bound.
            let x = OctileCost::new(rng.below(1 << 30) as u32, rng.below(limit) as u32);
            let y = OctileCost::new(rng.below(1 << 30) as u32, rng.below(limit) as u32);
            assert_key_order(x, y);
            // Adversarial: y = x + (Δa, −Δb) with Δa = round(Δb·√2) + {−1, 0, 1}, the closest
            // an integer comes to Δb·√2 for this Δb.
            let db = 1 + rng.below(limit - 1);
            let near = (2 * u128::from(db) * u128::from(db)).isqrt() as u64;
            let b = db + rng.below(limit - db);
            let a = rng.below(1 << 29);
            for da in [near.saturating_sub(1), near, near + 1, near + 2] {
                let x = OctileCost::new(a as u32, b as u32);
                let y = OctileCost::new((a + da) as u32, (b - db) as u32);
                assert_key_order(x, y);
                assert_key_order(y, x);
            }
            // Equal costs have equal keys.
            assert_eq!(x.key(), OctileCost::new(x.straight, x.diagonal).key());
        }
    }

    #[test]
    fn key_is_the_floor_of_the_scaled_cost() {
        // floor(b·√2·2^31) = isqrt(2·b²·2^62), exactly in integers for b < 2^30.
        let floor = |b: u64| ((u128::from(b) * u128::from(b)) << 63).isqrt() as u64;
        for b in 0..1u64 << 20 {
            assert_eq!(OctileCost::new(0, b as u32).key(), floor(b), "b = {b}");
        }
        let mut rng = Rng(42);
        for _ in 0..200_000 {
            let b = rng.below(1 << 30);
            let a = rng.below(1 << 31);
            let key = OctileCost::new(a as u32, b as u32).key();
            assert_eq!(key, (a << 31) + floor(b), "a = {a}, b = {b}");
        }
        for (_, q) in pell_pairs(1 << 30) {
            assert_eq!(OctileCost::new(0, q as u32).key(), floor(q), "q = {q}");
        }
    }

    #[test]
    fn diagonal_constants_are_root_two_in_fixed_point() {
        // KEY_DIAGONAL = isqrt(2^63); with the fraction, K·2^64 = isqrt(2^191).
        assert_eq!(u128::from(KEY_DIAGONAL), (1u128 << 63).isqrt());
        let k = u128::from(KEY_DIAGONAL) << 64 | u128::from(KEY_DIAGONAL_FRACTION);
        // k² ≤ 2^191 < (k + 1)², in 256-bit arithmetic split by hand.
        assert!(square_at_most_pow2(k, 191));
        assert!(!square_at_most_pow2(k + 1, 191));
        assert_eq!(KEY_STRAIGHT, 1 << 31);
    }

    /// Whether `k² ≤ 2^e` for `k < 2^96` and `e < 256`, without 256-bit integers.
    fn square_at_most_pow2(k: u128, e: u32) -> bool {
        // k = hi·2^64 + lo; k² = hi²·2^128 + 2·hi·lo·2^64 + lo².
        let (hi, lo) = (k >> 64, k & u128::from(u64::MAX));
        let low = lo * lo;
        let mid = 2 * hi * lo; // < 2^97
        let top = hi * hi; // < 2^64
        // Sum the three parts as (high 128 bits, low 128 bits).
        let (l1, c1) = low.overflowing_add(mid << 64);
        let h = top + (mid >> 64) + u128::from(c1);
        let (target_hi, target_lo) = (1u128 << (e - 128), 0u128);
        (h, l1) <= (target_hi, target_lo)
    }

    #[test]
    fn tolerance_follows_the_data_readme() {
        let c = OctileCost::new(1, 1);
        assert!(c.matches_length(2.41421356));
        assert!(c.matches_length(2.41425));
        assert!(!c.matches_length(2.41));
    }
}
