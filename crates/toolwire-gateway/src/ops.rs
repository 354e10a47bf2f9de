//! What an operator runs the gateway with: `/healthz` (alive), `/readyz` (store writable, Redis
//! reachable, the issuer's keys loaded; link signing keys are loaded before the server starts at
//! all), the Prometheus `/metrics`, and `toolwire serve --check`.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;
use toolwire_core::Timestamp;
use toolwire_mcp::{Catalog, SourceHealth};
use toolwire_store::{Record, StoredResults};

use super::auth::Auth;
use super::config::{Settings, StoreKind};
use super::metrics::Metrics;

/// How long one readiness check of the store may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// What the three endpoints look at.
#[derive(Debug, Clone)]
pub(crate) struct Ops {
    /// The result store and its signer.
    pub stored: StoredResults,
    /// Who may call (for the OAuth keys).
    pub auth: Arc<Auth>,
    /// The open MCP sessions.
    pub sessions: Arc<super::sessions::CappedSessions>,
    /// This gateway's counters.
    pub metrics: Arc<Metrics>,
    /// The tool sources, whose health readiness reports.
    pub catalog: Catalog,
}

/// The routes: `/healthz`, `/readyz` and the metrics path.
pub(crate) fn router(metrics_path: &str, ops: Ops) -> axum::Router {
    axum::Router::new()
        .route("/healthz", axum::routing::get(healthz))
        .route("/readyz", axum::routing::get(readyz))
        .route(metrics_path, axum::routing::get(metrics))
        .with_state(ops)
}

async fn healthz() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], json!({"status": "alive"}).to_string())
        .into_response()
}

/// Writes and deletes a small record: the store takes writes (and Redis is reachable). A store
/// failure is counted in `metrics` when there are any (`serve --check` has none).
pub(crate) async fn probe_store(
    stored: &StoredResults,
    metrics: Option<&Metrics>,
) -> Result<(), String> {
    let now = chrono::Utc::now();
    let record = Record::new(
        b"ready".to_vec(),
        "text/plain",
        "toolwire-readiness",
        Timestamp::from_datetime(now),
        Timestamp::from_datetime(now + chrono::Duration::seconds(60)),
    );
    let store = stored.store();
    let attempt = async {
        let id = store.put(record).await?;
        store.delete(id).await
    };
    match tokio::time::timeout(PROBE_TIMEOUT, attempt).await {
        Ok(Ok(_)) => Ok(()),
        Ok(Err(error)) => {
            if let Some(metrics) = metrics {
                metrics.store_error(&error);
            }
            Err(format!("the {} store does not take writes: {error}", store.backend()))
        }
        Err(_) => Err(format!(
            "the {} store did not answer within {} s",
            store.backend(),
            PROBE_TIMEOUT.as_secs()
        )),
    }
}

/// Whether the issuer's keys are loaded (fetched now when none are).
async fn oauth_keys(auth: &Auth) -> Result<Option<usize>, String> {
    let Some(oauth) = auth.oauth() else { return Ok(None) };
    let cached = oauth.key_count().await;
    if cached > 0 {
        return Ok(Some(cached));
    }
    match oauth.refresh().await {
        Ok(0) => Err("the issuer publishes no usable signing keys".into()),
        Ok(n) => Ok(Some(n)),
        Err(error) => Err(format!("the issuer's signing keys could not be fetched: {error}")),
    }
}

async fn readyz(State(ops): State<Ops>) -> Response {
    let mut reasons = Vec::new();
    if let Err(reason) = probe_store(&ops.stored, Some(&ops.metrics)).await {
        reasons.push(reason);
    }
    if let Err(reason) = oauth_keys(&ops.auth).await {
        reasons.push(reason);
    }
    reasons.extend(unhealthy_sources(&ops.catalog));
    let (status, body) = if reasons.is_empty() {
        (StatusCode::OK, json!({"status": "ready"}))
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, json!({"status": "not ready", "reasons": reasons}))
    };
    (status, [(header::CONTENT_TYPE, "application/json")], body.to_string()).into_response()
}

/// A reason for each tool source that cannot serve now, naming it.
fn unhealthy_sources(catalog: &Catalog) -> Vec<String> {
    catalog
        .health()
        .into_iter()
        .filter_map(|(name, health)| match health {
            SourceHealth::Unavailable(why) => {
                Some(format!("the tool source {name} cannot serve: {why}"))
            }
            _ => None,
        })
        .collect()
}

async fn metrics(State(ops): State<Ops>) -> Response {
    let sessions = ops.sessions.open().await;
    ([(header::CONTENT_TYPE, super::metrics::CONTENT_TYPE)], ops.metrics.render(sessions))
        .into_response()
}

/// `serve --check`: what would be served, after checking the store and the issuer's keys.
pub(crate) async fn check(
    settings: &Settings,
    tools: &[&str],
    sources: &[String],
    stored: &StoredResults,
) -> Result<String, String> {
    probe_store(stored, None).await?;
    let auth = Auth::from_settings(settings);
    let keys = oauth_keys(&auth).await?;
    let mut out = String::new();
    let mut line = |text: String| {
        out.push_str(&text);
        out.push('\n');
    };
    if let Some(file) = &settings.file {
        line(format!("config: {}", file.display()));
    }
    if settings.stdio {
        line("transport: stdio".into());
    } else {
        line(format!("listen: http://{}/mcp", settings.listen));
        let ops_at =
            settings.ops.listen.map_or_else(|| "the MCP address".to_owned(), |a| a.to_string());
        let guarded = if settings.ops.require_auth { ", behind MCP auth" } else { "" };
        line(format!("ops: /healthz /readyz {} on {ops_at}{guarded}", settings.ops.metrics_path));
    }
    line(format!("phase: {}", settings.phase));
    let store = match &settings.store {
        StoreKind::Redb => format!("redb in {}", settings.data_dir.display()),
        StoreKind::Memory => "memory".to_owned(),
        StoreKind::Redis(_) => "redis".to_owned(),
    };
    line(format!("store: {store} (takes writes)"));
    let anonymous = !settings.auth_configured || settings.anonymous;
    line(format!(
        "auth: {} static token(s), anonymous {}",
        settings.tokens.len(),
        if anonymous { "on" } else { "off" }
    ));
    if let (Some(oauth), Some(count)) = (&settings.oauth, keys) {
        line(format!(
            "oauth: issuer {}, audience {}, {count} signing key(s)",
            oauth.issuer, oauth.audience
        ));
    }
    for source in sources {
        line(source.clone());
    }
    line(format!("tools ({}): {}", tools.len(), tools.join(", ")));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use toolwire_mcp::{Registry, ToolSource};

    use super::*;

    struct Down;

    impl ToolSource for Down {
        fn name(&self) -> &str {
            "shop"
        }

        fn tools(&self) -> Registry {
            Registry::named("shop")
        }

        fn health(&self) -> SourceHealth {
            SourceHealth::Unavailable("its MCP server does not answer".into())
        }
    }

    #[test]
    fn readiness_names_a_source_that_cannot_serve() {
        let catalog = Catalog::from(Registry::new());
        assert!(unhealthy_sources(&catalog).is_empty());
        assert!(catalog.add(Down).is_ok());
        assert_eq!(
            unhealthy_sources(&catalog),
            ["the tool source shop cannot serve: its MCP server does not answer"]
        );
    }
}
