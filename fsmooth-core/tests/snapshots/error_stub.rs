::core::compile_error! {
    "mismatched shapes: argument `b` of `add` expects `[f64; 3]`, found `[f64; 4]`\n  note: `add` takes `b: [f64; n]`, and in this call `n` is `3`, fixed by argument `a`"
}
#[allow(unused, clippy::all)]
pub fn bad(
    out: &mut (impl ::fsmooth::RowMajorMut<f64> + ?Sized),
    a: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    b: &(impl ::fsmooth::RowMajor<f64> + ?Sized),
    region: &mut ::fsmooth::Region<'_>,
) -> ::core::result::Result<(), ::fsmooth::Error> {
    ::core::unimplemented!()
}
#[allow(unused, non_snake_case, missing_docs)]
pub mod bad {
    pub const SCRATCH_LEN: usize = 0;
    pub const OUT_LEN: usize = 0;
}
