//! `emit`: a kernel's Rust function and its `mod` (LANGUAGE.md section 5), and the stubs
//! that keep a broken block's signatures.
//!
//! The function's body is the planned loop IR ([`crate::pipeline::lower`]: size names read from
//! the argument lengths, every length checked and the frame taken before anything is
//! written, then the DPS-translated body), printed one node to one piece of Rust.

use crate::front::ast::{Options, Storage};
use crate::front::check::Scope;
use crate::front::diag::Diags;
use crate::front::size::{Size, const_size};
use crate::lower::Planned;
use crate::middle::ir::{Kernel, Type};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

fn rust_ty(t: &Type) -> TokenStream {
    match t {
        Type::F64 => quote!(f64),
        Type::Usize => quote!(usize),
        Type::Bool => quote!(bool),
        Type::Arr(_) => quote!(&[f64]),
    }
}

/// The kernel's Rust signature pieces: parameters (with `out` and `region`) and result type.
pub fn signature(k: &Kernel) -> (TokenStream, TokenStream) {
    let mut ps = Vec::new();
    if k.ret.is_arr() {
        ps.push(quote!(out: &mut [f64]));
    }
    for p in &k.params {
        let id = crate::front::ast::ident(&p.name.text, p.name.span);
        let t = rust_ty(&p.ty);
        ps.push(quote!(#id: #t));
    }
    ps.push(quote!(region: &mut ::fsmooth::Region<'_>));
    let r = if k.ret.is_arr() {
        quote!(())
    } else {
        rust_ty(&k.ret)
    };
    (
        quote!(#(#ps),*),
        quote!(::core::result::Result<#r, ::fsmooth::Error>),
    )
}

/// The generated function and module for one kernel.
pub fn kernel(k: &Kernel, planned: Planned, options: Options) -> TokenStream {
    let storage = options.storage;
    let Planned { func, peaks, .. } = planned;
    // A heap frame is not taken from the region: the region needs no room.
    let peaks = if storage == Storage::Region {
        peaks
    } else {
        Vec::new()
    };
    let name = crate::front::ast::ident(&k.name.text, k.name.span);
    let attrs = &k.attrs;
    let (params, ret) = signature(k);
    let m = module(k, &peaks);
    quote! {
        #(#attrs)*
        #[allow(unused, clippy::all)]
        #[inline]
        pub fn #name(#params) -> #ret {
            #func
        }
        #m
    }
}

/// `mod k` with `scratch_len`/`out_len` (or `SCRATCH_LEN`/`OUT_LEN` without size names).
pub fn module(k: &Kernel, peaks: &[Size]) -> TokenStream {
    let name = crate::front::ast::ident(&k.name.text, k.name.span);
    let scratch = peaks
        .iter()
        .map(const_size)
        .reduce(|a, b| quote!(::fsmooth::__rt::max(#a, #b)))
        .unwrap_or(quote!(0usize));
    let out = k.ret.is_arr().then(|| const_size(&k.ret.slots()));
    let doc_s = format!(
        "f64 scratch slots a call of `{}` needs (a `Region::from_slab` of this length suffices).",
        k.name.text
    );
    let doc_o = format!("Length of `{}`'s `out`.", k.name.text);
    let doc_m = format!("Sizes of kernel `{}`.", k.name.text);
    let items = if k.sizes.is_empty() {
        let out = out.map(|o| quote!(#[doc = #doc_o] pub const OUT_LEN: usize = #o;));
        quote! {
            #[doc = #doc_s]
            pub const SCRATCH_LEN: usize = #scratch;
            #out
        }
    } else {
        let args: Vec<Ident> = k
            .sizes
            .iter()
            .map(|s| crate::front::ast::ident(s, Span::call_site()))
            .collect();
        let out = out.map(|o| quote!(#[doc = #doc_o] #[allow(unused)] pub const fn out_len(#(#args: usize),*) -> usize { #o }));
        quote! {
            #[doc = #doc_s]
            #[allow(unused)]
            pub const fn scratch_len(#(#args: usize),*) -> usize { #scratch }
            #out
        }
    };
    quote! {
        #[doc = #doc_m]
        #[allow(non_snake_case)]
        pub mod #name {
            #items
        }
    }
}

/// A block with errors: the errors, and each public kernel's signature with a body that is
/// never reached, so that the user's calls resolve and only the real errors are shown.
pub fn errors(diags: &Diags, scope: &Scope) -> TokenStream {
    let mut out = diags.to_compile_errors();
    let mut seen: Vec<&str> = Vec::new();
    for f in scope.fns[..scope.user].iter().filter(|f| f.public) {
        if seen.contains(&f.name.text.as_str()) {
            continue; // a duplicate is reported already; a second stub would add E0428
        }
        seen.push(&f.name.text);
        if let Some(s) = stub(f) {
            out.extend(s);
        }
    }
    out
}

/// A kernel's signature with a body that only reports failure, emitted after an error so the
/// user's calls still resolve and only the real error is shown.
pub fn stub(k: &crate::front::ast::FnDef) -> Option<TokenStream> {
    use crate::front::ast::Ty;
    fn t(ty: &Ty) -> Option<TokenStream> {
        match ty {
            Ty::F64(_) => Some(quote!(f64)),
            Ty::Usize(_) => Some(quote!(usize)),
            Ty::Bool(_) => Some(quote!(bool)),
            Ty::Array(..) => Some(quote!(&[f64])),
            Ty::Fn(..) => None,
        }
    }
    let mut ps = Vec::new();
    let arr = matches!(k.ret, Ty::Array(..));
    if arr {
        ps.push(quote!(out: &mut [f64]));
    }
    for p in &k.params {
        let id = crate::front::ast::ident(&p.name.text, p.name.span);
        let ty = t(&p.ty)?;
        ps.push(quote!(#id: #ty));
    }
    ps.push(quote!(region: &mut ::fsmooth::Region<'_>));
    let r = if arr { quote!(()) } else { t(&k.ret)? };
    let name = crate::front::ast::ident(&k.name.text, k.name.span);
    let mut sizes = Vec::new();
    for p in &k.params {
        if let Ty::Usize(_) = p.ty
            && !sizes.contains(&p.name.text)
        {
            sizes.push(p.name.text.clone());
        }
        collect(&p.ty, &mut sizes);
    }
    fn collect(t: &Ty, out: &mut Vec<String>) {
        if let Ty::Array(e, n, _) = t {
            collect(e, out);
            let mut v = Vec::new();
            n.names(&mut v);
            for x in v {
                if !out.contains(&x.text) {
                    out.push(x.text.clone());
                }
            }
        }
    }
    let args: Vec<Ident> = sizes
        .iter()
        .map(|s| crate::front::ast::ident(s, Span::call_site()))
        .collect();
    let items = if args.is_empty() {
        quote!(
            pub const SCRATCH_LEN: usize = 0;
            pub const OUT_LEN: usize = 0;
        )
    } else {
        quote!(pub const fn scratch_len(#(#args: usize),*) -> usize { 0 } pub const fn out_len(#(#args: usize),*) -> usize { 0 })
    };
    Some(quote! {
        #[allow(unused, clippy::all)]
        pub fn #name(#(#ps),*) -> ::core::result::Result<#r, ::fsmooth::Error> {
            ::core::unimplemented!()
        }
        #[allow(unused, non_snake_case, missing_docs)]
        pub mod #name { #items }
    })
}

#[cfg(test)]
mod tests {
    fn expand(src: &str) -> String {
        crate::expand(src.parse().unwrap()).to_string()
    }

    #[test]
    fn signatures_follow_the_contract() {
        let out = expand(
            "pub fn k(a: [[f64; m]; n], s: f64, m: usize) -> [f64; n] { build(n, |i| a[i][0] * s) }",
        );
        assert!(
            out.contains("pub fn k (out : & mut [f64] , a : & [f64] , s : f64 , m : usize , region : & mut :: fsmooth :: Region < '_ >) -> :: core :: result :: Result < () , :: fsmooth :: Error >"),
            "{out}"
        );
        assert!(
            out.contains("pub const fn scratch_len (m : usize , n : usize)"),
            "{out}"
        );
        assert!(
            out.contains("pub const fn out_len (m : usize , n : usize)"),
            "{out}"
        );
        let out = expand("pub fn k(a: [f64; 3]) -> f64 { sum(a) }");
        assert!(
            out.contains("-> :: core :: result :: Result < f64 , :: fsmooth :: Error >"),
            "{out}"
        );
        assert!(
            out.contains("pub const SCRATCH_LEN : usize = 0usize"),
            "{out}"
        );
        assert!(!out.contains("OUT_LEN"), "{out}");
    }

    #[test]
    fn constant_frames_are_fixed_size_arrays() {
        let out = expand(
            "pub fn k(a: [f64; 12], b: [f64; 12]) -> f64 { let t = add(a, b); t[0] * t[1] + t[2] * t[0] }",
        );
        assert!(out.contains("let scratch : & mut [f64 ; 12usize]"), "{out}");
    }

    #[test]
    fn every_length_is_checked_before_the_frame_is_taken() {
        let out = expand(
            "pub fn k(a: [f64; n], b: [f64; n]) -> [f64; n] { let t = add(a, b); build(n, |i| t[i] + t[n - 1 - i]) }",
        );
        let frame = out.find("region . frame").unwrap();
        for what in ["arg : \"a\"", "arg : \"b\"", "arg : \"out\""] {
            assert!(out.find(what).unwrap() < frame, "{what}: {out}");
        }
    }
}
