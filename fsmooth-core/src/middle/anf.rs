//! `anf`: A-normal form for the scalar parts of the core IR, so that common subexpressions
//! are `let`s that [`crate::middle::cse::cse`] can share.
//!
//! Every f64 or bool operation and every load gets its own `let` in the nearest enclosing
//! scope (a loop body, an `if` branch, the right side of `&&`/`||`, which must stay
//! conditional). Arrays are not bound (that would materialise them), and `usize`
//! arithmetic stays nested so index proofs keep their unchecked `+` and `*`.

use crate::front::ast::BinOp;
use crate::middle::ir::{Core, Kind, Type, VarId};
use crate::middle::simplify::is_trivial;

/// Put `e` in A-normal form; `names` gets the new variables.
pub fn anf(e: Core, names: &mut Vec<String>) -> Core {
    Anf { names }.scope(e)
}

struct Anf<'a> {
    names: &'a mut Vec<String>,
}

type Binds = Vec<(VarId, Core)>;

/// `let v1 = x1 in .. let vn = xn in body`.
pub(crate) fn wrap(binds: Binds, body: Core) -> Core {
    binds.into_iter().rev().fold(body, |b, (v, x)| {
        let (ty, sym, span) = (b.ty.clone(), b.sym.clone(), b.span);
        Core {
            kind: Kind::Let(v, Box::new(x), Box::new(b)),
            ty,
            sym,
            span,
        }
    })
}

impl Anf<'_> {
    fn scope(&mut self, e: Core) -> Core {
        let mut b = Vec::new();
        let r = if e.ty.is_arr() {
            self.array(e, &mut b)
        } else {
            self.flat(e, &mut b)
        };
        wrap(b, r)
    }

    /// A trivial expression for `e`, binding it first if it is a scalar operation.
    fn atom(&mut self, e: Core, binds: &mut Binds) -> Core {
        let e = self.flat(e, binds);
        if is_trivial(&e) || e.ty.is_arr() || e.ty == Type::Usize {
            return e;
        }
        let v = self.names.len() as VarId;
        self.names.push("t".into());
        let var = Core {
            kind: Kind::Var(v),
            ty: e.ty.clone(),
            sym: e.sym.clone(),
            span: e.span,
        };
        binds.push((v, e));
        var
    }

    /// `e` with its operands made trivial (bindings go to `binds`).
    fn flat(&mut self, mut e: Core, binds: &mut Binds) -> Core {
        // A chain of `let`s by a loop, not a recursion: reverse mode writes long ones.
        while !e.ty.is_arr() && matches!(e.kind, Kind::Let(..)) {
            let Kind::Let(x, a, b) = e.kind else { break };
            let a = if a.ty.is_arr() {
                self.array(*a, binds)
            } else {
                self.flat(*a, binds)
            };
            binds.push((x, a));
            e = *b;
        }
        if e.ty.is_arr() {
            return self.array(e, binds);
        }
        e.kind = match e.kind {
            Kind::Bin(op @ (BinOp::And | BinOp::Or), a, b, t) => {
                let a = self.atom(*a, binds);
                Kind::Bin(op, Box::new(a), Box::new(self.scope(*b)), t)
            }
            Kind::Bin(op, a, b, t) if e.ty != Type::Usize && a.ty != Type::Usize => {
                let a = self.atom(*a, binds);
                let b = self.atom(*b, binds);
                Kind::Bin(op, Box::new(a), Box::new(b), t)
            }
            Kind::Bin(op, a, b, t) => {
                let a = self.flat(*a, binds);
                let b = self.flat(*b, binds);
                Kind::Bin(op, Box::new(a), Box::new(b), t)
            }
            Kind::Neg(a) => Kind::Neg(Box::new(self.atom(*a, binds))),
            Kind::Not(a) => Kind::Not(Box::new(self.atom(*a, binds))),
            Kind::Cast(t, a) => Kind::Cast(t, Box::new(self.atom(*a, binds))),
            Kind::Math(f, xs) => {
                Kind::Math(f, xs.into_iter().map(|x| self.atom(x, binds)).collect())
            }
            Kind::Index(a, i) => {
                let a = self.array(*a, binds);
                let i = self.flat(*i, binds);
                Kind::Index(Box::new(a), Box::new(i))
            }
            Kind::Let(x, a, b) => {
                let a = if a.ty.is_arr() {
                    self.array(*a, binds)
                } else {
                    self.flat(*a, binds)
                };
                binds.push((x, a));
                return self.flat(*b, binds);
            }
            Kind::If(c, a, b) => {
                let c = self.atom(*c, binds);
                Kind::If(
                    Box::new(c),
                    Box::new(self.scope(*a)),
                    Box::new(self.scope(*b)),
                )
            }
            Kind::Ifold(n, init, acc, i, body) => {
                let n = self.flat(*n, binds);
                let init = if init.ty.is_tuple() {
                    self.flat(*init, binds)
                } else {
                    self.atom(*init, binds)
                };
                Kind::Ifold(
                    Box::new(n),
                    Box::new(init),
                    acc,
                    i,
                    Box::new(self.scope(*body)),
                )
            }
            Kind::CheckIndex(k, len) => Kind::CheckIndex(Box::new(self.atom(*k, binds)), len),
            Kind::Iterate(init, st, cond, t, next) => {
                let init = if init.ty.is_tuple() {
                    self.flat(*init, binds)
                } else if init.ty.is_arr() {
                    self.array(*init, binds)
                } else {
                    self.atom(*init, binds)
                };
                Kind::Iterate(
                    Box::new(init),
                    st,
                    Box::new(self.scope(*cond)),
                    t,
                    Box::new(self.scope(*next)),
                )
            }
            // A tuple's components keep their places: arrays as arrays, scalars flattened.
            Kind::Tuple(xs) => Kind::Tuple(
                xs.into_iter()
                    .map(|x| {
                        if x.ty.is_arr() {
                            self.array(x, binds)
                        } else {
                            self.flat(x, binds)
                        }
                    })
                    .collect(),
            ),
            Kind::Proj(t, k) => Kind::Proj(Box::new(self.flat(*t, binds)), k),
            // A scan of a tuple state (a tuple of arrays).
            Kind::Scan(..) => return self.array(e, binds),
            k => k,
        };
        e
    }

    /// Array expressions keep their shape; their scalar parts are normalised in place.
    fn array(&mut self, mut e: Core, binds: &mut Binds) -> Core {
        e.kind = match e.kind {
            Kind::Build(n, i, body) => Kind::Build(n, i, Box::new(self.scope(*body))),
            Kind::Ifold(n, init, acc, i, body) => {
                let n = self.flat(*n, binds);
                let init = self.array(*init, binds);
                Kind::Ifold(
                    Box::new(n),
                    Box::new(init),
                    acc,
                    i,
                    Box::new(self.scope(*body)),
                )
            }
            Kind::Array(items) => Kind::Array(items.into_iter().map(|x| self.scope(x)).collect()),
            Kind::If(c, a, b) => {
                let c = self.atom(*c, binds);
                Kind::If(
                    Box::new(c),
                    Box::new(self.scope(*a)),
                    Box::new(self.scope(*b)),
                )
            }
            Kind::Let(x, a, b) => {
                let a = if a.ty.is_arr() {
                    self.array(*a, binds)
                } else {
                    self.flat(*a, binds)
                };
                binds.push((x, a));
                return self.array(*b, binds);
            }
            Kind::Index(a, i) => {
                let a = self.array(*a, binds);
                let i = self.flat(*i, binds);
                Kind::Index(Box::new(a), Box::new(i))
            }
            Kind::Slice(a, lo) => {
                let a = self.array(*a, binds);
                let lo = self.flat(*lo, binds);
                Kind::Slice(Box::new(a), Box::new(lo))
            }
            Kind::Scan(n, init, acc, i, body) => {
                let init = if init.ty.is_arr() {
                    self.array(*init, binds)
                } else {
                    self.flat(*init, binds)
                };
                Kind::Scan(n, Box::new(init), acc, i, Box::new(self.scope(*body)))
            }
            Kind::Iterate(init, st, cond, t, next) => Kind::Iterate(
                Box::new(self.array(*init, binds)),
                st,
                Box::new(self.scope(*cond)),
                t,
                Box::new(self.scope(*next)),
            ),
            Kind::Concat(a, b) => {
                let a = self.array(*a, binds);
                Kind::Concat(Box::new(a), Box::new(self.array(*b, binds)))
            }
            Kind::Reshape(a) => Kind::Reshape(Box::new(self.array(*a, binds))),
            Kind::Proj(t, k) => Kind::Proj(Box::new(self.flat(*t, binds)), k),
            k => k,
        };
        e
    }
}
