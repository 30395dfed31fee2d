//! Any-angle post-processing: string pulling with an exact line-of-sight test.
//!
//! A segment joins cell centres. It has line of sight when it touches no blocked cell at all,
//! corners and edges included (closed squares). This is the no-corner-cutting rule extended to
//! any angle: a 45° segment through a corner point is then legal exactly when the octile
//! diagonal step is, and a segment can never slip between two diagonally touching blocked
//! cells. Every step of an octile path has line of sight, so pulling never lengthens a path.
//! All arithmetic is on integers.

use cuplan_grid::{Cell, Grid, expand_waypoints};

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

/// String pulling: from each anchor, the farthest cell of the walked path still in line of
/// sight becomes the next waypoint. Returns any-angle waypoints, start first, goal last, each
/// consecutive pair in [`line_of_sight`]; their Euclidean length ([`euclidean_length`]) is at
/// most the path's octile cost.
pub fn smooth(grid: &Grid, path: &Path) -> Vec<Cell> {
    let cells = expand_waypoints(&path.waypoints);
    let Some(&first) = cells.first() else {
        return Vec::new();
    };
    let mut out = vec![first];
    let mut anchor = first;
    let mut i = 1;
    while i < cells.len() {
        // Advance while the next cell is visible from the anchor.
        let mut last_visible = i;
        while last_visible + 1 < cells.len() && line_of_sight(grid, anchor, cells[last_visible + 1])
        {
            last_visible += 1;
        }
        anchor = cells[last_visible];
        out.push(anchor);
        i = last_visible + 1;
    }
    out
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
        .sum()
}
