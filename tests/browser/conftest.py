"""Browser tests: Playwright drives Debian's Chromium through the built console against a running sandbox.

Every page records the browser console; an error logged there fails the test. Each page state a test records is
screenshot into build/screenshots/ (index.html lists them) and checked by axe-core. What tests do on a page is in
`tests/browser/pages.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

from sandbox.server.console import CONSOLE_DIR
from tests.browser.pages import AXE, write_screenshot_index
from tests.conftest import RunningSandbox

CHROMIUM = "/usr/bin/chromium"
# A page waits on the API (a dry run, a long poll's answer): on a busy 2-core machine that can take longer than
# Playwright's 5 s default, so assertions and actions wait up to this long for what they expect.
WAIT_MS = 30_000
expect.set_options(timeout=WAIT_MS)
# Chromium logs every 4xx response; an API refusal is the page's to show, and tests assert that it does.
API_REFUSAL = re.compile(r"^Failed to load resource: the server responded with a status of 4\d\d\b")


def _is_api_refusal(message: ConsoleMessage) -> bool:
    return "/api/" in message.location.get("url", "") and API_REFUSAL.match(message.text) is not None


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    if not (CONSOLE_DIR / "index.html").is_file():
        pytest.fail("The console is not built: `make test` builds it (cd frontend && npm ci && npm run build).")
    if not AXE.is_file():
        pytest.fail("axe-core is not installed: `make install` installs the console's devDependencies.")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield chromium
        chromium.close()
    write_screenshot_index()


@pytest.fixture
def console(browser: Browser, running_sandbox: RunningSandbox) -> Iterator[Page]:
    """A fresh browser context on the sandbox's console; the test fails if the page logs an error."""
    context = browser.new_context(base_url=running_sandbox.base_url, viewport={"width": 1440, "height": 1000})
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    errors: list[str] = []

    def record(message: ConsoleMessage) -> None:
        if message.type == "error" and not _is_api_refusal(message):
            errors.append(message.text)

    page.on("console", record)
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, f"the browser console logged errors: {errors}"
