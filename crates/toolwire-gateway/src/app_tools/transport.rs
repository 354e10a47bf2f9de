//! How an app tool's request reaches its app. A plain `http://` endpoint without a proxy or
//! credentials in its URL (the common case: an app beside the gateway) is called through hyper's
//! pooled HTTP/1 client directly; HTTPS, a proxy or URL credentials go through reqwest, which
//! brings TLS with the tool's CA certificates, proxy tunnels and basic auth. reqwest's own layers
//! (a redirect policy that parses the URL again on every request, a retry wrapper that copies
//! it) cost a call about 40k instructions that a plain endpoint has no use for. Neither follows
//! redirects.

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body as _, Bytes, Incoming};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode};

/// The client of one endpoint.
pub(super) enum Transport {
    /// `http://`, no proxy.
    Plain { client: Client<HttpConnector, Full<Bytes>>, uri: http::Uri },
    /// HTTPS, or any endpoint behind a proxy.
    Reqwest { client: reqwest::Client, url: reqwest::Url },
}

/// Why a request got no answer: what callers are told, and what the log says.
pub(super) struct SendFailure {
    /// Which failure it was.
    pub(super) kind: FailureKind,
    /// The error and its sources, for the log (never the endpoint: the caller logs it shown).
    pub(super) detail: String,
}

/// The failures a caller tells apart.
pub(super) enum FailureKind {
    /// The TLS handshake failed.
    Tls,
    /// The connection was refused or the host is unknown.
    Unreachable,
    /// Anything else.
    Failed,
}

/// An app's answer: its status and headers, its body read chunk by chunk.
pub(super) struct Answer {
    /// The HTTP status.
    pub(super) status: StatusCode,
    /// The response headers.
    pub(super) headers: HeaderMap,
    body: AnswerBody,
}

enum AnswerBody {
    Plain(Incoming),
    Reqwest(reqwest::Response),
}

impl Transport {
    /// The plain client for `url` when it can serve it (`http://` without credentials, which
    /// reqwest turns into an `Authorization` header; `proxied` false), else `reqwest` (built
    /// only then).
    pub(super) fn new(
        url: &reqwest::Url,
        proxied: bool,
        connect_timeout: Duration,
        reqwest: impl FnOnce() -> Result<reqwest::Client, super::AppToolError>,
    ) -> Result<Self, super::AppToolError> {
        let credentials = !url.username().is_empty() || url.password().is_some();
        if url.scheme() == "http" && !proxied && !credentials {
            // A URL reqwest parsed is a valid URI: only a failure here would be a bug.
            if let Ok(uri) = url.as_str().parse::<http::Uri>() {
                let mut connector = HttpConnector::new();
                connector.set_connect_timeout(Some(connect_timeout));
                connector.set_nodelay(true);
                let client = Client::builder(TokioExecutor::new())
                    .pool_timer(TokioTimer::new())
                    .build(connector);
                return Ok(Self::Plain { client, uri });
            }
        }
        Ok(Self::Reqwest { client: reqwest()?, url: url.clone() })
    }

    /// POSTs `body` (JSON) with `headers`, asking for JSON.
    pub(super) async fn post(
        &self,
        headers: &HeaderMap,
        body: Vec<u8>,
    ) -> Result<Answer, SendFailure> {
        const JSON: HeaderValue = HeaderValue::from_static("application/json");
        match self {
            Self::Plain { client, uri } => {
                let mut request = http::Request::new(Full::new(Bytes::from(body)));
                *request.method_mut() = Method::POST;
                *request.uri_mut() = uri.clone();
                let all = request.headers_mut();
                all.clone_from(headers);
                all.append(CONTENT_TYPE, JSON);
                all.append(ACCEPT, JSON);
                let response = client.request(request).await.map_err(|e| SendFailure {
                    kind: if e.is_connect() {
                        FailureKind::Unreachable
                    } else {
                        FailureKind::Failed
                    },
                    detail: chain(&e),
                })?;
                let (parts, body) = response.into_parts();
                Ok(Answer {
                    status: parts.status,
                    headers: parts.headers,
                    body: AnswerBody::Plain(body),
                })
            }
            Self::Reqwest { client, url } => {
                let response = client
                    .post(url.clone())
                    .headers(headers.clone())
                    .header(CONTENT_TYPE, JSON)
                    .header(ACCEPT, JSON)
                    .body(body)
                    .send()
                    .await
                    .map_err(|e| {
                        let e = e.without_url();
                        let kind = if is_tls_failure(&e) {
                            FailureKind::Tls
                        } else if e.is_connect() {
                            FailureKind::Unreachable
                        } else {
                            FailureKind::Failed
                        };
                        SendFailure { kind, detail: chain(&e) }
                    })?;
                Ok(Answer {
                    status: response.status(),
                    headers: response.headers().clone(),
                    body: AnswerBody::Reqwest(response),
                })
            }
        }
    }
}

impl Answer {
    /// How many bytes the app says come, when it says.
    pub(super) fn content_length(&self) -> Option<u64> {
        match &self.body {
            AnswerBody::Plain(body) => body.size_hint().exact(),
            AnswerBody::Reqwest(response) => response.content_length(),
        }
    }

    /// The next piece of the body; `None` at its end. The error says why it broke off.
    pub(super) async fn chunk(&mut self) -> Result<Option<Bytes>, String> {
        match &mut self.body {
            AnswerBody::Plain(body) => loop {
                match body.frame().await {
                    None => return Ok(None),
                    Some(Err(e)) => return Err(chain(&e)),
                    // Trailers carry no data.
                    Some(Ok(frame)) => {
                        if let Ok(data) = frame.into_data() {
                            return Ok(Some(data));
                        }
                    }
                }
            },
            AnswerBody::Reqwest(response) => {
                response.chunk().await.map_err(|e| chain(&e.without_url()))
            }
        }
    }
}

/// Whether a request failed in the TLS handshake (an untrusted or mismatched certificate).
fn is_tls_failure(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(error);
    while let Some(error) = next {
        if error.is::<rustls::Error>() {
            return true;
        }
        // `io::Error::source` skips the error it wraps (hyper nests two): step into it instead.
        next = match error.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref) {
            Some(inner) => Some(inner),
            None => error.source(),
        };
    }
    false
}

/// An error and its sources, `: `-separated, for the log.
pub(crate) fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(source) = next {
        text.push_str(": ");
        text.push_str(&source.to_string());
        next = source.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn which(url: &str, proxied: bool) -> &'static str {
        let url = reqwest::Url::parse(url).unwrap_or_else(|e| panic!("{url}: {e}"));
        let built = Transport::new(&url, proxied, Duration::from_secs(1), || {
            Ok(reqwest::Client::builder()
                .tls_backend_preconfigured(
                    crate::tls::client_config(None).unwrap_or_else(|e| panic!("{e}")),
                )
                .build()
                .unwrap_or_else(|e| panic!("{e}")))
        });
        match built {
            Ok(Transport::Plain { uri, .. }) => {
                assert_eq!(uri.to_string(), url.as_str());
                "plain"
            }
            Ok(Transport::Reqwest { .. }) => "reqwest",
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn only_plain_unproxied_http_skips_reqwest() {
        assert_eq!(which("http://127.0.0.1:8080/tools/run?x=1", false), "plain");
        assert_eq!(which("http://user:pw@app.internal/run", false), "reqwest");
        assert_eq!(which("http://127.0.0.1:8080/run", true), "reqwest");
        assert_eq!(which("https://app.internal/run", false), "reqwest");
    }
}
