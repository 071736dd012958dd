//! `dps`: destination-passing translation of the core IR into the loop IR ([`crate::lir`]):
//! the paper's D and S translations (Fig. 7).
//!
//! An array expression is translated with a destination, a [`View`] into `out` or into the
//! scratch frame, and writes its elements there; a scalar expression becomes an [`Ex`].
//! `let`-bound arrays that survived fusion get an allocation in the frame
//! ([`crate::lower::storage`]); rows and slices of arrays are views, never copies. Index loads the
//! compiler proves in bounds are plain loads and stores; others are checked and return
//! `Error::Index`.
//!
//! The state ([`Dps`]) and the two translations are here; the rest of the translation is in
//! the sibling modules of [`crate::lower`], each an `impl Dps` of its own: views of arrays
//! (`views`), allocations in the frame ([`crate::lower::storage`]), the range proofs that
//! make loads unchecked (`bounds`), loop contexts and the streams and running indexes they
//! collect (`streams`), and the blocking of sum folds (`blocking`).

use crate::front::ast::{BinOp, CastTy};
use crate::front::size::Size;
use crate::lir::{Base, Checked, Ex, Scalar, St, Stream, Wrap, plus, wadd, wmul};
use crate::lower::bounds::Guard;
use crate::lower::gathers::{Gather, Origin};
pub use crate::lower::sizes::SizeTable;
use crate::lower::storage::{Copied, Frame};
use crate::lower::streams::run_code;
use crate::middle::ir::{Core, Kernel, Kind, Type, VarId};
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::{HashMap, HashSet};

/// A rectangular view: `dims` starting at `off` in `base`, row-major.
#[derive(Clone, Debug)]
pub struct View {
    /// The buffer.
    pub base: Base,
    /// Offset in slots (`None` is 0).
    pub off: Option<Ex>,
    /// Dimensions, outermost first.
    pub dims: Vec<Size>,
}

/// What a variable of the kernel is bound to.
#[derive(Clone)]
pub(super) enum Loc {
    Scalar(Ident),
    View(View),
    /// A tuple: each component's own place.
    Tuple(Vec<Loc>),
    /// As a destination: a component nothing reads, which need not be stored (a scan's
    /// state that only the next step reads).
    Nowhere,
}

/// A loop under translation. Loads `base[start + i]` of its index `i` become streams: the
/// source row is cut once before the loop and iterated beside the index, so the loads need
/// no bounds check and the loop can vectorise.
pub(super) struct LoopCtx {
    /// The loop's index.
    pub(super) var: VarId,
    /// Its Rust name.
    pub(super) ident: Ident,
    /// The streams its body reads.
    pub(super) streams: Vec<Stream>,
    /// Loops whose header is not a `for_loop` (array bodies) take no streams, but their
    /// index may appear in inner streams' starts.
    pub(super) accepts: bool,
    /// Running indexes of the loop (see [`Dps::running`]).
    pub(super) runs: Vec<Run>,
    /// The loop takes running indexes: set for a fold's loop and a loop updating a fold's
    /// state in place (whose body runs every step to its end).
    pub(super) runs_ok: bool,
    /// The loop may become a sum in lanes ([`Dps::sum_loop`]): a whole parameter read at its
    /// index is a stream too, which the lanes cut into chunks (a load at an index LLVM
    /// cannot bound from the chunk's would be checked).
    pub(super) lanes: bool,
    /// [`Dps::narrowing`] when the loop was entered: branches opened since narrow ranges
    /// inside the loop, which its streams' starts (computed before it) cannot rely on.
    pub(super) narrowing: usize,
    /// Streams whose start was proven only with what a branch inside the loop knows (a row
    /// `c[i - 1]` in the `else` of `if i == 0`): kept only if every step reads them.
    pub(super) unsure: Vec<Ident>,
    /// [`Dps::lets_bound`] when the loop was entered: a `let` numbered below it is bound
    /// before the loop, so a stream's start may read it.
    pub(super) lets_before: usize,
}

/// A load index quadratic in its loop's index `c` (a packed triangle's `c * (2d - c - 1) /
/// 2`), kept as a running sum: `at` starts at the index for `c = 0`, and each iteration adds
/// `step`, the forward difference, which is linear in `c` and so moves by a constant `dstep`.
pub(super) struct Run {
    /// The index as a size, to share one run between loads of the same index.
    pub(super) sym: Size,
    /// The running index.
    pub(super) at: Ident,
    /// Its step, the forward difference.
    pub(super) step: Ident,
    /// The index for `c = 0`.
    pub(super) at0: Ex,
    /// The step for `c = 0`.
    pub(super) step0: Ex,
    /// How much the step moves per iteration.
    pub(super) dstep: Ex,
}

/// The translation state for one kernel.
pub struct Dps<'k> {
    pub(super) kernel: &'k Kernel,
    /// The frame plan.
    pub frame: Frame,
    /// Sizes computed at entry.
    pub sizes: SizeTable,
    pub(super) env: HashMap<VarId, Loc>,
    /// Exclusive upper bounds of loop indexes, where known before the loop.
    pub(super) bounds: HashMap<VarId, Size>,
    /// The range a loop index is known to lie in inside the branch being translated (the
    /// `else` of `if i == 0 || i == n - 1` has `1 <= i < n - 1`), narrower than its loop's.
    pub(super) guards: HashMap<VarId, Guard>,
    /// Values other than loop indexes known below a bound inside the branch being
    /// translated (`if r < m`, by [`crate::middle::cse::key`]: an element read at `r` there
    /// is in bounds).
    pub(super) below: Vec<(String, Size)>,
    /// How many branches being translated narrow a range or bound a value
    /// ([`Dps::guarded`], [`Dps::knowing_below`]).
    pub(super) narrowing: usize,
    /// Array variables bound to a view where a branch narrowed a range: the view's offset
    /// may hold only there.
    pub(super) narrowed_lets: HashSet<VarId>,
    /// The `let`-bound arrays a chain computed in its destination
    /// ([`crate::lower::overwrite::homes_before`], results written where they live).
    pub(super) in_destination: HashSet<VarId>,
    /// The loops being translated, outermost first, with the streams they read.
    pub(super) loops: Vec<LoopCtx>,
    /// Counter for the names of checked slice starts.
    pub(super) slices: usize,
    /// Rows of a literal width taken from an array at a run-time index, proven in bounds:
    /// buffer, first slot, width. A constant element of a row inside one is loaded from it
    /// ([`Dps::row_load`]), so that a bone's `t[0][3]` and `t[2][1]` share one range check.
    pub(super) blocks: Vec<(Base, Ex, usize)>,
    /// Array `let`s read inside a loop of their body (`binds::read_in_loops`): the checked parts
    /// of such a view's offset are computed where it is bound.
    pub(super) loop_read: HashSet<VarId>,
    /// The scalar `let`s translated so far (never reassigned), each numbered in order: a
    /// loop's streams may start at an offset reading those bound before it
    /// ([`LoopCtx::lets_before`]), `weights[vert][k]` after `let vert = idx[j]`.
    pub(super) lets: HashMap<String, usize>,
    /// How many scalar `let`s have been translated.
    pub(super) lets_bound: usize,
    /// Counter for the names of compiler temporaries (tuple components, scan states).
    pub(super) temps: usize,
    /// Heap buffers made so far, when each array gets its own (`storage = "heap"`).
    pub(super) heap: Option<usize>,
    /// The element type of each heap buffer made, by number.
    pub(super) heap_elems: Vec<Scalar>,
    /// The element type of each local array made, by number.
    pub(super) local_elems: Vec<Scalar>,
    /// Variables bound to a part of an index array parameter (a row `obs[j]`, an element
    /// `obs[j][0]`): where in the parameter they are.
    pub(super) origins: HashMap<VarId, Origin>,
    /// `usize` variables bound to a `min`, `max` or `clamp`, with that expression (an index
    /// `(i + 1).min(n - 1)` bound to a name is proven as the expression is).
    pub(super) capped: HashMap<VarId, Core>,
    /// Variables bound to a slice `a[lo..lo + len]` of an array variable: the array and
    /// `lo`, so that an element of the slice read along a loop is a stream of `a` at
    /// `lo + k` (`sum(a[i - 1..i + 2])` written out, as `a[i - 1] + a[i] + a[i + 1]`).
    pub(super) sliced: HashMap<VarId, (Core, Core)>,
    /// The columns of index array parameters checked at entry, so that the loops index with
    /// their elements unchecked.
    pub(super) gathers: Vec<Gather>,
    /// Take the rows of a build over a sum fold `JAMS` at a time (`Dps::jam`): set when
    /// fusion and unrolling are on.
    pub jam: bool,
    /// Write views in place ([`crate::lower::Lowering::views`]).
    pub views: bool,
    /// Run top-level sums of many steps in parallel ([`crate::lower::Lowering::parallel`]).
    pub parallel: bool,
    /// Add a float sum's terms in lanes ([`crate::lower::Lowering::reassociate`]).
    pub reassociate: bool,
    /// The `let`-bound arrays that may be written over an earlier one, `y -> x`
    /// ([`crate::lower::overwrite`]).
    pub(super) overwrites: HashMap<VarId, VarId>,
    /// The variables whose value is at most the steps a counter fold has done, so that one
    /// plus an element of them cannot overflow ([`crate::lower::counters`]).
    pub(super) counters: HashSet<VarId>,
    /// Whether arrays are written over the ones they replace at all.
    pub(super) overwrite: bool,
}

impl<'k> Dps<'k> {
    /// Start translating `kernel`, whose parameters are bound to their Rust names; with
    /// `heap_arrays`, every array gets a heap buffer of its own instead of a frame slot.
    pub fn new(kernel: &'k Kernel, heap_arrays: bool) -> Dps<'k> {
        let mut env = HashMap::new();
        for p in &kernel.params {
            let id = crate::front::ast::ident(&p.name.text, p.name.span);
            match &p.ty {
                Type::Arr(_, d) => {
                    env.insert(
                        p.id,
                        Loc::View(View {
                            base: Base::Param(id),
                            off: None,
                            dims: d.clone(),
                        }),
                    );
                }
                _ => {
                    env.insert(p.id, Loc::Scalar(id));
                }
            }
        }
        Dps {
            kernel,
            frame: Frame::default(),
            sizes: SizeTable::default(),
            env,
            bounds: HashMap::new(),
            guards: HashMap::new(),
            below: Vec::new(),
            narrowing: 0,
            narrowed_lets: HashSet::new(),
            in_destination: HashSet::new(),
            loops: Vec::new(),
            slices: 0,
            blocks: Vec::new(),
            loop_read: crate::lower::binds::read_in_loops(&kernel.body),
            lets: HashMap::new(),
            lets_bound: 0,
            temps: 0,
            heap: heap_arrays.then_some(0),
            heap_elems: Vec::new(),
            local_elems: Vec::new(),
            origins: HashMap::new(),
            capped: HashMap::new(),
            sliced: HashMap::new(),
            gathers: Vec::new(),
            jam: false,
            views: true,
            parallel: false,
            reassociate: false,
            overwrites: crate::lower::overwrite::plan(&kernel.body),
            counters: crate::lower::counters::plan(&kernel.body),
            overwrite: true,
        }
    }

    /// The Rust local for variable `v`: its source name (made a plain identifier) and its
    /// number, so that no two variables share one.
    pub(super) fn local(&self, v: VarId) -> Ident {
        let name = self
            .kernel
            .var_names
            .get(v as usize)
            .map(String::as_str)
            .unwrap_or("v");
        let name = name.trim_start_matches("r#").trim_start_matches('_');
        let name = if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
            "v"
        } else {
            name
        };
        format_ident!("{}_{}", name, v)
    }

    /// An index the compiler proved below an array's length: its `+` and `*` cannot
    /// overflow (each partial result is at most the index), so they need no check; nor can
    /// a division by a small constant. `-` and `%` keep theirs (the proof bounds the index
    /// from above only).
    pub(super) fn index_expr(&mut self, e: &Core) -> Ex {
        if let Kind::Bin(op @ (BinOp::Add | BinOp::Mul), a, b, _) = &e.kind
            && e.ty == Type::Usize
        {
            let (x, y) = (self.index_expr(a), self.index_expr(b));
            return if *op == BinOp::Add {
                wadd(x, y)
            } else {
                wmul(x, y)
            };
        }
        // `x / k` for a small constant k: x < k * (index + 1), and an f64 slice is shorter
        // than 2^60 slots, so x cannot overflow either (the triangle index's `c * (..) / 2`).
        if let Kind::Bin(BinOp::Div, a, b, _) = &e.kind
            && e.ty == Type::Usize
            && let Some(k) = b.sym.as_ref().and_then(|s| s.as_const())
            && (1..=8).contains(&k)
        {
            let x = self.index_expr(a);
            return Ex::Bin(BinOp::Div, Box::new(x), Box::new(Ex::Usize(k as usize)));
        }
        self.scalar(e)
    }

    /// Translate a scalar expression.
    pub fn scalar(&mut self, e: &Core) -> Ex {
        match &e.kind {
            Kind::Float(v) if e.ty == Type::F32 => Ex::F32(*v as f32),
            Kind::Float(v) => Ex::F64(*v),
            Kind::Bool(b) => Ex::Bool(*b),
            Kind::Size(s) => self.sizes.get(s),
            Kind::Var(v) => match self.env.get(v) {
                Some(Loc::Scalar(id)) => Ex::Var(id.clone()),
                _ => Ex::Internal("array used as a scalar"),
            },
            Kind::Let(..) => {
                // A chain of lets is one Rust block.
                let depth = self.frame.depth();
                let mut stmts = Vec::new();
                let mut cur = e;
                while let Kind::Let(v, a, b) = &cur.kind {
                    stmts.extend(self.bind(*v, a));
                    cur = b;
                }
                let body = self.scalar(cur);
                self.frame.truncate(depth);
                Ex::Block(stmts, Box::new(body))
            }
            Kind::If(c, a, b) => {
                let cond = self.scalar(c);
                let then = self.guarded(c, true, |d| d.scalar(a));
                let other = self.guarded(c, false, |d| d.scalar(b));
                Ex::If(Box::new(cond), Box::new(then), Box::new(other))
            }
            Kind::Bin(op, a, b, text) => {
                let (x, y) = (Box::new(self.scalar(a)), Box::new(self.scalar(b)));
                if e.ty == Type::Usize || (a.ty == Type::Usize && !op.is_cmp()) {
                    // Operations that provably cannot fail need no check.
                    let nonzero = b
                        .sym
                        .as_ref()
                        .and_then(|s| s.as_const())
                        .is_some_and(|c| c > 0);
                    match op {
                        BinOp::Sub if self.no_underflow(a, b) => {
                            return Ex::Wrap(Wrap::Sub, x, y);
                        }
                        BinOp::Add if self.below_a_loop_bound(e) || self.counts_up(a, b) => {
                            return Ex::Wrap(Wrap::Add, x, y);
                        }
                        BinOp::Div | BinOp::Rem if nonzero => return Ex::Bin(*op, x, y),
                        _ => {}
                    }
                    let c = match op {
                        BinOp::Add => Checked::Add,
                        BinOp::Sub => Checked::Sub,
                        BinOp::Mul => Checked::Mul,
                        BinOp::Div => Checked::Div,
                        _ => Checked::Rem,
                    };
                    return Ex::Checked(c, x, y, text.to_string());
                }
                Ex::Bin(*op, x, y)
            }
            Kind::Neg(a) => Ex::Neg(Box::new(self.scalar(a))),
            Kind::Not(a) => Ex::Not(Box::new(self.scalar(a))),
            Kind::Cast(t @ (CastTy::F64 | CastTy::F32), a)
                if a.ty == Type::Usize && self.below_a_length(a) =>
            {
                let to = match t {
                    CastTy::F32 => Scalar::F32,
                    _ => Scalar::F64,
                };
                Ex::IndexTo(to, Box::new(self.scalar(a)))
            }
            Kind::Cast(CastTy::F64, a) => Ex::ToF64(Box::new(self.scalar(a))),
            Kind::Cast(CastTy::Usize, a) => Ex::ToUsize(Box::new(self.scalar(a))),
            Kind::Cast(CastTy::F32, a) => Ex::ToF32(Box::new(self.scalar(a))),
            Kind::Math(f, xs) => Ex::Math(*f, xs.iter().map(|x| self.scalar(x)).collect()),
            Kind::Index(a, i) => {
                if let Some(e) = self.slice_element(a, i) {
                    return e;
                }
                let depth = self.frame.depth();
                let (pre, w) = self.view(a);
                let dim0 = w.dims[0].clone();
                let r = if self.in_bounds(i, &dim0) {
                    // A stream or a running index serves the loop's whole range, before any
                    // branch: only for an index proven over all of it. (Not by an entry check
                    // of an index array: that would add the check for a read a branch guards,
                    // `if idx[i] < m { t[idx[i]] }`, and such an index is no stream.)
                    let whole = !self.narrowed() || self.unguarded(|d| d.proven_below(i, &dim0));
                    let served = if whole {
                        self.stream(&w, i, a).or_else(|| self.running(&w, i))
                    } else {
                        None
                    };
                    match served {
                        Some(e) => e,
                        None => {
                            let it = self.index_expr(i);
                            match (&w.off, &it) {
                                // A constant element of a view whose offset is only known at
                                // run time (a written-out loop over `cams[i % n][3..6]`).
                                (Some(off), Ex::Usize(k)) if !matches!(off, Ex::Usize(_)) => {
                                    self.row_load(&w, off, *k)
                                }
                                _ => Ex::Ld(w.base.clone(), Box::new(plus(&w.off, it))),
                            }
                        }
                    }
                } else {
                    let it = self.scalar(i);
                    let d = self.sizes.get(&dim0);
                    let at = plus(&w.off, Ex::Check(Box::new(it), Box::new(d)));
                    Ex::Ld(w.base.clone(), Box::new(at))
                };
                self.frame.truncate(depth);
                if pre.is_empty() {
                    r
                } else {
                    Ex::Block(pre, Box::new(r))
                }
            }
            Kind::Ifold(n, init, acc, i, body) => {
                if let Some(sum) = self.parallel_sum(e) {
                    return sum;
                }
                let (nt, it, av, iv) = self.fold_header(n, init, *acc, *i);
                // A triangle's fold (count `j`) takes streams too: one row cut per `j` costs
                // less than a check per term from a fold of 4.5 terms on average (GMM, d = 10;
                // docs/BENCHMARKS.md, finding 18).
                self.enter_loop(*i, &iv);
                let lanes = self.lane_type(e).is_some();
                if let Some(c) = self.loops.last_mut() {
                    c.runs_ok = true;
                    c.lanes = lanes;
                }
                let b = self.scalar(body);
                let mut step = vec![St::Assign(av.clone(), b)];
                let runs = self.take_runs();
                let streams = self.leave_loop_sts(&mut step, None);
                let mut pre = vec![St::Let {
                    id: av.clone(),
                    mutable: true,
                    usize_ty: false,
                    val: it,
                }];
                run_code(runs, &mut pre, &mut step);
                pre.push(self.sum_loop(e, av.clone(), iv, nt, streams, step));
                Ex::Block(pre, Box::new(Ex::Var(av)))
            }
            Kind::CheckIndex(k, len) if self.in_bounds(k, len) => self.scalar(k),
            Kind::CheckIndex(k, len) => {
                let k = self.scalar(k);
                Ex::Check(Box::new(k), Box::new(self.sizes.get(len)))
            }
            Kind::Iterate(init, st, cond, nt, next) => {
                self.iterate_scalar(init, *st, cond, *nt, next)
            }
            Kind::Proj(t, k) => self.proj_scalar(t, *k),
            Kind::Build(..)
            | Kind::Array(_)
            | Kind::Slice(..)
            | Kind::Tuple(_)
            | Kind::Scan(..)
            | Kind::Concat(..)
            | Kind::Reshape(_) => Ex::Internal("array in scalar position"),
        }
    }

    /// The element type of buffer `b`.
    pub(super) fn elem_of(&self, b: &Base) -> Scalar {
        let of = |t: Option<&Type>| t.and_then(Type::scalar).unwrap_or(Scalar::F64);
        match b {
            Base::Param(id) => of(self
                .kernel
                .params
                .iter()
                .find(|p| id == p.name.text.as_str() || *id == p.name.text.trim_start_matches("r#"))
                .map(|p| &p.ty)),
            Base::Out => of(Some(&self.kernel.ret)),
            Base::OutPart(k) => of(self.kernel.ret.parts().get(*k)),
            Base::Scratch(t) => *t,
            Base::Heap(k) => self.heap_elems.get(*k).copied().unwrap_or(Scalar::F64),
            Base::Local(k) => self.local_elems.get(*k).copied().unwrap_or(Scalar::F64),
            // Rows are cut during the translation only from parameters (blocking's row
            // streams); a row of anything else is found by the buffer it is cut from.
            Base::Row(_) => Scalar::F64,
            // Pieces are cut after the translation ([`lir::frame_pieces`]).
            Base::Piece(_) => Scalar::F64,
        }
    }

    /// The values of a row's scalars, for one `st_row`: each computed in turn, the frame
    /// room one takes free again for the next.
    pub(super) fn row_values<'c>(&mut self, items: impl IntoIterator<Item = &'c Core>) -> Vec<Ex> {
        let depth = self.frame.depth();
        items
            .into_iter()
            .map(|x| {
                let v = self.scalar(x);
                self.frame.truncate(depth);
                v
            })
            .collect()
    }

    /// Translate array expression `e` into statements writing it to `dest`.
    pub fn write(&mut self, e: &Core, dest: &View) -> Vec<St> {
        if let Some(code) = self.parallel_rows(e, dest) {
            return code;
        }
        if let Some(code) = self.interchange(e, dest) {
            return code;
        }
        if let Some(code) = self.accumulate(e, dest) {
            return code;
        }
        match &e.kind {
            Kind::Build(n, i, body) => {
                let nt = self.sizes.get(n);
                let iv = self.local(*i);
                self.env.insert(*i, Loc::Scalar(iv.clone()));
                self.bounds.insert(*i, n.clone());
                if body.ty.is_arr() {
                    if let Some(code) = self.peeled(n, *i, body, dest) {
                        return code;
                    }
                    if let Some(code) = self.split(n, *i, body, dest) {
                        return code;
                    }
                    let row = self.row_of(dest, Ex::Var(iv.clone()));
                    let depth = self.frame.depth();
                    self.enter_plain_loop(*i, &iv);
                    let b = self.write(body, &row);
                    self.loops.pop();
                    self.frame.truncate(depth);
                    let rows = St::For {
                        var: iv,
                        n: nt,
                        streams: Vec::new(),
                        body: b,
                    };
                    self.rows_for_target(n, *i, body, dest, rows)
                } else {
                    if let Some(code) = self.jam(n, *i, body, dest) {
                        return code;
                    }
                    if let Some(code) = self.peeled(n, *i, body, dest) {
                        return code;
                    }
                    if let Some(code) = self.split(n, *i, body, dest) {
                        return code;
                    }
                    let depth = self.frame.depth();
                    self.enter_loop(*i, &iv);
                    let mut b = self.scalar(body);
                    self.frame.truncate(depth);
                    // The loop writes its destination's buffer: no stream from it.
                    let streams = self.leave_loop_ex(&mut b, Some(&dest.base));
                    if !self.reads(&b, &dest.base) {
                        // The body does not read the destination's buffer: iterate the
                        // destination slice itself, so there is no bounds check to remove.
                        vec![fill(dest, &iv, &nt, streams, vec![St::Slot(b)])]
                    } else {
                        let at = plus(&dest.off, Ex::Var(iv.clone()));
                        vec![St::For {
                            var: iv,
                            n: nt,
                            streams,
                            body: vec![St::Store(dest.base.clone(), at, b)],
                        }]
                    }
                }
            }
            // A row of scalars computed by straight-line code: every value computed, then
            // one store of the row (one range check where a store each made one; the values
            // free to be computed side by side in vector registers). Values under tests are
            // stored one by one: held together, LLVM computes both sides of each test
            // (Cholesky's masked sums, 14% more instructions). A pair only into the frame:
            // BA's residual pair, into the output (whose length the entry checks, so LLVM
            // drops the stores' checks), measured 0.7% dearer as a row than two stores; a
            // Jacobian's column pair into the frame 5% cheaper.
            Kind::Array(items)
                if (items.len() >= 3
                    || items.len() == 2 && matches!(dest.base, Base::Scratch(_)))
                    && items.iter().all(|x| !x.ty.is_arr() && straight(x)) =>
            {
                let vs = self.row_values(items);
                let off = dest.off.clone().unwrap_or(Ex::Usize(0));
                vec![St::StoreRow(dest.base.clone(), off, vs)]
            }
            Kind::Array(items) => {
                let mut out = Vec::new();
                let rows = dest.dims[1..].to_vec();
                let st = self.stride(&rows);
                for (k, x) in items.iter().enumerate() {
                    let depth = self.frame.depth();
                    if x.ty.is_arr() {
                        let off = match &st {
                            Some(st) => plus(&dest.off, wmul(Ex::Usize(k), st.clone())),
                            None => plus(&dest.off, Ex::Usize(k)),
                        };
                        let row = View {
                            base: dest.base.clone(),
                            off: Some(off),
                            dims: rows.clone(),
                        };
                        out.extend(self.write(x, &row));
                    } else {
                        let v = self.scalar(x);
                        let at = plus(&dest.off, Ex::Usize(k));
                        out.push(St::Block(vec![St::Store(dest.base.clone(), at, v)]));
                    }
                    self.frame.truncate(depth);
                }
                out
            }
            Kind::If(c, a, b) => {
                let cond = self.scalar(c);
                let depth = self.frame.depth();
                let a = self.guarded(c, true, |d| d.write(a, dest));
                self.frame.truncate(depth);
                let b = self.guarded(c, false, |d| d.write(b, dest));
                self.frame.truncate(depth);
                vec![St::If(cond, a, b)]
            }
            Kind::Let(..) => {
                let depth = self.frame.depth();
                let dest = Loc::View(dest.clone());
                let (mut stmts, last, homed) = self.bind_chain(e, &dest);
                stmts.extend(self.write_rest(last, &dest, &homed, &mut Vec::new()));
                self.frame.truncate(depth);
                vec![St::Block(stmts)]
            }
            Kind::Ifold(..) if let Some(code) = self.fold_through(e, dest) => code,
            Kind::Ifold(..) if let Some(code) = self.update_in_place(e, dest) => code,
            Kind::Ifold(..) if let Some(code) = self.fold_in_place(e, &Loc::View(dest.clone())) => {
                code
            }
            // Its destination and one buffer, an output or not (`sum(ifold(..))`'s value).
            Kind::Ifold(..) if self.heap.is_none() => self.iterate_in_output(e, dest),
            Kind::Ifold(..) => self.double_buffered(e, dest),
            Kind::Iterate(..)
                if let Some(code) = self.iterate_in_place(e, &Loc::View(dest.clone())) =>
            {
                code
            }
            Kind::Iterate(..) => self.iterate_parts(e, &Loc::View(dest.clone())),
            Kind::Concat(..) | Kind::Reshape(_) if !self.views => self.stored_view(e, dest),
            Kind::Concat(a, b) => self.concat(a, b, dest),
            Kind::Reshape(a) => {
                let seen = View {
                    dims: a.ty.dims().to_vec(),
                    ..dest.clone()
                };
                self.write(a, &seen)
            }
            Kind::Scan(..) => self.scan(e, &Loc::View(dest.clone())),
            Kind::Proj(t, k) if !matches!(t.kind, Kind::Var(_)) => self.write_part(t, *k, dest),
            _ => {
                // A variable, row or slice: copy its elements.
                let depth = self.frame.depth();
                let (mut pre, w) = self.view(e);
                // A value already where it goes (a fold's state as the start of the inner
                // fold run in its buffer, `Dps::fold_through`): nothing to copy.
                if w.base == dest.base
                    && crate::lir::same(
                        &w.off.clone().unwrap_or(Ex::Usize(0)),
                        &dest.off.clone().unwrap_or(Ex::Usize(0)),
                    )
                {
                    self.frame.truncate(depth);
                    return pre;
                }
                if matches!(dest.base, Base::Out | Base::OutPart(_)) {
                    self.frame.copies.push(Copied {
                        what: match e.kind {
                            Kind::Var(v) => Some(v),
                            _ => None,
                        },
                        len: Size::product(&w.dims),
                        span: e.span,
                    });
                }
                pre.push(self.copy(&w, dest));
                self.frame.truncate(depth);
                vec![St::Block(pre)]
            }
        }
    }

    /// Row `k` of the array in `dest`.
    pub(super) fn row_of(&mut self, dest: &View, k: Ex) -> View {
        let rows = dest.dims[1..].to_vec();
        let off = match self.stride(&rows) {
            Some(st) => plus(&dest.off, wmul(k, st)),
            None => plus(&dest.off, k),
        };
        View {
            base: dest.base.clone(),
            off: Some(off),
            dims: rows,
        }
    }

    /// Copy the elements of `src` to `dest` (as many as `src` has).
    pub(super) fn copy(&mut self, src: &View, dest: &View) -> St {
        let len = Size::product(&src.dims);
        let n = self.sizes.get(&len);
        let so = src.off.clone().unwrap_or(Ex::Usize(0));
        let d_o = dest.off.clone().unwrap_or(Ex::Usize(0));
        if src.base == dest.base {
            // Within one buffer (an accumulator's result into a frame slot): no two borrows.
            let k = format_ident!("__k");
            let from = Ex::Ld(src.base.clone(), Box::new(wadd(so, Ex::Var(k.clone()))));
            let to = wadd(d_o, Ex::Var(k.clone()));
            St::For {
                var: k,
                n,
                streams: Vec::new(),
                body: vec![St::Store(dest.base.clone(), to, from)],
            }
        } else {
            St::Copy {
                dst: dest.base.clone(),
                dst_off: d_o,
                src: src.base.clone(),
                src_off: so,
                n,
            }
        }
    }
}

/// A loop over the `n` slots of `dest` (as `__slot`) with index `i` and the streams.
pub(super) fn fill(dest: &View, i: &Ident, n: &Ex, streams: Vec<Stream>, body: Vec<St>) -> St {
    St::Fill {
        base: dest.base.clone(),
        off: dest.off.clone(),
        var: i.clone(),
        n: n.clone(),
        streams,
        body,
    }
}

/// Whether `e` is straight-line code: no test, no loop.
pub(super) fn straight(e: &Core) -> bool {
    !matches!(
        e.kind,
        Kind::If(..) | Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
    ) && e.children().all(straight)
}
