//! The legacy lowering: the `{"success": …}` envelope string (phase-independent), also the
//! first text block of every compat-phase MCP result.
//!
//! Grammar (compact JSON, keys in this order):
//! - success: `{"success":true,"data":<D or null>,"_meta":{…}}`;
//! - failure: `{"success":false,"error":"<message>","code":"<code>","details":{…},"_meta":{…}}`;
//! - `_meta` only when non-empty: `dryRun`, `pagination`, `responseSize`, `query`,
//!   `generatedAt`, `expiresAt`, `summary`, `resourceUri` + `note` (the first stored link),
//!   `storedLinks`, `parts` (v1 part JSON), then extensions as `<namespace>/<key>`.
//!
//! The code is written verbatim, unknown codes included: the envelope's `code` is a free string.
//! `resourceUri` + `note` are written only for a link in toolwire's own stored-result scheme (a
//! legacy reader takes nothing else for a pointer). `storedLinks` (every link, v1 form) is
//! written when there are several links, and also for a single link that `resourceUri` + `note`
//! cannot carry whole (another scheme, a size other than `responseSize`, an expiry other than
//! `expiresAt`, a MIME type other than JSON), so that parsing the envelope gives the same result
//! back.

use super::{
    Obj, write_map, write_pagination, write_query, write_v1_part, write_v1_stored_link, write_value,
};
use crate::layout::Layout;
use crate::link::StoredLink;
use crate::meta::Metadata;

/// Appends the envelope of `layout`'s result to `out`. `include_payloads` is false for the
/// compat block, whose binary parts travel as blocks of their own.
pub(crate) fn render(out: &mut String, layout: &Layout<'_>, include_payloads: bool) {
    if let Some(raw) = layout.passthrough() {
        out.push_str(raw);
        return;
    }
    let result = layout.result();
    let mut obj = Obj::open(out);
    match result.error() {
        None => {
            obj.bool("success", true);
            obj.raw("data", layout.data_json().unwrap_or("null"));
        }
        Some(error) => {
            obj.bool("success", false);
            obj.str("error", &error.message);
            obj.str("code", error.code.as_str());
            if let Some(details) = &error.details {
                write_map(obj.key("details"), details);
            }
        }
    }
    write_meta(&mut obj, layout, include_payloads);
    obj.close();
}

fn write_meta(envelope: &mut Obj<'_>, layout: &Layout<'_>, include_payloads: bool) {
    let result = layout.result();
    let meta = result.meta();
    // Always non-empty: the generation time is always known at render.
    let out = envelope.key("_meta");
    let mut obj = Obj::open(out);
    if let Some(dry_run) = meta.dry_run {
        obj.bool("dryRun", dry_run);
    }
    if let Some(pagination) = &meta.pagination {
        write_pagination(obj.key("pagination"), pagination);
    }
    if let Some(size) = meta.response_size {
        obj.uint("responseSize", size);
    }
    if let Some(query) = &meta.query {
        write_query(obj.key("query"), query);
    }
    obj.str("generatedAt", &layout.generated_at().to_string());
    if let Some(at) = &meta.expires_at {
        obj.str("expiresAt", &at.to_string());
    }
    if let Some(summary) = result.summary() {
        obj.str("summary", summary);
    }
    let links = result.stored_links();
    if let Some(first) = links.first() {
        let pointer = first.toolwire_id().is_some();
        if pointer {
            obj.str("resourceUri", &first.uri);
            if let Some(note) = &first.description {
                obj.str("note", note);
            }
        }
        if links.len() > 1 || !pointer || !says_it_all(first, meta) {
            let out = obj.key("storedLinks");
            out.push('[');
            for (i, link) in links.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_v1_stored_link(out, link);
            }
            out.push(']');
        }
    }
    if !result.parts().is_empty() {
        let out = obj.key("parts");
        out.push('[');
        for (i, part) in result.parts().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_v1_part(out, part, include_payloads);
        }
        out.push(']');
    }
    for (namespace, key, value) in meta.extensions.iter() {
        write_value(obj.prefixed_key(namespace, key), value);
    }
    obj.close();
}

/// True when `resourceUri` + `note` say everything the link holds: a reader takes its size from
/// `responseSize`, its expiry from `expiresAt` and the MIME type `application/json`.
fn says_it_all(link: &StoredLink, meta: &Metadata) -> bool {
    link.size == meta.response_size
        && link.expires_at == meta.expires_at
        && link.mime_type == "application/json"
}
