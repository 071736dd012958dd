//! Resolution: the loop IR with its names interned and its sizes folded, so that running it
//! does no string work, and the checks rustc would make (names, borrows, writes to
//! parameters), made once over the whole function.

use fsmooth_core::front::ast::{BinOp, MathFn};
use fsmooth_core::front::size::Size;
use fsmooth_core::lir::{self, Base, Checked, Entry, Ex, Scalar, St, Wrap};
use proc_macro2::{Ident, Span};
use std::collections::HashMap;

/// An interned name: its index in [`Resolver::names`].
pub(super) type NameId = u32;
/// The names `run` interns first ([`FIRST_NAMES`]).
pub(super) const OUT_NAME: NameId = 0;
pub(super) const SCRATCH_NAME: NameId = 1;

/// The names interned first, in order: `out`, then the frame's parts.
pub(super) const FIRST_NAMES: [&str; 4] = ["out", "scratch", "scratch_f32", "scratch_usize"];

/// The name of the frame's part of element type `elem`.
pub(super) fn scratch_name(elem: Scalar) -> NameId {
    match elem {
        Scalar::F32 => 2,
        Scalar::Usize => 3,
        _ => SCRATCH_NAME,
    }
}

/// The name as Rust resolves it: `r#x` and `x` are one identifier.
pub(super) fn canonical_name(s: &str) -> String {
    s.strip_prefix("r#").unwrap_or(s).to_string()
}

/// A resolved [`Ex`].
pub(super) enum ResolvedEx<'a> {
    F64(f64),
    F32(f32),
    Bool(bool),
    Usize(usize),
    Var(NameId),
    Len(NameId),
    Bin(BinOp, Box<ResolvedEx<'a>>, Box<ResolvedEx<'a>>),
    Checked(Checked, Box<ResolvedEx<'a>>, Box<ResolvedEx<'a>>, &'a str),
    Wrap(Wrap, Box<ResolvedEx<'a>>, Box<ResolvedEx<'a>>),
    Neg(Box<ResolvedEx<'a>>),
    Not(Box<ResolvedEx<'a>>),
    ToF64(Box<ResolvedEx<'a>>),
    ToF32(Box<ResolvedEx<'a>>),
    IndexTo(Scalar, Box<ResolvedEx<'a>>),
    ToUsize(Box<ResolvedEx<'a>>),
    /// The receiver, then the arguments (exactly as many as the method takes).
    Math(MathFn, Vec<ResolvedEx<'a>>),
    /// [`lir::Ex::Fused`]: `x * a + b`.
    Fused(Vec<ResolvedEx<'a>>),
    Entry(Entry, Vec<ResolvedEx<'a>>),
    Const(ResolvedSize),
    Ld(NameId, Box<ResolvedEx<'a>>),
    LdRow(NameId, Box<ResolvedEx<'a>>, usize, usize, Scalar),
    Check(Box<ResolvedEx<'a>>, Box<ResolvedEx<'a>>),
    Elem(NameId),
    Block(Vec<ResolvedSt<'a>>, Box<ResolvedEx<'a>>),
    If(
        Box<ResolvedEx<'a>>,
        Box<ResolvedEx<'a>>,
        Box<ResolvedEx<'a>>,
    ),
    Internal(&'static str),
}

/// A folded [`Size`], as `size::const_size` prints it.
pub(super) enum ResolvedSize {
    Lit(usize),
    Name(NameId),
    Zero,
    Add(Box<ResolvedSize>, Box<ResolvedSize>),
    Sub(Box<ResolvedSize>, Box<ResolvedSize>),
    Mul(Box<ResolvedSize>, Box<ResolvedSize>),
    Div(Box<ResolvedSize>, Box<ResolvedSize>),
    Rem(Box<ResolvedSize>, Box<ResolvedSize>),
}

/// A resolved [`lir::Stream`].
pub(super) struct ResolvedStream<'a> {
    pub(super) base: NameId,
    pub(super) start: ResolvedEx<'a>,
    pub(super) elem: NameId,
    pub(super) width: Option<ResolvedEx<'a>>,
    /// The name the whole slice is bound to, when an inner loop reads a prefix of it
    /// ([`lir::whole_read`]).
    pub(super) all: Option<NameId>,
    /// A row stream of an output the loop stores into ([`lir::row_puts`]): its rows are
    /// writable windows.
    pub(super) written: bool,
}

/// A resolved [`St`]; `For` and `Fill` are one `Loop`.
pub(super) enum ResolvedSt<'a> {
    Let {
        id: NameId,
        mutable: bool,
        usize_ty: bool,
        val: ResolvedEx<'a>,
    },
    Assign(NameId, ResolvedEx<'a>),
    Store(NameId, ResolvedEx<'a>, ResolvedEx<'a>),
    StoreRow(NameId, ResolvedEx<'a>, Vec<ResolvedEx<'a>>),
    Segment {
        id: NameId,
        base: NameId,
        off: ResolvedEx<'a>,
        width: usize,
        body: Vec<ResolvedSt<'a>>,
    },
    Pieces {
        elem: Scalar,
        pieces: Vec<(NameId, ResolvedEx<'a>)>,
        body: Vec<ResolvedSt<'a>>,
    },
    Rows {
        off: ResolvedEx<'a>,
        /// Each row's name, its buffer, and whether it is written.
        rows: Vec<(NameId, NameId, bool)>,
        body: Vec<ResolvedSt<'a>>,
    },
    Slot(ResolvedEx<'a>),
    SlotAdd(ResolvedEx<'a>),
    /// `*elem = val;` to a stream's `&mut` element.
    Put(NameId, ResolvedEx<'a>),
    Loop {
        /// The buffer and first slot of a fill.
        fill: Option<(NameId, Option<ResolvedEx<'a>>)>,
        /// A sum in lanes ([`lir::St::Lanes`]): its local (lane 0) and type.
        lanes: Option<(NameId, Scalar)>,
        var: NameId,
        n: ResolvedEx<'a>,
        streams: Vec<ResolvedStream<'a>>,
        body: Vec<ResolvedSt<'a>>,
    },
    If(ResolvedEx<'a>, Vec<ResolvedSt<'a>>, Vec<ResolvedSt<'a>>),
    /// `while c { body }`.
    While(ResolvedEx<'a>, Vec<ResolvedSt<'a>>),
    /// [`lir::St::ParSum`]: its chunks run in turn, in the order of their tree.
    ParSum {
        acc: NameId,
        acc_left: bool,
        elem: Scalar,
        var: NameId,
        n: ResolvedEx<'a>,
        body: Vec<ResolvedSt<'a>>,
        frame: bool,
    },
    Block(Vec<ResolvedSt<'a>>),
    Swap(NameId, NameId),
    CheckRange(ResolvedEx<'a>, ResolvedEx<'a>, ResolvedEx<'a>),
    Copy {
        dst: NameId,
        dst_off: ResolvedEx<'a>,
        src: NameId,
        src_off: ResolvedEx<'a>,
        n: ResolvedEx<'a>,
    },
    AddWithin {
        base: NameId,
        dst_off: ResolvedEx<'a>,
        src_off: ResolvedEx<'a>,
        n: ResolvedEx<'a>,
    },
    Alloc(Scalar, ResolvedEx<'a>, ResolvedEx<'a>),
    Restate(NameId, ResolvedEx<'a>, ResolvedEx<'a>),
    Heap(NameId, ResolvedEx<'a>, Scalar),
    CheckLen {
        arg: &'a str,
        base: NameId,
        want: ResolvedEx<'a>,
        elem: Scalar,
    },
    CheckColumn {
        base: NameId,
        at: ResolvedEx<'a>,
        stride: ResolvedEx<'a>,
        len: ResolvedEx<'a>,
    },
    Frame {
        len: Option<ResolvedEx<'a>>,
        constant: Option<usize>,
        /// The element counts of the parts a typed frame is cut into (`None`: a part with
        /// no name), as printed.
        parts: Option<[Option<ResolvedEx<'a>>; 3]>,
    },
}

/// Resolves a function of the loop IR: interns its names, folds its sizes and keeps the
/// first static fault (what rustc would reject).
#[derive(Default)]
pub(super) struct Resolver {
    ids: HashMap<String, NameId>,
    /// Every name interned, by [`NameId`].
    pub(super) names: Vec<String>,
    /// Buffers borrowed by the enclosing loops: by a stream (shared) or by a fill
    /// (exclusive).
    borrows: Vec<(NameId, bool)>,
    /// Enclosing fills (where `__slot` is in scope).
    fills: usize,
    /// The frame's parts cut into pieces around the code resolved (which the pieces then
    /// borrow mutably).
    cut: Vec<Scalar>,
    /// The first static fault.
    pub(super) fault: Option<String>,
}

impl Resolver {
    pub(super) fn intern(&mut self, s: &str) -> NameId {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as NameId;
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), id);
        id
    }

    fn ident(&mut self, i: &Ident) -> NameId {
        self.intern(&canonical_name(&i.to_string()))
    }

    fn fail(&mut self, msg: String) {
        self.fault.get_or_insert(msg);
    }

    fn base(&mut self, b: &Base) -> NameId {
        match b {
            Base::Param(i) => self.ident(i),
            Base::Out => OUT_NAME,
            Base::Scratch(t) => {
                if self.cut.contains(t) {
                    self.fail(format!(
                        "`{}` is used inside its cut into pieces, which borrow it mutably",
                        b.name()
                    ));
                }
                scratch_name(*t)
            }
            Base::Heap(_) | Base::Local(_) | Base::OutPart(_) => self.intern(&b.name()),
            Base::Row(i) | Base::Piece(i) => self.ident(i),
        }
    }

    /// A buffer read (a load, a length, a stream, a copy's source).
    fn read(&mut self, b: &Base) -> NameId {
        let id = self.base(b);
        if self
            .borrows
            .iter()
            .any(|&(borrowed, exclusive)| exclusive && borrowed == id)
        {
            self.fail(format!(
                "`{}` is used inside a fill over it (or a row of it), which borrows it mutably",
                b.name()
            ));
        }
        id
    }

    /// A buffer written (a store, a fill, a copy's destination).
    fn write(&mut self, b: &Base) -> NameId {
        let id = self.base(b);
        if let Base::Param(_) = b {
            self.fail(format!("write to the parameter `{}`", b.name()));
        }
        if let Some(&(_, exclusive)) = self.borrows.iter().find(|&&(borrowed, _)| borrowed == id) {
            self.fail(if exclusive {
                format!(
                    "`{}` is written inside a fill over it (or a row of it), which borrows it mutably",
                    b.name()
                )
            } else {
                format!("stream buffer `{}` written inside its loop (or beside a row of it)", b.name())
            });
        }
        id
    }

    fn boxed<'a>(&mut self, e: &'a Ex) -> Box<ResolvedEx<'a>> {
        Box::new(self.expr(e))
    }

    pub(super) fn expr<'a>(&mut self, e: &'a Ex) -> ResolvedEx<'a> {
        match e {
            Ex::Tuple(_) => {
                self.fail("a tuple `(..)` that is not the kernel's result".into());
                ResolvedEx::Internal("a tuple inside an expression")
            }
            Ex::F64(v) => ResolvedEx::F64(*v),
            Ex::F32(v) => ResolvedEx::F32(*v),
            Ex::Bool(b) => ResolvedEx::Bool(*b),
            // Both codes give the same result; the one chosen where the target has the
            // feature is the one no default build runs, so it is the one checked here.
            Ex::Target(_) => ResolvedEx::Bool(true),
            Ex::Usize(v) => ResolvedEx::Usize(*v),
            Ex::Var(i) => ResolvedEx::Var(self.ident(i)),
            Ex::Len(b) => ResolvedEx::Len(self.read(b)),
            Ex::Bin(op, a, b) => ResolvedEx::Bin(*op, self.boxed(a), self.boxed(b)),
            Ex::Checked(c, a, b, t) => ResolvedEx::Checked(*c, self.boxed(a), self.boxed(b), t),
            Ex::Wrap(w, a, b) => ResolvedEx::Wrap(*w, self.boxed(a), self.boxed(b)),
            Ex::Neg(a) => ResolvedEx::Neg(self.boxed(a)),
            Ex::Not(a) => ResolvedEx::Not(self.boxed(a)),
            Ex::ToF64(a) => ResolvedEx::ToF64(self.boxed(a)),
            Ex::ToF32(a) => ResolvedEx::ToF32(self.boxed(a)),
            Ex::IndexTo(t, a) => ResolvedEx::IndexTo(*t, self.boxed(a)),
            Ex::ToUsize(a) => ResolvedEx::ToUsize(self.boxed(a)),
            Ex::Math(f, xs) => {
                // Printing takes the receiver and the method's arguments and ignores the rest.
                if xs.len() < 1 + f.arity() {
                    self.fail(format!("`{}` with {} arguments", f.name(), xs.len()));
                    return ResolvedEx::Internal("malformed math call");
                }
                let args = xs[..1 + f.arity()].iter().map(|x| self.expr(x)).collect();
                ResolvedEx::Math(*f, args)
            }
            Ex::Fused(xs) => {
                if xs.len() != 3 {
                    self.fail(format!("`fused` with {} arguments", xs.len()));
                    return ResolvedEx::Internal("malformed fused multiply-add");
                }
                ResolvedEx::Fused(xs.iter().map(|x| self.expr(x)).collect())
            }
            Ex::Entry(en, xs) => {
                let want = match en {
                    Entry::FromLen | Entry::Max => 2,
                    Entry::Root(_) | Entry::SolveLinear(..) => 1,
                    Entry::Slots => 3,
                };
                if xs.len() != want {
                    self.fail(format!("`{en:?}` called with {} arguments", xs.len()));
                }
                ResolvedEx::Entry(en.clone(), xs.iter().map(|x| self.expr(x)).collect())
            }
            Ex::Const(s) => ResolvedEx::Const(self.size(&s.whole())),
            Ex::Ld(b, at) => ResolvedEx::Ld(self.read(b), self.boxed(at)),
            Ex::LdRow(b, off, width, k, t) => {
                ResolvedEx::LdRow(self.read(b), self.boxed(off), *width, *k, *t)
            }
            Ex::Check(i, d) => ResolvedEx::Check(self.boxed(i), self.boxed(d)),
            Ex::Elem(i) => ResolvedEx::Elem(self.ident(i)),
            Ex::Block(sts, v) => ResolvedEx::Block(self.stmts(sts), self.boxed(v)),
            Ex::If(c, a, b) => ResolvedEx::If(self.boxed(c), self.boxed(a), self.boxed(b)),
            Ex::Internal(m) => ResolvedEx::Internal(m),
        }
    }

    /// A kernel's result: its scalars, in position order (several for a tuple, which is
    /// only the whole result).
    pub(super) fn result<'a>(&mut self, result: Option<&'a Ex>) -> Vec<ResolvedEx<'a>> {
        match result {
            None => Vec::new(),
            Some(Ex::Tuple(xs)) => {
                if xs.len() < 2 {
                    // Printed, `(a)` is `a` and `()` is no result: the kernel's signature says
                    // otherwise.
                    self.fail(format!(
                        "a tuple result of {} scalars (a tuple is only made for several)",
                        xs.len()
                    ));
                }
                xs.iter().map(|x| self.expr(x)).collect()
            }
            Some(e) => vec![self.expr(e)],
        }
    }

    /// A folded size, node by node as `size::const_size` prints it (which takes every node
    /// as a whole, [`Size::whole`]).
    fn size(&mut self, s: &Size) -> ResolvedSize {
        let s = s.whole();
        let mut bin = |a: &Size, b: &Size| (Box::new(self.size(a)), Box::new(self.size(b)));
        match &s {
            Size::Lit(v) => ResolvedSize::Lit(*v as usize),
            Size::Name(n) => {
                let id = fsmooth_core::front::ast::ident(n, Span::call_site());
                ResolvedSize::Name(self.ident(&id))
            }
            Size::Loop(_) => ResolvedSize::Zero,
            Size::Add(a, b) => {
                let (a, b) = bin(a, b);
                ResolvedSize::Add(a, b)
            }
            Size::Sub(a, b) => {
                let (a, b) = bin(a, b);
                ResolvedSize::Sub(a, b)
            }
            Size::Mul(a, b) => {
                let (a, b) = bin(a, b);
                ResolvedSize::Mul(a, b)
            }
            Size::Div(a, b) => {
                let (a, b) = bin(a, b);
                ResolvedSize::Div(a, b)
            }
            Size::Rem(a, b) => {
                let (a, b) = bin(a, b);
                ResolvedSize::Rem(a, b)
            }
        }
    }

    pub(super) fn stmts<'a>(&mut self, sts: &'a [St]) -> Vec<ResolvedSt<'a>> {
        sts.iter().map(|s| self.stmt(s)).collect()
    }

    fn stmt<'a>(&mut self, s: &'a St) -> ResolvedSt<'a> {
        match s {
            St::Let {
                id,
                mutable,
                usize_ty,
                val,
            } => {
                let val = self.expr(val);
                ResolvedSt::Let {
                    id: self.ident(id),
                    mutable: *mutable,
                    usize_ty: *usize_ty,
                    val,
                }
            }
            St::Assign(i, v) => ResolvedSt::Assign(self.ident(i), self.expr(v)),
            St::Store(b, at, v) => {
                let v = self.expr(v);
                ResolvedSt::Store(self.write(b), self.expr(at), v)
            }
            St::StoreRow(b, off, vs) => {
                // The values first, as the printed `let __v = [..]` does.
                let vs = vs.iter().map(|v| self.expr(v)).collect();
                ResolvedSt::StoreRow(self.write(b), self.expr(off), vs)
            }
            St::Put(e, v) => ResolvedSt::Put(self.ident(e), self.expr(v)),
            St::Slot(v) | St::SlotAdd(v) => {
                if self.fills == 0 {
                    self.fail("`__slot` used outside a fill".into());
                }
                let v = self.expr(v);
                match s {
                    St::Slot(_) => ResolvedSt::Slot(v),
                    _ => ResolvedSt::SlotAdd(v),
                }
            }
            St::For {
                var,
                n,
                streams,
                body,
            } => self.loop_stmt(None, var, n, streams, body),
            St::Lanes {
                acc,
                elem,
                var,
                n,
                streams,
                body,
            } => {
                let acc = self.ident(acc);
                let mut lp = self.loop_stmt(None, var, n, streams, body);
                if let ResolvedSt::Loop { lanes, .. } = &mut lp {
                    *lanes = Some((acc, *elem));
                }
                lp
            }
            St::Fill {
                base,
                off,
                var,
                n,
                streams,
                body,
            } => self.loop_stmt(Some((base, off)), var, n, streams, body),
            St::If(c, a, b) => ResolvedSt::If(self.expr(c), self.stmts(a), self.stmts(b)),
            St::While(c, b) => ResolvedSt::While(self.expr(c), self.stmts(b)),
            St::ParSum {
                acc,
                acc_left,
                elem,
                var,
                n,
                body,
                frame,
            } => {
                let n = self.expr(n);
                let acc = self.ident(acc);
                let var = self.ident(var);
                ResolvedSt::ParSum {
                    acc,
                    acc_left: *acc_left,
                    elem: *elem,
                    var,
                    n,
                    body: self.stmts(body),
                    frame: *frame,
                }
            }
            // Each step writes its own row and frame slots no later step reads: in order,
            // as the loop below `PAR_MIN_STEPS` runs, the outputs are the chunks'.
            St::ParRows { var, n, body, .. } => self.loop_stmt(None, var, n, &[], body),
            St::Block(b) => ResolvedSt::Block(self.stmts(b)),
            St::Segment {
                id,
                base,
                off,
                width,
                body,
            } => {
                let base = self.read(base);
                let off = self.expr(off);
                let id = self.ident(id);
                ResolvedSt::Segment {
                    id,
                    base,
                    off,
                    width: *width,
                    body: self.stmts(body),
                }
            }
            St::Pieces { elem, pieces, body } => {
                let pieces = pieces
                    .iter()
                    .map(|(id, start)| (self.ident(id), self.expr(start)))
                    .collect();
                self.cut.push(*elem);
                let body = self.stmts(body);
                self.cut.pop();
                ResolvedSt::Pieces {
                    elem: *elem,
                    pieces,
                    body,
                }
            }
            St::Rows { off, rows, body } => {
                let off = self.expr(off);
                let depth = self.borrows.len();
                let rows = rows
                    .iter()
                    .map(|r| {
                        let base = if r.mutable {
                            self.write(&r.base)
                        } else {
                            self.read(&r.base)
                        };
                        (self.ident(&r.id), base, r.mutable)
                    })
                    .collect::<Vec<_>>();
                // The rows borrow their buffers over the body.
                for &(_, base, mutable) in &rows {
                    self.borrows.push((base, mutable));
                }
                let body = self.stmts(body);
                self.borrows.truncate(depth);
                ResolvedSt::Rows { off, rows, body }
            }
            St::Swap(a, b) => {
                let (a, b) = (self.ident(a), self.ident(b));
                if a == b {
                    self.fail(format!(
                        "`swap` of `{}` with itself borrows it mutably twice",
                        self.names[a as usize]
                    ));
                }
                ResolvedSt::Swap(a, b)
            }
            St::CheckRange(a, b, c) => {
                ResolvedSt::CheckRange(self.expr(a), self.expr(b), self.expr(c))
            }
            St::Copy {
                dst,
                dst_off,
                src,
                src_off,
                n,
            } => {
                let dst_id = self.write(dst);
                let src_id = self.read(src);
                if dst_id == src_id {
                    self.fail(format!(
                        "copy from `{}` to itself borrows it both ways",
                        dst.name()
                    ));
                }
                ResolvedSt::Copy {
                    dst: dst_id,
                    dst_off: self.expr(dst_off),
                    src: src_id,
                    src_off: self.expr(src_off),
                    n: self.expr(n),
                }
            }
            St::AddWithin {
                base,
                dst_off,
                src_off,
                n,
            } => ResolvedSt::AddWithin {
                base: self.write(base),
                dst_off: self.expr(dst_off),
                src_off: self.expr(src_off),
                n: self.expr(n),
            },
            St::Alloc { elem, off, len } => {
                ResolvedSt::Alloc(*elem, self.expr(off), self.expr(len))
            }
            St::Restate { base, off, n } => {
                let id = self.intern(&base.name());
                ResolvedSt::Restate(id, self.expr(off), self.expr(n))
            }
            // A local array is a buffer of its own, as a heap one is.
            St::Local { id, len, elem } => {
                let len = ResolvedEx::Usize(*len);
                ResolvedSt::Heap(self.intern(&Base::Local(*id).name()), len, *elem)
            }
            St::Heap { id, len, elem } => {
                let len = self.expr(len);
                ResolvedSt::Heap(self.intern(&Base::Heap(*id).name()), len, *elem)
            }
            St::CheckLen {
                arg,
                base,
                want,
                elem,
            } => ResolvedSt::CheckLen {
                arg,
                base: self.read(base),
                want: self.expr(want),
                elem: *elem,
            },
            St::CheckColumn {
                base,
                at,
                stride,
                len,
            } => ResolvedSt::CheckColumn {
                base: self.read(base),
                at: self.expr(at),
                stride: self.expr(stride),
                len: self.expr(len),
            },
            St::Frame {
                len,
                constant,
                heap,
                parts,
            } => {
                // As printed: a heap frame is `len` slots; a constant frame prints only the
                // constant; no length, no frame.
                let (len, constant) = match (len, constant, heap) {
                    (Some(l), _, true) | (Some(l), None, false) => (Some(self.expr(l)), None),
                    (Some(_), Some(n), false) => (None, Some(*n)),
                    (None, ..) => (None, None),
                };
                let parts = parts
                    .as_ref()
                    .map(|ps| [0, 1, 2].map(|k| ps[k].as_ref().map(|p| self.expr(p))));
                ResolvedSt::Frame {
                    len,
                    constant,
                    parts,
                }
            }
        }
    }

    /// A `for` loop or a fill; the buffers it borrows are noted over its body.
    fn loop_stmt<'a>(
        &mut self,
        fill: Option<(&'a Base, &'a Option<Ex>)>,
        var: &'a Ident,
        n: &'a Ex,
        streams: &'a [lir::Stream],
        body: &'a [St],
    ) -> ResolvedSt<'a> {
        let depth = self.borrows.len();
        let fill = fill.map(|(b, off)| {
            let off = off.as_ref().map(|o| self.expr(o));
            let id = self.write(b);
            (id, off)
        });
        let n = self.expr(n);
        if let Some((id, _)) = &fill {
            // `__d` is alive over the streams' cuts and the whole loop.
            self.borrows.push((*id, true));
            self.fills += 1;
        }
        let var = self.ident(var);
        let mut bound = vec![var];
        let resolved: Vec<ResolvedStream<'a>> = streams
            .iter()
            .map(|s| {
                let start = self.expr(&s.start);
                let width = s.width.as_ref().map(|w| self.expr(w));
                // A stream the body stores to is of `&mut` elements: it borrows its buffer
                // mutably.
                let base = match lir::puts(body, &s.elem) {
                    true => self.write(&s.base),
                    false => self.read(&s.base),
                };
                let elem = self.ident(&s.elem);
                if bound.contains(&elem) {
                    self.fail(format!(
                        "`{}` is bound twice in one loop pattern",
                        self.names[elem as usize]
                    ));
                }
                bound.push(elem);
                let all = lir::whole_read(s, body).map(|all| self.ident(&all));
                let written = s.width.is_some() && lir::row_puts(body, &s.elem);
                ResolvedStream {
                    base,
                    start,
                    elem,
                    width,
                    all,
                    written,
                }
            })
            .collect();
        for (s, lir_s) in resolved.iter().zip(streams) {
            self.borrows
                .push((s.base, lir::puts(body, &lir_s.elem) || s.written));
        }
        let body = self.stmts(body);
        self.borrows.truncate(depth);
        if fill.is_some() {
            self.fills -= 1;
        }
        ResolvedSt::Loop {
            fill,
            lanes: None,
            var,
            n,
            streams: resolved,
            body,
        }
    }
}
