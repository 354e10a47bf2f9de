//! The `resources/read` contents of a stored result (DESIGN §6): the data as JSON first, then
//! one entry per part, each at `<link>#part-<n>`.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};
use toolwire_core::{Part, ResourceContents, ToolResult};

fn compact(value: &Value) -> String {
    // Serializing a `Value` cannot fail: every key is a string.
    serde_json::to_string(value).unwrap_or_default()
}

/// The `contents` of a stored result: the data first, then one entry per part.
pub(crate) fn read_contents(uri: &str, result: &ToolResult) -> Vec<Value> {
    let mut contents = Vec::new();
    if let Some(data) = result.data() {
        contents.push(json!({"uri": uri, "mimeType": "application/json", "text": compact(data)}));
    }
    for (n, part) in result.parts().iter().enumerate() {
        let part_uri = format!("{uri}#part-{n}");
        let entry = match part {
            Part::Text(t) => json!({"uri": part_uri, "mimeType": "text/plain", "text": t.text}),
            Part::Binary(b) => {
                json!({"uri": part_uri, "mimeType": b.mime_type, "blob": STANDARD.encode(&b.data)})
            }
            Part::EmbeddedResource(e) => {
                let mut map = Map::new();
                map.insert("uri".into(), json!(part_uri));
                if let Some(mime) = &e.mime_type {
                    map.insert("mimeType".into(), json!(mime));
                }
                match &e.contents {
                    ResourceContents::Blob(bytes) => {
                        map.insert("blob".into(), json!(STANDARD.encode(bytes)))
                    }
                    ResourceContents::Text(text) => map.insert("text".into(), json!(text)),
                    _ => map.insert("text".into(), json!("")),
                };
                Value::Object(map)
            }
            Part::ResourceLink(l) => {
                json!({"uri": part_uri, "mimeType": "text/plain", "text": l.uri})
            }
            _ => continue,
        };
        contents.push(entry);
    }
    contents
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_first_then_parts() {
        let result = ToolResult::builder()
            .data(json!({"a": 1}))
            .part(Part::text("hi"))
            .part(Part::named_binary(vec![1u8, 2], "image/png", "x.png"))
            .build()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            read_contents("toolwire://results/x", &result),
            vec![
                json!({"uri": "toolwire://results/x", "mimeType": "application/json", "text": "{\"a\":1}"}),
                json!({"uri": "toolwire://results/x#part-0", "mimeType": "text/plain", "text": "hi"}),
                json!({"uri": "toolwire://results/x#part-1", "mimeType": "image/png", "blob": "AQI="}),
            ]
        );
    }
}
