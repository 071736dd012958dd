/// The kernel `matmul2`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn matmul2(out: &mut (impl RowMajorMut<f64> + ?Sized), a: &(impl RowMajor<f64> + ?Sized), b: &(impl RowMajor<f64> + ?Sized), k: usize, region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[[f64; m]; n]`, `matmul2::out_len(k, n, m)` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)
/// - `a`: `[[f64; k]; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `b`: `[[f64; m]; k]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `k`: `usize`
/// - `region`: scratch for the intermediate arrays, `matmul2::scratch_len(k, n, m)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn matmul2(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    a: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    b: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    k: usize,
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
        k: usize,
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<(), ::fsmooth::Error> {
        let k: usize = k;
        let n: usize = ::fsmooth::__rt::div(a.len(), k, "a.len() / (k)")?;
        let m: usize = ::fsmooth::__rt::div(b.len(), k, "b.len() / (k)")?;
        let __z0: usize = ::fsmooth::__rt::mul(n, k, "n * k")?;
        let __z1: usize = ::fsmooth::__rt::mul(k, m, "k * m")?;
        let __z2: usize = ::fsmooth::__rt::mul(n, m, "n * m")?;
        if a.len() != __z0 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "a",
                expected: __z0,
                found: a.len(),
            });
        }
        if b.len() != __z1 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "b",
                expected: __z1,
                found: b.len(),
            });
        }
        if out.len() != __z2 {
            return ::core::result::Result::Err(::fsmooth::Error::Shape {
                arg: "out",
                expected: __z2,
                found: out.len(),
            });
        }
        let _ = region;
        if cfg!(target_feature = "avx") {
            let __nr9: usize = (n / 2usize);
            for __rq9 in 0..__nr9 {
                let __tr9_0: usize = (__rq9).wrapping_mul(2usize);
                let __tr9_1: usize = (__tr9_0).wrapping_add(1usize);
                let __nt10_0: usize = (m / 16usize);
                for __tq10_0 in 0..__nt10_0 {
                    let __tc10_0: usize = (__tq10_0).wrapping_mul(16usize);
                    let mut __t10_0_0x0 = (-0f64);
                    let mut __t10_0_0x1 = (-0f64);
                    let mut __t10_0_0x2 = (-0f64);
                    let mut __t10_0_0x3 = (-0f64);
                    let mut __t10_0_0x4 = (-0f64);
                    let mut __t10_0_0x5 = (-0f64);
                    let mut __t10_0_0x6 = (-0f64);
                    let mut __t10_0_0x7 = (-0f64);
                    let mut __t10_0_0x8 = (-0f64);
                    let mut __t10_0_0x9 = (-0f64);
                    let mut __t10_0_0x10 = (-0f64);
                    let mut __t10_0_0x11 = (-0f64);
                    let mut __t10_0_0x12 = (-0f64);
                    let mut __t10_0_0x13 = (-0f64);
                    let mut __t10_0_0x14 = (-0f64);
                    let mut __t10_0_0x15 = (-0f64);
                    let mut __t10_0_1x0 = (-0f64);
                    let mut __t10_0_1x1 = (-0f64);
                    let mut __t10_0_1x2 = (-0f64);
                    let mut __t10_0_1x3 = (-0f64);
                    let mut __t10_0_1x4 = (-0f64);
                    let mut __t10_0_1x5 = (-0f64);
                    let mut __t10_0_1x6 = (-0f64);
                    let mut __t10_0_1x7 = (-0f64);
                    let mut __t10_0_1x8 = (-0f64);
                    let mut __t10_0_1x9 = (-0f64);
                    let mut __t10_0_1x10 = (-0f64);
                    let mut __t10_0_1x11 = (-0f64);
                    let mut __t10_0_1x12 = (-0f64);
                    let mut __t10_0_1x13 = (-0f64);
                    let mut __t10_0_1x14 = (-0f64);
                    let mut __t10_0_1x15 = (-0f64);
                    if let (
                        ::core::option::Option::Some(__e18_0),
                        ::core::option::Option::Some(__e18_1),
                        ::core::option::Option::Some(__rb10_0_0),
                    ) = (
                        a
                            .get(
                                (__tr9_0)
                                    .wrapping_mul(
                                        k,
                                    )..((__tr9_0).wrapping_mul(k)).wrapping_add(k),
                            ),
                        a
                            .get(
                                (__tr9_1)
                                    .wrapping_mul(
                                        k,
                                    )..((__tr9_1).wrapping_mul(k)).wrapping_add(k),
                            ),
                        b.get(0usize..),
                    ) {
                        for ((__e18_0, __e18_1), __rb10_0_0) in (__e18_0.iter())
                            .zip(__e18_1.iter())
                            .zip(::fsmooth::__rt::rows(__rb10_0_0, m))
                        {
                            if let ::core::option::Option::Some(__sg10_0_0) = __rb10_0_0
                                .get(__tc10_0..(__tc10_0).wrapping_add(16usize))
                            {
                                __t10_0_0x0 = (__t10_0_0x0
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 0usize)));
                                __t10_0_0x1 = (__t10_0_0x1
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 1usize)));
                                __t10_0_0x2 = (__t10_0_0x2
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 2usize)));
                                __t10_0_0x3 = (__t10_0_0x3
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 3usize)));
                                __t10_0_0x4 = (__t10_0_0x4
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 4usize)));
                                __t10_0_0x5 = (__t10_0_0x5
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 5usize)));
                                __t10_0_0x6 = (__t10_0_0x6
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 6usize)));
                                __t10_0_0x7 = (__t10_0_0x7
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 7usize)));
                                __t10_0_0x8 = (__t10_0_0x8
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 8usize)));
                                __t10_0_0x9 = (__t10_0_0x9
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 9usize)));
                                __t10_0_0x10 = (__t10_0_0x10
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 10usize)));
                                __t10_0_0x11 = (__t10_0_0x11
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 11usize)));
                                __t10_0_0x12 = (__t10_0_0x12
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 12usize)));
                                __t10_0_0x13 = (__t10_0_0x13
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 13usize)));
                                __t10_0_0x14 = (__t10_0_0x14
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 14usize)));
                                __t10_0_0x15 = (__t10_0_0x15
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 15usize)));
                                __t10_0_1x0 = (__t10_0_1x0
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 0usize)));
                                __t10_0_1x1 = (__t10_0_1x1
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 1usize)));
                                __t10_0_1x2 = (__t10_0_1x2
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 2usize)));
                                __t10_0_1x3 = (__t10_0_1x3
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 3usize)));
                                __t10_0_1x4 = (__t10_0_1x4
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 4usize)));
                                __t10_0_1x5 = (__t10_0_1x5
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 5usize)));
                                __t10_0_1x6 = (__t10_0_1x6
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 6usize)));
                                __t10_0_1x7 = (__t10_0_1x7
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 7usize)));
                                __t10_0_1x8 = (__t10_0_1x8
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 8usize)));
                                __t10_0_1x9 = (__t10_0_1x9
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 9usize)));
                                __t10_0_1x10 = (__t10_0_1x10
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 10usize)));
                                __t10_0_1x11 = (__t10_0_1x11
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 11usize)));
                                __t10_0_1x12 = (__t10_0_1x12
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 12usize)));
                                __t10_0_1x13 = (__t10_0_1x13
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 13usize)));
                                __t10_0_1x14 = (__t10_0_1x14
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 14usize)));
                                __t10_0_1x15 = (__t10_0_1x15
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 15usize)));
                            }
                        }
                    }
                    let __v = [
                        __t10_0_0x0,
                        __t10_0_0x1,
                        __t10_0_0x2,
                        __t10_0_0x3,
                        __t10_0_0x4,
                        __t10_0_0x5,
                        __t10_0_0x6,
                        __t10_0_0x7,
                        __t10_0_0x8,
                        __t10_0_0x9,
                        __t10_0_0x10,
                        __t10_0_0x11,
                        __t10_0_0x12,
                        __t10_0_0x13,
                        __t10_0_0x14,
                        __t10_0_0x15,
                    ];
                    ::fsmooth::__rt::st_row(
                        out,
                        ((__tr9_0).wrapping_mul(m)).wrapping_add(__tc10_0),
                        __v,
                    );
                    let __v = [
                        __t10_0_1x0,
                        __t10_0_1x1,
                        __t10_0_1x2,
                        __t10_0_1x3,
                        __t10_0_1x4,
                        __t10_0_1x5,
                        __t10_0_1x6,
                        __t10_0_1x7,
                        __t10_0_1x8,
                        __t10_0_1x9,
                        __t10_0_1x10,
                        __t10_0_1x11,
                        __t10_0_1x12,
                        __t10_0_1x13,
                        __t10_0_1x14,
                        __t10_0_1x15,
                    ];
                    ::fsmooth::__rt::st_row(
                        out,
                        ((__tr9_1).wrapping_mul(m)).wrapping_add(__tc10_0),
                        __v,
                    );
                }
                let __nt10_1: usize = ((m).wrapping_sub((__nt10_0).wrapping_mul(16usize))
                    / 4usize);
                for __tq10_1 in 0..__nt10_1 {
                    let __tc10_1: usize = ((__nt10_0).wrapping_mul(16usize))
                        .wrapping_add((__tq10_1).wrapping_mul(4usize));
                    let mut __t10_1_0x0 = (-0f64);
                    let mut __t10_1_0x1 = (-0f64);
                    let mut __t10_1_0x2 = (-0f64);
                    let mut __t10_1_0x3 = (-0f64);
                    let mut __t10_1_1x0 = (-0f64);
                    let mut __t10_1_1x1 = (-0f64);
                    let mut __t10_1_1x2 = (-0f64);
                    let mut __t10_1_1x3 = (-0f64);
                    if let (
                        ::core::option::Option::Some(__e18_0),
                        ::core::option::Option::Some(__e18_1),
                        ::core::option::Option::Some(__rb10_1_0),
                    ) = (
                        a
                            .get(
                                (__tr9_0)
                                    .wrapping_mul(
                                        k,
                                    )..((__tr9_0).wrapping_mul(k)).wrapping_add(k),
                            ),
                        a
                            .get(
                                (__tr9_1)
                                    .wrapping_mul(
                                        k,
                                    )..((__tr9_1).wrapping_mul(k)).wrapping_add(k),
                            ),
                        b.get(0usize..),
                    ) {
                        for ((__e18_0, __e18_1), __rb10_1_0) in (__e18_0.iter())
                            .zip(__e18_1.iter())
                            .zip(::fsmooth::__rt::rows(__rb10_1_0, m))
                        {
                            if let ::core::option::Option::Some(__sg10_1_0) = __rb10_1_0
                                .get(__tc10_1..(__tc10_1).wrapping_add(4usize))
                            {
                                __t10_1_0x0 = (__t10_1_0x0
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 0usize)));
                                __t10_1_0x1 = (__t10_1_0x1
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 1usize)));
                                __t10_1_0x2 = (__t10_1_0x2
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 2usize)));
                                __t10_1_0x3 = (__t10_1_0x3
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 3usize)));
                                __t10_1_1x0 = (__t10_1_1x0
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 0usize)));
                                __t10_1_1x1 = (__t10_1_1x1
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 1usize)));
                                __t10_1_1x2 = (__t10_1_1x2
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 2usize)));
                                __t10_1_1x3 = (__t10_1_1x3
                                    + ((*__e18_1)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 3usize)));
                            }
                        }
                    }
                    let __v = [__t10_1_0x0, __t10_1_0x1, __t10_1_0x2, __t10_1_0x3];
                    ::fsmooth::__rt::st_row(
                        out,
                        ((__tr9_0).wrapping_mul(m)).wrapping_add(__tc10_1),
                        __v,
                    );
                    let __v = [__t10_1_1x0, __t10_1_1x1, __t10_1_1x2, __t10_1_1x3];
                    ::fsmooth::__rt::st_row(
                        out,
                        ((__tr9_1).wrapping_mul(m)).wrapping_add(__tc10_1),
                        __v,
                    );
                }
                let __nt10_2: usize = (m)
                    .wrapping_sub(
                        ((__nt10_0).wrapping_mul(16usize))
                            .wrapping_add((__nt10_1).wrapping_mul(4usize)),
                    );
                for __tq10_2 in 0..__nt10_2 {
                    let __tc10_2: usize = (((__nt10_0).wrapping_mul(16usize))
                        .wrapping_add((__nt10_1).wrapping_mul(4usize)))
                        .wrapping_add(__tq10_2);
                    let mut __t10_2_0x0 = (-0f64);
                    let mut __t10_2_1x0 = (-0f64);
                    if let (
                        ::core::option::Option::Some(__e18_0),
                        ::core::option::Option::Some(__e18_1),
                    ) = (
                        a
                            .get(
                                (__tr9_0)
                                    .wrapping_mul(
                                        k,
                                    )..((__tr9_0).wrapping_mul(k)).wrapping_add(k),
                            ),
                        a
                            .get(
                                (__tr9_1)
                                    .wrapping_mul(
                                        k,
                                    )..((__tr9_1).wrapping_mul(k)).wrapping_add(k),
                            ),
                    ) {
                        for ((i_18, __e18_0), __e18_1) in (0..k)
                            .zip(__e18_0.iter())
                            .zip(__e18_1.iter())
                        {
                            __t10_2_0x0 = (__t10_2_0x0
                                + ((*__e18_0)
                                    * ::fsmooth::__rt::ldr::<
                                        1usize,
                                    >(
                                        b,
                                        ((i_18).wrapping_mul(m)).wrapping_add(__tc10_2),
                                        0usize,
                                    )));
                            __t10_2_1x0 = (__t10_2_1x0
                                + ((*__e18_1)
                                    * ::fsmooth::__rt::ldr::<
                                        1usize,
                                    >(
                                        b,
                                        ((i_18).wrapping_mul(m)).wrapping_add(__tc10_2),
                                        0usize,
                                    )));
                        }
                    }
                    let __v = __t10_2_0x0;
                    ::fsmooth::__rt::st(
                        out,
                        ((__tr9_0).wrapping_mul(m)).wrapping_add(__tc10_2),
                        __v,
                    );
                    let __v = __t10_2_1x0;
                    ::fsmooth::__rt::st(
                        out,
                        ((__tr9_1).wrapping_mul(m)).wrapping_add(__tc10_2),
                        __v,
                    );
                }
            }
            for __lr9 in 0..(n).wrapping_sub((__nr9).wrapping_mul(2usize)) {
                let i_9: usize = ((__nr9).wrapping_mul(2usize)).wrapping_add(__lr9);
                let __nt10_0: usize = (m / 16usize);
                for __tq10_0 in 0..__nt10_0 {
                    let __tc10_0: usize = (__tq10_0).wrapping_mul(16usize);
                    let mut __t10_0_0 = (-0f64);
                    let mut __t10_0_1 = (-0f64);
                    let mut __t10_0_2 = (-0f64);
                    let mut __t10_0_3 = (-0f64);
                    let mut __t10_0_4 = (-0f64);
                    let mut __t10_0_5 = (-0f64);
                    let mut __t10_0_6 = (-0f64);
                    let mut __t10_0_7 = (-0f64);
                    let mut __t10_0_8 = (-0f64);
                    let mut __t10_0_9 = (-0f64);
                    let mut __t10_0_10 = (-0f64);
                    let mut __t10_0_11 = (-0f64);
                    let mut __t10_0_12 = (-0f64);
                    let mut __t10_0_13 = (-0f64);
                    let mut __t10_0_14 = (-0f64);
                    let mut __t10_0_15 = (-0f64);
                    if let (
                        ::core::option::Option::Some(__e18_0),
                        ::core::option::Option::Some(__rb10_0_0),
                    ) = (
                        a
                            .get(
                                (i_9)
                                    .wrapping_mul(k)..((i_9).wrapping_mul(k)).wrapping_add(k),
                            ),
                        b.get(0usize..),
                    ) {
                        for (__e18_0, __rb10_0_0) in (__e18_0.iter())
                            .zip(::fsmooth::__rt::rows(__rb10_0_0, m))
                        {
                            if let ::core::option::Option::Some(__sg10_0_0) = __rb10_0_0
                                .get(__tc10_0..(__tc10_0).wrapping_add(16usize))
                            {
                                __t10_0_0 = (__t10_0_0
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 0usize)));
                                __t10_0_1 = (__t10_0_1
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 1usize)));
                                __t10_0_2 = (__t10_0_2
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 2usize)));
                                __t10_0_3 = (__t10_0_3
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 3usize)));
                                __t10_0_4 = (__t10_0_4
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 4usize)));
                                __t10_0_5 = (__t10_0_5
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 5usize)));
                                __t10_0_6 = (__t10_0_6
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 6usize)));
                                __t10_0_7 = (__t10_0_7
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 7usize)));
                                __t10_0_8 = (__t10_0_8
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 8usize)));
                                __t10_0_9 = (__t10_0_9
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 9usize)));
                                __t10_0_10 = (__t10_0_10
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 10usize)));
                                __t10_0_11 = (__t10_0_11
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 11usize)));
                                __t10_0_12 = (__t10_0_12
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 12usize)));
                                __t10_0_13 = (__t10_0_13
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 13usize)));
                                __t10_0_14 = (__t10_0_14
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 14usize)));
                                __t10_0_15 = (__t10_0_15
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            16usize,
                                        >(__sg10_0_0, 0usize, 15usize)));
                            }
                        }
                    }
                    let __v = [
                        __t10_0_0,
                        __t10_0_1,
                        __t10_0_2,
                        __t10_0_3,
                        __t10_0_4,
                        __t10_0_5,
                        __t10_0_6,
                        __t10_0_7,
                        __t10_0_8,
                        __t10_0_9,
                        __t10_0_10,
                        __t10_0_11,
                        __t10_0_12,
                        __t10_0_13,
                        __t10_0_14,
                        __t10_0_15,
                    ];
                    ::fsmooth::__rt::st_row(
                        out,
                        ((i_9).wrapping_mul(m)).wrapping_add(__tc10_0),
                        __v,
                    );
                }
                let __nt10_1: usize = ((m).wrapping_sub((__nt10_0).wrapping_mul(16usize))
                    / 4usize);
                for __tq10_1 in 0..__nt10_1 {
                    let __tc10_1: usize = ((__nt10_0).wrapping_mul(16usize))
                        .wrapping_add((__tq10_1).wrapping_mul(4usize));
                    let mut __t10_1_0 = (-0f64);
                    let mut __t10_1_1 = (-0f64);
                    let mut __t10_1_2 = (-0f64);
                    let mut __t10_1_3 = (-0f64);
                    if let (
                        ::core::option::Option::Some(__e18_0),
                        ::core::option::Option::Some(__rb10_1_0),
                    ) = (
                        a
                            .get(
                                (i_9)
                                    .wrapping_mul(k)..((i_9).wrapping_mul(k)).wrapping_add(k),
                            ),
                        b.get(0usize..),
                    ) {
                        for (__e18_0, __rb10_1_0) in (__e18_0.iter())
                            .zip(::fsmooth::__rt::rows(__rb10_1_0, m))
                        {
                            if let ::core::option::Option::Some(__sg10_1_0) = __rb10_1_0
                                .get(__tc10_1..(__tc10_1).wrapping_add(4usize))
                            {
                                __t10_1_0 = (__t10_1_0
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 0usize)));
                                __t10_1_1 = (__t10_1_1
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 1usize)));
                                __t10_1_2 = (__t10_1_2
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 2usize)));
                                __t10_1_3 = (__t10_1_3
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            4usize,
                                        >(__sg10_1_0, 0usize, 3usize)));
                            }
                        }
                    }
                    let __v = [__t10_1_0, __t10_1_1, __t10_1_2, __t10_1_3];
                    ::fsmooth::__rt::st_row(
                        out,
                        ((i_9).wrapping_mul(m)).wrapping_add(__tc10_1),
                        __v,
                    );
                }
                let __nt10_2: usize = (m)
                    .wrapping_sub(
                        ((__nt10_0).wrapping_mul(16usize))
                            .wrapping_add((__nt10_1).wrapping_mul(4usize)),
                    );
                for __tq10_2 in 0..__nt10_2 {
                    let __tc10_2: usize = (((__nt10_0).wrapping_mul(16usize))
                        .wrapping_add((__nt10_1).wrapping_mul(4usize)))
                        .wrapping_add(__tq10_2);
                    let mut __t10_2_0 = (-0f64);
                    if let (::core::option::Option::Some(__e18_0),) = (
                        a
                            .get(
                                (i_9)
                                    .wrapping_mul(k)..((i_9).wrapping_mul(k)).wrapping_add(k),
                            ),
                    ) {
                        for (i_18, __e18_0) in (0..k).zip(__e18_0.iter()) {
                            __t10_2_0 = (__t10_2_0
                                + ((*__e18_0)
                                    * ::fsmooth::__rt::ldr::<
                                        1usize,
                                    >(
                                        b,
                                        ((i_18).wrapping_mul(m)).wrapping_add(__tc10_2),
                                        0usize,
                                    )));
                        }
                    }
                    let __v = __t10_2_0;
                    ::fsmooth::__rt::st(
                        out,
                        ((i_9).wrapping_mul(m)).wrapping_add(__tc10_2),
                        __v,
                    );
                }
            }
        } else {
            if let (::core::option::Option::Some(__ri_9_0),) = (a.get(0usize..),) {
                for (i_9, __ri_9_0) in (0..n).zip(::fsmooth::__rt::rows(__ri_9_0, k)) {
                    let __nt10_0: usize = (m / 16usize);
                    for __tq10_0 in 0..__nt10_0 {
                        let __tc10_0: usize = (__tq10_0).wrapping_mul(16usize);
                        let mut __t10_0_0 = (-0f64);
                        let mut __t10_0_1 = (-0f64);
                        let mut __t10_0_2 = (-0f64);
                        let mut __t10_0_3 = (-0f64);
                        let mut __t10_0_4 = (-0f64);
                        let mut __t10_0_5 = (-0f64);
                        let mut __t10_0_6 = (-0f64);
                        let mut __t10_0_7 = (-0f64);
                        let mut __t10_0_8 = (-0f64);
                        let mut __t10_0_9 = (-0f64);
                        let mut __t10_0_10 = (-0f64);
                        let mut __t10_0_11 = (-0f64);
                        let mut __t10_0_12 = (-0f64);
                        let mut __t10_0_13 = (-0f64);
                        let mut __t10_0_14 = (-0f64);
                        let mut __t10_0_15 = (-0f64);
                        if let (
                            ::core::option::Option::Some(__e18_0),
                            ::core::option::Option::Some(__rb10_0_0),
                        ) = (__ri_9_0.get(0usize..k), b.get(0usize..)) {
                            for (__e18_0, __rb10_0_0) in (__e18_0.iter())
                                .zip(::fsmooth::__rt::rows(__rb10_0_0, m))
                            {
                                if let ::core::option::Option::Some(__sg10_0_0) = __rb10_0_0
                                    .get(__tc10_0..(__tc10_0).wrapping_add(16usize))
                                {
                                    __t10_0_0 = (__t10_0_0
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 0usize)));
                                    __t10_0_1 = (__t10_0_1
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 1usize)));
                                    __t10_0_2 = (__t10_0_2
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 2usize)));
                                    __t10_0_3 = (__t10_0_3
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 3usize)));
                                    __t10_0_4 = (__t10_0_4
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 4usize)));
                                    __t10_0_5 = (__t10_0_5
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 5usize)));
                                    __t10_0_6 = (__t10_0_6
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 6usize)));
                                    __t10_0_7 = (__t10_0_7
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 7usize)));
                                    __t10_0_8 = (__t10_0_8
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 8usize)));
                                    __t10_0_9 = (__t10_0_9
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 9usize)));
                                    __t10_0_10 = (__t10_0_10
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 10usize)));
                                    __t10_0_11 = (__t10_0_11
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 11usize)));
                                    __t10_0_12 = (__t10_0_12
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 12usize)));
                                    __t10_0_13 = (__t10_0_13
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 13usize)));
                                    __t10_0_14 = (__t10_0_14
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 14usize)));
                                    __t10_0_15 = (__t10_0_15
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                16usize,
                                            >(__sg10_0_0, 0usize, 15usize)));
                                }
                            }
                        }
                        let __v = [
                            __t10_0_0,
                            __t10_0_1,
                            __t10_0_2,
                            __t10_0_3,
                            __t10_0_4,
                            __t10_0_5,
                            __t10_0_6,
                            __t10_0_7,
                            __t10_0_8,
                            __t10_0_9,
                            __t10_0_10,
                            __t10_0_11,
                            __t10_0_12,
                            __t10_0_13,
                            __t10_0_14,
                            __t10_0_15,
                        ];
                        ::fsmooth::__rt::st_row(
                            out,
                            ((i_9).wrapping_mul(m)).wrapping_add(__tc10_0),
                            __v,
                        );
                    }
                    let __nt10_1: usize = ((m)
                        .wrapping_sub((__nt10_0).wrapping_mul(16usize)) / 4usize);
                    for __tq10_1 in 0..__nt10_1 {
                        let __tc10_1: usize = ((__nt10_0).wrapping_mul(16usize))
                            .wrapping_add((__tq10_1).wrapping_mul(4usize));
                        let mut __t10_1_0 = (-0f64);
                        let mut __t10_1_1 = (-0f64);
                        let mut __t10_1_2 = (-0f64);
                        let mut __t10_1_3 = (-0f64);
                        if let (
                            ::core::option::Option::Some(__e18_0),
                            ::core::option::Option::Some(__rb10_1_0),
                        ) = (__ri_9_0.get(0usize..k), b.get(0usize..)) {
                            for (__e18_0, __rb10_1_0) in (__e18_0.iter())
                                .zip(::fsmooth::__rt::rows(__rb10_1_0, m))
                            {
                                if let ::core::option::Option::Some(__sg10_1_0) = __rb10_1_0
                                    .get(__tc10_1..(__tc10_1).wrapping_add(4usize))
                                {
                                    __t10_1_0 = (__t10_1_0
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                4usize,
                                            >(__sg10_1_0, 0usize, 0usize)));
                                    __t10_1_1 = (__t10_1_1
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                4usize,
                                            >(__sg10_1_0, 0usize, 1usize)));
                                    __t10_1_2 = (__t10_1_2
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                4usize,
                                            >(__sg10_1_0, 0usize, 2usize)));
                                    __t10_1_3 = (__t10_1_3
                                        + ((*__e18_0)
                                            * ::fsmooth::__rt::ldr::<
                                                4usize,
                                            >(__sg10_1_0, 0usize, 3usize)));
                                }
                            }
                        }
                        let __v = [__t10_1_0, __t10_1_1, __t10_1_2, __t10_1_3];
                        ::fsmooth::__rt::st_row(
                            out,
                            ((i_9).wrapping_mul(m)).wrapping_add(__tc10_1),
                            __v,
                        );
                    }
                    let __nt10_2: usize = (m)
                        .wrapping_sub(
                            ((__nt10_0).wrapping_mul(16usize))
                                .wrapping_add((__nt10_1).wrapping_mul(4usize)),
                        );
                    for __tq10_2 in 0..__nt10_2 {
                        let __tc10_2: usize = (((__nt10_0).wrapping_mul(16usize))
                            .wrapping_add((__nt10_1).wrapping_mul(4usize)))
                            .wrapping_add(__tq10_2);
                        let mut __t10_2_0 = (-0f64);
                        if let (::core::option::Option::Some(__e18_0),) = (
                            __ri_9_0.get(0usize..k),
                        ) {
                            for (i_18, __e18_0) in (0..k).zip(__e18_0.iter()) {
                                __t10_2_0 = (__t10_2_0
                                    + ((*__e18_0)
                                        * ::fsmooth::__rt::ldr::<
                                            1usize,
                                        >(
                                            b,
                                            ((i_18).wrapping_mul(m)).wrapping_add(__tc10_2),
                                            0usize,
                                        )));
                            }
                        }
                        let __v = __t10_2_0;
                        ::fsmooth::__rt::st(
                            out,
                            ((i_9).wrapping_mul(m)).wrapping_add(__tc10_2),
                            __v,
                        );
                    }
                }
            }
        }
        ::core::result::Result::Ok(())
    }
    __fsmooth_body(out, a, b, k, region)
}
///Sizes of kernel `matmul2`.
#[allow(non_snake_case)]
pub mod matmul2 {
    ///f64 scratch slots a call of `matmul2` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(k: usize, n: usize, m: usize) -> usize {
        0usize
    }
    ///Length of `matmul2`'s `out`.
    #[allow(unused)]
    pub const fn out_len(k: usize, n: usize, m: usize) -> usize {
        usize::saturating_mul(n, m)
    }
}
