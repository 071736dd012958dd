//! Rust's float constants (LANGUAGE.md section 16): `std::f64::consts::PI`,
//! `core::f32::consts::TAU`, `f64::consts::E`, and the names a `use` of those modules brings
//! into the block (`use std::f64::consts::PI;`, `use core::f32::consts::*;`); and, where the
//! contract is silent, the associated constants a Rust user reaches for as readily
//! (`f64::NEG_INFINITY`, `f32::EPSILON`, `f64::MAX`, also as `std::f64::INFINITY`). The parser
//! turns each into a float literal of its type (an f32 constant is Rust's f32 value, which
//! is the f64 value rounded to f32), so nothing after it sees a constant.

use super::{Parser, name};
use crate::front::ast::{CastTy, ExprKind, Name};
use crate::front::diag::closest;
use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

/// Every stable constant of `core::f64::consts` (Rust 1.95), with its f64 value. The f32
/// module has the same names, each the f64 value rounded to f32.
pub(crate) const FLOAT_CONSTS: [(&str, f64); 19] = {
    use core::f64::consts::*;
    [
        ("PI", PI),
        ("TAU", TAU),
        ("E", E),
        ("SQRT_2", SQRT_2),
        ("FRAC_1_SQRT_2", FRAC_1_SQRT_2),
        ("LN_2", LN_2),
        ("LN_10", LN_10),
        ("LOG2_E", LOG2_E),
        ("LOG10_E", LOG10_E),
        ("LOG2_10", LOG2_10),
        ("LOG10_2", LOG10_2),
        ("FRAC_PI_2", FRAC_PI_2),
        ("FRAC_PI_3", FRAC_PI_3),
        ("FRAC_PI_4", FRAC_PI_4),
        ("FRAC_PI_6", FRAC_PI_6),
        ("FRAC_PI_8", FRAC_PI_8),
        ("FRAC_1_PI", FRAC_1_PI),
        ("FRAC_2_PI", FRAC_2_PI),
        ("FRAC_2_SQRT_PI", FRAC_2_SQRT_PI),
    ]
};

/// The float type of a path to a consts module (`std::f64::consts`, `core::f32::consts`,
/// `f64::consts`, with or without a leading `::`), given as its segments.
pub(super) fn consts_module(segments: &[String]) -> Option<CastTy> {
    let rest = match segments.first().map(String::as_str) {
        Some("std" | "core") => &segments[1..],
        _ => segments,
    };
    match rest {
        [t, c] if c == "consts" && t == "f64" => Some(CastTy::F64),
        [t, c] if c == "consts" && t == "f32" => Some(CastTy::F32),
        _ => None,
    }
}

/// The type of a path to a float type or its module (`f64`, `std::f32`, `core::f64`), given
/// as its segments: where Rust defines `INFINITY`, `MAX`, `EPSILON` and the others.
fn float_type(segments: &[String]) -> Option<CastTy> {
    let rest = match segments.first().map(String::as_str) {
        Some("std" | "core") => &segments[1..],
        _ => segments,
    };
    match rest {
        [t] if t == "f64" => Some(CastTy::F64),
        [t] if t == "f32" => Some(CastTy::F32),
        _ => None,
    }
}

/// The value of `f64::name` (or `f32::name`, as f64): Rust's associated float constants a
/// running maximum or a tolerance starts from (`f64::NEG_INFINITY`, `f32::EPSILON`).
fn assoc_value(name: &str, ty: CastTy) -> Option<f64> {
    let (d, s) = match name {
        "INFINITY" => (f64::INFINITY, f32::INFINITY),
        "NEG_INFINITY" => (f64::NEG_INFINITY, f32::NEG_INFINITY),
        "NAN" => (f64::NAN, f32::NAN),
        "MAX" => (f64::MAX, f32::MAX),
        "MIN" => (f64::MIN, f32::MIN),
        "MIN_POSITIVE" => (f64::MIN_POSITIVE, f32::MIN_POSITIVE),
        "EPSILON" => (f64::EPSILON, f32::EPSILON),
        _ => return None,
    };
    Some(match ty {
        CastTy::F32 => f64::from(s),
        _ => d,
    })
}

/// The names [`assoc_value`] knows.
const ASSOC_CONSTS: [&str; 7] = [
    "INFINITY",
    "NEG_INFINITY",
    "NAN",
    "MAX",
    "MIN",
    "MIN_POSITIVE",
    "EPSILON",
];

/// The value of constant `name` of the module of type `ty`.
fn value(name: &str, ty: CastTy) -> Option<f64> {
    let v = FLOAT_CONSTS.iter().find(|(n, _)| *n == name)?.1;
    Some(match ty {
        CastTy::F32 => f64::from(v as f32),
        _ => v,
    })
}

/// The constants a block brought in: the name used, the constant, its type, and whether a
/// glob (`::*`) brought it.
#[derive(Default)]
pub(super) struct ConstScope {
    names: Vec<(String, f64, CastTy, bool)>,
}

impl ConstScope {
    /// As in Rust, a name imported by name wins over one a glob brings, whatever their order
    /// (`use std::f64::consts::TAU; use core::f32::consts::*;` keeps the f64 `TAU`).
    fn get(&self, n: &str) -> Option<(f64, CastTy)> {
        let last = |by_glob: bool| {
            self.names
                .iter()
                .rev()
                .find(|(x, _, _, g)| x == n && *g == by_glob)
                .map(|(_, v, t, _)| (*v, *t))
        };
        last(false).or_else(|| last(true))
    }
}

impl Parser<'_> {
    /// A path expression with more than one segment: a float constant, or an error.
    pub(super) fn const_path(&mut self, p: &syn::ExprPath) -> Option<ExprKind> {
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let (last, module) = segs.split_last()?;
        if let Some(ty) = float_type(module) {
            if let Some(v) = assoc_value(last, ty) {
                return Some(ExprKind::Float(v, Some(ty)));
            }
            let hint = closest(last, ASSOC_CONSTS.iter().copied())
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default();
            self.err(
                p.path.segments.last()?.ident.span(),
                format!(
                    "no constant `{last}` of `{}` in fsmooth: `INFINITY`, `NEG_INFINITY`, `NAN`, `MAX`, `MIN`, `MIN_POSITIVE`, `EPSILON`, and the `consts` module's{hint}",
                    module.join("::")
                ),
            );
            return None;
        }
        let Some(ty) = consts_module(module) else {
            self.err(
                p.span(),
                format!(
                    "`{}` is not part of fsmooth: paths name Rust's float constants, `std::f64::consts::PI`, `core::f32::consts::TAU`, `f64::INFINITY`",
                    p.to_token_stream().to_string().replace(' ', "")
                ),
            );
            return None;
        };
        match value(last, ty) {
            Some(v) => Some(ExprKind::Float(v, Some(ty))),
            None => {
                self.unknown_const(last, p.path.segments.last()?.ident.span(), module);
                None
            }
        }
    }

    fn unknown_const(&mut self, last: &str, span: Span, module: &[String]) {
        let hint = closest(last, FLOAT_CONSTS.iter().map(|(n, _)| *n))
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        self.err(
            span,
            format!("no constant `{last}` in `{}`{hint}", module.join("::")),
        );
    }

    /// A name brought in by `use std::f64::consts::..;`, as its literal.
    pub(super) fn named_const(&self, n: &str) -> Option<ExprKind> {
        let (v, ty) = self.consts.get(n)?;
        Some(ExprKind::Float(v, Some(ty)))
    }

    /// A `use` of a consts module's names (`use std::f64::consts::{PI, TAU as T};`, `::*`):
    /// returns false when the path is not a consts module (an import of another block).
    pub(super) fn use_consts(&mut self, module: &[String], tree: &syn::UseTree) -> bool {
        let Some(ty) = consts_module(module) else {
            return false;
        };
        match tree {
            syn::UseTree::Name(n) => self.bring_const(&name(&n.ident), &name(&n.ident), ty, module),
            syn::UseTree::Rename(r) => {
                self.bring_const(&name(&r.ident), &name(&r.rename), ty, module)
            }
            syn::UseTree::Glob(_) => {
                for (n, _) in FLOAT_CONSTS {
                    let v = value(n, ty).unwrap_or_default();
                    self.consts.names.push((n.to_string(), v, ty, true));
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_consts(module, t);
                }
            }
            syn::UseTree::Path(p) => {
                self.err(
                    p.span(),
                    format!(
                        "`{}` has no modules: import its constants, `use {}::PI;`",
                        module.join("::"),
                        module.join("::")
                    ),
                );
            }
        }
        true
    }

    fn bring_const(&mut self, n: &Name, alias: &Name, ty: CastTy, module: &[String]) {
        match value(&n.text, ty) {
            Some(v) => self.consts.names.push((alias.text.clone(), v, ty, false)),
            None => self.unknown_const(&n.text, n.span, module),
        }
    }
}
