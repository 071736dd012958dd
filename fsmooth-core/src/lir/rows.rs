//! Rows of one length shared by a loop's accesses at one index ([`shared_rows`]): loop IR to
//! loop IR.
//!
//! A loop that reads `a[o + x]` and writes `b[o + x]` at the same index `x` (a reverse
//! sweep over a triangle: a parameter's element and its adjoint's) tests `o + x` against
//! each buffer's length at every step. Every one of those accesses is proven in bounds, so
//! whenever a step makes them all, `x` is below the least of the `len - o`: cut at `o` to
//! that length, the buffers' rows have one length, and one test of `x` serves them all.

use super::pieces::every_step;
use super::streams::{blocks_in, bound_in};
use super::visit::{assigns, bodies_mut, node_uses, own_exprs};
use super::{Base, Ex, SharedRow, St, Wrap, idents, plain_ex, rewrite_sts, same, walk_sts, writes};
use quote::format_ident;

/// Cut rows of one length around every `for` loop and fill whose steps each access several
/// buffers at one offset fixed during the loop plus one index that moves, where nothing else
/// in the loop uses those buffers ([`St::Rows`]). Inner loops first; parallel loops' bodies
/// are left as they are.
pub fn shared_rows(sts: &mut [St]) {
    let mut named = 0;
    rows_in(sts, &mut named);
}

fn rows_in(sts: &mut [St], named: &mut usize) {
    for s in sts.iter_mut() {
        for e in own_exprs(s) {
            blocks_in(e, &mut |b| rows_in(b, named));
        }
        for body in bodies_mut(s) {
            rows_in(body, named);
        }
        if let Some(wrapped) = share(s, named) {
            *s = wrapped;
        }
    }
}

/// An access a step makes: where in the body, to which buffer, at offset `off` plus `index`.
struct Access {
    at: usize,
    base: Base,
    off: Ex,
    index: Ex,
}

/// Loop `s` inside rows of the first group of its accesses that can share them.
fn share(s: &St, named: &mut usize) -> Option<St> {
    let (var, body, filled, streams) = match s {
        St::For {
            var, body, streams, ..
        } => (var, body, None, streams),
        St::Fill {
            var,
            body,
            base,
            streams,
            ..
        } => (var, body, Some(base), streams),
        _ => return None,
    };
    let inside = bound_in(var, body);
    let fixed = |e: &Ex| idents(e).iter().all(|i| !inside.contains(i));
    // The offset is evaluated before the loop: it must not fail (a loop of no steps would
    // not have evaluated it).
    let early = |e: &Ex| fixed(e) && plain_ex(e);
    let mut found = Vec::new();
    for (at, st) in body.iter().enumerate() {
        let mut note = |base: &Base, offset: &Ex| {
            if let Ex::Wrap(Wrap::Add, off, index) = offset
                && early(off)
                && !fixed(index)
                && !matches!(base, Base::Row(_))
            {
                found.push(Access {
                    at,
                    base: base.clone(),
                    off: (**off).clone(),
                    index: (**index).clone(),
                });
            }
        };
        let mut probe = [st.clone()];
        every_step(&mut probe, &mut |e| {
            if let Ex::Ld(b, offset) = e {
                note(b, offset);
            }
        });
        if let St::Store(b, offset, _) = st {
            note(b, offset);
        }
    }
    let group = found.iter().find_map(|first| {
        let key = |a: &Access| same(&a.off, &first.off) && same(&a.index, &first.index);
        let mut bases: Vec<&Base> = Vec::new();
        for a in found.iter().filter(|a| key(a)) {
            if !bases.contains(&&a.base) {
                bases.push(&a.base);
            }
        }
        // Each buffer used in the loop only by these accesses (not the fill's own, not a
        // stream), for rows borrow their buffers while the loop runs.
        bases.retain(|b| {
            let mut uses_of = 0;
            walk_sts(body, &mut |n| uses_of += usize::from(node_uses(n, b)));
            Some(*b) != filled
                && streams.iter().all(|st| st.base != **b)
                && uses_of == found.iter().filter(|a| key(a) && a.base == **b).count()
        });
        // The index the same at each of them: nothing assigns its names in between.
        let ats = found.iter().filter(|a| key(a) && bases.contains(&&a.base));
        let (lo, hi) = ats.fold((usize::MAX, 0), |(lo, hi), a| (lo.min(a.at), hi.max(a.at)));
        let names = idents(&first.index);
        let steady = (lo..=hi).all(|k| k >= body.len() || !assigns(&body[k], &names));
        (bases.len() >= 2 && steady).then(|| {
            let bases: Vec<Base> = bases.into_iter().cloned().collect();
            (first.off.clone(), first.index.clone(), bases)
        })
    })?;
    let (off, index, bases) = group;
    let rows: Vec<SharedRow> = bases
        .iter()
        .map(|b| {
            *named += 1;
            SharedRow {
                id: format_ident!("__row{}", named),
                base: b.clone(),
                mutable: writes(body, b),
            }
        })
        .collect();
    let mut inner = s.clone();
    // The group's accesses, as they were found: `off + index` (every access to the rows'
    // buffers in the loop is one of them).
    let row_of = |b: &Base, at: &Ex| match at {
        Ex::Wrap(Wrap::Add, o, x) if same(o, &off) && same(x, &index) => {
            rows.iter().find(|r| r.base == *b).map(SharedRow::named)
        }
        _ => None,
    };
    let (St::For { body: moved, .. } | St::Fill { body: moved, .. }) = &mut inner else {
        return None;
    };
    rewrite_sts(moved, &mut |e| {
        if let Ex::Ld(b, at) = e
            && let Some(row) = row_of(b, at)
        {
            *b = row;
            **at = index.clone();
        }
        false
    });
    for st in moved.iter_mut() {
        if let St::Store(b, at, _) = st
            && let Some(row) = row_of(b, at)
        {
            *b = row;
            *at = index.clone();
        }
    }
    Some(St::Rows {
        off,
        rows,
        body: vec![inner],
    })
}
