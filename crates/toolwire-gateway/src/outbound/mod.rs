//! How the gateway's own HTTP requests (app tools, OpenAPI operations) reach their servers. A
//! plain `http://` server without a proxy or credentials in its URL (the common case: an app or
//! API beside the gateway) is called through hyper's pooled HTTP/1 client directly; HTTPS, a
//! proxy or URL credentials go through reqwest, which brings TLS with the configured CA
//! certificates, proxy tunnels and basic auth. reqwest's own layers (a redirect policy that
//! parses the URL again on every request, a retry wrapper that copies it) cost a call about 40k
//! instructions that a plain server has no use for. Neither follows redirects. The answer's
//! body is read by [`read_capped`], within a byte cap and the large-answer places; an operation
//! the server accepts and runs on is polled by [`poll`].

mod poll;

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body as _, Bytes, Incoming};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use reqwest::header::HeaderMap;
use reqwest::{Method, StatusCode};
use toolwire_mcp::work::{CallPlaces, LARGE, Work};

/// The client of one server (an app tool's endpoint, an API's base URL, an upstream MCP
/// server); a clone shares its connections.
#[derive(Clone)]
pub(crate) enum Transport {
    /// `http://`, no proxy, no credentials in the URL.
    Plain(Client<HttpConnector, Full<Bytes>>),
    /// HTTPS, or any server behind a proxy or with credentials in its URL.
    Reqwest(reqwest::Client),
}

/// Why a request got no answer: what callers are told, and what the log says.
pub(crate) struct SendFailure {
    /// Which failure it was.
    pub(crate) kind: FailureKind,
    /// The error and its sources, for the log (never the URL: the caller logs it shown).
    pub(crate) detail: String,
}

/// The failures a caller tells apart.
pub(crate) enum FailureKind {
    /// The TLS handshake failed.
    Tls,
    /// The connection was refused or the host is unknown.
    Unreachable,
    /// An accepted operation's `Location` cannot be polled (the detail says why, callers may
    /// read it).
    Location,
    /// One request of a polled call got no answer within this bound.
    Timeout(Duration),
    /// Anything else.
    Failed,
}

/// A server's answer: its status and headers, its body read chunk by chunk.
pub(crate) struct Answer {
    /// The HTTP status.
    pub(crate) status: StatusCode,
    /// The response headers.
    pub(crate) headers: HeaderMap,
    body: AnswerBody,
}

enum AnswerBody {
    Plain(Incoming),
    Reqwest(reqwest::Response),
}

impl Transport {
    /// The plain client when `base` allows it (`http://` without credentials, which reqwest
    /// turns into an `Authorization` header; `proxied` false), else `reqwest` (built only then).
    /// Every URL later sent through it has `base`'s scheme and authority.
    pub(crate) fn new<E>(
        base: &reqwest::Url,
        proxied: bool,
        connect_timeout: Duration,
        reqwest: impl FnOnce() -> Result<reqwest::Client, E>,
    ) -> Result<Self, E> {
        let credentials = !base.username().is_empty() || base.password().is_some();
        if base.scheme() == "http" && !proxied && !credentials {
            let mut connector = HttpConnector::new();
            connector.set_connect_timeout(Some(connect_timeout));
            connector.set_nodelay(true);
            let client = Client::builder(TokioExecutor::new())
                .pool_timer(TokioTimer::new())
                .build(connector);
            return Ok(Self::Plain(client));
        }
        Ok(Self::Reqwest(reqwest()?))
    }

    /// Sends `method url` with `headers` (all of them: content type and accept included) and
    /// `body`.
    pub(crate) async fn send(
        &self,
        method: Method,
        url: &str,
        headers: HeaderMap,
        body: Vec<u8>,
    ) -> Result<Answer, SendFailure> {
        match self {
            Self::Plain(client) => {
                let uri = url.parse::<http::Uri>().map_err(|e| SendFailure {
                    kind: FailureKind::Failed,
                    detail: format!("the URL is not a valid URI: {e}"),
                })?;
                let mut request = http::Request::new(Full::new(Bytes::from(body)));
                *request.method_mut() = method;
                *request.uri_mut() = uri;
                *request.headers_mut() = headers;
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
            Self::Reqwest(client) => {
                let response =
                    client.request(method, url).headers(headers).body(body).send().await.map_err(
                        |e| {
                            let e = e.without_url();
                            let kind = if is_tls_failure(&e) {
                                FailureKind::Tls
                            } else if e.is_connect() {
                                FailureKind::Unreachable
                            } else {
                                FailureKind::Failed
                            };
                            SendFailure { kind, detail: chain(&e) }
                        },
                    )?;
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
    /// The value of header `name`, when it is text.
    pub(crate) fn header(&self, name: reqwest::header::HeaderName) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// How many bytes the server says come, when it says.
    pub(crate) fn content_length(&self) -> Option<u64> {
        match &self.body {
            AnswerBody::Plain(body) => body.size_hint().exact(),
            AnswerBody::Reqwest(response) => response.content_length(),
        }
    }

    /// The next piece of the body; `None` at its end. The error says why it broke off.
    pub(crate) async fn chunk(&mut self) -> Result<Option<Bytes>, String> {
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

/// Whether a media type is JSON (`application/json`, `…+json`, parameters ignored).
pub(crate) fn is_json_media(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
    essence == "application/json" || (essence.contains('/') && essence.ends_with("+json"))
}

/// Why an answer's body could not be read whole.
pub(crate) enum ReadFailure {
    /// It is longer than the cap (the cap).
    TooLarge(u64),
    /// It broke off (the error, for the log).
    BrokeOff(String),
    /// No place among the large calls was free (the error, for the log).
    NoPlace(String),
}

/// The answer's body, at most `cap` bytes, in one buffer sized once when the server says how
/// much comes (never past the cap): no doubling of a large answer as it streams in. A large
/// answer is read once `call` has a place among the large calls (kept until the call ends), so
/// that the answers of waiting calls stay with their servers.
pub(crate) async fn read_capped(
    answer: &mut Answer,
    cap: u64,
    work: &Work,
    call: &CallPlaces,
) -> Result<Vec<u8>, ReadFailure> {
    let admit =
        || async { work.admit_large(call).await.map_err(|e| ReadFailure::NoPlace(e.to_string())) };
    let expected = answer.content_length().unwrap_or(0).min(cap);
    let expected = usize::try_from(expected).unwrap_or(0);
    if expected >= LARGE {
        admit().await?;
    }
    let mut bytes = Vec::with_capacity(expected);
    loop {
        if bytes.len() >= LARGE && !call.holds() {
            admit().await?;
        }
        let Some(chunk) = answer.chunk().await.map_err(ReadFailure::BrokeOff)? else {
            return Ok(bytes);
        };
        if (bytes.len() + chunk.len()) as u64 > cap {
            return Err(ReadFailure::TooLarge(cap));
        }
        bytes.extend_from_slice(&chunk);
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
            Ok::<_, String>(
                reqwest::Client::builder()
                    .tls_backend_preconfigured(
                        crate::tls::client_config(None).unwrap_or_else(|e| panic!("{e}")),
                    )
                    .build()
                    .unwrap_or_else(|e| panic!("{e}")),
            )
        });
        match built {
            Ok(Transport::Plain(_)) => "plain",
            Ok(Transport::Reqwest(_)) => "reqwest",
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn json_media_types() {
        assert!(is_json_media("application/json"));
        assert!(is_json_media("application/json; charset=utf-8"));
        assert!(is_json_media("application/problem+json"));
        assert!(is_json_media("Application/JSON"));
        assert!(!is_json_media("text/plain"));
        assert!(!is_json_media(""));
        assert!(!is_json_media("+json"));
    }

    #[test]
    fn only_plain_unproxied_http_skips_reqwest() {
        assert_eq!(which("http://127.0.0.1:8080/tools/run?x=1", false), "plain");
        assert_eq!(which("http://user:pw@app.internal/run", false), "reqwest");
        assert_eq!(which("http://127.0.0.1:8080/run", true), "reqwest");
        assert_eq!(which("https://app.internal/run", false), "reqwest");
    }
}
