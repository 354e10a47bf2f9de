//! What the fixtures serve beside their tools: resources and the template, prompts,
//! completion, subscriptions, the logging level, and the missing-capability refusal.

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, CompleteRequestParams, CompleteResult, CompletionInfo, ContentBlock,
    GetPromptRequestParams, GetPromptResponse, GetPromptResult, LoggingLevel, Prompt,
    PromptArgument, PromptMessage, ReadResourceResult, Reference, Resource, ResourceContents,
    ResourceTemplate, Role, SamplingCapability,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};
use toolwire_mcp::extend::{
    CallGuard, Completion, ExtensionFuture, Logging, Prompts, Resources, Subscriptions,
};

use super::{Conformance, PNG, STATIC_BINARY, STATIC_TEXT, TEMPLATE, lock, mrtr};

impl CallGuard for Conformance {
    /// `test_missing_capability` needs the client's sampling capability and answers -32021
    /// (naming it) without it.
    fn check(&self, tool: &str, request: &RequestContext<RoleServer>) -> Result<(), ErrorData> {
        let declared = request.client_capabilities().is_some_and(|caps| caps.sampling.is_some());
        if tool == "test_missing_capability" && !declared {
            let mut required = ClientCapabilities::default();
            required.sampling = Some(SamplingCapability::default());
            return Err(ErrorData::missing_required_client_capability(required));
        }
        Ok(())
    }
}

impl Resources for Conformance {
    /// The two static resources.
    fn list(&self) -> Vec<Resource> {
        vec![
            Resource::new(STATIC_TEXT, "static-text")
                .with_title("Static text resource")
                .with_description("A static text resource for testing")
                .with_mime_type("text/plain"),
            Resource::new(STATIC_BINARY, "static-binary")
                .with_title("Static binary resource")
                .with_description("A static binary resource (a PNG) for testing")
                .with_mime_type("image/png"),
        ]
    }

    /// The dynamic resource template.
    fn templates(&self) -> Vec<ResourceTemplate> {
        vec![
            ResourceTemplate::new(TEMPLATE, "template-data")
                .with_title("Dynamic resource")
                .with_description("A resource whose content names the id in its URI")
                .with_mime_type("application/json"),
        ]
    }

    fn read<'a>(
        &'a self,
        uri: &'a str,
        _request: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Option<Result<ReadResourceResult, ErrorData>>> {
        let read = read(uri).map(Ok);
        Box::pin(async move { read })
    }
}

/// `resources/read` of a fixture URI, or `None` when the URI is not a fixture's.
fn read(uri: &str) -> Option<ReadResourceResult> {
    let contents = match uri {
        STATIC_TEXT => {
            ResourceContents::text("This is the content of the static text resource.", uri)
                .with_mime_type("text/plain")
        }
        STATIC_BINARY => ResourceContents::blob(PNG, uri).with_mime_type("image/png"),
        _ => {
            let id = uri.strip_prefix("test://template/")?.strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            ResourceContents::text(text.to_string(), uri).with_mime_type("application/json")
        }
    };
    Some(ReadResourceResult::new(vec![contents]))
}

impl Subscriptions for Conformance {
    /// Remembers the URI.
    fn subscribe(&self, uri: String) -> Result<(), ErrorData> {
        lock(&self.state.subscriptions).insert(uri);
        Ok(())
    }

    /// Forgets the URI.
    fn unsubscribe(&self, uri: &str) -> Result<(), ErrorData> {
        lock(&self.state.subscriptions).remove(uri);
        Ok(())
    }
}

impl Logging for Conformance {
    fn set_level(&self, level: LoggingLevel) {
        *lock(&self.state.level) = level;
    }
}

impl Prompts for Conformance {
    fn list(&self) -> Vec<Prompt> {
        vec![
            Prompt::new("test_simple_prompt", Some("A simple prompt without arguments"), None),
            Prompt::new(
                "test_prompt_with_arguments",
                Some("A prompt that repeats its two arguments"),
                Some(vec![
                    PromptArgument::new("arg1")
                        .with_description("First argument")
                        .with_required(true),
                    PromptArgument::new("arg2")
                        .with_description("Second argument")
                        .with_required(false),
                ]),
            ),
            Prompt::new(
                "test_prompt_with_embedded_resource",
                Some("A prompt that embeds a resource"),
                Some(vec![
                    PromptArgument::new("resourceUri")
                        .with_description("The URI of the resource to embed")
                        .with_required(false),
                ]),
            ),
            Prompt::new("test_prompt_with_image", Some("A prompt that includes an image"), None),
            Prompt::new(
                mrtr::PROMPT,
                Some("A prompt that asks for its context first (input required)"),
                None,
            ),
        ]
    }

    /// Including the prompt that answers `InputRequiredResult` until the client gives it a
    /// context.
    fn get<'a>(
        &'a self,
        request: GetPromptRequestParams,
        _context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<GetPromptResponse, ErrorData>> {
        let response = if request.name == mrtr::PROMPT {
            mrtr::prompt(&request)
        } else {
            prompt(&request).map(GetPromptResponse::Complete)
        };
        Box::pin(async move { response })
    }
}

/// `prompts/get` of the prompts that need no input.
fn prompt(request: &GetPromptRequestParams) -> Result<GetPromptResult, ErrorData> {
    let arg = |name: &str| {
        request
            .arguments
            .as_ref()
            .and_then(|args| args.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let result = match request.name.as_str() {
        "test_simple_prompt" => GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            "This is a simple prompt for testing.",
        )])
        .with_description("A simple prompt"),
        "test_prompt_with_arguments" => GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Prompt with arguments: arg1='{}', arg2='{}'", arg("arg1"), arg("arg2")),
        )])
        .with_description("A prompt with arguments"),
        "test_prompt_with_embedded_resource" => {
            let uri = Some(arg("resourceUri")).filter(|u| !u.is_empty());
            GetPromptResult::new(vec![
                PromptMessage::new(
                    Role::User,
                    ContentBlock::resource(
                        ResourceContents::text(
                            "Embedded resource content for testing.",
                            uri.unwrap_or_else(|| STATIC_TEXT.to_owned()),
                        )
                        .with_mime_type("text/plain"),
                    ),
                ),
                PromptMessage::new_text(Role::User, "Please process the embedded resource above."),
            ])
            .with_description("A prompt with an embedded resource")
        }
        "test_prompt_with_image" => GetPromptResult::new(vec![
            PromptMessage::new(Role::User, ContentBlock::image(PNG, "image/png")),
            PromptMessage::new_text(Role::User, "Please analyze the image above."),
        ])
        .with_description("A prompt with an image"),
        other => {
            return Err(ErrorData::invalid_params(
                format!("Unknown prompt: {other}"),
                Some(json!({"name": other})),
            ));
        }
    };
    Ok(result)
}

impl Completion for Conformance {
    fn complete<'a>(
        &'a self,
        request: CompleteRequestParams,
        _context: &'a RequestContext<RoleServer>,
    ) -> ExtensionFuture<'a, Result<CompleteResult, ErrorData>> {
        let completed = complete(&request);
        Box::pin(async move { completed })
    }
}

/// `completion/complete`: values that start with what was typed so far.
fn complete(request: &CompleteRequestParams) -> Result<CompleteResult, ErrorData> {
    let candidates: &[&str] = match (&request.r#ref, request.argument.name.as_str()) {
        (Reference::Prompt(_), "arg1" | "arg2") => {
            &["paris", "park", "party", "test", "testValue1"]
        }
        (Reference::Resource(_), "id") => &["1", "2", "3", "123"],
        _ => &[],
    };
    let typed = request.argument.value.as_str();
    let values: Vec<String> =
        candidates.iter().filter(|c| c.starts_with(typed)).map(|c| (*c).to_owned()).collect();
    let info = CompletionInfo::with_all_values(values)
        .map_err(|e| ErrorData::internal_error(format!("completion: {e}"), None))?;
    Ok(CompleteResult::new(info))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_reads_name_the_id() {
        let answer = read("test://template/123/data");
        let text = serde_json::to_value(answer).unwrap_or_default().to_string();
        assert!(text.contains(r#"\"id\":\"123\""#), "{text}");
        assert!(read("test://template//data").is_none());
        assert!(read("test://nonexistent").is_none());
    }

    #[test]
    fn completion_filters_by_prefix() {
        let request: CompleteRequestParams = match serde_json::from_value(json!({
            "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
            "argument": {"name": "arg1", "value": "par"},
        })) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        let result = complete(&request).map(|r| r.completion.values);
        assert_eq!(
            result.ok(),
            Some(vec!["paris".to_owned(), "park".to_owned(), "party".to_owned()])
        );
    }
}
