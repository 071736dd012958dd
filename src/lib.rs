// The crate's documentation is the README, so that docs.rs and the repository show one guide,
// and every ```rust block of it is a doctest (`cargo test --doc -p fsmooth`).
//
// The README links to the repository's docs with reference links (`[language.md]`) defined at
// its end as relative paths, which work on a clone and on a code host. Relative paths would be
// broken in rustdoc's output, so the definitions below come first: in Markdown the first
// definition of a label wins, and these point at the same files in the published package on
// docs.rs (`docs/` is part of the `fsmooth` package; `prelude.fs` is in `fsmooth-core`'s).
#![doc = concat!(
    "[language.md]: https://docs.rs/crate/fsmooth/", env!("CARGO_PKG_VERSION"), "/source/docs/language.md\n",
    "[errors.md]: https://docs.rs/crate/fsmooth/", env!("CARGO_PKG_VERSION"), "/source/docs/errors.md\n",
    "[remarks.md]: https://docs.rs/crate/fsmooth/", env!("CARGO_PKG_VERSION"), "/source/docs/remarks.md\n",
    "[EMBEDDED.md]: https://docs.rs/crate/fsmooth/", env!("CARGO_PKG_VERSION"), "/source/docs/EMBEDDED.md\n",
    "[BENCHMARKS.md]: https://docs.rs/crate/fsmooth/", env!("CARGO_PKG_VERSION"), "/source/docs/BENCHMARKS.md\n",
    "[internals.md]: https://docs.rs/crate/fsmooth/", env!("CARGO_PKG_VERSION"), "/source/docs/internals.md\n",
    "[derivatives.md]: https://docs.rs/crate/fsmooth/", env!("CARGO_PKG_VERSION"), "/source/docs/derivatives.md\n",
    "[prelude.fs]: https://docs.rs/crate/fsmooth-core/", env!("CARGO_PKG_VERSION"), "/source/src/front/prelude.fs\n",
)]
// The README's links to the API (`[`Region`]`) are defined the same way: docs.rs addresses at
// its end, intra-doc links here.
#![doc = "[`Region`]: Region\n[`Region::new`]: Region::new\n[`Region::from_slab`]: Region::from_slab\n[`Error`]: Error"]
// `Region::in_bump` exists with the `bumpalo` feature (on docs.rs: see Cargo.toml).
#![cfg_attr(feature = "bumpalo", doc = "[`Region::in_bump`]: Region::in_bump")]
#![doc = include_str!("../README.md")]
#![no_std]
#![warn(missing_docs)]

/// Compiles a block of fsmooth functions into Rust functions, while your crate compiles.
///
/// The block holds `fn` items written with Rust tokens: each `pub fn` (a kernel) becomes a
/// Rust function of the enclosing module, with a module of the same name holding its
/// `scratch_len`/`out_len` (`SCRATCH_LEN`/`OUT_LEN` without size names); private `fn`s are
/// helpers, inlined where they are called. Shape and type errors are compile errors on the
/// block's tokens. [The crate's documentation](crate) is the guide, and
/// [language.md](https://docs.rs/crate/fsmooth/latest/source/docs/language.md) the
/// reference.
///
/// An array result is written into `out` (the first parameter), a scalar result is returned,
/// and the last parameter is the [`Region`] the call takes its scratch from. Array parameters
/// and `out` take any contiguous row-major container of their element type ([`RowMajor`],
/// [`RowMajorMut`]: slices, arrays of arrays, `Vec`s, and with the `ndarray` feature
/// ndarray's arrays and views); the comment below shows them as the flat slices the kernel
/// sees:
///
/// ```
/// use fsmooth::{fsmooth, Region};
///
/// fsmooth! {
///     /// Softmax of `x`, scaled by `1 / t`.
///     pub fn softmax(x: [f64; n], t: f64) -> [f64; n] {
///         let e = map(x, |v| ((v - vmax(x)) / t).exp());
///         smul(e, 1.0 / sum(e))
///     }
/// }
/// // pub fn softmax(out: &mut [f64], x: &[f64], t: f64, region: &mut Region<'_>)
/// //     -> Result<(), fsmooth::Error>
///
/// let mut out = [0.0; 3];
/// softmax(&mut out, &[1.0, 1.0, 1.0], 1.0, &mut Region::new())?;
/// assert!(out.iter().all(|&p| (p - 1.0 / 3.0).abs() < 1e-15));
/// assert_eq!(softmax::out_len(3), 3);
/// # Ok::<(), fsmooth::Error>(())
/// ```
pub use fsmooth_macros::fsmooth;
pub use fsmooth_runtime::{Error, Region, RowMajor, RowMajorMut};

#[doc(hidden)]
pub use fsmooth_runtime::__rt;
