//! The core IR: one typed, shape-annotated expression per kernel, with every helper and
//! closure inlined (the paper's F̃ after specialisation). Later passes rewrite it.

use crate::front::ast::Sp;
use crate::front::ast::{BinOp, CastTy, MathFn};
use crate::front::size::Size;
use std::collections::HashMap;
use std::fmt;

/// A variable of the core IR; unique within a kernel.
pub type VarId = u32;

/// A scalar type: what a scalar value is, and what an array holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    /// `f64`
    F64,
    /// `f32` (LANGUAGE.md section 11)
    F32,
    /// `usize`: an index or a size (section 10: arrays of them too)
    Usize,
    /// `bool` (scalars only)
    Bool,
}

impl Scalar {
    /// The type as written in fsmooth and Rust.
    pub fn name(self) -> &'static str {
        match self {
            Scalar::F64 => "f64",
            Scalar::F32 => "f32",
            Scalar::Usize => "usize",
            Scalar::Bool => "bool",
        }
    }

    /// True for the float types.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F64 | Scalar::F32)
    }

    /// The scalar's type.
    pub fn ty(self) -> Type {
        match self {
            Scalar::F64 => Type::F64,
            Scalar::F32 => Type::F32,
            Scalar::Usize => Type::Usize,
            Scalar::Bool => Type::Bool,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A core type: scalars, or an array of a scalar type with its shape (outermost dimension
/// first).
#[derive(Clone, Debug, PartialEq)]
pub enum Type {
    /// `f64`
    F64,
    /// `f32`
    F32,
    /// `usize`
    Usize,
    /// `bool`
    Bool,
    /// An array of these dimensions whose elements are of the scalar type.
    Arr(Scalar, Vec<Size>),
    /// A tuple of two or more components (LANGUAGE.md section 8); never stored as such.
    Tuple(Vec<Type>),
}

impl Type {
    /// Same type, with shapes compared as polynomials.
    pub fn same(&self, o: &Type) -> bool {
        match (self, o) {
            (Type::Arr(s, a), Type::Arr(t, b)) => {
                s == t && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            _ => self == o,
        }
    }

    /// The scalar type of a scalar, or of an array's elements (`None` for tuples).
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Type::F64 => Some(Scalar::F64),
            Type::F32 => Some(Scalar::F32),
            Type::Usize => Some(Scalar::Usize),
            Type::Bool => Some(Scalar::Bool),
            Type::Arr(s, _) => Some(*s),
            Type::Tuple(_) => None,
        }
    }

    /// True for `f64` and `f32` scalars.
    pub fn is_float(&self) -> bool {
        matches!(self, Type::F64 | Type::F32)
    }

    /// The dimensions of an array type (none for scalars).
    pub fn dims(&self) -> &[Size] {
        match self {
            Type::Arr(_, d) => d,
            _ => &[],
        }
    }

    /// True for arrays.
    pub fn is_arr(&self) -> bool {
        matches!(self, Type::Arr(..))
    }

    /// True for tuples.
    pub fn is_tuple(&self) -> bool {
        matches!(self, Type::Tuple(_))
    }

    /// The components of a tuple (none for other types).
    pub fn parts(&self) -> &[Type] {
        match self {
            Type::Tuple(ts) => ts,
            _ => &[],
        }
    }

    /// The array of `n` values of this type (a scan's result): a row added in front of an
    /// array, each component's array for a tuple.
    pub fn rows_of(&self, n: &Size) -> Type {
        match self {
            Type::Arr(s, d) => {
                let mut d = d.clone();
                d.insert(0, n.clone());
                Type::Arr(*s, d)
            }
            Type::Tuple(ts) => Type::Tuple(ts.iter().map(|t| t.rows_of(n)).collect()),
            t => Type::Arr(t.scalar().unwrap_or(Scalar::F64), vec![n.clone()]),
        }
    }

    /// The array of `n` elements of type `elem` (a scalar other than `bool`, or an array);
    /// `None` for other element types.
    pub fn array_of(elem: &Type, n: Size) -> Option<Type> {
        match elem {
            Type::F64 | Type::F32 | Type::Usize => Some(Type::Arr(elem.scalar()?, vec![n])),
            Type::Arr(s, d) => {
                let mut d = d.clone();
                d.insert(0, n);
                Some(Type::Arr(*s, d))
            }
            _ => None,
        }
    }

    /// The type of one element: a row of a matrix, the scalar of a vector.
    pub fn elem(&self) -> Type {
        match self {
            Type::Arr(s, d) if d.len() > 1 => Type::Arr(*s, d[1..].to_vec()),
            Type::Arr(s, _) => s.ty(),
            _ => Type::F64,
        }
    }

    /// Every size name in the type's dimensions (a tuple's components' too).
    pub fn size_names(&self, out: &mut Vec<String>) {
        match self {
            Type::Arr(_, d) => d.iter().for_each(|s| s.names(out)),
            Type::Tuple(ts) => ts.iter().for_each(|t| t.size_names(out)),
            _ => {}
        }
    }

    /// The number of elements, as a size expression (1 for a scalar).
    pub fn slots(&self) -> Size {
        match self {
            Type::Arr(_, d) => Size::product(d),
            _ => Size::Lit(1),
        }
    }
}

impl fmt::Display for Type {
    /// The type as the user writes it: `[[f64; 3]; n]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::F64 => write!(f, "f64"),
            Type::F32 => write!(f, "f32"),
            Type::Usize => write!(f, "usize"),
            Type::Bool => write!(f, "bool"),
            Type::Arr(e, d) => {
                let mut s = e.name().to_string();
                for n in d.iter().rev() {
                    s = format!("[{s}; {n}]");
                }
                write!(f, "{s}")
            }
            Type::Tuple(ts) => {
                let parts: Vec<String> = ts.iter().map(|t| t.to_string()).collect();
                write!(f, "({})", parts.join(", "))
            }
        }
    }
}

/// A core expression with its type, its symbolic value (for `usize` expressions that are
/// polynomials over sizes and loop indexes) and the source span it came from.
#[derive(Clone, Debug)]
pub struct Core {
    /// The node.
    pub kind: Kind,
    /// Its type.
    pub ty: Type,
    /// For `usize` expressions, the value as a size expression when it has one.
    pub sym: Option<Size>,
    /// The user's tokens it came from.
    pub span: Sp,
}

/// Core expression forms.
#[derive(Clone, Debug)]
pub enum Kind {
    /// A float constant: `f64` or `f32` as the node's type says (an `f32` one holds a value
    /// that `f32` represents exactly).
    Float(f64),
    /// A bool constant.
    Bool(bool),
    /// A `usize` known before the loops run: a literal or an expression over size names.
    Size(Size),
    /// A variable.
    Var(VarId),
    /// `let x = a in b`
    Let(VarId, Box<Core>, Box<Core>),
    /// `if c then a else b`
    If(Box<Core>, Box<Core>, Box<Core>),
    /// A binary operation; for `usize` arithmetic, the text of the user's expression for
    /// run-time error messages.
    Bin(BinOp, Box<Core>, Box<Core>, String),
    /// `-a` (f64)
    Neg(Box<Core>),
    /// `!a`
    Not(Box<Core>),
    /// `a as T`
    Cast(CastTy, Box<Core>),
    /// A math method: the receiver, then its argument.
    Math(MathFn, Vec<Core>),
    /// `a[i]`: an element (f64) or a row (array).
    Index(Box<Core>, Box<Core>),
    /// `a[lo .. lo + len]`, the length being the first dimension of the node's type.
    Slice(Box<Core>, Box<Core>),
    /// `build(n, |i| body)`
    Build(Size, VarId, Box<Core>),
    /// `ifold(n, init, |acc, i| body)`
    Ifold(Box<Core>, Box<Core>, VarId, VarId, Box<Core>),
    /// `[e0, e1, ..]`
    Array(Vec<Core>),
    /// `(e0, e1, ..)`: a tuple, never stored as such (each component has its own place).
    Tuple(Vec<Core>),
    /// `t.k`: component k of a tuple.
    Proj(Box<Core>, usize),
    /// `scan(n, init, |acc, i| body)`: the array of the n states of the `ifold` (a tuple of
    /// arrays for a tuple state).
    Scan(Size, Box<Core>, VarId, VarId, Box<Core>),
    /// `iterate(init, |s| cond, |t| next)` (LANGUAGE.md section 14): the state's variable in
    /// the condition, then in the step (two binders, each bound once).
    Iterate(Box<Core>, VarId, Box<Core>, VarId, Box<Core>),
    /// `k` when `k < len`, else `Error::Index { index: k, len }`: a scatter's index
    /// (LANGUAGE.md section 15), checked where the step computes it.
    CheckIndex(Box<Core>, Size),
    /// `concat(a, b)`: a's rows, then b's (a view both ways, LANGUAGE.md section 9).
    Concat(Box<Core>, Box<Core>),
    /// The same elements, row-major, seen with the node's dimensions (`join`, `split`).
    Reshape(Box<Core>),
}

impl Core {
    /// A node of type `ty` with no symbolic value.
    pub fn new(kind: Kind, ty: Type, span: Sp) -> Core {
        Core {
            kind,
            ty,
            sym: None,
            span,
        }
    }

    /// A loop index (or another `usize` variable) read, with its symbolic value.
    pub fn index_var(v: VarId, span: Sp) -> Core {
        let mut c = Core::new(Kind::Var(v), Type::Usize, span);
        c.sym = Some(Size::Loop(v));
        c
    }

    /// Element `j` of the array variable `v` of type `ty` (`v[j]`, `j` a loop index).
    pub fn read_at(v: VarId, ty: &Type, j: VarId, span: Sp) -> Core {
        let array = Core::new(Kind::Var(v), ty.clone(), span);
        let index = Core::index_var(j, span);
        Core::new(
            Kind::Index(Box::new(array), Box::new(index)),
            ty.elem(),
            span,
        )
    }

    /// Whether `self` is a loop of its own (`build`, `ifold`, `scan`, `iterate`).
    pub fn is_loop(&self) -> bool {
        matches!(
            self.kind,
            Kind::Build(..) | Kind::Ifold(..) | Kind::Scan(..) | Kind::Iterate(..)
        )
    }

    /// Whether `self` runs a loop: is one or holds one.
    pub fn runs_loop(&self) -> bool {
        self.is_loop() || self.children().any(Core::runs_loop)
    }

    /// A static size as a value.
    pub fn size(s: Size, span: Sp) -> Core {
        Core {
            kind: Kind::Size(s.clone()),
            ty: Type::Usize,
            sym: Some(s),
            span,
        }
    }

    /// `usize` arithmetic `a op b` (`text` names it in run-time errors), with its symbolic
    /// value when both operands have one.
    pub fn usize_bin(op: BinOp, a: Core, b: Core, text: &str, span: Sp) -> Core {
        let sym = usize_sym(op, a.sym.as_ref(), b.sym.as_ref());
        let mut c = Core::new(
            Kind::Bin(op, Box::new(a), Box::new(b), text.to_string()),
            Type::Usize,
            span,
        );
        c.sym = sym;
        c
    }

    /// The end of this chain of `let`s: the node itself when it is no `let`.
    pub fn tail_mut(&mut self) -> &mut Core {
        match self.kind {
            Kind::Let(_, _, ref mut body) => body.tail_mut(),
            _ => self,
        }
    }

    /// The end of this chain of `let`s, read-only ([`Core::tail_mut`]).
    pub fn tail_ref(&self) -> &Core {
        match &self.kind {
            Kind::Let(_, _, body) => body.tail_ref(),
            _ => self,
        }
    }

    /// The node, leaving a placeholder in its place: for moving a subtree out of its parent
    /// without copying it.
    pub fn take(&mut self) -> Core {
        let span = self.span;
        std::mem::replace(self, Core::new(Kind::Bool(false), Type::Bool, span))
    }

    /// The direct children, in evaluation order.
    pub fn children(&self) -> Children<'_> {
        let (fixed, rest): ([Option<&Core>; 3], &[Core]) = match &self.kind {
            Kind::Float(_) | Kind::Bool(_) | Kind::Size(_) | Kind::Var(_) => {
                ([None, None, None], &[])
            }
            Kind::Let(_, a, b)
            | Kind::Bin(_, a, b, _)
            | Kind::Index(a, b)
            | Kind::Slice(a, b)
            | Kind::Scan(_, a, _, _, b)
            | Kind::Concat(a, b) => ([Some(a), Some(b), None], &[]),
            Kind::If(c, a, b) | Kind::Ifold(c, a, _, _, b) | Kind::Iterate(c, _, a, _, b) => {
                ([Some(c), Some(a), Some(b)], &[])
            }
            Kind::Neg(a)
            | Kind::Not(a)
            | Kind::Cast(_, a)
            | Kind::Build(_, _, a)
            | Kind::Proj(a, _)
            | Kind::CheckIndex(a, _)
            | Kind::Reshape(a) => ([Some(a), None, None], &[]),
            Kind::Math(_, xs) | Kind::Array(xs) | Kind::Tuple(xs) => ([None, None, None], xs),
        };
        Children {
            fixed,
            next: 0,
            rest: rest.iter(),
        }
    }

    /// The direct children, mutably.
    pub fn children_mut(&mut self) -> ChildrenMut<'_> {
        let (fixed, rest): ([Option<&mut Core>; 3], &mut [Core]) = match &mut self.kind {
            Kind::Float(_) | Kind::Bool(_) | Kind::Size(_) | Kind::Var(_) => {
                ([None, None, None], &mut [])
            }
            Kind::Let(_, a, b)
            | Kind::Bin(_, a, b, _)
            | Kind::Index(a, b)
            | Kind::Slice(a, b)
            | Kind::Scan(_, a, _, _, b)
            | Kind::Concat(a, b) => ([Some(a), Some(b), None], &mut []),
            Kind::If(c, a, b) | Kind::Ifold(c, a, _, _, b) | Kind::Iterate(c, _, a, _, b) => {
                ([Some(c), Some(a), Some(b)], &mut [])
            }
            Kind::Neg(a)
            | Kind::Not(a)
            | Kind::Cast(_, a)
            | Kind::Build(_, _, a)
            | Kind::Proj(a, _)
            | Kind::CheckIndex(a, _)
            | Kind::Reshape(a) => ([Some(a), None, None], &mut []),
            Kind::Math(_, xs) | Kind::Array(xs) | Kind::Tuple(xs) => ([None, None, None], xs),
        };
        ChildrenMut {
            fixed,
            next: 0,
            rest: rest.iter_mut(),
        }
    }

    /// How many times variable `v` occurs.
    pub fn count_uses(&self, v: VarId) -> usize {
        let own = usize::from(matches!(self.kind, Kind::Var(x) if x == v));
        own + self.children().map(|c| c.count_uses(v)).sum::<usize>()
    }

    /// True when `v` occurs free.
    pub fn mentions(&self, v: VarId) -> bool {
        matches!(self.kind, Kind::Var(x) if x == v)
            || self.sym.as_ref().is_some_and(|s| s.mentions_loop(v))
            || self.children().any(|c| c.mentions(v))
    }

    /// Add every variable that occurs in `self`, free or bound (variables are bound once, so
    /// this is what it reads and no fewer), to `out`.
    pub fn occurring(&self, out: &mut std::collections::HashSet<VarId>) {
        if let Kind::Var(x) = self.kind {
            out.insert(x);
        }
        if let Some(s) = &self.sym {
            let mut loops = Vec::new();
            s.loops(&mut loops);
            out.extend(loops);
        }
        for c in self.children() {
            c.occurring(out);
        }
    }

    /// Replace every occurrence of variable `v` by `e`.
    pub fn subst(&mut self, v: VarId, e: &Core) {
        if matches!(self.kind, Kind::Var(x) if x == v) {
            let span = self.span;
            *self = e.clone();
            self.span = span;
            return;
        }
        if let Some(s) = &self.sym
            && s.mentions_loop(v)
        {
            self.sym = e.sym.as_ref().map(|es| subst_loop(s, v, es));
        }
        for c in self.children_mut() {
            c.subst(v, e);
        }
    }
}

/// The children of a node ([`Core::children`]): its boxed operands, then its list (written
/// out rather than chained adapters, which cost a great deal in the unoptimised builds
/// proc macros get by default).
pub struct Children<'a> {
    fixed: [Option<&'a Core>; 3],
    next: usize,
    rest: std::slice::Iter<'a, Core>,
}

impl<'a> Iterator for Children<'a> {
    type Item = &'a Core;

    fn next(&mut self) -> Option<&'a Core> {
        while self.next < 3 {
            let child = self.fixed[self.next];
            self.next += 1;
            if child.is_some() {
                return child;
            }
        }
        self.rest.next()
    }
}

/// The children of a node, mutably ([`Core::children_mut`]).
pub struct ChildrenMut<'a> {
    fixed: [Option<&'a mut Core>; 3],
    next: usize,
    rest: std::slice::IterMut<'a, Core>,
}

impl<'a> Iterator for ChildrenMut<'a> {
    type Item = &'a mut Core;

    fn next(&mut self) -> Option<&'a mut Core> {
        while self.next < 3 {
            let child = self.fixed[self.next].take();
            self.next += 1;
            if child.is_some() {
                return child;
            }
        }
        self.rest.next()
    }
}

/// The symbolic value of `usize` arithmetic `x op y` (`+ - * / %`) over symbolic operands.
pub fn usize_sym(op: BinOp, x: Option<&Size>, y: Option<&Size>) -> Option<Size> {
    let (x, y) = (Box::new(x?.clone()), Box::new(y?.clone()));
    // `/` rounds down, and a size's polynomial knows it (a quotient is its polynomial only
    // where that is an integer everywhere); a quotient of a loop index is kept symbolic
    // only when it is exact at every point (a packed triangle's `c * (2 * d - c - 1) / 2`):
    // `(2 * j + 1) / 2` is `j`, not `j + 1/2`.
    if op == BinOp::Div
        && x.has_loop()
        && !crate::lower::divisions_exact(&Size::Div(x.clone(), y.clone()))
    {
        return None;
    }
    Some(match op {
        BinOp::Add => Size::Add(x, y),
        BinOp::Sub => Size::Sub(x, y),
        BinOp::Mul => Size::Mul(x, y),
        BinOp::Div => Size::Div(x, y),
        _ => Size::Rem(x, y),
    })
}

/// Replace loop index `v` in a size by `by`.
pub fn subst_loop(s: &Size, v: VarId, by: &Size) -> Size {
    let b = |x: &Size| Box::new(subst_loop(x, v, by));
    match s {
        Size::Loop(x) if *x == v => by.clone(),
        Size::Lit(_) | Size::Name(_) | Size::Loop(_) => s.clone(),
        Size::Add(x, y) => Size::Add(b(x), b(y)),
        Size::Sub(x, y) => Size::Sub(b(x), b(y)),
        Size::Mul(x, y) => Size::Mul(b(x), b(y)),
        Size::Div(x, y) => Size::Div(b(x), b(y)),
        Size::Rem(x, y) => Size::Rem(b(x), b(y)),
    }
}

/// How many nodes `e` has.
pub fn nodes(e: &Core) -> usize {
    1 + e.children().map(nodes).sum::<usize>()
}

/// `e` with every variable it binds renamed to a new one.
pub fn fresh(mut e: Core, names: &mut Vec<String>) -> Core {
    let mut binders = Vec::new();
    bound(&e, &mut binders);
    let mut new = HashMap::new();
    for old in binders {
        let var = new_var(names, old);
        new.entry(old).or_insert(var);
    }
    rename(&mut e, &new);
    e
}

/// Every variable bound in `e` (by `let`s and loops), in binding order.
pub fn bound(e: &Core, out: &mut Vec<VarId>) {
    match &e.kind {
        Kind::Let(x, ..) | Kind::Build(_, x, _) => out.push(*x),
        Kind::Ifold(_, _, acc, i, _)
        | Kind::Scan(_, _, acc, i, _)
        | Kind::Iterate(_, acc, _, i, _) => out.extend([*acc, *i]),
        _ => {}
    }
    for c in e.children() {
        bound(c, out);
    }
}

/// Every binding and use of a variable in `new` made one of its new variable, symbolic
/// values included.
fn rename(e: &mut Core, new: &HashMap<VarId, VarId>) {
    match &mut e.kind {
        Kind::Var(v) | Kind::Let(v, ..) | Kind::Build(_, v, _) => {
            if let Some(to) = new.get(v) {
                *v = *to;
            }
        }
        Kind::Ifold(_, _, acc, i, _)
        | Kind::Scan(_, _, acc, i, _)
        | Kind::Iterate(_, acc, _, i, _) => {
            for v in [acc, i] {
                if let Some(to) = new.get(v) {
                    *v = *to;
                }
            }
        }
        _ => {}
    }
    if let Some(s) = &e.sym {
        let mut loops = Vec::new();
        s.loops(&mut loops);
        let mut renamed: Option<Size> = None;
        for from in loops {
            if let Some(to) = new.get(&from) {
                let s = renamed.as_ref().unwrap_or(s);
                renamed = Some(subst_loop(s, from, &Size::Loop(*to)));
            }
        }
        if renamed.is_some() {
            e.sym = renamed;
        }
    }
    for c in e.children_mut() {
        rename(c, new);
    }
}

/// A new variable named as `like` is.
pub fn new_var(names: &mut Vec<String>, like: VarId) -> VarId {
    let v = names.len() as VarId;
    names.push(
        names
            .get(like as usize)
            .cloned()
            .unwrap_or_else(|| "t".into()),
    );
    v
}

/// A kernel ready for the back end.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The kernel's name.
    pub name: crate::front::ast::Name,
    /// Outer attributes (doc comments) to pass through.
    pub attrs: Vec<proc_macro2::TokenStream>,
    /// Parameters in order.
    pub params: Vec<KParam>,
    /// The result type.
    pub ret: Type,
    /// The body.
    pub body: Core,
    /// Size names in order of first appearance in the signature.
    pub sizes: Vec<String>,
    /// The size names some array's shape depends on, in the order of [`Kernel::sizes`]: the
    /// arguments of `mod k`'s functions. A `usize` parameter no shape depends on (a class
    /// label, an `ifold`'s step count) is a plain value (LANGUAGE.md section 10).
    pub shape_sizes: Vec<String>,
    /// How each size name is read at entry, in an order where every step's inputs are known.
    pub pins: Vec<Pin>,
    /// The source name of each variable, for readable generated code.
    pub var_names: Vec<String>,
    /// Sizes checked at entry not to be 0, even if no loop needs them, each with the text of
    /// its `Error::Arithmetic`: the conditions a view puts on run-time sizes (`slide(w, ..)`
    /// needs w >= 1, `"slide(w, ..) with w = 0"`), so that a bad size is an error before
    /// anything is written.
    pub entry_sizes: Vec<(Size, String)>,
    /// The name of each `let` the user wrote, by its variable (those the front end bound):
    /// where a remark about the array it binds points ([`crate::emit::remarks`]).
    pub let_spans: Vec<(VarId, proc_macro2::Span)>,
}

/// A kernel parameter.
#[derive(Clone, Debug)]
pub struct KParam {
    /// Its name.
    pub name: crate::front::ast::Name,
    /// The variable the body refers to it by.
    pub id: VarId,
    /// Its type (`Usize` parameters are size names).
    pub ty: Type,
}

/// How a size name gets its value at kernel entry.
#[derive(Clone, Debug)]
pub enum Pin {
    /// A `usize` parameter.
    Param(String),
    /// `name = (len(param) / product(others) - offset) / scale`, for a dimension that is
    /// `scale * name + offset`.
    Linear {
        /// The size name.
        name: String,
        /// The array parameter whose length fixes it.
        param: String,
        /// The other dimensions of that parameter (all known when this pin runs).
        others: Vec<Size>,
        /// The coefficient of `name`.
        scale: u64,
        /// The constant term.
        offset: i64,
    },
    /// `name = (len(param) / product(other dims of param))^(1/power)`: `power` is how many
    /// dimensions of the parameter are exactly `name` (a square matrix has 2).
    FromLen {
        /// How many dimensions are `name`.
        power: usize,
        /// The size name.
        name: String,
        /// The array parameter whose length fixes it.
        param: String,
        /// The other dimensions of that parameter (all known when this pin runs).
        others: Vec<Size>,
    },
}

/// The size names that shapes in `e` depend on: in a node's type, or counting a `build` or
/// a `scan` (an `ifold`'s count is not a shape: its result has its start's shape).
pub fn shape_names(e: &Core, out: &mut Vec<String>) {
    e.ty.size_names(out);
    if let Kind::Build(n, ..) | Kind::Scan(n, ..) = &e.kind {
        n.names(out);
    }
    for c in e.children() {
        shape_names(c, out);
    }
}
