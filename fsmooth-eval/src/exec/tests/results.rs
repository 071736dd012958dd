//! Kernels with several results, hand-built: every output `outK` follows the rules of `out`
//! (length-checked before anything is written, untouched on an entry error, each slot
//! written once), and a tuple of scalars comes back whole.

use super::*;
use crate::exec::{Outputs, Scalar, call};

fn out(k: usize) -> Base {
    Base::OutPart(k)
}
/// Fill all `n` slots of `base` with `v`.
fn fill_all(base: Base, n: usize, v: f64) -> St {
    fill(base, None, n, vec![], vec![St::Slot(f(v))])
}
/// A kernel over `x = [1, 2, 3]` with outputs `out0` (3 slots) and `out1` (2 slots).
fn two_outs(body: Vec<St>, result: Option<Ex>) -> Result<Result<Outputs, String>, Fault> {
    call(&Func { body, result }, &xs(), &[("out0", 3), ("out1", 2)])
}
/// The entry of [`two_outs`]: both outputs length-checked, no frame.
fn entry() -> Vec<St> {
    vec![check_out(out(0), 3), check_out(out(1), 2), no_frame()]
}
#[track_caller]
fn faults_with(r: Result<Result<Outputs, String>, Fault>, want: &str) {
    match r {
        Err(Fault(m)) => assert!(m.contains(want), "fault `{m}`, wanted `{want}`"),
        r => panic!("{r:?}, wanted a fault `{want}`"),
    }
}

#[test]
fn two_array_results_and_two_scalar_results_all_come_back() {
    // out0 = 2 x, out1 = [0, 1]; the scalars: sum x (a loop) and len(out1).
    let mut body = entry();
    body.extend([
        fill(
            out(0),
            None,
            3,
            vec![stream(x(), 0, "e")],
            vec![St::Slot(bin(BinOp::Mul, elem("e"), f(2.0)))],
        ),
        fill(
            out(1),
            None,
            2,
            vec![],
            vec![St::Slot(Ex::ToF64(Box::new(var("i"))))],
        ),
        let_("s", true, f(0.0)),
        for_(
            u(3),
            vec![stream(x(), 0, "e")],
            vec![St::Assign(id("s"), bin(BinOp::Add, var("s"), elem("e")))],
        ),
    ]);
    let result = Ex::Tuple(vec![var("s"), Ex::Len(out(1))]);
    assert_eq!(
        two_outs(body, Some(result)),
        Ok(Ok(Outputs {
            arrays: vec![vec![2.0, 4.0, 6.0], vec![0.0, 1.0]],
            scalars: vec![Scalar::F64(6.0), Scalar::Usize(2)],
        }))
    );
}

#[test]
fn outputs_come_back_in_the_order_named_and_scalars_alone_are_a_tuple() {
    // `-> (f64, [f64; 1], bool)`: one output, `out1`, and two scalars.
    let body = vec![check_out(out(1), 1), fill_all(out(1), 1, 5.0)];
    let result = Ex::Tuple(vec![f(1.5), Ex::Bool(true)]);
    let f1 = Func {
        body,
        result: Some(result),
    };
    assert_eq!(
        call(&f1, &[], &[("out1", 1)]),
        Ok(Ok(Outputs {
            arrays: vec![vec![5.0]],
            scalars: vec![Scalar::F64(1.5), Scalar::Bool(true)],
        }))
    );
    // `-> (f64, usize)`: no output at all.
    let pair = Func {
        body: vec![],
        result: Some(Ex::Tuple(vec![f(2.0), u(3)])),
    };
    assert_eq!(
        call(&pair, &[], &[]),
        Ok(Ok(Outputs {
            arrays: vec![],
            scalars: vec![Scalar::F64(2.0), Scalar::Usize(3)],
        }))
    );
    // `run` returns one value: a tuple of scalars is not one.
    match run(&pair, &[], None) {
        Err(Fault(m)) => assert!(m.contains("returning 2 scalars run by `run`"), "{m}"),
        r => panic!("{r:?}"),
    }
}

#[test]
fn an_unwritten_slot_of_any_output_faults() {
    let mut body = entry();
    body.extend([
        fill_all(out(0), 3, 1.0),
        fill(out(1), None, 1, vec![], vec![St::Slot(f(1.0))]),
    ]);
    faults_with(two_outs(body, None), "out1 slot 1 never written");
    // The same with out1 whole and out0 short.
    let mut body = entry();
    body.extend([
        fill(out(0), Some(1), 2, vec![], vec![St::Slot(f(1.0))]),
        fill_all(out(1), 2, 1.0),
    ]);
    faults_with(two_outs(body, None), "out0 slot 0 never written");
}

#[test]
fn an_overlapping_write_through_a_concat_destination_faults() {
    // concat(x, [7, 8]) into out0 of 5 slots: x at 0..3, the second part at `second`.
    let concat = |second: usize| {
        let body = vec![
            check_out(out(0), 5),
            no_frame(),
            fill(
                out(0),
                Some(0),
                3,
                vec![stream(x(), 0, "e")],
                vec![St::Slot(elem("e"))],
            ),
            fill(
                out(0),
                Some(second),
                2,
                vec![],
                vec![St::Slot(bin(
                    BinOp::Add,
                    f(7.0),
                    Ex::ToF64(Box::new(var("i"))),
                ))],
            ),
        ];
        call(&Func { body, result: None }, &xs(), &[("out0", 5)])
    };
    assert_eq!(
        concat(3),
        Ok(Ok(Outputs {
            arrays: vec![vec![1.0, 2.0, 3.0, 7.0, 8.0]],
            scalars: vec![],
        }))
    );
    // One slot too early: out0[2] is written twice (and out0[4] never).
    faults_with(
        concat(2),
        "overlapping writes: out0[2] written twice, its first value never read",
    );
}

#[test]
fn a_slot_read_between_two_writes_is_an_accumulation_not_an_overlap() {
    // out0 = 1 then += x (a fill's `+=`), out1[0] = 1 then out1[0] = out1[0] * 2 (a load
    // and a store), out1[1] = x[0] by a copy.
    let mut body = entry();
    body.extend([
        fill_all(out(0), 3, 1.0),
        fill(
            out(0),
            None,
            3,
            vec![stream(x(), 0, "e")],
            vec![St::SlotAdd(elem("e"))],
        ),
        store(out(1), 0, f(1.0)),
        store(out(1), 0, bin(BinOp::Mul, ld(out(1), u(0)), f(2.0))),
        St::Copy {
            dst: out(1),
            dst_off: u(1),
            src: x(),
            src_off: u(0),
            n: u(1),
        },
    ]);
    assert_eq!(
        two_outs(body, None),
        Ok(Ok(Outputs {
            arrays: vec![vec![2.0, 3.0, 4.0], vec![2.0, 1.0]],
            scalars: vec![],
        }))
    );
    // Without the read, the second store overlaps the first; so does a second copy.
    let mut body = entry();
    body.extend([
        fill_all(out(0), 3, 1.0),
        store(out(1), 0, f(1.0)),
        store(out(1), 0, f(2.0)),
    ]);
    faults_with(two_outs(body, None), "out1[0] written twice");
    let copy = St::Copy {
        dst: out(0),
        dst_off: u(0),
        src: x(),
        src_off: u(0),
        n: u(3),
    };
    let mut body = entry();
    body.extend([copy.clone(), fill_all(out(1), 2, 0.0), copy]);
    faults_with(two_outs(body, None), "out0[0] written twice");
}

#[test]
fn every_output_is_length_checked_before_anything_is_written() {
    let rest = || vec![fill_all(out(0), 3, 1.0), fill_all(out(1), 2, 1.0)];
    // A wrong length is the kernel's error, every output untouched.
    let mut body = vec![check_out(out(0), 3), check_out(out(1), 4), no_frame()];
    body.extend(rest());
    match two_outs(body, None) {
        Ok(Err(m)) => assert!(
            m.contains("argument `out1` has length 2, but the kernel's signature requires 4"),
            "{m}"
        ),
        r => panic!("{r:?}"),
    }
    // out0 written before out1's failing check.
    let body = vec![
        check_out(out(0), 3),
        store(out(0), 1, f(1.0)),
        check_out(out(1), 4),
    ];
    faults_with(
        two_outs(body, None),
        "out0[1] was written before a length check failed",
    );
    // out1 written before an error raised before the frame.
    let body = vec![
        check_out(out(0), 3),
        check_out(out(1), 2),
        store(out(1), 0, f(1.0)),
        St::CheckRange(u(2), u(1), u(5)),
        frame(0),
    ];
    faults_with(
        two_outs(body, None),
        "out1[0] was written before an error raised before the frame",
    );
    // Written before its own check; never checked; checked under another name.
    let mut body = vec![check_out(out(0), 3), no_frame()];
    body.extend(rest());
    body.push(check_out(out(1), 2));
    faults_with(
        two_outs(body, None),
        "`out1` written before its length check",
    );
    let mut body = vec![check_out(out(0), 3), no_frame(), fill_all(out(0), 3, 1.0)];
    body.push(fill(out(1), None, 0, vec![], vec![]));
    let short = Func { body, result: None };
    faults_with(
        call(&short, &xs(), &[("out0", 3), ("out1", 0)]),
        "the length of `out1` is never checked",
    );
    let mut body = vec![
        check_out(out(0), 3),
        St::CheckLen {
            arg: "out".into(),
            base: out(1),
            want: u(2),
            elem: lir::Scalar::F64,
        },
    ];
    body.extend(rest());
    faults_with(
        two_outs(body, None),
        "the length check of `out1` reports the argument `out`",
    );
}

#[test]
fn the_outputs_must_match_the_kernel() {
    let mut body = entry();
    body.extend([fill_all(out(0), 3, 1.0), fill_all(out(1), 2, 1.0)]);
    // `out` in a kernel of several results, an output the call does not have.
    let mut with_out = body.clone();
    with_out.push(store(Base::Out, 0, f(1.0)));
    faults_with(
        two_outs(with_out, None),
        "`out` used in a kernel of several results",
    );
    let mut with_out2 = body.clone();
    with_out2.push(St::Let {
        id: id("k"),
        mutable: false,
        usize_ty: true,
        val: Ex::Len(out(2)),
    });
    faults_with(two_outs(with_out2, None), "unknown identifier `out2`");
    // A tuple is only the whole result, and only of several scalars.
    faults_with(
        two_outs(
            body.clone(),
            Some(bin(BinOp::Add, Ex::Tuple(vec![f(1.0), f(2.0)]), f(1.0))),
        ),
        "a tuple `(..)` that is not the kernel's result",
    );
    faults_with(
        two_outs(body.clone(), Some(Ex::Tuple(vec![f(1.0)]))),
        "a tuple result of 1 scalars",
    );
    // An array kernel (`out`) returns `Ok(())`.
    let f1 = Func {
        body: vec![check_out(Base::Out, 1), fill_all(Base::Out, 1, 1.0)],
        result: Some(Ex::Tuple(vec![f(1.0), f(2.0)])),
    };
    faults_with(call(&f1, &[], &[("out", 1)]), "has a scalar result");
}

#[test]
#[should_panic(expected = "output `out01` is neither `out` nor `outK`")]
fn output_names_are_those_the_compiler_prints() {
    let _ = call(
        &Func {
            body: vec![],
            result: None,
        },
        &[],
        &[("out01", 1)],
    );
}

#[test]
fn a_restated_fold_state_may_be_overwritten_unread() {
    // A fold iterating in out0 marks each state it replaces (`St::Restate`): a slot that
    // step does not read is written again without an overlap. Only the marked slots.
    let restate = |off: usize, n: usize| St::Restate {
        base: out(0),
        off: u(off),
        n: u(n),
    };
    let mut body = entry();
    body.extend([
        fill_all(out(0), 3, 1.0),
        fill_all(out(1), 2, 0.0),
        restate(0, 3),
        fill_all(out(0), 3, 2.0),
    ]);
    assert_eq!(
        two_outs(body, None),
        Ok(Ok(Outputs {
            arrays: vec![vec![2.0, 2.0, 2.0], vec![0.0, 0.0]],
            scalars: vec![],
        }))
    );
    let mut body = entry();
    body.extend([
        fill_all(out(0), 3, 1.0),
        fill_all(out(1), 2, 0.0),
        restate(0, 2),
        fill_all(out(0), 3, 2.0),
    ]);
    faults_with(two_outs(body, None), "out0[2] written twice");
    // Out of the output's range, or of something else than an output: a fault.
    let mut body = entry();
    body.extend([fill_all(out(0), 3, 1.0), restate(1, 3)]);
    faults_with(two_outs(body, None), "restate of out0[1..+3] out of range");
}

#[test]
fn a_loop_of_no_steps_reads_nothing_from_its_streams() {
    // A peeled interior of no steps: its stream and fill start past the end, which the
    // printed code's `get` skips, as it skips a loop of no steps.
    let mut body = entry();
    body.extend([
        fill(
            out(0),
            Some(4),
            0,
            vec![stream(x(), 5, "e")],
            vec![St::Slot(elem("e"))],
        ),
        fill_all(out(0), 3, 1.0),
        fill_all(out(1), 2, 0.0),
    ]);
    assert_eq!(
        two_outs(body, None),
        Ok(Ok(Outputs {
            arrays: vec![vec![1.0, 1.0, 1.0], vec![0.0, 0.0]],
            scalars: vec![],
        }))
    );
}
