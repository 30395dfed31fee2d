//! Every `.map` and `.scen` under `../shared/data` parses, with dimensions and free endpoints.

use std::path::{Path, PathBuf};

use cuplan_grid::{Grid, Scenario};

fn data_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data");
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "skipping: benchmark data not found at {} (see README)",
            dir.display()
        );
        None
    }
}

fn files_with(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files_with(&path, suffix, out);
        } else if path.to_string_lossy().ends_with(suffix) {
            out.push(path);
        }
    }
}

/// The map a scenario refers to: `X.map.scen` beside `X.map`, or the map named in its lines.
fn map_for(scen: &Path, parsed: &Scenario, data: &Path) -> PathBuf {
    let beside = PathBuf::from(scen.to_string_lossy().trim_end_matches(".scen"));
    if beside.is_file() {
        return beside;
    }
    let name = Path::new(&parsed.entries[0].map)
        .file_name()
        .unwrap()
        .to_owned();
    let mut maps = Vec::new();
    files_with(data, ".map", &mut maps);
    maps.into_iter()
        .find(|m| m.file_name() == Some(&name))
        .expect("scenario's map exists")
}

#[test]
fn every_shared_file_parses_and_fits() {
    let Some(data) = data_dir() else { return };
    let mut maps = Vec::new();
    files_with(&data, ".map", &mut maps);
    assert!(maps.len() >= 40, "found only {} maps", maps.len());
    for m in &maps {
        let grid = Grid::read_movingai(m).unwrap_or_else(|e| panic!("{e}"));
        assert!(grid.free_count() > 0);
        let again =
            Grid::parse_movingai(grid.to_movingai_string().as_bytes(), "rt", u64::MAX).unwrap();
        assert_eq!(again, grid, "{}", m.display());
    }
    let mut scens = Vec::new();
    files_with(&data, ".scen", &mut scens);
    assert!(scens.len() >= 90, "found only {} scens", scens.len());
    let mut queries = 0;
    for s in &scens {
        let scen = Scenario::read(s).unwrap_or_else(|e| panic!("{e}"));
        assert!(!scen.entries.is_empty(), "{}", s.display());
        let grid = Grid::read_movingai(map_for(s, &scen, &data)).unwrap();
        scen.check_against(&grid)
            .unwrap_or_else(|e| panic!("{}: {e}", s.display()));
        for e in &scen.entries {
            assert!(
                grid.connected(e.start, e.goal),
                "{}:{} unreachable",
                s.display(),
                e.line
            );
        }
        queries += scen.entries.len();
    }
    assert!(queries > 81_832, "{queries} queries");
}
