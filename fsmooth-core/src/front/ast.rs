//! The surface syntax of an fsmooth block, as parsed from Rust tokens. Every node keeps the
//! span of the tokens it came from, so later passes can point errors at them.

use proc_macro2::{Span, TokenStream};

/// A source range: the first and last token of a construct, so errors underline all of it
/// (stable Rust cannot join spans, but an error spanning two tokens shows the range).
#[derive(Clone, Copy, Debug)]
pub struct Sp {
    /// The first token.
    pub start: Span,
    /// The last token.
    pub end: Span,
}

impl Sp {
    /// The range of a syntax node's tokens.
    pub fn of<T: quote::ToTokens>(node: &T) -> Sp {
        let ts = node.to_token_stream();
        let mut it = ts.into_iter();
        let Some(first) = it.next() else {
            return Sp::from(Span::call_site());
        };
        let last = it.last().unwrap_or_else(|| first.clone());
        Sp {
            start: first.span(),
            end: last.span(),
        }
    }

    /// From `self`'s start to `o`'s end.
    pub fn to(self, o: Sp) -> Sp {
        Sp {
            start: self.start,
            end: o.end,
        }
    }
}

impl From<Span> for Sp {
    fn from(s: Span) -> Sp {
        Sp { start: s, end: s }
    }
}

/// A name with the span of its use.
#[derive(Clone, Debug)]
pub struct Name {
    /// The identifier's text.
    pub text: String,
    /// Where it was written.
    pub span: Span,
}

impl Name {
    /// A name without a meaningful source location (synthesised by the compiler).
    pub fn synth(s: &str) -> Name {
        Name {
            text: s.to_string(),
            span: Span::call_site(),
        }
    }
}

/// A whole `fsmooth! { .. }` block.
#[derive(Clone, Debug)]
pub struct Program {
    /// The `fn` items, in source order.
    pub fns: Vec<FnDef>,
    /// Options from `#![fsmooth(..)]` at the top of the block.
    pub options: Options,
    /// `pub mod name;`: the block is a Rust module of that name, and other blocks may import
    /// its functions.
    pub module: Option<ModuleDecl>,
    /// The `use` items: functions of other blocks called in this one.
    pub imports: Vec<Import>,
}

/// `pub mod geometry;` in a block: the block's items go in `pub mod geometry { .. }`, which
/// also carries the block's source for importing blocks ([`crate::front::imports`]).
#[derive(Clone, Debug)]
pub struct ModuleDecl {
    /// Doc comments and other attributes of the module.
    pub attrs: Vec<TokenStream>,
    /// Its visibility as written (`pub`, `pub(crate)`, or nothing).
    pub vis: TokenStream,
    /// The module's name.
    pub name: Name,
}

impl ModuleDecl {
    /// Whether other crates can see the module (plain `pub`): its source is then handed
    /// over by an exported `macro_rules!`.
    pub fn exported(&self) -> bool {
        self.vis.to_string() == "pub"
    }
}

/// `use crate::geometry::{project, rodrigues as rod};`: functions of the block that is
/// module `crate::geometry`.
#[derive(Clone, Debug)]
pub struct Import {
    /// The module's path as written, without the function names (`crate::geometry`).
    pub path: TokenStream,
    /// The whole `use` item, for errors about it.
    pub span: Sp,
    /// What is imported.
    pub names: Vec<Imported>,
}

impl Import {
    /// The module path as text (`crate::geometry`), to name the block in messages.
    pub fn path_text(&self) -> String {
        self.path.to_string().replace(' ', "")
    }
}

/// One name of a `use` item.
#[derive(Clone, Debug)]
pub enum Imported {
    /// `f`, or `f as g`: the function `f` of the block, called `g` here.
    Name {
        /// The function's name in its block.
        name: Name,
        /// The name it has in the importing block.
        alias: Name,
    },
    /// `*`: every function of the block.
    Glob(Span),
}

/// Switches for the compiler's optimisations, set with `#![fsmooth(fusion = false)]`,
/// `#![fsmooth(unroll = false)]` or `#![fsmooth(storage = "heap")]` at the top of a block.
/// Fusion and storage exist to measure what each step buys (the paper's ablation: D, DF,
/// DFB, DFBS); unrolling trades code size for speed. The generated code computes the same
/// values either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Loop fusion (`build(n, f)[i] ~> f(i)` and the rest of `fuse`), and with it the hoisting
    /// of costly invariant calls out of loops ([`crate::middle::hoist`]).
    pub fusion: bool,
    /// Small fixed loops written out so that their arrays become scalars ([`crate::middle::unroll`];
    /// only with fusion), and loops over sums written out several rows or columns at a time
    /// ([`crate::lower::dps`]'s jam and tiles). Faster code, less scratch; but more code, which a
    /// flash-bound microcontroller may not want (`#![fsmooth(unroll = false)]`).
    pub unroll: bool,
    /// Where intermediate arrays live.
    pub storage: Storage,
    /// Layout views (`concat`, `join`, `split`) read and written in place; off
    /// (`#![fsmooth(views = false)]`), each view's arguments are stored in the frame and
    /// copied, to measure what views buy.
    pub views: bool,
    /// Sums over many steps at the kernel's top level run in chunks on rayon's pool, added
    /// in a fixed tree: results independent of the thread count, but not those of the loop
    /// in order (`lir::St::ParSum`). On by default where fsmooth's `parallel` feature is;
    /// `#![fsmooth(parallel = false)]` keeps a block's sums in order.
    pub parallel: bool,
    /// Float sums may add in another order (`#![fsmooth(reassociate = true)]`; off by
    /// default): a sum whose step has no loop of its own (and whose count is not an enclosing
    /// loop's index) adds its terms in [`crate::lir::LANES`] lanes (`lir::St::Lanes`), and a
    /// lane adding a product uses one fused multiply-add where the target has FMA. Rounding changes; the result is still
    /// the same on every call and every thread count.
    pub reassociate: bool,
    /// Report, as rustc warnings on the user's tokens, every array the plan stores in the
    /// frame, every copy into an output and every fold state kept in two buffers
    /// (`#![fsmooth(remarks = true)]`; off by default: [`crate::emit::remarks`]).
    pub remarks: bool,
}

/// Where a kernel's intermediate arrays live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    /// One frame with static offsets, taken from the caller's region (the default; the
    /// paper's DFBS).
    Region,
    /// The same frame, but a fresh heap allocation per call (the paper's DFB: buffer
    /// optimisations without the bump allocator). Needs the `alloc` feature.
    HeapFrame,
    /// A heap allocation per array, made where the array is bound and freed at the end of
    /// its scope, inside loops too (the paper's D and DF). Needs the `alloc` feature.
    Heap,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            fusion: true,
            unroll: true,
            storage: Storage::Region,
            views: true,
            parallel: cfg!(feature = "parallel"),
            reassociate: false,
            remarks: false,
        }
    }
}

/// One `fn` item.
#[derive(Clone, Debug)]
pub struct FnDef {
    /// `pub fn` items are kernels; others are helpers.
    pub public: bool,
    /// Doc comments and other outer attributes, passed through to the kernel.
    pub attrs: Vec<TokenStream>,
    /// The function's name.
    pub name: Name,
    /// Its parameters.
    pub params: Vec<Param>,
    /// The declared return type.
    pub ret: Ty,
    /// Whether the return type had an error of its own (a type fsmooth does not have, read
    /// as `f64`): the body is then not compared with it (one mistake, one error).
    pub ret_failed: bool,
    /// The body.
    pub body: Expr,
    /// The span of the whole signature (for errors about the function as a whole).
    pub sig_span: Span,
}

/// A parameter `name: ty`.
#[derive(Clone, Debug)]
pub struct Param {
    /// The parameter's name.
    pub name: Name,
    /// Its declared type.
    pub ty: Ty,
    /// Its type was reported as an error where it is written (`&[f64]`, `Vec<f64>`): the
    /// parameter is bound as a failed name, whose uses raise nothing more.
    pub failed: bool,
}

/// A written type.
#[derive(Clone, Debug)]
pub enum Ty {
    /// `f64`
    F64(Span),
    /// `f32`
    F32(Span),
    /// `usize`
    Usize(Span),
    /// `bool`
    Bool(Span),
    /// `[elem; len]`
    Array(Box<Ty>, SizeAst, Span),
    /// `fn(params) -> ret`
    Fn(Vec<Ty>, Box<Ty>, Span),
    /// `(T1, T2, ..)`, two or more components.
    Tuple(Vec<Ty>, Span),
    /// `T`: an element-type parameter of a helper (an uppercase single letter), standing for
    /// whatever the arguments give it (`f64`, or a row `[f64; m]`).
    Elem(Name),
}

impl Ty {
    /// Where the type was written.
    pub fn span(&self) -> Span {
        match self {
            Ty::F64(s)
            | Ty::F32(s)
            | Ty::Usize(s)
            | Ty::Bool(s)
            | Ty::Array(_, _, s)
            | Ty::Fn(_, _, s)
            | Ty::Tuple(_, s) => *s,
            Ty::Elem(n) => n.span,
        }
    }
}

/// A size written in a type: literals and size names under `+ - * /`.
#[derive(Clone, Debug)]
pub enum SizeAst {
    /// An integer literal.
    Lit(u64, Span),
    /// A size name.
    Name(Name),
    /// `a op b`.
    Bin(SizeOp, Box<SizeAst>, Box<SizeAst>, Span),
}

impl SizeAst {
    /// Where the size was written.
    pub fn span(&self) -> Span {
        match self {
            SizeAst::Lit(_, s) | SizeAst::Bin(_, _, _, s) => *s,
            SizeAst::Name(n) => n.span,
        }
    }

    /// Every size name in this size, in order of appearance.
    pub fn names<'a>(&'a self, out: &mut Vec<&'a Name>) {
        match self {
            SizeAst::Lit(..) => {}
            SizeAst::Name(n) => out.push(n),
            SizeAst::Bin(_, a, b, _) => {
                a.names(out);
                b.names(out);
            }
        }
    }
}

/// Arithmetic allowed in sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SizeOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
}

/// An expression with its span.
#[derive(Clone, Debug)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// The tokens it came from.
    pub span: Sp,
}

/// One `let` of a block.
#[derive(Clone, Debug)]
pub struct Let {
    /// The bound name.
    pub name: Name,
    /// An optional type annotation, checked against the value.
    pub ty: Option<Ty>,
    /// The value.
    pub value: Expr,
}

/// The forms of expression (LANGUAGE.md section 3).
#[derive(Clone, Debug)]
pub enum ExprKind {
    /// `1.5`, `2.0f32`: the value, and the suffix written (`None` when the literal takes the
    /// float type its context needs).
    Float(f64, Option<CastTy>),
    /// `3`
    Int(u64),
    /// `true`, `false`
    Bool(bool),
    /// A variable, size name or function name.
    Var(Name),
    /// `{ let x = e; ..; e }`
    Block(Vec<Let>, Box<Expr>),
    /// `v[i]`
    Index(Box<Expr>, Box<Expr>),
    /// `v[a..b]`; a missing bound is `None` (`0` and the length).
    Slice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `v.len()` or `length(v)`
    Len(Box<Expr>),
    /// `build(n, |i| e)`
    Build(Box<Expr>, Name, Box<Expr>),
    /// `ifold(n, init, |acc, i| e)`
    Ifold(Box<Expr>, Box<Expr>, Name, Name, Box<Expr>),
    /// `scan(n, init, |acc, i| e)`: `ifold` keeping every state (LANGUAGE.md section 8).
    Scan(Box<Expr>, Box<Expr>, Name, Name, Box<Expr>),
    /// `iterate(init, |s| cond, |s| next)`: a loop that stops (LANGUAGE.md section 14); the
    /// state's names in the condition and in the step.
    Iterate(Box<Expr>, Name, Box<Expr>, Name, Box<Expr>),
    /// `scatter_add(m, n, |i| (k, v))` and `reduce_by_index(m, ne, |a, b| op, n, |i| (k, v))`
    /// (LANGUAGE.md section 15).
    Scatter(Box<Scatter>),
    /// `(e1, e2, ..)`, two or more components.
    Tuple(Vec<Expr>),
    /// `t.0`: a tuple's component, with the span of the number.
    Proj(Box<Expr>, usize, Sp),
    /// `[e0, e1, ..]`
    Array(Vec<Expr>),
    /// `if c { a } else { b }`
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `a op b`
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// `-a`, `!a`
    Un(UnOp, Box<Expr>),
    /// `e as f64`, `e as usize`
    Cast(Box<Expr>, CastTy),
    /// `x.sqrt()`, `x.powi(k)`, ...
    Math(MathFn, Box<Expr>, Vec<Expr>),
    /// `f(a, b)`: a block function, a prelude function or a function parameter.
    Call(Name, Vec<Expr>),
    /// `|x, y| e`: only as an argument for a function parameter.
    Closure(Vec<Name>, Box<Expr>),
    /// Where parsing failed (already reported): later passes stay silent about it.
    Error,
}

/// `reduce_by_index(m, ne, |a, b| op, n, |i| (k, v))`, or `scatter_add(m, n, |i| (k, v))`
/// (no `ne` and no `op`: addition from zero).
#[derive(Clone, Debug)]
pub struct Scatter {
    /// The result's length.
    pub m: Expr,
    /// The operation's neutral element, every element's start.
    pub ne: Option<Expr>,
    /// The operation: its two parameters (the element so far, the value) and its body.
    pub op: Option<(Name, Name, Expr)>,
    /// The step count.
    pub n: Expr,
    /// The step's index.
    pub i: Name,
    /// The step: the pair (index, value).
    pub body: Expr,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Rem,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `&&`
    And,
    /// `||`
    Or,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    /// `+ - * / %`
    pub fn is_arith(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
        )
    }

    /// `< <= > >= == !=`
    pub fn is_cmp(self) -> bool {
        matches!(
            self,
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
        )
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

/// Targets of `as`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastTy {
    /// `as f64`
    F64,
    /// `as f32`
    F32,
    /// `as usize`
    Usize,
}

impl CastTy {
    /// The type as written.
    pub fn name(self) -> &'static str {
        match self {
            CastTy::F64 => "f64",
            CastTy::F32 => "f32",
            CastTy::Usize => "usize",
        }
    }
}

/// The scalar math methods (Rust's own f64 method names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    /// `x.sqrt()`
    Sqrt,
    /// `x.exp()`
    Exp,
    /// `x.ln()`
    Ln,
    /// `x.sin()`
    Sin,
    /// `x.cos()`
    Cos,
    /// `x.tan()`
    Tan,
    /// `x.tanh()`
    Tanh,
    /// `x.abs()`
    Abs,
    /// `x.floor()`
    Floor,
    /// `x.ceil()`
    Ceil,
    /// `x.powi(k)`: k a usize expression or a (possibly negated) integer literal
    Powi,
    /// `x.powf(y)`
    Powf,
    /// `x.min(y)`
    Min,
    /// `x.max(y)`
    Max,
    /// `y.atan2(x)`: the angle of the point (x, y)
    Atan2,
    /// `x.asin()`
    Asin,
    /// `x.acos()`
    Acos,
    /// `x.atan()`
    Atan,
    /// `x.sinh()`
    Sinh,
    /// `x.cosh()`
    Cosh,
    /// `x.hypot(y)`
    Hypot,
    /// `x.cbrt()`
    Cbrt,
    /// `x.exp2()`
    Exp2,
    /// `x.log2()`
    Log2,
    /// `x.log10()`
    Log10,
    /// `x.signum()`
    Signum,
    /// `x.mul_add(a, b)`: `x * a + b` with one rounding
    MulAdd,
    /// `x.clamp(lo, hi)`: `x.max(lo).min(hi)` (never panics)
    Clamp,
}

impl MathFn {
    /// Every method, for lookups and suggestions.
    pub const ALL: [MathFn; 28] = [
        MathFn::Sqrt,
        MathFn::Exp,
        MathFn::Ln,
        MathFn::Sin,
        MathFn::Cos,
        MathFn::Tan,
        MathFn::Tanh,
        MathFn::Abs,
        MathFn::Floor,
        MathFn::Ceil,
        MathFn::Powi,
        MathFn::Powf,
        MathFn::Min,
        MathFn::Max,
        MathFn::Atan2,
        MathFn::Asin,
        MathFn::Acos,
        MathFn::Atan,
        MathFn::Sinh,
        MathFn::Cosh,
        MathFn::Hypot,
        MathFn::Cbrt,
        MathFn::Exp2,
        MathFn::Log2,
        MathFn::Log10,
        MathFn::Signum,
        MathFn::MulAdd,
        MathFn::Clamp,
    ];

    /// The method's name.
    pub fn name(self) -> &'static str {
        match self {
            MathFn::Sqrt => "sqrt",
            MathFn::Exp => "exp",
            MathFn::Ln => "ln",
            MathFn::Sin => "sin",
            MathFn::Cos => "cos",
            MathFn::Tan => "tan",
            MathFn::Tanh => "tanh",
            MathFn::Abs => "abs",
            MathFn::Floor => "floor",
            MathFn::Ceil => "ceil",
            MathFn::Powi => "powi",
            MathFn::Powf => "powf",
            MathFn::Min => "min",
            MathFn::Max => "max",
            MathFn::Atan2 => "atan2",
            MathFn::Asin => "asin",
            MathFn::Acos => "acos",
            MathFn::Atan => "atan",
            MathFn::Sinh => "sinh",
            MathFn::Cosh => "cosh",
            MathFn::Hypot => "hypot",
            MathFn::Cbrt => "cbrt",
            MathFn::Exp2 => "exp2",
            MathFn::Log2 => "log2",
            MathFn::Log10 => "log10",
            MathFn::Signum => "signum",
            MathFn::MulAdd => "mul_add",
            MathFn::Clamp => "clamp",
        }
    }

    /// How many arguments besides the receiver.
    pub fn arity(self) -> usize {
        match self {
            MathFn::Powi
            | MathFn::Powf
            | MathFn::Min
            | MathFn::Max
            | MathFn::Atan2
            | MathFn::Hypot => 1,
            MathFn::MulAdd | MathFn::Clamp => 2,
            _ => 0,
        }
    }

    /// The method called `name`, if any.
    pub fn from_name(name: &str) -> Option<MathFn> {
        MathFn::ALL.into_iter().find(|m| m.name() == name)
    }

    /// Apply to f64 values (the reference semantics): the receiver `x`, then the arguments
    /// (`powi`'s exponent arrives as f64; missing arguments are 0).
    pub fn eval(self, x: f64, args: &[f64]) -> f64 {
        apply_math!(self, x, args, f64)
    }

    /// Apply to f32 values, in f32 arithmetic (the reference semantics of an f32 kernel).
    pub fn eval_f32(self, x: f32, args: &[f32]) -> f32 {
        apply_math!(self, x, args, f32)
    }
}

/// The body of [`MathFn::eval`] at one float type: Rust's own method of that type for each
/// math method (one text for both widths, so that they cannot drift apart).
macro_rules! apply_math {
    ($f:expr, $x:expr, $args:expr, $t:ty) => {{
        let x: $t = $x;
        let y: $t = $args.first().copied().unwrap_or(0.0);
        let z: $t = $args.get(1).copied().unwrap_or(0.0);
        match $f {
            MathFn::Sqrt => x.sqrt(),
            MathFn::Exp => x.exp(),
            MathFn::Ln => x.ln(),
            MathFn::Sin => x.sin(),
            MathFn::Cos => x.cos(),
            MathFn::Tan => x.tan(),
            MathFn::Tanh => x.tanh(),
            MathFn::Abs => x.abs(),
            MathFn::Floor => x.floor(),
            MathFn::Ceil => x.ceil(),
            MathFn::Powi => x.powi(y as i32),
            MathFn::Powf => x.powf(y),
            MathFn::Min => x.min(y),
            MathFn::Max => x.max(y),
            MathFn::Atan2 => x.atan2(y),
            MathFn::Asin => x.asin(),
            MathFn::Acos => x.acos(),
            MathFn::Atan => x.atan(),
            MathFn::Sinh => x.sinh(),
            MathFn::Cosh => x.cosh(),
            MathFn::Hypot => x.hypot(y),
            MathFn::Cbrt => x.cbrt(),
            MathFn::Exp2 => x.exp2(),
            MathFn::Log2 => x.log2(),
            MathFn::Log10 => x.log10(),
            MathFn::Signum => x.signum(),
            MathFn::MulAdd => x.mul_add(y, z),
            MathFn::Clamp => x.max(y).min(z),
        }
    }};
}
use apply_math;

/// A Rust identifier for `s` (a name as written, perhaps raw: `r#type`). Never panics: a
/// string that is no identifier (only reachable after an error) becomes `__fsmooth_invalid`.
pub fn ident(s: &str, span: Span) -> proc_macro2::Ident {
    let valid = |t: &str| {
        let mut cs = t.chars();
        cs.next().is_some_and(|c| c == '_' || c.is_alphabetic())
            && cs.all(|c| c == '_' || c.is_alphanumeric())
            && t != "_"
    };
    match s.strip_prefix("r#") {
        Some(raw) if valid(raw) && !matches!(raw, "self" | "Self" | "super" | "crate") => {
            proc_macro2::Ident::new_raw(raw, span)
        }
        None if valid(s) => proc_macro2::Ident::new(s, span),
        _ => proc_macro2::Ident::new("__fsmooth_invalid", span),
    }
}
