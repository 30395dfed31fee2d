//! The two parallel shapes the jump-table build uses, on rayon with the `rayon` feature and as
//! plain loops without it, so the build code is written once.

/// Calls `f(y, row)` for each `width`-long row of `cells`.
#[cfg(feature = "rayon")]
pub(crate) fn for_each_row<T: Send>(
    cells: &mut [T],
    width: usize,
    f: impl Fn(usize, &mut [T]) + Sync + Send,
) {
    use rayon::prelude::*;
    cells
        .par_chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| f(y, row));
}

/// Calls `f(y, row)` for each `width`-long row of `cells`.
#[cfg(not(feature = "rayon"))]
pub(crate) fn for_each_row<T>(cells: &mut [T], width: usize, f: impl Fn(usize, &mut [T])) {
    cells
        .chunks_mut(width)
        .enumerate()
        .for_each(|(y, row)| f(y, row));
}

/// `items.map(f).collect()`, in input order.
#[cfg(feature = "rayon")]
pub(crate) fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    use rayon::prelude::*;
    items.par_iter().map(f).collect()
}

/// `items.map(f).collect()`, in input order.
#[cfg(not(feature = "rayon"))]
pub(crate) fn map<T, R>(items: &[T], f: impl Fn(&T) -> R) -> Vec<R> {
    items.iter().map(f).collect()
}
