"""The console in a real browser: the real `cenotaph console` process on a SQLite store seeded with
a hostile corpus, driven by Playwright (its Python package) in Debian's headless Chromium
(/usr/bin/chromium; `make test` installs it as vscode-extension/scripts/ci.sh does). Every page
is visited with the page's CSP bypassed, so that escaping alone must keep the payloads inert;
then a review flow end to end, and a write from the CLI that appears without a reload."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import AGENT, CENOTAPH, HUMAN, cli_memory
from tests.console.conftest import candidate

CHROMIUM = "/usr/bin/chromium"
PROJECT = "shop"
pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs /usr/bin/chromium (make test installs it)")
PAGES = ("/graveyard", "/proposals", "/proposals?status=all", "/memories", "/memories?q=script", "/memories/5",
         "/contradictions", "/events", "/concepts", "/knowledge")

# 52 payloads: each, if it ran, would add one to window.__pwned.
RUN = "window.__pwned++"
HOSTILE = [
    f"<script>{RUN}</script>", f"<SCRIPT>{RUN}</SCRIPT>", f"<script src=data:,{RUN}></script>",
    f"<img src=x onerror={RUN}>", f'<img src="x" onerror="{RUN}">', f"<img src=x onerror='{RUN}'>",
    f"<svg onload={RUN}>", f"<svg><script>{RUN}</script></svg>", f"<body onload={RUN}>",
    f"<iframe srcdoc='<script>parent.{RUN}</script>'></iframe>", f"<iframe src=javascript:parent.{RUN}></iframe>",
    f'"><script>{RUN}</script>', f"'><script>{RUN}</script>", f'" onmouseover="{RUN}" x="', f"' onfocus='{RUN}' autofocus x='",
    f'"><img src=x onerror={RUN}>', f"</textarea><script>{RUN}</script>", f"</title><script>{RUN}</script>",
    f"</pre><script>{RUN}</script>", f"</div><img src=x onerror={RUN}>", f"<details open ontoggle={RUN}>",
    f"<input autofocus onfocus={RUN}>", f"<select autofocus onfocus={RUN}>", f"<textarea autofocus onfocus={RUN}>",
    f"<video><source onerror={RUN}></video>", f"<audio src=x onerror={RUN}>", f"<object data=javascript:{RUN}>",
    f"<embed src=javascript:{RUN}>", f"<a href=javascript:{RUN}>click</a>", f"javascript:{RUN}",
    f"<math><mtext><img src=x onerror={RUN}></mtext></math>", f"<style onload={RUN}></style>",
    f"<link rel=stylesheet href=x onerror={RUN}>", f"<marquee onstart={RUN}>", f"<svg><animate onbegin={RUN} attributeName=x dur=1s>",
    f"<svg><set onbegin={RUN} attributeName=x to=1>", "<img src=x:x onerror=eval(atob('d2luZG93Ll9fcHduZWQrKw=='))>",
    f"<scr<script>ipt>{RUN}</scr</script>ipt>", f"<<script>{RUN}//<</script>", f"<img\nsrc=x\nonerror={RUN}>",
    f"<img src=x onerror&#61;{RUN}>", f"&lt;script&gt;{RUN}&lt;/script&gt;", f"<meta http-equiv=refresh content='0;javascript:{RUN}'>",
    f"<base href=javascript:{RUN}//>", f"<form action=javascript:{RUN}><button>x</button></form>",
    f"<isindex type=image src=x onerror={RUN}>", f"<table background=javascript:{RUN}>", f"<div style=\"background:url(javascript:{RUN})\">",
    f"{{{{constructor.constructor('{RUN}')()}}}}", f"<template><script>{RUN}</script></template><img src=x onerror={RUN}>",
    f"<noscript><p title=\"</noscript><img src=x onerror={RUN}>\">", f"<svg><a xlink:href=javascript:{RUN}><text>x</text></a></svg>",
]


@pytest.fixture
def console_env(tmp_path: Path, embedder, analyzer) -> Iterator[dict]:
    """A store seeded (in this process, with the session's models) with every payload in each
    place stored text is shown, and the real `cenotaph console` serving it."""
    env = {**os.environ, "CENOTAPH_HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "state"),
           "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("CENOTAPH_STORE", None)
    with cli_memory(env, embedder, analyzer) as memory:
        memory.remember(HUMAN, "Prefer httpx over requests.", project=PROJECT)
        for i, payload in enumerate(HOSTILE):
            memory.remember(HUMAN, f"script payload {i}: {payload}", project=PROJECT, force=True)
        memory.abandon(HUMAN, "requests", reason=" ".join(HOSTILE[:20]), project=PROJECT, effort=3)
        memory.suppress(HUMAN, "poetry", kind="diagnostic", project=PROJECT, reason=" ".join(HOSTILE[20:40]))
        memory.propose_candidates(HUMAN, PROJECT, [candidate("nose", reason=" ".join(HOSTILE[40:]))])
        memory.forget(AGENT, 2, reason=" ".join(HOSTILE[:10]), confirm=True)
        memory.remember(HUMAN, f"Always deploy on Fridays. {HOSTILE[3]}", project=PROJECT)
        memory.remember(HUMAN, f"Never deploy on Fridays. {HOSTILE[6]}", project=PROJECT)
    process = subprocess.Popen([CENOTAPH, "--project", PROJECT, "console", "--no-browser", "--port", "0"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        line = ""
        while "?token=" not in line:
            line = process.stdout.readline()
            assert line or process.poll() is None, process.stderr.read()
        yield {"url": line.strip(), "env": env, "cwd": tmp_path}
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                  "--disable-dev-shm-usage"])
        yield chromium
        chromium.close()


def test_no_payload_runs_on_any_page_and_a_review_flow_works_end_to_end(console_env, browser):
    assert len(set(HOSTILE)) >= 50
    login = console_env["url"]
    origin = re.match(r"http://[^/]+", login).group(0)
    # CSP bypassed: escaping alone must keep the corpus inert (the CSP is a second wall).
    context = browser.new_context(bypass_csp=True)
    context.add_init_script("window.__pwned = 0; window.alert = () => { window.__pwned++; };")
    page = context.new_page()
    page.goto(login)
    assert page.url == f"{origin}/graveyard"  # the token left the address for the cookie
    assert page.evaluate("document.cookie") == ""  # HttpOnly: the page's script cannot read it
    for path in PAGES:
        page.goto(origin + path)
        page.wait_for_load_state("load")
        page.mouse.move(5, 5)
        for link in page.locator("main a").all()[:5]:
            link.hover()
        assert page.evaluate("window.__pwned") == 0, path
        assert RUN in page.content() or path in ("/concepts", "/knowledge"), path  # the corpus is shown
    shown = page.goto(origin + "/memories/5")
    assert shown.ok and HOSTILE[3] in page.locator(".main-content").inner_text()  # verbatim, as text

    # The review flow: accept the mined candidate after its preview; the graveyard shows it.
    page.goto(origin + "/proposals")
    page.locator("tr", has_text="nose").get_by_role("button", name="Accept").click()
    page.wait_for_load_state("load")
    page.get_by_role("button", name="Confirm: accept 1").click(timeout=5000)
    assert "accepted #" in page.locator(".notice").first.inner_text()
    page.goto(origin + "/graveyard")
    assert page.locator("table.graveyard").get_by_text("nose", exact=True).count() == 1
    assert page.evaluate("window.__pwned") == 0

    # A write from the CLI appears without a reload.
    page.evaluate("window.__marker = 1")
    subprocess.run([CENOTAPH, "--project", PROJECT, "suppress", "left-pad", "--kind", "diagnostic",
                    "--reason", "vendored"], env=console_env["env"], cwd=console_env["cwd"], check=True,
                   capture_output=True)
    page.locator("table.silences").get_by_text("left-pad", exact=True).wait_for(timeout=10_000)
    assert page.evaluate("window.__marker") == 1  # the same page, not reloaded

    # With the CSP in force (a new context), the page still works: the script is the console's file.
    strict = browser.new_context()
    strict_page = strict.new_page()
    refused = strict_page.goto(origin + "/graveyard")
    assert refused.status == 403  # a browser without the session sees nothing
    strict_page.goto(login)
    assert strict_page.locator("nav a.current").inner_text() == "Graveyard"
    assert "script-src 'self'" in strict_page.goto(origin + "/events").headers["content-security-policy"]


def test_a_non_loopback_host_is_served_only_with_a_warning(tmp_path: Path):
    env = {**os.environ, "CENOTAPH_HOME": str(tmp_path / "home")}
    env.pop("CENOTAPH_STORE", None)
    process = subprocess.Popen([CENOTAPH, "console", "--host", "0.0.0.0", "--port", "0", "--no-browser"], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert "?token=" in process.stdout.readline() + process.stdout.readline()
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    assert "warning: serving the console on 0.0.0.0, not loopback" in err
