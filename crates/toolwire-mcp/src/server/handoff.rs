//! The hand-off of a rendered result to rmcp's types, field by field, with nothing parsed back.

use rmcp::model::{
    CallToolResponse, CallToolResult, InputRequiredResult, MetaObject, ResourceContents,
    ResultType, Role,
};
use serde_json::Value;
use toolwire_core::Output;
use toolwire_core::mcp::{Annotations, ContentBlock, McpResult};

/// The one hand-off of a rendered `tools/call` result to rmcp: the mapper's typed MCP result
/// (an output of [`OutputMapper::render_owned`]) mapped field by field to rmcp's types, with
/// nothing parsed back. Content blocks, `isError` and `_meta` come from the typed result;
/// `structuredContent` is the result's own data (or error, or envelope) as a value; an
/// input-required result becomes rmcp's `InputRequiredResult`. `resultType` is set here, and
/// only here, from the revision's row of the table (rmcp never adds it and strips it below
/// 2026-07-28, interop fact 1).
pub(crate) fn call_tool_response(output: Output) -> Result<CallToolResponse, String> {
    let Some(mcp) = output.into_mcp() else {
        return Err("the result was rendered as text, not as a typed MCP result".to_owned());
    };
    let mut result = match mcp.result() {
        McpResult::Complete(typed) => {
            let content = typed.content.into_iter().map(content_block).collect::<Result<_, _>>()?;
            let mut result = CallToolResult::success(content);
            result.result_type = typed.result_type.map(|_| ResultType::COMPLETE);
            result.is_error = typed.is_error;
            result.meta = Some(meta_object(&typed.meta)?);
            result
        }
        McpResult::InputRequired(typed) => {
            let requests = match typed.input_requests {
                Some(requests) => Some(crate::input::rmcp_requests(requests.0)?),
                None => None,
            };
            let state = typed.request_state.map(str::to_owned);
            let result = InputRequiredResult::new(requests, state);
            return Ok(CallToolResponse::InputRequired(
                result.with_meta(meta_object(&typed.meta)?),
            ));
        }
    };
    // After the borrowed view is gone: the data moves out of the result.
    result.structured_content = mcp.into_structured_content();
    Ok(CallToolResponse::Complete(result))
}

/// A typed `_meta` map as rmcp's `MetaObject`.
fn meta_object(meta: &impl serde::Serialize) -> Result<MetaObject, String> {
    match serde_json::to_value(meta) {
        Ok(Value::Object(map)) => Ok(MetaObject(map)),
        Ok(_) => Err("a _meta that is not an object".to_owned()),
        Err(e) => Err(format!("a _meta that cannot be written: {e}")),
    }
}

/// One typed content block as rmcp's.
fn content_block(block: ContentBlock<'_>) -> Result<rmcp::model::ContentBlock, String> {
    use rmcp::model::{
        AudioContent, ContentBlock as Block, EmbeddedResource, ImageContent, TextContent,
    };
    Ok(match block {
        ContentBlock::Text { text, annotations } => {
            let mut content = TextContent::new(text.into_string());
            content.annotations = annotations.map(rmcp_annotations);
            Block::Text(content)
        }
        ContentBlock::Image(media) => {
            let mut image = ImageContent::new(media.data.to_string(), media.mime_type);
            image.meta = media.meta.as_ref().map(meta_object).transpose()?;
            image.annotations = media.annotations.map(rmcp_annotations);
            Block::Image(image)
        }
        ContentBlock::Audio(media) => {
            let mut audio = AudioContent::new(media.data.to_string(), media.mime_type);
            audio.meta = media.meta.as_ref().map(meta_object).transpose()?;
            audio.annotations = media.annotations.map(rmcp_annotations);
            Block::Audio(audio)
        }
        ContentBlock::Resource(embedded) => {
            let contents = embedded.resource;
            let uri = contents.uri.to_string();
            let mime_type = contents.mime_type.map(str::to_owned);
            let resource = match (contents.text, contents.blob) {
                (Some(text), _) => ResourceContents::TextResourceContents {
                    uri,
                    mime_type,
                    text: text.to_owned(),
                    meta: None,
                },
                (None, blob) => ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob: blob.map(|blob| blob.to_string()).unwrap_or_default(),
                    meta: None,
                },
            };
            let mut resource = EmbeddedResource::new(resource);
            resource.meta = embedded.meta.as_ref().map(meta_object).transpose()?;
            resource.annotations = embedded.annotations.map(rmcp_annotations);
            Block::Resource(resource)
        }
        ContentBlock::ResourceLink(link) => {
            let mut resource = rmcp::model::Resource::new(link.uri, link.name.into_owned());
            resource.title = link.title.map(str::to_owned);
            resource.description = link.description.map(str::to_owned);
            resource.mime_type = link.mime_type.map(str::to_owned);
            resource.size = link.size;
            resource.meta = link.meta.as_ref().map(meta_object).transpose()?;
            resource.annotations = link.annotations.map(rmcp_annotations);
            Block::ResourceLink(resource)
        }
    })
}

/// A part's audience as rmcp's block annotations.
fn rmcp_annotations(annotations: Annotations) -> rmcp::model::Annotations {
    let roles = annotations
        .audience
        .0
        .roles()
        .iter()
        .map(|role| if *role == "user" { Role::User } else { Role::Assistant })
        .collect();
    rmcp::model::Annotations::default().with_audience(roles)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolwire_core::input::{InputRequired, confirm_request};
    use toolwire_core::{
        Audience, McpRevision, OutputMapper, Part, Phase, RenderContext, Rendered,
        ResourceLinkPart, StoredLink, Target, Timestamp, ToolError, ToolResult, ToolResultBuilder,
    };

    use super::*;

    fn now() -> Timestamp {
        Timestamp::from_datetime(chrono::Utc::now())
    }

    fn build(builder: ToolResultBuilder) -> ToolResult {
        builder.build().unwrap_or_else(|e| panic!("{e}"))
    }

    fn samples() -> Vec<ToolResult> {
        let at = Timestamp::parse("2026-11-29T10:00:00Z").unwrap_or_else(|e| panic!("{e}"));
        vec![
            ToolResult::success(json!({"id": 7, "price": 12.50, "name": "Chair \"A\" — oak"})),
            ToolResult::success(json!([1, [2, [3]], "x"])),
            ToolResult::failure(ToolError::invalid_arguments("bad", [("/q", "is required")])),
            build(
                ToolResult::builder()
                    .data(json!({"report": "ready"}))
                    .summary("Report")
                    .dry_run(true)
                    .extension("com.example", "trace", json!({"id": 1}))
                    .part(Part::text("Read me"))
                    .part(Part::named_binary(b"\x89PNG".to_vec(), "image/png", "chart.png"))
                    .part(Part::binary(b"ID3".to_vec(), "audio/mpeg"))
                    .part(Part::named_binary(b"%PDF".to_vec(), "application/pdf", "q3 r.pdf"))
                    .part(Part::resource_link_with(
                        ResourceLinkPart::new("https://example.com/r.csv", "r.csv")
                            .title("Rows")
                            .mime_type("text/csv")
                            .size(12),
                    ))
                    .part(Part::embedded_text("file:///n.txt", None, "notes"))
                    .part(Part::embedded_blob("file:///a.bin", None, vec![0, 1]))
                    .part(Part::text("For you").for_audience(Audience::User))
                    .part(
                        Part::binary(b"\x89PNG".to_vec(), "image/png").for_audience(Audience::User),
                    )
                    .part(Part::binary(b"ID3".to_vec(), "audio/mpeg").for_audience(Audience::Both))
                    .part(
                        Part::embedded_text("file:///m.txt", None, "m")
                            .for_audience(Audience::Assistant),
                    )
                    .part(
                        Part::resource_link("https://example.com/s", "s")
                            .for_audience(Audience::User),
                    )
                    .stored_link(StoredLink::new("toolwire://results/abc").size(99).expires_at(at)),
            ),
            ToolResult::input_required(
                InputRequired::new().request("ok", confirm_request("Go?")).state(json!(1)),
            ),
        ]
    }

    /// What rmcp sends for the hand-off of every sample is byte for byte the mapper's text.
    #[test]
    fn the_hand_off_serializes_to_the_rendered_text() {
        let mapper = OutputMapper::default();
        for result in samples() {
            for revision in McpRevision::ALL {
                for phase in [Phase::Compat, Phase::Spec] {
                    let ctx = RenderContext::new("t", now()).request_state("sealed");
                    let target = Target::Mcp(revision);
                    let text = match mapper.render(&result, target, phase, &ctx) {
                        Ok(Rendered::Complete(output)) => output.into_json(),
                        other => panic!("{other:?}"),
                    };
                    let output = match mapper.render_owned(result.clone(), target, phase, &ctx) {
                        Ok(Rendered::Complete(output)) => output,
                        other => panic!("{other:?}"),
                    };
                    let sent = match call_tool_response(output) {
                        Ok(CallToolResponse::Complete(r)) => serde_json::to_string(&r),
                        Ok(CallToolResponse::InputRequired(r)) => serde_json::to_string(&r),
                        other => panic!("{other:?}"),
                    };
                    assert_eq!(sent.ok().as_deref(), Some(text.as_str()), "{revision:?} {phase:?}");
                }
            }
        }
    }
}
