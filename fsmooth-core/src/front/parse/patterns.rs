//! Patterns and closures: a tuple pattern (`let (a, b) = e;`, `|(s, q), i| ..`) becomes a
//! binding of the whole, named by the pattern's text (which no user name can be), and `let`s
//! of projections of it; an array pattern (`let [w, x, y, z] = q;`, LANGUAGE.md section 16)
//! likewise, with `let`s of its elements `q[0]`, `q[1]`, ..; nothing after the parser sees a
//! pattern (the checker only compares the pattern's count with the value's type).

use super::{Parser, name};
use crate::front::ast::*;
use quote::ToTokens;
use syn::spanned::Spanned;

impl Parser<'_> {
    /// The `let`s binding pattern `p` (a name, `_`, a tuple of patterns, any of them with a
    /// type) to `value`: a tuple pattern binds the whole value to a name of its own (the
    /// pattern's text, which no user name can be) and each part to a projection of it.
    pub(super) fn let_pat(
        &mut self,
        p: &syn::Pat,
        ty: Option<Ty>,
        value: Expr,
        lets: &mut Vec<Let>,
    ) {
        match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                if pi.mutability.is_some() {
                    self.mutable(pi.span());
                }
                lets.push(Let {
                    name: name(&pi.ident),
                    ty,
                    value,
                });
            }
            syn::Pat::Type(pt) => {
                let ty = self.ty(&pt.ty);
                self.let_pat(&pt.pat, Some(ty), value, lets);
            }
            syn::Pat::Wild(w) => lets.push(Let {
                name: Name {
                    text: "_".into(),
                    span: w.span(),
                },
                ty,
                value,
            }),
            syn::Pat::Paren(pp) => self.let_pat(&pp.pat, ty, value, lets),
            syn::Pat::Tuple(tp) if tp.elems.len() >= 2 => {
                let whole = pattern_name(p);
                lets.push(Let {
                    name: whole.clone(),
                    ty,
                    value,
                });
                for (k, part) in tp.elems.iter().enumerate() {
                    let proj = projection(&whole, k, Sp::from(part.span()));
                    self.let_pat(part, None, proj, lets);
                }
            }
            syn::Pat::Slice(sp) if self.array_pattern(sp) => {
                let whole = pattern_name(p);
                lets.push(Let {
                    name: whole.clone(),
                    ty,
                    value,
                });
                for (k, part) in sp.elems.iter().enumerate() {
                    let elem = element(&whole, k, Sp::from(part.span()));
                    self.let_pat(part, None, elem, lets);
                }
            }
            syn::Pat::Slice(sp) => {
                // Reported by `array_pattern`: its names are bound, to nothing, so that their
                // uses raise nothing more.
                lets.push(Let {
                    name: Name {
                        text: "_".into(),
                        span: sp.span(),
                    },
                    ty,
                    value,
                });
                for part in sp.elems.iter().filter(|e| !matches!(e, syn::Pat::Rest(_))) {
                    let failed = super::placeholder(part.span());
                    self.let_pat(part, None, failed, lets);
                }
            }
            other => {
                self.err(
                    other.span(),
                    "expected a name, a tuple or an array of names: `let x = e;`, `let (a, b) = e;`, `let [a, b] = e;`",
                );
                lets.push(Let {
                    name: Name {
                        text: "_".into(),
                        span: other.span(),
                    },
                    ty,
                    value,
                });
            }
        }
    }

    /// A closure parameter: a name, or a tuple pattern, which becomes a parameter named
    /// by its text and `let`s of its parts (pushed to `lets`, to wrap the body in).
    fn closure_param(&mut self, p: &syn::Pat, lets: &mut Vec<Let>) -> Name {
        match p {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => name(&pi.ident),
            syn::Pat::Wild(w) => Name {
                text: "_".into(),
                span: w.span(),
            },
            syn::Pat::Paren(pp) => self.closure_param(&pp.pat, lets),
            syn::Pat::Tuple(tp) if tp.elems.len() >= 2 => {
                let whole = pattern_name(p);
                for (k, part) in tp.elems.iter().enumerate() {
                    let proj = projection(&whole, k, Sp::from(part.span()));
                    self.let_pat(part, None, proj, lets);
                }
                whole
            }
            syn::Pat::Slice(sp) if self.array_pattern(sp) => {
                let whole = pattern_name(p);
                for (k, part) in sp.elems.iter().enumerate() {
                    let elem = element(&whole, k, Sp::from(part.span()));
                    self.let_pat(part, None, elem, lets);
                }
                whole
            }
            syn::Pat::Slice(sp) => {
                // Reported by `array_pattern`: its names are bound to nothing.
                for part in sp.elems.iter().filter(|e| !matches!(e, syn::Pat::Rest(_))) {
                    let failed = super::placeholder(part.span());
                    self.let_pat(part, None, failed, lets);
                }
                Name {
                    text: "_".into(),
                    span: sp.span(),
                }
            }
            syn::Pat::Type(pt) => {
                self.err(
                    pt.colon_token.span(),
                    "closure parameters take their types from the function parameter: remove the annotation",
                );
                self.closure_param(&pt.pat, lets)
            }
            other => {
                self.err(
                    other.span(),
                    "expected a closure parameter name, or a tuple or an array of names",
                );
                Name {
                    text: "_".into(),
                    span: other.span(),
                }
            }
        }
    }

    /// A closure's parameters and body, the body wrapped in the `let`s of its tuple
    /// parameters' parts.
    pub(super) fn closure_parts(&mut self, c: &syn::ExprClosure) -> (Vec<Name>, Expr) {
        let mut lets = Vec::new();
        let ps: Vec<Name> = c
            .inputs
            .iter()
            .map(|p| self.closure_param(p, &mut lets))
            .collect();
        let body = self.expr(&c.body);
        if lets.is_empty() {
            return (ps, body);
        }
        let span = body.span;
        (
            ps,
            Expr {
                kind: ExprKind::Block(lets, Box::new(body)),
                span,
            },
        )
    }

    pub(super) fn closure(
        &mut self,
        e: &syn::Expr,
        want: usize,
        what: &str,
    ) -> Option<(Vec<Name>, Expr)> {
        match e {
            syn::Expr::Closure(c) => {
                let (ps, body) = self.closure_parts(c);
                if ps.len() != want {
                    self.err(
                        c.inputs_begin.span(),
                        format!(
                            "{what} takes a closure of {want} parameter{}, this one has {}",
                            if want == 1 { "" } else { "s" },
                            ps.len()
                        ),
                    );
                    return None;
                }
                Some((ps, body))
            }
            other => {
                self.err(
                    other.span(),
                    format!("{what} takes a closure here, e.g. `|i| ..`"),
                );
                None
            }
        }
    }
}

impl Parser<'_> {
    /// Whether `[a, b, ..]` is an array pattern fsmooth takes: names, `_` and nested
    /// patterns, one per element (no `..`: an array pattern names every element). Reports
    /// the one that is not.
    fn array_pattern(&mut self, p: &syn::PatSlice) -> bool {
        if p.elems.is_empty() {
            self.err(
                p.span(),
                "an array pattern names each element: `let [a, b] = v;`",
            );
            return false;
        }
        if let Some(rest) = p.elems.iter().find(|e| matches!(e, syn::Pat::Rest(_))) {
            self.err(
                rest.span(),
                "an array pattern names every element, with `_` for those not needed: `let [a, _, c] = v;` (no `..`)",
            );
            return false;
        }
        true
    }
}

/// `whole[k]`, written at `span`.
fn element(whole: &Name, k: usize, span: Sp) -> Expr {
    let var = Expr {
        kind: ExprKind::Var(whole.clone()),
        span,
    };
    let index = Expr {
        kind: ExprKind::Int(k as u64),
        span,
    };
    Expr {
        kind: ExprKind::Index(Box::new(var), Box::new(index)),
        span,
    }
}

/// The name a tuple pattern's whole value is bound to: the pattern's text, which is not an
/// identifier, so no user name can be it.
fn pattern_name(p: &syn::Pat) -> Name {
    Name {
        text: p.to_token_stream().to_string(),
        span: p.span(),
    }
}

/// `whole.k`, written at `span`.
fn projection(whole: &Name, k: usize, span: Sp) -> Expr {
    let var = Expr {
        kind: ExprKind::Var(whole.clone()),
        span,
    };
    Expr {
        kind: ExprKind::Proj(Box::new(var), k, span),
        span,
    }
}
