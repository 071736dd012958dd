//! Holds no code: the crate exists for its `tests/ui.rs` (see the crate description).
