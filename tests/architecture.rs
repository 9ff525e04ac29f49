//! The layer map of src/lib.rs, enforced.
//!
//! Each top-level module of src/ is a layer, and a layer imports only itself
//! and the layers [`LAYERS`] names beside it. Two modules that import each
//! other fail too: they are one design split in two files.
//!
//! The test reads source text and needs nothing of the ioz library. It parses
//! every non-test file under src/ with syn, collects every path into the crate
//! (`use crate::…` in all its forms, `super::…`, `self::…`, a child module's
//! bare name, inline paths in code and in macro arguments), resolves each to
//! the module it names, and checks the resulting module-to-module edges.
//!
//! Why syn rather than a hand-written scanner: syn is a full Rust parser, so
//! comments, doc comments, raw strings, char literals and lifetimes can never
//! pass for paths; `#[cfg(test)]` is honoured on exactly the item, statement,
//! arm or field it sits on, however many braces follow; `use` trees arrive
//! already nested; and spans give line numbers. A scanner would have to get
//! all of that right by hand, and its mistakes would be silent. syn is
//! already in Cargo.lock (serde's and thiserror's derives are built on it).
//! What no parser sees is what a macro expands to; the tokens of a macro's
//! arguments are still searched for paths (see [`token_paths`]).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, Span, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{
    Arm, Attribute, Expr, Field, FieldValue, ImplItem, Item, ItemMod, Macro, Meta, Stmt, Token,
    TraitItem, UseTree, Variant,
};

/// Each layer and the layers it may import besides itself: the map in
/// src/lib.rs. No layer lists `app`, so nothing in the library imports it
/// (src/main.rs, outside the library, does).
const LAYERS: &[(&str, &[&str])] = &[
    ("model", &[]),
    ("analysis", &["model"]),
    ("data", &["model"]),
    ("engine", &["model", "data"]),
    ("error", &["model"]),
    ("system", &["model", "error"]),
    ("safety", &["model", "data", "system", "error"]),
    (
        "runner",
        &["model", "data", "engine", "system", "safety", "error"],
    ),
    ("report", &["model", "analysis"]),
    ("history", &["model", "analysis", "report"]),
    ("cli", &["model"]),
    (
        "app",
        &[
            "model", "analysis", "data", "engine", "error", "system", "safety", "runner", "report",
            "history", "cli",
        ],
    ),
];

/// A module (and the modules inside it) allowed to import one module of a
/// layer its own layer may not, each for a reason ARCHITECTURE.md gives
/// beside the table: a system call that layer needs and that belongs with
/// the others in `system`.
const NARROW_EXCEPTIONS: &[(&str, &str)] = &[
    // A result file's mark, set on the new file before it takes its name.
    ("report::put", "system::xattr"),
    // The history's stored runs, read (and refused) as every input file is.
    ("history", "system::input_file"),
];

/// Whether `from` importing `to` is one of the [`NARROW_EXCEPTIONS`].
fn narrow_exception(from: &[String], to: &[String]) -> bool {
    let parts = |module: &str| module.split("::").map(str::to_string).collect::<Vec<_>>();
    NARROW_EXCEPTIONS
        .iter()
        .any(|(f, t)| from.starts_with(&parts(f)) && to.starts_with(&parts(t)))
}

/// A module of the crate as its parts: `["runner", "pass"]`; empty for the
/// crate root.
type ModPath = Vec<String>;

/// One library source file.
struct SourceFile {
    /// Relative to the package, for messages: `src/runner/pass.rs`.
    path: String,
    /// The module the file is.
    module: ModPath,
    text: String,
}

/// A path into the crate as written, before it is resolved.
struct RawRef {
    /// The module (file or inline `mod`) the path is written in.
    from: ModPath,
    /// `["super", "recipe", "Recipe"]`.
    segments: Vec<String>,
    file: String,
    line: usize,
}

/// What one file says about the crate's modules.
#[derive(Default)]
struct Scan {
    /// Every path outside test code that may lead into the crate.
    refs: Vec<RawRef>,
    /// The modules the file declares or holds inline, outside test code.
    modules: Vec<ModPath>,
    /// Modules declared under `#[cfg(test)]`: all their code is test code,
    /// including the files of `#[cfg(test)] mod x;`.
    test_modules: Vec<ModPath>,
    /// The names each `use` binds outside test code: (the module it is
    /// written in, the name, the path as written). A path through a
    /// module's name for an item (`crate::runner::Event`, re-exported from
    /// `runner::events`) is followed to where the item comes from.
    bindings: Vec<(ModPath, String, Vec<String>)>,
}

/// One module importing another, at one place.
struct Edge {
    from: ModPath,
    to: ModPath,
    file: String,
    line: usize,
}

impl Edge {
    /// `src/runner/pass.rs:12`.
    fn place(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// `runner::pass`; `crate` for the root.
fn show(module: &[String]) -> String {
    if module.is_empty() {
        "crate".to_string()
    } else {
        module.join("::")
    }
}

// ---------------------------------------------------------------------------
// Files → modules
// ---------------------------------------------------------------------------

/// The module a file under src/ is (`relative` is relative to src/):
/// `runner/pass.rs` → `runner::pass`, `runner/throughput/mod.rs` →
/// `runner::throughput`, `lib.rs` → the root. None for `main.rs`, the binary,
/// which is outside the library.
fn module_of(relative: &Path) -> Option<ModPath> {
    let mut parts: Vec<String> = relative
        .components()
        .map(|part| part.as_os_str().to_string_lossy().into_owned())
        .collect();
    let file = parts.pop()?;
    let stem = file.strip_suffix(".rs")?;
    match (parts.is_empty(), stem) {
        (true, "lib") => Some(Vec::new()),
        (true, "main") => None,
        (_, "mod") => Some(parts),
        _ => {
            parts.push(stem.to_string());
            Some(parts)
        }
    }
}

/// Whether a file under src/ is test code by its name: a `tests.rs`, or
/// anything in a `tests/` folder.
fn is_test_file(relative: &Path) -> bool {
    relative.file_name().is_some_and(|name| name == "tests.rs")
        || relative
            .parent()
            .is_some_and(|dir| dir.components().any(|part| part.as_os_str() == "tests"))
}

/// Every `.rs` file under `dir`, at any depth.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            out.push(path);
        }
    }
}

/// The library's non-test files under `package`/src, in path order so the
/// report is stable.
fn library_files(package: &Path) -> Vec<SourceFile> {
    let src = package.join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    paths.sort();
    paths
        .into_iter()
        .filter_map(|path| {
            let relative = path.strip_prefix(&src).expect("found under src/");
            if is_test_file(relative) {
                return None;
            }
            let module = module_of(relative)?;
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let path = format!("src/{}", relative.display());
            Some(SourceFile { path, module, text })
        })
        .collect()
}

// ---------------------------------------------------------------------------
// One file → its paths (the scanner)
// ---------------------------------------------------------------------------

/// The attributes of whichever variant `$node` is: syn's item and expression
/// enums have no accessor for them. Verbatim tokens have none.
macro_rules! attrs_of {
    ($node:expr, $enum:ident: $($variant:ident),* $(,)?) => {
        match $node {
            $($enum::$variant(inner) => &inner.attrs[..],)*
            _ => &[],
        }
    };
}

fn item_attrs(item: &Item) -> &[Attribute] {
    attrs_of!(item, Item: Const, Enum, ExternCrate, Fn, ForeignMod, Impl, Macro, Mod, Static,
        Struct, Trait, TraitAlias, Type, Union, Use)
}

fn expr_attrs(expr: &Expr) -> &[Attribute] {
    attrs_of!(expr, Expr: Array, Assign, Async, Await, Binary, Block, Break, Call, Cast, Closure,
        Const, Continue, Field, ForLoop, Group, If, Index, Infer, Let, Lit, Loop, Macro, Match,
        MethodCall, Paren, Path, Range, RawAddr, Reference, Repeat, Return, Struct, Try, TryBlock,
        Tuple, Unary, Unsafe, While, Yield)
}

/// The attributes written before an expression statement. syn hangs them on
/// the leftmost operand (`#[cfg(test)] a = b;` puts them on `a`), so this
/// follows the same path down.
fn statement_attrs(mut expr: &Expr) -> &[Attribute] {
    loop {
        expr = match expr {
            Expr::Assign(e) => &e.left,
            Expr::Binary(e) => &e.left,
            Expr::Cast(e) => &e.expr,
            _ => return expr_attrs(expr),
        };
    }
}

/// Whether the attributes make their item test code: `#[cfg(test)]`, or a
/// `cfg(all(…))` with `test` among its conditions. `any(test, …)` and
/// `not(test)` are built outside tests too, so they do not count.
fn is_test_only(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("cfg") && attr.parse_args::<Meta>().is_ok_and(|c| requires_test(&c))
    })
}

/// Whether a cfg condition holds only when building tests.
fn requires_test(condition: &Meta) -> bool {
    match condition {
        Meta::Path(path) => path.is_ident("test"),
        Meta::List(list) if list.path.is_ident("all") => list
            .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
            .is_ok_and(|all| all.iter().any(requires_test)),
        _ => false,
    }
}

/// Every path a `use` tree names, each with the span of its last part:
/// `crate::{a, b::{self, c}}` → `crate::a`, `crate::b`, `crate::b::c`. A glob
/// or `self` names the prefix itself; a rename, the original.
fn use_paths(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, Span)>) {
    let with = |prefix: &[String], name: &syn::Ident| {
        let mut path = prefix.to_vec();
        if name != "self" {
            path.push(name.to_string());
        }
        path
    };
    match tree {
        UseTree::Path(part) => {
            prefix.push(part.ident.to_string());
            use_paths(&part.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) => out.push((with(prefix, &name.ident), name.ident.span())),
        UseTree::Rename(rename) => out.push((with(prefix, &rename.ident), rename.ident.span())),
        UseTree::Glob(glob) => out.push((prefix.clone(), glob.span())),
        UseTree::Group(group) => {
            for tree in &group.items {
                use_paths(tree, prefix, out);
            }
        }
    }
}

/// The names a `use` tree binds and the paths they stand for:
/// `crate::{a::B, c::{self, D as E}}` → `B` = `crate::a::B`, `c` =
/// `crate::c`, `E` = `crate::c::D`. Globs bind no name this can know.
fn use_bindings(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<(String, Vec<String>)>) {
    match tree {
        UseTree::Path(part) => {
            prefix.push(part.ident.to_string());
            use_bindings(&part.tree, prefix, out);
            prefix.pop();
        }
        UseTree::Name(name) if name.ident == "self" => {
            if let Some(last) = prefix.last() {
                out.push((last.clone(), prefix.clone()));
            }
        }
        UseTree::Name(name) => {
            let mut path = prefix.clone();
            path.push(name.ident.to_string());
            out.push((name.ident.to_string(), path));
        }
        UseTree::Rename(rename) => {
            let mut path = prefix.clone();
            if rename.ident != "self" {
                path.push(rename.ident.to_string());
            }
            out.push((rename.rename.to_string(), path));
        }
        UseTree::Glob(_) => {}
        UseTree::Group(group) => {
            for tree in &group.items {
                use_bindings(tree, prefix, out);
            }
        }
    }
}

/// Paths written in a macro's arguments, which syn keeps as raw tokens: runs
/// of two or more identifiers joined by `::`, at any bracket depth, each with
/// the span of its first part. A literal is one token, so a string holding
/// `crate::x` never makes a path; a `{…}` after `::` (a `use` tree inside a
/// macro) is not followed.
fn token_paths(tokens: TokenStream, out: &mut Vec<(Vec<String>, Span)>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(group) => token_paths(group.stream(), out),
            // A path starts at an identifier not itself after `::` (that is a
            // `::std::…` path or `<T>::name`, never one of ours).
            TokenTree::Ident(first) if !(i >= 2 && is_separator(&tokens, i - 2)) => {
                let mut segments = vec![first.to_string()];
                while is_separator(&tokens, i + 1) {
                    let Some(TokenTree::Ident(next)) = tokens.get(i + 3) else {
                        break;
                    };
                    segments.push(next.to_string());
                    i += 3;
                }
                if segments.len() > 1 {
                    out.push((segments, first.span()));
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether `tokens[at..]` starts with `::`: two `:` punctuations, the first
/// joined to the second.
fn is_separator(tokens: &[TokenTree], at: usize) -> bool {
    matches!(
        (tokens.get(at), tokens.get(at + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

/// Walks one file's syntax tree, recording paths outside test code and the
/// modules it declares, while knowing which (inline) module it is in.
struct Scanner<'f> {
    file: &'f str,
    module: ModPath,
    scan: Scan,
}

impl Scanner<'_> {
    fn record(&mut self, segments: Vec<String>, span: Span) {
        self.scan.refs.push(RawRef {
            from: self.module.clone(),
            segments,
            file: self.file.to_string(),
            line: span.start().line,
        });
    }

    fn child(&self, name: &syn::Ident) -> ModPath {
        let mut child = self.module.clone();
        child.push(name.to_string());
        child
    }

    /// A `mod` item: `mod x;` names a file module; `mod x { … }` is scanned
    /// as a module of its own, so `super::` inside it resolves right.
    fn enter_module(&mut self, module: &ItemMod) {
        let child = self.child(&module.ident);
        self.scan.modules.push(child.clone());
        if let Some((_, items)) = &module.content {
            let parent = std::mem::replace(&mut self.module, child);
            for item in items {
                self.visit_item(item);
            }
            self.module = parent;
        }
    }
}

/// Test code is left out where its attribute stands: on items, impl and
/// trait items, statements, match arms, fields and variants. Everything else
/// is visited as syn does by default.
impl<'ast> Visit<'ast> for Scanner<'_> {
    fn visit_item(&mut self, item: &'ast Item) {
        if is_test_only(item_attrs(item)) {
            if let Item::Mod(module) = item {
                let child = self.child(&module.ident);
                self.scan.test_modules.push(child);
            }
            return;
        }
        match item {
            Item::Mod(module) => self.enter_module(module),
            Item::Use(item_use) => {
                let mut found = Vec::new();
                use_paths(&item_use.tree, &mut Vec::new(), &mut found);
                for (segments, span) in found {
                    self.record(segments, span);
                }
                let mut bound = Vec::new();
                use_bindings(&item_use.tree, &mut Vec::new(), &mut bound);
                for (name, segments) in bound {
                    self.scan
                        .bindings
                        .push((self.module.clone(), name, segments));
                }
            }
            _ => visit::visit_item(self, item),
        }
    }

    fn visit_impl_item(&mut self, item: &'ast ImplItem) {
        if !is_test_only(attrs_of!(item, ImplItem: Const, Fn, Type, Macro)) {
            visit::visit_impl_item(self, item);
        }
    }

    fn visit_trait_item(&mut self, item: &'ast TraitItem) {
        if !is_test_only(attrs_of!(item, TraitItem: Const, Fn, Type, Macro)) {
            visit::visit_trait_item(self, item);
        }
    }

    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        let attrs: &[Attribute] = match stmt {
            Stmt::Local(local) => &local.attrs[..],
            Stmt::Macro(mac) => &mac.attrs,
            Stmt::Expr(expr, _) => statement_attrs(expr),
            // visit_item looks at an item's own attributes.
            Stmt::Item(_) => &[],
        };
        if !is_test_only(attrs) {
            visit::visit_stmt(self, stmt);
        }
    }

    fn visit_arm(&mut self, arm: &'ast Arm) {
        if !is_test_only(&arm.attrs) {
            visit::visit_arm(self, arm);
        }
    }

    fn visit_field(&mut self, field: &'ast Field) {
        if !is_test_only(&field.attrs) {
            visit::visit_field(self, field);
        }
    }

    fn visit_field_value(&mut self, field: &'ast FieldValue) {
        if !is_test_only(&field.attrs) {
            visit::visit_field_value(self, field);
        }
    }

    fn visit_variant(&mut self, variant: &'ast Variant) {
        if !is_test_only(&variant.attrs) {
            visit::visit_variant(self, variant);
        }
    }

    /// Paths in code and types: `crate::system::device::usable_len(p)`. One
    /// part alone is a local name, never a module; `::x` is another crate.
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.record(segments, path.segments[0].ident.span());
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast Macro) {
        let mut found = Vec::new();
        token_paths(mac.tokens.clone(), &mut found);
        for (segments, span) in found {
            self.record(segments, span);
        }
        visit::visit_macro(self, mac);
    }
}

/// One file's paths into the crate and its modules, test code left out.
fn scan_file(file: &SourceFile) -> Result<Scan, String> {
    let ast = syn::parse_file(&file.text)
        .map_err(|e| format!("{}:{}: {e}", file.path, e.span().start().line))?;
    let mut scanner = Scanner {
        file: &file.path,
        module: file.module.clone(),
        scan: Scan::default(),
    };
    // A file that starts with `#![cfg(test)]` is test code as a whole.
    if is_test_only(&ast.attrs) {
        scanner.scan.test_modules.push(file.module.clone());
    } else {
        scanner.visit_file(&ast);
    }
    Ok(scanner.scan)
}

// ---------------------------------------------------------------------------
// Paths → module edges
// ---------------------------------------------------------------------------

/// What the tree holds: its modules, and the names each module's `use`
/// items bind.
struct Known {
    modules: BTreeSet<ModPath>,
    /// (module, name) → the path the name stands for, as written there.
    bindings: BTreeMap<(ModPath, String), Vec<String>>,
}

/// How many `use` names a path is followed through: a re-export of a
/// re-export is common, a longer chain is not (and two modules binding a
/// name to each other must not loop).
const MAX_REEXPORTS: usize = 8;

/// The module a path written in `from` names: the longest run of its leading
/// parts that is a known module. `crate::` starts at the root, `self::` at
/// `from`, each `super::` one level up, and a bare first part only when it is
/// a child module of `from`; any other path (another crate, a type, a local
/// name, an enum's variants) is none of ours and gives None. Where the part
/// after that module is a name the module's own `use` binds (a re-export,
/// or a name a child reaches with `super::`), the path is followed to the
/// module the name comes from.
fn resolve(from: &[String], segments: &[String], known: &Known) -> Option<ModPath> {
    resolve_within(from, segments, known, 0)
}

fn resolve_within(
    from: &[String],
    segments: &[String],
    known: &Known,
    depth: usize,
) -> Option<ModPath> {
    let (mut module, mut rest) = match segments.first()?.as_str() {
        "crate" => (Vec::new(), &segments[1..]),
        "self" => (from.to_vec(), &segments[1..]),
        "super" => (from.to_vec(), segments),
        first => {
            let mut child = from.to_vec();
            child.push(first.to_string());
            if !known.modules.contains(&child) {
                return None;
            }
            (from.to_vec(), segments)
        }
    };
    while let Some((head, tail)) = rest.split_first()
        && head == "super"
    {
        module.pop()?;
        rest = tail;
    }
    let mut used = 0;
    for segment in rest {
        module.push(segment.clone());
        if !known.modules.contains(&module) {
            module.pop();
            break;
        }
        used += 1;
    }
    if depth < MAX_REEXPORTS
        && let Some(name) = rest.get(used)
        && let Some(target) = known.bindings.get(&(module.clone(), name.clone()))
        && let Some(origin) = resolve_within(&module, target, known, depth + 1)
    {
        return Some(origin);
    }
    Some(module)
}

/// Every import edge between two different modules of `files`, test code
/// left out, in file order.
fn import_edges(files: &[SourceFile]) -> Result<Vec<Edge>, String> {
    let mut modules: BTreeSet<ModPath> = BTreeSet::from([Vec::new()]);
    let mut test_modules = Vec::new();
    let mut refs = Vec::new();
    let mut bindings = BTreeMap::new();
    for file in files {
        let scan = scan_file(file)?;
        modules.insert(file.module.clone());
        modules.extend(scan.modules);
        test_modules.extend(scan.test_modules);
        refs.extend(scan.refs);
        for (module, name, path) in scan.bindings {
            bindings.insert((module, name), path);
        }
    }
    let in_tests = |module: &ModPath| test_modules.iter().any(|t| module.starts_with(t));
    modules.retain(|module| !in_tests(module));
    let known = Known { modules, bindings };
    let edges = refs
        .into_iter()
        .filter(|r| !in_tests(&r.from))
        .filter_map(|r| {
            let to = resolve(&r.from, &r.segments, &known)?;
            (to != r.from).then_some(Edge {
                from: r.from,
                to,
                file: r.file,
                line: r.line,
            })
        })
        .collect();
    Ok(edges)
}

// ---------------------------------------------------------------------------
// Edges → violations
// ---------------------------------------------------------------------------

/// Every place each (importer, imported) pair is written, with no place
/// twice (one line can name a module more than once).
fn places_by_pair(edges: &[Edge]) -> BTreeMap<(&[String], &[String]), Vec<String>> {
    let mut places: BTreeMap<_, Vec<String>> = BTreeMap::new();
    for edge in edges {
        let at = places.entry((&edge.from[..], &edge.to[..])).or_default();
        let place = edge.place();
        if !at.contains(&place) {
            at.push(place);
        }
    }
    places
}

/// The layers `layer` may import besides itself; None if it is no layer.
fn allowed_imports(layer: &str) -> Option<&'static [&'static str]> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == layer)
        .map(|(_, allowed)| *allowed)
}

/// The rule `from` importing `to` breaks, or None when it may. The crate
/// root is no layer: lib.rs only declares the layers.
fn broken_rule(from: &[String], to: &[String]) -> Option<String> {
    let (from_layer, to_layer) = (from.first()?, to.first()?);
    if from_layer == to_layer {
        return None;
    }
    if narrow_exception(from, to) {
        return None;
    }
    let not_a_layer = |layer| format!("{layer} is not a layer in tests/architecture.rs's LAYERS");
    match (allowed_imports(from_layer), allowed_imports(to_layer)) {
        (None, _) => Some(not_a_layer(from_layer)),
        (_, None) => Some(not_a_layer(to_layer)),
        (Some(allowed), _) if allowed.contains(&to_layer.as_str()) => None,
        (Some([]), _) => Some(format!("{from_layer} may import nothing of ours")),
        (Some(allowed), _) => Some(format!("{from_layer} may import {}", allowed.join(", "))),
    }
}

/// One line per pair of modules whose import goes against the layer map:
/// `runner::pass imports report::latency_files (runner may import model, …)
/// at src/runner/pass.rs:12`.
fn layer_violations(edges: &[Edge]) -> Vec<String> {
    places_by_pair(edges)
        .into_iter()
        .filter_map(|((from, to), places)| {
            let rule = broken_rule(from, to)?;
            Some(format!(
                "{} imports {} ({rule}) at {}",
                show(from),
                show(to),
                places.join(", ")
            ))
        })
        .collect()
}

/// Whether one module is the other or inside it.
fn nested(a: &[String], b: &[String]) -> bool {
    a.starts_with(b) || b.starts_with(a)
}

/// The file a module is written in: the module itself, or for an inline
/// `mod x { … }` the file module that holds it.
fn file_of(module: &[String], files: &BTreeSet<ModPath>) -> ModPath {
    (0..=module.len())
        .rev()
        .map(|n| module[..n].to_vec())
        .find(|prefix| files.contains(prefix))
        .unwrap_or_default()
}

/// One entry per circle of files that import each other, however long the
/// way round (the strongly connected components of the file-to-file import
/// graph, Tarjan's algorithm), with every import inside it and where it is.
/// Inline modules count as their file; a module and the modules inside it
/// are not joined: the parent already depends on its children by declaring
/// them (`mod x;`, and the `pub use x::…` a folder's mod.rs makes), so any
/// `super::` from a child would count; that is how a folder is built, not a
/// circle between designs.
fn circles(edges: &[Edge], files: &BTreeSet<ModPath>) -> Vec<String> {
    let mut graph: BTreeMap<ModPath, BTreeMap<ModPath, Vec<String>>> = BTreeMap::new();
    for edge in edges {
        let (from, to) = (file_of(&edge.from, files), file_of(&edge.to, files));
        if nested(&from, &to) {
            continue;
        }
        graph.entry(to.clone()).or_default();
        let places = graph.entry(from).or_default().entry(to).or_default();
        if !places.contains(&edge.place()) {
            places.push(edge.place());
        }
    }
    strongly_connected(&graph)
        .into_iter()
        .filter(|component| component.len() > 1)
        .map(|component| {
            let names: Vec<String> = component.iter().map(|m| show(m)).collect();
            let inside: Vec<String> = component
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|(to, _)| component.contains(to))
                        .map(move |(to, places)| {
                            format!("{} → {} at {}", show(from), show(to), places.join(", "))
                        })
                })
                .collect();
            format!(
                "{} modules in a circle: {}; {}",
                component.len(),
                names.join(", "),
                inside.join("; ")
            )
        })
        .collect()
}

/// The strongly connected components of `graph` (Tarjan), each sorted, in
/// a stable order.
fn strongly_connected<V>(graph: &BTreeMap<ModPath, BTreeMap<ModPath, V>>) -> Vec<Vec<ModPath>> {
    struct Walk<'g, V> {
        graph: &'g BTreeMap<ModPath, BTreeMap<ModPath, V>>,
        index: BTreeMap<&'g ModPath, usize>,
        low: BTreeMap<&'g ModPath, usize>,
        stack: Vec<&'g ModPath>,
        on_stack: BTreeSet<&'g ModPath>,
        components: Vec<Vec<ModPath>>,
    }
    impl<'g, V> Walk<'g, V> {
        fn visit(&mut self, node: &'g ModPath) {
            let n = self.index.len();
            self.index.insert(node, n);
            self.low.insert(node, n);
            self.stack.push(node);
            self.on_stack.insert(node);
            for next in self.graph[node].keys() {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[node].min(self.low[next]);
                    self.low.insert(node, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[node].min(self.index[next]);
                    self.low.insert(node, low);
                }
            }
            if self.low[node] == self.index[node] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.push(top.clone());
                    if top == node {
                        break;
                    }
                }
                component.sort();
                self.components.push(component);
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for node in graph.keys() {
        if !walk.index.contains_key(node) {
            walk.visit(node);
        }
    }
    walk.components.sort();
    walk.components
}

/// Every violation in `edges` as one message, or None when there is none.
fn violations(edges: &[Edge], files: &BTreeSet<ModPath>) -> Option<String> {
    let layers = layer_violations(edges);
    let circles = circles(edges, files);
    if layers.is_empty() && circles.is_empty() {
        return None;
    }
    let mut message = String::from(
        "the source tree breaks the layer map (src/lib.rs; the rules are LAYERS in tests/architecture.rs)\n",
    );
    for (title, lines) in [
        ("imports against the layer map", &layers),
        ("modules that import each other, in circles", &circles),
    ] {
        if !lines.is_empty() {
            message.push_str(&format!("\n{title} ({}):\n", lines.len()));
            for line in lines {
                message.push_str(&format!("  {line}\n"));
            }
        }
    }
    Some(message)
}

/// The modules that are files, as `circles` counts them.
fn file_modules(files: &[SourceFile]) -> BTreeSet<ModPath> {
    files.iter().map(|f| f.module.clone()).collect()
}

#[test]
fn the_source_tree_keeps_to_the_layer_map() {
    let files = library_files(Path::new(env!("CARGO_MANIFEST_DIR")));
    // Guards against a walk or scan that silently finds nothing.
    assert!(
        files.len() > 10,
        "found only {} files under src/",
        files.len()
    );
    let edges = import_edges(&files).unwrap_or_else(|e| panic!("parsing {e}"));
    assert!(edges.len() > 100, "found only {} imports", edges.len());
    if let Some(message) = violations(&edges, &file_modules(&files)) {
        panic!("{message}");
    }
}

// ---------------------------------------------------------------------------
// The scanner's own tests, on small inline sources
// ---------------------------------------------------------------------------

mod scanner {
    use super::*;

    /// A crate root declaring, inline, the modules the examples name, so that
    /// they resolve as in a real tree.
    const TREE: &str = "
        pub mod model { pub mod plan {} pub mod units {} }
        pub mod data { pub mod buffer {} }
        pub mod system { pub mod device { mod magic {} mod signature {} } }
        pub mod report { pub mod latency_files {} }
        pub mod runner { pub mod pass {} pub mod throughput { mod shared {} } }
        pub mod app {}
    ";

    fn source(path: &str, text: &str) -> SourceFile {
        let relative = path.strip_prefix("src/").expect("a path under src/");
        SourceFile {
            path: path.to_string(),
            module: module_of(Path::new(relative)).expect("a library file"),
            text: text.to_string(),
        }
    }

    /// The edges of `text` as the file at `path` of the tree above, each as
    /// `from -> to @line`.
    fn edges_in(path: &str, text: &str) -> Vec<String> {
        let files = [source("src/lib.rs", TREE), source(path, text)];
        import_edges(&files)
            .expect("parses")
            .iter()
            .map(|e| format!("{} -> {} @{}", show(&e.from), show(&e.to), e.line))
            .collect()
    }

    #[test]
    fn files_map_to_modules() {
        let module = |path: &str| module_of(Path::new(path)).map(|m| show(&m));
        assert_eq!(module("runner/pass.rs").as_deref(), Some("runner::pass"));
        assert_eq!(
            module("runner/throughput/mod.rs").as_deref(),
            Some("runner::throughput")
        );
        assert_eq!(module("error.rs").as_deref(), Some("error"));
        assert_eq!(module("lib.rs").as_deref(), Some("crate"));
        assert_eq!(module("main.rs"), None);
        assert!(is_test_file(Path::new("cli/tests.rs")));
        assert!(is_test_file(Path::new("report/tests/golden.rs")));
        assert!(!is_test_file(Path::new("report/latency_files.rs")));
    }

    #[test]
    fn grouped_nested_and_self_uses() {
        let text = "use crate::{model::{self, plan::Pass}, data::buffer::Buffer};\n\
                    use crate::system::device::{self, magic};\n\
                    use crate::report::{\n    latency_files::*,\n};";
        assert_eq!(
            edges_in("src/runner/pass.rs", text),
            [
                "runner::pass -> model @1",
                "runner::pass -> model::plan @1",
                "runner::pass -> data::buffer @1",
                "runner::pass -> system::device @2",
                "runner::pass -> system::device::magic @2",
                "runner::pass -> report::latency_files @4",
            ]
        );
    }

    #[test]
    fn pub_and_restricted_uses_count() {
        let text = "pub use crate::model::plan::Pass;\n\
                    pub(crate) use crate::data::buffer as buf;\n\
                    pub(in crate::runner) use crate::model::units::*;";
        assert_eq!(
            edges_in("src/runner/pass.rs", text),
            [
                "runner::pass -> model::plan @1",
                "runner::pass -> data::buffer @2",
                "runner::pass -> model::units @3",
            ]
        );
    }

    #[test]
    fn inline_paths_in_code_types_and_macros() {
        let text = "fn f(p: &Path) -> u64 {\n\
                    \x20   crate::system::device::usable_len(p)\n\
                    }\n\
                    fn g(_: crate::model::plan::Plan) {\n\
                    \x20   println!(\"{}\", crate::model::units::kib(1));\n\
                    \x20   assert!(matches!(x, crate::data::buffer::Kind::A));\n\
                    }";
        assert_eq!(
            edges_in("src/runner/pass.rs", text),
            [
                "runner::pass -> system::device @2",
                "runner::pass -> model::plan @4",
                "runner::pass -> model::units @5",
                "runner::pass -> data::buffer @6",
            ]
        );
    }

    #[test]
    fn super_self_and_child_paths_resolve_against_the_module() {
        let text = "use super::super::pass::Ready;\n\
                    use super::Job;\n\
                    use self::inner::Helper;\n\
                    mod inner {\n\
                    \x20   use super::super::Gate;\n\
                    \x20   fn f() { super::make(); }\n\
                    }";
        assert_eq!(
            edges_in("src/runner/throughput/shared.rs", text),
            [
                "runner::throughput::shared -> runner::pass @1",
                "runner::throughput::shared -> runner::throughput @2",
                "runner::throughput::shared -> runner::throughput::shared::inner @3",
                "runner::throughput::shared::inner -> runner::throughput @5",
                "runner::throughput::shared::inner -> runner::throughput::shared @6",
            ]
        );
        // A bare first part counts only when it is a child module: `shared` is
        // one, `nix` (a crate) and `Pass` (an enum) are not.
        let text = "use shared::State;\nuse nix::unistd;\nfn f() { shared::make(); Pass::Write; }";
        assert_eq!(
            edges_in("src/runner/throughput/mod.rs", text),
            [
                "runner::throughput -> runner::throughput::shared @1",
                "runner::throughput -> runner::throughput::shared @3",
            ]
        );
    }

    #[test]
    fn test_code_is_left_out() {
        let text = "#[cfg(test)]\nmod tests { use crate::report::X; }\n\
                    #[cfg(test)]\nfn helper() { crate::report::y(); }\n\
                    #[cfg(all(test, unix))]\nuse crate::report::Z;\n\
                    #[cfg(not(test))]\nuse crate::model::plan::P;\n\
                    #[cfg(any(test, fuzzing))]\nuse crate::model::units::U;\n\
                    fn f(k: K) {\n\
                    \x20   #[cfg(test)]\n    crate::report::a();\n\
                    \x20   #[cfg(test)]\n    let x = crate::report::b();\n\
                    \x20   #[cfg(test)]\n    x = crate::report::c();\n\
                    \x20   match k { #[cfg(test)] K::T => crate::report::d(), _ => {} }\n\
                    }\n\
                    impl S { #[cfg(test)] fn t() { crate::report::e() } }\n\
                    struct S { #[cfg(test)] f: crate::report::F }";
        assert_eq!(
            edges_in("src/runner/pass.rs", text),
            [
                "runner::pass -> model::plan @8",
                "runner::pass -> model::units @10",
            ]
        );
    }

    #[test]
    fn test_files_and_test_modules_are_left_out() {
        let files = [
            source("src/lib.rs", TREE),
            source("src/runner/mod.rs", "#[cfg(test)]\nmod helpers;"),
            source("src/runner/helpers.rs", "use crate::report::X;"),
            source("src/runner/pass.rs", "#![cfg(test)]\nuse crate::report::Y;"),
        ];
        assert!(import_edges(&files).expect("parses").is_empty());
    }

    #[test]
    fn comments_and_strings_are_not_paths() {
        let text = "// use crate::report::A;\n\
                    /// crate::report::B and [`crate::report::C`]\n\
                    /* crate::report::D /* nested */ crate::report::E */\n\
                    const S: &str = \"crate::report::F\";\n\
                    const R: &str = r#\"use crate::report::G;\"#;\n\
                    const Q: char = '\"';\n\
                    fn f<'a>(x: &'a str) {\n\
                    \x20   println!(\"crate::report::H {}\", crate::model::units::kib(1)); // crate::report::I\n\
                    }";
        assert_eq!(
            edges_in("src/runner/pass.rs", text),
            ["runner::pass -> model::units @8"]
        );
    }

    #[test]
    fn the_rule_names_what_a_layer_may_import() {
        let module = |path: &str| path.split("::").map(str::to_string).collect::<Vec<_>>();
        let rule = |from: &str, to: &str| broken_rule(&module(from), &module(to));
        assert_eq!(
            rule("runner::pass", "report::latency_files").as_deref(),
            Some("runner may import model, data, engine, system, safety, error")
        );
        assert_eq!(
            rule("model::plan", "report").as_deref(),
            Some("model may import nothing of ours")
        );
        assert_eq!(rule("cli", "app").as_deref(), Some("cli may import model"));
        assert_eq!(rule("app::run", "runner::pass"), None);
        assert_eq!(rule("runner::pass", "runner::recipe"), None);
        assert_eq!(rule("safety", "system::device"), None);
        // An exception is one module (and its own) to one module.
        assert_eq!(rule("report::put", "system::xattr"), None);
        assert_eq!(rule("report::put::inner", "system::xattr::Mark"), None);
        assert!(rule("report::put", "system::device").is_some());
        assert!(rule("report::files", "system::xattr").is_some());
        assert!(rule("report::putter", "system::xattr").is_some());
        assert!(rule("report::put", "system").is_some());
        assert_eq!(rule("history::store", "system::input_file"), None);
        assert!(rule("history::store", "system::xattr").is_some());
    }

    #[test]
    fn violations_list_every_pair_with_its_places() {
        let files = [
            source("src/lib.rs", TREE),
            source(
                "src/runner/pass.rs",
                "use crate::report::latency_files::write;\nfn f() { crate::report::latency_files::g(); }",
            ),
            source("src/system/device/signature.rs", "use super::magic::Magic;"),
            source(
                "src/system/device/magic.rs",
                "\nuse super::signature::Signature;",
            ),
            // A folder's mod.rs and its child importing each other is no cycle.
            source(
                "src/model/mod.rs",
                "pub use plan::Plan;\nuse crate::model::units::Unit;",
            ),
            source("src/model/plan.rs", "use super::Pass;"),
        ];
        let message = violations(
            &import_edges(&files).expect("parses"),
            &file_modules(&files),
        )
        .expect("violations");
        assert!(
            message.contains(
                "  runner::pass imports report::latency_files (runner may import model, data, \
             engine, system, safety, error) at src/runner/pass.rs:1, src/runner/pass.rs:2\n"
            ),
            "{message}"
        );
        assert!(message.contains(
            "  2 modules in a circle: system::device::magic, system::device::signature; \
             system::device::magic → system::device::signature at src/system/device/magic.rs:2; \
             system::device::signature → system::device::magic at src/system/device/signature.rs:1\n"
        ), "{message}");
        assert_eq!(message.matches(" imports ").count(), 1, "{message}");
        assert_eq!(message.matches(" in a circle:").count(), 1, "{message}");
    }

    /// The circles of a tree given as (file, text) pairs, lib.rs's TREE
    /// included.
    fn circles_in(sources: &[(&str, &str)]) -> Vec<String> {
        let mut files = vec![source("src/lib.rs", TREE)];
        files.extend(sources.iter().map(|(path, text)| source(path, text)));
        circles(
            &import_edges(&files).expect("parses"),
            &file_modules(&files),
        )
    }

    #[test]
    fn a_circle_of_three_modules_is_found() {
        let found = circles_in(&[
            ("src/model/config.rs", "use super::env_facts::Fact;"),
            (
                "src/model/env_facts.rs",
                "use crate::model::environment::Environment;",
            ),
            (
                "src/model/environment.rs",
                "fn f(_: crate::model::config::RunConfig) {}",
            ),
            ("src/model/plan.rs", "use super::config::RunConfig;"),
        ]);
        assert_eq!(
            found,
            [
                "3 modules in a circle: model::config, model::env_facts, model::environment; \
              model::config → model::env_facts at src/model/config.rs:1; \
              model::env_facts → model::environment at src/model/env_facts.rs:1; \
              model::environment → model::config at src/model/environment.rs:1"
            ]
        );
    }

    #[test]
    fn a_circle_through_super_super_in_an_inline_module_is_found() {
        // auto.rs reaches rank.rs from inside `mod across { … }`, and rank.rs
        // calls the function auto.rs re-exports from that inline module.
        let found = circles_in(&[
            ("src/app/cluster/mod.rs", "mod auto;\nmod rank;"),
            (
                "src/app/cluster/auto.rs",
                "pub(super) use across::run_rank;\n\
                 mod across {\n    use super::super::rank::close_job;\n    pub fn run_rank() {}\n}",
            ),
            (
                "src/app/cluster/rank.rs",
                "fn f() { super::auto::run_rank(); }",
            ),
        ]);
        assert_eq!(
            found,
            [
                "2 modules in a circle: app::cluster::auto, app::cluster::rank; \
              app::cluster::auto → app::cluster::rank at src/app/cluster/auto.rs:3; \
              app::cluster::rank → app::cluster::auto at src/app/cluster/rank.rs:1"
            ]
        );
    }

    #[test]
    fn a_path_through_a_re_export_leads_to_the_module_it_comes_from() {
        let text = "use crate::runner::Ready;\nfn f() { crate::runner::Plain::new(); }";
        let files = [
            source("src/lib.rs", TREE),
            source("src/runner/mod.rs", "pub use pass::Ready;\nmod pass;"),
            source("src/app/mod.rs", text),
        ];
        let edges: Vec<String> = import_edges(&files)
            .expect("parses")
            .iter()
            .filter(|e| e.file == "src/app/mod.rs")
            .map(|e| format!("{} -> {} @{}", show(&e.from), show(&e.to), e.line))
            .collect();
        assert_eq!(edges, ["app -> runner::pass @1", "app -> runner @2"]);
    }

    #[test]
    fn a_folder_and_its_own_files_are_no_circle() {
        let found = circles_in(&[
            ("src/runner/mod.rs", "mod pass;\nfn f() { pass::go(); }"),
            ("src/runner/pass.rs", "use super::Event;"),
        ]);
        assert!(found.is_empty(), "{found:?}");
    }
}

// ---------------------------------------------------------------------------
// The map: ARCHITECTURE.md names every source file
// ---------------------------------------------------------------------------

/// The files ARCHITECTURE.md's tree names, as paths under src/ (`app/run.rs`),
/// and the folders it opens (`app/cluster/`).
///
/// The tree is the first fenced or indented block under `## The tree`. A line
/// whose first word ends in `/` opens that folder inside the innermost folder
/// opened by a less indented line; every word of the form `name.rs` on a
/// line (its description included, so `mod.rs (…), rank.rs (…)` counts)
/// names a file of the innermost folder opened by a less indented line, or
/// of the folder the line itself opens. Words with a `/` in them are prose
/// (`engine/batch.rs::sync_ops`), not entries.
fn mapped_files(map: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let section = map
        .split("\n## ")
        .find(|s| s.starts_with("The tree"))
        .expect("ARCHITECTURE.md has a '## The tree' section");
    let mut files = BTreeSet::new();
    let mut folders = BTreeSet::new();
    // (indent, folder path under src/, ending in '/' or empty for src/ itself)
    let mut open: Vec<(usize, String)> = Vec::new();
    let mut in_block = false;
    for line in section.lines().skip(1) {
        let indent = line.len() - line.trim_start().len();
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.is_empty() {
            continue;
        }
        if indent < 4 && in_block {
            break;
        }
        if indent < 4 {
            continue;
        }
        in_block = true;
        while open.last().is_some_and(|(i, _)| *i >= indent) {
            open.pop();
        }
        let mut folder = open.last().map(|(_, f)| f.clone()).unwrap_or_default();
        if let Some(first) = words.first().filter(|w| w.ends_with('/')) {
            folder = if *first == "src/" && open.is_empty() {
                String::new()
            } else {
                format!("{folder}{first}")
            };
            folders.insert(folder.clone());
            open.push((indent, folder.clone()));
        }
        for word in &words {
            let word = word
                .trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '/'));
            if let Some(stem) = word.strip_suffix(".rs")
                && !stem.is_empty()
                && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                files.insert(format!("{folder}{word}"));
            }
        }
    }
    (files, folders)
}

/// What is wrong with the map: source files it does not name, and files or
/// folders it names that do not exist.
fn map_faults(map: &str, sources: &[String]) -> Vec<String> {
    let (files, folders) = mapped_files(map);
    let mut faults = Vec::new();
    for source in sources {
        let named = match source.strip_suffix("mod.rs") {
            // A folder's mod.rs is named by the folder's own line.
            Some(folder) => folders.contains(folder) || files.contains(source),
            None => files.contains(source),
        };
        if !named {
            faults.push(format!(
                "src/{source} is not named in ARCHITECTURE.md's tree"
            ));
        }
    }
    for file in &files {
        if !sources.contains(file) && !file.ends_with("tests.rs") {
            faults.push(format!(
                "ARCHITECTURE.md's tree names src/{file}, which is not a source file"
            ));
        }
    }
    for folder in folders.iter().filter(|f| !f.is_empty()) {
        if !sources.iter().any(|s| s.starts_with(folder.as_str())) {
            faults.push(format!(
                "ARCHITECTURE.md's tree names src/{folder}, which holds no source file"
            ));
        }
    }
    faults
}

#[test]
fn the_map_names_every_source_file() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&package.join("src"), &mut paths);
    let src = package.join("src");
    let mut sources: Vec<String> = paths
        .iter()
        .map(|p| p.strip_prefix(&src).expect("under src/"))
        // Test code by its name: a tests.rs, a tests/ folder, a *_tests.rs.
        .filter(|relative| {
            !is_test_file(relative) && !relative.to_string_lossy().ends_with("_tests.rs")
        })
        .map(|relative| relative.display().to_string())
        .collect();
    sources.sort();
    assert!(
        sources.len() > 100,
        "found only {} files under src/",
        sources.len()
    );
    let map = fs::read_to_string(package.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let faults = map_faults(&map, &sources);
    assert!(
        faults.is_empty(),
        "ARCHITECTURE.md is not true to the tree ({} faults):\n  {}",
        faults.len(),
        faults.join("\n  ")
    );
}

mod map {
    use super::*;

    const MAP: &str = "# x\n\n## The tree\n\n    src/\n      lib.rs   the root\n      app/     one command: mod.rs, run.rs (a run)\n        cluster/   ranks\n          rank.rs    one rank\n      model/\n        config.rs  a, b      plan.rs  c\n        units.rs, host.rs,\n        order.rs\n\n## Next\n\n    other/\n      x.rs\n";

    #[test]
    fn the_tree_is_read_by_indentation() {
        let (files, folders) = mapped_files(MAP);
        let files: Vec<&str> = files.iter().map(String::as_str).collect();
        assert_eq!(
            files,
            [
                "app/cluster/rank.rs",
                "app/mod.rs",
                "app/run.rs",
                "lib.rs",
                "model/config.rs",
                "model/host.rs",
                "model/order.rs",
                "model/plan.rs",
                "model/units.rs"
            ]
        );
        let folders: Vec<&str> = folders.iter().map(String::as_str).collect();
        assert_eq!(folders, ["", "app/", "app/cluster/", "model/"]);
    }

    #[test]
    fn a_missing_or_stale_entry_is_a_fault() {
        let sources: Vec<String> = [
            "lib.rs",
            "app/mod.rs",
            "app/run.rs",
            "app/cluster/mod.rs",
            "app/cluster/rank.rs",
            "app/cluster/auto.rs",
            "model/config.rs",
            "model/host.rs",
            "model/order.rs",
            "model/plan.rs",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            map_faults(MAP, &sources),
            [
                "src/app/cluster/auto.rs is not named in ARCHITECTURE.md's tree",
                "ARCHITECTURE.md's tree names src/model/units.rs, which is not a source file",
            ]
        );
    }
}
