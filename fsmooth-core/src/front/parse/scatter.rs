//! `scatter_add(m, n, |i| (k, v))` and `reduce_by_index(m, ne, |a, b| op, n, |i| (k, v))`
//! (LANGUAGE.md section 15): their arguments, checked for count and closure arity.

use super::Parser;
use crate::front::ast::*;

impl Parser<'_> {
    /// The parts of a scatter call named `f` (`scatter_add` or `reduce_by_index`), or `None`
    /// (reported) when its arguments are not of the form.
    pub(super) fn scatter(&mut self, f: &Name, args: &[&syn::Expr]) -> Option<Scatter> {
        let add = f.text == "scatter_add";
        let (usage, want) = if add {
            ("`scatter_add(m, n, |i| (k, v))`", 3)
        } else {
            ("`reduce_by_index(m, ne, |a, b| op, n, |i| (k, v))`", 5)
        };
        if args.len() != want {
            self.err(
                f.span,
                format!("{usage} takes {want} arguments, found {}", args.len()),
            );
            return None;
        }
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
