use super::*;

fn parse_str(src: &str) -> (Option<Program>, Vec<String>) {
    let mut d = Diags::default();
    let p = parse(src.parse().unwrap(), &mut d);
    (p, d.messages())
}

#[test]
fn parses_every_form() {
    let (p, errs) = parse_str(
        "/// doc\npub fn k(a: [[f64; m]; n], s: f64, k: usize) -> [f64; n * 2] {
            let x: f64 = a[0][1] * 2.0e-3;
            let v = a[1][0..m];
            let w = build(n * 2, |i| if i % 2 == 0 { x } else if true { -s } else { 1.5 });
            ifold(k, w, |acc, i| [acc[0].powi(2)].len() as f64 + v.len() as f64 + length(acc))
        }
        fn h(f: fn(f64) -> f64, x: f64) -> f64 { f(x).sqrt().max(0.0) }",
    );
    assert!(errs.is_empty(), "{errs:?}");
    let p = p.unwrap();
    assert_eq!(p.fns.len(), 2);
    assert!(p.fns[0].public && !p.fns[1].public);
    assert_eq!(p.fns[0].attrs.len(), 1);
    assert!(matches!(p.fns[1].params[0].ty, Ty::Fn(..)));
}

#[test]
fn rejects_rust_outside_fsmooth_on_its_tokens() {
    // One mistake, one error: the `mut` is part of the loop's.
    let (_, errs) = parse_str("pub fn k(x: f64) -> f64 { let mut y = x; for i in 0..3 {} y }");
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert!(errs.iter().any(|e| e.contains("`for` loops")), "{errs:?}");
    let (_, errs) = parse_str("pub fn k(x: f64) -> f64 { let mut y = x; y }");
    assert!(errs.iter().any(|e| e.contains("immutable")), "{errs:?}");
    let (_, errs) = parse_str("pub fn k(x: &[f64]) -> f64 { x.foo() }");
    assert!(
        errs.iter().any(|e| e.contains("array type itself")),
        "{errs:?}"
    );
    assert!(
        errs.iter().any(|e| e.contains("unknown method `foo`")),
        "{errs:?}"
    );
    let (p, errs) = parse_str("pub fn k(x: f64) -> f64 { x + }");
    assert!(p.is_none() && errs.len() == 1, "{errs:?}");
}

#[test]
fn block_options() {
    let mut d = Diags::default();
    let p = parse(
        "#![fsmooth(fusion = false)] pub fn k(x: f64) -> f64 { x }"
            .parse()
            .unwrap(),
        &mut d,
    );
    assert!(d.is_empty(), "{:?}", d.messages());
    assert!(!p.unwrap().options.fusion);
    let mut d = Diags::default();
    let p = parse(
        "#![fsmooth(storage = \"heap\", fusion = true)] pub fn k(x: f64) -> f64 { x }"
            .parse()
            .unwrap(),
        &mut d,
    );
    assert!(d.is_empty(), "{:?}", d.messages());
    assert_eq!(p.unwrap().options.storage, crate::front::ast::Storage::Heap);
    let mut d = Diags::default();
    let p = parse(
        "#![fsmooth(unroll = false)] pub fn k(x: f64) -> f64 { x }"
            .parse()
            .unwrap(),
        &mut d,
    );
    assert!(d.is_empty(), "{:?}", d.messages());
    let o = p.unwrap().options;
    assert!(!o.unroll && o.fusion);
    let mut d = Diags::default();
    parse(
        "#![fsmooth(storage = \"stack\")] pub fn k(x: f64) -> f64 { x }"
            .parse()
            .unwrap(),
        &mut d,
    );
    assert!(
        d.messages()[0].contains("unknown storage"),
        "{:?}",
        d.messages()
    );
    let mut d = Diags::default();
    parse(
        "#![fsmooth(speed = 11)] pub fn k(x: f64) -> f64 { x }"
            .parse()
            .unwrap(),
        &mut d,
    );
    assert!(
        d.messages()[0].contains("unknown fsmooth option"),
        "{:?}",
        d.messages()
    );
    assert!(d.messages()[0].contains("`reassociate = true|false`"));
    // `reassociate` takes a boolean.
    let mut d = Diags::default();
    let p = parse(
        "#![fsmooth(reassociate = true)] pub fn k(x: f64) -> f64 { x }"
            .parse()
            .unwrap(),
        &mut d,
    );
    assert!(d.is_empty() && p.is_some_and(|p| p.options.reassociate));
    let mut d = Diags::default();
    parse(
        "#![fsmooth(reassociate = \"yes\")] pub fn k(x: f64) -> f64 { x }"
            .parse()
            .unwrap(),
        &mut d,
    );
    assert_eq!(d.messages().len(), 1, "{:?}", d.messages());
}

#[test]
fn a_guard_clause_is_one_error_however_it_is_written() {
    // `return v;`, `return v` without its semicolon, a `let` before it: each the one error
    // naming the `else` spelling.
    for guard in [
        "if t < 0.0 { return 0.0; }",
        "if t < 0.0 { return 0.0 }",
        "if t < 0.0 { let z = 2.0 * t; return z; }",
    ] {
        let src = format!("pub fn k(t: f64) -> f64 {{ {guard} t * 3.0 }}");
        let (_, errs) = parse_str(&src);
        assert_eq!(errs.len(), 1, "{src}: {errs:?}");
        assert!(errs[0].contains("no early `return`"), "{src}: {errs:?}");
    }
}

#[test]
fn the_prelude_function_names_are_the_preludes() {
    let mut defined: Vec<&str> = crate::front::check::PRELUDE
        .lines()
        .filter_map(|l| l.strip_prefix("fn "))
        .filter_map(|l| l.split('(').next())
        .collect();
    defined.sort_unstable();
    let mut listed = crate::front::parse::PRELUDE_FNS.to_vec();
    listed.sort_unstable();
    assert_eq!(defined, listed);
}
