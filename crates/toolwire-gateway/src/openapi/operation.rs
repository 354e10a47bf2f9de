//! The tools of an OpenAPI document: one per operation (GET and HEAD only unless writes are
//! allowed), each with its name, description, annotations, input schema (path, query and
//! required header and cookie parameters as properties, the JSON body under `body`), output
//! declaration (the first 2xx JSON response) and the plan of the HTTP request a call makes. An
//! operation that cannot become a tool is skipped with the reason and where in the document;
//! the others are served.

use std::collections::BTreeSet;

use rmcp::model::ToolAnnotations;
use serde_json::{Map, Value, json};

use super::document::{Document, escape_token};
use super::schema::{Defs, SchemaError, TOOL_BUDGET};
use crate::config::Glob;
use crate::outbound::is_json_media;

/// The HTTP methods OpenAPI describes, in the order operations are read.
const METHODS: [&str; 8] = ["get", "head", "post", "put", "patch", "delete", "options", "trace"];

/// The most values all the tools of one document may copy into their schemas (every tool has
/// its own `$defs`, so shared models are copied once per tool that uses them).
pub const DOCUMENT_BUDGET: usize = 2_000_000;

/// What turns a document into tools.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Put before every tool name.
    pub tool_prefix: String,
    /// Whether operations other than GET and HEAD become tools.
    pub writes: bool,
    /// Which operations become tools (globs over the operationId, or the generated name of an
    /// operation without one); all when `None`.
    pub operations: Option<Vec<Glob>>,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Location {
    /// Into the path template.
    Path,
    /// Into the query string.
    Query,
    /// A request header.
    Header,
    /// A cookie.
    Cookie,
}

/// How an array or object parameter is written (OpenAPI's `style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `simple`: `a,b,c` (path and header default).
    Simple,
    /// `form`: `x=a&x=b` exploded, `x=a,b` not (query and cookie default).
    Form,
    /// `label`: `.a.b` (path).
    Label,
    /// `matrix`: `;x=a;x=b` (path).
    Matrix,
    /// `spaceDelimited`: `x=a%20b` (query arrays).
    SpaceDelimited,
    /// `pipeDelimited`: `x=a|b` (query arrays).
    PipeDelimited,
    /// `deepObject`: `x[k]=v` (query objects).
    DeepObject,
}

/// One parameter of an operation, as a call writes it.
#[derive(Debug, Clone)]
pub struct Param {
    /// Its name in the request.
    pub name: String,
    /// The argument that holds it: its name, or `<in>_<name>` when another parameter (or the
    /// body) has that name already.
    pub argument: String,
    /// Where it goes.
    pub location: Location,
    /// How arrays and objects are written.
    pub style: Style,
    /// Whether arrays and objects are exploded.
    pub explode: bool,
    /// Whether reserved characters of a query value are sent as they are.
    pub allow_reserved: bool,
    /// Whether the value is sent as JSON text (a parameter described by `content`).
    pub json: bool,
}

/// How the `body` argument is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// As JSON.
    Json,
    /// An object as `application/x-www-form-urlencoded`.
    Form,
    /// A string as it is (`text/*`).
    Text,
}

/// The request body of an operation: its media type and how it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Body {
    /// The media type sent as `Content-Type`.
    pub media: String,
    /// How the argument is written.
    pub kind: BodyKind,
}

/// What a call sends: the method, the path template, the parameters, the body, and the
/// security requirements (alternatives of scheme names; empty: none).
#[derive(Debug, Clone)]
pub struct CallPlan {
    /// The HTTP method.
    pub method: http::Method,
    /// The path template (`/nodes/{node_id}`).
    pub path: String,
    /// The parameters.
    pub params: Vec<Param>,
    /// The body, when the operation takes one.
    pub body: Option<Body>,
    /// Each alternative names the schemes that must all be applied.
    pub security: Vec<Vec<String>>,
}

/// One operation made into a tool.
#[derive(Debug, Clone)]
pub struct OperationTool {
    /// The tool name (the prefix included).
    pub name: String,
    /// The title (the operation's summary, when it also has a description).
    pub title: Option<String>,
    /// The description.
    pub description: String,
    /// The annotations, from the method.
    pub annotations: ToolAnnotations,
    /// The input schema.
    pub input_schema: Value,
    /// The output declaration (a JSON Schema of the data), when the operation declares one.
    pub output_schema: Option<Value>,
    /// Whether the operation declares a `202 Accepted` answer: it runs on after answering, so
    /// its calls may become tasks (DESIGN §17).
    pub accepted: bool,
    /// What a call sends.
    pub plan: CallPlan,
    /// Where the operation is (`/paths/~1nodes~1{node_id}/get`).
    pub pointer: String,
}

/// An operation that did not become a tool, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// `GET /nodes/{id}` (and the operationId when it has one).
    pub operation: String,
    /// Where it is.
    pub pointer: String,
    /// Why.
    pub reason: String,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at {}): {}", self.operation, self.pointer, self.reason)
    }
}

/// The tools of a document, what was skipped, and how many operations the options left out.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    /// The tools, in document order.
    pub tools: Vec<OperationTool>,
    /// Operations that could not become tools.
    pub skipped: Vec<Skipped>,
    /// Operations left out by `writes` or `operations`.
    pub left_out: usize,
}

/// Every operation of `doc` made into a tool, as `options` say.
pub fn generate(doc: &Document, options: &Options) -> Generated {
    let mut out = Generated::default();
    let Some(paths) = doc.root().get("paths").and_then(Value::as_object) else {
        return out;
    };
    let mut names = BTreeSet::new();
    let mut budget = DOCUMENT_BUDGET;
    for (path, item) in paths {
        let item_at = format!("/paths/{}", escape_token(path));
        let item = match doc.follow(item) {
            Ok(item) => item,
            Err(reason) => {
                out.skipped.push(Skipped { operation: path.clone(), pointer: item_at, reason });
                continue;
            }
        };
        for method in METHODS {
            let Some(operation) = item.get(method) else { continue };
            let pointer = format!("{item_at}/{method}");
            let id = operation.get("operationId").and_then(Value::as_str);
            let label = match id {
                Some(id) => format!("{} {path} ({id})", method.to_uppercase()),
                None => format!("{} {path}", method.to_uppercase()),
            };
            let generated_name = method_path(method, path);
            let selector = id.unwrap_or(&generated_name);
            let wanted = options.writes || matches!(method, "get" | "head");
            let listed = options
                .operations
                .as_ref()
                .is_none_or(|globs| globs.iter().any(|g| g.matches(selector)));
            if !wanted || !listed {
                out.left_out += 1;
                continue;
            }
            if budget == 0 {
                out.skipped.push(Skipped {
                    operation: label,
                    pointer,
                    reason: format!(
                        "the document's tools together copy more than {DOCUMENT_BUDGET} schema values"
                    ),
                });
                continue;
            }
            let name = unique_name(&options.tool_prefix, id, &generated_name, &mut names);
            let allowed = budget.min(TOOL_BUDGET);
            let built = Builder { doc, path, method, item, operation, pointer: &pointer }
                .build(name, allowed);
            match built {
                Ok((tool, spent)) => {
                    budget = budget.saturating_sub(spent);
                    out.tools.push(tool);
                }
                // What a failed operation copied is counted as all it was allowed: thousands of
                // operations each copying almost a tool's budget must not add up unbounded.
                Err(SchemaError { pointer, message }) => {
                    budget = budget.saturating_sub(allowed);
                    out.skipped.push(Skipped { operation: label, pointer, reason: message });
                }
            }
        }
    }
    out
}

/// `get_nodes_node_id` for `GET /nodes/{node_id}`: lowercase, `_` for every run of other
/// characters.
fn method_path(method: &str, path: &str) -> String {
    let mut name = String::from(method);
    let mut gap = true;
    for c in path.chars() {
        if c.is_ascii_alphanumeric() {
            if gap {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
            gap = false;
        } else {
            gap = true;
        }
    }
    name
}

/// The tool name: the prefix and the operationId when that is a valid tool name, else the
/// prefix and `method_path` (cut to fit), made unique with `_2`, `_3`, … in document order.
fn unique_name(
    prefix: &str,
    id: Option<&str>,
    generated: &str,
    taken: &mut BTreeSet<String>,
) -> String {
    const MAX: usize = 64;
    let valid = |name: &str| {
        (1..=MAX).contains(&name.len())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
    };
    let base = match id.map(|id| format!("{prefix}{id}")) {
        Some(name) if valid(&name) && !taken.contains(&name) => name,
        _ => {
            let mut name = format!("{prefix}{generated}");
            name.truncate(MAX);
            name
        }
    };
    let mut name = base.clone();
    let mut n = 2;
    while taken.contains(&name) {
        let suffix = format!("_{n}");
        let mut cut = base.clone();
        cut.truncate(MAX - suffix.len());
        name = format!("{cut}{suffix}");
        n += 1;
    }
    taken.insert(name.clone());
    name
}

/// One operation being made into a tool.
struct Builder<'a> {
    doc: &'a Document,
    path: &'a str,
    method: &'a str,
    item: &'a Value,
    operation: &'a Value,
    pointer: &'a str,
}

impl Builder<'_> {
    fn fail(&self, at: &str, message: impl Into<String>) -> SchemaError {
        SchemaError { pointer: format!("{}{at}", self.pointer), message: message.into() }
    }

    /// The tool, and the schema values it copied.
    fn build(&self, name: String, budget: usize) -> Result<(OperationTool, usize), SchemaError> {
        let mut input_defs = Defs::new(self.doc, budget, TOOL_BUDGET);
        let mut properties = Map::new();
        let mut required = Vec::new();
        let params = self.params(&mut input_defs, &mut properties, &mut required)?;
        let body = self.body(&mut input_defs, &mut properties, &mut required)?;
        let mut input = Map::new();
        input.insert("type".into(), "object".into());
        input.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            input.insert("required".into(), required.into_iter().map(Value::String).collect());
        }
        input.insert("additionalProperties".into(), false.into());
        let (input_schema, left) = input_defs.finish(input)?;
        let mut output_defs = Defs::new(self.doc, left, TOOL_BUDGET);
        let (output_schema, left) = match self.output(&mut output_defs)? {
            Some(Value::Object(root)) => {
                let (schema, left) = output_defs.finish(root)?;
                (Some(Value::Object(inline_root(schema))), left)
            }
            Some(other) => (Some(other), output_defs.left()),
            None => (None, left),
        };
        let input_schema = Value::Object(input_schema);
        self.valid("input", &input_schema)?;
        if let Some(output) = &output_schema {
            self.valid("output", output)?;
        }
        let spent = budget - left;
        let summary = self.text("summary");
        let description = self.text("description");
        let (title, description) = match (summary, description) {
            (Some(s), Some(d)) if d.starts_with(&s) => (Some(s), d),
            (Some(s), Some(d)) => (Some(s.clone()), format!("{s}\n\n{d}")),
            (Some(s), None) => (None, s),
            (None, Some(d)) => (None, d),
            (None, None) => (None, format!("{} {}", self.method.to_uppercase(), self.path)),
        };
        let method = http::Method::from_bytes(self.method.to_uppercase().as_bytes())
            .map_err(|_| self.fail("", "not an HTTP method"))?;
        let tool = OperationTool {
            name,
            title,
            description,
            annotations: annotations(self.method),
            input_schema,
            output_schema,
            accepted: self
                .operation
                .get("responses")
                .and_then(Value::as_object)
                .is_some_and(|responses| responses.contains_key("202")),
            plan: CallPlan {
                method,
                path: self.path.to_owned(),
                params,
                body,
                security: self.security()?,
            },
            pointer: self.pointer.to_owned(),
        };
        Ok((tool, spent))
    }

    /// A schema the document gets wrong (a `type` no draft has, a negative `maxLength`) is
    /// refused here, so that the operation is skipped naming where, and every tool made is one
    /// the registry can compile.
    fn valid(&self, which: &str, schema: &Value) -> Result<(), SchemaError> {
        jsonschema::draft202012::meta::validate(schema).map_err(|e| {
            let at = e.instance_path().as_str();
            let at = if at.is_empty() { "its root" } else { at };
            self.fail("", format!("the {which} schema is not a valid JSON Schema, at {at}: {e}"))
        })
    }

    fn text(&self, key: &str) -> Option<String> {
        self.operation
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
    }

    /// The parameters (path-level ones first, overridden by the operation's own of the same
    /// name and location), their properties and which are required.
    fn params(
        &self,
        defs: &mut Defs<'_>,
        properties: &mut Map<String, Value>,
        required: &mut Vec<String>,
    ) -> Result<Vec<Param>, SchemaError> {
        // Pointers here are whole: the path item's parameters are not under the operation.
        let item_pointer = self.pointer.rsplit_once('/').map_or("", |(item, _)| item);
        let fail = |at: &str, message: String| SchemaError { pointer: at.to_owned(), message };
        let mut all: Vec<(String, &Value)> = Vec::new();
        for (owner, at) in [
            (self.item, format!("{item_pointer}/parameters")),
            (self.operation, format!("{}/parameters", self.pointer)),
        ] {
            let Some(list) = owner.get("parameters") else { continue };
            let Some(list) = list.as_array() else {
                return Err(fail(&at, "`parameters` must be an array".into()));
            };
            for (i, param) in list.iter().enumerate() {
                let at = format!("{at}/{i}");
                let param = self.doc.follow(param).map_err(|m| fail(&at, m))?;
                let key = |p: &Value| {
                    (
                        p.get("name").and_then(Value::as_str).map(str::to_owned),
                        p.get("in").and_then(Value::as_str).map(str::to_owned),
                    )
                };
                let this = key(param);
                all.retain(|(_, other)| key(other) != this);
                all.push((at, param));
            }
        }
        let mut params = Vec::new();
        for (at, param) in all {
            let name = param
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| fail(&at, "a parameter without a name".into()))?;
            let location = match param.get("in").and_then(Value::as_str) {
                Some("path") => Location::Path,
                Some("query") => Location::Query,
                Some("header") => Location::Header,
                Some("cookie") => Location::Cookie,
                other => {
                    return Err(fail(
                        &format!("{at}/in"),
                        format!("`in` must be path, query, header or cookie, found {other:?}"),
                    ));
                }
            };
            let is_required = location == Location::Path
                || param.get("required").and_then(Value::as_bool).unwrap_or(false);
            // Optional headers and cookies are left to the API's defaults: a model should not
            // have to think about them.
            if matches!(location, Location::Header | Location::Cookie) && !is_required {
                continue;
            }
            let argument = if name == "body" || properties.contains_key(name) {
                let located = format!("{}_{name}", in_word(location));
                if properties.contains_key(&located) {
                    return Err(fail(&at, format!("the parameter `{name}` is declared twice")));
                }
                located
            } else {
                name.to_owned()
            };
            let (schema, json) = match (param.get("schema"), param.get("content")) {
                (Some(schema), _) => (defs.convert(schema, &format!("{at}/schema"))?, false),
                (None, Some(Value::Object(content))) => {
                    match content.iter().next().and_then(|(_, m)| m.get("schema")) {
                        Some(schema) => (defs.convert(schema, &format!("{at}/content"))?, true),
                        None => (json!({}), true),
                    }
                }
                _ => (json!({}), false),
            };
            let mut schema = match schema {
                Value::Object(schema) => schema,
                other => Map::from_iter([("allOf".to_owned(), json!([other]))]),
            };
            for key in ["description", "deprecated"] {
                if let Some(value) = param.get(key)
                    && !schema.contains_key(key)
                {
                    schema.insert(key.into(), value.clone());
                }
            }
            properties.insert(argument.clone(), Value::Object(schema));
            if is_required {
                required.push(argument.clone());
            }
            let default_style = match location {
                Location::Path | Location::Header => Style::Simple,
                Location::Query | Location::Cookie => Style::Form,
            };
            let style = match param.get("style").and_then(Value::as_str) {
                None => default_style,
                Some("simple") => Style::Simple,
                Some("form") => Style::Form,
                Some("label") => Style::Label,
                Some("matrix") => Style::Matrix,
                Some("spaceDelimited") => Style::SpaceDelimited,
                Some("pipeDelimited") => Style::PipeDelimited,
                Some("deepObject") => Style::DeepObject,
                Some(other) => {
                    return Err(fail(&format!("{at}/style"), format!("unknown style `{other}`")));
                }
            };
            let explode =
                param.get("explode").and_then(Value::as_bool).unwrap_or(style == Style::Form);
            params.push(Param {
                name: name.to_owned(),
                argument,
                location,
                style,
                explode,
                allow_reserved: param
                    .get("allowReserved")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                json,
            });
        }
        // A template variable the operation does not declare is still a required string.
        for variable in template_variables(self.path) {
            if !params.iter().any(|p| p.location == Location::Path && p.name == variable) {
                if properties.contains_key(&variable) {
                    return Err(self.fail(
                        "",
                        format!("the path variable `{variable}` is also a parameter elsewhere"),
                    ));
                }
                properties.insert(variable.clone(), json!({"type": "string"}));
                required.push(variable.clone());
                params.push(Param {
                    argument: variable.clone(),
                    name: variable,
                    location: Location::Path,
                    style: Style::Simple,
                    explode: false,
                    allow_reserved: false,
                    json: false,
                });
            }
        }
        Ok(params)
    }

    /// The request body under `body`: JSON first, else a form, else text. A body only in other
    /// media types (multipart, binary) is left out when optional, and makes the operation
    /// unusable when required.
    fn body(
        &self,
        defs: &mut Defs<'_>,
        properties: &mut Map<String, Value>,
        required: &mut Vec<String>,
    ) -> Result<Option<Body>, SchemaError> {
        let Some(body) = self.operation.get("requestBody") else { return Ok(None) };
        let body = self.doc.follow(body).map_err(|m| self.fail("/requestBody", m))?;
        let is_required = body.get("required").and_then(Value::as_bool).unwrap_or(false);
        let content = body.get("content").and_then(Value::as_object);
        let kind_of = |media: &str| {
            let essence = media.split(';').next().unwrap_or_default().trim().to_ascii_lowercase();
            if is_json_media(&essence) {
                Some(BodyKind::Json)
            } else if essence == "application/x-www-form-urlencoded" {
                Some(BodyKind::Form)
            } else if essence.starts_with("text/") {
                Some(BodyKind::Text)
            } else {
                None
            }
        };
        let chosen =
            [BodyKind::Json, BodyKind::Form, BodyKind::Text].into_iter().find_map(|want| {
                content?
                    .iter()
                    .find(|(media, _)| kind_of(media) == Some(want))
                    .map(|(m, c)| (m, c, want))
            });
        let Some((media, content, kind)) = chosen else {
            if is_required {
                let kinds: Vec<&str> =
                    content.map(|c| c.keys().map(String::as_str).collect()).unwrap_or_default();
                return Err(self.fail(
                    "/requestBody",
                    format!(
                        "the body must be {}; toolwire sends JSON, form and text bodies",
                        kinds.join(" or ")
                    ),
                ));
            }
            return Ok(None);
        };
        let at = format!("{}/requestBody/content/{}/schema", self.pointer, escape_token(media));
        let schema = match (content.get("schema"), kind) {
            (Some(schema), _) => defs.convert(schema, &at)?,
            (None, BodyKind::Text) => json!({"type": "string"}),
            (None, BodyKind::Form) => json!({"type": "object"}),
            (None, BodyKind::Json) => json!({}),
        };
        let mut schema = match schema {
            Value::Object(schema) => schema,
            other => Map::from_iter([("allOf".to_owned(), json!([other]))]),
        };
        if let Some(description) = body.get("description")
            && !schema.contains_key("description")
        {
            schema.insert("description".into(), description.clone());
        }
        properties.insert("body".into(), Value::Object(schema));
        if is_required {
            required.push("body".into());
        }
        Ok(Some(Body { media: media.clone(), kind }))
    }

    /// The schema of the first 2xx response with JSON content, converted (`None` when there is
    /// none, or it accepts anything).
    fn output(&self, defs: &mut Defs<'_>) -> Result<Option<Value>, SchemaError> {
        let Some(responses) = self.operation.get("responses").and_then(Value::as_object) else {
            return Ok(None);
        };
        let mut codes: Vec<&String> =
            responses.keys().filter(|code| code.starts_with('2') && code.len() == 3).collect();
        codes.sort_by_key(|code| (code.as_str() == "2XX", code.as_str()));
        for code in codes {
            let at = format!("/responses/{code}");
            let response =
                self.doc.follow(&responses[code.as_str()]).map_err(|m| self.fail(&at, m))?;
            let Some(content) = response.get("content").and_then(Value::as_object) else {
                continue;
            };
            let Some((media, content)) = content.iter().find(|(media, _)| is_json_media(media))
            else {
                continue;
            };
            let Some(schema) = content.get("schema") else { return Ok(None) };
            let at = format!("{}{at}/content/{}/schema", self.pointer, escape_token(media));
            let converted = defs.convert(schema, &at)?;
            let anything = converted.as_object().is_some_and(Map::is_empty) || converted == true;
            return Ok((!anything).then_some(converted));
        }
        Ok(None)
    }

    /// The operation's security requirements, else the document's.
    fn security(&self) -> Result<Vec<Vec<String>>, SchemaError> {
        let Some(requirements) =
            self.operation.get("security").or_else(|| self.doc.root().get("security"))
        else {
            return Ok(Vec::new());
        };
        let Some(list) = requirements.as_array() else {
            return Err(self.fail("/security", "`security` must be an array"));
        };
        Ok(list
            .iter()
            .filter_map(Value::as_object)
            .map(|requirement| requirement.keys().cloned().collect())
            .collect())
    }
}

/// A root that is only a reference to an object model (`{"$ref": "#/$defs/Node"}`) replaced by
/// that model's keywords, the definitions kept beside them: the same schema, whose root is an
/// object, so that revisions which want an object root publish it as it is instead of wrapping
/// it. References inside (a recursive model) still point into `$defs`; a definition nothing
/// points at any more is left out.
fn inline_root(mut schema: Map<String, Value>) -> Map<String, Value> {
    let only_ref = schema.keys().all(|k| k == "$ref" || k == "$defs");
    let target = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
        .filter(|name| !name.contains('/') && !name.contains('~'));
    let model = target
        .and_then(|name| schema.get("$defs")?.get(name))
        .and_then(Value::as_object)
        .filter(|m| m.get("type") == Some(&Value::from("object")) && !m.contains_key("$defs"));
    let (true, Some(name), Some(model)) = (only_ref, target.map(str::to_owned), model.cloned())
    else {
        return schema;
    };
    let mut inlined = model;
    if let Some(Value::Object(mut defs)) = schema.remove("$defs") {
        let pointer = Value::String(format!("#/$defs/{name}"));
        let still_used = inlined.values().chain(defs.values()).any(|v| mentions(v, &pointer));
        if !still_used {
            defs.remove(&name);
        }
        if !defs.is_empty() {
            inlined.insert("$defs".into(), Value::Object(defs));
        }
    }
    inlined
}

/// Whether `value` holds `needle` anywhere (iteratively).
fn mentions(value: &Value, needle: &Value) -> bool {
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        if value == needle {
            return true;
        }
        match value {
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

/// The word of OpenAPI's `in` for a location.
fn in_word(location: Location) -> &'static str {
    match location {
        Location::Path => "path",
        Location::Query => "query",
        Location::Header => "header",
        Location::Cookie => "cookie",
    }
}

/// `{a}` and `{b}` of `/x/{a}/y/{b}`.
fn template_variables(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        let Some(end) = rest[start..].find('}') else { break };
        out.push(rest[start + 1..start + end].to_owned());
        rest = &rest[start + end + 1..];
    }
    out
}

/// The annotations a method implies: GET and HEAD read only; DELETE destructive; PUT and
/// DELETE idempotent. Every operation reaches an API outside toolwire (open world).
fn annotations(method: &str) -> ToolAnnotations {
    let read_only = matches!(method, "get" | "head" | "options");
    let mut annotations = ToolAnnotations::new().read_only(read_only);
    if !read_only {
        annotations = annotations.destructive(method == "delete");
        if matches!(method, "put" | "delete") {
            annotations = annotations.idempotent(true);
        }
    }
    annotations.open_world_hint = Some(true);
    annotations
}

#[cfg(test)]
mod tests {
    use super::*;

    fn generated(doc: Value, options: &Options) -> Generated {
        let doc = Document::parse(doc.to_string().as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        generate(&doc, options)
    }

    #[test]
    fn names_come_from_operation_ids_or_method_and_path() {
        let mut taken = BTreeSet::new();
        assert_eq!(method_path("get", "/nodes/{node_id}/x-y"), "get_nodes_node_id_x_y");
        assert_eq!(unique_name("p_", Some("getNode"), "get_nodes", &mut taken), "p_getNode");
        assert_eq!(unique_name("p_", Some("getNode"), "get_nodes", &mut taken), "p_get_nodes");
        assert_eq!(unique_name("p_", None, "get_nodes", &mut taken), "p_get_nodes_2");
        assert_eq!(unique_name("", Some("no spaces allowed"), "get_x", &mut taken), "get_x");
        let long = "a".repeat(80);
        assert_eq!(unique_name("", None, &long, &mut taken), "a".repeat(64));
        assert_eq!(unique_name("", None, &long, &mut taken), format!("{}_2", "a".repeat(62)));
    }

    #[test]
    fn parameters_bodies_and_outputs_make_the_input_and_output_schemas() {
        let doc = json!({"openapi": "3.1.0", "paths": {"/things/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
            "put": {
                "operationId": "putThing",
                "summary": "Replace a thing",
                "parameters": [
                    {"name": "id", "in": "query", "schema": {"type": "string"}, "description": "a clash"},
                    {"name": "X-Trace", "in": "header", "schema": {"type": "string"}},
                    {"name": "X-Tenant", "in": "header", "required": true, "schema": {"type": "string"}}
                ],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object"}}}},
                "responses": {
                    "201": {"description": "made", "content": {"application/json": {"schema": {"type": "array", "items": {"type": "integer"}}}}},
                    "200": {"description": "replaced", "content": {"text/plain": {}}}
                }
            },
            "get": {"responses": {"200": {"description": "ok"}, "202": {"description": "started"}}}
        }}});
        let all = generated(doc.clone(), &Options { writes: true, ..Options::default() });
        assert_eq!(all.left_out, 0);
        assert_eq!(all.skipped, vec![]);
        let names: Vec<&str> = all.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["get_things_id", "putThing"]);
        let put = &all.tools[1];
        assert_eq!(
            put.input_schema,
            json!({"type": "object", "properties": {
                "id": {"type": "integer"},
                "query_id": {"type": "string", "description": "a clash"},
                "X-Tenant": {"type": "string"},
                "body": {"type": "object"}
            }, "required": ["id", "X-Tenant", "body"], "additionalProperties": false})
        );
        assert_eq!(put.output_schema, Some(json!({"type": "array", "items": {"type": "integer"}})));
        assert_eq!(put.description, "Replace a thing");
        assert_eq!(put.annotations.idempotent_hint, Some(true));
        assert_eq!(put.annotations.destructive_hint, Some(false));
        // An operation that may answer 202 Accepted runs on: its calls may become tasks.
        assert_eq!((all.tools[0].accepted, put.accepted), (true, false));
        let reads = generated(doc, &Options::default());
        assert_eq!((reads.tools.len(), reads.left_out), (1, 1));
    }

    #[test]
    fn an_operation_whose_schema_is_no_json_schema_is_skipped_naming_where() {
        let doc = json!({"openapi": "3.0.0", "paths": {"/jwt": {"get": {
            "operationId": "getJwt",
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object",
                "properties": {"since": {"type": "smring"}, "sub": {"type": "string"}}
            }}}}}
        }}, "/ok": {"get": {"operationId": "ok", "responses": {"204": {"description": "none"}}}}}});
        let out = generated(doc, &Options::default());
        assert_eq!(out.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["ok"]);
        assert_eq!(out.skipped.len(), 1, "{:?}", out.skipped);
        let skipped = &out.skipped[0];
        assert_eq!(skipped.operation, "GET /jwt (getJwt)");
        assert_eq!(skipped.pointer, "/paths/~1jwt/get");
        assert!(
            skipped.reason.starts_with(
                "the output schema is not a valid JSON Schema, at /properties/since/type: "
            ),
            "{}",
            skipped.reason
        );
    }
}
