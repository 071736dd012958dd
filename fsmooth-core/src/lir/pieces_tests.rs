//! Tests of the frame's cut into pieces ([`super::frame_pieces`]).

use super::*;
use quote::ToTokens;

fn id(s: &str) -> Ident {
    Ident::new(s, proc_macro2::Span::call_site())
}

fn var(s: &str) -> Ex {
    Ex::Var(id(s))
}

const FRAME: Base = Base::Scratch(Scalar::F64);

fn alloc(off: &str) -> St {
    St::Alloc {
        elem: Scalar::F64,
        off: var(off),
        len: var("n"),
    }
}

fn ld(at: Ex) -> Ex {
    Ex::Ld(FRAME, Box::new(at))
}

fn times_two(e: Ex) -> Ex {
    Ex::Bin(BinOp::Mul, Box::new(e), Box::new(Ex::F64(2.0)))
}

fn for_i(body: Vec<St>) -> St {
    St::For {
        var: id("i"),
        n: var("n"),
        streams: Vec::new(),
        body,
    }
}

fn text(sts: &[St]) -> String {
    sts.iter()
        .map(|s| s.to_token_stream().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `za[i] = zb[i] * 2` for the allocations at `za` and `zb`.
fn copy_doubled() -> St {
    let at = |z: &str| wadd(var(z), var("i"));
    for_i(vec![St::Store(FRAME, at("za"), times_two(ld(at("zb"))))])
}

#[test]
fn a_loop_writing_one_allocation_fills_it_and_streams_the_other() {
    let mut sts = vec![alloc("za"), alloc("zb"), copy_doubled()];
    frame_pieces(&mut sts);
    let St::Pieces { pieces, body, .. } = &sts[2] else {
        panic!("not cut: {}", text(&sts));
    };
    let starts: Vec<String> = pieces
        .iter()
        .map(|(_, s)| s.to_token_stream().to_string())
        .collect();
    assert_eq!(starts, ["za", "zb"]);
    let [
        St::Fill {
            base,
            off: None,
            streams,
            body: fill,
            ..
        },
    ] = &body[..]
    else {
        panic!("no fill: {}", text(body));
    };
    assert_eq!(*base, Base::Piece(pieces[0].0.clone()));
    assert_eq!(streams.len(), 1);
    assert_eq!(streams[0].base, Base::Piece(pieces[1].0.clone()));
    assert!(
        matches!(&fill[..], [St::Slot(Ex::Bin(BinOp::Mul, e, _))] if matches!(**e, Ex::Elem(_)))
    );
    let printed = text(&sts);
    assert!(
        printed.contains(":: pieces (scratch , [za , zb])"),
        "{printed}"
    );
    // The frame is reached through the pieces alone.
    assert_eq!(printed.matches("scratch").count(), 1, "{printed}");
}

#[test]
fn a_sum_into_a_row_becomes_an_added_slot_through_its_let_and_copies_of_the_index() {
    // let a = i; let __v = za[r + a] + zb[a]; za[r + a] = __v
    let at = wadd(var("r"), var("a"));
    let body = vec![
        St::Let {
            id: id("a"),
            mutable: false,
            usize_ty: true,
            val: var("i"),
        },
        St::Let {
            id: id("__v"),
            mutable: false,
            usize_ty: false,
            val: Ex::Bin(
                BinOp::Add,
                Box::new(ld(wadd(var("za"), at.clone()))),
                Box::new(ld(wadd(var("zb"), var("a")))),
            ),
        },
        St::Store(FRAME, wadd(var("za"), at), var("__v")),
    ];
    let mut sts = vec![alloc("za"), alloc("zb"), for_i(body)];
    frame_pieces(&mut sts);
    let printed = text(&sts);
    let St::Pieces { body, .. } = &sts[2] else {
        panic!("not cut: {printed}");
    };
    let [
        St::Fill {
            off: Some(r),
            body: fill,
            streams,
            ..
        },
    ] = &body[..]
    else {
        panic!("no fill: {printed}");
    };
    assert!(same(r, &var("r")), "{printed}");
    assert_eq!(streams.len(), 1, "{printed}");
    assert!(
        matches!(fill.last(), Some(St::SlotAdd(Ex::Elem(_)))),
        "{printed}"
    );
    assert!(!printed.contains("let __v"), "{printed}");
}

#[test]
fn loops_the_cut_cannot_place_are_left_as_they_are() {
    // An access at a slot that is no live allocation's first slot plus an index.
    let stray = for_i(vec![St::Store(
        FRAME,
        var("i"),
        ld(wadd(var("zb"), var("i"))),
    )]);
    // A loop that allocates (its inner loop is cut instead).
    let allocating = for_i(vec![alloc("zc"), copy_doubled()]);
    // The written slot read again in the loop: no fill, and nothing to stream (it is cut
    // when the allocation at slot 0 is no other: see the next test).
    let at = wadd(var("za"), var("i"));
    let sum = Ex::Bin(BinOp::Add, Box::new(var("acc")), Box::new(ld(at.clone())));
    let reread = for_i(vec![
        St::Store(FRAME, at, Ex::F64(1.0)),
        St::Assign(id("acc"), sum),
    ]);
    let mut sts = vec![alloc("za"), alloc("zb"), stray, allocating, reread];
    let before = sts.clone();
    frame_pieces(&mut sts);
    assert_eq!(text(&sts[2..3]), text(&before[2..3]));
    assert!(matches!(&sts[4], St::Pieces { .. }), "{}", text(&sts[4..]));
    let St::For { body, .. } = &sts[3] else {
        panic!("{}", text(&sts[3..4]));
    };
    assert!(matches!(&body[1], St::Pieces { .. }), "{}", text(body));
}

#[test]
fn a_piece_written_in_the_loop_is_not_streamed() {
    // zb[i] = za[i]; za[i + 1] = 0: za is written, so its read stays a load.
    let at = |z: &str| wadd(var(z), var("i"));
    let lp = for_i(vec![
        St::Store(FRAME, at("zb"), ld(at("za"))),
        St::Store(FRAME, wadd(at("za"), Ex::Usize(1)), Ex::F64(0.0)),
    ]);
    let mut sts = vec![alloc("za"), alloc("zb"), lp];
    frame_pieces(&mut sts);
    let printed = text(&sts);
    // zb is a fill (used nowhere else); za's read stays a load of its piece.
    assert!(printed.contains(":: ld (__piece"), "{printed}");
    let St::Pieces { body, .. } = &sts[2] else {
        panic!("{printed}");
    };
    assert!(
        matches!(&body[0], St::Fill { streams, .. } if streams.is_empty()),
        "{printed}"
    );
}

#[test]
fn a_loop_writing_an_enclosing_fill_s_slot_stays_a_for() {
    // for each slot of `out`: for i { za[i] = zb[i]; *__slot += 1 }: `za` could be a fill,
    // but the loop writes the enclosing fill's slot, which a fill of its own would shadow.
    let at = |z: &str| wadd(var(z), var("i"));
    let inner = for_i(vec![
        St::Store(FRAME, at("za"), ld(at("zb"))),
        St::SlotAdd(Ex::F64(1.0)),
    ]);
    let outer = St::Fill {
        base: Base::Out,
        off: None,
        var: id("j"),
        n: var("n"),
        streams: Vec::new(),
        body: vec![inner],
    };
    let mut sts = vec![alloc("za"), alloc("zb"), outer];
    frame_pieces(&mut sts);
    let printed = text(&sts);
    let St::Fill { body, .. } = &sts[2] else {
        panic!("{printed}");
    };
    let [St::Pieces { body, .. }] = &body[..] else {
        panic!("not cut: {printed}");
    };
    // `zb` streams; `za` is stored to by index.
    assert!(
        matches!(&body[..], [St::For { streams, .. }] if streams.len() == 1),
        "{printed}"
    );
}

#[test]
fn a_copy_is_read_as_what_it_copies_up_to_that_name_s_next_assignment() {
    // let a = at; za[a] = zc[i]; at = at + 1; zb[a] = 0
    let body = vec![
        St::Let {
            id: id("a"),
            mutable: false,
            usize_ty: true,
            val: var("at"),
        },
        St::Store(
            FRAME,
            wadd(var("za"), var("a")),
            ld(wadd(var("zc"), var("i"))),
        ),
        St::Assign(id("at"), wadd(var("at"), Ex::Usize(1))),
        St::Store(FRAME, wadd(var("zb"), var("a")), Ex::F64(0.0)),
    ];
    let mut sts = vec![alloc("za"), alloc("zb"), alloc("zc"), for_i(body)];
    frame_pieces(&mut sts);
    let printed = text(&sts);
    assert!(matches!(&sts[3], St::Pieces { .. }), "not cut: {printed}");
    // Before the assignment the copy reads as `at`; after it, `a` is still the old value.
    assert!(printed.contains("let a : usize = at ;"), "{printed}");
    assert!(printed.contains(":: st (__piece1 , at ,"), "{printed}");
    assert!(printed.contains(":: st (__piece2 , a ,"), "{printed}");
}

#[test]
fn a_stream_whose_start_may_fail_is_not_made() {
    // acc += zb[r * w + i] with `r * w` checked: a stream would compute it before a loop
    // that may run no step.
    let checked = Ex::Checked(
        Checked::Mul,
        Box::new(var("r")),
        Box::new(var("w")),
        "r * w".into(),
    );
    let at = wadd(wadd(var("zb"), checked), var("i"));
    let sum = Ex::Bin(BinOp::Add, Box::new(var("acc")), Box::new(ld(at)));
    let mut sts = vec![alloc("zb"), for_i(vec![St::Assign(id("acc"), sum)])];
    let before = text(&sts);
    frame_pieces(&mut sts);
    assert_eq!(text(&sts), before);
}

#[test]
fn a_piece_read_and_written_at_the_loop_index_is_a_stream_of_mut_elements() {
    // `x[i] = x[i] * 2 + y[i]` over two allocations: x a `&mut` stream, y a stream.
    let (xa, ya) = (wadd(var("za"), var("i")), wadd(var("zb"), var("i")));
    let twice = Ex::Bin(BinOp::Mul, Box::new(ld(xa.clone())), Box::new(Ex::F64(2.0)));
    let new = Ex::Bin(BinOp::Add, Box::new(twice), Box::new(ld(ya)));
    let update = for_i(vec![St::Store(FRAME, xa, new)]);
    let mut sts = vec![alloc("za"), alloc("zb"), update];
    frame_pieces(&mut sts);
    crate::lir::in_place_streams(&mut sts);
    let out = text(&sts);
    assert!(out.contains("iter_mut ()"), "{out}");
    assert!(
        out.contains("* __pm1 = (((* __pm1) * 2f64) + (* __pe"),
        "{out}"
    );
    assert!(!out.contains("st ("), "{out}");
}

#[test]
fn an_access_at_the_loop_index_alone_is_in_the_allocation_at_slot_0() {
    // `x[i] = x[i] * 2 + y[i]` with x at slot 0 (accessed at `i`) and y at a named slot: the
    // loop is cut, x a `&mut` stream. A run-time offset that is no loop index (a swapped
    // buffer's `cur + i`) is not placed there: that loop is left as it is.
    let zero = St::Alloc {
        elem: Scalar::F64,
        off: Ex::Usize(0),
        len: var("n"),
    };
    let twice = Ex::Bin(BinOp::Mul, Box::new(ld(var("i"))), Box::new(Ex::F64(2.0)));
    let new = Ex::Bin(
        BinOp::Add,
        Box::new(twice),
        Box::new(ld(wadd(var("zb"), var("i")))),
    );
    let mut sts = vec![
        zero.clone(),
        alloc("zb"),
        for_i(vec![St::Store(FRAME, var("i"), new)]),
    ];
    frame_pieces(&mut sts);
    crate::lir::in_place_streams(&mut sts);
    let out = text(&sts);
    assert!(matches!(&sts[2], St::Pieces { .. }), "{out}");
    assert!(out.contains("iter_mut ()"), "{out}");
    let at = wadd(var("cur"), var("i"));
    let swapped = for_i(vec![St::Store(FRAME, at.clone(), times_two(ld(at)))]);
    let mut sts = vec![zero, alloc("zb"), swapped];
    let before = text(&sts);
    frame_pieces(&mut sts);
    assert_eq!(text(&sts), before);
}
