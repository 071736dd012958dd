//! `scan` in the translation (LANGUAGE.md section 8): each step's state written straight into
//! its row of the destination and read back from there; a scalar component kept in a local.

use crate::front::ast::BinOp;
use crate::front::size::Size;
use crate::lir::{Ex, St, plus, wadd};
use crate::lower::dps::{Dps, Loc, View};
use crate::middle::ir::{Core, Kind, Type};
use crate::middle::simplify::subst_index;
use proc_macro2::Ident;
use quote::format_ident;

impl Dps<'_> {
    /// `scan(n, init, |acc, i| body)` into `dest` (a view for a scalar or array state, a
    /// tuple of views for a tuple state). A scalar component is kept in a local and stored
    /// after each step; an array component's step i is written to row i of its destination
    /// and read from there by step i + 1, step 0 reading the initial value. With an array
    /// component, step 0 is written out before the loop over the others.
    pub(super) fn scan(&mut self, e: &Core, dest: &Loc) -> Vec<St> {
        let Kind::Scan(n, init, acc, i, body) = &e.kind else {
            return Vec::new();
        };
        let depth = self.frame.depth();
        let mut code = Vec::new();
        // The initial state, where it already is or computed once.
        let (pre, start) = match &init.kind {
            _ if init.ty.is_tuple() => self.locate(init),
            _ if init.ty.is_arr() => {
                let (pre, w) = self.view(init);
                (pre, Loc::View(w))
            }
            _ => {
                let v = self.scalar(init);
                let id = self.temp("s");
                (
                    vec![St::Let {
                        id: id.clone(),
                        mutable: false,
                        usize_ty: false,
                        val: v,
                    }],
                    Loc::Scalar(id),
                )
            }
        };
        code.extend(pre);
        // A local per scalar component: its current value, then its next one.
        let mut leaves = Vec::new();
        leaves_of(&start, dest, &mut leaves);
        let mut types = Vec::new();
        leaf_types(&init.ty, &mut types);
        let mut scalars = Vec::new();
        for ((s, d), t) in leaves.iter().zip(types) {
            if let (Loc::Scalar(s), Loc::View(_) | Loc::Nowhere) = (s, d) {
                let c = self.temp("acc");
                code.push(St::Let {
                    id: c.clone(),
                    mutable: true,
                    usize_ty: false,
                    val: Ex::Var(s.clone()),
                });
                let nx = self.scalar_place(t, "next", &mut code);
                let kept = match d {
                    Loc::View(w) => Some(w.clone()),
                    _ => None,
                };
                scalars.push((c, nx, kept));
            }
        }
        let arrays = leaves.iter().any(|(s, _)| matches!(s, Loc::View(_)));
        let nt = self.sizes.get(n);
        let iv = self.local(*i);
        self.env.insert(*i, Loc::Scalar(iv.clone()));
        self.bounds.insert(*i, n.clone());
        let cur_of = |this: &mut Self, read: Option<&Ex>| -> Loc {
            let mut si = 0;
            let mut li = 0;
            rebuild(&start, &mut |leaf| {
                let r = match leaf {
                    Loc::Scalar(_) => {
                        let id = scalars[si].0.clone();
                        si += 1;
                        Loc::Scalar(id)
                    }
                    Loc::View(w) => match (read, &leaves[li].1) {
                        (Some(r), Loc::View(d)) => Loc::View(this.row(d, ring(d, n, r))),
                        _ => Loc::View(w.clone()),
                    },
                    other => other.clone(),
                };
                li += 1;
                r
            })
        };
        let nxt_of = |this: &mut Self, at: &Ex| -> Loc {
            let mut si = 0;
            let mut li = 0;
            rebuild(&start, &mut |leaf| {
                let r = match (leaf, &leaves[li].1) {
                    (Loc::Scalar(_), _) => {
                        let id = scalars[si].1.clone();
                        si += 1;
                        Loc::Scalar(id)
                    }
                    (_, Loc::View(d)) => Loc::View(this.row(d, ring(d, n, at))),
                    (other, _) => other.clone(),
                };
                li += 1;
                r
            })
        };
        let finish = |at: &Ex| -> Vec<St> {
            let mut out = Vec::new();
            for (c, nx, d) in &scalars {
                out.push(St::Assign(c.clone(), Ex::Var(nx.clone())));
                if let Some(d) = d {
                    out.push(St::Store(
                        d.base.clone(),
                        plus(&d.off, at.clone()),
                        Ex::Var(c.clone()),
                    ));
                }
            }
            out
        };
        let peel = match arrays {
            false => self.leading_interior(n, *i, body),
            true => None,
        };
        if let Some((c0, inside)) = peel {
            // Scalar states and a step testing its index (`if i == 0 { x[0] } else { .. }`):
            // the first `c0` steps whole, the rest with the tests decided, the state kept in
            // the same locals.
            let cur = cur_of(self, None);
            self.env.insert(*acc, cur);
            let lo = self.temp("lo");
            let c0e = Ex::Usize(c0);
            let short = Ex::Bin(BinOp::Lt, Box::new(nt.clone()), Box::new(c0e.clone()));
            code.push(St::let_usize(
                &lo,
                Ex::If(Box::new(short), Box::new(nt.clone()), Box::new(c0e)),
            ));
            self.enter_plain_loop(*i, &iv);
            let nxt = nxt_of(self, &Ex::Var(iv.clone()));
            let mut first = self.write_parts(body, &nxt);
            self.loops.pop();
            first.extend(finish(&Ex::Var(iv.clone())));
            code.push(St::For {
                var: iv,
                n: Ex::Var(lo.clone()),
                streams: Vec::new(),
                body: first,
            });
            // Step j of the rest is i = j + c0.
            let j = self.fresh_index();
            let jv = format_ident!("j_{}", j);
            self.env.insert(j, Loc::Scalar(jv.clone()));
            self.bounds
                .insert(j, Size::minus(n.clone(), Size::Lit(c0 as u64)));
            let span = inside.span;
            let mut at = Core::new(Kind::Var(j), Type::Usize, span);
            at.sym = Some(Size::Loop(j));
            let shifted = Core::usize_bin(
                BinOp::Add,
                at,
                Core::size(Size::Lit(c0 as u64), span),
                "i",
                span,
            );
            let step_core = subst_index(*i, &shifted, inside, span);
            let at = wadd(Ex::Var(jv.clone()), Ex::Usize(c0));
            let rest = Ex::Wrap(
                crate::lir::Wrap::Sub,
                Box::new(nt.clone()),
                Box::new(Ex::Var(lo)),
            );
            self.enter_loop(j, &jv);
            let nxt = nxt_of(self, &at);
            let step = self.write_parts(&step_core, &nxt);
            let tail = finish(&at);
            code.push(self.scalar_steps(jv, rest, c0, step, &scalars, tail));
        } else if !arrays {
            // Scalar states only: one loop, each stored state kept in a local.
            let cur = cur_of(self, None);
            self.env.insert(*acc, cur);
            self.enter_loop(*i, &iv);
            let nxt = nxt_of(self, &Ex::Var(iv.clone()));
            let step = self.write_parts(body, &nxt);
            let tail = finish(&Ex::Var(iv.clone()));
            code.push(self.scalar_steps(iv, nt, 0, step, &scalars, tail));
        } else {
            // Step 0 from the initial state.
            let zero = Ex::Usize(0);
            let cur = cur_of(self, None);
            self.env.insert(*acc, cur);
            let mut first = vec![St::let_usize(&iv, zero.clone())];
            self.enter_plain_loop(*i, &iv);
            let nxt = nxt_of(self, &zero);
            first.extend(self.write_parts(body, &nxt));
            self.loops.pop();
            first.extend(finish(&zero));
            // Steps 1.. from the row before.
            let j = self.temp("j");
            let cur = cur_of(self, Some(&Ex::Var(j.clone())));
            self.env.insert(*acc, cur);
            let mut step = vec![St::let_usize(&iv, wadd(Ex::Var(j.clone()), Ex::Usize(1)))];
            self.enter_plain_loop(*i, &iv);
            let nxt = nxt_of(self, &Ex::Var(iv.clone()));
            step.extend(self.write_parts(body, &nxt));
            self.loops.pop();
            step.extend(finish(&Ex::Var(iv.clone())));
            let rest = Ex::Wrap(
                crate::lir::Wrap::Sub,
                Box::new(nt.clone()),
                Box::new(Ex::Usize(1)),
            );
            first.push(St::For {
                var: j,
                n: rest,
                streams: Vec::new(),
                body: step,
            });
            let some = Ex::Bin(
                crate::front::ast::BinOp::Gt,
                Box::new(nt),
                Box::new(Ex::Usize(0)),
            );
            code.push(St::If(some, first, Vec::new()));
        }
        self.frame.truncate(depth);
        vec![St::Block(code)]
    }
}

impl Dps<'_> {
    /// The loop `var in 0..n` of a scan's steps of scalar states from step `from` on, its
    /// context entered: `step` computes the next states, `tail` takes them and stores the
    /// kept ones. One stored state (a scalar scan, or a tuple scan read for one component):
    /// the loop iterates the destination's slots themselves, with no bounds check, unless the
    /// step reads that buffer (another part of the frame), which the loop would then hold
    /// borrowed.
    fn scalar_steps(
        &mut self,
        var: Ident,
        n: Ex,
        from: usize,
        mut step: Vec<St>,
        scalars: &[(Ident, Ident, Option<View>)],
        tail: Vec<St>,
    ) -> St {
        let stored: Vec<&View> = scalars.iter().filter_map(|(_, _, d)| d.as_ref()).collect();
        let slots = match stored.as_slice() {
            [d] => {
                let whole = Ex::Block(step.clone(), Box::new(Ex::Bool(false)));
                (!self.reads(&whole, &d.base)).then(|| (*d).clone())
            }
            _ => None,
        };
        let Some(d) = slots else {
            step.extend(tail);
            let streams = self.leave_loop_sts(&mut step, None);
            crate::lir::drop_unread_lets(&mut step);
            return St::For {
                var,
                n,
                streams,
                body: step,
            };
        };
        for (c, nx, kept) in scalars {
            step.push(St::Assign(c.clone(), Ex::Var(nx.clone())));
            if kept.is_some() {
                step.push(St::Slot(Ex::Var(c.clone())));
            }
        }
        let streams = self.leave_loop_sts(&mut step, Some(&d.base));
        crate::lir::drop_unread_lets(&mut step);
        let inner = match from {
            0 => d,
            k => View {
                off: Some(plus(&d.off, Ex::Usize(k))),
                ..d
            },
        };
        crate::lower::dps::fill(&inner, &var, &n, streams, step)
    }
}

/// The place of a scan's array state nothing reads after it (`ty`, the state's rows): two
/// rows, which the steps take in turn ([`ring`]), not one per step. `None` for a scalar
/// state (kept in a local only).
pub(super) fn two_rows(ty: &Type) -> Option<Type> {
    match ty {
        Type::Arr(elem, dims) if dims.len() >= 2 => {
            let mut two = dims.clone();
            two[0] = Size::Lit(2);
            Some(Type::Arr(*elem, two))
        }
        _ => None,
    }
}

/// Row `r` of a scan's destination `d` of the scan's `n` rows, or of two rows that the steps
/// take in turn (a state nothing reads after the scan, `Dps::bind_chain`): `r % 2` there.
fn ring(d: &View, n: &Size, r: &Ex) -> Ex {
    match d.dims.first() {
        Some(rows) if !rows.same(n) && rows.as_const() == Some(2) => {
            Ex::Bin(BinOp::Rem, Box::new(r.clone()), Box::new(Ex::Usize(2)))
        }
        _ => r.clone(),
    }
}

/// The leaves of a state's places, each beside its destination's.
fn leaves_of(start: &Loc, dest: &Loc, out: &mut Vec<(Loc, Loc)>) {
    match (start, dest) {
        (Loc::Tuple(ss), Loc::Tuple(ds)) => {
            for (s, d) in ss.iter().zip(ds) {
                leaves_of(s, d, out);
            }
        }
        (s, d) => out.push((s.clone(), d.clone())),
    }
}

/// The types of the leaves of a value of type `t`, in the order of [`leaves_of`].
fn leaf_types<'t>(t: &'t Type, out: &mut Vec<&'t Type>) {
    match t {
        Type::Tuple(ts) => ts.iter().for_each(|x| leaf_types(x, out)),
        t => out.push(t),
    }
}

/// `shape` with each leaf replaced by `f` of it, left to right.
fn rebuild(shape: &Loc, f: &mut dyn FnMut(&Loc) -> Loc) -> Loc {
    match shape {
        Loc::Tuple(ls) => Loc::Tuple(ls.iter().map(|l| rebuild(l, f)).collect()),
        leaf => f(leaf),
    }
}
