"""The app tools of scripts/bench-gateway, made from the demo's own answers.

    app_tools.py FLOOR.json APP_URL ANSWERS.json TOML

FLOOR.json is what `mcp_http.py capture` took from toolwire. For each demo tool measured
(`catalog_get`, `catalog_search`) this writes an app tool `app_<name>` — the demo's input
schema, its data schema as `outputs`, the endpoint APP_URL — appended to TOML, and the
toolwire.result.v1 document the app answers for it (the demo's data, byte for byte) to
ANSWERS.json, which examples/bench_app serves. Loads on `catalog_get` and `app_catalog_get`
then cost the gateway the same answer, once made natively and once read from an app.
"""

import json
import sys

HANDSHAKE = "2025-11-25"
TOOLS = ("catalog_get", "catalog_search")


def toml_value(value):
    """`value` as a TOML inline value (JSON strings are valid TOML basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return json.dumps(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise ValueError(f"no TOML for {value!r}")


def unwrapped(schema, data):
    """The data and its schema, without the `{"result": …}` a revision puts around non-object data."""
    properties = schema.get("properties", {})
    if list(properties) == ["result"] and isinstance(data, dict) and list(data) == ["result"]:
        # The definitions the inner schema refers to stay at its new root.
        inner = dict(properties["result"])
        for key in ("$schema", "$defs", "definitions"):
            if key in schema:
                inner[key] = schema[key]
        return inner, data["result"]
    return schema, data


def main():
    floor, url, answers_out, toml_out = sys.argv[1:5]
    with open(floor, encoding="utf-8") as f:
        captured = json.load(f)
    tools = {tool["name"]: tool for tool in captured["tools"]}
    answers = {}
    lines = []
    for name in TOOLS:
        tool = tools[name]
        result = captured["results"][f"{HANDSHAKE} {name}"]
        schema, data = unwrapped(tool["outputSchema"], result["structuredContent"])
        app = f"app_{name}"
        answers[app] = {"format": "toolwire.result.v1", "data": data}
        lines += [
            "",
            "[[tools]]",
            f"name = {json.dumps(app)}",
            f"description = {json.dumps(tool['description'])}",
            f"endpoint = {json.dumps(url)}",
            f"input_schema = {toml_value(tool['inputSchema'])}",
            f"outputs = {toml_value(schema)}",
        ]
    with open(answers_out, "w", encoding="utf-8") as f:
        json.dump(answers, f)
    with open(toml_out, "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
