/// The kernel `add3`, compiled by `fsmooth!`.
///
/// # Generated signature
///
/// ```text
/// pub fn add3(out: &mut [f64], a: &[f64], b: &[f64], c: &[f64], region: &mut Region<'_>) -> Result<(), Error>
/// ```
///
/// - `out`: the result `[f64; n]`, `add3::out_len(n)` elements
/// - `a`: `[f64; n]`
/// - `b`: `[f64; n]`
/// - `c`: `[f64; n]`
/// - `region`: scratch for the intermediate arrays, `add3::scratch_len(n)` slots (`fsmooth::Region`)
///
/// Returns `Ok(())`, or `Err(fsmooth::Error)` for an argument of the wrong length or a bad index.
#[allow(unused, clippy::all)]
#[inline]
pub fn add3(
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
