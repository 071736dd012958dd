use core::fmt;

/// Why a kernel call failed.
///
/// Every kernel returns `Result<_, Error>` and never panics. On an error found before the
/// kernel's loops start (lengths, scratch, size arithmetic, index arrays checked at entry)
/// every output is left exactly as it was; an error found inside a loop (an index the
/// compiler could not prove in range, `usize` arithmetic on a loop index) may leave the
/// outputs partly written.
///
/// `Error` is `Copy` and `Eq`, implements [`core::error::Error`] and [`Display`](fmt::Display)
/// (with the argument or expression named as in the kernel), and is `#[non_exhaustive]`:
/// keep a `_` arm when you match on it.
///
/// # Example
///
/// ```
/// use fsmooth::{fsmooth, Error, Region};
///
/// fsmooth! {
///     /// The rows of `table` picked by `idx`, each scaled by its row of `w`.
///     pub fn gather(table: [[f64; 2]; m], idx: [usize; p], w: [f64; p]) -> [[f64; 2]; p] {
///         build(p, |j| smul(table[idx[j]], w[j]))
///     }
/// }
///
/// fn describe(r: Result<(), Error>) -> String {
///     match r {
///         Ok(()) => "ok".to_string(),
///         Err(Error::Shape { arg, .. }) => format!("bad length of `{arg}`"),
///         Err(e) => e.to_string(),
///     }
/// }
///
/// let table = [1.0, 2.0, 3.0, 4.0];
/// let mut out = [0.0; 4];
/// let mut region = Region::new();
/// assert_eq!(describe(gather(&mut out, &table, &[1, 0], &[1.0, 2.0], &mut region)), "ok");
/// assert_eq!(out, [3.0, 4.0, 2.0, 4.0]);
/// // `p` is read from `w`, the data, before the index array: `idx` is the argument named.
/// assert_eq!(describe(gather(&mut out, &table, &[1, 0], &[1.0], &mut region)), "bad length of `idx`");
/// assert_eq!(
///     describe(gather(&mut out, &table, &[1, 5], &[1.0, 2.0], &mut region)),
///     "index 5 out of bounds for an array of length 2",
/// );
/// assert_eq!(out, [3.0, 4.0, 2.0, 4.0]); // untouched: index arrays are checked at entry
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// An argument (or an output, `out` or `outI`) has the wrong length: found before
    /// anything is written.
    ///
    /// With the `stencil` kernel of [`Region`](crate::Region)'s example (`a: [f64; n]` to
    /// `[f64; n - 2]`, with `n` scratch slots):
    ///
    /// ```
    /// # use fsmooth::{fsmooth, Error, Region};
    /// # fsmooth! {
    /// #     pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
    /// #         let s = smul(a, 0.5);
    /// #         build(n - 2, |i| s[i] + s[i + 1] + s[i + 2])
    /// #     }
    /// # }
    /// let mut out = [0.0; 2];
    /// let err = stencil(&mut out, &[1.0, 2.0, 3.0], &mut Region::new());
    /// assert_eq!(err, Err(Error::Shape { arg: "out", expected: 1, found: 2 }));
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "argument `out` has length 2, but the kernel's signature requires 1",
    /// );
    /// ```
    Shape {
        /// The parameter's name, or `out` (`out0`, `out1`, .. for several results).
        arg: &'static str,
        /// The length the kernel's signature requires, given the sizes bound so far.
        expected: usize,
        /// The length passed.
        found: usize,
    },
    /// An argument (or an output) is not one contiguous, row-major run of its element type:
    /// with the `ndarray` feature, an array or view not in standard layout (a transposed view
    /// `a.t()`, a strided slice `a.slice(s![.., ..;2])`). Found before anything is written,
    /// every output untouched (LANGUAGE.md section 17). Every other accepted container (slices,
    /// arrays of arrays, `Vec`s) is always row-major.
    ///
    /// ```
    /// # #[cfg(feature = "ndarray")]
    /// # {
    /// use fsmooth::{fsmooth, Error, Region};
    /// use ndarray::array;
    ///
    /// fsmooth! {
    ///     pub fn row_sums(a: [[f64; 2]; n]) -> [f64; n] {
    ///         map(a, |r| sum(r))
    ///     }
    /// }
    ///
    /// let a = array![[1.0, 2.0], [3.0, 4.0]];
    /// let mut out = [0.0; 2];
    /// row_sums(&mut out, &a, &mut Region::new()).unwrap();
    /// assert_eq!(out, [3.0, 7.0]);
    /// let mut out = [-1.0; 2];
    /// let err = row_sums(&mut out, &a.t(), &mut Region::new());
    /// assert_eq!(err, Err(Error::Layout { arg: "a" }));
    /// assert_eq!(out, [-1.0; 2]); // untouched
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "argument `a` is not in standard (contiguous, row-major) layout",
    /// );
    /// # }
    /// ```
    Layout {
        /// The parameter's name, or `out` (`out0`, `out1`, .. for several results).
        arg: &'static str,
    },
    /// The region's slab is shorter than the kernel's `scratch_len` (or an owned or arena
    /// region could not allocate): found before anything is written.
    ///
    /// With the `stencil` kernel of [`Region`](crate::Region)'s example (`a: [f64; n]` to
    /// `[f64; n - 2]`, with `n` scratch slots):
    ///
    /// ```
    /// # use fsmooth::{fsmooth, Error, Region};
    /// # fsmooth! {
    /// #     pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
    /// #         let s = smul(a, 0.5);
    /// #         build(n - 2, |i| s[i] + s[i + 1] + s[i + 2])
    /// #     }
    /// # }
    /// let mut out = [0.0; 2];
    /// let mut slab = [0.0; 3];
    /// let err = stencil(&mut out, &[1.0, 2.0, 3.0, 4.0], &mut Region::from_slab(&mut slab));
    /// assert_eq!(err, Err(Error::Scratch { needed: 4, available: 3 }));
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "scratch slab too short: the call needs 4 f64 slots, the region has 3",
    /// );
    /// ```
    Scratch {
        /// Slots the call needs.
        needed: usize,
        /// Slots the slab has.
        available: usize,
    },
    /// An index or slice bound that could not be proven at compile time was out of range.
    ///
    /// An element of an index array used as an index (`table[idx[j]]`) is checked at entry,
    /// before anything is written; other indexes computed from data are checked where they
    /// are read, inside the loops:
    ///
    /// ```
    /// use fsmooth::{fsmooth, Error, Region};
    ///
    /// fsmooth! {
    ///     /// `v` at the positions `x`, truncated (`as usize` saturates, NaN gives 0).
    ///     pub fn lookup(v: [f64; m], x: [f64; n]) -> [f64; n] {
    ///         build(n, |i| v[x[i] as usize])
    ///     }
    /// }
    ///
    /// let mut out = [-1.0; 3];
    /// let err = lookup(&mut out, &[10.0, 20.0], &[1.5, 4.0, 0.0], &mut Region::new());
    /// assert_eq!(err, Err(Error::Index { index: 4, len: 2 }));
    /// assert_eq!(out, [20.0, -1.0, -1.0]); // written up to the bad index
    /// ```
    Index {
        /// The offending index (for a slice, its end).
        index: usize,
        /// The length of the array indexed.
        len: usize,
    },
    /// `usize` arithmetic that would underflow or overflow, or `/` or `%` by zero (a
    /// division rounds down, as Rust's does: `n / 2` for n = 5 is 2). On a size (`n - 2` with `n = 1`) it is found at entry,
    /// before anything is written.
    ///
    /// With the `stencil` kernel of [`Region`](crate::Region)'s example (`a: [f64; n]` to
    /// `[f64; n - 2]`, with `n` scratch slots):
    ///
    /// ```
    /// # use fsmooth::{fsmooth, Error, Region};
    /// # fsmooth! {
    /// #     pub fn stencil(a: [f64; n]) -> [f64; n - 2] {
    /// #         let s = smul(a, 0.5);
    /// #         build(n - 2, |i| s[i] + s[i + 1] + s[i + 2])
    /// #     }
    /// # }
    /// let mut out = [0.0; 0];
    /// let err = stencil(&mut out, &[1.0], &mut Region::new());
    /// assert_eq!(err, Err(Error::Arithmetic { expr: "n - 2" }));
    /// assert_eq!(
    ///     err.unwrap_err().to_string(),
    ///     "size arithmetic `n - 2` underflows, overflows or divides by zero",
    /// );
    /// ```
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
            Error::Layout { arg } => write!(
                f,
                "argument `{arg}` is not in standard (contiguous, row-major) layout"
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
