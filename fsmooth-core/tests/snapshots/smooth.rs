/// The kernel `smooth`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn smooth(out: &mut [f64], x: &[f64], d: usize, alpha: f64, region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; d]`, `smooth::out_len(d, t)` elements
/// - `x`: `[[f64; d]; t]`
/// - `d`: `usize`
/// - `alpha`: `f64`
/// - `region`: scratch for the intermediate arrays, `smooth::scratch_len(d, t)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or a bad index.
#[allow(unused, clippy::all)]
#[inline]
pub fn smooth(
    out: &mut [f64],
    x: &[f64],
    d: usize,
    alpha: f64,
    region: &mut ::fsmooth::Region<'_>,
) -> ::core::result::Result<(), ::fsmooth::Error> {
    let d: usize = d;
    let t: usize = ::fsmooth::__rt::from_len(x.len(), d);
    let __z0: usize = ::fsmooth::__rt::mul(t, d, "t * d")?;
    let __z1: usize = ::fsmooth::__rt::add(d, d, "d + d")?;
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
    let scratch: &mut [f64] = region.frame(__z1)?;
    {
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
        let mut __cur_3: usize = 0usize;
        let mut __nxt_3: usize = d;
        if let (::core::option::Option::Some(__ri_4_0),) = (x.get(0usize..),) {
            for (i_4, __ri_4_0) in (0..t).zip(::fsmooth::__rt::rows(__ri_4_0, d)) {
                {
                    let s_6 = (1f64 - alpha);
                    if let (::core::option::Option::Some(__e13_1),) = (
                        __ri_4_0.get(0usize..d),
                    ) {
                        for (i_13, __e13_1) in (0..d).zip(__e13_1.iter()) {
                            let __v = ((::fsmooth::__rt::ld(
                                scratch,
                                (__cur_3).wrapping_add(i_13),
                            ) * s_6) + ((*__e13_1) * alpha));
                            ::fsmooth::__rt::st(
                                scratch,
                                (__nxt_3).wrapping_add(i_13),
                                __v,
                            );
                        }
                    }
                }
                ::core::mem::swap(&mut __cur_3, &mut __nxt_3);
            }
        }
        if let (Some(__d), Some(__s)) = (
            out.get_mut(0usize..d),
            scratch.get(__cur_3..(__cur_3).wrapping_add(d)),
        ) {
            for (__x, __y) in __d.iter_mut().zip(__s) {
                *__x = *__y;
            }
        }
    }
    ::core::result::Result::Ok(())
}
///Sizes of kernel `smooth`.
#[allow(non_snake_case)]
pub mod smooth {
    ///f64 scratch slots a call of `smooth` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(d: usize, t: usize) -> usize {
        usize::saturating_add(d, d)
    }
    ///Length of `smooth`'s `out`.
    #[allow(unused)]
    pub const fn out_len(d: usize, t: usize) -> usize {
        d
    }
}
