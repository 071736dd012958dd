//! What a run changes: the bindings of names, the buffers (the frame, the outputs, the
//! parameters, heap buffers) with the slots written in each, and the live allocations of the
//! frame; and the checks on every access to them.

use super::resolve::{NameId, OUT_NAME, SCRATCH_NAME};
use super::{Arg, STEP_BUDGET};

/// The buffer index of the frame; the outputs, the parameters and heap buffers follow.
pub(super) const SCRATCH_BUFFER: usize = 0;

/// A run-time value of the loop IR: a scalar, or a reference to (part of) a buffer.
#[derive(Clone, Copy, Debug)]
pub(super) enum Value {
    F64(f64),
    Usize(usize),
    Bool(bool),
    /// A buffer (by index).
    Buffer(usize),
    /// A stream element: `&buffer[index]`.
    Elem(usize, usize),
    /// A row stream's element: `&buffer[off..off + width]`.
    Row(usize, usize, usize),
}

impl Value {
    /// Its type, for messages.
    pub(super) fn describe(self) -> &'static str {
        match self {
            Value::F64(_) => "f64",
            Value::Usize(_) => "usize",
            Value::Bool(_) => "bool",
            Value::Buffer(_) => "a buffer",
            Value::Elem(..) => "a stream element (&f64)",
            Value::Row(..) => "a row (&[f64])",
        }
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
    Scratch,
    /// A buffer of `storage = "heap"` (its Rust name).
    Heap(String),
}

/// A buffer's slots, and which of them were written.
pub(super) struct Buffer {
    pub(super) kind: BufferKind,
    pub(super) data: Vec<f64>,
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
    /// A buffer of `len` never-written slots whose writes are tracked.
    pub(super) fn tracked(kind: BufferKind, len: usize) -> Buffer {
        Buffer {
            kind,
            data: vec![f64::NAN; len],
            written: vec![false; len],
            tracked: true,
            unread: Vec::new(),
            checked: false,
        }
    }

    pub(super) fn name(&self) -> &str {
        match &self.kind {
            BufferKind::Param(n) | BufferKind::Heap(n) | BufferKind::Out(n) => n,
            BufferKind::Scratch => "scratch",
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
    /// The frame, the outputs, the parameters, then the heap buffers of the open scopes.
    pub(super) buffers: Vec<Buffer>,
    /// How many outputs the call has.
    outputs: usize,
    /// Live allocations of the frame, `[off, end)`, in allocation order.
    pub(super) live: Vec<(usize, usize)>,
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
            buffers: vec![Buffer::tracked(BufferKind::Scratch, 0)],
            outputs: 0,
            live: Vec::new(),
            slots: Vec::new(),
            steps: 0,
            frame_ran: false,
        }
    }

    /// Bind output `name` (interned as `id`) to a buffer of `len` never-written slots.
    pub(super) fn bind_output(&mut self, id: NameId, name: &str, len: usize) {
        let mut b = Buffer::tracked(BufferKind::Out(name.to_string()), len);
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
            Arg::Usize(n) => Value::Usize(*n),
            Arg::Bool(b) => Value::Bool(*b),
            // A stub until the executor models f32 values and f32 and usize buffers: their
            // values as f64 (exact), which the loops then meet with the wrong type.
            Arg::F32(x) => Value::F64(f64::from(*x)),
            Arg::Array(_) | Arg::F32s(_) | Arg::Usizes(_) => {
                let data = match arg {
                    Arg::F32s(v) => v.iter().map(|&x| f64::from(x)).collect(),
                    Arg::Usizes(v) => v.iter().map(|&k| k as f64).collect(),
                    Arg::Array(v) => v.clone(),
                    _ => Vec::new(),
                };
                self.buffers.push(Buffer {
                    kind: BufferKind::Param(name.to_string()),
                    data,
                    written: Vec::new(),
                    tracked: false,
                    unread: Vec::new(),
                    checked: false,
                });
                Value::Buffer(self.buffers.len() - 1)
            }
        };
        self.bind(id, value, false);
    }
}

impl Executor<'_> {
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
            Value::Row(buf, off, width) => Ok((buf, off, Some(width))),
            _ => Ok((self.buffer_of(id)?, 0, None)),
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
    pub(super) fn read_slot(&mut self, buf: usize, i: usize) -> Outcome<f64> {
        let b = &mut self.buffers[buf];
        if b.tracked && !b.written[i] {
            return fault(format!("read of a never-written slot: {}[{i}]", b.name()));
        }
        if let Some(u) = b.unread.get_mut(i) {
            *u = false;
        }
        Ok(b.data[i])
    }

    /// Write slot `i` (in range) of buffer `buf`; an output must have been length-checked,
    /// and the slot not written since it was last read.
    pub(super) fn write_slot(&mut self, buf: usize, i: usize, v: f64) -> Outcome<()> {
        let b = &mut self.buffers[buf];
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
        b.data[i] = v;
        if b.tracked {
            b.written[i] = true;
        }
        Ok(())
    }

    /// A length check of buffer `buf`, which reports `arg` if it fails: an output's check
    /// must name the output, and lets it be written.
    pub(super) fn length_checked(&mut self, buf: usize, arg: &str) -> Outcome<()> {
        let b = &mut self.buffers[buf];
        if b.is_output() {
            if arg != b.name() {
                return fault(format!(
                    "the length check of `{}` reports the argument `{arg}`",
                    b.name()
                ));
            }
            b.checked = true;
        }
        Ok(())
    }

    pub(super) fn check_writable(&self, buf: usize) -> Outcome<()> {
        match &self.buffers[buf].kind {
            BufferKind::Param(n) => fault(format!("write to the parameter `{n}`")),
            _ => Ok(()),
        }
    }

    /// A non-empty access `[lo, hi)` of the frame must lie in one live allocation.
    pub(super) fn check_live(&self, buf: usize, lo: usize, hi: usize) -> Outcome<()> {
        if buf == SCRATCH_BUFFER && lo < hi && !self.live.iter().any(|&(o, e)| o <= lo && hi <= e) {
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
    pub(super) fn check_slice(
        &self,
        buf: usize,
        start: usize,
        n: usize,
        what: &str,
    ) -> Outcome<()> {
        let end = start.wrapping_add(n);
        let len = self.buffers[buf].data.len();
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
            outs.push(std::mem::take(&mut b.data));
        }
        Ok(outs)
    }
}
