//! The forms of LANGUAGE.md sections 14 and 15 written as calls: `iterate(init, |s| cond,
//! |s| next)`, `scatter_add(m, n, |i| (k, v))` and `reduce_by_index(m, ne, |a, b| op, n,
//! |i| (k, v))`.

use super::Parser;
use crate::front::ast::*;

impl Parser<'_> {
    /// A call of `f` written as a form of sections 14 and 15 ([`is_form`]): its
    /// expression, or `None` (reported). Apart from [`Parser::expr`], whose frame every
    /// nested expression pays for.
    #[inline(never)]
    pub(super) fn form(&mut self, f: &Name, args: &[&syn::Expr]) -> Option<ExprKind> {
        if f.text != "iterate" {
            return self
                .scatter(f, args)
                .map(|s| ExprKind::Scatter(Box::new(s)));
        }
        let init = self.expr(args[0]);
        let (mut cs, cond) = self.closure(args[1], 1, "`iterate`'s condition")?;
        let (mut ns, next) = self.closure(args[2], 1, "`iterate`'s step")?;
        Some(ExprKind::Iterate(
            Box::new(init),
            cs.remove(0),
            Box::new(cond),
            ns.remove(0),
            Box::new(next),
        ))
    }

    /// The parts of a scatter call named `f` (`scatter_add` or `reduce_by_index`) whose
    /// arguments have the form's count and closures, or `None` (reported).
    fn scatter(&mut self, f: &Name, args: &[&syn::Expr]) -> Option<Scatter> {
        let add = f.text == "scatter_add";
        let m = self.expr(args[0]);
        let (ne, op, rest) = if add {
            (None, None, &args[1..])
        } else {
            let ne = self.expr(args[1]);
            let op = self.closure(args[2], 2, "`reduce_by_index`'s operation");
            let (mut ps, body) = op?;
            let b = ps.remove(1);
            let a = ps.remove(0);
            (Some(ne), Some((a, b, body)), &args[3..])
        };
        let n = self.expr(rest[0]);
        let what = format!("`{}`'s step", f.text);
        let (mut ps, body) = self.closure(rest[1], 1, &what)?;
        Some(Scatter {
            m,
            ne,
            op,
            n,
            i: ps.remove(0),
            body,
        })
    }
}

/// True when a call of `f` with `args` is written as a form of sections 14 and 15: one
/// argument per entry of its shape, a closure of that many parameters where it says so.
pub(super) fn is_form(f: &str, args: &[&syn::Expr]) -> bool {
    let shape: &[Option<usize>] = match f {
        "iterate" => &[None, Some(1), Some(1)],
        "scatter_add" => &[None, None, Some(1)],
        "reduce_by_index" => &[None, None, Some(2), None, Some(1)],
        _ => return false,
    };
    args.len() == shape.len()
        && args.iter().zip(shape).all(|(a, want)| match (a, want) {
            (syn::Expr::Closure(c), Some(n)) => c.inputs.len() == *n,
            (_, Some(_)) => false,
            (_, None) => true,
        })
}
