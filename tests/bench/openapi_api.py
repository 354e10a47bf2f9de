"""The REST API of scripts/bench-gateway's OpenAPI loads, made from the demo's own answer.

    openapi_api.py FLOOR.json APP_URL ANSWERS.json TOML SPEC.json

FLOOR.json is what `mcp_http.py capture` took from toolwire. This writes a small OpenAPI 3.1
document with one operation, `getProduct` (`GET /products/{id}`), whose 200 response is the
demo's `catalog_get` data schema (its `$defs` moved under `components/schemas`), to SPEC.json;
adds `GET /openapi.json` (the document) and `GET /products/42` (the demo's data for id 42, byte
for byte) to ANSWERS.json, which examples/bench_app serves; and appends an `[[openapi]]` entry
reading the document from APP_URL, under `tool_prefix = "api_"`, to TOML. A load on
`api_getProduct` then costs the gateway what `catalog_get` does plus a REST call and its answer.
"""

import json
import sys

from app_tools import HANDSHAKE, unwrapped


def to_components(schema):
    """`schema` with its `$defs` moved under `components/schemas` (references rewritten): in an
    OpenAPI document, `#/…` points into the document, not into the schema."""
    defs = schema.pop("$defs", {})
    schema.pop("$schema", None)
    text = json.dumps(schema).replace('"#/$defs/', '"#/components/schemas/')
    defs_text = json.dumps(defs).replace('"#/$defs/', '"#/components/schemas/')
    return json.loads(text), json.loads(defs_text)


def main():
    floor, url, answers_out, toml_out, spec_out = sys.argv[1:6]
    with open(floor, encoding="utf-8") as f:
        captured = json.load(f)
    tool = next(t for t in captured["tools"] if t["name"] == "catalog_get")
    result = captured["results"][f"{HANDSHAKE} catalog_get"]
    schema, data = unwrapped(tool["outputSchema"], result["structuredContent"])
    schema, components = to_components(dict(schema))
    spec = {
        "openapi": "3.1.0",
        "info": {"title": "products", "version": "1"},
        "servers": [{"url": url.rstrip("/")}],
        "paths": {"/products/{id}": {"get": {
            "operationId": "getProduct",
            "summary": tool["description"],
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer", "minimum": 1}}],
            "responses": {"200": {"description": "The product.",
                                  "content": {"application/json": {"schema": schema}}}},
        }}},
        "components": {"schemas": components},
    }
    with open(spec_out, "w", encoding="utf-8") as f:
        json.dump(spec, f)
    try:
        with open(answers_out, encoding="utf-8") as f:
            answers = json.load(f)
    except FileNotFoundError:
        answers = {}
    answers["GET /openapi.json"] = spec
    answers["GET /products/42"] = data
    with open(answers_out, "w", encoding="utf-8") as f:
        json.dump(answers, f)
    with open(toml_out, "a", encoding="utf-8") as f:
        f.write(f'\n[[openapi]]\nname = "api"\nspec = "{url.rstrip("/")}/openapi.json"\ntool_prefix = "api_"\n')


if __name__ == "__main__":
    main()
