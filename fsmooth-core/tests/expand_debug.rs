//! Prints the expansion of a block (the source in `FSRC`, or `add3`), and checks that it is
//! valid Rust: `FSRC='pub fn k(..) -> .. { .. }' cargo test -p fsmooth-core --test
//! expand_debug -- --nocapture` is how to read what the compiler makes of a kernel.

#[test]
fn show() {
    let src = std::env::var("FSRC").unwrap_or_else(|_| {
        "pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }"
            .into()
    });
    let ts = fsmooth_core::expand(src.parse().expect("FSRC is Rust tokens"));
    let file: syn::File = syn::parse2(ts.clone()).expect("the expansion is valid Rust");
    println!("{}", prettyplease::unparse(&file));
}
