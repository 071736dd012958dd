//! `dps`: destination-passing translation of the core IR into the loop IR ([`crate::lir`]):
//! the paper's D and S translations (Fig. 7).
//!
//! An array expression is translated with a destination, a [`View`] into `out` or into the
//! scratch frame, and writes its elements there; a scalar expression becomes an [`Ex`].
//! `let`-bound arrays that survived fusion get an allocation in the frame
//! ([`crate::lower::storage`]); rows and slices of arrays are views, never copies. Index loads the
//! compiler proves in bounds are plain loads and stores; others are checked and return
//! `Error::Index`.

use crate::front::ast::{BinOp, CastTy};
use crate::front::size::{Atom, Size, names_nonneg};
use crate::lir::{self, Base, Checked, Ex, St, Stream, Wrap, plus, wadd, wmul};
use crate::lower::storage::{Frame, Holds};
use crate::middle::ir::{Core, Kernel, Kind, Type, VarId};
use proc_macro2::{Ident, Span};
use quote::format_ident;
use std::collections::HashMap;

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

#[derive(Clone)]
enum Loc {
    Scalar(Ident),
    View(View),
}

/// Sizes needed by the code, each computed once at kernel entry with checked arithmetic.
#[derive(Default)]
pub struct SizeTable {
    entries: Vec<(String, Ident, St)>,
}

impl SizeTable {
    /// The expression for size `s`: a literal, a size name, or a local computed at entry.
    pub fn get(&mut self, s: &Size) -> Ex {
        let s = s.fold();
        match &s {
            Size::Lit(v) => Ex::Usize(*v as usize),
            Size::Name(n) => Ex::Var(crate::front::ast::ident(n, Span::call_site())),
            Size::Loop(_) => Ex::Usize(0),
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => {
                let key = s.to_string();
                if let Some((_, id, _)) = self.entries.iter().find(|(k, _, _)| *k == key) {
                    return Ex::Var(id.clone());
                }
                let (x, y) = (self.get(a), self.get(b));
                let c = match s {
                    Size::Add(..) => Checked::Add,
                    Size::Sub(..) => Checked::Sub,
                    Size::Mul(..) => Checked::Mul,
                    Size::Div(..) => Checked::DivExact,
                    _ => Checked::Rem,
                };
                let id = format_ident!("__z{}", self.entries.len());
                let val = Ex::Checked(c, Box::new(x), Box::new(y), key.clone());
                let st = St::Let {
                    id: id.clone(),
                    mutable: false,
                    usize_ty: true,
                    val,
                };
                self.entries.push((key, id.clone(), st));
                Ex::Var(id)
            }
        }
    }

    /// The entry statements, in dependency order.
    pub fn statements(&self) -> Vec<St> {
        self.entries.iter().map(|(_, _, c)| c.clone()).collect()
    }
}

/// The translation state for one kernel.
pub struct Dps<'k> {
    kernel: &'k Kernel,
    /// The frame plan.
    pub frame: Frame,
    /// Sizes computed at entry.
    pub sizes: SizeTable,
    env: HashMap<VarId, Loc>,
    /// Exclusive upper bounds of loop indexes, where known before the loop.
    bounds: HashMap<VarId, Size>,
    /// The loops being translated, outermost first, with the streams they read.
    loops: Vec<LoopCtx>,
    /// Counter for the names of checked slice starts.
    slices: usize,
    /// Heap buffers made so far, when each array gets its own (`storage = "heap"`).
    heap: Option<usize>,
    /// Take the rows of a build over a sum fold `JAMS` at a time (`Dps::jam`): set when
    /// fusion and unrolling are on.
    pub jam: bool,
}

/// How many rows [`Dps::jam`] takes at a time, widest first, before the rows left over run
/// one at a time. Several chains of additions hide an addition's latency on current x86
/// cores (a 64 x 256 matrix-vector product: 12.6 us one row at a time, 5.1 us four at a
/// time); with eight, LLVM also pairs two rows' sums in one SSE2 register (the dense layer:
/// 63,409 instructions four rows at a time, 49,190 eight, then four). Four stays for the 4
/// to 7 rows eight leave over.
const JAMS: [usize; 2] = [8, 4];

/// A row of the right-hand operand that [`Dps::tile`] reads along `l` (`b[l][j]` at `l * w +
/// s + j`), taken as a row stream.
struct TileRow {
    /// The buffer read.
    base: Base,
    /// The offset of row `l`, `l * w + s`: how the loads name the row.
    off: Ex,
    /// `s`, where row 0 starts (`None` for 0).
    start: Option<Ex>,
    /// `w`, the row's width (the tile's column count).
    width: Ex,
}

/// The widths of [`Dps::tile`]'s column tiles, widest first. Sixteen f64 accumulators are
/// eight SSE2 registers, half of x86-64's: a 64 x 64 product in 1 x 16 tiles took 0.68x
/// the instructions of one loaded and stored per `l` (2 x 8 tiles: 0.71x; 4 x 4: 0.75x).
const TILES: [usize; 3] = [16, 4, 1];

/// A loop under translation. Loads `base[start + i]` of its index `i` become streams: the
/// source row is cut once before the loop and iterated beside the index, so the loads need
/// no bounds check and the loop can vectorise.
struct LoopCtx {
    var: VarId,
    ident: Ident,
    streams: Vec<Stream>,
    /// Loops whose header is not a `for_loop` (array bodies) take no streams, but their
    /// index may appear in inner streams' starts.
    accepts: bool,
    /// Running indexes of the loop (see [`Dps::running`]); only a fold's loop takes them.
    runs: Vec<Run>,
    runs_ok: bool,
}

/// A load index quadratic in its loop's index `c` (a packed triangle's `c * (2d - c - 1) /
/// 2`), kept as a running sum: `at` starts at the index for `c = 0`, and each iteration adds
/// `step`, the forward difference, which is linear in `c` and so moves by a constant `dstep`.
struct Run {
    /// The index as a size, to share one run between loads of the same index.
    sym: Size,
    at: Ident,
    step: Ident,
    at0: Ex,
    step0: Ex,
    dstep: Ex,
}

impl<'k> Dps<'k> {
    /// Start translating `kernel`, whose parameters are bound to their Rust names; with
    /// `heap_arrays`, every array gets a heap buffer of its own instead of a frame slot.
    pub fn new(kernel: &'k Kernel, heap_arrays: bool) -> Dps<'k> {
        let mut env = HashMap::new();
        for p in &kernel.params {
            let id = crate::front::ast::ident(&p.name.s, p.name.span);
            match &p.ty {
                Type::Arr(d) => {
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
            loops: Vec::new(),
            slices: 0,
            heap: heap_arrays.then_some(0),
            jam: false,
        }
    }

    fn local(&self, v: VarId) -> Ident {
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

    /// Take room for an array of `dims` in the frame: the allocation's marker and its view.
    fn alloc(&mut self, dims: &[Size]) -> (St, View) {
        let len = dims
            .iter()
            .cloned()
            .reduce(Size::times)
            .unwrap_or(Size::Lit(1));
        let off = self.frame.push(len.clone());
        if let Some(k) = self.heap.as_mut() {
            // A buffer of its own, made here.
            let id = *k;
            *k += 1;
            let marker = St::Heap {
                id,
                len: self.sizes.get(&len),
            };
            let view = View {
                base: Base::Heap(id),
                off: None,
                dims: dims.to_vec(),
            };
            return (marker, view);
        }
        let off = if off.as_const() == Some(0) {
            None
        } else {
            Some(self.sizes.get(&off))
        };
        // The length is only for the executor: `Const` adds nothing to the printed code.
        let marker = St::Alloc {
            off: off.clone().unwrap_or(Ex::Usize(0)),
            len: Ex::Const(len),
        };
        let view = View {
            base: Base::Scratch,
            off,
            dims: dims.to_vec(),
        };
        (marker, view)
    }

    /// Two buffers of `dims` for a double-buffered accumulator: two frame slots, or one heap
    /// buffer of twice the length (so that swapping offsets swaps them).
    fn alloc_pair(&mut self, dims: &[Size]) -> (Vec<St>, View, View) {
        if self.heap.is_some() {
            let mut two = vec![Size::Lit(2)];
            two.extend(dims.iter().cloned());
            let (m, w) = self.alloc(&two);
            let len = dims
                .iter()
                .cloned()
                .reduce(Size::times)
                .unwrap_or(Size::Lit(1));
            let second = View {
                base: w.base.clone(),
                off: Some(self.sizes.get(&len)),
                dims: dims.to_vec(),
            };
            let first = View {
                dims: dims.to_vec(),
                ..w
            };
            return (vec![m], first, second);
        }
        let (ma, a) = self.alloc(dims);
        let (mb, b) = self.alloc(dims);
        (vec![ma, mb], a, b)
    }

    fn stride(&mut self, dims: &[Size]) -> Option<Ex> {
        let s = dims.iter().cloned().reduce(Size::times)?;
        if s.as_const() == Some(1) {
            return None;
        }
        Some(self.sizes.get(&s))
    }
    /// Can `idx` (of symbolic value `sym`) be proven below `dim`, given the loop bounds?
    fn proven(&self, sym: &Option<Size>, extra: &Size, dim: &Size) -> bool {
        let Some(s) = sym else { return false };
        // `a % b` is at most `b - 1` (a zero `b` fails in the `%` itself): `cams[i % n]`.
        if let Size::Rem(_, b) = s {
            let max = Size::minus((**b).clone(), Size::Lit(1));
            if names_nonneg(&Size::minus(dim.clone(), Size::plus(max, extra.clone()))) {
                return true;
            }
        }
        // max(idx) + extra <= dim, over every value the loop indexes take.
        let Some(max) = self.extreme(s, true) else {
            return false;
        };
        names_nonneg(&Size::minus(dim.clone(), Size::plus(max, extra.clone())))
    }

    /// `a - b` cannot underflow, over every value the loop indexes take.
    fn no_underflow(&self, a: &Core, b: &Core) -> bool {
        let (Some(x), Some(y)) = (&a.sym, &b.sym) else {
            return false;
        };
        self.extreme(&Size::minus(x.clone(), y.clone()), false)
            .is_some_and(|min| names_nonneg(&min))
    }

    /// `s` at its largest (`upper`) or smallest over the loop indexes in it: innermost index
    /// first, each replaced by `bound - 1` or `0` as the sign of its coefficient says (a
    /// bound may mention an outer index, which is then replaced in turn). `None` when a
    /// sign is mixed, an index appears squared, or a needed bound is unknown.
    fn extreme(&self, s: &Size, upper: bool) -> Option<Size> {
        self.extreme_in(s, upper, &[], 0)
    }

    /// [`Dps::extreme`] with some loop bounds replaced (`over`). An index that appears
    /// squared, or with mixed signs, is handled when `s` is monotone in it: when the forward
    /// difference `s(v + 1) - s(v)` keeps one sign over `0 <= v < bound - 1`, the extreme
    /// is at an end. That proves the triangle index `c * (2 * d - c - 1) / 2` of a packed
    /// lower-triangular matrix.
    fn extreme_in(
        &self,
        s: &Size,
        upper: bool,
        over: &[(VarId, Size)],
        depth: usize,
    ) -> Option<Size> {
        let bound = |v: VarId| {
            over.iter()
                .rev()
                .find(|(w, _)| *w == v)
                .map(|(_, b)| b)
                .or_else(|| self.bounds.get(&v))
                .cloned()
        };
        // Innermost by nesting (an inlined helper's loop may have the smaller id).
        let nesting = |v: VarId| self.loops.iter().rposition(|c| c.var == v);
        let mut s = s.clone();
        for _ in 0..32 {
            let p = s.poly();
            let Some(v) = p
                .coeffs()
                .flat_map(|(m, _)| m.iter())
                .filter_map(|a| match a {
                    Atom::Loop(v) => Some(*v),
                    _ => None,
                })
                .max_by_key(|v| (nesting(*v), *v))
            else {
                return Some(s);
            };
            let b = bound(v)?;
            let last = Size::minus(b.clone(), Size::Lit(1));
            let mut sign = 0i8;
            for (m, c) in p.coeffs() {
                let deg = m.iter().filter(|a| **a == Atom::Loop(v)).count();
                if deg == 0 {
                    continue;
                }
                let sg = if c > 0.0 { 1 } else { -1 };
                if deg > 1 || c == 0.0 || (sign != 0 && sign != sg) {
                    sign = 0;
                    break;
                }
                sign = sg;
            }
            if sign == 0 {
                // Not linear with one sign: try monotonicity.
                if depth >= 3 {
                    return None;
                }
                let next = Size::plus(Size::Loop(v), Size::Lit(1));
                let diff = Size::minus(crate::middle::ir::subst_loop(&s, v, &next), s.clone());
                let mut o = over.to_vec();
                o.push((v, last.clone()));
                let rising = self
                    .extreme_in(&diff, false, &o, depth + 1)
                    .is_some_and(|m| names_nonneg(&m));
                let falling = !rising
                    && self
                        .extreme_in(&diff, true, &o, depth + 1)
                        .is_some_and(|m| names_nonneg(&Size::minus(Size::Lit(0), m)));
                if !rising && !falling {
                    return None;
                }
                sign = if rising { 1 } else { -1 };
            }
            let to_max = (sign > 0) == upper;
            let pick = if to_max { last } else { Size::Lit(0) };
            s = crate::middle::ir::subst_loop(&s, v, &pick);
        }
        None
    }

    /// A view of an array expression, materialising it in the frame if it is not one already.
    /// Returns statements to run first.
    fn view(&mut self, e: &Core) -> (Vec<St>, View) {
        match &e.kind {
            Kind::Var(v) => {
                if let Some(Loc::View(w)) = self.env.get(v) {
                    return (Vec::new(), w.clone());
                }
            }
            Kind::Index(a, i) if e.ty.is_arr() => {
                let (pre, w) = self.view(a);
                let dim0 = w.dims[0].clone();
                let it = if self.proven(&i.sym, &Size::Lit(1), &dim0) {
                    self.index_expr(i)
                } else {
                    let it = self.scalar(i);
                    let d = self.sizes.get(&dim0);
                    Ex::Check(Box::new(it), Box::new(d))
                };
                let rows = w.dims[1..].to_vec();
                let off = match self.stride(&rows) {
                    Some(st) => plus(&w.off, wmul(it, st)),
                    None => plus(&w.off, it),
                };
                return (
                    pre,
                    View {
                        base: w.base,
                        off: Some(off),
                        dims: rows,
                    },
                );
            }
            Kind::Slice(a, lo) => {
                let (mut pre, w) = self.view(a);
                let len = e.ty.dims()[0].clone();
                let lt = if self.proven(&lo.sym, &len, &w.dims[0]) {
                    self.index_expr(lo)
                } else {
                    let lt = self.scalar(lo);
                    let (d, l) = (self.sizes.get(&w.dims[0]), self.sizes.get(&len));
                    // Its own name: the view's offset refers to it for as long as it lives.
                    let tmp = format_ident!("__lo{}", self.slices);
                    self.slices += 1;
                    pre.push(St::Let {
                        id: tmp.clone(),
                        mutable: false,
                        usize_ty: true,
                        val: lt,
                    });
                    let end = Ex::Checked(
                        Checked::Add,
                        Box::new(Ex::Var(tmp.clone())),
                        Box::new(l),
                        "slice end".into(),
                    );
                    pre.push(St::CheckRange(Ex::Var(tmp.clone()), end, d));
                    Ex::Var(tmp)
                };
                let off = match self.stride(&w.dims[1..]) {
                    Some(st) => plus(&w.off, wmul(lt, st)),
                    None => plus(&w.off, lt),
                };
                let mut dims = w.dims.clone();
                dims[0] = len;
                return (
                    pre,
                    View {
                        base: w.base,
                        off: Some(off),
                        dims,
                    },
                );
            }
            _ => {}
        }
        self.frame.or_label(Holds::value(e));
        let (marker, w) = self.alloc(e.ty.dims());
        let mut code = vec![marker];
        code.extend(self.write(e, &w));
        (code, w)
    }

    /// The load `w[idx]` as a stream of an enclosing loop, when `idx` is that loop's index
    /// plus an offset fixed during the loop: returns the element.
    fn stream(&mut self, w: &View, idx: &Core) -> Option<Ex> {
        let sym = idx.sym.as_ref()?;
        if matches!(w.base, Base::Out) {
            return None;
        }
        let mut vars = Vec::new();
        sym.loops(&mut vars);
        let pos = self.loops.iter().rposition(|c| vars.contains(&c.var))?;
        if !self.loops[pos].accepts {
            return None;
        }
        let var = self.loops[pos].var;
        // A whole one-dimensional parameter read at its loop's index: the entry check of its
        // length already lets LLVM drop the bounds check; a stream would only add work.
        if matches!(w.base, Base::Param(_))
            && w.off.is_none()
            && w.dims.len() == 1
            && Size::minus(sym.clone(), Size::Loop(var)).as_const() == Some(0)
        {
            return None;
        }
        // idx = var + rest, with rest free of var and of every loop inside it.
        let rest = Size::minus(sym.clone(), Size::Loop(var)).poly();
        let inner: Vec<VarId> = self.loops[pos..].iter().map(|c| c.var).collect();
        let outer_loops: Vec<(VarId, Ident)> = self.loops[..pos]
            .iter()
            .map(|c| (c.var, c.ident.clone()))
            .collect();
        let rest = self.poly_ex(&rest, &inner, &outer_loops)?;
        let start = match rest {
            Some(r) => plus(&w.off, r),
            None => w.off.clone().unwrap_or(Ex::Usize(0)),
        };
        // A short loop of fixed length, from an offset fixed once the loops around it (short
        // and fixed too) unroll, becomes loads at constant offsets, which need no row cut
        // (kalman's 4 x 4 products in its frame).
        let short = |v: VarId| {
            self.bounds
                .get(&v)
                .and_then(|b| b.as_const())
                .is_some_and(|c| c <= 8)
        };
        let unrolled: Vec<String> = self.loops[..pos]
            .iter()
            .filter(|c| short(c.var))
            .map(|c| c.ident.to_string())
            .collect();
        if short(var)
            && lir::idents(&start)
                .iter()
                .all(|i| unrolled.contains(&i.to_string()))
        {
            return None;
        }
        // Everything `start` names must exist before the loop starts.
        let outer: Vec<String> = self.loops[..pos]
            .iter()
            .map(|c| c.ident.to_string())
            .collect();
        if !idents_ok(&start, &outer) {
            return None;
        }
        let ctx = &mut self.loops[pos];
        if let Some(st) = ctx
            .streams
            .iter()
            .find(|st| st.base == w.base && lir::same(&st.start, &start))
        {
            return Some(Ex::Elem(st.elem.clone()));
        }
        let elem = format_ident!("__e{}_{}", var, ctx.streams.len());
        ctx.streams.push(Stream {
            base: w.base.clone(),
            start,
            elem: elem.clone(),
            width: None,
        });
        Some(Ex::Elem(elem))
    }

    /// A load at an index quadratic in the innermost loop's index, as a read at a running
    /// index ([`Run`]) when that loop is a fold's: the packed triangle's `q[d + c * (2 * d -
    /// c - 1) / 2 + (j - c - 1)]` costs two additions a term instead of a multiplication, a
    /// division and five additions. The index is already proven in bounds; the running sum
    /// equals it (modulo the word size, so exactly, since it is in bounds) when every
    /// division in it is exact for every value of the names and indexes it reads
    /// ([`divisions_exact`]). Where the term-by-term arithmetic would have failed on an
    /// overflow between in-bounds results, the running sum does not.
    fn running(&mut self, w: &View, idx: &Core) -> Option<Ex> {
        let sym = idx.sym.as_ref()?;
        let pos = self.loops.len().checked_sub(1)?;
        let (c, runs_ok) = (self.loops[pos].var, self.loops[pos].runs_ok);
        let p = sym.poly();
        if !runs_ok || p.degree(&Atom::Loop(c)) != 2 || !divisions_exact(sym) {
            return None;
        }
        if let Some(r) = self.loops[pos].runs.iter().find(|r| r.sym.same(sym)) {
            let at = Ex::Var(r.at.clone());
            return Some(Ex::Ld(w.base.clone(), Box::new(plus(&w.off, at))));
        }
        let at = |k: u64| crate::middle::ir::subst_loop(sym, c, &Size::Lit(k));
        let step0 = Size::minus(at(1), at(0));
        let dstep = Size::minus(Size::plus(at(2), at(0)), Size::times(Size::Lit(2), at(1)));
        let outer: Vec<(VarId, Ident)> = self.loops[..pos]
            .iter()
            .map(|l| (l.var, l.ident.clone()))
            .collect();
        let names: Vec<String> = outer.iter().map(|(_, id)| id.to_string()).collect();
        let mut ex = |s: &Size| -> Option<Ex> {
            let e = self.signed_poly_ex(&s.poly(), &[c], &outer)?;
            idents_ok(&e, &names).then_some(e)
        };
        let (at0, step0, dstep) = (ex(&at(0))?, ex(&step0)?, ex(&dstep)?);
        let ctx = &mut self.loops[pos];
        let n = ctx.runs.len();
        let run = Run {
            sym: sym.clone(),
            at: format_ident!("__at{}_{}", c, n),
            step: format_ident!("__step{}_{}", c, n),
            at0,
            step0,
            dstep,
        };
        let at = Ex::Var(run.at.clone());
        ctx.runs.push(run);
        Some(Ex::Ld(w.base.clone(), Box::new(plus(&w.off, at))))
    }

    /// [`Dps::poly_ex`] with negative terms too: `pos - neg` in wrapping arithmetic (0 for
    /// the zero polynomial).
    fn signed_poly_ex(
        &mut self,
        p: &crate::front::size::Poly,
        inner: &[VarId],
        outer: &[(VarId, Ident)],
    ) -> Option<Ex> {
        let (pos, neg) = p.split_signs();
        let pos = self.poly_ex(&pos, inner, outer)?;
        let neg = self.poly_ex(&neg, inner, outer)?;
        Some(match (pos, neg) {
            (Some(a), Some(b)) => Ex::Wrap(Wrap::Sub, Box::new(a), Box::new(b)),
            (Some(a), None) => a,
            (None, Some(b)) => Ex::Wrap(Wrap::Sub, Box::new(Ex::Usize(0)), Box::new(b)),
            (None, None) => Ex::Usize(0),
        })
    }

    /// A polynomial over size names and the loop indexes of `outer` as an expression (`None`
    /// for zero), or `None` if it has other atoms or a negative or fractional coefficient.
    fn poly_ex(
        &mut self,
        p: &crate::front::size::Poly,
        inner: &[VarId],
        outer: &[(VarId, Ident)],
    ) -> Option<Option<Ex>> {
        let mut sum: Option<Ex> = None;
        for (m, c) in p.coeffs() {
            if c < 0.0 || c.fract() != 0.0 {
                return None;
            }
            let mut term: Option<Ex> = None;
            for a in m {
                let t = match a {
                    Atom::Name(n) => self.sizes.get(&Size::Name(n.clone())),
                    Atom::Loop(v) if !inner.contains(v) => {
                        let (_, id) = outer.iter().find(|(w, _)| w == v)?;
                        Ex::Var(id.clone())
                    }
                    _ => return None,
                };
                term = Some(match term {
                    Some(x) => wmul(x, t),
                    None => t,
                });
            }
            let k = c as usize;
            let term = match term {
                Some(t) if k == 1 => t,
                Some(t) => wmul(Ex::Usize(k), t),
                None => Ex::Usize(k),
            };
            sum = Some(match sum {
                Some(s) => wadd(s, term),
                None => term,
            });
        }
        Some(sum)
    }

    /// Open a loop context for index `var`.
    fn enter_loop(&mut self, var: VarId, ident: &Ident) {
        self.loops.push(LoopCtx {
            var,
            ident: ident.clone(),
            streams: Vec::new(),
            accepts: true,
            runs: Vec::new(),
            runs_ok: false,
        });
    }

    /// Open a loop context that takes no streams (see [`LoopCtx::accepts`]).
    fn enter_plain_loop(&mut self, var: VarId, ident: &Ident) {
        self.enter_loop(var, ident);
        if let Some(c) = self.loops.last_mut() {
            c.accepts = false;
        }
    }

    /// Close the innermost loop context. Streams whose buffer the body writes (`written`),
    /// or that the loop's own destination borrows (`writes`), become loads again: returned
    /// with the load that replaces each element. The rest are for the loop header.
    fn leave_loop(
        &mut self,
        writes: Option<&Base>,
        written: &dyn Fn(&Base) -> bool,
    ) -> (Vec<Stream>, Vec<(Ident, Ex)>) {
        let Some(ctx) = self.loops.pop() else {
            return (Vec::new(), Vec::new());
        };
        let (mut keep, mut loads) = (Vec::new(), Vec::new());
        for st in ctx.streams {
            if writes == Some(&st.base) || written(&st.base) {
                let at = wadd(st.start.clone(), Ex::Var(ctx.ident.clone()));
                loads.push((st.elem, Ex::Ld(st.base, Box::new(at))));
            } else {
                keep.push(st);
            }
        }
        (keep, loads)
    }

    /// [`Dps::leave_loop`] for a loop body of statements, the loads put in place.
    fn leave_loop_sts(&mut self, body: &mut [St], writes: Option<&Base>) -> Vec<Stream> {
        let (keep, loads) = self.leave_loop(writes, &|b| lir::writes(body, b));
        for (elem, load) in &loads {
            lir::replace_elem(body, elem, load);
        }
        keep
    }

    /// [`Dps::leave_loop`] for a loop body that is one scalar expression.
    fn leave_loop_ex(&mut self, body: &mut Ex, writes: Option<&Base>) -> Vec<Stream> {
        let (keep, loads) = self.leave_loop(writes, &|b| lir::writes_ex(body, b));
        for (elem, load) in &loads {
            lir::replace_ex(body, elem, load);
        }
        keep
    }

    /// True when `e` reads buffer `b`: directly, or through a stream of an enclosing loop
    /// over `b` (which becomes a load of `b` when that loop closes, since the loop then
    /// writes `b`: a fill over `b` must not hold it borrowed around such a read).
    fn reads(&self, e: &Ex, b: &Base) -> bool {
        if lir::uses_ex(e, b) {
            return true;
        }
        let elems: Vec<&Ident> = self
            .loops
            .iter()
            .flat_map(|c| c.streams.iter())
            .filter(|st| st.base == *b)
            .map(|st| &st.elem)
            .collect();
        let mut hit = false;
        lir::walk_ex(e, &mut |n| {
            if let lir::Node::Ex(Ex::Elem(x)) = n {
                hit |= elems.contains(&x);
            }
        });
        hit
    }

    /// An index the compiler proved below an array's length: its `+` and `*` cannot
    /// overflow (each partial result is at most the index), so they need no check; nor can
    /// a division by a small constant. `-` and `%` keep theirs (the proof bounds the index
    /// from above only).
    fn index_expr(&mut self, e: &Core) -> Ex {
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
            Kind::F64(v) => Ex::F64(*v),
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
                let (c, a, b) = (self.scalar(c), self.scalar(a), self.scalar(b));
                Ex::If(Box::new(c), Box::new(a), Box::new(b))
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
            Kind::Cast(CastTy::F64, a) => Ex::ToF64(Box::new(self.scalar(a))),
            Kind::Cast(CastTy::Usize, a) => Ex::ToUsize(Box::new(self.scalar(a))),
            Kind::Math(f, xs) => Ex::Math(*f, xs.iter().map(|x| self.scalar(x)).collect()),
            Kind::Index(a, i) => {
                let depth = self.frame.depth();
                let (pre, w) = self.view(a);
                let dim0 = w.dims[0].clone();
                let r = if self.proven(&i.sym, &Size::Lit(1), &dim0) {
                    match self.stream(&w, i).or_else(|| self.running(&w, i)) {
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
                let (nt, it) = (self.scalar(n), self.scalar(init));
                let (av, iv) = (self.local(*acc), self.local(*i));
                self.env.insert(*acc, Loc::Scalar(av.clone()));
                self.env.insert(*i, Loc::Scalar(iv.clone()));
                // The count may be an enclosing index (`ifold(j, ..)`): it bounds i all the same.
                if let Some(s) = &n.sym {
                    self.bounds.insert(*i, s.clone());
                }
                // A triangle's fold (count `j`) takes streams too: one row cut per `j` costs
                // less than a check per term from a fold of 4.5 terms on average (GMM, d = 10).
                self.enter_loop(*i, &iv);
                if let Some(c) = self.loops.last_mut() {
                    c.runs_ok = true;
                }
                let b = self.scalar(body);
                let mut step = vec![St::Assign(av.clone(), b)];
                let runs = self
                    .loops
                    .last_mut()
                    .map(|c| std::mem::take(&mut c.runs))
                    .unwrap_or_default();
                let streams = self.leave_loop_sts(&mut step, None);
                let mut pre = vec![St::Let {
                    id: av.clone(),
                    mutable: true,
                    usize_ty: false,
                    val: it,
                }];
                for r in runs {
                    for (id, val) in [(&r.at, r.at0), (&r.step, r.step0)] {
                        pre.push(St::Let {
                            id: id.clone(),
                            mutable: true,
                            usize_ty: true,
                            val,
                        });
                    }
                    step.push(St::Assign(
                        r.at.clone(),
                        wadd(Ex::Var(r.at.clone()), Ex::Var(r.step.clone())),
                    ));
                    let moved = match r.dstep {
                        Ex::Wrap(Wrap::Sub, z, b) if matches!(*z, Ex::Usize(0)) => {
                            Ex::Wrap(Wrap::Sub, Box::new(Ex::Var(r.step.clone())), b)
                        }
                        d => wadd(Ex::Var(r.step.clone()), d),
                    };
                    step.push(St::Assign(r.step.clone(), moved));
                }
                pre.push(St::For {
                    var: iv,
                    n: nt,
                    streams,
                    body: step,
                });
                Ex::Block(pre, Box::new(Ex::Var(av)))
            }
            Kind::Build(..) | Kind::Array(_) | Kind::Slice(..) => {
                Ex::Internal("array in scalar position")
            }
        }
    }

    /// Bind `v` to the value of `a`: a Rust local for scalars, a view for arrays (an
    /// allocation in the frame unless `a` is already a view). Returns the statements.
    fn bind(&mut self, v: VarId, a: &Core) -> Vec<St> {
        if a.ty.is_arr() {
            self.frame.label(Some(Holds::Let(v)));
            let (pre, w) = self.view(a);
            self.frame.label(None);
            self.env.insert(v, Loc::View(w));
            pre
        } else {
            let val = self.scalar(a);
            let id = self.local(v);
            self.env.insert(v, Loc::Scalar(id.clone()));
            vec![St::Let {
                id,
                mutable: false,
                usize_ty: false,
                val,
            }]
        }
    }

    /// `build(n, |j| ifold(k, init, |acc, l| acc + g))` as two loops, `l` outside and `j`
    /// inside: the destination row starts as `init` and every element adds its `g(j, l)` in
    /// the same order as before, so the result is bit-identical, but the inner loop runs
    /// along rows (`b[l][j]`) and vectorises: the interchange behind a row-major `matmul`.
    /// `None` when `e` is not of that form, or the fold's body reads the destination's buffer.
    fn interchange(&mut self, e: &Core, dest: &View) -> Option<Vec<St>> {
        let Kind::Build(n, j, body) = &e.kind else {
            return None;
        };
        let fold = SumFold::of(body)?;
        let SumFold {
            cnt, init, l, g, ..
        } = fold;
        if cnt.mentions(*j) || matches!(dest.base, Base::Param(_)) {
            return None;
        }
        // Small fixed sizes unroll completely as written; the interchange only adds work.
        let small = |s: Option<&Size>| s.and_then(|s| s.as_const()).is_some_and(|c| c <= 8);
        if small(Some(n)) && small(cnt.sym.as_ref()) {
            return None;
        }
        let depth = self.frame.depth();
        let nt = self.sizes.get(n);
        let (jv, lv) = (self.local(*j), self.local(l));
        self.env.insert(*j, Loc::Scalar(jv.clone()));
        self.env.insert(l, Loc::Scalar(lv.clone()));
        self.bounds.insert(*j, n.clone());
        if let Some(s) = &cnt.sym {
            self.bounds.insert(l, s.clone());
        }
        let ct = self.scalar(cnt);
        // Pass 1: the row starts as init.
        self.enter_loop(*j, &jv);
        let mut it = self.scalar(init);
        let init_streams = self.leave_loop_ex(&mut it, Some(&dest.base));
        // Pass 2: for each l, every element adds g(j, l).
        self.enter_loop(l, &lv);
        self.enter_loop(*j, &jv);
        let mut gt = self.scalar(g);
        let g_streams = self.leave_loop_ex(&mut gt, Some(&dest.base));
        let l_streams = self.leave_loop_ex(&mut gt, Some(&dest.base));
        self.frame.truncate(depth);
        if self.reads(&it, &dest.base) || self.reads(&gt, &dest.base) {
            // The fold reads the destination's buffer: keep the loops as written.
            return None;
        }
        if lir::strided_in(&gt, &jv) {
            // Inside, `j` would walk down a column (`w[j][l]` of a matrix-vector product):
            // the rows are better read along, several at a time (`jam`).
            return None;
        }
        if self.jam
            && let Some(code) = self.tile(n, *j, &fold, dest)
        {
            return Some(code);
        }
        let first = fill(dest, &jv, &nt, init_streams, vec![St::Slot(it)]);
        let inner = fill(dest, &jv, &nt, g_streams, vec![St::SlotAdd(gt)]);
        let outer = St::For {
            var: lv,
            n: ct,
            streams: l_streams,
            body: vec![inner],
        };
        Some(vec![first, outer])
    }

    /// `build(n, |i| f(ifold(k, init, |acc, l| acc + g)))`, `k` free of `i` and the fold
    /// reached through arithmetic and math calls (`dot(w[i], x) + b[i]`, `dot(..).tanh()`),
    /// [`JAMS`] rows at a time (8, then 4): one `l` loop carries a row's accumulator each, and
    /// each adds its terms in the order written, so the result is bit-identical; but the
    /// rows' chains of additions overlap where one waited on the last, and loads they share
    /// (`x[l]` in a matrix-vector product) are made once. The rows left over run one at a
    /// time. `None` unless every part is plain arithmetic on loads: nothing that can fail
    /// (the first failing row would no longer fail first), no arrays, no writes, and no read
    /// of the destination's buffer.
    fn jam(&mut self, n: &Size, i: VarId, body: &Core, dest: &View) -> Option<Vec<St>> {
        let narrowest = JAMS[JAMS.len() - 1] as u64;
        if !self.jam || body.ty != Type::F64 || n.as_const().is_some_and(|c| c < narrowest) {
            return None;
        }
        // The row's value with the fold's place held by a variable of no kernel (bound to
        // each row's accumulator in turn).
        let held = VarId::MAX - i;
        let mut rest = body.clone();
        let taken = take_fold(&mut rest, &Core::new(Kind::Var(held), Type::F64, body.span))?;
        let fold = SumFold::of(&taken)?;
        if fold.cnt.mentions(i) {
            return None;
        }
        let depth = self.frame.depth();
        let nt = self.sizes.get(n);
        let (iv, lv) = (self.local(i), self.local(fold.l));
        self.bounds.insert(i, n.clone());
        if let Some(s) = &fold.cnt.sym {
            self.bounds.insert(fold.l, s.clone());
        }
        self.env.insert(fold.l, Loc::Scalar(lv.clone()));
        let ct = self.scalar(fold.cnt);
        let mut out = Vec::new();
        // The first row of the current width's groups.
        let mut start = Ex::Usize(0);
        for (w, width) in JAMS.into_iter().enumerate() {
            // A constant count too small for this width: its loop would never run.
            if n.as_const().is_some_and(|c| c < width as u64) {
                continue;
            }
            let (nb, q) = (
                format_ident!("__nb{}_{}", i, w),
                format_ident!("__q{}_{}", i, w),
            );
            let rows: Vec<Ident> = (0..width)
                .map(|t| format_ident!("__r{}_{}_{}", i, w, t))
                .collect();
            let accs: Vec<Ident> = (0..width)
                .map(|t| format_ident!("__a{}_{}_{}", i, w, t))
                .collect();
            // The rows' index as a loop without streams (its value is each row's local in
            // turn), so that the fold's streams can start at `row * k`.
            self.enter_plain_loop(i, &rows[0]);
            let at = self.loops.len() - 1;
            let row = |g: &mut Self, t: usize| {
                g.loops[at].ident = rows[t].clone();
                g.env.insert(i, Loc::Scalar(rows[t].clone()));
            };
            let mut inits = Vec::new();
            for t in 0..width {
                row(self, t);
                inits.push(self.scalar(fold.init));
            }
            self.enter_loop(fold.l, &lv);
            let mut step = Vec::new();
            for (t, acc) in accs.iter().enumerate() {
                row(self, t);
                let gt = self.scalar(fold.g);
                step.push(St::Assign(acc.clone(), fold.add(Ex::Var(acc.clone()), gt)));
            }
            let streams = self.leave_loop_sts(&mut step, None);
            // Each row's result, stored together after the loop.
            let mut vals = Vec::new();
            for (t, acc) in accs.iter().enumerate() {
                row(self, t);
                self.env.insert(held, Loc::Scalar(acc.clone()));
                vals.push(self.scalar(&rest));
            }
            // The row's index is its own local again, for the rows left over and for the
            // caller's plain loop when a check below gives up.
            self.env.insert(i, Loc::Scalar(iv.clone()));
            self.loops.pop();
            self.frame.truncate(depth);
            let lp = St::For {
                var: lv.clone(),
                n: ct.clone(),
                streams,
                body: step,
            };
            let parts: Vec<&Ex> = inits.iter().chain([&ct]).chain(&vals).collect();
            let plain =
                parts.iter().all(|e| lir::plain_ex(e)) && lir::plain(std::slice::from_ref(&lp));
            let reads_dest = parts.iter().any(|e| self.reads(e, &dest.base))
                || lir::uses(std::slice::from_ref(&lp), &dest.base);
            if !plain || reads_dest {
                return None;
            }
            let mut block = vec![St::let_usize(
                &rows[0],
                wadd(start.clone(), wmul(Ex::Var(q.clone()), Ex::Usize(width))),
            )];
            for (t, r) in rows.iter().enumerate().skip(1) {
                block.push(St::let_usize(
                    r,
                    wadd(Ex::Var(rows[0].clone()), Ex::Usize(t)),
                ));
            }
            for (a, v) in accs.iter().zip(inits) {
                block.push(St::Let {
                    id: a.clone(),
                    mutable: true,
                    usize_ty: false,
                    val: v,
                });
            }
            block.push(lp);
            // The rows' results are consecutive slots: one row store, one range check. The
            // values are plain and do not read the destination, so computing them all first
            // changes nothing.
            block.push(St::StoreRow(
                dest.base.clone(),
                plus(&dest.off, Ex::Var(rows[0].clone())),
                vals,
            ));
            push_groups(&mut out, &nt, &mut start, width, (nb, q), block);
        }
        // The rows left over, one at a time, as written.
        self.enter_plain_loop(i, &iv);
        let left = self.scalar(body);
        self.loops.pop();
        self.frame.truncate(depth);
        if !lir::plain_ex(&left) || self.reads(&left, &dest.base) {
            return None;
        }
        let r = format_ident!("__left{}", i);
        out.push(St::For {
            var: r.clone(),
            n: rest_of(&nt, &start),
            streams: Vec::new(),
            body: vec![
                St::let_usize(&iv, wadd(start, Ex::Var(r))),
                St::Store(dest.base.clone(), plus(&dest.off, Ex::Var(iv)), left),
            ],
        });
        Some(out)
    }

    /// The interchange's loops with the columns taken [`TILES`] at a time (16, then 4, then
    /// 1 for what is left): a tile's elements are locals for the whole `l` loop, so they
    /// stay in registers, and are stored once at its end, instead of the destination row
    /// being loaded and stored once per `l`. Each element still adds its terms in order, so
    /// the result is bit-identical. The loads at the column (`b[l][j]`) become loads of the
    /// row `b[l][j0..j0 + width]`, which is cut once per `l` for all the tile's columns
    /// (`ldr`). `None` unless every part is plain (nothing can fail, as in [`Dps::jam`]).
    fn tile(&mut self, n: &Size, j: VarId, fold: &SumFold, dest: &View) -> Option<Vec<St>> {
        // Fewer columns than the narrowest tile of several: nothing to keep together.
        if n.as_const().is_some_and(|c| c < TILES[1] as u64) {
            return None;
        }
        let SumFold {
            cnt, init, l, g, ..
        } = *fold;
        let depth = self.frame.depth();
        let nt = self.sizes.get(n);
        // The column as a placeholder, replaced in each of a tile's copies (`column`).
        let jt = format_ident!("__col{}", j);
        let lv = self.local(l);
        self.env.insert(j, Loc::Scalar(jt.clone()));
        self.env.insert(l, Loc::Scalar(lv.clone()));
        let ct = self.scalar(cnt);
        self.enter_plain_loop(j, &jt);
        let it = self.scalar(init);
        self.loops.pop();
        self.enter_loop(l, &lv);
        self.enter_plain_loop(j, &jt);
        let mut gt = self.scalar(g);
        self.loops.pop();
        let streams = self.leave_loop_ex(&mut gt, Some(&dest.base));
        self.frame.truncate(depth);
        let parts = [&it, &gt, &ct];
        if !parts.iter().all(|e| lir::plain_ex(e))
            || parts.iter().any(|e| self.reads(e, &dest.base))
            || streams.iter().any(|st| st.base == dest.base)
        {
            return None;
        }
        // The rows of the right-hand operand read along l (`b[l][j]` at `l * w + s + j`):
        // each becomes a row stream, and a tile reads its segment of the row, cut once per
        // row by a test that does not change along l, which LLVM then makes once per tile.
        // Only rows as wide as the columns: the loads, proven for every column, then prove
        // every row whole (a row stream ends at a partial last row).
        let outer: Vec<String> = self.loops.iter().map(|c| c.ident.to_string()).collect();
        let mut rows: Vec<TileRow> = Vec::new();
        lir::walk_ex(&gt, &mut |nd| {
            if let lir::Node::Ex(Ex::Ld(b, at)) = nd
                && let Some(Some(off)) = lir::unit_offset(at, &jt)
                && let Some((s, w)) = row_of(&off, &lv)
                && lir::same(&w, &nt)
                && [Some(&w), s.as_ref()]
                    .into_iter()
                    .flatten()
                    .all(|x| idents_ok(x, &outer))
                && !rows.iter().any(|r| r.base == *b && lir::same(&r.off, &off))
            {
                rows.push(TileRow {
                    base: b.clone(),
                    off,
                    start: s,
                    width: w,
                });
            }
        });
        let mut out = Vec::new();
        // The first column of the current width's tiles.
        let mut start = Ex::Usize(0);
        for (w, width) in TILES.into_iter().enumerate() {
            // Each row and its segment's name; width 1 reads its one element directly.
            let segs: Vec<(&TileRow, Ident)> = if width > 1 {
                rows.iter()
                    .enumerate()
                    .map(|(k, r)| (r, format_ident!("__sg{}_{}_{}", j, w, k)))
                    .collect()
            } else {
                Vec::new()
            };
            let (nb, q, j0) = (
                format_ident!("__nt{}_{}", j, w),
                format_ident!("__tq{}_{}", j, w),
                format_ident!("__tc{}_{}", j, w),
            );
            let accs: Vec<Ident> = (0..width)
                .map(|k| format_ident!("__t{}_{}_{}", j, w, k))
                .collect();
            let mut block = vec![St::let_usize(
                &j0,
                wadd(start.clone(), wmul(Ex::Var(q.clone()), Ex::Usize(width))),
            )];
            for (k, a) in accs.iter().enumerate() {
                block.push(St::Let {
                    id: a.clone(),
                    mutable: true,
                    usize_ty: false,
                    val: column(&it, &jt, &j0, width, k, &[]),
                });
            }
            let mut step: Vec<St> = accs
                .iter()
                .enumerate()
                .map(|(k, a)| {
                    let gk = column(&gt, &jt, &j0, width, k, &segs);
                    St::Assign(a.clone(), fold.add(Ex::Var(a.clone()), gk))
                })
                .collect();
            let mut tile_streams = streams.clone();
            for (k, (row, sg)) in segs.iter().enumerate() {
                let elem = format_ident!("__rb{}_{}_{}", j, w, k);
                tile_streams.push(Stream {
                    base: row.base.clone(),
                    start: row.start.clone().unwrap_or(Ex::Usize(0)),
                    elem: elem.clone(),
                    width: Some(row.width.clone()),
                });
                step = vec![St::Segment {
                    id: sg.clone(),
                    base: Base::Row(elem),
                    off: Ex::Var(j0.clone()),
                    width,
                    body: step,
                }];
            }
            block.push(St::For {
                var: lv.clone(),
                n: ct.clone(),
                streams: tile_streams,
                body: step,
            });
            // The tile's sums are one row of the destination: one range check for all.
            let at = plus(&dest.off, Ex::Var(j0.clone()));
            block.push(if width == 1 {
                St::Store(dest.base.clone(), at, Ex::Var(accs[0].clone()))
            } else {
                St::StoreRow(
                    dest.base.clone(),
                    at,
                    accs.iter().map(|a| Ex::Var(a.clone())).collect(),
                )
            });
            push_groups(&mut out, &nt, &mut start, width, (nb, q), block);
        }
        Some(out)
    }

    /// Translate array expression `e` into statements writing it to `dest`.
    pub fn write(&mut self, e: &Core, dest: &View) -> Vec<St> {
        if let Some(code) = self.interchange(e, dest) {
            return code;
        }
        match &e.kind {
            Kind::Build(n, i, body) => {
                let nt = self.sizes.get(n);
                let iv = self.local(*i);
                self.env.insert(*i, Loc::Scalar(iv.clone()));
                self.bounds.insert(*i, n.clone());
                if body.ty.is_arr() {
                    let rows = dest.dims[1..].to_vec();
                    let row_off = match self.stride(&rows) {
                        Some(st) => plus(&dest.off, wmul(Ex::Var(iv.clone()), st)),
                        None => plus(&dest.off, Ex::Var(iv.clone())),
                    };
                    let row = View {
                        base: dest.base.clone(),
                        off: Some(row_off),
                        dims: rows,
                    };
                    let depth = self.frame.depth();
                    self.enter_plain_loop(*i, &iv);
                    let b = self.write(body, &row);
                    self.loops.pop();
                    self.frame.truncate(depth);
                    vec![St::For {
                        var: iv,
                        n: nt,
                        streams: Vec::new(),
                        body: b,
                    }]
                } else {
                    if let Some(code) = self.jam(n, *i, body, dest) {
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
                let c = self.scalar(c);
                let depth = self.frame.depth();
                let a = self.write(a, dest);
                self.frame.truncate(depth);
                let b = self.write(b, dest);
                self.frame.truncate(depth);
                vec![St::If(c, a, b)]
            }
            Kind::Let(..) => {
                let depth = self.frame.depth();
                let mut stmts = Vec::new();
                let mut cur = e;
                while let Kind::Let(v, a, b) = &cur.kind {
                    stmts.extend(self.bind(*v, a));
                    cur = b;
                }
                stmts.extend(self.write(cur, dest));
                self.frame.truncate(depth);
                vec![St::Block(stmts)]
            }
            Kind::Ifold(n, init, acc, i, body) => {
                // Double-buffered accumulator: the body reads one buffer and writes the other.
                let depth = self.frame.depth();
                self.frame.label(Some(Holds::accumulator(*acc)));
                let (mut code, a, b) = self.alloc_pair(e.ty.dims());
                let nt = self.scalar(n);
                code.extend(self.write(init, &a));
                let (cur, nxt) = (
                    format_ident!("__cur_{}", acc),
                    format_ident!("__nxt_{}", acc),
                );
                let iv = self.local(*i);
                self.env.insert(*i, Loc::Scalar(iv.clone()));
                // The count may be an enclosing index (`ifold(j, ..)`): it bounds i all the same.
                if let Some(s) = &n.sym {
                    self.bounds.insert(*i, s.clone());
                }
                let buf = a.base.clone();
                let at = |id: &Ident| View {
                    base: buf.clone(),
                    off: Some(Ex::Var(id.clone())),
                    dims: e.ty.dims().to_vec(),
                };
                self.env.insert(*acc, Loc::View(at(&cur)));
                self.enter_plain_loop(*i, &iv);
                let mut body_code = self.write(body, &at(&nxt));
                self.loops.pop();
                body_code.push(St::Swap(cur.clone(), nxt.clone()));
                let copy = self.copy(&at(&cur), dest);
                self.frame.truncate(depth);
                for (id, v) in [(&cur, a), (&nxt, b)] {
                    code.push(St::Let {
                        id: id.clone(),
                        mutable: true,
                        usize_ty: true,
                        val: v.off.unwrap_or(Ex::Usize(0)),
                    });
                }
                code.push(St::For {
                    var: iv,
                    n: nt,
                    streams: Vec::new(),
                    body: body_code,
                });
                code.push(copy);
                vec![St::Block(code)]
            }
            _ => {
                // A variable, row or slice: copy its elements.
                let depth = self.frame.depth();
                let (mut pre, w) = self.view(e);
                pre.push(self.copy(&w, dest));
                self.frame.truncate(depth);
                vec![St::Block(pre)]
            }
        }
    }

    fn copy(&mut self, src: &View, dest: &View) -> St {
        let len = src
            .dims
            .iter()
            .cloned()
            .reduce(Size::times)
            .unwrap_or(Size::Lit(1));
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

impl Dps<'_> {
    /// Element `k` of view `w` at run-time offset `off`, as a load from a row of constant
    /// width: the whole row of a parameter when `off` is `r * width + c` (every slice of
    /// `cams[i % n]` then shares one range check), else the view itself.
    fn row_load(&self, w: &View, off: &Ex, k: usize) -> Ex {
        let (x, c) = match off {
            Ex::Wrap(Wrap::Add, x, c) => match **c {
                Ex::Usize(c) => (&**x, c),
                _ => (off, 0),
            },
            _ => (off, 0),
        };
        if let (Ex::Wrap(Wrap::Mul, _, width), Base::Param(id)) = (x, &w.base)
            && let Ex::Usize(width) = **width
            && c.checked_add(k).is_some_and(|at| at < width)
            && self.param_rows(id).contains(&width)
        {
            return Ex::LdRow(w.base.clone(), Box::new(x.clone()), width, c + k);
        }
        match row_width(&w.dims) {
            Some(width) => Ex::LdRow(w.base.clone(), Box::new(off.clone()), width, k),
            None => Ex::Ld(w.base.clone(), Box::new(wadd(off.clone(), Ex::Usize(k)))),
        }
    }

    /// The widths of the rows of array parameter `id` (each a constant product of its last
    /// dimensions, never the whole array): its length is a multiple of each, so a row that
    /// holds one proven element is in bounds.
    fn param_rows(&self, id: &Ident) -> Vec<usize> {
        let Some(p) = self.kernel.params.iter().find(|p| id == p.name.s.as_str()) else {
            return Vec::new();
        };
        let dims = p.ty.dims();
        (1..dims.len())
            .filter_map(|d| row_width(&dims[d..]))
            .collect()
    }
}

/// The number of elements of a view whose dimensions are all constants.
fn row_width(dims: &[Size]) -> Option<usize> {
    dims.iter().try_fold(1usize, |w, d| {
        w.checked_mul(usize::try_from(d.as_const()?).ok()?)
    })
}

/// A loop over the `n` slots of `dest` (as `__slot`) with index `i` and the streams.
fn fill(dest: &View, i: &Ident, n: &Ex, streams: Vec<Stream>, body: Vec<St>) -> St {
    St::Fill {
        base: dest.base.clone(),
        off: dest.off.clone(),
        var: i.clone(),
        n: n.clone(),
        streams,
        body,
    }
}

/// `let nb = (n - start) / width; for q in 0..nb { block }` appended to `out`, and `start`
/// moved past the groups: one width of the jam's rows or of the tiles' columns, widest
/// first.
fn push_groups(
    out: &mut Vec<St>,
    n: &Ex,
    start: &mut Ex,
    width: usize,
    (nb, q): (Ident, Ident),
    block: Vec<St>,
) {
    let rest = rest_of(n, start);
    out.push(St::let_usize(
        &nb,
        if width == 1 {
            rest
        } else {
            Ex::Bin(BinOp::Div, Box::new(rest), Box::new(Ex::Usize(width)))
        },
    ));
    out.push(St::For {
        var: q,
        n: Ex::Var(nb.clone()),
        streams: Vec::new(),
        body: block,
    });
    *start = wadd(start.clone(), wmul(Ex::Var(nb), Ex::Usize(width)));
}

/// `n - start`, the count left after the first `start` (folded when `start` is 0).
fn rest_of(n: &Ex, start: &Ex) -> Ex {
    match start {
        Ex::Usize(0) => n.clone(),
        s => Ex::Wrap(Wrap::Sub, Box::new(n.clone()), Box::new(s.clone())),
    }
}

/// `off` as `l * w + s` (`s` may be absent), `w` and `s` free of `l`: the offset of row `l`
/// of a buffer of rows of width `w` from `s`.
fn row_of(off: &Ex, l: &Ident) -> Option<(Option<Ex>, Ex)> {
    let free = |x: &Ex| !lir::idents(x).contains(l);
    let is_l = |x: &Ex| matches!(x, Ex::Var(v) if v == l);
    match off {
        Ex::Wrap(Wrap::Mul, a, b) if is_l(a) && free(b) => Some((None, (**b).clone())),
        Ex::Wrap(Wrap::Mul, a, b) if is_l(b) && free(a) => Some((None, (**a).clone())),
        Ex::Wrap(Wrap::Add, a, b) => {
            let side = |r: &Ex, s: &Ex| match row_of(r, l) {
                Some((None, w)) if free(s) => Some((Some(s.clone()), w)),
                _ => None,
            };
            side(a, b).or_else(|| side(b, a))
        }
        _ => None,
    }
}

/// True when every division in `s` is exact for all natural values of the names and loop
/// indexes it reads, so that its value is its polynomial (a packed triangle's `c * (2 * d - c
/// - 1) / 2`: one of `c` and `2d - c - 1` is even). Remainders never are.
fn divisions_exact(s: &Size) -> bool {
    match s {
        Size::Lit(_) | Size::Name(_) | Size::Loop(_) => true,
        Size::Add(a, b) | Size::Sub(a, b) | Size::Mul(a, b) => {
            divisions_exact(a) && divisions_exact(b)
        }
        Size::Div(a, b) => {
            b.as_const().is_some_and(|k| k > 0) && divisions_exact(a) && integer_valued(s, 0)
        }
        Size::Rem(..) => false,
    }
}

/// True when the polynomial of `s` is an integer at every natural point: its coefficients
/// are, or, for a variable `x` of a fractional term, both `s` at `x = 0` and the forward
/// difference `s(x + 1) - s(x)` (of lower degree in `x`) are (then `s(x)` is `s(0)` plus
/// the differences below `x`).
fn integer_valued(s: &Size, depth: usize) -> bool {
    let p = s.poly();
    let mut var = None;
    for (m, c) in p.coeffs() {
        if c.fract() == 0.0 {
            continue;
        }
        match m.first() {
            Some(Atom::Opaque(_)) | None => return false,
            Some(a) => var = Some(a.clone()),
        }
    }
    let Some(x) = var else { return true };
    if depth >= 6 {
        return false;
    }
    let at = |by: Size| match &x {
        Atom::Loop(v) => crate::middle::ir::subst_loop(s, *v, &by),
        Atom::Name(n) => s.subst(&|k| (k == n).then(|| by.clone())),
        Atom::Opaque(_) => s.clone(),
    };
    let here = match &x {
        Atom::Loop(v) => Size::Loop(*v),
        Atom::Name(n) => Size::Name(n.clone()),
        Atom::Opaque(_) => return false,
    };
    let next = at(Size::plus(here, Size::Lit(1)));
    integer_valued(&at(Size::Lit(0)), depth + 1)
        && integer_valued(&Size::minus(next, s.clone()), depth + 1)
}

/// True when every identifier in `e` exists before a loop starts: sizes, size-table
/// locals, accumulator offsets and the given outer loop indexes.
fn idents_ok(e: &Ex, outer: &[String]) -> bool {
    lir::idents(e).iter().all(|i| {
        let s = i.to_string();
        s.starts_with("__z")
            || s.starts_with("__cur_")
            || s.starts_with("__nxt_")
            || outer.contains(&s)
            || !s.contains('_')
                && s.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}

/// `ifold(cnt, init, |acc, l| acc + g)` (or `g + acc`) of f64, `g` free of `acc`: a sum whose
/// terms can be added in any interleaving with other sums' (the interchange, the jam and the
/// tiles), each sum's own order kept.
#[derive(Clone, Copy)]
struct SumFold<'a> {
    cnt: &'a Core,
    init: &'a Core,
    l: VarId,
    g: &'a Core,
    /// The accumulator is the left operand of the `+`.
    acc_left: bool,
}

impl<'a> SumFold<'a> {
    fn of(e: &'a Core) -> Option<SumFold<'a>> {
        let Kind::Ifold(cnt, init, acc, l, fb) = &e.kind else {
            return None;
        };
        let Kind::Bin(BinOp::Add, x, y, _) = &fb.kind else {
            return None;
        };
        let (g, acc_left) = match (&x.kind, &y.kind) {
            (Kind::Var(a), _) if a == acc => (&**y, true),
            (_, Kind::Var(a)) if a == acc => (&**x, false),
            _ => return None,
        };
        (e.ty == Type::F64 && !g.mentions(*acc)).then_some(SumFold {
            cnt,
            init,
            l: *l,
            g,
            acc_left,
        })
    }

    /// One step of the sum, the operands in the order written.
    fn add(&self, acc: Ex, g: Ex) -> Ex {
        let (a, b) = if self.acc_left { (acc, g) } else { (g, acc) };
        Ex::Bin(BinOp::Add, Box::new(a), Box::new(b))
    }
}

/// Take the sum fold out of `e`, leaving `held` in its place: the fold must be reached through
/// arithmetic and math calls only (`ifold(..)`, `ifold(..) + b[i]`, `0.5 * ifold(..)`,
/// `ifold(..).tanh()`), so that it is evaluated exactly once per row.
fn take_fold(e: &mut Core, held: &Core) -> Option<Core> {
    if let Kind::Ifold(..) = e.kind
        && e.ty == Type::F64
    {
        return Some(std::mem::replace(e, held.clone()));
    }
    match &mut e.kind {
        Kind::Bin(_, a, b, _) => take_fold(a, held).or_else(|| take_fold(b, held)),
        Kind::Neg(a) => take_fold(a, held),
        Kind::Math(_, xs) => xs.iter_mut().find_map(|x| take_fold(x, held)),
        _ => None,
    }
}

/// Copy `k` of a tile's code `e`, translated with the column index as `jt`, for the tile of
/// `width` columns from `j0`: loads at `x + jt` become element `k` of the row `x + j0 .. x +
/// j0 + width` (the original loads are proven for every column, so is the row), and every
/// other use of the column is `j0 + k`.
fn column(
    e: &Ex,
    jt: &Ident,
    j0: &Ident,
    width: usize,
    k: usize,
    segs: &[(&TileRow, Ident)],
) -> Ex {
    let mut e = e.clone();
    lir::rewrite_ex(&mut e, &mut |x| {
        if let Ex::Ld(b, at) = x
            && let Some(off) = lir::unit_offset(at, jt)
        {
            // From a row with a segment cut for the tile: element k of the segment.
            let seg = off.as_ref().and_then(|o| {
                segs.iter()
                    .find(|(r, _)| r.base == *b && lir::same(&r.off, o))
            });
            if let Some((_, sg)) = seg {
                *x = Ex::LdRow(Base::Row(sg.clone()), Box::new(Ex::Usize(0)), width, k);
                return true;
            }
            let start = match off {
                Some(o) => wadd(o, Ex::Var(j0.clone())),
                None => Ex::Var(j0.clone()),
            };
            *x = Ex::LdRow(b.clone(), Box::new(start), width, k);
            return true;
        }
        if matches!(x, Ex::Var(v) if v == jt) {
            *x = wadd(Ex::Var(j0.clone()), Ex::Usize(k));
            return true;
        }
        false
    });
    e
}

#[cfg(test)]
mod tests {
    fn expand(src: &str) -> String {
        crate::expand(src.parse().unwrap()).to_string()
    }

    #[test]
    fn constant_elements_of_a_run_time_row_load_from_the_whole_row() {
        // Written out, `sum(cams[i % n][3..6])` and `cams[i % n][9]` are four loads at
        // constant offsets from row i % n: all from the parameter's row of 11, one range
        // check for LLVM to keep.
        let out = expand(
            "pub fn k(cams: [[f64; 11]; n], p: usize) -> [f64; p] {
                build(p, |i| sum(cams[i % n][3..6]) * cams[i % n][9])
            }",
        );
        assert_eq!(out.matches("ldr :: < 11usize > (cams").count(), 4, "{out}");
        assert!(!out.contains(":: ld (cams"), "{out}");
    }

    #[test]
    fn matrix_products_take_the_rows_of_their_operands_in_turn() {
        // (Untiled: with tiles, b's rows are cut per tile, `ldr`.)
        let out = expand(
            "#![fsmooth(unroll = false)] pub fn k(a: [[f64; m]; n], b: [[f64; m]; m]) -> [[f64; m]; n] { matmul(a, b) }",
        );
        assert!(out.contains("rows (__r"), "{out}");
        assert!(out.contains("b . get (0usize ..)"), "{out}");
        assert!(!out.contains("b . get ((i"), "{out}");
    }

    #[test]
    fn loop_indexes_into_arrays_of_that_size_are_proven() {
        let out =
            expand("pub fn k(a: [f64; n], b: [f64; n]) -> [f64; n] { build(n, |i| a[i] * b[i]) }");
        assert!(!out.contains("check"), "{out}");
        // `x + 2` with x < w - 2 into w elements.
        let out =
            expand("pub fn k(v: [f64; w]) -> [f64; w - 2] { build(w - 2, |x| v[x + 2] - v[x]) }");
        assert!(!out.contains(":: check"), "{out}");
    }

    #[test]
    fn subtractions_bounded_by_loops_are_unchecked() {
        // c < j < d: `j - c - 1` and `2 * d - c - 1` cannot underflow.
        let out = expand(
            "pub fn k(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
                build(d, |j| ifold(j, x[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * x[c]))
            }",
        );
        assert!(!out.contains(":: sub ("), "{out}");
        assert!(!out.contains(":: div ("), "{out}");
        // `i - 1` with i from 0 can underflow: checked.
        let out = expand("pub fn k(v: [f64; n]) -> [f64; n] { build(n, |i| v[(i - 1) % n]) }");
        assert!(out.contains(":: sub ("), "{out}");
    }

    #[test]
    fn packed_triangle_indexes_are_proven() {
        // GMM's lower triangle: the index is quadratic in c, but rising in c and in j.
        let out = expand(
            "pub fn k(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
                build(d, |j| ifold(j, q[j] * x[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * x[c]))
            }",
        );
        assert!(!out.contains(":: check ("), "{out}");
        assert!(!out.contains(":: mul (c"), "{out}");
        // And read at a running index (`Dps::running`), whose step shrinks by one: no
        // division or multiplication by the fold's index is left in its loop.
        assert!(out.contains("__at"), "{out}");
        assert!(!out.contains("/ 2usize"), "{out}");
        assert!(out.contains("wrapping_sub (1usize)"), "{out}");
        // One slot further is not in bounds: checked.
        let out = expand(
            "pub fn k(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
                build(d, |j| ifold(j, q[j] * x[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + (j - c)] * x[c]))
            }",
        );
        assert!(out.contains(":: check ("), "{out}");
    }

    #[test]
    fn loads_at_one_quadratic_index_share_its_run() {
        // Loads of two arrays at `c (c + 1) / 2 + c` (one load of each after CSE), one at
        // `c (2d - c - 1) / 2`: two running indexes, not three.
        let out = expand(
            "pub fn k(q: [f64; d * (d + 1) / 2], p: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
                build(d, |j| ifold(j, 0.0, |acc, c| acc + q[c * (c + 1) / 2 + c] * x[c] - p[c * (c + 1) / 2 + c] + q[c * (2 * d - c - 1) / 2]))
            }",
        );
        assert_eq!(out.matches("let mut __at").count(), 2, "{out}");
    }

    #[test]
    fn row_offsets_name_their_width_and_start() {
        use super::row_of;
        use crate::lir::{self, Ex, Wrap};
        use quote::format_ident;
        let (l, w, s) = (format_ident!("l"), format_ident!("w"), format_ident!("s"));
        let v = |i: &proc_macro2::Ident| Ex::Var(i.clone());
        let mul = |a: Ex, b: Ex| Ex::Wrap(Wrap::Mul, Box::new(a), Box::new(b));
        let add = |a: Ex, b: Ex| Ex::Wrap(Wrap::Add, Box::new(a), Box::new(b));
        let text = |r: Option<(Option<Ex>, Ex)>| {
            r.map(|(s, w)| {
                (
                    s.map(|s| lir::same(&s, &Ex::Var(format_ident!("s")))),
                    lir::same(&w, &Ex::Var(format_ident!("w"))),
                )
            })
        };
        // l * w, w * l, l * w + s and s + l * w: rows of width w, from 0 or from s.
        assert_eq!(text(row_of(&mul(v(&l), v(&w)), &l)), Some((None, true)));
        assert_eq!(text(row_of(&mul(v(&w), v(&l)), &l)), Some((None, true)));
        assert_eq!(
            text(row_of(&add(mul(v(&l), v(&w)), v(&s)), &l)),
            Some((Some(true), true))
        );
        assert_eq!(
            text(row_of(&add(v(&s), mul(v(&l), v(&w))), &l)),
            Some((Some(true), true))
        );
        // Not rows: l * l, l * w + l, l alone.
        assert_eq!(text(row_of(&mul(v(&l), v(&l)), &l)), None);
        assert_eq!(text(row_of(&add(mul(v(&l), v(&w)), v(&l)), &l)), None);
        assert_eq!(text(row_of(&v(&l), &l)), None);
    }

    #[test]
    fn inexact_quadratic_indexes_keep_their_arithmetic() {
        // `c * c / 2` rounds down at odd c: its differences are not a polynomial's, so it
        // is not read at a running index (the packed triangle is: see above).
        let out = expand(
            "pub fn k(q: [f64; d * d], x: [f64; d]) -> [f64; d] {
                build(d, |j| ifold(j, 0.0, |acc, c| acc + q[c * c / 2] * x[c]))
            }",
        );
        assert!(!out.contains("__at"), "{out}");
        assert!(out.contains("/ 2usize"), "{out}");
    }

    #[test]
    fn integer_valued_polynomials() {
        use super::divisions_exact;
        use crate::front::size::Size;
        let c = || Size::Loop(7);
        let d = || Size::Name("d".into());
        let half = |s: Size| Size::Div(Box::new(s), Box::new(Size::Lit(2)));
        // c (2d - c - 1) / 2 and c (c + 1) / 2 are integers; c c / 2 and d / 2 are not.
        let tri = Size::times(
            c(),
            Size::minus(
                Size::minus(Size::times(Size::Lit(2), d()), c()),
                Size::Lit(1),
            ),
        );
        assert!(divisions_exact(&half(tri)));
        assert!(divisions_exact(&half(Size::times(
            c(),
            Size::plus(c(), Size::Lit(1))
        ))));
        assert!(!divisions_exact(&half(Size::times(c(), c()))));
        assert!(!divisions_exact(&half(d())));
        assert!(!divisions_exact(&Size::Rem(Box::new(c()), Box::new(d()))));
    }

    #[test]
    fn polynomials_nonnegative_on_naturals() {
        use crate::front::size::Size;
        use crate::front::size::names_nonneg;
        let d = || Size::Name("d".into());
        let tri = Size::Div(
            Box::new(Size::times(d(), Size::plus(d(), Size::Lit(1)))),
            Box::new(Size::Lit(2)),
        );
        // d (d + 1) / 2 - d = d (d - 1) / 2 >= 0 on the naturals, not on the reals.
        assert!(names_nonneg(&Size::minus(tri.clone(), d())));
        assert!(!names_nonneg(&Size::minus(
            tri,
            Size::plus(d(), Size::Lit(1))
        )));
        assert!(!names_nonneg(&Size::minus(d(), Size::Lit(1))));
        assert!(names_nonneg(&Size::times(d(), d())));
    }

    #[test]
    fn rows_read_along_a_loop_become_streams() {
        // img[y][x + 2] in a loop over x: the row is cut once, read through an iterator.
        let out = expand(
            "pub fn k(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h] {
                build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 2]))
            }",
        );
        assert!(out.contains("img . get ("), "{out}");
        assert!(!out.contains("ld (img"), "{out}");
    }

    #[test]
    fn triangle_folds_read_rows_as_streams() {
        // A fold of j terms under a loop over j (GMM's packed triangle): row r of x is cut
        // once per j (its first j elements) rather than each term checked; the other index
        // is no stream.
        let out = expand(
            "pub fn k(l: [f64; n], x: [[f64; n]; m]) -> [f64; m] {
                build(m, |r| sum(build(n, |j| {
                    ifold(j, x[r][j], |acc, c| acc + l[c * (j + 1) % n] * x[r][c])
                })))
            }",
        );
        assert!(!out.contains("ld (x"), "{out}");
        assert!(out.contains("ld (l ,"), "{out}");
    }

    #[test]
    fn loops_whose_index_is_unused_zip_slices_alone() {
        // Destination slots and source rows only: no range in the chain.
        let out = expand(
            "pub fn k(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h] {
                build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 2]))
            }",
        );
        assert!(out.contains("in (__d) . zip"), "{out}");
    }

    #[test]
    fn short_fixed_loops_take_no_row_cuts() {
        // A 4 x 4 product unrolls into loads at constant offsets.
        let out = expand("pub fn k(a: [[f64; 4]; 4], x: [f64; 4]) -> [f64; 4] { matvec(a, x) }");
        assert!(!out.contains("a . get ("), "{out}");
        // The same product of run-time size cuts rows.
        let out = expand(
            "pub fn k(a: [[f64; m]; n], x: [f64; m], y: [f64; n]) -> f64 { dot(matvec(a, x), y) }",
        );
        assert!(out.contains("a . get ("), "{out}");
    }

    #[test]
    fn sum_folds_inside_builds_are_interchanged() {
        // matmul: the inner loop runs along rows of b, accumulating into the output row
        // (untiled, with unrolling off).
        let out = expand(
            "#![fsmooth(unroll = false)] pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
        );
        assert!(out.contains("* __slot = * __slot +"), "{out}");
        // Tiled: 16, then 4, then 1 column at a time, each tile's sums in locals over the
        // whole loop over k, b's row cut once per k for a tile, stored once at the end.
        let out = expand(
            "pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
        );
        assert!(!out.contains("* __slot = * __slot +"), "{out}");
        for w in [16, 4, 1] {
            assert!(out.contains(&format!("ldr :: < {w}usize >")), "{w}: {out}");
        }
        assert_eq!(out.matches("let mut __t").count(), 16 + 4 + 1, "{out}");
        // Small fixed sizes keep the written order.
        let out = expand(
            "pub fn k(a: [[f64; 4]; 4], b: [[f64; 4]; 4]) -> [[f64; 4]; 4] { matmul(a, b) }",
        );
        assert!(!out.contains("* __slot = * __slot +"), "{out}");
    }

    #[test]
    fn column_tiles_store_their_sums_as_one_row() {
        let out = expand(
            "pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
        );
        assert!(out.contains("st_row (out"), "{out}");
        // The rows of b are a stream along the sum, each tile's loads one segment of the row.
        assert!(out.contains(":: rows (__rb"), "{out}");
        assert!(out.contains("ldr :: < 16usize > (__sg"), "{out}");
        // Rows wider than the columns read: still tiles, but no row stream (the loads prove
        // only the columns read, and a row stream stops at a partial last row).
        let out = expand(
            "pub fn k(c: [[f64; m]; n], t: [[f64; m]; m]) -> [[f64; m - 1]; n] {
                build(n, |i| build(m - 1, |j| ifold(m, 0.0, |acc, l| acc + c[i][l] * t[l][j])))
            }",
        );
        assert!(out.contains("st_row (out"), "{out}");
        assert!(!out.contains("__sg"), "{out}");
        // Tiles of 16 and of 4 store rows; the last columns, one at a time, store slots.
        assert_eq!(out.matches("st_row (").count(), 2, "{out}");
        assert!(out.contains(":: st (out"), "{out}");
    }

    #[test]
    fn builds_over_sum_folds_take_eight_then_four_rows_at_a_time() {
        // A dense layer's rows: eight accumulators in one loop, one row cut each, the bias
        // added as the eight rows are stored (one row store); then four rows from where the
        // eights ended; then the rows left over, one at a time.
        let out = expand(
            "pub fn k(w: [[f64; m]; n], b: [f64; n], x: [f64; m]) -> [f64; n] { add(matvec(w, x), b) }",
        );
        // (Eight accumulators, then four.)
        assert_eq!(out.matches("let mut __a").count(), 12, "{out}");
        assert!(out.contains(": usize = (n / 8usize) ;"), "{out}");
        assert!(
            out.contains(". wrapping_mul (8usize)) / 4usize) ;"),
            "{out}"
        );
        assert_eq!(out.matches("st_row (out").count(), 2, "{out}");
        assert!(out.contains("for __left"), "{out}");
        // A constant count takes only the widths that fit: six rows are four and two. (Rows
        // too large for unrolling to write the six out.)
        let terms: Vec<String> = (0..60).map(|k| format!("w[i][{k}] * 1.5")).collect();
        let out = expand(&format!(
            "pub fn k(w: [[f64; 64]; 6], x: [f64; 64]) -> [f64; 6] {{ build(6, |i| dot(w[i], x) + {}) }}",
            terms.join(" + ")
        ));
        assert!(!out.contains("/ 8usize"), "{out}");
        assert!(out.contains("(6usize / 4usize)"), "{out}");
        assert_eq!(out.matches("let mut __a").count(), 4, "{out}");
        // Alone, a matrix-vector product is not interchanged (its inner loop would walk down
        // the columns of w) but taken in groups of rows.
        let out = expand("pub fn k(w: [[f64; m]; n], x: [f64; m]) -> [f64; n] { matvec(w, x) }");
        assert!(out.contains("let __nb"), "{out}");
        assert!(!out.contains("* __slot = * __slot +"), "{out}");
        // Not with unrolling off, nor when the fold's length depends on the row (a triangle),
        // nor when a term may fail (an unproven index): the first failing row must fail first.
        for src in [
            "#![fsmooth(unroll = false)] pub fn k(w: [[f64; m]; n], x: [f64; m]) -> [f64; n] { build(n, |i| dot(w[i], x) + 1.0) }",
            "pub fn k(x: [f64; n]) -> [f64; n] { build(n, |i| ifold(i, 0.0, |acc, l| acc + x[l]) * 2.0) }",
            "pub fn k(x: [f64; n], p: usize) -> [f64; n] { build(n, |i| ifold(n, 0.0, |acc, l| acc + x[l + p]) * 2.0) }",
        ] {
            let out = expand(src);
            assert!(!out.contains("let __nb"), "{src}\n{out}");
        }
        // Nor when a row reads the destination's buffer (the state of a power iteration and
        // the product share the frame); the loop it falls back to indexes by its own row
        // index, not by a row of the group it gave up.
        let out = expand(
            "pub fn k(a: [[f64; n]; n], v0: [f64; n], t: usize) -> [f64; n] { ifold(t, v0, |v, s| { let u = matvec(a, v); smul(u, 1.0 / norm(u)) }) }",
        );
        assert!(!out.contains("let __nb"), "{out}");
        let group_row = out
            .match_indices("__r")
            .any(|(at, _)| out[at + 3..].starts_with(|c: char| c.is_ascii_digit()));
        assert!(!group_row, "{out}");
    }

    #[test]
    fn remainders_are_below_their_divisor() {
        // `i % n` indexes `[_; n]` without a check; the `%` keeps its own (n may be 0).
        let out = expand("pub fn k(a: [f64; n], p: usize) -> [f64; p] { build(p, |i| a[i % n]) }");
        assert!(!out.contains(":: check ("), "{out}");
        assert!(out.contains(":: rem ("), "{out}");
        // Not into a shorter array.
        let out = expand(
            "pub fn k(a: [f64; n], b: [f64; n - 1], p: usize) -> [f64; p] { build(p, |i| a[0] + b[i % n]) }",
        );
        assert!(out.contains(":: check ("), "{out}");
    }

    #[test]
    fn unproven_indexes_are_checked() {
        let out = expand("pub fn k(v: [f64; n], i: usize) -> f64 { v[i] }");
        assert!(out.contains(":: check (i , n) ?"), "{out}");
        let out = expand("pub fn k(v: [f64; n]) -> [f64; n] { build(n, |i| v[i + 1]) }");
        assert!(out.contains(":: check"), "{out}");
    }

    #[test]
    fn ifold_accumulator_takes_two_buffers() {
        let out = expand(
            "pub fn k(v: [f64; n], t: usize) -> [f64; n] { ifold(t, v, |s, i| smul(s, 2.0)) }",
        );
        assert!(out.contains("swap"), "{out}");
        assert!(
            out.contains("scratch_len (n : usize , t : usize) -> usize { n + n")
                || out.contains("saturating_add (n , n)"),
            "{out}"
        );
    }
}
