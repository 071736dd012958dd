::core::compile_error! {
    "mismatched shapes: argument `b` of `add` expects `[f64; 3]`, found `[f64; 4]`\n  note: in this call `n` = 3 from `a`"
}
#[allow(unused, clippy::all)]
pub fn bad(
    out: &mut [f64],
    a: &[f64],
    b: &[f64],
    region: &mut ::fsmooth::Region<'_>,
) -> ::core::result::Result<(), ::fsmooth::Error> {
    ::core::unimplemented!()
}
#[allow(unused, non_snake_case, missing_docs)]
pub mod bad {
    pub const SCRATCH_LEN: usize = 0;
    pub const OUT_LEN: usize = 0;
}
