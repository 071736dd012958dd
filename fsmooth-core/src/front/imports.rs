//! `imports`: a block's `use` items, linked to the source of the blocks they name.
//!
//! A proc macro sees only its own tokens, so a block that declares `pub mod geometry;` also
//! emits a hidden `macro_rules!` holding its source ([`crate::emit::export`]). A block that
//! imports from `crate::geometry` expands, at first, to a call of that macro, passing its own
//! tokens along; the macro calls `fsmooth!` again with the exporting block's source put in
//! front as a *section*. When every import of every block (the imported ones too) has its
//! section, the block is compiled with the imported functions in scope. Each kernel is
//! compiled once, where it is written: an importing block inlines the functions it calls and
//! emits nothing for the exporting block.
//!
//! A section, as the exporting macro writes it (never by hand):
//! `@fsmooth_import { "requester" [path] ($crate) "provider" failed { source } }`:
//! the block that asked (`""` for the block being compiled, else an exporting block's id),
//! the module path it wrote, the exporting crate, the exporting block's id, whether it had
//! errors, and its tokens.

use crate::front::ast::{Import, Program};
use crate::front::diag::Diags;
use crate::front::parse;
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};

/// The marker that starts a section.
const MARKER: &str = "fsmooth_import";

/// The name under which every exporting block's macro is reachable in its module.
pub const BLOCK_MACRO: &str = "__fsmooth_pub_mod";

/// The source of an exporting block, handed over by its macro.
pub struct Section {
    /// The id of the block whose import asked for it (`""`: the block being compiled).
    requester: String,
    /// The module path that block wrote, as text.
    path: String,
    /// The exporting crate (`$crate`): replaces a leading `crate` in the block's own imports.
    krate: TokenTree,
    /// The exporting block's id ([`block_id`]).
    provider: String,
    /// Whether the exporting block had errors (reported where it is written).
    failed: bool,
    /// The exporting block's tokens.
    source: TokenStream,
}

/// Split a macro input into the sections in front and the block's own tokens. Malformed
/// sections (only a hand-written `@fsmooth_import` makes one) are reported.
pub fn split(tokens: TokenStream, diags: &mut Diags) -> (Vec<Section>, TokenStream) {
    let mut sections = Vec::new();
    let mut it = tokens.into_iter().peekable();
    loop {
        let marked = matches!(it.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '@');
        if !marked {
            break;
        }
        let at = it.next();
        match (it.next(), it.next()) {
            (Some(TokenTree::Ident(m)), Some(TokenTree::Group(g)))
                if m == MARKER && g.delimiter() == Delimiter::Brace =>
            {
                match section(g.stream()) {
                    Some(s) => sections.push(s),
                    None => diags.error(g.span(), "malformed `@fsmooth_import` section"),
                }
            }
            _ => {
                let span = at.map_or(Span::call_site(), |t| t.span());
                diags.error(span, "expected a function: `@` starts no fsmooth item");
                return (sections, TokenStream::new());
            }
        }
    }
    (sections, it.collect())
}

/// One section's contents.
fn section(tokens: TokenStream) -> Option<Section> {
    let mut it = tokens.into_iter();
    let requester = string(it.next()?)?;
    let path = match it.next()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => g.stream().to_string(),
        _ => return None,
    };
    let krate = match it.next()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
            g.stream().into_iter().next()?
        }
        _ => return None,
    };
    let provider = string(it.next()?)?;
    let failed = match it.next()? {
        TokenTree::Ident(b) if b == "true" => true,
        TokenTree::Ident(b) if b == "false" => false,
        _ => return None,
    };
    let source = match it.next()? {
        TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => g.stream(),
        _ => return None,
    };
    Some(Section {
        requester,
        path,
        krate,
        provider,
        failed,
        source,
    })
}

/// The text of a string literal token (as `macro_rules!` passes a `$x:literal` on: in an
/// invisible group).
fn string(t: TokenTree) -> Option<String> {
    let l = match t {
        TokenTree::Literal(l) => l,
        TokenTree::Group(g) if g.delimiter() == Delimiter::None => {
            let mut inner = g.stream().into_iter();
            match (inner.next(), inner.next()) {
                (Some(TokenTree::Literal(l)), None) => l,
                _ => return None,
            }
        }
        _ => return None,
    };
    let s = l.to_string();
    s.strip_prefix('"')?.strip_suffix('"').map(str::to_string)
}

/// A block in a compile: the one being compiled (index 0) or one it imports from.
pub struct Block {
    /// The exporting block's id (`""` for the block being compiled).
    pub id: String,
    /// Its parsed source.
    pub program: Program,
    /// Whether it had errors where it is written: calls into it fail quietly.
    pub failed: bool,
    /// For each of `program.imports`, the block it names (`None`: not linked, for an import
    /// that cannot be, reported where the importing block is written).
    pub links: Vec<Option<usize>>,
}

/// What linking a block's imports gives.
pub enum Linked {
    /// Every import has its block.
    Blocks(Vec<Block>),
    /// An import's source is missing.
    Missing(Missing),
}

/// An import whose block's source is missing.
pub struct Missing {
    /// The id of the block that imports ([`Section`]'s requester).
    pub requester: String,
    /// The module path as that block wrote it.
    pub written: TokenStream,
    /// The path to reach the module's macro by, from the block being compiled.
    pub path: TokenStream,
}

impl Missing {
    /// The call of the missing block's macro that brings its source: it puts the block's
    /// section in front of `input` (the whole macro input) and calls `fsmooth!` again.
    pub fn fetch(&self, input: &TokenStream) -> TokenStream {
        let span = self
            .written
            .clone()
            .into_iter()
            .last()
            .map_or(Span::call_site(), |t| t.span());
        let mac = Ident::new(BLOCK_MACRO, span);
        let requester = Literal::string(&self.requester);
        let (path, written) = (&self.path, &self.written);
        let mut bang = Punct::new('!', Spacing::Alone);
        bang.set_span(span);
        let body = Group::new(Delimiter::Brace, quote!(#requester [#written] #input));
        quote!(#path :: #mac #bang #body)
    }
}

/// Link the imports of `root` (the block being compiled) to the sections, transitively;
/// or name the first import without one.
pub fn link(root: Program, sections: &[Section]) -> Linked {
    let mut blocks = vec![Block {
        id: String::new(),
        links: vec![None; root.imports.len()],
        program: root,
        failed: false,
    }];
    let mut b = 0;
    while b < blocks.len() {
        if blocks[b].failed {
            b += 1;
            continue;
        }
        for k in 0..blocks[b].program.imports.len() {
            let import = &blocks[b].program.imports[k];
            let Some(path) = absolute_path(import, &blocks[b], sections) else {
                continue;
            };
            let text = import.path.to_string();
            let Some(s) = sections
                .iter()
                .find(|s| s.requester == blocks[b].id && s.path == text)
            else {
                return Linked::Missing(Missing {
                    requester: blocks[b].id.clone(),
                    written: import.path.clone(),
                    path,
                });
            };
            let to = match blocks.iter().position(|x| x.id == s.provider) {
                Some(to) => to,
                None => {
                    // An imported block's parse errors were reported where it is written.
                    let program = parse::parse(s.source.clone(), &mut Diags::default());
                    let failed = s.failed || program.is_none();
                    let program = program.unwrap_or_else(|| Program {
                        fns: Vec::new(),
                        options: Default::default(),
                        module: None,
                        imports: Vec::new(),
                    });
                    blocks.push(Block {
                        id: s.provider.clone(),
                        links: vec![None; program.imports.len()],
                        program,
                        failed,
                    });
                    blocks.len() - 1
                }
            };
            blocks[b].links[k] = Some(to);
        }
        b += 1;
    }
    Linked::Blocks(blocks)
}

/// The path to name `import`'s block by, from where the block being compiled is: as written
/// in that block; in an imported block, with a leading `crate` meaning its own crate. `None`
/// for a relative path in an imported block (an error where that block is written).
fn absolute_path(import: &Import, block: &Block, sections: &[Section]) -> Option<TokenStream> {
    if block.id.is_empty() {
        return Some(import.path.clone());
    }
    let mut it = import.path.clone().into_iter();
    let first = it.next()?;
    match &first {
        TokenTree::Ident(i) if i == "self" || i == "super" => None,
        TokenTree::Ident(i) if i == "crate" => {
            let krate = &sections.iter().find(|s| s.provider == block.id)?.krate;
            let mut path = TokenStream::new();
            krate.to_tokens(&mut path);
            path.extend(it);
            Some(path)
        }
        _ => Some(import.path.clone()),
    }
}

/// Link `root`'s imports to blocks whose sources are at hand, by module path as written
/// (`crate::geometry`): for tools and tests, which see several blocks' sources without
/// rustc's macro expansion (the explain tool, the differential runs). `Err` names an
/// import whose module is not among `modules`.
pub fn link_sources(root: Program, modules: &[(&str, TokenStream)]) -> Result<Vec<Block>, String> {
    let mut sections: Vec<Section> = Vec::new();
    loop {
        match link(root.clone(), &sections) {
            Linked::Blocks(blocks) => return Ok(blocks),
            Linked::Missing(m) => {
                let text = m.written.to_string().replace(' ', "");
                let Some((_, source)) = modules.iter().find(|(p, _)| p.replace(' ', "") == text)
                else {
                    return Err(format!("no block is module `{text}`"));
                };
                sections.push(Section {
                    requester: m.requester,
                    path: m.written.to_string(),
                    krate: Ident::new("crate", Span::call_site()).into(),
                    provider: text,
                    failed: false,
                    source: source.clone(),
                });
            }
        }
    }
}

/// The section an exporting block's macro puts in front, with `$crate` and the requester
/// filled in by `macro_rules!` (this is the macro's transcription, as tokens).
pub fn section_template(id: &str, failed: bool, source: &TokenStream) -> TokenStream {
    let marker = Ident::new(MARKER, Span::call_site());
    let id = Literal::string(id);
    let failed = Ident::new(if failed { "true" } else { "false" }, Span::call_site());
    quote!(@ #marker { $requester [$($path)*] ($crate) #id #failed { #source } })
}

/// An exporting block's id: its module's name and a hash of its tokens and of where they
/// are, so that two blocks' macros never share a name in their crate's root (two modules
/// may hold blocks of the same source: the same helpers, say).
pub fn block_id(module: &str, tokens: &TokenStream) -> String {
    let place = tokens.clone().into_iter().next().map(|t| {
        let span = t.span();
        let start = span.start();
        format!("{}:{}:{}", span.file(), start.line, start.column)
    });
    // FNV-1a: stable across builds, so expansions are reproducible.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let text = tokens.to_string();
    for b in text.bytes().chain(place.unwrap_or_default().bytes()) {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{module}_{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(src: &str) -> Program {
        parse::parse(src.parse().unwrap(), &mut Diags::default()).unwrap()
    }

    #[test]
    fn a_missing_section_is_fetched_from_the_named_module() {
        let input: TokenStream = "use crate::geo::{f}; pub fn k(x: f64) -> f64 { f(x) }"
            .parse()
            .unwrap();
        let root = program(&input.to_string());
        let Linked::Missing(m) = link(root, &[]) else {
            panic!("linked without a section")
        };
        let call = m.fetch(&input).to_string();
        assert!(
            call.starts_with("crate :: geo :: __fsmooth_pub_mod ! { \"\" [crate :: geo] use crate"),
            "{call}"
        );
    }

    #[test]
    fn sections_link_transitively_and_diamonds_share_a_block() {
        // The block imports `a` and `b`; `b` imports `a` through its own crate.
        let sec = |req: &str, path: &str, id: &str, src: &str| {
            format!("@fsmooth_import {{ \"{req}\" [{path}] (krate) \"{id}\" false {{ {src} }} }}")
        };
        let a = "pub mod a; fn f(x: f64) -> f64 { x }";
        let b = "pub mod b; use crate::a::f; fn g(x: f64) -> f64 { f(x) }";
        let root = "use crate::a::f; use crate::b::g; pub fn k(x: f64) -> f64 { f(g(x)) }";
        let mut diags = Diags::default();
        let input: TokenStream = format!(
            "{} {} {root}",
            sec("", "crate :: a", "a_1", a),
            sec("", "crate :: b", "b_2", b)
        )
        .parse()
        .unwrap();
        let (sections, own) = split(input.clone(), &mut diags);
        assert!(diags.is_empty());
        let Linked::Missing(m) = link(program(&own.to_string()), &sections) else {
            panic!("b's import of a has no section yet")
        };
        let call = m.fetch(&input);
        // `crate` in b's import means b's crate: the macro's `$crate` (here `krate`).
        assert!(
            call.to_string()
                .starts_with("krate :: a :: __fsmooth_pub_mod ! { \"b_2\" [crate :: a]"),
            "{call}"
        );
        let input: TokenStream = format!("{} {input}", sec("b_2", "crate :: a", "a_1", a))
            .parse()
            .unwrap();
        let (sections, own) = split(input, &mut diags);
        let Linked::Blocks(blocks) = link(program(&own.to_string()), &sections) else {
            panic!("not linked")
        };
        let ids: Vec<&str> = blocks.iter().map(|b| b.id.as_str()).collect();
        assert_eq!(ids, ["", "a_1", "b_2"]);
        assert_eq!(blocks[0].links, [Some(1), Some(2)]);
        assert_eq!(blocks[2].links, [Some(1)]);
    }

    #[test]
    fn ids_differ_by_source_and_by_place() {
        let a = block_id("m", &"fn f() -> f64 { 1.0 }".parse().unwrap());
        let b = block_id("m", &"fn f() -> f64 { 2.0 }".parse().unwrap());
        assert!(a.starts_with("m_") && a != b);
        // The same source twice, on two lines.
        let two: Vec<TokenTree> = "fn\nfn"
            .parse::<TokenStream>()
            .unwrap()
            .into_iter()
            .collect();
        let at = |t: &TokenTree| block_id("m", &TokenStream::from(t.clone()));
        assert_ne!(at(&two[0]), at(&two[1]));
    }
}
