//! The memory plan of a kernel: every buffer the frame planner placed
//! ([`fsmooth_core::lower::storage`]), with what it holds, its offset and length as size
//! expressions, when it is live and the rule that placed it; then the frame's total, which
//! is what `scratch_len` computes. Offsets, lengths and the total are simplified polynomials
//! in the user's size names (`3 * n`, not `n + n + n`). A frame with `f32` or `usize` intermediates has one part
//! per element type, each planned as a stack of its own: the table then says each buffer's
//! type, offsets are within its part, and the total adds up the parts' 8-byte slots.

use fsmooth_core::front::ast::{Options, Storage};
use fsmooth_core::front::size::Size;
use fsmooth_core::lir::FRAME_PARTS;
use fsmooth_core::lower::Planned;
use fsmooth_core::lower::storage::{Buffer, Holds, Peaks};
use fsmooth_core::middle::ir::Kernel;
use fsmooth_core::middle::print;

/// Concrete values of size names, to evaluate the total at (`--sizes d=2,k=3`).
pub type SizeValues = Vec<(String, u64)>;

/// The frame's total as the plan's buffers give it: for each part, the largest `offset +
/// length` (the candidates with the dominated ones dropped, as `scratch_len` has them).
pub fn total(buffers: &[Buffer]) -> Peaks {
    Peaks::of(buffers)
}

/// The frame's 8-byte slots at the given sizes; `None` when a size is missing or the
/// arithmetic fails.
pub fn evaluate_frame(peaks: &Peaks, sizes: &SizeValues) -> Option<u64> {
    let env = |n: &str| sizes.iter().find(|(m, _)| m == n).map(|(_, v)| *v);
    peaks.eval(&env)
}

/// The largest of `candidates` at the given sizes (0 for none); `None` when a size is
/// missing or the arithmetic fails.
#[cfg(test)]
pub fn evaluate(candidates: &[Size], sizes: &SizeValues) -> Option<u64> {
    let env = |n: &str| sizes.iter().find(|(m, _)| m == n).map(|(_, v)| *v);
    candidates
        .iter()
        .try_fold(0, |m, c| Some(m.max(c.eval(&env)?)))
}

/// The memory plan as text.
pub fn plan(k: &Kernel, planned: &Planned, options: Options, sizes: &SizeValues) -> String {
    let names = &k.var_names;
    let heap = options.storage == Storage::Heap;
    let buffers = &planned.buffers;
    // Typed: some buffer holds other than f64 (the frame then has a part per type).
    let typed = buffers.iter().any(|b| b.elem != FRAME_PARTS[0]);
    let mut out = String::new();
    out.push_str(match (options.storage, typed) {
        (Storage::Region, false) => {
            "storage = \"region\": one frame of f64 slots, taken from the caller's region\n"
        }
        (Storage::Region, true) => {
            "storage = \"region\": one frame of 8-byte slots, taken from the caller's region, \
             in parts: f64, then f32 (two to a slot), then usize\n"
        }
        (Storage::HeapFrame, false) => {
            "storage = \"heap_frame\": one frame of f64 slots, a heap allocation per call (scratch_len is 0)\n"
        }
        (Storage::HeapFrame, true) => {
            "storage = \"heap_frame\": one frame of 8-byte slots in parts (f64, f32, usize), a heap \
             allocation per call (scratch_len is 0)\n"
        }
        (Storage::Heap, _) => {
            "storage = \"heap\": every buffer is a heap allocation of its own, made where it is bound; no frame (scratch_len is 0)\n"
        }
    });
    if buffers.is_empty() {
        out.push_str("no buffers: every array is fused into the loops that read it\n");
    } else {
        let mut rows = vec![vec![
            "#".to_string(),
            "holds".into(),
            "type".into(),
            "offset".into(),
            "length".into(),
            "live".into(),
            "placed".into(),
        ]];
        for (i, b) in buffers.iter().enumerate() {
            rows.push(vec![
                format!("#{i}"),
                holds(&b.holds, names, heap),
                b.elem.name().to_string(),
                if heap {
                    "-".into()
                } else {
                    print::size(&simplest(&b.offset), names)
                },
                print::size(&simplest(&b.len), names),
                live(i, b),
                if heap {
                    "its own heap buffer".into()
                } else {
                    rule(i, b, buffers)
                },
            ]);
        }
        if !typed {
            // The type column only says something when the frame has several parts.
            for r in &mut rows {
                r.remove(2);
            }
        }
        let widths: Vec<usize> = (0..rows[0].len())
            .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
            .collect();
        for r in &rows {
            let line: Vec<String> = r
                .iter()
                .zip(&widths)
                .map(|(cell, w)| format!("{cell:<w$}"))
                .collect();
            out.push_str(line.join("  ").trim_end());
            out.push('\n');
        }
        out.push_str(if heap {
            "(live: the buffers made while it is live, `#2..#5` is #2 to #4)\n"
        } else {
            "(live: the buffers made while it is live, `#2..#5` is #2 to #4; buffers live at \
             different times share slots)\n"
        });
    }
    for t in &planned.taken {
        // No buffer of its own: the place of an array nothing reads after it.
        out.push_str(&format!(
            "{} (let) in the place of {} (read no more), no slots of its own\n",
            print::var(t.what, names),
            print::var(t.from, names)
        ));
    }
    if heap {
        return out;
    }
    let total = total(buffers);
    // Each candidate simplified as the offsets are (`n + n + n` as `3 * n`).
    let part_text = |part: &[Size]| {
        let shown: Vec<String> = part
            .iter()
            .map(|s| print::size(&simplest(s), names))
            .collect();
        match shown.len() {
            0 => "0".to_string(),
            1 => shown[0].clone(),
            _ => format!("max({})", shown.join(", ")),
        }
    };
    // The generated `mod k`'s arguments: the sizes some shape depends on (a step count is a
    // plain value, not an argument of `scratch_len`).
    let args = k.shape_sizes.join(", ");
    let call = if k.shape_sizes.is_empty() {
        format!("{}::SCRATCH_LEN", k.name.text)
    } else {
        format!("{}::scratch_len({args})", k.name.text)
    };
    if typed {
        let [a, b, c] = [0, 1, 2].map(|k| part_text(&total.parts[k]));
        out.push_str(&format!(
            "frame parts: f64 {a}, f32 {b}, usize {c} elements\n\
             frame total: ({a}) + ceil(({b}) / 2) + ({c}) 8-byte slots\n"
        ));
    } else {
        let total_text = part_text(&total.parts[0]);
        out.push_str(&format!("frame total: {total_text} f64 slots\n"));
    }
    // The generated code's length: the planner's peaks, as `scratch_len` computes them.
    let agrees = agree(&total, &planned.peaks, sizes);
    if options.storage == Storage::Region {
        out.push_str(&format!(
            "{call} = {}\n",
            if agrees {
                "the same"
            } else {
                "DIFFERENT (a bug)"
            }
        ));
    }
    if !sizes.is_empty() {
        let at: Vec<String> = sizes.iter().map(|(n, v)| format!("{n} = {v}")).collect();
        match evaluate_frame(&total, sizes) {
            Some(v) => out.push_str(&format!("at {}: {v} slots\n", at.join(", "))),
            None => out.push_str(&format!(
                "at {}: not computable (a size is missing, or an entry check fails)\n",
                at.join(", ")
            )),
        }
    }
    out
}

/// The plan's total and the generated code's peaks are the same, part by part: as
/// polynomials when the candidates match one to one, else at the given sizes.
fn agree(total: &Peaks, peaks: &Peaks, sizes: &SizeValues) -> bool {
    let matched = total.parts.iter().zip(&peaks.parts).all(|(t, p)| {
        // A part of only empty buffers is a 0 the code names.
        let p: Vec<&Size> = p.iter().filter(|s| s.as_const() != Some(0)).collect();
        t.len() == p.len() && t.iter().all(|t| p.iter().any(|p| p.same(t)))
    });
    matched || (!sizes.is_empty() && evaluate_frame(total, sizes) == evaluate_frame(peaks, sizes))
}

/// What a buffer holds, in the core's names (`heap`: an accumulator's buffers are one).
fn holds(h: &Holds, names: &[String], heap: bool) -> String {
    match h {
        Holds::Let(v) if names.get(*v as usize).is_some_and(|n| n == "hoisted") => {
            format!("{} (hoisted table)", print::var(*v, names))
        }
        Holds::Let(v) => format!("{} (let)", print::var(*v, names)),
        Holds::Acc { acc, first } => format!(
            "{} (ifold accumulator, {})",
            print::var(*acc, names),
            match (heap, *first) {
                (true, _) => "both buffers",
                (false, true) => "buffer 1: initial value",
                (false, false) => "buffer 2",
            }
        ),
        Holds::State(acc) => format!(
            "{} (ifold state, updated in place)",
            print::var(*acc, names)
        ),
        Holds::Value(form) => format!("a `{form}` where it is read"),
    }
}

/// `#i..#j`: the buffers made while buffer `i` is live.
fn live(i: usize, b: &Buffer) -> String {
    match b.freed {
        Some(j) if j <= i + 1 => format!("#{i}"),
        Some(j) => format!("#{i}..#{j}"),
        None => format!("#{i}..end"),
    }
}

/// Why the buffer is where it is: the stack rule (on top of the buffers live when it was
/// made), and the earlier buffer whose slots it reuses, if any.
fn rule(i: usize, b: &Buffer, all: &[Buffer]) -> String {
    if b.len.as_const() == Some(0) {
        return "empty: takes no room".into();
    }
    let mut r = match b.above.as_slice() {
        [] => "bottom: nothing live".to_string(),
        live => {
            let list: Vec<String> = live.iter().map(|j| format!("#{j}")).collect();
            format!("above live {}", list.join(", "))
        }
    };
    let reused = all[..i].iter().enumerate().rev().find(|(_, o)| {
        o.freed.is_some_and(|f| f <= i) && o.len.as_const() != Some(0) && o.offset.same(&b.offset)
    });
    if let Some((j, _)) = reused {
        r.push_str(&format!("; reuses #{j}'s slots"));
    }
    r
}

#[cfg(test)]
#[path = "memory_tests.rs"]
mod tests;

/// `s` as a simplified polynomial in the user's size names (`m + m + m` as `3 * m`), or
/// folded as written where it is no polynomial (a rounding quotient).
fn simplest(s: &fsmooth_core::front::size::Size) -> fsmooth_core::front::size::Size {
    s.poly().to_size().unwrap_or_else(|| s.fold())
}
