"""The documentation site (mkdocs.yml, `make docs`) builds in strict mode, and its pages load in a
real browser without console errors.

The site is built into a temporary folder, served on 127.0.0.1 by Python's http.server and
opened in headless Chromium (Debian's package; `make system-deps` installs it), driven over the
DevTools protocol: every console error, uncaught exception and failed load (a 404 is a console
error too) of the home page and of a model page fails the test. A canary page with a deliberate
error checks that the errors are seen at all.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websocket

from conftest import ROOT

CHROMIUM = "chromium"
PAGE_TIMEOUT_S = 30.0
# After the load event, wait until no event has come for this long (late scripts, the search
# worker), so that an error they log is still seen.
QUIET_S = 1.0


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stderr[-4000:]}"
    return out


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class Browser:
    """Headless Chromium over the DevTools protocol (one websocket to the browser, one flat
    session per page)."""

    def __init__(self, profile: Path) -> None:
        exe = shutil.which(CHROMIUM)
        assert exe, (
            "chromium is needed for this test: `make system-deps` (or apt-get install chromium) "
            "installs it"
        )
        args = [
            exe,
            "--headless",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--window-size=1280,900",
            "about:blank",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Chromium writes the port it chose and the browser's websocket path to this file.
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            assert self.proc.poll() is None, "chromium exited at start"
            assert time.monotonic() < deadline, "chromium did not open its DevTools port"
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=5)
        self.next_id = 0
        self.events: list[dict[str, Any]] = []

    def close(self) -> None:
        self.ws.close()
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def _recv(self, timeout: float) -> dict[str, Any] | None:
        self.ws.settimeout(timeout)
        try:
            return json.loads(self.ws.recv())
        except websocket.WebSocketTimeoutException:
            return None

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self.next_id += 1
        msg: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        deadline = time.monotonic() + PAGE_TIMEOUT_S
        while time.monotonic() < deadline:
            reply = self._recv(deadline - time.monotonic())
            if reply is None:
                break
            if reply.get("id") == self.next_id:
                assert "error" not in reply, f"{method}: {reply['error']}"
                return reply.get("result", {})
            self.events.append(reply)
        raise AssertionError(f"no answer to {method} within {PAGE_TIMEOUT_S} s")

    def open(self, url: str) -> tuple[list[str], dict[str, Any]]:
        """Loads ``url`` in a new tab; returns its console errors and a few facts read from the
        rendered page."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        for domain in ("Runtime", "Log", "Page"):
            self.send(f"{domain}.enable", session=session)
        self.events.clear()
        self.send("Page.navigate", {"url": url}, session=session)
        deadline = time.monotonic() + PAGE_TIMEOUT_S
        loaded = False
        while time.monotonic() < deadline:
            ev = self._recv(QUIET_S if loaded else deadline - time.monotonic())
            if ev is None:
                if loaded:
                    break  # loaded, and quiet since
                continue
            self.events.append(ev)
            if ev.get("method") == "Page.loadEventFired" and ev.get("sessionId") == session:
                loaded = True
        assert loaded, f"{url}: no load event within {PAGE_TIMEOUT_S} s"
        facts = self.send(
            "Runtime.evaluate",
            {
                "expression": "JSON.stringify({title: document.title,"
                " stylesheets: document.styleSheets.length,"
                " header: (document.querySelector('.md-header') || {}).offsetHeight || 0,"
                " h1: (document.querySelector('h1') || {}).textContent || ''})",
                "returnByValue": True,
            },
            session=session,
        )["result"]["value"]
        errors = [e for ev in self.events if ev.get("sessionId") == session for e in _errors(ev)]
        self.send("Target.closeTarget", {"targetId": target})
        return errors, json.loads(facts)


def _errors(ev: dict[str, Any]) -> list[str]:
    """The console errors an event reports: console.error/assert, an uncaught exception, or a
    browser log entry of level error (failed loads, CSP, ...)."""
    method, p = ev.get("method"), ev.get("params", {})
    if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
        args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
        return [f"console.{p['type']}: {args}"]
    if method == "Runtime.exceptionThrown":
        d = p.get("exceptionDetails", {})
        return [f"exception: {d.get('exception', {}).get('description') or d.get('text')}"]
    if method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
        e = p["entry"]
        return [f"{e.get('source')}: {e.get('text')} {e.get('url', '')}".strip()]
    return []


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    b = Browser(tmp_path_factory.mktemp("chromium-profile"))
    yield b
    b.close()


def test_the_site_has_the_generated_pages(site: Path) -> None:
    for page in ("index.html", "models/red/index.html", "reference/scenario/index.html"):
        assert (site / page).is_file(), page
    assert list((site / "gallery").glob("*.png")), "the gallery's figures are missing"


def test_the_console_check_sees_errors(site: Path, server: str, browser: Browser) -> None:
    """A page with a console.error, an uncaught exception and a missing image: all three seen."""
    (site / "canary.html").write_text(
        "<!doctype html><title>canary</title><img src='no-such-image.png'>"
        "<script>console.error('canary error'); undefinedFunction();</script>"
    )
    errors, _ = browser.open(f"{server}/canary.html")
    text = "\n".join(errors)
    assert "canary error" in text, errors
    assert "undefinedFunction" in text, errors
    assert "404" in text, errors


@pytest.mark.parametrize(
    ("path", "heading"),
    [("", "bufferlab"), ("models/red/", "RED and Adaptive RED")],
)
def test_page_loads_without_console_errors(
    server: str, browser: Browser, path: str, heading: str
) -> None:
    errors, facts = browser.open(f"{server}/{path}")
    assert errors == [], errors
    assert facts["h1"].strip().startswith(heading), facts
    assert facts["stylesheets"] > 0 and facts["header"] > 0, f"the theme did not apply: {facts}"
