//! Any bytes: the `.map` parser returns a grid or an error, never panics, and a parsed grid
//! survives a write/parse round trip.
#![no_main]

use cuplan::grid::Grid;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(grid) = Grid::parse_movingai(data, "fuzz.map", 1 << 16) {
        let text = grid.to_movingai_string();
        let again = Grid::parse_movingai(text.as_bytes(), "roundtrip.map", 1 << 16).expect("own output parses");
        assert_eq!(again, grid);
    }
});
