//! What a run changes: the bindings of names, the buffers (the frame, the outputs, the
//! parameters, heap buffers) with the slots written in each, and the live allocations of the
//! frame; and the checks on every access to them.

use super::resolve::{NameId, OUT_NAME, SCRATCH_NAME};
use super::{Arg, STEP_BUDGET};
use fsmooth_core::lir::{FRAME_PARTS, Scalar};

/// The buffer index of the frame's part of element type `elem` (`f64`, `f32`, `usize`:
/// buffers 0, 1 and 2); the outputs, the parameters and heap buffers follow.
pub(super) fn scratch_buffer(elem: Scalar) -> usize {
    FRAME_PARTS.iter().position(|t| *t == elem).unwrap_or(0)
}

/// How many buffers the frame's parts take.
pub(super) const SCRATCH_BUFFERS: usize = 3;

/// A run-time value of the loop IR: a scalar, or a reference to (part of) a buffer.
#[derive(Clone, Copy, Debug)]
pub(super) enum Value {
    F64(f64),
    F32(f32),
    Usize(usize),
    Bool(bool),
    /// A buffer (by index).
    Buffer(usize),
    /// A stream element: `&buffer[index]`.
    Elem(usize, usize),
    /// A row stream's element: `&buffer[off..off + width]`.
    Row(usize, usize, usize),
    /// A piece of the frame ([`fsmooth_core::lir::St::Pieces`]): `&mut buffer[off..off +
    /// len]`.
    Piece(usize, usize, usize),
}

impl Value {
    /// Its type, for messages.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Value::F64(_) => "f64",
            Value::F32(_) => "f32",
            Value::Usize(_) => "usize",
            Value::Bool(_) => "bool",
            Value::Buffer(_) => "a buffer",
            Value::Elem(..) => "a stream element (&T)",
            Value::Row(..) => "a row (&[T])",
            Value::Piece(..) => "a piece of the frame (&mut [T])",
        }
    }

    /// The scalar type of a scalar value.
    pub(super) fn scalar(self) -> Option<Scalar> {
        Some(match self {
            Value::F64(_) => Scalar::F64,
            Value::F32(_) => Scalar::F32,
            Value::Usize(_) => Scalar::Usize,
            Value::Bool(_) => Scalar::Bool,
            _ => return None,
        })
    }

    pub(super) fn same_type(self, o: Value) -> bool {
        std::mem::discriminant(&self) == std::mem::discriminant(&o)
    }
}

/// A name's value and whether it is `let mut`.
#[derive(Clone, Copy)]
pub(super) struct Binding {
    pub(super) value: Value,
    pub(super) mutable: bool,
}

/// What a buffer is, for its name in messages and the parameters' write check.
#[derive(Debug)]
pub(super) enum BufferKind {
    Param(String),
    /// An output: `out`, or `outK` of a kernel with several results (its name).
    Out(String),
    /// The frame's part of this element type.
    Scratch(Scalar),
    /// A buffer of `storage = "heap"` (its Rust name).
    Heap(String),
}

/// A buffer's slots (of its element type, each kept as its bits: exact for every type),
/// and which of them were written.
/// A buffer's contents at one point ([`Buffer::snapshot`]).
pub(super) struct Snapshot {
    data: Vec<u64>,
    written: Vec<bool>,
}

pub(super) struct Buffer {
    pub(super) kind: BufferKind,
    /// The element type.
    pub(super) elem: Scalar,
    data: Vec<u64>,
    pub(super) written: Vec<bool>,
    /// Whether `written` is kept (outputs, the frame and heap buffers).
    tracked: bool,
    /// For an output, the slots written and not read since: a second write to one is an
    /// overlapping write (each slot of an output is written once, or read before it is
    /// written again, as an accumulation `+=` does).
    unread: Vec<bool>,
    /// For an output, whether its length check has run.
    checked: bool,
}

impl Buffer {
    /// A buffer of `len` never-written slots of type `elem` whose writes are tracked.
    pub(super) fn tracked(kind: BufferKind, elem: Scalar, len: usize) -> Buffer {
        Buffer {
            kind,
            elem,
            data: vec![f64::NAN.to_bits(); len],
            written: vec![false; len],
            tracked: true,
            unread: Vec::new(),
            checked: false,
        }
    }

    /// A parameter's buffer: read-only, untracked.
    fn param(name: &str, elem: Scalar, data: Vec<u64>) -> Buffer {
        Buffer {
            kind: BufferKind::Param(name.to_string()),
            elem,
            written: Vec::new(),
            data,
            tracked: false,
            unread: Vec::new(),
            checked: false,
        }
    }

    /// How many slots.
    pub(super) fn len(&self) -> usize {
        self.data.len()
    }

    /// Its contents, to be put back by [`Buffer::restore`] (a parallel sum's chunks each run
    /// in a copy of the frame).
    pub(super) fn snapshot(&self) -> Snapshot {
        Snapshot {
            data: self.data.clone(),
            written: self.written.clone(),
        }
    }

    /// Put back contents taken by [`Buffer::snapshot`].
    pub(super) fn restore(&mut self, s: &Snapshot) {
        self.data.clone_from(&s.data);
        self.written.clone_from(&s.written);
    }

    /// Slot `i` (in range) as a value of the buffer's type.
    fn value(&self, i: usize) -> Value {
        let bits = self.data[i];
        match self.elem {
            Scalar::F32 => Value::F32(f32::from_bits(bits as u32)),
            Scalar::Usize => Value::Usize(bits as usize),
            Scalar::Bool => Value::Bool(bits != 0),
            Scalar::F64 => Value::F64(f64::from_bits(bits)),
        }
    }

    /// The bits of `v` for a slot, when it is of the buffer's type.
    fn bits(&self, v: Value) -> Option<u64> {
        Some(match (self.elem, v) {
            (Scalar::F64, Value::F64(x)) => x.to_bits(),
            (Scalar::F32, Value::F32(x)) => u64::from(x.to_bits()),
            (Scalar::Usize, Value::Usize(x)) => x as u64,
            _ => return None,
        })
    }

    /// Every slot as f64 (exact for f32, and for usize up to 2^53): an output's values.
    pub(super) fn as_f64s(&self) -> Vec<f64> {
        (0..self.len())
            .map(|i| match self.value(i) {
                Value::F32(x) => f64::from(x),
                Value::Usize(x) => x as f64,
                Value::F64(x) => x,
                _ => f64::NAN,
            })
            .collect()
    }

    /// Every slot as usize (an index array's elements), `None` unless the buffer holds usize.
    pub(super) fn as_usizes(&self) -> Option<Vec<usize>> {
        (self.elem == Scalar::Usize).then(|| self.data.iter().map(|&b| b as usize).collect())
    }

    pub(super) fn name(&self) -> &str {
        match &self.kind {
            BufferKind::Param(n) | BufferKind::Heap(n) | BufferKind::Out(n) => n,
            BufferKind::Scratch(Scalar::F64) => "scratch",
            BufferKind::Scratch(Scalar::F32) => "scratch_f32",
            BufferKind::Scratch(_) => "scratch_usize",
        }
    }

    pub(super) fn is_output(&self) -> bool {
        matches!(self.kind, BufferKind::Out(_))
    }
}

/// Why execution stopped early.
pub(super) enum Stop {
    /// The kernel returned an fsmooth `Error` (its message).
    Error(String),
    /// A compiler bug.
    Fault(String),
}

/// What a step of a run gives: a result, or why the run stops.
pub(super) type Outcome<T> = Result<T, Stop>;

/// Stop on a compiler bug.
pub(super) fn fault<T>(msg: impl Into<String>) -> Outcome<T> {
    Err(Stop::Fault(msg.into()))
}

/// The kernel's error for size arithmetic that fails, as the runtime reports it.
pub(super) fn arithmetic_error(text: &str) -> Stop {
    // `Error::Arithmetic`'s `Display`, with the expression's text.
    Stop::Error(format!(
        "size arithmetic `{text}` underflows, overflows or divides by zero"
    ))
}

/// Stop with an error the runtime returned.
pub(super) fn runtime_error(e: fsmooth_runtime::Error) -> Stop {
    Stop::Error(e.to_string())
}

/// The extent of the scope stacks when a scope began.
#[derive(Clone, Copy)]
pub(super) struct ScopeMark {
    trail: usize,
    live: usize,
    buffers: usize,
}

/// The state of a run.
pub(super) struct Executor<'c> {
    names: &'c [String],
    /// Per name, its bindings, innermost last.
    pub(super) env: Vec<Vec<Binding>>,
    /// Names bound, in order (popped at the end of each statement list).
    trail: Vec<NameId>,
    /// The frame's parts (f64, f32, usize), the outputs, the parameters, then the heap
    /// buffers of the open scopes.
    pub(super) buffers: Vec<Buffer>,
    /// How many outputs the call has.
    outputs: usize,
    /// Live allocations of the frame: the part's buffer and `[off, end)`, in allocation
    /// order.
    pub(super) live: Vec<(usize, usize, usize)>,
    /// The current slot of each enclosing fill: (buffer, index).
    pub(super) slots: Vec<(usize, usize)>,
    /// Loop iterations and copied slots so far, against [`STEP_BUDGET`].
    steps: u64,
    /// Whether the frame statement has run.
    pub(super) frame_ran: bool,
}

impl<'c> Executor<'c> {
    /// A run over the interned `names`, with no output and no frame yet.
    pub(super) fn new(names: &'c [String]) -> Executor<'c> {
        Executor {
            env: vec![Vec::new(); names.len()],
            names,
            trail: Vec::new(),
            buffers: FRAME_PARTS
                .iter()
                .map(|t| Buffer::tracked(BufferKind::Scratch(*t), *t, 0))
                .collect(),
            outputs: 0,
            live: Vec::new(),
            slots: Vec::new(),
            steps: 0,
            frame_ran: false,
        }
    }

    /// Bind output `name` (interned as `id`) to a buffer of `len` never-written slots.
    pub(super) fn bind_output(&mut self, id: NameId, name: &str, len: usize) {
        // Typed by its length check, which the signature's type comes with.
        let mut b = Buffer::tracked(BufferKind::Out(name.to_string()), Scalar::F64, len);
        b.unread = vec![false; len];
        self.buffers.push(b);
        self.outputs += 1;
        self.bind(id, Value::Buffer(self.buffers.len() - 1), false);
    }

    /// Bind parameter `name` (interned as `id`) to its argument; an array becomes a buffer
    /// of its own, read-only and untracked.
    pub(super) fn bind_arg(&mut self, id: NameId, name: &str, arg: &Arg) {
        let value = match arg {
            Arg::F64(x) => Value::F64(*x),
            Arg::F32(x) => Value::F32(*x),
            Arg::Usize(n) => Value::Usize(*n),
            Arg::Bool(b) => Value::Bool(*b),
            Arg::Array(data) => {
                let bits = data.iter().map(|x| x.to_bits()).collect();
                self.push_param(name, Scalar::F64, bits)
            }
            Arg::F32s(data) => {
                let bits = data.iter().map(|x| u64::from(x.to_bits())).collect();
                self.push_param(name, Scalar::F32, bits)
            }
            Arg::Usizes(data) => {
                let bits = data.iter().map(|&x| x as u64).collect();
                self.push_param(name, Scalar::Usize, bits)
            }
        };
        self.bind(id, value, false);
    }
}

impl Executor<'_> {
    fn push_param(&mut self, name: &str, elem: Scalar, data: Vec<u64>) -> Value {
        self.buffers.push(Buffer::param(name, elem, data));
        Value::Buffer(self.buffers.len() - 1)
    }

    pub(super) fn name(&self, id: NameId) -> &str {
        &self.names[id as usize]
    }

    pub(super) fn bind(&mut self, id: NameId, value: Value, mutable: bool) {
        self.env[id as usize].push(Binding { value, mutable });
        self.trail.push(id);
    }

    /// Where a scope begins.
    pub(super) fn mark(&self) -> ScopeMark {
        ScopeMark {
            trail: self.trail.len(),
            live: self.live.len(),
            buffers: self.buffers.len(),
        }
    }

    /// End a scope: its locals, allocations and heap buffers.
    pub(super) fn unwind(&mut self, mark: ScopeMark) {
        while self.trail.len() > mark.trail {
            if let Some(id) = self.trail.pop() {
                self.env[id as usize].pop();
            }
        }
        self.live.truncate(mark.live);
        self.buffers.truncate(mark.buffers);
    }

    pub(super) fn binding(&self, id: NameId) -> Outcome<Binding> {
        match self.env[id as usize].last() {
            Some(b) => Ok(*b),
            None if id == OUT_NAME && self.outputs == 0 => fault("`out` used in a scalar kernel"),
            None if id == OUT_NAME => fault("`out` used in a kernel of several results"),
            None if id == SCRATCH_NAME => fault("`scratch` used where there is no frame"),
            None => fault(format!("unknown identifier `{}`", self.name(id))),
        }
    }

    pub(super) fn binding_mut(&mut self, id: NameId) -> Outcome<&mut Binding> {
        let name = &self.names[id as usize];
        match self.env[id as usize].last_mut() {
            Some(b) => Ok(b),
            None => fault(format!("unknown identifier `{name}`")),
        }
    }

    /// A buffer, or the row of a buffer that a row stream is at: the buffer, the offset of
    /// the part named, and the row's width.
    pub(super) fn buffer_part(&self, id: NameId) -> Outcome<(usize, usize, Option<usize>)> {
        match self.binding(id)?.value {
            Value::Row(buf, off, width) | Value::Piece(buf, off, width) => {
                Ok((buf, off, Some(width)))
            }
            _ => Ok((self.buffer_of(id)?, 0, None)),
        }
    }

    /// [`Executor::window`] for a write: a row (`&[T]`) cannot be written.
    pub(super) fn window_mut(&self, id: NameId) -> Outcome<(usize, usize, usize)> {
        if let Value::Row(..) = self.binding(id)?.value {
            return fault(format!("write to `{}`, a row (&[T])", self.name(id)));
        }
        self.window(id)
    }

    /// A buffer, a piece of the frame or a row, which loads, stores and fills address alike:
    /// the buffer, the first slot of the part named, and its length.
    pub(super) fn window(&self, id: NameId) -> Outcome<(usize, usize, usize)> {
        match self.binding(id)?.value {
            Value::Piece(buf, off, len) | Value::Row(buf, off, len) => Ok((buf, off, len)),
            _ => {
                let buf = self.buffer_of(id)?;
                Ok((buf, 0, self.buffers[buf].len()))
            }
        }
    }

    pub(super) fn buffer_of(&self, id: NameId) -> Outcome<usize> {
        match self.binding(id)?.value {
            Value::Buffer(buf) => Ok(buf),
            v => fault(format!(
                "`{}` is used as a buffer but is {}",
                self.name(id),
                v.describe()
            )),
        }
    }

    pub(super) fn take_steps(&mut self, n: usize) -> Outcome<()> {
        self.steps = self.steps.saturating_add(n as u64);
        if self.steps > STEP_BUDGET {
            return fault("step budget exceeded");
        }
        Ok(())
    }

    /// Read slot `i` (in range) of buffer `buf`.
    pub(super) fn read_slot(&mut self, buf: usize, i: usize) -> Outcome<Value> {
        let b = &mut self.buffers[buf];
        if b.tracked && !b.written[i] {
            return fault(format!("read of a never-written slot: {}[{i}]", b.name()));
        }
        if let Some(u) = b.unread.get_mut(i) {
            *u = false;
        }
        Ok(b.value(i))
    }

    /// Slots `off..off + n` of output `buf` hold a fold's state that the next step replaces:
    /// each may be written again before it is read ([`fsmooth_core::lir::St::Restate`]).
    pub(super) fn restate(&mut self, buf: usize, off: usize, n: usize) -> Outcome<()> {
        let b = &mut self.buffers[buf];
        if !b.is_output() {
            return fault(format!("restate of `{}`, which is not an output", b.name()));
        }
        match b.unread.get_mut(off..off.saturating_add(n)) {
            Some(slots) => slots.fill(false),
            None => return fault(format!("restate of {}[{off}..+{n}] out of range", b.name())),
        }
        Ok(())
    }

    /// Write slot `i` (in range) of buffer `buf`; an output must have been length-checked,
    /// and the slot not written since it was last read.
    pub(super) fn write_slot(&mut self, buf: usize, i: usize, v: Value) -> Outcome<()> {
        let b = &mut self.buffers[buf];
        let Some(bits) = b.bits(v) else {
            return fault(format!(
                "{} stored to `{}`, a buffer of {}",
                v.describe(),
                b.name(),
                b.elem
            ));
        };
        if b.is_output() {
            if !b.checked {
                return fault(format!("`{}` written before its length check", b.name()));
            }
            if b.unread[i] {
                return fault(format!(
                    "overlapping writes: {}[{i}] written twice, its first value never read",
                    b.name()
                ));
            }
            b.unread[i] = true;
        }
        b.data[i] = bits;
        if b.tracked {
            b.written[i] = true;
        }
        Ok(())
    }

    /// A length check of buffer `buf`, which reports `arg` if it fails: an output's check
    /// must name the output, and lets it be written. `elem` is the element type the
    /// signature gives the buffer: an output takes it; a parameter must have it.
    pub(super) fn length_checked(&mut self, buf: usize, arg: &str, elem: Scalar) -> Outcome<()> {
        let b = &mut self.buffers[buf];
        if b.is_output() {
            if arg != b.name() {
                return fault(format!(
                    "the length check of `{}` reports the argument `{arg}`",
                    b.name()
                ));
            }
            b.checked = true;
            b.elem = elem;
        } else if b.elem != elem {
            return fault(format!(
                "`{}` holds {}, but the signature has `&[{elem}]`",
                b.name(),
                b.elem
            ));
        }
        Ok(())
    }

    pub(super) fn check_writable(&self, buf: usize) -> Outcome<()> {
        match &self.buffers[buf].kind {
            BufferKind::Param(n) => fault(format!("write to the parameter `{n}`")),
            _ => Ok(()),
        }
    }

    /// A non-empty access `[lo, hi)` of the frame must lie in one live allocation of its
    /// part.
    pub(super) fn check_live(&self, buf: usize, lo: usize, hi: usize) -> Outcome<()> {
        if buf < SCRATCH_BUFFERS
            && lo < hi
            && !self
                .live
                .iter()
                .any(|&(b, o, e)| b == buf && o <= lo && hi <= e)
        {
            return fault(format!(
                "access outside any live buffer: {}[{lo}..{hi}] (live: {})",
                self.buffers[buf].name(),
                self.live_text(buf)
            ));
        }
        Ok(())
    }

    pub(super) fn live_text(&self, buf: usize) -> String {
        let v: Vec<String> = self
            .live
            .iter()
            .filter(|l| l.0 == buf)
            .map(|(_, o, e)| format!("{o}..{e}"))
            .collect();
        format!("[{}]", v.join(", "))
    }

    /// `base.get(start..start.wrapping_add(n))` must be `Some`, and the row live.
    pub(super) fn check_slice(
        &self,
        buf: usize,
        start: usize,
        n: usize,
        what: &str,
    ) -> Outcome<()> {
        let end = start.wrapping_add(n);
        let len = self.buffers[buf].len();
        if start > end || end > len {
            return fault(format!(
                "{what} range {}[{start}..{start}+{n}] out of bounds for length {len} \
                 (the printed code would skip the loop)",
                self.buffers[buf].name()
            ));
        }
        self.check_live(buf, start, end)
    }

    /// No output written (before an error of the entry).
    pub(super) fn outputs_untouched(&self, why: &str) -> Outcome<()> {
        for b in self.buffers.iter().filter(|b| b.is_output()) {
            if let Some(i) = b.written.iter().position(|&w| w) {
                return fault(format!("{}[{i}] was written before {why}", b.name()));
            }
        }
        Ok(())
    }

    /// The outputs of a successful call, in the order they were bound: each length-checked,
    /// every slot written.
    pub(super) fn take_outputs(&mut self) -> Outcome<Vec<Vec<f64>>> {
        let mut outs = Vec::with_capacity(self.outputs);
        for b in self.buffers.iter_mut().filter(|b| b.is_output()) {
            if !b.checked {
                return fault(format!("the length of `{}` is never checked", b.name()));
            }
            if let Some(slot) = b.written.iter().position(|w| !w) {
                return fault(format!("{} slot {slot} never written", b.name()));
            }
            outs.push(b.as_f64s());
        }
        Ok(outs)
    }
}

/// Slot `at` of a part of a buffer from slot `first`, for messages: `at` alone for a whole
/// buffer.
pub(super) fn slot_text(first: usize, at: usize) -> String {
    if first == 0 {
        at.to_string()
    } else {
        format!("{first} + {at}")
    }
}
