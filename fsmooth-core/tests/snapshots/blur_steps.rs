/// The kernel `blur_steps`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn blur_steps(out: &mut (impl RowMajorMut<f64> + ?Sized), a: &(impl RowMajor<f64> + ?Sized), t: usize, region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; n]`, `blur_steps::out_len(n)` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)
/// - `a`: `[f64; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `t`: `usize`
/// - `region`: scratch for the intermediate arrays, `blur_steps::scratch_len(n)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn blur_steps(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    a: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    t: usize,
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
        t: usize,
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<(), ::fsmooth::Error> {
        let t: usize = t;
        let n: usize = ::fsmooth::__rt::from_len(a.len(), 1usize);
        if a.len() != n {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "a",
                expected: n,
                found: a.len(),
            });
        }
        if out.len() != n {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "out",
                expected: n,
                found: out.len(),
            });
        }
        let scratch: &mut [f64] = region.frame(n)?;
        {
            let __steps_2: usize = t;
            if ((__steps_2 % 2usize) == 1usize) {
                {
                    if let (Some(__d), Some(__s)) = (
                        scratch.get_mut(0usize..n),
                        a.get(0usize..n),
                    ) {
                        for (__x, __y) in __d.iter_mut().zip(__s) {
                            *__x = *__y;
                        }
                    }
                }
            } else {
                {
                    if let (Some(__d), Some(__s)) = (
                        out.get_mut(0usize..n),
                        a.get(0usize..n),
                    ) {
                        for (__x, __y) in __d.iter_mut().zip(__s) {
                            *__x = *__y;
                        }
                    }
                }
            }
            if ((__steps_2 % 2usize) == 1usize) {
                {
                    let i_3: usize = 0usize;
                    {
                        let __lo_4: usize = if (n < 1usize) { n } else { 1usize };
                        let __mid_4: usize = if (n >= 1usize) {
                            (n).wrapping_sub(1usize)
                        } else {
                            0usize
                        };
                        for __t_4 in 0..(__lo_4).wrapping_sub(0usize) {
                            let j_4: usize = __t_4;
                            let __v = if (j_4 > 0usize) {
                                (::fsmooth::__rt::ld(scratch, (j_4).wrapping_sub(1usize))
                                    + ::fsmooth::__rt::ld(scratch, j_4))
                            } else {
                                ::fsmooth::__rt::ld(scratch, j_4)
                            };
                            ::fsmooth::__rt::st(out, j_4, __v);
                        }
                        if let Some(__d) = out
                            .get_mut(1usize..(1usize).wrapping_add(__mid_4))
                        {
                            let __d = __d.iter_mut();
                            if let (
                                ::core::option::Option::Some(__e1048585_0),
                                ::core::option::Option::Some(__e1048585_1),
                            ) = (
                                scratch.get(0usize..__mid_4),
                                scratch.get(1usize..(1usize).wrapping_add(__mid_4)),
                            ) {
                                for ((__slot, __e1048585_0), __e1048585_1) in (__d)
                                    .zip(__e1048585_0.iter())
                                    .zip(__e1048585_1.iter())
                                {
                                    *__slot = { ((*__e1048585_0) + (*__e1048585_1)) };
                                }
                            }
                        }
                        let __rest_4: usize = (__lo_4).wrapping_add(__mid_4);
                        for __t_4 in 0..(n).wrapping_sub(__rest_4) {
                            let j_4: usize = (__rest_4).wrapping_add(__t_4);
                            let __v = if (j_4 > 0usize) {
                                (::fsmooth::__rt::ld(scratch, (j_4).wrapping_sub(1usize))
                                    + ::fsmooth::__rt::ld(scratch, j_4))
                            } else {
                                ::fsmooth::__rt::ld(scratch, j_4)
                            };
                            ::fsmooth::__rt::st(out, j_4, __v);
                        }
                    }
                }
            } else {}
            for __pair_2 in 0..(__steps_2 / 2usize) {
                {
                    let i_3: usize = ((__pair_2).wrapping_mul(2usize))
                        .wrapping_add((__steps_2 % 2usize));
                    {
                        let __lo_4: usize = if (n < 1usize) { n } else { 1usize };
                        let __mid_4: usize = if (n >= 1usize) {
                            (n).wrapping_sub(1usize)
                        } else {
                            0usize
                        };
                        for __t_4 in 0..(__lo_4).wrapping_sub(0usize) {
                            let j_4: usize = __t_4;
                            let __v = if (j_4 > 0usize) {
                                (::fsmooth::__rt::ld(out, (j_4).wrapping_sub(1usize))
                                    + ::fsmooth::__rt::ld(out, j_4))
                            } else {
                                ::fsmooth::__rt::ld(out, j_4)
                            };
                            ::fsmooth::__rt::st(scratch, j_4, __v);
                        }
                        if let Some(__d) = scratch
                            .get_mut(1usize..(1usize).wrapping_add(__mid_4))
                        {
                            let __d = __d.iter_mut();
                            if let (
                                ::core::option::Option::Some(__e1048586_0),
                                ::core::option::Option::Some(__e1048586_1),
                            ) = (
                                out.get(0usize..__mid_4),
                                out.get(1usize..(1usize).wrapping_add(__mid_4)),
                            ) {
                                for ((__slot, __e1048586_0), __e1048586_1) in (__d)
                                    .zip(__e1048586_0.iter())
                                    .zip(__e1048586_1.iter())
                                {
                                    *__slot = { ((*__e1048586_0) + (*__e1048586_1)) };
                                }
                            }
                        }
                        let __rest_4: usize = (__lo_4).wrapping_add(__mid_4);
                        for __t_4 in 0..(n).wrapping_sub(__rest_4) {
                            let j_4: usize = (__rest_4).wrapping_add(__t_4);
                            let __v = if (j_4 > 0usize) {
                                (::fsmooth::__rt::ld(out, (j_4).wrapping_sub(1usize))
                                    + ::fsmooth::__rt::ld(out, j_4))
                            } else {
                                ::fsmooth::__rt::ld(out, j_4)
                            };
                            ::fsmooth::__rt::st(scratch, j_4, __v);
                        }
                    }
                }
                {
                    let i_3: usize = (((__pair_2).wrapping_mul(2usize))
                        .wrapping_add((__steps_2 % 2usize)))
                        .wrapping_add(1usize);
                    {
                        let __lo_4: usize = if (n < 1usize) { n } else { 1usize };
                        let __mid_4: usize = if (n >= 1usize) {
                            (n).wrapping_sub(1usize)
                        } else {
                            0usize
                        };
                        for __t_4 in 0..(__lo_4).wrapping_sub(0usize) {
                            let j_4: usize = __t_4;
                            let __v = if (j_4 > 0usize) {
                                (::fsmooth::__rt::ld(scratch, (j_4).wrapping_sub(1usize))
                                    + ::fsmooth::__rt::ld(scratch, j_4))
                            } else {
                                ::fsmooth::__rt::ld(scratch, j_4)
                            };
                            ::fsmooth::__rt::st(out, j_4, __v);
                        }
                        if let Some(__d) = out
                            .get_mut(1usize..(1usize).wrapping_add(__mid_4))
                        {
                            let __d = __d.iter_mut();
                            if let (
                                ::core::option::Option::Some(__e1048587_0),
                                ::core::option::Option::Some(__e1048587_1),
                            ) = (
                                scratch.get(0usize..__mid_4),
                                scratch.get(1usize..(1usize).wrapping_add(__mid_4)),
                            ) {
                                for ((__slot, __e1048587_0), __e1048587_1) in (__d)
                                    .zip(__e1048587_0.iter())
                                    .zip(__e1048587_1.iter())
                                {
                                    *__slot = { ((*__e1048587_0) + (*__e1048587_1)) };
                                }
                            }
                        }
                        let __rest_4: usize = (__lo_4).wrapping_add(__mid_4);
                        for __t_4 in 0..(n).wrapping_sub(__rest_4) {
                            let j_4: usize = (__rest_4).wrapping_add(__t_4);
                            let __v = if (j_4 > 0usize) {
                                (::fsmooth::__rt::ld(scratch, (j_4).wrapping_sub(1usize))
                                    + ::fsmooth::__rt::ld(scratch, j_4))
                            } else {
                                ::fsmooth::__rt::ld(scratch, j_4)
                            };
                            ::fsmooth::__rt::st(out, j_4, __v);
                        }
                    }
                }
            }
        }
        ::core::result::Result::Ok(())
    }
    __fsmooth_body(out, a, t, region)
}
///Sizes of kernel `blur_steps`.
#[allow(non_snake_case)]
pub mod blur_steps {
    ///f64 scratch slots a call of `blur_steps` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(n: usize) -> usize {
        n
    }
    ///Length of `blur_steps`'s `out`.
    #[allow(unused)]
    pub const fn out_len(n: usize) -> usize {
        n
    }
}
const _: () = {
    fn __fsmooth_unused() {
        let i: ::core::convert::Infallible;
    }
};
