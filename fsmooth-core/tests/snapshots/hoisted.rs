/// The kernel `hoisted`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn hoisted(q: &(impl RowMajor<f64> + ?Sized), x: &(impl RowMajor<f64> + ?Sized), d: usize, region: &mut Region<'_>) -> Result<f64, Error>
/// ```
///
/// - `q`: `[[f64; d]; k]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `x`: `[[f64; d]; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `d`: `usize`
/// - `region`: scratch for the intermediate arrays, `hoisted::scratch_len(d, k, n)` slots (`fsmooth::Region`)
///
/// Returns `Ok` with the `f64` result, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn hoisted(
    q: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    x: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    d: usize,
    region: &mut ::fsmooth::Region<'_>,
) -> ::core::result::Result<f64, ::fsmooth::Error> {
    let q: &[f64] = match ::fsmooth::RowMajor::<f64>::row_major(q) {
        ::core::option::Option::Some(s) => s,
        ::core::option::Option::None => {
            return ::core::result::Result::Err(::fsmooth::Error::Layout {
                arg: "q",
            });
        }
    };
    let x: &[f64] = match ::fsmooth::RowMajor::<f64>::row_major(x) {
        ::core::option::Option::Some(s) => s,
        ::core::option::Option::None => {
            return ::core::result::Result::Err(::fsmooth::Error::Layout {
                arg: "x",
            });
        }
    };
    #[inline]
    fn __fsmooth_body(
        q: &[f64],
        x: &[f64],
        d: usize,
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<f64, ::fsmooth::Error> {
        let d: usize = d;
        let k: usize = ::fsmooth::__rt::div(q.len(), d, "q.len() / (d)")?;
        let n: usize = ::fsmooth::__rt::div(x.len(), d, "x.len() / (d)")?;
        let __z0: usize = ::fsmooth::__rt::mul(k, d, "k * d")?;
        let __z1: usize = ::fsmooth::__rt::mul(n, d, "n * d")?;
        if q.len() != __z0 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "q",
                expected: __z0,
                found: q.len(),
            });
        }
        if x.len() != __z1 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "x",
                expected: __z1,
                found: x.len(),
            });
        }
        let scratch: &mut [f64] = region.frame(__z0)?;
        ::core::result::Result::Ok({
            if let (::core::option::Option::Some(__rh_21_0),) = (q.get(0usize..),) {
                for (h_21, __rh_21_0) in (0..k).zip(::fsmooth::__rt::rows(__rh_21_0, d))
                {
                    if let Some(__d) = scratch
                        .get_mut(
                            (h_21)
                                .wrapping_mul(d)..((h_21).wrapping_mul(d)).wrapping_add(d),
                        )
                    {
                        let __d = __d.iter_mut();
                        if let (::core::option::Option::Some(__e22_0),) = (
                            __rh_21_0.get(0usize..d),
                        ) {
                            for (__slot, __e22_0) in (__d).zip(__e22_0.iter()) {
                                *__slot = ::fsmooth::__rt::exp((*__e22_0));
                            }
                        }
                    }
                }
            }
            {
                let mut acc_3 = 0f64;
                if let (::core::option::Option::Some(__ri_4_0),) = (x.get(0usize..),) {
                    for (i_4, __ri_4_0) in (0..n).zip(::fsmooth::__rt::rows(__ri_4_0, d))
                    {
                        acc_3 = (acc_3
                            + {
                                let mut acc_18 = (-0f64);
                                if let (::core::option::Option::Some(__ri_19_0),) = (
                                    scratch.get(0usize..),
                                ) {
                                    for (i_19, __ri_19_0) in (0..k)
                                        .zip(::fsmooth::__rt::rows(__ri_19_0, d))
                                    {
                                        acc_18 = (acc_18
                                            + {
                                                let mut acc_15 = (-0f64);
                                                if let (
                                                    ::core::option::Option::Some(__e16_0),
                                                    ::core::option::Option::Some(__e16_1),
                                                ) = (__ri_19_0.get(0usize..d), __ri_4_0.get(0usize..d)) {
                                                    for (__e16_0, __e16_1) in (__e16_0.iter())
                                                        .zip(__e16_1.iter())
                                                    {
                                                        acc_15 = (acc_15 + ((*__e16_0) * (*__e16_1)));
                                                    }
                                                }
                                                acc_15
                                            });
                                    }
                                }
                                acc_18
                            });
                    }
                }
                acc_3
            }
        })
    }
    __fsmooth_body(q, x, d, region)
}
///Sizes of kernel `hoisted`.
#[allow(non_snake_case)]
pub mod hoisted {
    ///f64 scratch slots a call of `hoisted` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(d: usize, k: usize, n: usize) -> usize {
        usize::saturating_mul(k, d)
    }
}
