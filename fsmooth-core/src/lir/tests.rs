//! Tests of the loop IR's visitors, constructors and stream pass.

use super::streams::for_each_stream;
use super::*;
use quote::ToTokens;

fn id(s: &str) -> Ident {
    Ident::new(s, proc_macro2::Span::call_site())
}

#[test]
fn unit_offsets_and_strides() {
    let (j, x, m) = (Ex::Var(id("j")), Ex::Var(id("x")), Ex::Var(id("m")));
    let w = Base::Param(id("w"));
    // `j` alone, `x + j`, `j + x`: one slot per step of `j`.
    assert!(matches!(unit_offset(&j, &id("j")), Some(None)));
    let xj = wadd(x.clone(), j.clone());
    assert!(same(&unit_offset(&xj, &id("j")).unwrap().unwrap(), &x));
    let jx = wadd(j.clone(), x.clone());
    assert!(same(&unit_offset(&jx, &id("j")).unwrap().unwrap(), &x));
    // `j * m + x` moves by m: a column.
    let col = wadd(wmul(j.clone(), m), x.clone());
    assert!(unit_offset(&col, &id("j")).is_none());
    assert!(strided_in(&Ex::Ld(w.clone(), Box::new(col)), &id("j")));
    assert!(!strided_in(&Ex::Ld(w.clone(), Box::new(xj)), &id("j")));
    // A load not at `j` is not strided in it.
    assert!(!strided_in(&Ex::Ld(w, Box::new(x)), &id("j")));
}

#[test]
fn plain_code_cannot_fail_or_write() {
    let ld = Ex::Ld(Base::Param(id("w")), Box::new(Ex::Var(id("i"))));
    assert!(plain_ex(&ld));
    let checked = Ex::Checked(
        Checked::Sub,
        Box::new(Ex::Var(id("p"))),
        Box::new(Ex::Usize(1)),
        "p - 1".into(),
    );
    assert!(!plain_ex(&checked));
    let lp = St::For {
        var: id("l"),
        n: Ex::Var(id("n")),
        streams: Vec::new(),
        body: vec![St::Assign(id("acc"), ld.clone())],
    };
    assert!(plain(std::slice::from_ref(&lp)));
    let store = St::Store(Base::Out, Ex::Usize(0), ld);
    assert!(!plain(&[store]));
}

/// `for l in 0..n { for j in 0..w { acc += base[l * w + j] } [and a store to base] }`
fn nest(base: Base, store: bool) -> Vec<St> {
    let (l, w) = (Ex::Var(id("l")), Ex::Var(id("w")));
    let inner = St::For {
        var: id("j"),
        n: w.clone(),
        streams: vec![Stream {
            base: base.clone(),
            start: wmul(l, w),
            elem: id("e"),
            width: None,
        }],
        body: vec![St::Assign(id("acc"), Ex::Elem(id("e")))],
    };
    let mut body = vec![inner];
    if store {
        body.push(St::Store(base, Ex::Usize(0), Ex::F64(1.0)));
    }
    vec![St::For {
        var: id("l"),
        n: Ex::Var(id("n")),
        streams: Vec::new(),
        body,
    }]
}

fn row_widths(sts: &[St]) -> Vec<String> {
    let mut out = Vec::new();
    walk_sts(sts, &mut |n| {
        if let Node::Stream(s) = n {
            out.push(match &s.width {
                Some(w) => format!("{} rows of {}", s.base.name(), w.to_token_stream()),
                None => format!("{} from {}", s.base.name(), s.start.to_token_stream()),
            });
        }
    });
    out
}

#[test]
fn rows_read_one_per_iteration_become_a_row_stream() {
    let mut sts = nest(Base::Param(id("b")), false);
    row_streams(&mut sts);
    assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
}

#[test]
fn rows_from_an_offset_start_there() {
    let mut sts = nest(Base::Param(id("b")), false);
    for_each_stream(&mut sts, &mut |_, st| {
        st.start = wadd(Ex::Var(id("c")), st.start.clone());
    });
    row_streams(&mut sts);
    assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
    let St::For { streams, .. } = &sts[0] else {
        panic!("{sts:?}")
    };
    assert_eq!(streams[0].start.to_token_stream().to_string(), "c");
}

#[test]
fn rows_from_a_shifted_index_start_at_that_row() {
    // `(l + 1) * w`, as a view of row `l + 1` writes it: the rows from row 1.
    let mut sts = nest(Base::Param(id("b")), false);
    for_each_stream(&mut sts, &mut |_, st| {
        let l1 = Ex::Wrap(
            Wrap::Add,
            Box::new(Ex::Var(id("l"))),
            Box::new(Ex::Usize(1)),
        );
        st.start = Ex::Wrap(Wrap::Mul, Box::new(l1), Box::new(Ex::Var(id("w"))));
    });
    row_streams(&mut sts);
    assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
    let St::For { streams, .. } = &sts[0] else {
        panic!("{sts:?}")
    };
    assert!(same(&streams[0].start, &Ex::Var(id("w"))), "{sts:?}");
}

#[test]
fn constants_fold_only_when_every_target_agrees() {
    assert!(same(&wmul(Ex::Usize(3), Ex::Usize(4)), &Ex::Usize(12)));
    assert!(same(&wadd(Ex::Usize(3), Ex::Usize(4)), &Ex::Usize(7)));
    assert!(same(
        &wmul(Ex::Usize(1), Ex::Var(id("n"))),
        &Ex::Var(id("n"))
    ));
    // 2^20 * 2^20 overflows a 32-bit usize: left for the target to compute (and wrap).
    let big = wmul(Ex::Usize(1 << 20), Ex::Usize(1 << 20));
    assert!(matches!(big, Ex::Wrap(Wrap::Mul, ..)), "{big:?}");
}

#[test]
fn no_row_stream_of_a_width_or_offset_bound_inside_the_loop() {
    for name in ["w", "c"] {
        let mut sts = nest(Base::Param(id("b")), false);
        for_each_stream(&mut sts, &mut |_, st| {
            st.start = wadd(Ex::Var(id("c")), st.start.clone());
        });
        if let St::For { body, .. } = &mut sts[0] {
            body.insert(
                0,
                St::Let {
                    id: id(name),
                    mutable: false,
                    usize_ty: true,
                    val: Ex::Usize(2),
                },
            );
        }
        row_streams(&mut sts);
        assert_eq!(
            row_widths(&sts),
            ["b from (c) . wrapping_add ((l) . wrapping_mul (w))"]
        );
    }
}

#[test]
fn loops_inside_expressions_take_row_streams_too() {
    // A fold's loop nest as a `let`'s value, and as a scalar kernel's result.
    let block = || {
        Ex::Block(
            nest(Base::Param(id("b")), false),
            Box::new(Ex::Var(id("acc"))),
        )
    };
    let mut sts = vec![St::Let {
        id: id("s"),
        mutable: false,
        usize_ty: false,
        val: block(),
    }];
    row_streams(&mut sts);
    assert_eq!(row_widths(&sts), ["b rows of w", "__rl_0 from 0usize"]);
    let mut result = Ex::Bin(BinOp::Add, Box::new(Ex::F64(1.0)), Box::new(block()));
    row_streams_ex(&mut result);
    let mut found = Vec::new();
    walk_ex(&result, &mut |n| {
        if let Node::Stream(s) = n {
            found.push(s.base.name());
        }
    });
    assert_eq!(found, ["b", "__rl_0"]);
    // The inner loop in an expression of the outer loop's body (GMM's loop over
    // components, whose body is the value it stores): the inner loop reads the row;
    // a buffer the outer loop writes keeps its offsets.
    let in_let = |base: Base, store: bool| {
        let mut sts = nest(base, store);
        if let St::For { body, .. } = &mut sts[0] {
            let inner = std::mem::take(body);
            body.push(St::Let {
                id: id("t"),
                mutable: false,
                usize_ty: false,
                val: Ex::Block(inner, Box::new(Ex::F64(0.0))),
            });
        }
        row_streams(&mut sts);
        row_widths(&sts)
    };
    assert_eq!(
        in_let(Base::Param(id("b")), false),
        ["b rows of w", "__rl_0 from 0usize"]
    );
    assert_eq!(
        in_let(Base::Scratch(Scalar::F64), true),
        ["scratch from (l) . wrapping_mul (w)"]
    );
}

/// `for j in 0..n [s] { [let s = 1;] for l in 0..count [t] { acc += t } [b[0] = 1] }`:
/// the outer stream reads `b` from `s`, the inner one from `inner_start`.
fn triangle(count: &str, inner_start: &str, rebind: bool, store: bool) -> Vec<St> {
    let stream = |start: &str, elem: &str| Stream {
        base: Base::Param(id("b")),
        start: Ex::Var(id(start)),
        elem: id(elem),
        width: None,
    };
    let inner = St::For {
        var: id("l"),
        n: Ex::Var(id(count)),
        streams: vec![stream(inner_start, "t")],
        body: vec![St::Assign(id("acc"), Ex::Elem(id("t")))],
    };
    let mut body = vec![inner];
    if rebind {
        body.insert(0, St::Assign(id("s"), Ex::Usize(1)));
    }
    if store {
        body.push(St::Store(Base::Param(id("b")), Ex::Usize(0), Ex::F64(1.0)));
    }
    vec![St::For {
        var: id("j"),
        n: Ex::Var(id("n")),
        streams: vec![stream("s", "e")],
        body,
    }]
}

#[test]
fn folds_as_long_as_the_enclosing_index_read_a_prefix_of_its_slice() {
    let widths = |mut sts: Vec<St>| {
        row_streams(&mut sts);
        row_widths(&sts)
    };
    assert_eq!(
        widths(triangle("j", "s", false, false)),
        ["b from s", "e_all from 0usize"]
    );
    // Not a prefix: another count, another start, a start the body reassigns, a
    // buffer the body writes.
    for (count, start, rebind, store) in [
        ("n", "s", false, false),
        ("j", "c", false, false),
        ("j", "s", true, false),
        ("j", "s", false, true),
    ] {
        let want = ["b from s".to_string(), format!("b from {start}")];
        assert_eq!(widths(triangle(count, start, rebind, store)), want);
    }
}

#[test]
fn no_row_stream_of_an_offset_the_loop_assigns() {
    // `c + l * w` with `c = 2;` inside the loop: the offset before the loop is not the
    // one the inner loop reads.
    let mut sts = nest(Base::Param(id("b")), false);
    for_each_stream(&mut sts, &mut |_, st| {
        st.start = wadd(Ex::Var(id("c")), st.start.clone());
    });
    if let St::For { body, .. } = &mut sts[0] {
        body.insert(0, St::Assign(id("c"), Ex::Usize(2)));
    }
    row_streams(&mut sts);
    assert_eq!(
        row_widths(&sts),
        ["b from (c) . wrapping_add ((l) . wrapping_mul (w))"]
    );
}

#[test]
fn no_row_stream_over_a_buffer_the_loop_writes() {
    let mut sts = nest(Base::Scratch(Scalar::F64), true);
    row_streams(&mut sts);
    assert_eq!(row_widths(&sts), ["scratch from (l) . wrapping_mul (w)"]);
}

#[test]
fn a_chunk_s_add_within_moves_both_slots_of_its_own_buffer_only() {
    // In a chunk of a parallel `build` (`ParRows`), an add between two rows of the output
    // addresses the chunk's part: both slots move by the chunk's first slot. One in the
    // frame does not move.
    let add = |base: Base| St::AddWithin {
        base,
        dst_off: Ex::Var(id("a")),
        src_off: Ex::Var(id("b")),
        n: Ex::Var(id("n")),
    };
    let mut sts = vec![add(Base::Out), add(Base::Scratch(Scalar::F64))];
    assert!(rebase(&mut sts, &Base::Out, &Ex::Var(id("first"))));
    let printed: Vec<String> = sts
        .iter()
        .map(|s| s.to_token_stream().to_string())
        .collect();
    assert!(
        printed[0].contains("(a) . wrapping_sub (first)")
            && printed[0].contains("(b) . wrapping_sub (first)"),
        "{}",
        printed[0]
    );
    assert!(!printed[1].contains("first"), "{}", printed[1]);
}
