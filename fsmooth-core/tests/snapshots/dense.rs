/// The kernel `dense`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn dense(out: &mut (impl RowMajorMut<f64> + ?Sized), w: &(impl RowMajor<f64> + ?Sized), b: &(impl RowMajor<f64> + ?Sized), x: &(impl RowMajor<f64> + ?Sized), region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; o]`, `dense::out_len(i, o)` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)
/// - `w`: `[[f64; i]; o]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `b`: `[f64; o]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `x`: `[f64; i]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `region`: scratch for the intermediate arrays, `dense::scratch_len(i, o)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn dense(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    w: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    b: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    x: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
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
    let w: &[f64] = match ::fsmooth::RowMajor::<f64>::row_major(w) {
        ::core::option::Option::Some(s) => s,
        ::core::option::Option::None => {
            return ::core::result::Result::Err(::fsmooth::Error::Layout {
                arg: "w",
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
        w: &[f64],
        b: &[f64],
        x: &[f64],
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<(), ::fsmooth::Error> {
        let o: usize = ::fsmooth::__rt::from_len(b.len(), 1usize);
        let i: usize = ::fsmooth::__rt::from_len(x.len(), 1usize);
        let __z0: usize = ::fsmooth::__rt::mul(o, i, "o * i")?;
        if w.len() != __z0 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "w",
                expected: __z0,
                found: w.len(),
            });
        }
        if b.len() != o {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "b",
                expected: o,
                found: b.len(),
            });
        }
        if x.len() != i {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "x",
                expected: i,
                found: x.len(),
            });
        }
        if out.len() != o {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "out",
                expected: o,
                found: out.len(),
            });
        }
        let _ = region;
        let __nb16_0: usize = (o / 8usize);
        for __q16_0 in 0..__nb16_0 {
            let __r16_0_0: usize = (__q16_0).wrapping_mul(8usize);
            let __r16_0_1: usize = (__r16_0_0).wrapping_add(1usize);
            let __r16_0_2: usize = (__r16_0_0).wrapping_add(2usize);
            let __r16_0_3: usize = (__r16_0_0).wrapping_add(3usize);
            let __r16_0_4: usize = (__r16_0_0).wrapping_add(4usize);
            let __r16_0_5: usize = (__r16_0_0).wrapping_add(5usize);
            let __r16_0_6: usize = (__r16_0_0).wrapping_add(6usize);
            let __r16_0_7: usize = (__r16_0_0).wrapping_add(7usize);
            let mut __a16_0_0 = (-0f64);
            let mut __a16_0_1 = (-0f64);
            let mut __a16_0_2 = (-0f64);
            let mut __a16_0_3 = (-0f64);
            let mut __a16_0_4 = (-0f64);
            let mut __a16_0_5 = (-0f64);
            let mut __a16_0_6 = (-0f64);
            let mut __a16_0_7 = (-0f64);
            if let (
                ::core::option::Option::Some(__e13_0),
                ::core::option::Option::Some(__e13_1),
                ::core::option::Option::Some(__e13_2),
                ::core::option::Option::Some(__e13_3),
                ::core::option::Option::Some(__e13_4),
                ::core::option::Option::Some(__e13_5),
                ::core::option::Option::Some(__e13_6),
                ::core::option::Option::Some(__e13_7),
            ) = (
                w
                    .get(
                        (__r16_0_0)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_0).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_0_1)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_1).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_0_2)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_2).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_0_3)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_3).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_0_4)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_4).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_0_5)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_5).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_0_6)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_6).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_0_7)
                            .wrapping_mul(
                                i,
                            )..((__r16_0_7).wrapping_mul(i)).wrapping_add(i),
                    ),
            ) {
                for (
                    (
                        (
                            (((((i_13, __e13_0), __e13_1), __e13_2), __e13_3), __e13_4),
                            __e13_5,
                        ),
                        __e13_6,
                    ),
                    __e13_7,
                ) in (0..i)
                    .zip(__e13_0.iter())
                    .zip(__e13_1.iter())
                    .zip(__e13_2.iter())
                    .zip(__e13_3.iter())
                    .zip(__e13_4.iter())
                    .zip(__e13_5.iter())
                    .zip(__e13_6.iter())
                    .zip(__e13_7.iter())
                {
                    __a16_0_0 = (__a16_0_0
                        + ((*__e13_0) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_0_1 = (__a16_0_1
                        + ((*__e13_1) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_0_2 = (__a16_0_2
                        + ((*__e13_2) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_0_3 = (__a16_0_3
                        + ((*__e13_3) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_0_4 = (__a16_0_4
                        + ((*__e13_4) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_0_5 = (__a16_0_5
                        + ((*__e13_5) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_0_6 = (__a16_0_6
                        + ((*__e13_6) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_0_7 = (__a16_0_7
                        + ((*__e13_7) * ::fsmooth::__rt::ld(x, i_13)));
                }
            }
            let __v = [
                (__a16_0_0 + ::fsmooth::__rt::ld(b, __r16_0_0)),
                (__a16_0_1 + ::fsmooth::__rt::ld(b, __r16_0_1)),
                (__a16_0_2 + ::fsmooth::__rt::ld(b, __r16_0_2)),
                (__a16_0_3 + ::fsmooth::__rt::ld(b, __r16_0_3)),
                (__a16_0_4 + ::fsmooth::__rt::ld(b, __r16_0_4)),
                (__a16_0_5 + ::fsmooth::__rt::ld(b, __r16_0_5)),
                (__a16_0_6 + ::fsmooth::__rt::ld(b, __r16_0_6)),
                (__a16_0_7 + ::fsmooth::__rt::ld(b, __r16_0_7)),
            ];
            ::fsmooth::__rt::st_row(out, __r16_0_0, __v);
        }
        let __nb16_1: usize = ((o).wrapping_sub((__nb16_0).wrapping_mul(8usize))
            / 4usize);
        for __q16_1 in 0..__nb16_1 {
            let __r16_1_0: usize = ((__nb16_0).wrapping_mul(8usize))
                .wrapping_add((__q16_1).wrapping_mul(4usize));
            let __r16_1_1: usize = (__r16_1_0).wrapping_add(1usize);
            let __r16_1_2: usize = (__r16_1_0).wrapping_add(2usize);
            let __r16_1_3: usize = (__r16_1_0).wrapping_add(3usize);
            let mut __a16_1_0 = (-0f64);
            let mut __a16_1_1 = (-0f64);
            let mut __a16_1_2 = (-0f64);
            let mut __a16_1_3 = (-0f64);
            if let (
                ::core::option::Option::Some(__e13_0),
                ::core::option::Option::Some(__e13_1),
                ::core::option::Option::Some(__e13_2),
                ::core::option::Option::Some(__e13_3),
            ) = (
                w
                    .get(
                        (__r16_1_0)
                            .wrapping_mul(
                                i,
                            )..((__r16_1_0).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_1_1)
                            .wrapping_mul(
                                i,
                            )..((__r16_1_1).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_1_2)
                            .wrapping_mul(
                                i,
                            )..((__r16_1_2).wrapping_mul(i)).wrapping_add(i),
                    ),
                w
                    .get(
                        (__r16_1_3)
                            .wrapping_mul(
                                i,
                            )..((__r16_1_3).wrapping_mul(i)).wrapping_add(i),
                    ),
            ) {
                for ((((i_13, __e13_0), __e13_1), __e13_2), __e13_3) in (0..i)
                    .zip(__e13_0.iter())
                    .zip(__e13_1.iter())
                    .zip(__e13_2.iter())
                    .zip(__e13_3.iter())
                {
                    __a16_1_0 = (__a16_1_0
                        + ((*__e13_0) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_1_1 = (__a16_1_1
                        + ((*__e13_1) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_1_2 = (__a16_1_2
                        + ((*__e13_2) * ::fsmooth::__rt::ld(x, i_13)));
                    __a16_1_3 = (__a16_1_3
                        + ((*__e13_3) * ::fsmooth::__rt::ld(x, i_13)));
                }
            }
            let __v = [
                (__a16_1_0 + ::fsmooth::__rt::ld(b, __r16_1_0)),
                (__a16_1_1 + ::fsmooth::__rt::ld(b, __r16_1_1)),
                (__a16_1_2 + ::fsmooth::__rt::ld(b, __r16_1_2)),
                (__a16_1_3 + ::fsmooth::__rt::ld(b, __r16_1_3)),
            ];
            ::fsmooth::__rt::st_row(out, __r16_1_0, __v);
        }
        for __left16 in 0..(o)
            .wrapping_sub(
                ((__nb16_0).wrapping_mul(8usize))
                    .wrapping_add((__nb16_1).wrapping_mul(4usize)),
            )
        {
            let i_16: usize = (((__nb16_0).wrapping_mul(8usize))
                .wrapping_add((__nb16_1).wrapping_mul(4usize)))
                .wrapping_add(__left16);
            let __v = ({
                let mut acc_12 = (-0f64);
                if let (::core::option::Option::Some(__e13_0),) = (
                    w
                        .get(
                            (i_16)
                                .wrapping_mul(i)..((i_16).wrapping_mul(i)).wrapping_add(i),
                        ),
                ) {
                    for (i_13, __e13_0) in (0..i).zip(__e13_0.iter()) {
                        acc_12 = (acc_12 + ((*__e13_0) * ::fsmooth::__rt::ld(x, i_13)));
                    }
                }
                acc_12
            } + ::fsmooth::__rt::ld(b, i_16));
            ::fsmooth::__rt::st(out, i_16, __v);
        }
        ::core::result::Result::Ok(())
    }
    __fsmooth_body(out, w, b, x, region)
}
///Sizes of kernel `dense`.
#[allow(non_snake_case)]
pub mod dense {
    ///f64 scratch slots a call of `dense` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(i: usize, o: usize) -> usize {
        0usize
    }
    ///Length of `dense`'s `out`.
    #[allow(unused)]
    pub const fn out_len(i: usize, o: usize) -> usize {
        o
    }
}
