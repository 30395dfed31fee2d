//! The font the plots are laid out and rasterised with: a TrueType file found on the system at
//! run time (none is shipped with the repository).
//!
//! plotters' `ab_glyph` font backend measures every label through the fonts registered with it,
//! for the SVG backend as much as for the bitmap one; it needs no fontconfig or FreeType, which
//! is why it was chosen. Without a usable font file the PNGs are skipped, but the SVGs are still
//! laid out with a built-in metrics-only font, since the viewer draws SVG text with its own fonts.

use std::path::PathBuf;
use std::sync::OnceLock;

use plotters::style::{FontStyle, register_font};

/// The family every chart asks for.
pub(super) const FAMILY: &str = "sans-serif";

/// Names a TrueType file to use before the common paths.
const FONT_ENV: &str = "CUPLAN_PLOT_FONT";

/// Where the usual sans-serif fonts live on Debian/Ubuntu, Arch, Fedora, macOS and Windows.
const COMMON_PATHS: [&str; 5] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    r"C:\Windows\Fonts\arial.ttf",
];

/// Registers [`FAMILY`] once per process; true when it can rasterise text (PNGs can be drawn),
/// false when only the metrics-only fallback is registered (SVGs only).
pub(super) fn can_rasterise() -> bool {
    static RASTERISABLE: OnceLock<bool> = OnceLock::new();
    *RASTERISABLE.get_or_init(register_family)
}

fn register_family() -> bool {
    if register_first_font(&candidate_paths()) {
        return true;
    }
    println!(
        "plots: no TrueType font found (set {FONT_ENV} to one, e.g. DejaVuSans.ttf): \
         writing the SVGs only, no PNGs"
    );
    // Should this fail, drawing reports a font error, so the SVGs cannot silently lose labels.
    register(metrics_only_font());
    false
}

fn candidate_paths() -> Vec<PathBuf> {
    let from_env = std::env::var_os(FONT_ENV)
        .filter(|p| !p.is_empty())
        .map(PathBuf::from);
    from_env
        .into_iter()
        .chain(COMMON_PATHS.iter().map(PathBuf::from))
        .collect()
}

/// Registers the first candidate that exists and parses as a font; false when none does.
fn register_first_font(candidates: &[PathBuf]) -> bool {
    candidates.iter().any(|path| {
        let Ok(bytes) = std::fs::read(path) else {
            return false;
        };
        let registered = register(bytes);
        if !registered {
            println!("plots: {} is not a usable TrueType font", path.display());
        }
        registered
    })
}

/// `register_font` keeps a `&'static` reference, so the bytes are leaked: once per process for
/// the font in use (a file that fails to parse leaves [`FAMILY`] as it was).
fn register(bytes: Vec<u8>) -> bool {
    register_font(FAMILY, FontStyle::Normal, bytes.leak()).is_ok()
}

/// Font units per em of [`metrics_only_font`]; ascent − descent equals it, as ab_glyph scales by
/// that height.
const UNITS_PER_EM: u16 = 1000;
/// The one advance width: DejaVu Sans' digits and lower case average about 0.55 of its height.
const ADVANCE: u16 = 550;
const ASCENT: i16 = 800;
const DESCENT: i16 = -200;

/// A TrueType font of one empty glyph with a fixed advance and no outlines: the four tables a
/// parser requires (`head`, `hhea`, `hmtx`, `maxp`), enough to measure text, nothing to draw.
fn metrics_only_font() -> Vec<u8> {
    let tables: [(&[u8; 4], Vec<u8>); 4] = [
        (b"head", head_table()),
        (b"hhea", hhea_table()),
        (b"hmtx", be(&[ADVANCE, 0])),
        (b"maxp", [be32(0x0000_5000), be(&[1])].concat()),
    ];
    // sfnt header: version 1.0, 4 tables, then searchRange, entrySelector, rangeShift for 4.
    let mut font = [be32(0x0001_0000), be(&[4, 64, 2, 0])].concat();
    let mut offset = font.len() + 16 * tables.len();
    for (tag, data) in &tables {
        font.extend_from_slice(*tag);
        // Checksums stay zero: no parser on this path verifies them.
        font.extend([be32(0), be32(offset as u32), be32(data.len() as u32)].concat());
        offset += padded(data.len());
    }
    for (_, mut data) in tables {
        data.resize(padded(data.len()), 0);
        font.extend(data);
    }
    font
}

fn head_table() -> Vec<u8> {
    [
        be32(0x0001_0000),                                // version
        be32(0x0001_0000),                                // font revision
        be32(0),                                          // checksum adjustment
        be32(0x5F0F_3CF5),                                // magic number
        be(&[0, UNITS_PER_EM]),                           // flags, units per em
        vec![0; 16],                                      // created, modified
        be(&[0, DESCENT as u16, ADVANCE, ASCENT as u16]), // bounding box
        be(&[0, 0, 0, 0, 0]), // mac style, lowest PPEM, direction, loca format, glyf format
    ]
    .concat()
}

fn hhea_table() -> Vec<u8> {
    [
        be32(0x0001_0000),                       // version
        be(&[ASCENT as u16, DESCENT as u16, 0]), // ascender, descender, line gap
        be(&[ADVANCE, 0, 0, ADVANCE, 1, 0, 0]),  // advance max … caret offset
        be(&[0; 5]),                             // reserved, metric data format
        be(&[1]),                                // one horizontal metric
    ]
    .concat()
}

fn be(values: &[u16]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

fn be32(value: u32) -> Vec<u8> {
    value.to_be_bytes().to_vec()
}

/// Tables start on 4-byte boundaries.
fn padded(len: usize) -> usize {
    len.div_ceil(4) * 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use plotters::style::{FontDesc, FontFamily};

    #[test]
    fn metrics_only_font_measures_text_by_its_fixed_advance() {
        let family = "cuplan-metrics-only-test";
        assert!(register_font(family, FontStyle::Normal, metrics_only_font().leak()).is_ok());
        let font = FontDesc::new(FontFamily::Name(family), 20.0, FontStyle::Normal);
        let (width, height) = font.box_size("10 µs").unwrap();
        assert_eq!(width, 5 * 11);
        assert!(height > 0);
    }

    #[test]
    fn a_file_that_is_not_a_font_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let junk = dir.path().join("junk.ttf");
        std::fs::write(&junk, b"not a font").unwrap();
        let missing = dir.path().join("missing.ttf");
        assert!(!register_first_font(&[missing, junk]));
    }
}
