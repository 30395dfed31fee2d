//! Any-angle post-processing: string pulling with an exact line-of-sight test.
//!
//! A segment joins cell centres. It has line of sight when it touches no blocked cell at all,
//! corners and edges included (closed squares). This is the no-corner-cutting rule extended to
//! any angle: a 45° segment through a corner point is then legal exactly when the octile
//! diagonal step is, and a segment can never slip between two diagonally touching blocked
//! cells. Every step of an octile path has line of sight, so pulling never lengthens a path.
//! All arithmetic is on integers.

use cuplan_grid::{Cell, Grid};

use crate::Path;

/// Whether the segment between the centres of `a` and `b` touches no blocked cell (and stays
/// inside the grid). Both cells must be free for `true`.
pub fn line_of_sight(grid: &Grid, a: Cell, b: Cell) -> bool {
    if !grid.is_free(a) || !grid.is_free(b) {
        return false;
    }
    // Work in half-cell units: centre of cell x is 2x + 1, cell x spans [2x, 2x + 2].
    let (ax, ay) = (2 * i64::from(a.x) + 1, 2 * i64::from(a.y) + 1);
    let (bx, by) = (2 * i64::from(b.x) + 1, 2 * i64::from(b.y) + 1);
    let (x_lo, x_hi) = (ax.min(bx), ax.max(bx));
    // Columns whose closed span [2c, 2c + 2] meets [x_lo, x_hi].
    let first_col = ceil_div(x_lo, 2) - 1;
    let last_col = x_hi.div_euclid(2);
    for c in first_col..=last_col {
        // The part of the segment over this column's closed span.
        let (sx0, sx1) = ((2 * c).max(x_lo), (2 * c + 2).min(x_hi));
        if sx0 > sx1 {
            continue;
        }
        let (y0, y1) = y_range(ax, ay, bx, by, sx0, sx1);
        // Rows whose closed span [2r, 2r + 2] meets [y0, y1] (y's as num / den, den > 0).
        let first_row = ceil_div_frac(y0, 2) - 1;
        let last_row = floor_div_frac(y1, 2);
        for r in first_row..=last_row {
            if !grid.is_free_signed(c, r) {
                return false;
            }
        }
    }
    true
}

/// A rational `num / den` with `den > 0`.
type Frac = (i64, i64);

/// The min and max y (as fractions) of the segment (ax, ay)–(bx, by) over x in [x0, x1].
fn y_range(ax: i64, ay: i64, bx: i64, by: i64, x0: i64, x1: i64) -> (Frac, Frac) {
    if ax == bx {
        return ((ay.min(by), 1), (ay.max(by), 1));
    }
    let (dx, dy) = (bx - ax, by - ay);
    let at = |x: i64| -> Frac {
        // y = ay + (x - ax) * dy / dx, with a positive denominator.
        let (num, den) = (ay * dx + (x - ax) * dy, dx);
        if den < 0 { (-num, -den) } else { (num, den) }
    };
    let (p, q) = (at(x0), at(x1));
    if p.0 * q.1 <= q.0 * p.1 {
        (p, q)
    } else {
        (q, p)
    }
}

fn ceil_div(a: i64, b: i64) -> i64 {
    -((-a).div_euclid(b))
}

/// ⌈(num / den) / k⌉.
fn ceil_div_frac((num, den): Frac, k: i64) -> i64 {
    ceil_div(num, den * k)
}

/// ⌊(num / den) / k⌋.
fn floor_div_frac((num, den): Frac, k: i64) -> i64 {
    num.div_euclid(den * k)
}

/// String pulling: from each anchor, the walk is followed waypoint by waypoint while the
/// next waypoint stays in line of sight; on the first run that leaves it, the farthest cell
/// still in sight (found by galloping, then bisection) becomes the next waypoint. Returns
/// any-angle waypoints, start first, goal last, each consecutive pair in [`line_of_sight`];
/// their Euclidean length ([`euclidean_length`]) is at most the path's octile cost.
///
/// `path` is a search's answer: waypoints joined by straight or 45° runs of free cells.
/// Work is a few line-of-sight tests per waypoint of the answer plus a logarithmic number
/// per run, each linear in its segment's length: a long straight corridor costs one test, not
/// one test per cell.
pub fn smooth(grid: &Grid, path: &Path) -> Vec<Cell> {
    let waypoints = &path.waypoints;
    let Some(&first) = waypoints.first() else {
        return Vec::new();
    };
    let mut out = vec![first];
    let mut anchor = first;
    // The anchor lies on the run that ends at `waypoints[next]`, so that waypoint is in sight.
    let mut next = 1;
    while next < waypoints.len() {
        let mut reach = next;
        while reach + 1 < waypoints.len() && line_of_sight(grid, anchor, waypoints[reach + 1]) {
            reach += 1;
        }
        if reach + 1 == waypoints.len() {
            out.push(waypoints[reach]);
            break;
        }
        anchor = farthest_in_sight(grid, anchor, waypoints[reach], waypoints[reach + 1]);
        out.push(anchor);
        next = reach + 1;
    }
    out
}

/// The farthest cell of the run `from`–`to` (straight or 45°) found in sight of `anchor`,
/// given that `from` is in sight and `to` is not. Sight along a run need not be monotone, so
/// this is a cell in sight, not always the last one; pulling stays valid either way.
fn farthest_in_sight(grid: &Grid, anchor: Cell, from: Cell, to: Cell) -> Cell {
    let (dx, dy) = (
        i64::from(to.x) - i64::from(from.x),
        i64::from(to.y) - i64::from(from.y),
    );
    let len = dx.abs().max(dy.abs());
    let at = |k: i64| {
        Cell::new(
            (i64::from(from.x) + dx.signum() * k) as u32,
            (i64::from(from.y) + dy.signum() * k) as u32,
        )
    };
    // Invariant: cell `seen` is in sight, cell `hidden` is not.
    let (mut seen, mut hidden) = (0, len);
    let mut step = 1;
    while seen + step < hidden {
        if line_of_sight(grid, anchor, at(seen + step)) {
            seen += step;
            step *= 2;
        } else {
            hidden = seen + step;
            break;
        }
    }
    while hidden - seen > 1 {
        let mid = seen + (hidden - seen) / 2;
        if line_of_sight(grid, anchor, at(mid)) {
            seen = mid;
        } else {
            hidden = mid;
        }
    }
    at(seen)
}

/// Euclidean length of a polyline through cell centres.
pub fn euclidean_length(waypoints: &[Cell]) -> f64 {
    waypoints
        .windows(2)
        .map(|w| {
            let dx = f64::from(w[0].x) - f64::from(w[1].x);
            let dy = f64::from(w[0].y) - f64::from(w[1].y);
            dx.hypot(dy)
        })
        // Folded from +0.0: an empty f64 sum is -0.0, which printed as "cost":-0.0.
        .fold(0.0, |total, step| total + step)
}
