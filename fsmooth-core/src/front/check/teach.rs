//! Errors that teach (LANGUAGE.md section 16): a `let` that reads the name it defines, where
//! no earlier binding has that name (`let s = s + 1.0;`, a recursion written as a value),
//! names `ifold` and `scan`, which carry a value from one step to the next.

use super::elab::{Elab, Env};
use crate::front::ast::{Expr, ExprKind, Let, Sp};

impl Elab<'_> {
    /// When `l`'s value reads `l`'s own name and nothing in `env` is bound to it: report it
    /// (once, on the first read) and return true.
    pub(super) fn reads_itself(&mut self, l: &Let, env: &Env) -> bool {
        // A pattern (`(a, s)`, `[x, y]`, named by its text) defines each of its names.
        let text = l.name.text.as_str();
        let names: Vec<&str> = if text.starts_with(['(', '[']) {
            text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty() && *w != "_")
                .collect()
        } else {
            vec![text]
        };
        let found = names.into_iter().find_map(|name| {
            let unbound =
                self.lookup(env, name).is_none() && self.scope.find(self.block, name).is_none();
            unbound
                .then(|| free_read(&l.value, name).map(|at| (name, at)))
                .flatten()
        });
        let Some((name, at)) = found else {
            return false;
        };
        self.err(
            at,
            format!(
                "`{name}` is read in its own definition: fsmooth values are defined once\n  help: to update a value step by step, carry it through `ifold(n, init, |{name}, i| ..)` (its last value) or `scan(n, init, |{name}, i| ..)` (every value)"
            ),
        );
        true
    }
}

/// The first read of `name` in `e` that no binder inside `e` captures.
fn free_read(e: &Expr, name: &str) -> Option<Sp> {
    let bound = |n: &crate::front::ast::Name| n.text == name;
    match &e.kind {
        ExprKind::Var(n) if n.text == name => Some(e.span),
        ExprKind::Block(lets, tail) => {
            for l in lets {
                if let Some(at) = free_read(&l.value, name) {
                    return Some(at);
                }
                if l.name.text == name {
                    return None;
                }
            }
            free_read(tail, name)
        }
        ExprKind::Build(n, i, body) => free_read(n, name).or_else(|| {
            if bound(i) {
                None
            } else {
                free_read(body, name)
            }
        }),
        ExprKind::Ifold(n, init, acc, i, body) | ExprKind::Scan(n, init, acc, i, body) => {
            free_read(n, name)
                .or_else(|| free_read(init, name))
                .or_else(|| {
                    if bound(acc) || bound(i) {
                        None
                    } else {
                        free_read(body, name)
                    }
                })
        }
        ExprKind::Iterate(init, s, cond, t, next) => free_read(init, name)
            .or_else(|| (!bound(s)).then(|| free_read(cond, name)).flatten())
            .or_else(|| (!bound(t)).then(|| free_read(next, name)).flatten()),
        ExprKind::Scatter(sc) => free_read(&sc.m, name)
            .or_else(|| sc.ne.as_ref().and_then(|ne| free_read(ne, name)))
            .or_else(|| {
                let (a, b, op) = sc.op.as_ref()?;
                (!bound(a) && !bound(b))
                    .then(|| free_read(op, name))
                    .flatten()
            })
            .or_else(|| free_read(&sc.n, name))
            .or_else(|| (!bound(&sc.i)).then(|| free_read(&sc.body, name)).flatten()),
        ExprKind::Closure(ps, body) => {
            if ps.iter().any(bound) {
                None
            } else {
                free_read(body, name)
            }
        }
        _ => {
            let mut found = None;
            super::visit(e, &mut |c| {
                if found.is_none() {
                    found = free_read(c, name);
                }
            });
            found
        }
    }
}
