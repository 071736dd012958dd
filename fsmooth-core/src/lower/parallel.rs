//! Parallel loops (the `parallel` option): at the kernel's top level, a sum-fold over many
//! steps becomes a [`St::ParSum`] ([`Dps::parallel_sum`]: chunks on rayon's pool, each in a
//! copy of the frame, their sums added in a fixed tree) and a `build` into an output a
//! [`St::ParRows`] ([`Dps::parallel_rows`]: chunks writing their own rows).

use crate::front::ast::BinOp;
use crate::lir::{self, Base, Ex, Node, PAR_MIN_STEPS, Scalar, St};
use crate::lower::dps::{Dps, Loc, View};
use crate::middle::ir::{Core, Kind, Type, VarId};

impl Dps<'_> {
    /// `ifold(n, init, |acc, i| acc + g)` (or `g + acc`) as a parallel sum, when the
    /// `parallel` option is on, the fold is outside every loop, its count is not a constant
    /// below [`PAR_MIN_STEPS`], and its steps write nothing but their own frame slots (a
    /// step that writes an output or another buffer stays in order). `None` otherwise.
    pub(super) fn parallel_sum(&mut self, e: &Core) -> Option<Ex> {
        if !self.parallel || !self.loops.is_empty() || self.heap.is_some() {
            return None;
        }
        let Kind::Ifold(n, init, acc, i, body) = &e.kind else {
            return None;
        };
        let acc_left = adds_to(body, *acc)?;
        let elem = match e.ty {
            Type::F64 => Scalar::F64,
            Type::F32 => Scalar::F32,
            _ => return None,
        };
        let few = |c: u64| usize::try_from(c).is_ok_and(|c| c < PAR_MIN_STEPS);
        if n.sym.as_ref().and_then(|s| s.as_const()).is_some_and(few) {
            return None;
        }
        let (nt, it, av, iv) = self.fold_header(n, init, *acc, *i);
        // No streams: a chunk runs `lo..hi`, not the `0..n` a stream's row is cut for.
        self.enter_plain_loop(*i, &iv);
        let step = self.scalar(body);
        self.loops.pop();
        let body = vec![St::Assign(av.clone(), step)];
        if !chunkable(&body) {
            return None;
        }
        let frame = lir::uses(&body, &Base::Scratch(Scalar::F64));
        let pre = vec![
            St::Let {
                id: av.clone(),
                mutable: true,
                usize_ty: false,
                val: it,
            },
            St::ParSum {
                acc: av.clone(),
                acc_left,
                elem,
                var: iv,
                n: nt,
                body,
                frame,
            },
        ];
        Some(Ex::Block(pre, Box::new(Ex::Var(av))))
    }
}

impl Dps<'_> {
    /// `build(n, |i| body)` written to an output (`dest`) as a parallel loop, when the
    /// `parallel` option is on, the build is outside every loop, its count is not a constant
    /// below [`PAR_MIN_STEPS`], and each step writes nothing but its row and its own frame
    /// slots. Steps are independent, so the outputs are those of the loop in order. `None`
    /// otherwise.
    pub(super) fn parallel_rows(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        if !self.parallel || !self.loops.is_empty() || self.heap.is_some() {
            return None;
        }
        if !matches!(dest.base, Base::Out | Base::OutPart(_)) {
            return None;
        }
        let Kind::Build(n, i, body) = &e.kind else {
            return None;
        };
        let few = |c: u64| usize::try_from(c).is_ok_and(|c| c < PAR_MIN_STEPS);
        if n.as_const().is_some_and(few) {
            return None;
        }
        let nt = self.sizes.get(n);
        let iv = self.local(*i);
        self.env.insert(*i, Loc::Scalar(iv.clone()));
        self.bounds.insert(*i, n.clone());
        let width = self.stride(&dest.dims[1..]).unwrap_or(Ex::Usize(1));
        let depth = self.frame.depth();
        // No streams: a chunk runs `lo..hi`, not the `0..n` a stream's row is cut for.
        self.enter_plain_loop(*i, &iv);
        let step = if body.ty.is_arr() {
            let row = self.row_of(dest, Ex::Var(iv.clone()));
            self.write(body, &row)
        } else {
            let v = self.scalar(body);
            let at = lir::plus(&dest.off, Ex::Var(iv.clone()));
            vec![St::Store(dest.base.clone(), at, v)]
        };
        self.loops.pop();
        self.frame.truncate(depth);
        let mut probe = step.clone();
        if !only_rows(&step, &dest.base) || !lir::rebase(&mut probe, &dest.base, &Ex::Usize(0)) {
            return None;
        }
        let frame = lir::uses(&step, &Base::Scratch(Scalar::F64));
        Some(vec![St::ParRows {
            var: iv,
            n: nt,
            base: dest.base.clone(),
            elem: self.elem_of(&dest.base),
            off: dest.off.clone(),
            width,
            body: step,
            frame,
        }])
    }
}

/// Whether a step writes nothing but `rows` (its own row, by construction) and the frame's
/// `f64` part, and nothing in it returns from the kernel.
fn only_rows(body: &[St], rows: &Base) -> bool {
    writes_only(body, &[rows, &Base::Scratch(Scalar::F64)])
}

/// `Some(true)` when `body` is `acc + g` after `let`s (`Some(false)`: `g + acc`), neither
/// the `let`s nor `g` reading `acc`: a step that only adds its term.
pub(super) fn adds_to(body: &Core, acc: VarId) -> Option<bool> {
    let mut cur = body;
    while let Kind::Let(_, value, rest) = &cur.kind {
        if value.mentions(acc) {
            return None;
        }
        cur = rest;
    }
    let Kind::Bin(BinOp::Add, a, b, _) = &cur.kind else {
        return None;
    };
    let is_acc = |e: &Core| matches!(e.kind, Kind::Var(v) if v == acc);
    match (is_acc(a), is_acc(b)) {
        (true, false) if !b.mentions(acc) => Some(true),
        (false, true) if !a.mentions(acc) => Some(false),
        _ => None,
    }
}

/// Whether a step can run in a chunk of its own: it writes no buffer but the frame's `f64`
/// part (each chunk has a copy of that), and nothing in it returns from the kernel.
fn chunkable(body: &[St]) -> bool {
    writes_only(body, &[&Base::Scratch(Scalar::F64)])
}

/// Whether `body` writes no buffer but those of `allowed`, takes no memory but from the
/// frame's `f64` part (a frame, a heap buffer), checks no lengths (which return from the
/// kernel), and holds no parallel loop.
fn writes_only(body: &[St], allowed: &[&Base]) -> bool {
    let mut ok = true;
    lir::walk_sts(body, &mut |n| {
        if let Node::St(s) = n {
            ok &= match s {
                St::Store(b, ..)
                | St::StoreRow(b, ..)
                | St::Fill { base: b, .. }
                | St::Copy { dst: b, .. }
                | St::AddWithin { base: b, .. } => allowed.contains(&b),
                St::Alloc { elem, .. } => *elem == Scalar::F64,
                St::Heap { .. }
                | St::Local { .. }
                | St::Frame { .. }
                | St::CheckLen { .. }
                | St::CheckColumn { .. }
                | St::ParSum { .. }
                | St::ParRows { .. } => false,
                _ => true,
            };
        }
    });
    ok
}
