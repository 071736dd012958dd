//! The doc comment on each generated kernel: the Rust signature the caller writes against,
//! which the block's `fn` line does not show (destinations first, the region last), for
//! rustdoc and an editor's hover.

use super::results;
use crate::middle::ir::{Kernel, Type};
use proc_macro2::TokenStream;
use quote::quote;

/// The Rust type of a parameter or result, as text.
fn rust_text(t: &Type) -> String {
    match t {
        Type::Arr(e, _) => format!("&(impl RowMajor<{}> + ?Sized)", e.name()),
        Type::Tuple(ts) => {
            let ts: Vec<String> = ts.iter().map(rust_text).collect();
            format!("({})", ts.join(", "))
        }
        t => t.to_string(),
    }
}

/// What an array argument of type `t` accepts (LANGUAGE.md section 17), as a line of the doc
/// comment: any row-major container of its element type, with examples in its shape (rows of
/// its constant inner dimensions).
fn containers(t: &Type, by: &str) -> String {
    let elem = t.scalar().map_or("f64", |s| s.name());
    let dims = t.dims();
    // The row type: the constant dimensions after the first, up to two of them.
    let mut row = None;
    let mut inner = String::from(elem);
    for d in dims.iter().skip(1).rev().take(2) {
        match d.as_const() {
            Some(c) => {
                inner = format!("[{inner}; {c}]");
                row = Some(inner.clone());
            }
            None => break,
        }
    }
    let trait_ = if by.contains("mut") {
        "RowMajorMut"
    } else {
        "RowMajor"
    };
    let examples = match row {
        Some(r) => format!("`{by}[{elem}]`, `{by}[{r}]`, `{by}Vec<{r}>`"),
        None => format!("`{by}[{elem}]`, `{by}[{elem}; N]`, `{by}Vec<{elem}>`"),
    };
    format!("any contiguous row-major container of `{elem}` ({examples}, .., `fsmooth::{trait_}`)")
}

/// `# Generated signature`: the signature, then each parameter with its fsmooth type and
/// the sizes that go with it, then what the call returns.
pub fn signature_doc(k: &Kernel) -> TokenStream {
    let res = results(&k.ret);
    let mut params: Vec<String> = Vec::new();
    for (dest, t) in &res.arrays {
        let elem = t.scalar().map_or("f64", |s| s.name());
        params.push(format!("{dest}: &mut (impl RowMajorMut<{elem}> + ?Sized)"));
    }
    for p in &k.params {
        params.push(format!("{}: {}", p.name.text, rust_text(&p.ty)));
    }
    params.push("region: &mut Region<'_>".to_string());
    let ok = match res.scalars.as_slice() {
        [] => "()".to_string(),
        [(_, t)] => rust_text(t),
        more => {
            let ts: Vec<String> = more.iter().map(|(_, t)| rust_text(t)).collect();
            format!("({})", ts.join(", "))
        }
    };
    let sig = format!(
        "pub fn {}({}) -> Result<{ok}, Error>",
        k.name.text,
        params.join(", ")
    );
    // Without a doc comment of the user's, a summary line (rustdoc's item lists show it).
    let documented = k.attrs.iter().any(|a| a.to_string().starts_with("# [doc"));
    let mut lines = Vec::new();
    if !documented {
        lines.push(format!(
            "The kernel `{}`, compiled by `fsmooth!`.",
            k.name.text
        ));
    }
    lines.extend([
        String::new(),
        "# Generated signature".to_string(),
        String::new(),
        "```text".to_string(),
        sig,
        "```".to_string(),
        String::new(),
    ]);
    let sized = |what: &str| {
        if k.shape_sizes.is_empty() {
            format!("`{}::{}`", k.name.text, what.to_uppercase())
        } else {
            format!("`{}::{what}({})`", k.name.text, k.shape_sizes.join(", "))
        }
    };
    for (dest, t) in &res.arrays {
        let len = sized(&format!("{dest}_len"));
        lines.push(format!(
            "- `{dest}`: the result `{t}`, {len} elements, into {}",
            containers(t, "&mut ")
        ));
    }
    for p in &k.params {
        match &p.ty {
            t @ Type::Arr(..) => lines.push(format!(
                "- `{}`: `{t}`, from {}",
                p.name.text,
                containers(t, "&")
            )),
            t => lines.push(format!("- `{}`: `{t}`", p.name.text)),
        }
    }
    lines.push(format!(
        "- `region`: scratch for the intermediate arrays, {} slots (`fsmooth::Region`)",
        sized("scratch_len")
    ));
    let returned = match res.scalars.as_slice() {
        [] => "`Ok(())`".to_string(),
        [(_, t)] => format!("`Ok` with the `{t}` result"),
        _ => "`Ok` with the scalar results, in order".to_string(),
    };
    lines.push(String::new());
    lines.push(format!(
        "Returns {returned}, or `Err(fsmooth::Error)` for an argument of the wrong length or layout or a bad index."
    ));
    let lines = lines.into_iter().map(|l| format!(" {l}"));
    quote!(#(#[doc = #lines])*)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_generated_signature_is_in_the_doc_comment() {
        let src = "/// Sum.\npub fn add2(a: [f64; n], b: [f64; n], label: usize) -> ([f64; n], f64) { (add(a, b), 1.0) }";
        let out = crate::expand(src.parse().unwrap()).to_string();
        let docs: Vec<&str> = out
            .split("# [doc = \"")
            .skip(1)
            .map(|d| &d[..d.find("\"]").unwrap()])
            .collect();
        let text = docs.join("\n");
        assert!(
            text.contains("pub fn add2(out0: &mut (impl RowMajorMut<f64> + ?Sized), a: &(impl RowMajor<f64> + ?Sized), b: &(impl RowMajor<f64> + ?Sized), label: usize, region: &mut Region<'_>) -> Result<f64, Error>"),
            "{text}"
        );
        assert!(
            text.contains("- `out0`: the result `[f64; n]`, `add2::out0_len(n)` elements, into any contiguous row-major container of `f64` (`&mut [f64]`, `&mut [f64; N]`, `&mut Vec<f64>`, .., `fsmooth::RowMajorMut`)"),
            "{text}"
        );
        assert!(
            text.contains("- `a`: `[f64; n]`, from any contiguous row-major container of `f64`"),
            "{text}"
        );
        let out = crate::expand(
            "pub fn k(a: [[f32; 3]; n], b: [[[f64; 2]; 4]; n]) -> f64 { b[0][0][0] + a[0][0] as f64 }"
                .parse()
                .unwrap(),
        )
        .to_string();
        assert!(
            out.contains("- `a`: `[[f32; 3]; n]`, from any contiguous row-major container of `f32` (`&[f32]`, `&[[f32; 3]]`, `&Vec<[f32; 3]>`, .., `fsmooth::RowMajor`)"),
            "{out}"
        );
        assert!(
            out.contains("(`&[f64]`, `&[[[f64; 2]; 4]]`, `&Vec<[[f64; 2]; 4]>`"),
            "{out}"
        );
        assert!(text.contains("`add2::scratch_len(n)` slots"), "{text}");
        assert!(text.starts_with(" Sum.\n \n # Generated"), "{text}");
        let out = crate::expand("pub fn k(a: f64) -> f64 { a }".parse().unwrap()).to_string();
        assert!(
            out.starts_with(
                "# [doc = \" The kernel `k`, compiled by `fsmooth!`.\"] # [doc = \" \"]"
            ),
            "{out}"
        );
    }
}
