/// The kernel `cross3`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn cross3(out: &mut (impl RowMajorMut<f64> + ?Sized), a: &(impl RowMajor<f64> + ?Sized), b: &(impl RowMajor<f64> + ?Sized), region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; 3]`, `cross3::OUT_LEN` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)
/// - `a`: `[f64; 3]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `b`: `[f64; 3]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `region`: scratch for the intermediate arrays, `cross3::SCRATCH_LEN` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn cross3(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    a: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    b: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    region: &mut ::fsmooth::Region<'_>,
) -> ::core::result::Result<(), ::fsmooth::Error> {
    let out: &mut [f64] = match ::fsmooth::RowMajorMut::<f64>::row_major_mut(out) {
        ::core::option::Option::Some(s) => s,
        ::core::option::Option::None => {
            return ::core::result::Result::Err(::fsmooth::Error::Layout {
                arg: "out",
            });
        }
    };
    let a: &[f64] = match ::fsmooth::RowMajor::<f64>::row_major(a) {
        ::core::option::Option::Some(s) => s,
        ::core::option::Option::None => {
            return ::core::result::Result::Err(::fsmooth::Error::Layout {
                arg: "a",
            });
        }
    };
    let b: &[f64] = match ::fsmooth::RowMajor::<f64>::row_major(b) {
        ::core::option::Option::Some(s) => s,
        ::core::option::Option::None => {
            return ::core::result::Result::Err(::fsmooth::Error::Layout {
                arg: "b",
            });
        }
    };
    #[inline]
    fn __fsmooth_body(
        out: &mut [f64],
        a: &[f64],
        b: &[f64],
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<(), ::fsmooth::Error> {
        if a.len() != 3usize {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "a",
                expected: 3usize,
                found: a.len(),
            });
        }
        if b.len() != 3usize {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "b",
                expected: 3usize,
                found: b.len(),
            });
        }
        if out.len() != 3usize {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "out",
                expected: 3usize,
                found: out.len(),
            });
        }
        let _ = region;
        let __v = [
            ((::fsmooth::__rt::ld(a, 1usize) * ::fsmooth::__rt::ld(b, 2usize))
                - (::fsmooth::__rt::ld(a, 2usize) * ::fsmooth::__rt::ld(b, 1usize))),
            ((::fsmooth::__rt::ld(a, 2usize) * ::fsmooth::__rt::ld(b, 0usize))
                - (::fsmooth::__rt::ld(a, 0usize) * ::fsmooth::__rt::ld(b, 2usize))),
            ((::fsmooth::__rt::ld(a, 0usize) * ::fsmooth::__rt::ld(b, 1usize))
                - (::fsmooth::__rt::ld(a, 1usize) * ::fsmooth::__rt::ld(b, 0usize))),
        ];
        ::fsmooth::__rt::st_row(out, 0usize, __v);
        ::core::result::Result::Ok(())
    }
    __fsmooth_body(out, a, b, region)
}
///Sizes of kernel `cross3`.
#[allow(non_snake_case)]
pub mod cross3 {
    ///f64 scratch slots a call of `cross3` needs (a `Region::from_slab` of this length suffices).
    pub const SCRATCH_LEN: usize = 0usize;
    ///Length of `cross3`'s `out`.
    pub const OUT_LEN: usize = 3usize;
}
