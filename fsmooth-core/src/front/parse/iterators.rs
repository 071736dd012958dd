//! Rust's iterator chains (`x.iter().sum()`, `a.iter().zip(b).map(..).sum()`), which a Rust
//! user writes first and fsmooth has no form of (LANGUAGE.md section 16, errors that teach):
//! the whole chain is one error, on the chain, naming the fsmooth form that computes the same
//! (`sum(x)`, `sum(map2(a, b, ..))`), instead of one "unknown method" per link.

use super::Parser;
use quote::ToTokens;

/// The methods that start an iterator chain on an array.
const STARTS: [&str; 5] = ["iter", "into_iter", "iter_mut", "windows", "chunks"];

/// The links of `m`'s chain, receiver first (`x.iter().map(f).sum()`: `x`, then `iter`,
/// `map(f)`, `sum`), when it is an iterator chain: some link below the last one is a
/// [`STARTS`] method.
fn chain(m: &syn::ExprMethodCall) -> Option<(&syn::Expr, Vec<&syn::ExprMethodCall>)> {
    let mut links = vec![m];
    let mut recv = &*m.receiver;
    while let syn::Expr::MethodCall(inner) = recv {
        links.push(inner);
        recv = &*inner.receiver;
    }
    links.reverse();
    let start = links.first()?.method.to_string();
    STARTS.contains(&start.as_str()).then_some((recv, links))
}

/// The text of `e` as the user wrote it, in Rust's usual spacing (closures written out so
/// that their bars keep their spaces; a tuple pattern's parts as separate parameters, as
/// `map2`'s closure takes them, when `split_tuple`).
fn text(e: &syn::Expr, split_tuple: bool) -> String {
    if let syn::Expr::Closure(c) = e {
        let params: Vec<String> = c
            .inputs
            .iter()
            .flat_map(|p| match p {
                syn::Pat::Tuple(t) if split_tuple => t.elems.iter().map(tokens).collect(),
                p => vec![tokens(p)],
            })
            .collect();
        return format!("|{}| {}", params.join(", "), text(&c.body, false));
    }
    tokens(e)
}

/// Tokens as text with the spaces Rust style leaves out removed (around `.`, `::`, inside
/// brackets, before `,`).
fn tokens(e: &impl ToTokens) -> String {
    let s = e.to_token_stream().to_string();
    [
        (" . ", "."),
        (" :: ", "::"),
        (" (", "("),
        ("( ", "("),
        (" )", ")"),
        (" [", "["),
        ("[ ", "["),
        (" ]", "]"),
        (" ,", ","),
    ]
    .iter()
    .fold(s, |s, (from, to)| s.replace(from, to))
}

/// `e` without a trailing `.iter()` or `.into_iter()` (`zip(b.iter())` zips `b`).
fn array_of(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::MethodCall(m)
            if m.args.is_empty() && STARTS[..3].contains(&m.method.to_string().as_str()) =>
        {
            &m.receiver
        }
        e => e,
    }
}

/// The fsmooth form of an iterator chain over `base` with `links` (after the start), when
/// there is a direct one.
fn form(base: &str, links: &[&syn::ExprMethodCall]) -> Option<String> {
    let links: Vec<&syn::ExprMethodCall> = links
        .iter()
        .copied()
        .filter(|l| !matches!(l.method.to_string().as_str(), "copied" | "cloned"))
        .collect();
    let names: Vec<String> = links.iter().map(|l| l.method.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let arg = |k: usize| links.get(k).and_then(|l| l.args.first());
    let closure = |k: usize, split: bool| arg(k).map(|a| text(a, split));
    match names.as_slice() {
        ["sum"] => Some(format!("sum({base})")),
        ["map", "sum"] => Some(format!("sum(map({base}, {}))", closure(0, false)?)),
        ["map", "collect"] | ["map"] => Some(format!("map({base}, {})", closure(0, false)?)),
        ["zip", "map", rest @ ..] if matches!(rest, [] | ["sum"] | ["collect"]) => {
            let other = tokens(array_of(arg(0)?));
            let both = format!("map2({base}, {other}, {})", closure(1, true)?);
            Some(match rest {
                ["sum"] => format!("sum({both})"),
                _ => both,
            })
        }
        ["fold"] => {
            let init = tokens(arg(0)?);
            let step = links[0].args.iter().nth(1)?;
            let body = match step {
                syn::Expr::Closure(c) if c.inputs.len() == 2 => {
                    let (acc, v) = (tokens(&c.inputs[0]), tokens(&c.inputs[1]));
                    format!(
                        "|{acc}, i| {{ let {v} = {base}[i]; {} }}",
                        text(&c.body, false)
                    )
                }
                // `fold(f64::NEG_INFINITY, f64::max)`
                syn::Expr::Path(p) => {
                    let f = p.path.segments.last()?.ident.to_string();
                    format!("|acc, i| acc.{f}({base}[i])")
                }
                _ => format!("|acc, i| .. {base}[i] .."),
            };
            Some(format!("ifold({base}.len(), {init}, {body})"))
        }
        ["enumerate", "map", ..] => Some(format!("build({base}.len(), |i| .. {base}[i] ..)")),
        ["max_by" | "max_by_key" | "max"] => Some(format!("vmax({base})")),
        ["min_by" | "min_by_key" | "min"] => Some(format!(
            "ifold({base}.len(), {base}[0], |m, i| m.min({base}[i]))"
        )),
        ["product"] => Some(format!("ifold({base}.len(), 1.0, |p, i| p * {base}[i])")),
        _ => None,
    }
}

impl Parser<'_> {
    /// When `m` is the last link of an iterator chain: one error on the whole chain, with
    /// the fsmooth form where there is one; true then (the caller reports nothing more).
    #[inline(never)]
    pub(super) fn iterator_chain(&mut self, m: &syn::ExprMethodCall) -> bool {
        let Some((base, links)) = chain(m) else {
            return false;
        };
        // The array the chain runs over: `x`, or `slide(k, x)` for `x.windows(k)` and
        // `split(k, x)` for `x.chunks(k)`.
        let base = match (links[0].method.to_string().as_str(), links[0].args.first()) {
            ("windows", Some(k)) => format!("slide({}, {})", tokens(k), tokens(base)),
            ("chunks", Some(k)) => format!("split({}, {})", tokens(k), tokens(base)),
            _ => tokens(base),
        };
        let written: Vec<String> = links.iter().map(|l| l.method.to_string()).collect();
        let hint = match form(&base, &links[1..]) {
            Some(f) => format!("; write `{f}`"),
            None => "; write the loop with `build`, `map`, `sum`, `ifold` or `scan`".to_string(),
        };
        // On the method that starts the chain: a proc macro's span of several tokens shows
        // only its first on stable Rust.
        self.err(
            links[0].method.span(),
            format!(
                "fsmooth has no iterators (`.{}()`){hint}",
                written.join("().")
            ),
        );
        true
    }
}
