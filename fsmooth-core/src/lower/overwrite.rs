//! Places of arrays that are dead taken by later ones (LANGUAGE.md section 13: "a loop with a
//! literal count, unrolled or not: unrolling never turns an update in place into a copy").
//! In a chain of `let`s, an array computed after an earlier `let`-bound array `x` is read
//! for the last time takes `x`'s place; so does a `build` whose elements read `x` only at
//! their own index, `x` read nowhere after it (an update in place). The steps of `let x1 =
//! step(x0); let x2 = step(x1); step(x2)` written out then need the places that `ifold(3,
//! x0, |x, _| step(x))` does: one buffer, or none for a result (an elementwise step), and
//! two buffers, or the destination and one, for a stencil (its steps in turn in each).
//!
//! Two rules use this: [`plan`], an array taking a dead array's frame buffer or local array
//! (`Dps::bind`); and [`homes_before`], arrays computed in a destination before the value
//! that lives there, while it is free (`Dps::bind_chain`).
//!
//! Sound because nothing reads the old array after the new one is written, under its name
//! or through a view of it (a row, a slice, a tuple holding it, a component of one), except
//! an update in place: element `k` of the new array is
//! computed from element `k` of the old one (and from other values) before it is stored
//! over it, whatever order the elements are computed in.

use crate::front::size::Size;
use crate::lower::folds::lets_of;
use crate::lower::step_plan::own_element;
use crate::middle::ir::{Core, Kind, VarId};
use std::collections::HashMap;

/// For every `let y` of `body` that may take the place of an earlier `let x`: `y -> x`.
/// Each place is taken by at most one later array at a time (`y`'s own place may then be
/// taken in turn).
pub(super) fn plan(body: &Core) -> HashMap<VarId, VarId> {
    let mut out = HashMap::new();
    walk(body, &mut out);
    out
}

fn walk(e: &Core, out: &mut HashMap<VarId, VarId>) {
    if let Kind::Let(..) = e.kind {
        let (lets, last) = lets_of(e);
        let uses = Uses::of(&lets, last);
        // The arrays whose places are not taken yet.
        let mut free: Vec<usize> = Vec::new();
        for k in 0..lets.len() {
            if !owns(lets[k].1) {
                continue;
            }
            let taken = free
                .iter()
                .rposition(|&x| lets[x].1.ty == lets[k].1.ty && uses.replaceable(&lets, x, k));
            if let Some(p) = taken {
                out.insert(lets[k].0, lets[free.remove(p)].0);
            }
            free.push(k);
        }
        for (_, a) in &lets {
            walk(a, out);
        }
        walk(last, out);
        return;
    }
    for c in e.children() {
        walk(c, out);
    }
}

/// The `let`s of `lets[..from]`, latest first, that may be computed in the place of the
/// value at `from` (`lets[from]`, or `last` when `from == lets.len()`), of type `ty`,
/// before it, each in turn while the place is free: an array whose last read is
/// before the next value there (or that value's update in place of it), and not in `taken`.
pub(super) fn homes_before(
    lets: &[(VarId, &Core)],
    last: &Core,
    from: usize,
    ty: &crate::middle::ir::Type,
    taken: &[VarId],
) -> Vec<VarId> {
    let uses = Uses::of(lets, last);
    let mut out = Vec::new();
    let mut next = from;
    for x in (0..from.min(lets.len())).rev() {
        let (v, a) = lets[x];
        if owns(a) && a.ty == *ty && !taken.contains(&v) {
            let ok = match next < lets.len() {
                true => uses.replaceable(lets, x, next),
                false => uses.replaceable_by_last(lets, last, x),
            };
            if ok {
                out.push(v);
                next = x;
            }
        }
    }
    out
}

/// Where each variable a chain of `let`s reads is read for the last time: the position of
/// the last `let` whose value mentions it, or `lets.len()` for the chain's last expression.
/// Computed once per chain, so that asking whether an array is dead is a lookup.
struct Uses {
    last: HashMap<VarId, usize>,
}

impl Uses {
    fn of(lets: &[(VarId, &Core)], last: &Core) -> Uses {
        let mut at = HashMap::new();
        let values = lets.iter().map(|(_, a)| *a).chain([last]);
        for (k, value) in values.enumerate() {
            let mut read = std::collections::HashSet::new();
            value.occurring(&mut read);
            for v in read {
                at.insert(v, k);
            }
        }
        Uses { last: at }
    }

    /// The last position reading `lets[x]` or a view of it (`None`: never read).
    fn last_read(&self, lets: &[(VarId, &Core)], x: usize) -> (Option<usize>, Vec<VarId>) {
        let names = views(lets, lets[x].0);
        let at = names.iter().filter_map(|v| self.last.get(v)).max().copied();
        (at, names)
    }

    /// Whether `lets[at]` (`x < at < lets.len()`) may take the place of `lets[x]`: nothing
    /// reads `x` after it, and it reads `x` not at all or updating it in place.
    fn replaceable(&self, lets: &[(VarId, &Core)], x: usize, at: usize) -> bool {
        match self.last_read(lets, x) {
            (Some(r), _) if r > at => false,
            (Some(r), names) if r == at => in_place(lets[at].1, lets[x].0, &names),
            _ => true,
        }
    }

    /// Whether the chain's `last` expression may take the place of `lets[x]`.
    fn replaceable_by_last(&self, lets: &[(VarId, &Core)], last: &Core, x: usize) -> bool {
        match self.last_read(lets, x) {
            (Some(r), names) if r == lets.len() => in_place(last, lets[x].0, &names),
            _ => true,
        }
    }
}

/// Whether `y` is a `build` (of `build`s, down to its elements) that reads `x` only at its
/// own index and none of `names` (`x` and its views) otherwise.
fn in_place(y: &Core, x: VarId, names: &[VarId]) -> bool {
    let is_x = |e: &Core| matches!(e.kind, Kind::Var(v) if v == x);
    let is_ref = |e: &Core| matches!(e.kind, Kind::Var(v) if names.contains(&v));
    own_element(y, &is_x, &is_ref)
}

/// Whether `a` computes an array into a place of its own (not a view of another).
fn owns(a: &Core) -> bool {
    a.ty.is_arr()
        && matches!(
            a.kind,
            Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
        )
}

/// `x` and the variables of `lets` bound to views of it (rows, slices, reshapes).
fn views(lets: &[(VarId, &Core)], x: VarId) -> Vec<VarId> {
    let mut names = vec![x];
    for &(v, b) in lets {
        if view_of(b, &names) {
            names.push(v);
        }
    }
    names
}

/// Whether `e` is a view of one of `names` (the variable, a row, a slice, a reshape), or a
/// tuple holding one, or a component of such a tuple: a tuple is a tuple of places, so
/// `let t = (x, s); let y = t.0` reads `x`'s place through `t` and `y`.
fn view_of(e: &Core, names: &[VarId]) -> bool {
    match &e.kind {
        Kind::Var(v) => names.contains(v),
        Kind::Index(a, _) | Kind::Slice(a, _) | Kind::Reshape(a) => {
            e.ty.is_arr() && view_of(a, names)
        }
        Kind::Proj(a, _) => (e.ty.is_arr() || e.ty.is_tuple()) && view_of(a, names),
        Kind::Tuple(xs) => xs.iter().any(|x| view_of(x, names)),
        _ => false,
    }
}

/// The component of a tuple `let` of `lets` that may live, from that `let` on, in the
/// destination of `x`, the array the chain's `last` expression writes at `path` (LANGUAGE.md
/// section 13, results written where they live): one of `x`'s type, not in `taken`, read
/// after the tuple only by `x` and there only element by element at the element being
/// written (`let (mean, m2) = ifold(..); (mean, map(m2, |v| v / n))`: `m2` iterates in the
/// second output and is divided there). `x` is the value of `lets[k]` where `x_at` is
/// `Some(k)`, a `let` the result gives whole to that destination (`let var = map(m2, ..);
/// (mean, var, map(var, |v| v.sqrt()))`): then nothing else, `last` included, may read the
/// component. Sound as [`homes_before`]: `x` reads each old element before it stores the
/// new one over it, and nothing reads the component after.
pub(super) fn state_under(
    lets: &[(VarId, &Core)],
    last: &Core,
    path: &[usize],
    (x, x_at): (&Core, Option<usize>),
    taken: &[(VarId, usize)],
) -> Option<(VarId, usize)> {
    for at in (0..lets.len()).rev() {
        let (t, a) = lets[at];
        if !a.ty.is_tuple() || x_at.is_some_and(|k| k <= at) {
            continue;
        }
        for (c, ty) in a.ty.parts().iter().enumerate() {
            // (A state of small literal length has its own place, tuned: local arrays for
            // `f64`, the frame for `f32` (`Dps::alloc_local`); in an output Goertzel's ran
            // 1.55x slower.)
            let small = Size::product(ty.dims())
                .as_const()
                .is_some_and(|l| l <= crate::lower::alloc::LOCAL_MAX);
            if *ty != x.ty || taken.contains(&(t, c)) || small {
                continue;
            }
            // The component's names: `let y = t.c` and the views of those.
            let mut names: Vec<VarId> = Vec::new();
            for &(v, b) in &lets[at + 1..] {
                if matches!(&b.kind, Kind::Proj(s, k) if *k == c && matches!(s.kind, Kind::Var(s) if s == t))
                {
                    names.extend(views(lets, v));
                }
            }
            let is_part = |e: &Core| match &e.kind {
                Kind::Var(v) => names.contains(v),
                Kind::Proj(s, k) => *k == c && matches!(s.kind, Kind::Var(s) if s == t),
                _ => false,
            };
            let reads = |e: &Core| reads_component(e, t, c, &names);
            let later_lets = lets
                .iter()
                .enumerate()
                .skip(at + 1)
                .any(|(k, (v, b))| Some(k) != x_at && !names.contains(v) && reads(b));
            let beside = match x_at {
                Some(_) => reads(last),
                None => reads_beside(last, path, &reads),
            };
            if later_lets || beside {
                continue;
            }
            if !reads_whole(x, t) && own_element(x, &is_part, &is_part) {
                return Some((t, c));
            }
        }
    }
    None
}

/// Whether `e` reads component `c` of tuple `t` (as `t.c`, `t` whole, or one of `names`).
pub(super) fn reads_component(e: &Core, t: VarId, c: usize, names: &[VarId]) -> bool {
    match &e.kind {
        Kind::Proj(s, k) if matches!(s.kind, Kind::Var(s) if s == t) => *k == c,
        Kind::Var(v) => *v == t || names.contains(v),
        _ => e.children().any(|y| reads_component(y, t, c, names)),
    }
}

/// Whether `e` reads tuple `t` whole (not as one of its components).
fn reads_whole(e: &Core, t: VarId) -> bool {
    match &e.kind {
        Kind::Proj(s, _) if matches!(s.kind, Kind::Var(s) if s == t) => false,
        Kind::Var(v) => *v == t,
        _ => e.children().any(|y| reads_whole(y, t)),
    }
}

/// Whether a part of tuple expression `last` other than the one at `path` satisfies `reads`.
fn reads_beside(last: &Core, path: &[usize], reads: &dyn Fn(&Core) -> bool) -> bool {
    match (path.split_first(), &last.kind) {
        (None, _) => false,
        (Some((k, rest)), Kind::Tuple(xs)) => xs.iter().enumerate().any(|(j, y)| match j == *k {
            true => reads_beside(y, rest, reads),
            false => reads(y),
        }),
        (Some(_), _) => reads(last),
    }
}
