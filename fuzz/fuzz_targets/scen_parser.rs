//! Any bytes: the `.scen` parser returns a scenario or an error, never panics.
#![no_main]

use cuplan::grid::{Grid, Scenario};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(scen) = Scenario::parse(data, "fuzz.scen") {
        // Checking against a map must not panic either, whatever the coordinates.
        let grid = Grid::open(8, 8).expect("valid size");
        let _ = scen.check_against(&grid);
    }
});
