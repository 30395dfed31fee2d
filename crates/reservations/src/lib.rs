//! Space-time reservation table and sparse constraint sets (work in progress).

/// Errors of the reservation crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReservationError {
    /// Placeholder until the table lands.
    #[error("not implemented")]
    NotImplemented,
}
