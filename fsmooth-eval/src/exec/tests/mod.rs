//! Tests of the executor. Here: correct kernels run and give what the printed code gives;
//! `memory`: the faults of the frame and the buffers; `rules`: what rustc would reject,
//! kernel errors, scoping, the step budget; `results`: kernels with several results, their
//! outputs' rules; `compiled`: kernels compiled from source with several results, scans and
//! views; `cuts`: pieces of the frame and rows of one length.

mod compiled;
mod cuts;
mod memory;
mod results;
mod rules;
mod typed;

use super::{Arg, Fault, Returned, run};
use fsmooth_core::front::ast::{BinOp, MathFn};
use fsmooth_core::front::size::Size;
use fsmooth_core::lir::{self, Base, Checked, Entry, Ex, Func, St, Stream, Wrap};
use proc_macro2::{Ident, Span};

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
/// The frame's f64 part.
fn scratch() -> Base {
    Base::Scratch(lir::Scalar::F64)
}
fn ld(b: Base, at: Ex) -> Ex {
    Ex::Ld(b, Box::new(at))
}
fn frame(n: usize) -> St {
    St::Frame {
        len: Some(u(n)),
        constant: None,
        heap: false,
        parts: None,
    }
}
fn no_frame() -> St {
    St::Frame {
        len: None,
        constant: None,
        heap: false,
        parts: None,
    }
}
fn alloc(off: usize, len: usize) -> St {
    St::Alloc {
        elem: lir::Scalar::F64,
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
    vec![("x", Arg::Array(vec![1.0, 2.0, 3.0]))]
}
/// The entry's length check of output `base` (`out` or `outK`).
fn check_out(base: Base, len: usize) -> St {
    St::CheckLen {
        arg: base.name(),
        base,
        want: u(len),
        elem: lir::Scalar::F64,
    }
}
/// An array kernel over `x = [1, 2, 3]`, `out` length-checked first.
fn array(mut body: Vec<St>, out_len: usize) -> Result<Result<Returned, String>, Fault> {
    body.insert(0, check_out(Base::Out, out_len));
    run(&Func { body, result: None }, &xs(), Some(out_len))
}
/// A scalar kernel over `x = [1, 2, 3]` and `n = 3`.
fn scalar(body: Vec<St>, result: Ex) -> Result<Result<Returned, String>, Fault> {
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
fn faults(r: Result<Result<Returned, String>, Fault>, want: &str) {
    match r {
        Err(Fault(m)) => assert!(m.contains(want), "fault `{m}`, wanted `{want}`"),
        r => panic!("{r:?}, wanted a fault `{want}`"),
    }
}
#[track_caller]
fn errs(r: Result<Result<Returned, String>, Fault>, want: &str) {
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
            elem: lir::Scalar::F64,
        },
        frame(3),
        alloc(0, 3),
        fill(
            scratch(),
            None,
            3,
            vec![stream(x(), 0, "e")],
            vec![St::Slot(bin(BinOp::Mul, elem("e"), f(2.0)))],
        ),
        fill(
            Base::Out,
            Some(0),
            3,
            vec![stream(scratch(), 0, "s")],
            vec![
                St::Slot(bin(BinOp::Add, elem("s"), Ex::ToF64(Box::new(var("i"))))),
                St::SlotAdd(f(0.5)),
            ],
        ),
    ];
    assert_eq!(array(body, 3), Ok(Ok(Returned::Out(vec![2.5, 5.5, 8.5]))));
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
            dst: scratch(),
            dst_off: u(0),
            src: x(),
            src_off: u(1),
            n: u(2),
        },
    ];
    let result = bin(BinOp::Add, var("acc"), ld(scratch(), u(1)));
    assert_eq!(scalar(body, result), Ok(Ok(Returned::F64(14.0 + 3.0))));
}

#[test]
fn entries_math_and_sizes_match_the_runtime() {
    let entry = |e: Entry, xs: Vec<Ex>| Ex::Entry(e, xs);
    let cases = [
        (entry(Entry::Root(3), vec![u(27)]), Returned::Usize(3)),
        (entry(Entry::Root(2), vec![u(26)]), Returned::Usize(5)),
        (entry(Entry::FromLen, vec![u(12), u(0)]), Returned::Usize(0)),
        (entry(Entry::FromLen, vec![u(12), u(4)]), Returned::Usize(3)),
        (
            entry(Entry::SolveLinear(2, -1), vec![u(7)]),
            Returned::Usize(4),
        ),
        (entry(Entry::Max, vec![u(2), u(9)]), Returned::Usize(9)),
        (
            Ex::Math(MathFn::Powi, vec![f(2.0), u(10)]),
            Returned::F64(1024.0),
        ),
        (Ex::Math(MathFn::Sqrt, vec![f(9.0)]), Returned::F64(3.0)),
        (
            Ex::Math(MathFn::Max, vec![f(f64::NAN), f(1.0)]),
            Returned::F64(1.0),
        ),
        (Ex::ToUsize(Box::new(f(f64::NAN))), Returned::Usize(0)),
        (Ex::ToUsize(Box::new(f(-3.5))), Returned::Usize(0)),
        (Ex::ToUsize(Box::new(f(1e300))), Returned::Usize(usize::MAX)),
        // Saturating sizes: 2 - n is 0, n * huge saturates, `%` by 0 is usize::MAX.
        (
            Ex::Const(Size::Sub(
                Box::new(Size::Lit(2)),
                Box::new(Size::Name("n".into())),
            )),
            Returned::Usize(0),
        ),
        (
            Ex::Const(Size::Mul(
                Box::new(Size::Name("n".into())),
                Box::new(Size::Lit(u64::MAX)),
            )),
            Returned::Usize(usize::MAX),
        ),
        (
            Ex::Const(Size::Rem(
                Box::new(Size::Name("n".into())),
                Box::new(Size::Sub(Box::new(Size::Lit(1)), Box::new(Size::Lit(1)))),
            )),
            Returned::Usize(usize::MAX),
        ),
        (
            Ex::Wrap(Wrap::Sub, Box::new(u(0)), Box::new(u(1))),
            Returned::Usize(usize::MAX),
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
            Ex::LdRow(Base::Row(id("g")), Box::new(u(0)), 2, 1, lir::Scalar::F64),
        )],
    };
    let rest = fill(Base::Out, Some(1), 2, vec![], vec![St::Slot(f(1.0))]);
    assert_eq!(
        array(vec![no_frame(), rest, seg(1)], 3),
        Ok(Ok(Returned::Out(vec![3.0, 1.0, 1.0])))
    );
    faults(
        array(vec![no_frame(), fill_out(), seg(2)], 3),
        "proven segment x[0 + 2..+2] out of its 3 slots",
    );
}

#[test]
fn row_stores_write_their_row_or_fault_whole() {
    let row = |off: usize| St::StoreRow(Base::Out, u(off), vec![f(4.0), f(5.0)]);
    let first = fill(Base::Out, None, 1, vec![], vec![St::Slot(f(1.0))]);
    assert_eq!(
        array(vec![no_frame(), first, row(1)], 3),
        Ok(Ok(Returned::Out(vec![1.0, 4.0, 5.0])))
    );
    // One slot past the end: the printed `st_row` would store nothing.
    faults(
        array(vec![no_frame(), fill_out(), row(2)], 3),
        "proven row store out[2..+2] out of range for length 3",
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
    assert_eq!(prog(3, 1, 1), Ok(Ok(Returned::F64(6.0))));
    assert_eq!(prog(1, 3, 3), Ok(Ok(Returned::F64(6.0))));
    assert_eq!(prog(1, 3, 2), Ok(Ok(Returned::F64(3.0))));
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
    assert_eq!(prog(2, var("i")), Ok(Ok(Returned::F64(2.0))));
    assert_eq!(prog(0, var("i")), Ok(Ok(Returned::F64(0.0))));
    // A prefix longer than the slice: the printed `get` would skip the loop.
    faults(
        prog(2, bin(BinOp::Add, var("i"), u(2))),
        "out of its row of 2",
    );
}

#[test]
fn row_loads_stay_in_their_row() {
    let ldr =
        |off: usize, w: usize, k: usize| Ex::LdRow(x(), Box::new(u(off)), w, k, lir::Scalar::F64);
    assert_eq!(scalar(vec![], ldr(1, 2, 1)), Ok(Ok(Returned::F64(3.0))));
    faults(
        scalar(vec![], ldr(1, 3, 0)),
        "proven row load x[1..1 + 3][0]",
    );
    faults(
        scalar(vec![], ldr(0, 2, 2)),
        "proven row load x[0..0 + 2][2]",
    );
}
