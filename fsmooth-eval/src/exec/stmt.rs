//! Statements: bindings, stores, loops and fills with their streams, copies, the frame and
//! its allocations, and the length checks of the entry.

use super::MAX_FRAME;
use super::eval::arith;
use super::resolve::{NameId, ResolvedEx, ResolvedSt, ResolvedStream, scratch_name};
use super::state::{
    Buffer, BufferKind, Executor, Outcome, Snapshot, Stop, Value, fault, runtime_error,
    scratch_buffer, slot_text,
};
use fsmooth_core::front::ast::BinOp;
use fsmooth_core::lir::{self, FRAME_PARTS, Scalar};
use fsmooth_runtime::__rt;

impl Executor<'_> {
    /// Run a statement list in its own scope (its locals and allocations end with it),
    /// then `then` inside that scope (a block's value, a kernel's result).
    pub(super) fn scope<T>(
        &mut self,
        sts: &[ResolvedSt],
        then: impl FnOnce(&mut Self) -> Outcome<T>,
    ) -> Outcome<T> {
        let mark = self.mark();
        for s in sts {
            self.stmt(s)?;
        }
        let v = then(self)?;
        self.unwind(mark);
        Ok(v)
    }

    /// Run a statement list in its own scope.
    fn block(&mut self, sts: &[ResolvedSt]) -> Outcome<()> {
        self.scope(sts, |_| Ok(()))
    }

    /// Run one statement.
    fn stmt(&mut self, s: &ResolvedSt) -> Outcome<()> {
        match s {
            ResolvedSt::Let {
                id,
                mutable,
                usize_ty,
                val,
            } => {
                let v = self.eval(val)?;
                if *usize_ty && !matches!(v, Value::Usize(_)) {
                    return fault(format!(
                        "`let {}: usize` of {}",
                        self.name(*id),
                        v.describe()
                    ));
                }
                self.bind(*id, v, *mutable);
            }
            ResolvedSt::Assign(id, val) => {
                let v = self.eval(val)?;
                let name = self.name(*id).to_string();
                let b = self.binding_mut(*id)?;
                if !b.mutable {
                    return fault(format!("assignment to the immutable `{name}`"));
                }
                if !b.value.same_type(v) || matches!(v, Value::Buffer(_) | Value::Elem(..)) {
                    return fault(format!(
                        "`{name} = ..` of {} to {}",
                        v.describe(),
                        b.value.describe()
                    ));
                }
                b.value = v;
            }
            ResolvedSt::Store(b, at, val) => {
                let v = self.eval_scalar(val)?;
                let (buf, first, len) = self.window_mut(*b)?;
                let at = self.eval_usize(at)?;
                self.check_writable(buf)?;
                if at >= len {
                    return fault(format!(
                        "proven store {}[{}] out of range for length {len} \
                         (the printed `st` would skip it)",
                        self.buffers[buf].name(),
                        slot_text(first, at)
                    ));
                }
                self.check_live(buf, first + at, first + at + 1)?;
                self.write_slot(buf, first + at, v)?;
            }
            ResolvedSt::StoreRow(b, off, vals) => {
                let mut vs = Vec::with_capacity(vals.len());
                for val in vals {
                    vs.push(self.eval_scalar(val)?);
                }
                let buf = self.buffer_of(*b)?;
                let off = self.eval_usize(off)?;
                self.check_writable(buf)?;
                let len = self.buffers[buf].len();
                let end = off.checked_add(vs.len()).filter(|&e| e <= len);
                let Some(end) = end else {
                    return fault(format!(
                        "proven row store {}[{off}..+{}] out of range for length {len} \
                         (the printed `st_row` would skip it)",
                        self.buffers[buf].name(),
                        vs.len()
                    ));
                };
                self.check_live(buf, off, end)?;
                for (t, v) in vs.into_iter().enumerate() {
                    self.write_slot(buf, off + t, v)?;
                }
            }
            ResolvedSt::Slot(val) => {
                let v = self.eval_scalar(val)?;
                let Some(&(buf, i)) = self.slots.last() else {
                    return fault("`__slot` outside a fill");
                };
                self.write_slot(buf, i, v)?;
            }
            ResolvedSt::Put(elem, val) => {
                let v = self.eval_scalar(val)?;
                let Value::Elem(buf, i) = self.binding(*elem)?.value else {
                    return fault("`*elem = ..` to a name that is no stream element");
                };
                self.write_slot(buf, i, v)?;
            }
            ResolvedSt::SlotAdd(val) => {
                let Some(&(buf, i)) = self.slots.last() else {
                    return fault("`__slot` outside a fill");
                };
                let old = self.read_slot(buf, i)?;
                let v = self.eval_scalar(val)?;
                let sum = match (old, v) {
                    (Value::F64(a), Value::F64(b)) => Value::F64(a + b),
                    (Value::F32(a), Value::F32(b)) => Value::F32(a + b),
                    (Value::Usize(a), Value::Usize(b)) => match a.checked_add(b) {
                        Some(s) => Value::Usize(s),
                        None => return fault("`*__slot + ..` on usize overflows (a panic)"),
                    },
                    (a, b) => {
                        return fault(format!(
                            "`*__slot + ..` of {} and {}",
                            a.describe(),
                            b.describe()
                        ));
                    }
                };
                self.write_slot(buf, i, sum)?;
            }
            ResolvedSt::Loop {
                fill,
                lanes,
                var,
                n,
                streams,
                body,
            } => self.run_loop(fill.as_ref(), *lanes, *var, n, streams, body)?,
            ResolvedSt::If(c, a, b) => {
                if self.eval_bool(c)? {
                    self.block(a)?
                } else {
                    self.block(b)?
                }
            }
            ResolvedSt::While(c, b) => {
                while self.eval_bool(c)? {
                    self.block(b)?
                }
            }
            ResolvedSt::ParSum {
                acc,
                acc_left,
                elem,
                var,
                n,
                body,
                frame,
            } => {
                let sum = Sum {
                    acc: *acc,
                    elem: *elem,
                    var: *var,
                };
                self.run_par_sum(sum, *acc_left, *frame, n, body)?
            }
            ResolvedSt::Block(b) => self.block(b)?,
            ResolvedSt::Segment {
                id,
                base,
                off,
                width,
                body,
            } => {
                let (buf, row_off, row) = self.buffer_part(*base)?;
                let off = self.eval_usize(off)?;
                let room = row.unwrap_or(self.buffers[buf].len());
                let Some(end) = off.checked_add(*width).filter(|&e| e <= room) else {
                    return fault(format!(
                        "proven segment {}[{row_off} + {off}..+{width}] out of its {room} slots \
                         (the printed `if let` would skip its body)",
                        self.buffers[buf].name()
                    ));
                };
                self.check_live(buf, row_off + off, row_off + end)?;
                let mark = self.mark();
                self.bind(*id, Value::Row(buf, row_off + off, *width), false);
                let r = self.block(body);
                self.unwind(mark);
                r?
            }
            ResolvedSt::Pieces { elem, pieces, body } => {
                let part = self.buffer_of(scratch_name(*elem))?;
                let len = self.buffers[part].len();
                let mut starts = Vec::with_capacity(pieces.len());
                for (_, start) in pieces {
                    starts.push(self.eval_usize(start)?);
                }
                if starts.is_empty()
                    || starts.windows(2).any(|w| w[0] > w[1])
                    || starts.last().is_some_and(|&s| s > len)
                {
                    return fault(format!(
                        "pieces of {} from {starts:?}: not ascending in its {len} slots \
                         (the printed `if let` would skip its body)",
                        self.buffers[part].name()
                    ));
                }
                let mark = self.mark();
                for (k, ((id, _), &start)) in pieces.iter().zip(&starts).enumerate() {
                    let end = starts.get(k + 1).copied().unwrap_or(len);
                    self.bind(*id, Value::Piece(part, start, end - start), false);
                }
                let r = self.block(body);
                self.unwind(mark);
                r?
            }
            ResolvedSt::Rows { off, rows, body } => {
                let off = self.eval_usize(off)?;
                let mut windows = Vec::with_capacity(rows.len());
                for &(_, base, mutable) in rows {
                    let window = if mutable {
                        let w = self.window_mut(base)?;
                        self.check_writable(w.0)?;
                        w
                    } else {
                        self.window(base)?
                    };
                    windows.push(window);
                }
                let common = windows
                    .iter()
                    .map(|&(_, _, len)| len.saturating_sub(off))
                    .min()
                    .unwrap_or(0);
                let mark = self.mark();
                for (&(id, _, mutable), &(buf, first, len)) in rows.iter().zip(&windows) {
                    let at = first + off.min(len);
                    let row = if mutable {
                        Value::Piece(buf, at, common)
                    } else {
                        Value::Row(buf, at, common)
                    };
                    self.bind(id, row, false);
                }
                let r = self.block(body);
                self.unwind(mark);
                r?
            }
            ResolvedSt::Swap(a, b) => {
                let (x, y) = (self.binding(*a)?, self.binding(*b)?);
                if !x.mutable || !y.mutable {
                    return fault(format!(
                        "`swap` of `{}` and `{}`, not both mutable",
                        self.name(*a),
                        self.name(*b)
                    ));
                }
                if !x.value.same_type(y.value)
                    || matches!(x.value, Value::Buffer(_) | Value::Elem(..))
                {
                    return fault(format!(
                        "`swap` of {} and {}",
                        x.value.describe(),
                        y.value.describe()
                    ));
                }
                self.binding_mut(*a)?.value = y.value;
                self.binding_mut(*b)?.value = x.value;
            }
            ResolvedSt::CheckRange(lo, hi, len) => {
                let lo = self.eval_usize(lo)?;
                let hi = self.eval_usize(hi)?;
                let len = self.eval_usize(len)?;
                __rt::check_range(lo, hi, len).map_err(runtime_error)?;
            }
            ResolvedSt::Copy {
                dst,
                dst_off,
                src,
                src_off,
                n,
            } => {
                let dst_buf = self.buffer_of(*dst)?;
                let dst_start = self.eval_usize(dst_off)?;
                let n = self.eval_usize(n)?;
                let src_buf = self.buffer_of(*src)?;
                let src_start = self.eval_usize(src_off)?;
                self.check_writable(dst_buf)?;
                if dst_buf == src_buf {
                    return fault(format!("copy within `{}`", self.buffers[dst_buf].name()));
                }
                if self.buffers[dst_buf].elem != self.buffers[src_buf].elem {
                    return fault(format!(
                        "copy from `{}` ({}) to `{}` ({})",
                        self.buffers[src_buf].name(),
                        self.buffers[src_buf].elem,
                        self.buffers[dst_buf].name(),
                        self.buffers[dst_buf].elem
                    ));
                }
                self.check_slice(dst_buf, dst_start, n, "copy destination")?;
                self.check_slice(src_buf, src_start, n, "copy source")?;
                self.take_steps(n)?;
                for j in 0..n {
                    let v = self.read_slot(src_buf, src_start + j)?;
                    self.write_slot(dst_buf, dst_start + j, v)?;
                }
            }
            ResolvedSt::AddWithin {
                base,
                dst_off,
                src_off,
                n,
            } => {
                // Slot by slot, in order, as the loop it replaces: each slot's sum is read
                // and written as a proven load and store.
                let buf = self.buffer_of(*base)?;
                let dst = self.eval_usize(dst_off)?;
                let src = self.eval_usize(src_off)?;
                let n = self.eval_usize(n)?;
                self.check_writable(buf)?;
                self.check_slice(buf, dst, n, "add destination")?;
                self.check_slice(buf, src, n, "add source")?;
                self.take_steps(n)?;
                for j in 0..n {
                    let x = self.read_slot(buf, dst + j)?;
                    let y = self.read_slot(buf, src + j)?;
                    self.write_slot(buf, dst + j, arith(BinOp::Add, x, y)?)?;
                }
            }
            ResolvedSt::Restate(b, off, n) => {
                let buf = self.buffer_of(*b)?;
                let off = self.eval_usize(off)?;
                let n = self.eval_usize(n)?;
                self.restate(buf, off, n)?;
            }
            ResolvedSt::Alloc(elem, off, len) => {
                let off = self.eval_usize(off)?;
                let len = self.eval_usize(len)?;
                let part = scratch_buffer(*elem);
                let name = self.buffers[part].name().to_string();
                if self.env[scratch_name(*elem) as usize].is_empty() {
                    return fault(format!(
                        "allocation {name}[{off}..{off}+{len}] without a frame (part)"
                    ));
                }
                let frame = self.buffers[part].len();
                let end = match off.checked_add(len) {
                    Some(e) if e <= frame => e,
                    _ => {
                        return fault(format!(
                            "allocation outside the frame: {name}[{off}..{off}+{len}] \
                             in a part of {frame}"
                        ));
                    }
                };
                if let Some(&(_, o, e)) = self
                    .live
                    .iter()
                    .find(|&&(b, o, e)| b == part && off < e && o < end)
                {
                    return fault(format!(
                        "overlapping live buffers: {name}[{off}..{end}] allocated while \
                         {name}[{o}..{e}] is live"
                    ));
                }
                self.buffers[part].written[off..end].fill(false);
                self.live.push((part, off, end));
            }
            ResolvedSt::Heap(id, len, elem) => {
                let n = self.eval_usize(len)?;
                if n > MAX_FRAME {
                    return Err(runtime_error(fsmooth_runtime::Error::Scratch {
                        needed: n,
                        available: 0,
                    }));
                }
                let name = self.name(*id).to_string();
                self.buffers
                    .push(Buffer::tracked(BufferKind::Heap(name), *elem, n));
                self.bind(*id, Value::Buffer(self.buffers.len() - 1), false);
            }
            ResolvedSt::CheckColumn {
                base,
                at,
                stride,
                len,
            } => {
                let buf = self.buffer_of(*base)?;
                let at = self.eval_usize(at)?;
                let stride = self.eval_usize(stride)?;
                let len = self.eval_usize(len)?;
                let Some(data) = self.buffers[buf].as_usizes() else {
                    return fault(format!(
                        "`check_column` of `{}`, a buffer of {}",
                        self.buffers[buf].name(),
                        self.buffers[buf].elem
                    ));
                };
                if let Err(e) = __rt::check_column(&data, at, stride, len) {
                    self.outputs_untouched("an index array's check failed")?;
                    return Err(runtime_error(e));
                }
            }
            ResolvedSt::CheckLen {
                arg,
                base,
                want,
                elem,
            } => {
                let buf = self.buffer_of(*base)?;
                let want = self.eval_usize(want)?;
                self.length_checked(buf, arg, *elem)?;
                let found = self.buffers[buf].len();
                if found != want {
                    self.outputs_untouched("a length check failed")?;
                    return Err(Stop::Error(format!(
                        "argument `{arg}` has length {found}, but the kernel's signature \
                         requires {want}"
                    )));
                }
            }
            ResolvedSt::Frame {
                len,
                constant,
                parts,
            } => {
                if self.frame_ran {
                    return fault("a second frame");
                }
                self.frame_ran = true;
                let n = match (len, constant) {
                    (_, Some(n)) => Some(*n),
                    (Some(l), None) => Some(self.eval_usize(l)?),
                    (None, None) => None,
                };
                if let Some(n) = n {
                    if n > MAX_FRAME {
                        return Err(runtime_error(fsmooth_runtime::Error::Scratch {
                            needed: n,
                            available: 0,
                        }));
                    }
                    match parts {
                        None => self.frame_part(Scalar::F64, n),
                        Some(parts) => {
                            // Cut as `split` cuts it: each part exactly its count, and the
                            // frame is exactly their slots.
                            let mut counts = [0usize; 3];
                            for (c, p) in counts.iter_mut().zip(parts) {
                                if let Some(p) = p {
                                    *c = self.eval_usize(p)?;
                                }
                            }
                            let [a, b, c] = counts;
                            if __rt::slots(a, b, c) > n {
                                return fault(format!(
                                    "a frame of {n} slots cut into parts of {a} f64, {b} f32 \
                                     and {c} usize (the printed `split` would fail)"
                                ));
                            }
                            for ((t, p), count) in FRAME_PARTS.iter().zip(parts).zip(counts) {
                                if p.is_some() {
                                    self.frame_part(*t, count);
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The frame's part of type `elem`: `len` never-written slots, bound to its name.
    fn frame_part(&mut self, elem: Scalar, len: usize) {
        let buf = scratch_buffer(elem);
        self.buffers[buf] = Buffer::tracked(BufferKind::Scratch(elem), elem, len);
        self.bind(scratch_name(elem), Value::Buffer(buf), false);
    }

    /// A `for` loop or a fill: its ranges checked in the order the printed code takes
    /// them, then the body once per index.
    fn run_loop(
        &mut self,
        fill: Option<&(NameId, Option<ResolvedEx>)>,
        lanes: Option<(NameId, Scalar)>,
        var: NameId,
        n: &ResolvedEx,
        streams: &[ResolvedStream],
        body: &[ResolvedSt],
    ) -> Outcome<()> {
        // Evaluation order as printed: the fill's `get_mut(off..off + n)`, then each
        // stream's `get(start..start + n)`, then `0..n`.
        let mut count = None;
        let mut slot = None;
        if let Some((b, off)) = fill {
            let (buf, first, len) = self.window_mut(*b)?;
            let off = match off {
                Some(o) => Some(self.eval_usize(o)?),
                None => None,
            };
            let n = self.eval_usize(n)?;
            self.check_writable(buf)?;
            match off {
                // A loop of no steps writes nothing: the printed code skipping it (an empty
                // range past the end, as a peeled interior's) is the same.
                Some(_) if n == 0 => {}
                Some(lo) => {
                    self.check_slice(buf, first + lo, n, "fill")?;
                    if lo.checked_add(n).is_none_or(|end| end > len) {
                        return fault(format!(
                            "fill range {}[{first} + {lo}..+{n}] out of its piece of {len} \
                             slots (the printed code would skip the loop)",
                            self.buffers[buf].name()
                        ));
                    }
                }
                None => {
                    if n > len {
                        return fault(format!(
                            "fill range {}[{}..{n}] out of bounds for length {len} \
                             (the printed code would skip the loop)",
                            self.buffers[buf].name(),
                            if first == 0 {
                                String::new()
                            } else {
                                format!("{first}..][")
                            }
                        ));
                    }
                    self.check_live(buf, first, first + n)?;
                }
            }
            count = Some(n);
            slot = Some((buf, first + off.unwrap_or(0)));
        }
        let mut rows = Vec::with_capacity(streams.len());
        let mut wholes = Vec::new();
        for s in streams {
            let start = self.eval_usize(&s.start)?;
            let n = match count {
                Some(n) => n,
                None => {
                    let n = self.eval_usize(n)?;
                    count = Some(n);
                    n
                }
            };
            if n == 0 {
                // Reads nothing, as the printed code that skips the loop.
                continue;
            }
            match &s.width {
                None => {
                    let (buf, off, row) = self.buffer_part(s.base)?;
                    if let Some(w) = row
                        && start.checked_add(n).is_none_or(|end| end > w)
                    {
                        return fault(format!(
                            "stream range {}[{off} + {start}..+{n}] out of its row of {w} \
                             (the printed code would skip the loop)",
                            self.buffers[buf].name()
                        ));
                    }
                    self.check_slice(buf, off + start, n, "stream")?;
                    rows.push((s.elem, buf, off + start, None));
                    // The whole slice, which inner loops may cut prefixes from.
                    if let Some(all) = s.all {
                        wholes.push((all, Value::Row(buf, off + start, n)));
                    }
                }
                Some(w) => {
                    let w = self.eval_usize(w)?;
                    let (buf, first, len) = self.window(s.base)?;
                    // Every row the loop takes must be there: the printed iterator stops at
                    // the buffer's end, which would end the loop early.
                    match n.checked_mul(w) {
                        Some(all) => {
                            self.check_slice(buf, first + start, all, "row stream")?;
                            if start.checked_add(all).is_none_or(|end| end > len) {
                                return fault("row stream past the end of its piece");
                            }
                        }
                        None => return fault("row stream rows * width overflows"),
                    }
                    rows.push((s.elem, buf, first + start, Some((w, s.written))));
                }
            }
        }
        let n = match count {
            Some(n) => n,
            None => self.eval_usize(n)?,
        };
        self.take_steps(n)?;
        let mark = self.mark();
        self.bind(var, Value::Usize(0), false);
        for &(all, v) in &wholes {
            self.bind(all, v, false);
        }
        for &(elem, buf, start, w) in &rows {
            let v = match w {
                Some((w, true)) => Value::Piece(buf, start, w),
                Some((w, false)) => Value::Row(buf, start, w),
                None => Value::Elem(buf, start),
            };
            self.bind(elem, v, false);
        }
        if let Some(s) = slot {
            self.slots.push(s);
        }
        // A sum in lanes: lane 0 is the sum's local, the others start from -0.0; step `i`
        // of the first `n - n % LANES` adds to lane `i % LANES`, the rest to lane 0.
        let whole = n - n % lir::LANES;
        let mut lane_sums = match lanes {
            Some((_, Scalar::F32)) => [Value::F32(-0.0); lir::LANES],
            _ => [Value::F64(-0.0); lir::LANES],
        };
        for i in 0..n {
            let lane = if i < whole { i % lir::LANES } else { 0 };
            // Lane `lane`'s sum in the sum's local for the step (lane 0's kept aside), and
            // back after it.
            if let Some((acc, _)) = lanes
                && lane != 0
            {
                std::mem::swap(&mut self.binding_mut(acc)?.value, &mut lane_sums[lane]);
            }
            if let Some(b) = self.env[var as usize].last_mut() {
                b.value = Value::Usize(i);
            }
            for &(elem, buf, start, w) in &rows {
                if let Some(b) = self.env[elem as usize].last_mut() {
                    b.value = match w {
                        Some((w, true)) => Value::Piece(buf, start + i * w, w),
                        Some((w, false)) => Value::Row(buf, start + i * w, w),
                        None => Value::Elem(buf, start + i),
                    };
                }
            }
            if let Some((_, off)) = slot
                && let Some(s) = self.slots.last_mut()
            {
                s.1 = off + i;
            }
            self.block(body)?;
            if let Some((acc, _)) = lanes
                && lane != 0
            {
                std::mem::swap(&mut self.binding_mut(acc)?.value, &mut lane_sums[lane]);
            }
        }
        if let Some((acc, _)) = lanes {
            lane_sums[0] = self.binding(acc)?.value;
            self.binding_mut(acc)?.value = lane_tree(&lane_sums)?;
        }
        if slot.is_some() {
            self.slots.pop();
        }
        self.unwind(mark);
        Ok(())
    }

    /// [`lir::St::ParSum`] as the generated code computes it, one chunk after the other: each
    /// chunk from `-0.0` in a copy of the frame as it was before the sum, the chunks' sums
    /// added in their tree, the frame left as it was, then the total added to the sum's first
    /// value. Below `PAR_MIN_STEPS` steps, or with a frame of more than `PAR_CHUNK` slots
    /// that the body uses, the loop in order.
    fn run_par_sum(
        &mut self,
        sum: Sum,
        acc_left: bool,
        uses_frame: bool,
        n: &ResolvedEx,
        body: &[ResolvedSt],
    ) -> Outcome<()> {
        let n = self.eval_usize(n)?;
        let frame = scratch_buffer(Scalar::F64);
        let large = uses_frame && self.buffers[frame].len() > lir::PAR_CHUNK;
        if n < lir::PAR_MIN_STEPS || large {
            return self.run_range(sum.var, 0, n, body);
        }
        let saved = self.buffers[frame].snapshot();
        let first = self.binding(sum.acc)?.value;
        let chunks = n.div_ceil(lir::PAR_CHUNK);
        let total = self.par_tree(0, chunks, n, &saved, sum, body)?;
        self.buffers[frame].restore(&saved);
        let value = match acc_left {
            true => add(first, total)?,
            false => add(total, first)?,
        };
        self.binding_mut(sum.acc)?.value = value;
        Ok(())
    }

    /// The sum of chunks `a..b` of a [`lir::St::ParSum`] of `n` steps.
    fn par_tree(
        &mut self,
        a: usize,
        b: usize,
        n: usize,
        saved: &Snapshot,
        sum: Sum,
        body: &[ResolvedSt],
    ) -> Outcome<Value> {
        if b - a <= 1 {
            let frame = scratch_buffer(Scalar::F64);
            self.buffers[frame].restore(saved);
            self.binding_mut(sum.acc)?.value = match sum.elem {
                Scalar::F32 => Value::F32(-0.0),
                _ => Value::F64(-0.0),
            };
            let lo = (a * lir::PAR_CHUNK).min(n);
            let hi = (b * lir::PAR_CHUNK).min(n);
            self.run_range(sum.var, lo, hi, body)?;
            return Ok(self.binding(sum.acc)?.value);
        }
        let mid = a + (b - a) / 2;
        let left = self.par_tree(a, mid, n, saved, sum, body)?;
        let right = self.par_tree(mid, b, n, saved, sum, body)?;
        add(left, right)
    }

    /// `for var in lo..hi { body }`.
    fn run_range(&mut self, var: NameId, lo: usize, hi: usize, body: &[ResolvedSt]) -> Outcome<()> {
        self.take_steps(hi.saturating_sub(lo))?;
        let mark = self.mark();
        self.bind(var, Value::Usize(lo), false);
        for i in lo..hi {
            if let Some(b) = self.env[var as usize].last_mut() {
                b.value = Value::Usize(i);
            }
            self.block(body)?;
        }
        self.unwind(mark);
        Ok(())
    }
}

/// The locals of a [`lir::St::ParSum`].
#[derive(Clone, Copy)]
struct Sum {
    acc: NameId,
    elem: Scalar,
    var: NameId,
}

/// The sum of a [`lir::St::Lanes`]' lanes, halves first: `(l0 + l1) + (l2 + l3)`.
fn lane_tree(lanes: &[Value]) -> Outcome<Value> {
    match lanes {
        [one] => Ok(*one),
        _ => {
            let (l, r) = lanes.split_at(lanes.len() / 2);
            add(lane_tree(l)?, lane_tree(r)?)
        }
    }
}

/// `a + b` of two floats of one type.
fn add(a: Value, b: Value) -> Outcome<Value> {
    match (a, b) {
        (Value::F64(x), Value::F64(y)) => Ok(Value::F64(x + y)),
        (Value::F32(x), Value::F32(y)) => Ok(Value::F32(x + y)),
        (x, y) => fault(format!(
            "a parallel sum or a sum in lanes adds {} and {}",
            x.describe(),
            y.describe()
        )),
    }
}
