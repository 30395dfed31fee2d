//! `cuplan info`: what a map holds.

use std::io::{self, Write};
use std::num::NonZeroU32;
use std::path::PathBuf;

use cuplan::grid::{Cell, Grid};

use crate::Failure;
use crate::output::to_stdout;

/// Arguments of `cuplan info`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The `.map` file.
    #[arg(long)]
    map: PathBuf,
    /// Print an ASCII preview, downsampled to at most this many columns (1 or more).
    #[arg(long, value_name = "COLUMNS")]
    preview: Option<NonZeroU32>,
}

pub(crate) fn run(args: &Args) -> Result<(), Failure> {
    let grid = Grid::read_movingai(&args.map).map_err(Failure::bad_input)?;
    let summary = describe(&grid, &args.map.display().to_string());
    to_stdout(|out| {
        out.write_all(summary.as_bytes())?;
        match args.preview {
            Some(cols) => write_preview(out, &grid, cols.get()),
            None => Ok(()),
        }
    })
}

/// The summary table, as printed.
pub(crate) fn describe(grid: &Grid, name: &str) -> String {
    let comps = grid.components();
    let largest = comps.largest().map_or(0, |c| comps.size(c));
    let cells = grid.cell_count() as u64;
    format!(
        "map         {name}\nsize        {} x {}\ncells       {cells}\nfree        {} ({:.1}%)\ncomponents  {}\nlargest     {largest}\nbytes       {}\n",
        grid.width(),
        grid.height(),
        grid.free_count(),
        100.0 * grid.free_count() as f64 / cells as f64,
        comps.count(),
        grid.bytes(),
    )
}

/// A downsampled render: a block is `.` when all free, `@` when all blocked, `:` when mixed.
/// Written a row at a time: a full-size preview of a big map is as large as the map.
pub(crate) fn write_preview(out: &mut dyn Write, grid: &Grid, max_cols: u32) -> io::Result<()> {
    let scale = grid.width().div_ceil(max_cols).max(1);
    let mut row = String::new();
    for by in (0..grid.height()).step_by(scale as usize) {
        row.clear();
        for bx in (0..grid.width()).step_by(scale as usize) {
            let (mut free, mut total) = (0, 0);
            for y in by..(by + scale).min(grid.height()) {
                for x in bx..(bx + scale).min(grid.width()) {
                    total += 1;
                    free += u32::from(grid.is_free(Cell::new(x, y)));
                }
            }
            row.push(if free == total {
                '.'
            } else if free == 0 {
                '@'
            } else {
                ':'
            });
        }
        row.push('\n');
        out.write_all(row.as_bytes())?;
    }
    Ok(())
}
