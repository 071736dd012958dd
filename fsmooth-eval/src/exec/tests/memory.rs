//! The frame, its live allocations and the buffers' written slots; accesses out of range.

use super::*;

#[test]
fn overlapping_live_allocations_fault_and_freed_ones_do_not() {
    faults(
        array(vec![frame(4), alloc(0, 3), alloc(2, 2), fill_out()], 3),
        "overlapping live buffers: scratch[2..4] allocated while scratch[0..3] is live",
    );
    // Freed at the end of its block, in a loop body per iteration, in an expression block.
    let ok = vec![
        frame(4),
        St::Block(vec![alloc(0, 3)]),
        for_(u(3), vec![], vec![alloc(1, 3)]),
        let_("y", false, Ex::Block(vec![alloc(0, 4)], Box::new(f(0.0)))),
        alloc(2, 2),
        fill_out(),
    ];
    assert_eq!(array(ok, 3), Ok(Ok(Returned::Out(vec![1.0; 3]))));
}

#[test]
fn allocations_outside_the_frame_fault() {
    faults(
        array(vec![frame(4), alloc(2, 3), fill_out()], 3),
        "allocation outside the frame",
    );
    faults(
        array(vec![frame(4), alloc(usize::MAX, 2), fill_out()], 3),
        "allocation outside the frame",
    );
    faults(
        array(vec![no_frame(), alloc(0, 1), fill_out()], 3),
        "without a frame",
    );
}

#[test]
fn reads_of_never_written_slots_fault() {
    faults(
        scalar(
            vec![frame(2), alloc(0, 2), store(scratch(), 0, f(1.0))],
            ld(scratch(), u(1)),
        ),
        "read of a never-written slot: scratch[1]",
    );
    // A new allocation forgets what was written there before.
    let reuse = |again: bool| {
        let mut second = vec![alloc(0, 1), let_("y", false, ld(scratch(), u(0)))];
        if !again {
            second.remove(0);
            second.insert(0, store(scratch(), 0, f(2.0)));
            second.insert(0, alloc(0, 1));
        }
        scalar(
            vec![
                frame(1),
                St::Block(vec![alloc(0, 1), store(scratch(), 0, f(1.0))]),
                St::Block(second),
            ],
            f(0.0),
        )
    };
    faults(reuse(true), "read of a never-written slot: scratch[0]");
    assert_eq!(reuse(false), Ok(Ok(Returned::F64(0.0))));
    // Of `out`, by a stream element and by `*__slot += v`.
    faults(
        array(
            vec![
                store(Base::Out, 0, f(1.0)),
                for_(
                    u(2),
                    vec![stream(Base::Out, 0, "o")],
                    vec![let_("y", false, elem("o"))],
                ),
                fill_out(),
            ],
            3,
        ),
        "read of a never-written slot: out[1]",
    );
    faults(
        array(
            vec![fill(Base::Out, None, 3, vec![], vec![St::SlotAdd(f(1.0))])],
            3,
        ),
        "read of a never-written slot: out[0]",
    );
}

#[test]
fn accesses_outside_live_buffers_fault() {
    faults(
        array(
            vec![
                frame(4),
                alloc(0, 2),
                store(scratch(), 3, f(1.0)),
                fill_out(),
            ],
            3,
        ),
        "access outside any live buffer: scratch[3..4]",
    );
    // A row straddling two allocations is in no single one.
    let straddle = vec![
        frame(4),
        alloc(0, 2),
        alloc(2, 2),
        fill(scratch(), None, 4, vec![], vec![St::Slot(f(1.0))]),
    ];
    faults(
        array(straddle, 3),
        "access outside any live buffer: scratch[0..4]",
    );
    let straddle = vec![
        frame(4),
        alloc(0, 2),
        alloc(2, 2),
        fill(scratch(), Some(0), 2, vec![], vec![St::Slot(f(1.0))]),
        fill(scratch(), Some(2), 2, vec![], vec![St::Slot(f(1.0))]),
        fill(
            Base::Out,
            None,
            2,
            vec![stream(scratch(), 1, "s")],
            vec![St::Slot(elem("s"))],
        ),
        store(Base::Out, 2, f(0.0)),
    ];
    faults(
        array(straddle, 3),
        "access outside any live buffer: scratch[1..3]",
    );
    // After the allocation's list ended.
    faults(
        scalar(
            vec![
                frame(1),
                St::Block(vec![alloc(0, 1), store(scratch(), 0, f(1.0))]),
            ],
            ld(scratch(), u(0)),
        ),
        "access outside any live buffer: scratch[0..1]",
    );
    faults(
        array(vec![no_frame(), store(scratch(), 0, f(1.0))], 3),
        "`scratch` used where there is no frame",
    );
}

#[test]
fn unwritten_out_slots_fault() {
    faults(
        array(
            vec![fill(Base::Out, None, 2, vec![], vec![St::Slot(f(1.0))])],
            3,
        ),
        "out slot 2 never written",
    );
    assert_eq!(
        array(vec![fill_out()], 3),
        Ok(Ok(Returned::Out(vec![1.0; 3])))
    );
}

#[test]
fn proven_accesses_out_of_range_fault() {
    faults(
        scalar(vec![], ld(x(), u(5))),
        "proven load x[5] out of range for length 3",
    );
    assert_eq!(scalar(vec![], ld(x(), u(2))), Ok(Ok(Returned::F64(3.0))));
    faults(
        array(vec![store(Base::Out, 3, f(1.0)), fill_out()], 3),
        "proven store out[3] out of range",
    );
}

#[test]
fn ranges_out_of_bounds_fault() {
    faults(
        scalar(vec![for_(u(4), vec![stream(x(), 0, "e")], vec![])], f(0.0)),
        "stream range x[0..0+4] out of bounds for length 3",
    );
    faults(
        scalar(vec![for_(u(2), vec![stream(x(), 2, "e")], vec![])], f(0.0)),
        "stream range x[2..2+2]",
    );
    assert_eq!(
        scalar(vec![for_(u(2), vec![stream(x(), 1, "e")], vec![])], f(0.0)),
        Ok(Ok(Returned::F64(0.0)))
    );
    faults(
        array(vec![fill(Base::Out, Some(2), 2, vec![], vec![])], 3),
        "fill range out[2..2+2]",
    );
    faults(
        array(vec![fill(Base::Out, None, 4, vec![], vec![])], 3),
        "fill range out[..4]",
    );
    let copy = |src_off: usize| St::Copy {
        dst: Base::Out,
        dst_off: u(0),
        src: x(),
        src_off: u(src_off),
        n: u(3),
    };
    faults(array(vec![copy(1)], 3), "copy source range x[1..1+3]");
    assert_eq!(
        array(vec![copy(0)], 3),
        Ok(Ok(Returned::Out(vec![1.0, 2.0, 3.0])))
    );
}

#[test]
fn heap_buffers_live_to_the_end_of_their_list() {
    let heap = |len: usize| St::Heap {
        id: 0,
        len: u(len),
        elem: lir::Scalar::F64,
    };
    let h = || Base::Heap(0);
    // One buffer per iteration, each written before it is read.
    let body = vec![
        no_frame(),
        fill(
            Base::Out,
            None,
            3,
            vec![],
            vec![
                heap(2),
                store(h(), 1, Ex::ToF64(Box::new(var("i")))),
                St::Slot(ld(h(), u(1))),
            ],
        ),
    ];
    assert_eq!(array(body, 3), Ok(Ok(Returned::Out(vec![0.0, 1.0, 2.0]))));
    // Zeroed, but a read before any write is still a bug.
    faults(
        scalar(vec![heap(2)], ld(h(), u(0))),
        "read of a never-written slot: heap_0[0]",
    );
    faults(
        scalar(vec![St::Block(vec![heap(2)])], Ex::Len(h())),
        "unknown identifier `heap_0`",
    );
    errs(
        scalar(vec![heap(usize::MAX)], f(0.0)),
        "scratch slab too short",
    );
    // An error after `out` was written, in a body without a frame, is just an error.
    errs(
        array(vec![fill_out(), St::CheckRange(u(2), u(1), u(5))], 3),
        "index 1",
    );
}

#[test]
fn constant_and_heap_frames() {
    // A constant frame is the constant's length (its `len` is not printed); a heap
    // frame is `len` slots (its constant is not printed).
    let frame = |heap: bool| St::Frame {
        len: Some(u(2)),
        constant: Some(3),
        heap,
        parts: None,
    };
    let body = |heap| vec![frame(heap), alloc(0, 3), fill_out()];
    assert_eq!(array(body(false), 3), Ok(Ok(Returned::Out(vec![1.0; 3]))));
    faults(array(body(true), 3), "allocation outside the frame");
}

#[test]
fn an_add_within_a_buffer_adds_slot_by_slot_and_checks_its_ranges() {
    let heap = St::Heap {
        id: 0,
        len: u(4),
        elem: lir::Scalar::F64,
    };
    let h = || Base::Heap(0);
    let add = |dst: usize, src: usize, n: usize| St::AddWithin {
        base: h(),
        dst_off: u(dst),
        src_off: u(src),
        n: u(n),
    };
    let stored = |k: usize| {
        let mut b = vec![heap.clone()];
        b.extend((0..k).map(|i| store(h(), i, f((i * 10 + 1) as f64))));
        b
    };
    let mut body = stored(4);
    body.push(add(0, 2, 2));
    let sum = bin(BinOp::Add, ld(h(), u(0)), ld(h(), u(1)));
    assert_eq!(
        scalar(body, sum),
        Ok(Ok(Returned::F64(21.0 + 31.0 + 1.0 + 11.0)))
    );
    let mut body = stored(4);
    body.push(add(0, 3, 2));
    faults(scalar(body, f(0.0)), "add source range heap_0[3..3+2]");
    // A slot added from before it was written is a read of a never-written slot.
    let mut body = stored(2);
    body.push(add(0, 2, 2));
    faults(scalar(body, f(0.0)), "never-written slot: heap_0[2]");
}
