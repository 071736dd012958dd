//! Tests of rows of one length around a loop ([`super::shared_rows`]).

use super::*;
use quote::ToTokens;

fn id(s: &str) -> Ident {
    Ident::new(s, proc_macro2::Span::call_site())
}

fn var(s: &str) -> Ex {
    Ex::Var(id(s))
}

fn param() -> Base {
    Base::Param(id("a"))
}

/// `o + at`: a fixed offset and a running index.
fn slot() -> Ex {
    wadd(wmul(var("r"), var("w")), var("at"))
}

fn text(sts: &[St]) -> String {
    sts.iter()
        .map(|s| s.to_token_stream().to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `for i in 0..n { let v = a[o + at]; out[o + at] = out[o + at] + v; [between]; at = at + i }`
fn triangle_walk(between: Vec<St>) -> Vec<St> {
    let add = Ex::Bin(
        BinOp::Add,
        Box::new(Ex::Ld(Base::Out, Box::new(slot()))),
        Box::new(var("v")),
    );
    let mut body = vec![
        St::Let {
            id: id("v"),
            mutable: false,
            usize_ty: false,
            val: Ex::Ld(param(), Box::new(slot())),
        },
        St::Store(Base::Out, slot(), add),
    ];
    body.extend(between);
    body.push(St::Assign(id("at"), wadd(var("at"), var("i"))));
    vec![St::For {
        var: id("i"),
        n: var("n"),
        streams: Vec::new(),
        body,
    }]
}

#[test]
fn accesses_at_one_index_of_two_buffers_share_rows() {
    let mut sts = triangle_walk(Vec::new());
    shared_rows(&mut sts);
    let printed = text(&sts);
    let [St::Rows { off, rows, body }] = &sts[..] else {
        panic!("no rows: {printed}");
    };
    assert!(same(off, &wmul(var("r"), var("w"))), "{printed}");
    let kinds: Vec<(String, bool)> = rows.iter().map(|r| (r.base.name(), r.mutable)).collect();
    assert_eq!(kinds, [("a".to_string(), false), ("out".to_string(), true)]);
    // Every access is now to a row, at the running index alone.
    assert!(
        !uses(body, &param()) && !uses(body, &Base::Out),
        "{printed}"
    );
    assert!(printed.contains(":: ld (__row1 , at)"), "{printed}");
    assert!(printed.contains(":: st (__row2 , at ,"), "{printed}");
    assert!(
        printed.contains(":: common_len ((r) . wrapping_mul (w) , [a . len () , out . len ()])"),
        "{printed}"
    );
}

#[test]
fn rows_are_not_shared_where_the_index_moves_between_accesses_or_a_buffer_is_read_elsewhere() {
    // The index assigned between the load and the store: not one index.
    let moved = St::Assign(id("at"), Ex::Usize(0));
    let mut sts = triangle_walk(Vec::new());
    if let St::For { body, .. } = &mut sts[0] {
        body.insert(1, moved);
    }
    let before = text(&sts);
    shared_rows(&mut sts);
    assert_eq!(text(&sts), before);
    // `a` read at another slot too: only `out` would be cut, and one row shares nothing.
    let other = St::Let {
        id: id("u"),
        mutable: false,
        usize_ty: false,
        val: Ex::Ld(param(), Box::new(var("i"))),
    };
    let mut sts = triangle_walk(vec![other]);
    let before = text(&sts);
    shared_rows(&mut sts);
    assert_eq!(text(&sts), before);
}

#[test]
fn an_offset_that_may_fail_stays_inside_the_loop() {
    // `a[checked(r * w) + at]`: evaluated before the loop, it could fail where a loop of no
    // steps would not.
    let checked = Ex::Checked(
        Checked::Mul,
        Box::new(var("r")),
        Box::new(var("w")),
        "r * w".into(),
    );
    let mut sts = triangle_walk(Vec::new());
    rewrite_sts(&mut sts, &mut |e| {
        if let Ex::Wrap(Wrap::Mul, ..) = e {
            *e = checked.clone();
            return true;
        }
        false
    });
    let before = text(&sts);
    assert!(before.contains(":: mul (r , w"), "{before}");
    shared_rows(&mut sts);
    assert_eq!(text(&sts), before);
}
