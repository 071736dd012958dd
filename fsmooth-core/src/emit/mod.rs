//! `emit`: a kernel's Rust function and its `mod` (LANGUAGE.md section 5), and the stubs
//! that keep a broken block's signatures.
//!
//! The function's body is the planned loop IR ([`crate::pipeline::lower`]: size names read from
//! the argument lengths, every length checked and the frame taken before anything is
//! written, then the DPS-translated body), printed one node to one piece of Rust.
//! [`lints`] has rustc report the block's unused names.

pub mod lints;
pub mod remarks;

mod docs;
pub mod export;

use docs::signature_doc;

use crate::front::ast::{Options, Storage};
use crate::front::check::Scope;
use crate::front::diag::Diags;
use crate::front::size::const_size;
use crate::lower::Planned;
use crate::lower::storage::Peaks;
use crate::middle::ir::{Kernel, Type};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};

fn rust_ty(t: &Type) -> TokenStream {
    match t {
        Type::F64 => quote!(f64),
        Type::F32 => quote!(f32),
        Type::Usize => quote!(usize),
        Type::Bool => quote!(bool),
        Type::Arr(elem, _) => {
            let e = format_ident!("{}", elem.name());
            quote!(&[#e])
        }
        Type::Tuple(ts) => {
            let ts = ts.iter().map(rust_ty);
            quote!((#(#ts),*))
        }
    }
}

/// A kernel's results: its array results, each with the name of its destination (`out`
/// for an array kernel, `outI` by tuple position for several results), and its scalar
/// results, which the function returns (LANGUAGE.md section 8).
pub struct Results<'k> {
    /// `(destination, type)` of each array result, in position order.
    pub arrays: Vec<(String, &'k Type)>,
    /// `(position, type)` of each scalar result, in position order.
    pub scalars: Vec<(usize, &'k Type)>,
}

/// The results of a kernel returning `ret`.
pub fn results(ret: &Type) -> Results<'_> {
    let mut r = Results {
        arrays: Vec::new(),
        scalars: Vec::new(),
    };
    match ret {
        Type::Tuple(ts) => {
            for (k, t) in ts.iter().enumerate() {
                if t.is_arr() {
                    r.arrays.push((format!("out{k}"), t));
                } else {
                    r.scalars.push((k, t));
                }
            }
        }
        t if t.is_arr() => r.arrays.push(("out".into(), t)),
        t => r.scalars.push((0, t)),
    }
    r
}

/// The Rust type a kernel returns in its `Ok`: `()`, one scalar, or a tuple of scalars.
fn returned(scalars: &[(usize, &Type)]) -> TokenStream {
    match scalars {
        [] => quote!(()),
        [(_, t)] => rust_ty(t),
        more => {
            let ts = more.iter().map(|(_, t)| rust_ty(t));
            quote!((#(#ts),*))
        }
    }
}

/// The Rust type of an array parameter of element type `elem`: any contiguous row-major run
/// of it, by reference (LANGUAGE.md section 17).
fn input_ty(elem: &Ident) -> TokenStream {
    quote!(&(impl ::fsmooth::RowMajor<#elem> + ?Sized))
}

/// The Rust type of an output of element type `elem`: any mutable contiguous row-major run
/// of it.
fn output_ty(elem: &Ident) -> TokenStream {
    quote!(&mut (impl ::fsmooth::RowMajorMut<#elem> + ?Sized))
}

/// The statements that start the kernel's body: each output, then each array parameter,
/// rebound as a flat slice of its element type (`as_flattened`, no copy), or
/// `Error::Layout` naming it when it is not one contiguous row-major run (an ndarray view in
/// another layout). They run before the sizes are read and anything is written.
fn flatten(k: &Kernel) -> TokenStream {
    let res = results(&k.ret);
    let mut sts = Vec::new();
    for (name, t) in &res.arrays {
        let id = crate::front::ast::ident(name, Span::call_site());
        let elem = format_ident!("{}", t.scalar().map_or("f64", |s| s.name()));
        sts.push(quote! {
            let #id: &mut [#elem] = match ::fsmooth::RowMajorMut::<#elem>::row_major_mut(#id) {
                ::core::option::Option::Some(s) => s,
                ::core::option::Option::None => {
                    return ::core::result::Result::Err(::fsmooth::Error::Layout { arg: #name });
                }
            };
        });
    }
    for p in &k.params {
        if let Type::Arr(elem, _) = &p.ty {
            let id = crate::front::ast::ident(&p.name.text, p.name.span);
            let elem = format_ident!("{}", elem.name());
            let name = &p.name.text;
            sts.push(quote! {
                let #id: &[#elem] = match ::fsmooth::RowMajor::<#elem>::row_major(#id) {
                    ::core::option::Option::Some(s) => s,
                    ::core::option::Option::None => {
                        return ::core::result::Result::Err(::fsmooth::Error::Layout { arg: #name });
                    }
                };
            });
        }
    }
    quote!(#(#sts)*)
}

/// The kernel's Rust signature pieces: parameters (with the destinations and `region`) and
/// result type.
pub fn signature(k: &Kernel) -> (TokenStream, TokenStream) {
    let res = results(&k.ret);
    let mut ps = Vec::new();
    for (name, t) in &res.arrays {
        let id = crate::front::ast::ident(name, Span::call_site());
        let elem = format_ident!("{}", t.scalar().map_or("f64", |s| s.name()));
        let t = output_ty(&elem);
        ps.push(quote!(#id: #t));
    }
    for p in &k.params {
        let id = crate::front::ast::ident(&p.name.text, p.name.span);
        let t = match &p.ty {
            Type::Arr(elem, _) => input_ty(&format_ident!("{}", elem.name())),
            t => rust_ty(t),
        };
        ps.push(quote!(#id: #t));
    }
    ps.push(quote!(region: &mut ::fsmooth::Region<'_>));
    let r = returned(&res.scalars);
    (
        quote!(#(#ps),*),
        quote!(::core::result::Result<#r, ::fsmooth::Error>),
    )
}

/// The generated function and module for one kernel.
pub fn kernel(k: &Kernel, planned: Planned, options: Options) -> TokenStream {
    let storage = options.storage;
    let (remarks, uses) = match options.remarks {
        true => remarks::tokens(k, &remarks::remarks(k, &planned, options)),
        false => (TokenStream::new(), TokenStream::new()),
    };
    let Planned { func, peaks, .. } = planned;
    // A heap frame is not taken from the region: the region needs no room.
    let peaks = if storage == Storage::Region {
        peaks
    } else {
        Peaks::default()
    };
    let name = crate::front::ast::ident(&k.name.text, k.name.span);
    let attrs = lints::kernel_attrs(&k.attrs);
    let (params, ret) = signature(k);
    let m = module_with(k, &peaks, remarks);
    let doc = signature_doc(k);
    // The header where the user wrote the kernel's name, so that rustc's "function defined
    // here" after a wrong call points at it (its own tokens keep their spans).
    let header = located_at(quote!(pub fn #name(#params) -> #ret), k.name.span);
    let flat = flatten(k);
    let (body_params, args) = body_signature(k);
    let body = Ident::new(BODY, Span::call_site());
    // The body is a function of flat slices, as a v2 kernel was: its slice parameters keep
    // rustc's `noalias` (an output never aliases an input), which a body reading slices
    // taken from a `&Vec<f64>` inside the generic function would not have (LLVM would reload
    // every input after each store). The generic function only flattens and calls it, and is
    // always inlined, so that the caller calls the body as it called a v2 kernel (ba_obs over
    // `&Vec`s: 2.6% more instructions when the generic function was only `#[inline]`).
    quote! {
        #(#attrs)*
        #doc
        #[allow(unused, clippy::all)]
        #[inline(always)]
        #header {
            #flat
            #[inline]
            fn #body(#body_params) -> #ret {
                #func
            }
            #body(#args)
        }
        #m
        #uses
    }
}

/// The name of the function of flat slices inside each kernel (its body).
const BODY: &str = "__fsmooth_body";

/// The body's parameters, a v2 kernel's (flat slices: `&mut [f64]`, `&[f64]`), and the
/// arguments the kernel passes it.
fn body_signature(k: &Kernel) -> (TokenStream, TokenStream) {
    let res = results(&k.ret);
    let mut ps = Vec::new();
    let mut args = Vec::new();
    for (name, t) in &res.arrays {
        let id = crate::front::ast::ident(name, Span::call_site());
        let elem = format_ident!("{}", t.scalar().map_or("f64", |s| s.name()));
        ps.push(quote!(#id: &mut [#elem]));
        args.push(id);
    }
    for p in &k.params {
        let id = crate::front::ast::ident(&p.name.text, p.name.span);
        let t = rust_ty(&p.ty);
        ps.push(quote!(#id: #t));
        args.push(id);
    }
    ps.push(quote!(region: &mut ::fsmooth::Region<'_>));
    args.push(Ident::new("region", Span::call_site()));
    (quote!(#(#ps),*), quote!(#(#args),*))
}

/// `tokens` with every generated token (those at the macro's call site) located at `at`,
/// keeping its name resolution.
fn located_at(tokens: TokenStream, at: Span) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    let here = format!("{:?}", Span::call_site());
    tokens
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => {
                let mut out = Group::new(g.delimiter(), located_at(g.stream(), at));
                out.set_span(g.span().located_at(at));
                TokenTree::Group(out)
            }
            mut t => {
                if format!("{:?}", t.span()) == here {
                    t.set_span(t.span().located_at(at));
                }
                t
            }
        })
        .collect()
}

/// `mod k` with `scratch_len`/`out_len` (or `SCRATCH_LEN`/`OUT_LEN` without size names).
pub fn module(k: &Kernel, peaks: &Peaks) -> TokenStream {
    module_with(k, peaks, TokenStream::new())
}

/// [`module`], with `extra` items in it (the remarks' deprecated functions).
fn module_with(k: &Kernel, peaks: &Peaks, extra: TokenStream) -> TokenStream {
    let name = crate::front::ast::ident(&k.name.text, k.name.span);
    let scratch = peaks.const_tokens();
    let res = results(&k.ret);
    let doc_s = if peaks.typed() {
        format!(
            "8-byte scratch slots a call of `{}` needs, for its f64, f32 and usize intermediates \
             (a `Region::from_slab` of this many f64 suffices).",
            k.name.text
        )
    } else {
        format!(
            "f64 scratch slots a call of `{}` needs (a `Region::from_slab` of this length suffices).",
            k.name.text
        )
    };
    let doc_m = format!("Sizes of kernel `{}`.", k.name.text);
    // `out_len`/`OUT_LEN` for `out`, `out1_len`/`OUT1_LEN` for `out1`.
    let outs = res.arrays.iter().map(|(dest, t)| {
        let len = const_size(&t.slots());
        let doc = format!("Length of `{}`'s `{dest}`.", k.name.text);
        if k.shape_sizes.is_empty() {
            let id = crate::front::ast::ident(&format!("{}_LEN", dest.to_uppercase()), Span::call_site());
            quote!(#[doc = #doc] pub const #id: usize = #len;)
        } else {
            let id = crate::front::ast::ident(&format!("{dest}_len"), Span::call_site());
            let args = k
                .shape_sizes
                .iter()
                .map(|s| crate::front::ast::ident(s, Span::call_site()));
            quote!(#[doc = #doc] #[allow(unused)] pub const fn #id(#(#args: usize),*) -> usize { #len })
        }
    });
    let outs: Vec<TokenStream> = outs.collect();
    let items = if k.shape_sizes.is_empty() {
        quote! {
            #[doc = #doc_s]
            pub const SCRATCH_LEN: usize = #scratch;
            #(#outs)*
        }
    } else {
        let args: Vec<Ident> = k
            .shape_sizes
            .iter()
            .map(|s| crate::front::ast::ident(s, Span::call_site()))
            .collect();
        quote! {
            #[doc = #doc_s]
            #[allow(unused)]
            pub const fn scratch_len(#(#args: usize),*) -> usize { #scratch }
            #(#outs)*
        }
    };
    quote! {
        #[doc = #doc_m]
        #[allow(non_snake_case)]
        pub mod #name {
            #items
            #extra
        }
    }
}

/// A block with errors: the errors, and each public kernel's signature with a body that is
/// never reached, so that the user's calls resolve and only the real errors are shown.
/// `checked`: the size names of `mod k`'s functions of each kernel that checked (a `usize`
/// parameter no shape depends on is not one, and only the body may tell).
pub fn errors(diags: &Diags, scope: &Scope, checked: &[(String, Vec<String>)]) -> TokenStream {
    let mut out = diags.to_compile_errors();
    let mut seen: Vec<&str> = Vec::new();
    for f in scope.fns[..scope.user].iter().filter(|f| f.public) {
        if seen.contains(&f.name.text.as_str()) {
            continue; // a duplicate is reported already; a second stub would add E0428
        }
        seen.push(&f.name.text);
        let sizes = checked
            .iter()
            .find(|(name, _)| *name == f.name.text)
            .map(|(_, sizes)| sizes.as_slice());
        if let Some(s) = stub(f, sizes) {
            out.extend(s);
        }
    }
    out
}

/// A kernel's signature with a body that only reports failure, emitted after an error so the
/// user's calls still resolve and only the real error is shown. `sizes`: the arguments of
/// `mod k`'s functions when the kernel checked; else every size name of its types and every
/// `usize` parameter (the kernel's error is the one to fix).
pub fn stub(k: &crate::front::ast::FnDef, sizes: Option<&[String]>) -> Option<TokenStream> {
    use crate::front::ast::Ty;
    fn t(ty: &Ty) -> Option<TokenStream> {
        match ty {
            Ty::F64(_) => Some(quote!(f64)),
            Ty::F32(_) => Some(quote!(f32)),
            Ty::Usize(_) => Some(quote!(usize)),
            Ty::Bool(_) => Some(quote!(bool)),
            Ty::Array(e, ..) => {
                let elem = t(innermost(e))?;
                Some(quote!(&(impl ::fsmooth::RowMajor<#elem> + ?Sized)))
            }
            Ty::Fn(..) | Ty::Tuple(..) | Ty::Elem(_) => None,
        }
    }
    /// The element type of a (nested) array type.
    fn innermost(ty: &Ty) -> &Ty {
        match ty {
            Ty::Array(e, ..) => innermost(e),
            t => t,
        }
    }
    let mut ps = Vec::new();
    // The destinations, and the scalars returned, as the real kernel has them.
    let (dests, scalars): (Vec<(String, &Ty)>, Vec<&Ty>) = match &k.ret {
        Ty::Tuple(parts, _) => {
            let dests = parts
                .iter()
                .enumerate()
                .filter(|(_, p)| matches!(p, Ty::Array(..)))
                .map(|(i, p)| (format!("out{i}"), innermost(p)))
                .collect();
            let scalars = parts
                .iter()
                .filter(|p| !matches!(p, Ty::Array(..)))
                .collect();
            (dests, scalars)
        }
        Ty::Array(..) => (vec![("out".to_string(), innermost(&k.ret))], Vec::new()),
        t => (Vec::new(), vec![t]),
    };
    for (d, elem) in &dests {
        let id = crate::front::ast::ident(d, Span::call_site());
        let elem = t(elem)?;
        ps.push(quote!(#id: &mut (impl ::fsmooth::RowMajorMut<#elem> + ?Sized)));
    }
    for p in &k.params {
        let id = crate::front::ast::ident(&p.name.text, p.name.span);
        let ty = t(&p.ty)?;
        ps.push(quote!(#id: #ty));
    }
    ps.push(quote!(region: &mut ::fsmooth::Region<'_>));
    let r = match scalars.as_slice() {
        [] => quote!(()),
        [one] => t(one)?,
        more => {
            let ts: Vec<TokenStream> = more.iter().map(|x| t(x)).collect::<Option<_>>()?;
            quote!((#(#ts),*))
        }
    };
    let name = crate::front::ast::ident(&k.name.text, k.name.span);
    let mut sizes_guessed = Vec::new();
    for p in &k.params {
        if let Ty::Usize(_) = p.ty
            && !sizes_guessed.contains(&p.name.text)
        {
            sizes_guessed.push(p.name.text.clone());
        }
        collect(&p.ty, &mut sizes_guessed);
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
    let sizes = sizes.map_or(sizes_guessed, <[String]>::to_vec);
    let args: Vec<Ident> = sizes
        .iter()
        .map(|s| crate::front::ast::ident(s, Span::call_site()))
        .collect();
    let lens = dests.iter().map(|(d, _)| {
        if args.is_empty() {
            let id =
                crate::front::ast::ident(&format!("{}_LEN", d.to_uppercase()), Span::call_site());
            quote!(pub const #id: usize = 0;)
        } else {
            let id = crate::front::ast::ident(&format!("{d}_len"), Span::call_site());
            quote!(pub const fn #id(#(#args: usize),*) -> usize { 0 })
        }
    });
    let lens: Vec<TokenStream> = lens.collect();
    let items = if args.is_empty() {
        quote!(
            pub const SCRATCH_LEN: usize = 0;
            #(#lens)*
        )
    } else {
        quote!(pub const fn scratch_len(#(#args: usize),*) -> usize { 0 } #(#lens)*)
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
            out.contains("pub fn k (out : & mut (impl :: fsmooth :: RowMajorMut < f64 > + ? Sized) , a : & (impl :: fsmooth :: RowMajor < f64 > + ? Sized) , s : f64 , m : usize , region : & mut :: fsmooth :: Region < '_ >) -> :: core :: result :: Result < () , :: fsmooth :: Error >"),
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
    fn every_array_is_flattened_before_any_length_is_read() {
        let out = expand(
            "pub fn k(a: [[f64; 3]; n], i: [usize; n]) -> ([f64; n], f32) { (build(n, |j| a[j][i[j]]), 1.0) }",
        );
        let first_len = out.find(". len ()").unwrap();
        for what in [
            "let out0 : & mut [f64] = match :: fsmooth :: RowMajorMut :: < f64 > :: row_major_mut (out0)",
            "let a : & [f64] = match :: fsmooth :: RowMajor :: < f64 > :: row_major (a)",
            "let i : & [usize] = match :: fsmooth :: RowMajor :: < usize > :: row_major (i)",
            ":: fsmooth :: Error :: Layout { arg : \"out0\" }",
            ":: fsmooth :: Error :: Layout { arg : \"a\" }",
            ":: fsmooth :: Error :: Layout { arg : \"i\" }",
        ] {
            let at = out.find(what).unwrap_or_else(|| panic!("{what}: {out}"));
            assert!(at < first_len, "{what}: {out}");
        }
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
