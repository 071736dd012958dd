//! `dps`: destination-passing translation of the core IR into Rust statements (the paper's
//! D and S translations, Fig. 7).
//!
//! An array expression is translated with a destination, a [`View`] into `out` or into the
//! scratch frame, and writes its elements there; a scalar expression becomes a Rust
//! expression. `let`-bound arrays that survived fusion get an allocation in the frame
//! ([`crate::storage`]); rows and slices of arrays are views, never copies. Index loads the
//! compiler proves in bounds use `ld`/`st`; others are checked and return `Error::Index`.

use crate::ast::{BinOp, CastTy, MathFn};
use crate::ir::{Core, Kernel, Kind, Type, VarId};
use crate::size::{Atom, Size};
use crate::storage::Frame;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// Where an array lives.
#[derive(Clone, Debug)]
pub enum Base {
    /// A kernel parameter (read only).
    Param(Ident),
    /// The kernel's `out`.
    Out,
    /// The scratch frame.
    Scratch,
}

/// A rectangular view: `dims` starting at `off` in `base`, row-major.
#[derive(Clone, Debug)]
pub struct View {
    /// The buffer.
    pub base: Base,
    /// Offset in slots (`None` is 0).
    pub off: Option<TokenStream>,
    /// Dimensions, outermost first.
    pub dims: Vec<Size>,
}

#[derive(Clone)]
enum Loc {
    Scalar(Ident),
    View(View),
}

/// Sizes needed by the code, each computed once at kernel entry with checked arithmetic.
#[derive(Default)]
pub struct SizeTable {
    entries: Vec<(String, Ident, TokenStream)>,
}

impl SizeTable {
    /// The tokens for size `s`: a literal, a size name, or a local computed at entry.
    pub fn get(&mut self, s: &Size) -> TokenStream {
        let s = s.fold();
        match &s {
            Size::Lit(v) => {
                let v = *v as usize;
                quote!(#v)
            }
            Size::Name(n) => {
                let id = crate::ast::ident(n, Span::call_site());
                quote!(#id)
            }
            Size::Loop(_) => quote!(0usize),
            Size::Add(a, b)
            | Size::Sub(a, b)
            | Size::Mul(a, b)
            | Size::Div(a, b)
            | Size::Rem(a, b) => {
                let key = s.to_string();
                if let Some((_, id, _)) = self.entries.iter().find(|(k, _, _)| *k == key) {
                    return quote!(#id);
                }
                let (x, y) = (self.get(a), self.get(b));
                let f = match s {
                    Size::Add(..) => quote!(add),
                    Size::Sub(..) => quote!(sub),
                    Size::Mul(..) => quote!(mul),
                    Size::Div(..) => quote!(div_exact),
                    _ => quote!(rem),
                };
                let id = format_ident!("__z{}", self.entries.len());
                let code = quote!(let #id: usize = ::fsmooth::__rt::#f(#x, #y, #key)?;);
                self.entries.push((key, id.clone(), code));
                quote!(#id)
            }
        }
    }

    /// The entry statements, in dependency order.
    pub fn statements(&self) -> TokenStream {
        self.entries.iter().map(|(_, _, c)| c.clone()).collect()
    }
}

/// Saturating evaluation of a size in a `const fn`.
pub fn const_size(s: &Size) -> TokenStream {
    let s = s.fold();
    let bin = |f: TokenStream, a: &Size, b: &Size| {
        let (a, b) = (const_size(a), const_size(b));
        quote!(#f(#a, #b))
    };
    match &s {
        Size::Lit(v) => {
            let v = *v as usize;
            quote!(#v)
        }
        Size::Name(n) => {
            let id = crate::ast::ident(n, Span::call_site());
            quote!(#id)
        }
        Size::Loop(_) => quote!(0usize),
        Size::Add(a, b) => bin(quote!(usize::saturating_add), a, b),
        Size::Sub(a, b) => bin(quote!(::fsmooth::__rt::sat_sub), a, b),
        Size::Mul(a, b) => bin(quote!(usize::saturating_mul), a, b),
        Size::Div(a, b) => bin(quote!(::fsmooth::__rt::sat_div), a, b),
        Size::Rem(a, b) => {
            let (a, b) = (const_size(a), const_size(b));
            quote!(match #a.checked_rem(#b) { Some(v) => v, None => usize::MAX })
        }
    }
}

/// The translation state for one kernel.
pub struct Dps<'k> {
    kernel: &'k Kernel,
    /// The frame plan.
    pub frame: Frame,
    /// Sizes computed at entry.
    pub sizes: SizeTable,
    env: HashMap<VarId, Loc>,
    /// Exclusive upper bounds of loop indexes, where known before the loop.
    bounds: HashMap<VarId, Size>,
    /// The loops being translated, outermost first, with the streams they read.
    loops: Vec<LoopCtx>,
}

/// A loop under translation. Loads `base[start + i]` of its index `i` become streams: the
/// source row is cut once before the loop and iterated beside the index, so the loads need
/// no bounds check and the loop can vectorise.
struct LoopCtx {
    var: VarId,
    ident: Ident,
    streams: Vec<Stream>,
    /// Loops whose header is not a `for_loop` (array bodies) take no streams, but their
    /// index may appear in inner streams' starts.
    accepts: bool,
}

struct Stream {
    /// The buffer read, as tokens and by name.
    base: TokenStream,
    base_name: String,
    /// The first element read.
    start: TokenStream,
    /// The element's binding inside the loop.
    elem: Ident,
}

fn f64_lit(v: f64) -> TokenStream {
    if v.is_nan() {
        quote!(f64::NAN)
    } else if v.is_infinite() {
        if v > 0.0 {
            quote!(f64::INFINITY)
        } else {
            quote!(f64::NEG_INFINITY)
        }
    } else {
        let l = proc_macro2::Literal::f64_suffixed(v.abs());
        if v.is_sign_negative() {
            quote!((-#l))
        } else {
            quote!(#l)
        }
    }
}

/// Offset arithmetic. It cannot overflow (every offset is below a length that was
/// computed with checked arithmetic), and every access it feeds is a `get`, so it wraps
/// rather than carry an overflow check that would be a panic path under `overflow-checks`.
fn wadd(a: TokenStream, b: TokenStream) -> TokenStream {
    quote!((#a).wrapping_add(#b))
}

/// See [`wadd`].
fn wmul(a: TokenStream, b: TokenStream) -> TokenStream {
    quote!((#a).wrapping_mul(#b))
}

fn plus(off: &Option<TokenStream>, k: TokenStream) -> TokenStream {
    match off {
        Some(o) => wadd(o.clone(), k),
        None => k,
    }
}

/// True when the token stream mentions identifier `name` (to know whether a loop body reads
/// the buffer it writes, which decides between a slice iterator and indexed stores).
fn mentions(ts: &TokenStream, name: &str) -> bool {
    ts.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions(&g.stream(), name),
        _ => false,
    })
}

impl<'k> Dps<'k> {
    /// Start translating `kernel`, whose parameters are bound to their Rust names.
    pub fn new(kernel: &'k Kernel) -> Dps<'k> {
        let mut env = HashMap::new();
        for p in &kernel.params {
            let id = crate::ast::ident(&p.name.s, p.name.span);
            match &p.ty {
                Type::Arr(d) => {
                    env.insert(
                        p.id,
                        Loc::View(View {
                            base: Base::Param(id),
                            off: None,
                            dims: d.clone(),
                        }),
                    );
                }
                _ => {
                    env.insert(p.id, Loc::Scalar(id));
                }
            }
        }
        Dps {
            kernel,
            frame: Frame::default(),
            sizes: SizeTable::default(),
            env,
            bounds: HashMap::new(),
            loops: Vec::new(),
        }
    }

    fn local(&self, v: VarId) -> Ident {
        let name = self
            .kernel
            .var_names
            .get(v as usize)
            .map(String::as_str)
            .unwrap_or("v");
        let name = name.trim_start_matches("r#").trim_start_matches('_');
        let name = if name.is_empty() || !name.chars().all(|c| c == '_' || c.is_alphanumeric()) {
            "v"
        } else {
            name
        };
        format_ident!("{}_{}", name, v)
    }

    fn base_tokens(b: &Base) -> TokenStream {
        match b {
            Base::Param(id) => quote!(#id),
            Base::Out => quote!(out),
            Base::Scratch => quote!(scratch),
        }
    }

    fn alloc(&mut self, dims: &[Size]) -> View {
        let len = dims
            .iter()
            .cloned()
            .reduce(Size::times)
            .unwrap_or(Size::Lit(1));
        let off = self.frame.push(len);
        let off = if off.as_const() == Some(0) {
            None
        } else {
            Some(self.sizes.get(&off))
        };
        View {
            base: Base::Scratch,
            off,
            dims: dims.to_vec(),
        }
    }

    fn stride(&mut self, dims: &[Size]) -> Option<TokenStream> {
        let s = dims.iter().cloned().reduce(Size::times)?;
        if s.as_const() == Some(1) {
            return None;
        }
        Some(self.sizes.get(&s))
    }

    /// Can `idx` (of symbolic value `sym`) be proven below `dim`, given the loop bounds?
    fn proven(&self, sym: &Option<Size>, extra: &Size, dim: &Size) -> bool {
        let Some(s) = sym else { return false };
        // max(idx) + extra <= dim, over every value the loop indexes take.
        let Some(max) = self.extreme(s, true) else {
            return false;
        };
        names_nonneg(&Size::minus(dim.clone(), Size::plus(max, extra.clone())))
    }

    /// `a - b` cannot underflow, over every value the loop indexes take.
    fn no_underflow(&self, a: &Core, b: &Core) -> bool {
        let (Some(x), Some(y)) = (&a.sym, &b.sym) else {
            return false;
        };
        self.extreme(&Size::minus(x.clone(), y.clone()), false)
            .is_some_and(|min| names_nonneg(&min))
    }

    /// `s` at its largest (`upper`) or smallest over the loop indexes in it: innermost index
    /// first, each replaced by `bound - 1` or `0` as the sign of its coefficient says (a
    /// bound may mention an outer index, which is then replaced in turn). `None` when a
    /// sign is mixed, an index appears squared, or a needed bound is unknown.
    fn extreme(&self, s: &Size, upper: bool) -> Option<Size> {
        let mut s = s.clone();
        for _ in 0..32 {
            let p = s.poly();
            let Some(v) = p
                .coeffs()
                .flat_map(|(m, _)| m.iter())
                .filter_map(|a| match a {
                    Atom::Loop(v) => Some(*v),
                    _ => None,
                })
                .max()
            else {
                return Some(s);
            };
            let mut sign = 0i8;
            for (m, c) in p.coeffs() {
                let deg = m.iter().filter(|a| **a == Atom::Loop(v)).count();
                if deg == 0 {
                    continue;
                }
                if deg > 1 || c == 0.0 {
                    return None;
                }
                let sg = if c > 0.0 { 1 } else { -1 };
                if sign != 0 && sign != sg {
                    return None;
                }
                sign = sg;
            }
            let to_max = (sign > 0) == upper;
            let pick = if to_max {
                Size::minus(self.bounds.get(&v)?.clone(), Size::Lit(1))
            } else {
                Size::Lit(0)
            };
            s = crate::ir::subst_loop(&s, v, &pick);
        }
        None
    }

    /// A view of an array expression, materialising it in the frame if it is not one already.
    /// Returns statements to run first.
    fn view(&mut self, e: &Core) -> (TokenStream, View) {
        match &e.kind {
            Kind::Var(v) => {
                if let Some(Loc::View(w)) = self.env.get(v) {
                    return (TokenStream::new(), w.clone());
                }
            }
            Kind::Index(a, i) if e.ty.is_arr() => {
                let (pre, w) = self.view(a);
                let dim0 = w.dims[0].clone();
                let it = if self.proven(&i.sym, &Size::Lit(1), &dim0) {
                    self.index_expr(i)
                } else {
                    let it = self.scalar(i);
                    let d = self.sizes.get(&dim0);
                    quote!(::fsmooth::__rt::check(#it, #d)?)
                };
                let rows = w.dims[1..].to_vec();
                let off = match self.stride(&rows) {
                    Some(st) => plus(&w.off, wmul(it, st)),
                    None => plus(&w.off, it),
                };
                return (
                    pre,
                    View {
                        base: w.base,
                        off: Some(off),
                        dims: rows,
                    },
                );
            }
            Kind::Slice(a, lo) => {
                let (mut pre, w) = self.view(a);
                let len = e.ty.dims()[0].clone();
                let lt = if self.proven(&lo.sym, &len, &w.dims[0]) {
                    self.index_expr(lo)
                } else {
                    let lt = self.scalar(lo);
                    let (d, l) = (self.sizes.get(&w.dims[0]), self.sizes.get(&len));
                    let tmp = format_ident!("__lo");
                    pre.extend(quote! {
                        let #tmp: usize = #lt;
                        ::fsmooth::__rt::check_range(#tmp, ::fsmooth::__rt::add(#tmp, #l, "slice end")?, #d)?;
                    });
                    quote!(#tmp)
                };
                let off = match self.stride(&w.dims[1..]) {
                    Some(st) => plus(&w.off, wmul(lt, st)),
                    None => plus(&w.off, lt),
                };
                let mut dims = w.dims.clone();
                dims[0] = len;
                return (
                    pre,
                    View {
                        base: w.base,
                        off: Some(off),
                        dims,
                    },
                );
            }
            _ => {}
        }
        let w = self.alloc(e.ty.dims());
        let code = self.write(e, &w);
        (code, w)
    }

    /// The load `w[idx]` as a stream of an enclosing loop, when `idx` is that loop's index
    /// plus an offset fixed during the loop: returns the element's tokens.
    fn stream(&mut self, w: &View, idx: &Core) -> Option<TokenStream> {
        let sym = idx.sym.as_ref()?;
        if matches!(w.base, Base::Out) {
            return None;
        }
        let mut vars = Vec::new();
        sym.loops(&mut vars);
        let pos = self.loops.iter().rposition(|c| vars.contains(&c.var))?;
        if !self.loops[pos].accepts {
            return None;
        }
        let var = self.loops[pos].var;
        // A whole one-dimensional parameter read at its loop's index: the entry check of its
        // length already lets LLVM drop the bounds check; a stream would only add work.
        if matches!(w.base, Base::Param(_))
            && w.off.is_none()
            && w.dims.len() == 1
            && Size::minus(sym.clone(), Size::Loop(var)).as_const() == Some(0)
        {
            return None;
        }
        // idx = var + rest, with rest free of var and of every loop inside it.
        let rest = Size::minus(sym.clone(), Size::Loop(var)).poly();
        let inner: Vec<VarId> = self.loops[pos..].iter().map(|c| c.var).collect();
        let outer_loops: Vec<(VarId, Ident)> = self.loops[..pos]
            .iter()
            .map(|c| (c.var, c.ident.clone()))
            .collect();
        let rest = self.poly_tokens(&rest, &inner, &outer_loops)?;
        let start = match rest {
            Some(r) => plus(&w.off, r),
            None => w.off.clone().unwrap_or(quote!(0usize)),
        };
        // Everything `start` names must exist before the loop starts.
        let outer: Vec<String> = self.loops[..pos]
            .iter()
            .map(|c| c.ident.to_string())
            .collect();
        if !idents_ok(&start, &outer) {
            return None;
        }
        let base = Self::base_tokens(&w.base);
        let base_name = base.to_string();
        let ctx = &mut self.loops[pos];
        let key = (base_name.clone(), start.to_string());
        if let Some(st) = ctx
            .streams
            .iter()
            .find(|st| (st.base_name.clone(), st.start.to_string()) == key)
        {
            let e = &st.elem;
            return Some(quote!((*#e)));
        }
        let elem = format_ident!("__e{}_{}", var, ctx.streams.len());
        ctx.streams.push(Stream {
            base,
            base_name,
            start,
            elem: elem.clone(),
        });
        Some(quote!((*#elem)))
    }

    /// A polynomial over size names and the loop indexes of `outer` as tokens (`None` for
    /// zero), or `None` if it has other atoms or a negative or fractional coefficient.
    fn poly_tokens(
        &mut self,
        p: &crate::size::Poly,
        inner: &[VarId],
        outer: &[(VarId, Ident)],
    ) -> Option<Option<TokenStream>> {
        let mut sum: Option<TokenStream> = None;
        for (m, c) in p.coeffs() {
            if c < 0.0 || c.fract() != 0.0 {
                return None;
            }
            let mut term: Option<TokenStream> = None;
            for a in m {
                let t = match a {
                    Atom::Name(n) => self.sizes.get(&Size::Name(n.clone())),
                    Atom::Loop(v) if !inner.contains(v) => {
                        let (_, id) = outer.iter().find(|(w, _)| w == v)?;
                        quote!(#id)
                    }
                    _ => return None,
                };
                term = Some(match term {
                    Some(x) => wmul(x, t),
                    None => t,
                });
            }
            let k = c as usize;
            let term = match term {
                Some(t) if k == 1 => t,
                Some(t) => wmul(quote!(#k), t),
                None => quote!(#k),
            };
            sum = Some(match sum {
                Some(s) => wadd(s, term),
                None => term,
            });
        }
        Some(sum)
    }

    /// Open a loop context for index `var`.
    fn enter_loop(&mut self, var: VarId, ident: &Ident) {
        self.loops.push(LoopCtx {
            var,
            ident: ident.clone(),
            streams: Vec::new(),
            accepts: true,
        });
    }

    /// Open a loop context that takes no streams (see [`LoopCtx::accepts`]).
    fn enter_plain_loop(&mut self, var: VarId, ident: &Ident) {
        self.enter_loop(var, ident);
        if let Some(c) = self.loops.last_mut() {
            c.accepts = false;
        }
    }

    /// Close the innermost loop context. Streams whose buffer the body writes (or that the
    /// loop's own destination borrows, `writes`) are turned back into loads; the rest are
    /// returned for the loop header.
    fn leave_loop(&mut self, body: &mut TokenStream, writes: Option<&str>) -> Vec<Stream> {
        let Some(ctx) = self.loops.pop() else {
            return Vec::new();
        };
        let mut keep = Vec::new();
        for st in ctx.streams {
            if writes == Some(st.base_name.as_str()) || writes_to(body, &st.base_name) {
                let (base, start, i) = (&st.base, &st.start, &ctx.ident);
                let at = wadd(start.clone(), quote!(#i));
                let load = quote!(::fsmooth::__rt::ld(#base, #at));
                *body = replace_elem(body.clone(), &st.elem, &load);
            } else {
                keep.push(st);
            }
        }
        keep
    }

    /// An index the compiler proved below an array's length: its `+` and `*` cannot
    /// overflow (each partial result is at most the index), so they need no check. `-`, `/`
    /// and `%` keep theirs (the proof bounds the index from above only).
    fn index_expr(&mut self, e: &Core) -> TokenStream {
        if let Kind::Bin(op @ (BinOp::Add | BinOp::Mul), a, b, _) = &e.kind
            && e.ty == Type::Usize
        {
            let (x, y) = (self.index_expr(a), self.index_expr(b));
            return if *op == BinOp::Add {
                wadd(x, y)
            } else {
                wmul(x, y)
            };
        }
        self.scalar(e)
    }

    /// Translate a scalar expression to a Rust expression.
    pub fn scalar(&mut self, e: &Core) -> TokenStream {
        match &e.kind {
            Kind::F64(v) => f64_lit(*v),
            Kind::Bool(b) => quote!(#b),
            Kind::Size(s) => self.sizes.get(s),
            Kind::Var(v) => match self.env.get(v) {
                Some(Loc::Scalar(id)) => quote!(#id),
                _ => quote!(compile_error!(
                    "fsmooth internal error: array used as a scalar"
                )),
            },
            Kind::Let(..) => {
                // A chain of lets is one Rust block.
                let depth = self.frame.depth();
                let mut stmts = TokenStream::new();
                let mut cur = e;
                while let Kind::Let(v, a, b) = &cur.kind {
                    stmts.extend(self.bind(*v, a));
                    cur = b;
                }
                let body = self.scalar(cur);
                self.frame.truncate(depth);
                quote!({ #stmts #body })
            }
            Kind::If(c, a, b) => {
                let (c, a, b) = (self.scalar(c), self.scalar(a), self.scalar(b));
                quote!(if #c { #a } else { #b })
            }
            Kind::Bin(op, a, b, text) => {
                let (x, y) = (self.scalar(a), self.scalar(b));
                if e.ty == Type::Usize || (a.ty == Type::Usize && !op.is_cmp()) {
                    // Operations that provably cannot fail need no check.
                    let nonzero = b
                        .sym
                        .as_ref()
                        .and_then(|s| s.as_const())
                        .is_some_and(|c| c > 0);
                    match op {
                        BinOp::Sub if self.no_underflow(a, b) => {
                            return quote!((#x).wrapping_sub(#y));
                        }
                        BinOp::Div if nonzero => return quote!((#x / #y)),
                        BinOp::Rem if nonzero => return quote!((#x % #y)),
                        _ => {}
                    }
                    let f = match op {
                        BinOp::Add => quote!(add),
                        BinOp::Sub => quote!(sub),
                        BinOp::Mul => quote!(mul),
                        BinOp::Div => quote!(div),
                        _ => quote!(rem),
                    };
                    return quote!(::fsmooth::__rt::#f(#x, #y, #text)?);
                }
                let o = match op {
                    BinOp::Add => quote!(+),
                    BinOp::Sub => quote!(-),
                    BinOp::Mul => quote!(*),
                    BinOp::Div => quote!(/),
                    BinOp::Rem => quote!(%),
                    BinOp::Lt => quote!(<),
                    BinOp::Le => quote!(<=),
                    BinOp::Gt => quote!(>),
                    BinOp::Ge => quote!(>=),
                    BinOp::Eq => quote!(==),
                    BinOp::Ne => quote!(!=),
                    BinOp::And => quote!(&&),
                    BinOp::Or => quote!(||),
                };
                quote!((#x #o #y))
            }
            Kind::Neg(a) => {
                let x = self.scalar(a);
                quote!((-#x))
            }
            Kind::Not(a) => {
                let x = self.scalar(a);
                quote!((!#x))
            }
            Kind::Cast(CastTy::F64, a) => {
                let x = self.scalar(a);
                quote!((#x as f64))
            }
            Kind::Cast(CastTy::Usize, a) => {
                let x = self.scalar(a);
                quote!((#x as usize))
            }
            Kind::Math(f, xs) => {
                let args: Vec<TokenStream> = xs.iter().map(|x| self.scalar(x)).collect();
                let x = &args[0];
                match f {
                    MathFn::Powi => {
                        let k = &args[1];
                        quote!(::fsmooth::__rt::powi(#x, i32::try_from(#k).unwrap_or(i32::MAX)))
                    }
                    MathFn::Powf => {
                        let y = &args[1];
                        quote!(::fsmooth::__rt::powf(#x, #y))
                    }
                    MathFn::Min => {
                        let y = &args[1];
                        quote!(::fsmooth::__rt::min(#x, #y))
                    }
                    MathFn::Max => {
                        let y = &args[1];
                        quote!(::fsmooth::__rt::max_f(#x, #y))
                    }
                    f => {
                        let name = format_ident!("{}", f.name());
                        quote!(::fsmooth::__rt::#name(#x))
                    }
                }
            }
            Kind::Index(a, i) => {
                let depth = self.frame.depth();
                let (pre, w) = self.view(a);
                let dim0 = w.dims[0].clone();
                let base = Self::base_tokens(&w.base);
                let r = if self.proven(&i.sym, &Size::Lit(1), &dim0) {
                    match self.stream(&w, i) {
                        Some(e) => e,
                        None => {
                            let it = self.index_expr(i);
                            let at = plus(&w.off, it);
                            quote!(::fsmooth::__rt::ld(#base, #at))
                        }
                    }
                } else {
                    let it = self.scalar(i);
                    let d = self.sizes.get(&dim0);
                    let at = plus(&w.off, quote!(::fsmooth::__rt::check(#it, #d)?));
                    quote!(::fsmooth::__rt::ld(#base, #at))
                };
                self.frame.truncate(depth);
                if pre.is_empty() {
                    r
                } else {
                    quote!({ #pre #r })
                }
            }
            Kind::Ifold(n, init, acc, i, body) => {
                let (nt, it) = (self.scalar(n), self.scalar(init));
                let (av, iv) = (self.local(*acc), self.local(*i));
                self.env.insert(*acc, Loc::Scalar(av.clone()));
                self.env.insert(*i, Loc::Scalar(iv.clone()));
                // The count may be an enclosing index (`ifold(j, ..)`): it bounds i all the same.
                if let Some(s) = &n.sym {
                    self.bounds.insert(*i, s.clone());
                }
                // A fold whose count is an enclosing index (a triangle) is short on average:
                // cutting its rows costs more than the checks it saves.
                if n.sym.as_ref().is_some_and(|s| !s.has_loop()) {
                    self.enter_loop(*i, &iv);
                } else {
                    self.enter_plain_loop(*i, &iv);
                }
                let mut b = self.scalar(body);
                let streams = self.leave_loop(&mut b, None);
                let lp = for_loop(&iv, &nt, None, &streams, quote!(#av = #b;));
                quote!({
                    let mut #av = #it;
                    #lp
                    #av
                })
            }
            Kind::Build(..) | Kind::Array(_) | Kind::Slice(..) => {
                quote!(compile_error!(
                    "fsmooth internal error: array in scalar position"
                ))
            }
        }
    }

    /// Bind `v` to the value of `a`: a Rust local for scalars, a view for arrays (an
    /// allocation in the frame unless `a` is already a view). Returns the statements.
    fn bind(&mut self, v: VarId, a: &Core) -> TokenStream {
        if a.ty.is_arr() {
            let (pre, w) = self.view(a);
            self.env.insert(v, Loc::View(w));
            pre
        } else {
            let x = self.scalar(a);
            let id = self.local(v);
            self.env.insert(v, Loc::Scalar(id.clone()));
            quote!(let #id = #x;)
        }
    }

    /// `build(n, |j| ifold(k, init, |acc, l| acc + g))` as two loops, `l` outside and `j`
    /// inside: the destination row starts as `init` and every element adds its `g(j, l)` in
    /// the same order as before, so the result is bit-identical, but the inner loop runs
    /// along rows (`b[l][j]`) and vectorises: the interchange behind a row-major `matmul`.
    /// `None` when `e` is not of that form, or the fold's body reads the destination's buffer.
    fn interchange(&mut self, e: &Core, dest: &View) -> Option<TokenStream> {
        let Kind::Build(n, j, body) = &e.kind else {
            return None;
        };
        let Kind::Ifold(cnt, init, acc, l, fb) = &body.kind else {
            return None;
        };
        let Kind::Bin(BinOp::Add, x, y, _) = &fb.kind else {
            return None;
        };
        let g = match (&x.kind, &y.kind) {
            (Kind::Var(a), _) if a == acc => y,
            (_, Kind::Var(a)) if a == acc => x,
            _ => return None,
        };
        if body.ty != Type::F64
            || g.mentions(*acc)
            || cnt.mentions(*j)
            || matches!(dest.base, Base::Param(_))
        {
            return None;
        }
        // Small fixed sizes unroll completely as written; the interchange only adds work.
        let small = |s: Option<&Size>| s.and_then(|s| s.as_const()).is_some_and(|c| c <= 8);
        if small(Some(n)) && small(cnt.sym.as_ref()) {
            return None;
        }
        let base = Self::base_tokens(&dest.base);
        let name = base.to_string();
        let depth = self.frame.depth();
        let nt = self.sizes.get(n);
        let (jv, lv) = (self.local(*j), self.local(*l));
        self.env.insert(*j, Loc::Scalar(jv.clone()));
        self.env.insert(*l, Loc::Scalar(lv.clone()));
        self.bounds.insert(*j, n.clone());
        if let Some(s) = &cnt.sym {
            self.bounds.insert(*l, s.clone());
        }
        let ct = self.scalar(cnt);
        // Pass 1: the row starts as init.
        self.enter_loop(*j, &jv);
        let mut it = self.scalar(init);
        let init_streams = self.leave_loop(&mut it, Some(name.as_str()));
        // Pass 2: for each l, every element adds g(j, l).
        self.enter_loop(*l, &lv);
        self.enter_loop(*j, &jv);
        let mut gt = self.scalar(g);
        let g_streams = self.leave_loop(&mut gt, Some(name.as_str()));
        let l_streams = self.leave_loop(&mut gt, Some(name.as_str()));
        self.frame.truncate(depth);
        if mentions(&it, &name) || mentions(&gt, &name) {
            // The fold reads the destination's buffer: keep the loops as written.
            return None;
        }
        let first = fill(
            &base,
            &dest.off,
            &jv,
            &nt,
            &init_streams,
            quote!(*__slot = #it;),
        );
        let inner = fill(
            &base,
            &dest.off,
            &jv,
            &nt,
            &g_streams,
            quote!(*__slot = *__slot + #gt;),
        );
        let outer = for_loop(&lv, &ct, None, &l_streams, inner);
        Some(quote!(#first #outer))
    }

    /// Translate array expression `e` into statements writing it to `dest`.
    pub fn write(&mut self, e: &Core, dest: &View) -> TokenStream {
        let base = Self::base_tokens(&dest.base);
        if let Some(code) = self.interchange(e, dest) {
            return code;
        }
        match &e.kind {
            Kind::Build(n, i, body) => {
                let nt = self.sizes.get(n);
                let iv = self.local(*i);
                self.env.insert(*i, Loc::Scalar(iv.clone()));
                self.bounds.insert(*i, n.clone());
                if body.ty.is_arr() {
                    let rows = dest.dims[1..].to_vec();
                    let st = self.stride(&rows);
                    let row_off = match st {
                        Some(st) => plus(&dest.off, wmul(quote!(#iv), st)),
                        None => plus(&dest.off, quote!(#iv)),
                    };
                    let row = View {
                        base: dest.base.clone(),
                        off: Some(row_off),
                        dims: rows,
                    };
                    let depth = self.frame.depth();
                    self.enter_plain_loop(*i, &iv);
                    let b = self.write(body, &row);
                    self.loops.pop();
                    self.frame.truncate(depth);
                    quote!(for #iv in 0..#nt { #b })
                } else {
                    let depth = self.frame.depth();
                    self.enter_loop(*i, &iv);
                    let mut b = self.scalar(body);
                    self.frame.truncate(depth);
                    let name = base.to_string();
                    // The loop writes its destination's buffer: no stream from it.
                    let streams = self.leave_loop(&mut b, Some(name.as_str()));
                    let fast = !mentions(&b, &name);
                    if fast {
                        // The body does not read the destination's buffer: iterate the
                        // destination slice itself, so there is no bounds check to remove.
                        fill(&base, &dest.off, &iv, &nt, &streams, quote!(*__slot = #b;))
                    } else {
                        let at = plus(&dest.off, quote!(#iv));
                        for_loop(
                            &iv,
                            &nt,
                            None,
                            &streams,
                            quote!(let __v = #b; ::fsmooth::__rt::st(#base, #at, __v);),
                        )
                    }
                }
            }
            Kind::Array(items) => {
                let mut out = TokenStream::new();
                let rows = dest.dims[1..].to_vec();
                let st = self.stride(&rows);
                for (k, x) in items.iter().enumerate() {
                    let kt = quote!(#k);
                    let depth = self.frame.depth();
                    if x.ty.is_arr() {
                        let off = match &st {
                            Some(st) => plus(&dest.off, wmul(kt.clone(), st.clone())),
                            None => plus(&dest.off, kt),
                        };
                        let row = View {
                            base: dest.base.clone(),
                            off: Some(off),
                            dims: rows.clone(),
                        };
                        out.extend(self.write(x, &row));
                    } else {
                        let v = self.scalar(x);
                        let at = plus(&dest.off, kt);
                        out.extend(quote!({ let __v = #v; ::fsmooth::__rt::st(#base, #at, __v); }));
                    }
                    self.frame.truncate(depth);
                }
                out
            }
            Kind::If(c, a, b) => {
                let c = self.scalar(c);
                let depth = self.frame.depth();
                let a = self.write(a, dest);
                self.frame.truncate(depth);
                let b = self.write(b, dest);
                self.frame.truncate(depth);
                quote!(if #c { #a } else { #b })
            }
            Kind::Let(..) => {
                let depth = self.frame.depth();
                let mut stmts = TokenStream::new();
                let mut cur = e;
                while let Kind::Let(v, a, b) = &cur.kind {
                    stmts.extend(self.bind(*v, a));
                    cur = b;
                }
                let body = self.write(cur, dest);
                self.frame.truncate(depth);
                quote!({ #stmts #body })
            }
            Kind::Ifold(n, init, acc, i, body) => {
                // Double-buffered accumulator: the body reads one buffer and writes the other.
                let depth = self.frame.depth();
                let a = self.alloc(e.ty.dims());
                let b = self.alloc(e.ty.dims());
                let nt = self.scalar(n);
                let init_code = self.write(init, &a);
                let (cur, nxt) = (
                    format_ident!("__cur_{}", acc),
                    format_ident!("__nxt_{}", acc),
                );
                let iv = self.local(*i);
                self.env.insert(*i, Loc::Scalar(iv.clone()));
                // The count may be an enclosing index (`ifold(j, ..)`): it bounds i all the same.
                if let Some(s) = &n.sym {
                    self.bounds.insert(*i, s.clone());
                }
                self.env.insert(
                    *acc,
                    Loc::View(View {
                        base: Base::Scratch,
                        off: Some(quote!(#cur)),
                        dims: e.ty.dims().to_vec(),
                    }),
                );
                let into = View {
                    base: Base::Scratch,
                    off: Some(quote!(#nxt)),
                    dims: e.ty.dims().to_vec(),
                };
                self.enter_plain_loop(*i, &iv);
                let body_code = self.write(body, &into);
                self.loops.pop();
                let (ao, bo) = (
                    a.off.clone().unwrap_or(quote!(0usize)),
                    b.off.clone().unwrap_or(quote!(0usize)),
                );
                let result = View {
                    base: Base::Scratch,
                    off: Some(quote!(#cur)),
                    dims: e.ty.dims().to_vec(),
                };
                let copy = self.copy(&result, dest);
                self.frame.truncate(depth);
                quote!({
                    #init_code
                    let mut #cur: usize = #ao;
                    let mut #nxt: usize = #bo;
                    for #iv in 0..#nt {
                        #body_code
                        ::core::mem::swap(&mut #cur, &mut #nxt);
                    }
                    #copy
                })
            }
            _ => {
                // A variable, row or slice: copy its elements.
                let depth = self.frame.depth();
                let (pre, w) = self.view(e);
                let copy = self.copy(&w, dest);
                self.frame.truncate(depth);
                quote!({ #pre #copy })
            }
        }
    }

    fn copy(&mut self, src: &View, dest: &View) -> TokenStream {
        let len = src
            .dims
            .iter()
            .cloned()
            .reduce(Size::times)
            .unwrap_or(Size::Lit(1));
        let n = self.sizes.get(&len);
        let (sb, db) = (Self::base_tokens(&src.base), Self::base_tokens(&dest.base));
        let so = src.off.clone().unwrap_or(quote!(0usize));
        let d_o = dest.off.clone().unwrap_or(quote!(0usize));
        let same = matches!((&src.base, &dest.base), (Base::Scratch, Base::Scratch));
        let (d_end, s_end) = (wadd(d_o.clone(), n.clone()), wadd(so.clone(), n.clone()));
        if same {
            let (from, to) = (wadd(so, quote!(__k)), wadd(d_o, quote!(__k)));
            quote!(for __k in 0..#n { let __v = ::fsmooth::__rt::ld(scratch, #from); ::fsmooth::__rt::st(scratch, #to, __v); })
        } else {
            quote! {
                if let (Some(__d), Some(__s)) = (#db.get_mut(#d_o..#d_end), #sb.get(#so..#s_end)) {
                    for (__x, __y) in __d.iter_mut().zip(__s) {
                        *__x = *__y;
                    }
                }
            }
        }
    }
}

/// A loop over `i in 0..n` running `body`, zipped with the destination slots (`__d`, bound
/// to `slot`) and the streams: `if let (Some(..), ..) = (src.get(..), ..) { for (i, ..) in
/// (0..n).zip(..) { body } }`, or a plain `for` without streams. `zip` rather than
/// `enumerate`: no counter that could overflow.
fn for_loop(
    i: &Ident,
    n: &TokenStream,
    slot: Option<TokenStream>,
    streams: &[Stream],
    body: TokenStream,
) -> TokenStream {
    let mut it = quote!((0..#n));
    let mut pat = quote!(#i);
    if let Some(s) = slot {
        it = quote!(#it.zip(__d));
        pat = quote!((#pat, #s));
    }
    let mut gets = Vec::new();
    let mut binds = Vec::new();
    for st in streams {
        let (base, start, e) = (&st.base, &st.start, &st.elem);
        let end = wadd(start.clone(), n.clone());
        gets.push(quote!(#base.get(#start..#end)));
        binds.push(quote!(::core::option::Option::Some(#e)));
        it = quote!(#it.zip(#e.iter()));
        pat = quote!((#pat, #e));
    }
    if streams.is_empty() {
        quote!(for #pat in #it { #body })
    } else {
        // Every stream is in range by the same proof that made its loads unchecked, so the
        // `if let` always holds.
        quote!(if let (#(#binds,)*) = (#(#gets,)*) { for #pat in #it { #body } })
    }
}

/// A loop over the `n` slots of `base` from `off`, each bound to `__slot` for `body`.
fn fill(
    base: &TokenStream,
    off: &Option<TokenStream>,
    i: &Ident,
    n: &TokenStream,
    streams: &[Stream],
    body: TokenStream,
) -> TokenStream {
    let range = match off {
        Some(lo) => {
            let hi = wadd(lo.clone(), n.clone());
            quote!(#lo..#hi)
        }
        None => quote!(..#n),
    };
    let lp = for_loop(i, n, Some(quote!(__slot)), streams, body);
    quote! {
        if let Some(__d) = #base.get_mut(#range) {
            let __d = __d.iter_mut();
            #lp
        }
    }
}

/// True when `ts` writes buffer `name` (`st(name, ..)` or `name.get_mut(..)`).
fn writes_to(ts: &TokenStream, name: &str) -> bool {
    let toks: Vec<proc_macro2::TokenTree> = ts.clone().into_iter().collect();
    for (k, t) in toks.iter().enumerate() {
        match t {
            proc_macro2::TokenTree::Ident(i) if i == "st" => {
                if let Some(proc_macro2::TokenTree::Group(g)) = toks.get(k + 1)
                    && matches!(g.stream().into_iter().next(), Some(proc_macro2::TokenTree::Ident(b)) if b == name)
                {
                    return true;
                }
            }
            proc_macro2::TokenTree::Ident(i) if i == name => {
                if let (
                    Some(proc_macro2::TokenTree::Punct(p)),
                    Some(proc_macro2::TokenTree::Ident(m)),
                ) = (toks.get(k + 1), toks.get(k + 2))
                    && p.as_char() == '.'
                    && m == "get_mut"
                {
                    return true;
                }
            }
            proc_macro2::TokenTree::Group(g) if writes_to(&g.stream(), name) => return true,
            _ => {}
        }
    }
    false
}

/// `ts` with every `(*elem)` replaced by `load`.
fn replace_elem(ts: TokenStream, elem: &Ident, load: &TokenStream) -> TokenStream {
    ts.into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => {
                let inner: Vec<proc_macro2::TokenTree> = g.stream().into_iter().collect();
                let is_elem = inner.len() == 2
                    && matches!(&inner[0], proc_macro2::TokenTree::Punct(p) if p.as_char() == '*')
                    && matches!(&inner[1], proc_macro2::TokenTree::Ident(i) if i == elem);
                if is_elem && g.delimiter() == proc_macro2::Delimiter::Parenthesis {
                    let mut grp =
                        proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, load.clone());
                    grp.set_span(g.span());
                    proc_macro2::TokenTree::Group(grp)
                } else {
                    let mut grp = proc_macro2::Group::new(
                        g.delimiter(),
                        replace_elem(g.stream(), elem, load),
                    );
                    grp.set_span(g.span());
                    proc_macro2::TokenTree::Group(grp)
                }
            }
            t => t,
        })
        .collect()
}

/// True when every identifier in `ts` exists before a loop starts: sizes, size-table
/// locals, accumulator offsets, the given outer loop indexes, paths and method names.
fn idents_ok(ts: &TokenStream, outer: &[String]) -> bool {
    ts.clone().into_iter().all(|t| match t {
        proc_macro2::TokenTree::Ident(i) => {
            let s = i.to_string();
            s.starts_with("__z")
                || s.starts_with("__cur_")
                || s.starts_with("__nxt_")
                || s.ends_with("usize")
                || matches!(s.as_str(), "wrapping_add" | "wrapping_mul" | "scratch")
                || outer.contains(&s)
                || !s.contains('_')
                    && s.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        }
        proc_macro2::TokenTree::Group(g) => idents_ok(&g.stream(), outer),
        _ => true,
    })
}

/// Is `s` provably non-negative? Size names are never negative, so a polynomial over them
/// whose coefficients are all non-negative is. Anything else (opaque terms) is not trusted.
fn names_nonneg(s: &Size) -> bool {
    s.poly()
        .coeffs()
        .all(|(m, c)| c >= 0.0 && m.iter().all(|a| matches!(a, Atom::Name(_))))
}

#[cfg(test)]
mod tests {
    fn expand(src: &str) -> String {
        crate::expand(src.parse().unwrap()).to_string()
    }

    #[test]
    fn loop_indexes_into_arrays_of_that_size_are_proven() {
        let out =
            expand("pub fn k(a: [f64; n], b: [f64; n]) -> [f64; n] { build(n, |i| a[i] * b[i]) }");
        assert!(!out.contains("check"), "{out}");
        // `x + 2` with x < w - 2 into w elements.
        let out =
            expand("pub fn k(v: [f64; w]) -> [f64; w - 2] { build(w - 2, |x| v[x + 2] - v[x]) }");
        assert!(!out.contains(":: check"), "{out}");
    }

    #[test]
    fn subtractions_bounded_by_loops_are_unchecked() {
        // c < j < d: `j - c - 1` and `2 * d - c - 1` cannot underflow.
        let out = expand(
            "pub fn k(q: [f64; d * (d + 1) / 2], x: [f64; d]) -> [f64; d] {
                build(d, |j| ifold(j, x[j], |acc, c| acc + q[d + c * (2 * d - c - 1) / 2 + (j - c - 1)] * x[c]))
            }",
        );
        assert!(!out.contains(":: sub ("), "{out}");
        assert!(!out.contains(":: div ("), "{out}");
        // `i - 1` with i from 0 can underflow: checked.
        let out = expand("pub fn k(v: [f64; n]) -> [f64; n] { build(n, |i| v[(i - 1) % n]) }");
        assert!(out.contains(":: sub ("), "{out}");
    }

    #[test]
    fn rows_read_along_a_loop_become_streams() {
        // img[y][x + 2] in a loop over x: the row is cut once, read through an iterator.
        let out = expand(
            "pub fn k(img: [[f64; w]; h], w: usize) -> [[f64; w - 2]; h] {
                build(h, |y| build(w - 2, |x| img[y][x] + img[y][x + 2]))
            }",
        );
        assert!(out.contains("img . get ("), "{out}");
        assert!(!out.contains("ld (img"), "{out}");
    }

    #[test]
    fn sum_folds_inside_builds_are_interchanged() {
        // matmul: the inner loop runs along rows of b, accumulating into the output row.
        let out = expand(
            "pub fn k(a: [[f64; k]; n], b: [[f64; m]; k], k: usize) -> [[f64; m]; n] { matmul(a, b) }",
        );
        assert!(out.contains("* __slot = * __slot +"), "{out}");
        // Small fixed sizes keep the written order.
        let out = expand(
            "pub fn k(a: [[f64; 4]; 4], b: [[f64; 4]; 4]) -> [[f64; 4]; 4] { matmul(a, b) }",
        );
        assert!(!out.contains("* __slot = * __slot +"), "{out}");
    }

    #[test]
    fn unproven_indexes_are_checked() {
        let out = expand("pub fn k(v: [f64; n], i: usize) -> f64 { v[i] }");
        assert!(out.contains(":: check (i , n) ?"), "{out}");
        let out = expand("pub fn k(v: [f64; n]) -> [f64; n] { build(n, |i| v[i + 1]) }");
        assert!(out.contains(":: check"), "{out}");
    }

    #[test]
    fn ifold_accumulator_takes_two_buffers() {
        let out = expand(
            "pub fn k(v: [f64; n], t: usize) -> [f64; n] { ifold(t, v, |s, i| smul(s, 2.0)) }",
        );
        assert!(out.contains("swap"), "{out}");
        assert!(
            out.contains("scratch_len (n : usize , t : usize) -> usize { n + n")
                || out.contains("saturating_add (n , n)"),
            "{out}"
        );
    }
}
