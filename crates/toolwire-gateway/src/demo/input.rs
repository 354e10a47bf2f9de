//! The demo tools that ask for input first (DESIGN §10): `catalog_confirm_price` asks the user
//! to confirm a price change (elicitation) and `catalog_describe` asks the client's model for a
//! product blurb (sampling). On 2026-07-28 they answer `InputRequiredResult` and finish on the
//! retry; on the handshake revisions the gateway asks over the connection; a client that cannot
//! answer gets the failure `input_required`.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolwire_core::ToolResult;
use toolwire_core::input::{
    Confirmation, InputRequest, InputRequired, confirm_request, confirmation,
};
use toolwire_mcp::{CallContext, Registry, RegistryError, ToolSpec};

use super::{
    Catalog, PriceChange, UpdateInput, built, not_found, price_change_hints, product, read,
    read_only, update_price,
};

/// The key of the confirmation request.
const CONFIRM: &str = "confirm";
/// The key of the sampling request.
const BLURB: &str = "blurb";

/// `catalog_confirm_price` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct ConfirmInput {
    /// The product id.
    id: u64,
    /// The new price in euros.
    #[schemars(extend("exclusiveMinimum" = 0))]
    price: f64,
}

/// `catalog_describe` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
struct DescribeInput {
    /// The product id.
    id: u64,
}

/// What `catalog_describe` returns.
#[derive(Debug, Serialize, JsonSchema)]
struct Blurb {
    id: u64,
    name: String,
    /// The sentence the client's model wrote.
    blurb: String,
}

/// Registers the two tools.
pub(super) fn register(registry: &mut Registry, catalog: &Catalog) -> Result<(), RegistryError> {
    let mut tools = registry.with_state(Arc::clone(catalog));
    tools.register(
        ToolSpec::new(
            "catalog_confirm_price",
            "Change a product's price after the user confirms it (the client asks the user); needs the catalog:write privilege.",
        )
        .title("Update a price, confirmed")
        .annotations(price_change_hints())
        .output::<PriceChange>(),
        |c: Catalog, input: ConfirmInput, cx: CallContext| async move {
            confirm_price(&c, input, &cx)
        },
    )?;
    tools.register(
        ToolSpec::new(
            "catalog_describe",
            "Write a one-sentence blurb for a product with the client's model (sampling).",
        )
        .title("Describe a product")
        .annotations(read_only())
        .output::<Blurb>(),
        |c: Catalog, input: DescribeInput, cx: CallContext| async move { describe(&c, input, &cx) },
    )?;
    Ok(())
}

fn confirm_price(catalog: &Catalog, input: ConfirmInput, cx: &CallContext) -> ToolResult {
    let update = |dry_run| UpdateInput { id: input.id, price: input.price, dry_run };
    match confirmation(cx.input(), CONFIRM) {
        Confirmation::Confirmed => update_price(catalog, update(false), cx),
        Confirmation::Refused => {
            let preview = update_price(catalog, update(true), cx);
            match preview.data() {
                Some(_) => preview.with_summary("The user declined; nothing was changed."),
                None => preview,
            }
        }
        // Not answered yet (`Confirmation::Ask`): ask.
        _ => {
            let asked = read(catalog, |products| {
                product(products, input.id).map(|product| {
                    format!(
                        "Change the price of {} from {} to {}?",
                        product.name, product.price, input.price
                    )
                })
            });
            let question = match asked {
                Ok(Some(question)) => question,
                Ok(None) => return ToolResult::failure(not_found(input.id)),
                Err(error) => return ToolResult::failure(error),
            };
            built(
                ToolResult::builder()
                    .summary(format!("Waiting for the user to confirm: {question}"))
                    .input_required(
                        InputRequired::new().request(CONFIRM, confirm_request(question)),
                    ),
            )
        }
    }
}

fn describe(catalog: &Catalog, input: DescribeInput, cx: &CallContext) -> ToolResult {
    let found = read(catalog, |products| {
        product(products, input.id).map(|p| (p.name.clone(), p.description.clone()))
    });
    let (name, description) = match found {
        Ok(Some(found)) => found,
        Ok(None) => return ToolResult::failure(not_found(input.id)),
        Err(error) => return ToolResult::failure(error),
    };
    match cx.input().sampled_text(BLURB) {
        Some(blurb) => {
            let summary = format!("A blurb for {name} by the client's model.");
            let data = Blurb { id: input.id, name, blurb };
            ToolResult::success(json!(data)).with_summary(summary)
        }
        None => {
            let prompt = format!(
                "Write one sentence of shop copy for the product \"{name}\": {description}"
            );
            ToolResult::input_required(
                InputRequired::new().request(BLURB, InputRequest::sample_text(prompt, 100)),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use toolwire_core::McpRevision;
    use toolwire_core::input::InputRound;
    use toolwire_mcp::Principal;

    use super::*;

    fn cx(responses: Value) -> CallContext {
        let responses = responses.as_object().cloned().unwrap_or_default();
        CallContext::new(
            "catalog_confirm_price",
            Principal::new("writer", ["catalog:write"]),
            McpRevision::V2026_07_28,
            "1",
        )
        .with_input(InputRound::new(responses, None))
    }

    #[test]
    fn the_price_changes_only_after_a_confirmation() {
        let catalog = super::super::catalog();
        let input = || ConfirmInput { id: 3, price: 9.5 };
        let asked = confirm_price(&catalog, input(), &cx(json!({})));
        let question = asked.input_required_requests().and_then(|i| i.get(CONFIRM)).cloned();
        let Some(InputRequest::ElicitForm { message, .. }) = question else { panic!("{asked:?}") };
        assert!(message.starts_with("Change the price of "), "{message}");
        let declined =
            confirm_price(&catalog, input(), &cx(json!({"confirm": {"action": "decline"}})));
        assert_eq!(declined.meta().dry_run, Some(true));
        assert_eq!(declined.summary(), Some("The user declined; nothing was changed."));
        let yes = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
        let done = confirm_price(&catalog, input(), &cx(yes));
        assert_eq!(done.meta().dry_run, Some(false));
        assert_eq!(done.data().and_then(|d| d.get("newPrice")).cloned(), Some(json!(9.5)));
    }
}
