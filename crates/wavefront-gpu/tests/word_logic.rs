//! The kernels' per-word functions against cell-by-cell references on a three-word row strip.

use cuplan_wavefront_kernels::word::{
    bfs_expand, column_bit, dilate4, for_each_cell, movers, space_time_step, word_of,
};
use proptest::prelude::*;

/// Bit `col` (0..192) of a row of three words.
fn bit(row: &[u64; 3], col: i64) -> bool {
    (0..192).contains(&col) && row[(col / 64) as usize] >> (col % 64) & 1 == 1
}

/// The middle word's cells that have a 4-neighbour set in `front` (rows: above, here, below).
fn dilate_reference(front: &[[u64; 3]; 3]) -> u64 {
    (0..64).fold(0, |acc, b| {
        let c = 64 + b as i64;
        let hit = bit(&front[1], c - 1)
            || bit(&front[1], c + 1)
            || bit(&front[0], c)
            || bit(&front[2], c);
        acc | (u64::from(hit) << b)
    })
}

proptest! {
    #[test]
    fn dilation_matches_the_cell_by_cell_reference(front in any::<[[u64; 3]; 3]>()) {
        let got = dilate4(front[1][1], front[1][0], front[1][2], front[0][1], front[2][1]);
        prop_assert_eq!(got, dilate_reference(&front));
    }

    #[test]
    fn expansion_is_dilation_masked_by_remaining(front in any::<[[u64; 3]; 3]>(), rem in any::<u64>()) {
        let got = bfs_expand(rem, front[1][1], front[1][0], front[1][2], front[0][1], front[2][1]);
        prop_assert_eq!(got, dilate_reference(&front) & rem);
    }

    /// Space-time step: a cell of the middle word is reachable when it is allowed and the agent
    /// waited there, or came from a neighbour whose move towards it is not edge-reserved.
    #[test]
    fn space_time_step_matches_the_reference(
        reach in any::<[[u64; 3]; 3]>(),
        // Edge planes N, E, S, W over the same strip.
        edges in any::<[[[u64; 3]; 3]; 4]>(),
        allowed in any::<u64>(),
    ) {
        let m = |d: usize, r: usize, w: usize| movers(reach[r][w], edges[d][r][w]);
        let got = space_time_step(
            reach[1][1],
            m(1, 1, 1), m(1, 1, 0),
            m(3, 1, 1), m(3, 1, 2),
            m(2, 0, 1),
            m(0, 2, 1),
            allowed,
        );
        let want = (0..64).fold(0u64, |acc, b| {
            let c = 64 + b as i64;
            // (row, column, direction of the move from there to us)
            let from = [(1usize, c, None), (1, c - 1, Some(1usize)), (1, c + 1, Some(3)), (0, c, Some(2)), (2, c, Some(0))];
            let ok = from.iter().any(|&(r, col, d)| {
                bit(&reach[r], col) && d.is_none_or(|d| !bit(&edges[d][r], col))
            });
            acc | (u64::from(ok && allowed >> b & 1 == 1) << b)
        });
        prop_assert_eq!(got, want);
    }

    #[test]
    fn cells_of_a_word_are_listed_row_major(bits in any::<u64>(), row in 1u32..50, cw in 0u32..4) {
        // Real columns start at stored column 1, so bit 0 of word 0 is never a real cell.
        let bits = if cw == 0 { bits & !1 } else { bits };
        let width = 64 * 4 + 10;
        let mut got = Vec::new();
        for_each_cell(bits, row, cw, width, |c| got.push(c));
        let want: Vec<u32> = (0..64)
            .filter(|b| bits >> b & 1 == 1)
            .map(|b| (row - 1) * width + cw * 64 + b - 1)
            .collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn a_cell_is_at_stored_coordinates_plus_one(x in 0u32..1000, y in 0u32..1000, stride in 17u32..40) {
        let w = word_of(x, y, stride);
        prop_assert_eq!(w / stride, y + 1);
        prop_assert_eq!((w % stride) * 64 + column_bit(x).trailing_zeros(), x + 1);
    }
}
