/// The kernel `stencil`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn stencil(out: &mut (impl RowMajorMut<f64> + ?Sized), a: &(impl RowMajor<f64> + ?Sized), region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; n - 2]`, `stencil::out_len(n)` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)
/// - `a`: `[f64; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `region`: scratch for the intermediate arrays, `stencil::scratch_len(n)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn stencil(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    a: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
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
    #[inline]
    fn __fsmooth_body(
        out: &mut [f64],
        a: &[f64],
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<(), ::fsmooth::Error> {
        let n: usize = ::fsmooth::__rt::from_len(a.len(), 1usize);
        let __z0: usize = ::fsmooth::__rt::sub(n, 2usize, "n - 2")?;
        if a.len() != n {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "a",
                expected: n,
                found: a.len(),
            });
        }
        if out.len() != __z0 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "out",
                expected: __z0,
                found: out.len(),
            });
        }
        let scratch: &mut [f64] = region.frame(n)?;
        {
            if let Some(__d) = scratch.get_mut(..n) {
                let __d = __d.iter_mut();
                for (i_3, __slot) in (0..n).zip(__d) {
                    *__slot = (::fsmooth::__rt::ld(a, i_3) * 0.5f64);
                }
            }
            if let Some(__d) = out.get_mut(..__z0) {
                let __d = __d.iter_mut();
                if let (
                    ::core::option::Option::Some(__e5_0),
                    ::core::option::Option::Some(__e5_1),
                    ::core::option::Option::Some(__e5_2),
                ) = (
                    scratch.get(0usize..__z0),
                    scratch.get(1usize..(1usize).wrapping_add(__z0)),
                    scratch.get(2usize..(2usize).wrapping_add(__z0)),
                ) {
                    for (((__slot, __e5_0), __e5_1), __e5_2) in (__d)
                        .zip(__e5_0.iter())
                        .zip(__e5_1.iter())
                        .zip(__e5_2.iter())
                    {
                        *__slot = (((*__e5_0) + (*__e5_1)) + (*__e5_2));
                    }
                }
            }
        }
        ::core::result::Result::Ok(())
    }
    __fsmooth_body(out, a, region)
}
///Sizes of kernel `stencil`.
#[allow(non_snake_case)]
pub mod stencil {
    ///f64 scratch slots a call of `stencil` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(n: usize) -> usize {
        n
    }
    ///Length of `stencil`'s `out`.
    #[allow(unused)]
    pub const fn out_len(n: usize) -> usize {
        ::fsmooth::__rt::sat_sub(n, 2usize)
    }
}
