"""The console (`/console`, DESIGN §18) in a real browser: Debian's chromium driven through its
chromedriver by selenium, against a running `toolwire serve` (scripts/browser starts it).

    console.py BASE_URL TOKEN [--principal P] [--openapi-tool NAME] [--openapi-source S] [--update-docs]

BASE_URL is the gateway's origin (`http://127.0.0.1:PORT`); TOKEN a bearer token whose principal
(`--principal`, default `writer`) holds `catalog:write`; anonymous callers must be served too.
Checks, each with its own message: the page loads without a console error; every tool of
`GET /console/api/tools`, every demo tool among them, is listed, the OpenAPI source's tool like
any other; `catalog_search` with `limit` 5 entered in the form shows a product and a panel for
every host profile, Claude Code seeing the next cursor and Claude Desktop the data; with the
token entered, a dry run of `catalog_update_price` shows the dry run seen by every host; a
refused token shows a message asking for another;
`catalog_export`'s stored link opens in place; `catalog_chart`'s image loads; no request leaves
the gateway's origin. With `TOOLWIRE_OFFLINE_HTML` set, that file (the offline report) is opened
from `file://` and must show a preview with host panels, without a console error.

Screenshots go to `TOOLWIRE_ARTIFACTS` (default `target/browser-artifacts`); `--update-docs` (or
`TOOLWIRE_UPDATE_DOCS=1`) also copies `console-search.png` and `console-hosts.png` to
`docs/images/`. Prints `N passed, N failed` and exits 1 when a check failed.
"""

import argparse
import base64
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

# Selenium never looks for, nor downloads, a driver or a browser: both are Debian's.
os.environ["SE_OFFLINE"] = "true"

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import TimeoutException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WIDTH, HEIGHT = 1400, 1000

# The demo tools, as the Python client's check lists them (one list for the Python scripts).
sys.path.insert(0, str(ROOT / "tests" / "clients"))
from py_client import DEMO_TOOLS  # noqa: E402

# The demo catalog's first product (crates/toolwire-gateway/src/demo.rs: id 1 is "Oak table 1").
FIRST_PRODUCT = "Oak table 1"


class Failed(AssertionError):
    pass


def check(condition, message):
    if not condition:
        raise Failed(message)


def css_string(value):
    """`value` as a CSS string literal, for attribute selectors."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Console:
    def __init__(self, base, token, principal, artifacts):
        self.base = base.rstrip("/")
        self.origin = self.base
        self.token = token
        self.principal = principal
        self.artifacts = artifacts
        self.logs = []
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        self.profile = tempfile.mkdtemp(prefix="toolwire-chromium.")
        for flag in (
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--window-size={WIDTH},{HEIGHT}",
            f"--user-data-dir={self.profile}",
        ):
            options.add_argument(flag)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
        self.driver.set_window_size(WIDTH, HEIGHT)
        self.driver.set_script_timeout(60)

    def quit(self):
        try:
            self.driver.quit()
        finally:
            shutil.rmtree(self.profile, ignore_errors=True)

    # ---------- the API, from Python ----------

    def api(self, path, body=None, token=None):
        headers = {"Accept": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + token
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, headers=headers)
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.load(response)

    # ---------- the browser ----------

    def wait(self, condition, message, timeout=30):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.1).until(lambda d: condition())
        except TimeoutException:
            raise Failed(f"{message} (waited {timeout} s)") from None

    def find(self, selector):
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def one(self, selector, what):
        found = self.find(selector)
        check(found, f"{what}: no element matches {selector}")
        return found[0]

    def open(self):
        self.driver.get(self.base + "/console")
        self.wait(lambda: self.find("[data-tool]"), "the tool list did not appear")

    def drain_logs(self):
        entries = self.driver.get_log("browser")
        self.logs.extend(entries)
        return entries

    def check_no_console_errors(self, where):
        severe = [e for e in self.drain_logs() if e.get("level") == "SEVERE"]
        check(not severe, f"{where}: the browser console has errors: " + json.dumps(severe, indent=1))

    def check_same_origin(self, where, origin=None):
        origin = origin or self.origin
        names = self.driver.execute_script(
            "return [document.URL].concat("
            "performance.getEntriesByType('navigation').map(function (e) { return e.name; }),"
            "performance.getEntriesByType('resource').map(function (e) { return e.name; }));"
        )
        # data: URLs (the favicon, a result's images) are no request.
        foreign = [n for n in names if not n.startswith("data:") and not same_origin(n, origin)]
        check(not foreign, f"{where}: the page requested off {origin}: {foreign}")

    def select_tool(self, name):
        item = self.one(f"[data-tool={css_string(name)}] button", f"the tool {name} in the list")
        item.click()
        self.wait(
            lambda: self.find("#content h1") and self.find("#content h1")[0].text == name,
            f"selecting {name} did not show it",
        )

    def set_field(self, name, value):
        field = self.one(f"#content [data-field={css_string(name)}]", f"the form field {name}")
        kind = field.get_attribute("type")
        if kind == "checkbox":
            if field.is_selected() != bool(value):
                field.click()
            check(field.is_selected() == bool(value), f"the checkbox {name} did not become {value}")
            return
        field.clear()
        field.send_keys(str(value))

    def call(self, timeout=90):
        old = self.find("#result > *")
        self.one("#call", "the Call button").click()
        self.wait(
            lambda: self.find("#result .result, #result .error-box")
            and (not old or self.find("#result > *")[0] != old[0]),
            "the call's result did not appear",
            timeout,
        )
        errors = self.find("#result .error-box")
        check(not errors, "the call failed: " + (errors[0].text if errors else ""))
        return self.one("#result .result", "the result")

    def use_token(self, token):
        field = self.one("#token", "the token field")
        field.clear()
        if token:
            field.send_keys(token)
        self.one("#token-apply", "the token's Use button").click()

    def hosts_shown(self):
        return [e.get_attribute("data-host") for e in self.find("#result [data-host]")]

    def fact(self, host, what):
        selector = f"#result [data-host={css_string(host)}] [data-fact={css_string(what)}]"
        found = self.find(selector)
        check(found, f"the {host} panel has no {what!r} fact ({selector})")
        return found[0].get_attribute("data-seen")

    def scroll_to(self, selector, offset=90):
        self.driver.execute_script(
            "var e = document.querySelector(arguments[0]);"
            "if (e) { e.scrollIntoView({block: 'start'}); window.scrollBy(0, -arguments[1]); }",
            selector,
            offset,
        )
        time.sleep(0.2)

    def screenshot(self, name):
        path = self.artifacts / name
        self.driver.save_screenshot(str(path))
        return path

    def full_screenshot(self, name):
        """The whole page (CDP: beyond the window), at half scale."""
        try:
            metrics = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
            height = int(metrics["cssContentSize"]["height"])
            shot = self.driver.execute_cdp_cmd(
                "Page.captureScreenshot",
                {
                    "format": "png",
                    "captureBeyondViewport": True,
                    "clip": {"x": 0, "y": 0, "width": WIDTH, "height": min(height, 16000), "scale": 0.5},
                },
            )
            (self.artifacts / name).write_bytes(base64.b64decode(shot["data"]))
        except Exception as error:  # an artifact only: never a failure of its own
            print(f"  (no full-page screenshot {name}: {error})")

    def dark(self, on):
        features = [{"name": "prefers-color-scheme", "value": "dark" if on else "light"}]
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": features})


def same_origin(url, origin):
    a, b = urllib.parse.urlsplit(url), urllib.parse.urlsplit(origin)
    return (a.scheme, a.netloc) == (b.scheme, b.netloc)


# ---------- the checks ----------


def page_loads(c, ctx):
    c.open()
    c.check_no_console_errors("loading /console")
    principal = c.one("#principal", "the principal in the header").text
    check(principal == "anonymous", f"the header says the page calls as {principal!r}, not 'anonymous'")
    check(c.find("#token"), "the header has no token field (#token)")
    script = urllib.request.urlopen(c.base + "/console/assets/console.js", timeout=30).read().decode()
    check("</" not in script and "<!--" not in script,
          "console.js holds '</' or '<!--': it could not be inlined as it is in the offline report")
    c.check_same_origin("loading /console")
    c.screenshot("console-overview.png")


def every_tool_listed(c, ctx):
    api = ctx["api"]
    c.open()
    listed = [e.get_attribute("data-tool") for e in c.find("#tools [data-tool]")]
    served = [t["name"] for t in api["tools"]]
    check(len(listed) == len(set(listed)), f"a tool is listed twice: {sorted(listed)}")
    check(set(listed) == set(served),
          f"the list differs from GET /console/api/tools: missing {sorted(set(served) - set(listed))}, "
          f"extra {sorted(set(listed) - set(served))}")
    missing = [t for t in DEMO_TOOLS if t not in served]
    check(not missing, f"GET /console/api/tools lacks demo tools {missing}")
    missing = [t for t in DEMO_TOOLS if t not in listed]
    check(not missing, f"the page lacks demo tools {missing}")
    demo = [t["name"] for t in api["tools"] if t.get("source") == "demo"]
    check(sorted(demo) == sorted(DEMO_TOOLS), f"the demo source serves {sorted(demo)}, not the known {sorted(DEMO_TOOLS)}")
    c.check_no_console_errors("the tool list")


def openapi_tool_listed(c, ctx):
    name, source = ctx["openapi_tool"], ctx["openapi_source"]
    tools = {t["name"]: t for t in ctx["api"]["tools"]}
    check(name in tools, f"GET /console/api/tools lacks the OpenAPI tool {name}")
    check(tools[name].get("source") == source,
          f"the OpenAPI tool {name} has the source {tools[name].get('source')!r}, not {source!r}")
    c.open()
    item = c.one(f"#tools [data-tool={css_string(name)}]", f"the OpenAPI tool {name} in the list")
    check(source in item.text, f"the list item of {name} does not show its source {source!r}: {item.text!r}")
    c.select_tool(name)
    params = (tools[name].get("inputSchema") or {}).get("properties") or {}
    for param in params:
        c.one(f"#content [data-field={css_string(param)}]", f"the form field {param} of {name}")
    c.one("#call", f"the Call button of {name}")
    c.check_no_console_errors(f"showing {name}")
    c.check_same_origin(f"showing {name}")


def search_shows_hosts(c, ctx):
    c.open()
    c.select_tool("catalog_search")
    c.set_field("limit", 5)
    # The raw JSON toggle holds what the form says.
    c.one("#raw-toggle", "the raw JSON toggle").click()
    raw = json.loads(c.one("#raw-json", "the raw JSON textarea").get_attribute("value"))
    check(raw.get("limit") == 5, f"the raw JSON arguments do not hold limit 5: {raw}")
    c.one("#raw-toggle", "the raw JSON toggle").click()
    c.wait(lambda: c.find('[data-field="limit"]')[0].is_displayed(), "the form did not come back from raw JSON")
    result = c.call()
    text = result.text
    check(FIRST_PRODUCT in text, f"the catalog_search result does not show the product {FIRST_PRODUCT!r}")
    outcome = result.get_attribute("data-outcome")
    check(outcome == "success", f"catalog_search's outcome is {outcome!r}")
    expected = [h["name"] for h in ctx["api"]["hosts"]]
    shown = c.hosts_shown()
    check(sorted(shown) == sorted(expected),
          f"host panels {sorted(shown)} differ from the API's hosts {sorted(expected)}")
    seen = c.fact("claude-code", "next cursor")
    check(seen == "true", f"the claude-code panel marks 'next cursor' seen={seen}, not true")
    seen = c.fact("claude-desktop", "data")
    check(seen == "true", f"the claude-desktop panel marks 'data' seen={seen}, not true")
    tabs = [e.get_attribute("data-wire") for e in c.find("#result [data-wire]")]
    revisions = ["mcp-" + r for r in ctx["api"]["revisions"]]
    check(all(r in tabs for r in revisions), f"the wire tabs {tabs} lack an MCP revision of {revisions}")
    c.check_no_console_errors("calling catalog_search")
    c.check_same_origin("calling catalog_search")
    c.scroll_to("#result")
    ctx["shots"]["console-search.png"] = c.screenshot("console-search.png")
    c.scroll_to("#result .hosts")
    ctx["shots"]["console-hosts.png"] = c.screenshot("console-hosts.png")
    c.scroll_to("#wires")
    c.screenshot("console-wires.png")
    c.full_screenshot("console-search-full.png")
    c.dark(True)
    c.scroll_to("#result")
    c.screenshot("console-search-dark.png")
    c.dark(False)


def dry_run_with_token(c, ctx):
    c.open()
    c.use_token(c.token)
    c.wait(lambda: c.one("#principal", "the principal").text == c.principal,
           f"with the token entered, the header does not say {c.principal!r}")
    # The token is kept for the tab (sessionStorage): a reload still calls as its principal.
    c.open()
    c.wait(lambda: c.one("#principal", "the principal").text == c.principal,
           f"after a reload, the page no longer calls as {c.principal!r}")
    c.select_tool("catalog_update_price")
    c.set_field("id", 1)
    c.set_field("price", 99.5)
    c.set_field("dryRun", True)
    result = c.call()
    outcome = result.get_attribute("data-outcome")
    check(outcome == "success", f"the dry run's outcome is {outcome!r}: {result.text[:400]}")
    check(c.principal in c.one("#result .result-meta", "the result's meta line").text,
          f"the result does not say it was called as {c.principal!r}")
    shown = c.hosts_shown()
    expected = [h["name"] for h in ctx["api"]["hosts"]]
    check(sorted(shown) == sorted(expected), f"host panels {sorted(shown)} differ from {sorted(expected)}")
    lost = [h for h in shown if c.fact(h, "dry run") != "true"]
    check(not lost, f"the 'dry run' fact is not seen in the panels of {lost}")
    c.check_no_console_errors("the dry run")
    c.check_same_origin("the dry run")
    c.use_token("")
    c.wait(lambda: c.one("#principal", "the principal").text == "anonymous",
           "forgetting the token did not go back to anonymous")


def refused_token_says_so(c, ctx):
    c.open()
    c.drain_logs()
    c.use_token("not-a-token-of-this-gateway")
    c.wait(lambda: c.one("#notice", "the notice").is_displayed(), "a refused token shows no notice")
    notice = c.one("#notice", "the notice").text
    check("token" in notice.lower() and "refused" in notice.lower(),
          f"the notice for a refused token does not ask for another token: {notice!r}")
    # The browser itself logs the 401 answer as a failed load; nothing else may be an error.
    severe = [e for e in c.drain_logs() if e.get("level") == "SEVERE" and "status of 401" not in e.get("message", "")]
    check(not severe, "a refused token: the browser console has errors: " + json.dumps(severe, indent=1))
    c.use_token("")
    c.wait(lambda: c.one("#principal", "the principal").text == "anonymous",
           "forgetting the refused token did not go back to anonymous")
    c.wait(lambda: not c.one("#notice", "the notice").is_displayed(), "the notice stays after the token is forgotten")
    c.check_no_console_errors("forgetting a refused token")


def export_link_opens(c, ctx):
    c.open()
    c.select_tool("catalog_export")
    c.call()
    links = c.find('#result [data-link^="toolwire://results/"]')
    check(links, "catalog_export's result shows no toolwire://results/ link")
    link = links[0]
    uri = link.get_attribute("data-link")
    buttons = link.find_elements(By.CSS_SELECTOR, "button")
    check(buttons and buttons[0].text == "Open", f"the link {uri} has no Open button")
    buttons[0].click()
    c.wait(lambda: link.find_elements(By.CSS_SELECTOR, ".link-content pre, .link-content .error-box"),
           f"opening {uri} showed nothing", 60)
    errors = link.find_elements(By.CSS_SELECTOR, ".link-content .error-box")
    check(not errors, f"opening {uri} failed: {errors[0].text if errors else ''}")
    content = link.find_element(By.CSS_SELECTOR, ".link-content pre").get_attribute("textContent")
    check(FIRST_PRODUCT in content, f"the content of {uri} does not hold {FIRST_PRODUCT!r}: {content[:200]!r}")
    c.check_no_console_errors("opening the export's link")
    c.check_same_origin("opening the export's link")
    c.scroll_to("#result .links")
    c.screenshot("console-export.png")


def chart_image_loads(c, ctx):
    c.open()
    c.select_tool("catalog_chart")
    c.call()
    images = c.find("#result .images img")
    check(images, "catalog_chart's result shows no <img>")
    src = images[0].get_attribute("src")
    check(src.startswith("data:image/png;base64,"), f"the chart's <img> is not a PNG data URL: {src[:40]}")
    width = c.wait(
        lambda: c.driver.execute_script("var i = arguments[0]; return i.complete ? i.naturalWidth : 0;", images[0]),
        "the chart's <img> did not load (naturalWidth 0)",
        15,
    )
    check(width > 0, "the chart's <img> has naturalWidth 0")
    c.check_no_console_errors("the chart")
    c.check_same_origin("the chart")
    c.scroll_to("#result .images")
    c.screenshot("console-chart.png")


def offline_report(c, ctx, path):
    path = Path(path).resolve()
    check(path.is_file(), f"the offline report {path} is not a file")
    url = path.as_uri()
    c.drain_logs()
    c.driver.get(url)
    c.wait(lambda: c.find("[data-preview]"), f"the offline report {path} lists no preview")
    c.wait(lambda: c.find("#content [data-host]"), f"{path.name}: the first preview shows no host panel")
    panels = c.find("#content [data-host]")
    check(panels, f"{path.name} shows no host panel")
    facts = c.find("#content [data-host] [data-fact]")
    check(facts, f"{path.name}: its host panels show no fact")
    c.check_no_console_errors(path.name)
    c.check_same_origin(path.name, url)
    c.screenshot(f"{path.stem}.png")


def hostile_text_runs_nothing(c, ctx):
    """A description and a result carrying markup (the OpenAPI document's, which its publisher
    controls) show as text: no element is made of it and no handler runs."""
    c.open()
    c.select_tool(ctx["openapi_tool"])
    c.wait(lambda: "onerror" in c.driver.find_element("css selector", "body").text,
           "the hostile description is not shown as text")
    check(not c.find("img[src='x']"), "an <img> was made from a tool's description")
    check(c.driver.execute_script("return window.__pwned === undefined"), "a tool's text ran script")
    c.check_no_console_errors("the hostile description")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base_url")
    parser.add_argument("token")
    parser.add_argument("--principal", default="writer")
    parser.add_argument("--openapi-tool", default="shop_getProduct")
    parser.add_argument("--openapi-source", default="shop")
    parser.add_argument("--update-docs", action="store_true")
    args = parser.parse_args()
    update_docs = args.update_docs or os.environ.get("TOOLWIRE_UPDATE_DOCS") == "1"
    artifacts = Path(os.environ.get("TOOLWIRE_ARTIFACTS") or ROOT / "target" / "browser-artifacts")
    artifacts.mkdir(parents=True, exist_ok=True)
    offline_html = os.environ.get("TOOLWIRE_OFFLINE_HTML") or ""

    c = Console(args.base_url, args.token, args.principal, artifacts)
    ctx = {"openapi_tool": args.openapi_tool, "openapi_source": args.openapi_source, "shots": {}, "offline_html": offline_html}
    checks = [
        ("the page loads without a console error", page_loads),
        ("every tool is listed, the demo tools among them", every_tool_listed),
        ("the OpenAPI source's tool is listed like any other", openapi_tool_listed),
        ("catalog_search limit 5: a product, a panel per host, next cursor and data seen", search_shows_hosts),
        ("with the token: catalog_update_price's dry run seen by every host", dry_run_with_token),
        ("a refused token: a message asking for another", refused_token_says_so),
        ("catalog_export: the stored link opens in place", export_link_opens),
        ("catalog_chart: the image loads", chart_image_loads),
    ]
    checks.append(("markup in a tool's description is shown as text and runs nothing", hostile_text_runs_nothing))
    for path in filter(None, offline_html.split(":")):
        checks.append((f"the offline file {Path(path).name} shows a preview with host panels",
                       lambda c, ctx, path=path: offline_report(c, ctx, path)))
    if not offline_html:
        print("note: TOOLWIRE_OFFLINE_HTML is not set: the offline report is not checked")
    passed, failed = 0, []
    try:
        try:
            ctx["api"] = c.api("/console/api/tools")
        except (urllib.error.URLError, ValueError) as error:
            print(f"FAIL: GET /console/api/tools: {error}")
            print("0 passed, 1 failed")
            return 1
        for name, run in checks:
            started = time.monotonic()
            try:
                run(c, ctx)
            except Exception as error:
                failed.append(name)
                kind = "" if isinstance(error, Failed) else f"{type(error).__name__}: "
                print(f"FAIL {name}: {kind}{error}")
                if not isinstance(error, Failed):
                    traceback.print_exc()
                try:
                    shot = c.screenshot(f"failed-{len(failed)}.png")
                    print(f"  screenshot: {shot}")
                except Exception:
                    pass
                continue
            passed += 1
            print(f"ok   {name} ({time.monotonic() - started:.1f} s)")
    finally:
        try:
            c.drain_logs()
        except Exception:
            pass
        (artifacts / "browser-console.json").write_text(json.dumps(c.logs, indent=1))
        c.quit()
    if update_docs and not failed:
        docs = ROOT / "docs" / "images"
        docs.mkdir(parents=True, exist_ok=True)
        for name in ("console-search.png", "console-hosts.png"):
            shutil.copyfile(ctx["shots"][name], docs / name)
            print(f"updated docs/images/{name}")
    print(f"screenshots in {artifacts}")
    print(f"{passed} passed, {len(failed)} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
