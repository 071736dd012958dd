//! `lir`: the loop IR that the DPS translation ([`crate::lower::dps`]) produces and that
//! [`crate::emit`] prints as Rust and the executor (`fsmooth_eval::exec`) runs.
//!
//! It is the storage-planned program: every array lives in a parameter, in `out` or at a
//! static offset of the scratch frame, every allocation is an explicit [`St::Alloc`] (live
//! until the end of the enclosing statement list), and every access is a load or a store at
//! an offset. Printing is one-to-one: each node becomes the Rust it names, so what the
//! executor checks is what rustc compiles.
//!
//! The types are here, with the constructors of offset arithmetic ([`wadd`], [`wmul`],
//! [`plus`]); `print` prints them as Rust, `visit` walks, queries and rewrites them
//! ([`walk_sts`], [`rewrite_sts`], [`uses`], ...), and `streams` is the pass over translated
//! loops that reads rows and prefixes of slices as streams ([`row_streams`]). None of it
//! knows the translation ([`crate::lower`]).

mod hoist;
mod in_place;
mod pieces;
#[cfg(test)]
mod pieces_tests;
mod print;
#[cfg(test)]
mod print_tests;
mod rebase;
mod row_form;
mod rows;
#[cfg(test)]
mod rows_tests;
mod streams;
#[cfg(test)]
mod tests;
mod visit;

pub use hoist::invariant_loads;
pub use in_place::in_place_streams;
pub use pieces::frame_pieces;
pub use rebase::{rebase, rename};
pub use rows::shared_rows;
pub use streams::{row_streams, row_streams_ex, whole_of, whole_read};
pub use visit::{
    Node, drop_unread_lets, drop_unread_lets_ex, idents, mentions_var, plain, plain_ex,
    read_every_step, read_every_step_ex, replace_elem, replace_ex, rewrite_ex, rewrite_sts, same,
    strided_in, unit_offset, uses, uses_ex, walk_ex, walk_st, walk_sts, writes, writes_ex,
};

use crate::front::ast::{BinOp, MathFn};
use crate::front::size::Size;
pub use crate::middle::ir::Scalar;
use proc_macro2::Ident;

/// Steps per chunk of a parallel sum ([`St::ParSum`]). Fixed: the chunks, and with them the
/// order of the additions, must not depend on the machine or the thread count.
pub const PAR_CHUNK: usize = 1024;

/// Sums of fewer steps run in order on the calling thread ([`St::ParSum`]): four chunks are
/// the least worth starting tasks and copying frames for.
pub const PAR_MIN_STEPS: usize = 4 * PAR_CHUNK;

/// The lanes of a reassociated float sum ([`St::Lanes`]).
pub const LANES: usize = 8;

/// Where an array lives.
#[derive(Clone, Debug, PartialEq)]
pub enum Base {
    /// A kernel parameter (read only).
    Param(Ident),
    /// The kernel's `out`.
    Out,
    /// The kernel's `outK`: the destination of array result K of a kernel with several
    /// results (numbered by tuple position).
    OutPart(usize),
    /// The part of the scratch frame holding elements of this type (`scratch` for `f64`,
    /// `scratch_f32`, `scratch_usize`): the frame is planned per element type.
    Scratch(Scalar),
    /// Heap buffer `k` (only under `#![fsmooth(storage = "heap")]`), made by [`St::Heap`].
    Heap(usize),
    /// Local array `k`, on the stack: a small state of constant length that LLVM can keep
    /// in registers, made by [`St::Local`].
    Local(usize),
    /// The current row of an enclosing loop's row stream (read only; see [`Stream::width`]),
    /// or the whole slice of an enclosing loop's stream, which an inner loop reads a prefix
    /// of ([`whole_of`]).
    Row(Ident),
    /// A piece of the frame cut out around a loop ([`St::Pieces`]), or a row of a buffer that
    /// a loop writes ([`St::Rows`]): a `&mut` slice of its own, addressed from its first
    /// slot.
    Piece(Ident),
}

impl Base {
    /// The buffer's Rust name.
    pub fn name(&self) -> String {
        match self {
            Base::Param(id) => id.to_string(),
            Base::Out => "out".into(),
            Base::OutPart(k) => format!("out{k}"),
            Base::Scratch(Scalar::F64) => "scratch".into(),
            Base::Scratch(s) => format!("scratch_{s}"),
            Base::Heap(k) => format!("heap_{k}"),
            Base::Local(k) => format!("local_{k}"),
            Base::Row(id) | Base::Piece(id) => id.to_string(),
        }
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
    /// `a / b`, failing on a zero divisor or a remainder (v2's rule for sizes; unused since
    /// sizes divide as Rust does, [`Checked::Div`]).
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
/// (see [`wadd`]), and wraps rather than carry a panic path.
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
    /// `slots(f64s, f32s, usizes)`: the 8-byte slots of a frame of those element counts.
    Slots,
}

/// A scalar (`f64`, `f32`, `usize` or `bool`) expression.
#[derive(Clone, Debug)]
pub enum Ex {
    /// An `f64` literal.
    F64(f64),
    /// An `f32` literal.
    F32(f32),
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
    /// `x as f32`.
    ToF32(Box<Ex>),
    /// A `usize` proven below 2^63 (bounded by an array's length) as a float of the given
    /// type, `(x as i64) as f64`: exact, and one conversion instruction where `x as f64` of
    /// a `usize` takes several (x86-64 converts only signed integers).
    IndexTo(Scalar, Box<Ex>),
    /// `x as usize` (saturating, as Rust's float-to-int cast).
    ToUsize(Box<Ex>),
    /// A math function of the runtime.
    Math(MathFn, Vec<Ex>),
    /// A runtime entry helper.
    Entry(Entry, Vec<Ex>),
    /// `x * a + b` as `__rt::fused(x, a, b)`: one fused multiply-add where the target has
    /// FMA, a multiply and an add otherwise. Only under `reassociate = true`, which allows
    /// the change of rounding: in a sum in lanes ([`St::Lanes`]), and in a matrix product's
    /// tiles of several rows.
    Fused(Vec<Ex>),
    /// `cfg!(target_feature = "..")`: true where the code is compiled for a target with the
    /// feature. It chooses between two codes of the same result (bit for bit), each the
    /// faster on its kind of machine: matrix products' tiles of several rows where the
    /// vector registers are 256 bits wide or more ([`crate::lower`]'s blocking; fused, and
    /// then not the same bits, only under `reassociate = true`). The executor takes it as
    /// true, so that the differential runs check the code no default build compiles.
    Target(&'static str),
    /// A size evaluated with saturating arithmetic (as in the `scratch_len` `const fn`).
    Const(Size),
    /// `ld(base, at)`: a load the compiler proved in bounds.
    Ld(Base, Box<Ex>),
    /// `ldr::<width>(base, off, k)`: element `k < width` of the row `base[off..off + width]`,
    /// which the compiler proved in bounds. Loads of one row share one range check, which
    /// LLVM then drops for all but the first (a written-out loop's loads of a row of a
    /// parameter, `cams[i % n][0]` to `cams[i % n][10]`). The last field is the buffer's
    /// element type (`ldr_of::<width, _>` for the types other than `f64`).
    LdRow(Base, Box<Ex>, usize, usize, Scalar),
    /// `check(i, len)?`: `i`, or `Error::Index` unless `i < len`.
    Check(Box<Ex>, Box<Ex>),
    /// The current element of a stream (see [`Stream`]).
    Elem(Ident),
    /// Statements, then a value.
    Block(Vec<St>, Box<Ex>),
    /// `if c { a } else { b }`.
    If(Box<Ex>, Box<Ex>, Box<Ex>),
    /// `(a, b, ..)`: only as the result of a kernel returning several scalars.
    Tuple(Vec<Ex>),
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
    /// `*elem = val;`: a store to the element of an enclosing loop's stream, which the loop
    /// then takes as `&mut` ([`puts`]): a buffer updated in place, each step at its own
    /// element.
    Put(Ident, Ex),
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
    /// `while c { body }` (an `iterate`, LANGUAGE.md section 14): `c` is evaluated before
    /// every step, and the loop may run any number of times.
    While(Ex, Vec<St>),
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
    /// The frame's part of type `elem` cut into pieces for `body` ([`frame_pieces`]): piece
    /// `k` is the slots from its start up to the next piece's start (the last: to the end of
    /// the part), each a `&mut` slice of its own ([`Base::Piece`]), so that the body can
    /// read one piece as a stream while it writes another. The starts are ascending and in
    /// the frame (the frame is a stack: they are the first slots of allocations live there,
    /// in the order they were made); the body reaches the part only through the pieces.
    /// Printed `if let Some([p0, p1, ..]) = __rt::pieces(scratch, [s0, s1, ..]) { body }`.
    Pieces {
        /// The part cut.
        elem: Scalar,
        /// Each piece's name and first slot, in order.
        pieces: Vec<(Ident, Ex)>,
        /// The code using them.
        body: Vec<St>,
    },
    /// Rows of one length cut at one slot of several buffers for `body` ([`shared_rows`]):
    /// row `k` is `base[o..o + len]` with `o` the least of `off` and the buffer's length, and
    /// `len` the least over the buffers of `base.len() - off` (0 when negative). The body
    /// indexes the rows where it indexed the buffers at `off` plus an index: the rows'
    /// lengths are one value, so one range check serves every row at an index. Printed
    /// `let __len = __rt::common_len(off, [..]); if let (Some(r0), ..) = (__rt::row_at(b0,
    /// off, __len), ..) { body }` (always `Some`).
    Rows {
        /// The first slot of every row in its buffer.
        off: Ex,
        /// The rows.
        rows: Vec<SharedRow>,
        /// The code using them.
        body: Vec<St>,
    },
    /// A sum over `0..n` on rayon's pool (the `parallel` feature; `__rt::par_sum`): the
    /// steps in chunks of `__rt::CHUNK`, each chunk's `body` (which adds step `var`'s term to
    /// `acc`) run in order from `-0.0` in a copy of the frame, the chunks' sums added in a
    /// fixed tree, then added to `acc` (which holds the sum's first value). So the result
    /// depends on `n` alone, not on the thread count. Below `__rt::PAR_MIN_STEPS` steps, the
    /// loop as written: `for var in 0..n { body }`.
    ParSum {
        /// The sum's local (mutable, holding its first value).
        acc: Ident,
        /// `acc + total` (else `total + acc`), as the sum adds.
        acc_left: bool,
        /// The sum's type (`F64` or `F32`).
        elem: Scalar,
        /// The step index.
        var: Ident,
        /// The step count.
        n: Ex,
        /// One step: adds its term to `acc`. Reads the frame, writes only its own slots.
        body: Vec<St>,
        /// The body uses the frame (`scratch`), which each chunk then gets a copy of.
        frame: bool,
    },
    /// A float sum adding its terms in [`LANES`] lanes (`#![fsmooth(reassociate = true)]`):
    /// `for var in 0..n { body }`, with the streams zipped in, where `body` adds step
    /// `var`'s term to `acc` and reads `acc` nowhere else. Lane 0 is `acc` (holding the sum's
    /// first value), the other lanes start from `-0.0`. Of the first `n - n % LANES` steps,
    /// step `k` adds to lane `k % LANES`; the last `n % LANES` add to lane 0, in order; then
    /// `acc = (lane0 + lane1) + (lane2 + lane3)`. Four chains of additions where the loop in
    /// order has one: the processor overlaps them, and LLVM may pack them into vector
    /// registers. Printed as a loop over chunks of `LANES` steps (the streams'
    /// `chunks_exact`), the body written out once per lane, then the remaining steps; below
    /// `LANES` steps, as the loop in order (the same result: lanes 1.. hold `-0.0`, and
    /// `x + -0.0` is `x`).
    Lanes {
        /// The sum's local (mutable, holding its first value): lane 0.
        acc: Ident,
        /// The sum's type (`F64` or `F32`).
        elem: Scalar,
        /// The step index.
        var: Ident,
        /// The step count.
        n: Ex,
        /// Element streams read along the loop (no row streams: [`Stream::width`] is
        /// `None`).
        streams: Vec<Stream>,
        /// One step: adds its term to `acc`. Holds no loop.
        body: Vec<St>,
    },
    /// The steps `0..n` of a `build` at the kernel's top level, each writing its own row of
    /// `width` slots of `base` from `off` (`None`: 0), on rayon's pool (the `parallel`
    /// feature; `__rt::par_rows`): chunks of `PAR_CHUNK` steps, each given its part of the
    /// rows and a copy of the frame. The body addresses `base` as the whole buffer; in a chunk
    /// it is printed rebased to the chunk's part ([`rebase`]). Below `PAR_MIN_STEPS` steps, or
    /// with a frame of more than `PAR_CHUNK` slots, the loop as written: `for var in 0..n {
    /// body }`.
    ParRows {
        /// The step index.
        var: Ident,
        /// The step count.
        n: Ex,
        /// The buffer the rows are in (an output).
        base: Base,
        /// Its element type.
        elem: Scalar,
        /// The first row's first slot.
        off: Option<Ex>,
        /// Slots per row.
        width: Ex,
        /// One step: writes its row of `base`, and the frame's slots it owns.
        body: Vec<St>,
        /// The body uses the frame (`scratch`), which each chunk then gets a copy of.
        frame: bool,
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
    /// `base[dst_off + j] += base[src_off + j]` for `j` in `0..n`, in order, both ranges
    /// proven in bounds: a row of an array state adding a term held elsewhere in the same
    /// buffer (a reverse sweep's adjoint of a row, added to the gradient's row in the frame).
    /// Printed as `__rt::add_within`, which adds the two slices when they do not overlap (so
    /// the loop vectorises) and otherwise element by element, as written.
    AddWithin {
        /// The buffer.
        base: Base,
        /// The first slot added to.
        dst_off: Ex,
        /// The first slot added.
        src_off: Ex,
        /// Slot count.
        n: Ex,
    },
    /// The slots `off..off + n` of output `base` hold a state of a fold iterating in the
    /// output, which the next step replaces whole: a slot of it that step does not read is
    /// overwritten unread, as intended (the executor's check of overlapping writes allows it
    /// there). Prints nothing.
    Restate {
        /// The output.
        base: Base,
        /// First slot.
        off: Ex,
        /// Slot count.
        n: Ex,
    },
    /// `len` elements of the frame's part of type `elem` ([`Base::Scratch`]`(elem)`) at
    /// `off` are taken until the end of the enclosing statement list. Prints nothing: the
    /// offsets are static.
    Alloc {
        /// The element type: which part of the frame.
        elem: Scalar,
        /// First element.
        off: Ex,
        /// Element count.
        len: Ex,
    },
    /// A zeroed heap buffer [`Base::Heap`]`(id)` of `len` elements of type `elem`, freed at
    /// the end of the enclosing statement list (`storage = "heap"`).
    Heap {
        /// The buffer's number.
        id: usize,
        /// Element count.
        len: Ex,
        /// The element type.
        elem: Scalar,
    },
    /// A zeroed local array [`Base::Local`]`(id)` of `len` elements of type `elem`, on the
    /// stack (a fold's small state: no frame slots, and LLVM may keep it in registers).
    Local {
        /// The array's number.
        id: usize,
        /// Element count, a constant.
        len: usize,
        /// The element type.
        elem: Scalar,
    },
    /// Return `Error::Shape` naming `arg` unless `base.len() == want`. `elem` is the
    /// buffer's element type as the signature has it (`&[f32]`, `&mut [usize]`, ..).
    CheckLen {
        /// The argument's name in the error.
        arg: String,
        /// Its buffer.
        base: Base,
        /// The expected length.
        want: Ex,
        /// The element type.
        elem: Scalar,
    },
    /// `check_column(base, at, stride, len)?`: every element `base[at + k * stride]` (a
    /// column of an index array parameter, or all of it) is below `len`, else
    /// `Error::Index`; made at entry, after the length checks, for the indexes that the
    /// loops then use unchecked (LANGUAGE.md section 10).
    CheckColumn {
        /// The index array (a `usize` parameter).
        base: Base,
        /// The first element checked.
        at: Ex,
        /// The distance between two checked elements.
        stride: Ex,
        /// The length of the array the elements index.
        len: Ex,
    },
    /// Take the frame from the region: `len` 8-byte slots (a fixed-size array when
    /// `constant`), or no frame.
    Frame {
        /// Its length in slots; `None` when the kernel needs no scratch.
        len: Option<Ex>,
        /// The length when it is a constant.
        constant: Option<usize>,
        /// From the heap rather than the region (`storage = "heap_frame"`).
        heap: bool,
        /// The element counts of its `f64`, `f32` and `usize` parts ([`FRAME_PARTS`]), when
        /// it has parts other than `f64`: the frame is then cut once into `scratch`,
        /// `scratch_f32` and `scratch_usize`, those that the code names (`Some`; a part
        /// that is `None` has no element and no name). `None`: it is all `scratch`.
        parts: Option<Box<[Option<Ex>; 3]>>,
    },
}

/// A row of [`St::Rows`].
#[derive(Clone, Debug)]
pub struct SharedRow {
    /// Its name: read as [`Base::Row`], or written as [`Base::Piece`] when `mutable`.
    pub id: Ident,
    /// The buffer it is cut from.
    pub base: Base,
    /// The body stores to it (`&mut [T]`, else `&[T]`).
    pub mutable: bool,
}

impl SharedRow {
    /// How the body names the row.
    pub fn named(&self) -> Base {
        if self.mutable {
            Base::Piece(self.id.clone())
        } else {
            Base::Row(self.id.clone())
        }
    }
}

/// A kernel's body as planned: entry statements, then the body, then the result.
#[derive(Clone, Debug)]
pub struct Func {
    /// Everything up to and including [`St::Frame`], then the body.
    pub body: Vec<St>,
    /// The returned scalar; `None` for array kernels (which return `Ok(())`).
    pub result: Option<Ex>,
}

/// The element types of the frame's parts, in the order they are laid out: `[f64 slots |
/// f32 slots | usize slots]`.
pub const FRAME_PARTS: [Scalar; 3] = [Scalar::F64, Scalar::F32, Scalar::Usize];

/// A zero of scalar type `t` (`false` for `bool`): a placeholder for a local assigned later.
pub fn zero(t: Scalar) -> Ex {
    match t {
        Scalar::F64 => Ex::F64(0.0),
        Scalar::F32 => Ex::F32(0.0),
        Scalar::Usize => Ex::Usize(0),
        Scalar::Bool => Ex::Bool(false),
    }
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

/// True when `body` stores into `row`, the row of a row stream of the loop it is the body
/// of ([`in_place_streams`]'s rows of an output): the stream is then of `&mut` rows.
pub fn row_puts(body: &[St], row: &Ident) -> bool {
    let mut found = false;
    walk_sts(body, &mut |n| {
        found |= matches!(n, Node::St(St::Store(Base::Row(r), ..)) if r == row);
    });
    found
}

/// True when `body` stores to `elem`, the element of a stream of the loop it is the body of
/// ([`St::Put`]): the stream is then of `&mut` elements.
pub fn puts(body: &[St], elem: &Ident) -> bool {
    let mut found = false;
    walk_sts(body, &mut |n| {
        found |= matches!(n, Node::St(St::Put(e, _)) if e == elem);
    });
    found
}
