"""What browser tests do on the console: sign in as a sandbox role, and keep a screenshot of each page."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page

RESULTS = Path(__file__).resolve().parents[2] / "frontend" / "test-results"


def sign_in(page: Page, role: str = "admin") -> None:
    page.goto("/")
    page.get_by_role("button", name=f"Sign in as {role}").click()


def shoot(page: Page, name: str) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(RESULTS / f"{name}.png"), full_page=True)
