//! The macro never panics and never hangs: random token streams, and random mutations of
//! valid programs (tokens deleted, duplicated, swapped; sizes, literals and names changed),
//! all expand to code or to spanned errors. The valid programs (`fuzz_corpus.fs`) include
//! tuples and their patterns, kernels with several results, scans and every layout view;
//! `fuzz_corpus_typed.fs` adds index arrays (gathers), usize arrays, f32 kernels, casts and
//! the math methods of version 2, the derivative forms, `iterate`, `scatter_add` and
//! `reduce_by_index`, mutated alike; and
//! `fuzz_corpus_imports.fs` blocks that
//! import and export (issue 19), one with an imported block's section as its macro hands
//! it over (apart, since other tests check the first two corpora's blocks on their own).
//!
//! `cargo test` tries 2,000 of each; the long run (`FSMOOTH_LONG=1`) 100,000:
//! `FSMOOTH_LONG=1 cargo test --release -p fsmooth-core --test fuzz -- --nocapture`
//! (`FSMOOTH_FUZZ_CASES` sets the count outright).

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use std::time::{Duration, Instant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const IDENTS: &[&str] = &[
    "pub",
    "fn",
    "let",
    "if",
    "else",
    "build",
    "ifold",
    "length",
    "f64",
    "usize",
    "bool",
    "a",
    "b",
    "n",
    "m",
    "k",
    "i",
    "x",
    "v",
    "acc",
    "add",
    "sum",
    "dot",
    "map",
    "matmul",
    "sqrt",
    "len",
    "powi",
    "true",
    "false",
    "as",
    "mut",
    "for",
    "return",
    "self",
    "r#type",
    "_",
    "out",
    "region",
    "scan",
    "concat",
    "join",
    "split",
    "reverse",
    "interleave",
    "slide",
    "pad",
    "transpose",
    "out0",
    "f32",
    "clamp",
    "mul_add",
    "atan2",
    "idx",
    "use",
    "mod",
    "pub",
    "crate",
    "super",
    "fsmooth_import",
    "iterate",
    "scatter_add",
    "reduce_by_index",
];
const PUNCTS: &[&str] = &[
    "+", "-", "*", "/", "%", ";", ",", ":", "->", "=", "==", "<", ">", "<=", "!", "&&", "||", "|",
    ".", "..", "&", "#", "'a", "::", "@",
];
const LITS: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "11",
    "1.5",
    "0.0",
    "2.0e-3",
    "18446744073709551615",
    "1e308",
    "340282366920938463463374607431768211455",
    "\"s\"",
    "'c'",
    "3u8",
    "2.0f32",
    "1usize",
];

fn random_tokens(rng: &mut Rng, depth: usize, out: &mut String) {
    let n = rng.below(12) + 1;
    for _ in 0..n {
        match rng.below(10) {
            0..=3 => out.push_str(rng.pick(IDENTS)),
            4..=5 => out.push_str(rng.pick(PUNCTS)),
            6..=7 => out.push_str(rng.pick(LITS)),
            _ if depth < 6 => {
                let (o, c) = [("(", ")"), ("[", "]"), ("{", "}")][rng.below(3)];
                out.push_str(o);
                random_tokens(rng, depth + 1, out);
                out.push_str(c);
            }
            _ => out.push('x'),
        }
        out.push(' ');
    }
}

/// A token list with groups written as their delimiters, so mutations can cut through them.
fn flatten(ts: TokenStream, out: &mut Vec<String>) {
    for t in ts {
        match t {
            TokenTree::Group(g) => {
                let (o, c) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::None => ("", ""),
                };
                out.push(o.into());
                flatten(g.stream(), out);
                out.push(c.into());
            }
            TokenTree::Punct(p) => out.push(p.as_char().to_string()),
            other => out.push(other.to_string()),
        }
    }
}

fn mutate(rng: &mut Rng, toks: &mut Vec<String>) {
    let idents: Vec<String> = toks
        .iter()
        .filter(|t| t.chars().next().is_some_and(|c| c.is_alphabetic()))
        .cloned()
        .collect();
    for _ in 0..rng.below(3) + 1 {
        if toks.is_empty() {
            return;
        }
        let at = rng.below(toks.len());
        match rng.below(7) {
            0 => {
                toks.remove(at);
            }
            1 => {
                let t = toks[at].clone();
                toks.insert(at, t);
            }
            2 => {
                let other = rng.below(toks.len());
                toks.swap(at, other);
            }
            3 => {
                // Change a size or literal.
                if let Some(k) = (0..toks.len())
                    .map(|d| (at + d) % toks.len())
                    .find(|&k| toks[k].chars().next().is_some_and(|c| c.is_ascii_digit()))
                {
                    toks[k] = rng.pick(LITS).to_string();
                }
            }
            4 => {
                // Change a name.
                if !idents.is_empty()
                    && let Some(k) = (0..toks.len())
                        .map(|d| (at + d) % toks.len())
                        .find(|&k| toks[k].chars().next().is_some_and(|c| c.is_alphabetic()))
                {
                    toks[k] = idents[rng.below(idents.len())].clone();
                }
            }
            5 => toks.insert(at, rng.pick(PUNCTS).to_string()),
            _ => toks.insert(at, rng.pick(IDENTS).to_string()),
        }
    }
}

/// Expand on a thread with rustc's stack size; report a panic or a slow expansion.
fn expand_ok(src: &str) -> Result<Duration, String> {
    let text = src.to_string();
    let r = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            // Tokens are built on the expanding thread (they are not `Send`).
            let Ok(ts) = text.parse::<TokenStream>() else {
                return (Duration::ZERO, true, false); // not tokens: rustc never calls the macro
            };
            let t = Instant::now();
            let out = fsmooth_core::expand(ts);
            let took = t.elapsed();
            let file = syn::parse2::<syn::File>(out.clone());
            (took, file.is_ok(), out.is_empty())
        })
        .map_err(|e| e.to_string())?
        .join();
    match r {
        Ok((took, parses, _)) if parses => Ok(took),
        Ok(_) => Err(format!("expansion is not valid Rust for:\n{src}")),
        Err(_) => Err(format!("the macro panicked on:\n{src}")),
    }
}

fn cases() -> usize {
    fsmooth_testdata::runs::length("FSMOOTH_FUZZ_CASES", 2000, 100_000) as usize
}

fn run(name: &str, mut gen_case: impl FnMut(&mut Rng) -> String) {
    let mut rng = Rng(0x5EED_F00D_1234_5678);
    let mut slowest = Duration::ZERO;
    let n = cases();
    for _ in 0..n {
        let src = gen_case(&mut rng);
        match expand_ok(&src) {
            Ok(t) => slowest = slowest.max(t),
            Err(e) => panic!("{e}"),
        }
    }
    println!("{name}: {n} cases, slowest expansion {slowest:?}");
    assert!(
        slowest < Duration::from_secs(5),
        "an expansion took {slowest:?}"
    );
}

#[test]
fn random_token_streams() {
    run("random tokens", |rng| {
        let mut s = String::new();
        if rng.below(2) == 0 {
            s.push_str("pub fn k(a: [f64; n]) -> f64 { ");
            random_tokens(rng, 1, &mut s);
            s.push('}');
        } else {
            random_tokens(rng, 0, &mut s);
        }
        s
    });
}

/// The blocks of the corpus, and of the typed corpus.
fn corpus_blocks() -> impl Iterator<Item = &'static str> {
    include_str!("fuzz_corpus.fs")
        .split("====")
        .chain(include_str!("fuzz_corpus_typed.fs").split("===="))
        .chain(include_str!("fuzz_corpus_imports.fs").split("===="))
}

/// The typed corpus is valid too: each block expands without an error.
#[test]
fn typed_corpus_is_valid() {
    for b in include_str!("fuzz_corpus_typed.fs").split("====") {
        let out = fsmooth_core::expand(b.parse().unwrap()).to_string();
        assert!(!out.contains("compile_error"), "{b}\n{out}");
    }
}

#[test]
fn mutated_valid_programs() {
    let corpus: Vec<Vec<String>> = corpus_blocks()
        .map(|b| {
            let mut v = Vec::new();
            flatten(b.parse().expect("corpus tokens"), &mut v);
            v
        })
        .collect();
    // The corpus itself is valid.
    for b in include_str!("fuzz_corpus.fs").split("====") {
        let out = fsmooth_core::expand(b.parse().unwrap()).to_string();
        assert!(!out.contains("compile_error"), "{out}");
    }
    run("mutations", |rng| {
        let mut toks = corpus[rng.below(corpus.len())].clone();
        mutate(rng, &mut toks);
        toks.join(" ")
    });
}
