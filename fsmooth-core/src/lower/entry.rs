//! The translation of a kernel's body ([`translate`]) and its entry ([`entry`]): sizes
//! bound from lengths, every length checked, the frame taken, then the body.

use crate::front::ast::Storage;
use crate::front::size::Size;
use crate::lir::{Base, Checked, Entry, Ex, FRAME_PARTS, Func, Scalar, St};
use crate::lower::dps::{Dps, Loc, View};
use crate::lower::storage::Holds;
use crate::lower::storage::{Buffer, Copied, Peaks, Taken};
use crate::middle::ir::{Kernel, Pin, Type};
use proc_macro2::{Ident, Span};

/// A kernel planned: its body in the loop IR and the candidate lengths of each part of the
/// frame (each part is their maximum).
pub struct Planned {
    /// The body: entry (sizes, length checks, frame), loops, result.
    pub func: Func,
    /// The candidate peaks of the frame's parts, as sizes (none with `storage = "heap"`).
    pub peaks: Peaks,
    /// Every allocation the planner made, in order (the memory plan; with `storage =
    /// "heap"` each is a heap buffer of its own, not a place in a frame).
    pub buffers: Vec<Buffer>,
    /// Every copy of an array already in memory into an output (the remark `copied`).
    pub copies: Vec<Copied>,
    /// Every array stored in the frame place of a dead one (a remark of its own).
    pub taken: Vec<Taken>,
}

/// How the body is lowered, decided by the block's options ([`crate::pipeline::lower`]).
#[derive(Clone, Copy, Debug)]
pub struct Lowering {
    /// Take a build over sum-folds several rows at a time and a matrix product's columns in
    /// tiles (the jam's rows and the tiles' columns): with fusion and unrolling on.
    pub block_sum_folds: bool,
    /// Give every array a heap buffer of its own instead of a frame slot
    /// (`storage = "heap"`).
    pub heap_arrays: bool,
    /// Write `concat`, `join` and `split` in place (off: their arguments are stored, then
    /// copied).
    pub views: bool,
    /// Run top-level sums of many steps in parallel (`lir::St::ParSum`): frame storage only.
    pub parallel: bool,
    /// Add the terms of a float sum whose step has no loop in lanes (`lir::St::Lanes`):
    /// `#![fsmooth(reassociate = true)]`.
    pub reassociate: bool,
    /// Write an array over the one it replaces (`lower/overwrite.rs`): with fusion
    /// on (off, every intermediate array is stored, as in the paper's D variant).
    pub overwrite: bool,
}

/// A kernel's body in the loop IR, before its entry is added: the statements that write
/// `out` (an array kernel) or the expression of the result (a scalar kernel), with the
/// translation's frame and size table.
pub struct Translated<'k> {
    /// The translation's state: its frame plan and the sizes the body computes at entry.
    pub dps: Dps<'k>,
    /// The statements writing `out` (empty for a scalar kernel).
    pub body: Vec<St>,
    /// The result of a scalar kernel.
    pub result: Option<Ex>,
}

/// The paper's D translation of an array kernel into `out`, or S of a scalar one.
pub fn translate(k: &Kernel, lowering: Lowering) -> Translated<'_> {
    let mut dps = Dps::new(k, lowering.heap_arrays);
    dps.jam = lowering.block_sum_folds;
    dps.views = lowering.views;
    dps.parallel = lowering.parallel;
    dps.reassociate = lowering.reassociate;
    if !lowering.overwrite {
        dps.overwrites.clear();
        dps.overwrite = false;
    }
    let (body, result) = if let Type::Tuple(parts) = &k.ret {
        // Several results: array components into their `outI`, scalars into locals returned.
        let mut code = Vec::new();
        let mut dests = Vec::new();
        let mut returned = Vec::new();
        for (pos, t) in parts.iter().enumerate() {
            if t.is_arr() {
                dests.push(Loc::View(View {
                    base: Base::OutPart(pos),
                    off: None,
                    dims: t.dims().to_vec(),
                }));
            } else {
                let loc = dps.place(t, &Holds::Value("result"), k.body.span, &mut code);
                if let Loc::Scalar(id) = &loc {
                    returned.push(Ex::Var(id.clone()));
                }
                dests.push(loc);
            }
        }
        code.extend(dps.write_parts(&k.body, &Loc::Tuple(dests)));
        let result = match returned.len() {
            0 => None,
            1 => returned.pop(),
            _ => Some(Ex::Tuple(returned)),
        };
        (code, result)
    } else if k.ret.is_arr() {
        let dest = View {
            base: Base::Out,
            off: None,
            dims: k.ret.dims().to_vec(),
        };
        (dps.write(&k.body, &dest), None)
    } else {
        (Vec::new(), Some(dps.scalar(&k.body)))
    };
    Translated { dps, body, result }
}

/// The whole function: sizes bound from lengths, then every length checked, then the frame
/// taken (from the region, the heap or not at all, by `storage`), then the body.
pub fn entry(k: &Kernel, translated: Translated<'_>, storage: Storage) -> Planned {
    let Translated {
        dps: mut g,
        body,
        result,
    } = translated;
    let mut peaks = Peaks::of(g.frame.buffers());
    // Allocations of no slots (`map(slide(3, [x, y]), f)` unfused: zero windows) take no
    // room, but the code that fills and reads them still names the frame's part: it is
    // empty.
    for (part, t) in peaks.parts.iter_mut().zip(FRAME_PARTS) {
        if part.is_empty() && g.frame.buffers().iter().any(|b| b.elem == t) {
            part.push(Size::Lit(0));
        }
    }

    // Entry: sizes from lengths, then every length, then the frame.
    let mut entry = Vec::new();
    let param_ident = |name: &str| {
        k.params
            .iter()
            .find(|p| p.name.text == name)
            .map(|p| crate::front::ast::ident(&p.name.text, p.name.span))
            .unwrap_or_else(|| crate::front::ast::ident(name, Span::call_site()))
    };
    let bind = |name: &str, val: Ex| St::Let {
        // The parameter carries the user's span; the size name is the macro's own local.
        id: crate::front::ast::ident(name, Span::call_site()),
        mutable: false,
        usize_ty: true,
        val,
    };
    for pin in &k.pins {
        entry.push(match pin {
            Pin::Param(name) => bind(name, Ex::Var(param_ident(name))),
            Pin::FromLen {
                name,
                param,
                others,
                power,
            } => {
                let rows = per_row(&param_ident(param), others);
                if *power == 1 {
                    bind(name, rows)
                } else {
                    bind(name, Ex::Entry(Entry::Root(*power as u32), vec![rows]))
                }
            }
            Pin::Linear {
                name,
                param,
                others,
                scale,
                offset,
            } => {
                let rows = per_row(&param_ident(param), others);
                let e = Entry::SolveLinear(*scale as usize, *offset as i128);
                bind(name, Ex::Entry(e, vec![rows]))
            }
        });
    }
    for (s, what) in &k.entry_sizes {
        g.sizes.nonzero(s, what);
    }
    let mut checks = Vec::new();
    let elem = |t: &Type| t.scalar().unwrap_or(Scalar::F64);
    for p in &k.params {
        if let Type::Arr(..) = &p.ty {
            checks.push(St::CheckLen {
                arg: p.name.text.clone(),
                base: Base::Param(crate::front::ast::ident(&p.name.text, p.name.span)),
                want: g.sizes.get(&p.ty.slots()),
                elem: elem(&p.ty),
            });
        }
    }
    if k.ret.is_arr() {
        checks.push(St::CheckLen {
            arg: "out".into(),
            base: Base::Out,
            want: g.sizes.get(&k.ret.slots()),
            elem: elem(&k.ret),
        });
    }
    for (pos, t) in k.ret.parts().iter().enumerate() {
        if t.is_arr() {
            checks.push(St::CheckLen {
                arg: format!("out{pos}"),
                base: Base::OutPart(pos),
                want: g.sizes.get(&t.slots()),
                elem: elem(t),
            });
        }
    }
    // The columns of index arrays, once the lengths are known to be right.
    checks.extend(g.gather_checks());
    // Only the default storage takes the frame from the region. (The sizes of the frame's
    // length are computed at entry all the same, as they always were: a heap kernel's code
    // stays what it was.)
    let peaks = match storage {
        Storage::Heap => {
            for part in &peaks.parts {
                part_len(&mut g, part);
            }
            Peaks::default()
        }
        _ => peaks,
    };
    let frame = frame(&mut g, &peaks, storage == Storage::HeapFrame);
    // Size statements go after the pins (they only use size names).
    let mut all = entry;
    all.extend(g.sizes.statements());
    all.extend(checks);
    all.push(frame);
    all.extend(body);
    Planned {
        func: Func { body: all, result },
        peaks,
        buffers: g.frame.buffers().to_vec(),
        copies: g.frame.copies.clone(),
        taken: g.frame.taken.clone(),
    }
}

/// The length of a part of the frame, the largest of its candidates (`None`: no part).
fn part_len(g: &mut Dps<'_>, peaks: &[Size]) -> Option<Ex> {
    peaks
        .iter()
        .map(|p| g.sizes.get(p))
        .reduce(|a, b| Ex::Entry(Entry::Max, vec![a, b]))
}

/// Taking the frame: its length (the f64 part's alone, as it always was, or the slots of
/// every part), and its parts when it has parts of other types.
fn frame(g: &mut Dps<'_>, peaks: &Peaks, heap: bool) -> St {
    if !peaks.typed() {
        let len = part_len(g, &peaks.parts[0]);
        return St::Frame {
            constant: len.as_ref().and(const_frame(&peaks.parts[0])),
            len,
            heap,
            parts: None,
        };
    }
    let parts = [0, 1, 2].map(|k| part_len(g, &peaks.parts[k]));
    let counts = parts.clone().map(|p| p.unwrap_or(Ex::Usize(0))).to_vec();
    let consts = [0, 1, 2].map(|k| const_frame(&peaks.parts[k]));
    let constant = match consts {
        [Some(a), Some(b), Some(c)] => Some(fsmooth_slots(a, b, c)),
        _ => None,
    };
    St::Frame {
        len: Some(Ex::Entry(Entry::Slots, counts)),
        constant,
        heap,
        parts: Some(Box::new(parts)),
    }
}

/// `fsmooth::__rt::slots` at compile time.
fn fsmooth_slots(f64s: usize, f32s: usize, usizes: usize) -> usize {
    f64s.saturating_add(f32s.div_ceil(2)).saturating_add(usizes)
}

/// The largest of a part's candidates when they are constants (0 for none).
fn const_frame(peaks: &[Size]) -> Option<usize> {
    peaks
        .iter()
        .map(|p| p.as_const().map(|c| c as usize))
        .try_fold(0usize, |m, c| Some(m.max(c?)))
}

/// `len(param) / product(others)`: how many times the other dimensions fit in the length.
/// Saturating: an overflowing product fails the length check that follows. Where the other
/// dimensions are sizes that may be 0 (`[[f32; ni]; no]` with ni = 0), the length says
/// nothing of the size: the division is checked, `Error::Arithmetic` naming it
/// (LANGUAGE.md section 16), rather than a size made up.
fn per_row(param: &Ident, others: &[Size]) -> Ex {
    let product = others.iter().cloned().reduce(Size::times);
    let len = Ex::Len(Base::Param(param.clone()));
    match product {
        Some(p) if p.as_const().is_none() => {
            let what = format!(
                "{}.len() / ({})",
                param.to_string().trim_start_matches("r#"),
                p
            );
            Ex::Checked(Checked::Div, Box::new(len), Box::new(Ex::Const(p)), what)
        }
        p => Ex::Entry(
            Entry::FromLen,
            vec![len, p.map(Ex::Const).unwrap_or(Ex::Usize(1))],
        ),
    }
}
