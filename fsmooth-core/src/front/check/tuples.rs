//! Tuples and scans (LANGUAGE.md section 8): tuple expressions, projections and `scan`.
//! Patterns never reach the checker: the parser turns `let (a, b) = e;` and `|(s, q), i|`
//! into a binding of the whole and projections of it.

use super::elab::{Elab, Elaborated, Env};
use super::infer::Want;
use crate::front::ast::{Expr, Name, Sp};
use crate::middle::ir::{Core, Kind, Type};

impl Elab<'_> {
    /// `(e0, e1, ..)`: every component is checked, then the tuple of their types.
    #[inline(never)]
    pub(super) fn e_tuple(&mut self, xs: &[Expr], sp: Sp, env: &Env, want: &Want) -> Elaborated {
        let parts: Vec<Elaborated> = xs
            .iter()
            .enumerate()
            .map(|(k, x)| self.expr_want(x, env, &want.part(k)))
            .collect();
        let parts: Vec<Core> = parts.into_iter().collect::<Result<_, _>>()?;
        let ty = Type::Tuple(parts.iter().map(|p| p.ty.clone()).collect());
        Ok(Core::new(Kind::Tuple(parts), ty, sp))
    }

    /// `t.k`: component k of a tuple, an error on the number when there is none.
    #[inline(never)]
    pub(super) fn e_proj(&mut self, t: &Expr, k: usize, ksp: Sp, sp: Sp, env: &Env) -> Elaborated {
        let t = self.expr(t, env)?;
        let Type::Tuple(parts) = &t.ty else {
            self.err(
                ksp,
                format!(
                    "`.{k}` takes a component of a tuple, but this is `{}`{}",
                    t.ty,
                    if t.ty.is_arr() {
                        "\n  help: an array's elements are `a[i]`"
                    } else {
                        ""
                    }
                ),
            );
            return Err(());
        };
        let Some(ty) = parts.get(k).cloned() else {
            self.err(
                ksp,
                format!(
                    "no component `{k}`: `{}` has {} components, `.0` to `.{}`",
                    t.ty,
                    parts.len(),
                    parts.len() - 1
                ),
            );
            return Err(());
        };
        let sym = match &t.kind {
            Kind::Tuple(xs) => xs[k].sym.clone(),
            _ => None,
        };
        let mut c = Core::new(Kind::Proj(Box::new(t), k), ty, sp);
        c.sym = sym;
        Ok(c)
    }
}

impl Elab<'_> {
    /// Whether a value of type `ty` fits the name it is bound to: a tuple pattern (the
    /// parser names its whole by its text, `(s, q)`) takes a tuple of as many components.
    /// Reports the mismatch on the pattern.
    pub(super) fn pattern_fits(&mut self, name: &Name, ty: &Type) -> bool {
        if let Some(parts) = array_pattern_arity(&name.text) {
            return self.array_pattern_fits(name, parts, ty);
        }
        let Some(parts) = pattern_arity(&name.text) else {
            return true;
        };
        let pat = pattern_text(&name.text);
        match ty {
            Type::Tuple(ts) if ts.len() == parts => true,
            Type::Tuple(ts) => {
                let help = if parts < ts.len() {
                    "\n  help: name every component, with `_` for those not needed".to_string()
                } else {
                    String::new()
                };
                self.err(
                    name.span,
                    format!(
                        "the pattern `{pat}` has {parts} parts, but the value is `{ty}`, a tuple of {}{help}",
                        ts.len()
                    ),
                );
                false
            }
            other => {
                let help = if other.is_arr() {
                    "\n  help: an array is taken apart by an array pattern, `let [a, b] = x;`, or by index, `x[0]`"
                } else {
                    ""
                };
                self.err(
                    name.span,
                    format!(
                        "the pattern `{pat}` takes apart a tuple, but the value is `{other}`{help}"
                    ),
                );
                false
            }
        }
    }
}

impl Elab<'_> {
    /// An array pattern (`[w, x, y, z]`, LANGUAGE.md section 16) takes an array whose length
    /// is that many elements, written as a literal (or a size that is a constant). Reports
    /// the mismatch on the pattern, naming both lengths.
    fn array_pattern_fits(&mut self, name: &Name, parts: usize, ty: &Type) -> bool {
        let pat = pattern_text(&name.text);
        let Type::Arr(_, dims) = ty else {
            let help = if ty.is_tuple() {
                format!(
                    "\n  help: a tuple is taken apart by a tuple pattern: `let ({}) = ..;`",
                    pat.trim_start_matches('[').trim_end_matches(']')
                )
            } else {
                String::new()
            };
            self.err(
                name.span,
                format!("the pattern `{pat}` takes apart an array, but the value is `{ty}`{help}"),
            );
            return false;
        };
        match dims[0].as_const() {
            Some(n) if n == parts as u64 => true,
            Some(n) => {
                self.err(
                    name.span,
                    format!(
                        "the pattern `{pat}` has {parts} element{}, but the value is `{ty}`, an array of {n}{}",
                        if parts == 1 { "" } else { "s" },
                        if (parts as u64) < n {
                            "\n  help: name every element, with `_` for those not needed"
                        } else {
                            ""
                        }
                    ),
                );
                false
            }
            None => {
                self.err(
                    name.span,
                    format!(
                        "the pattern `{pat}` takes apart an array of {parts} elements, but the value is `{ty}`, of `{}` elements: an array pattern needs a literal length\n  help: index it instead: `x[0]`, `x[1]`",
                        dims[0]
                    ),
                );
                false
            }
        }
    }
}

/// The number of elements of an array pattern's text (`[w , x , _]` has 3), or `None`.
fn array_pattern_arity(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('[')?.strip_suffix(']')?;
    Some(top_level_parts(inner))
}

/// The number of parts of a tuple pattern's text (`(s , (a , b) , _)` has 3), or `None`
/// for a plain name.
fn pattern_arity(text: &str) -> Option<usize> {
    let inner = text.strip_prefix('(')?.strip_suffix(')')?;
    Some(top_level_parts(inner))
}

/// The number of comma-separated parts of a pattern's inside, at the top level.
fn top_level_parts(inner: &str) -> usize {
    let mut depth = 0usize;
    let mut parts = 1;
    for c in inner.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => parts += 1,
            _ => {}
        }
    }
    parts
}

/// A pattern's text as a user writes it (`(s, q)`, not the token stream's `(s , q)`).
fn pattern_text(text: &str) -> String {
    text.replace(" ,", ",")
}

/// For two tuple types that differ: which component differs (`a` is what `a_is` says,
/// `b` what `b_is` says), or that the arities do.
pub(super) fn parts_note(a: &Type, b: &Type, a_is: &str, b_is: &str) -> String {
    match (a, b) {
        (Type::Tuple(xs), Type::Tuple(ys)) if xs.len() != ys.len() => format!(
            "\n  note: a tuple of {} components is not one of {}",
            xs.len(),
            ys.len()
        ),
        (Type::Tuple(xs), Type::Tuple(ys)) => xs
            .iter()
            .zip(ys)
            .enumerate()
            .find(|(_, (x, y))| !x.same(y))
            .map(|(k, (x, y))| format!("\n  note: component `.{k}`: {a_is} `{x}`, {b_is} `{y}`"))
            .unwrap_or_default(),
        (Type::Tuple(_), _) | (_, Type::Tuple(_)) => {
            "\n  note: one is a tuple and the other is not".to_string()
        }
        _ => String::new(),
    }
}

/// A name no user can write, for a value a desugaring binds.
pub(super) fn hidden(text: &str, span: Sp) -> Name {
    Name {
        text: format!("{text} "),
        span: span.start,
    }
}
