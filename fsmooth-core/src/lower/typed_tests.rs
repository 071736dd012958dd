//! Tests of the translation of typed programs (LANGUAGE.md sections 10 and 11): the frame
//! planned per element type, f32 code, index arrays checked at entry, `min` in indexes, and
//! sizes evaluated as wholes.

use crate::front::ast::MathFn;
use crate::front::size::Size;
use crate::lir::{FRAME_PARTS, Scalar};
use crate::middle::ir::{Core, Kind, Type};
use quote::ToTokens;

fn expand(src: &str) -> String {
    crate::expand(src.parse().unwrap()).to_string()
}

/// The planned kernels of a block.
fn planned(src: &str) -> Vec<(crate::middle::ir::Kernel, crate::lower::Planned)> {
    crate::plan_block(src.parse().unwrap()).unwrap()
}

const MIXED: &str = "pub fn k(a: [f64; n], b: [f32; n], idx: [usize; n], r: usize) -> f64 {
    let s = build(n, |i| a[i].exp());
    let t = build(n, |i| b[i].exp());
    let u = ifold(r, idx, |acc, k| build(n, |i| acc[(i + k) % n]));
    ifold(n, 0.0, |acc, i| acc + s[u[i]] + s[i] + (t[n - 1 - i] as f64) + (t[i] as f64))
}";

#[test]
fn each_element_type_has_its_part_of_the_frame() {
    let p = planned(MIXED);
    let (_, k) = &p[0];
    // Each type's buffers start at 0 in their own part: s (f64), t (f32), u (where the
    // fold's state ends) and the fold's other buffer (usize), stacked.
    let at = |t: Scalar| -> Vec<String> {
        k.buffers
            .iter()
            .filter(|b| b.elem == t)
            .map(|b| b.offset.fold().to_string())
            .collect()
    };
    assert_eq!(at(Scalar::F64), ["0"]);
    assert_eq!(at(Scalar::F32), ["0"]);
    assert_eq!(at(Scalar::Usize), ["0", "n"]);
    assert!(k.peaks.typed());
    let n = |v: u64| move |_: &str| Some(v);
    // n f64 + ceil(n / 2) slots of f32 + 2n usize.
    for v in [0, 1, 2, 7] {
        assert_eq!(k.peaks.eval(&n(v)), Some(v + v.div_ceil(2) + 2 * v));
    }
    let out = expand(MIXED);
    assert!(
        out.contains("let (scratch , scratch_f32 , scratch_usize) = :: fsmooth :: __rt :: split (region . frame (:: fsmooth :: __rt :: slots (n , n , __z"),
        "{out}"
    );
    assert!(
        out.contains(
            "pub const fn scratch_len (n : usize) -> usize { :: fsmooth :: __rt :: slots (n , n ,"
        ),
        "{out}"
    );
    // The f32 exponentials are f32 ones, stored in the f32 part.
    assert!(out.contains("scratch_f32 . get_mut (.. n)"), "{out}");
}

#[test]
fn constant_typed_frames_are_fixed_size_parts() {
    let out = expand(
        "pub fn k(a: [f64; 4], i: [usize; 2], r: usize) -> f64 {
            let s = build(4, |j| a[j].exp());
            let u = ifold(r, i, |acc, k| build(2, |j| acc[(j + k) % 2]));
            s[u[0]] + s[u[1]] + s[0] + s[1]
        }",
    );
    // 4 f64, no f32, 2 usize (u, where the fold's state is updated in place: the step, a
    // literal of two, computes both items before storing them; read at rows the step
    // computes, so not a tuple of its two items): 6 slots.
    assert!(
        out.contains(
            "pub const SCRATCH_LEN : usize = :: fsmooth :: __rt :: slots (4usize , 0usize , 2usize)"
        ),
        "{out}"
    );
    assert!(out.contains("let (scratch , _ , scratch_usize) = :: fsmooth :: __rt :: split (region . frame (6usize) ?"), "{out}");
    assert!(out.contains("let scratch_usize : & mut [usize ; 2usize] = :: fsmooth :: __rt :: fixed (scratch_usize) ?"), "{out}");
}

#[test]
fn f64_frames_are_printed_as_before() {
    let out = expand(
        "pub fn k(a: [f64; 12], b: [f64; 12]) -> f64 { let t = add(a, b); t[0] * t[1] + t[2] * t[0] }",
    );
    assert!(out.contains("let scratch : & mut [f64 ; 12usize]"), "{out}");
    assert!(!out.contains("split"), "{out}");
    assert!(
        out.contains("pub const SCRATCH_LEN : usize = 12usize"),
        "{out}"
    );
}

#[test]
fn heap_storage_is_typed_too() {
    let body = "pub fn k(b: [f32; n]) -> f32 {
        let t = build(n, |i| b[i].exp());
        ifold(n, 0.0f32, |acc, i| acc + t[i] * t[n - 1 - i])
    }";
    let out = expand(&format!("#![fsmooth(storage = \"heap\")] {body}"));
    assert!(
        out.contains("let heap_0 : & mut [f32] = & mut :: fsmooth :: __rt :: heap ("),
        "{out}"
    );
    let out = expand(&format!("#![fsmooth(storage = \"heap_frame\")] {body}"));
    assert!(
        out.contains("heap :: < f64 > (:: fsmooth :: __rt :: slots (0usize , n , 0usize)) ?"),
        "{out}"
    );
    assert!(out.contains("let (_ , scratch_f32 , _) = :: fsmooth :: __rt :: split (& mut __frame , 0usize , n , 0usize) ?"), "{out}");
}

#[test]
fn f32_kernels_compute_in_f32() {
    let out = expand(
        "pub fn dense(w: [[f32; i]; o], b: [f32; o], x: [f32; i]) -> [f32; o] {
            build(o, |r| (ifold(i, 0.0f32, |acc, k| acc + w[r][k] * x[k]) + b[r]).tanh())
        }",
    );
    // Rows taken 8 at a time, as in f64, with f32 accumulators; the rows left over one by
    // one.
    assert!(out.contains("let mut __a3_0_7 = 0f32 ;"), "{out}");
    assert!(out.contains("let mut acc_4 = 0f32 ;"), "{out}");
    assert!(out.contains("out : & mut [f32]"), "{out}");
    let body = &out[out.find("pub fn dense").unwrap()..out.find("pub mod").unwrap()];
    assert!(!body.contains("f64"), "{body}");
    // Scans of f32 and usize states keep their states in locals of those types.
    let out = expand(
        "pub fn sc(x: [f32; n], idx: [usize; n]) -> ([f32; n], [usize; n]) {
            (scan(n, 0.0f32, |s, i| s * 0.5f32 + x[i]), scan(n, 0, |c, i| c + idx[i]))
        }",
    );
    assert!(out.contains("let mut __next3 = 0f32 ;"), "{out}");
    assert!(out.contains("let mut __next6 : usize = 0usize ;"), "{out}");
    // Casts between the three.
    let out = expand(
        "pub fn c(x: [f32; n], k: usize) -> [f64; n] {
            build(n, |i| (x[i] as f64) + (k as f32 as f64) + ((x[i] * 2.0f32) as usize as f64))
        }",
    );
    assert!(out.contains("((k as f32) as f64)"), "{out}");
    assert!(out.contains("as usize) as f64)"), "{out}");
}

#[test]
fn index_array_columns_are_checked_at_entry() {
    let out = expand(
        "pub fn gather(cams: [[f64; 3]; nc], pts: [f64; np], obs: [[usize; 2]; p]) -> [f64; p] {
            build(p, |j| cams[obs[j][0]][1] * pts[obs[j][1]])
        }",
    );
    // Column 0 against the cameras, column 1 against the points, after every length check
    // and before the frame.
    let c0 = out
        .find("check_column (obs , 0usize , 2usize , nc) ?")
        .expect(&out);
    let c1 = out
        .find("check_column (obs , 1usize , 2usize , np) ?")
        .expect(&out);
    let out_check = out.find("arg : \"out\"").unwrap();
    let frame = out.find("let _ = region").unwrap();
    assert!(out_check < c0 && c0 < c1 && c1 < frame, "{out}");
    assert!(!out.contains(":: check ("), "{out}");
    // A 3-D index array: `t[j][1][2]` is element 5 of each row of 6.
    let out = expand(
        "pub fn g3(x: [f64; m], t: [[[usize; 3]; 2]; p]) -> [f64; p] {
            build(p, |j| x[t[j][1][2]] + x[t[j][0][0]])
        }",
    );
    assert!(
        out.contains("check_column (t , 5usize , 6usize , m) ?"),
        "{out}"
    );
    assert!(
        out.contains("check_column (t , 0usize , 6usize , m) ?"),
        "{out}"
    );
    // One check per column and length, however many reads.
    let out = expand(
        "pub fn twice(x: [f64; m], idx: [usize; p]) -> [f64; p] {
            build(p, |j| x[idx[j]] * x[idx[j]] + x[idx[(j + 1) % p]])
        }",
    );
    assert_eq!(out.matches("check_column").count(), 1, "{out}");
    assert!(!out.contains(":: check ("), "{out}");
    // A computed index (an element of a local array, or arithmetic on an element) is
    // checked where it is used.
    let out = expand(
        "pub fn local(x: [f64; m], idx: [usize; p]) -> [f64; p] {
            let c = build(p, |j| idx[j] * 2);
            build(p, |j| x[c[j]] + x[c[(j + 1) % p]] + x[idx[j] + 1])
        }",
    );
    assert!(!out.contains("check_column"), "{out}");
    assert_eq!(out.matches(":: check (").count(), 3, "{out}");
}

/// `k`'s body with every index that is a loop index `i` into a one-dimensional array
/// replaced by `(i + 1).min(n - 1)` (the checker does not type `usize` methods yet).
fn with_min_index(e: &mut Core, n: &str) {
    if let Kind::Index(a, i) = &mut e.kind
        && a.ty.dims().len() == 1
        && matches!(i.kind, Kind::Var(_))
        && let Some(Size::Loop(v)) = i.sym.clone()
    {
        let span = i.span;
        let next = Core::usize_bin(
            crate::front::ast::BinOp::Add,
            (**i).clone(),
            Core::size(Size::Lit(1), span),
            "i + 1",
            span,
        );
        let last = Core::size(Size::minus(Size::Name(n.into()), Size::Lit(1)), span);
        **i = Core::new(Kind::Math(MathFn::Min, vec![next, last]), Type::Usize, span);
        let _ = v;
        return;
    }
    for c in e.children_mut() {
        with_min_index(c, n);
    }
}

#[test]
fn min_of_a_proven_index_is_proven() {
    let src = "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| a[i] * 2.0) }";
    let mut diags = crate::front::diag::Diags::default();
    let checked = crate::pipeline::front(src.parse().unwrap(), &mut diags).unwrap();
    let options = checked.scope.options;
    let mut k =
        crate::pipeline::middle(checked.kernels.into_iter().next().unwrap(), options).unwrap();
    with_min_index(&mut k.body, "n");
    let planned = crate::pipeline::lower(&k, options);
    let code = planned.func.to_token_stream().to_string();
    // `(i + 1).min(n - 1) < n`: no check of the index; `i + 1` and `n - 1` keep theirs.
    assert!(code.contains(":: fsmooth :: __rt :: min ("), "{code}");
    assert!(!code.contains(":: check ("), "{code}");
    // `(i + 1).max(n)` is not below n: checked.
    let mut k2 = k.clone();
    fn to_max(e: &mut Core) {
        if let Kind::Math(f @ MathFn::Min, xs) = &mut e.kind {
            *f = MathFn::Max;
            xs[1] = Core::size(Size::Name("n".into()), xs[1].span);
        }
        for c in e.children_mut() {
            to_max(c);
        }
    }
    to_max(&mut k2.body);
    let code = crate::pipeline::lower(&k2, options)
        .func
        .to_token_stream()
        .to_string();
    assert!(code.contains(":: check ("), "{code}");
}

#[test]
fn sizes_are_computed_as_wholes_at_entry_and_in_const_fns() {
    // The user's `n - w + 1` is `1 + n - w`, 0 for n = w - 1.
    let out = expand(
        "pub fn wsum(w: usize, a: [f64; n]) -> [f64; n - w + 1] {
            build(n - w + 1, |i| sum(slide(w, a)[i]))
        }",
    );
    assert!(
        out.contains(":: fsmooth :: __rt :: sub (__z0 , w , \"1 + n - w\") ?"),
        "{out}"
    );
    assert!(!out.contains("\"n - w\""), "{out}");
    assert!(
        out.contains("pub const fn out_len (w : usize , n : usize) -> usize { :: fsmooth :: __rt :: sat_sub (usize :: saturating_add (1usize , n) , w) }"),
        "{out}"
    );
    // A product with a difference in it: `(n + 1 - w) * w` windows' elements.
    let out =
        expand("pub fn windows(w: usize, a: [f64; n]) -> [[f64; w]; n - w + 1] { slide(w, a) }");
    assert!(out.contains("\"n * w + w - w * w\""), "{out}");
    // A size whose subtractions can only fail when it is negative stays as written.
    let out = expand("pub fn k(v: [f64; w]) -> [f64; w - 2] { build(w - 2, |x| v[x + 2] - v[x]) }");
    assert!(out.contains("sub (w , 2usize , \"w - 2\")"), "{out}");
}

#[test]
fn the_frame_parts_are_in_their_order() {
    assert_eq!(FRAME_PARTS, [Scalar::F64, Scalar::F32, Scalar::Usize]);
}

#[test]
fn an_index_array_read_along_its_whole_rows_is_checked_whole_at_entry() {
    // `x[i][j]` with `j` over the whole row: every element is in that position (LANGUAGE.md
    // section 10), so all of `x` is checked at entry, before any output is written; a scatter
    // inside a `build` too.
    for src in [
        "pub fn rows(a: [f64; m], x: [[usize; c]; r], c: usize) -> [[f64; c]; r] {
            build(r, |i| build(c, |j| a[x[i][j]]))
        }",
        "pub fn row_hist(x: [[usize; c]; r], c: usize, m: usize) -> [[usize; m]; r] {
            build(r, |i| scatter_add(m, c, |j| (x[i][j], 1)))
        }",
    ] {
        let out = expand(src);
        assert!(
            out.contains("check_column (x , 0usize , 1usize , m) ?"),
            "{src}\n{out}"
        );
        assert!(!out.contains(":: check ("), "{src}\n{out}");
    }
    // A constant column after a whole dimension: `t[i][j][1]` is every other element.
    let out = expand(
        "pub fn g(a: [f64; m], t: [[[usize; 2]; c]; r], c: usize) -> [[f64; c]; r] {
            build(r, |i| build(c, |j| a[t[i][j][1]]))
        }",
    );
    assert!(
        out.contains("check_column (t , 1usize , 2usize , m) ?"),
        "{out}"
    );
    // Part of a row (`j` over all but the last column): the last may hold anything, so each
    // index is checked where it is used. (Written out, `build(2, ..)` over three columns
    // checks columns 0 and 1 at entry: constant positions.)
    let out = expand(
        "pub fn part(a: [f64; m], x: [[usize; c]; r], c: usize) -> [[f64; c - 1]; r] {
            build(r, |i| build(c - 1, |j| a[x[i][j]]))
        }",
    );
    assert!(!out.contains("check_column"), "{out}");
    assert!(out.contains(":: check ("), "{out}");
}
