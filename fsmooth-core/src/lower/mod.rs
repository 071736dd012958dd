//! Lowering: the core IR into the loop IR ([`crate::lir`]).
//!
//! [`translate`] lowers a kernel's body by the paper's destination-passing translation
//! ([`dps`]: the state and the D and S translations), one `impl` of [`dps::Dps`] per
//! concern:
//! - `binds`: a `let` as a local, a view (its offset's checked parts computed once) or the
//!   buffer of an array it is written over;
//! - `views`: rows, slices and variables as views of a buffer, never copies;
//! - `alloc`: the allocations the translation takes, placed by the frame plan ([`storage`]);
//! - `bounds`: range proofs, which make loads and subtractions unchecked;
//! - `gathers`: elements of index array parameters used as indexes, checked once at entry;
//! - `streams`: loop contexts, and the streams and running indexes they collect;
//! - `folds`: array-state folds, double-buffered or iterating in the output, and a scalar
//!   fold's header;
//! - `in_place`: fold states updated in place (one place per component, section 13);
//! - `tuples` and `scans`: tuple values as tuples of places, `scan`s row by row;
//! - `accumulate`: folds that add to an array state, in place;
//! - `blocking`: sum folds interchanged, and taken in tiles of columns or groups of rows;
//! - `lanes`: float sums in lanes, when reassociation is asked for;
//! - `parallel`: top-level sums of many steps in chunks on rayon's pool (`parallel` feature);
//! - `results`: `let`-bound arrays that are components of the result written where they live;
//! - `peel`: a build branching on its index at its ends split into ends and interior.
//!
//! After the row-stream pass ([`crate::lir::row_streams`]), [`entry`] completes the function:
//! sizes bound from lengths, every length checked, the frame taken, then the body.

mod accumulate;
mod alloc;
mod binds;
mod blocking;
mod bounds;
mod counters;
#[cfg(test)]
mod counters_tests;
mod increments;
pub(crate) use bounds::divisions_exact;
pub mod dps;
mod entry;
mod folds;
mod gathers;
mod in_place;
#[cfg(test)]
mod in_place_tests;
mod lanes;
#[cfg(test)]
mod lanes_tests;
mod overwrite;
#[cfg(test)]
mod overwrite_tests;
mod parallel;
mod peel;
mod results;
mod row_updates;
mod scans;
pub mod sizes;
mod small_states;
mod split;
mod step_plan;
pub mod storage;
mod streams;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tuple_tests;
mod tuples;
#[cfg(test)]
mod typed_tests;
mod views;

pub use entry::{Lowering, Planned, Translated, entry, translate};
