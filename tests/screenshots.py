"""``make screenshots``: the month view, the list view and an event page of the demo
calendar, on a desktop and a phone, into docs/screenshots/ (shown in the README).

A throw-away database is seeded (``flask seed``), served by gunicorn as ``make run`` does,
and drawn by Debian's Chromium through Playwright."""

import json
import os
import shutil
import sys
import tempfile
import urllib.request

from playwright.sync_api import sync_playwright

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.helpers import ROOT, Server, flask_cli  # noqa: E402

OUT = os.path.join(ROOT, "docs", "screenshots")
SIZES = {"desktop": (1280, 900), "phone": (360, 780)}


def main() -> None:
    folder = tempfile.mkdtemp()
    database = os.path.join(folder, "demo.db")
    os.environ["UPLOAD_FOLDER"] = os.path.join(folder, "uploads")  # the seed's images too
    flask_cli(database, "migrate")
    flask_cli(database, "seed", "--events", "400")
    server = Server(database, workers=1)
    try:
        listing = json.loads(
            urllib.request.urlopen(
                f"{server.base}/wp-json/calendar/events/v1/events?per_page=50"
            ).read()
        )
        chosen = next(
            (e for e in listing["events"] if e["image"] and e["venue"] and e["organizer"]),
            listing["events"][0],
        )
        pages = {
            "month": "/events/month/",
            "list": "/events/",
            "event": f"/event/{chosen['slug']}/",
        }
        os.makedirs(OUT, exist_ok=True)
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            for size, (width, height) in SIZES.items():
                context = browser.new_context(viewport={"width": width, "height": height})
                page = context.new_page()
                for name, path in pages.items():
                    page.goto(server.base + path)
                    page.wait_for_load_state("networkidle")
                    target = os.path.join(OUT, f"{name}-{size}.png")
                    page.screenshot(path=target)
                    print(target)
                context.close()
            _editor(browser, server, database)
            browser.close()
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _editor(browser, server, database) -> None:
    """The editor's dashboard and event form, signed in as a new administrator."""
    flask_cli(database, "users", "create", "demo-admin", "--role", "administrator")
    link = flask_cli(database, "users", "login-link", "demo-admin").strip().splitlines()[-1]
    path = "/" + link.split("://", 1)[1].split("/", 1)[1]
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(server.base + path)
    password = "screenshots and more"
    page.get_by_label("New password").fill(password)
    page.get_by_label("The same password again").fill(password)
    page.get_by_role("button", name="Set the password").click()
    for name, path in (
        ("editor-dashboard", "/manage/"),
        ("editor-event-form", "/manage/events/new"),
    ):
        page.goto(server.base + path)
        for image in page.locator("img[loading=lazy]").all():  # the form's image choices
            image.scroll_into_view_if_needed()
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_load_state("networkidle")
        target = os.path.join(OUT, f"{name}.png")
        page.screenshot(path=target, full_page=name == "editor-event-form")
        print(target)
    # The event list on a phone: each row stacked, its title first.
    phone = browser.new_context(
        viewport={"width": 360, "height": 740}, storage_state=context.storage_state()
    )
    page = phone.new_page()
    page.goto(server.base + "/manage/events/")
    target = os.path.join(OUT, "editor-events-phone.png")
    page.screenshot(path=target)
    print(target)
    phone.close()
    context.close()


if __name__ == "__main__":
    main()
