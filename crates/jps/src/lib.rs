//! Placeholder: this crate's capability has not landed yet (see ARCHITECTURE.md and the open
//! issues). It exports nothing, so nothing can pretend to work.
