-- wrk script of scripts/bench-gateway: every request is one tools/call over Streamable HTTP.
-- The script's caller did the initialize handshake (and sent notifications/initialized) and
-- passes the session id; a stateless 2026-07-28 call passes "-" and carries its revision in
-- _meta and the headers instead.
-- SESSION `GET` loads a plain GET of URL instead (a REST API called directly), which must
-- answer 200.
-- Usage: wrk ... -s call.lua URL -- SESSION REVISION TOOL ARGUMENTS_JSON
local session, revision, tool, arguments, body_tail

function init(args)
  session, revision, tool, arguments = args[1], args[2], args[3], args[4]
  if session == "GET" then
    return
  end
  local meta = ""
  if session == "-" then
    meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"' .. revision ..
      '","io.modelcontextprotocol/clientInfo":{"name":"wrk","version":"1"},' ..
      '"io.modelcontextprotocol/clientCapabilities":{}}'
  end
  wrk.method = "POST"
  body_tail = ',"method":"tools/call","params":{"name":"' .. tool .. '","arguments":' ..
    arguments .. meta .. '}}'
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Accept"] = "application/json, text/event-stream"
  wrk.headers["MCP-Protocol-Version"] = revision
  if session ~= "-" then
    wrk.headers["Mcp-Session-Id"] = session
  else
    wrk.headers["Mcp-Method"] = "tools/call"
    wrk.headers["Mcp-Name"] = tool
  end
end

-- Answers that were not a 200 with a successful result, per thread; a global, so that done()
-- can read every thread's count (wrk runs each thread's script in a state of its own).
failures = 0
local next_id = 0
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

-- Every request has its own JSON-RPC id: ids in flight in one session must differ (a server
-- routes each answer back to its request by id).
function request()
  if session == "GET" then
    return wrk.format("GET")
  end
  next_id = next_id + 1
  return wrk.format(nil, nil, nil, '{"jsonrpc":"2.0","id":' .. next_id .. body_tail)
end

function response(status, headers, body)
  local plain = session == "GET"
  if status ~= 200 or (not plain and (not string.find(body, '"result"', 1, true) or string.find(body, '"isError":true', 1, true))) then
    failures = failures + 1
    if failures == 1 then
      io.stderr:write("unexpected answer (" .. status .. "): " .. string.sub(body, 1, 300) .. "\n")
    end
  end
end

function done(summary, latency, requests)
  local failed = 0
  for _, thread in ipairs(threads) do
    failed = failed + (thread:get("failures") or 0)
  end
  io.write(string.format("RESULT requests=%d rps=%.1f p50_ms=%.2f p99_ms=%.2f errors=%d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status +
      summary.errors.timeout + failed))
end
