//! `exec`: the executor of the DPS/storage-planned IR ([`fsmooth_core::lir`]).
//!
//! [`run`] executes a [`lir::Func`] on concrete inputs exactly as the Rust that
//! [`fsmooth_core::emit`] prints from it would run, with a real scratch frame, and flags what
//! would be a compiler bug there instead of silently doing what the printed code does:
//!
//! * a proven load or store (`ld`/`st`) out of range (the printed code reads 0.0 or skips);
//! * a `get`/`get_mut` range of a fill, a stream or a copy out of range (the printed code
//!   skips the loop);
//! * an allocation outside the frame or overlapping a live one, an access to the frame
//!   outside every live allocation, a read of a slot of `out`, of the frame or of a heap
//!   buffer that was never written (since its allocation), an `out` slot never written by a
//!   successful call; `out` written before an error raised ahead of the frame;
//! * what rustc would reject: unknown names, type mismatches, writes to parameters, writes
//!   to a buffer that a loop streams or that a fill borrows (these borrow conflicts are
//!   checked statically, over the whole function, as the borrow checker does);
//! * what would panic: `usize` `/` or `%` by zero, `usize` overflow in a plain operator;
//! * [`Ex::Internal`], and runaway loops (a step budget).
//!
//! The program is first resolved (names interned, sizes folded) so that running it does no
//! string work.

use fsmooth_core::front::ast::{BinOp, MathFn};
use fsmooth_core::front::size::Size;
use fsmooth_core::lir::{self, Base, Checked, Entry, Ex, St, Wrap};
use fsmooth_runtime::__rt;
use proc_macro2::{Ident, Span};
use std::collections::HashMap;

/// An argument value.
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An `f64` scalar.
    F64(f64),
    /// A `usize` scalar (or size).
    Usize(usize),
    /// A `bool` scalar.
    Bool(bool),
    /// An array, row-major and flat.
    Arr(Vec<f64>),
}

/// What a kernel call returned.
#[derive(Debug, Clone, PartialEq)]
pub enum Ret {
    /// A scalar kernel's `f64`.
    F64(f64),
    /// A scalar kernel's `usize`.
    Usize(usize),
    /// A scalar kernel's `bool`.
    Bool(bool),
    /// An array kernel's `out`, every slot written.
    Out(Vec<f64>),
}

/// A compiler bug the executor caught.
#[derive(Debug, Clone, PartialEq)]
pub struct Fault(pub String);

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Loop iterations (and copied slots) allowed in one call.
const STEP_BUDGET: u64 = 50_000_000;

/// The largest frame or heap buffer the executor allocates; a larger one fails with
/// `Error::Scratch`, as a failed allocation does.
const MAX_FRAME: usize = 1 << 24;

/// Run `f`. `params`: each kernel parameter's Rust name and value (in any order).
/// `out_len`: Some(len) for array kernels (out starts as that many never-written slots), None
/// for scalar kernels.
///
/// `Ok(Ok(ret))` = the kernel returned a value; `Ok(Err(msg))` = the kernel returned an
/// fsmooth `Error` (Shape, Scratch, Index, Arithmetic; `msg` is the error's `Display`);
/// `Err(Fault)` = the executor caught a compiler bug.
pub fn run(
    f: &lir::Func,
    params: &[(&str, Arg)],
    out_len: Option<usize>,
) -> Result<Result<Ret, String>, Fault> {
    let mut c = Compiler::default();
    for n in ["out", "scratch"] {
        c.name(n);
    }
    let body = c.sts(&f.body);
    let result = f.result.as_ref().map(|e| c.ex(e));
    if let Some(msg) = c.fault {
        return Err(Fault(msg));
    }
    match (out_len, &result) {
        (Some(_), Some(_)) => {
            return Err(Fault(
                "an array kernel (returning `Ok(())`) has a scalar result".into(),
            ));
        }
        (None, None) => {
            return Err(Fault(
                "a scalar kernel has no result (it would return `Ok(())`)".into(),
            ));
        }
        _ => {}
    }
    let param_ids: Vec<Id> = params.iter().map(|(n, _)| c.name(&canon(n))).collect();
    let mut x = Exec {
        env: vec![Vec::new(); c.names.len()],
        names: &c.names,
        trail: Vec::new(),
        bufs: vec![
            Buf::tracked(Kind::Out, out_len.unwrap_or(0)),
            Buf::tracked(Kind::Scratch, 0),
        ],
        live: Vec::new(),
        slots: Vec::new(),
        steps: 0,
        frame_ran: false,
    };
    for (id, (name, arg)) in param_ids.iter().zip(params) {
        let v = match arg {
            Arg::F64(v) => V::F(*v),
            Arg::Usize(v) => V::U(*v),
            Arg::Bool(v) => V::B(*v),
            Arg::Arr(data) => {
                x.bufs.push(Buf {
                    kind: Kind::Param((*name).to_string()),
                    data: data.clone(),
                    written: Vec::new(),
                    tracked: false,
                });
                V::Buf(x.bufs.len() - 1)
            }
        };
        x.bind(*id, v, false);
    }
    if out_len.is_some() {
        x.bind(OUT_ID, V::Buf(OUT), false);
    }
    let ran = x.scope(&body, |x| match &result {
        Some(e) => x.ex(e).map(Some),
        None => Ok(None),
    });
    match ran {
        Ok(v) => match v {
            None => {
                if let Some(k) = x.bufs[OUT].written.iter().position(|w| !w) {
                    return Err(Fault(format!("out slot {k} never written")));
                }
                Ok(Ok(Ret::Out(std::mem::take(&mut x.bufs[OUT].data))))
            }
            Some(V::F(v)) => Ok(Ok(Ret::F64(v))),
            Some(V::U(v)) => Ok(Ok(Ret::Usize(v))),
            Some(V::B(v)) => Ok(Ok(Ret::Bool(v))),
            Some(v) => Err(Fault(format!("the result is {}, not a scalar", v.ty()))),
        },
        Err(Stop::Fault(m)) => Err(Fault(m)),
        Err(Stop::Err(m)) => {
            // Checked where the body takes a frame at all.
            let has_frame = f.body.iter().any(|s| matches!(s, St::Frame { .. }));
            if has_frame && !x.frame_ran {
                x.out_untouched("an error raised before the frame")
                    .map_err(|s| match s {
                        Stop::Fault(m) | Stop::Err(m) => Fault(m),
                    })?;
            }
            Ok(Err(m))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Resolution: names interned, sizes folded, static (rustc) checks.

/// An interned name.
type Id = u32;
const OUT_ID: Id = 0;
const SCRATCH_ID: Id = 1;
/// Buffer indexes of `out` and the frame; parameters follow.
const OUT: usize = 0;
const SCRATCH: usize = 1;

/// The name as Rust resolves it: `r#x` and `x` are one identifier.
fn canon(s: &str) -> String {
    s.strip_prefix("r#").unwrap_or(s).to_string()
}

/// A resolved [`Ex`].
enum E<'a> {
    F(f64),
    B(bool),
    U(usize),
    Var(Id),
    Len(Id),
    Bin(BinOp, Box<E<'a>>, Box<E<'a>>),
    Checked(Checked, Box<E<'a>>, Box<E<'a>>, &'a str),
    Wrap(Wrap, Box<E<'a>>, Box<E<'a>>),
    Neg(Box<E<'a>>),
    Not(Box<E<'a>>),
    ToF64(Box<E<'a>>),
    ToUsize(Box<E<'a>>),
    Math(MathFn, Box<E<'a>>, Option<Box<E<'a>>>),
    Entry(Entry, Vec<E<'a>>),
    Const(Sz),
    Ld(Id, Box<E<'a>>),
    LdRow(Id, Box<E<'a>>, usize, usize),
    Check(Box<E<'a>>, Box<E<'a>>),
    Elem(Id),
    Block(Vec<S<'a>>, Box<E<'a>>),
    If(Box<E<'a>>, Box<E<'a>>, Box<E<'a>>),
    Internal(&'static str),
}

/// A folded [`Size`], as `dps::const_size` prints it.
enum Sz {
    Lit(usize),
    Name(Id),
    Zero,
    Add(Box<Sz>, Box<Sz>),
    Sub(Box<Sz>, Box<Sz>),
    Mul(Box<Sz>, Box<Sz>),
    Div(Box<Sz>, Box<Sz>),
    Rem(Box<Sz>, Box<Sz>),
}

struct Stream<'a> {
    base: Id,
    start: E<'a>,
    elem: Id,
    width: Option<E<'a>>,
    /// The name the whole slice is bound to, when an inner loop reads a prefix of it
    /// ([`lir::whole_read`]).
    all: Option<Id>,
}

/// A resolved [`St`]; `For` and `Fill` are one `Loop`.
enum S<'a> {
    Let {
        id: Id,
        mutable: bool,
        usize_ty: bool,
        val: E<'a>,
    },
    Assign(Id, E<'a>),
    Store(Id, E<'a>, E<'a>),
    StoreRow(Id, E<'a>, Vec<E<'a>>),
    Segment {
        id: Id,
        base: Id,
        off: E<'a>,
        width: usize,
        body: Vec<S<'a>>,
    },
    Slot(E<'a>),
    SlotAdd(E<'a>),
    Loop {
        /// The buffer and first slot of a fill.
        fill: Option<(Id, Option<E<'a>>)>,
        var: Id,
        n: E<'a>,
        streams: Vec<Stream<'a>>,
        body: Vec<S<'a>>,
    },
    If(E<'a>, Vec<S<'a>>, Vec<S<'a>>),
    Block(Vec<S<'a>>),
    Swap(Id, Id),
    CheckRange(E<'a>, E<'a>, E<'a>),
    Copy {
        dst: Id,
        dst_off: E<'a>,
        src: Id,
        src_off: E<'a>,
        n: E<'a>,
    },
    Alloc(E<'a>, E<'a>),
    Heap(Id, E<'a>),
    CheckLen {
        arg: &'a str,
        base: Id,
        want: E<'a>,
    },
    Frame {
        len: Option<E<'a>>,
        constant: Option<usize>,
    },
}

#[derive(Default)]
struct Compiler {
    ids: HashMap<String, Id>,
    names: Vec<String>,
    /// Buffers borrowed by the enclosing loops: by a stream (shared) or by a fill
    /// (exclusive).
    borrows: Vec<(Id, bool)>,
    /// Enclosing fills (where `__slot` is in scope).
    fills: usize,
    /// The first static fault.
    fault: Option<String>,
}

impl Compiler {
    fn name(&mut self, s: &str) -> Id {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as Id;
        self.names.push(s.to_string());
        self.ids.insert(s.to_string(), id);
        id
    }

    fn ident(&mut self, i: &Ident) -> Id {
        self.name(&canon(&i.to_string()))
    }

    fn fail(&mut self, msg: String) {
        self.fault.get_or_insert(msg);
    }

    fn base(&mut self, b: &Base) -> Id {
        match b {
            Base::Param(i) => self.ident(i),
            Base::Out => OUT_ID,
            Base::Scratch => SCRATCH_ID,
            Base::Heap(_) => self.name(&b.name()),
            Base::Row(i) => self.ident(i),
        }
    }

    /// A buffer read (a load, a length, a stream, a copy's source).
    fn read(&mut self, b: &Base) -> Id {
        let id = self.base(b);
        if self.borrows.iter().any(|&(x, excl)| excl && x == id) {
            self.fail(format!(
                "`{}` is used inside a fill over it, which borrows it mutably",
                b.name()
            ));
        }
        id
    }

    /// A buffer written (a store, a fill, a copy's destination).
    fn write(&mut self, b: &Base) -> Id {
        let id = self.base(b);
        if let Base::Param(_) = b {
            self.fail(format!("write to the parameter `{}`", b.name()));
        }
        if let Some(&(_, excl)) = self.borrows.iter().find(|&&(x, _)| x == id) {
            self.fail(if excl {
                format!(
                    "`{}` is written inside a fill over it, which borrows it mutably",
                    b.name()
                )
            } else {
                format!("stream buffer `{}` written inside its loop", b.name())
            });
        }
        id
    }

    fn bx<'a>(&mut self, e: &'a Ex) -> Box<E<'a>> {
        Box::new(self.ex(e))
    }

    fn ex<'a>(&mut self, e: &'a Ex) -> E<'a> {
        match e {
            Ex::F64(v) => E::F(*v),
            Ex::Bool(b) => E::B(*b),
            Ex::Usize(v) => E::U(*v),
            Ex::Var(i) => E::Var(self.ident(i)),
            Ex::Len(b) => E::Len(self.read(b)),
            Ex::Bin(op, a, b) => E::Bin(*op, self.bx(a), self.bx(b)),
            Ex::Checked(c, a, b, t) => E::Checked(*c, self.bx(a), self.bx(b), t),
            Ex::Wrap(w, a, b) => E::Wrap(*w, self.bx(a), self.bx(b)),
            Ex::Neg(a) => E::Neg(self.bx(a)),
            Ex::Not(a) => E::Not(self.bx(a)),
            Ex::ToF64(a) => E::ToF64(self.bx(a)),
            Ex::ToUsize(a) => E::ToUsize(self.bx(a)),
            Ex::Math(f, xs) => {
                // Printing takes `xs[0]` (and `xs[1]`) and ignores the rest.
                if xs.len() < 1 + f.arity() {
                    self.fail(format!("`{}` with {} arguments", f.name(), xs.len()));
                    return E::Internal("malformed math call");
                }
                let y = (f.arity() == 1).then(|| self.bx(&xs[1]));
                E::Math(*f, self.bx(&xs[0]), y)
            }
            Ex::Entry(en, xs) => {
                let want = match en {
                    Entry::FromLen | Entry::Max => 2,
                    Entry::Root(_) | Entry::SolveLinear(..) => 1,
                };
                if xs.len() != want {
                    self.fail(format!("`{en:?}` called with {} arguments", xs.len()));
                }
                E::Entry(en.clone(), xs.iter().map(|x| self.ex(x)).collect())
            }
            Ex::Const(s) => E::Const(self.size(&s.fold())),
            Ex::Ld(b, at) => E::Ld(self.read(b), self.bx(at)),
            Ex::LdRow(b, off, width, k) => E::LdRow(self.read(b), self.bx(off), *width, *k),
            Ex::Check(i, d) => E::Check(self.bx(i), self.bx(d)),
            Ex::Elem(i) => E::Elem(self.ident(i)),
            Ex::Block(sts, v) => E::Block(self.sts(sts), self.bx(v)),
            Ex::If(c, a, b) => E::If(self.bx(c), self.bx(a), self.bx(b)),
            Ex::Internal(m) => E::Internal(m),
        }
    }

    /// A folded size, node by node as `dps::const_size` prints it (which folds every node).
    fn size(&mut self, s: &Size) -> Sz {
        let s = s.fold();
        let mut bin = |a: &Size, b: &Size| (Box::new(self.size(a)), Box::new(self.size(b)));
        match &s {
            Size::Lit(v) => Sz::Lit(*v as usize),
            Size::Name(n) => {
                let id = fsmooth_core::front::ast::ident(n, Span::call_site());
                Sz::Name(self.ident(&id))
            }
            Size::Loop(_) => Sz::Zero,
            Size::Add(a, b) => {
                let (a, b) = bin(a, b);
                Sz::Add(a, b)
            }
            Size::Sub(a, b) => {
                let (a, b) = bin(a, b);
                Sz::Sub(a, b)
            }
            Size::Mul(a, b) => {
                let (a, b) = bin(a, b);
                Sz::Mul(a, b)
            }
            Size::Div(a, b) => {
                let (a, b) = bin(a, b);
                Sz::Div(a, b)
            }
            Size::Rem(a, b) => {
                let (a, b) = bin(a, b);
                Sz::Rem(a, b)
            }
        }
    }

    fn sts<'a>(&mut self, sts: &'a [St]) -> Vec<S<'a>> {
        sts.iter().map(|s| self.st(s)).collect()
    }

    fn st<'a>(&mut self, s: &'a St) -> S<'a> {
        match s {
            St::Let {
                id,
                mutable,
                usize_ty,
                val,
            } => {
                let val = self.ex(val);
                S::Let {
                    id: self.ident(id),
                    mutable: *mutable,
                    usize_ty: *usize_ty,
                    val,
                }
            }
            St::Assign(i, v) => S::Assign(self.ident(i), self.ex(v)),
            St::Store(b, at, v) => {
                let v = self.ex(v);
                S::Store(self.write(b), self.ex(at), v)
            }
            St::StoreRow(b, off, vs) => {
                // The values first, as the printed `let __v = [..]` does.
                let vs = vs.iter().map(|v| self.ex(v)).collect();
                S::StoreRow(self.write(b), self.ex(off), vs)
            }
            St::Slot(v) | St::SlotAdd(v) => {
                if self.fills == 0 {
                    self.fail("`__slot` used outside a fill".into());
                }
                let v = self.ex(v);
                match s {
                    St::Slot(_) => S::Slot(v),
                    _ => S::SlotAdd(v),
                }
            }
            St::For {
                var,
                n,
                streams,
                body,
            } => self.lp(None, var, n, streams, body),
            St::Fill {
                base,
                off,
                var,
                n,
                streams,
                body,
            } => self.lp(Some((base, off)), var, n, streams, body),
            St::If(c, a, b) => S::If(self.ex(c), self.sts(a), self.sts(b)),
            St::Block(b) => S::Block(self.sts(b)),
            St::Segment {
                id,
                base,
                off,
                width,
                body,
            } => {
                let base = self.read(base);
                let off = self.ex(off);
                let id = self.ident(id);
                S::Segment {
                    id,
                    base,
                    off,
                    width: *width,
                    body: self.sts(body),
                }
            }
            St::Swap(a, b) => {
                let (a, b) = (self.ident(a), self.ident(b));
                if a == b {
                    self.fail(format!(
                        "`swap` of `{}` with itself borrows it mutably twice",
                        self.names[a as usize]
                    ));
                }
                S::Swap(a, b)
            }
            St::CheckRange(a, b, c) => S::CheckRange(self.ex(a), self.ex(b), self.ex(c)),
            St::Copy {
                dst,
                dst_off,
                src,
                src_off,
                n,
            } => {
                let d = self.write(dst);
                let s = self.read(src);
                if d == s {
                    self.fail(format!(
                        "copy from `{}` to itself borrows it both ways",
                        dst.name()
                    ));
                }
                S::Copy {
                    dst: d,
                    dst_off: self.ex(dst_off),
                    src: s,
                    src_off: self.ex(src_off),
                    n: self.ex(n),
                }
            }
            St::Alloc { off, len } => S::Alloc(self.ex(off), self.ex(len)),
            St::Heap { id, len } => {
                let len = self.ex(len);
                S::Heap(self.name(&Base::Heap(*id).name()), len)
            }
            St::CheckLen { arg, base, want } => S::CheckLen {
                arg,
                base: self.read(base),
                want: self.ex(want),
            },
            St::Frame {
                len,
                constant,
                heap,
            } => {
                // As printed: a heap frame is `len` slots; a constant frame prints only the
                // constant; no length, no frame.
                let (len, constant) = match (len, constant, heap) {
                    (Some(l), _, true) | (Some(l), None, false) => (Some(self.ex(l)), None),
                    (Some(_), Some(n), false) => (None, Some(*n)),
                    (None, ..) => (None, None),
                };
                S::Frame { len, constant }
            }
        }
    }

    fn lp<'a>(
        &mut self,
        fill: Option<(&'a Base, &'a Option<Ex>)>,
        var: &'a Ident,
        n: &'a Ex,
        streams: &'a [lir::Stream],
        body: &'a [St],
    ) -> S<'a> {
        let depth = self.borrows.len();
        let fill = fill.map(|(b, off)| {
            let off = off.as_ref().map(|o| self.ex(o));
            let id = self.write(b);
            (id, off)
        });
        let n = self.ex(n);
        if let Some((id, _)) = &fill {
            // `__d` is alive over the streams' cuts and the whole loop.
            self.borrows.push((*id, true));
            self.fills += 1;
        }
        let var = self.ident(var);
        let mut bound = vec![var];
        let streams: Vec<Stream<'a>> = streams
            .iter()
            .map(|s| {
                let start = self.ex(&s.start);
                let width = s.width.as_ref().map(|w| self.ex(w));
                let base = self.read(&s.base);
                let elem = self.ident(&s.elem);
                if bound.contains(&elem) {
                    self.fail(format!(
                        "`{}` is bound twice in one loop pattern",
                        self.names[elem as usize]
                    ));
                }
                bound.push(elem);
                let all = lir::whole_read(s, body).map(|all| self.ident(&all));
                Stream {
                    base,
                    start,
                    elem,
                    width,
                    all,
                }
            })
            .collect();
        for s in &streams {
            self.borrows.push((s.base, false));
        }
        let body = self.sts(body);
        self.borrows.truncate(depth);
        if fill.is_some() {
            self.fills -= 1;
        }
        S::Loop {
            fill,
            var,
            n,
            streams,
            body,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Execution.

/// A value bound to a name.
#[derive(Clone, Copy, Debug)]
enum V {
    F(f64),
    U(usize),
    B(bool),
    /// A buffer (by index).
    Buf(usize),
    /// A stream element: `&buffer[index]`.
    Elem(usize, usize),
    /// A row stream's element: `&buffer[off..off + width]`.
    Row(usize, usize, usize),
}

impl V {
    fn ty(self) -> &'static str {
        match self {
            V::F(_) => "f64",
            V::U(_) => "usize",
            V::B(_) => "bool",
            V::Buf(_) => "a buffer",
            V::Elem(..) => "a stream element (&f64)",
            V::Row(..) => "a row (&[f64])",
        }
    }
    fn same_ty(self, o: V) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&o)
    }
}

#[derive(Clone, Copy)]
struct Binding {
    v: V,
    mutable: bool,
}

#[derive(Debug)]
enum Kind {
    Param(String),
    Out,
    Scratch,
    /// A buffer of `storage = "heap"` (its Rust name).
    Heap(String),
}

struct Buf {
    kind: Kind,
    data: Vec<f64>,
    written: Vec<bool>,
    /// Whether `written` is kept (`out` and the frame).
    tracked: bool,
}

impl Buf {
    fn tracked(kind: Kind, len: usize) -> Buf {
        Buf {
            kind,
            data: vec![f64::NAN; len],
            written: vec![false; len],
            tracked: true,
        }
    }
    fn name(&self) -> &str {
        match &self.kind {
            Kind::Param(n) | Kind::Heap(n) => n,
            Kind::Out => "out",
            Kind::Scratch => "scratch",
        }
    }
}

/// Why execution stopped early.
enum Stop {
    /// The kernel returned an fsmooth `Error` (its message).
    Err(String),
    /// A compiler bug.
    Fault(String),
}

type R<T> = Result<T, Stop>;

fn fault<T>(msg: impl Into<String>) -> R<T> {
    Err(Stop::Fault(msg.into()))
}

fn arith(text: &str) -> Stop {
    // `Error::Arithmetic`'s `Display`, with the expression's text.
    Stop::Err(format!(
        "size arithmetic `{text}` underflows, overflows or divides by zero"
    ))
}

fn rt_err(e: fsmooth_runtime::Error) -> Stop {
    Stop::Err(e.to_string())
}

/// The extent of the scope stacks when a scope began.
#[derive(Clone, Copy)]
struct Mark {
    trail: usize,
    live: usize,
    bufs: usize,
}

struct Exec<'c> {
    names: &'c [String],
    /// Per name, its bindings, innermost last.
    env: Vec<Vec<Binding>>,
    /// Names bound, in order (popped at the end of each statement list).
    trail: Vec<Id>,
    /// `out`, the frame, the parameters, then the heap buffers of the open scopes.
    bufs: Vec<Buf>,
    /// Live allocations of the frame, `[off, end)`, in allocation order.
    live: Vec<(usize, usize)>,
    /// The current slot of each enclosing fill: (buffer, index).
    slots: Vec<(usize, usize)>,
    steps: u64,
    frame_ran: bool,
}

impl Exec<'_> {
    fn name(&self, id: Id) -> &str {
        &self.names[id as usize]
    }

    fn bind(&mut self, id: Id, v: V, mutable: bool) {
        self.env[id as usize].push(Binding { v, mutable });
        self.trail.push(id);
    }

    /// Where a scope begins.
    fn mark(&self) -> Mark {
        Mark {
            trail: self.trail.len(),
            live: self.live.len(),
            bufs: self.bufs.len(),
        }
    }

    /// End a scope: its locals, allocations and heap buffers.
    fn unwind(&mut self, m: Mark) {
        while self.trail.len() > m.trail {
            if let Some(id) = self.trail.pop() {
                self.env[id as usize].pop();
            }
        }
        self.live.truncate(m.live);
        self.bufs.truncate(m.bufs);
    }

    fn get(&self, id: Id) -> R<Binding> {
        match self.env[id as usize].last() {
            Some(b) => Ok(*b),
            None if id == OUT_ID => fault("`out` used in a scalar kernel"),
            None if id == SCRATCH_ID => fault("`scratch` used where there is no frame"),
            None => fault(format!("unknown identifier `{}`", self.name(id))),
        }
    }

    fn slot_mut(&mut self, id: Id) -> R<&mut Binding> {
        let name = &self.names[id as usize];
        match self.env[id as usize].last_mut() {
            Some(b) => Ok(b),
            None => fault(format!("unknown identifier `{name}`")),
        }
    }

    /// A buffer, or the row of a buffer that a row stream is at: the buffer, the offset of
    /// the part named, and the row's width.
    fn part(&self, id: Id) -> R<(usize, usize, Option<usize>)> {
        match self.get(id)?.v {
            V::Row(k, off, w) => Ok((k, off, Some(w))),
            _ => Ok((self.buf(id)?, 0, None)),
        }
    }

    fn buf(&self, id: Id) -> R<usize> {
        match self.get(id)?.v {
            V::Buf(k) => Ok(k),
            v => fault(format!(
                "`{}` is used as a buffer but is {}",
                self.name(id),
                v.ty()
            )),
        }
    }

    fn step(&mut self, n: usize) -> R<()> {
        self.steps = self.steps.saturating_add(n as u64);
        if self.steps > STEP_BUDGET {
            return fault("step budget exceeded");
        }
        Ok(())
    }

    /// Read slot `i` (in range) of buffer `k`.
    fn read(&self, k: usize, i: usize) -> R<f64> {
        let b = &self.bufs[k];
        if b.tracked && !b.written[i] {
            return fault(format!("read of a never-written slot: {}[{i}]", b.name()));
        }
        Ok(b.data[i])
    }

    fn write(&mut self, k: usize, i: usize, v: f64) {
        let b = &mut self.bufs[k];
        b.data[i] = v;
        if b.tracked {
            b.written[i] = true;
        }
    }

    fn writable(&self, k: usize) -> R<()> {
        match &self.bufs[k].kind {
            Kind::Param(n) => fault(format!("write to the parameter `{n}`")),
            _ => Ok(()),
        }
    }

    /// A non-empty access `[lo, hi)` of the frame must lie in one live allocation.
    fn in_live(&self, k: usize, lo: usize, hi: usize) -> R<()> {
        if k == SCRATCH && lo < hi && !self.live.iter().any(|&(o, e)| o <= lo && hi <= e) {
            return fault(format!(
                "access outside any live buffer: scratch[{lo}..{hi}] (live: {})",
                self.live_text()
            ));
        }
        Ok(())
    }

    fn live_text(&self) -> String {
        let v: Vec<String> = self.live.iter().map(|(o, e)| format!("{o}..{e}")).collect();
        format!("[{}]", v.join(", "))
    }

    /// `base.get(start..start.wrapping_add(n))` must be `Some`, and the row live.
    fn range(&self, k: usize, start: usize, n: usize, what: &str) -> R<()> {
        let end = start.wrapping_add(n);
        let len = self.bufs[k].data.len();
        if start > end || end > len {
            return fault(format!(
                "{what} range {}[{start}..{start}+{n}] out of bounds for length {len} \
                 (the printed code would skip the loop)",
                self.bufs[k].name()
            ));
        }
        self.in_live(k, start, end)
    }

    fn out_untouched(&self, why: &str) -> R<()> {
        if let Some(i) = self.bufs[OUT].written.iter().position(|&w| w) {
            return fault(format!("out[{i}] was written before {why}"));
        }
        Ok(())
    }

    // --- expressions

    fn f64(&mut self, e: &E) -> R<f64> {
        match self.ex(e)? {
            V::F(v) => Ok(v),
            v => fault(format!("expected f64, found {}", v.ty())),
        }
    }

    fn usize(&mut self, e: &E) -> R<usize> {
        match self.ex(e)? {
            V::U(v) => Ok(v),
            v => fault(format!("expected usize, found {}", v.ty())),
        }
    }

    fn bool(&mut self, e: &E) -> R<bool> {
        match self.ex(e)? {
            V::B(v) => Ok(v),
            v => fault(format!("expected bool, found {}", v.ty())),
        }
    }

    fn ex(&mut self, e: &E) -> R<V> {
        Ok(match e {
            E::F(v) => V::F(*v),
            E::B(v) => V::B(*v),
            E::U(v) => V::U(*v),
            E::Var(id) => match self.get(*id)?.v {
                v @ (V::F(_) | V::U(_) | V::B(_)) => v,
                v => {
                    return fault(format!(
                        "`{}` is used as a scalar but is {}",
                        self.name(*id),
                        v.ty()
                    ));
                }
            },
            E::Len(b) => V::U(self.bufs[self.buf(*b)?].data.len()),
            E::Bin(op, a, b) => self.bin(*op, a, b)?,
            E::Checked(c, a, b, text) => {
                let a = self.usize(a)?;
                let b = self.usize(b)?;
                let r = match c {
                    Checked::Add => __rt::add(a, b, ""),
                    Checked::Sub => __rt::sub(a, b, ""),
                    Checked::Mul => __rt::mul(a, b, ""),
                    Checked::Div => __rt::div(a, b, ""),
                    Checked::DivExact => __rt::div_exact(a, b, ""),
                    Checked::Rem => __rt::rem(a, b, ""),
                };
                V::U(r.map_err(|_| arith(text))?)
            }
            E::Wrap(w, a, b) => {
                let a = self.usize(a)?;
                let b = self.usize(b)?;
                V::U(match w {
                    Wrap::Add => a.wrapping_add(b),
                    Wrap::Sub => a.wrapping_sub(b),
                    Wrap::Mul => a.wrapping_mul(b),
                })
            }
            E::Neg(a) => match self.ex(a)? {
                V::F(v) => V::F(-v),
                v => return fault(format!("`-` on {}", v.ty())),
            },
            E::Not(a) => match self.ex(a)? {
                V::B(v) => V::B(!v),
                V::U(v) => V::U(!v),
                v => return fault(format!("`!` on {}", v.ty())),
            },
            E::ToF64(a) => match self.ex(a)? {
                V::F(v) => V::F(v),
                V::U(v) => V::F(v as f64),
                v => return fault(format!("`as f64` on {}", v.ty())),
            },
            E::ToUsize(a) => match self.ex(a)? {
                V::F(v) => V::U(v as usize),
                V::U(v) => V::U(v),
                V::B(v) => V::U(usize::from(v)),
                v => return fault(format!("`as usize` on {}", v.ty())),
            },
            E::Math(f, x, y) => {
                let x = self.f64(x)?;
                V::F(match (f, y) {
                    (MathFn::Powi, Some(k)) => {
                        let k = self.usize(k)?;
                        __rt::powi(x, i32::try_from(k).unwrap_or(i32::MAX))
                    }
                    (MathFn::Powf, Some(y)) => {
                        let y = self.f64(y)?;
                        __rt::powf(x, y)
                    }
                    (MathFn::Min, Some(y)) => {
                        let y = self.f64(y)?;
                        __rt::min(x, y)
                    }
                    (MathFn::Max, Some(y)) => {
                        let y = self.f64(y)?;
                        __rt::max_f(x, y)
                    }
                    (MathFn::Powi | MathFn::Powf | MathFn::Min | MathFn::Max, None) => {
                        return fault(format!("`{}` without its argument", f.name()));
                    }
                    (MathFn::Sqrt, _) => __rt::sqrt(x),
                    (MathFn::Exp, _) => __rt::exp(x),
                    (MathFn::Ln, _) => __rt::ln(x),
                    (MathFn::Sin, _) => __rt::sin(x),
                    (MathFn::Cos, _) => __rt::cos(x),
                    (MathFn::Tan, _) => __rt::tan(x),
                    (MathFn::Tanh, _) => __rt::tanh(x),
                    (MathFn::Abs, _) => __rt::abs(x),
                    (MathFn::Floor, _) => __rt::floor(x),
                    (MathFn::Ceil, _) => __rt::ceil(x),
                })
            }
            E::Entry(en, xs) => self.entry(en, xs)?,
            E::Const(s) => V::U(self.size(s)?),
            E::Ld(b, at) => {
                let k = self.buf(*b)?;
                let at = self.usize(at)?;
                let len = self.bufs[k].data.len();
                if at >= len {
                    return fault(format!(
                        "proven load {}[{at}] out of range for length {len} \
                         (the printed `ld` would read 0.0)",
                        self.bufs[k].name()
                    ));
                }
                self.in_live(k, at, at + 1)?;
                V::F(self.read(k, at)?)
            }
            E::LdRow(b, off, width, at) => {
                // A buffer, or a row (a segment's): offsets are the row's.
                let (k, roff, row) = self.part(*b)?;
                let off = self.usize(off)?;
                let len = row.unwrap_or(self.bufs[k].data.len());
                if *at >= *width || off.checked_add(*width).is_none_or(|end| end > len) {
                    return fault(format!(
                        "proven row load {}[{off}..{off} + {width}][{at}] out of range for \
                         length {len} (the printed `ldr` would read 0.0)",
                        self.bufs[k].name()
                    ));
                }
                self.in_live(k, roff + off, roff + off + width)?;
                V::F(self.read(k, roff + off + at)?)
            }
            E::Check(i, d) => {
                let i = self.usize(i)?;
                let d = self.usize(d)?;
                V::U(__rt::check(i, d).map_err(rt_err)?)
            }
            E::Elem(id) => match self.get(*id)?.v {
                V::Elem(k, i) => V::F(self.read(k, i)?),
                v => {
                    return fault(format!(
                        "`*{}` of {}, not a stream element",
                        self.name(*id),
                        v.ty()
                    ));
                }
            },
            E::Block(sts, v) => self.scope(sts, |x| x.ex(v))?,
            E::If(c, a, b) => {
                if self.bool(c)? {
                    self.ex(a)?
                } else {
                    self.ex(b)?
                }
            }
            E::Internal(m) => return fault(format!("fsmooth internal error: {m}")),
        })
    }

    fn bin(&mut self, op: BinOp, a: &E, b: &E) -> R<V> {
        use std::cmp::Ordering;
        let x = self.ex(a)?;
        if matches!(op, BinOp::And | BinOp::Or) {
            let V::B(x) = x else {
                return fault(format!("`{}` on {}", op.symbol(), x.ty()));
            };
            // Short-circuit, as Rust.
            if (op == BinOp::And) != x {
                return Ok(V::B(x));
            }
            return Ok(V::B(self.bool(b)?));
        }
        let y = self.ex(b)?;
        let cmp = |o: Option<Ordering>| -> Option<bool> {
            Some(match op {
                BinOp::Lt => o == Some(Ordering::Less),
                BinOp::Le => matches!(o, Some(Ordering::Less | Ordering::Equal)),
                BinOp::Gt => o == Some(Ordering::Greater),
                BinOp::Ge => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
                BinOp::Eq => o == Some(Ordering::Equal),
                BinOp::Ne => o != Some(Ordering::Equal),
                _ => return None,
            })
        };
        let bad = |x: V, y: V| fault(format!("`{}` on {} and {}", op.symbol(), x.ty(), y.ty()));
        match (x, y) {
            (V::F(x), V::F(y)) => Ok(match op {
                BinOp::Add => V::F(x + y),
                BinOp::Sub => V::F(x - y),
                BinOp::Mul => V::F(x * y),
                BinOp::Div => V::F(x / y),
                BinOp::Rem => V::F(x % y),
                _ => match cmp(x.partial_cmp(&y)) {
                    Some(r) => V::B(r),
                    None => return bad(V::F(x), V::F(y)),
                },
            }),
            (V::U(x), V::U(y)) => {
                let r = match op {
                    BinOp::Add => x.checked_add(y),
                    BinOp::Sub => x.checked_sub(y),
                    BinOp::Mul => x.checked_mul(y),
                    BinOp::Div => x.checked_div(y),
                    BinOp::Rem => x.checked_rem(y),
                    _ => match cmp(x.partial_cmp(&y)) {
                        Some(r) => return Ok(V::B(r)),
                        None => return bad(V::U(x), V::U(y)),
                    },
                };
                match r {
                    Some(v) => Ok(V::U(v)),
                    None => fault(format!(
                        "`{x} {} {y}` on usize panics (overflow or zero divisor)",
                        op.symbol()
                    )),
                }
            }
            (V::B(x), V::B(y)) => match cmp(x.partial_cmp(&y)) {
                Some(r) => Ok(V::B(r)),
                None => bad(V::B(x), V::B(y)),
            },
            (x, y) => bad(x, y),
        }
    }

    fn entry(&mut self, en: &Entry, xs: &[E]) -> R<V> {
        let mut u = |i: usize| -> R<usize> {
            match xs.get(i) {
                Some(e) => self.usize(e),
                None => fault(format!("`{en:?}` is missing argument {i}")),
            }
        };
        Ok(V::U(match en {
            Entry::FromLen => {
                let (a, b) = (u(0)?, u(1)?);
                __rt::from_len(a, b)
            }
            Entry::Max => {
                let (a, b) = (u(0)?, u(1)?);
                __rt::max(a, b)
            }
            Entry::Root(k) => __rt::root(u(0)?, *k),
            Entry::SolveLinear(scale, offset) => __rt::solve_linear(u(0)?, *scale, *offset),
        }))
    }

    fn size(&mut self, s: &Sz) -> R<usize> {
        let mut two = |a: &Sz, b: &Sz| -> R<(usize, usize)> { Ok((self.size(a)?, self.size(b)?)) };
        Ok(match s {
            Sz::Lit(v) => *v,
            Sz::Zero => 0,
            Sz::Name(id) => match self.get(*id)?.v {
                V::U(v) => v,
                v => {
                    return fault(format!(
                        "size `{}` is {}, not usize",
                        self.name(*id),
                        v.ty()
                    ));
                }
            },
            Sz::Add(a, b) => {
                let (a, b) = two(a, b)?;
                a.saturating_add(b)
            }
            Sz::Sub(a, b) => {
                let (a, b) = two(a, b)?;
                __rt::sat_sub(a, b)
            }
            Sz::Mul(a, b) => {
                let (a, b) = two(a, b)?;
                a.saturating_mul(b)
            }
            Sz::Div(a, b) => {
                let (a, b) = two(a, b)?;
                __rt::sat_div(a, b)
            }
            Sz::Rem(a, b) => {
                let (a, b) = two(a, b)?;
                a.checked_rem(b).unwrap_or(usize::MAX)
            }
        })
    }

    // --- statements

    /// Run a statement list in its own scope (its locals and allocations end with it),
    /// then `then` inside that scope (a block's value, a kernel's result).
    fn scope<T>(&mut self, sts: &[S], then: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        let m = self.mark();
        for s in sts {
            self.st(s)?;
        }
        let v = then(self)?;
        self.unwind(m);
        Ok(v)
    }

    fn list(&mut self, sts: &[S]) -> R<()> {
        self.scope(sts, |_| Ok(()))
    }

    fn st(&mut self, s: &S) -> R<()> {
        match s {
            S::Let {
                id,
                mutable,
                usize_ty,
                val,
            } => {
                let v = self.ex(val)?;
                if *usize_ty && !matches!(v, V::U(_)) {
                    return fault(format!("`let {}: usize` of {}", self.name(*id), v.ty()));
                }
                self.bind(*id, v, *mutable);
            }
            S::Assign(id, val) => {
                let v = self.ex(val)?;
                let name = self.name(*id).to_string();
                let b = self.slot_mut(*id)?;
                if !b.mutable {
                    return fault(format!("assignment to the immutable `{name}`"));
                }
                if !b.v.same_ty(v) || matches!(v, V::Buf(_) | V::Elem(..)) {
                    return fault(format!("`{name} = ..` of {} to {}", v.ty(), b.v.ty()));
                }
                b.v = v;
            }
            S::Store(b, at, val) => {
                let v = self.f64(val)?;
                let k = self.buf(*b)?;
                let at = self.usize(at)?;
                self.writable(k)?;
                let len = self.bufs[k].data.len();
                if at >= len {
                    return fault(format!(
                        "proven store {}[{at}] out of range for length {len} \
                         (the printed `st` would skip it)",
                        self.bufs[k].name()
                    ));
                }
                self.in_live(k, at, at + 1)?;
                self.write(k, at, v);
            }
            S::StoreRow(b, off, vals) => {
                let mut vs = Vec::with_capacity(vals.len());
                for val in vals {
                    vs.push(self.f64(val)?);
                }
                let k = self.buf(*b)?;
                let off = self.usize(off)?;
                self.writable(k)?;
                let len = self.bufs[k].data.len();
                let end = off.checked_add(vs.len()).filter(|&e| e <= len);
                let Some(end) = end else {
                    return fault(format!(
                        "proven row store {}[{off}..+{}] out of range for length {len} \
                         (the printed `st_row` would skip it)",
                        self.bufs[k].name(),
                        vs.len()
                    ));
                };
                self.in_live(k, off, end)?;
                for (t, v) in vs.into_iter().enumerate() {
                    self.write(k, off + t, v);
                }
            }
            S::Slot(val) => {
                let v = self.f64(val)?;
                let Some(&(k, i)) = self.slots.last() else {
                    return fault("`__slot` outside a fill");
                };
                self.write(k, i, v);
            }
            S::SlotAdd(val) => {
                let Some(&(k, i)) = self.slots.last() else {
                    return fault("`__slot` outside a fill");
                };
                let old = self.read(k, i)?;
                let v = self.f64(val)?;
                self.write(k, i, old + v);
            }
            S::Loop {
                fill,
                var,
                n,
                streams,
                body,
            } => self.lp(fill.as_ref(), *var, n, streams, body)?,
            S::If(c, a, b) => {
                if self.bool(c)? {
                    self.list(a)?
                } else {
                    self.list(b)?
                }
            }
            S::Block(b) => self.list(b)?,
            S::Segment {
                id,
                base,
                off,
                width,
                body,
            } => {
                let (k, roff, row) = self.part(*base)?;
                let off = self.usize(off)?;
                let room = row.unwrap_or(self.bufs[k].data.len());
                let Some(end) = off.checked_add(*width).filter(|&e| e <= room) else {
                    return fault(format!(
                        "proven segment {}[{roff} + {off}..+{width}] out of its {room} slots \
                         (the printed `if let` would skip its body)",
                        self.bufs[k].name()
                    ));
                };
                self.in_live(k, roff + off, roff + end)?;
                let m = self.mark();
                self.bind(*id, V::Row(k, roff + off, *width), false);
                let r = self.list(body);
                self.unwind(m);
                r?
            }
            S::Swap(a, b) => {
                let (x, y) = (self.get(*a)?, self.get(*b)?);
                if !x.mutable || !y.mutable {
                    return fault(format!(
                        "`swap` of `{}` and `{}`, not both mutable",
                        self.name(*a),
                        self.name(*b)
                    ));
                }
                if !x.v.same_ty(y.v) || matches!(x.v, V::Buf(_) | V::Elem(..)) {
                    return fault(format!("`swap` of {} and {}", x.v.ty(), y.v.ty()));
                }
                self.slot_mut(*a)?.v = y.v;
                self.slot_mut(*b)?.v = x.v;
            }
            S::CheckRange(lo, hi, len) => {
                let lo = self.usize(lo)?;
                let hi = self.usize(hi)?;
                let len = self.usize(len)?;
                __rt::check_range(lo, hi, len).map_err(rt_err)?;
            }
            S::Copy {
                dst,
                dst_off,
                src,
                src_off,
                n,
            } => {
                let d = self.buf(*dst)?;
                let doff = self.usize(dst_off)?;
                let n = self.usize(n)?;
                let s = self.buf(*src)?;
                let soff = self.usize(src_off)?;
                self.writable(d)?;
                if d == s {
                    return fault(format!("copy within `{}`", self.bufs[d].name()));
                }
                self.range(d, doff, n, "copy destination")?;
                self.range(s, soff, n, "copy source")?;
                self.step(n)?;
                for j in 0..n {
                    let v = self.read(s, soff + j)?;
                    self.write(d, doff + j, v);
                }
            }
            S::Alloc(off, len) => {
                let off = self.usize(off)?;
                let len = self.usize(len)?;
                if self.env[SCRATCH_ID as usize].is_empty() {
                    return fault(format!(
                        "allocation scratch[{off}..{off}+{len}] without a frame"
                    ));
                }
                let frame = self.bufs[SCRATCH].data.len();
                let end = match off.checked_add(len) {
                    Some(e) if e <= frame => e,
                    _ => {
                        return fault(format!(
                            "allocation outside the frame: scratch[{off}..{off}+{len}] \
                             in a frame of {frame}"
                        ));
                    }
                };
                if let Some(&(o, e)) = self.live.iter().find(|&&(o, e)| off < e && o < end) {
                    return fault(format!(
                        "overlapping live buffers: scratch[{off}..{end}] allocated while \
                         scratch[{o}..{e}] is live"
                    ));
                }
                self.bufs[SCRATCH].written[off..end].fill(false);
                self.live.push((off, end));
            }
            S::Heap(id, len) => {
                let n = self.usize(len)?;
                if n > MAX_FRAME {
                    return Err(rt_err(fsmooth_runtime::Error::Scratch {
                        needed: n,
                        available: 0,
                    }));
                }
                let name = self.name(*id).to_string();
                self.bufs.push(Buf::tracked(Kind::Heap(name), n));
                self.bind(*id, V::Buf(self.bufs.len() - 1), false);
            }
            S::CheckLen { arg, base, want } => {
                let k = self.buf(*base)?;
                let want = self.usize(want)?;
                let found = self.bufs[k].data.len();
                if found != want {
                    self.out_untouched("a length check failed")?;
                    return Err(Stop::Err(format!(
                        "argument `{arg}` has length {found}, but the kernel's signature \
                         requires {want}"
                    )));
                }
            }
            S::Frame { len, constant } => {
                if self.frame_ran {
                    return fault("a second frame");
                }
                self.frame_ran = true;
                let n = match (len, constant) {
                    (_, Some(n)) => Some(*n),
                    (Some(l), None) => Some(self.usize(l)?),
                    (None, None) => None,
                };
                if let Some(n) = n {
                    if n > MAX_FRAME {
                        return Err(rt_err(fsmooth_runtime::Error::Scratch {
                            needed: n,
                            available: 0,
                        }));
                    }
                    self.bufs[SCRATCH] = Buf::tracked(Kind::Scratch, n);
                    self.bind(SCRATCH_ID, V::Buf(SCRATCH), false);
                }
            }
        }
        Ok(())
    }

    fn lp(
        &mut self,
        fill: Option<&(Id, Option<E>)>,
        var: Id,
        n: &E,
        streams: &[Stream],
        body: &[S],
    ) -> R<()> {
        // Evaluation order as printed: the fill's `get_mut(off..off + n)`, then each
        // stream's `get(start..start + n)`, then `0..n`.
        let mut count = None;
        let mut slot = None;
        if let Some((b, off)) = fill {
            let k = self.buf(*b)?;
            let off = match off {
                Some(o) => Some(self.usize(o)?),
                None => None,
            };
            let n = self.usize(n)?;
            self.writable(k)?;
            match off {
                Some(lo) => self.range(k, lo, n, "fill")?,
                None => {
                    let len = self.bufs[k].data.len();
                    if n > len {
                        return fault(format!(
                            "fill range {}[..{n}] out of bounds for length {len} \
                             (the printed code would skip the loop)",
                            self.bufs[k].name()
                        ));
                    }
                    self.in_live(k, 0, n)?;
                }
            }
            count = Some(n);
            slot = Some((k, off.unwrap_or(0)));
        }
        let mut rows = Vec::with_capacity(streams.len());
        let mut wholes = Vec::new();
        for s in streams {
            let start = self.usize(&s.start)?;
            let n = match count {
                Some(n) => n,
                None => {
                    let n = self.usize(n)?;
                    count = Some(n);
                    n
                }
            };
            match &s.width {
                None => {
                    let (k, off, row) = self.part(s.base)?;
                    if let Some(w) = row
                        && start.checked_add(n).is_none_or(|end| end > w)
                    {
                        return fault(format!(
                            "stream range {}[{off} + {start}..+{n}] out of its row of {w} \
                             (the printed code would skip the loop)",
                            self.bufs[k].name()
                        ));
                    }
                    self.range(k, off + start, n, "stream")?;
                    rows.push((s.elem, k, off + start, None));
                    // The whole slice, which inner loops may cut prefixes from.
                    if let Some(all) = s.all {
                        wholes.push((all, V::Row(k, off + start, n)));
                    }
                }
                Some(w) => {
                    let w = self.usize(w)?;
                    let k = self.buf(s.base)?;
                    // Every row the loop takes must be there: the printed iterator stops at
                    // the buffer's end, which would end the loop early.
                    match n.checked_mul(w) {
                        Some(all) => self.range(k, start, all, "row stream")?,
                        None => return fault("row stream rows * width overflows"),
                    }
                    rows.push((s.elem, k, start, Some(w)));
                }
            }
        }
        let n = match count {
            Some(n) => n,
            None => self.usize(n)?,
        };
        self.step(n)?;
        let m = self.mark();
        self.bind(var, V::U(0), false);
        for &(all, v) in &wholes {
            self.bind(all, v, false);
        }
        for &(elem, k, start, w) in &rows {
            let v = match w {
                Some(w) => V::Row(k, start, w),
                None => V::Elem(k, start),
            };
            self.bind(elem, v, false);
        }
        if let Some(s) = slot {
            self.slots.push(s);
        }
        for i in 0..n {
            if let Some(b) = self.env[var as usize].last_mut() {
                b.v = V::U(i);
            }
            for &(elem, k, start, w) in &rows {
                if let Some(b) = self.env[elem as usize].last_mut() {
                    b.v = match w {
                        Some(w) => V::Row(k, start + i * w, w),
                        None => V::Elem(k, start + i),
                    };
                }
            }
            if let Some((_, off)) = slot
                && let Some(s) = self.slots.last_mut()
            {
                s.1 = off + i;
            }
            self.list(body)?;
        }
        if slot.is_some() {
            self.slots.pop();
        }
        self.unwind(m);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fsmooth_core::lir::{Func, Stream};

    fn id(s: &str) -> Ident {
        Ident::new(s, Span::call_site())
    }
    fn u(v: usize) -> Ex {
        Ex::Usize(v)
    }
    fn f(v: f64) -> Ex {
        Ex::F64(v)
    }
    fn var(s: &str) -> Ex {
        Ex::Var(id(s))
    }
    fn elem(s: &str) -> Ex {
        Ex::Elem(id(s))
    }
    fn bin(op: BinOp, a: Ex, b: Ex) -> Ex {
        Ex::Bin(op, Box::new(a), Box::new(b))
    }
    fn x() -> Base {
        Base::Param(id("x"))
    }
    fn ld(b: Base, at: Ex) -> Ex {
        Ex::Ld(b, Box::new(at))
    }
    fn frame(n: usize) -> St {
        St::Frame {
            len: Some(u(n)),
            constant: None,
            heap: false,
        }
    }
    fn no_frame() -> St {
        St::Frame {
            len: None,
            constant: None,
            heap: false,
        }
    }
    fn alloc(off: usize, len: usize) -> St {
        St::Alloc {
            off: u(off),
            len: u(len),
        }
    }
    fn store(b: Base, at: usize, v: Ex) -> St {
        St::Store(b, u(at), v)
    }
    fn let_(name: &str, mutable: bool, val: Ex) -> St {
        St::Let {
            id: id(name),
            mutable,
            usize_ty: false,
            val,
        }
    }
    fn stream(base: Base, start: usize, e: &str) -> Stream {
        Stream {
            width: None,
            base,
            start: u(start),
            elem: id(e),
        }
    }
    fn fill(base: Base, off: Option<usize>, n: usize, streams: Vec<Stream>, body: Vec<St>) -> St {
        St::Fill {
            base,
            off: off.map(u),
            var: id("i"),
            n: u(n),
            streams,
            body,
        }
    }
    fn for_(n: Ex, streams: Vec<Stream>, body: Vec<St>) -> St {
        St::For {
            var: id("i"),
            n,
            streams,
            body,
        }
    }
    fn xs() -> Vec<(&'static str, Arg)> {
        vec![("x", Arg::Arr(vec![1.0, 2.0, 3.0]))]
    }
    /// An array kernel over `x = [1, 2, 3]`.
    fn array(body: Vec<St>, out_len: usize) -> Result<Result<Ret, String>, Fault> {
        run(&Func { body, result: None }, &xs(), Some(out_len))
    }
    /// A scalar kernel over `x = [1, 2, 3]` and `n = 3`.
    fn scalar(body: Vec<St>, result: Ex) -> Result<Result<Ret, String>, Fault> {
        let mut ps = xs();
        ps.push(("n", Arg::Usize(3)));
        run(
            &Func {
                body,
                result: Some(result),
            },
            &ps,
            None,
        )
    }
    #[track_caller]
    fn faults(r: Result<Result<Ret, String>, Fault>, want: &str) {
        match r {
            Err(Fault(m)) => assert!(m.contains(want), "fault `{m}`, wanted `{want}`"),
            r => panic!("{r:?}, wanted a fault `{want}`"),
        }
    }
    #[track_caller]
    fn errs(r: Result<Result<Ret, String>, Fault>, want: &str) {
        match r {
            Ok(Err(m)) => assert!(m.contains(want), "error `{m}`, wanted `{want}`"),
            r => panic!("{r:?}, wanted a kernel error `{want}`"),
        }
    }
    /// Fill all of `out` (length 3) with 1.0.
    fn fill_out() -> St {
        fill(Base::Out, None, 3, vec![], vec![St::Slot(f(1.0))])
    }

    #[test]
    fn a_correct_array_kernel_runs() {
        // scratch[i] = 2 x[i]; out[i] = scratch[i] + i, then out[i] += 0.5.
        let body = vec![
            St::CheckLen {
                arg: "x".into(),
                base: x(),
                want: u(3),
            },
            frame(3),
            alloc(0, 3),
            fill(
                Base::Scratch,
                None,
                3,
                vec![stream(x(), 0, "e")],
                vec![St::Slot(bin(BinOp::Mul, elem("e"), f(2.0)))],
            ),
            fill(
                Base::Out,
                Some(0),
                3,
                vec![stream(Base::Scratch, 0, "s")],
                vec![
                    St::Slot(bin(BinOp::Add, elem("s"), Ex::ToF64(Box::new(var("i"))))),
                    St::SlotAdd(f(0.5)),
                ],
            ),
        ];
        assert_eq!(array(body, 3), Ok(Ok(Ret::Out(vec![2.5, 5.5, 8.5]))));
    }

    #[test]
    fn a_correct_scalar_kernel_runs() {
        // acc = sum x[i]^2 over a stream, plus loads and a copy through the frame.
        let body = vec![
            frame(2),
            let_("acc", true, f(0.0)),
            for_(
                var("n"),
                vec![stream(x(), 0, "e")],
                vec![St::Assign(
                    id("acc"),
                    bin(
                        BinOp::Add,
                        var("acc"),
                        bin(BinOp::Mul, elem("e"), elem("e")),
                    ),
                )],
            ),
            alloc(0, 2),
            St::Copy {
                dst: Base::Scratch,
                dst_off: u(0),
                src: x(),
                src_off: u(1),
                n: u(2),
            },
        ];
        let result = bin(BinOp::Add, var("acc"), ld(Base::Scratch, u(1)));
        assert_eq!(scalar(body, result), Ok(Ok(Ret::F64(14.0 + 3.0))));
    }

    #[test]
    fn entries_math_and_sizes_match_the_runtime() {
        let entry = |e: Entry, xs: Vec<Ex>| Ex::Entry(e, xs);
        let cases = [
            (entry(Entry::Root(3), vec![u(27)]), Ret::Usize(3)),
            (entry(Entry::Root(2), vec![u(26)]), Ret::Usize(5)),
            (entry(Entry::FromLen, vec![u(12), u(0)]), Ret::Usize(0)),
            (entry(Entry::FromLen, vec![u(12), u(4)]), Ret::Usize(3)),
            (entry(Entry::SolveLinear(2, -1), vec![u(7)]), Ret::Usize(4)),
            (entry(Entry::Max, vec![u(2), u(9)]), Ret::Usize(9)),
            (
                Ex::Math(MathFn::Powi, vec![f(2.0), u(10)]),
                Ret::F64(1024.0),
            ),
            (Ex::Math(MathFn::Sqrt, vec![f(9.0)]), Ret::F64(3.0)),
            (
                Ex::Math(MathFn::Max, vec![f(f64::NAN), f(1.0)]),
                Ret::F64(1.0),
            ),
            (Ex::ToUsize(Box::new(f(f64::NAN))), Ret::Usize(0)),
            (Ex::ToUsize(Box::new(f(-3.5))), Ret::Usize(0)),
            (Ex::ToUsize(Box::new(f(1e300))), Ret::Usize(usize::MAX)),
            // Saturating sizes: 2 - n is 0, n * huge saturates, `%` by 0 is usize::MAX.
            (
                Ex::Const(Size::Sub(
                    Box::new(Size::Lit(2)),
                    Box::new(Size::Name("n".into())),
                )),
                Ret::Usize(0),
            ),
            (
                Ex::Const(Size::Mul(
                    Box::new(Size::Name("n".into())),
                    Box::new(Size::Lit(u64::MAX)),
                )),
                Ret::Usize(usize::MAX),
            ),
            (
                Ex::Const(Size::Rem(
                    Box::new(Size::Name("n".into())),
                    Box::new(Size::Sub(Box::new(Size::Lit(1)), Box::new(Size::Lit(1)))),
                )),
                Ret::Usize(usize::MAX),
            ),
            (
                Ex::Wrap(Wrap::Sub, Box::new(u(0)), Box::new(u(1))),
                Ret::Usize(usize::MAX),
            ),
        ];
        for (e, want) in cases {
            let got = scalar(vec![no_frame()], e.clone());
            assert_eq!(got, Ok(Ok(want.clone())), "{e:?}");
        }
    }

    #[test]
    fn segments_bind_their_part_of_a_row_or_fault() {
        // out[0] = element 1 of x[off..off + 2], x = [1, 2, 3].
        let seg = |off: usize| St::Segment {
            id: id("g"),
            base: x(),
            off: u(off),
            width: 2,
            body: vec![St::Store(
                Base::Out,
                u(0),
                Ex::LdRow(Base::Row(id("g")), Box::new(u(0)), 2, 1),
            )],
        };
        assert_eq!(
            array(vec![no_frame(), fill_out(), seg(1)], 3),
            Ok(Ok(Ret::Out(vec![3.0, 1.0, 1.0])))
        );
        faults(
            array(vec![no_frame(), fill_out(), seg(2)], 3),
            "proven segment x[0 + 2..+2] out of its 3 slots",
        );
    }

    #[test]
    fn row_stores_write_their_row_or_fault_whole() {
        let row = |off: usize| St::StoreRow(Base::Out, u(off), vec![f(4.0), f(5.0)]);
        assert_eq!(
            array(vec![no_frame(), fill_out(), row(1)], 3),
            Ok(Ok(Ret::Out(vec![1.0, 4.0, 5.0])))
        );
        // One slot past the end: the printed `st_row` would store nothing.
        faults(
            array(vec![no_frame(), fill_out(), row(2)], 3),
            "proven row store out[2..+2] out of range for length 3",
        );
    }

    #[test]
    fn overlapping_live_allocations_fault_and_freed_ones_do_not() {
        faults(
            array(vec![frame(4), alloc(0, 3), alloc(2, 2), fill_out()], 3),
            "overlapping live buffers: scratch[2..4] allocated while scratch[0..3] is live",
        );
        // Freed at the end of its block, in a loop body per iteration, in an expression block.
        let ok = vec![
            frame(4),
            St::Block(vec![alloc(0, 3)]),
            for_(u(3), vec![], vec![alloc(1, 3)]),
            let_("y", false, Ex::Block(vec![alloc(0, 4)], Box::new(f(0.0)))),
            alloc(2, 2),
            fill_out(),
        ];
        assert_eq!(array(ok, 3), Ok(Ok(Ret::Out(vec![1.0; 3]))));
    }

    #[test]
    fn allocations_outside_the_frame_fault() {
        faults(
            array(vec![frame(4), alloc(2, 3), fill_out()], 3),
            "allocation outside the frame",
        );
        faults(
            array(vec![frame(4), alloc(usize::MAX, 2), fill_out()], 3),
            "allocation outside the frame",
        );
        faults(
            array(vec![no_frame(), alloc(0, 1), fill_out()], 3),
            "without a frame",
        );
    }

    #[test]
    fn reads_of_never_written_slots_fault() {
        faults(
            scalar(
                vec![frame(2), alloc(0, 2), store(Base::Scratch, 0, f(1.0))],
                ld(Base::Scratch, u(1)),
            ),
            "read of a never-written slot: scratch[1]",
        );
        // A new allocation forgets what was written there before.
        let reuse = |again: bool| {
            let mut second = vec![alloc(0, 1), let_("y", false, ld(Base::Scratch, u(0)))];
            if !again {
                second.remove(0);
                second.insert(0, store(Base::Scratch, 0, f(2.0)));
                second.insert(0, alloc(0, 1));
            }
            scalar(
                vec![
                    frame(1),
                    St::Block(vec![alloc(0, 1), store(Base::Scratch, 0, f(1.0))]),
                    St::Block(second),
                ],
                f(0.0),
            )
        };
        faults(reuse(true), "read of a never-written slot: scratch[0]");
        assert_eq!(reuse(false), Ok(Ok(Ret::F64(0.0))));
        // Of `out`, by a stream element and by `*__slot += v`.
        faults(
            array(
                vec![
                    store(Base::Out, 0, f(1.0)),
                    for_(
                        u(2),
                        vec![stream(Base::Out, 0, "o")],
                        vec![let_("y", false, elem("o"))],
                    ),
                    fill_out(),
                ],
                3,
            ),
            "read of a never-written slot: out[1]",
        );
        faults(
            array(
                vec![fill(Base::Out, None, 3, vec![], vec![St::SlotAdd(f(1.0))])],
                3,
            ),
            "read of a never-written slot: out[0]",
        );
    }

    #[test]
    fn accesses_outside_live_buffers_fault() {
        faults(
            array(
                vec![
                    frame(4),
                    alloc(0, 2),
                    store(Base::Scratch, 3, f(1.0)),
                    fill_out(),
                ],
                3,
            ),
            "access outside any live buffer: scratch[3..4]",
        );
        // A row straddling two allocations is in no single one.
        let straddle = vec![
            frame(4),
            alloc(0, 2),
            alloc(2, 2),
            fill(Base::Scratch, None, 4, vec![], vec![St::Slot(f(1.0))]),
        ];
        faults(
            array(straddle, 3),
            "access outside any live buffer: scratch[0..4]",
        );
        let straddle = vec![
            frame(4),
            alloc(0, 2),
            alloc(2, 2),
            fill(Base::Scratch, Some(0), 2, vec![], vec![St::Slot(f(1.0))]),
            fill(Base::Scratch, Some(2), 2, vec![], vec![St::Slot(f(1.0))]),
            fill(
                Base::Out,
                None,
                2,
                vec![stream(Base::Scratch, 1, "s")],
                vec![St::Slot(elem("s"))],
            ),
            store(Base::Out, 2, f(0.0)),
        ];
        faults(
            array(straddle, 3),
            "access outside any live buffer: scratch[1..3]",
        );
        // After the allocation's list ended.
        faults(
            scalar(
                vec![
                    frame(1),
                    St::Block(vec![alloc(0, 1), store(Base::Scratch, 0, f(1.0))]),
                ],
                ld(Base::Scratch, u(0)),
            ),
            "access outside any live buffer: scratch[0..1]",
        );
        faults(
            array(vec![no_frame(), store(Base::Scratch, 0, f(1.0))], 3),
            "`scratch` used where there is no frame",
        );
    }

    #[test]
    fn unwritten_out_slots_fault() {
        faults(
            array(
                vec![fill(Base::Out, None, 2, vec![], vec![St::Slot(f(1.0))])],
                3,
            ),
            "out slot 2 never written",
        );
        assert_eq!(array(vec![fill_out()], 3), Ok(Ok(Ret::Out(vec![1.0; 3]))));
    }

    #[test]
    fn proven_accesses_out_of_range_fault() {
        faults(
            scalar(vec![], ld(x(), u(5))),
            "proven load x[5] out of range for length 3",
        );
        assert_eq!(scalar(vec![], ld(x(), u(2))), Ok(Ok(Ret::F64(3.0))));
        faults(
            array(vec![store(Base::Out, 3, f(1.0)), fill_out()], 3),
            "proven store out[3] out of range",
        );
    }

    #[test]
    fn row_streams_take_each_row_and_reads_stay_in_it() {
        // acc = the sum of r[0..m] over `rows` rows r of width w of x = [1, 2, 3].
        let prog = |rows: usize, w: usize, m: usize| {
            let row = Stream {
                base: x(),
                start: u(0),
                elem: id("r"),
                width: Some(u(w)),
            };
            let inner = stream(Base::Row(id("r")), 0, "e");
            let add = St::Assign(id("acc"), bin(BinOp::Add, var("acc"), elem("e")));
            let body = vec![
                let_("acc", true, f(0.0)),
                for_(u(rows), vec![row], vec![for_(u(m), vec![inner], vec![add])]),
            ];
            scalar(body, var("acc"))
        };
        assert_eq!(prog(3, 1, 1), Ok(Ok(Ret::F64(6.0))));
        assert_eq!(prog(1, 3, 3), Ok(Ok(Ret::F64(6.0))));
        assert_eq!(prog(1, 3, 2), Ok(Ok(Ret::F64(3.0))));
        faults(
            prog(2, 2, 2),
            "row stream range x[0..0+4] out of bounds for length 3",
        );
        faults(prog(1, 2, 3), "out of its row of 2");
    }

    #[test]
    fn prefix_streams_read_the_enclosing_slice() {
        // acc = the sum over j < n of the sum of s[..k(j)], where s = x[1..1 + n] is the
        // outer loop's slice (x = [1, 2, 3]) and k(j) the inner count: j as `prefixes`
        // makes it, or more than the slice holds.
        let prog = |n: usize, k: Ex| {
            let outer = stream(x(), 1, "e");
            let pre = stream(Base::Row(lir::whole_of(&id("e"))), 0, "p");
            let inner = St::For {
                var: id("l"),
                n: k,
                streams: vec![pre],
                body: vec![St::Assign(
                    id("acc"),
                    bin(BinOp::Add, var("acc"), elem("p")),
                )],
            };
            let body = vec![
                let_("acc", true, f(0.0)),
                for_(u(n), vec![outer], vec![inner]),
            ];
            scalar(body, var("acc"))
        };
        // j = 0, 1: nothing, then s[0] = 2.
        assert_eq!(prog(2, var("i")), Ok(Ok(Ret::F64(2.0))));
        assert_eq!(prog(0, var("i")), Ok(Ok(Ret::F64(0.0))));
        // A prefix longer than the slice: the printed `get` would skip the loop.
        faults(
            prog(2, bin(BinOp::Add, var("i"), u(2))),
            "out of its row of 2",
        );
    }

    #[test]
    fn row_loads_stay_in_their_row() {
        let ldr = |off: usize, w: usize, k: usize| Ex::LdRow(x(), Box::new(u(off)), w, k);
        assert_eq!(scalar(vec![], ldr(1, 2, 1)), Ok(Ok(Ret::F64(3.0))));
        faults(
            scalar(vec![], ldr(1, 3, 0)),
            "proven row load x[1..1 + 3][0]",
        );
        faults(
            scalar(vec![], ldr(0, 2, 2)),
            "proven row load x[0..0 + 2][2]",
        );
    }

    #[test]
    fn ranges_out_of_bounds_fault() {
        faults(
            scalar(vec![for_(u(4), vec![stream(x(), 0, "e")], vec![])], f(0.0)),
            "stream range x[0..0+4] out of bounds for length 3",
        );
        faults(
            scalar(vec![for_(u(2), vec![stream(x(), 2, "e")], vec![])], f(0.0)),
            "stream range x[2..2+2]",
        );
        assert_eq!(
            scalar(vec![for_(u(2), vec![stream(x(), 1, "e")], vec![])], f(0.0)),
            Ok(Ok(Ret::F64(0.0)))
        );
        faults(
            array(vec![fill(Base::Out, Some(2), 2, vec![], vec![])], 3),
            "fill range out[2..2+2]",
        );
        faults(
            array(vec![fill(Base::Out, None, 4, vec![], vec![])], 3),
            "fill range out[..4]",
        );
        let copy = |src_off: usize| St::Copy {
            dst: Base::Out,
            dst_off: u(0),
            src: x(),
            src_off: u(src_off),
            n: u(3),
        };
        faults(array(vec![copy(1)], 3), "copy source range x[1..1+3]");
        assert_eq!(
            array(vec![copy(0)], 3),
            Ok(Ok(Ret::Out(vec![1.0, 2.0, 3.0])))
        );
    }

    #[test]
    fn kernel_errors_come_back_as_errors() {
        let sub = Ex::Checked(
            Checked::Sub,
            Box::new(u(1)),
            Box::new(var("n")),
            "1 - n".into(),
        );
        errs(
            scalar(vec![let_("k", false, sub)], f(0.0)),
            "size arithmetic `1 - n` underflows",
        );
        let add = Ex::Checked(
            Checked::Add,
            Box::new(u(1)),
            Box::new(var("n")),
            "1 + n".into(),
        );
        assert_eq!(scalar(vec![], add), Ok(Ok(Ret::Usize(4))));
        errs(
            scalar(vec![], Ex::Check(Box::new(u(5)), Box::new(u(3)))),
            "index 5 out of bounds for an array of length 3",
        );
        assert_eq!(
            scalar(vec![], Ex::Check(Box::new(u(2)), Box::new(u(3)))),
            Ok(Ok(Ret::Usize(2)))
        );
        errs(
            scalar(vec![St::CheckRange(u(2), u(1), u(5))], f(0.0)),
            "index 1 out of bounds",
        );
        let check_len = St::CheckLen {
            arg: "x".into(),
            base: x(),
            want: u(4),
        };
        errs(
            array(vec![check_len.clone(), fill_out()], 3),
            "argument `x` has length 3, but the kernel's signature requires 4",
        );
        // `out` written before a failed length check (or any error before the frame).
        faults(
            array(vec![store(Base::Out, 0, f(1.0)), check_len, fill_out()], 3),
            "out[0] was written before a length check failed",
        );
        faults(
            array(
                vec![
                    store(Base::Out, 0, f(1.0)),
                    St::CheckRange(u(2), u(1), u(5)),
                    frame(0),
                    fill_out(),
                ],
                3,
            ),
            "out[0] was written before an error raised before the frame",
        );
        errs(
            array(
                vec![
                    frame(0),
                    store(Base::Out, 0, f(1.0)),
                    St::CheckRange(u(2), u(1), u(5)),
                ],
                3,
            ),
            "index 1",
        );
    }

    #[test]
    fn borrow_conflicts_fault() {
        faults(
            array(
                vec![
                    fill(Base::Out, None, 3, vec![], vec![St::Slot(f(1.0))]),
                    for_(
                        u(3),
                        vec![stream(Base::Out, 0, "o")],
                        vec![store(Base::Out, 0, elem("o"))],
                    ),
                ],
                3,
            ),
            "stream buffer `out` written inside its loop",
        );
        // Statically, as rustc: even where the write never runs.
        faults(
            array(
                vec![
                    fill_out(),
                    for_(
                        u(0),
                        vec![stream(Base::Out, 0, "o")],
                        vec![St::If(Ex::Bool(false), vec![fill_out()], vec![])],
                    ),
                ],
                3,
            ),
            "stream buffer `out` written inside its loop",
        );
        faults(
            array(
                vec![fill(
                    Base::Out,
                    None,
                    3,
                    vec![],
                    vec![St::Slot(Ex::Len(Base::Out))],
                )],
                3,
            ),
            "`out` is used inside a fill over it",
        );
        faults(
            array(vec![store(x(), 0, f(1.0)), fill_out()], 3),
            "write to the parameter `x`",
        );
    }

    #[test]
    fn and_or_short_circuit() {
        let panics = bin(BinOp::Eq, bin(BinOp::Div, u(1), u(0)), u(0));
        assert_eq!(
            scalar(vec![], bin(BinOp::And, Ex::Bool(false), panics.clone())),
            Ok(Ok(Ret::Bool(false)))
        );
        assert_eq!(
            scalar(vec![], bin(BinOp::Or, Ex::Bool(true), panics.clone())),
            Ok(Ok(Ret::Bool(true)))
        );
        faults(
            scalar(vec![], bin(BinOp::And, Ex::Bool(true), panics)),
            "`1 / 0` on usize panics",
        );
        assert_eq!(
            scalar(vec![], bin(BinOp::Ne, f(f64::NAN), f(f64::NAN))),
            Ok(Ok(Ret::Bool(true)))
        );
    }

    #[test]
    fn scoping_and_names() {
        // Shadowing ends with the block.
        let body = vec![
            let_("y", false, f(1.0)),
            St::Block(vec![let_("y", false, f(2.0))]),
        ];
        assert_eq!(scalar(body, var("y")), Ok(Ok(Ret::F64(1.0))));
        faults(
            scalar(vec![St::Block(vec![let_("z", false, f(2.0))])], var("z")),
            "unknown identifier `z`",
        );
        // Assignment reaches the innermost binding; swap exchanges.
        let body = vec![
            let_("a", true, f(1.0)),
            let_("b", true, f(2.0)),
            St::Swap(id("a"), id("b")),
            St::Block(vec![St::Assign(id("a"), f(5.0))]),
        ];
        assert_eq!(
            scalar(body, bin(BinOp::Sub, var("a"), var("b"))),
            Ok(Ok(Ret::F64(4.0)))
        );
        faults(
            scalar(
                vec![let_("a", false, f(1.0)), St::Assign(id("a"), f(2.0))],
                var("a"),
            ),
            "assignment to the immutable `a`",
        );
        faults(
            scalar(
                vec![let_("a", true, f(1.0)), St::Assign(id("a"), u(2))],
                var("a"),
            ),
            "of usize to f64",
        );
        faults(
            scalar(vec![], bin(BinOp::Add, f(1.0), u(1))),
            "`+` on f64 and usize",
        );
        faults(
            scalar(vec![], Ex::Internal("lost a size")),
            "fsmooth internal error: lost a size",
        );
        faults(scalar(vec![], var("out")), "`out` used in a scalar kernel");
    }

    #[test]
    fn runaway_loops_hit_the_budget() {
        faults(
            scalar(vec![for_(u(usize::MAX), vec![], vec![])], f(0.0)),
            "step budget exceeded",
        );
        // Counted over the whole call: 30M + 30M.
        let nested = for_(
            u(30_000_000),
            vec![],
            vec![for_(u(30_000_000), vec![], vec![])],
        );
        faults(scalar(vec![nested], f(0.0)), "step budget exceeded");
    }

    #[test]
    fn kernel_kind_must_match_the_result() {
        faults(
            run(
                &Func {
                    body: vec![],
                    result: None,
                },
                &[],
                None,
            ),
            "a scalar kernel has no result",
        );
        faults(
            run(
                &Func {
                    body: vec![],
                    result: Some(f(1.0)),
                },
                &[],
                Some(0),
            ),
            "has a scalar result",
        );
        assert_eq!(
            run(
                &Func {
                    body: vec![],
                    result: None
                },
                &[],
                Some(0)
            ),
            Ok(Ok(Ret::Out(vec![])))
        );
    }

    #[test]
    fn constant_and_heap_frames() {
        // A constant frame is the constant's length (its `len` is not printed); a heap
        // frame is `len` slots (its constant is not printed).
        let frame = |heap: bool| St::Frame {
            len: Some(u(2)),
            constant: Some(3),
            heap,
        };
        let body = |heap| vec![frame(heap), alloc(0, 3), fill_out()];
        assert_eq!(array(body(false), 3), Ok(Ok(Ret::Out(vec![1.0; 3]))));
        faults(array(body(true), 3), "allocation outside the frame");
    }

    #[test]
    fn heap_buffers_live_to_the_end_of_their_list() {
        let heap = |len: usize| St::Heap { id: 0, len: u(len) };
        let h = || Base::Heap(0);
        // One buffer per iteration, each written before it is read.
        let body = vec![
            no_frame(),
            fill(
                Base::Out,
                None,
                3,
                vec![],
                vec![
                    heap(2),
                    store(h(), 1, Ex::ToF64(Box::new(var("i")))),
                    St::Slot(ld(h(), u(1))),
                ],
            ),
        ];
        assert_eq!(array(body, 3), Ok(Ok(Ret::Out(vec![0.0, 1.0, 2.0]))));
        // Zeroed, but a read before any write is still a bug.
        faults(
            scalar(vec![heap(2)], ld(h(), u(0))),
            "read of a never-written slot: heap_0[0]",
        );
        faults(
            scalar(vec![St::Block(vec![heap(2)])], Ex::Len(h())),
            "unknown identifier `heap_0`",
        );
        errs(
            scalar(vec![heap(usize::MAX)], f(0.0)),
            "scratch slab too short",
        );
        // An error after `out` was written, in a body without a frame, is just an error.
        errs(
            array(vec![fill_out(), St::CheckRange(u(2), u(1), u(5))], 3),
            "index 1",
        );
    }
}
