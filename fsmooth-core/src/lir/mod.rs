//! `lir`: the loop IR that the DPS translation ([`crate::lower::dps`]) produces and that
//! [`crate::emit`] prints as Rust and [`crate::exec`] runs.
//!
//! It is the storage-planned program: every array lives in a parameter, in `out` or at a
//! static offset of the scratch frame, every allocation is an explicit [`St::Alloc`] (live
//! until the end of the enclosing statement list), and every access is a load or a store at
//! an offset. Printing is one-to-one: each node becomes the Rust it names, so what the
//! executor checks is what rustc compiles.

use crate::front::ast::{BinOp, MathFn};
use crate::front::size::Size;
use proc_macro2::{Ident, TokenStream};
use quote::{ToTokens, format_ident, quote};

/// Where an array lives.
#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    /// A kernel parameter (read only).
    Param(Ident),
    /// The kernel's `out`.
    Out,
    /// The scratch frame.
    Scratch,
    /// Heap buffer `k` (only under `#![fsmooth(storage = "heap")]`), made by [`St::Heap`].
    Heap(usize),
    /// The current row of an enclosing loop's row stream (read only; see [`Stream::width`]),
    /// or the whole slice of an enclosing loop's stream, which an inner loop reads a prefix
    /// of ([`whole_of`]).
    Row(Ident),
}

impl Base {
    /// The buffer's Rust name.
    pub fn name(&self) -> String {
        match self {
            Base::Param(id) => id.to_string(),
            Base::Out => "out".into(),
            Base::Scratch => "scratch".into(),
            Base::Heap(k) => format!("heap_{k}"),
            Base::Row(id) => id.to_string(),
        }
    }
}

impl ToTokens for Base {
    fn to_tokens(&self, ts: &mut TokenStream) {
        ts.extend(match self {
            Base::Param(id) => quote!(#id),
            Base::Out => quote!(out),
            Base::Scratch => quote!(scratch),
            Base::Heap(k) => {
                let id = format_ident!("heap_{}", k);
                quote!(#id)
            }
            Base::Row(id) => quote!(#id),
        })
    }
}

/// A run-time check on `usize` arithmetic (`fsmooth::__rt::add` and friends), failing with
/// `Error::Arithmetic`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Checked {
    /// `a + b`, failing on overflow.
    Add,
    /// `a - b`, failing on underflow.
    Sub,
    /// `a * b`, failing on overflow.
    Mul,
    /// `a / b`, failing on a zero divisor.
    Div,
    /// `a / b` for sizes: fails on a zero divisor or a remainder.
    DivExact,
    /// `a % b`, failing on a zero divisor.
    Rem,
}

impl Checked {
    /// The runtime helper's name.
    pub fn name(self) -> &'static str {
        match self {
            Checked::Add => "add",
            Checked::Sub => "sub",
            Checked::Mul => "mul",
            Checked::Div => "div",
            Checked::DivExact => "div_exact",
            Checked::Rem => "rem",
        }
    }
}

/// Unchecked `usize` offset arithmetic: it cannot overflow where the translation emits it
/// (see `dps::wadd`), and wraps rather than carry a panic path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Wrap {
    /// `wrapping_add`.
    Add,
    /// `wrapping_sub`.
    Sub,
    /// `wrapping_mul`.
    Mul,
}

/// A runtime helper called at kernel entry to bind a size from a length (the constant
/// arguments are in the variant, the others in [`Ex::Entry`]'s list).
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// `from_len(len, per_row)`: how many rows of `per_row` fit in `len`.
    FromLen,
    /// `root(x, power)`.
    Root(u32),
    /// `solve_linear(x, scale, offset)`.
    SolveLinear(usize, i128),
    /// `max(a, b)`.
    Max,
}

/// A scalar (`f64`, `usize` or `bool`) expression.
#[derive(Clone, Debug)]
pub enum Ex {
    /// An `f64` literal.
    F64(f64),
    /// A `bool` literal.
    Bool(bool),
    /// A `usize` literal.
    Usize(usize),
    /// A local, size name or scalar parameter.
    Var(Ident),
    /// `len()` of a buffer.
    Len(Base),
    /// An operator, as Rust evaluates it on the operands' type: f64 arithmetic, comparisons,
    /// `&&`/`||`, and `usize` `/` and `%` whose divisor is a nonzero constant.
    Bin(BinOp, Box<Ex>, Box<Ex>),
    /// Checked `usize` arithmetic; the string names the source expression.
    Checked(Checked, Box<Ex>, Box<Ex>, String),
    /// Wrapping `usize` arithmetic.
    Wrap(Wrap, Box<Ex>, Box<Ex>),
    /// `-x`.
    Neg(Box<Ex>),
    /// `!x`.
    Not(Box<Ex>),
    /// `x as f64`.
    ToF64(Box<Ex>),
    /// `x as usize` (saturating, as Rust's float-to-int cast).
    ToUsize(Box<Ex>),
    /// A math function of the runtime.
    Math(MathFn, Vec<Ex>),
    /// A runtime entry helper.
    Entry(Entry, Vec<Ex>),
    /// A size evaluated with saturating arithmetic (as in the `scratch_len` `const fn`).
    Const(Size),
    /// `ld(base, at)`: a load the compiler proved in bounds.
    Ld(Base, Box<Ex>),
    /// `ldr::<width>(base, off, k)`: element `k < width` of the row `base[off..off + width]`,
    /// which the compiler proved in bounds. Loads of one row share one range check, which
    /// LLVM then drops for all but the first (a written-out loop's loads of a row of a
    /// parameter, `cams[i % n][0]` to `cams[i % n][10]`).
    LdRow(Base, Box<Ex>, usize, usize),
    /// `check(i, len)?`: `i`, or `Error::Index` unless `i < len`.
    Check(Box<Ex>, Box<Ex>),
    /// The current element of a stream (see [`Stream`]).
    Elem(Ident),
    /// Statements, then a value.
    Block(Vec<St>, Box<Ex>),
    /// `if c { a } else { b }`.
    If(Box<Ex>, Box<Ex>, Box<Ex>),
    /// A translation invariant was broken: printed as `compile_error!`.
    Internal(&'static str),
}

impl St {
    /// `let id: usize = val;`
    pub fn let_usize(id: &Ident, val: Ex) -> St {
        St::Let {
            id: id.clone(),
            mutable: false,
            usize_ty: true,
            val,
        }
    }
}

/// A source row read along a loop: `base[start + i]` for index `i`, cut once before the loop
/// and iterated beside it, its element bound to `elem`.
#[derive(Clone, Debug)]
pub struct Stream {
    /// The buffer read.
    pub base: Base,
    /// The offset of the element read at index 0.
    pub start: Ex,
    /// The element's name inside the loop.
    pub elem: Ident,
    /// For a row stream, the row's width `w`: the element is the row `base[start + i * w ..
    /// start + (i + 1) * w]`, a slice that inner loops stream from as [`Base::Row`] (the rows
    /// of `b` in a matrix product, taken one after the other: one length test per row, no
    /// offset to compute and check).
    pub width: Option<Ex>,
}

/// A statement.
#[derive(Clone, Debug)]
pub enum St {
    /// `let [mut] id[: usize] = val;`
    Let {
        /// The local.
        id: Ident,
        /// Assigned later.
        mutable: bool,
        /// Annotated `usize`.
        usize_ty: bool,
        /// Its value.
        val: Ex,
    },
    /// `id = val;`
    Assign(Ident, Ex),
    /// `st(base, at, val)`: a store the compiler proved in bounds.
    Store(Base, Ex, Ex),
    /// `st_row(base, off, [v0, v1, ..])`: the slots `off..off + n` of `base` (`n` values),
    /// proven in bounds, stored with one range check (a column tile's sums).
    StoreRow(Base, Ex, Vec<Ex>),
    /// `*__slot = val;` inside a [`St::Fill`].
    Slot(Ex),
    /// `*__slot = *__slot + val;` inside a [`St::Fill`].
    SlotAdd(Ex),
    /// `for var in 0..n { body }`, with the streams zipped in.
    For {
        /// The index.
        var: Ident,
        /// The count.
        n: Ex,
        /// Rows read along the loop.
        streams: Vec<Stream>,
        /// The body.
        body: Vec<St>,
    },
    /// A loop over the `n` slots of `base` from `off`, each bound to `__slot`, with the
    /// streams zipped in.
    Fill {
        /// The buffer written.
        base: Base,
        /// The first slot (`None` is 0).
        off: Option<Ex>,
        /// The index.
        var: Ident,
        /// The count.
        n: Ex,
        /// Rows read along the loop.
        streams: Vec<Stream>,
        /// The body.
        body: Vec<St>,
    },
    /// `if c { a } else { b }`.
    If(Ex, Vec<St>, Vec<St>),
    /// `if let Some(id) = base.get(off..off + width) { body }`: a segment of a row, proven in
    /// bounds, bound once for the body's row loads (`ldr::<width>(id, 0, k)`). When `base` is
    /// a row stream's row and `off` does not change along the loop, LLVM tests the segment
    /// once before the loop. `off` is printed twice: a variable.
    Segment {
        /// The segment's name.
        id: Ident,
        /// The buffer or row it is cut from.
        base: Base,
        /// Its first slot.
        off: Ex,
        /// Its length.
        width: usize,
        /// What reads it.
        body: Vec<St>,
    },
    /// `{ .. }`.
    Block(Vec<St>),
    /// `swap(&mut a, &mut b)` of two locals.
    Swap(Ident, Ident),
    /// `check_range(lo, hi, len)?`: `Error::Index` unless `lo <= hi <= len`.
    CheckRange(Ex, Ex, Ex),
    /// Copy `n` slots from `src` at `src_off` to `dst` at `dst_off` (different buffers).
    Copy {
        /// Destination buffer.
        dst: Base,
        /// Destination offset.
        dst_off: Ex,
        /// Source buffer.
        src: Base,
        /// Source offset.
        src_off: Ex,
        /// Slot count.
        n: Ex,
    },
    /// `len` slots of the frame at `off` are taken until the end of the enclosing
    /// statement list. Prints nothing: the offsets are static.
    Alloc {
        /// First slot.
        off: Ex,
        /// Slot count.
        len: Ex,
    },
    /// A zeroed heap buffer [`Base::Heap`]`(id)` of `len` slots, freed at the end of the
    /// enclosing statement list (`storage = "heap"`).
    Heap {
        /// The buffer's number.
        id: usize,
        /// Slot count.
        len: Ex,
    },
    /// Return `Error::Shape` naming `arg` unless `base.len() == want`.
    CheckLen {
        /// The argument's name in the error.
        arg: String,
        /// Its buffer.
        base: Base,
        /// The expected length.
        want: Ex,
    },
    /// Take the frame from the region: `len` slots (a fixed-size array when `constant`),
    /// or no frame.
    Frame {
        /// Its length; `None` when the kernel needs no scratch.
        len: Option<Ex>,
        /// The length when it is a constant.
        constant: Option<usize>,
        /// From the heap rather than the region (`storage = "heap_frame"`).
        heap: bool,
    },
}

/// A kernel's body as planned: entry statements, then the body, then the result.
#[derive(Clone, Debug)]
pub struct Func {
    /// Everything up to and including [`St::Frame`], then the body.
    pub body: Vec<St>,
    /// The returned scalar; `None` for array kernels (which return `Ok(())`).
    pub result: Option<Ex>,
}

fn f64_lit(v: f64) -> TokenStream {
    if v.is_nan() {
        quote!(f64::NAN)
    } else if v.is_infinite() {
        if v > 0.0 {
            quote!(f64::INFINITY)
        } else {
            quote!(f64::NEG_INFINITY)
        }
    } else {
        let l = proc_macro2::Literal::f64_suffixed(v.abs());
        if v.is_sign_negative() {
            quote!((-#l))
        } else {
            quote!(#l)
        }
    }
}

fn op_tokens(op: BinOp) -> TokenStream {
    match op {
        BinOp::Add => quote!(+),
        BinOp::Sub => quote!(-),
        BinOp::Mul => quote!(*),
        BinOp::Div => quote!(/),
        BinOp::Rem => quote!(%),
        BinOp::Lt => quote!(<),
        BinOp::Le => quote!(<=),
        BinOp::Gt => quote!(>),
        BinOp::Ge => quote!(>=),
        BinOp::Eq => quote!(==),
        BinOp::Ne => quote!(!=),
        BinOp::And => quote!(&&),
        BinOp::Or => quote!(||),
    }
}

impl ToTokens for Ex {
    fn to_tokens(&self, ts: &mut TokenStream) {
        ts.extend(match self {
            Ex::F64(v) => f64_lit(*v),
            Ex::Bool(b) => quote!(#b),
            Ex::Usize(v) => quote!(#v),
            Ex::Var(id) => quote!(#id),
            Ex::Len(b) => quote!(#b.len()),
            Ex::Bin(op, a, b) => {
                let o = op_tokens(*op);
                quote!((#a #o #b))
            }
            Ex::Checked(c, a, b, text) => {
                let f = format_ident!("{}", c.name());
                quote!(::fsmooth::__rt::#f(#a, #b, #text)?)
            }
            Ex::Wrap(w, a, b) => {
                let f = match w {
                    Wrap::Add => quote!(wrapping_add),
                    Wrap::Sub => quote!(wrapping_sub),
                    Wrap::Mul => quote!(wrapping_mul),
                };
                quote!((#a).#f(#b))
            }
            Ex::Neg(a) => quote!((-#a)),
            Ex::Not(a) => quote!((!#a)),
            Ex::ToF64(a) => quote!((#a as f64)),
            Ex::ToUsize(a) => quote!((#a as usize)),
            Ex::Math(f, xs) => {
                let x = &xs[0];
                match f {
                    MathFn::Powi => {
                        let k = &xs[1];
                        quote!(::fsmooth::__rt::powi(#x, i32::try_from(#k).unwrap_or(i32::MAX)))
                    }
                    MathFn::Powf => {
                        let y = &xs[1];
                        quote!(::fsmooth::__rt::powf(#x, #y))
                    }
                    MathFn::Min => {
                        let y = &xs[1];
                        quote!(::fsmooth::__rt::min(#x, #y))
                    }
                    MathFn::Max => {
                        let y = &xs[1];
                        quote!(::fsmooth::__rt::max_f(#x, #y))
                    }
                    f => {
                        let name = format_ident!("{}", f.name());
                        quote!(::fsmooth::__rt::#name(#x))
                    }
                }
            }
            Ex::Entry(e, xs) => match e {
                Entry::FromLen => quote!(::fsmooth::__rt::from_len(#(#xs),*)),
                Entry::Root(k) => quote!(::fsmooth::__rt::root(#(#xs),*, #k)),
                Entry::SolveLinear(scale, offset) => {
                    quote!(::fsmooth::__rt::solve_linear(#(#xs),*, #scale, #offset))
                }
                Entry::Max => quote!(::fsmooth::__rt::max(#(#xs),*)),
            },
            Ex::Const(s) => crate::front::size::const_size(s),
            Ex::Ld(b, at) => quote!(::fsmooth::__rt::ld(#b, #at)),
            Ex::LdRow(b, off, width, k) => quote!(::fsmooth::__rt::ldr::<#width>(#b, #off, #k)),
            Ex::Check(i, d) => quote!(::fsmooth::__rt::check(#i, #d)?),
            Ex::Elem(e) => quote!((*#e)),
            Ex::Block(st, v) => quote!({ #(#st)* #v }),
            Ex::If(c, a, b) => quote!(if #c { #a } else { #b }),
            Ex::Internal(msg) => {
                let m = format!("fsmooth internal error: {msg}");
                quote!(compile_error!(#m))
            }
        })
    }
}

/// `for pat in it { body }` with the streams zipped in (and the slots of `__d` when
/// `slot`). `zip` rather than `enumerate`: no counter that could overflow.
fn for_tokens(var: &Ident, n: &Ex, slot: bool, streams: &[Stream], body: &[St]) -> TokenStream {
    // Slices alone when the index is unused: a zip of slice iterators only is one LLVM
    // vectorises (a range in the chain keeps a bound check per element). Every slice has
    // exactly n elements, so the count is the same.
    // (A row stream of rows of width 0 never ends: a loop needs a part of length n.)
    let slices_only =
        (slot || streams.iter().any(|s| s.width.is_none())) && !mentions_var(body, var);
    let mut parts: Vec<(TokenStream, TokenStream)> = Vec::new();
    if !slices_only {
        parts.push((quote!(0..#n), quote!(#var)));
    }
    if slot {
        parts.push((quote!(__d), quote!(__slot)));
    }
    let mut gets = Vec::new();
    let mut binds = Vec::new();
    for s in streams {
        let (base, e, start) = (&s.base, &s.elem, &s.start);
        // The slice keeps a name of its own when an inner loop reads a prefix of it;
        // otherwise the element shadows it.
        let all = whole_read(s, body);
        let slice = all.as_ref().unwrap_or(e);
        binds.push(quote!(::core::option::Option::Some(#slice)));
        match &s.width {
            Some(w) => {
                gets.push(quote!(#base.get(#start..)));
                parts.push((quote!(::fsmooth::__rt::rows(#e, #w)), quote!(#e)));
            }
            None => {
                let end = wadd(s.start.clone(), n.clone());
                gets.push(quote!(#base.get(#start..#end)));
                parts.push((quote!(#slice.iter()), quote!(#e)));
            }
        }
    }
    let (first_it, first_pat) = parts.remove(0);
    let (mut it, mut pat) = if parts.is_empty() {
        (first_it, first_pat)
    } else {
        (quote!((#first_it)), first_pat)
    };
    for (i, p) in parts {
        it = quote!(#it.zip(#i));
        pat = quote!((#pat, #p));
    }
    if streams.is_empty() {
        quote!(for #pat in #it { #(#body)* })
    } else {
        // Every stream is in range by the same proof that made its loads unchecked, so the
        // `if let` always holds.
        quote!(if let (#(#binds,)*) = (#(#gets,)*) { for #pat in #it { #(#body)* } })
    }
}

/// Row streams: an inner loop's stream that starts at `c + l * w`, for the index `l` of an
/// enclosing loop, the inner loop's own count `w` and an offset `c` (often 0) fixed during
/// the loop, reads row `l` of the rows of width `w` from `c`. The enclosing loop takes those
/// rows one after the other (one cut before it, then one length test per row rather than an
/// offset range check), and the inner loop streams from its current row. The buffer must
/// not be written inside the enclosing loop, which now holds it borrowed. Every loop is
/// visited, those inside expressions too, and each also gives its inner loops the
/// prefixes of its slices that they read (`prefixes`).
pub fn row_streams(sts: &mut [St]) {
    for s in sts {
        row_streams_st(s);
    }
}

/// [`row_streams`] for the loops inside a scalar expression: a fold's loop, a scalar
/// kernel's result.
pub fn row_streams_ex(e: &mut Ex) {
    blocks_in(e, &mut |sts| row_streams(sts));
}

/// Call `f` on the statements of every block in `e` that no other block in `e` holds (each
/// outermost one; `f` sees to the blocks inside it).
fn blocks_in(e: &mut Ex, f: &mut dyn FnMut(&mut [St])) {
    rewrite_ex(e, &mut |x| match x {
        Ex::Block(sts, v) => {
            f(sts);
            blocks_in(v, f);
            true
        }
        _ => false,
    });
}

/// The expressions `s` holds itself, not those of the statements in its body (nor its
/// streams' starts).
fn own_exprs(s: &mut St) -> Vec<&mut Ex> {
    match s {
        St::Let { val, .. } | St::Assign(_, val) | St::Slot(val) | St::SlotAdd(val) => {
            vec![val]
        }
        St::Store(_, at, v) => vec![at, v],
        St::StoreRow(_, off, vs) => std::iter::once(off).chain(vs.iter_mut()).collect(),
        St::For { n, .. } => vec![n],
        St::Fill { off, n, .. } => off.iter_mut().chain(std::iter::once(n)).collect(),
        St::If(c, ..) => vec![c],
        St::Segment { off, .. } => vec![off],
        St::CheckRange(a, b, c) => vec![a, b, c],
        St::Copy {
            dst_off,
            src_off,
            n,
            ..
        } => vec![dst_off, src_off, n],
        St::Alloc { off, len } => vec![off, len],
        St::CheckLen { want, .. } | St::Heap { len: want, .. } => vec![want],
        St::Frame { len, .. } => len.iter_mut().collect(),
        St::Block(_) | St::Swap(..) => Vec::new(),
    }
}

fn row_streams_st(s: &mut St) {
    // Loops in the statement's own expressions (a fold's loop in a `let`'s value).
    for e in own_exprs(s) {
        row_streams_ex(e);
    }
    let (var, streams, body, fill) = match s {
        St::For {
            var, streams, body, ..
        } => (var, streams, body, None),
        St::Fill {
            base,
            var,
            streams,
            body,
            ..
        } => (var, streams, body, Some(base)),
        St::If(_, a, b) => {
            row_streams(a);
            row_streams(b);
            return;
        }
        St::Block(b) | St::Segment { body: b, .. } => {
            row_streams(b);
            return;
        }
        _ => return,
    };
    row_streams(body);
    // A row stream's width and offset are evaluated before the loop, so they must not name
    // anything the loop binds or assigns.
    let inside = bound_in(var, body);
    let outside = |e: &Ex| idents(e).iter().all(|i| !inside.contains(i));
    // The buffers read as rows of this loop: the base, the rows' width and first offset.
    let mut rows: Vec<(Base, Ex, Ex)> = Vec::new();
    walk_sts(body, &mut |n| {
        let (St::For { n: w, streams, .. } | St::Fill { n: w, streams, .. }) = (match n {
            Node::St(st) => st,
            _ => return,
        }) else {
            return;
        };
        for st in streams {
            if st.width.is_none()
                && !matches!(st.base, Base::Row(_))
                && !rows.iter().any(|(b, ..)| *b == st.base)
                && outside(w)
                && let Some(c) = row_offset(&st.start, var, w)
                && outside(&c)
            {
                rows.push((st.base.clone(), w.clone(), c));
            }
        }
    });
    rows.retain(|(b, ..)| fill.as_deref() != Some(b) && !writes(body, b));
    for (base, width, c) in rows {
        let elem = format_ident!("__r{}_{}", var.to_string(), streams.len());
        for_each_stream(body, &mut |n, st| {
            if st.width.is_none()
                && st.base == base
                && same(n, &width)
                && row_offset(&st.start, var, n).is_some_and(|o| same(&o, &c))
            {
                st.base = Base::Row(elem.clone());
                st.start = Ex::Usize(0);
            }
        });
        streams.push(Stream {
            base,
            start: c,
            elem,
            width: Some(width),
        });
    }
    prefixes(var, streams, body);
}

/// The names a loop of index `var` binds or assigns in `body`: its index, locals, inner
/// loops' indexes and stream elements, and assigned locals.
fn bound_in(var: &Ident, body: &[St]) -> Vec<Ident> {
    let mut inside: Vec<Ident> = vec![var.clone()];
    walk_sts(body, &mut |n| match n {
        Node::St(St::Let { id, .. } | St::Segment { id, .. } | St::Assign(id, _)) => {
            inside.push(id.clone())
        }
        Node::St(St::For { var, .. } | St::Fill { var, .. }) => inside.push(var.clone()),
        Node::Stream(st) => inside.push(st.elem.clone()),
        _ => {}
    });
    inside
}

/// The name a loop gives the whole slice of its stream `elem` (a stream's slice is
/// otherwise shadowed by its element), when an inner loop reads a prefix of it.
pub fn whole_of(elem: &Ident) -> Ident {
    format_ident!("{}_all", elem)
}

/// The name of stream `s`'s whole slice when the loop's `body` reads a prefix of it
/// ([`whole_of`]): the printer binds the slice under it, the executor binds it too.
pub fn whole_read(s: &Stream, body: &[St]) -> Option<Ident> {
    let all = whole_of(&s.elem);
    (s.width.is_none() && uses(body, &Base::Row(all.clone()))).then_some(all)
}

/// Prefix streams: an inner loop whose count is `j`, the index of this loop, and whose
/// stream starts where a stream of this loop starts, reads the first `j` elements of that
/// stream's slice (`j` is below this loop's count, the slice's length). It cuts them from
/// that slice (`whole_of`), a cut LLVM proves in range, where cutting the buffer again
/// tests the range once per `j` (a packed triangle's `xc[..j]`, GMM). The start must mean
/// the same inside the loop: nothing in the body binds or assigns a name it reads.
fn prefixes(var: &Ident, streams: &[Stream], body: &mut [St]) {
    let inside = bound_in(var, body);
    for s in streams.iter().filter(|s| s.width.is_none()) {
        if writes(body, &s.base) || idents(&s.start).iter().any(|i| inside.contains(i)) {
            continue;
        }
        let whole = Base::Row(whole_of(&s.elem));
        for_each_stream(body, &mut |n, st| {
            if st.width.is_none()
                && matches!(n, Ex::Var(v) if v == var)
                && st.base == s.base
                && same(&st.start, &s.start)
            {
                st.base = whole.clone();
                st.start = Ex::Usize(0);
            }
        });
    }
}

/// `c` when `start` is `l * w`, `c + l * w` or `l * w + c` with `c` free of `l`.
fn row_offset(start: &Ex, l: &Ident, w: &Ex) -> Option<Ex> {
    let row = wmul(Ex::Var(l.clone()), w.clone());
    let free = |e: &Ex| !idents(e).contains(l);
    if same(start, &row) {
        return Some(Ex::Usize(0));
    }
    match start {
        Ex::Wrap(Wrap::Add, a, b) if same(a, &row) && free(b) => Some((**b).clone()),
        Ex::Wrap(Wrap::Add, a, b) if same(b, &row) && free(a) => Some((**a).clone()),
        // `(l + k) * w` for a constant k: row l from row k.
        Ex::Wrap(Wrap::Mul, lk, w2) if same(w2, w) => match &**lk {
            Ex::Wrap(Wrap::Add, x, k) if same(x, &Ex::Var(l.clone())) => match **k {
                Ex::Usize(k) => Some(wmul(Ex::Usize(k), w.clone())),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// True when `a` and `b` print the same: equal expressions (every identifier is bound once
/// in a scope, so the same text names the same values).
pub fn same(a: &Ex, b: &Ex) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// Every stream of every loop under `sts`, with that loop's count.
fn for_each_stream(sts: &mut [St], f: &mut dyn FnMut(&Ex, &mut Stream)) {
    for s in sts {
        for e in own_exprs(s) {
            blocks_in(e, &mut |b| for_each_stream(b, f));
        }
        match s {
            St::For {
                n, streams, body, ..
            }
            | St::Fill {
                n, streams, body, ..
            } => {
                for st in streams.iter_mut() {
                    f(n, st);
                }
                for_each_stream(body, f);
            }
            St::If(_, a, b) => {
                for_each_stream(a, f);
                for_each_stream(b, f);
            }
            St::Block(b) | St::Segment { body: b, .. } => for_each_stream(b, f),
            _ => {}
        }
    }
}

/// True when local `var` is read anywhere under `sts`.
pub fn mentions_var(sts: &[St], var: &Ident) -> bool {
    let mut hit = false;
    walk_sts(sts, &mut |n| {
        if let Node::Ex(Ex::Var(v)) = n {
            hit |= v == var;
        }
    });
    hit
}

impl ToTokens for St {
    fn to_tokens(&self, ts: &mut TokenStream) {
        ts.extend(match self {
            St::Let {
                id,
                mutable,
                usize_ty,
                val,
            } => {
                let m = mutable.then(|| quote!(mut));
                let t = usize_ty.then(|| quote!(: usize));
                quote!(let #m #id #t = #val;)
            }
            St::Assign(id, v) => quote!(#id = #v;),
            St::Store(b, at, v) => quote!(let __v = #v; ::fsmooth::__rt::st(#b, #at, __v);),
            St::StoreRow(b, off, vs) => {
                quote!(let __v = [#(#vs),*]; ::fsmooth::__rt::st_row(#b, #off, __v);)
            }
            St::Slot(v) => quote!(*__slot = #v;),
            St::SlotAdd(v) => quote!(*__slot = *__slot + #v;),
            St::For {
                var,
                n,
                streams,
                body,
            } => for_tokens(var, n, false, streams, body),
            St::Fill {
                base,
                off,
                var,
                n,
                streams,
                body,
            } => {
                let range = match off {
                    Some(lo) => {
                        let hi = wadd(lo.clone(), n.clone());
                        quote!(#lo..#hi)
                    }
                    None => quote!(..#n),
                };
                let lp = for_tokens(var, n, true, streams, body);
                quote! {
                    if let Some(__d) = #base.get_mut(#range) {
                        let __d = __d.iter_mut();
                        #lp
                    }
                }
            }
            St::If(c, a, b) => quote!(if #c { #(#a)* } else { #(#b)* }),
            St::Block(b) => quote!({ #(#b)* }),
            St::Segment {
                id,
                base,
                off,
                width,
                body,
            } => quote!(
                if let ::core::option::Option::Some(#id) = #base.get(#off..(#off).wrapping_add(#width)) {
                    #(#body)*
                }
            ),
            St::Swap(a, b) => quote!(::core::mem::swap(&mut #a, &mut #b);),
            St::CheckRange(lo, hi, len) => {
                quote!(::fsmooth::__rt::check_range(#lo, #hi, #len)?;)
            }
            St::Copy {
                dst,
                dst_off,
                src,
                src_off,
                n,
            } => {
                let d_end = wadd(dst_off.clone(), n.clone());
                let s_end = wadd(src_off.clone(), n.clone());
                quote! {
                    if let (Some(__d), Some(__s)) = (#dst.get_mut(#dst_off..#d_end), #src.get(#src_off..#s_end)) {
                        for (__x, __y) in __d.iter_mut().zip(__s) {
                            *__x = *__y;
                        }
                    }
                }
            }
            St::Alloc { .. } => TokenStream::new(),
            St::CheckLen { arg, base, want } => quote! {
                if #base.len() != #want {
                    return ::core::result::Result::Err(::fsmooth::Error::Shape { arg: #arg, expected: #want, found: #base.len() });
                }
            },
            St::Frame {
                len: Some(len),
                heap: true,
                ..
            } => quote! {
                let _ = region;
                let scratch: &mut [f64] = &mut ::fsmooth::__rt::heap(#len)?;
            },
            St::Heap { id, len } => {
                let b = Base::Heap(*id);
                quote!(let #b: &mut [f64] = &mut ::fsmooth::__rt::heap(#len)?;)
            }
            St::Frame { len, constant, .. } => match (len, constant) {
                // A constant frame is a fixed-size array: LLVM then knows its length, and
                // checks of constant offsets into it fold away.
                (Some(_), Some(n)) => quote! {
                    let scratch: &mut [f64; #n] = match <&mut [f64; #n]>::try_from(region.frame(#n)?) {
                        ::core::result::Result::Ok(s) => s,
                        ::core::result::Result::Err(_) => {
                            return ::core::result::Result::Err(::fsmooth::Error::Scratch { needed: #n, available: 0 });
                        }
                    };
                },
                (Some(len), None) => quote!(let scratch: &mut [f64] = region.frame(#len)?;),
                (None, _) => quote!(let _ = region;),
            },
        })
    }
}

impl ToTokens for Func {
    fn to_tokens(&self, ts: &mut TokenStream) {
        let body = &self.body;
        ts.extend(match &self.result {
            Some(v) => quote!(#(#body)* ::core::result::Result::Ok(#v)),
            None => quote!(#(#body)* ::core::result::Result::Ok(())),
        })
    }
}

/// Visit every expression and statement under `sts`, outermost first.
pub fn walk_sts(sts: &[St], f: &mut dyn FnMut(Node<'_>)) {
    for s in sts {
        walk_st(s, f);
    }
}

/// A node met by [`walk_sts`].
#[derive(Clone, Copy)]
pub enum Node<'a> {
    /// A statement.
    St(&'a St),
    /// An expression.
    Ex(&'a Ex),
    /// A stream of a loop.
    Stream(&'a Stream),
}

/// Visit `s` and everything under it.
pub fn walk_st(s: &St, f: &mut dyn FnMut(Node<'_>)) {
    f(Node::St(s));
    match s {
        St::Let { val, .. } | St::Assign(_, val) | St::Slot(val) | St::SlotAdd(val) => {
            walk_ex(val, f)
        }
        St::Store(_, at, v) => {
            walk_ex(at, f);
            walk_ex(v, f);
        }
        St::StoreRow(_, off, vs) => {
            walk_ex(off, f);
            for v in vs {
                walk_ex(v, f);
            }
        }
        St::For {
            n, streams, body, ..
        }
        | St::Fill {
            n, streams, body, ..
        } => {
            if let St::Fill { off: Some(o), .. } = s {
                walk_ex(o, f);
            }
            walk_ex(n, f);
            for st in streams {
                f(Node::Stream(st));
                walk_ex(&st.start, f);
                if let Some(w) = &st.width {
                    walk_ex(w, f);
                }
            }
            walk_sts(body, f);
        }
        St::If(c, a, b) => {
            walk_ex(c, f);
            walk_sts(a, f);
            walk_sts(b, f);
        }
        St::Block(b) => walk_sts(b, f),
        St::Segment { off, body, .. } => {
            walk_ex(off, f);
            walk_sts(body, f);
        }
        St::CheckRange(a, b, c) => {
            walk_ex(a, f);
            walk_ex(b, f);
            walk_ex(c, f);
        }
        St::Copy {
            dst_off,
            src_off,
            n,
            ..
        } => {
            walk_ex(dst_off, f);
            walk_ex(src_off, f);
            walk_ex(n, f);
        }
        St::Alloc { off, len } => {
            walk_ex(off, f);
            walk_ex(len, f);
        }
        St::CheckLen { want, .. } | St::Heap { len: want, .. } => walk_ex(want, f),
        St::Frame { len, .. } => {
            if let Some(l) = len {
                walk_ex(l, f);
            }
        }
        St::Swap(..) => {}
    }
}

/// Visit `e` and everything under it.
pub fn walk_ex(e: &Ex, f: &mut dyn FnMut(Node<'_>)) {
    f(Node::Ex(e));
    match e {
        Ex::Bin(_, a, b) | Ex::Checked(_, a, b, _) | Ex::Wrap(_, a, b) | Ex::Check(a, b) => {
            walk_ex(a, f);
            walk_ex(b, f);
        }
        Ex::Neg(a)
        | Ex::Not(a)
        | Ex::ToF64(a)
        | Ex::ToUsize(a)
        | Ex::Ld(_, a)
        | Ex::LdRow(_, a, ..) => walk_ex(a, f),
        Ex::Math(_, xs) | Ex::Entry(_, xs) => xs.iter().for_each(|x| walk_ex(x, f)),
        Ex::Block(st, v) => {
            walk_sts(st, f);
            walk_ex(v, f);
        }
        Ex::If(c, a, b) => {
            walk_ex(c, f);
            walk_ex(a, f);
            walk_ex(b, f);
        }
        _ => {}
    }
}

/// True when node `n` reads or writes buffer `b`.
fn node_uses(n: Node<'_>, b: &Base) -> bool {
    match n {
        Node::Ex(Ex::Ld(x, _) | Ex::LdRow(x, ..) | Ex::Len(x))
        | Node::Stream(Stream { base: x, .. }) => x == b,
        Node::St(
            St::Store(x, ..)
            | St::StoreRow(x, ..)
            | St::Segment { base: x, .. }
            | St::Fill { base: x, .. }
            | St::CheckLen { base: x, .. },
        ) => x == b,
        Node::St(St::Copy { dst, src, .. }) => dst == b || src == b,
        _ => false,
    }
}

/// True when node `n` writes buffer `b`.
fn node_writes(n: Node<'_>, b: &Base) -> bool {
    matches!(n, Node::St(St::Store(x, ..) | St::StoreRow(x, ..) | St::Fill { base: x, .. } | St::Copy { dst: x, .. }) if x == b)
}

/// True when anything under `sts` reads or writes buffer `b`.
pub fn uses(sts: &[St], b: &Base) -> bool {
    let mut hit = false;
    walk_sts(sts, &mut |n| hit |= node_uses(n, b));
    hit
}

/// True when anything in `e` reads or writes buffer `b`.
pub fn uses_ex(e: &Ex, b: &Base) -> bool {
    let mut hit = false;
    walk_ex(e, &mut |n| hit |= node_uses(n, b));
    hit
}

/// True when anything under `sts` writes buffer `b`.
pub fn writes(sts: &[St], b: &Base) -> bool {
    let mut hit = false;
    walk_sts(sts, &mut |n| hit |= node_writes(n, b));
    hit
}

/// True when anything in `e` (a block's statements) writes buffer `b`.
pub fn writes_ex(e: &Ex, b: &Base) -> bool {
    let mut hit = false;
    walk_ex(e, &mut |n| hit |= node_writes(n, b));
    hit
}

/// True when node `n` is plain: it cannot fail and writes nothing but locals.
fn node_plain(n: Node<'_>) -> bool {
    match n {
        Node::Ex(e) => !matches!(
            e,
            Ex::Checked(..) | Ex::Check(..) | Ex::Entry(..) | Ex::Internal(_)
        ),
        Node::St(s) => matches!(
            s,
            St::Let { .. }
                | St::Assign(..)
                | St::For { .. }
                | St::If(..)
                | St::Block(_)
                | St::Segment { .. }
        ),
        Node::Stream(_) => true,
    }
}

/// True when everything under `sts` is plain: arithmetic on locals and loads, in local
/// loops, with no check that can fail and no write to a buffer (code that may be reordered).
pub fn plain(sts: &[St]) -> bool {
    let mut ok = true;
    walk_sts(sts, &mut |n| ok &= node_plain(n));
    ok
}

/// [`plain`] for an expression.
pub fn plain_ex(e: &Ex) -> bool {
    let mut ok = true;
    walk_ex(e, &mut |n| ok &= node_plain(n));
    ok
}

/// `at` as `x + var` with `x` free of `var`: `Some(Some(x))`, or `Some(None)` for `var`
/// alone; `None` when `at` moves by other than one slot per step of `var` (`var * m + l`).
pub fn unit_offset(at: &Ex, var: &Ident) -> Option<Option<Ex>> {
    let free = |x: &Ex| !idents(x).contains(var);
    match at {
        Ex::Var(v) if v == var => Some(None),
        Ex::Wrap(Wrap::Add, a, b) => {
            let side = |u: &Ex, x: &Ex| {
                if !free(x) {
                    return None;
                }
                Some(Some(match unit_offset(u, var)? {
                    Some(o) => wadd(o, x.clone()),
                    None => x.clone(),
                }))
            };
            side(a, b).or_else(|| side(b, a))
        }
        _ => None,
    }
}

/// True when `e` loads at an index that moves by other than one slot per step of `var`
/// (`w[var * m + l]`): a loop over `var` around `e` would read down a column.
pub fn strided_in(e: &Ex, var: &Ident) -> bool {
    let mut hit = false;
    walk_ex(e, &mut |n| {
        if let Node::Ex(Ex::Ld(_, at) | Ex::LdRow(_, at, ..)) = n {
            hit |= idents(at).contains(var) && unit_offset(at, var).is_none();
        }
    });
    hit
}

/// Every identifier `e` names (locals, size names, parameters, stream elements).
pub fn idents(e: &Ex) -> Vec<Ident> {
    let mut out = Vec::new();
    walk_ex(e, &mut |n| match n {
        Node::Ex(Ex::Var(id) | Ex::Elem(id)) => out.push(id.clone()),
        Node::Ex(
            Ex::Ld(Base::Param(id), _) | Ex::LdRow(Base::Param(id), ..) | Ex::Len(Base::Param(id)),
        ) => out.push(id.clone()),
        _ => {}
    });
    out
}

/// Rewrite every expression under `sts`, outermost first: `f` replaces a node and returns
/// true, or returns false to look inside it.
pub fn rewrite_sts(sts: &mut [St], f: &mut dyn FnMut(&mut Ex) -> bool) {
    for s in sts {
        rewrite_st(s, f);
    }
}

fn rewrite_st(s: &mut St, f: &mut dyn FnMut(&mut Ex) -> bool) {
    for e in own_exprs(s) {
        rewrite_ex(e, f);
    }
    match s {
        St::For { streams, body, .. } | St::Fill { streams, body, .. } => {
            streams
                .iter_mut()
                .for_each(|st| rewrite_ex(&mut st.start, f));
            rewrite_sts(body, f);
        }
        St::If(_, a, b) => {
            rewrite_sts(a, f);
            rewrite_sts(b, f);
        }
        St::Block(b) | St::Segment { body: b, .. } => rewrite_sts(b, f),
        _ => {}
    }
}

/// [`rewrite_sts`] for one expression.
pub fn rewrite_ex(e: &mut Ex, f: &mut dyn FnMut(&mut Ex) -> bool) {
    if f(e) {
        return;
    }
    match e {
        Ex::Bin(_, a, b) | Ex::Checked(_, a, b, _) | Ex::Wrap(_, a, b) | Ex::Check(a, b) => {
            rewrite_ex(a, f);
            rewrite_ex(b, f);
        }
        Ex::Neg(a)
        | Ex::Not(a)
        | Ex::ToF64(a)
        | Ex::ToUsize(a)
        | Ex::Ld(_, a)
        | Ex::LdRow(_, a, ..) => rewrite_ex(a, f),
        Ex::Math(_, xs) | Ex::Entry(_, xs) => xs.iter_mut().for_each(|x| rewrite_ex(x, f)),
        Ex::Block(st, v) => {
            rewrite_sts(st, f);
            rewrite_ex(v, f);
        }
        Ex::If(c, a, b) => {
            rewrite_ex(c, f);
            rewrite_ex(a, f);
            rewrite_ex(b, f);
        }
        _ => {}
    }
}

/// Replace every `Ex::Elem(elem)` under `sts` by `with`.
pub fn replace_elem(sts: &mut [St], elem: &Ident, with: &Ex) {
    rewrite_sts(sts, &mut |e| elem_to(e, elem, with));
}

fn elem_to(e: &mut Ex, elem: &Ident, with: &Ex) -> bool {
    let hit = matches!(e, Ex::Elem(x) if x == elem);
    if hit {
        *e = with.clone();
    }
    hit
}

/// Replace every `Ex::Elem(elem)` under `e` by `with`.
pub fn replace_ex(e: &mut Ex, elem: &Ident, with: &Ex) {
    rewrite_ex(e, &mut |x| elem_to(x, elem, with));
}

/// `a + b`, wrapping (an added literal 0 is left out).
pub fn wadd(a: Ex, b: Ex) -> Ex {
    match (a, b) {
        (Ex::Usize(0), x) | (x, Ex::Usize(0)) => x,
        (Ex::Usize(a), Ex::Usize(b)) if fits(a.checked_add(b)) => Ex::Usize(a + b),
        (a, b) => Ex::Wrap(Wrap::Add, Box::new(a), Box::new(b)),
    }
}

/// `a * b`, wrapping (folded when both are constants: a written-out loop's row offsets).
pub fn wmul(a: Ex, b: Ex) -> Ex {
    match (a, b) {
        (Ex::Usize(1), x) | (x, Ex::Usize(1)) => x,
        (Ex::Usize(a), Ex::Usize(b)) if fits(a.checked_mul(b)) => Ex::Usize(a * b),
        (a, b) => Ex::Wrap(Wrap::Mul, Box::new(a), Box::new(b)),
    }
}

/// A folded constant is the same on every target: it does not wrap on the host, and it
/// fits a 32-bit `usize` (the firmware targets).
fn fits(v: Option<usize>) -> bool {
    v.is_some_and(|v| u32::try_from(v).is_ok())
}

/// `off + k` (`k` alone when there is no offset).
pub fn plus(off: &Option<Ex>, k: Ex) -> Ex {
    match off {
        Some(o) => wadd(o.clone(), k),
        None => k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> Ident {
        Ident::new(s, proc_macro2::Span::call_site())
    }

    #[test]
    fn unit_offsets_and_strides() {
        let (j, x, m) = (Ex::Var(id("j")), Ex::Var(id("x")), Ex::Var(id("m")));
        let w = Base::Param(id("w"));
        // `j` alone, `x + j`, `j + x`: one slot per step of `j`.
        assert!(matches!(unit_offset(&j, &id("j")), Some(None)));
        let xj = wadd(x.clone(), j.clone());
        assert!(same(&unit_offset(&xj, &id("j")).unwrap().unwrap(), &x));
        let jx = wadd(j.clone(), x.clone());
        assert!(same(&unit_offset(&jx, &id("j")).unwrap().unwrap(), &x));
        // `j * m + x` moves by m: a column.
        let col = wadd(wmul(j.clone(), m), x.clone());
        assert!(unit_offset(&col, &id("j")).is_none());
        assert!(strided_in(&Ex::Ld(w.clone(), Box::new(col)), &id("j")));
        assert!(!strided_in(&Ex::Ld(w.clone(), Box::new(xj)), &id("j")));
        // A load not at `j` is not strided in it.
        assert!(!strided_in(&Ex::Ld(w, Box::new(x)), &id("j")));
    }

    #[test]
    fn plain_code_cannot_fail_or_write() {
        let ld = Ex::Ld(Base::Param(id("w")), Box::new(Ex::Var(id("i"))));
        assert!(plain_ex(&ld));
        let checked = Ex::Checked(
            Checked::Sub,
            Box::new(Ex::Var(id("p"))),
            Box::new(Ex::Usize(1)),
            "p - 1".into(),
        );
        assert!(!plain_ex(&checked));
        let lp = St::For {
            var: id("l"),
            n: Ex::Var(id("n")),
            streams: Vec::new(),
            body: vec![St::Assign(id("acc"), ld.clone())],
        };
        assert!(plain(std::slice::from_ref(&lp)));
        let store = St::Store(Base::Out, Ex::Usize(0), ld);
        assert!(!plain(&[store]));
    }

    /// `for l in 0..n { for j in 0..w { acc += base[l * w + j] } [and a store to base] }`
    fn nest(base: Base, store: bool) -> Vec<St> {
        let (l, w) = (Ex::Var(id("l")), Ex::Var(id("w")));
        let inner = St::For {
            var: id("j"),
            n: w.clone(),
            streams: vec![Stream {
                base: base.clone(),
                start: wmul(l, w),
                elem: id("e"),
                width: None,
            }],
            body: vec![St::Assign(id("acc"), Ex::Elem(id("e")))],
        };
        let mut body = vec![inner];
        if store {
            body.push(St::Store(base, Ex::Usize(0), Ex::F64(1.0)));
        }
        vec![St::For {
            var: id("l"),
            n: Ex::Var(id("n")),
            streams: Vec::new(),
            body,
        }]
    }

    fn row_widths(sts: &[St]) -> Vec<String> {
        let mut out = Vec::new();
        walk_sts(sts, &mut |n| {
            if let Node::Stream(s) = n {
                out.push(match &s.width {
                    Some(w) => format!("{} rows of {}", s.base.name(), w.to_token_stream()),
                    None => format!("{} from {}", s.base.name(), s.start.to_token_stream()),
                });
            }
        });
        out
    }

    #[test]
    fn rows_read_one_per_iteration_become_a_row_stream() {
        let mut sts = nest(Base::Param(id("b")), false);
        row_streams(&mut sts);
        assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
    }

    #[test]
    fn rows_from_an_offset_start_there() {
        let mut sts = nest(Base::Param(id("b")), false);
        for_each_stream(&mut sts, &mut |_, st| {
            st.start = wadd(Ex::Var(id("c")), st.start.clone());
        });
        row_streams(&mut sts);
        assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
        let St::For { streams, .. } = &sts[0] else {
            panic!("{sts:?}")
        };
        assert_eq!(streams[0].start.to_token_stream().to_string(), "c");
    }

    #[test]
    fn rows_from_a_shifted_index_start_at_that_row() {
        // `(l + 1) * w`, as a view of row `l + 1` writes it: the rows from row 1.
        let mut sts = nest(Base::Param(id("b")), false);
        for_each_stream(&mut sts, &mut |_, st| {
            let l1 = Ex::Wrap(
                Wrap::Add,
                Box::new(Ex::Var(id("l"))),
                Box::new(Ex::Usize(1)),
            );
            st.start = Ex::Wrap(Wrap::Mul, Box::new(l1), Box::new(Ex::Var(id("w"))));
        });
        row_streams(&mut sts);
        assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
        let St::For { streams, .. } = &sts[0] else {
            panic!("{sts:?}")
        };
        assert!(same(&streams[0].start, &Ex::Var(id("w"))), "{sts:?}");
    }

    #[test]
    fn constants_fold_only_when_every_target_agrees() {
        assert!(same(&wmul(Ex::Usize(3), Ex::Usize(4)), &Ex::Usize(12)));
        assert!(same(&wadd(Ex::Usize(3), Ex::Usize(4)), &Ex::Usize(7)));
        assert!(same(
            &wmul(Ex::Usize(1), Ex::Var(id("n"))),
            &Ex::Var(id("n"))
        ));
        // 2^20 * 2^20 overflows a 32-bit usize: left for the target to compute (and wrap).
        let big = wmul(Ex::Usize(1 << 20), Ex::Usize(1 << 20));
        assert!(matches!(big, Ex::Wrap(Wrap::Mul, ..)), "{big:?}");
    }

    #[test]
    fn no_row_stream_of_a_width_or_offset_bound_inside_the_loop() {
        for name in ["w", "c"] {
            let mut sts = nest(Base::Param(id("b")), false);
            for_each_stream(&mut sts, &mut |_, st| {
                st.start = wadd(Ex::Var(id("c")), st.start.clone());
            });
            if let St::For { body, .. } = &mut sts[0] {
                body.insert(
                    0,
                    St::Let {
                        id: id(name),
                        mutable: false,
                        usize_ty: true,
                        val: Ex::Usize(2),
                    },
                );
            }
            row_streams(&mut sts);
            assert_eq!(
                row_widths(&sts),
                ["b from (c) . wrapping_add ((l) . wrapping_mul (w))"]
            );
        }
    }

    #[test]
    fn loops_inside_expressions_take_row_streams_too() {
        // A fold's loop nest as a `let`'s value, and as a scalar kernel's result.
        let block = || {
            Ex::Block(
                nest(Base::Param(id("b")), false),
                Box::new(Ex::Var(id("acc"))),
            )
        };
        let mut sts = vec![St::Let {
            id: id("s"),
            mutable: false,
            usize_ty: false,
            val: block(),
        }];
        row_streams(&mut sts);
        assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
        let mut result = Ex::Bin(BinOp::Add, Box::new(Ex::F64(1.0)), Box::new(block()));
        row_streams_ex(&mut result);
        let mut found = Vec::new();
        walk_ex(&result, &mut |n| {
            if let Node::Stream(s) = n {
                found.push(s.base.name());
            }
        });
        assert_eq!(found, ["b", "__rl_0"]);
        // The inner loop in an expression of the outer loop's body (GMM's loop over
        // components, whose body is the value it stores): the inner loop reads the row;
        // a buffer the outer loop writes keeps its offsets.
        let in_let = |base: Base, store: bool| {
            let mut sts = nest(base, store);
            if let St::For { body, .. } = &mut sts[0] {
                let inner = std::mem::take(body);
                body.push(St::Let {
                    id: id("t"),
                    mutable: false,
                    usize_ty: false,
                    val: Ex::Block(inner, Box::new(Ex::F64(0.0))),
                });
            }
            row_streams(&mut sts);
            row_widths(&sts)
        };
        assert_eq!(
            in_let(Base::Param(id("b")), false),
            ["b rows of w", "__rl_0 from 0usize"]
        );
        assert_eq!(
            in_let(Base::Scratch, true),
            ["scratch from (l) . wrapping_mul (w)"]
        );
    }

    /// `for j in 0..n [s] { [let s = 1;] for l in 0..count [t] { acc += t } [b[0] = 1] }`:
    /// the outer stream reads `b` from `s`, the inner one from `inner_start`.
    fn triangle(count: &str, inner_start: &str, rebind: bool, store: bool) -> Vec<St> {
        let stream = |start: &str, elem: &str| Stream {
            base: Base::Param(id("b")),
            start: Ex::Var(id(start)),
            elem: id(elem),
            width: None,
        };
        let inner = St::For {
            var: id("l"),
            n: Ex::Var(id(count)),
            streams: vec![stream(inner_start, "t")],
            body: vec![St::Assign(id("acc"), Ex::Elem(id("t")))],
        };
        let mut body = vec![inner];
        if rebind {
            body.insert(0, St::Assign(id("s"), Ex::Usize(1)));
        }
        if store {
            body.push(St::Store(Base::Param(id("b")), Ex::Usize(0), Ex::F64(1.0)));
        }
        vec![St::For {
            var: id("j"),
            n: Ex::Var(id("n")),
            streams: vec![stream("s", "e")],
            body,
        }]
    }

    #[test]
    fn folds_as_long_as_the_enclosing_index_read_a_prefix_of_its_slice() {
        let widths = |mut sts: Vec<St>| {
            row_streams(&mut sts);
            row_widths(&sts)
        };
        assert_eq!(
            widths(triangle("j", "s", false, false)),
            ["b from s", "e_all from 0usize"]
        );
        // Not a prefix: another count, another start, a start the body reassigns, a
        // buffer the body writes.
        for (count, start, rebind, store) in [
            ("n", "s", false, false),
            ("j", "c", false, false),
            ("j", "s", true, false),
            ("j", "s", false, true),
        ] {
            let want = ["b from s".to_string(), format!("b from {start}")];
            assert_eq!(widths(triangle(count, start, rebind, store)), want);
        }
    }

    #[test]
    fn no_row_stream_of_an_offset_the_loop_assigns() {
        // `c + l * w` with `c = 2;` inside the loop: the offset before the loop is not the
        // one the inner loop reads.
        let mut sts = nest(Base::Param(id("b")), false);
        for_each_stream(&mut sts, &mut |_, st| {
            st.start = wadd(Ex::Var(id("c")), st.start.clone());
        });
        if let St::For { body, .. } = &mut sts[0] {
            body.insert(0, St::Assign(id("c"), Ex::Usize(2)));
        }
        row_streams(&mut sts);
        assert_eq!(
            row_widths(&sts),
            ["b from (c) . wrapping_add ((l) . wrapping_mul (w))"]
        );
    }

    #[test]
    fn no_row_stream_over_a_buffer_the_loop_writes() {
        let mut sts = nest(Base::Scratch, true);
        row_streams(&mut sts);
        assert_eq!(row_widths(&sts), ["scratch from (l) . wrapping_mul (w)"]);
    }
}
