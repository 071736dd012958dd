use super::*;
use crate::middle::print::tests::kernel;

fn problems(k: &Kernel, anf: bool) -> Vec<String> {
    validate(k, Rules { anf })
}

/// The first node of `e` (pre-order) satisfying `f`.
fn find<'a>(e: &'a mut Core, f: &dyn Fn(&Core) -> bool) -> Option<&'a mut Core> {
    if f(e) {
        return Some(e);
    }
    e.children_mut().into_iter().find_map(|c| find(c, f))
}

const STENCIL: &str = "pub fn stencil(a: [f64; n]) -> [f64; n - 2] { let s = smul(a, 0.5); build(n - 2, |i| s[i] + s[i + 1] + s[i + 2]) }";

#[test]
fn well_formed_kernels_pass_before_and_after_the_middle() {
    for middle in [false, true] {
        let k = kernel(STENCIL, middle);
        assert_eq!(problems(&k, false), Vec::<String>::new());
    }
}

#[test]
fn an_unbound_variable_is_caught() {
    let mut k = kernel(STENCIL, true);
    // The second build's index, read in the first build.
    let Kind::Let(_, value, body) = &mut k.body.kind else {
        panic!("{k}")
    };
    let Kind::Build(_, i, _) = body.kind else {
        panic!("{k}")
    };
    let Kind::Build(_, j, _) = value.kind else {
        panic!("{k}")
    };
    let read = find(value, &|e| matches!(e.kind, Kind::Var(v) if v == j)).unwrap();
    read.kind = Kind::Var(i);
    let found = problems(&k, false);
    assert!(
        found.iter().any(|p| p.contains("used out of its scope")),
        "{found:?}"
    );
}

#[test]
fn a_variable_bound_twice_is_caught() {
    let mut k = kernel(STENCIL, true);
    let Kind::Let(s, _, body) = &mut k.body.kind else {
        panic!("{k}")
    };
    let s = *s;
    let Kind::Build(_, i, _) = &mut body.kind else {
        panic!("{k}")
    };
    // The index takes the name of the `let`: bound twice (and `s[..]` now reads a usize).
    *i = s;
    let found = problems(&k, false);
    assert!(found.iter().any(|p| p.contains("bound twice")), "{found:?}");
}

#[test]
fn mismatched_types_are_caught() {
    let mut k = kernel(
        "pub fn k(a: [f64; n], s: f64) -> f64 { if s > 0.0 { a[0] } else { s * 2.0 } }",
        false,
    );
    let branch = find(&mut k.body, &|e| {
        matches!(e.kind, Kind::Bin(BinOp::Mul, ..))
    })
    .unwrap();
    branch.ty = Type::Bool;
    let found = problems(&k, false);
    assert!(
        found
            .iter()
            .any(|p| p.contains("`else` branch is of type `bool`")),
        "{found:?}"
    );
    let mut k = kernel("pub fn k(a: [f64; n]) -> f64 { a[1] }", false);
    let index = find(&mut k.body, &|e| matches!(e.kind, Kind::Index(..))).unwrap();
    index.ty = Type::Arr(crate::middle::ir::Scalar::F64, vec![Size::Name("n".into())]);
    let found = problems(&k, false);
    assert!(
        found.iter().any(|p| p.contains("an element is of type")),
        "{found:?}"
    );
}

#[test]
fn a_foreign_size_name_is_caught() {
    let mut k = kernel(STENCIL, true);
    let Kind::Let(_, _, body) = &mut k.body.kind else {
        panic!("{k}")
    };
    let Kind::Build(n, ..) = &mut body.kind else {
        panic!("{k}")
    };
    *n = Size::Name("m".into());
    let found = problems(&k, false);
    assert!(
        found
            .iter()
            .any(|p| p.contains("size `m` is not one of the kernel's")),
        "{found:?}"
    );
}

#[test]
fn a_normal_form_is_checked_only_when_asked() {
    // Before `anf`, loads and products nest: fine in general, not in A-normal form.
    let k = kernel(
        "pub fn k(a: [f64; n], s: f64) -> f64 { (a[0] * s + a[1]).sqrt() }",
        false,
    );
    assert_eq!(problems(&k, false), Vec::<String>::new());
    let found = problems(&k, true);
    assert!(
        found.iter().any(|p| p.contains("not in A-normal form")),
        "{found:?}"
    );
}

/// Every public kernel of `block`, through the middle under each block option the
/// differential tests use: the pipeline validates after every pass (this is a test build).
fn passes_every_pass(block: &str) {
    const OPTIONS: [&str; 4] = [
        "",
        "#![fsmooth(fusion = false)]",
        "#![fsmooth(storage = \"heap\")]",
        "#![fsmooth(unroll = false, storage = \"heap_frame\")]",
    ];
    for options in OPTIONS {
        let src = format!("{options}\n{block}");
        let mut d = crate::front::diag::Diags::default();
        let checked = crate::pipeline::front(src.parse().unwrap(), &mut d).unwrap();
        assert!(d.is_empty(), "{:?}\n{src}", d.messages());
        for k in checked.kernels {
            if let Err(e) = crate::pipeline::middle(k, checked.scope.options) {
                panic!("{e}\n{src}");
            }
        }
    }
}

#[test]
fn the_fuzz_corpus_and_quickstart_pass_every_pass() {
    let corpus = include_str!("../../tests/fuzz_corpus.fs");
    for block in corpus.split("====") {
        passes_every_pass(block);
    }
    let quickstart = include_str!("../../../examples/quickstart.rs");
    let start = quickstart.find("fsmooth! {").unwrap() + "fsmooth! {".len();
    let end = quickstart.find("\n}\n").unwrap();
    passes_every_pass(&quickstart[start..end]);
}

#[test]
fn every_prelude_function_passes_every_pass() {
    // Each prelude function without a closure parameter, called from a public kernel of the
    // same signature.
    let prelude = include_str!("../front/prelude.fs");
    let mut block = String::new();
    for line in prelude.lines().filter(|l| l.starts_with("fn ")) {
        let header = line.trim_end_matches('{').trim();
        let (name, rest) = header["fn ".len()..].split_once('(').unwrap();
        if rest.contains("fn(") {
            continue;
        }
        let params = &rest[..rest.rfind(')').unwrap()];
        let args: Vec<&str> = params
            .split(", ")
            .filter_map(|p| p.split_once(':').map(|(n, _)| n.trim()))
            .collect();
        let ret = header.rsplit_once("->").unwrap().1.trim();
        // Every size name as a parameter too: a matrix's width is not read from its length.
        let mut sizes: Vec<&str> = params
            .split("; ")
            .skip(1)
            .map(|s| s.split(']').next().unwrap())
            .filter(|s| s.chars().all(|c| c.is_ascii_lowercase()))
            .collect();
        sizes.sort();
        sizes.dedup();
        let sizes: String = sizes.iter().map(|s| format!(", {s}: usize")).collect();
        // The prelude is generic in its element type `T`: each function at f64 and at f32.
        for elem in ["f64", "f32"] {
            let params = params.replace('T', elem);
            let ret = ret.replace('T', elem);
            block.push_str(&format!(
                "pub fn p_{name}_{elem}({params}{sizes}) -> {ret} {{ {name}({}) }}\n",
                args.join(", ")
            ));
        }
    }
    assert!(block.lines().count() > 10, "{block}");
    passes_every_pass(&block);
}

#[test]
fn generated_programs_pass_every_pass() {
    for seed in 0..100 {
        passes_every_pass(&fsmooth_testdata::progen::program(seed).src);
    }
}

#[test]
fn a_symbolic_value_naming_a_let_is_caught() {
    let mut k = kernel(STENCIL, false);
    // `s`'s `let`, and a read of the build's index, whose symbolic value now names `s`.
    let Kind::Let(s, _, body) = &mut k.body.kind else {
        panic!("{k}")
    };
    let s = *s;
    let Kind::Build(_, i, _) = body.kind else {
        panic!("{k}")
    };
    let read = find(body, &|e| matches!(e.kind, Kind::Var(v) if v == i)).unwrap();
    read.sym = Some(Size::Loop(s));
    let found = problems(&k, false);
    assert!(
        found.iter().any(|p| p.contains("which a `let` binds")),
        "{found:?}"
    );
}
