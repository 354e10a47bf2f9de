//! The HTTP request of one call, written from its (already validated) arguments: path
//! parameters percent-encoded into the template, query parameters in the operation's style,
//! required headers and cookies, the JSON body, and the credentials of the first security
//! requirement the configuration can meet. Sans-IO: the caller sends what this builds.

use std::collections::BTreeMap;

use base64::Engine as _;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde_json::{Map, Value};

use super::operation::{BodyKind, CallPlan, Location, Param, Style};

/// Everything but RFC 3986's unreserved characters is escaped in a path segment or a value.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// A query value with `allowReserved`: reserved characters stay as they are.
const RESERVED_KEPT: &AsciiSet = &COMPONENT
    .remove(b':')
    .remove(b'/')
    .remove(b'?')
    .remove(b'@')
    .remove(b'!')
    .remove(b'$')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=');

/// How a security scheme of the document sends its credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scheme {
    /// `apiKey`: the secret as a header, query parameter or cookie of this name.
    ApiKey {
        /// Where it goes.
        location: Location,
        /// Its name there.
        name: String,
    },
    /// `http` `bearer`, `oauth2` and `openIdConnect`: `Authorization: Bearer <secret>`.
    Bearer,
    /// `http` `basic`: the secret is `user:password`, sent base64-encoded.
    Basic,
}

/// The credentials a gateway holds for a document: each security scheme it can apply, with
/// its secret.
#[derive(Debug, Clone, Default)]
pub struct Credentials(pub BTreeMap<String, (Scheme, String)>);

/// A request ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The method.
    pub method: http::Method,
    /// The whole URL.
    pub url: String,
    /// Headers (credentials included), in order.
    pub headers: Vec<(String, String)>,
    /// The JSON body and its media type.
    pub body: Option<(String, Vec<u8>)>,
}

impl std::fmt::Display for Request {
    /// The method and the URL without its query (which may carry an API key), for logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let url = self.url.split('?').next().unwrap_or_default();
        write!(f, "{} {url}", self.method)
    }
}

/// Why arguments could not be written into a request (they passed the schema, but HTTP cannot
/// carry them as given): said to the caller as invalid arguments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("argument `{argument}`: {message}")]
pub struct WriteError {
    /// The argument.
    pub argument: String,
    /// What is wrong.
    pub message: String,
}

/// The request of `plan` against `base` (the API's base URL) for `arguments`.
pub fn build(
    plan: &CallPlan,
    base: &str,
    arguments: &Value,
    credentials: &Credentials,
) -> Result<Request, WriteError> {
    let empty = Map::new();
    let arguments = arguments.as_object().unwrap_or(&empty);
    let mut path = plan.path.clone();
    let mut query: Vec<String> = Vec::new();
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut cookies: Vec<String> = Vec::new();
    for param in &plan.params {
        let Some(value) = arguments.get(&param.argument).filter(|v| !v.is_null()) else {
            continue;
        };
        match param.location {
            Location::Path => {
                let written = path_value(param, value);
                path = path.replace(&format!("{{{}}}", param.name), &written);
            }
            Location::Query => query.extend(query_pairs(param, value)),
            Location::Header => {
                let text =
                    if param.json { value.to_string() } else { simple(value, param.explode) };
                check_header(&param.argument, &text)?;
                headers.push((param.name.clone(), text));
            }
            Location::Cookie => {
                let text = if param.json { value.to_string() } else { simple(value, false) };
                cookies.push(format!("{}={}", param.name, encode(&text)));
            }
        }
    }
    apply_credentials(plan, credentials, &mut headers, &mut query, &mut cookies);
    if !cookies.is_empty() {
        headers.push(("cookie".into(), cookies.join("; ")));
    }
    let mut url = format!("{}{path}", base.trim_end_matches('/'));
    if !query.is_empty() {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(&query.join("&"));
    }
    let body = match (&plan.body, arguments.get("body")) {
        (Some(body), Some(value)) => {
            let bytes = match (body.kind, value) {
                (BodyKind::Text, Value::String(text)) => text.clone().into_bytes(),
                (BodyKind::Form, Value::Object(fields)) => form(fields).into_bytes(),
                _ => value.to_string().into_bytes(),
            };
            Some((body.media.clone(), bytes))
        }
        _ => None,
    };
    Ok(Request { method: plan.method.clone(), url, headers, body })
}

/// The credentials of the first security requirement whose schemes all have a secret; an empty
/// requirement (authentication optional) is taken only when no other can be met.
fn apply_credentials(
    plan: &CallPlan,
    credentials: &Credentials,
    headers: &mut Vec<(String, String)>,
    query: &mut Vec<String>,
    cookies: &mut Vec<String>,
) {
    let met = plan.security.iter().find(|requirement| {
        !requirement.is_empty() && requirement.iter().all(|s| credentials.0.contains_key(s))
    });
    for scheme in met.into_iter().flatten() {
        let Some((scheme, secret)) = credentials.0.get(scheme) else { continue };
        match scheme {
            Scheme::ApiKey { location: Location::Query, name } => {
                query.push(format!("{}={}", encode(name), encode(secret)));
            }
            Scheme::ApiKey { location: Location::Cookie, name } => {
                cookies.push(format!("{name}={}", encode(secret)));
            }
            Scheme::ApiKey { name, .. } => headers.push((name.clone(), secret.clone())),
            Scheme::Bearer => headers.push(("authorization".into(), format!("Bearer {secret}"))),
            Scheme::Basic => {
                let encoded = base64::engine::general_purpose::STANDARD.encode(secret);
                headers.push(("authorization".into(), format!("Basic {encoded}")));
            }
        }
    }
}

/// An object as `application/x-www-form-urlencoded`: arrays as repeated fields, objects as
/// JSON text.
fn form(fields: &Map<String, Value>) -> String {
    let mut pairs = Vec::new();
    for (name, value) in fields {
        match value {
            Value::Null => {}
            Value::Array(items) => {
                pairs
                    .extend(items.iter().map(|v| format!("{}={}", encode(name), encode(&text(v)))));
            }
            Value::Object(_) => {
                pairs.push(format!("{}={}", encode(name), encode(&value.to_string())))
            }
            other => pairs.push(format!("{}={}", encode(name), encode(&text(other)))),
        }
    }
    pairs.join("&")
}

fn encode(text: &str) -> String {
    utf8_percent_encode(text, COMPONENT).to_string()
}

/// A primitive as text: strings as they are, numbers and booleans as JSON writes them.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `simple` style: `a,b,c` for an array; `k,v,k,v` (or `k=v,k=v` exploded) for an object.
fn simple(value: &Value, explode: bool) -> String {
    match value {
        Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join(","),
        Value::Object(map) => map
            .iter()
            .map(
                |(k, v)| {
                    if explode { format!("{k}={}", text(v)) } else { format!("{k},{}", text(v)) }
                },
            )
            .collect::<Vec<_>>()
            .join(","),
        other => text(other),
    }
}

/// A path parameter's text, each piece percent-encoded, in its style.
fn path_value(param: &Param, value: &Value) -> String {
    if param.json {
        return encode(&value.to_string());
    }
    let pieces: Vec<(Option<String>, String)> = match value {
        Value::Array(items) => items.iter().map(|v| (None, encode(&text(v)))).collect(),
        Value::Object(map) => {
            map.iter().map(|(k, v)| (Some(encode(k)), encode(&text(v)))).collect()
        }
        other => vec![(None, encode(&text(other)))],
    };
    let joined = |between: &str, pair: &str| {
        pieces
            .iter()
            .map(|(k, v)| match k {
                Some(k) => format!("{k}{pair}{v}"),
                None => v.clone(),
            })
            .collect::<Vec<_>>()
            .join(between)
    };
    let name = encode(&param.name);
    match (param.style, param.explode) {
        (Style::Label, true) => format!(".{}", joined(".", "=")),
        (Style::Label, false) => format!(".{}", joined(",", ",")),
        (Style::Matrix, true) => match value {
            Value::Object(_) => format!(";{}", joined(";", "=")),
            _ => pieces.iter().map(|(_, v)| format!(";{name}={v}")).collect(),
        },
        (Style::Matrix, false) => format!(";{name}={}", joined(",", ",")),
        (_, explode) => joined(",", if explode { "=" } else { "," }),
    }
}

/// A query parameter's `name=value` pairs in its style.
fn query_pairs(param: &Param, value: &Value) -> Vec<String> {
    let set = if param.allow_reserved { RESERVED_KEPT } else { COMPONENT };
    let enc = |t: &str| utf8_percent_encode(t, set).to_string();
    let name = encode(&param.name);
    if param.json {
        return vec![format!("{name}={}", enc(&value.to_string()))];
    }
    match (value, param.style, param.explode) {
        (Value::Array(items), Style::SpaceDelimited, false) => {
            vec![format!(
                "{name}={}",
                items.iter().map(|v| enc(&text(v))).collect::<Vec<_>>().join("%20")
            )]
        }
        (Value::Array(items), Style::PipeDelimited, false) => {
            vec![format!(
                "{name}={}",
                items.iter().map(|v| enc(&text(v))).collect::<Vec<_>>().join("|")
            )]
        }
        (Value::Array(items), _, true) => {
            items.iter().map(|v| format!("{name}={}", enc(&text(v)))).collect()
        }
        (Value::Array(items), _, false) => {
            vec![format!(
                "{name}={}",
                items.iter().map(|v| enc(&text(v))).collect::<Vec<_>>().join(",")
            )]
        }
        (Value::Object(map), Style::DeepObject, _) => map
            .iter()
            .map(|(k, v)| format!("{name}%5B{}%5D={}", encode(k), enc(&text(v))))
            .collect(),
        (Value::Object(map), _, true) => {
            map.iter().map(|(k, v)| format!("{}={}", encode(k), enc(&text(v)))).collect()
        }
        (Value::Object(map), _, false) => {
            let joined: Vec<String> =
                map.iter().map(|(k, v)| format!("{},{}", enc(k), enc(&text(v)))).collect();
            vec![format!("{name}={}", joined.join(","))]
        }
        (other, _, _) => vec![format!("{name}={}", enc(&text(other)))],
    }
}

/// A header value HTTP can carry: visible ASCII, spaces and tabs.
fn check_header(name: &str, value: &str) -> Result<(), WriteError> {
    if value.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) {
        return Ok(());
    }
    Err(WriteError {
        argument: name.to_owned(),
        message: "a header value may hold only visible ASCII characters and spaces".into(),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn param(name: &str, location: Location, style: Style, explode: bool) -> Param {
        Param {
            name: name.into(),
            argument: name.into(),
            location,
            style,
            explode,
            allow_reserved: false,
            json: false,
        }
    }

    fn plan(path: &str, params: Vec<Param>, security: Vec<Vec<String>>) -> CallPlan {
        CallPlan { method: http::Method::GET, path: path.into(), params, body: None, security }
    }

    fn url(plan: &CallPlan, arguments: Value) -> String {
        build(plan, "http://api.test/v1/", &arguments, &Credentials::default())
            .unwrap_or_else(|e| panic!("{e}"))
            .url
    }

    #[test]
    fn path_parameters_are_encoded_in_their_style() {
        let p = plan(
            "/files/{name}/v/{ids}",
            vec![
                param("name", Location::Path, Style::Simple, false),
                param("ids", Location::Path, Style::Simple, false),
            ],
            vec![],
        );
        assert_eq!(
            url(&p, json!({"name": "a b/../c?d#e", "ids": [1, 2]})),
            "http://api.test/v1/files/a%20b%2F..%2Fc%3Fd%23e/v/1,2"
        );
        let label = plan("/x{v}", vec![param("v", Location::Path, Style::Label, false)], vec![]);
        assert_eq!(url(&label, json!({"v": ["a", "b"]})), "http://api.test/v1/x.a,b");
        let matrix = plan("/x{v}", vec![param("v", Location::Path, Style::Matrix, true)], vec![]);
        assert_eq!(url(&matrix, json!({"v": ["a", "b"]})), "http://api.test/v1/x;v=a;v=b");
        assert_eq!(url(&matrix, json!({"v": {"k": "é"}})), "http://api.test/v1/x;k=%C3%A9");
    }

    #[test]
    fn query_parameters_follow_their_style() {
        let q = |style, explode, value: Value| {
            let p = plan("/q", vec![param("t", Location::Query, style, explode)], vec![]);
            url(&p, json!({"t": value}))
        };
        assert_eq!(q(Style::Form, true, json!(["a", "b c"])), "http://api.test/v1/q?t=a&t=b%20c");
        assert_eq!(q(Style::Form, false, json!(["a", "b"])), "http://api.test/v1/q?t=a,b");
        assert_eq!(
            q(Style::SpaceDelimited, false, json!(["a", "b"])),
            "http://api.test/v1/q?t=a%20b"
        );
        assert_eq!(q(Style::PipeDelimited, false, json!(["a", "b"])), "http://api.test/v1/q?t=a|b");
        assert_eq!(q(Style::DeepObject, true, json!({"k": 1})), "http://api.test/v1/q?t%5Bk%5D=1");
        assert_eq!(q(Style::Form, true, json!({"k": true})), "http://api.test/v1/q?k=true");
        assert_eq!(q(Style::Form, true, json!("&=?")), "http://api.test/v1/q?t=%26%3D%3F");
        assert_eq!(q(Style::Form, true, json!(null)), "http://api.test/v1/q");
    }

    #[test]
    fn credentials_follow_the_first_requirement_that_can_be_met() {
        let mut credentials = Credentials::default();
        credentials.0.insert(
            "key".into(),
            (Scheme::ApiKey { location: Location::Query, name: "api_key".into() }, "s3cr&t".into()),
        );
        credentials.0.insert("basic".into(), (Scheme::Basic, "u:p".into()));
        let p = plan(
            "/x",
            vec![],
            vec![vec![], vec!["oauth".into()], vec!["key".into(), "basic".into()]],
        );
        let request = build(&p, "https://api.test", &json!({}), &credentials)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(request.url, "https://api.test/x?api_key=s3cr%26t");
        assert_eq!(request.headers, vec![("authorization".to_owned(), "Basic dTpw".to_owned())]);
        assert_eq!(request.to_string(), "GET https://api.test/x");
    }

    #[test]
    fn headers_cookies_and_bodies() {
        let mut p = plan(
            "/x",
            vec![
                param("X-Tenant", Location::Header, Style::Simple, false),
                param("session", Location::Cookie, Style::Form, true),
            ],
            vec![],
        );
        p.body = Some(super::super::operation::Body {
            media: "application/json".into(),
            kind: BodyKind::Json,
        });
        let request = build(
            &p,
            "http://api.test",
            &json!({"X-Tenant": "acme", "session": "a;b", "body": {"n": 1}}),
            &Credentials::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            request.headers,
            vec![
                ("X-Tenant".to_owned(), "acme".to_owned()),
                ("cookie".to_owned(), "session=a%3Bb".to_owned())
            ]
        );
        assert_eq!(request.body, Some(("application/json".to_owned(), br#"{"n":1}"#.to_vec())));
        p.body = Some(super::super::operation::Body {
            media: "application/x-www-form-urlencoded".into(),
            kind: BodyKind::Form,
        });
        let form = build(
            &p,
            "http://api.test",
            &json!({"body": {"To": "+1 555", "Tags": ["a", "b&c"], "N": null}}),
            &Credentials::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            form.body,
            Some((
                "application/x-www-form-urlencoded".to_owned(),
                b"To=%2B1%20555&Tags=a&Tags=b%26c".to_vec()
            ))
        );
        let refused =
            build(&p, "http://api.test", &json!({"X-Tenant": "a\nb"}), &Credentials::default());
        assert_eq!(
            refused.map_err(|e| e.to_string()),
            Err("argument `X-Tenant`: a header value may hold only visible ASCII characters and spaces".to_owned())
        );
    }
}
