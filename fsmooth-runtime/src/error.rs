use core::fmt;

/// Why a kernel call failed. On every error found before a kernel's loops start (shapes,
/// scratch, sizes, entry-checked bounds) the output is left exactly as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// An argument (or `out`) has the wrong length.
    Shape {
        /// The parameter's name, or `out`.
        arg: &'static str,
        /// The length the kernel's signature requires, given the sizes bound so far.
        expected: usize,
        /// The length passed.
        found: usize,
    },
    /// The region's slab is shorter than the kernel's `scratch_len`.
    Scratch {
        /// Slots the call needs.
        needed: usize,
        /// Slots the slab has.
        available: usize,
    },
    /// An index or slice bound that could not be proven at compile time was out of range.
    Index {
        /// The offending index (for a slice, its end).
        index: usize,
        /// The length of the array indexed.
        len: usize,
    },
    /// `usize` arithmetic that would underflow or overflow, or `/` and `%` by zero.
    Arithmetic {
        /// The expression, as written in the kernel.
        expr: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Shape {
                arg,
                expected,
                found,
            } => write!(
                f,
                "argument `{arg}` has length {found}, but the kernel's signature requires {expected}"
            ),
            Error::Scratch { needed, available } => write!(
                f,
                "scratch slab too short: the call needs {needed} f64 slots, the region has {available}"
            ),
            Error::Index { index, len } => {
                write!(
                    f,
                    "index {index} out of bounds for an array of length {len}"
                )
            }
            Error::Arithmetic { expr } => write!(
                f,
                "size arithmetic `{expr}` underflows, overflows or divides by zero"
            ),
        }
    }
}

impl core::error::Error for Error {}
