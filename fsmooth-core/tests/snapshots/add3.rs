/// The kernel `add3`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn add3(out: &mut (impl RowMajorMut<f64> + ?Sized), a: &(impl RowMajor<f64> + ?Sized), b: &(impl RowMajor<f64> + ?Sized), c: &(impl RowMajor<f64> + ?Sized), region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; n]`, `add3::out_len(n)` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)
/// - `a`: `[f64; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `b`: `[f64; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `c`: `[f64; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `region`: scratch for the intermediate arrays, `add3::scratch_len(n)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn add3(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    a: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    b: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    c: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
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
    let c: &[f64] = match ::fsmooth::RowMajor::<f64>::row_major(c) {
        ::core::option::Option::Some(s) => s,
        ::core::option::Option::None => {
            return ::core::result::Result::Err(::fsmooth::Error::Layout {
                arg: "c",
            });
        }
    };
    #[inline]
    fn __fsmooth_body(
        out: &mut [f64],
        a: &[f64],
        b: &[f64],
        c: &[f64],
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<(), ::fsmooth::Error> {
        let n: usize = ::fsmooth::__rt::from_len(a.len(), 1usize);
        if a.len() != n {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "a",
                expected: n,
                found: a.len(),
            });
        }
        if b.len() != n {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "b",
                expected: n,
                found: b.len(),
            });
        }
        if c.len() != n {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "c",
                expected: n,
                found: c.len(),
            });
        }
        if out.len() != n {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "out",
                expected: n,
                found: out.len(),
            });
        }
        let _ = region;
        if let Some(__d) = out.get_mut(..n) {
            let __d = __d.iter_mut();
            for (i_8, __slot) in (0..n).zip(__d) {
                *__slot = ((::fsmooth::__rt::ld(a, i_8) + ::fsmooth::__rt::ld(b, i_8))
                    + ::fsmooth::__rt::ld(c, i_8));
            }
        }
        ::core::result::Result::Ok(())
    }
    __fsmooth_body(out, a, b, c, region)
}
///Sizes of kernel `add3`.
#[allow(non_snake_case)]
pub mod add3 {
    ///f64 scratch slots a call of `add3` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(n: usize) -> usize {
        0usize
    }
    ///Length of `add3`'s `out`.
    #[allow(unused)]
    pub const fn out_len(n: usize) -> usize {
        n
    }
}
