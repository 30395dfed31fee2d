//! The `cuplan` binary.
fn main() {}
