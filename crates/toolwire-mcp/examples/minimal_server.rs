//! A minimal MCP server built on toolwire: two typed tools served over stdio, every MCP
//! revision from 2024-11-05 to 2026-07-28.
//!
//! Run it with `cargo run -p toolwire-mcp --example minimal_server` and point an MCP client's
//! stdio transport at that command.

use rmcp::ServiceExt as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolwire_core::{ErrorCode, ToolError, ToolResult};
use toolwire_mcp::{CallContext, Gateway, GatewayConfig, McpServer, Principal, Registry, ToolSpec};

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
        |input: AddInput, _cx: CallContext| async move {
            input
                .a
                .checked_add(input.b)
                .map(|sum| Sum { sum })
                .ok_or_else(|| ToolError::new(ErrorCode::RuleViolation, "The sum overflows."))
        },
    )?;

    // A full `ToolResult`: data, a summary, metadata — the library renders it per revision.
    tools.register(
        ToolSpec::new("divide", "Divides two integers, with the remainder.").output_schema(
            serde_json::json!({
                "type": "object",
                "properties": {"quotient": {"type": "integer"}, "remainder": {"type": "integer"}},
                "required": ["quotient", "remainder"]
            }),
        ),
        |input: DivideInput, _cx: CallContext| async move {
            if input.divisor == 0 {
                return ToolResult::failure(ToolError::invalid_arguments(
                    "The divisor must not be zero.",
                    [("/divisor", "must not be zero")],
                ));
            }
            ToolResult::builder()
                .data(serde_json::json!({
                    "quotient": input.dividend / input.divisor,
                    "remainder": input.dividend % input.divisor
                }))
                .summary(format!("{} / {}", input.dividend, input.divisor))
                .build()
                .unwrap_or_else(|e| {
                    ToolResult::failure(ToolError::new(ErrorCode::ToolError, e.to_string()))
                })
        },
    )?;

    let mut config = GatewayConfig::in_memory()?;
    config.default_principal = Principal::local();
    let server = McpServer::new(Gateway::new(tools, config));
    // Standard output carries JSON-RPC only; anything else belongs on standard error.
    server.serve(rmcp::transport::stdio()).await?.waiting().await?;
    Ok(())
}
