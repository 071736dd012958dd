//! The type and size syntax: `f64`, `[[f32; n]; 2 * m]`, `fn(f64) -> f64`, `(f64, [f64; n])`,
//! and the errors for the types and sizes fsmooth does not have.

use super::{Parser, name};
use crate::front::ast::*;
use quote::ToTokens;
use syn::spanned::Spanned;

impl Parser<'_> {
    /// A type as written: `f64`, `f32`, `usize`, `bool`, `[T; N]`, `fn(..) -> T`, a tuple, an
    /// element-type parameter; anything else an error naming what fsmooth has.
    pub(super) fn ty(&mut self, t: &syn::Type) -> Ty {
        match t {
            syn::Type::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(id) if id == "f64" => Ty::F64(id.span()),
                Some(id) if id == "f32" => Ty::F32(id.span()),
                Some(id) if id == "usize" => Ty::Usize(id.span()),
                Some(id) if id == "bool" => Ty::Bool(id.span()),
                Some(id) if is_type_parameter(&id.to_string()) => Ty::Elem(name(id)),
                _ => {
                    self.err(
                        t.span(),
                        format!(
                            "unsupported type `{}`: fsmooth has `f64`, `f32`, `usize`, `bool`, arrays `[T; N]` and `fn(..) -> T`",
                            t.to_token_stream()
                                .to_string()
                                .replace(" < ", "<")
                                .replace(" >", ">")
                                .replace(" ,", ",")
                                .replace(" :: ", "::")
                        ),
                    );
                    Ty::F64(t.span())
                }
            },
            syn::Type::Array(a) => {
                let elem = self.ty(&a.elem);
                let len = self.size(&a.len);
                Ty::Array(Box::new(elem), len, a.span())
            }
            syn::Type::FnPtr(f) => {
                let params = f.inputs.iter().map(|a| self.ty(&a.ty)).collect();
                let ret = match &f.output {
                    syn::ReturnType::Type(_, t) => self.ty(t),
                    syn::ReturnType::Default => {
                        self.err(
                            f.span(),
                            "a function parameter returns a value: add `-> f64`",
                        );
                        Ty::F64(f.span())
                    }
                };
                Ty::Fn(params, Box::new(ret), t.span())
            }
            syn::Type::Paren(p) => self.ty(&p.elem),
            syn::Type::Group(g) => self.ty(&g.elem),
            syn::Type::Tuple(tt) if tt.elems.len() >= 2 => {
                Ty::Tuple(tt.elems.iter().map(|x| self.ty(x)).collect(), t.span())
            }
            syn::Type::Tuple(tt) => {
                self.err(
                    tt.span(),
                    "a tuple type has two or more components: `(f64, [f64; n])`",
                );
                Ty::F64(tt.span())
            }
            syn::Type::Reference(r) => {
                self.err(
                    r.and_token.span(),
                    "write the array type itself (`[f64; n]`): the generated kernel takes `&[f64]` for it",
                );
                match &*r.elem {
                    // `&[f64]`: the one error says what to write.
                    syn::Type::Slice(_) => Ty::F64(r.span()),
                    elem => self.ty(elem),
                }
            }
            syn::Type::Slice(s) => {
                self.err(
                    s.span(),
                    "arrays need a size: write `[f64; n]` with a size name or literal",
                );
                Ty::F64(s.span())
            }
            other => {
                self.err(
                    other.span(),
                    "unsupported type: fsmooth has `f64`, `f32`, `usize`, `bool`, arrays `[T; N]` and `fn(..) -> T`",
                );
                Ty::F64(other.span())
            }
        }
    }

    /// A size as written: a whole number, a size name, `+ - * /` over them.
    pub(super) fn size(&mut self, e: &syn::Expr) -> SizeAst {
        match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Int(i) if i.suffix().is_empty() || i.suffix() == "usize" => {
                    match i.base10_parse::<u64>() {
                        Ok(v) => SizeAst::Lit(v, i.span()),
                        Err(err) => {
                            self.diags.push(err);
                            SizeAst::Lit(0, i.span())
                        }
                    }
                }
                _ => {
                    self.err(
                        l.span(),
                        "a size is a whole number, a size name or arithmetic over them",
                    );
                    SizeAst::Lit(0, l.span())
                }
            },
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                SizeAst::Name(name(p.path.get_ident().unwrap_or_else(|| unreachable!())))
            }
            syn::Expr::Paren(p) => self.size(&p.expr),
            syn::Expr::Group(g) => self.size(&g.expr),
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => Some(SizeOp::Add),
                    syn::BinOp::Sub(_) => Some(SizeOp::Sub),
                    syn::BinOp::Mul(_) => Some(SizeOp::Mul),
                    syn::BinOp::Div(_) => Some(SizeOp::Div),
                    _ => None,
                };
                let l = self.size(&b.left);
                let r = self.size(&b.right);
                match op {
                    Some(op) => SizeAst::Bin(op, Box::new(l), Box::new(r), b.span()),
                    None => {
                        self.err(b.op.span(), "sizes allow only `+ - * /`");
                        l
                    }
                }
            }
            other => {
                self.err(
                    other.span(),
                    "a size is a whole number, a size name or `+ - * /` over them",
                );
                SizeAst::Lit(0, other.span())
            }
        }
    }
}

/// An element-type parameter: an uppercase single letter (`T`, `U`).
fn is_type_parameter(s: &str) -> bool {
    s.len() == 1 && s.chars().all(|c| c.is_ascii_uppercase())
}
