"""What browser tests do on the console: sign in as a sandbox role, pick a dropdown's option, and keep a screenshot
of each page."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect

RESULTS = Path(__file__).resolve().parents[2] / "frontend" / "test-results"


def sign_in(page: Page, role: str = "admin") -> None:
    page.goto("/")
    page.get_by_role("button", name=f"Sign in as {role}").click()


def shoot(page: Page, name: str) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(RESULTS / f"{name}.png"), full_page=True)


def pick(page: Page, option: str | re.Pattern[str]) -> None:
    """Select an option of the open dropdown as the keyboard does: highlight it, then Enter. Under load, a click on an
    option was now and then lost (the list stayed open with the option highlighted, the form left incomplete)."""
    page.get_by_role("option", name=option).first.hover()
    page.keyboard.press("Enter")
    expect(page.get_by_role("option")).to_have_count(0)
