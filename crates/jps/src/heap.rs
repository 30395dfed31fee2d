//! A 4-ary min-heap of packed `u128` entries: the open list.
//!
//! An entry is `f << 64 | tie << 32 | index`. `f` is the fixed-point
//! [`OctileCost::key`](cuplan_grid::OctileCost::key) of the exact sum `g + h`, whose order is
//! exact for every cost a search on an accepted grid compares, so the heap orders by `f`
//! exactly; among equal `f` it prefers larger `g` (smaller `tie`), which reaches the goal sooner.
//! One `u128` comparison replaces a chain of field comparisons, and four children share a cache
//! line, so a pop touches half as many levels as a binary heap.

/// The open list. Stale entries are not removed; the engine skips them when popped.
#[derive(Debug, Default)]
pub(crate) struct Heap {
    items: Vec<u128>,
}

/// Bits dropped from `g`'s key for the tie field: [`KEY_STRAIGHT`](cuplan_grid::KEY_STRAIGHT)
/// (2^31) key units per step, so dropping 21 keeps 1/1024 of a step.
const TIE_SHIFT: u32 = cuplan_grid::KEY_STRAIGHT.trailing_zeros() - 10;

/// Packs an entry. `g_key` ranks ties only, at 1/1024-step resolution in 32 bits, so it
/// saturates at `g = 2^22` steps: beyond that, equal-`f` entries fall back to index order,
/// which changes which optimal path is found first, never its cost.
#[inline]
pub(crate) fn entry(f_key: u64, g_key: u64, index: u32) -> u128 {
    let tie = u32::MAX - u32::try_from(g_key >> TIE_SHIFT).unwrap_or(u32::MAX);
    u128::from(f_key) << 64 | u128::from(tie) << 32 | u128::from(index)
}

/// The node index of an entry.
#[inline]
pub(crate) fn index_of(e: u128) -> u32 {
    e as u32
}

/// The `f` key of an entry.
#[inline]
pub(crate) fn f_of(e: u128) -> u64 {
    (e >> 64) as u64
}

impl Heap {
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.items.clear();
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    #[inline]
    pub(crate) fn capacity(&self) -> usize {
        self.items.capacity()
    }

    #[inline]
    pub(crate) fn push(&mut self, e: u128) {
        let items = &mut self.items;
        let mut i = items.len();
        items.push(e);
        while i > 0 {
            let parent = (i - 1) / 4;
            let p = items[parent];
            if p <= e {
                break;
            }
            items[i] = p;
            i = parent;
        }
        items[i] = e;
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<u128> {
        let items = &mut self.items;
        let last = items.pop()?;
        let n = items.len();
        if n == 0 {
            return Some(last);
        }
        let top = items[0];
        // Sift the last entry down from the root, moving the smallest child up each level.
        let mut i = 0;
        loop {
            let first = 4 * i + 1;
            if first >= n {
                break;
            }
            let (best, best_v) = if first + 4 <= n {
                // Full node: a branch-free tournament over the four children.
                let c = &items[first..first + 4];
                let (i01, v01) = if c[1] < c[0] { (1, c[1]) } else { (0, c[0]) };
                let (i23, v23) = if c[3] < c[2] { (3, c[3]) } else { (2, c[2]) };
                if v23 < v01 {
                    (first + i23, v23)
                } else {
                    (first + i01, v01)
                }
            } else {
                let mut best = first;
                let mut best_v = items[first];
                for (c, &v) in items[first + 1..n].iter().enumerate() {
                    if v < best_v {
                        best = first + 1 + c;
                        best_v = v;
                    }
                }
                (best, best_v)
            };
            if last <= best_v {
                break;
            }
            items[i] = best_v;
            i = best;
        }
        items[i] = last;
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_sorted_order() {
        let mut h = Heap::default();
        let mut v: Vec<u128> = (0..1000u64)
            .map(|i| entry((i * 7919) % 613, ((i * 31) % 17) << TIE_SHIFT, i as u32))
            .collect();
        for &e in &v {
            h.push(e);
        }
        v.sort_unstable();
        let popped: Vec<u128> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(popped, v);
    }

    #[test]
    fn interleaved_pushes_and_pops_match_a_reference_heap() {
        let mut h = Heap::default();
        let mut reference = std::collections::BinaryHeap::new();
        let mut x: u64 = 12345;
        for step in 0..20_000u32 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if x >> 62 != 0 {
                let e = entry((x >> 20) % 5000, ((x >> 8) % 64) << TIE_SHIFT, step);
                h.push(e);
                reference.push(std::cmp::Reverse(e));
            } else {
                assert_eq!(h.pop(), reference.pop().map(|r| r.0));
            }
        }
        while let Some(std::cmp::Reverse(e)) = reference.pop() {
            assert_eq!(h.pop(), Some(e));
        }
        assert_eq!(h.pop(), None);
    }
}
