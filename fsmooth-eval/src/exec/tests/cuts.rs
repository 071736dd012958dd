//! The frame cut into pieces (`St::Pieces`) and rows of one length (`St::Rows`): each a part
//! of its buffer, addressed from its first slot, borrowing the buffer while it lives.

use super::*;
use fsmooth_core::lir::{Scalar, SharedRow};

fn piece(s: &str) -> Base {
    Base::Piece(id(s))
}

fn pieces(starts: [usize; 2], body: Vec<St>) -> St {
    St::Pieces {
        elem: Scalar::F64,
        pieces: vec![(id("p"), u(starts[0])), (id("q"), u(starts[1]))],
        body,
    }
}

/// `out[k] = scratch[4 + k]`.
fn out_from_slot_4() -> St {
    fill(
        Base::Out,
        None,
        2,
        vec![],
        vec![St::Slot(ld(scratch(), bin(BinOp::Add, u(4), var("i"))))],
    )
}

#[test]
fn pieces_are_their_parts_of_the_frame() {
    // Fill piece q (slots 4..6) from a stream of piece p (slots 2..4), times 10.
    let tenfold = fill(
        piece("q"),
        None,
        2,
        vec![stream(piece("p"), 0, "e")],
        vec![St::Slot(bin(BinOp::Mul, elem("e"), f(10.0)))],
    );
    let body = vec![
        frame(6),
        alloc(2, 2),
        alloc(4, 2),
        store(scratch(), 2, f(1.0)),
        store(scratch(), 3, f(2.0)),
        pieces([2, 4], vec![tenfold]),
        out_from_slot_4(),
    ];
    assert_eq!(array(body, 2), Ok(Ok(Returned::Out(vec![10.0, 20.0]))));
}

#[test]
fn pieces_fault_out_of_order_past_their_ends_or_beside_the_frame() {
    let run = |starts, inner: Vec<St>| {
        let body = vec![
            frame(6),
            alloc(2, 2),
            alloc(4, 2),
            pieces(starts, inner),
            out_from_slot_4(),
        ];
        array(body, 2)
    };
    faults(run([4, 2], vec![]), "not ascending");
    faults(run([2, 7], vec![]), "not ascending in its 6 slots");
    // Piece p is slots 2..4: its slot 2 is past its end.
    faults(
        run([2, 4], vec![St::Store(piece("p"), u(2), f(1.0))]),
        "proven store scratch[2 + 2] out of range for length 2",
    );
    // The frame itself is borrowed by the pieces.
    faults(
        run([2, 4], vec![store(scratch(), 4, f(1.0))]),
        "`scratch` is used inside its cut into pieces",
    );
}

fn rows(off: usize, body: Vec<St>) -> St {
    St::Rows {
        off: u(off),
        rows: vec![
            SharedRow {
                id: id("r"),
                base: x(),
                mutable: false,
            },
            SharedRow {
                id: id("s"),
                base: Base::Out,
                mutable: true,
            },
        ],
        body,
    }
}

#[test]
fn rows_have_the_least_length_at_their_slot() {
    // x has 3 slots, out 4: rows from slot 2 have 1 slot each.
    let copy = |k: usize| St::Store(piece("s"), u(k), ld(Base::Row(id("r")), u(k)));
    let zeros = |slots: &[usize]| {
        slots
            .iter()
            .map(|&k| store(Base::Out, k, f(0.0)))
            .collect::<Vec<_>>()
    };
    let with = |inner: Vec<St>| [zeros(&[0, 1, 3]), vec![rows(2, inner)]].concat();
    assert_eq!(
        array(with(vec![copy(0)]), 4),
        Ok(Ok(Returned::Out(vec![0.0, 0.0, 3.0, 0.0])))
    );
    faults(array(with(vec![copy(1)]), 4), "out of range for length 1");
    // Past x's end: rows of no slot, cut all the same.
    let beyond = [zeros(&[0, 1, 2, 3]), vec![rows(5, vec![])]].concat();
    assert_eq!(array(beyond, 4), Ok(Ok(Returned::Out(vec![0.0; 4]))));
    // A row of a buffer the code only reads is not written; nor is a buffer used beside its
    // row.
    let write_read_row = St::Store(Base::Row(id("r")), u(0), f(1.0));
    faults(array(with(vec![write_read_row]), 4), "a row (&[T])");
    let beside = store(Base::Out, 2, f(1.0));
    faults(array(with(vec![beside]), 4), "inside a fill over it");
}
