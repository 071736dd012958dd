/// The kernel `smooth`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn smooth(out: &mut (impl RowMajorMut<f64> + ?Sized), x: &(impl RowMajor<f64> + ?Sized), d: usize, alpha: f64, region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; d]`, `smooth::out_len(d, t)` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)
/// - `x`: `[[f64; d]; t]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `d`: `usize`
/// - `alpha`: `f64`
/// - `region`: scratch for the intermediate arrays, `smooth::scratch_len(d, t)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn smooth(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    x: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    d: usize,
    alpha: f64,
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
        out: &mut [f64],
        x: &[f64],
        d: usize,
        alpha: f64,
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<(), ::fsmooth::Error> {
        let d: usize = d;
        let t: usize = ::fsmooth::__rt::div(x.len(), d, "x.len() / (d)")?;
        let __z0: usize = ::fsmooth::__rt::mul(t, d, "t * d")?;
        if x.len() != __z0 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "x",
                expected: __z0,
                found: x.len(),
            });
        }
        if out.len() != d {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "out",
                expected: d,
                found: out.len(),
            });
        }
        let _ = region;
        if (d <= 16usize) {
            {
                let local_0: &mut [f64; 16usize] = &mut [0f64; 16usize];
                {
                    {
                        if let (Some(__d), Some(__s)) = (
                            local_0.get_mut(0usize..d),
                            x
                                .get(
                                    (::fsmooth::__rt::check(0usize, t)?)
                                        .wrapping_mul(
                                            d,
                                        )..((::fsmooth::__rt::check(0usize, t)?).wrapping_mul(d))
                                        .wrapping_add(d),
                                ),
                        ) {
                            for (__x, __y) in __d.iter_mut().zip(__s) {
                                *__x = *__y;
                            }
                        }
                    }
                    if let (::core::option::Option::Some(__ri_4_0),) = (
                        x.get(0usize..),
                    ) {
                        for (i_4, __ri_4_0) in (0..t)
                            .zip(::fsmooth::__rt::rows(__ri_4_0, d))
                        {
                            let s_6 = (1f64 - alpha);
                            if let (
                                ::core::option::Option::Some(__e13_1),
                                ::core::option::Option::Some(__pm1),
                            ) = (__ri_4_0.get(0usize..d), local_0.get_mut(0usize..d)) {
                                for (__e13_1, __pm1) in (__e13_1.iter())
                                    .zip(__pm1.iter_mut())
                                {
                                    *__pm1 = (((*__pm1) * s_6) + ((*__e13_1) * alpha));
                                }
                            }
                        }
                    }
                }
                if let (Some(__d), Some(__s)) = (
                    out.get_mut(0usize..d),
                    local_0.get(0usize..d),
                ) {
                    for (__x, __y) in __d.iter_mut().zip(__s) {
                        *__x = *__y;
                    }
                }
            }
        } else {
            {
                {
                    if let (Some(__d), Some(__s)) = (
                        out.get_mut(0usize..d),
                        x
                            .get(
                                (::fsmooth::__rt::check(0usize, t)?)
                                    .wrapping_mul(
                                        d,
                                    )..((::fsmooth::__rt::check(0usize, t)?).wrapping_mul(d))
                                    .wrapping_add(d),
                            ),
                    ) {
                        for (__x, __y) in __d.iter_mut().zip(__s) {
                            *__x = *__y;
                        }
                    }
                }
                if let (::core::option::Option::Some(__ri_4_0),) = (x.get(0usize..),) {
                    for (i_4, __ri_4_0) in (0..t).zip(::fsmooth::__rt::rows(__ri_4_0, d))
                    {
                        let s_6 = (1f64 - alpha);
                        if let (
                            ::core::option::Option::Some(__e13_1),
                            ::core::option::Option::Some(__pm2),
                        ) = (__ri_4_0.get(0usize..d), out.get_mut(0usize..d)) {
                            for (__e13_1, __pm2) in (__e13_1.iter())
                                .zip(__pm2.iter_mut())
                            {
                                *__pm2 = (((*__pm2) * s_6) + ((*__e13_1) * alpha));
                            }
                        }
                    }
                }
            }
        }
        ::core::result::Result::Ok(())
    }
    __fsmooth_body(out, x, d, alpha, region)
}
///Sizes of kernel `smooth`.
#[allow(non_snake_case)]
pub mod smooth {
    ///f64 scratch slots a call of `smooth` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(d: usize, t: usize) -> usize {
        0usize
    }
    ///Length of `smooth`'s `out`.
    #[allow(unused)]
    pub const fn out_len(d: usize, t: usize) -> usize {
        d
    }
}
