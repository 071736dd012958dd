use super::*;
use crate::front::diag::Diags;
use crate::front::parse;

/// The findings for `src` as text: `f: x y` (the unused bindings of `f`, in order),
/// `dead f`, `import g`, `import f as g`, `import *`. Globs bring every name.
fn found(src: &str) -> Vec<String> {
    found_with(src, &|_, _| true)
}

fn found_with(src: &str, globs: &dyn Fn(&Import, &str) -> bool) -> Vec<String> {
    let mut d = Diags::default();
    let program = parse::parse(src.parse().unwrap(), &mut d).unwrap();
    assert!(d.is_empty(), "{:?}", d.messages());
    let u = find(&program, globs);
    let mut out = Vec::new();
    for f in &u.fns {
        let name = &program.fns[f.index].name.text;
        if f.dead {
            out.push(format!("dead {name}"));
        }
        if !f.bindings.is_empty() {
            let bs: Vec<&str> = f.bindings.iter().map(|b| b.text.as_str()).collect();
            out.push(format!("{name}: {}", bs.join(" ")));
        }
    }
    for i in &u.imports {
        out.push(match i {
            UnusedImport::Name { name, alias } if name.text == alias.text => {
                format!("import {}", name.text)
            }
            UnusedImport::Name { name, alias } => format!("import {} as {}", name.text, alias.text),
            UnusedImport::Glob(_) => "import *".to_string(),
        });
    }
    out
}

#[test]
fn an_unused_let_is_found_as_in_the_issue() {
    // Issue 19: `a1` computed, then the wrong expression returned.
    let src = "pub fn mlp(w2: [[f64; m]; n], b2: [f64; n], x: [f64; m]) -> [f64; n] {
        let a1 = add(matvec(w2, x), b2);
        add(matvec(w2, x), b2)
    }";
    assert_eq!(found(src), ["mlp: a1"]);
}

#[test]
fn used_names_are_not_reported() {
    let src = "pub fn k(a: [f64; n], s: f64) -> [f64; n] {
        let t = scale(s, a);
        build(n, |i| t[i] + a[i])
    }";
    assert_eq!(found(src), Vec::<String>::new());
}

#[test]
fn unused_parameters_are_found() {
    assert_eq!(
        found("pub fn k(a: [f64; n], b: [f64; n], s: f64) -> f64 { sum(a) }"),
        ["k: b s"]
    );
    // Helpers' parameters too.
    assert_eq!(
        found("fn h(x: f64, y: f64) -> f64 { x }\npub fn k(a: f64) -> f64 { h(a, a) }"),
        ["h: y"]
    );
}

#[test]
fn a_size_parameter_named_only_in_a_type_is_used() {
    // In another parameter's type.
    assert_eq!(
        found("pub fn k(n: usize, a: [f64; n]) -> f64 { sum(a) }"),
        Vec::<String>::new()
    );
    // In the result type only.
    assert_eq!(
        found("pub fn k(n: usize, x: f64) -> [f64; n] { build(n, |_i| x) }"),
        Vec::<String>::new()
    );
    assert_eq!(
        found("pub fn k(m: usize, x: f64) -> [f64; 3] { let r: [f64; m] = build(3, |_i| x); r }"),
        Vec::<String>::new()
    );
    // Inside a size expression, nested arrays, and a function parameter's type.
    assert_eq!(
        found(
            "fn h(f: fn([f64; k]) -> f64, v: [f64; k], k: usize) -> f64 { f(v) }
             pub fn j(w: usize, a: [[f64; 2 * w]; 3]) -> f64 { h(|r| sum(r), a[0], 2 * w) }"
        ),
        Vec::<String>::new()
    );
    // Named nowhere: unused, as any parameter.
    assert_eq!(found("pub fn k(n: usize, x: f64) -> f64 { x }"), ["k: n"]);
}

#[test]
fn a_size_name_in_a_type_is_the_parameter_even_under_a_let_of_that_name() {
    // Without the annotation both `n`s are unused; with it, one is: the parameter, since a
    // type's `n` is the size name (the let's float could not be a size).
    assert_eq!(
        found("pub fn k(n: usize, x: f64) -> f64 { let n = 2.0; sum([x, x]) }"),
        ["k: n n"]
    );
    assert_eq!(
        found(
            "pub fn k(n: usize, x: f64) -> f64 { let n = 2.0; let v: [f64; n] = [x, x]; sum(v) }"
        ),
        ["k: n"]
    );
    assert_eq!(
        found("pub fn k(n: usize, x: f64) -> f64 { let v: [f64; n] = [x, x]; sum(v) }"),
        Vec::<String>::new()
    );
}

#[test]
fn shadowing_uses_the_binding_in_scope() {
    // The second `x` uses the first; the result uses the second.
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { let x = a; let x = x + 1.0; x }"),
        Vec::<String>::new()
    );
    // The first `x` is shadowed before any use.
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { let x = a; let x = 2.0; x }"),
        ["k: x"]
    );
    // A parameter shadowed by a `let` before any use.
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { let a = 1.0; a }"),
        ["k: a"]
    );
    // A `let` inside a block ends with it: the outer name is the one used after.
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { let y = { let a = 2.0; 3.0 }; y + a }"),
        ["k: a"]
    );
    // A closure parameter shadows, and ends with the closure.
    assert_eq!(
        found("pub fn k(v: [f64; n], i: usize) -> f64 { sum(build(n, |i| v[i])) }"),
        ["k: i"]
    );
    assert_eq!(
        found("pub fn k(v: [f64; n], i: usize) -> f64 { sum(build(n, |j| v[j])) + v[i] }"),
        Vec::<String>::new()
    );
}

#[test]
fn unused_closure_parameters_are_found() {
    assert_eq!(
        found("pub fn k(n: usize) -> [f64; n] { build(n, |i| 0.0) }"),
        ["k: i"]
    );
    assert_eq!(
        found("pub fn k(a: [f64; n]) -> f64 { ifold(n, 0.0, |acc, i| a[i]) }"),
        ["k: acc"]
    );
    assert_eq!(
        found("pub fn k(n: usize) -> [f64; n] { scan(n, 0.0, |acc, i| acc + 1.0) }"),
        ["k: i"]
    );
    // A closure passed to a function parameter.
    assert_eq!(
        found("pub fn k(a: [f64; n]) -> [f64; n] { map(a, |x| 1.0) }"),
        ["k: x"]
    );
}

#[test]
fn underscores_silence() {
    assert_eq!(
        found(
            "pub fn k(_a: [f64; n], _s: f64) -> [f64; n] {
                let _t = 1.0;
                let _ = 2.0;
                let (_p, _) = (1.0, 2.0);
                build(n, |_| ifold(3, 0.0, |_acc, _i| 1.0))
            }"
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        found("pub fn k(n: usize) -> [f64; n] { build(n, |_i| 0.0) }"),
        Vec::<String>::new()
    );
}

#[test]
fn tuple_patterns_report_each_name() {
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { let (x, y) = (a, 2.0 * a); y }"),
        ["k: x"]
    );
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { let (x, (y, z)) = (a, (a, a)); 1.0 }"),
        ["k: x y z"]
    );
    // In closure parameters too.
    assert_eq!(
        found(
            "pub fn k(a: [f64; n]) -> f64 {
                let r = ifold(n, (0.0, 0.0), |(s, q), i| (s + a[i], 1.0));
                r.0
            }"
        ),
        ["k: q"]
    );
}

#[test]
fn names_rustc_would_not_take_silently_are_left_out() {
    assert!(reported("a1") && reported("r#type") && reported("x_"));
    assert!(!reported("_a1") && !reported("_") && !reported("(a, b)"));
    assert!(!reported("Xs") && !reported("a__b"));
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { let Big = 1.0; let r#type = 2.0; a }"),
        ["k: r#type"]
    );
}

#[test]
fn helpers_no_kernel_reaches_are_dead() {
    let src = "fn used(x: f64) -> f64 { x }
        fn dead(x: f64) -> f64 { deeper(x) }
        fn deeper(x: f64) -> f64 { x }
        fn through(x: f64) -> f64 { used(x) }
        pub fn k(a: f64) -> f64 { through(a) }";
    assert_eq!(found(src), ["dead dead", "dead deeper"]);
    // A helper passed by name to a function parameter is reached.
    let src = "fn twice(x: f64) -> f64 { 2.0 * x }
        pub fn k(a: [f64; n]) -> [f64; n] { map(a, twice) }";
    assert_eq!(found(src), Vec::<String>::new());
    // A call of a function parameter is no call of the helper of that name.
    let src = "fn f(x: f64) -> f64 { x }
        fn apply(f: fn(f64) -> f64, x: f64) -> f64 { f(x) }
        pub fn k(a: f64) -> f64 { apply(|y| y, a) }";
    assert_eq!(found(src), ["dead f"]);
    // A kernel is never dead, even one that no other function calls; nor is `_helper`.
    assert_eq!(
        found("pub fn k(a: f64) -> f64 { a }\nfn _spare(x: f64) -> f64 { x }"),
        Vec::<String>::new()
    );
    // A dead helper's bindings are reported too.
    assert_eq!(
        found("fn h(x: f64) -> f64 { 1.0 }\npub fn k(a: f64) -> f64 { a }"),
        ["dead h", "h: x"]
    );
}

#[test]
fn nothing_is_dead_in_a_block_that_exports() {
    let src = "pub mod geometry;
        fn cross(a: f64, b: f64) -> f64 { a * b }
        pub fn k(a: f64, b: f64) -> f64 { a + b }";
    assert_eq!(found(src), Vec::<String>::new());
    // Its unused bindings still are reported.
    let src = "pub mod geometry;
        fn cross(a: f64, b: f64) -> f64 { a }";
    assert_eq!(found(src), ["cross: b"]);
}

#[test]
fn imports_the_block_never_calls_are_unused() {
    let src = "use crate::geometry::{rotate, cross as crossp, project};
        use crate::other::dot;
        fn h(x: f64) -> f64 { project(x) }
        pub fn k(a: f64) -> f64 { crossp(a, a) }";
    // `project` is called by a dead helper: used, as rustc counts it.
    assert_eq!(found(src), ["dead h", "import rotate", "import dot"]);
    // The renamed name is what the block calls.
    let src = "use crate::geometry::{cross as crossp};
        pub fn k(a: f64) -> f64 { cross(a, a) }";
    assert_eq!(found(src), ["import cross as crossp"]);
    // A binding of the same name is no use of the import.
    let src = "use crate::geometry::scale;
        pub fn k(a: f64) -> f64 { let scale = 2.0; scale * a }";
    assert_eq!(found(src), ["import scale"]);
    // An import named like a function of the block yields to it (a clash the checker
    // reports): the call is the block's.
    let src = "use crate::geometry::f;
        fn f(x: f64) -> f64 { x }
        pub fn k(a: f64) -> f64 { f(a) }";
    assert_eq!(found(src), ["import f"]);
    assert_eq!(
        found("use crate::geometry::_spare;\npub fn k(a: f64) -> f64 { a }"),
        Vec::<String>::new()
    );
}

#[test]
fn a_glob_is_used_when_a_call_goes_through_it() {
    let geometry = |i: &Import, n: &str| i.path_text() == "crate::geometry" && n == "rotate";
    let src = "use crate::geometry::*;
        use crate::other::*;
        pub fn k(a: f64) -> f64 { rotate(a) + sqnorm([a]) }";
    assert_eq!(found_with(src, &geometry), ["import *"]);
    // Without knowing what a glob brings, any call the block does not resolve counts.
    assert_eq!(found(src), Vec::<String>::new());
    // A call the block resolves never goes through a glob.
    let src = "use crate::geometry::*;
        fn rotate(x: f64) -> f64 { x }
        pub fn k(a: f64) -> f64 { let sqnorm = a; rotate(sqnorm) }";
    assert_eq!(found(src), ["import *"]);
    // Nor one a named import resolves.
    let src = "use crate::geometry::*;
        use crate::other::rotate;
        pub fn k(a: f64) -> f64 { rotate(a) }";
    assert_eq!(found(src), ["import *"]);
}
