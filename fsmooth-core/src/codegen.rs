//! `codegen`: a kernel's Rust function and its `mod` (LANGUAGE.md section 5).
//!
//! The function reads its size names from the argument lengths, checks every length and
//! takes its frame from the region before anything is written, then runs the DPS-translated
//! body ([`crate::dps`]). [`plan`] builds all of it as loop IR ([`crate::lir`]), which
//! [`kernel`] prints and [`crate::exec`] can run.

use crate::ast::{Options, Storage};
use crate::dps::{Dps, View, const_size};
use crate::ir::{Kernel, Pin, Type};
use crate::lir::{Base, Entry, Ex, Func, St};
use crate::size::Size;
use crate::storage::distinct_peaks;
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
        let id = crate::ast::ident(&p.name.s, p.name.span);
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

/// A kernel planned: its body in the loop IR and the candidate frame lengths (the frame is
/// their maximum).
pub struct Planned {
    /// The body: entry (sizes, length checks, frame), loops, result.
    pub func: Func,
    /// The frame's candidate peaks, as sizes.
    pub peaks: Vec<Size>,
}

/// Translate a kernel into the loop IR: sizes bound from lengths, then every length checked,
/// then the frame taken, then the DPS-translated body ([`crate::dps`]).
pub fn plan(k: &Kernel, options: Options) -> Planned {
    let storage = options.storage;
    let mut g = Dps::new(k, storage == Storage::Heap);
    g.jam = options.fusion && options.unroll;
    let (body, result) = if k.ret.is_arr() {
        let dest = View {
            base: Base::Out,
            off: None,
            dims: k.ret.dims().to_vec(),
        };
        let mut body = g.write(&k.body, &dest);
        crate::lir::row_streams(&mut body);
        (body, None)
    } else {
        let mut result = g.scalar(&k.body);
        crate::lir::row_streams_ex(&mut result);
        (Vec::new(), Some(result))
    };
    let peaks = distinct_peaks(g.frame.peaks());

    // Entry: sizes from lengths, then every length, then the frame.
    let mut entry = Vec::new();
    let param_ident = |name: &str| {
        k.params
            .iter()
            .find(|p| p.name.s == name)
            .map(|p| crate::ast::ident(&p.name.s, p.name.span))
            .unwrap_or_else(|| crate::ast::ident(name, Span::call_site()))
    };
    let bind = |name: &str, val: Ex| St::Let {
        // The parameter carries the user's span; the size name is the macro's own local.
        id: crate::ast::ident(name, Span::call_site()),
        mutable: false,
        usize_ty: true,
        val,
    };
    for pin in &k.pins {
        entry.push(match pin {
            Pin::Param(name) => bind(name, Ex::Var(param_ident(name))),
            Pin::FromLen {
                name,
                param,
                others,
                power,
            } => {
                let rows = per_row(&param_ident(param), others);
                if *power == 1 {
                    bind(name, rows)
                } else {
                    bind(name, Ex::Entry(Entry::Root(*power as u32), vec![rows]))
                }
            }
            Pin::Linear {
                name,
                param,
                others,
                scale,
                offset,
            } => {
                let rows = per_row(&param_ident(param), others);
                let e = Entry::SolveLinear(*scale as usize, *offset as i128);
                bind(name, Ex::Entry(e, vec![rows]))
            }
        });
    }
    let mut checks = Vec::new();
    for p in &k.params {
        if let Type::Arr(_) = &p.ty {
            checks.push(St::CheckLen {
                arg: p.name.s.clone(),
                base: Base::Param(crate::ast::ident(&p.name.s, p.name.span)),
                want: g.sizes.get(&p.ty.slots()),
            });
        }
    }
    if k.ret.is_arr() {
        checks.push(St::CheckLen {
            arg: "out".into(),
            base: Base::Out,
            want: g.sizes.get(&k.ret.slots()),
        });
    }
    let len = peaks
        .iter()
        .map(|p| g.sizes.get(p))
        .reduce(|a, b| Ex::Entry(Entry::Max, vec![a, b]));
    // Only the default storage takes the frame from the region.
    let (len, peaks) = match storage {
        Storage::Heap => (None, Vec::new()),
        _ => (len, peaks),
    };
    let frame = St::Frame {
        constant: len.as_ref().and(const_frame(&peaks)),
        len,
        heap: storage == Storage::HeapFrame,
    };
    // Size statements go after the pins (they only use size names).
    let mut all = entry;
    all.extend(g.sizes.statements());
    all.extend(checks);
    all.push(frame);
    all.extend(body);
    Planned {
        func: Func { body: all, result },
        peaks,
    }
}

/// The generated function and module for one kernel.
pub fn kernel(k: &Kernel, options: Options) -> TokenStream {
    let storage = options.storage;
    let Planned { func, peaks } = plan(k, options);
    // A heap frame is not taken from the region: the region needs no room.
    let peaks = if storage == Storage::Region {
        peaks
    } else {
        Vec::new()
    };
    let name = crate::ast::ident(&k.name.s, k.name.span);
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

/// The frame's length when it is a constant.
fn const_frame(peaks: &[Size]) -> Option<usize> {
    peaks
        .iter()
        .map(|p| p.as_const().map(|c| c as usize))
        .try_fold(0usize, |m, c| Some(m.max(c?)))
}

/// `len(param) / product(others)`: how many times the other dimensions fit in the length.
/// Saturating: an overflowing product fails the length check that follows.
fn per_row(param: &Ident, others: &[Size]) -> Ex {
    let prod = others
        .iter()
        .cloned()
        .reduce(Size::times)
        .map(Ex::Const)
        .unwrap_or(Ex::Usize(1));
    Ex::Entry(
        Entry::FromLen,
        vec![Ex::Len(Base::Param(param.clone())), prod],
    )
}

/// `mod k` with `scratch_len`/`out_len` (or `SCRATCH_LEN`/`OUT_LEN` without size names).
pub fn module(k: &Kernel, peaks: &[Size]) -> TokenStream {
    let name = crate::ast::ident(&k.name.s, k.name.span);
    let scratch = peaks
        .iter()
        .map(const_size)
        .reduce(|a, b| quote!(::fsmooth::__rt::max(#a, #b)))
        .unwrap_or(quote!(0usize));
    let out = k.ret.is_arr().then(|| const_size(&k.ret.slots()));
    let doc_s = format!(
        "f64 scratch slots a call of `{}` needs (a `Region::from_slab` of this length suffices).",
        k.name.s
    );
    let doc_o = format!("Length of `{}`'s `out`.", k.name.s);
    let doc_m = format!("Sizes of kernel `{}`.", k.name.s);
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
            .map(|s| crate::ast::ident(s, Span::call_site()))
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

/// A kernel's signature with a body that only reports failure, emitted after an error so the
/// user's calls still resolve and only the real error is shown.
pub fn stub(k: &crate::ast::FnDef) -> Option<TokenStream> {
    use crate::ast::Ty;
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
        let id = crate::ast::ident(&p.name.s, p.name.span);
        let ty = t(&p.ty)?;
        ps.push(quote!(#id: #ty));
    }
    ps.push(quote!(region: &mut ::fsmooth::Region<'_>));
    let r = if arr { quote!(()) } else { t(&k.ret)? };
    let name = crate::ast::ident(&k.name.s, k.name.span);
    let mut sizes = Vec::new();
    for p in &k.params {
        if let Ty::Usize(_) = p.ty
            && !sizes.contains(&p.name.s)
        {
            sizes.push(p.name.s.clone());
        }
        collect(&p.ty, &mut sizes);
    }
    fn collect(t: &Ty, out: &mut Vec<String>) {
        if let Ty::Array(e, n, _) = t {
            collect(e, out);
            let mut v = Vec::new();
            n.names(&mut v);
            for x in v {
                if !out.contains(&x.s) {
                    out.push(x.s.clone());
                }
            }
        }
    }
    let args: Vec<Ident> = sizes
        .iter()
        .map(|s| crate::ast::ident(s, Span::call_site()))
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
