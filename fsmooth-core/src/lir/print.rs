//! The loop IR printed as Rust: each node becomes the Rust it names.

use super::row_form::{in_loop, note_row_count, row_of_offset};
use super::{
    Base, Entry, Ex, Func, Scalar, St, Stream, Wrap, mentions_var, puts, wadd, whole_read,
    writes_ex,
};
use crate::front::ast::{BinOp, MathFn};
use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, format_ident, quote};

impl ToTokens for Base {
    fn to_tokens(&self, ts: &mut TokenStream) {
        ts.extend(match self {
            Base::Param(id) => quote!(#id),
            Base::Out => quote!(out),
            Base::OutPart(k) => {
                let id = quote::format_ident!("out{}", k);
                quote!(#id)
            }
            Base::Scratch(Scalar::F64) => quote!(scratch),
            Base::Scratch(s) => {
                let id = format_ident!("scratch_{}", s.name());
                quote!(#id)
            }
            Base::Heap(k) => {
                let id = format_ident!("heap_{}", k);
                quote!(#id)
            }
            Base::Local(k) => {
                let id = format_ident!("local_{}", k);
                quote!(#id)
            }
            Base::Row(id) | Base::Piece(id) => quote!(#id),
        })
    }
}

fn f64_lit(v: f64) -> TokenStream {
    if v.is_nan() {
        quote!(f64::NAN)
    } else if v.is_infinite() {
        if v > 0.0 {
            quote!(f64::INFINITY)
        } else {
            quote!(f64::NEG_INFINITY)
        }
    } else {
        let l = proc_macro2::Literal::f64_suffixed(v.abs());
        if v.is_sign_negative() {
            quote!((-#l))
        } else {
            quote!(#l)
        }
    }
}

fn f32_lit(v: f32) -> TokenStream {
    if v.is_nan() {
        quote!(f32::NAN)
    } else if v.is_infinite() {
        if v > 0.0 {
            quote!(f32::INFINITY)
        } else {
            quote!(f32::NEG_INFINITY)
        }
    } else {
        let l = proc_macro2::Literal::f32_suffixed(v.abs());
        if v.is_sign_negative() {
            quote!((-#l))
        } else {
            quote!(#l)
        }
    }
}

fn op_tokens(op: BinOp) -> TokenStream {
    match op {
        BinOp::Add => quote!(+),
        BinOp::Sub => quote!(-),
        BinOp::Mul => quote!(*),
        BinOp::Div => quote!(/),
        BinOp::Rem => quote!(%),
        BinOp::Lt => quote!(<),
        BinOp::Le => quote!(<=),
        BinOp::Gt => quote!(>),
        BinOp::Ge => quote!(>=),
        BinOp::Eq => quote!(==),
        BinOp::Ne => quote!(!=),
        BinOp::And => quote!(&&),
        BinOp::Or => quote!(||),
    }
}

impl ToTokens for Ex {
    fn to_tokens(&self, ts: &mut TokenStream) {
        ts.extend(match self {
            Ex::F64(v) => f64_lit(*v),
            Ex::F32(v) => f32_lit(*v),
            Ex::Bool(b) => quote!(#b),
            Ex::Usize(v) => quote!(#v),
            Ex::Var(id) => quote!(#id),
            Ex::Len(b) => quote!(#b.len()),
            Ex::Bin(op, a, b) => {
                let o = op_tokens(*op);
                quote!((#a #o #b))
            }
            Ex::Checked(c, a, b, text) => {
                let f = format_ident!("{}", c.name());
                quote!(::fsmooth::__rt::#f(#a, #b, #text)?)
            }
            Ex::Wrap(w, a, b) => {
                let f = match w {
                    Wrap::Add => quote!(wrapping_add),
                    Wrap::Sub => quote!(wrapping_sub),
                    Wrap::Mul => quote!(wrapping_mul),
                };
                quote!((#a).#f(#b))
            }
            Ex::Neg(a) => quote!((-#a)),
            Ex::Not(a) => quote!((!#a)),
            Ex::ToF64(a) => quote!((#a as f64)),
            Ex::ToF32(a) => quote!((#a as f32)),
            Ex::IndexTo(Scalar::F32, a) => quote!(((#a as i64) as f32)),
            Ex::IndexTo(_, a) => quote!(((#a as i64) as f64)),
            Ex::ToUsize(a) => quote!((#a as usize)),
            Ex::Fused(xs) => quote!(::fsmooth::__rt::fused(#(#xs),*)),
            Ex::Target(feature) => quote!(cfg!(target_feature = #feature)),
            Ex::Math(f, xs) => {
                let x = &xs[0];
                match f {
                    MathFn::Powi => {
                        let k = &xs[1];
                        quote!(::fsmooth::__rt::powi(#x, i32::try_from(#k).unwrap_or(i32::MAX)))
                    }
                    MathFn::Powf => {
                        let y = &xs[1];
                        quote!(::fsmooth::__rt::powf(#x, #y))
                    }
                    MathFn::Min => {
                        let y = &xs[1];
                        quote!(::fsmooth::__rt::min(#x, #y))
                    }
                    MathFn::Max => {
                        let y = &xs[1];
                        quote!(::fsmooth::__rt::max_f(#x, #y))
                    }
                    MathFn::Atan2 | MathFn::Hypot => {
                        let name = format_ident!("{}", f.name());
                        let y = &xs[1];
                        quote!(::fsmooth::__rt::#name(#x, #y))
                    }
                    MathFn::MulAdd | MathFn::Clamp => {
                        let name = format_ident!("{}", f.name());
                        let (y, z) = (&xs[1], &xs[2]);
                        quote!(::fsmooth::__rt::#name(#x, #y, #z))
                    }
                    f => {
                        let name = format_ident!("{}", f.name());
                        quote!(::fsmooth::__rt::#name(#x))
                    }
                }
            }
            Ex::Entry(e, xs) => match e {
                Entry::FromLen => quote!(::fsmooth::__rt::from_len(#(#xs),*)),
                Entry::Root(k) => quote!(::fsmooth::__rt::root(#(#xs),*, #k)),
                Entry::SolveLinear(scale, offset) => {
                    quote!(::fsmooth::__rt::solve_linear(#(#xs),*, #scale, #offset))
                }
                Entry::Max => quote!(::fsmooth::__rt::max(#(#xs),*)),
                Entry::Slots => quote!(::fsmooth::__rt::slots(#(#xs),*)),
            },
            Ex::Const(s) => crate::front::size::const_size(s),
            // An index that writes the buffer it reads (an array literal stored in the
            // frame inside the index) is computed first: `ld(b, ..)` would hold `b` borrowed
            // while the index stores into it.
            Ex::Ld(b, at) if writes_ex(at, b) => {
                quote!({ let __at: usize = #at; ::fsmooth::__rt::ld(#b, __at) })
            }
            Ex::Ld(b, at) => quote!(::fsmooth::__rt::ld(#b, #at)),
            Ex::LdRow(b, off, width, k, scalar) => match (row_of_offset(b, off, *width), scalar) {
                (Some(r), Scalar::F64) => quote!(::fsmooth::__rt::ldr_row::<#width>(#b, #r, #k)),
                (Some(r), _) => quote!(::fsmooth::__rt::ldr_row_of::<#width, _>(#b, #r, #k)),
                (None, Scalar::F64) => quote!(::fsmooth::__rt::ldr::<#width>(#b, #off, #k)),
                (None, _) => quote!(::fsmooth::__rt::ldr_of::<#width, _>(#b, #off, #k)),
            },
            Ex::Check(i, d) => quote!(::fsmooth::__rt::check(#i, #d)?),
            Ex::Elem(e) => quote!((*#e)),
            Ex::Block(st, v) => quote!({ #(#st)* #v }),
            Ex::If(c, a, b) => quote!(if #c { #a } else { #b }),
            Ex::Tuple(xs) => quote!((#(#xs),*)),
            Ex::Internal(msg) => {
                let m = format!("fsmooth internal error: {msg}");
                quote!(compile_error!(#m))
            }
        })
    }
}

/// `for pat in it { body }` with the streams zipped in (and the slots of `__d` when
/// `slot`). `zip` rather than `enumerate`: no counter that could overflow.
fn for_tokens(var: &Ident, n: &Ex, slot: bool, streams: &[Stream], body: &[St]) -> TokenStream {
    in_loop(var, n, || loop_tokens(var, n, slot, streams, body))
}

/// [`for_tokens`], its index in scope.
fn loop_tokens(var: &Ident, n: &Ex, slot: bool, streams: &[Stream], body: &[St]) -> TokenStream {
    // Slices alone when the index is unused: a zip of slice iterators only is one LLVM
    // vectorises (a range in the chain keeps a bound check per element). Every slice has
    // exactly n elements, so the count is the same.
    // (A row stream of rows of width 0 never ends: a loop needs a part of length n.)
    let slices_only =
        (slot || streams.iter().any(|s| s.width.is_none())) && !mentions_var(body, var);
    let mut parts: Vec<(TokenStream, TokenStream)> = Vec::new();
    if !slices_only {
        // A count computed by a block (an `ifold` counted by another's result) goes in
        // parentheses: `for i in 0..{ .. } { .. }` would take the block for the loop's body.
        let n = match n {
            Ex::Block(..) => quote!((#n)),
            _ => quote!(#n),
        };
        parts.push((quote!(0..#n), quote!(#var)));
    }
    if slot {
        parts.push((quote!(__d), quote!(__slot)));
    }
    let mut gets = Vec::new();
    let mut binds = Vec::new();
    for s in streams {
        let (base, e, start) = (&s.base, &s.elem, &s.start);
        // The slice keeps a name of its own when an inner loop reads a prefix of it;
        // otherwise the element shadows it.
        let all = whole_read(s, body);
        let slice = all.as_ref().unwrap_or(e);
        binds.push(quote!(::core::option::Option::Some(#slice)));
        match &s.width {
            // Rows of an output the loop stores (`in_place_streams`): `&mut` arrays.
            Some(Ex::Usize(k)) if super::row_puts(body, e) => {
                gets.push(quote!(#base.get_mut(#start..)));
                parts.push((
                    quote!(::fsmooth::__rt::rows_of_mut::<_, #k>(#e)),
                    quote!(#e),
                ));
            }
            Some(w) => {
                gets.push(quote!(#base.get(#start..)));
                // Rows of a literal width read at constant places (a strided read's
                // elements) as arrays; rows that inner loops stream from stay slices, whose
                // loops LLVM then keeps as loops (Welford's rows of 16: 9% more instructions
                // as arrays, the loop written out).
                let rows = match w {
                    Ex::Usize(k) if *k > 0 && !streamed_from(body, e) => {
                        quote!(::fsmooth::__rt::rows_of::<_, #k>(#e))
                    }
                    _ => quote!(::fsmooth::__rt::rows(#e, #w)),
                };
                parts.push((rows, quote!(#e)));
            }
            None if puts(body, e) => {
                let (base, end) = (&s.base, wadd(start.clone(), n.clone()));
                gets.push(quote!(#base.get_mut(#start..#end)));
                parts.push((quote!(#slice.iter_mut()), quote!(#e)));
            }
            None => {
                gets.push(element_cut(s, n));
                parts.push((quote!(#slice.iter()), quote!(#e)));
            }
        }
    }
    let (it, pat) = zipped(parts);
    if streams.is_empty() {
        quote!(for #pat in #it { #(#body)* })
    } else {
        // Every stream is in range by the same proof that made its loads unchecked, so the
        // `if let` always holds.
        quote!(if let (#(#binds,)*) = (#(#gets,)*) { for #pat in #it { #(#body)* } })
    }
}

/// True when a loop inside `body` streams from the row `row` of a row stream.
fn streamed_from(body: &[St], row: &Ident) -> bool {
    let mut found = false;
    let mut sts = body.to_vec();
    super::streams::for_each_stream(&mut sts, &mut |_, st| {
        found |= matches!(&st.base, Base::Row(r) if r == row);
    });
    found
}

/// The slice of element stream `s` along a loop of `n` steps, as an `Option`:
/// `base.get(start..start + n)`.
fn element_cut(s: &Stream, n: &Ex) -> TokenStream {
    let (base, start) = (&s.base, &s.start);
    let end = wadd(start.clone(), n.clone());
    quote!(#base.get(#start..#end))
}

/// Zip iterators into one `for` header: `(a.zip(b)).zip(c)` against `((x, y), z)`.
fn zipped(mut parts: Vec<(TokenStream, TokenStream)>) -> (TokenStream, TokenStream) {
    let (first_it, first_pat) = parts.remove(0);
    let (mut it, mut pat) = if parts.is_empty() {
        (first_it, first_pat)
    } else {
        (quote!((#first_it)), first_pat)
    };
    for (i, p) in parts {
        it = quote!(#it.zip(#i));
        pat = quote!((#pat, #p));
    }
    (it, pat)
}

/// [`St::Lanes`]: the streams cut as a `for` loop cuts them, then a loop over chunks of
/// `LANES` steps (`chunks_exact` of each stream, whose fixed length lets LLVM drop the
/// element checks) with the body written out once per lane, lanes 1.. under the sum's
/// name shadowed; then the remaining steps into lane 0, and the lanes added. Below `LANES`
/// steps, the loop in order.
fn lanes_tokens(
    acc: &Ident,
    elem: Scalar,
    var: &Ident,
    n: &Ex,
    streams: &[Stream],
    body: &[St],
) -> TokenStream {
    let t = format_ident!("{}", elem.name());
    let k = super::LANES;
    let indexed = mentions_var(body, var);
    let (mut gets, mut binds) = (Vec::new(), Vec::new());
    let (mut chunks, mut rest, mut all) = (Vec::new(), Vec::new(), Vec::new());
    if indexed {
        chunks.push((quote!(0..__steps / #k), quote!(__m)));
        rest.push((quote!(__steps / #k * #k..__steps), quote!(#var)));
        all.push((quote!(0..__steps), quote!(#var)));
    }
    for s in streams {
        let e = &s.elem;
        gets.push(element_cut(s, n));
        binds.push(quote!(::core::option::Option::Some(#e)));
        chunks.push((quote!(#e.chunks_exact(#k)), quote!(#e)));
        rest.push((quote!(#e.chunks_exact(#k).remainder().iter()), quote!(#e)));
        all.push((quote!(#e.iter()), quote!(#e)));
    }
    if chunks.is_empty() {
        chunks.push((quote!(0..__steps / #k), quote!(_)));
        rest.push((quote!(__steps / #k * #k..__steps), quote!(_)));
        all.push((quote!(0..__steps), quote!(_)));
    }
    let (chunk_it, chunk_pat) = zipped(chunks);
    let (rest_it, rest_pat) = zipped(rest);
    let (all_it, all_pat) = zipped(all);
    let lanes = (0..k).map(|l| {
        let step =
            indexed.then(|| quote!(let #var: usize = __m.wrapping_mul(#k).wrapping_add(#l);));
        let elems = streams.iter().map(|s| {
            let e = &s.elem;
            quote!(let #e = &#e[#l];)
        });
        if l == 0 {
            quote!({ #step #(#elems)* #(#body)* })
        } else {
            let lane = format_ident!("__lane{}", l);
            quote!({ #step #(#elems)* let mut #acc: #t = #lane; #(#body)* #lane = #acc; })
        }
    });
    let others: Vec<Ident> = (1..k).map(|l| format_ident!("__lane{}", l)).collect();
    let total = lane_tree(acc, 0, k);
    // Fewer steps than lanes: every step adds to lane 0, and the other lanes, all `-0.0`,
    // add nothing (`x + -0.0` is `x`): the loop in order, without lanes to start and add.
    let sum = quote! {
        let __steps: usize = #n;
        if __steps < #k {
            for #all_pat in #all_it { #(#body)* }
        } else {
            #(let mut #others: #t = -0.0;)*
            for #chunk_pat in #chunk_it { #(#lanes)* }
            for #rest_pat in #rest_it { #(#body)* }
            #acc = #total;
        }
    };
    if streams.is_empty() {
        quote!({ #sum })
    } else {
        // In range by the same proof as a `for` loop's streams: the `if let` always holds.
        quote!(if let (#(#binds,)*) = (#(#gets,)*) { #sum })
    }
}

/// The sum of lanes `a..b` ([`St::Lanes`]), halves first: `(l0 + l1) + (l2 + l3)`; lane 0
/// is the sum's local `acc`.
fn lane_tree(acc: &Ident, a: usize, b: usize) -> TokenStream {
    match b - a {
        1 if a == 0 => quote!(#acc),
        1 => {
            let lane = format_ident!("__lane{}", a);
            quote!(#lane)
        }
        _ => {
            let mid = a + (b - a) / 2;
            let (l, r) = (lane_tree(acc, a, mid), lane_tree(acc, mid, b));
            quote!((#l + #r))
        }
    }
}

impl ToTokens for St {
    fn to_tokens(&self, ts: &mut TokenStream) {
        ts.extend(match self {
            St::Let {
                id,
                mutable,
                usize_ty,
                val,
            } => {
                note_row_count(id, val);
                let m = mutable.then(|| quote!(mut));
                let t = usize_ty.then(|| quote!(: usize));
                quote!(let #m #id #t = #val;)
            }
            St::Assign(id, v) => quote!(#id = #v;),
            St::Store(b, at, v) => quote!(let __v = #v; ::fsmooth::__rt::st(#b, #at, __v);),
            St::StoreRow(b, off, vs) => match row_of_offset(b, off, vs.len()) {
                Some(r) => quote!(let __v = [#(#vs),*]; ::fsmooth::__rt::st_row_at(#b, #r, __v);),
                None => quote!(let __v = [#(#vs),*]; ::fsmooth::__rt::st_row(#b, #off, __v);),
            },
            St::Slot(v) => quote!(*__slot = #v;),
            St::SlotAdd(v) => quote!(*__slot = *__slot + #v;),
            St::Put(e, v) => quote!(*#e = #v;),
            St::For {
                var,
                n,
                streams,
                body,
            } => for_tokens(var, n, false, streams, body),
            St::Lanes {
                acc,
                elem,
                var,
                n,
                streams,
                body,
            } => in_loop(var, n, || lanes_tokens(acc, *elem, var, n, streams, body)),
            St::Fill {
                base,
                off,
                var,
                n,
                streams,
                body,
            } => {
                let range = match off {
                    Some(lo) => {
                        let hi = wadd(lo.clone(), n.clone());
                        quote!(#lo..#hi)
                    }
                    None => quote!(..#n),
                };
                let lp = for_tokens(var, n, true, streams, body);
                quote! {
                    if let Some(__d) = #base.get_mut(#range) {
                        let __d = __d.iter_mut();
                        #lp
                    }
                }
            }
            St::If(c, a, b) => quote!(if #c { #(#a)* } else { #(#b)* }),
            St::While(c, b) => quote!(while #c { #(#b)* }),
            St::ParSum {
                acc,
                acc_left,
                elem,
                var,
                n,
                body,
                frame,
            } => {
                let frame_used = *frame;
                let (t, frame, own) = chunked(*elem, *frame);
                let add = if *acc_left {
                    quote!(#acc = #acc + __total;)
                } else {
                    quote!(#acc = __total + #acc;)
                };
                let (chunk, least) = (super::PAR_CHUNK, super::PAR_MIN_STEPS);
                let small = copies_cheap(frame_used);
                quote! {
                    let __steps: usize = #n;
                    if __steps >= #least #small {
                        let __total: #t = ::fsmooth::__rt::par_sum(
                            __steps,
                            #chunk,
                            #frame,
                            |__lo: usize, __hi: usize, #own: &mut [f64]| -> ::core::result::Result<#t, ::fsmooth::Error> {
                                let mut #acc: #t = -0.0;
                                for #var in __lo..__hi { #(#body)* }
                                ::core::result::Result::Ok(#acc)
                            },
                        )?;
                        #add
                    } else {
                        for #var in 0..__steps { #(#body)* }
                    }
                }
            }
            St::ParRows {
                var,
                n,
                base,
                elem,
                off,
                width,
                body,
                frame,
            } => {
                let frame_used = *frame;
                let (t, frame, own) = chunked(*elem, *frame);
                let from = off.clone().unwrap_or(Ex::Usize(0));
                let mut chunk_body = body.clone();
                let first = Ex::Var(format_ident!("__first"));
                // `lower::parallel` printed nothing it could not rebase.
                super::rebase(&mut chunk_body, base, &first);
                let (chunk, least) = (super::PAR_CHUNK, super::PAR_MIN_STEPS);
                let small = copies_cheap(frame_used);
                quote! {
                    let __steps: usize = #n;
                    if __steps >= #least #small {
                        let __width: usize = #width;
                        let __from: usize = #from;
                        let __end = __from.wrapping_add(__steps.wrapping_mul(__width));
                        if let Some(__rows) = #base.get_mut(__from..__end) {
                            ::fsmooth::__rt::par_rows(
                                __steps,
                                #chunk,
                                __width,
                                __rows,
                                #frame,
                                |__lo: usize, __hi: usize, #base: &mut [#t], #own: &mut [f64]| -> ::core::result::Result<(), ::fsmooth::Error> {
                                    let __first: usize = __from.wrapping_add(__lo.wrapping_mul(__width));
                                    for #var in __lo..__hi { #(#chunk_body)* }
                                    ::core::result::Result::Ok(())
                                },
                            )?;
                        }
                    } else {
                        for #var in 0..__steps { #(#body)* }
                    }
                }
            }
            // (A step's note for the executor dropped by a rename leaves an empty block.)
            St::Block(b) if b.is_empty() => TokenStream::new(),
            St::Block(b) => quote!({ #(#b)* }),
            St::Segment {
                id,
                base,
                off,
                width,
                body,
            } => quote!(
                if let ::core::option::Option::Some(#id) = #base.get(#off..(#off).wrapping_add(#width)) {
                    #(#body)*
                }
            ),
            St::Pieces { elem, pieces, body } => {
                let part = Base::Scratch(*elem);
                let names = pieces.iter().map(|(id, _)| id);
                let starts = pieces.iter().map(|(_, s)| s);
                quote!(
                    if let ::core::option::Option::Some([#(#names),*]) = ::fsmooth::__rt::pieces(#part, [#(#starts),*]) {
                        #(#body)*
                    }
                )
            }
            St::Rows { off, rows, body } => {
                let lens = rows.iter().map(|r| {
                    let b = &r.base;
                    quote!(#b.len())
                });
                let ids = rows.iter().map(|r| &r.id);
                let cuts = rows.iter().map(|r| {
                    let b = &r.base;
                    if r.mutable {
                        quote!(::fsmooth::__rt::row_at_mut(#b, #off, __len))
                    } else {
                        quote!(::fsmooth::__rt::row_at(#b, #off, __len))
                    }
                });
                quote!({
                    let __len = ::fsmooth::__rt::common_len(#off, [#(#lens),*]);
                    if let (#(::core::option::Option::Some(#ids),)*) = (#(#cuts,)*) {
                        #(#body)*
                    }
                })
            }
            St::Swap(a, b) => quote!(::core::mem::swap(&mut #a, &mut #b);),
            St::CheckRange(lo, hi, len) => {
                quote!(::fsmooth::__rt::check_range(#lo, #hi, #len)?;)
            }
            St::Copy {
                dst,
                dst_off,
                src,
                src_off,
                n,
            } => {
                let d_end = wadd(dst_off.clone(), n.clone());
                let s_end = wadd(src_off.clone(), n.clone());
                quote! {
                    if let (Some(__d), Some(__s)) = (#dst.get_mut(#dst_off..#d_end), #src.get(#src_off..#s_end)) {
                        for (__x, __y) in __d.iter_mut().zip(__s) {
                            *__x = *__y;
                        }
                    }
                }
            }
            St::Alloc { .. } | St::Restate { .. } => TokenStream::new(),
            St::AddWithin {
                base,
                dst_off,
                src_off,
                n,
            } => quote!(::fsmooth::__rt::add_within(#base, #dst_off, #src_off, #n);),
            St::CheckColumn {
                base,
                at,
                stride,
                len,
            } => quote!(::fsmooth::__rt::check_column(#base, #at, #stride, #len)?;),
            St::CheckLen {
                arg, base, want, ..
            } => quote! {
                if #base.len() != #want {
                    return ::core::result::Result::Err(::fsmooth::Error::Shape { arg: #arg, expected: #want, found: #base.len() });
                }
            },
            St::Frame {
                len: Some(len),
                constant,
                heap,
                parts: Some(parts),
            } => frame_parts(len, *constant, *heap, parts),
            St::Frame {
                len: Some(len),
                heap: true,
                ..
            } => quote! {
                let _ = region;
                let scratch: &mut [f64] = &mut ::fsmooth::__rt::heap(#len)?;
            },
            St::Local { id, len, elem } => {
                let b = Base::Local(*id);
                let t = format_ident!("{}", elem.name());
                let zero = match elem {
                    Scalar::F64 => quote!(0f64),
                    Scalar::F32 => quote!(0f32),
                    Scalar::Usize => quote!(0usize),
                    Scalar::Bool => quote!(false),
                };
                quote!(let #b: &mut [#t; #len] = &mut [#zero; #len];)
            }
            St::Heap { id, len, elem } => {
                let b = Base::Heap(*id);
                let t = format_ident!("{}", elem.name());
                quote!(let #b: &mut [#t] = &mut ::fsmooth::__rt::heap(#len)?;)
            }
            St::Frame { len, constant, .. } => match (len, constant) {
                // A constant frame is a fixed-size array: LLVM then knows its length, and
                // checks of constant offsets into it fold away.
                (Some(_), Some(n)) => quote! {
                    let scratch: &mut [f64; #n] = match <&mut [f64; #n]>::try_from(region.frame(#n)?) {
                        ::core::result::Result::Ok(s) => s,
                        ::core::result::Result::Err(_) => {
                            return ::core::result::Result::Err(::fsmooth::Error::Scratch { needed: #n, available: 0 });
                        }
                    };
                },
                (Some(len), None) => quote!(let scratch: &mut [f64] = region.frame(#len)?;),
                (None, _) => quote!(let _ = region;),
            },
        })
    }
}

/// The test that the frame is small enough to copy for every chunk (at most one slot per step
/// of a chunk), when the chunks use it: a larger frame would cost more to copy than the chunk
/// computes, and the loop runs in order instead ([`super::St::ParSum`]).
fn copies_cheap(frame: bool) -> TokenStream {
    let chunk = super::PAR_CHUNK;
    if frame {
        quote!(&& scratch.len() <= #chunk)
    } else {
        TokenStream::new()
    }
}

/// What a parallel loop's chunks need printed: the element type's name, the frame each chunk
/// copies (`&*scratch`, or nothing when the body does not use it), and the name the chunk's
/// copy is bound to.
fn chunked(elem: Scalar, frame: bool) -> (Ident, TokenStream, TokenStream) {
    let t = format_ident!("{}", elem.name());
    if frame {
        (t, quote!(&*scratch), quote!(scratch))
    } else {
        (t, quote!(&[]), quote!(_))
    }
}

/// A frame of several element types: taken (from the region, or the heap), then cut once
/// into one slice per type; a part of constant length becomes a fixed-size array.
fn frame_parts(
    len: &Ex,
    constant: Option<usize>,
    heap: bool,
    parts: &[Option<Ex>; 3],
) -> TokenStream {
    let names: Vec<TokenStream> = super::FRAME_PARTS
        .iter()
        .zip(parts)
        .map(|(t, n)| match n {
            None => quote!(_),
            Some(_) => {
                let b = Base::Scratch(*t);
                quote!(#b)
            }
        })
        .collect();
    let [a, b, c] = parts
        .clone()
        .map(|p| p.unwrap_or(Ex::Usize(0)).into_token_stream());
    let take = match (heap, constant) {
        (true, _) => quote! {
            let _ = region;
            let mut __frame = ::fsmooth::__rt::heap::<f64>(#len)?;
            let (#(#names),*) = ::fsmooth::__rt::split(&mut __frame, #a, #b, #c)?;
        },
        (false, Some(n)) => quote! {
            let (#(#names),*) = ::fsmooth::__rt::split(region.frame(#n)?, #a, #b, #c)?;
        },
        (false, None) => quote! {
            let (#(#names),*) = ::fsmooth::__rt::split(region.frame(#len)?, #a, #b, #c)?;
        },
    };
    // Constant parts as fixed-size arrays (not for a heap frame, as before).
    let fixed = super::FRAME_PARTS
        .iter()
        .zip(parts)
        .filter_map(|(t, n)| match n {
            Some(Ex::Usize(k)) if !heap => {
                let b = Base::Scratch(*t);
                let e = format_ident!("{}", t.name());
                Some(quote!(let #b: &mut [#e; #k] = ::fsmooth::__rt::fixed(#b)?;))
            }
            _ => None,
        });
    quote!(#take #(#fixed)*)
}

impl ToTokens for Func {
    fn to_tokens(&self, ts: &mut TokenStream) {
        let body = &self.body;
        ts.extend(match &self.result {
            Some(v) => quote!(#(#body)* ::core::result::Result::Ok(#v)),
            None => quote!(#(#body)* ::core::result::Result::Ok(())),
        })
    }
}
