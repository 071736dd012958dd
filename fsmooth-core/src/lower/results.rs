//! Results written where they live (LANGUAGE.md section 13). A chain of `let`s whose last
//! expression gives a `let`-bound array, whole, to a destination (`let r = build(..); (r,
//! sqnorm(r))` into `out0`; `let y = a; y`) writes that array straight into the
//! destination, and every later read of the variable reads it there: no frame room, no
//! copy. The pyramid's `let l1 = half(img); let l2 = half(l1); (l1, l2, half(l2))` needs no
//! scratch at all.
//!
//! Sound because a destination is never read by the expression written into it (the D
//! translation's invariant: a fold's step reads one buffer and writes another, and an update
//! in place writes its new row to the frame first), and the components of a tuple of
//! destinations are disjoint: the only reads of a destination in the chain are then the
//! reads of the variable written there, and nothing else writes it before the chain ends.
//! The one exception is planned: an array computed in a destination before the value that
//! lives there ([`crate::lower::overwrite::homes_before`]) is read no more once that value is
//! written, or is read by it only element by element at the element being written; no
//! later array is written over such an array (`Dps::over`).

use crate::lir::{Base, St};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::folds::lets_of;
use crate::lower::overwrite::{reads_component, state_under};
use crate::lower::scans::two_rows;
use crate::lower::storage::Holds;
use crate::middle::ir::{Core, Kind, VarId};

/// The components of a destination (by their path of tuple positions) that a chain's
/// `let`s wrote in place: the chain's last expression needs no code for them.
#[derive(Default)]
pub(super) struct Homed(Vec<Vec<usize>>);

impl Homed {
    /// Whether the component at `path` is written already.
    fn has(&self, path: &[usize]) -> bool {
        self.0.iter().any(|p| p == path)
    }

    /// Whether some component within the one at `path` is written already.
    fn within(&self, path: &[usize]) -> bool {
        self.0.iter().any(|p| p.starts_with(path))
    }
}

/// The variables of `lets` that `last` gives whole to an array destination of `dest`, with
/// that destination and its path; a variable given to several, only to the first.
fn homes(
    last: &Core,
    dest: &Loc,
    lets: &[(VarId, &Core)],
    path: &mut Vec<usize>,
    found: &mut Vec<(VarId, View, Vec<usize>)>,
    parts: &mut Vec<(VarId, usize, View, Vec<usize>)>,
) {
    match (&last.kind, dest) {
        // `t.k` of a tuple the chain binds: its component k is written there.
        (Kind::Proj(t, k), Loc::View(w))
            if last.ty.is_arr()
                && matches!(t.kind, Kind::Var(tv) if lets.iter().any(|(b, a)| *b == tv && a.ty.is_tuple()))
                && !parts
                    .iter()
                    .any(|(x, c, _, _)| matches!(t.kind, Kind::Var(tv) if tv == *x) && c == k) =>
        {
            if let Kind::Var(tv) = t.kind {
                parts.push((tv, *k, w.clone(), path.clone()));
            }
        }
        (Kind::Var(v), Loc::View(w))
            if last.ty.is_arr()
                && lets.iter().any(|(b, _)| b == v)
                && !found.iter().any(|(x, _, _)| x == v) =>
        {
            found.push((*v, w.clone(), path.clone()));
        }
        (Kind::Tuple(xs), Loc::Tuple(ds)) => {
            for (k, (x, d)) in xs.iter().zip(ds).enumerate() {
                path.push(k);
                homes(x, d, lets, path, found, parts);
                path.pop();
            }
        }
        _ => {}
    }
}

impl Dps<'_> {
    /// Bind the chain of `let`s heading `e`, whose value goes to `dest`: a variable the
    /// chain's last expression gives whole to an array destination is written there (and
    /// read back from there), the others are bound as usual. Returns the statements, the
    /// last expression, and the components already written.
    pub(super) fn bind_chain<'e>(&mut self, e: &'e Core, dest: &Loc) -> (Vec<St>, &'e Core, Homed) {
        let (lets, last) = lets_of(e);
        let mut found = Vec::new();
        let mut items = Vec::new();
        homes(last, dest, &lets, &mut Vec::new(), &mut found, &mut items);
        // `let t = (tuple); let v = t.k;` with `v` homed: component k of `t` is written
        // there in the first place (`let (mean, m2) = ifold(..); (mean, ..)`).
        let mut parts: Vec<(VarId, usize, View)> = items
            .iter()
            .map(|(t, k, w, _)| (*t, *k, w.clone()))
            .collect();
        for (v, w, _) in &found {
            let Some(at) = lets.iter().position(|(x, _)| x == v) else {
                continue;
            };
            if let Kind::Proj(t, k) = &lets[at].1.kind
                && let Kind::Var(tv) = t.kind
                && lets[..at].iter().any(|(x, a)| *x == tv && a.ty.is_tuple())
            {
                parts.push((tv, *k, w.clone()));
            }
        }
        // A tuple's component read last, element by element, by the array written to a
        // destination lives there from the tuple on ([`state_under`]).
        let mut under = Vec::new();
        let read = self.bases_read(&lets, last);
        self.states_under(
            last,
            last,
            dest,
            &lets,
            &read,
            &mut Vec::new(),
            &mut parts,
            &mut under,
        );
        // And a `let` given whole to an output, computed there over a component the same
        // way (`let var = map(m2, ..); (mean, var, map(var, |v| v.sqrt()))`).
        for (v, w, _) in &found {
            let Some(at) = lets.iter().position(|(x, _)| x == v) else {
                continue;
            };
            let x = lets[at].1;
            if !matches!(w.base, Base::Out | Base::OutPart(_))
                || read.contains(&w.base)
                || matches!(x.kind, Kind::Var(_) | Kind::Proj(..))
                || *w.dims != *x.ty.dims()
            {
                continue;
            }
            let taken: Vec<(VarId, usize)> = parts.iter().map(|(t, c, _)| (*t, *c)).collect();
            if let Some((t, c)) = state_under(&lets, last, &[], (x, Some(at)), &taken)
                && self.reads_one_state(&lets, x, t)
            {
                parts.push((t, c, w.clone()));
                under.push(w.clone());
            }
        }
        // Arrays computed in a destination before the value that lives there, while it is
        // free ([`crate::lower::overwrite::homes_before`]): the last expression's, and each
        // homed variable's. (Not beside a tuple's components written in place: those hold
        // their destinations from the tuple on. Nor in a destination holding a value the
        // chain reads from outside it: a fold's state updated in place there, `add(smul(w,
        // 0.5), ifold(..))`, whose inner fold written there first lost `w`; the executor
        // differential's program 5308.)
        let mut occupants: Vec<(usize, View)> = Vec::new();
        if self.heap.is_none() && self.overwrite && parts.is_empty() {
            for (v, w, _) in &found {
                if let Some(at) = lets.iter().position(|(x, _)| x == v)
                    && !read.contains(&w.base)
                {
                    occupants.push((at, w.clone()));
                }
            }
            if let Loc::View(w) = dest
                && !read.contains(&w.base)
                && last.ty.is_arr()
                && !matches!(last.kind, Kind::Var(v) if found.iter().any(|(x, _, _)| *x == v))
            {
                occupants.push((lets.len(), w.clone()));
            }
        }
        let mut over: Vec<(VarId, View)> = Vec::new();
        let mut last_over = false;
        // Occupants with arrays before them in their place.
        let mut preceded: Vec<VarId> = Vec::new();
        for (at, w) in &occupants {
            let value = lets.get(*at).map_or(last, |(_, a)| *a);
            let taken: Vec<VarId> = over.iter().map(|(x, _)| *x).collect();
            let before = crate::lower::overwrite::homes_before(&lets, last, *at, &value.ty, &taken);
            last_over |= *at == lets.len() && !before.is_empty();
            if let (Some((v, _)), false) = (lets.get(*at), before.is_empty()) {
                preceded.push(*v);
            }
            over.extend(before.into_iter().map(|x| (x, w.clone())));
        }
        let mut stmts = Vec::new();
        let mut homed = Homed::default();
        // Before a value is written where another was (an output): that one's slots may be
        // overwritten unread.
        let restate = |d: &mut Dps<'_>, v: VarId, w: &View| match preceded.contains(&v)
            || over.iter().any(|(x, _)| *x == v)
        {
            true => d.restated_all([w]),
            false => Vec::new(),
        };
        for (at, &(v, a)) in lets.iter().enumerate() {
            if let Some((_, w)) = over.iter().find(|(x, _)| *x == v) {
                let w = View {
                    dims: a.ty.dims().to_vec(),
                    ..w.clone()
                };
                stmts.extend(restate(self, v, &w));
                let depth = self.frame.depth();
                stmts.extend(self.write(a, &w));
                self.frame.truncate(depth);
                self.note(v, a);
                self.env.insert(v, Loc::View(w));
                self.in_destination.insert(v);
                continue;
            }
            if parts.iter().any(|(t, _, _)| *t == v) {
                let mut loc = Vec::new();
                for (c, ty) in a.ty.parts().iter().enumerate() {
                    let unread = matches!(a.kind, Kind::Scan(..))
                        && !lets[at + 1..]
                            .iter()
                            .any(|(_, x)| reads_component(x, v, c, &[]))
                        && !reads_component(last, v, c, &[]);
                    // A scan's array state nothing reads after it (a Kalman filter's
                    // covariance beside the estimates it returns): two rows, not one per step.
                    let ring = unread.then(|| two_rows(ty)).flatten();
                    match parts.iter().find(|(t, k, _)| *t == v && *k == c) {
                        Some((_, _, w)) if ty.is_arr() => loc.push(Loc::View(View {
                            dims: ty.dims().to_vec(),
                            ..w.clone()
                        })),
                        // A scan's scalar state nothing reads after it (the second
                        // state of a filter, a tangent's lagged copy): kept in a local only.
                        _ if unread && ty.dims().len() == 1 => loc.push(Loc::Nowhere),
                        _ if ring.is_some() => {
                            let ring = ring.as_ref().unwrap_or(ty);
                            loc.push(self.place(ring, &Holds::value(a), a.span, &mut stmts))
                        }
                        _ if matches!(a.kind, Kind::Ifold(..)) => {
                            loc.push(self.fold_place(ty, &Holds::value(a), a.span, &mut stmts))
                        }
                        _ => loc.push(self.place(ty, &Holds::value(a), a.span, &mut stmts)),
                    }
                }
                let loc = Loc::Tuple(loc);
                stmts.extend(self.write_parts(a, &loc));
                self.env.insert(v, loc);
                // The result's `v.k` items are written with it.
                for (_, _, _, path) in items.iter().filter(|(t, ..)| *t == v) {
                    homed.0.push(path.clone());
                }
                continue;
            }
            let Some(k) = found.iter().position(|(x, _, _)| *x == v) else {
                stmts.extend(self.bind(v, a));
                continue;
            };
            if let Kind::Proj(t, _) = &a.kind
                && parts
                    .iter()
                    .any(|(tv, _, _)| matches!(t.kind, Kind::Var(x) if x == *tv))
            {
                // Written there with its tuple: read back from there.
                let (_, w, path) = found.swap_remove(k);
                self.note(v, a);
                let dims = a.ty.dims().to_vec();
                self.env.insert(v, Loc::View(View { dims, ..w }));
                homed.0.push(path);
                continue;
            }
            let (_, w, path) = found.swap_remove(k);
            self.in_destination.insert(v);
            stmts.extend(restate(self, v, &w));
            let depth = self.frame.depth();
            stmts.extend(self.write(a, &w));
            self.frame.truncate(depth);
            self.note(v, a);
            // Read back with the value's own dimensions (`w / 2 / 2` where the result says
            // `w / 4`: equal, spelled otherwise).
            let dims = a.ty.dims().to_vec();
            self.env.insert(v, Loc::View(View { dims, ..w }));
            homed.0.push(path);
        }
        // The arrays computed over those components replace them whole.
        stmts.extend(self.restated_all(&under));
        if let (true, Loc::View(w)) = (last_over, dest) {
            // The last expression is written over the first of `over`.
            stmts.extend(self.restated_all([w]));
        }
        (stmts, last, homed)
    }

    /// Whether `x` reads no array but parameters and components of tuple `t`.
    fn reads_one_state(&self, lets: &[(VarId, &Core)], x: &Core, t: VarId) -> bool {
        let mut vars = std::collections::HashSet::new();
        x.occurring(&mut vars);
        vars.iter().all(|v| {
            if *v == t {
                return true;
            }
            if let Some((_, a)) = lets.iter().find(|(b, _)| b == v) {
                return !a.ty.is_arr()
                    || matches!(&a.kind, Kind::Proj(s, _) if matches!(s.kind, Kind::Var(s) if s == t));
            }
            match self.env.get(v) {
                Some(Loc::View(w)) => matches!(w.base, Base::Param(_)),
                Some(Loc::Tuple(_)) => false,
                _ => true,
            }
        })
    }

    /// For each array of `last` (a part of the chain's last expression `root`) written whole
    /// to a view of `dest` and computed there (not a variable), a tuple component of `lets`
    /// that may live in that view first ([`state_under`]): added to `parts`, the view to
    /// `under`. Only into an output none of whose buffers `read` (what the chain reads from
    /// outside it) holds: a fold's step updating its state in place has the old state in its
    /// destination. And only for an array computed from that state alone, with parameters
    /// (Welford's variance from M2): the GMM gradient's sum of two adjoint states, one moved
    /// into its output, ran 11% and 21% slower at d = 10 and 20 (LLVM's code of the fold
    /// accumulating there), and saved only scratch.
    #[allow(clippy::too_many_arguments)]
    fn states_under(
        &self,
        root: &Core,
        last: &Core,
        dest: &Loc,
        lets: &[(VarId, &Core)],
        read: &[Base],
        path: &mut Vec<usize>,
        parts: &mut Vec<(VarId, usize, View)>,
        under: &mut Vec<View>,
    ) {
        match (&last.kind, dest) {
            (Kind::Var(_) | Kind::Proj(..), _) => {}
            (Kind::Tuple(xs), Loc::Tuple(ds)) => {
                for (k, (x, d)) in xs.iter().zip(ds).enumerate() {
                    path.push(k);
                    self.states_under(root, x, d, lets, read, path, parts, under);
                    path.pop();
                }
            }
            (_, Loc::View(w))
                if last.ty.is_arr()
                    && matches!(w.base, Base::Out | Base::OutPart(_))
                    && !read.contains(&w.base) =>
            {
                let taken: Vec<(VarId, usize)> = parts.iter().map(|(t, c, _)| (*t, *c)).collect();
                if let Some((t, c)) = state_under(lets, root, path, (last, None), &taken)
                    && self.reads_one_state(lets, last, t)
                {
                    parts.push((t, c, w.clone()));
                    under.push(w.clone());
                }
            }
            _ => {}
        }
    }

    /// The buffers holding what the chain of `lets` and `last` reads from outside it.
    fn bases_read(&self, lets: &[(VarId, &Core)], last: &Core) -> Vec<Base> {
        let mut vars = std::collections::HashSet::new();
        for e in lets.iter().map(|(_, a)| *a).chain([last]) {
            e.occurring(&mut vars);
        }
        let mut bases = Vec::new();
        for v in vars {
            if let Some(loc) = self.env.get(&v) {
                loc_bases(loc, &mut bases);
            }
        }
        bases
    }

    /// Write the last expression of a chain into `dest`, but for the components `homed`
    /// holds (at `path` and below).
    pub(super) fn write_rest(
        &mut self,
        last: &Core,
        dest: &Loc,
        homed: &Homed,
        path: &mut Vec<usize>,
    ) -> Vec<St> {
        if homed.has(path) {
            return Vec::new();
        }
        if let (true, Kind::Tuple(xs), Loc::Tuple(ds)) = (homed.within(path), &last.kind, dest) {
            let mut code = Vec::new();
            for (k, (x, d)) in xs.iter().zip(ds).enumerate() {
                path.push(k);
                let depth = self.frame.depth();
                code.extend(self.write_rest(x, d, homed, path));
                self.frame.truncate(depth);
                path.pop();
            }
            return code;
        }
        self.write_parts(last, dest)
    }
}

/// The buffers of the views in `loc`.
fn loc_bases(loc: &Loc, out: &mut Vec<Base>) {
    match loc {
        Loc::View(w) => out.push(w.base.clone()),
        Loc::Tuple(ls) => ls.iter().for_each(|l| loc_bases(l, out)),
        Loc::Scalar(_) | Loc::Nowhere => {}
    }
}
