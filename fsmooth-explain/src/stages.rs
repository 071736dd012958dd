//! Every stage of one `fsmooth!` block, kernel by kernel: the typed core, the core after
//! each middle pass that changed it, the loop IR, the memory plan and the generated Rust.

use crate::memory::{self, SizeValues};
use crate::source::Source;
use fsmooth_core::emit;
use fsmooth_core::front::diag::Diags;
use fsmooth_core::middle::ir::Kernel;
use fsmooth_core::middle::print;
use fsmooth_core::pipeline;
use proc_macro2::TokenStream;
use quote::quote;

/// The stages, in pipeline order: `core`, the middle passes as [`pipeline::middle`] names
/// them, `lir`, `memory`, `rust`.
pub const STAGES: [&str; 21] = [
    "core",
    "tuples",
    "propagate",
    "inline_single_loads",
    "equal",
    "share",
    "fuse",
    "interchange",
    "scan_outputs",
    "fold",
    "unroll",
    "siblings",
    "reuse",
    "hoist",
    "anf",
    "cse",
    "inline_single_uses",
    "hoist_indexes",
    "lir",
    "memory",
    "rust",
];

/// What to show.
#[derive(Default)]
pub struct Request {
    /// Only this kernel.
    pub kernel: Option<String>,
    /// Only this stage.
    pub stage: Option<String>,
    /// Sizes to evaluate the frame's total at.
    pub sizes: SizeValues,
    /// Only the remarks: the warnings `#![fsmooth(remarks = true)]` makes the macro give,
    /// whether the block has the option or not.
    pub remarks: bool,
}

impl Request {
    fn wants(&self, stage: &str) -> bool {
        !self.remarks && self.stage.as_deref().is_none_or(|s| s == stage)
    }
}

/// What explaining a block found.
#[derive(Default)]
pub struct Explained {
    /// The stages printed.
    pub text: String,
    /// Errors, printed as rustc prints them.
    pub errors: String,
    /// The public kernels of the block.
    pub kernels: Vec<String>,
    /// The helpers (functions that are not `pub`), inlined into the kernels.
    pub helpers: Vec<String>,
}

/// Explain one block's kernels as `request` asks. `modules`: the blocks its imports name,
/// by module path as written ([`pipeline::front_with`]).
pub fn explain(
    tokens: TokenStream,
    modules: &[(&str, TokenStream)],
    source: &Source,
    request: &Request,
) -> Explained {
    let mut out = Explained::default();
    let mut diags = Diags::default();
    let checked = pipeline::front_with(tokens, modules, &mut diags);
    if let Some(c) = &checked {
        let user = &c.scope.fns[..c.scope.user];
        out.kernels = user
            .iter()
            .filter(|f| f.public)
            .map(|f| f.name.text.clone())
            .collect();
        out.helpers = user
            .iter()
            .filter(|f| !f.public)
            .map(|f| f.name.text.clone())
            .collect();
    }
    if let Some(e) = diags.into_error() {
        out.errors = source.errors(e);
        return out;
    }
    let Some(checked) = checked else {
        return out;
    };
    let options = checked.scope.options;
    for k in checked.kernels {
        if request.kernel.as_ref().is_some_and(|n| *n != k.name.text) {
            continue;
        }
        kernel(k, options, source, request, &mut out);
    }
    out
}

/// Every stage of one kernel.
fn kernel(
    k: Kernel,
    options: fsmooth_core::front::ast::Options,
    source: &Source,
    request: &Request,
    out: &mut Explained,
) {
    let name = k.name.text.clone();
    let span = k.name.span;
    let mut section = |stage: &str, title: String, body: &str| {
        if request.wants(stage) {
            out.text
                .push_str(&format!("=== {name}: {title} ===\n{}\n", body.trim_end()));
            out.text.push('\n');
        }
    };
    let mut prev = print::kernel(&k);
    section("core", "core (typed, after check)".into(), &prev);
    // The middle passes: each one that changed the kernel, with how many times that pass
    // had run (`fold` runs up to three times).
    let mut changed: Vec<(String, String)> = Vec::new();
    let mut unchanged: Vec<String> = Vec::new();
    let mut runs: Vec<String> = Vec::new();
    let mut observe = |pass: &str, k: &Kernel| {
        runs.push(pass.to_string());
        let run = runs.iter().filter(|r| *r == pass).count();
        let label = if run > 1 {
            format!("{pass} (run {run})")
        } else {
            pass.to_string()
        };
        let text = print::kernel(k);
        if text == prev {
            unchanged.push(label);
        } else {
            prev = text.clone();
            changed.push((label, text));
        }
    };
    let result = pipeline::middle_observed(k, options, Some(&mut observe));
    for (label, text) in &changed {
        let pass = label.split(' ').next().unwrap_or(label);
        section(pass, format!("after `{label}`"), text);
    }
    // A middle stage asked for by name that changed nothing on any run: said so, rather
    // than printing nothing.
    if let Some(stage) = request.stage.as_deref()
        && !request.remarks
        && !changed
            .iter()
            .any(|(l, _)| l.split(' ').next() == Some(stage))
        && unchanged.iter().any(|l| l.split(' ').next() == Some(stage))
    {
        section(
            stage,
            format!("`{stage}`"),
            "(changed nothing: the kernel after it is the one before)",
        );
    }
    if request.stage.is_none() && !unchanged.is_empty() {
        section(
            "core",
            "passes that changed nothing".into(),
            &unchanged.join(", "),
        );
    }
    let k = match result {
        Ok(k) => k,
        Err(msg) => {
            out.errors.push_str(&source.error(span, &msg));
            return;
        }
    };
    let planned = pipeline::lower(&k, options);
    if request.remarks {
        // The macro's own list ([`emit::remarks`]), as rustc prints it.
        for r in emit::remarks::remarks(&k, &planned, options) {
            out.text.push_str(&source.diagnostic(
                "warning",
                r.span.start.join(r.span.end).unwrap_or(r.span.start),
                &r.warning(&name),
            ));
            out.text.push('\n');
        }
        return;
    }
    let (params, ret) = emit::signature(&k);
    let id = fsmooth_core::front::ast::ident(&k.name.text, k.name.span);
    let func = &planned.func;
    section(
        "lir",
        "loop IR".into(),
        &pretty(quote!(pub fn #id(#params) -> #ret { #func })),
    );
    section(
        "memory",
        "memory plan".into(),
        &memory::plan(&k, &planned, options, &request.sizes),
    );
    section(
        "rust",
        "generated Rust".into(),
        &pretty(emit::kernel(&k, planned, options)),
    );
}

/// Rust tokens pretty-printed (as tokens, should they not parse as a file).
fn pretty(tokens: TokenStream) -> String {
    match syn::parse2::<syn::File>(tokens.clone()) {
        Ok(file) => prettyplease::unparse(&file),
        Err(_) => tokens.to_string(),
    }
}
