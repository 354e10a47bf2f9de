//! A minimal MCP server built on toolwire: two typed tools served over stdio, every MCP
//! revision from 2024-11-05 to 2026-07-28.
//!
//! Run it with `cargo run -p toolwire-mcp --example minimal_server` and point an MCP client's
//! stdio transport at that command.

use rmcp::ServiceExt as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwire_mcp::{
    ErrorCode, Gateway, GatewayConfig, McpServer, Principal, Registry, ToolError, ToolResult,
    ToolSpec,
};

/// What `add` takes.
#[derive(Deserialize, JsonSchema)]
struct AddInput {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

/// What `add` returns: its schema becomes the published outputSchema.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

/// What `divide` takes.
#[derive(Deserialize, JsonSchema)]
struct DivideInput {
    /// The dividend.
    dividend: i64,
    /// The divisor (not zero).
    divisor: i64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut tools = Registry::new();

    // A typed output: `Ok` becomes the data, `Err` a failure result the model can read.
    tools.register_typed(
        ToolSpec::new("add", "Adds two integers.").title("Add"),
        |input: AddInput| async move {
            input
                .a
                .checked_add(input.b)
                .map(|sum| Sum { sum })
                .ok_or_else(|| ToolError::new(ErrorCode::RuleViolation, "The sum overflows."))
        },
    )?;

    // A full `ToolResult`: data, a summary, metadata — the library renders it per revision. A
    // summary and data cannot be refused, so no `Result` to handle; `?` turns a `ToolError`
    // into the failure.
    tools.register(
        ToolSpec::new("divide", "Divides two integers, with the remainder.").output_schema(
            serde_json::json!({
                "type": "object",
                "properties": {"quotient": {"type": "integer"}, "remainder": {"type": "integer"}},
                "required": ["quotient", "remainder"]
            }),
        ),
        |input: DivideInput| async move {
            let (dividend, divisor) = (input.dividend, input.divisor);
            if divisor == 0 {
                return Err(ToolError::invalid_arguments(
                    "The divisor must not be zero.",
                    [("/divisor", "must not be zero")],
                ));
            }
            let overflow = || ToolError::new(ErrorCode::RuleViolation, "The quotient overflows.");
            let quotient = dividend.checked_div(divisor).ok_or_else(overflow)?;
            let remainder = dividend.checked_rem(divisor).ok_or_else(overflow)?;
            Ok(ToolResult::success(
                serde_json::json!({"quotient": quotient, "remainder": remainder}),
            )
            .with_summary(format!("{dividend} / {divisor}")))
        },
    )?;

    // One setting names the server in `initialize` and in the results that carry `serverInfo`.
    let mut config = GatewayConfig::in_memory()?.server_info("calculator", "1.0.0");
    config.default_principal = Principal::local();
    let server = McpServer::new(Gateway::new(tools, config));
    // Standard output carries JSON-RPC only; anything else belongs on standard error.
    server.serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
