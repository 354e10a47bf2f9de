//! The core's modules import one way: this test reads every source file of the crate's `src/`
//! and fails, naming file and line, where a module of a lower layer names a module of a higher
//! one (`crate::<module>`, in a `use` or in a path). The layer table below is the one
//! ARCHITECTURE.md shows under "The core's layers"; a new module gets a row before it compiles
//! here. Modules of the same layer may import each other; `lib.rs` (the public surface) stands
//! above every layer. Comments and string literals are not read.

mod source_scan;

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use source_scan::{rust_files, strip_strings_and_comments};

/// The layers, lowest first, each with its top-level modules (a directory module counts as one:
/// its files share its layer).
const LAYERS: [(&str, &[&str]); 8] = [
    (
        "utilities",
        &[
            "names",
            "timestamp",
            "grammar",
            "pointer",
            "json_kind",
            "json_text",
            "parse",
            "error",
            "target",
            "revision",
            "sse",
        ],
    ),
    ("result object", &["part", "link", "meta", "input", "data", "result"]),
    ("forms", &["form", "v1", "legacy", "any"]),
    ("schema", &["schema"]),
    ("layout", &["layout", "host", "facts", "identity"]),
    ("lowerings", &["lower"]),
    ("mapper", &["mapper"]),
    ("preview", &["preview"]),
];

#[test]
fn no_module_imports_a_higher_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 30, "found only {} source files under {}", files.len(), src.display());
    let layer_of = layer_table();
    let lib = fs::read_to_string(src.join("lib.rs")).expect("the crate root");
    let root_items = root_items(&lib);
    let sources: Vec<(String, String)> = files
        .iter()
        .map(|file| {
            let name = file.strip_prefix(&src).unwrap_or(file).to_string_lossy().replace('\\', "/");
            (name, fs::read_to_string(file).expect("a readable source file"))
        })
        .collect();
    let macros = macros(&sources);
    let mut found = Vec::new();
    let mut unplaced = Vec::new();
    for (name, text) in &sources {
        if name == "lib.rs" {
            continue;
        }
        let module = top_module(name);
        let Some(&(own, own_layer)) = layer_of.get(module.as_str()) else {
            unplaced.push(format!("crates/toolwire-core/src/{name}: module `{module}`"));
            continue;
        };
        for (line, target) in crate_paths(text) {
            let target = match root_items.get(&target).or_else(|| macros.get(&target)) {
                Some(module) => module.clone(),
                None => target,
            };
            let Some(&(theirs, their_layer)) = layer_of.get(target.as_str()) else {
                unplaced.push(format!(
                    "crates/toolwire-core/src/{name}:{line}: `crate::{target}` names no module of \
                     the table"
                ));
                continue;
            };
            if their_layer > own_layer {
                found.push(format!(
                    "crates/toolwire-core/src/{name}:{line}: `{module}` ({own}) imports \
                     `crate::{target}` ({theirs}), a higher layer"
                ));
            }
        }
    }
    assert!(
        unplaced.is_empty(),
        "modules missing from the layer table in tests/layers.rs (give each a layer there and in \
         ARCHITECTURE.md):\n{}",
        unplaced.join("\n")
    );
    assert!(
        found.is_empty(),
        "a lower layer of the core imports a higher one (layers, lowest first: {}); move the \
         shared piece down or the importing code up:\n{}",
        LAYERS.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(" → "),
        found.join("\n")
    );
}

/// Every module of the table exists, so that the table cannot drift from the crate.
#[test]
fn every_module_of_the_table_exists() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    for (_, modules) in LAYERS {
        for module in modules {
            let exists = src.join(format!("{module}.rs")).is_file()
                || src.join(module).join("mod.rs").is_file();
            assert!(exists, "the layer table names `{module}`, which is no module of src/");
        }
    }
}

/// The scanner's own patterns: what it must find and what it must leave alone.
#[test]
fn the_scanner_finds_crate_paths_and_nothing_else() {
    let found = |text: &str| crate_paths(text).into_iter().collect::<Vec<_>>();
    assert_eq!(found("use crate::lower::mcp::McpOutput;"), [(1, "lower".to_owned())]);
    assert_eq!(
        found("use crate::{\n    form::Base64,\n    layout::{Layout, Plan},\n    v1,\n};"),
        [(2, "form".to_owned()), (3, "layout".to_owned()), (4, "v1".to_owned())]
    );
    assert_eq!(found("    let x = crate::host::read_instruction(uri);"), [(1, "host".to_owned())]);
    assert_eq!(
        found("        impl $crate::names::serde::Serialize for $ty {"),
        [(1, "names".to_owned())]
    );
    assert_eq!(found("crate::named!(Phase, \"phase\", {});"), [(1, "named".to_owned())]);
    for text in [
        "// use crate::mapper::Names;",
        "/// [`OutputMapper`]: crate::mapper::OutputMapper",
        "let s = \"crate::mapper::x\";",
        "use toolwire_crate::mapper;",
        "use super::crate_paths;",
    ] {
        assert_eq!(found(text), [], "flagged: {text}");
    }
    let lib =
        "pub use mapper::{\n    MapperConfig, OutputMapper,\n};\npub use data::PreparedData;\n";
    let items = root_items(lib);
    assert_eq!(items.get("OutputMapper").map(String::as_str), Some("mapper"));
    assert_eq!(items.get("PreparedData").map(String::as_str), Some("data"));
}

/// Module name → (layer name, layer index).
fn layer_table() -> BTreeMap<&'static str, (&'static str, usize)> {
    let mut table = BTreeMap::new();
    for (index, (layer, modules)) in LAYERS.iter().enumerate() {
        for module in *modules {
            let earlier = table.insert(*module, (*layer, index));
            assert!(earlier.is_none(), "`{module}` is in two layers of the table");
        }
    }
    table
}

/// The top-level module a file under `src/` belongs to.
fn top_module(name: &str) -> String {
    let first = name.split('/').next().unwrap_or(name);
    first.trim_end_matches(".rs").to_owned()
}

/// The items the crate root re-exports (`pub use <module>::{…};`), each with its module, so that
/// `crate::ToolResult` counts as an import of `result`.
fn root_items(lib: &str) -> BTreeMap<String, String> {
    let mut items = BTreeMap::new();
    for statement in lib.split(';') {
        let statement = statement.trim();
        let Some(path) = statement.strip_prefix("pub use ") else { continue };
        let Some((module, rest)) = path.split_once("::") else { continue };
        if module == "crate" {
            continue;
        }
        for item in rest.trim_matches(['{', '}']).split(',') {
            let item = item.trim();
            if !item.is_empty() {
                items.insert(item.to_owned(), module.to_owned());
            }
        }
    }
    items
}

/// The crate's `macro_rules!` macros, each with the module that defines it (`crate::named!`
/// names `names`).
fn macros(sources: &[(String, String)]) -> BTreeMap<String, String> {
    let mut macros = BTreeMap::new();
    for (name, text) in sources {
        for line in text.lines() {
            if let Some(rest) =
                strip_strings_and_comments(line).trim().strip_prefix("macro_rules! ")
            {
                let macro_name: String = rest.chars().take_while(|c| is_ident(*c)).collect();
                macros.insert(macro_name, top_module(name));
            }
        }
    }
    macros
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The first name after each `crate::` of `text` (with its 1-based line), comments and string
/// literals left out; for `crate::{a::…, b}` each name of the group, on its own line.
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<String> = text.lines().map(strip_strings_and_comments).collect();
    let mut found = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            let after = &rest[at + "crate::".len()..];
            rest = after;
            // `toolwire_crate::`, `my_crate::`: another name that ends in `crate`.
            if before.is_some_and(is_ident) {
                continue;
            }
            if after.starts_with('{') {
                found.extend(group(&lines, n, line.len() - after.len() + 1));
                continue;
            }
            let name: String = after.chars().take_while(|c| is_ident(*c)).collect();
            if !name.is_empty() {
                found.push((n + 1, name));
            }
        }
    }
    found
}

/// The names at the top level of a `{…}` group opening at `lines[n][start..]`, which may span
/// lines.
fn group(lines: &[String], n: usize, start: usize) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut depth = 1;
    let mut expect_name = true;
    for (index, line) in lines.iter().enumerate().skip(n) {
        let from = if index == n { start } else { 0 };
        let mut chars = line[from..].char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        return found;
                    }
                }
                ',' if depth == 1 => expect_name = true,
                c if expect_name && depth == 1 && is_ident(c) => {
                    let name: String =
                        line[from + i..].chars().take_while(|c| is_ident(*c)).collect();
                    for _ in 1..name.chars().count() {
                        chars.next();
                    }
                    found.push((index + 1, name));
                    expect_name = false;
                }
                _ => {}
            }
        }
    }
    found
}
