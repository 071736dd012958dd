/// Geometry.
pub mod geometry {
    /// The kernel `norm2`, compiled by `fsmooth!`.
    ///
    /// # Generated signature
    ///
    /// ```text
    /// pub fn norm2(v: &(impl RowMajor<f64> + ?Sized), region: &mut Region<'_>) -> Result<f64, Error>
    /// ```
    ///
    /// - `v`: `[f64; 3]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
    /// - `region`: scratch for the intermediate arrays, `norm2::SCRATCH_LEN` slots (`fsmooth::Region`)
    ///
    /// Returns `Ok` with the `f64` result, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
    #[allow(unused, clippy::all)]
    #[inline(always)]
    pub fn norm2(
        v: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<f64, ::fsmooth::Error> {
        let v: &[f64] = match ::fsmooth::RowMajor::<f64>::row_major(v) {
            ::core::option::Option::Some(s) => s,
            ::core::option::Option::None => {
                return ::core::result::Result::Err(::fsmooth::Error::Layout {
                    arg: "v",
                });
            }
        };
        #[inline]
        fn __fsmooth_body(
            v: &[f64],
            region: &mut ::fsmooth::Region<'_>,
        ) -> ::core::result::Result<f64, ::fsmooth::Error> {
            if v.len() != 3usize {
                return ::core::result::Result::Err(::fsmooth::Error::Shape {
                    arg: "v",
                    expected: 3usize,
                    found: v.len(),
                });
            }
            let _ = region;
            ::core::result::Result::Ok({
                let x_8 = ::fsmooth::__rt::ld(v, 0usize);
                let x_10 = ::fsmooth::__rt::ld(v, 1usize);
                let x_12 = ::fsmooth::__rt::ld(v, 2usize);
                (((x_8 * x_8) + (x_10 * x_10)) + (x_12 * x_12))
            })
        }
        __fsmooth_body(v, region)
    }
    ///Sizes of kernel `norm2`.
    #[allow(non_snake_case)]
    pub mod norm2 {
        ///f64 scratch slots a call of `norm2` needs (a `Region::from_slab` of this length suffices).
        pub const SCRATCH_LEN: usize = 0usize;
    }
    #[doc(hidden)]
    #[macro_export]
    #[allow(clippy::crate_in_macro_def)]
    macro_rules! __fsmooth_src_geometry_e2ef9cd6247efb94 {
        ($requester:literal [$($path:tt)*] $($rest:tt)*) => {
            ::fsmooth::fsmooth! { @ fsmooth_import { $requester [$($path)*] ($crate)
            "geometry_e2ef9cd6247efb94" false { #[doc = " Geometry."] pub mod geometry;
            fn sq(x : f64) -> f64 { x * x } pub fn norm2(v : [f64; 3]) -> f64 {
            sum(map(v, | x | sq(x))) } } } $($rest)* }
        };
    }
    #[doc(hidden)]
    pub use __fsmooth_src_geometry_e2ef9cd6247efb94 as __fsmooth_pub_mod;
}
