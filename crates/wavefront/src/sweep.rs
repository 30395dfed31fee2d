//! The row-sweep kernel ([`CpuKernel::Sweep`](crate::CpuKernel::Sweep)): exact distance maps
//! by Gauss–Seidel sweeps over whole rows with AVX-512.
//!
//! Why it is fast: a breadth-first queue pays a dozen dependent operations per cell, while a
//! sweep relaxes 32 `u16` cells per vector operation. A *row step* relaxes a row from its
//! neighbour row (one vector `min(d, d' + 1)` per block of 32 cells) and then along itself: a
//! segmented min-plus scan inside each block in both directions (`log2(32)` shift-add-min
//! steps masked by the block's free runs; the two directions are independent chains), then
//! scalar carries between blocks. A *pass* steps every row top to bottom or bottom to top, so
//! it settles every path that is monotone in `y`; when a step changes a row, the rows behind
//! it are stepped back while they keep changing (then forward again), which settles short
//! detours against the pass direction at once. Open maps take two passes, random maps with
//! 20 % obstacles three to five.
//!
//! Exactness: every value is the length of a real walk (an upper bound) and only decreases.
//! Each row remembers which of its cells changed since the row below, and the row above, last
//! pulled from it ([`Pending`]), and a row step relaxes only from those. When nothing is
//! pending, every edge satisfies `d(v) <= d(u) + 1`; upper bounds with that property are the
//! exact distances. Sums saturate at `u16::MAX`, so a map where a distance may have reached it
//! is reported ([`Swept::MayOverflow`]) rather than trusted. A `u32` map is swept in `u16`
//! and widened.
//!
//! Where sweeps lose: dense random maps (short free runs, so many small detours and many steps
//! per row), mazes (a pass per corridor turn) and narrow grids (few lanes per row).
//! [`FreeBits::suits_sweeps`] sends those to the tile kernel (`tiles.rs`) up front, and
//! [`FreeBits::mostly_corridors`] sends 1-wide mazes to the queue kernel; a sweep that spends
//! more work than the tile kernel would reports [`Swept::Costly`] (its map is still exact);
//! one that stalls ([`Swept::Stalled`]) or exceeds a hard budget ([`Swept::Winding`]) gives
//! up, and the caller uses the tile kernel for that goal.
//!
//! Only compiled for `x86_64`, and only run when the processor has the features of
//! [`supported`].

use std::arch::x86_64::*;

use cuplan_grid::{Cell, Grid};

use crate::Distance;

/// Whether this processor runs the sweep kernel.
pub(crate) fn supported() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("lzcnt")
}

/// Cells a vector holds.
const LANES: usize = 32;

/// `log2(LANES)`: the shift-add-min steps of an in-block scan.
const STEPS: usize = 5;

/// The value of a cell not reached (yet), and of blocked cells.
const INF: u16 = u16::MAX;

/// The free cells of a grid, one bit per cell (1 = free), rows of `u64` words padded with
/// blocked bits (at least one whole word past the last column).
pub(crate) struct FreeBits<'g> {
    grid: &'g Grid,
    width: usize,
    height: usize,
    words_per_row: usize,
    words: Vec<u64>,
}

impl<'g> FreeBits<'g> {
    pub(crate) fn new(grid: &'g Grid) -> FreeBits<'g> {
        let plane = grid.rows();
        let (width, height) = (grid.width() as usize, grid.height() as usize);
        let words_per_row = width.div_ceil(64) + 1;
        let mut words = vec![0u64; words_per_row * height];
        for (y, row) in words.chunks_exact_mut(words_per_row).enumerate() {
            let stored = plane.row(y + 1);
            for (k, word) in row.iter_mut().enumerate() {
                *word = crate::distance::free_columns(stored, k);
            }
        }
        FreeBits {
            grid,
            width,
            height,
            words_per_row,
            words,
        }
    }

    /// Whether sweeps are likely to beat the tile kernel here: on grids at least 128 cells
    /// wide whose rows' free runs average 6.5 cells or more. Short runs make a row step settle
    /// little and paths take many small detours (random maps: the kernels break even at 15 %
    /// obstacles, mean run 6.7; at 20 %, mean run 5, tiles take 0.7 times as long; mazes and
    /// rooms need a pass per turn); narrow grids leave a vector op few lanes to fill (the
    /// MAPF benchmark's 32- to 65-wide maps: tiles 1.0–2.3 times as fast). Open maps, game
    /// and city maps and warehouses keep sweeps: 1024² open maps take 0.7–0.9 ns a cell
    /// against 2.3, warehouse shelves 0.8 against 1.35 (`examples/bfs_timing.rs`,
    /// `cargo xtask bench batch --data`).
    pub(crate) fn suits_sweeps(&self) -> bool {
        if self.width < 128 {
            return false;
        }
        let runs: u64 = (0..self.height)
            .map(|y| {
                let mut carry = 0;
                let mut starts = 0;
                for &word in self.row(y) {
                    starts += u64::from((word & !(word << 1 | carry)).count_ones());
                    carry = word >> 63;
                }
                starts
            })
            .sum();
        2 * self.grid.free_count() >= 13 * runs
    }

    /// Whether 60 % of the free cells or more have at most two free neighbours: 1-wide
    /// corridors (mazes), or a grid broken into small pieces (random maps past 45 %
    /// obstacles). There a queue beats the tile kernel (1-wide mazes: 1.2–1.35× at 128² and
    /// 256², 1.05–1.15× at 1024²; random maps at 45–50 % obstacles: 1.15–1.5×), and sweeps
    /// stall. Random maps at 40 % obstacles (53 % of their free cells) and 2-wide mazes stay
    /// with tiles; the MAPF benchmark's other maps have at most 43 % (the warehouse).
    pub(crate) fn mostly_corridors(&self) -> bool {
        let mut narrow = 0u64;
        for y in 0..self.height {
            let row = self.row(y);
            let up = y.checked_sub(1).map(|z| self.row(z));
            let down = Some(y + 1)
                .filter(|&z| z < self.height)
                .map(|z| self.row(z));
            for k in 0..self.words_per_row {
                let c = row[k];
                // Bit x of each: whether the neighbour of cell x on that side is free.
                let left = c << 1 | k.checked_sub(1).map_or(0, |j| row[j] >> 63);
                let right = c >> 1 | row.get(k + 1).map_or(0, |&n| n << 63);
                let (u, d) = (up.map_or(0, |r| r[k]), down.map_or(0, |r| r[k]));
                let three_or_more = (left & right & (u | d)) | (u & d & (left | right));
                narrow += u64::from((c & !three_or_more).count_ones());
            }
        }
        5 * narrow >= 3 * self.grid.free_count()
    }

    fn row(&self, y: usize) -> &[u64] {
        &self.words[y * self.words_per_row..(y + 1) * self.words_per_row]
    }
}

/// How a sweep ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Swept {
    /// The map is exact.
    Exact,
    /// The map is exact, but the tile kernel would have been faster.
    Costly,
    /// A distance may exceed `u16` (the map is unspecified).
    MayOverflow,
    /// Two passes left most free cells unreached: paths wind (a maze), or the goal's part of
    /// the grid is small; either way a BFS is the better tool (the map is unspecified).
    Stalled,
    /// The sweeps ran past the work budget (the map is unspecified).
    Winding,
}

/// Whether sweeps may give up ([`Swept::Winding`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Budget {
    /// Give up past the work budget ([`Swept::Winding`]), or when two passes leave most free
    /// cells unreached ([`Swept::Stalled`]).
    Capped,
    /// Sweep until exact, however long it takes (for tests: every grid converges).
    #[cfg_attr(not(test), allow(dead_code))]
    Unlimited,
}

/// Which cells of each row changed since a neighbouring row last pulled from them.
#[derive(Default)]
struct Pending {
    /// Changed lanes, `blocks_per_row` a row.
    lanes: Vec<u32>,
    /// Which blocks have changed lanes, `words_per_row` a row.
    blocks: Vec<u64>,
    blocks_per_row: usize,
    words_per_row: usize,
}

impl Pending {
    fn reset(&mut self, rows: usize, blocks_per_row: usize) {
        self.blocks_per_row = blocks_per_row;
        self.words_per_row = blocks_per_row.div_ceil(64);
        self.lanes.clear();
        self.lanes.resize(rows * blocks_per_row, 0);
        self.blocks.clear();
        self.blocks.resize(rows * self.words_per_row, 0);
    }

    /// Row `y`'s lanes and block set.
    fn row(&mut self, y: usize) -> (&mut [u32], &mut [u64]) {
        let (nb, mw) = (self.blocks_per_row, self.words_per_row);
        (
            &mut self.lanes[y * nb..(y + 1) * nb],
            &mut self.blocks[y * mw..(y + 1) * mw],
        )
    }

    /// Adds a row's changes (`lanes` per block, `blocks` the set of changed blocks) to row `y`.
    fn add_row(&mut self, y: usize, lanes: &[u32], blocks: &[u64]) {
        let (nb, mw) = (self.blocks_per_row, self.words_per_row);
        for (slot, &changed) in self.lanes[y * nb..(y + 1) * nb].iter_mut().zip(lanes) {
            *slot |= changed;
        }
        for (slot, &changed) in self.blocks[y * mw..(y + 1) * mw].iter_mut().zip(blocks) {
            *slot |= changed;
        }
    }

    /// Whether any row has pending cells.
    fn any(&self) -> bool {
        self.blocks.iter().any(|&b| b != 0)
    }
}

/// Per-thread buffers, reused across goals and grids.
#[derive(Default)]
pub(crate) struct Scratch {
    /// Pulled by the row below.
    down: Pending,
    /// Pulled by the row above.
    up: Pending,
    /// The changes of the row being stepped (one row).
    step: Pending,
    /// Whether each row has been written since the map started.
    ready: Vec<bool>,
}

impl Scratch {
    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        let pending = |p: &Pending| p.lanes.capacity() * 4 + p.blocks.capacity() * 8;
        pending(&self.down) + pending(&self.up) + pending(&self.step) + self.ready.capacity()
    }
}

/// Fills `out` (row-major `width × height`, any contents) with the exact distances to `goal`,
/// unless the result says otherwise. A `u32` map is swept in `narrow` and widened.
///
/// The caller checked [`supported`], that `goal` is a free cell of the grid `free` was built
/// from, and that `out.len()` is its cell count.
pub(crate) fn fill<D: Distance>(
    free: &FreeBits<'_>,
    goal: Cell,
    out: &mut [D],
    scratch: &mut Scratch,
    narrow: &mut Vec<u16>,
    budget: Budget,
) -> Swept {
    debug_assert!(supported());
    debug_assert_eq!(out.len(), free.width * free.height);
    if let Some(out) = crate::distance::as_u16(out) {
        // SAFETY: `supported()`, checked by the caller, says the processor has the features
        // the kernel is compiled for.
        return unsafe { Sweeper::run(free, goal, out, scratch, budget) };
    }
    narrow.resize(out.len(), 0);
    // SAFETY: as above, `supported()` was checked by the caller.
    let swept = unsafe { Sweeper::run(free, goal, narrow, scratch, budget) };
    if matches!(swept, Swept::Exact | Swept::Costly) {
        crate::distance::widen(narrow, out);
    }
    swept
}

/// Widens a `u16` map into `out` when `D` is `u32` (`INF` becomes `u32::MAX`), 16 cells an
/// operation; returns whether it did (not when `D` is `u16`, or without AVX-512).
pub(crate) fn widen_u32<D: Distance>(narrow: &[u16], out: &mut [D]) -> bool {
    if size_of::<D>() != 4 || !supported() {
        return false;
    }
    // SAFETY: `Distance` is sealed to `u16` and `u32`, so a four-byte `D` is `u32`.
    let out = unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast::<u32>(), out.len()) };
    // SAFETY: `supported()` says the processor has AVX-512F.
    unsafe { widen_avx512(narrow, out) };
    true
}

#[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
fn widen_avx512(narrow: &[u16], out: &mut [u32]) {
    let wide_inf = _mm512_set1_epi32(i32::from(INF));
    let mut from = narrow.chunks_exact(16);
    let mut to = out.chunks_exact_mut(16);
    for (src, dst) in (&mut from).zip(&mut to) {
        // SAFETY: both chunks hold 16 elements; the accesses are unaligned.
        unsafe {
            let w = _mm512_cvtepu16_epi32(_mm256_loadu_si256(src.as_ptr().cast()));
            let unreached = _mm512_cmpeq_epi32_mask(w, wide_inf);
            let w = _mm512_mask_mov_epi32(w, unreached, _mm512_set1_epi32(-1));
            _mm512_storeu_si512(dst.as_mut_ptr().cast(), w);
        }
    }
    for (dst, &d) in to.into_remainder().iter_mut().zip(from.remainder()) {
        *dst = if d == INF { u32::MAX } else { u32::from(d) };
    }
}

/// Whether a free cell that holds `INF` has a neighbour with a distance: then a saturated sum
/// hid a distance of 65,535 or more.
fn has_cut_edge(grid: &Grid, out: &[u16]) -> bool {
    let at = |c: Cell| out[grid.index(c).get()];
    (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .any(|c| grid.is_free(c) && at(c) == INF && grid.neighbours4(c).any(|n| at(n) != INF))
}

/// The first set bit at or after `b`.
fn first_from(set: &[u64], b: usize) -> Option<usize> {
    let mut k = b / 64;
    let mut word = *set.get(k)? & (!0u64 << (b % 64));
    loop {
        if word != 0 {
            return Some(64 * k + word.trailing_zeros() as usize);
        }
        k += 1;
        word = *set.get(k)?;
    }
}

/// The last set bit at or before `b`.
fn last_upto(set: &[u64], b: usize) -> Option<usize> {
    let mut k = b / 64;
    let mut word = set[k] & (!0u64 >> (63 - b % 64));
    loop {
        if word != 0 {
            return Some(64 * k + 63 - word.leading_zeros() as usize);
        }
        k = k.checked_sub(1)?;
        word = set[k];
    }
}

fn has(set: &[u64], b: usize) -> bool {
    set[b / 64] >> (b % 64) & 1 != 0
}

/// The free lanes of block `b` of a [`FreeBits`] row.
#[inline(always)]
fn free_lanes(row: &[u64], b: usize) -> u32 {
    (row[b / 2] >> (b % 2 * 32)) as u32
}

/// The carry a scan hands to the next block: the block's far lane (`edge`, its value from
/// inside the block), or the incoming `carry` walked across the block when all of it is free.
fn carry_across(free: u32, edge: u16, carry: u16) -> u16 {
    if free == u32::MAX {
        edge.min(carry.saturating_add(LANES as u16))
    } else {
        edge
    }
}

/// The lanes of block `b` that lie inside a row of `width` cells.
fn inside(width: usize, b: usize) -> u32 {
    let left = width - LANES * b;
    if left >= LANES {
        u32::MAX
    } else {
        (1 << left) - 1
    }
}

/// Permutation indices and ramps, as vectors to load.
#[repr(align(64))]
struct Table([u16; LANES]);

/// Lane `i` takes lane `i - shift` (`up`) or `i + shift`.
const fn shift_table(shift: usize, up: bool) -> Table {
    let mut a = [0; LANES];
    let mut i = 0;
    while i < LANES {
        a[i] = if up {
            i.saturating_sub(shift) as u16
        } else if i + shift < LANES {
            (i + shift) as u16
        } else {
            (LANES - 1) as u16
        };
        i += 1;
    }
    Table(a)
}

/// `1, 2, .., 32` from the left end (`up`) or from the right end.
const fn ramp(up: bool) -> Table {
    let mut a = [0; LANES];
    let mut i = 0;
    while i < LANES {
        a[i] = if up { i + 1 } else { LANES - i } as u16;
        i += 1;
    }
    Table(a)
}

static SHIFT_UP: [Table; STEPS] = [
    shift_table(1, true),
    shift_table(2, true),
    shift_table(4, true),
    shift_table(8, true),
    shift_table(16, true),
];
static SHIFT_DOWN: [Table; STEPS] = [
    shift_table(1, false),
    shift_table(2, false),
    shift_table(4, false),
    shift_table(8, false),
    shift_table(16, false),
];
static RAMP_UP: Table = ramp(true);
static RAMP_DOWN: Table = ramp(false);

/// Vector constants, loaded once per map.
#[derive(Clone, Copy)]
struct Consts {
    up: [__m512i; STEPS],
    down: [__m512i; STEPS],
    step: [__m512i; STEPS],
    ramp_up: __m512i,
    ramp_down: __m512i,
    one: __m512i,
    inf: __m512i,
    limit: __m512i,
}

impl Consts {
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    fn load() -> Consts {
        // SAFETY: each table is 64 bytes, 64-byte aligned.
        let load = |t: &Table| unsafe { _mm512_load_si512(t.0.as_ptr().cast()) };
        Consts {
            up: std::array::from_fn(|s| load(&SHIFT_UP[s])),
            down: std::array::from_fn(|s| load(&SHIFT_DOWN[s])),
            step: std::array::from_fn(|s| _mm512_set1_epi16(1 << s)),
            ramp_up: load(&RAMP_UP),
            ramp_down: load(&RAMP_DOWN),
            one: _mm512_set1_epi16(1),
            inf: _mm512_set1_epi16(INF as i16),
            limit: _mm512_set1_epi16((INF - 1) as i16),
        }
    }
}

/// Loads block `b` of `row` (lanes past the row read as `INF`).
///
/// # Safety
/// `row` must hold at least `LANES * b + 1` cells.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
unsafe fn load(c: &Consts, row: &[u16], b: usize) -> __m512i {
    // SAFETY: the load is masked to the lanes inside `row`.
    unsafe {
        _mm512_mask_loadu_epi16(
            c.inf,
            inside(row.len(), b),
            row.as_ptr().add(LANES * b).cast(),
        )
    }
}

/// Stores block `b` of `row` (lanes past the row are not written).
///
/// # Safety
/// `row` must hold at least `LANES * b + 1` cells.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
unsafe fn store(row: &mut [u16], b: usize, v: __m512i) {
    let valid = inside(row.len(), b);
    // SAFETY: the store is masked to the lanes inside `row`.
    unsafe { _mm512_mask_storeu_epi16(row.as_mut_ptr().add(LANES * b).cast(), valid, v) }
}

/// `a` where `m` is clear, `min(a, b + k)` where it is set (sums saturate at `INF`).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
fn relax(a: __m512i, m: u32, b: __m512i, k: __m512i) -> __m512i {
    _mm512_mask_min_epu16(a, m, a, _mm512_adds_epu16(b, k))
}

/// `v` relaxed along the free runs of its block (`free`, the free lanes) in both directions:
/// a segmented min-plus scan, `log2(LANES)` shift-add-min steps a direction (the two are
/// independent chains).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
fn scan(c: &Consts, free: u32, v: __m512i) -> __m512i {
    let (mut l, mut r) = (v, v);
    // Lanes whose cells `x - 2^s ..= x` (`run_left`), `x ..= x + 2^s` (`run_right`) are all
    // free.
    let (mut run_left, mut run_right) = (free & (free << 1), free & (free >> 1));
    for s in 0..STEPS {
        if s > 0 {
            run_left &= run_left << (1 << (s - 1));
            run_right &= run_right >> (1 << (s - 1));
        }
        l = relax(l, run_left, _mm512_permutexvar_epi16(c.up[s], l), c.step[s]);
        r = relax(
            r,
            run_right,
            _mm512_permutexvar_epi16(c.down[s], r),
            c.step[s],
        );
    }
    _mm512_min_epu16(l, r)
}

/// What a map's sweeps have done so far, kept across its row steps.
struct Tally {
    /// Block operations done, the measure of a sweep's cost.
    work: u64,
    /// Whether to watch for the largest distance `u16` holds (only possible on grids with more
    /// free cells than that), and whether a change wrote it.
    watch: bool,
    at_limit: bool,
}

/// One step of one row: the row, its free lanes, and what it changed.
struct RowStep<'a> {
    row: &'a mut [u16],
    /// The row's [`FreeBits`] row.
    free: &'a [u64],
    /// Lanes changed by this step (one row of [`Pending`]).
    changed: &'a mut [u32],
    blocks: &'a mut [u64],
    tally: &'a mut Tally,
}

impl RowStep<'_> {
    /// Stores block `b`'s new value `v` if it differs from `old`, and records the change.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    fn update(&mut self, c: &Consts, b: usize, old: __m512i, v: __m512i) {
        let diff = _mm512_cmpneq_epu16_mask(v, old);
        if diff != 0 {
            // SAFETY: `b` is a block of the row.
            unsafe { store(self.row, b, v) };
            self.changed[b] |= diff;
            self.blocks[b / 64] |= 1 << (b % 64);
            if self.tally.watch {
                self.tally.at_limit |= _mm512_cmpeq_epu16_mask(v, c.limit) != 0;
            }
        }
    }

    /// Relaxes the row from the pending `lanes` of the neighbour row `from` (`blocks`: the
    /// blocks with pending lanes, all taken out of the pending set) and then along itself, in
    /// one walk from the left: a pulled block that changed gets the in-block scan in both
    /// directions, and every block the walk visits takes the carry from its left; a block
    /// nothing was pulled into and that the carry cannot improve is skipped, up to the next
    /// pulled block. Then [`RowStep::carry_left`].
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    fn pull_along(&mut self, c: &Consts, from: &[u16], lanes: &mut [u32], blocks: &mut [u64]) {
        let nb = self.row.len().div_ceil(LANES);
        let Some(mut b) = first_from(blocks, 0) else {
            return;
        };
        let mut carry = if b == 0 { INF } else { self.row[LANES * b - 1] };
        while b < nb {
            let f = free_lanes(self.free, b);
            let pulled = has(blocks, b);
            let improves = f & 1 != 0 && carry.saturating_add(1) < self.row[LANES * b];
            if !pulled && !improves {
                let Some(next) = first_from(blocks, b + 1) else {
                    break;
                };
                b = next;
                carry = self.row[LANES * b - 1];
                continue;
            }
            // SAFETY: `b` is a block of the row.
            let old = unsafe { load(c, self.row, b) };
            let mut v = old;
            let mut moved = improves;
            if pulled {
                // SAFETY: `b` is a block of both rows.
                let src = unsafe { load(c, from, b) };
                v = relax(old, std::mem::take(&mut lanes[b]) & f, src, c.one);
                self.tally.work += 1;
                if _mm512_cmpneq_epu16_mask(v, old) != 0 {
                    v = scan(c, f, v);
                    moved = true;
                }
            }
            if moved {
                let last = _mm_extract_epi16::<7>(_mm512_extracti32x4_epi32::<3>(v)) as u16;
                // The lanes up to the first blocked one take the carry.
                let prefix = match (!f).trailing_zeros() as usize {
                    n if n >= LANES => u32::MAX,
                    n => (1 << n) - 1,
                };
                v = relax(v, prefix, _mm512_set1_epi16(carry as i16), c.ramp_up);
                carry = carry_across(f, last, carry);
                self.update(c, b, old, v);
                self.tally.work += 1;
            } else {
                let last = self.row.get(LANES * b + LANES - 1).copied().unwrap_or(INF);
                carry = carry_across(f, last, carry);
            }
            b += 1;
        }
        blocks.fill(0);
        self.carry_left(c);
    }

    /// Carries from the right, from the last changed block leftwards (inside a block both
    /// directions are done): a block whose last lane the carry cannot improve is left as it
    /// is; past an unchanged one the walk skips to the previous changed block.
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    fn carry_left(&mut self, c: &Consts) {
        let nb = self.row.len().div_ceil(LANES);
        let Some(mut b) = last_upto(self.blocks, nb - 1) else {
            return;
        };
        let mut carry = if b + 1 == nb {
            INF
        } else {
            self.row[LANES * b + LANES]
        };
        loop {
            let f = free_lanes(self.free, b);
            let improves =
                f >> (LANES - 1) != 0 && carry.saturating_add(1) < self.row[LANES * b + LANES - 1];
            if improves {
                // SAFETY: `b` is a block of the row.
                let old = unsafe { load(c, self.row, b) };
                // The lanes down to the last blocked one take the carry.
                let suffix = match (!f).leading_zeros() as usize {
                    0 => 0,
                    n if n >= LANES => u32::MAX,
                    n => u32::MAX << (LANES - n),
                };
                let first = _mm_cvtsi128_si32(_mm512_castsi512_si128(old)) as u16;
                let v = relax(old, suffix, _mm512_set1_epi16(carry as i16), c.ramp_down);
                carry = carry_across(f, first, carry);
                self.update(c, b, old, v);
                self.tally.work += 1;
            } else if has(self.blocks, b) {
                // Nothing comes in, but the block changed: its left neighbour may gain.
                carry = self.row[LANES * b];
            } else {
                let Some(prev) = b.checked_sub(1).and_then(|p| last_upto(self.blocks, p)) else {
                    return;
                };
                b = prev;
                carry = self.row[LANES * b + LANES];
                continue;
            }
            match b.checked_sub(1) {
                Some(prev) => b = prev,
                None => return,
            }
        }
    }
}

/// The state of one map's sweeps.
struct Sweeper<'a> {
    c: Consts,
    free: &'a FreeBits<'a>,
    out: &'a mut [u16],
    down: &'a mut Pending,
    up: &'a mut Pending,
    step: &'a mut Pending,
    /// Whether each row holds values yet: a row is filled with `INF` when first stepped
    /// (while it is about to be used anyway), not in a pass of its own.
    ready: &'a mut [bool],
    tally: Tally,
}

impl Sweeper<'_> {
    /// Sweeps `out` to the distances to `goal` (see the module docs).
    ///
    /// # Safety
    /// The processor must have the features of [`supported`].
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    unsafe fn run(
        free: &FreeBits<'_>,
        goal: Cell,
        out: &mut [u16],
        s: &mut Scratch,
        budget: Budget,
    ) -> Swept {
        let (w, h) = (free.width, free.height);
        let nb = w.div_ceil(LANES);
        s.down.reset(h, nb);
        s.up.reset(h, nb);
        s.step.reset(1, nb);
        s.ready.clear();
        s.ready.resize(h, false);
        let mut sw = Sweeper {
            c: Consts::load(),
            free,
            out,
            down: &mut s.down,
            up: &mut s.up,
            step: &mut s.step,
            ready: &mut s.ready,
            tally: Tally {
                work: 0,
                watch: free.grid.free_count() >= u64::from(INF),
                at_limit: false,
            },
        };
        sw.start(goal);
        // Work is counted in block operations. The tile kernel's cost follows the free
        // cells, so the sweeps' work is weighed per 32 free cells: up to 5.5 sweeps win (open
        // maps 3; Berlin, den520d, the warehouse: 0.66–0.94 of the tiles' time), from 6.3
        // tiles do (Boston 6.3: sweeps take 1.56 times as long; lak303d 7.0: 1.29), in
        // between they tie (ost003d 6.0, random maps at 15 % obstacles 6.1).
        let blocks = (nb * h) as u64;
        let costly = 6 * free.grid.free_count().div_ceil(LANES as u64);
        let hopeless = match budget {
            Budget::Capped => 16 * blocks,
            Budget::Unlimited => u64::MAX,
        };
        for pass in 0.. {
            let downward = pass % 2 == 0;
            for k in 0..h {
                sw.step_with_detours(if downward { k } else { h - 1 - k }, downward);
                if sw.tally.work > hopeless {
                    return Swept::Winding;
                }
            }
            // A pass visits every row, pending or not.
            sw.tally.work += (h / 8) as u64;
            if !sw.down.any() && !sw.up.any() {
                sw.fill_unreached();
                // Sums saturate at `INF`: a cell at the limit next to a free cell still at
                // `INF` means a distance past `u16` was cut off.
                if sw.tally.at_limit && has_cut_edge(free.grid, sw.out) {
                    return Swept::MayOverflow;
                }
                return if sw.tally.work > costly {
                    Swept::Costly
                } else {
                    Swept::Exact
                };
            }
            // Two passes settle every cell that a path without long detours reaches; when
            // they leave most free cells unreached, paths wind (a maze).
            if budget == Budget::Capped && pass == 1 && 2 * sw.reached() < free.grid.free_count() {
                return Swept::Stalled;
            }
        }
        unreachable!("the pass loop returns")
    }

    /// Writes the goal's row: 0 at the goal, `|x - goal.x|` along its free run.
    fn start(&mut self, goal: Cell) {
        let (gx, gy, w) = (goal.x as usize, goal.y as usize, self.free.width);
        let row = &mut self.out[gy * w..(gy + 1) * w];
        row.fill(INF);
        self.ready[gy] = true;
        let free = self.free.row(gy);
        let is_free = |x: usize| free[x / 64] >> (x % 64) & 1 != 0;
        let first = (0..gx)
            .rev()
            .take_while(|&x| is_free(x))
            .last()
            .unwrap_or(gx);
        let last = (gx + 1..w).take_while(|&x| is_free(x)).last().unwrap_or(gx);
        let (changed, blocks) = self.step.row(0);
        for (x, slot) in row.iter_mut().enumerate().take(last + 1).skip(first) {
            // Saturated like the sweeps' sums: `INF` past the largest distance `u16` holds.
            *slot = u16::try_from(x.abs_diff(gx)).unwrap_or(INF);
            changed[x / LANES] |= 1 << (x % LANES);
            blocks[x / LANES / 64] |= 1 << (x / LANES % 64);
        }
        self.tally.at_limit |= (last - gx).max(gx - first) >= usize::from(INF - 1);
        self.publish(gy);
    }

    /// Steps row `y` of a pass and, when it changed, steps the rows behind it back while they
    /// keep changing, then forward again: a detour of a few rows against the pass direction
    /// is settled now instead of one pass later.
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    fn step_with_detours(&mut self, y: usize, downward: bool) {
        if !self.step(y, downward) {
            return;
        }
        let h = self.free.height;
        let behind = |z: usize| {
            if downward {
                z.checked_sub(1)
            } else {
                Some(z + 1).filter(|&n| n < h)
            }
        };
        let mut z = y;
        while let Some(back) = behind(z) {
            if !self.step(back, !downward) {
                break;
            }
            z = back;
        }
        while z != y {
            z = if downward { z + 1 } else { z - 1 };
            self.step(z, downward);
        }
    }

    /// Relaxes row `y` from the row above (`downward`) or below, then along itself; returns
    /// whether it changed.
    #[target_feature(enable = "avx512f,avx512bw,popcnt,bmi1,lzcnt")]
    fn step(&mut self, y: usize, downward: bool) -> bool {
        let (w, h) = (self.free.width, self.free.height);
        let from = if downward { y.wrapping_sub(1) } else { y + 1 };
        if from >= h {
            return false;
        }
        let pending = if downward {
            &mut *self.down
        } else {
            &mut *self.up
        };
        let (lanes, blocks) = pending.row(from);
        if blocks.iter().all(|&b| b == 0) {
            return false;
        }
        if !std::mem::replace(&mut self.ready[y], true) {
            self.out[y * w..(y + 1) * w].fill(INF);
        }
        let (row, src) = if downward {
            let (above, rest) = self.out.split_at_mut(y * w);
            (&mut rest[..w], &above[from * w..][..w])
        } else {
            let (rest, below) = self.out.split_at_mut(from * w);
            (&mut rest[y * w..][..w], &below[..w])
        };
        let (changed, changed_blocks) = self.step.row(0);
        let mut step = RowStep {
            row,
            free: self.free.row(y),
            changed,
            blocks: changed_blocks,
            tally: &mut self.tally,
        };
        step.pull_along(&self.c, src, lanes, blocks);
        let moved = step.blocks.iter().any(|&b| b != 0);
        if moved {
            self.publish(y);
        }
        moved
    }

    /// Makes the changes of the row just stepped pending for the rows below and above it.
    fn publish(&mut self, y: usize) {
        let (changed, blocks) = self.step.row(0);
        if y + 1 < self.free.height {
            self.down.add_row(y, changed, blocks);
        }
        if y > 0 {
            self.up.add_row(y, changed, blocks);
        }
        changed.fill(0);
        blocks.fill(0);
    }

    /// Cells with a distance.
    fn reached(&self) -> u64 {
        let rows = self.out.chunks_exact(self.free.width);
        rows.zip(self.ready.iter())
            .filter(|&(_, &ready)| ready)
            .map(|(row, _)| row.iter().filter(|&&d| d != INF).count() as u64)
            .sum()
    }

    /// Fills the rows no step reached with `INF`.
    fn fill_unreached(&mut self) {
        let rows = self.out.chunks_exact_mut(self.free.width);
        for (row, &ready) in rows.zip(self.ready.iter()) {
            if !ready {
                row.fill(INF);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use cuplan_grid::generate;
    use ndarray::Array2;
    use proptest::prelude::*;

    use super::*;
    use crate::distance::queue_map;

    /// Sweeps `goal` into both widths; the maps when the sweep finished, checked against the
    /// queue kernel's; the outcome either way.
    fn sweep_both(grid: &Grid, goal: Cell, budget: Budget) -> Swept {
        let free = FreeBits::new(grid);
        let mut scratch = Scratch::default();
        let want = queue_map(grid, goal);
        // Stale contents from an earlier map must not leak into the next one.
        let mut narrow = vec![7u16; grid.cell_count()];
        let mut wide = vec![7u32; grid.cell_count()];
        let mut stale = vec![7u16; grid.cell_count()];
        let outcome = fill(
            &free,
            goal,
            &mut narrow,
            &mut scratch,
            &mut Vec::new(),
            budget,
        );
        let again = fill(&free, goal, &mut wide, &mut scratch, &mut stale, budget);
        assert_eq!(again, outcome);
        if matches!(outcome, Swept::Exact | Swept::Costly) {
            let narrowed: Vec<u32> = narrow
                .iter()
                .map(|&d| if d == INF { u32::MAX } else { u32::from(d) })
                .collect();
            assert_eq!(narrowed, want, "u16 map of goal {goal}");
            assert_eq!(wide, want, "u32 map of goal {goal}");
        }
        outcome
    }

    /// Whether the machine can run the kernel; says so when it cannot.
    fn runs_here() -> bool {
        let ok = supported();
        if !ok {
            eprintln!("skipped: this processor lacks AVX-512 (the sweep kernel is not used here)");
        }
        ok
    }

    fn arb_grid() -> impl Strategy<Value = Grid> {
        (1usize..150, 1usize..60, 0.0f64..0.45).prop_flat_map(|(w, h, density)| {
            proptest::collection::vec(proptest::bool::weighted(1.0 - density), w * h).prop_map(
                move |free| {
                    Grid::from_array(&Array2::from_shape_vec((h, w), free).unwrap()).unwrap()
                },
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Random grids of every shape across the 32-cell blocks (1×N and N×1 included), any
        /// density: a finished sweep equals the queue kernel's map in both widths.
        #[test]
        fn sweeps_match_the_queue_kernel(grid in arb_grid(), fx in 0.0f64..1.0, fy in 0.0f64..1.0) {
            if !runs_here() {
                return Ok(());
            }
            let n = grid.cell_count();
            let w = grid.width() as usize;
            let start = ((fy * grid.height() as f64) as usize * w + (fx * w as f64) as usize) % n;
            let goal = (0..n).map(|k| (start + k) % n).map(|i| Cell::new((i % w) as u32, (i / w) as u32)).find(|&c| grid.is_free(c));
            if let Some(goal) = goal {
                let outcome = sweep_both(&grid, goal, Budget::Unlimited);
                prop_assert!(matches!(outcome, Swept::Exact | Swept::Costly), "{outcome:?}");
                // With the budget the sweeps may give up instead, never return a wrong map.
                sweep_both(&grid, goal, Budget::Capped);
            }
        }
    }

    #[test]
    fn open_and_sparse_maps_are_exact_and_cheap() {
        if !runs_here() {
            return;
        }
        for grid in [
            Grid::open(300, 200).unwrap(),
            generate::random(301, 150, 0.1, 4).unwrap(),
            generate::rooms(257, 190, 32, 2).unwrap(),
        ] {
            assert!(FreeBits::new(&grid).suits_sweeps());
            for (_, goal) in generate::random_queries(&grid, 3, 5) {
                assert_eq!(
                    sweep_both(&grid, goal, Budget::Capped),
                    Swept::Exact,
                    "{}x{} {goal}",
                    grid.width(),
                    grid.height()
                );
            }
        }
    }

    #[test]
    fn mazes_dense_and_narrow_maps_do_not_suit_sweeps() {
        if !runs_here() {
            return;
        }
        let maze = generate::maze(201, 201, 1, 3).unwrap();
        assert!(!FreeBits::new(&maze).suits_sweeps());
        let dense = generate::random(200, 200, 0.2, 3).unwrap();
        assert!(!FreeBits::new(&dense).suits_sweeps());
        let narrow = Grid::open(127, 1000).unwrap();
        assert!(!FreeBits::new(&narrow).suits_sweeps());
        for (_, goal) in generate::random_queries(&maze, 2, 1) {
            assert_eq!(sweep_both(&maze, goal, Budget::Capped), Swept::Stalled);
            // Left alone, the sweeps do finish, exactly (after many passes).
            assert_eq!(sweep_both(&maze, goal, Budget::Unlimited), Swept::Costly);
        }
    }

    #[test]
    fn one_wide_mazes_and_broken_grids_are_mostly_corridors() {
        for grid in [
            generate::maze(201, 201, 1, 3).unwrap(),
            generate::random(200, 200, 0.5, 3).unwrap(),
            Grid::open(300, 1).unwrap(),
        ] {
            assert!(FreeBits::new(&grid).mostly_corridors());
        }
        for grid in [
            generate::maze(201, 201, 2, 3).unwrap(),
            generate::random(200, 200, 0.4, 3).unwrap(),
            generate::rooms(200, 150, 8, 3).unwrap(),
            Grid::open(300, 2).unwrap(),
        ] {
            assert!(
                !FreeBits::new(&grid).mostly_corridors(),
                "{}x{}",
                grid.width(),
                grid.height()
            );
        }
    }

    #[test]
    fn a_distance_past_u16_is_reported_not_saturated() {
        if !runs_here() {
            return;
        }
        let fits = Grid::open(65_535, 1).unwrap();
        assert_eq!(
            sweep_both(&fits, Cell::new(0, 0), Budget::Capped),
            Swept::Exact
        );
        let over = Grid::open(65_536, 2).unwrap();
        let free = FreeBits::new(&over);
        for goal in [Cell::new(0, 0), Cell::new(65_535, 1)] {
            let mut out = vec![0u32; over.cell_count()];
            let outcome = fill(
                &free,
                goal,
                &mut out,
                &mut Scratch::default(),
                &mut Vec::new(),
                Budget::Capped,
            );
            assert_eq!(outcome, Swept::MayOverflow, "goal {goal}");
        }
    }
}
