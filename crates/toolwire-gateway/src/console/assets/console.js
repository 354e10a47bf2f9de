// toolwire console: the tools of every source, a form per tool, and for a call the result as
// each MCP revision receives it and what each host's model reads.
//
// Rules this file keeps (the page is served under a strict CSP and is also inlined whole into
// one offline HTML file):
// - everything that comes from a tool or the gateway is inserted as text (textContent or text
//   nodes), never parsed as HTML;
// - no eval, no inline handlers, no external request;
// - the source holds no closing-tag sequence (a less-than sign followed by a slash) and no HTML
//   comment opener, so that it can sit inside an inline script element as it is.
(function () {
  "use strict";

  var TOKEN_KEY = "toolwire.console.token";
  var API = "/console/api/";

  var state = {
    offline: null, // the embedded report, in offline mode
    meta: null, // GET tools
    tools: [],
    selected: null, // a tool name (online) or a preview index (offline)
    revision: null,
    token: "",
    args: Object.create(null), // tool name: the arguments of its last call
    raw: false,
    wireId: null,
    form: null,
  };

  // ---------- DOM helpers ----------

  function $(id) {
    return document.getElementById(id);
  }

  function append(node, children) {
    for (var i = 0; i < children.length; i++) {
      var c = children[i];
      if (c === null || c === undefined || c === false) continue;
      if (Array.isArray(c)) {
        append(node, c);
      } else if (typeof c === "string" || typeof c === "number") {
        node.appendChild(document.createTextNode(String(c)));
      } else {
        node.appendChild(c);
      }
    }
    return node;
  }

  // h("div", {class: "x", text: "…", data: {tool: "a"}, onclick: f}, child, …): attributes are
  // this file's own literals; values and children from tools always end up as text.
  function h(tag, props) {
    var node = document.createElement(tag);
    if (props) {
      Object.keys(props).forEach(function (key) {
        var v = props[key];
        if (v === null || v === undefined || v === false) return;
        if (key === "class") node.className = v;
        else if (key === "text") node.textContent = String(v);
        else if (key === "value") node.value = String(v);
        else if (key === "data") {
          Object.keys(v).forEach(function (d) {
            if (v[d] !== null && v[d] !== undefined) node.setAttribute("data-" + d, String(v[d]));
          });
        } else if (key.slice(0, 2) === "on" && typeof v === "function") {
          node.addEventListener(key.slice(2), v);
        } else if (v === true) node.setAttribute(key, "");
        else node.setAttribute(key, String(v));
      });
    }
    append(node, Array.prototype.slice.call(arguments, 2));
    return node;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }

  function isObject(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  function str(v, fallback) {
    return typeof v === "string" ? v : fallback === undefined ? "" : fallback;
  }

  function fmtInt(n) {
    return typeof n === "number" && isFinite(n) ? Math.round(n).toLocaleString("en-US") : "?";
  }

  function fmtBytes(n) {
    if (typeof n !== "number" || !isFinite(n)) return "?";
    if (n < 1024) return n + " B";
    if (n < 1024 * 1024) return (n / 1024).toFixed(n < 10240 ? 1 : 0) + " KiB";
    return (n / 1048576).toFixed(1) + " MiB";
  }

  // ---------- JSON, pretty and highlighted (as text nodes) ----------

  var JSON_TOKEN = /("(?:[^"\\]|\\.)*")(\s*:)?|\b(true|false|null)\b|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;
  var HIGHLIGHT_LIMIT = 200000;

  function pretty(value) {
    try {
      var s = JSON.stringify(value, null, 2);
      return s === undefined ? String(value) : s;
    } catch (e) {
      return String(value);
    }
  }

  function jsonPre(value, extraClass) {
    return codePre(pretty(value), true, extraClass);
  }

  function codePre(text, highlight, extraClass) {
    var pre = h("pre", { class: "code" + (extraClass ? " " + extraClass : "") });
    if (!highlight || text.length > HIGHLIGHT_LIMIT) {
      pre.textContent = text;
      return pre;
    }
    var frag = document.createDocumentFragment();
    var last = 0;
    var m;
    JSON_TOKEN.lastIndex = 0;
    while ((m = JSON_TOKEN.exec(text)) !== null) {
      if (m.index > last) frag.appendChild(document.createTextNode(text.slice(last, m.index)));
      var cls;
      if (m[1] !== undefined) cls = m[2] ? "j-key" : "j-str";
      else if (m[3] !== undefined) cls = "j-lit";
      else cls = "j-num";
      frag.appendChild(h("span", { class: cls, text: m[1] !== undefined ? m[1] : m[0] }));
      if (m[2]) frag.appendChild(document.createTextNode(m[2]));
      last = JSON_TOKEN.lastIndex;
    }
    if (last < text.length) frag.appendChild(document.createTextNode(text.slice(last)));
    pre.appendChild(frag);
    return pre;
  }

  // ---------- the notice banner ----------

  function setNotice(message, kind) {
    var box = $("notice");
    if (!box) return;
    clear(box);
    if (!message) {
      box.hidden = true;
      return;
    }
    box.className = "notice" + (kind === "info" ? " notice-info" : "");
    append(box, [
      h("span", { class: "notice-text", text: message }),
      h("button", {
        type: "button",
        class: "btn btn-quiet",
        "aria-label": "Dismiss",
        text: "×",
        onclick: function () {
          setNotice(null);
        },
      }),
    ]);
    box.hidden = false;
  }

  // ---------- the API ----------

  function ApiError(status, code, message) {
    this.status = status;
    this.code = code;
    this.message = message;
  }

  function api(path, body) {
    var headers = { Accept: "application/json" };
    if (state.token) headers.Authorization = "Bearer " + state.token;
    var init = { method: body === undefined ? "GET" : "POST", headers: headers, cache: "no-store", credentials: "same-origin" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(API + path, init)
      .catch(function (e) {
        throw new ApiError(0, "network", "The gateway could not be reached (" + (e && e.message ? e.message : e) + ").");
      })
      .then(function (response) {
        return response.text().then(function (text) {
          var payload = null;
          try {
            payload = text ? JSON.parse(text) : null;
          } catch (e) {
            payload = null;
          }
          if (!response.ok) {
            var message = payload && typeof payload.message === "string" ? payload.message : text.trim() || response.statusText || "HTTP " + response.status;
            var code = payload && typeof payload.error === "string" ? payload.error : "http_" + response.status;
            if (response.status === 401) {
              message =
                (state.token ? "The gateway refused this token: enter another" : "This gateway needs a token: enter one") +
                " in the Token field at the top right and press Use. (" + message + ")";
            } else if (response.status === 403 && code === "http_403") {
              message = "Forbidden (HTTP 403): " + message;
            }
            throw new ApiError(response.status, code, message);
          }
          if (!isObject(payload)) throw new ApiError(response.status, "bad_answer", "The gateway's answer is not a JSON object.");
          return payload;
        });
      });
  }

  function errorText(e) {
    if (e instanceof ApiError) return e.message;
    return "Unexpected error: " + (e && e.message ? e.message : String(e));
  }

  // ---------- the token ----------

  function loadToken() {
    try {
      return window.sessionStorage.getItem(TOKEN_KEY) || "";
    } catch (e) {
      return "";
    }
  }

  function saveToken(token) {
    try {
      if (token) window.sessionStorage.setItem(TOKEN_KEY, token);
      else window.sessionStorage.removeItem(TOKEN_KEY);
    } catch (e) {
      // sessionStorage may be unavailable (a locked-down browser): the token lives in memory.
    }
  }

  function applyToken(token) {
    state.token = token.trim();
    saveToken(state.token);
    var input = $("token");
    input.value = state.token;
    input.classList.toggle("token-set", !!state.token);
    loadTools();
  }

  // ---------- sources: a stable colour per source name ----------

  var sourceColours = Object.create(null);
  function sourceBadge(source) {
    var name = str(source, "?");
    if (!(name in sourceColours)) sourceColours[name] = Object.keys(sourceColours).length % 6;
    return h("span", { class: "badge src-" + sourceColours[name], title: "source: " + name, text: name });
  }

  // ---------- online start ----------

  function startOnline() {
    var input = $("token");
    state.token = loadToken();
    input.value = state.token;
    input.classList.toggle("token-set", !!state.token);
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") {
        ev.preventDefault();
        applyToken(input.value);
      }
    });
    $("token-apply").addEventListener("click", function () {
      applyToken(input.value);
    });
    $("token-clear").addEventListener("click", function () {
      applyToken("");
    });
    bindFilter();
    window.addEventListener("hashchange", function () {
      var name = toolFromHash();
      if (name && name !== state.selected && findTool(name)) selectTool(name);
    });
    loadTools();
  }

  function bindFilter() {
    var filter = $("filter");
    filter.addEventListener("input", renderList);
    filter.addEventListener("keydown", function (ev) {
      if (ev.key !== "Enter") return;
      var first = document.querySelector("#tools .tool-item .tool-button");
      if (first) first.click();
    });
  }

  function toolFromHash() {
    var m = /^#tool=(.+)$/.exec(window.location.hash || "");
    if (!m) return null;
    try {
      return decodeURIComponent(m[1]);
    } catch (e) {
      return null;
    }
  }

  function findTool(name) {
    for (var i = 0; i < state.tools.length; i++) if (state.tools[i].name === name) return state.tools[i];
    return null;
  }

  function loadTools() {
    $("principal").textContent = "…";
    return api("tools")
      .then(function (meta) {
        setNotice(null);
        state.meta = meta;
        state.tools = Array.isArray(meta.tools) ? meta.tools.filter(function (t) { return isObject(t) && typeof t.name === "string"; }) : [];
        var revisions = revisionsOf(meta);
        if (!state.revision || revisions.indexOf(state.revision) < 0) state.revision = revisions.length ? revisions[revisions.length - 1] : null;
        renderServer();
        renderList();
        var wanted = state.selected || toolFromHash();
        if (wanted && findTool(wanted)) selectTool(wanted, true);
        else {
          state.selected = null;
          renderOverview();
        }
      })
      .catch(function (e) {
        state.meta = null;
        state.tools = [];
        $("principal").textContent = e.status === 401 ? "(no access)" : "?";
        setNotice(errorText(e));
        renderList();
        var content = clear($("content"));
        content.appendChild(
          h("div", { class: "empty" },
            h("p", { class: "empty-title", text: e.status === 401 ? (state.token ? "The token was refused" : "A token is needed") : "The tools could not be loaded" }),
            h("p", { text: errorText(e) }))
        );
      });
  }

  function revisionsOf(meta) {
    return Array.isArray(meta && meta.revisions) ? meta.revisions.filter(function (r) { return typeof r === "string"; }) : [];
  }

  function renderServer() {
    var meta = state.meta || {};
    var server = isObject(meta.server) ? meta.server : {};
    var label = [str(server.name), str(server.version)].filter(Boolean).join(" ");
    $("server").textContent = label;
    $("principal").textContent = str(meta.principal, "?");
    document.title = "toolwire console" + (label ? " · " + label : "");
  }

  // ---------- the list on the left ----------

  function matches(fields, q) {
    if (!q) return true;
    for (var i = 0; i < fields.length; i++) if (typeof fields[i] === "string" && fields[i].toLowerCase().indexOf(q) >= 0) return true;
    return false;
  }

  function renderList() {
    if (state.offline) return renderPreviewList();
    var list = clear($("tools"));
    var q = $("filter").value.trim().toLowerCase();
    var shown = state.tools.filter(function (t) {
      return matches([t.name, t.title, t.source, t.description], q);
    });
    $("tool-count").textContent = state.tools.length ? (q ? shown.length + " of " : "") + state.tools.length : "";
    var lastSource = null;
    var sources = {};
    state.tools.forEach(function (t) {
      sources[str(t.source, "?")] = (sources[str(t.source, "?")] || 0) + 1;
    });
    var grouped = Object.keys(sources).length > 1;
    shown.forEach(function (tool) {
      var source = str(tool.source, "?");
      if (grouped && source !== lastSource) {
        list.appendChild(h("li", { class: "group-head", role: "presentation", text: source + " · " + sources[source] }));
        lastSource = source;
      }
      var title = str(tool.title) || firstSentence(str(tool.description));
      list.appendChild(
        h("li", { class: "tool-item" + (tool.name === state.selected ? " selected" : ""), data: { tool: tool.name } },
          h("button", {
            type: "button",
            class: "tool-button",
            title: tool.name,
            onclick: function () {
              selectTool(tool.name);
            },
          },
          h("span", { class: "tool-line" }, h("span", { class: "tool-name", text: tool.name }), sourceBadge(tool.source)),
          title ? h("span", { class: "tool-title", text: title }) : null))
      );
    });
    if (!shown.length) list.appendChild(h("li", { class: "list-empty", text: state.tools.length ? "No tool matches." : "No tools." }));
  }

  function firstSentence(text) {
    var m = /^[^.!?\n]{1,120}/.exec(text);
    return m ? m[0] : text.slice(0, 120);
  }

  function markSelected() {
    var items = document.querySelectorAll("#tools .tool-item");
    for (var i = 0; i < items.length; i++) {
      var key = state.offline ? items[i].getAttribute("data-preview") : items[i].getAttribute("data-tool");
      items[i].classList.toggle("selected", key === String(state.selected));
    }
  }

  // ---------- the overview (no tool selected) ----------

  function renderOverview() {
    var meta = state.meta || {};
    var server = isObject(meta.server) ? meta.server : {};
    var hosts = Array.isArray(meta.hosts) ? meta.hosts.filter(isObject) : [];
    var sources = {};
    state.tools.forEach(function (t) {
      sources[str(t.source, "?")] = true;
    });
    var content = clear($("content"));
    var rows = hosts.map(function (p) {
      return h("tr", null,
        h("td", { text: str(p.name, "?") }),
        h("td", { text: str(p.reads, "?") }),
        h("td", { text: typeof p.maxResultBytes === "number" ? fmtInt(p.maxResultBytes) + " B" : "none" }),
        h("td", { text: p.readsLinks ? "follows links" : "does not follow links" }),
        h("td", { text: p.strictStructured ? "strict" : "" }));
    });
    content.appendChild(
      h("div", { class: "card overview" },
        h("h1", { text: [str(server.name, "toolwire"), str(server.version)].filter(Boolean).join(" ") }),
        h("p", { class: "lead", text: "Pick a tool on the left to call it through the gateway, as " + str(meta.principal, "?") + ", and see its result as each MCP revision receives it and, side by side, what each host's model reads." }),
        h("div", { class: "stats" },
          stat(state.tools.length, "tools"),
          stat(Object.keys(sources).length, "sources"),
          stat(revisionsOf(meta).length, "MCP revisions"),
          stat(hosts.length, "host profiles")),
        h("div", { class: "chips" }, revisionsOf(meta).map(function (r) {
          return h("span", { class: "chip" }, "MCP ", h("strong", { text: r }));
        })),
        hosts.length
          ? h("div", { class: "table-wrap" },
              h("table", { class: "profiles" },
                h("thead", null, h("tr", null, h("th", { text: "host" }), h("th", { text: "its model reads" }), h("th", { text: "cap" }), h("th", { text: "links" }), h("th", { text: "structured check" }))),
                h("tbody", null, rows)))
          : null)
    );
  }

  function stat(value, label) {
    return h("div", { class: "stat" }, h("div", { class: "stat-value", text: fmtInt(value) }), h("div", { class: "stat-label", text: label }));
  }

  // ---------- a tool ----------

  function selectTool(name, keepResult) {
    var tool = findTool(name);
    if (!tool) return;
    var same = state.selected === name;
    state.selected = name;
    markSelected();
    if (!state.offline) {
      try {
        window.history.replaceState(null, "", "#tool=" + encodeURIComponent(name));
      } catch (e) {
        // a page that cannot change its URL keeps working without it
      }
    }
    if (same && keepResult && $("result")) {
      renderServer();
      return;
    }
    renderTool(tool);
  }

  var ANNOTATIONS = {
    readOnlyHint: ["read-only", "writes"],
    destructiveHint: ["destructive", "not destructive"],
    idempotentHint: ["idempotent", "not idempotent"],
    openWorldHint: ["open world", "closed world"],
  };

  function annotationChips(annotations) {
    if (!isObject(annotations)) return [];
    return Object.keys(annotations).map(function (key) {
      var v = annotations[key];
      if (key === "title") return h("span", { class: "chip" }, "title ", h("strong", { text: str(v, pretty(v)) }));
      if (ANNOTATIONS[key] && typeof v === "boolean") {
        var text = v ? ANNOTATIONS[key][0] : ANNOTATIONS[key][1];
        var cls = "chip" + (key === "destructiveHint" && v ? " bad" : key === "readOnlyHint" && v ? " ok" : "");
        return h("span", { class: cls, title: key + ": " + v, text: text });
      }
      return h("span", { class: "chip", title: key }, key + " ", h("strong", { text: typeof v === "string" ? v : pretty(v) }));
    });
  }

  function renderTool(tool) {
    var content = clear($("content"));
    var privileges = Array.isArray(tool.privileges) ? tool.privileges.filter(function (p) { return typeof p === "string"; }) : [];
    var task = str(tool.taskSupport, "forbidden");
    var chips = annotationChips(tool.annotations);
    chips.push(h("span", { class: "chip" + (task === "forbidden" ? "" : " accent"), title: "execution.taskSupport" }, "tasks ", h("strong", { text: task })));
    if (privileges.length) {
      privileges.forEach(function (p) {
        chips.push(h("span", { class: "chip warn", title: "a privilege the gateway checks before the call" }, "needs ", h("code", { text: p })));
      });
    } else {
      chips.push(h("span", { class: "chip", text: "no privilege checked by the gateway" }));
    }

    var head = h("div", { class: "card tool-card" },
      h("div", { class: "tool-head" },
        h("h1", { text: tool.name }),
        sourceBadge(tool.source),
        tool.title ? h("span", { class: "tool-subtitle", text: str(tool.title) }) : null),
      tool.description ? h("p", { class: "description", text: str(tool.description, pretty(tool.description)) }) : null,
      h("div", { class: "chips" }, chips),
      h("div", { class: "schemas" },
        schemaBlock("Input schema", tool.inputSchema),
        schemaBlock("Output schema", tool.outputSchema)));

    content.appendChild(head);
    content.appendChild(callCard(tool));
    content.appendChild(h("div", { id: "result", class: "result-slot" }));
  }

  function schemaBlock(label, schema) {
    if (schema === undefined || schema === null) return h("div", { class: "schema-none", text: label + ": none declared" });
    var props = isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties).length : null;
    return h("details", { class: "schema" },
      h("summary", null, label, props !== null ? h("span", { class: "summary-note", text: props + (props === 1 ? " property" : " properties") }) : null),
      jsonPre(schema));
  }

  // ---------- the form ----------

  function deref(schema, root) {
    var s = schema;
    for (var n = 0; n < 8 && isObject(s) && typeof s.$ref === "string"; n++) {
      var target = pointer(root, s.$ref);
      if (!isObject(target)) break;
      var merged = {};
      Object.keys(target).forEach(function (k) { merged[k] = target[k]; });
      Object.keys(s).forEach(function (k) { if (k !== "$ref") merged[k] = s[k]; });
      s = merged;
    }
    return isObject(s) ? s : {};
  }

  function pointer(root, ref) {
    if (ref.charAt(0) !== "#") return null;
    var parts = ref.slice(1).split("/").slice(1);
    var node = root;
    for (var i = 0; i < parts.length; i++) {
      var key = parts[i].replace(/~1/g, "/").replace(/~0/g, "~");
      try {
        key = decodeURIComponent(key);
      } catch (e) {
        // keep it as it is
      }
      if (!isObject(node) && !Array.isArray(node)) return null;
      node = node[key];
    }
    return node;
  }

  // The one type of a property (a union with null counts as its other member), or null.
  function typeOf(s, root) {
    var t = s.type;
    if (Array.isArray(t)) {
      var rest = t.filter(function (x) { return x !== "null"; });
      t = rest.length === 1 ? rest[0] : null;
    }
    if (typeof t === "string") return t;
    var branches = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null;
    if (branches) {
      var real = branches.map(function (b) { return deref(b, root); }).filter(function (b) { return b.type !== "null"; });
      if (real.length === 1) return typeOf(real[0], root);
    }
    return null;
  }

  function enumOf(s) {
    var values = Array.isArray(s.enum) ? s.enum : "const" in s ? [s["const"]] : null;
    if (!values || !values.length) return null;
    for (var i = 0; i < values.length; i++) if (values[i] !== null && typeof values[i] === "object") return null;
    return values;
  }

  function buildFields(tool) {
    var schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
    var props = isObject(schema.properties) ? schema.properties : {};
    var required = Array.isArray(schema.required) ? schema.required : [];
    return Object.keys(props).map(function (name, i) {
      return makeField(name, deref(props[name], schema), required.indexOf(name) >= 0, schema, i);
    });
  }

  function makeField(name, s, required, root, index) {
    var id = "field-" + index;
    var values = enumOf(s);
    var type = typeOf(s, root);
    var kind = values ? "enum" : type === "boolean" ? "boolean" : type === "integer" || type === "number" ? "number" : type === "string" ? "string" : "json";
    var hasDefault = "default" in s;
    var input;
    var field = { name: name, kind: kind, required: required, schema: s };

    if (kind === "enum") {
      input = h("select", { id: id, data: { field: name } });
      input.appendChild(h("option", { value: "", text: required ? "choose…" : "(not sent)" }));
      values.forEach(function (v) {
        input.appendChild(h("option", { value: JSON.stringify(v), text: typeof v === "string" ? v : JSON.stringify(v) }));
      });
    } else if (kind === "boolean") {
      input = h("input", { id: id, type: "checkbox", data: { field: name } });
    } else if (kind === "number") {
      input = h("input", {
        id: id,
        type: "number",
        data: { field: name },
        step: type === "integer" ? "1" : "any",
        min: typeof s.minimum === "number" ? s.minimum : null,
        max: typeof s.maximum === "number" ? s.maximum : null,
        placeholder: type === "integer" ? "integer" : "number",
        inputmode: type === "integer" ? "numeric" : "decimal",
      });
    } else if (kind === "string") {
      input = h("input", {
        id: id,
        type: "text",
        data: { field: name },
        spellcheck: "false",
        autocomplete: "off",
        placeholder: typeof s.format === "string" ? s.format : typeof s.pattern === "string" ? s.pattern : "",
        maxlength: typeof s.maxLength === "number" ? s.maxLength : null,
      });
    } else {
      input = h("textarea", {
        id: id,
        rows: "3",
        data: { field: name },
        spellcheck: "false",
        placeholder: type === "array" ? "[ … ] as JSON" : type === "object" ? "{ … } as JSON" : "any JSON value",
      });
    }
    field.input = input;

    field.read = function () {
      if (kind === "boolean") {
        if (input.checked) return { value: true };
        return required || hasDefault || field.touched ? { value: false } : { skip: true };
      }
      var raw = input.value;
      if (kind === "enum") return raw === "" ? { skip: true } : { value: JSON.parse(raw) };
      if (kind === "string") return raw === "" ? { skip: true } : { value: raw };
      if (kind === "number") {
        if (raw.trim() === "") {
          if (input.validity && input.validity.badInput) return { error: "not a number" };
          return { skip: true };
        }
        var n = Number(raw);
        if (!isFinite(n)) return { error: "not a number" };
        if (type === "integer" && !Number.isInteger(n)) return { error: "not an integer" };
        return { value: n };
      }
      if (raw.trim() === "") return { skip: true };
      try {
        return { value: JSON.parse(raw) };
      } catch (e) {
        return { error: "not valid JSON (" + e.message + ")" };
      }
    };

    field.write = function (v) {
      field.touched = false;
      if (kind === "boolean") {
        input.checked = v === true;
        field.touched = v === false;
      } else if (kind === "enum") {
        var wanted = v === undefined ? "" : JSON.stringify(v);
        var found = false;
        for (var i = 0; i < input.options.length; i++) if (input.options[i].value === wanted) found = true;
        input.value = found ? wanted : "";
      } else if (kind === "string") {
        input.value = v === undefined ? "" : typeof v === "string" ? v : JSON.stringify(v);
      } else if (kind === "number") {
        input.value = v === undefined ? "" : typeof v === "number" ? String(v) : "";
      } else {
        input.value = v === undefined ? "" : pretty(v);
      }
    };

    if (kind === "boolean") {
      input.addEventListener("change", function () {
        field.touched = true;
      });
    }
    if (hasDefault) field.write(s["default"]);

    var typeLabel = values ? "enum" : type || (s.$ref ? "ref" : "any");
    if (type === "array" && isObject(s.items) && typeof s.items.type === "string") typeLabel = "array of " + s.items.type;
    var range = [];
    if (typeof s.minimum === "number") range.push("≥ " + s.minimum);
    if (typeof s.exclusiveMinimum === "number") range.push("> " + s.exclusiveMinimum);
    if (typeof s.maximum === "number") range.push("≤ " + s.maximum);
    if (typeof s.exclusiveMaximum === "number") range.push("< " + s.exclusiveMaximum);
    if (hasDefault) range.push("default " + JSON.stringify(s["default"]));

    var label = h("label", { class: "field-label", for: id },
      h("span", { class: "field-name", text: name }),
      required ? h("span", { class: "req", title: "required", text: "*" }) : null,
      h("span", { class: "field-type", text: typeLabel + (range.length ? " · " + range.join(", ") : "") }));
    var help = typeof s.description === "string" ? h("span", { class: "field-help", text: s.description }) : null;
    field.error = h("span", { class: "field-error", hidden: true });
    if (kind === "boolean") {
      var checkLabel = h("label", { class: "field-check", for: id }, input, h("span", { class: "field-name", text: name }),
        required ? h("span", { class: "req", title: "required", text: "*" }) : null,
        h("span", { class: "field-type", text: "boolean" + (hasDefault ? " · default " + JSON.stringify(s["default"]) : "") }));
      field.node = h("div", { class: "field", data: { kind: kind } }, checkLabel, help, field.error);
    } else {
      field.node = h("div", { class: "field" + (kind === "json" ? " wide" : ""), data: { kind: kind } }, label, input, help, field.error);
    }
    return field;
  }

  // Reads the form: {args, errors} (errors name the fields that could not be read).
  function readForm(form) {
    var args = {};
    var errors = [];
    Object.keys(form.extra).forEach(function (k) {
      args[k] = form.extra[k];
    });
    form.fields.forEach(function (f) {
      var r = f.read();
      f.node.classList.toggle("invalid", !!r.error);
      f.error.hidden = !r.error;
      f.error.textContent = r.error ? r.error : "";
      if (r.error) errors.push(f.name + ": " + r.error);
      else if (!r.skip) args[f.name] = r.value;
      else delete args[f.name];
    });
    return { args: args, errors: errors };
  }

  function writeForm(form, args) {
    var known = {};
    form.fields.forEach(function (f) {
      known[f.name] = true;
      f.write(args[f.name]);
    });
    form.extra = {};
    Object.keys(args).forEach(function (k) {
      if (!known[k]) form.extra[k] = args[k];
    });
    renderExtra(form);
  }

  function renderExtra(form) {
    var keys = Object.keys(form.extra);
    form.extraNote.hidden = !keys.length;
    form.extraNote.textContent = keys.length ? "Also sent, not in the input schema: " + keys.join(", ") + " (edit them as raw JSON)." : "";
  }

  function parseRaw(text) {
    var value;
    try {
      value = JSON.parse(text.trim() === "" ? "{}" : text);
    } catch (e) {
      return { error: "The raw arguments are not valid JSON: " + e.message };
    }
    if (!isObject(value)) return { error: "The arguments must be a JSON object." };
    return { value: value };
  }

  function callCard(tool) {
    var fields = buildFields(tool);
    var form = { tool: tool, fields: fields, extra: {}, raw: state.raw };
    state.form = form;
    form.extraNote = h("p", { class: "extra-note", hidden: true });
    if (state.args[tool.name]) writeForm(form, state.args[tool.name]);

    var fieldsBox = fields.length
      ? h("div", { class: "fields" }, fields.map(function (f) { return f.node; }))
      : h("p", { class: "no-args", text: "This tool takes no arguments." });
    var rawArea = h("textarea", { id: "raw-json", rows: "8", spellcheck: "false", "aria-label": "Arguments as raw JSON" });
    var rawError = h("p", { class: "field-error", hidden: true });
    var rawBox = h("div", { class: "raw-box", hidden: true }, rawArea, rawError);
    var rawToggle = h("input", { id: "raw-toggle", type: "checkbox" });
    var status = h("span", { class: "call-status", id: "call-status", role: "status" });

    function showRaw(on) {
      if (on) {
        rawArea.value = pretty(readForm(form).args);
        rawError.hidden = true;
      } else {
        var parsed = parseRaw(rawArea.value);
        if (parsed.error) {
          rawError.textContent = parsed.error;
          rawError.hidden = false;
          rawToggle.checked = true;
          return;
        }
        writeForm(form, parsed.value);
      }
      form.raw = on;
      state.raw = on;
      rawBox.hidden = !on;
      fieldsBox.hidden = on;
      form.extraNote.hidden = on || !Object.keys(form.extra).length;
    }
    rawToggle.addEventListener("change", function () {
      showRaw(rawToggle.checked);
    });

    var revisions = revisionsOf(state.meta);
    var revisionSelect = h("select", { id: "revision", "aria-label": "MCP revision of the host panels" });
    revisions.forEach(function (r) {
      revisionSelect.appendChild(h("option", { value: r, text: r }));
    });
    if (state.revision) revisionSelect.value = state.revision;
    revisionSelect.addEventListener("change", function () {
      state.revision = revisionSelect.value;
    });

    var callButton = h("button", { id: "call", type: "button", class: "btn btn-primary", text: "Call" });
    callButton.addEventListener("click", function () {
      var args;
      if (form.raw) {
        var parsed = parseRaw(rawArea.value);
        if (parsed.error) {
          rawError.textContent = parsed.error;
          rawError.hidden = false;
          return;
        }
        rawError.hidden = true;
        args = parsed.value;
      } else {
        var read = readForm(form);
        if (read.errors.length) {
          status.className = "call-status bad";
          status.textContent = "Fix the arguments first: " + read.errors.join("; ");
          return;
        }
        args = read.args;
      }
      callTool(tool, args, callButton, status);
    });
    // Enter in a one-line field calls the tool.
    fields.forEach(function (f) {
      if (f.kind === "string" || f.kind === "number") {
        f.input.addEventListener("keydown", function (ev) {
          if (ev.key === "Enter") {
            ev.preventDefault();
            callButton.click();
          }
        });
      }
    });

    var hostCount = state.meta && Array.isArray(state.meta.hosts) ? state.meta.hosts.length : 0;
    var card = h("div", { class: "card call-card" },
      h("div", { class: "card-head" },
        h("h2", { text: "Arguments" }),
        h("span", { class: "spacer" }),
        h("label", { class: "toggle", for: "raw-toggle" }, rawToggle, "Raw JSON")),
      fieldsBox,
      form.extraNote,
      rawBox,
      h("div", { class: "call-bar" },
        callButton,
        h("label", { for: "revision", text: "host panels for MCP" }),
        revisionSelect,
        hostCount ? h("span", { class: "muted", text: "· " + hostCount + " host profiles" }) : null,
        status));
    if (state.raw) {
      rawToggle.checked = true;
      showRaw(true);
    } else {
      renderExtra(form);
    }
    return card;
  }

  function callTool(tool, args, button, status) {
    state.args[tool.name] = args;
    var slot = $("result");
    button.disabled = true;
    button.textContent = "Calling…";
    status.className = "call-status";
    clear(status);
    append(status, [h("span", { class: "spinner", "aria-hidden": "true" }), " calling " + tool.name + "…"]);
    var body = { tool: tool.name, arguments: args };
    if (state.revision) body.revision = state.revision;
    var started = Date.now();
    api("call", body)
      .then(function (res) {
        if (!slot.isConnected || state.selected !== tool.name) return;
        status.className = "call-status";
        status.textContent = "answered in " + (Date.now() - started) + " ms";
        clear(slot).appendChild(renderResult(res, false));
        if (typeof res.principal === "string") $("principal").textContent = res.principal;
      })
      .catch(function (e) {
        if (!slot.isConnected) return;
        status.className = "call-status bad";
        status.textContent = "the call failed";
        if (e.status === 401) setNotice(errorText(e));
        clear(slot).appendChild(
          h("div", { class: "error-box", role: "alert" },
            h("strong", { text: e instanceof ApiError && e.code ? e.code : "error" }), ": ", errorText(e)));
      })
      .then(function () {
        button.disabled = false;
        button.textContent = "Call";
      });
  }

  // ---------- a result ----------

  var OUTCOMES = { success: "success", error: "error", input_required: "input required" };

  function renderResult(res, offline) {
    var box = h("section", { class: "result", data: { outcome: str(res.outcome, "unknown") } });
    var outcome = str(res.outcome, "unknown");
    var doc = isObject(res.document) ? res.document : null;

    // Outcome, duration, principal, and the result's own words.
    var meta = [];
    if (typeof res.tool === "string") meta.push(h("span", null, "tool ", h("strong", { text: res.tool })));
    if (typeof res.durationMs === "number") meta.push(h("span", null, h("strong", { text: fmtInt(res.durationMs) + " ms" })));
    if (typeof res.principal === "string") meta.push(h("span", null, "as ", h("strong", { text: res.principal })));
    var head = h("div", { class: "card result-card" },
      h("div", { class: "result-head" },
        h("span", { class: "outcome outcome-" + (OUTCOMES[outcome] ? outcome : "unknown"), text: OUTCOMES[outcome] || outcome }),
        h("div", { class: "result-meta" }, meta)),
      documentLines(doc),
      verdict(res.schema));
    if (doc) {
      head.appendChild(h("details", { class: "schema" },
        h("summary", null, "Result document", h("span", { class: "summary-note", text: str(doc.format, "toolwire's versioned form") })),
        jsonPre(doc)));
    }
    box.appendChild(head);

    var findings = Array.isArray(res.findings) ? res.findings.filter(isObject) : [];
    if (findings.length) box.appendChild(findingsCard(findings));
    var images = Array.isArray(res.images) ? res.images.filter(isObject) : [];
    if (images.length) box.appendChild(imagesCard(images));
    var links = Array.isArray(res.links) ? res.links.filter(isObject) : [];
    if (links.length) box.appendChild(linksCard(links, offline));
    var hosts = Array.isArray(res.hosts) ? res.hosts.filter(isObject) : [];
    if (hosts.length) box.appendChild(hostsCard(hosts, res.hostRevision));
    var wires = Array.isArray(res.wires) ? res.wires.filter(isObject) : [];
    if (wires.length) box.appendChild(wiresCard(wires, res.hostRevision));
    return box;
  }

  function documentLines(doc) {
    if (!doc) return null;
    var lines = [];
    if (typeof doc.summary === "string") lines.push(h("p", { class: "result-summary", text: doc.summary }));
    var err = isObject(doc.error) ? doc.error : null;
    if (err) {
      lines.push(h("p", { class: "result-error" },
        h("code", { text: str(err.code, "error") }), " ", str(err.message)));
    }
    var chips = [];
    var meta = isObject(doc.meta) ? doc.meta : {};
    if (doc.dryRun === true || meta.dryRun === true) chips.push(h("span", { class: "chip warn", text: "dry run: nothing was changed" }));
    var pag = isObject(doc.pagination) ? doc.pagination : isObject(meta.pagination) ? meta.pagination : null;
    if (pag) {
      var parts = [];
      if (typeof pag.total === "number") parts.push(fmtInt(pag.total) + " in all");
      if (typeof pag.page === "number") parts.push("page " + pag.page);
      if (pag.nextCursor !== undefined && pag.nextCursor !== null) parts.push("next cursor " + JSON.stringify(pag.nextCursor));
      if (parts.length) chips.push(h("span", { class: "chip", text: parts.join(" · ") }));
    }
    if (chips.length) lines.push(h("div", { class: "chips" }, chips));
    var asks = isObject(doc.inputRequired) && isObject(doc.inputRequired.requests) ? doc.inputRequired.requests : null;
    if (asks) {
      Object.keys(asks).forEach(function (key) {
        var ask = isObject(asks[key]) ? asks[key] : {};
        var params = isObject(ask.params) ? ask.params : {};
        lines.push(h("p", { class: "result-ask" },
          h("span", { class: "badge warn", text: "asks" }), " ",
          h("code", { text: str(ask.method, key) }), " ",
          str(params.message)));
      });
    }
    return lines;
  }

  // What `toolwire check` found in this call (its offline page only): errors first.
  function findingsCard(findings) {
    var sorted = findings.slice().sort(function (a, b) {
      return (a.severity === "error" ? 0 : 1) - (b.severity === "error" ? 0 : 1);
    });
    var errors = sorted.filter(function (f) { return f.severity === "error"; }).length;
    var items = sorted.map(function (f) {
      var error = f.severity === "error";
      var hosts = Array.isArray(f.hosts) && f.hosts.length ? " (" + f.hosts.join(", ") + ")" : "";
      return h("li", { class: "finding", data: { severity: str(f.severity, "warning") } },
        h("span", { class: "badge " + (error ? "bad" : "warn"), text: error ? "error" : "warning" }), " ",
        h("code", { text: str(f.check || f.kind, "check") }), " ",
        h("span", { text: str(f.message) + hosts }),
        f.at ? h("span", { class: "muted", text: " at " + str(f.at) }) : null);
    });
    return h("div", { class: "card findings-card" },
      sectionTitle("What the check found", errors ? errors + " error" + (errors === 1 ? "" : "s") : "warnings only"),
      h("ul", { class: "findings" }, items));
  }

  function verdict(schema) {
    if (!isObject(schema)) return null;
    var node = h("div", { class: "verdict" }, h("span", { class: "muted", text: "Output schema:" }));
    if (schema.declared === false) {
      node.appendChild(h("span", { class: "badge", text: "none declared" }));
      node.appendChild(h("span", { class: "muted", text: "nothing to validate against" }));
    } else if (schema.valid === true) {
      node.appendChild(h("span", { class: "badge ok", text: "✓ valid" }));
      node.appendChild(h("span", { class: "muted", text: "against the output schema the tool published" }));
    } else if (schema.valid === false) {
      node.appendChild(h("span", { class: "badge bad", text: "✗ invalid" }));
    } else {
      node.appendChild(h("span", { class: "badge", text: "not checked" }));
    }
    if (typeof schema.message === "string" && schema.message) node.appendChild(h("span", { class: "verdict-message", text: schema.message }));
    return node;
  }

  function sectionTitle(title, note) {
    return h("div", { class: "section-title" }, h("h3", { text: title }), note ? h("span", { class: "section-note", text: note }) : null);
  }

  function imagesCard(images) {
    var figures = images.map(function (img, i) {
      var mime = str(img.mimeType);
      var data = str(img.data);
      if (!/^image\/[A-Za-z0-9.+-]+$/.test(mime) || !/^[A-Za-z0-9+\/=\s]*$/.test(data)) {
        return h("figure", { class: "image" }, h("figcaption", { text: "image " + (i + 1) + ": not shown (" + (mime || "no type") + ")" }));
      }
      var bytes = Math.floor((data.replace(/\s|=/g, "").length * 3) / 4);
      return h("figure", { class: "image" },
        h("img", { src: "data:" + mime + ";base64," + data.replace(/\s/g, ""), alt: "image " + (i + 1) + " of the result (" + mime + ")", data: { image: i } }),
        h("figcaption", { text: mime + " · " + fmtBytes(bytes) }));
    });
    return h("div", { class: "card" }, sectionTitle("Images", images.length + (images.length === 1 ? " image" : " images") + " in the result"), h("div", { class: "images" }, figures));
  }

  function linksCard(links, offline) {
    var items = links.map(function (link) {
      var uri = str(link.uri);
      var meta = [];
      if (typeof link.mimeType === "string") meta.push(link.mimeType);
      if (typeof link.size === "number") meta.push(fmtBytes(link.size) + " (" + fmtInt(link.size) + " bytes)");
      var contentBox = h("div", { class: "link-content", hidden: true });
      var li = h("li", { class: "link", data: { link: uri } });
      var line = h("div", { class: "link-line" }, h("code", { class: "link-uri", text: uri }), h("span", { class: "link-meta", text: meta.join(" · ") }));
      li.appendChild(line);
      if (offline) {
        li.appendChild(h("p", { class: "link-offline", text: "Stored results cannot be opened from an offline report: read it on the gateway with resources/read, or with toolwire read URI --data-dir DIR." }));
      } else {
        var button = h("button", { type: "button", class: "btn btn-small", text: "Open", data: { open: uri } });
        button.addEventListener("click", function () {
          if (!contentBox.hidden && contentBox.firstChild) {
            contentBox.hidden = true;
            button.textContent = "Open";
            return;
          }
          openLink(uri, contentBox, button);
        });
        line.appendChild(button);
      }
      li.appendChild(contentBox);
      return li;
    });
    return h("div", { class: "card" }, sectionTitle("Stored links", "results kept behind signed links, readable by the principal that made them"), h("ul", { class: "links" }, items));
  }

  function openLink(uri, box, button) {
    button.disabled = true;
    button.textContent = "Opening…";
    clear(box).hidden = false;
    box.appendChild(h("p", { class: "link-content-head" }, h("span", { class: "spinner", "aria-hidden": "true" }), " reading…"));
    api("read", { uri: uri })
      .then(function (res) {
        var text = typeof res.text === "string" ? res.text : pretty(res.text);
        var mime = str(res.mimeType);
        var parsed;
        var isJson = false;
        if (/json/i.test(mime) || /^\s*[\[{]/.test(text)) {
          try {
            parsed = JSON.parse(text);
            isJson = true;
          } catch (e) {
            isJson = false;
          }
        }
        clear(box);
        var count = Array.isArray(parsed) ? " · an array of " + fmtInt(parsed.length) + " items" : "";
        box.appendChild(h("p", { class: "link-content-head", text: (mime || "content") + " · " + fmtBytes(text.length) + count }));
        box.appendChild(isJson ? jsonPre(parsed, "link-text") : codePre(text, false, "wrap link-text"));
        button.textContent = "Close";
      })
      .catch(function (e) {
        clear(box).appendChild(h("div", { class: "error-box", role: "alert" }, h("strong", { text: e instanceof ApiError && e.code ? e.code : "error" }), ": ", errorText(e)));
        button.textContent = "Open";
        if (e.status === 401) setNotice(errorText(e));
      })
      .then(function () {
        button.disabled = false;
      });
  }

  // ---------- what each host's model reads ----------

  function factsOf(host) {
    return Array.isArray(host.facts) ? host.facts.filter(function (f) { return isObject(f) && typeof f.what === "string"; }) : [];
  }

  function sizeBar(bytes, limit) {
    var bar = h("div", { class: "bar", role: "presentation" });
    var fill = h("span", { class: "bar-fill" });
    bar.appendChild(fill);
    if (typeof limit !== "number" || limit <= 0) {
      bar.classList.add("none");
      fill.style.width = "0%";
      return bar;
    }
    var ratio = typeof bytes === "number" ? bytes / limit : 0;
    fill.style.width = Math.min(100, Math.max(ratio > 0 ? 1.5 : 0, ratio * 100)).toFixed(1) + "%";
    if (ratio > 1) bar.classList.add("over");
    else if (ratio > 0.8) bar.classList.add("near");
    return bar;
  }

  function hostsCard(hosts, hostRevision) {
    var order = [];
    hosts.forEach(function (host) {
      factsOf(host).forEach(function (f) {
        if (order.indexOf(f.what) < 0) order.push(f.what);
      });
    });
    var losing = hosts.filter(function (host) {
      return factsOf(host).some(function (f) { return f.seen !== true; });
    }).length;
    var note = (hostRevision ? "rendered for MCP " + hostRevision + " · " : "") + hosts.length + " host profiles · " +
      (losing ? losing + (losing === 1 ? " loses" : " lose") + " a fact" : "every fact reaches every model");
    var panels = hosts.map(hostPanel);
    return h("div", { class: "card hosts-card", id: "hosts" },
      sectionTitle("What each host's model reads", note),
      matrix(hosts, order),
      h("div", { class: "hosts" }, panels));
  }

  function matrix(hosts, order) {
    if (!order.length) return null;
    var head = h("tr", null, h("th", { scope: "col", class: "fixed", text: "host" }), h("th", { scope: "col", class: "fixed", text: "reads" }), h("th", { scope: "col", class: "fixed", text: "bytes" }),
      order.map(function (what) { return h("th", { scope: "col", text: what }); }));
    var rows = hosts.map(function (host) {
      var facts = {};
      factsOf(host).forEach(function (f) { facts[f.what] = f.seen === true; });
      var name = str(host.name, "?");
      var jump = h("button", { type: "button", class: "matrix-host", text: name });
      jump.addEventListener("click", function () {
        var panels = document.querySelectorAll(".hosts .host");
        for (var i = 0; i < panels.length; i++) {
          if (panels[i].getAttribute("data-host") === name) {
            panels[i].scrollIntoView({ block: "center" });
            flash(panels[i]);
          }
        }
      });
      var over = host.withinCap === false;
      return h("tr", { data: { "matrix-host": name } },
        h("th", { scope: "row" }, jump),
        h("td", { class: "matrix-reads", text: str(host.reads, "?") }),
        h("td", { class: over ? "size-over" : "", title: fmtInt(host.bytes) + " bytes read; " + (typeof host.cap === "number" ? "cap " + fmtInt(host.cap) + " bytes" : "no cap") + (host.offloaded === true ? "; offloaded behind a link" : "") },
          fmtBytes(host.bytes), host.offloaded === true ? h("span", { class: "badge warn matrix-badge", text: "stub" }) : null),
        order.map(function (what) {
          if (!(what in facts)) return h("td", { class: "na", text: "·", title: what + ": not in this result" });
          return facts[what] ? h("td", { class: "yes", text: "✓", title: what + ": seen" }) : h("td", { class: "no", text: "✗", title: what + ": lost" });
        }));
    });
    return h("div", { class: "matrix-wrap" }, h("table", { class: "matrix" }, h("thead", null, head), h("tbody", null, rows)));
  }

  function flash(node) {
    node.classList.add("flash");
    window.setTimeout(function () {
      node.classList.remove("flash");
    }, 1200);
  }

  function hostPanel(host) {
    var name = str(host.name, "?");
    var facts = factsOf(host);
    var lost = facts.filter(function (f) { return f.seen !== true; });
    var cap = typeof host.cap === "number" ? host.cap : null;
    var props = [h("span", { class: "chip", title: "what the host gives its model" }, "reads ", h("strong", { text: str(host.reads, "?") }))];
    props.push(h("span", { class: "chip", title: cap === null ? "the host does not cut results" : "the host cuts results over " + fmtInt(cap) + " bytes", text: cap === null ? "no cap" : "cap " + fmtInt(cap) + " B" }));
    if (typeof host.readsLinks === "boolean") props.push(h("span", { class: "chip", text: host.readsLinks ? "follows links" : "no links" }));
    if (host.strictStructured === true) props.push(h("span", { class: "chip accent", title: "fails the call on a missing structuredContent", text: "strict" }));

    var sizeText = h("span", { title: fmtInt(host.bytes) + " bytes" }, h("strong", { text: fmtBytes(host.bytes) }), cap === null ? " read, no cap" : " of the " + fmtInt(cap) + "-byte cap");
    var sizeBadges = [];
    if (host.withinCap === false) sizeBadges.push(h("span", { class: "badge bad", text: "over the cap" }));
    else if (cap !== null && host.withinCap === true) sizeBadges.push(h("span", { class: "badge ok", text: "within the cap" }));
    if (host.offloaded === true) sizeBadges.push(h("span", { class: "badge warn", text: "offloaded" }));

    var factItems = facts.map(function (f) {
      var seen = f.seen === true;
      var said = f.what + (seen ? ": seen, the model reads it" : ": lost, the model never reads it");
      return h("li", { class: "fact " + (seen ? "seen" : "lost"), data: { fact: f.what, seen: seen ? "true" : "false" }, title: said, "aria-label": said },
        h("span", { class: "fact-mark", "aria-hidden": "true", text: seen ? "✓" : "✗" }),
        h("span", { text: f.what }));
    });
    var view = typeof host.view === "string" ? host.view : host.view === undefined || host.view === null ? "" : pretty(host.view);
    var viewPre = view
      ? h("pre", { class: "view", tabindex: "0", text: view })
      : h("pre", { class: "view empty-view", text: host.inputRequired === true
        ? "(nothing yet: this revision's client asks the user for input, and the model reads the result of the call that follows)"
        : "(nothing: this host's model reads no text of this result)" });

    return h("article", { class: "host" + (lost.length ? " lost" : ""), data: { host: name } },
      h("div", { class: "host-head" },
        h("h4", { text: name }),
        h("span", { class: "spacer" }),
        facts.length
          ? h("span", { class: "host-score " + (lost.length ? "bad" : "ok"), text: lost.length ? lost.length + " of " + facts.length + " lost" : "all " + facts.length + " seen" })
          : null),
      h("div", { class: "host-props" }, props),
      h("div", { class: "size-line" }, sizeText, sizeBadges),
      sizeBar(host.bytes, cap),
      facts.length ? h("ul", { class: "facts", "aria-label": "facts of the result" }, factItems) : null,
      h("div", { class: "view-label", text: "what the model reads" }),
      viewPre);
  }

  // ---------- the wire, per target ----------

  function wiresCard(wires, hostRevision) {
    var ids = wires.map(function (w) { return str(w.id); });
    var current = state.wireId && ids.indexOf(state.wireId) >= 0 ? state.wireId : hostRevision && ids.indexOf("mcp-" + hostRevision) >= 0 ? "mcp-" + hostRevision : ids[0];
    var tabs = h("div", { class: "tabs", role: "tablist", "aria-label": "Targets" });
    var panel = h("div", { class: "wire-panel", role: "tabpanel", id: "wire-panel" });
    var buttons = [];

    function show(id) {
      state.wireId = id;
      buttons.forEach(function (b) {
        var on = b.getAttribute("data-wire") === id;
        b.setAttribute("aria-selected", on ? "true" : "false");
        b.tabIndex = on ? 0 : -1;
      });
      var wire = wires[ids.indexOf(id)];
      clear(panel);
      if (!wire) return;
      var limit = typeof wire.limit === "number" ? wire.limit : null;
      var over = limit !== null && typeof wire.bytes === "number" && wire.bytes > limit;
      var metaLine = h("div", { class: "wire-meta" },
        h("span", null, h("strong", { text: fmtInt(wire.bytes) + " bytes" }), limit === null ? " · no size limit" : " of a " + fmtInt(limit) + "-byte limit"),
        sizeBar(wire.bytes, limit),
        over ? h("span", { class: "badge bad", text: "over the limit" }) : null,
        wire.offloaded === true ? h("span", { class: "badge warn", text: "offloaded: the data is behind a link" }) : null,
        wire.isError === true ? h("span", { class: "badge bad", text: "isError" }) : null);
      panel.appendChild(metaLine);
      var warnings = Array.isArray(wire.warnings) ? wire.warnings : [];
      if (warnings.length) {
        panel.appendChild(h("ul", { class: "warnings" }, warnings.map(function (w) {
          return h("li", { text: typeof w === "string" ? w : pretty(w) });
        })));
      }
      panel.appendChild(jsonPre(wire.json, "wrap"));
    }

    wires.forEach(function (wire, i) {
      var limit = typeof wire.limit === "number" ? wire.limit : null;
      var over = limit !== null && typeof wire.bytes === "number" && wire.bytes > limit;
      var b = h("button", {
        type: "button",
        role: "tab",
        class: "tab" + (over ? " over" : ""),
        data: { wire: ids[i] },
        "aria-controls": "wire-panel",
        title: str(wire.label, ids[i]) + (wire.offloaded === true ? " (offloaded)" : ""),
      },
      h("span", { text: str(wire.label, ids[i]) }),
      h("span", { class: "tab-bytes", text: fmtBytes(wire.bytes) }),
      wire.offloaded === true ? h("span", { class: "tab-dot", title: "offloaded" }) : null);
      b.addEventListener("click", function () {
        show(ids[i]);
      });
      b.addEventListener("keydown", function (ev) {
        var step = ev.key === "ArrowRight" ? 1 : ev.key === "ArrowLeft" ? -1 : 0;
        if (!step) return;
        ev.preventDefault();
        var next = buttons[(i + step + buttons.length) % buttons.length];
        next.focus();
        next.click();
      });
      buttons.push(b);
      tabs.appendChild(b);
    });
    show(current);
    return h("div", { class: "card wires-card", id: "wires" },
      sectionTitle("On the wire", "the result as each target receives it, with its size against the target's limit"),
      tabs,
      panel);
  }

  // ---------- offline mode: an embedded report ----------

  function startOffline(node) {
    var data;
    try {
      data = JSON.parse(node.textContent || "{}");
    } catch (e) {
      data = null;
    }
    document.body.classList.add("offline");
    $("token-box").hidden = true;
    var who = clear($("whoami"));
    who.appendChild(h("span", { class: "offline-badge", text: "offline report" }));
    if (!isObject(data)) {
      setNotice("The embedded report is not valid JSON.");
      clear($("content")).appendChild(h("div", { class: "empty" }, h("p", { class: "empty-title", text: "Nothing to show" })));
      return;
    }
    var previews = Array.isArray(data.previews) ? data.previews.filter(isObject) : [];
    state.offline = { title: str(data.title, "toolwire report"), previews: previews };
    $("server").textContent = state.offline.title;
    document.title = state.offline.title + " · toolwire";
    $("list-title").textContent = "Previews";
    $("filter").placeholder = "Filter previews…";
    bindFilter();
    renderPreviewList();
    if (previews.length) selectPreview(0);
    else clear($("content")).appendChild(h("div", { class: "empty" }, h("p", { class: "empty-title", text: "This report holds no preview." })));
  }

  function previewLabel(p, i) {
    return str(p.label) || str(p.tool) || "preview " + (i + 1);
  }

  function renderPreviewList() {
    var list = clear($("tools"));
    var previews = state.offline.previews;
    var q = $("filter").value.trim().toLowerCase();
    var shown = 0;
    previews.forEach(function (p, i) {
      var label = previewLabel(p, i);
      if (!matches([label, p.tool, p.outcome], q)) return;
      shown++;
      var lost = (Array.isArray(p.hosts) ? p.hosts : []).filter(function (host) {
        return isObject(host) && factsOf(host).some(function (f) { return f.seen !== true; });
      }).length;
      var outcome = str(p.outcome, "");
      list.appendChild(
        h("li", { class: "tool-item" + (state.selected === i ? " selected" : ""), data: { preview: i, tool: typeof p.tool === "string" ? p.tool : null } },
          h("button", {
            type: "button",
            class: "tool-button",
            title: label,
            onclick: function () {
              selectPreview(i);
            },
          },
          h("span", { class: "tool-line" },
            h("span", { class: "tool-name", text: label }),
            outcome ? h("span", { class: "badge " + (outcome === "success" ? "ok" : outcome === "error" ? "bad" : "warn"), text: OUTCOMES[outcome] || outcome }) : null),
          h("span", { class: "tool-title", text: lost ? lost + (lost === 1 ? " host loses a fact" : " hosts lose a fact") : "every host reads every fact" })))
      );
    });
    $("tool-count").textContent = previews.length ? (q ? shown + " of " : "") + previews.length : "";
    if (!shown) list.appendChild(h("li", { class: "list-empty", text: previews.length ? "No preview matches." : "No previews." }));
  }

  function selectPreview(i) {
    var p = state.offline.previews[i];
    if (!p) return;
    state.selected = i;
    markSelected();
    var content = clear($("content"));
    content.appendChild(
      h("div", { class: "card tool-card" },
        h("div", { class: "tool-head" },
          h("h1", { text: previewLabel(p, i) }),
          typeof p.tool === "string" && p.tool !== previewLabel(p, i) ? h("span", { class: "tool-subtitle", text: p.tool }) : null),
        h("p", { class: "muted", text: "A call recorded in this report. Stored links cannot be opened offline." }))
    );
    content.appendChild(renderResult(p, true));
  }

  // ---------- start ----------

  function start() {
    var data = document.getElementById("toolwire-data");
    if (data) startOffline(data);
    else startOnline();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
