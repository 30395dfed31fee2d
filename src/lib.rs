//! cuplan facade.
pub use cuplan_grid as grid;
