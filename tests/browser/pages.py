"""What browser tests do on the console: sign in as a sandbox role, pick a dropdown's option, and record each page
state a test reaches: a screenshot for a reviewer, and axe-core's accessibility check."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
AXE = ROOT / "frontend" / "node_modules" / "axe-core" / "axe.min.js"
# What a person using a screen reader or a keyboard cannot get past; axe-core's "moderate" and "minor" are advice.
BLOCKING_IMPACTS = ("critical", "serious")


def sign_in(page: Page, role: str = "admin") -> None:
    page.goto("/")
    page.get_by_role("button", name=f"Sign in as {role}").click()


def record_state(page: Page, name: str) -> None:
    """Keep a screenshot of the page as `name` and assert axe-core finds nothing critical or serious in it."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)
    violations = accessibility_violations(page)
    assert not violations, f"axe-core on {name}: {violations}"


_AXE_RUN = """async (impacts) => {
  const results = await axe.run(document, { resultTypes: ["violations"] });
  return results.violations
    .filter((violation) => impacts.includes(violation.impact))
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at `
      + violation.nodes.slice(0, 3).map((node) => node.target.join(" ")).join(", "));
}"""


def accessibility_violations(page: Page) -> list[str]:
    """axe-core's critical and serious violations on the page as it is now, one line each."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    violations: list[str] = page.evaluate(_AXE_RUN, list(BLOCKING_IMPACTS))
    return violations


def write_screenshot_index() -> None:
    """build/screenshots/index.html: every screenshot the suite kept, by name, for a reviewer to open."""
    shots = sorted(SCREENSHOTS.glob("*.png")) if SCREENSHOTS.is_dir() else []
    if not shots:
        return
    figures = "\n".join(
        f'<figure><figcaption>{shot.stem}</figcaption><a href="{shot.name}"><img src="{shot.name}" alt="{shot.stem}" '
        'loading="lazy"></a></figure>'
        for shot in shots
    )
    (SCREENSHOTS / "index.html").write_text(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>InstantStart console screenshots</title>'
        "<style>body{font-family:sans-serif}img{max-width:480px;border:1px solid #ccc}figure{display:inline-block;"
        "vertical-align:top;margin:8px}</style></head><body><h1>InstantStart console: the browser suite's page states"
        f"</h1>\n{figures}\n</body></html>\n"
    )


def pick(page: Page, option: str | re.Pattern[str]) -> None:
    """Select an option of the open dropdown as the keyboard does: highlight it, then Enter. Under load, a click on an
    option was now and then lost (the list stayed open with the option highlighted, the form left incomplete)."""
    page.get_by_role("option", name=option).first.hover()
    page.keyboard.press("Enter")
    expect(page.get_by_role("option")).to_have_count(0)


# Every word of the element's text that the layout broke across lines ("InSe / rvice"). A word is a run of letters and
# digits: a line may end between words, after a hyphen or a slash of a name or an address, but not inside a word.
_BROKEN_WORDS = """(root) => {
  const broken = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.textContent.matchAll(/[A-Za-z0-9]+/g)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const rects = [...range.getClientRects()].filter((rect) => rect.width > 0);
      const tops = new Set(rects.map((rect) => Math.round(rect.top)));
      if (tops.size > 1) broken.push(word[0]);
    }
  }
  return broken;
}"""


def broken_words(locator: Locator) -> list[str]:
    """The words inside `locator` (its first match) broken across lines."""
    words: list[str] = locator.first.evaluate(_BROKEN_WORDS)
    return words
