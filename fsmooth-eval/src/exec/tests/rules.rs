//! What rustc would reject, what the kernel reports as an error, scoping, the step budget
//! and the kind of kernel.

use super::*;

#[test]
fn kernel_errors_come_back_as_errors() {
    let sub = Ex::Checked(
        Checked::Sub,
        Box::new(u(1)),
        Box::new(var("n")),
        "1 - n".into(),
    );
    errs(
        scalar(vec![let_("k", false, sub)], f(0.0)),
        "size arithmetic `1 - n` underflows",
    );
    let add = Ex::Checked(
        Checked::Add,
        Box::new(u(1)),
        Box::new(var("n")),
        "1 + n".into(),
    );
    assert_eq!(scalar(vec![], add), Ok(Ok(Returned::Usize(4))));
    errs(
        scalar(vec![], Ex::Check(Box::new(u(5)), Box::new(u(3)))),
        "index 5 out of bounds for an array of length 3",
    );
    assert_eq!(
        scalar(vec![], Ex::Check(Box::new(u(2)), Box::new(u(3)))),
        Ok(Ok(Returned::Usize(2)))
    );
    errs(
        scalar(vec![St::CheckRange(u(2), u(1), u(5))], f(0.0)),
        "index 1 out of bounds",
    );
    let check_len = St::CheckLen {
        arg: "x".into(),
        base: x(),
        want: u(4),
        elem: lir::Scalar::F64,
    };
    errs(
        array(vec![check_len.clone(), fill_out()], 3),
        "argument `x` has length 3, but the kernel's signature requires 4",
    );
    // `out` written before a failed length check (or any error before the frame).
    faults(
        array(vec![store(Base::Out, 0, f(1.0)), check_len, fill_out()], 3),
        "out[0] was written before a length check failed",
    );
    faults(
        array(
            vec![
                store(Base::Out, 0, f(1.0)),
                St::CheckRange(u(2), u(1), u(5)),
                frame(0),
                fill_out(),
            ],
            3,
        ),
        "out[0] was written before an error raised before the frame",
    );
    errs(
        array(
            vec![
                frame(0),
                store(Base::Out, 0, f(1.0)),
                St::CheckRange(u(2), u(1), u(5)),
            ],
            3,
        ),
        "index 1",
    );
}

#[test]
fn borrow_conflicts_fault() {
    faults(
        array(
            vec![
                fill(Base::Out, None, 3, vec![], vec![St::Slot(f(1.0))]),
                for_(
                    u(3),
                    vec![stream(Base::Out, 0, "o")],
                    vec![store(Base::Out, 0, elem("o"))],
                ),
            ],
            3,
        ),
        "stream buffer `out` written inside its loop",
    );
    // Statically, as rustc: even where the write never runs.
    faults(
        array(
            vec![
                fill_out(),
                for_(
                    u(0),
                    vec![stream(Base::Out, 0, "o")],
                    vec![St::If(Ex::Bool(false), vec![fill_out()], vec![])],
                ),
            ],
            3,
        ),
        "stream buffer `out` written inside its loop",
    );
    faults(
        array(
            vec![fill(
                Base::Out,
                None,
                3,
                vec![],
                vec![St::Slot(Ex::Len(Base::Out))],
            )],
            3,
        ),
        "`out` is used inside a fill over it",
    );
    faults(
        array(vec![store(x(), 0, f(1.0)), fill_out()], 3),
        "write to the parameter `x`",
    );
}

#[test]
fn scoping_and_names() {
    // Shadowing ends with the block.
    let body = vec![
        let_("y", false, f(1.0)),
        St::Block(vec![let_("y", false, f(2.0))]),
    ];
    assert_eq!(scalar(body, var("y")), Ok(Ok(Returned::F64(1.0))));
    faults(
        scalar(vec![St::Block(vec![let_("z", false, f(2.0))])], var("z")),
        "unknown identifier `z`",
    );
    // Assignment reaches the innermost binding; swap exchanges.
    let body = vec![
        let_("a", true, f(1.0)),
        let_("b", true, f(2.0)),
        St::Swap(id("a"), id("b")),
        St::Block(vec![St::Assign(id("a"), f(5.0))]),
    ];
    assert_eq!(
        scalar(body, bin(BinOp::Sub, var("a"), var("b"))),
        Ok(Ok(Returned::F64(4.0)))
    );
    faults(
        scalar(
            vec![let_("a", false, f(1.0)), St::Assign(id("a"), f(2.0))],
            var("a"),
        ),
        "assignment to the immutable `a`",
    );
    faults(
        scalar(
            vec![let_("a", true, f(1.0)), St::Assign(id("a"), u(2))],
            var("a"),
        ),
        "of usize to f64",
    );
    faults(
        scalar(vec![], bin(BinOp::Add, f(1.0), u(1))),
        "`+` on f64 and usize",
    );
    faults(
        scalar(vec![], Ex::Internal("lost a size")),
        "fsmooth internal error: lost a size",
    );
    faults(scalar(vec![], var("out")), "`out` used in a scalar kernel");
}

#[test]
fn runaway_loops_hit_the_budget() {
    faults(
        scalar(vec![for_(u(usize::MAX), vec![], vec![])], f(0.0)),
        "step budget exceeded",
    );
    // Counted over the whole call: 30M + 30M.
    let nested = for_(
        u(30_000_000),
        vec![],
        vec![for_(u(30_000_000), vec![], vec![])],
    );
    faults(scalar(vec![nested], f(0.0)), "step budget exceeded");
}

#[test]
fn kernel_kind_must_match_the_result() {
    faults(
        run(
            &Func {
                body: vec![],
                result: None,
            },
            &[],
            None,
        ),
        "a scalar kernel has no result",
    );
    faults(
        run(
            &Func {
                body: vec![],
                result: Some(f(1.0)),
            },
            &[],
            Some(0),
        ),
        "has a scalar result",
    );
    assert_eq!(
        run(
            &Func {
                body: vec![check_out(Base::Out, 0)],
                result: None
            },
            &[],
            Some(0)
        ),
        Ok(Ok(Returned::Out(vec![])))
    );
}

#[test]
fn and_or_short_circuit() {
    let panics = bin(BinOp::Eq, bin(BinOp::Div, u(1), u(0)), u(0));
    assert_eq!(
        scalar(vec![], bin(BinOp::And, Ex::Bool(false), panics.clone())),
        Ok(Ok(Returned::Bool(false)))
    );
    assert_eq!(
        scalar(vec![], bin(BinOp::Or, Ex::Bool(true), panics.clone())),
        Ok(Ok(Returned::Bool(true)))
    );
    faults(
        scalar(vec![], bin(BinOp::And, Ex::Bool(true), panics)),
        "`1 / 0` on usize panics",
    );
    assert_eq!(
        scalar(vec![], bin(BinOp::Ne, f(f64::NAN), f(f64::NAN))),
        Ok(Ok(Returned::Bool(true)))
    );
}
