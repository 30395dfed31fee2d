//! Moving AI `.map` and `.scen` files: parsing (every quirk of the published files) and writing.

use std::path::Path;

use crate::grid::check_size;
use crate::{Cell, DEFAULT_MAX_CELLS, Grid, GridError, Result};

/// Whether a map character is passable (`Some(true)`), blocked (`Some(false)`) or unknown.
/// Passable: `.` `G` `S`; blocked: `@` `O` `T` `W` (the GPPC rule).
#[inline]
pub(crate) fn classify(byte: u8) -> Option<bool> {
    match byte {
        b'.' | b'G' | b'S' => Some(true),
        b'@' | b'O' | b'T' | b'W' => Some(false),
        _ => None,
    }
}

/// Lines of a byte buffer with their 1-based numbers, `\r` stripped.
/// A final line end does not start another (empty) line.
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
}

fn syntax(source: &str, line: usize, column: usize, message: impl Into<String>) -> GridError {
    GridError::Syntax {
        source_name: source.to_string(),
        line,
        column,
        message: message.into(),
    }
}

/// The largest `.scen` file read: the published ones are below 1 MB, so a larger file is
/// almost surely the wrong file, refused before a byte is read.
pub const MAX_SCEN_BYTES: u64 = 64 << 20;

/// The largest `.map` file read for a grid of at most `max_cells` cells: every row with a
/// CRLF end, and room for the header and blank lines after the last row.
pub fn max_map_bytes(max_cells: u64) -> u64 {
    max_cells + 2 * crate::MAX_SIDE + (64 << 10)
}

/// Reads a whole regular file of at most `limit` bytes. The size is checked before reading,
/// and devices, pipes and directories are refused: `/dev/zero` must not be read into memory.
fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>> {
    use std::io::Read;
    let io = |message: String| GridError::Io {
        path: path.to_path_buf(),
        message,
    };
    let file = std::fs::File::open(path).map_err(|e| io(e.to_string()))?;
    let meta = file.metadata().map_err(|e| io(e.to_string()))?;
    if !meta.is_file() {
        return Err(io("not a regular file".to_string()));
    }
    if meta.len() > limit {
        return Err(io(format!(
            "{} bytes, over the limit of {limit} bytes for this kind of file",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // `take`: a file that grows while it is read still stops at the limit.
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io(e.to_string()))?;
    if bytes.len() as u64 > limit {
        return Err(io(format!(
            "grew past the limit of {limit} bytes while read"
        )));
    }
    Ok(bytes)
}

/// Whether `text` is a plain decimal integer: digits only, so `+3`, `-0` and ` 3` are not.
fn is_digits(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())
}

/// Parses a plain decimal integer (see [`is_digits`]).
fn parse_digits<T: std::str::FromStr>(text: &str) -> Option<T> {
    is_digits(text).then(|| text.parse().ok()).flatten()
}

/// Whether `text` is a plain decimal number, `digits` or `digits.digits` (no sign, exponent,
/// `inf` or `nan`, which `f64::from_str` would take).
fn is_decimal(text: &str) -> bool {
    match text.split_once('.') {
        Some((whole, fraction)) => is_digits(whole) && is_digits(fraction),
        None => is_digits(text),
    }
}

fn source_name(path: &Path) -> String {
    path.display().to_string()
}

impl Grid {
    /// Reads a Moving AI `.map` file. Errors name the file, line and column.
    pub fn read_movingai(path: impl AsRef<Path>) -> Result<Grid> {
        let path = path.as_ref();
        let bytes = read_file(path, max_map_bytes(DEFAULT_MAX_CELLS))?;
        Grid::parse_movingai(&bytes, &source_name(path), DEFAULT_MAX_CELLS)
    }

    /// Parses the bytes of a `.map` file. `source` names it in errors; `max_cells` is checked
    /// against the header before anything is allocated.
    pub fn parse_movingai(bytes: &[u8], source: &str, max_cells: u64) -> Result<Grid> {
        if bytes.is_empty() {
            return Err(syntax(source, 1, 1, "empty file: truncated header"));
        }
        let mut lines = lines(bytes);
        let (mut height, mut width, mut seen_type) = (None, None, false);
        let mut last_line = 0;
        loop {
            let Some((n, line)) = lines.next() else {
                return Err(syntax(
                    source,
                    last_line + 1,
                    1,
                    "truncated header: expected `map` line",
                ));
            };
            last_line = n;
            let text = std::str::from_utf8(line)
                .map_err(|e| syntax(source, n, e.valid_up_to() + 1, "header is not UTF-8"))?;
            let mut words = text.split_ascii_whitespace();
            let column_of = |word: &str| word.as_ptr() as usize - text.as_ptr() as usize + 1;
            let key = words.next();
            let (value, extra) = (words.next(), words.next());
            let repeated = |key: &str| {
                syntax(
                    source,
                    n,
                    1,
                    format!("repeated `{key}` line: a header states each value once"),
                )
            };
            match (key, value, extra) {
                (None, ..) => continue,
                (Some("map"), None, _) => break,
                (Some("type"), Some(kind), None) => {
                    if seen_type {
                        return Err(repeated("type"));
                    }
                    if kind != "octile" {
                        return Err(syntax(
                            source,
                            n,
                            column_of(kind),
                            format!("map type {kind:?} is not supported: expected `octile`"),
                        ));
                    }
                    seen_type = true;
                }
                (Some(key @ ("height" | "width")), Some(value), None) => {
                    let v: u64 = parse_digits(value).ok_or_else(|| {
                        syntax(
                            source,
                            n,
                            column_of(value),
                            format!("{key} is not a plain non-negative integer: {value:?}"),
                        )
                    })?;
                    let slot = if key == "height" {
                        &mut height
                    } else {
                        &mut width
                    };
                    if slot.replace(v).is_some() {
                        return Err(repeated(key));
                    }
                }
                _ => {
                    return Err(syntax(
                        source,
                        n,
                        1,
                        format!("unexpected header line {text:?}"),
                    ));
                }
            }
        }
        if !seen_type {
            return Err(syntax(source, 1, 1, "missing `type` line"));
        }
        let height = height.ok_or_else(|| syntax(source, last_line, 1, "missing `height` line"))?;
        let width = width.ok_or_else(|| syntax(source, last_line, 1, "missing `width` line"))?;
        check_size(width, height, max_cells)?;
        let mut grid = Grid::open_with_limit(width as u32, height as u32, max_cells)?;
        let mut y = 0u64;
        for (n, line) in lines.by_ref() {
            if y == height {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                return Err(syntax(source, n, 1, format!("more than {height} map rows")));
            }
            if line.len() as u64 != width {
                return Err(syntax(
                    source,
                    n,
                    (line.len() as u64).min(width) as usize + 1,
                    format!(
                        "map row {y} has {} characters, expected {width}",
                        line.len()
                    ),
                ));
            }
            for (x, &byte) in line.iter().enumerate() {
                match classify(byte) {
                    Some(true) => {}
                    Some(false) => grid.set_blocked_unchecked(Cell::new(x as u32, y as u32)),
                    None => {
                        return Err(syntax(
                            source,
                            n,
                            x + 1,
                            format!(
                                "unknown map character {:?}",
                                byte.escape_ascii().to_string()
                            ),
                        ));
                    }
                }
            }
            y += 1;
            last_line = n;
        }
        if y < height {
            return Err(syntax(
                source,
                last_line + 1,
                1,
                format!("truncated map: {y} of {height} rows"),
            ));
        }
        grid.reset_generation();
        Ok(grid)
    }

    /// The grid as the text of a `.map` file (`.` free, `@` blocked, `\n` line ends).
    pub fn to_movingai_string(&self) -> String {
        let mut out = format!(
            "type octile\nheight {}\nwidth {}\nmap\n",
            self.height(),
            self.width()
        );
        out.reserve(self.cell_count() + self.height() as usize);
        for y in 0..self.height() {
            out.extend((0..self.width()).map(|x| {
                if self.is_free(Cell::new(x, y)) {
                    '.'
                } else {
                    '@'
                }
            }));
            out.push('\n');
        }
        out
    }

    /// Writes the grid as a `.map` file.
    pub fn write_movingai(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, self.to_movingai_string()).map_err(|e| GridError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })
    }
}

/// One query of a `.scen` file.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScenEntry {
    /// The bucket (roughly optimal length / 4 in the Moving AI sets).
    pub bucket: u32,
    /// The map field as written (may be a path; match on its file name).
    pub map: String,
    /// Map width as the scenario states it.
    pub width: u32,
    /// Map height as the scenario states it.
    pub height: u32,
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// Optimal octile length as printed (2 to 8 decimals).
    pub optimal: f64,
    /// Number of decimals the optimal length was printed with.
    pub decimals: u8,
    /// 1-based line in the file, for error messages.
    pub line: usize,
}

impl ScenEntry {
    /// Whether this query names the map file `map`: the file names match (the map field may be
    /// a path such as `maps/dao/arena.map`, with `/` or `\\` separators).
    pub fn names_map(&self, map: &Path) -> bool {
        let named = self.map.rsplit(['/', '\\']).next().unwrap_or(&self.map);
        map.file_name()
            .is_some_and(|f| f == std::ffi::OsStr::new(named))
    }

    /// Whether an exact cost is this query's optimal length, as far as the printed length tells:
    /// within the data README's tolerance `max(1e-4, 2e-5 · length)`, widened to half a unit in
    /// the last printed place for the files printed with fewer decimals (bg512 prints 2).
    pub fn accepts(&self, cost: crate::OctileCost) -> bool {
        let rounding = 0.5 * 10f64.powi(-i32::from(self.decimals)) + 1e-9;
        let tolerance = f64::max(f64::max(1e-4, 2e-5 * self.optimal), rounding);
        (cost.to_f64() - self.optimal).abs() <= tolerance
    }
}

/// A Moving AI scenario: a version and its queries in file order.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Scenario {
    /// The version number (`1` or `1.0` in every published file).
    pub version: f64,
    /// The queries, in file order; query `i` is the `i`-th query line.
    pub entries: Vec<ScenEntry>,
}

impl Scenario {
    /// Reads a `.scen` file.
    pub fn read(path: impl AsRef<Path>) -> Result<Scenario> {
        let path = path.as_ref();
        Scenario::parse(&read_file(path, MAX_SCEN_BYTES)?, &source_name(path))
    }

    /// Parses `.scen` bytes: tab- or space-separated fields, `version 1` or `1.0`.
    pub fn parse(bytes: &[u8], source: &str) -> Result<Scenario> {
        let mut version = None;
        let mut entries = Vec::new();
        for (n, line) in lines(bytes) {
            let text = std::str::from_utf8(line)
                .map_err(|e| syntax(source, n, e.valid_up_to() + 1, "line is not UTF-8"))?;
            if text.trim().is_empty() {
                continue;
            }
            if version.is_none() {
                version = Some(parse_version(text, n, source)?);
                continue;
            }
            if text.trim_start().starts_with("version") {
                return Err(syntax(
                    source,
                    n,
                    1,
                    "repeated `version` line: a scenario states it once",
                ));
            }
            entries.push(parse_entry(text, n, source)?);
        }
        let version =
            version.ok_or_else(|| syntax(source, 1, 1, "empty scenario: no `version` line"))?;
        Ok(Scenario { version, entries })
    }

    /// Checks every query against `grid`: stated size, cells in range and free.
    pub fn check_against(&self, grid: &Grid) -> Result<()> {
        for e in &self.entries {
            if (e.width, e.height) != (grid.width(), grid.height()) {
                return Err(GridError::ScenarioMismatch {
                    line: e.line,
                    message: format!(
                        "scenario is for a {}x{} map, the map is {}x{}",
                        e.width,
                        e.height,
                        grid.width(),
                        grid.height()
                    ),
                });
            }
            for (what, cell) in [("start", e.start), ("goal", e.goal)] {
                grid.check_free(cell)
                    .map_err(|err| GridError::ScenarioMismatch {
                        line: e.line,
                        message: format!("{what} {err}"),
                    })?;
            }
        }
        Ok(())
    }
}

/// The `version` line: `version 1` or `version 1.0`, the only versions ever published (the
/// format of any other is unknown, so it is refused rather than guessed).
fn parse_version(text: &str, n: usize, source: &str) -> Result<f64> {
    let mut words = text.split_ascii_whitespace();
    match (words.next(), words.next(), words.next()) {
        (Some("version"), Some("1" | "1.0"), None) => Ok(1.0),
        (Some("version"), Some(v), None) => Err(syntax(
            source,
            n,
            text.find(v).map_or(1, |i| i + 1),
            format!("scenario version {v:?} is not supported: expected 1 or 1.0"),
        )),
        _ => Err(syntax(
            source,
            n,
            1,
            format!("expected `version 1`, found {:?}", text.trim()),
        )),
    }
}

fn parse_entry(text: &str, n: usize, source: &str) -> Result<ScenEntry> {
    let fields: Vec<(usize, &str)> = field_spans(text);
    if fields.len() != 9 {
        return Err(syntax(
            source,
            n,
            1,
            format!("expected 9 fields, found {}", fields.len()),
        ));
    }
    let int = |i: usize, name: &str| -> Result<u32> {
        let (col, f) = fields[i];
        parse_digits(f).ok_or_else(|| {
            syntax(
                source,
                n,
                col,
                format!("{name} is not a plain non-negative integer: {f:?}"),
            )
        })
    };
    let (col, len) = fields[8];
    let optimal: f64 = Some(len)
        .filter(|l| is_decimal(l))
        .and_then(|l| l.parse().ok())
        .filter(|v: &f64| v.is_finite())
        .ok_or_else(|| {
            syntax(
                source,
                n,
                col,
                format!("optimal length is not a plain non-negative decimal: {len:?}"),
            )
        })?;
    Ok(ScenEntry {
        bucket: int(0, "bucket")?,
        map: fields[1].1.to_string(),
        width: int(2, "width")?,
        height: int(3, "height")?,
        start: Cell::new(int(4, "start x")?, int(5, "start y")?),
        goal: Cell::new(int(6, "goal x")?, int(7, "goal y")?),
        optimal,
        decimals: len
            .split_once('.')
            .map_or(0, |(_, frac)| frac.len().min(255) as u8),
        line: n,
    })
}

/// Whitespace-separated fields with their 1-based byte columns.
fn field_spans(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::with_capacity(9);
    let mut start = None;
    for (i, b) in text
        .bytes()
        .enumerate()
        .chain(std::iter::once((text.len(), b' ')))
    {
        match (b.is_ascii_whitespace(), start) {
            (false, None) => start = Some(i),
            (true, Some(s)) => {
                out.push((s + 1, &text[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    out
}
