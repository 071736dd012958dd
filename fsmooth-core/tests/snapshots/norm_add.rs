/// The kernel `norm_add`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn norm_add(a: &(impl RowMajor<f64> + ?Sized), b: &(impl RowMajor<f64> + ?Sized), region: &mut Region<'_>) -> Result<f64, Error>
/// ```
///
/// - `a`: `[f64; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `b`: `[f64; n]`, from any contiguous row-major container of `f64` (`&[f64]`, `&[f64; N]`, `&Vec<f64>`, .., `fsmooth::RowMajor`)
/// - `region`: scratch for the intermediate arrays, `norm_add::scratch_len(n)` slots (`fsmooth::Region`)
///
/// Returns `Ok` with the `f64` result, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index.
#[allow(unused, clippy::all)]
#[inline(always)]
pub fn norm_add(
    a: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    b: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    region: &mut ::fsmooth::Region<'_>,
) -> ::core::result::Result<f64, ::fsmooth::Error> {
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
        a: &[f64],
        b: &[f64],
        region: &mut ::fsmooth::Region<'_>,
    ) -> ::core::result::Result<f64, ::fsmooth::Error> {
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
        let _ = region;
        ::core::result::Result::Ok(
            ::fsmooth::__rt::sqrt({
                let mut acc_13 = (-0f64);
                for i_14 in 0..n {
                    acc_13 = {
                        let v_elem_15 = (::fsmooth::__rt::ld(a, i_14)
                            + ::fsmooth::__rt::ld(b, i_14));
                        (acc_13 + (v_elem_15 * v_elem_15))
                    };
                }
                acc_13
            }),
        )
    }
    __fsmooth_body(a, b, region)
}
///Sizes of kernel `norm_add`.
#[allow(non_snake_case)]
pub mod norm_add {
    ///f64 scratch slots a call of `norm_add` needs (a `Region::from_slab` of this length suffices).
    #[allow(unused)]
    pub const fn scratch_len(n: usize) -> usize {
        0usize
    }
}
