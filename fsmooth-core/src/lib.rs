//! The fsmooth compiler as an ordinary library, plus a reference interpreter.
//!
//! The passes follow the DPS paper (Shaikhha et al., FHPC 2017), one module each:
//! [`parse`] → [`check`] (names, types and the shape translation; helpers and closures
//! inlined into one core expression per kernel) → [`fuse`] → [`unroll`] (and fusion again)
//! → [`simplify`] → [`hoist`] (costly invariant math out of loops) → [`anf`] → [`dps`]
//! (into the loop IR, [`lir`], with frame offsets from [`storage`]) → [`codegen`] (which
//! prints the loop IR as Rust). [`interp`] runs the source language and [`exec`] the loop
//! IR, for testing.

pub mod anf;
pub mod ast;
pub mod check;
pub mod codegen;
pub mod diag;
pub mod dps;
pub mod exec;
pub mod fuse;
pub mod hoist;
pub mod interp;
pub mod ir;
pub mod lir;
pub mod parse;
pub mod simplify;
pub mod size;
pub mod storage;
pub mod unroll;

use proc_macro2::TokenStream;

/// Expand the tokens of a `fsmooth! { .. }` block into Rust.
///
/// Never panics: every problem becomes a spanned `compile_error!`, and after an error each
/// kernel's signature is still emitted (with a body that is never reached) so that the
/// user's calls resolve and only the real errors are shown.
pub fn expand(tokens: TokenStream) -> TokenStream {
    let mut diags = diag::Diags::default();
    let Some(program) = parse::parse(tokens, &mut diags) else {
        return diags.to_compile_errors();
    };
    let scope = check::Scope::new(program);
    let kernels = check::check(&scope, &mut diags);
    if !diags.is_empty() {
        let mut out = diags.to_compile_errors();
        let mut seen: Vec<&str> = Vec::new();
        for f in scope.fns[..scope.user].iter().filter(|f| f.public) {
            if seen.contains(&f.name.s.as_str()) {
                continue; // a duplicate is reported already; a second stub would add E0428
            }
            seen.push(&f.name.s);
            if let Some(s) = codegen::stub(f) {
                out.extend(s);
            }
        }
        return out;
    }
    kernels
        .iter()
        .map(|k| codegen::kernel(&optimize_with(k.clone(), scope.options), scope.options))
        .collect()
}

/// The middle of the pipeline, on one kernel, with every optimisation on.
pub fn optimize(k: ir::Kernel) -> ir::Kernel {
    optimize_with(k, ast::Options::default())
}

/// The middle of the pipeline, on one kernel.
pub fn optimize_with(mut k: ir::Kernel, options: ast::Options) -> ir::Kernel {
    simplify::propagate(&mut k.body);
    if options.fusion {
        fuse::fuse(&mut k.body, &mut k.var_names);
    }
    if options.fusion && options.unroll {
        // Small fixed loops written out, then fused again: their arrays become scalars.
        // (Constants folded first: the prelude's `-0.0` is a literal, not a negation, when
        // the unrolled code is measured against the budget.)
        simplify::fold(&mut k.body);
        unroll::unroll(&mut k.body, &mut k.var_names);
        simplify::fold(&mut k.body);
        fuse::fuse(&mut k.body, &mut k.var_names);
    }
    simplify::fold(&mut k.body);
    simplify::propagate(&mut k.body);
    if options.fusion {
        hoist::hoist(&mut k.body, &mut k.var_names);
    }
    k.body = anf::anf(k.body, &mut k.var_names);
    simplify::cse(&mut k.body);
    simplify::propagate(&mut k.body);
    simplify::inline_single_uses(&mut k.body);
    k
}

/// Compile the tokens of a block up to the loop IR, without printing Rust: each public
/// kernel after the middle of the pipeline, with its plan ([`codegen::plan`]). For testing
/// the translation with [`exec`]; errors are the diagnostics' messages.
pub fn plan_block(tokens: TokenStream) -> Result<Vec<(ir::Kernel, codegen::Planned)>, String> {
    let mut diags = diag::Diags::default();
    let Some(program) = parse::parse(tokens, &mut diags) else {
        return Err(diags.messages().join("\n"));
    };
    let scope = check::Scope::new(program);
    let kernels = check::check(&scope, &mut diags);
    if !diags.is_empty() {
        return Err(diags.messages().join("\n"));
    }
    Ok(kernels
        .iter()
        .map(|k| {
            let k = optimize_with(k.clone(), scope.options);
            let p = codegen::plan(&k, scope.options);
            (k, p)
        })
        .collect())
}
