"""An OpenAPI 3.1 document rendered as OpenAPI 3.0.3, so that toolwire can be fed the same API in
both versions (tests/clients/openapi.py converts FastAPI's own document at test time).

Schemas are converted where the document holds them (components, parameters, headers, media
types, and every subschema inside those), never by blind search, so a property *named* ``const``
or ``examples`` stays what it is:

- ``type: [X, "null"]`` and ``anyOf``/``oneOf`` with a ``{type: "null"}`` branch → X with
  ``nullable: true`` (a lone remaining ``$ref`` becomes ``allOf: [{$ref}]``: 3.0 ignores a
  ``$ref``'s siblings);
- a ``$ref`` with siblings → ``allOf: [{$ref}]`` plus the siblings;
- ``examples`` (an array) → ``example`` (its first item); ``const`` → a one-value ``enum``;
- numeric ``exclusiveMinimum``/``exclusiveMaximum`` → ``minimum``/``maximum`` with the 3.0 boolean;
- ``contentEncoding: base64`` → ``format: byte``, ``contentMediaType`` → ``format: binary``;
- ``$schema``, ``$id``, ``$anchor``, ``$comment`` dropped; 3.1-only document fields
  (``jsonSchemaDialect``, ``webhooks``, ``info.summary``, ``license.identifier``,
  ``components.pathItems``) dropped.

A 3.1 keyword with no 3.0 rendition (``prefixItems``, ``if``, ``unevaluatedProperties`` …) is an
error, so the rendition cannot silently drift from the document it renders.

Usage: python to_30.py [FILE_OR_URL]  — prints the 3.0 rendition; without an argument, runs the
self-test.
"""

from __future__ import annotations

import copy
import json
import sys
import urllib.request
from typing import Any

SUBSCHEMA = ["items", "additionalProperties", "not"]
SUBSCHEMA_LISTS = ["allOf", "anyOf", "oneOf"]
SUBSCHEMA_MAPS = ["properties"]
DROPPED = ["$schema", "$id", "$anchor", "$comment"]
NO_30_FORM = ["prefixItems", "$dynamicRef", "$dynamicAnchor", "unevaluatedProperties", "unevaluatedItems",
              "dependentSchemas", "dependentRequired", "if", "then", "else", "contains", "minContains",
              "maxContains", "propertyNames", "patternProperties", "$defs"]


class NotConvertible(ValueError):
    pass


def is_null(schema: Any) -> bool:
    return isinstance(schema, dict) and schema.get("type") == "null" and len(schema) == 1


def schema(s: Any, at: str) -> Any:
    """The 3.0 form of one schema (a new object)."""
    if isinstance(s, bool):  # 3.0 has no boolean schemas
        return {} if s else {"not": {}}
    if not isinstance(s, dict):
        raise NotConvertible(f"{at}: not a schema: {s!r:.80}")
    s = dict(s)
    for key in NO_30_FORM:
        if key in s:
            raise NotConvertible(f"{at}: {key} has no OpenAPI 3.0 form")
    for key in DROPPED:
        s.pop(key, None)
    nullable = False
    for key in ("anyOf", "oneOf"):
        if key in s and any(is_null(b) for b in s[key]):
            branches = [b for b in s.pop(key) if not is_null(b)]
            nullable = True
            if len(branches) == 1 and isinstance(branches[0], dict) and "$ref" not in branches[0] \
                    and not set(branches[0]) & set(s):
                s.update(branches[0])  # merged into the parent: {"type": "string", "nullable": true}
            elif len(branches) == 1:  # the usual 3.0 idiom for a nullable $ref
                s.setdefault("allOf", []).append(branches[0])
            else:
                s[key] = branches
    if isinstance(s.get("type"), list):
        types = [t for t in s["type"] if t != "null"]
        nullable = nullable or len(types) < len(s["type"])
        if len(types) == 1:
            s["type"] = types[0]
        elif not types:
            raise NotConvertible(f"{at}: a schema that only allows null")
        else:
            del s["type"]
            s["anyOf"] = [{"type": t} for t in types]
    elif s.get("type") == "null":
        raise NotConvertible(f"{at}: a schema that only allows null")
    if "examples" in s and isinstance(s["examples"], list):
        examples = s.pop("examples")
        if examples:
            s["example"] = examples[0]
    if "const" in s:
        s["enum"] = [s.pop("const")]
    for bound, keyword in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
        value = s.get(keyword)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            s[bound] = value
            s[keyword] = True
    if s.pop("contentEncoding", None) == "base64":
        s["format"] = "byte"
        s.pop("contentMediaType", None)
    elif s.pop("contentMediaType", None) is not None:
        s["format"] = "binary"
    if "$ref" in s and len(s) > 1:  # 3.0 ignores a $ref's siblings
        s.setdefault("allOf", []).insert(0, {"$ref": s.pop("$ref")})
    if nullable:
        s["nullable"] = True
    for key in SUBSCHEMA:  # additionalProperties may stay a boolean in 3.0
        if key in s and not (key == "additionalProperties" and isinstance(s[key], bool)):
            s[key] = schema(s[key], f"{at}/{key}")
    for key in SUBSCHEMA_LISTS:
        if key in s:
            s[key] = [schema(b, f"{at}/{key}/{i}") for i, b in enumerate(s[key])]
    for key in SUBSCHEMA_MAPS:
        if key in s:
            s[key] = {name: schema(p, f"{at}/{key}/{name}") for name, p in s[key].items()}
    return s


def content(media: dict[str, Any], at: str) -> dict[str, Any]:
    return {kind: {**m, **({"schema": schema(m["schema"], f"{at}/{kind}/schema")} if "schema" in m else {})}
            for kind, m in media.items()}


def parameter(p: dict[str, Any], at: str) -> dict[str, Any]:
    p = dict(p)
    if "schema" in p:
        p["schema"] = schema(p["schema"], f"{at}/schema")
    if "content" in p:
        p["content"] = content(p["content"], f"{at}/content")
    return p


def response(r: dict[str, Any], at: str) -> dict[str, Any]:
    r = dict(r)
    if "content" in r:
        r["content"] = content(r["content"], f"{at}/content")
    if "headers" in r:
        r["headers"] = {n: parameter(h, f"{at}/headers/{n}") for n, h in r["headers"].items()}
    return r


def operation(op: dict[str, Any], at: str) -> dict[str, Any]:
    op = dict(op)
    if "parameters" in op:
        op["parameters"] = [parameter(p, f"{at}/parameters/{i}") for i, p in enumerate(op["parameters"])]
    if "requestBody" in op and "content" in op["requestBody"]:
        op["requestBody"] = {**op["requestBody"],
                             "content": content(op["requestBody"]["content"], f"{at}/requestBody/content")}
    if "responses" in op:
        op["responses"] = {code: response(r, f"{at}/responses/{code}") for code, r in op["responses"].items()}
    op.pop("callbacks", None)  # path items of their own; FastAPI emits none
    return op


METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]


def convert(doc: dict[str, Any]) -> dict[str, Any]:
    """The 3.0.3 rendition of a 3.1 document (the input is left alone)."""
    if not str(doc.get("openapi", "")).startswith("3.1"):
        raise NotConvertible(f"not an OpenAPI 3.1 document: openapi = {doc.get('openapi')!r}")
    out = copy.deepcopy(doc)
    out["openapi"] = "3.0.3"
    for key in ("jsonSchemaDialect", "webhooks"):
        out.pop(key, None)
    info = out.setdefault("info", {})
    info.pop("summary", None)
    if isinstance(info.get("license"), dict):
        info["license"].pop("identifier", None)
    paths = {}
    for path, item in out.get("paths", {}).items():
        item = dict(item)
        if "parameters" in item:
            item["parameters"] = [parameter(p, f"#/paths/{path}/parameters/{i}")
                                  for i, p in enumerate(item["parameters"])]
        for method in METHODS:
            if method in item:
                item[method] = operation(item[method], f"#/paths/{path}/{method}")
        paths[path] = item
    out["paths"] = paths
    components = out.get("components", {})
    components.pop("pathItems", None)
    if "schemas" in components:
        components["schemas"] = {n: schema(s, f"#/components/schemas/{n}") for n, s in components["schemas"].items()}
    for kind, fn in (("parameters", parameter), ("headers", parameter), ("responses", response)):
        if kind in components:
            components[kind] = {n: fn(v, f"#/components/{kind}/{n}") for n, v in components[kind].items()}
    for n, body in components.get("requestBodies", {}).items():
        if "content" in body:
            components["requestBodies"][n] = {**body, "content": content(body["content"],
                                                                         f"#/components/requestBodies/{n}/content")}
    return out


def problems_30(doc: dict[str, Any]) -> list[str]:
    """What in `doc` is not OpenAPI 3.0 (a check of the rendition as a whole, by JSON pointer)."""
    found: list[str] = []

    def walk(value: Any, at: str, parent_key: str) -> None:
        if isinstance(value, dict):
            in_schema_map = parent_key in ("properties", "schemas")  # keys there are names
            if not in_schema_map:
                if isinstance(value.get("type"), list):
                    found.append(f"{at}: type is a list")
                if value.get("type") == "null":
                    found.append(f"{at}: type null")
                if "const" in value and parent_key != "properties":
                    found.append(f"{at}: const")
                for k in ("exclusiveMinimum", "exclusiveMaximum"):
                    if k in value and not isinstance(value[k], bool):
                        found.append(f"{at}: numeric {k}")
                if "$ref" in value and len(value) > 1:
                    found.append(f"{at}: $ref with siblings")
                if isinstance(value.get("examples"), list):
                    found.append(f"{at}: examples is a list")
                for k in DROPPED + NO_30_FORM:
                    if k in value:
                        found.append(f"{at}: {k}")
            for k, v in value.items():
                walk(v, f"{at}/{k}", k)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{at}/{i}", "")

    if doc.get("openapi") != "3.0.3":
        found.append(f"openapi = {doc.get('openapi')!r}")
    walk(doc.get("paths", {}), "#/paths", "paths")
    walk(doc.get("components", {}), "#/components", "components")
    return found


def self_test() -> None:
    """The conversions on a small 3.1 document."""
    doc = {
        "openapi": "3.1.0", "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "info": {"title": "t", "version": "1", "summary": "s", "license": {"name": "MIT", "identifier": "MIT"}},
        "paths": {"/a/{id}": {"get": {
            "operationId": "getA",
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer", "exclusiveMinimum": 0, "examples": [7]}},
                           {"name": "q", "in": "query", "schema": {"anyOf": [{"type": "string"}, {"type": "null"}]}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/A"}}}}}}}},
        "components": {"schemas": {"A": {
            "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "urn:a", "type": "object",
            "required": ["const"],
            "properties": {
                "const": {"const": "a"},  # a property named const
                "n": {"type": ["number", "null"], "exclusiveMaximum": 10},
                "child": {"anyOf": [{"$ref": "#/components/schemas/A"}, {"type": "null"}]},
                "kids": {"type": "array", "items": {"$ref": "#/components/schemas/A"}},
                "tag": {"$ref": "#/components/schemas/Tag", "description": "its tag"},
                "either": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "blob": {"type": "string", "contentEncoding": "base64"},
            }}, "Tag": {"type": "string", "enum": ["x", "y"]}},
            "requestBodies": {"B": {"content": {"application/json": {"schema": {"type": ["string", "null"]}}}}}},
    }
    before = json.dumps(doc)
    out = convert(doc)
    assert json.dumps(doc) == before, "convert changed its input"
    assert out["openapi"] == "3.0.3" and "jsonSchemaDialect" not in out
    assert "summary" not in out["info"] and out["info"]["license"] == {"name": "MIT"}
    params = out["paths"]["/a/{id}"]["get"]["parameters"]
    assert params[0]["schema"] == {"type": "integer", "minimum": 0, "exclusiveMinimum": True, "example": 7}, params[0]
    assert params[1]["schema"] == {"type": "string", "nullable": True}, params[1]
    a = out["components"]["schemas"]["A"]
    assert "$schema" not in a and "$id" not in a and a["required"] == ["const"]
    props = a["properties"]
    assert props["const"] == {"enum": ["a"]}, props["const"]
    assert props["n"] == {"type": "number", "maximum": 10, "exclusiveMaximum": True, "nullable": True}, props["n"]
    assert props["child"] == {"allOf": [{"$ref": "#/components/schemas/A"}], "nullable": True}, props["child"]
    assert props["kids"] == {"type": "array", "items": {"$ref": "#/components/schemas/A"}}
    assert props["tag"] == {"allOf": [{"$ref": "#/components/schemas/Tag"}], "description": "its tag"}, props["tag"]
    assert props["either"] == {"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": True}, props["either"]
    assert props["blob"] == {"type": "string", "format": "byte"}, props["blob"]
    body = out["components"]["requestBodies"]["B"]["content"]["application/json"]["schema"]
    assert body == {"type": "string", "nullable": True}, body
    assert problems_30(out) == [], problems_30(out)
    assert problems_30(doc) != [], "the 3.1 document passed as 3.0"
    try:
        convert({"openapi": "3.1.0", "paths": {}, "components": {"schemas": {"T": {"prefixItems": [{}]}}}})
    except NotConvertible as e:
        assert "prefixItems" in str(e)
    else:
        raise AssertionError("prefixItems was converted")


def load(source: str) -> dict[str, Any]:
    if source.startswith(("http://", "https://")):
        with urllib.request.urlopen(source, timeout=30) as r:
            return json.loads(r.read())
    with open(source) as f:
        return json.load(f)


if __name__ == "__main__":
    if len(sys.argv) == 1:
        self_test()
        print("to_30 self-test: ok")
    else:
        rendition = convert(load(sys.argv[1]))
        left = problems_30(rendition)
        if left:
            sys.exit("not 3.0:\n" + "\n".join(left))
        print(json.dumps(rendition, indent=2))
