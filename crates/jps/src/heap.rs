//! A 4-ary min-heap of packed `u128` entries: the open list.
//!
//! An entry is `f << 64 | tie << 32 | index`. `f` is the exact fixed-point
//! [`OctileCost::key`](cuplan_grid::OctileCost::key) of `g + h`, so the heap orders by `f`
//! exactly; among equal `f` it prefers larger `g` (smaller `tie`), which reaches the goal sooner.
//! One `u128` comparison replaces a chain of field comparisons, and four children share a cache
//! line, so a pop touches half as many levels as a binary heap.

/// The open list. Stale entries are not removed; the engine skips them when popped.
#[derive(Debug, Default)]
pub(crate) struct Heap {
    items: Vec<u128>,
}

/// Packs an entry. `g_key` ranks ties only, at 1/1024-step resolution (saturating).
#[inline]
pub(crate) fn entry(f_key: u64, g_key: u64, index: u32) -> u128 {
    let tie = u32::MAX - u32::try_from(g_key >> 32).unwrap_or(u32::MAX);
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
            let end = (first + 4).min(n);
            let mut best = first;
            let mut best_v = items[first];
            for (c, &v) in items[first + 1..end].iter().enumerate() {
                if v < best_v {
                    best = first + 1 + c;
                    best_v = v;
                }
            }
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
            .map(|i| entry((i * 7919) % 613, ((i * 31) % 17) << 32, i as u32))
            .collect();
        for &e in &v {
            h.push(e);
        }
        v.sort_unstable();
        let popped: Vec<u128> = std::iter::from_fn(|| h.pop()).collect();
        assert_eq!(popped, v);
    }
}
