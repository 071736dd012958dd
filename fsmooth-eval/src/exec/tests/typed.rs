//! Typed buffers and values: f32 arithmetic in f32, usize buffers, the frame's parts per
//! element type, index array checks; and the type mismatches rustc would reject, which the
//! executor flags.

use super::*;
use crate::exec::{Outputs, Scalar as Result_, call};
use lir::Scalar;

fn f32_(v: f32) -> Ex {
    Ex::F32(v)
}
fn check_len(arg: &str, base: Base, want: usize, elem: Scalar) -> St {
    St::CheckLen {
        arg: arg.into(),
        base,
        want: u(want),
        elem,
    }
}
/// A frame of `parts` element counts (f64, f32, usize), each part named.
fn parts(counts: [usize; 3]) -> St {
    let [a, b, c] = counts;
    St::Frame {
        len: Some(Ex::Entry(Entry::Slots, vec![u(a), u(b), u(c)])),
        constant: None,
        heap: false,
        parts: Some(Box::new(counts.map(|k| Some(u(k))))),
    }
}
fn alloc_of(elem: Scalar, off: usize, len: usize) -> St {
    St::Alloc {
        elem,
        off: u(off),
        len: u(len),
    }
}
fn run_with(
    body: Vec<St>,
    params: &[(&str, Arg)],
    outs: &[(&str, usize)],
    result: Option<Ex>,
) -> Result<Result<Outputs, String>, Fault> {
    call(&Func { body, result }, params, outs)
}
#[track_caller]
fn faulted(r: Result<Result<Outputs, String>, Fault>, want: &str) {
    match r {
        Err(Fault(m)) => assert!(m.contains(want), "fault `{m}`, wanted `{want}`"),
        r => panic!("{r:?}, wanted a fault `{want}`"),
    }
}

#[test]
fn f32_arithmetic_is_f32() {
    // 0.1f32 * 3 in f32 differs from the same in f64 rounded to f32.
    let y = || Ex::Var(id("y"));
    let body = vec![let_("y", false, Ex::Var(id("s")))];
    let prod = bin(BinOp::Mul, y(), f32_(3.0));
    let got = run_with(body, &[("s", Arg::F32(0.1))], &[], Some(prod)).unwrap();
    assert_eq!(got.unwrap().scalars, [Result_::F32(0.1f32 * 3.0)]);
    // Mixed widths are a type error.
    let mixed = bin(BinOp::Add, Ex::Var(id("s")), f(1.0));
    faulted(
        run_with(vec![], &[("s", Arg::F32(0.1))], &[], Some(mixed)),
        "`+` on f32 and f64",
    );
    // Casts: f32 -> f64 exact, f64 -> f32 rounds, f32 -> usize saturates.
    let cast = Ex::ToF64(Box::new(Ex::ToF32(Box::new(f(0.1)))));
    let got = run_with(vec![], &[], &[], Some(cast)).unwrap().unwrap();
    assert_eq!(got.scalars, [Result_::F64(f64::from(0.1f32))]);
    let sat = Ex::ToUsize(Box::new(f32_(-3.5)));
    let got = run_with(vec![], &[], &[], Some(sat)).unwrap().unwrap();
    assert_eq!(got.scalars, [Result_::Usize(0)]);
}

#[test]
fn math_on_each_type_is_the_runtimes() {
    let m = |f: MathFn, xs: Vec<Ex>| run_with(vec![], &[], &[], Some(Ex::Math(f, xs)));
    let got = m(MathFn::Atan2, vec![f32_(1.0), f32_(-2.0)])
        .unwrap()
        .unwrap();
    assert_eq!(got.scalars, [Result_::F32(1.0f32.atan2(-2.0))]);
    let got = m(MathFn::MulAdd, vec![f(0.1), f(10.0), f(-1.0)])
        .unwrap()
        .unwrap();
    assert_eq!(got.scalars, [Result_::F64(0.1f64.mul_add(10.0, -1.0))]);
    // clamp is max(lo).min(hi) on usize: no panic when lo > hi.
    let got = m(MathFn::Clamp, vec![u(5), u(7), u(3)]).unwrap().unwrap();
    assert_eq!(got.scalars, [Result_::Usize(3)]);
    let got = m(MathFn::Min, vec![u(5), u(7)]).unwrap().unwrap();
    assert_eq!(got.scalars, [Result_::Usize(5)]);
    faulted(m(MathFn::Sqrt, vec![u(4)]), "`sqrt` on usize");
    faulted(
        m(MathFn::Hypot, vec![f32_(3.0), f(4.0)]),
        "`hypot` on f32, f64",
    );
}

#[test]
fn buffers_hold_their_element_type() {
    // out: &mut [f32], written with f32 values from an f32 parameter.
    let x32 = || Arg::F32s(vec![1.5, 2.5, -0.25]);
    let body = vec![
        check_len("x", x(), 3, Scalar::F32),
        check_len("out", Base::Out, 3, Scalar::F32),
        no_frame(),
        fill(
            Base::Out,
            None,
            3,
            vec![stream(x(), 0, "e")],
            vec![St::Slot(bin(BinOp::Mul, elem("e"), f32_(2.0)))],
        ),
    ];
    let got = run_with(body.clone(), &[("x", x32())], &[("out", 3)], None);
    assert_eq!(got.unwrap().unwrap().arrays, [vec![3.0, 5.0, -0.5]]);
    // An f64 value stored to it is a type error.
    let mut wrong = body.clone();
    wrong[3] = fill(Base::Out, None, 3, vec![], vec![St::Slot(f(1.0))]);
    faulted(
        run_with(wrong, &[("x", x32())], &[("out", 3)], None),
        "f64 stored to `out`, a buffer of f32",
    );
    // An argument of another element type than the signature's.
    faulted(
        run_with(
            body,
            &[("x", Arg::Array(vec![1.0; 3]))],
            &[("out", 3)],
            None,
        ),
        "`x` holds f64, but the signature has `&[f32]`",
    );
}

#[test]
fn each_part_of_the_frame_is_a_stack_of_its_own() {
    // One f64 slot, three f32 and two usize: 1 + 2 + 2 slots.
    let scratch32 = Base::Scratch(Scalar::F32);
    let body = vec![
        check_out(Base::Out, 3),
        parts([1, 3, 2]),
        alloc_of(Scalar::F64, 0, 1),
        // Each part starts at 0: no overlap with the f64 buffer.
        alloc_of(Scalar::F32, 0, 3),
        fill(
            scratch32.clone(),
            None,
            3,
            vec![],
            vec![St::Slot(f32_(0.5))],
        ),
        fill(
            Base::Out,
            None,
            3,
            vec![stream(scratch32.clone(), 0, "e")],
            vec![St::Slot(Ex::ToF64(Box::new(elem("e"))))],
        ),
    ];
    let got = run_with(body.clone(), &[], &[("out", 3)], None);
    assert_eq!(got.unwrap().unwrap().arrays, [vec![0.5; 3]]);
    // Overlap within a part faults; an allocation past its part faults.
    let mut over = body.clone();
    over.insert(4, alloc_of(Scalar::F32, 2, 1));
    faulted(
        run_with(over, &[], &[("out", 3)], None),
        "overlapping live buffers: scratch_f32[2..3]",
    );
    let mut past = body.clone();
    past[3] = alloc_of(Scalar::Usize, 0, 3);
    faulted(
        run_with(past, &[], &[("out", 3)], None),
        "allocation outside the frame: scratch_usize[0..0+3] in a part of 2",
    );
    // A part the frame does not name cannot be used.
    let mut unnamed = body;
    unnamed[1] = St::Frame {
        len: Some(u(1)),
        constant: None,
        heap: false,
        parts: Some(Box::new([Some(u(1)), None, None])),
    };
    faulted(
        run_with(unnamed, &[], &[("out", 3)], None),
        "without a frame",
    );
}

#[test]
fn index_arrays_are_checked_before_anything_is_written() {
    let obs = Base::Param(id("obs"));
    let body = |len: usize| {
        vec![
            check_len("obs", obs.clone(), 4, Scalar::Usize),
            check_out(Base::Out, 3),
            St::CheckColumn {
                base: obs.clone(),
                at: u(1),
                stride: u(2),
                len: u(len),
            },
            no_frame(),
            fill_out(),
        ]
    };
    let args = [("obs", Arg::Usizes(vec![9, 0, 9, 2]))];
    let got = run_with(body(3), &args, &[("out", 3)], None);
    assert_eq!(got.unwrap().unwrap().arrays, [vec![1.0; 3]]);
    let got = run_with(body(2), &args, &[("out", 3)], None);
    assert_eq!(
        got,
        Ok(Err(
            fsmooth_runtime::Error::Index { index: 2, len: 2 }.to_string()
        ))
    );
    // Only a usize array can be checked so.
    let f64s = [("obs", Arg::Array(vec![0.0; 4]))];
    let mut b = body(3);
    b[0] = check_len("obs", obs.clone(), 4, Scalar::F64);
    faulted(
        run_with(b, &f64s, &[("out", 3)], None),
        "`check_column` of `obs`",
    );
}
