//! `parse`: Rust tokens to the fsmooth AST. syn does the tokenising and Rust-level grammar;
//! this pass accepts only the fsmooth subset and reports everything else on its own tokens.
//! The block's items other than functions (options, `pub mod`, `use`) are in `parse/items.rs`,
//! patterns and closures in `parse/patterns.rs`.

use crate::front::ast::*;
use crate::front::diag::Diags;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::spanned::Spanned;

struct Items(Vec<syn::Attribute>, Vec<syn::Item>);

impl Parse for Items {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let attrs = input.call(syn::Attribute::parse_inner)?;
        let mut v = Vec::new();
        while !input.is_empty() {
            v.push(input.parse()?);
        }
        Ok(Items(attrs, v))
    }
}

/// Parse a block's tokens. Syntax errors stop parsing (syn reports the first); errors about
/// constructs outside fsmooth are all collected into `diags`, and the function is still
/// returned (with a placeholder where the construct was) so later passes can report more.
pub fn parse(tokens: TokenStream, diags: &mut Diags) -> Option<Program> {
    let items: Items = match syn::parse2(tokens) {
        Ok(i) => i,
        Err(e) => {
            diags.push(e);
            return None;
        }
    };
    let options = items::options(&items.0, diags);
    let mut p = Parser {
        diags,
        depth: 0,
        consts: Default::default(),
        pending_mut: Vec::new(),
        taught: false,
    };
    let mut program = Program {
        fns: Vec::new(),
        options,
        module: None,
        imports: Vec::new(),
    };
    // The `use` items first: a constant they bring in may be used above them, as in Rust.
    for item in &items.1 {
        if let syn::Item::Use(u) = item {
            p.use_item(u, &mut program.imports);
        }
    }
    for item in &items.1 {
        match item {
            syn::Item::Fn(f) => program.fns.push(p.item(f)),
            syn::Item::Use(_) => {}
            syn::Item::Mod(m) => p.module(m, &mut program.module),
            other => p.err(
                other.span(),
                "a block holds `fn` items, `use` items importing other blocks' functions, and `pub mod name;` naming the block",
            ),
        }
    }
    Some(program)
}

struct Parser<'d> {
    diags: &'d mut Diags,
    /// Expression nesting, bounded so that every later pass's recursion is too.
    depth: usize,
    /// Float constants the block's `use` items brought in by name.
    consts: consts::ConstScope,
    /// The current function's `let mut`s, reported at its end unless [`Parser::teach`] was.
    pending_mut: Vec<proc_macro2::Span>,
    /// Whether the current function had a loop or an assignment reported.
    taught: bool,
}

/// How deeply expressions may nest.
pub const MAX_DEPTH: usize = 256;

fn placeholder(span: impl Into<Sp>) -> Expr {
    Expr {
        kind: ExprKind::Error,
        span: span.into(),
    }
}

fn name(id: &syn::Ident) -> Name {
    Name {
        text: id.to_string(),
        span: id.span(),
    }
}

impl Parser<'_> {
    fn err(&mut self, span: impl Into<Sp>, msg: impl std::fmt::Display) {
        self.diags.error(span, msg);
    }

    /// An imperative construct (a loop, an assignment), reported with the construct that
    /// does its work. The function's `let mut`s are then part of the same mistake: they are
    /// not reported (one mistake, one error).
    fn teach(&mut self, span: impl Into<Sp>, msg: &str) {
        self.taught = true;
        self.err(span, msg);
    }

    /// `let mut x`: an error, unless the function's loop or assignment is reported.
    pub(super) fn mutable(&mut self, span: proc_macro2::Span) {
        self.pending_mut.push(span);
    }

    fn item(&mut self, f: &syn::ItemFn) -> FnDef {
        let public = match &f.vis {
            syn::Visibility::Public(_) => true,
            syn::Visibility::Inherited => false,
            other => {
                self.err(
                    other.span(),
                    "fsmooth kernels are `pub fn` or private `fn`; restricted visibility is not supported",
                );
                true
            }
        };
        let sig = &f.sig;
        if let Some(g) = &sig.generics.lt_token {
            self.err(
                g.span(),
                "fsmooth functions have no generic parameters: sizes are polymorphic already (write `[f64; n]`)",
            );
        }
        if sig.constness.is_some()
            || sig.asyncness.is_some()
            || !matches!(sig.safety, syn::Safety::Default)
        {
            self.err(sig.fn_token.span(), "fsmooth functions are plain `fn`s");
        }
        let mut params = Vec::new();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Typed(pt) => {
                    let pname = match &*pt.pat {
                        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
                            if pi.mutability.is_some() {
                                self.err(pi.span(), "fsmooth values are immutable: remove `mut`");
                            }
                            name(&pi.ident)
                        }
                        other => {
                            self.err(other.span(), "expected a parameter name");
                            Name {
                                text: "_".into(),
                                span: other.span(),
                            }
                        }
                    };
                    let before = self.diags.len();
                    let ty = self.ty(&pt.ty);
                    let failed = self.diags.len() > before;
                    params.push(Param {
                        name: pname,
                        ty,
                        failed,
                    });
                }
                syn::FnArg::Receiver(r) => self.err(r.span(), "fsmooth functions take no `self`"),
            }
        }
        let errors = self.diags.len();
        let ret = match &sig.output {
            syn::ReturnType::Type(_, t) => self.ty(t),
            syn::ReturnType::Default => {
                self.err(
                    sig.paren_token.span.join(),
                    "an fsmooth function returns a value: add `-> f64` or `-> [f64; n]`",
                );
                Ty::F64(sig.ident.span())
            }
        };
        let ret_failed = self.diags.len() > errors;
        let attrs = f
            .attrs
            .iter()
            .map(|a| a.to_token_stream())
            .collect::<Vec<_>>();
        self.taught = false;
        let pending = std::mem::take(&mut self.pending_mut);
        let body = self.block(&f.block);
        let muts = std::mem::replace(&mut self.pending_mut, pending);
        if !self.taught {
            for m in muts {
                self.err(m, "fsmooth values are immutable: remove `mut`");
            }
        }
        FnDef {
            public,
            attrs,
            name: name(&sig.ident),
            params,
            ret,
            ret_failed,
            body,
            sig_span: sig.span(),
        }
    }

    fn block(&mut self, b: &syn::Block) -> Expr {
        let span = Sp::from(b.brace_token.span.join());
        let mut lets = Vec::new();
        let mut tail = None;
        let n = b.stmts.len();
        for (k, s) in b.stmts.iter().enumerate() {
            match s {
                syn::Stmt::Local(l) => {
                    let value = match &l.init {
                        Some(init) => {
                            if let Some((e, _)) = &init.diverge {
                                self.err(e.span(), "`let .. else` is not fsmooth");
                            }
                            self.expr(&init.expr)
                        }
                        None => {
                            self.err(l.span(), "a `let` needs a value: `let x = e;`");
                            placeholder(l.span())
                        }
                    };
                    self.let_pat(&l.pat, None, value, &mut lets);
                    if k + 1 == n {
                        self.err(
                            l.span(),
                            "a block ends in its value: add an expression after the last `let`",
                        );
                    }
                }
                syn::Stmt::Expr(e, semi) => {
                    if k + 1 == n && semi.is_none() {
                        tail = Some(self.expr(e));
                    } else if let Some(semi) = semi {
                        // Its own error (a `return`, say) says more than the `;`.
                        let before = self.diags.len();
                        let x = self.expr(e);
                        if self.diags.len() == before {
                            self.err(
                                semi.span(),
                                "only `let` statements come before a block's value: remove this `;` if this is the value",
                            );
                        }
                        if k + 1 == n {
                            tail = Some(x);
                        }
                    } else {
                        // Parse it anyway: its own error (a `for` loop, say) says more.
                        let before = self.diags.len();
                        self.expr(e);
                        if self.diags.len() == before {
                            self.err(e.span(), "expected `;` or the end of the block");
                        }
                    }
                }
                syn::Stmt::Item(i) => self.err(
                    i.span(),
                    "items inside fsmooth functions are not supported: define helpers at the block's top level",
                ),
                syn::Stmt::Macro(m) => self.err(m.span(), "macros are not fsmooth"),
            }
        }
        let tail = match tail {
            Some(t) => t,
            None => {
                if lets.is_empty() || n == 0 {
                    self.err(span, "an empty block has no value");
                }
                placeholder(span)
            }
        };
        if lets.is_empty() {
            tail
        } else {
            Expr {
                kind: ExprKind::Block(lets, Box::new(tail)),
                span,
            }
        }
    }

    fn expr(&mut self, e: &syn::Expr) -> Expr {
        if self.depth >= MAX_DEPTH {
            self.err(
                Sp::of(e),
                format!("this expression nests more than {MAX_DEPTH} levels deep: bind parts of it with `let`"),
            );
            return placeholder(Sp::of(e));
        }
        self.depth += 1;
        let r = self.expr_inner(e);
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, e: &syn::Expr) -> Expr {
        let span = Sp::of(e);
        let kind = match e {
            syn::Expr::Lit(l) => match &l.lit {
                syn::Lit::Float(f) => match (f.base10_parse::<f64>(), float_suffix(f.suffix())) {
                    (Ok(v), Some(suffix)) => ExprKind::Float(v, suffix),
                    _ => {
                        self.err(
                            f.span(),
                            "fsmooth floats are `f64` or `f32`: write e.g. `1.5`, `1.5f32`",
                        );
                        ExprKind::Float(0.0, None)
                    }
                },
                syn::Lit::Int(i) => match i.suffix() {
                    "" | "usize" => match i.base10_parse::<u64>() {
                        Ok(v) => ExprKind::Int(v),
                        Err(err) => {
                            self.diags.push(err);
                            ExprKind::Int(0)
                        }
                    },
                    "f64" | "f32" => match i.base10_parse::<f64>() {
                        Ok(v) => ExprKind::Float(v, float_suffix(i.suffix()).flatten()),
                        Err(err) => {
                            self.diags.push(err);
                            ExprKind::Float(0.0, None)
                        }
                    },
                    _ => {
                        self.err(
                            i.span(),
                            "integer literals are `usize` (or write `2.0` for f64)",
                        );
                        ExprKind::Int(0)
                    }
                },
                syn::Lit::Bool(b) => ExprKind::Bool(b.value),
                other => {
                    self.err(
                        other.span(),
                        "fsmooth literals are numbers and `true`/`false`",
                    );
                    ExprKind::Float(0.0, None)
                }
            },
            syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                let id = p.path.get_ident().unwrap_or_else(|| unreachable!());
                match self.named_const(&id.to_string()) {
                    Some(k) => k,
                    None => ExprKind::Var(name(id)),
                }
            }
            syn::Expr::Path(p) if p.qself.is_none() && p.path.segments.len() > 1 => {
                match self.const_path(p) {
                    Some(k) => k,
                    None => return placeholder(span),
                }
            }
            syn::Expr::Paren(p) => return self.expr(&p.expr),
            syn::Expr::Group(g) => return self.expr(&g.expr),
            syn::Expr::Block(b) if b.label.is_none() => return self.block(&b.block),
            syn::Expr::Index(ix) => {
                let arr = self.expr(&ix.expr);
                match &*ix.index {
                    syn::Expr::Range(r) => {
                        if matches!(r.limits, syn::RangeLimits::Closed(_)) {
                            self.err(r.span(), "slices are half-open: write `a..b`");
                        }
                        let lo = r.start.as_ref().map(|s| Box::new(self.expr(s)));
                        let hi = r.end.as_ref().map(|s| Box::new(self.expr(s)));
                        ExprKind::Slice(Box::new(arr), lo, hi)
                    }
                    idx => ExprKind::Index(Box::new(arr), Box::new(self.expr(idx))),
                }
            }
            syn::Expr::MethodCall(m) => {
                if self.iterator_chain(m) {
                    return placeholder(span);
                }
                let recv = self.expr(&m.receiver);
                let mname = m.method.to_string();
                if m.turbofish.is_some() {
                    self.err(m.method.span(), "no turbofish in fsmooth");
                }
                if mname == "len" {
                    if !m.args.is_empty() {
                        self.err(m.args.span(), "`len` takes no arguments");
                    }
                    ExprKind::Len(Box::new(recv))
                } else if let Some(f) = MathFn::from_name(&mname) {
                    let args: Vec<Expr> = m.args.iter().map(|a| self.expr(a)).collect();
                    if args.len() != f.arity() {
                        self.err(
                            m.method.span(),
                            format!(
                                "`{mname}` takes {} argument{}, found {}",
                                f.arity(),
                                if f.arity() == 1 { "" } else { "s" },
                                args.len()
                            ),
                        );
                        return placeholder(span);
                    }
                    ExprKind::Math(f, Box::new(recv), args)
                } else {
                    self.unknown_method(m, &mname);
                    return placeholder(span);
                }
            }
            syn::Expr::Call(c) => {
                let fname = match &*c.func {
                    syn::Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                        name(p.path.get_ident().unwrap_or_else(|| unreachable!()))
                    }
                    // `f64::max(a, b)`, `f32::sqrt(x)`: Rust's float methods by their path.
                    syn::Expr::Path(p) if self.float_method_path(p, c) => {
                        return placeholder(span);
                    }
                    other => {
                        self.err(other.span(), "call a function by its name");
                        return placeholder(span);
                    }
                };
                let args: Vec<&syn::Expr> = c.args.iter().collect();
                match fname.text.as_str() {
                    "build" => {
                        if args.len() != 2 {
                            self.err(
                                fname.span,
                                format!(
                                    "`build(n, |i| e)` takes 2 arguments, found {}",
                                    args.len()
                                ),
                            );
                            return placeholder(span);
                        }
                        let n = self.expr(args[0]);
                        match self.closure(args[1], 1, "`build`") {
                            Some((mut ps, body)) => {
                                ExprKind::Build(Box::new(n), ps.remove(0), Box::new(body))
                            }
                            None => return placeholder(span),
                        }
                    }
                    "ifold" | "scan" => {
                        if args.len() != 3 {
                            self.err(
                                fname.span,
                                format!(
                                    "`{}(n, init, |acc, i| e)` takes 3 arguments, found {}",
                                    fname.text,
                                    args.len()
                                ),
                            );
                            return placeholder(span);
                        }
                        let n = self.expr(args[0]);
                        let init = self.expr(args[1]);
                        let what = format!("`{}`", fname.text);
                        match self.closure(args[2], 2, &what) {
                            Some((mut ps, body)) => {
                                let i = ps.remove(1);
                                let acc = ps.remove(0);
                                let (n, init, body) = (Box::new(n), Box::new(init), Box::new(body));
                                if fname.text == "scan" {
                                    ExprKind::Scan(n, init, acc, i, body)
                                } else {
                                    ExprKind::Ifold(n, init, acc, i, body)
                                }
                            }
                            None => return placeholder(span),
                        }
                    }
                    // The forms of sections 14 and 15 when written as they are; any other
                    // call by their names is a call (a block's own function of that name, or
                    // the checker's error naming the form).
                    f if forms::is_form(f, &args) => match self.form(&fname, &args) {
                        Some(kind) => kind,
                        None => return placeholder(span),
                    },
                    "length" if args.len() == 1 => ExprKind::Len(Box::new(self.expr(args[0]))),
                    _ => {
                        let args = args.iter().map(|a| self.expr(a)).collect();
                        ExprKind::Call(fname, args)
                    }
                }
            }
            syn::Expr::Closure(c) => {
                let (ps, body) = self.closure_parts(c);
                ExprKind::Closure(ps, Box::new(body))
            }
            syn::Expr::Tuple(t) if t.elems.len() >= 2 => {
                ExprKind::Tuple(t.elems.iter().map(|x| self.expr(x)).collect())
            }
            syn::Expr::Tuple(t) => {
                self.err(t.span(), "a tuple has two or more components: `(a, b)`");
                return placeholder(span);
            }
            syn::Expr::Field(f) => {
                let whole = self.expr(&f.base);
                match &f.member {
                    syn::Member::Unnamed(ix) => {
                        ExprKind::Proj(Box::new(whole), ix.index as usize, Sp::from(ix.span))
                    }
                    syn::Member::Named(id) => {
                        self.err(
                            id.span(),
                            "fsmooth values have no named fields: a tuple's components are `t.0`, `t.1`, ..",
                        );
                        return placeholder(span);
                    }
                }
            }
            syn::Expr::Array(a) => ExprKind::Array(a.elems.iter().map(|x| self.expr(x)).collect()),
            // `if c { return v; }` and the rest of the body after it: Rust's early return, one
            // mistake, so one error, not one for the missing `else` and one for the `return`.
            syn::Expr::If(i) if i.else_branch.is_none() && ends_in_return(&i.then_branch) => {
                self.teach(i.if_token.span(), EARLY_RETURN);
                return placeholder(span);
            }
            syn::Expr::If(i) => {
                let c = self.expr(&i.cond);
                let t = self.block(&i.then_branch);
                let f = match &i.else_branch {
                    Some((_, e)) => self.expr(e),
                    None => {
                        self.err(
                            i.if_token.span(),
                            "`if` needs an `else`: both branches give the value",
                        );
                        placeholder(span)
                    }
                };
                ExprKind::If(Box::new(c), Box::new(t), Box::new(f))
            }
            syn::Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => BinOp::Add,
                    syn::BinOp::Sub(_) => BinOp::Sub,
                    syn::BinOp::Mul(_) => BinOp::Mul,
                    syn::BinOp::Div(_) => BinOp::Div,
                    syn::BinOp::Rem(_) => BinOp::Rem,
                    syn::BinOp::Lt(_) => BinOp::Lt,
                    syn::BinOp::Le(_) => BinOp::Le,
                    syn::BinOp::Gt(_) => BinOp::Gt,
                    syn::BinOp::Ge(_) => BinOp::Ge,
                    syn::BinOp::Eq(_) => BinOp::Eq,
                    syn::BinOp::Ne(_) => BinOp::Ne,
                    syn::BinOp::And(_) => BinOp::And,
                    syn::BinOp::Or(_) => BinOp::Or,
                    _ if is_compound_assignment(&b.op) => {
                        self.teach(Sp::of(b), ASSIGNMENT);
                        return placeholder(span);
                    }
                    _ => {
                        self.err(
                            b.op.span(),
                            "unsupported operator: fsmooth values are immutable and have no bit operations",
                        );
                        return placeholder(span);
                    }
                };
                let l = self.expr(&b.left);
                let r = self.expr(&b.right);
                ExprKind::Bin(op, Box::new(l), Box::new(r))
            }
            syn::Expr::Unary(u) => {
                let op = match u.op {
                    syn::UnOp::Neg(_) => UnOp::Neg,
                    syn::UnOp::Not(_) => UnOp::Not,
                    _ => {
                        self.err(u.op.span(), "fsmooth has no references or pointers");
                        return placeholder(span);
                    }
                };
                ExprKind::Un(op, Box::new(self.expr(&u.expr)))
            }
            syn::Expr::Cast(c) => {
                let inner = self.expr(&c.expr);
                let to = match &*c.ty {
                    syn::Type::Path(p) if p.path.is_ident("f64") => CastTy::F64,
                    syn::Type::Path(p) if p.path.is_ident("f32") => CastTy::F32,
                    syn::Type::Path(p) if p.path.is_ident("usize") => CastTy::Usize,
                    other => {
                        self.err(other.span(), "casts go to `f64`, `f32` or `usize`");
                        return placeholder(span);
                    }
                };
                ExprKind::Cast(Box::new(inner), to)
            }
            syn::Expr::Return(r) => {
                self.err(
                    r.span(),
                    "fsmooth has no `return`: a function's value is its body's last expression",
                );
                return placeholder(span);
            }
            syn::Expr::ForLoop(f) => {
                self.teach(f.for_token.span(), FOR_LOOP);
                return placeholder(span);
            }
            syn::Expr::While(w) => {
                self.teach(w.while_token.span(), WHILE_LOOP);
                return placeholder(span);
            }
            syn::Expr::Loop(l) => {
                self.teach(l.loop_token.span(), LOOP_LOOP);
                return placeholder(span);
            }
            syn::Expr::Assign(a) => {
                self.teach(Sp::of(a), ASSIGNMENT);
                return placeholder(span);
            }
            syn::Expr::Repeat(r) => {
                // `[0.0; d]`, Rust's array of copies: the `build` that says the same.
                let (v, n) = (r.expr.to_token_stream(), r.len.to_token_stream());
                self.err(
                    Sp::of(r),
                    format!("`[v; n]` is not part of fsmooth: write `build({n}, |_| {v})`"),
                );
                return placeholder(span);
            }

            other => {
                self.err(
                    other.span(),
                    "this expression is not part of fsmooth (see docs/language.md, section 3)",
                );
                return placeholder(span);
            }
        };
        Expr { kind, span }
    }
}

impl Parser<'_> {
    /// The error for a method fsmooth does not have, with what to write where there is an
    /// answer. Apart from [`Parser::expr`], whose frame every nested expression takes on the
    /// stack (a debug build's, of 2 MiB, holds a sum of 150 terms).
    #[inline(never)]
    fn unknown_method(&mut self, m: &syn::ExprMethodCall, mname: &str) {
        let known: Vec<&str> = MathFn::ALL
            .iter()
            .map(|f| f.name())
            .chain(["len"])
            .collect();
        let recv_text = m.receiver.to_token_stream().to_string().replace(' ', "");
        let hint = match mname {
            // Functions of the prelude called as methods (`v.sum()`).
            f if PRELUDE_FNS.contains(&f) => {
                format!("; `{f}` is a function: write `{f}({recv_text})`")
            }
            "square" => format!("; write `{recv_text} * {recv_text}`"),
            "mean" => format!("; write `sum({recv_text}) / (n as f64)`"),
            _ => crate::front::diag::closest(mname, known.iter().copied())
                .map(|c| format!("; did you mean `{c}`?"))
                .unwrap_or_default(),
        };
        self.err(
            m.method.span(),
            format!("unknown method `{mname}`: fsmooth has `len` and the math methods{hint}"),
        );
    }

    /// When call `c`'s function is Rust's float method by its path (`f64::max(a, b)`): an
    /// error naming the method form (`a.max(b)`), and true.
    #[inline(never)]
    fn float_method_path(&mut self, p: &syn::ExprPath, c: &syn::ExprCall) -> bool {
        let segs = &p.path.segments;
        if segs.len() != 2
            || !matches!(segs[0].ident.to_string().as_str(), "f64" | "f32")
            || MathFn::from_name(&segs[1].ident.to_string()).is_none()
        {
            return false;
        }
        let m = segs[1].ident.to_string();
        let args: Vec<String> = c
            .args
            .iter()
            .map(|a| a.to_token_stream().to_string().replace(' ', ""))
            .collect();
        let call = match args.split_first() {
            Some((x, rest)) => format!("{x}.{m}({})", rest.join(", ")),
            None => format!("x.{m}()"),
        };
        self.err(p.span(), format!("call `{m}` as a method: write `{call}`"));
        true
    }
}

/// The prelude's functions (`front/prelude.fs`): a method call of one of these names
/// (`v.sum()`) is told to call it (`sum(v)`). A test keeps the list the prelude's.
pub(crate) const PRELUDE_FNS: [&str; 20] = [
    "map",
    "map2",
    "add",
    "sub",
    "emul",
    "smul",
    "sum",
    "dot",
    "sqnorm",
    "norm",
    "vmax",
    "logsumexp",
    "cross",
    "transpose",
    "matmul",
    "matvec",
    "outer",
    "madd",
    "msub",
    "msmul",
];

mod consts;
pub(crate) use consts::FLOAT_CONSTS;
mod forms;
mod items;
mod iterators;
mod patterns;
mod types;

/// LANGUAGE.md section 16: the loops and assignments Rust users reach for, each with the
/// fsmooth construct that does its work.
const FOR_LOOP: &str = "`for` loops are not part of fsmooth: write `build(n, |i| ..)` for an array of n elements, `ifold(n, init, |acc, i| ..)` to carry a state through n steps, `scan(n, init, |acc, i| ..)` to keep every intermediate state, or `iterate(init, |s| cond, |s| next)` for a loop that stops";
const WHILE_LOOP: &str = "`while` loops are not part of fsmooth: write `iterate(init, |s| cond, |s| next)` for a loop that stops, `ifold(n, init, |acc, i| ..)` for a counted loop, `scan(n, init, |acc, i| ..)` for every intermediate state";
const LOOP_LOOP: &str = "`loop` is not part of fsmooth: write `iterate(init, |s| cond, |s| next)` for a loop that stops, `ifold(n, init, |acc, i| ..)` for a counted loop, `scan(n, init, |acc, i| ..)` for every intermediate state";
const ASSIGNMENT: &str = "fsmooth values are immutable: nothing is assigned\n  help: to add into elements by index, write `scatter_add(m, n, |i| (k, v))`; to update one row of a state, write the new row inside an `ifold`: `build(m, |j| if j == k { h[j] + v } else { h[j] })`; for a new value, bind a new name with `let`";

const EARLY_RETURN: &str = "fsmooth has no early `return`: a function's value is its body's last expression\n  help: write the rest of the body as the `else` branch: `if cond { value } else { rest }`";

/// Whether `b`'s last statement is a `return`.
fn ends_in_return(b: &syn::Block) -> bool {
    matches!(
        b.stmts.last(),
        Some(syn::Stmt::Expr(syn::Expr::Return(_), _))
    )
}

/// `+=`, `-=`, `*=`, ..: an assignment.
fn is_compound_assignment(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::AddAssign(_)
            | syn::BinOp::SubAssign(_)
            | syn::BinOp::MulAssign(_)
            | syn::BinOp::DivAssign(_)
            | syn::BinOp::RemAssign(_)
            | syn::BinOp::BitXorAssign(_)
            | syn::BinOp::BitAndAssign(_)
            | syn::BinOp::BitOrAssign(_)
            | syn::BinOp::ShlAssign(_)
            | syn::BinOp::ShrAssign(_)
    )
}
#[cfg(test)]
mod tests;

/// A float literal's suffix: `Some(None)` for none, `Some(Some(ty))` for `f64` or `f32`,
/// `None` for any other.
fn float_suffix(suffix: &str) -> Option<Option<CastTy>> {
    match suffix {
        "" => Some(None),
        "f64" => Some(Some(CastTy::F64)),
        "f32" => Some(Some(CastTy::F32)),
        _ => None,
    }
}
