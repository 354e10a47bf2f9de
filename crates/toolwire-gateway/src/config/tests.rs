//! The loader's tests: defaults, flags and environment over the file, and every refusal's exact
//! message.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use toolwire_core::{Phase, Shape, Target, ValidationMode};
use toolwire_store::OffloadFallback;

use super::*;
use crate::oauth::Algorithm;

fn no_env(_: &str) -> Option<String> {
    None
}

fn from_text(text: &str) -> Result<Settings, ConfigError> {
    Settings::from_text(text, Path::new("t.toml"), &Overrides::default(), &no_env)
}

#[test]
fn defaults_without_a_file() {
    let settings = Settings::load(&Overrides::default(), &no_env);
    let Ok(s) = settings else { panic!("{settings:?}") };
    assert_eq!(s.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(s.phase, Phase::Compat);
    assert_eq!(s.store, StoreKind::Redb);
    assert_eq!(s.data_dir, PathBuf::from("./toolwire-data"));
    assert!(!s.auth_configured);
    assert!(s.demo_tools);
    assert_eq!(s.allowed_hosts, vec!["localhost", "127.0.0.1", "::1"]);
}

#[test]
fn transport_limits_and_the_cache_have_defaults_and_keys() {
    let Ok(s) = from_text("") else { panic!("refused") };
    assert_eq!(s.transport.header_read_timeout, Duration::from_secs(10));
    assert_eq!(s.transport.max_connections, 1024);
    assert_eq!(s.transport.max_sessions, 10_000);
    assert_eq!(s.transport.session_idle, Duration::from_secs(300));
    assert_eq!(s.transport.shutdown_grace, Duration::from_secs(30));
    assert_eq!(s.cache_size, 32 * 1024 * 1024);
    let text = "[transport]\nheader_read_timeout_ms = 250\nmax_connections = 8\nmax_sessions = 2\nsession_idle_ms = 1000\nshutdown_grace_ms = 0\n[store]\ncache_mib = 4";
    let Ok(s) = from_text(text) else { panic!("refused") };
    let expected = Transport {
        header_read_timeout: Duration::from_millis(250),
        max_connections: 8,
        max_sessions: 2,
        session_idle: Duration::from_secs(1),
        shutdown_grace: Duration::ZERO,
    };
    assert_eq!(s.transport, expected);
    assert_eq!(s.cache_size, 4 * 1024 * 1024);
    let refused = from_text("[transport]\nmax_connections = 0").map(|_| ());
    assert_eq!(
        refused.map_err(|e| e.to_string()),
        Err("t.toml: transport.max_connections: must be at least 1".to_owned())
    );
}

#[test]
fn store_quotas_default_and_are_configurable() {
    let Ok(s) = from_text("") else { panic!("refused") };
    assert_eq!(s.quota, toolwire_store::Quota::new(1 << 30, 256 << 20));
    let text = "[store]\nquota_total = 1000000\nquota_per_principal = 2000";
    let Ok(s) = from_text(text) else { panic!("refused") };
    assert_eq!(s.quota, toolwire_store::Quota::new(1_000_000, 2000));
}

#[test]
fn flags_and_environment_win_over_the_file() {
    let parsed: FileConfig = match toml::from_str("phase = \"spec\"\nlisten = \"127.0.0.1:9\"") {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let overrides = Overrides { listen: Some("10.0.0.1:7".into()), ..Overrides::default() };
    let env = |k: &str| (k == "TOOLWIRE_PHASE").then(|| "compat".to_owned());
    let Ok(s) = resolve(parsed, None, &overrides, &env) else { panic!("refused") };
    assert_eq!(s.phase, Phase::Compat);
    assert_eq!(s.listen.to_string(), "10.0.0.1:7");
    assert!(s.allowed_hosts.contains(&"10.0.0.1".to_owned()));
}

#[test]
fn bad_values_name_the_file_and_key() {
    let cases = [
        (
            "phase = \"loud\"",
            "t.toml: line 1 (`phase`): unknown phase `loud`; expected compat or spec",
        ),
        (
            "validation = \"x\"",
            "t.toml: line 1 (`validation`): unknown validation mode `x`; expected enforce, warn or off",
        ),
        (
            "[store]\nurl = \"memory\"\noffload_fallback = \"retry\"",
            "t.toml: line 3 (`store.offload_fallback`): unknown offload fallback `retry`; expected fail or inline",
        ),
        (
            "[[tools]]\nname = \"a\"\nendpoint = \"http://x\"\n[[tools]]\nname = \"b\"\nendpoint = \"http://x\"\nshape = \"table\"",
            "t.toml: line 7 (`tools[1].shape`): unknown shape `table`; expected data or envelope",
        ),
        ("[limits]\nmcp = 100", "t.toml: limits.mcp: 100 is below the smallest limit, 4096 bytes"),
        (
            "[limits]\n\"mcp-2025-06-18\" = 4095",
            "t.toml: limits.mcp-2025-06-18: 4095 is below the smallest limit, 4096 bytes",
        ),
        (
            "[limits]\nlegacy = 8192",
            "t.toml: limits.legacy: `legacy` is not an MCP target; expected mcp (every revision) or one of mcp-2024-11-05, mcp-2025-03-26, mcp-2025-06-18, mcp-2025-11-25, mcp-2026-07-28",
        ),
        (
            "[limits]\n\"mcp-2025-07-01\" = 8192",
            "t.toml: limits.mcp-2025-07-01: `mcp-2025-07-01` is not an MCP target; expected mcp",
        ),
        (
            "[store]\nurl = \"ftp://x\"",
            "t.toml: store.url: `ftp://x` is not a store; expected redb, memory or redis://…",
        ),
        (
            "[[tools]]\nname = \"a\"\nendpoint = \"http://x\"",
            "t.toml: tools[0].description: every tool needs a description",
        ),
        ("colour = 1", "t.toml: line 1 (`colour`): unknown field `colour`"),
        (
            "[store]\nlink_ttl = 2592001",
            "t.toml: store.link_ttl: 2592001 seconds is over the longest link lifetime, 2592000 (30 days)",
        ),
        (
            "[store]\nlink_ttl = 9223372036854775807",
            "t.toml: store.link_ttl: 9223372036854775807 seconds is over the longest link lifetime",
        ),
        (
            "[store]\nurl = \"redis://127.0.0.1/\"\nca_file = \"ca.pem\"",
            "t.toml: store.ca_file: is only for a rediss:// store url",
        ),
        (
            "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"/nonexistent/ca.pem\"",
            "t.toml: tools[0].ca_file: cannot read /nonexistent/ca.pem: ",
        ),
        (
            "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"/dev/zero\"",
            "t.toml: tools[0].ca_file: cannot read /dev/zero: not a regular file",
        ),
        (
            "[store]\nurl = \"rediss://127.0.0.1/\"\nca_file = \"/\"",
            "t.toml: store.ca_file: cannot read /: not a regular file",
        ),
        (
            "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"Cargo.toml\"",
            "t.toml: tools[0].ca_file: Cargo.toml holds no PEM certificate",
        ),
        (
            "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"http://x\"\nproxy = \"::\"",
            "t.toml: tools[0].proxy: `::` is not a proxy URL",
        ),
        (
            "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"ann\"\n[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"bob\"",
            "t.toml: auth.tokens[1].token: the same token as auth.tokens[0]; every token must be distinct",
        ),
        (
            "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"anonymous\"",
            "t.toml: auth.tokens[0].principal: `anonymous` is reserved for callers without a token",
        ),
        (
            "[[auth.tokens]]\ntoken = \"a\"\nprincipal = \"local\"",
            "t.toml: auth.tokens[0].principal: `local` is reserved for callers without a token",
        ),
        (
            "[auth.oauth]\nissuer = \"idp\"\naudience = \"https://t/mcp\"",
            "t.toml: auth.oauth.issuer: `idp` is not an http:// or https:// URL",
        ),
        (
            "[auth.oauth]\nissuer = \"https://idp\"\naudience = \"https://t/mcp#x\"",
            "t.toml: auth.oauth.audience: `https://t/mcp#x` must be a canonical URL",
        ),
        (
            "[auth.oauth]\nissuer = \"https://idp\"\naudience = \"https://t/mcp\"\nalgorithms = [\"HS256\"]",
            "t.toml: auth.oauth.algorithms: `HS256` is not accepted; expected RS256, ES256 or EdDSA",
        ),
        (
            "[ops]\nmetrics_path = \"/mcp/metrics\"",
            "t.toml: ops.metrics_path: `/mcp/metrics` must be a path like /metrics",
        ),
        ("[ops]\nlisten = \"nowhere\"", "t.toml: ops.listen: `nowhere` is not an address"),
        (
            "[[hosts]]\nname = \"h\"\nreads = \"content\"\nmax_result_bytes = 100",
            "t.toml: hosts[0]: `max_result_bytes` = 100 is below 4096 bytes",
        ),
        ("[[hosts]]\nname = \"\"\nreads = \"both\"", "t.toml: hosts[0]: `name` must not be empty"),
        (
            "[[tools]]\nname = \"t\"\ndescription = \"d\"\nendpoint = \"http://127.0.0.1:1/t\"\nmax_result_chars = 600000",
            "t.toml: tools[0].max_result_chars: `max_result_chars` = 600000 is above 500000, the most Claude Code accepts",
        ),
        (
            "[[tools]]\nname = \"t\"\ndescription = \"d\"\nendpoint = \"http://127.0.0.1:1/t\"\nmax_result_chars = 100",
            "t.toml: tools[0].max_result_chars: `max_result_chars` = 100 is below 4096, the least an offload stub needs",
        ),
        (
            "[[hosts]]\nname = \"h\"\nreads = \"all\"",
            "t.toml: line 3 (`hosts[0].reads`): unknown variant `all`",
        ),
    ];
    for (text, expected) in cases {
        match from_text(text) {
            Ok(_) => panic!("accepted {text}"),
            Err(e) => assert!(e.to_string().starts_with(expected), "{e} vs {expected}"),
        }
    }
}

#[test]
fn files_are_read_only_when_regular_and_within_the_limit() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let sized = |name: &str, len: u64| {
        let path = dir.path().join(name);
        let file = std::fs::File::create(&path).unwrap_or_else(|e| panic!("{e}"));
        file.set_len(len).unwrap_or_else(|e| panic!("{e}"));
        path
    };
    let (at_limit, over) = (sized("at.pem", FILE_LIMIT), sized("over.pem", FILE_LIMIT + 1));
    let tool = |path: &Path| {
        format!(
            "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"https://x\"\nca_file = \"{}\"",
            path.display()
        )
    };
    let refused = |text: String| match from_text(&text) {
        Ok(_) => panic!("accepted {text}"),
        Err(e) => e.to_string(),
    };
    assert_eq!(
        refused(tool(&over)),
        format!(
            "t.toml: tools[0].ca_file: cannot read {}: over the limit of 4194304 bytes (4 MiB)",
            over.display()
        )
    );
    // At the limit the file is read whole and then judged as PEM.
    assert_eq!(
        refused(tool(&at_limit)),
        format!("t.toml: tools[0].ca_file: {} holds no PEM certificate", at_limit.display())
    );
    // The configuration file itself: a FIFO nothing writes to, a device, an oversized file.
    let fifo = dir.path().join("fifo.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo {}", fifo.display());
    let over_toml = sized("over.toml", FILE_LIMIT + 1);
    for (path, reason) in [
        (fifo, "not a regular file"),
        (PathBuf::from("/dev/zero"), "not a regular file"),
        (over_toml, "over the limit of 4194304 bytes (4 MiB)"),
    ] {
        let overrides = Overrides { config: Some(path.clone()), ..Overrides::default() };
        match Settings::load(&overrides, &no_env) {
            Ok(_) => panic!("loaded {}", path.display()),
            Err(e) => {
                assert_eq!(
                    e.to_string(),
                    format!("{}: (file): cannot read it: {reason}", path.display())
                )
            }
        }
    }
}

fn mcp(date: &str) -> Target {
    match toolwire_core::McpRevision::exact(date) {
        Some(revision) => Target::Mcp(revision),
        None => panic!("no revision {date}"),
    }
}

#[test]
fn limits_are_keyed_by_target_name() {
    let Ok(s) = from_text("") else { panic!("refused") };
    let default = toolwire_core::DEFAULT_LIMIT as u64;
    let mcp_targets = Target::ALL.into_iter().filter(|t| matches!(t, Target::Mcp(_)));
    assert_eq!(s.limits, mcp_targets.clone().map(|t| (t, default)).collect());
    // `mcp` sets every revision but those with their own key, wherever it is written.
    let text = "[limits]\n\"mcp-2025-06-18\" = 5000\nmcp = 9000";
    let Ok(s) = from_text(text) else { panic!("refused {text}") };
    let expected: BTreeMap<Target, u64> =
        mcp_targets.map(|t| (t, if t == mcp("2025-06-18") { 5000 } else { 9000 })).collect();
    assert_eq!(s.limits, expected);
    // … and reach the mapper the gateway renders with.
    let Ok(mapper) = crate::gateway::mapper(&s) else { panic!("no mapper") };
    assert_eq!(mapper.config().limit(mcp("2025-06-18")), Some(5000));
    assert_eq!(mapper.config().limit(mcp("2026-07-28")), Some(9000));
}

#[test]
fn a_bad_phase_in_the_environment_names_the_variable() {
    let env = |k: &str| (k == "TOOLWIRE_PHASE").then(|| "Spec".to_owned());
    let refused = resolve(FileConfig::default(), None, &Overrides::default(), &env);
    assert_eq!(
        refused.map(|_| ()).map_err(|e| e.to_string()),
        Err("TOOLWIRE_PHASE: unknown phase `Spec`; expected compat or spec".to_owned())
    );
    // The flag wins over a bad variable.
    let overrides = Overrides { phase: Some(Phase::Spec), ..Overrides::default() };
    let Ok(s) = resolve(FileConfig::default(), None, &overrides, &env) else { panic!() };
    assert_eq!(s.phase, Phase::Spec);
}

#[test]
fn enums_read_from_the_file() {
    let text = "validation = \"warn\"\n[store]\noffload_fallback = \"inline\"\n[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"http://x\"\nshape = \"envelope\"";
    let Ok(s) = from_text(text) else { panic!("refused {text}") };
    assert_eq!(s.validation, ValidationMode::Warn);
    assert_eq!(s.offload_fallback, OffloadFallback::Inline);
    assert_eq!(s.tools[0].shape, Shape::Envelope);
    let refused = from_text("[[tools]]\nname = \"a\"\nendpoint = \"http://x\"\nshape = \"list\"");
    assert_eq!(
        refused.map(|_| ()).map_err(|e| e.to_string()),
        Err("t.toml: line 4 (`tools[0].shape`): unknown shape `list`; expected data or envelope"
            .to_owned())
    );
    let Ok(s) = from_text("phase = \"spec\"") else { panic!("refused") };
    assert_eq!(
        (s.phase, s.validation, s.offload_fallback),
        (Phase::Spec, ValidationMode::Enforce, OffloadFallback::Fail)
    );
}

#[test]
fn error_keys_are_dotted_from_the_table_headers() {
    let text = "phase = \"spec\"\n[auth]\nanonymous = true\n[[auth.tokens]]\ntoken = \"a\"\n[[auth.tokens]]\nprincipal = \"b\"\n[colour]";
    let at = |needle: &str| key_at(text, text.find(needle).unwrap_or(0));
    assert_eq!(at("phase"), "line 1 (`phase`)");
    assert_eq!(at("anonymous"), "line 3 (`auth.anonymous`)");
    assert_eq!(at("token = "), "line 5 (`auth.tokens[0].token`)");
    assert_eq!(at("principal"), "line 7 (`auth.tokens[1].principal`)");
    assert_eq!(at("[colour]"), "line 8 (`colour`)");
}

#[test]
fn hosts_add_and_override_the_built_in_profiles() {
    let text = "[[hosts]]\nname = \"codex\"\nclient_names = [\"codex-mcp-client\"]\nreads = \"both\"\n\n[[hosts]]\nname = \"mine\"\nclient_names = [\"mine\"]\nreads = \"content\"\nmax_result_bytes = 8192";
    let Ok(s) = from_text(text) else { panic!("refused {text}") };
    let codex = s.hosts.for_client(Some("codex-mcp-client"));
    assert_eq!((codex.name.as_str(), codex.reads_links), ("codex", true));
    let mine = s.hosts.for_client(Some("MINE"));
    assert_eq!((mine.name.as_str(), mine.max_result_bytes), ("mine", Some(8192)));
    assert_eq!(s.hosts.for_client(Some("claude-code")).name, "claude-code");
    assert!(!mine.strict_structured);
    let strict = "[[hosts]]\nname = \"s\"\nclient_names = [\"s\"]\nreads = \"content\"\nstrict_structured = true";
    let Ok(s) = from_text(strict) else { panic!("refused {strict}") };
    assert!(s.hosts.for_client(Some("s")).strict_structured);
}

#[test]
fn an_app_tool_carries_its_size_opt_in() {
    let text = "[[tools]]\nname = \"t\"\ndescription = \"d\"\nendpoint = \"http://127.0.0.1:1/t\"\nmax_result_chars = 120000\n\n[[tools]]\nname = \"u\"\ndescription = \"d\"\nendpoint = \"http://127.0.0.1:1/u\"";
    let Ok(s) = from_text(text) else { panic!("refused {text}") };
    let chars: Vec<Option<usize>> = s.tools.iter().map(|t| t.max_result_chars).collect();
    assert_eq!(chars, [Some(120_000), None]);
}

#[test]
fn duplicate_tokens_from_the_environment_name_the_variable() {
    let text = "[[auth.tokens]]\ntoken = \"same\"\nprincipal = \"ann\"\n[[auth.tokens]]\ntoken_env = \"T\"\nprincipal = \"bob\"";
    let parsed: FileConfig = toml::from_str(text).unwrap_or_else(|e| panic!("{e}"));
    let env = |k: &str| (k == "T").then(|| "same".to_owned());
    let refused = resolve(parsed, Some("t.toml".into()), &Overrides::default(), &env);
    let message = refused.map(|_| ()).map_err(|e| e.to_string());
    assert_eq!(
        message,
        Err("t.toml: auth.tokens[1].token_env: the same token as auth.tokens[0]; every token must be distinct".into())
    );
}

#[test]
fn oauth_and_ops_defaults() {
    let s = from_text("[auth.oauth]\nissuer = \"https://idp.test\"\naudience = \"https://t.test/mcp\"\nscopes = { \"catalog.write\" = [\"catalog:write\"] }")
        .unwrap_or_else(|e| panic!("{e}"));
    let Some(o) = s.oauth else { panic!("no oauth") };
    assert_eq!(o.algorithms, Algorithm::ALL);
    assert_eq!(o.leeway, Duration::from_secs(60));
    assert_eq!(o.principal_claim, "sub");
    assert_eq!(o.refresh_interval, Duration::from_secs(30));
    assert_eq!(o.scopes["catalog.write"], ["catalog:write"]);
    assert_eq!(s.ops.metrics_path, "/metrics");
    assert!(s.ops.listen.is_none() && !s.ops.require_auth);
}

#[test]
fn header_secrets_come_from_the_environment() {
    let parsed: FileConfig = match toml::from_str(
        "[[tools]]\nname = \"a\"\ndescription = \"d\"\nendpoint = \"http://x\"\nheaders = { Authorization = { env = \"K\", prefix = \"Bearer \" } }",
    ) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let env = |k: &str| (k == "K").then(|| "s3cret".to_owned());
    let Ok(s) = resolve(parsed, None, &Overrides::default(), &env) else { panic!("refused") };
    assert_eq!(s.tools[0].headers, vec![("Authorization".to_owned(), "Bearer s3cret".to_owned())]);
    assert_eq!(s.tools[0].timeout, Duration::from_secs(30));
    assert_eq!(s.tools[0].response_cap, 16 * 1024 * 1024 - 64 * 1024);
}

/// The keys the loader accepts in `table` (`""` for the top), as its refusal of an unknown key
/// lists them.
fn accepted(table: &str) -> BTreeSet<String> {
    let text = format!("{table}\nnot_a_key = 1");
    let message = match from_text(&text) {
        Ok(_) => panic!("accepted {text}"),
        Err(e) => e.message,
    };
    // serde lists several keys as "expected one of `a`, `b`" and one as "expected `a`".
    let list = message.split_once("expected one of ").or_else(|| message.split_once("expected "));
    let Some((_, list)) = list else { panic!("{message}") };
    list.split(", ").map(|key| key.trim_matches('`').to_owned()).collect()
}

#[test]
fn the_key_list_is_what_the_loader_accepts() {
    // A table is a key of the table it is in.
    let nested: BTreeMap<&str, &[&str]> = BTreeMap::from([
        (
            "",
            &[
                "limits",
                "store",
                "transport",
                "auth",
                "ops",
                "console",
                "tasks",
                "tools",
                "upstreams",
                "openapi",
                "hosts",
            ][..],
        ),
        ("[auth]", &["tokens", "oauth"][..]),
    ]);
    let mut listed: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (table, keys) in TABLES {
        listed.entry(table).or_default().extend(keys.iter().map(|k| (*k).to_owned()));
    }
    assert_eq!(listed.len(), 14);
    for (table, mut keys) in listed {
        // A map: every MCP target's name is a key (`limits_are_keyed_by_target_name`).
        if table == "[limits]" {
            continue;
        }
        keys.extend(nested.get(table).copied().unwrap_or_default().iter().map(|k| (*k).to_owned()));
        assert_eq!(accepted(table), keys, "{table}");
    }
    let all = keys();
    assert_eq!(all.len(), TABLES.iter().map(|(_, keys)| keys.len()).sum::<usize>());
    assert_eq!(all[0], "phase");
    for key in [
        "listen",
        "[limits] mcp",
        "[[auth.tokens]] token_env",
        "[[hosts]] reads_links",
        "[[hosts]] strict_structured",
        "[[tools]] max_result_chars",
    ] {
        assert!(all.contains(&key.to_owned()), "{key}");
    }
}

#[test]
fn upstreams_are_read_and_every_refusal_names_its_key() {
    let text = r#"
[[upstreams]]
name = "shop"
command = ["php", "bin/console", "mcp:server"]
env = { APP_ENV = "prod" }
tool_prefix = "shop_"
tools = ["product_*", "order_get"]
privileges = ["shop:use"]
timeout_ms = 5000

[[upstreams]]
name = "drupal"
url = "https://cms.internal/mcp"
headers = { Authorization = { value = "Bearer x" } }
outputs = { node_get = { type = "object" } }
"#;
    let Ok(s) = from_text(text) else { panic!("refused: {:?}", from_text(text).err()) };
    let [shop, drupal] = &s.upstreams[..] else { panic!("{:?}", s.upstreams) };
    let UpstreamTransport::Stdio { program, args, env } = &shop.transport else { panic!() };
    assert_eq!(
        (program.as_str(), &args[..]),
        ("php", &["bin/console".to_owned(), "mcp:server".to_owned()][..])
    );
    assert_eq!(env.get("APP_ENV").map(String::as_str), Some("prod"));
    assert_eq!(shop.tool_prefix, "shop_");
    assert_eq!(shop.timeout, Duration::from_secs(5));
    let globs = shop.tools.as_deref().unwrap_or_default();
    assert!(globs[0].matches("product_get") && !globs[0].matches("order_list"));
    let UpstreamTransport::Http { url, headers, .. } = &drupal.transport else { panic!() };
    assert_eq!(url, "https://cms.internal/mcp");
    assert_eq!(headers, &[("Authorization".to_owned(), "Bearer x".to_owned())]);
    assert_eq!(drupal.timeout, Duration::from_millis(DEFAULT_TIMEOUT_MS));
    assert!(drupal.outputs.contains_key("node_get"));

    let refusals = [
        (
            "[[upstreams]]\nname = \"a\"\ncommand = [\"x\"]\nurl = \"http://h/mcp\"",
            "t.toml: upstreams[0]: give command (a stdio upstream) or url, not both",
        ),
        (
            "[[upstreams]]\nname = \"a\"",
            "t.toml: upstreams[0]: give command (a stdio upstream) or url (Streamable HTTP)",
        ),
        (
            "[[upstreams]]\nname = \"a b\"\ncommand = [\"x\"]",
            "t.toml: upstreams[0].name: `a b` is not 1 to 32 letters, digits, `_` or `-`",
        ),
        (
            "[[upstreams]]\nname = \"demo\"\ncommand = [\"x\"]",
            "t.toml: upstreams[0].name: `demo` is the name of one of toolwire's own tool sources",
        ),
        (
            "[[upstreams]]\nname = \"a\"\ncommand = [\"x\"]\n[[upstreams]]\nname = \"a\"\nurl = \"http://h/mcp\"",
            "t.toml: upstreams[1].name: another upstream is named `a` already",
        ),
        (
            "[[upstreams]]\nname = \"a\"\ncommand = [\"x\"]\ntools = [\"ok_*\", \"[bad]\"]",
            "t.toml: upstreams[0].tools[1]: `[bad]` uses `[`: a pattern has only `*` (any run of characters) and `?` (one character)",
        ),
        (
            "[[upstreams]]\nname = \"a\"\ncommand = []",
            "t.toml: upstreams[0].command: the program to start is missing",
        ),
        (
            "[[upstreams]]\nname = \"a\"\ncommand = [\"x\"]\nproxy = \"http://p:3128\"",
            "t.toml: upstreams[0].proxy: only an upstream with a url has it",
        ),
        (
            "[[upstreams]]\nname = \"a\"\nurl = \"http://h/mcp\"\nenv = { K = \"v\" }",
            "t.toml: upstreams[0].env: only an upstream started with a command has an environment",
        ),
        (
            "[[upstreams]]\nname = \"a\"\nurl = \"ftp://h/mcp\"",
            "t.toml: upstreams[0].url: `ftp://h/mcp` is not an http:// or https:// URL",
        ),
        (
            "[[upstreams]]\nname = \"a\"\ncommand = [\"x\"]\ntool_prefix = \"a b\"",
            "t.toml: upstreams[0].tool_prefix: `a b` may hold only letters, digits, `_`, `-` and `.`",
        ),
        (
            "[[upstreams]]\nname = \"a\"\ncommand = [\"x\"]\ntimeout_ms = 0",
            "t.toml: upstreams[0].timeout_ms: must be at least 1",
        ),
    ];
    for (text, message) in refusals {
        assert_eq!(
            from_text(text).map(|_| ()).map_err(|e| e.to_string()),
            Err(message.to_owned()),
            "{text}"
        );
    }
}

#[test]
fn openapi_entries_are_refused_with_the_key_and_the_reason() {
    let refused = |text: &str| match from_text(text) {
        Ok(_) => panic!("accepted {text}"),
        Err(e) => e.to_string(),
    };
    let entry = "[[openapi]]\nname = \"shop\"\nspec = \"openapi.json\"\nbase_url = \"http://x\"\n";
    assert_eq!(
        refused(&format!("[[upstreams]]\nname = \"shop\"\ncommand = [\"x\"]\n{entry}")),
        "t.toml: openapi[0].name: another upstream or openapi entry is named `shop` already"
    );
    assert_eq!(
        refused("[[openapi]]\nname = \"demo\"\nspec = \"a.json\"\n"),
        "t.toml: openapi[0].name: `demo` is the name of one of toolwire's own tool sources"
    );
    assert_eq!(
        refused(&format!("{entry}operations = [\"get[A]*\"]\n")),
        "t.toml: openapi[0].operations[0]: `get[A]*` uses `[`: a pattern has only `*` (any run of characters) and `?` (one character)"
    );
    assert_eq!(
        refused(&format!("{entry}credentials = {{ key = {{ env = \"NOPE\" }} }}\n")),
        "t.toml: openapi[0].credentials.key.env: the variable NOPE is not set"
    );
    assert_eq!(
        refused("[[openapi]]\nname = \"a\"\nspec = \" \"\n"),
        "t.toml: openapi[0].spec: give the OpenAPI document's file or URL"
    );
    let Ok(settings) = from_text(&format!("{entry}writes = true\ntool_prefix = \"shop_\"\n"))
    else {
        panic!("refused")
    };
    let api = &settings.openapi[0];
    assert_eq!(api.spec, SpecLocation::File("openapi.json".into()));
    assert_eq!((api.writes, api.tool_prefix.as_str()), (true, "shop_"));
    assert_eq!(api.timeout, Duration::from_secs(30));
}

#[test]
fn the_console_is_on_for_loopback_and_off_elsewhere_unless_enabled_with_credentials() {
    let Ok(s) = from_text("") else { panic!("refused") };
    assert!(s.console, "on by default on loopback");
    let Ok(s) = from_text("listen = \"0.0.0.0:8080\"\n") else { panic!("refused") };
    assert!(!s.console, "off by default elsewhere");
    let Ok(s) = from_text("[console]\nenabled = false\n") else { panic!("refused") };
    assert!(!s.console);
    let open = from_text(
        "listen = \"0.0.0.0:8080\"\n[auth]\nanonymous = true\n[console]\nenabled = true\n",
    );
    let Err(error) = open else { panic!("accepted {open:?}") };
    assert_eq!(error.key, "console.enabled");
    assert_eq!(
        error.message,
        "the console off a loopback address needs credentials to ask for: configure [[auth.tokens]] or [auth.oauth]"
    );
    let guarded = from_text(
        "listen = \"0.0.0.0:8080\"\n[[auth.tokens]]\ntoken = \"t\"\nprincipal = \"ann\"\n[console]\nenabled = true\n",
    );
    assert!(guarded.is_ok_and(|s| s.console));
}
