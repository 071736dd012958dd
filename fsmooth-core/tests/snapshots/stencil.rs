#[allow(unused, clippy::all)]
#[inline]
pub fn stencil(
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
            for (i_3, __slot) in (0..n).zip(__d.iter_mut()) {
                *__slot = (::fsmooth::__rt::ld(a, i_3) * 0.5f64);
            }
        }
        if let Some(__d) = out.get_mut(..__z0) {
            for (i_5, __slot) in (0..__z0).zip(__d.iter_mut()) {
                *__slot = ((::fsmooth::__rt::ld(scratch, i_5)
                    + ::fsmooth::__rt::ld(scratch, (i_5).wrapping_add(1usize)))
                    + ::fsmooth::__rt::ld(scratch, (i_5).wrapping_add(2usize)));
            }
        }
    }
    ::core::result::Result::Ok(())
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
