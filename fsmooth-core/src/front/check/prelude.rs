//! The prelude's functions, parsed once per thread rather than once per block.
//!
//! Inside rustc, a `proc_macro2` token, identifier or span is a handle into the compiler that
//! is valid only during the one macro invocation that made it. The cache outlives the
//! invocation that filled it, so it must hold nothing that a later invocation would use or
//! drop as a live handle:
//! - no `TokenStream` (dropping one calls into the compiler): a prelude function's `attrs`
//!   are emptied, which costs nothing because prelude functions are only inlined, never
//!   emitted;
//! - spans, which are `Copy` handles without `Drop`, may sit in the cache stale, but are never
//!   used from it: each block takes a copy with every span set to `Span::call_site()` of its
//!   own invocation. That is what the prelude's spans were in the first place (it is parsed
//!   from a string), so the copy is the same AST a fresh parse would give.
//!
//! The restamping matches on every syntax node without `..`, so a span field added to the
//! AST later fails to compile here instead of leaking a stale handle.

use super::PRELUDE;
use crate::front::ast::{Expr, ExprKind, FnDef, Let, Name, Param, Scatter, SizeAst, Sp, Ty};
use crate::front::diag::Diags;
use crate::front::parse;
use proc_macro2::Span;

thread_local! {
    /// The prelude, parsed by the first block expanded on this thread; no `TokenStream` inside.
    static PARSED: Vec<FnDef> = parse_prelude();
}

/// Parse the prelude and drop every token stream it holds.
fn parse_prelude() -> Vec<FnDef> {
    let mut diags = Diags::default();
    let mut fns = PRELUDE
        .parse::<proc_macro2::TokenStream>()
        .ok()
        .and_then(|tokens| parse::parse(tokens, &mut diags))
        .map(|p| p.fns)
        .unwrap_or_default();
    for f in &mut fns {
        f.attrs = Vec::new();
    }
    fns
}

/// The prelude's functions, spanned at the current invocation's call site.
pub(super) fn functions() -> Vec<FnDef> {
    let here = Span::call_site();
    PARSED.with(|fns| {
        fns.iter()
            .map(|f| {
                let mut f = f.clone();
                restamp_fn(&mut f, here);
                f
            })
            .collect()
    })
}

fn restamp_fn(f: &mut FnDef, at: Span) {
    let FnDef {
        public: _,
        attrs,
        name,
        params,
        ret,
        ret_failed: _,
        body,
        sig_span,
    } = f;
    debug_assert!(attrs.is_empty());
    restamp_name(name, at);
    for Param { name, ty, .. } in params {
        restamp_name(name, at);
        restamp_ty(ty, at);
    }
    restamp_ty(ret, at);
    restamp_expr(body, at);
    *sig_span = at;
}

fn restamp_name(n: &mut Name, at: Span) {
    let Name { text: _, span } = n;
    *span = at;
}

fn restamp_ty(t: &mut Ty, at: Span) {
    match t {
        Ty::F64(span) | Ty::F32(span) | Ty::Usize(span) | Ty::Bool(span) => *span = at,
        Ty::Array(elem, len, span) => {
            restamp_ty(elem, at);
            restamp_size(len, at);
            *span = at;
        }
        Ty::Fn(params, ret, span) => {
            for p in params {
                restamp_ty(p, at);
            }
            restamp_ty(ret, at);
            *span = at;
        }
        Ty::Elem(n) => restamp_name(n, at),
        Ty::Tuple(parts, span) => {
            for p in parts {
                restamp_ty(p, at);
            }
            *span = at;
        }
    }
}

fn restamp_size(s: &mut SizeAst, at: Span) {
    match s {
        SizeAst::Lit(_, span) => *span = at,
        SizeAst::Name(n) => restamp_name(n, at),
        SizeAst::Bin(_, a, b, span) => {
            restamp_size(a, at);
            restamp_size(b, at);
            *span = at;
        }
    }
}

fn restamp_expr(e: &mut Expr, at: Span) {
    let Expr { kind, span } = e;
    *span = Sp::from(at);
    match kind {
        ExprKind::Float(..) | ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Error => {}
        ExprKind::Var(n) => restamp_name(n, at),
        ExprKind::Block(lets, tail) => {
            for Let { name, ty, value } in lets {
                restamp_name(name, at);
                if let Some(ty) = ty {
                    restamp_ty(ty, at);
                }
                restamp_expr(value, at);
            }
            restamp_expr(tail, at);
        }
        ExprKind::Index(a, b) | ExprKind::Bin(_, a, b) => {
            restamp_expr(a, at);
            restamp_expr(b, at);
        }
        ExprKind::Slice(a, lo, hi) => {
            restamp_expr(a, at);
            for bound in [lo, hi].into_iter().flatten() {
                restamp_expr(bound, at);
            }
        }
        ExprKind::Len(a) | ExprKind::Un(_, a) | ExprKind::Cast(a, _) => restamp_expr(a, at),
        ExprKind::Build(n, i, body) => {
            restamp_expr(n, at);
            restamp_name(i, at);
            restamp_expr(body, at);
        }
        ExprKind::Ifold(n, init, acc, i, body) | ExprKind::Scan(n, init, acc, i, body) => {
            restamp_expr(n, at);
            restamp_expr(init, at);
            restamp_name(acc, at);
            restamp_name(i, at);
            restamp_expr(body, at);
        }
        ExprKind::Iterate(init, s, cond, t, next) => {
            restamp_expr(init, at);
            restamp_name(s, at);
            restamp_expr(cond, at);
            restamp_name(t, at);
            restamp_expr(next, at);
        }
        ExprKind::Scatter(sc) => {
            let Scatter {
                m,
                ne,
                op,
                n,
                i,
                body,
            } = &mut **sc;
            restamp_expr(m, at);
            if let Some(ne) = ne {
                restamp_expr(ne, at);
            }
            if let Some((a, b, op)) = op {
                restamp_name(a, at);
                restamp_name(b, at);
                restamp_expr(op, at);
            }
            restamp_expr(n, at);
            restamp_name(i, at);
            restamp_expr(body, at);
        }
        ExprKind::Array(xs) | ExprKind::Tuple(xs) => {
            for x in xs {
                restamp_expr(x, at);
            }
        }
        ExprKind::Proj(a, _, span) => {
            restamp_expr(a, at);
            *span = Sp::from(at);
        }
        ExprKind::If(c, a, b) => {
            restamp_expr(c, at);
            restamp_expr(a, at);
            restamp_expr(b, at);
        }
        ExprKind::Math(_, receiver, args) => {
            restamp_expr(receiver, at);
            for x in args {
                restamp_expr(x, at);
            }
        }
        ExprKind::Call(f, args) => {
            restamp_name(f, at);
            for x in args {
                restamp_expr(x, at);
            }
        }
        ExprKind::Closure(params, body) => {
            for p in params {
                restamp_name(p, at);
            }
            restamp_expr(body, at);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cached prelude is the AST a fresh parse gives (spans aside), every time.
    #[test]
    fn the_cache_holds_what_a_fresh_parse_gives() {
        let fresh: Vec<FnDef> = parse_prelude()
            .into_iter()
            .map(|mut f| {
                restamp_fn(&mut f, Span::call_site());
                f
            })
            .collect();
        assert!(fresh.len() > 10);
        for _ in 0..2 {
            let cached = functions();
            assert_eq!(format!("{cached:?}"), format!("{fresh:?}"));
            assert!(cached.iter().all(|f| f.attrs.is_empty()));
        }
    }
}
