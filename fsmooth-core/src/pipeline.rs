//! The whole compiler, in order: every pass, once, and the options deciding which run.
//!
//! | phase | pass | module | runs when |
//! | --- | --- | --- | --- |
//! | front | split off imported blocks' sources; link each `use` to its block, or expand to a call of its block's macro that brings it | [`crate::front::imports`] | the block has `use` items |
//! | front | parse | [`crate::front::parse`] | always |
//! | front | check (names, types, shapes; helpers and closures inlined; `scatter_add` and `reduce_by_index` written as the in-place row update of an `ifold`, their index a `Kind::CheckIndex`; `iterate` as `Kind::Iterate`) | [`crate::front::check`] | always |
//! | front | (within check) derivatives: `jvp` by forward mode, `vjp` and `grad` by a reverse sweep (forward columns where it cannot keep a fold's states), each of the function brought to its canonical form first ([`crate::middle::normalise`]: the middle's tuples, propagate, single loads put back, equal, fuse, siblings, one `let` per value and fold, rows read at a loop's index bound at its step's head or, read at an index fixed during a loop of literal count, before the loop ([`crate::middle::row_views`]), so that a sum keeps nothing per term however it is written; a fold adding terms one by one reversed as a sum; steps of a literal count that read the differentiated array at an index moving with the step (a face's corners `f[j][k]`) reversed written out; contributions placed at one index added to that row alone, one update after another) (before it, a `build` step's expensive arrays kept and sums computed once bound by `let`s; inner sums continue from the outer sum, or from its rows) | [`crate::middle::forward`], [`crate::middle::reverse`] | the kernel uses them |
//! | middle | tuples: tuples taken apart into their components; a loop's nested tuple state as its flat tuple of leaves, a fold's when its start is written out ([`crate::middle::flat_states`]) | [`crate::middle::tuples`] | always |
//! | middle | propagate | [`crate::middle::simplify::propagate`] | always |
//! | middle | inline single loads: a closure's parameters put back where they are read | [`crate::middle::simplify::inline_single_loads`] | always |
//! | middle | equal: the index a `build`'s element tests its own index against moved before it; inside `if j == r`, a loop index read as the other side (canonical form: an update of one row recognised whichever index it reads) | [`crate::middle::equal`] | always |
//! | middle | share: an array computation over parameters only written more than once (`half(img)` in `half(half(img))` beside it) bound once at the top, one copy unconditional | [`crate::middle::share`] | always |
//! | middle | fuse (with the view rules of [`crate::middle::views`] unless `views = false`); an element of a `let`-bound array of rows read several times at the same indexes computed once where it is read ([`crate::middle::elements`]); a `let`-bound array read once as the row a `build` places at one index written there ([`crate::middle::placed`]); a fold step choosing its one-dimensional array state whole (`if i == 0 { x[0] } else { add(s, x[i]) }`) as the `build` of the choice of elements, and an element of a choice of rows as that element of the row chosen ([`crate::middle::choices`]); a `let`-bound array read at an outer loop's index inside its inner loops read once at the head of the step and computed there ([`crate::middle::pull`]) | [`crate::middle::fuse`] | `fusion` |
//! | middle | interchange: a `build` of a few elements, each running one fold over the same count and reading a signal alike, as one fold of their states (at a run-time count under `if m <= 16`, beside the folds as written); a `build` of scans read transposed as one scan of rows; a fold over `a * n` steps reading its index only as `t % n` as rounds of a fold over `n` | [`crate::middle::interchange`] | `fusion` |
//! | middle | scan outputs: a `build` reading a `scan`'s scalar states only at its own index as one more component of the scan, the states then stored nowhere | [`crate::middle::scan_outputs`] | `fusion` |
//! | middle | fold, unroll (each loop written out folded before an enclosing one is measured), fold, tuples again (an unrolled fold's tuple states), fuse again | [`crate::middle::unroll`] | `fusion` and `unroll` |
//! | middle | siblings: folds over one count bound side by side (or the components of a result tuple after them), each of a scalar state, or of an array whose step reads only its own element of the old one, but at most one whose step replaces one element or row of its array, as one fold of their states | [`crate::middle::siblings`] | `fusion`, not `reassociate` |
//! | middle | fold (constants, and `build(n, \|i\| a[i])` as `a`), propagate | [`crate::middle::simplify`] | always |
//! | middle | reuse: an element of a `let`-bound `build` written again read from the array; hoist (costly calls and folds that read nothing of a loop, into tables before it) | [`crate::middle::reuse`], [`crate::middle::hoist`] | `fusion` |
//! | middle | anf, cse (whole values, binders by position), propagate, inline single uses, tested indexes before their `build` again, fold | [`crate::middle::anf`], [`crate::middle::cse`], [`crate::middle::simplify`], [`crate::middle::equal`] | always |
//! | middle | tuples again: projections that inlining leaves on `if`s taken into their branches | [`crate::middle::tuples`] | always |
//! | lower | translate: the D and S translations (an `iterate` a `while` loop over its state's places, `lir::St::While`), sum-folds interchanged, folds that add to an array (or to one row of it, or to several rows one update after another) accumulated in place, folds that replace one row a step updated in place (a row whose elements read only their own old element written over itself), a state read last element by element by a result living in that output, builds testing their index peeled at the ends | [`crate::lower::translate`] | always |
//! | lower | (within translate) a top-level fold's `f64` states of run-time length in outputs also run in 16-element local arrays, under a test that they fit | `lower/small_states.rs` | always |
//! | lower | (within translate) rows of a build over sum-folds in groups, a product's columns in tiles | [`crate::lower`] | `fusion` and `unroll` |
//! | lower | (within translate) float sums whose step has no loop in lanes (`lir::St::Lanes`), a lane's product fused where the target has FMA | `lower/lanes.rs` | `reassociate = true` |
//! | lower | (within translate) every array its own heap buffer | [`crate::lower::storage`] | `storage = "heap"` |
//! | lower | (within translate) top-level sums and builds into outputs in chunks on rayon's pool (`lir::St::ParSum`, `ParRows`) | `lower/parallel.rs` | the `parallel` feature |
//! | lower | row streams | [`crate::lir::row_streams`] | always |
//! | lower | the frame cut into pieces around loops that write it, for streams and fills of its pieces (`lir::St::Pieces`) | [`crate::lir::frame_pieces`] | always |
//! | lower | buffers a loop reads and writes only at its index as streams of `&mut` elements (`lir::St::Put`); an output stored only by rows of literal width as a stream of `&mut` rows | [`crate::lir::in_place_streams`] | always |
//! | lower | rows of one length cut around loops that access several buffers at one index (`lir::St::Rows`) | [`crate::lir::shared_rows`] | always |
//! | lower | `let`s of loads fixed during a loop bound once before it | [`crate::lir::invariant_loads`] | always |
//! | lower | entry: size pins, length checks, the frame (region, heap or none) | [`crate::lower::entry`] | always |
//! | emit | the Rust function and its `mod` | [`crate::emit`] | always |
//! | emit | unused names, reported by rustc's lints | [`crate::front::unused`], [`crate::emit::lints`] | no errors |
//! | emit | the block's module, with the hidden macro handing its source to importing blocks | [`crate::emit::export`] | `pub mod name;` |
//!
//! [`middle`] runs the core-to-core passes through a [`Passes`] runner, which hands each
//! kernel to an observer after every pass (the explain tool prints from there) and, in
//! tests and debug builds, validates it ([`crate::middle::validate`]): a pass that leaves a
//! malformed kernel is an internal compiler error naming the pass, reported as a
//! `compile_error!` on the kernel's name.

use crate::front::ast::{self, Options, Storage};
use crate::front::check::{self, Scope};
use crate::front::diag::Diags;
use crate::front::unused::{self, Unused};
use crate::front::{imports, parse};
use crate::lower::{self, Lowering, Planned};
use crate::middle::ir::{Core, Kernel, Kind, Type};
use crate::middle::validate::{self, Rules};
use crate::middle::{
    anf, cse, equal, fuse, hoist, interchange, reuse, scan_outputs, share, siblings, simplify,
    tuples, unroll,
};
use crate::{emit, lir};
use proc_macro2::TokenStream;

/// A block after the front end: its functions in scope and its checked public kernels.
pub struct Checked {
    /// The user's functions and the prelude's, and the block's options.
    pub scope: Scope,
    /// The public kernels that checked, in block order.
    pub kernels: Vec<Kernel>,
    /// What the block leaves unused (reported only when it has no errors).
    pub unused: Unused,
}

/// The front end: parse the block's tokens and check it. Every problem goes to `diags`;
/// `None` when the block did not parse, or imports from a block not at hand.
pub fn front(tokens: TokenStream, diags: &mut Diags) -> Option<Checked> {
    front_with(tokens, &[], diags)
}

/// The front end for a block whose imports name blocks whose sources are at hand, by module
/// path (`("crate::geometry", tokens)`): for tools and tests, which see several blocks
/// without rustc's macro expansion ([`imports::link_sources`]).
pub fn front_with(
    tokens: TokenStream,
    modules: &[(&str, TokenStream)],
    diags: &mut Diags,
) -> Option<Checked> {
    let program = parse::parse(tokens, diags)?;
    match imports::link_sources(program, modules) {
        Ok(blocks) => Some(check_linked(blocks, diags)),
        Err(msg) => {
            diags.error(proc_macro2::Span::call_site(), msg);
            None
        }
    }
}

/// Check the linked blocks: the user's block's kernels, with every imported function in
/// scope; and what the user's block leaves unused.
fn check_linked(blocks: Vec<imports::Block>, diags: &mut Diags) -> Checked {
    let root = &blocks[0];
    // A glob brings the functions of the block it names (all of them, unknown, if that
    // block is not linked: then it is never reported).
    let brings = |import: &ast::Import, name: &str| {
        let k = root
            .program
            .imports
            .iter()
            .position(|i| std::ptr::eq(i, import));
        match k.and_then(|k| root.links[k]) {
            Some(to) => blocks[to].program.fns.iter().any(|f| f.name.text == name),
            None => true,
        }
    };
    let unused = unused::find(&root.program, &brings);
    let scope = Scope::linked(blocks, diags);
    let kernels = check::check(&scope, diags);
    Checked {
        scope,
        kernels,
        unused,
    }
}

/// What the front end gives.
pub enum Front {
    /// The block, checked (its errors in the diagnostics).
    Checked(Box<Checked>),
    /// An import's source is missing: the block expands to this call of the exporting
    /// block's macro, which calls `fsmooth!` again with the source ([`imports`]).
    Fetch(TokenStream),
    /// The block did not parse.
    Unparsed,
}

/// The front end with imports: split off the imported blocks' sections, parse, link every
/// import to its block (or ask for a missing one), and check.
pub fn front_linked(tokens: TokenStream, diags: &mut Diags) -> Front {
    let (sections, own) = imports::split(tokens.clone(), diags);
    if !diags.is_empty() {
        // A malformed section: fetching again would not end.
        return Front::Unparsed;
    }
    let Some(program) = parse::parse(own, diags) else {
        return Front::Unparsed;
    };
    match imports::link(program, &sections) {
        imports::Linked::Missing(m) => Front::Fetch(m.fetch(&tokens)),
        imports::Linked::Blocks(blocks) => Front::Checked(Box::new(check_linked(blocks, diags))),
    }
}

/// Watches the middle passes: called with each pass's name and the kernel after it.
pub type Observer<'a> = &'a mut dyn FnMut(&str, &Kernel);

/// Runs middle passes in turn, telling an observer after each and, in tests and debug
/// builds, validating the kernel ([`validate`]). After a pass leaves a malformed kernel, the
/// later passes do not run: the first problem is the one to report.
pub struct Passes<'a> {
    observe: Option<Observer<'a>>,
    /// Whether to validate after each pass.
    check: bool,
    /// The first pass that left a malformed kernel, and what is wrong.
    failed: Option<String>,
}

impl Passes<'_> {
    /// Run `pass` on `k`, then validate it and show it to the observer.
    fn run(&mut self, name: &str, k: &mut Kernel, pass: impl FnOnce(&mut Kernel)) {
        if self.failed.is_some() {
            return;
        }
        pass(k);
        self.validate(name, k);
        if let Some(observe) = self.observe.as_mut() {
            observe(name, k);
        }
    }

    /// Record the problems of `k` after pass `name` (A-normal form is promised by `anf`
    /// alone: the passes after it inline single uses again).
    fn validate(&mut self, name: &str, k: &Kernel) {
        if !self.check || self.failed.is_some() {
            return;
        }
        let problems = validate::validate(k, Rules { anf: name == "anf" });
        if !problems.is_empty() {
            self.failed = Some(format!(
                "internal compiler error after pass `{name}` in kernel `{}`: {}",
                k.name.text,
                problems.join("; ")
            ));
        }
    }
}

/// Validate between passes: in the crate's tests and in debug builds of the macro.
const VALIDATE: bool = cfg!(any(test, debug_assertions));

/// The middle of the pipeline, on one kernel. `Err` is an internal compiler error: a pass
/// left a malformed kernel ([`validate`], in tests and debug builds only).
pub fn middle(k: Kernel, options: Options) -> Result<Kernel, String> {
    middle_observed(k, options, None)
}

/// The middle of the pipeline, telling `observe` the kernel after every pass; `Err` as for
/// [`middle`].
pub fn middle_observed(
    mut kernel: Kernel,
    options: Options,
    observe: Option<Observer<'_>>,
) -> Result<Kernel, String> {
    let mut p = Passes {
        observe,
        check: VALIDATE,
        failed: None,
    };
    let k = &mut kernel;
    // The front end's kernel, before any pass.
    p.validate("check", k);
    p.run("tuples", k, |k| {
        tuples::split(&mut k.body, &mut k.var_names)
    });
    p.run("propagate", k, |k| simplify::propagate(&mut k.body));
    // A closure's parameters (`map2(a, b, |x, y| x * y)` binds `x` and `y`) put back where
    // they are read before fusion: its rules and budgets see `a[i] * b[i]` however it was
    // written.
    p.run("inline_single_loads", k, |k| {
        simplify::inline_single_loads(&mut k.body)
    });
    p.run("equal", k, |k| equal::substitute(&mut k.body));
    p.run("share", k, |k| share::share(&mut k.body, &mut k.var_names));
    if options.fusion {
        p.run("fuse", k, |k| {
            fuse::fuse(&mut k.body, &mut k.var_names, options.views)
        });
        // A few elements each running the same fold over one signal: one fold of their
        // states, before `unroll` writes the elements out one by one.
        p.run("interchange", k, |k| {
            interchange::interchange(&mut k.body, &mut k.var_names)
        });
        // A `build` reading a scan's states at its own index: the scan's own output.
        p.run("scan_outputs", k, |k| {
            scan_outputs::scan_outputs(&mut k.body, &mut k.var_names)
        });
    }
    if options.fusion && options.unroll {
        // Small fixed loops written out, then fused again: their arrays become scalars.
        // (Constants folded first: the prelude's `-0.0` is a literal, not a negation, when
        // the unrolled code is measured against the budget.)
        p.run("fold", k, |k| simplify::fold(&mut k.body));
        p.run("unroll", k, |k| {
            unroll::unroll(&mut k.body, &mut k.var_names)
        });
        p.run("fold", k, |k| simplify::fold(&mut k.body));
        // Unrolled folds of tuple states (a reverse sweep's adjoints) leave `let`s of tuples
        // of literals: taken apart, so that fusion turns the literals into scalars.
        p.run("tuples", k, |k| {
            tuples::split(&mut k.body, &mut k.var_names)
        });
        // The components' `let`s read through their aliases (`let v = x_v.1`), as the
        // first `propagate` does for a fold written out by hand: one form for fusion.
        p.run("propagate", k, |k| simplify::propagate(&mut k.body));
        p.run("fuse", k, |k| {
            fuse::fuse(&mut k.body, &mut k.var_names, options.views)
        });
    }
    if options.fusion && !options.reassociate {
        // Folds over one count side by side (a point's coordinates summed over the bones,
        // however written): one fold of their states. (Reassociated sums keep their lanes.)
        p.run("siblings", k, |k| {
            siblings::siblings(&mut k.body, &mut k.var_names)
        });
    }
    p.run("fold", k, |k| simplify::fold(&mut k.body));
    p.run("propagate", k, |k| simplify::propagate(&mut k.body));
    if options.fusion {
        // An element of a `let`-bound `build` written again (a reverse sweep's activation)
        // read from the array, before hoisting and A-normal form see two computations.
        p.run("reuse", k, |k| reuse::reuse(&mut k.body));
        p.run("hoist", k, |k| hoist::hoist(&mut k.body, &mut k.var_names));
    }
    p.run("anf", k, |k| {
        let placeholder = Core::new(Kind::Bool(false), Type::Bool, k.body.span);
        let body = std::mem::replace(&mut k.body, placeholder);
        k.body = anf::anf(body, &mut k.var_names);
    });
    p.run("cse", k, |k| cse::cse(&mut k.body));
    p.run("propagate", k, |k| simplify::propagate(&mut k.body));
    p.run("inline_single_uses", k, |k| {
        simplify::inline_single_uses(&mut k.body)
    });
    // The indexes and tests common subexpressions bound inside a `build` that do not read
    // its index, before it again (the form `equal` left).
    p.run("hoist_indexes", k, |k| {
        equal::hoist_all_indexes(&mut k.body)
    });
    // Constants that propagation and inlining brought together (a closure's `let x = 0.5;`
    // read in `x * y`) folded as those written together are: one form however the
    // arithmetic was spelled.
    p.run("fold", k, |k| simplify::fold(&mut k.body));
    // Inlining leaves projections of tuples that `if`s compute (a derivative's value and
    // tangent, `(if c { (v, dv) } else { .. }).1`): taken into the branches.
    p.run("tuples", k, |k| {
        tuples::split(&mut k.body, &mut k.var_names)
    });
    match p.failed {
        Some(msg) => Err(msg),
        None => Ok(kernel),
    }
}

/// Lowering: one kernel after the middle into the loop IR, with its frame.
pub fn lower(k: &Kernel, options: Options) -> Planned {
    let lowering = Lowering {
        block_sum_folds: options.fusion && options.unroll,
        heap_arrays: options.storage == Storage::Heap,
        views: options.views,
        parallel: options.parallel && options.storage == Storage::Region,
        reassociate: options.reassociate,
        overwrite: options.fusion,
    };
    let mut translated = lower::translate(k, lowering);
    lir::row_streams(&mut translated.body);
    if let Some(result) = translated.result.as_mut() {
        lir::row_streams_ex(result);
    }
    lir::frame_pieces(&mut translated.body);
    lir::in_place_streams(&mut translated.body);
    lir::shared_rows(&mut translated.body);
    lir::invariant_loads(&mut translated.body);
    lower::entry(k, translated, options.storage)
}

/// The whole pipeline for one block: Rust tokens in, Rust tokens out.
pub fn compile(tokens: TokenStream) -> TokenStream {
    let mut diags = Diags::default();
    let checked = match front_linked(tokens.clone(), &mut diags) {
        Front::Checked(c) => *c,
        Front::Fetch(call) => return call,
        Front::Unparsed => return diags.to_compile_errors(),
    };
    // The block's own tokens: the source importing blocks compile.
    let (_, own) = imports::split(tokens, &mut Diags::default());
    finish(checked, &own, &mut diags)
}

/// The whole pipeline for a block whose imported blocks' sources are at hand, by module
/// path ([`front_with`]): what `fsmooth!` expands the block to, for tests.
pub fn compile_with(tokens: TokenStream, modules: &[(&str, TokenStream)]) -> TokenStream {
    let mut diags = Diags::default();
    match front_with(tokens.clone(), modules, &mut diags) {
        Some(checked) => finish(checked, &tokens, &mut diags),
        None => diags.to_compile_errors(),
    }
}

/// A checked block's kernels compiled, in their module if it declares one (with the
/// macro handing `own`, its tokens, to importing blocks).
fn finish(checked: Checked, own: &TokenStream, diags: &mut Diags) -> TokenStream {
    let (items, failed) = compile_checked(checked.kernels, &checked.scope, &checked.unused, diags);
    match &checked.scope.module {
        Some(decl) => {
            let id = imports::block_id(&decl.name.text, own);
            emit::export::module(decl, &id, failed, own, items)
        }
        None => items,
    }
}

/// The middle, lowering and emission of a checked block's kernels; on an error anywhere,
/// the errors and every kernel's signature ([`emit::errors`]). Also says whether there was
/// an error (a block it imports from may have had one, reported there).
fn compile_checked(
    kernels: Vec<Kernel>,
    scope: &Scope,
    unused: &Unused,
    diags: &mut Diags,
) -> (TokenStream, bool) {
    let checked: Vec<(String, Vec<String>)> = kernels
        .iter()
        .map(|k| (k.name.text.clone(), k.shape_sizes.clone()))
        .collect();
    // A public kernel that did not check must say why: were a rule to fail without an
    // error, the kernel would vanish, and the user's calls to it say only that it is not
    // found. (A block it imports from that failed reported its errors there.)
    if diags.is_empty() && !scope.failed.iter().any(|f| *f) {
        for f in scope.fns[..scope.user].iter().filter(|f| f.public) {
            if !checked.iter().any(|(name, _)| *name == f.name.text) {
                let msg = format!(
                    "internal compiler error: kernel `{}` did not check, and no error says why (please report it)",
                    f.name.text
                );
                diags.error(f.name.span, msg);
            }
        }
    }
    if !diags.is_empty() || scope.failed.iter().any(|f| *f) {
        return (emit::errors(diags, scope, &checked), true);
    }
    let options = scope.options;
    let mut middled = Vec::new();
    for k in kernels {
        let span = k.name.span;
        match middle(k, options) {
            Ok(k) => middled.push(k),
            // An internal error is reported as the user's errors are, on the kernel's name,
            // with every kernel's signature kept (no panic inside the user's build).
            Err(msg) => diags.error(span, msg),
        }
    }
    if !diags.is_empty() {
        return (emit::errors(diags, scope, &checked), true);
    }
    let mut items: TokenStream = middled
        .into_iter()
        .map(|k| {
            let planned = lower(&k, options);
            emit::kernel(&k, planned, options)
        })
        .collect();
    // Inside the block's module, if it declares one: attributes on `pub mod name;` apply.
    items.extend(emit::lints::unused(&scope.fns[..scope.user], unused));
    (items, false)
}

/// The pipeline up to the loop IR, for testing the translation: each public kernel after the
/// middle, with its plan. Errors are the diagnostics' messages, or an internal compiler
/// error from [`middle`].
pub fn plan_block(tokens: TokenStream) -> Result<Vec<(Kernel, Planned)>, String> {
    plan_block_with(tokens, &[])
}

/// [`plan_block`] for a block whose imported blocks' sources are at hand ([`front_with`]).
pub fn plan_block_with(
    tokens: TokenStream,
    modules: &[(&str, TokenStream)],
) -> Result<Vec<(Kernel, Planned)>, String> {
    let mut diags = Diags::default();
    let checked = front_with(tokens, modules, &mut diags);
    let Some(checked) = checked.filter(|_| diags.is_empty()) else {
        return Err(diags.messages().join("\n"));
    };
    let options = checked.scope.options;
    checked
        .kernels
        .into_iter()
        .map(|k| {
            let k = middle(k, options)?;
            let p = lower(&k, options);
            Ok((k, p))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pass_that_breaks_the_kernel_is_named_and_stops_the_rest() {
        let mut diags = Diags::default();
        let src = "pub fn k(a: [f64; n]) -> [f64; n] { build(n, |i| a[i] * 2.0) }";
        let mut checked = front(src.parse().unwrap(), &mut diags).unwrap();
        let mut k = checked.kernels.remove(0);
        let mut seen = Vec::new();
        let mut observe = |name: &str, _: &Kernel| seen.push(name.to_string());
        let mut p = Passes {
            observe: Some(&mut observe),
            check: true,
            failed: None,
        };
        p.run("fine", &mut k, |_| {});
        // A pass that reuses a name: the build's index becomes parameter `a`'s id.
        p.run("breaks", &mut k, |k| {
            if let Kind::Build(_, i, _) = &mut k.body.kind {
                *i = 0;
            }
        });
        p.run("after", &mut k, |_| panic!("a pass after a failure ran"));
        let msg = p.failed.unwrap();
        assert!(
            msg.starts_with("internal compiler error after pass `breaks` in kernel `k`: "),
            "{msg}"
        );
        assert!(msg.contains("bound twice"), "{msg}");
        assert_eq!(seen, ["fine", "breaks"]);
    }
}
