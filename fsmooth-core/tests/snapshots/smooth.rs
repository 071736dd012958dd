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
        let scratch: &mut [f64] = region.frame(d)?;
        {
            let __steps_3: usize = t;
            if ((__steps_3 % 2usize) == 1usize) {
                {
                    if let (Some(__d), Some(__s)) = (
                        scratch.get_mut(0usize..d),
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
            } else {
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
            }
            if ((__steps_3 % 2usize) == 1usize) {
                {
                    let i_4: usize = 0usize;
                    {
                        let s_6 = (1f64 - alpha);
                        if let Some(__d) = out.get_mut(..d) {
                            let __d = __d.iter_mut();
                            if let (
                                ::core::option::Option::Some(__e13_0),
                                ::core::option::Option::Some(__e13_1),
                            ) = (
                                scratch.get(0usize..d),
                                x
                                    .get(
                                        (i_4)
                                            .wrapping_mul(d)..((i_4).wrapping_mul(d)).wrapping_add(d),
                                    ),
                            ) {
                                for ((__slot, __e13_0), __e13_1) in (__d)
                                    .zip(__e13_0.iter())
                                    .zip(__e13_1.iter())
                                {
                                    *__slot = (((*__e13_0) * s_6) + ((*__e13_1) * alpha));
                                }
                            }
                        }
                    }
                }
            } else {}
            for __pair_3 in 0..(__steps_3 / 2usize) {
                {
                    let i_4: usize = ((__pair_3).wrapping_mul(2usize))
                        .wrapping_add((__steps_3 % 2usize));
                    {
                        let s_6 = (1f64 - alpha);
                        if let Some(__d) = scratch.get_mut(..d) {
                            let __d = __d.iter_mut();
                            if let (
                                ::core::option::Option::Some(__e13_0),
                                ::core::option::Option::Some(__e13_1),
                            ) = (
                                out.get(0usize..d),
                                x
                                    .get(
                                        (i_4)
                                            .wrapping_mul(d)..((i_4).wrapping_mul(d)).wrapping_add(d),
                                    ),
                            ) {
                                for ((__slot, __e13_0), __e13_1) in (__d)
                                    .zip(__e13_0.iter())
                                    .zip(__e13_1.iter())
                                {
                                    *__slot = (((*__e13_0) * s_6) + ((*__e13_1) * alpha));
                                }
                            }
                        }
                    }
                }
                {
                    let i_4: usize = (((__pair_3).wrapping_mul(2usize))
                        .wrapping_add((__steps_3 % 2usize)))
                        .wrapping_add(1usize);
                    {
                        let s_6 = (1f64 - alpha);
                        if let Some(__d) = out.get_mut(..d) {
                            let __d = __d.iter_mut();
                            if let (
                                ::core::option::Option::Some(__e13_0),
                                ::core::option::Option::Some(__e13_1),
                            ) = (
                                scratch.get(0usize..d),
                                x
                                    .get(
                                        (i_4)
                                            .wrapping_mul(d)..((i_4).wrapping_mul(d)).wrapping_add(d),
                                    ),
                            ) {
                                for ((__slot, __e13_0), __e13_1) in (__d)
                                    .zip(__e13_0.iter())
                                    .zip(__e13_1.iter())
                                {
                                    *__slot = (((*__e13_0) * s_6) + ((*__e13_1) * alpha));
                                }
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
        d
    }
    ///Length of `smooth`'s `out`.
    #[allow(unused)]
    pub const fn out_len(d: usize, t: usize) -> usize {
        d
    }
}
