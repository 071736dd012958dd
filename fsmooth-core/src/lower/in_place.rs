//! Fold states updated in place (LANGUAGE.md section 13): an `ifold` whose step gives each
//! array component of its state a new value that reads, of the old one, only the same
//! element (`build(n, |j| x[j] + alpha * p[j])`, Welford's mean), and reads nothing of the
//! old component once the new value is written, keeps that component in one buffer (its
//! destination when it has one: a state that is the result iterates in its output) and
//! writes the new value over the old one. Nothing is copied per step; a `let` inside the
//! step costs what it costs anywhere.
//!
//! The rule is [`plan`] (`lower/step_plan.rs`), on the step as the middle end leaves it; the
//! translation, here, is [`Dps::fold_in_place`]. A state with any other array component (a stencil's, which reads
//! its neighbours) keeps the two buffers of [`Dps::ifold_parts_in_pairs`].

use crate::front::size::Size;
use crate::lir::{Base, Ex, Scalar, St, plus};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::folds::{cond_in_step, lets_of};
use crate::lower::step_plan::{StepPlan, plan};
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind, Type, VarId};

/// A loop's state laid out for an update in place ([`Dps::state_in_place`]).
struct InPlaceStep<'p, 'c> {
    /// The step's plan.
    plan: &'p StepPlan<'c>,
    /// Each component's place: its one buffer, or its local.
    places: Vec<Loc>,
    /// Each component's next value: the same buffer, or a local taken at the step's end.
    nxt: Vec<Loc>,
    /// The scalar components' next values taken.
    takes: Vec<St>,
    /// The state as a whole.
    cur: Loc,
}

impl Dps<'_> {
    /// An `ifold` each of whose array components [`plan`] updates in place, into `dest`: each
    /// array component in one place (its destination, or a buffer of its own where the
    /// result does not keep it), the initial value written there, then one loop whose steps
    /// write the new values over the old ones; the scalar components in locals. `None` for
    /// any other `ifold`, and with `storage = "heap"`.
    pub(super) fn fold_in_place(&mut self, e: &Core, dest: &Loc) -> Option<Vec<St>> {
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        self.state_in_place(e, init, *acc, body, dest, |d, step| {
            let nt = d.scalar(n);
            let iv = d.fold_index(n, *i);
            d.env.insert(*acc, step.cur.clone());
            d.enter_loop(*i, &iv);
            let inner = d.frame.depth();
            let mut body = d.in_place_step(step.plan, &step.places, &step.nxt);
            body.extend(step.takes.iter().cloned());
            d.frame.truncate(inner);
            let streams = d.leave_loop_sts(&mut body, None);
            vec![St::For {
                var: iv,
                n: nt,
                streams,
                body,
            }]
        })
    }

    /// An `iterate` (LANGUAGE.md section 14) whose next state [`plan`] updates in place, as
    /// [`Dps::fold_in_place`]: `while cond { the step over the state's one place }`. An
    /// `iterate` used as a counted loop (`iterate((x, 0), |(_, k)| k < p, |(v, k)| (map(v,
    /// f), k + 1))`) needs what the `ifold` needs. `None` for any other `iterate`.
    pub(super) fn iterate_in_place(&mut self, e: &Core, dest: &Loc) -> Option<Vec<St>> {
        let Kind::Iterate(init, s, cond, t, next) = &e.kind else {
            return None;
        };
        self.state_in_place(e, init, *t, next, dest, |d, step| {
            d.env.insert(*s, step.cur.clone());
            d.env.insert(*t, step.cur.clone());
            let depth = d.frame.depth();
            let c = d.scalar(cond);
            d.frame.truncate(depth);
            // The step knows its condition holds (an index it proves in range).
            let holds = cond_in_step(cond, *s, *t, &e.ty, e.span);
            let mut body = d.guarded(&holds, true, |d| {
                d.in_place_step(step.plan, &step.places, &step.nxt)
            });
            d.frame.truncate(depth);
            body.extend(step.takes.iter().cloned());
            vec![St::While(c, body)]
        })
    }

    /// The frame of [`Dps::fold_in_place`] and [`Dps::iterate_in_place`] for a loop over a
    /// state starting at `init`, bound to `acc` in the step `body`: the places (each array
    /// component in one place, each scalar in a local and its next value), the initial value
    /// written there, then `run`'s loop, then the state copied where `dest` wants it.
    fn state_in_place(
        &mut self,
        e: &Core,
        init: &Core,
        acc: VarId,
        body: &Core,
        dest: &Loc,
        run: impl FnOnce(&mut Self, &InPlaceStep) -> Vec<St>,
    ) -> Option<Vec<St>> {
        if self.heap.is_some() {
            return None;
        }
        let tuple = e.ty.is_tuple();
        let types: Vec<&Type> = match &e.ty {
            Type::Tuple(ts) => ts.iter().collect(),
            t => vec![t],
        };
        let body = self.copies_as_builds(body, acc, tuple);
        let plan = plan(&body, acc, types.len(), tuple);
        let fits = types
            .iter()
            .zip(&plan.home)
            .all(|(t, h)| h.is_some() || !t.is_arr() && !t.is_tuple());
        if !fits || plan.home.iter().all(Option::is_none) {
            return None;
        }
        let dests: Vec<Loc> = match dest {
            Loc::Tuple(ds) if tuple && ds.len() == types.len() => ds.clone(),
            d if !tuple => vec![d.clone()],
            _ => return None,
        };
        let depth = self.frame.depth();
        let mut code = Vec::new();
        let (mut cur, mut nxt, mut takes) = (Vec::new(), Vec::new(), Vec::new());
        let mut copies = Vec::new();
        for (t, d) in types.iter().zip(&dests) {
            if t.is_arr() {
                // A small state of literal size in a local array (LLVM keeps it in
                // registers over the whole loop), copied to its destination after; else
                // in its destination, or one buffer of the frame.
                let elem = t.scalar().unwrap_or(Scalar::F64);
                let local = match d {
                    Loc::View(w) if matches!(w.base, Base::Local(_)) => None,
                    _ => self.alloc_local(elem, t.dims()),
                };
                let place = match (local, d) {
                    (Some((marker, w)), _) => {
                        code.push(marker);
                        if let Loc::View(to) = d {
                            let to = View {
                                dims: t.dims().to_vec(),
                                ..to.clone()
                            };
                            copies.push((w.clone(), to));
                        }
                        w
                    }
                    (None, Loc::View(w)) => View {
                        dims: t.dims().to_vec(),
                        ..w.clone()
                    },
                    (None, _) => {
                        let holds = Holds::State(acc);
                        let (marker, w) = self.alloc(elem, t.dims(), holds, e.span);
                        code.push(marker);
                        w
                    }
                };
                cur.push(Loc::View(place.clone()));
                nxt.push(Loc::View(place));
            } else {
                let c = self.scalar_place(t, "acc", &mut code);
                let nx = self.scalar_place(t, "next", &mut code);
                takes.push(St::Assign(c.clone(), Ex::Var(nx.clone())));
                cur.push(Loc::Scalar(c));
                nxt.push(Loc::Scalar(nx));
            }
        }
        let places = cur.clone();
        let cur = match tuple {
            true => Loc::Tuple(cur),
            false => cur[0].clone(),
        };
        code.extend(self.write_parts(init, &cur));
        let step = InPlaceStep {
            plan: &plan,
            places,
            nxt,
            takes,
            cur,
        };
        code.extend(run(self, &step));
        let parts = match &step.cur {
            Loc::Tuple(ps) => ps.clone(),
            p => vec![p.clone()],
        };
        for (c, d) in parts.iter().zip(&dests) {
            if let (Loc::Scalar(id), Loc::Scalar(to)) = (c, d) {
                code.push(St::Assign(to.clone(), Ex::Var(id.clone())));
            }
        }
        for (from, to) in copies {
            code.push(self.copy(&from, &to));
        }
        self.frame.truncate(depth);
        Some(self.small_states(vec![St::Block(code)], &step.places))
    }

    /// `body` with each component of its result that is another component of the old state
    /// as it is (`(new_s1, s1)`, Goertzel's shift) written `build(m, |j| s1[j])`: a new value
    /// that reads the old state at its own index, which [`plan`] can then update in place
    /// (in one loop with the others).
    fn copies_as_builds(&mut self, body: &Core, acc: VarId, tuple: bool) -> Core {
        let mut body = body.clone();
        if !tuple {
            return body;
        }
        let (lets, _) = lets_of(&body);
        let aliases: Vec<VarId> = lets
            .iter()
            .filter(|(_, a)| matches!(&a.kind, Kind::Proj(t, _) if matches!(t.kind, Kind::Var(w) if w == acc)))
            .map(|(v, _)| *v)
            .collect();
        let Kind::Tuple(items) = &mut body.tail_mut().kind else {
            return body;
        };
        for item in items.iter_mut() {
            let old = match &item.kind {
                Kind::Var(v) => aliases.contains(v),
                Kind::Proj(t, _) => matches!(t.kind, Kind::Var(w) if w == acc),
                _ => false,
            };
            if !old || item.ty.dims().len() != 1 {
                continue;
            }
            // Of a literal length: an array literal, as the step's other new values of that
            // length are once unrolled.
            if let Some(len) = item.ty.dims()[0].as_const().filter(|l| *l <= 16) {
                let items = (0..len)
                    .map(|k| {
                        let at = Core::size(Size::Lit(k), item.span);
                        Core::new(
                            Kind::Index(Box::new(item.clone()), Box::new(at)),
                            item.ty.elem(),
                            item.span,
                        )
                    })
                    .collect();
                *item = Core::new(Kind::Array(items), item.ty.clone(), item.span);
                continue;
            }
            let j = self.fresh_index();
            let at = Core::index_var(j, item.span);
            let elem = Core::new(
                Kind::Index(Box::new(item.clone()), Box::new(at)),
                item.ty.elem(),
                item.span,
            );
            let n = item.ty.dims()[0].clone();
            *item = Core::new(
                Kind::Build(n, j, Box::new(elem)),
                item.ty.clone(),
                item.span,
            );
        }
        body
    }

    /// The two places of each component of `e`'s state for [`Dps::ifold_parts_in_pairs`]: a
    /// component its step updates in place on its own (a `build` over itself, in no group
    /// with others: [`super::in_place::plan`]) has one, its destination or one buffer, both
    /// steps of a pair reading and writing it; the others two ([`Dps::acc_places`]).
    pub(super) fn pair_places(
        &mut self,
        e: &Core,
        dest: &Loc,
        code: &mut Vec<St>,
        steps: &mut Vec<super::tuples::Step>,
        single: &mut Vec<View>,
    ) -> (Loc, Loc) {
        let Kind::Ifold(_, _, acc, _, body) = &e.kind else {
            return self.acc_places(&e.ty, 0, true, e.span, code, steps);
        };
        let (Type::Tuple(ts), Loc::Tuple(ds)) = (&e.ty, dest) else {
            return self.acc_places(&e.ty, *acc, true, e.span, code, steps);
        };
        let plan = plan(body, *acc, ts.len(), true);
        let alone = |c: usize| {
            plan.home[c].is_some_and(|p| {
                matches!(plan.binds[p].value.kind, Kind::Build(..))
                    && !plan.groups.iter().any(|g| g.members.contains(&p))
            })
        };
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (c, (t, d)) in ts.iter().zip(ds).enumerate() {
            if t.is_arr() && alone(c) {
                let place = match d {
                    Loc::View(w) => View {
                        dims: t.dims().to_vec(),
                        ..w.clone()
                    },
                    _ => {
                        let elem = t.scalar().unwrap_or(Scalar::F64);
                        let holds = Holds::State(*acc);
                        let (marker, w) = self.alloc(elem, t.dims(), holds, e.span);
                        code.push(marker);
                        w
                    }
                };
                single.push(place.clone());
                a.push(Loc::View(place.clone()));
                b.push(Loc::View(place));
            } else {
                let (x, y) = self.acc_places(t, *acc, true, e.span, code, steps);
                a.push(x);
                b.push(y);
            }
        }
        (Loc::Tuple(a), Loc::Tuple(b))
    }

    /// One step of [`Dps::fold_in_place`]: its bindings in order, each new value written over
    /// its component (a group of them in one loop, [`Dps::fused_in_place`]), then the scalar
    /// components' next values into `nxt`.
    fn in_place_step(&mut self, plan: &StepPlan, places: &[Loc], nxt: &[Loc]) -> Vec<St> {
        // Each component in an output is replaced, read in part or not at all.
        let mut code = self.restated_all(places.iter().filter_map(|p| match p {
            Loc::View(w) => Some(w),
            _ => None,
        }));
        let mut p = 0;
        while p < plan.binds.len() {
            if let Some(g) = plan.groups.iter().find(|g| g.start() == p) {
                for &b in &g.before {
                    if let Some(v) = plan.binds[b].var {
                        // Moved before the group: not written over an array that a member
                        // bound before it in the step may read.
                        self.overwrites.remove(&v);
                        code.extend(self.bind(v, plan.binds[b].value));
                    }
                }
                code.extend(match g.literal {
                    true => self.literals_in_place(plan, &g.members, places),
                    false => self.fused_in_place(plan, &g.members, places),
                });
                p = g.end() + 1;
                continue;
            }
            let b = &plan.binds[p];
            let home = plan.home.iter().position(|h| *h == Some(p));
            match (home.map(|c| &places[c]), b.var) {
                (Some(Loc::View(w)), var) => {
                    let depth = self.frame.depth();
                    code.extend(self.write(b.value, w));
                    self.frame.truncate(depth);
                    if let Some(v) = var {
                        self.note(v, b.value);
                        self.env.insert(v, Loc::View(w.clone()));
                    }
                }
                (_, Some(v)) => code.extend(self.bind(v, b.value)),
                (_, None) => {}
            }
            p += 1;
        }
        for (item, next) in plan.items.iter().zip(nxt) {
            if let Loc::Scalar(id) = next {
                let v = self.scalar(item);
                code.push(St::Assign(id.clone(), v));
            }
        }
        code
    }

    /// The array literals `group` of a step: every item of each computed (reading the old
    /// state as it was), then each stored over its component with one range check.
    fn literals_in_place(&mut self, plan: &StepPlan, group: &[usize], places: &[Loc]) -> Vec<St> {
        let mut code = Vec::new();
        let mut stores = Vec::new();
        for &q in group {
            let b = &plan.binds[q];
            let c = plan.home.iter().position(|h| *h == Some(q));
            let (Some(Loc::View(w)), Kind::Array(items)) = (c.map(|c| &places[c]), &b.value.kind)
            else {
                continue;
            };
            let mut vs = Vec::new();
            for x in items {
                let depth = self.frame.depth();
                vs.push(Ex::Var(self.scalar_temp(x, "item", &mut code)));
                self.frame.truncate(depth);
            }
            let off = w.off.clone().unwrap_or(Ex::Usize(0));
            stores.push(St::StoreRow(w.base.clone(), off, vs));
            if let Some(v) = b.var {
                self.note(v, b.value);
                self.env.insert(v, Loc::View(w.clone()));
            }
        }
        code.extend(stores);
        code
    }

    /// The bindings `group` of a step (`build`s of one count, each reading the others only
    /// at its own index) in one loop: element `j` of each computed, the later ones reading
    /// the earlier ones' from locals, then all stored over their components' element `j`.
    fn fused_in_place(&mut self, plan: &StepPlan, group: &[usize], places: &[Loc]) -> Vec<St> {
        let Kind::Build(n, j0, _) = &plan.binds[group[0]].value.kind else {
            return Vec::new();
        };
        let nt = self.sizes.get(n);
        let iv = self.local(*j0);
        // Each member's place: its component's, or none for a member only the others read.
        let mut views = Vec::new();
        for &q in group {
            let c = plan.home.iter().position(|h| *h == Some(q));
            views.push(match c.map(|c| &places[c]) {
                Some(Loc::View(w)) => Some(w.clone()),
                _ => None,
            });
        }
        self.env.insert(*j0, Loc::Scalar(iv.clone()));
        self.bounds.insert(*j0, n.clone());
        self.enter_loop(*j0, &iv);
        let depth = self.frame.depth();
        let mut body = Vec::new();
        let mut temps = Vec::new();
        let mut earlier: Vec<VarId> = Vec::new();
        for &q in group {
            let b = &plan.binds[q];
            let Kind::Build(_, j, elem) = &b.value.kind else {
                continue;
            };
            // One index for the loop (so that reads along it are streams of its context).
            let mut elem = (**elem).clone();
            if j != j0 {
                elem.subst(*j, &Core::index_var(*j0, elem.span));
            }
            own_elements(&mut elem, &earlier, *j0);
            let t = self.scalar_temp(&elem, "elem", &mut body);
            if let Some(v) = b.var {
                self.env.insert(v, Loc::Scalar(t.clone()));
                earlier.push(v);
            }
            temps.push(t);
        }
        self.frame.truncate(depth);
        for (w, t) in views.iter().zip(temps) {
            if let Some(w) = w {
                let at = plus(&w.off, Ex::Var(iv.clone()));
                body.push(St::Store(w.base.clone(), at, Ex::Var(t)));
            }
        }
        let streams = self.leave_loop_sts(&mut body, None);
        for (&q, w) in group.iter().zip(&views) {
            let b = &plan.binds[q];
            if let (Some(v), Some(w)) = (b.var, w) {
                self.note(v, b.value);
                self.env.insert(v, Loc::View(w.clone()));
            }
        }
        vec![St::For {
            var: iv,
            n: nt,
            streams,
            body,
        }]
    }
}

/// In `x`, each read `v[j]` of a variable of `vars` (an element computed earlier in the same
/// loop) becomes `v` itself, a scalar.
fn own_elements(x: &mut Core, vars: &[VarId], j: VarId) {
    if let Kind::Index(a, k) = &x.kind
        && matches!(a.kind, Kind::Var(v) if vars.contains(&v))
        && matches!(k.kind, Kind::Var(w) if w == j)
    {
        x.kind = a.kind.clone();
        return;
    }
    for c in x.children_mut() {
        own_elements(c, vars, j);
    }
}
