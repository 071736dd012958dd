//! fsmooth: array kernels in F̃, compiled at build time into allocation-free Rust.
#![no_std]

pub use fsmooth_macros::fsmooth;
pub use fsmooth_runtime::{Error, Region};

#[doc(hidden)]
pub use fsmooth_runtime::__rt;
