#!/usr/bin/env python3
"""Writes the hostile OpenAPI documents of this folder, deterministically.

Run it from anywhere: `python3 tests/openapi-specs/hostile/generate.py`.
It needs only the standard library. Every file it writes is committed except
huge-enum.json (about 3.2 MB), which a test regenerates or skips when absent.

Pass `--check` to verify that the committed files match what this script
writes (exit 1 on a difference) without writing anything.

What each document attacks, and what toolwire must do with it, is in
../SOURCES.md.
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

DEEP_LEVELS = 5000
ENUM_SIZE = 200_000
BOMB_LEVELS = 9
BOMB_WIDTH = 9

# Files written here but not committed (too large); listed in .gitignore.
UNCOMMITTED = {"huge-enum.json"}


def info(title):
    return {"title": title, "version": "1.0.0"}


def ok_response(schema=None):
    if schema is None:
        return {"200": {"description": "OK"}}
    return {
        "200": {
            "description": "OK",
            "content": {"application/json": {"schema": schema}},
        }
    }


def ref(kind, name):
    return {"$ref": "#/components/%s/%s" % (kind, name)}


def ref_cycle():
    return {
        "openapi": "3.0.3",
        "info": info("Hostile: $ref cycles"),
        "paths": {
            # Structural recursion through a property: legitimate, must load.
            "/tree": {
                "get": {
                    "operationId": "getTree",
                    "responses": ok_response(ref("schemas", "Node")),
                }
            },
            # Two schemas that refer to each other through properties: legitimate.
            "/pair": {
                "post": {
                    "operationId": "postPair",
                    "requestBody": {
                        "required": True,
                        "content": {
                            "application/json": {"schema": ref("schemas", "A")}
                        },
                    },
                    "responses": ok_response(ref("schemas", "B")),
                }
            },
            # A schema that is nothing but a $ref to itself: unresolvable.
            "/self-alias": {
                "get": {
                    "operationId": "getSelfAlias",
                    "responses": ok_response(ref("schemas", "SelfAlias")),
                }
            },
            # Two schemas that are nothing but $refs to each other: unresolvable.
            "/alias-pair": {
                "get": {
                    "operationId": "getAliasPair",
                    "responses": ok_response(ref("schemas", "AliasA")),
                }
            },
            # A parameter whose $ref chain runs A -> B -> C -> A: unresolvable.
            "/param-chain": {
                "get": {
                    "operationId": "getParamChain",
                    "parameters": [ref("parameters", "ParamA")],
                    "responses": ok_response(),
                }
            },
            # A control: nothing hostile, must always load.
            "/plain": {
                "get": {
                    "operationId": "getPlain",
                    "parameters": [
                        {"name": "q", "in": "query", "schema": {"type": "string"}}
                    ],
                    "responses": ok_response({"type": "string"}),
                }
            },
        },
        "components": {
            "schemas": {
                "Node": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "parent": ref("schemas", "Node"),
                        "children": {"type": "array", "items": ref("schemas", "Node")},
                    },
                },
                "A": {
                    "type": "object",
                    "properties": {"b": ref("schemas", "B"), "label": {"type": "string"}},
                },
                "B": {
                    "type": "object",
                    "properties": {"a": ref("schemas", "A"), "count": {"type": "integer"}},
                },
                "SelfAlias": ref("schemas", "SelfAlias"),
                "AliasA": ref("schemas", "AliasB"),
                "AliasB": ref("schemas", "AliasA"),
            },
            "parameters": {
                "ParamA": ref("parameters", "ParamB"),
                "ParamB": ref("parameters", "ParamC"),
                "ParamC": ref("parameters", "ParamA"),
            },
        },
    }


def deep_nesting_text():
    """A schema nested DEEP_LEVELS levels deep through `properties`.

    Built as text: json.dumps would hit Python's recursion limit. Every level
    adds two JSON nesting levels (the schema object and its `properties`), so
    the document is about 2 * DEEP_LEVELS deep as JSON.
    """
    head = (
        '{"openapi":"3.0.3","info":{"title":"Hostile: deep nesting","version":"1.0.0"},'
        '"paths":{"/deep":{"post":{"operationId":"postDeep","requestBody":{"content":'
        '{"application/json":{"schema":{"$ref":"#/components/schemas/Deep"}}}},'
        '"responses":{"200":{"description":"OK"}}}},'
        '"/plain":{"get":{"operationId":"getPlain","responses":{"200":{"description":"OK"}}}}},'
        '"components":{"schemas":{"Deep":'
    )
    level = '{"type":"object","properties":{"n":'
    leaf = '{"type":"string"}'
    close = "}}"
    tail = "}}}\n"
    return head + level * (DEEP_LEVELS - 1) + leaf + close * (DEEP_LEVELS - 1) + tail


def alias_bomb_text():
    """YAML "billion laughs": BOMB_LEVELS anchors, each a list of BOMB_WIDTH
    aliases of the one before. Expanded, the last is 9**9 (387,420,489) strings.
    """
    lines = [
        "openapi: 3.0.3",
        "info:",
        "  title: 'Hostile: YAML alias bomb'",
        "  version: 1.0.0",
        "x-laughs:",
    ]
    names = [chr(ord("a") + i) for i in range(BOMB_LEVELS)]
    lines.append("  %s: &%s [%s]" % (names[0], names[0], ", ".join(['"lol"'] * BOMB_WIDTH)))
    for prev, name in zip(names, names[1:]):
        lines.append(
            "  %s: &%s [%s]" % (name, name, ", ".join(["*" + prev] * BOMB_WIDTH))
        )
    last = names[-1]
    lines += [
        "paths:",
        "  /bomb:",
        "    get:",
        "      operationId: getBomb",
        "      parameters:",
        "        - name: laugh",
        "          in: query",
        "          schema:",
        "            type: array",
        "            default: *%s" % last,
        "      responses:",
        "        '200':",
        "          description: OK",
        "          content:",
        "            application/json:",
        "              schema:",
        "                type: array",
        "                example: *%s" % last,
        "  /plain:",
        "    get:",
        "      operationId: getPlain",
        "      responses:",
        "        '200':",
        "          description: OK",
    ]
    return "\n".join(lines) + "\n"


def huge_enum():
    return {
        "openapi": "3.0.3",
        "info": info("Hostile: an enum of %d strings" % ENUM_SIZE),
        "paths": {
            "/pick": {
                "get": {
                    "operationId": "pick",
                    "parameters": [
                        {"name": "choice", "in": "query", "required": True,
                         "schema": ref("schemas", "Choice")}
                    ],
                    "responses": ok_response(ref("schemas", "Choice")),
                }
            }
        },
        "components": {
            "schemas": {
                "Choice": {
                    "type": "string",
                    "enum": ["choice-%06d" % i for i in range(ENUM_SIZE)],
                }
            }
        },
    }


def bad_pattern():
    def op(op_id, pattern):
        return {
            "get": {
                "operationId": op_id,
                "parameters": [
                    {"name": "value", "in": "query", "required": True,
                     "schema": {"type": "string", "pattern": pattern}}
                ],
                "responses": ok_response(),
            }
        }

    return {
        "openapi": "3.0.3",
        "info": info("Hostile: patterns"),
        "paths": {
            # Catastrophic backtracking in a backtracking engine.
            "/redos": op("redos", "^(a+)+$"),
            # Not a regular expression in any dialect: unbalanced group.
            "/invalid": op("invalidPattern", "([a-z"),
            # Valid ECMA-262, but look-around is not supported by Rust's regex crate.
            "/lookahead": op("lookahead", "^(?=.*[0-9])[a-z0-9]+$"),
            # A control.
            "/plain": op("plainPattern", "^[a-z]+$"),
        },
    }


def swagger_2():
    return {
        "swagger": "2.0",
        "info": info("Hostile: Swagger 2.0"),
        "host": "example.com",
        "basePath": "/v1",
        "schemes": ["https"],
        "paths": {
            "/pets": {
                "get": {
                    "operationId": "listPets",
                    "produces": ["application/json"],
                    "parameters": [
                        {"name": "limit", "in": "query", "type": "integer"}
                    ],
                    "responses": {
                        "200": {
                            "description": "OK",
                            "schema": {"type": "array", "items": {"$ref": "#/definitions/Pet"}},
                        }
                    },
                }
            }
        },
        "definitions": {
            "Pet": {"type": "object", "properties": {"name": {"type": "string"}}}
        },
    }


def missing_ref():
    return {
        "openapi": "3.0.3",
        "info": info("Hostile: missing $ref targets"),
        "paths": {
            "/missing-schema": {
                "get": {
                    "operationId": "missingSchema",
                    "responses": ok_response(ref("schemas", "DoesNotExist")),
                }
            },
            "/missing-parameter": {
                "get": {
                    "operationId": "missingParameter",
                    "parameters": [ref("parameters", "NoSuchParameter")],
                    "responses": ok_response(),
                }
            },
            "/missing-nested": {
                "post": {
                    "operationId": "missingNested",
                    "requestBody": {
                        "content": {
                            "application/json": {"schema": ref("schemas", "Holder")}
                        }
                    },
                    "responses": ok_response(),
                }
            },
            "/plain": {
                "get": {"operationId": "getPlain", "responses": ok_response()}
            },
        },
        "components": {
            "schemas": {
                "Holder": {
                    "type": "object",
                    "properties": {"inner": ref("schemas", "AlsoMissing")},
                }
            }
        },
    }


def external_ref():
    return {
        "openapi": "3.0.3",
        "info": info("Hostile: external $refs"),
        "paths": {
            "/relative-file": {
                "get": {
                    "operationId": "relativeFile",
                    "responses": ok_response({"$ref": "other.yaml#/Foo"}),
                }
            },
            "/remote-url": {
                "get": {
                    "operationId": "remoteUrl",
                    "responses": ok_response({"$ref": "https://example.com/x.json"}),
                }
            },
            "/plain": {
                "get": {"operationId": "getPlain", "responses": ok_response()}
            },
        },
    }


def not_openapi():
    # Looks like an API description (info, paths) but has no openapi or swagger key.
    return {
        "info": info("Hostile: not OpenAPI"),
        "paths": {"/x": {"get": {"responses": ok_response()}}},
        "name": "not-openapi",
        "version": "1.0.0",
    }


BROKEN_YAML_LINE = 9


def broken_yaml_text():
    lines = [
        "openapi: 3.0.3",                      # 1
        "info:",                               # 2
        "  title: 'Hostile: broken YAML'",     # 3
        "  version: 1.0.0",                    # 4
        "paths:",                              # 5
        "  /items:",                           # 6
        "    get:",                            # 7
        "      operationId: listItems",        # 8
        "      summary: list: all items",      # 9: "mapping values are not allowed here"
        "      responses:",                    # 10
        "        '200':",                      # 11
        "          description: OK",           # 12
    ]
    assert lines[BROKEN_YAML_LINE - 1].startswith("      summary: list:")
    return "\n".join(lines) + "\n"


def as_json(doc):
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


def outputs():
    return {
        "ref-cycle.json": as_json(ref_cycle()),
        "deep-nesting.json": deep_nesting_text(),
        "alias-bomb.yaml": alias_bomb_text(),
        "huge-enum.json": json.dumps(huge_enum(), separators=(",", ":")) + "\n",
        "bad-pattern.json": as_json(bad_pattern()),
        "swagger-2.0.json": as_json(swagger_2()),
        "missing-ref.json": as_json(missing_ref()),
        "external-ref.json": as_json(external_ref()),
        "not-openapi.json": as_json(not_openapi()),
        "broken.yaml": broken_yaml_text(),
    }


def main(argv):
    check = "--check" in argv[1:]
    bad = 0
    for name, text in outputs().items():
        path = os.path.join(HERE, name)
        data = text.encode("utf-8")
        if check:
            if name in UNCOMMITTED and not os.path.exists(path):
                continue
            try:
                with open(path, "rb") as f:
                    same = f.read() == data
            except FileNotFoundError:
                same = False
            if not same:
                print("differs: %s" % name)
                bad += 1
        else:
            with open(path, "wb") as f:
                f.write(data)
            print("%-20s %9d bytes" % (name, len(data)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
