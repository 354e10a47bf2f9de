//! Operations a server accepts and runs on (DESIGN §17): an answer `202 Accepted` with a
//! `Location` is polled there — `GET`, the same headers and so the same credentials — at the
//! interval its `Retry-After` asks (kept within bounds), while the server keeps answering
//! `202`; a `303 See Other` from a poll is the outcome's address, fetched the same way. The
//! first other answer is the call's answer. A `Location` on another origin than the request
//! (scheme, host and port) is never polled: the credentials would go with it.

use std::time::Duration;

use reqwest::header::{HeaderMap, LOCATION, RETRY_AFTER};
use reqwest::{Method, StatusCode, Url};

use super::{Answer, FailureKind, SendFailure, Transport};

/// The wait between two polls when the server asks for none.
pub(crate) const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);
/// The shortest wait between two polls, whatever the server asks.
pub(crate) const MIN_INTERVAL: Duration = Duration::from_millis(100);
/// The longest wait between two polls, whatever the server asks.
pub(crate) const MAX_INTERVAL: Duration = Duration::from_secs(30);

/// Where and when to poll next.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Next {
    /// The URL to `GET`.
    pub(crate) url: Url,
    /// How long to wait first.
    pub(crate) after: Duration,
}

/// What `status` and `headers`, the answer to a request for `from`, say to do next: `None` for
/// a final answer, the poll for an accepted operation (or, while `polling`, a `303`), `Err`
/// naming why a `Location` cannot be polled.
pub(crate) fn next(
    status: StatusCode,
    headers: &HeaderMap,
    from: &Url,
    polling: bool,
) -> Option<Result<Next, String>> {
    if !follows(status, polling) {
        return None;
    }
    let Some(location) = headers.get(LOCATION) else {
        // Accepted with nowhere to poll: that answer is all there is.
        return (status == StatusCode::SEE_OTHER)
            .then(|| Err("a 303 answer without a Location".to_owned()));
    };
    let location = match location.to_str() {
        Ok(text) => text,
        Err(_) => return Some(Err("a Location that is not text".to_owned())),
    };
    let url = match from.join(location) {
        Ok(url) => url,
        Err(e) => return Some(Err(format!("a Location that is not a URL ({e})"))),
    };
    if url.origin() != from.origin() {
        return Some(Err(format!(
            "a Location on another origin ({}), where toolwire does not send the call's credentials",
            url.origin().ascii_serialization()
        )));
    }
    let after = match status {
        StatusCode::SEE_OTHER => Duration::ZERO,
        _ => interval(headers),
    };
    Some(Ok(Next { url, after }))
}

/// Whether an answer of `status` is followed: an accepted operation, or while `polling` a `303`.
fn follows(status: StatusCode, polling: bool) -> bool {
    status == StatusCode::ACCEPTED || (polling && status == StatusCode::SEE_OTHER)
}

/// The wait a `Retry-After` of delay-seconds asks for, within the bounds; the default without
/// one (or with an HTTP date, which toolwire does not read).
fn interval(headers: &HeaderMap) -> Duration {
    headers
        .get(RETRY_AFTER)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| text.trim().parse::<u64>().ok())
        .map_or(DEFAULT_INTERVAL, |secs| {
            Duration::from_secs(secs).clamp(MIN_INTERVAL, MAX_INTERVAL)
        })
}

impl Transport {
    /// Sends `method url` with `headers` and, while the server says the operation runs on, polls
    /// it until its final answer. `each` bounds every request (a task's call has no overall
    /// bound but its TTL); `accepted` is called once, when the server first accepts.
    pub(crate) async fn send_polled(
        &self,
        method: Method,
        url: &str,
        headers: &HeaderMap,
        body: Vec<u8>,
        each: Option<Duration>,
        accepted: &(dyn Fn() + Send + Sync),
    ) -> Result<Answer, SendFailure> {
        let mut answer = self.send_within(each, method, url, headers.clone(), body).await?;
        // A final answer, the common case, costs no parse of the URL.
        if !follows(answer.status, false) {
            return Ok(answer);
        }
        let Ok(mut from) = Url::parse(url) else { return Ok(answer) };
        let mut polling = false;
        loop {
            let next = match next(answer.status, &answer.headers, &from, polling) {
                None => return Ok(answer),
                Some(Err(why)) => {
                    return Err(SendFailure { kind: FailureKind::Location, detail: why });
                }
                Some(Ok(next)) => next,
            };
            if !polling {
                accepted();
                polling = true;
            }
            // The body of an interim answer says nothing toolwire reads; it is dropped unread.
            drop(answer);
            tokio::time::sleep(next.after).await;
            answer = self
                .send_within(each, Method::GET, next.url.as_str(), headers.clone(), Vec::new())
                .await?;
            from = next.url;
        }
    }

    /// [`Transport::send`], within `each` when given.
    async fn send_within(
        &self,
        each: Option<Duration>,
        method: Method,
        url: &str,
        headers: HeaderMap,
        body: Vec<u8>,
    ) -> Result<Answer, SendFailure> {
        let Some(limit) = each else { return self.send(method, url, headers, body).await };
        tokio::time::timeout(limit, self.send(method, url, headers, body)).await.unwrap_or_else(
            |_| {
                Err(SendFailure {
                    kind: FailureKind::Timeout(limit),
                    detail: format!("no answer within {} ms", limit.as_millis()),
                })
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use reqwest::header::HeaderValue;

    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    fn headers(pairs: &[(reqwest::header::HeaderName, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                name.clone(),
                HeaderValue::from_str(value).unwrap_or_else(|e| panic!("{e}")),
            );
        }
        map
    }

    #[test]
    fn an_accepted_answer_is_polled_at_its_location_within_bounds() {
        let from = url("http://127.0.0.1:9000/tools/export");
        let accepted = |pairs: &[(reqwest::header::HeaderName, &str)]| {
            next(StatusCode::ACCEPTED, &headers(pairs), &from, false)
        };
        assert_eq!(
            accepted(&[(LOCATION, "/jobs/7"), (RETRY_AFTER, "2")]),
            Some(Ok(Next {
                url: url("http://127.0.0.1:9000/jobs/7"),
                after: Duration::from_secs(2)
            }))
        );
        let after = |retry: &str| {
            accepted(&[(LOCATION, "jobs/7"), (RETRY_AFTER, retry)])
                .and_then(Result::ok)
                .map(|n| n.after)
        };
        assert_eq!(after("0"), Some(MIN_INTERVAL));
        assert_eq!(after("3600"), Some(MAX_INTERVAL));
        assert_eq!(after("Wed, 21 Oct 2026 07:28:00 GMT"), Some(DEFAULT_INTERVAL));
        assert_eq!(
            accepted(&[(LOCATION, "jobs/7")]).and_then(Result::ok).map(|n| n.url),
            Some(url("http://127.0.0.1:9000/tools/jobs/7"))
        );
        // 202 without a Location is a final answer; any other status too.
        assert_eq!(accepted(&[]), None);
        assert_eq!(next(StatusCode::OK, &headers(&[(LOCATION, "/x")]), &from, true), None);
        // A 303 is followed only while polling, at once.
        let see_other = headers(&[(LOCATION, "/results/7")]);
        assert_eq!(next(StatusCode::SEE_OTHER, &see_other, &from, false), None);
        assert_eq!(
            next(StatusCode::SEE_OTHER, &see_other, &from, true),
            Some(Ok(Next { url: url("http://127.0.0.1:9000/results/7"), after: Duration::ZERO }))
        );
    }

    #[test]
    fn a_location_elsewhere_is_never_polled() {
        let from = url("http://127.0.0.1:9000/tools/export");
        for (location, why) in [
            ("http://127.0.0.1:9001/jobs/7", "another origin (http://127.0.0.1:9001)"),
            ("https://127.0.0.1:9000/jobs/7", "another origin (https://127.0.0.1:9000)"),
            ("//evil.example/jobs/7", "another origin (http://evil.example)"),
            ("http://[::1/jobs", "not a URL"),
        ] {
            let got = next(StatusCode::ACCEPTED, &headers(&[(LOCATION, location)]), &from, false);
            match got {
                Some(Err(message)) => assert!(message.contains(why), "{location}: {message}"),
                other => panic!("{location}: {other:?}"),
            }
        }
    }
}
