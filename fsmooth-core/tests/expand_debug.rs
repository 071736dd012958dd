#[test]
fn show() {
    let src = std::env::var("FSRC").unwrap_or(
        "pub fn add3(a: [f64; n], b: [f64; n], c: [f64; n]) -> [f64; n] { add(add(a, b), c) }"
            .into(),
    );
    let ts = fsmooth_core::expand(src.parse().unwrap());
    let file: syn::File = match syn::parse2(ts.clone()) {
        Ok(f) => f,
        Err(_) => {
            println!("{ts}");
            return;
        }
    };
    println!("{}", prettyplease::unparse(&file));
}
