//! Test tools for the fsmooth compiler, kept out of the proc macro's build.
//!
//! [`interp`] is a reference interpreter of the source language (the prelude included);
//! [`exec`] runs the storage-planned loop IR ([`fsmooth_core::lir`]) on a real frame and
//! flags what would be a compiler bug. Tests, benches and the explain tool use them.

pub mod exec;
pub mod interp;
