//! Cutting the frame into pieces around a loop that writes it ([`frame_pieces`]): loop IR to
//! loop IR.
//!
//! A loop that writes the frame cannot read it as a stream, nor fill a row of it: the
//! stream or the fill would hold the frame borrowed while the loop stores to it. So the
//! translation loads and stores such a loop's slots one by one, each with its range check.
//! But the frame is a stack: the allocations live at a point lie one above the other in
//! the order they were made, and each access lies in its own allocation. A loop whose
//! every access to the frame is at a live allocation's first slot plus an index can run on
//! the frame cut at those first slots into pieces, slices of their own ([`St::Pieces`]).
//! Then a read at the loop's index of a piece the loop does not write is a stream, and the
//! store at the loop's index of a piece the loop touches nowhere else is a fill's slot.

use super::streams::{blocks_in, bound_in, declared_in};
use super::visit::{assigns, bodies_mut, node_uses, operands_mut, own_exprs};
use super::{
    Base, BinOp, Ex, Node, Scalar, St, Stream, Wrap, idents, mentions_var, plain_ex, rewrite_sts,
    same, unit_offset, uses_ex, wadd, walk_st, walk_sts, writes,
};
use proc_macro2::Ident;
use quote::format_ident;

/// Cut the frame into pieces around each outermost `for` loop that allocates nothing and
/// whose accesses to the frame are all placed in live allocations, where that lets one of
/// its loops read a piece as a stream or fill a row of one; then make those streams and
/// fills. Parallel loops (whose chunks run in copies of the frame) are left as they are.
pub fn frame_pieces(sts: &mut [St]) {
    Cutter::default().list(sts);
}

#[derive(Default)]
struct Cutter {
    /// The allocations live at the statement visited, in the order they were made: element
    /// type and first slot.
    live: Vec<(Scalar, Ex)>,
    /// The names of the first slots of every allocation met so far, live or not.
    seen: Vec<Ident>,
    /// The indexes of the loop being cut and of the loops inside it.
    indexes: Vec<Ident>,
    /// Names given so far (pieces and stream elements).
    named: usize,
}

/// What a node does with the frame.
enum Access<'a> {
    /// Nothing.
    None,
    /// Reads or writes the part of type `Scalar` from slot `Ex` on.
    At(Scalar, &'a Ex),
    /// Uses it in a way that does not move to a piece (its length, a row load, a copy), or
    /// takes memory of its own.
    Other,
}

fn access(n: Node<'_>) -> Access<'_> {
    match n {
        Node::Ex(Ex::Ld(Base::Scratch(t), at)) => Access::At(*t, at),
        Node::St(St::Store(Base::Scratch(t), at, _))
        | Node::St(St::Fill {
            base: Base::Scratch(t),
            off: Some(at),
            ..
        })
        | Node::Stream(Stream {
            base: Base::Scratch(t),
            start: at,
            ..
        }) => Access::At(*t, at),
        Node::Ex(Ex::LdRow(Base::Scratch(_), ..) | Ex::Len(Base::Scratch(_)))
        | Node::St(
            St::StoreRow(Base::Scratch(_), ..)
            | St::Fill {
                base: Base::Scratch(_),
                ..
            }
            | St::Segment {
                base: Base::Scratch(_),
                ..
            }
            | St::AddWithin {
                base: Base::Scratch(_),
                ..
            }
            | St::Restate {
                base: Base::Scratch(_),
                ..
            }
            | St::Alloc { .. }
            | St::Heap { .. }
            | St::Local { .. }
            | St::Frame { .. }
            | St::Pieces { .. }
            | St::Rows { .. }
            | St::ParSum { .. }
            | St::ParRows { .. },
        ) => Access::Other,
        Node::St(St::Copy { dst, src, .. })
            if matches!(dst, Base::Scratch(_)) || matches!(src, Base::Scratch(_)) =>
        {
            Access::Other
        }
        _ => Access::None,
    }
}

/// The slot an offset counts from: the leftmost term of its sum.
fn root(at: &Ex) -> &Ex {
    match at {
        Ex::Wrap(Wrap::Add, a, _) => root(a),
        x => x,
    }
}

/// True when a term of the sum `at` is a literal other than 0.
fn literal_term(at: &Ex) -> bool {
    match at {
        Ex::Wrap(Wrap::Add, a, b) => literal_term(a) || literal_term(b),
        Ex::Usize(k) => *k != 0,
        _ => false,
    }
}

/// The offset with its root taken away: the index from the root's slot.
fn from_root(at: &Ex) -> Ex {
    match at {
        Ex::Wrap(Wrap::Add, a, b) => wadd(from_root(a), (**b).clone()),
        _ => Ex::Usize(0),
    }
}

impl Cutter {
    fn list(&mut self, sts: &mut [St]) {
        let depth = self.live.len();
        for s in sts.iter_mut() {
            if let St::Alloc { elem, off, .. } = s {
                if let Ex::Var(o) = off {
                    self.seen.push(o.clone());
                }
                self.live.push((*elem, off.clone()));
            } else if let Some(cut) = self.cut(s) {
                *s = cut;
            } else {
                self.inside(s);
            }
        }
        self.live.truncate(depth);
    }

    /// The statement lists inside `s` (a parallel loop's excepted).
    fn inside(&mut self, s: &mut St) {
        for e in own_exprs(s) {
            blocks_in(e, &mut |b| self.list(b));
        }
        for body in bodies_mut(s) {
            self.list(body);
        }
    }

    /// The live allocation of type `t` an access at `at` lies in, and the index in it: the
    /// one whose first slot is the access's root (a name: a literal slot could be any
    /// allocation's index); or, for an access at a sum of indexes of the loops being cut
    /// (`i`, `i + j`: no run-time offset of a buffer), the one at slot 0 when every other
    /// live allocation of `t` starts at a name.
    fn owner(&self, t: Scalar, at: &Ex) -> Option<(usize, Ex)> {
        let named = |r: &Ident| self.seen.iter().any(|s| s == r);
        if let Ex::Var(r) = root(at)
            && named(r)
        {
            let k = self
                .live
                .iter()
                .position(|(e, off)| *e == t && matches!(off, Ex::Var(o) if o == r))?;
            return Some((k, from_root(at)));
        }
        // Nor a name of one anywhere in it (`i + __z1`), nor a literal term (a first slot
        // folded into the access).
        let indexes = idents(at);
        if indexes.is_empty()
            || indexes
                .iter()
                .any(|i| named(i) || !self.indexes.contains(i))
            || literal_term(at)
        {
            return None;
        }
        let mut zero = None;
        for (k, (e, off)) in self.live.iter().enumerate() {
            match off {
                _ if *e != t => {}
                Ex::Usize(0) if zero.is_none() => zero = Some(k),
                Ex::Var(_) => {}
                _ => return None,
            }
        }
        zero.map(|k| (k, at.clone()))
    }

    /// `s` on the frame cut into pieces, when it is a `for` loop that can be and that then
    /// makes a stream or a fill.
    fn cut(&mut self, s: &St) -> Option<St> {
        if !matches!(s, St::For { .. }) {
            return None;
        }
        self.indexes.clear();
        walk_st(s, &mut |n| {
            if let Node::St(St::For { var, .. } | St::Fill { var, .. }) = n {
                self.indexes.push(var.clone());
            }
        });
        let (mut part, mut owners, mut placed) = (None, Vec::new(), true);
        walk_st(s, &mut |n| match access(n) {
            Access::None => {}
            Access::Other => placed = false,
            Access::At(t, at) => match self.owner(t, at).map(|(k, _)| k) {
                Some(k) if part.is_none_or(|p| p == t) => {
                    part = Some(t);
                    owners.push(k);
                }
                _ => placed = false,
            },
        });
        let part = part.filter(|_| placed)?;
        owners.sort_unstable();
        owners.dedup();
        let names: Vec<Ident> = owners.iter().map(|_| self.name("__piece")).collect();
        let mut body = vec![s.clone()];
        let place = |at: &Ex| {
            let (k, index) = self.owner(part, at)?;
            let p = owners.iter().position(|&o| o == k)?;
            Some((Base::Piece(names[p].clone()), index))
        };
        retarget(&mut body, part, &place);
        let mut made = 0;
        self.streams_and_fills(&mut body, &names, &mut made);
        (made > 0).then(|| St::Pieces {
            elem: part,
            pieces: names
                .iter()
                .zip(&owners)
                .map(|(id, &k)| (id.clone(), self.live[k].1.clone()))
                .collect(),
            body,
        })
    }

    fn name(&mut self, prefix: &str) -> Ident {
        self.named += 1;
        format_ident!("{}{}", prefix, self.named)
    }

    /// Every `for` loop under `sts`, outermost first: its reads of pieces as streams, its
    /// store to one as a fill ([`Cutter::one_loop`]).
    fn streams_and_fills(&mut self, sts: &mut [St], pieces: &[Ident], made: &mut usize) {
        for s in sts.iter_mut() {
            for e in own_exprs(s) {
                blocks_in(e, &mut |b| self.streams_and_fills(b, pieces, made));
            }
            if matches!(s, St::For { .. }) {
                *made += self.one_loop(s, pieces);
            }
            for body in bodies_mut(s) {
                self.streams_and_fills(body, pieces, made);
            }
        }
    }

    /// One `for` loop: the reads at its index of pieces it does not write, where every step
    /// makes them, become streams; a store at its index to a piece it uses nowhere else, made
    /// every step, becomes a fill's slot. How many of either.
    fn one_loop(&mut self, s: &mut St, pieces: &[Ident]) -> usize {
        let St::For {
            var,
            n,
            streams,
            body,
        } = s
        else {
            return 0;
        };
        aliases(body);
        let inside = bound_in(var, body);
        // Fixed during the loop, and evaluated before it: so it must not fail either (a loop
        // of no steps would not have evaluated it).
        let invariant = |x: &Ex| plain_ex(x) && idents(x).iter().all(|i| !inside.contains(i));
        let read_only: Vec<Base> = pieces
            .iter()
            .map(|p| Base::Piece(p.clone()))
            .filter(|b| !writes(body, b))
            .collect();
        let mut made = 0;
        every_step(body, &mut |e| {
            let Ex::Ld(b, at) = e else { return };
            if !read_only.contains(b) {
                return;
            }
            let Some(start) = unit_offset(at, var) else {
                return;
            };
            let start = start.unwrap_or(Ex::Usize(0));
            if !invariant(&start) {
                return;
            }
            let known = streams
                .iter()
                .find(|st| st.base == *b && st.width.is_none() && same(&st.start, &start));
            let elem = match known {
                Some(st) => st.elem.clone(),
                None => {
                    let elem = self.name("__pe");
                    streams.push(Stream {
                        base: b.clone(),
                        start,
                        elem: elem.clone(),
                        width: None,
                    });
                    elem
                }
            };
            *e = Ex::Elem(elem);
            made += 1;
        });
        // A piece read and written at the loop's index only: a stream of `&mut` elements
        // once cut ([`super::in_place_streams`]).
        made += pieces
            .iter()
            .map(|p| Base::Piece(p.clone()))
            .filter(|b| super::in_place::in_place_slot(body, b, var).is_some())
            .count();
        // A slot of an enclosing fill written in the loop keeps the loop a `for`.
        let mut slots = false;
        walk_sts(body, &mut |n| {
            slots |= matches!(n, Node::St(St::Slot(_) | St::SlotAdd(_)));
        });
        let fill = pieces.iter().filter(|_| !slots).find_map(|p| {
            let b = Base::Piece(p.clone());
            slot_store(body, &b, var, &invariant).map(|found| (b, found))
        });
        if let Some((base, found)) = fill {
            body[found.at] = found.slot;
            if found.from_let {
                body.remove(found.at - 1);
            }
            let filled = St::Fill {
                base,
                off: (!matches!(found.start, Ex::Usize(0))).then_some(found.start),
                var: var.clone(),
                n: n.clone(),
                streams: std::mem::take(streams),
                body: std::mem::take(body),
            };
            *s = filled;
            made += 1;
        }
        made
    }
}

/// A loop's store that becomes its fill's slot ([`slot_store`]).
struct SlotStore {
    /// Its position in the loop's body.
    at: usize,
    /// It stores a value the `let` just before it binds (which then goes).
    from_let: bool,
    /// The piece's slot at index 0.
    start: Ex,
    /// `*__slot = v`, or `*__slot = *__slot + t`.
    slot: St,
}

/// The store at the loop's index `var` to piece `b` that `body` makes every step, when the
/// loop uses `b` nowhere else but for reading the same slot in the stored value: as the
/// fill's `*__slot = v`, or `*__slot = *__slot + t` for `v = b[slot] + t`. A value bound by
/// the `let` just before the store (read nowhere else) is taken from there.
fn slot_store(
    body: &[St],
    b: &Base,
    var: &Ident,
    invariant: &dyn Fn(&Ex) -> bool,
) -> Option<SlotStore> {
    let at = body
        .iter()
        .position(|s| matches!(s, St::Store(x, ..) if x == b))?;
    let St::Store(_, slot_at, v) = &body[at] else {
        return None;
    };
    let start = unit_offset(slot_at, var)?.unwrap_or(Ex::Usize(0));
    if !invariant(&start) {
        return None;
    }
    let (value, from_let) = match (v, at.checked_sub(1).map(|j| &body[j])) {
        (
            Ex::Var(x),
            Some(St::Let {
                id,
                mutable: false,
                val,
                ..
            }),
        ) if id == x && !read_before_rebound(&body[at + 1..], x) => (val, true),
        _ => (v, false),
    };
    let slot = match value {
        Ex::Bin(BinOp::Add, old, t)
            if matches!(&**old, Ex::Ld(x, o) if x == b && same(o, slot_at)) && !uses_ex(t, b) =>
        {
            St::SlotAdd((**t).clone())
        }
        v if !uses_ex(v, b) => St::Slot(v.clone()),
        _ => return None,
    };
    // Every use of the piece in the body: the store, and the read of its slot if it adds.
    let mut uses_of = 0;
    walk_sts(body, &mut |n| uses_of += usize::from(node_uses(n, b)));
    let expected = 1 + usize::from(matches!(slot, St::SlotAdd(_)));
    (uses_of == expected).then_some(SlotStore {
        at,
        from_let,
        start,
        slot,
    })
}

/// True when `x` is read in `rest` before a `let` of the same name at its top level binds
/// it again (a read after that is of the new binding).
fn read_before_rebound(rest: &[St], x: &Ident) -> bool {
    let end = rest
        .iter()
        .position(|s| matches!(s, St::Let { id, .. } if id == x))
        .unwrap_or(rest.len());
    let mut hit = false;
    walk_sts(&rest[..end], &mut |n| {
        hit |= matches!(n, Node::Ex(Ex::Var(v)) if v == x);
    });
    hit
}

/// The copies of a name in a loop's body (`let a = b;` at its top level,
/// `a` bound once, `b` not bound in the body): `b` read in their place up to the statement
/// that next assigns `b`, so that an index through a copy reads as what it copies (the
/// loop's index, a running offset); copies then read nowhere go.
fn aliases(body: &mut Vec<St>) {
    let bound = declared_in(body);
    let once = |x: &Ident| bound.iter().filter(|b| *b == x).count() == 1;
    for k in 0..body.len() {
        let (x, y) = match &body[k] {
            St::Let {
                id,
                mutable: false,
                val: Ex::Var(y),
                ..
            } if once(id) && !bound.contains(y) => (id.clone(), y.clone()),
            _ => continue,
        };
        let end = (k + 1..body.len())
            .find(|&j| assigns(&body[j], std::slice::from_ref(&y)))
            .unwrap_or(body.len());
        rewrite_sts(&mut body[k + 1..end], &mut |e| {
            if matches!(e, Ex::Var(v) if *v == x) {
                *e = Ex::Var(y.clone());
                return true;
            }
            false
        });
    }
    // Copies read nowhere now go (a loop's index read by none is not counted).
    let mut k = 0;
    while k < body.len() {
        match &body[k] {
            St::Let {
                id,
                mutable: false,
                val: Ex::Var(_),
                ..
            } if !mentions_var(&body[k + 1..], id) => {
                body.remove(k);
            }
            _ => k += 1,
        }
    }
}

/// Call `f` on every expression `body` evaluates at every step: the values of its
/// statements (and of the statements of blocks in them), not inside a branch, a loop, or
/// the right side of `&&` and `||`.
pub(super) fn every_step(body: &mut [St], f: &mut dyn FnMut(&mut Ex)) {
    for s in body {
        match s {
            St::Let { val, .. }
            | St::Assign(_, val)
            | St::Slot(val)
            | St::SlotAdd(val)
            | St::Put(_, val) => always(val, f),
            St::Store(_, at, v) => {
                always(at, f);
                always(v, f);
            }
            St::If(c, ..) => always(c, f),
            St::Block(b) => every_step(b, f),
            _ => {}
        }
    }
}

fn always(e: &mut Ex, f: &mut dyn FnMut(&mut Ex)) {
    f(e);
    match e {
        Ex::Bin(BinOp::And | BinOp::Or, a, _) => always(a, f),
        Ex::Block(sts, v) => {
            every_step(sts, f);
            always(v, f);
        }
        Ex::If(c, ..) => always(c, f),
        _ => operands_mut(e).into_iter().for_each(|x| always(x, f)),
    }
}

/// Move every access to the frame's part `part` under `sts` to the piece `place` gives its
/// offset, at the offset it gives.
fn retarget(sts: &mut [St], part: Scalar, place: &dyn Fn(&Ex) -> Option<(Base, Ex)>) {
    let own = |b: &Base| *b == Base::Scratch(part);
    let mut moved = |b: &mut Base, at: &mut Ex| {
        if own(b)
            && let Some((piece, from)) = place(at)
        {
            *b = piece;
            *at = from;
        }
    };
    rewrite_sts(sts, &mut |e| {
        if let Ex::Ld(b, at) = e {
            moved(b, at);
        }
        false
    });
    retarget_sts(sts, &mut moved);
}

fn retarget_sts(sts: &mut [St], moved: &mut dyn FnMut(&mut Base, &mut Ex)) {
    for s in sts {
        for e in own_exprs(s) {
            blocks_in(e, &mut |b| retarget_sts(b, moved));
        }
        match s {
            St::Store(b, at, _) => moved(b, at),
            St::Fill {
                base,
                off,
                streams,
                body,
                ..
            } => {
                if let Some(o) = off {
                    moved(base, o);
                }
                streams
                    .iter_mut()
                    .for_each(|st| moved(&mut st.base, &mut st.start));
                retarget_sts(body, moved);
            }
            St::For { streams, body, .. } | St::Lanes { streams, body, .. } => {
                streams
                    .iter_mut()
                    .for_each(|st| moved(&mut st.base, &mut st.start));
                retarget_sts(body, moved);
            }
            St::If(_, a, b) => {
                retarget_sts(a, moved);
                retarget_sts(b, moved);
            }
            St::While(_, b) => retarget_sts(b, moved),
            St::Block(b) | St::Segment { body: b, .. } => retarget_sts(b, moved),
            _ => {}
        }
    }
}
