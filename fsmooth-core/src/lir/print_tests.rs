//! Tests of the printer for the typed loop IR: f32 literals and casts, row loads of each
//! element type, typed heap buffers, the frame cut into its parts, index array checks.

use super::*;
use quote::ToTokens;

fn id(s: &str) -> Ident {
    Ident::new(s, proc_macro2::Span::call_site())
}

fn text(t: impl ToTokens) -> String {
    t.to_token_stream().to_string()
}

#[test]
fn f32_literals_and_casts() {
    assert_eq!(text(Ex::F32(2.5)), "2.5f32");
    assert_eq!(text(Ex::F32(-0.0)), "(- 0f32)");
    assert_eq!(text(Ex::F32(f32::NAN)), "f32 :: NAN");
    assert_eq!(text(Ex::F32(f32::NEG_INFINITY)), "f32 :: NEG_INFINITY");
    assert_eq!(text(zero(Scalar::F32)), "0f32");
    assert_eq!(text(zero(Scalar::F64)), "0f64");
    assert_eq!(text(zero(Scalar::Usize)), "0usize");
    let x = Ex::Var(id("x"));
    assert_eq!(text(Ex::ToF32(Box::new(x.clone()))), "(x as f32)");
    // Three-argument methods print all three.
    let m = Ex::Math(MathFn::Clamp, vec![x.clone(), Ex::F32(0.0), Ex::F32(1.0)]);
    assert_eq!(text(m), ":: fsmooth :: __rt :: clamp (x , 0f32 , 1f32)");
    let m = Ex::Math(MathFn::Atan2, vec![x.clone(), Ex::Var(id("y"))]);
    assert_eq!(text(m), ":: fsmooth :: __rt :: atan2 (x , y)");
}

#[test]
fn row_loads_name_their_element_type() {
    let off = Box::new(Ex::Usize(4));
    // f64 rows print as they always have; the other types through the generic form.
    let f = Ex::LdRow(Base::Param(id("c")), off.clone(), 2, 1, Scalar::F64);
    assert_eq!(
        text(f),
        ":: fsmooth :: __rt :: ldr :: < 2usize > (c , 4usize , 1usize)"
    );
    let u = Ex::LdRow(Base::Param(id("obs")), off, 2, 1, Scalar::Usize);
    assert_eq!(
        text(u),
        ":: fsmooth :: __rt :: ldr_of :: < 2usize , _ > (obs , 4usize , 1usize)"
    );
    assert_eq!(Base::Scratch(Scalar::F32).name(), "scratch_f32");
    assert_eq!(text(Base::Scratch(Scalar::Usize)), "scratch_usize");
    assert_eq!(text(Base::Scratch(Scalar::F64)), "scratch");
}

#[test]
fn heap_buffers_and_index_checks_are_typed() {
    let h = St::Heap {
        id: 2,
        len: Ex::Var(id("n")),
        elem: Scalar::Usize,
    };
    assert_eq!(
        text(h),
        "let heap_2 : & mut [usize] = & mut :: fsmooth :: __rt :: heap (n) ? ;"
    );
    let c = St::CheckColumn {
        base: Base::Param(id("obs")),
        at: Ex::Usize(1),
        stride: Ex::Usize(2),
        len: Ex::Var(id("np")),
    };
    assert_eq!(
        text(c),
        ":: fsmooth :: __rt :: check_column (obs , 1usize , 2usize , np) ? ;"
    );
}

#[test]
fn a_frame_of_several_types_is_cut_once() {
    let n = || Ex::Var(id("n"));
    // f64 and usize parts of run-time length, no f32 part: its name is `_`.
    let frame = St::Frame {
        len: Some(Ex::Entry(Entry::Slots, vec![n(), Ex::Usize(0), n()])),
        constant: None,
        heap: false,
        parts: Some(Box::new([Some(n()), None, Some(n())])),
    };
    let t = text(frame);
    assert!(
        t.contains("let (scratch , _ , scratch_usize) = :: fsmooth :: __rt :: split (region . frame (:: fsmooth :: __rt :: slots (n , 0usize , n)) ? , n , 0usize , n) ? ;"),
        "{t}"
    );
    assert!(!t.contains("fixed"), "{t}");
    // Constant parts: the frame's constant length, each part a fixed-size array.
    let frame = St::Frame {
        len: Some(Ex::Entry(
            Entry::Slots,
            vec![Ex::Usize(3), Ex::Usize(5), Ex::Usize(0)],
        )),
        constant: Some(6),
        heap: false,
        parts: Some(Box::new([Some(Ex::Usize(3)), Some(Ex::Usize(5)), None])),
    };
    let t = text(frame);
    assert!(t.contains("split (region . frame (6usize) ?"), "{t}");
    assert!(
        t.contains(
            "let scratch_f32 : & mut [f32 ; 5usize] = :: fsmooth :: __rt :: fixed (scratch_f32) ? ;"
        ),
        "{t}"
    );
    assert!(
        t.contains(
            "let scratch : & mut [f64 ; 3usize] = :: fsmooth :: __rt :: fixed (scratch) ? ;"
        ),
        "{t}"
    );
    // A heap frame: one f64 buffer, cut the same way.
    let frame = St::Frame {
        len: Some(n()),
        constant: None,
        heap: true,
        parts: Some(Box::new([None, Some(n()), None])),
    };
    let t = text(frame);
    assert!(t.contains("let _ = region ;"), "{t}");
    assert!(
        t.contains("let mut __frame = :: fsmooth :: __rt :: heap :: < f64 > (n) ? ;"),
        "{t}"
    );
    assert!(
        t.contains("let (_ , scratch_f32 , _) = :: fsmooth :: __rt :: split (& mut __frame , 0usize , n , 0usize) ? ;"),
        "{t}"
    );
}
