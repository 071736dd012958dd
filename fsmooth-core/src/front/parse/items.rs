//! The block's items other than functions: the options (`#![fsmooth(..)]`), `pub mod name;`
//! (the block is that module, [`ModuleDecl`]) and `use` items (functions of other blocks,
//! [`Import`]).

use super::{Parser, name};
use crate::front::ast::*;
use crate::front::diag::Diags;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;

/// `#![fsmooth(fusion = false, unroll = false, reassociate = true, storage = "heap")]`.
pub(super) fn options(attrs: &[syn::Attribute], diags: &mut Diags) -> Options {
    let mut o = Options::default();
    for a in attrs {
        if !a.path().is_ident("fsmooth") {
            diags.error(
                Sp::of(a),
                "the only block attribute is `#![fsmooth(..)]` (`fusion = false`, `unroll = false`, `views = false`, `parallel = false`, `reassociate = true`, `remarks = true`, `storage = \"heap\"`)",
            );
            continue;
        }
        let r = a.parse_nested_meta(|meta| {
            if meta.path.is_ident("fusion") {
                let v: syn::LitBool = meta.value()?.parse()?;
                o.fusion = v.value;
                Ok(())
            } else if meta.path.is_ident("unroll") {
                let v: syn::LitBool = meta.value()?.parse()?;
                o.unroll = v.value;
                Ok(())
            } else if meta.path.is_ident("views") {
                let v: syn::LitBool = meta.value()?.parse()?;
                o.views = v.value;
                Ok(())
            } else if meta.path.is_ident("parallel") {
                let v: syn::LitBool = meta.value()?.parse()?;
                o.parallel = v.value;
                Ok(())
            } else if meta.path.is_ident("reassociate") {
                let v: syn::LitBool = meta.value()?.parse()?;
                o.reassociate = v.value;
                Ok(())
            } else if meta.path.is_ident("remarks") {
                let v: syn::LitBool = meta.value()?.parse()?;
                o.remarks = v.value;
                Ok(())
            } else if meta.path.is_ident("storage") {
                let v: syn::LitStr = meta.value()?.parse()?;
                o.storage = match v.value().as_str() {
                    "region" => crate::front::ast::Storage::Region,
                    "heap_frame" => crate::front::ast::Storage::HeapFrame,
                    "heap" => crate::front::ast::Storage::Heap,
                    _ => {
                        return Err(syn::Error::new(
                            v.span(),
                            "unknown storage: the choices are \"region\" (the default), \"heap_frame\" and \"heap\"",
                        ));
                    }
                };
                Ok(())
            } else {
                Err(meta.error(
                    "unknown fsmooth option: the options are `fusion = true|false`, `unroll = true|false`, `views = true|false`, `parallel = true|false`, `reassociate = true|false`, `remarks = true|false` and `storage = \"region\"|\"heap_frame\"|\"heap\"`",
                ))
            }
        });
        if let Err(e) = r {
            diags.push(e);
        }
    }
    o
}

impl Parser<'_> {
    /// `pub mod name;`: once per block, without a body.
    pub(super) fn module(&mut self, m: &syn::ItemMod, decl: &mut Option<ModuleDecl>) {
        if m.content.is_some() {
            self.err(
                m.span(),
                "write `pub mod name;` without a body: the block's functions are the module's items",
            );
            return;
        }
        if let Some(first) = decl {
            let msg = format!(
                "this block is already module `{}`: a block names one module",
                first.name.text
            );
            self.err(m.ident.span(), msg);
            return;
        }
        *decl = Some(ModuleDecl {
            attrs: m.attrs.iter().map(|a| a.to_token_stream()).collect(),
            vis: m.vis.to_token_stream(),
            name: name(&m.ident),
        });
    }

    /// `use path::{a, b as c, *};`: one [`Import`] per module path named.
    pub(super) fn use_item(&mut self, u: &syn::ItemUse, imports: &mut Vec<Import>) {
        if !matches!(u.vis, syn::Visibility::Inherited) {
            self.err(
                u.vis.span(),
                "imports are private to the block: remove the visibility (a block's functions are all importable from its module)",
            );
        }
        let mut prefix = TokenStream::new();
        if let Some(c) = &u.leading_colon {
            c.to_tokens(&mut prefix);
        }
        let span = Sp::of(u);
        // `use std::f64::consts::PI;`: Rust's constants, not another block's functions.
        let mut module = Vec::new();
        let mut leaf = &u.tree;
        while let syn::UseTree::Path(p) = leaf {
            module.push(p.ident.to_string());
            leaf = &p.tree;
        }
        if self.use_consts(&module, leaf) {
            return;
        }
        self.use_tree(&u.tree, prefix, 0, span, imports);
    }

    fn use_tree(
        &mut self,
        tree: &syn::UseTree,
        prefix: TokenStream,
        segments: usize,
        span: Sp,
        imports: &mut Vec<Import>,
    ) {
        let leaf = match tree {
            syn::UseTree::Path(p) => {
                let mut path = prefix;
                if segments > 0 {
                    quote::quote!(::).to_tokens(&mut path);
                }
                p.ident.to_tokens(&mut path);
                self.use_tree(&p.tree, path, segments + 1, span, imports);
                return;
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(t, prefix.clone(), segments, span, imports);
                }
                return;
            }
            syn::UseTree::Name(n) if n.ident == "self" => {
                self.err(
                    n.ident.span(),
                    "import functions by name (`use crate::geometry::{project};`): a block's module is not a value",
                );
                return;
            }
            syn::UseTree::Name(n) => Imported::Name {
                name: name(&n.ident),
                alias: name(&n.ident),
            },
            syn::UseTree::Rename(r) => Imported::Name {
                name: name(&r.ident),
                alias: name(&r.rename),
            },
            syn::UseTree::Glob(g) => Imported::Glob(g.star_token.span),
        };
        if segments == 0 {
            self.err(
                tree.span(),
                "import a function by its block's module path: `use crate::geometry::project;` (the block declares `pub mod geometry;`)",
            );
            return;
        }
        let text = prefix.to_string();
        match imports.iter_mut().find(|i| i.path.to_string() == text) {
            Some(i) => i.names.push(leaf),
            None => imports.push(Import {
                path: prefix,
                span,
                names: vec![leaf],
            }),
        }
    }
}
