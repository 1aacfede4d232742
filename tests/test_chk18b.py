"""chk18b: moving from The Events Calendar (SPEC §17, §15) — an outside check.

The old addresses a site of The Events Calendar links must keep working after the move.
Each test fails on the current code for the reason its docstring gives."""

from __future__ import annotations

import re

import pytest

from tests.conftest import NS


def _titles(html: str) -> list[str]:
    """The event titles a list page shows, in order (each linked to /event/{slug}/)."""
    seen: list[str] = []
    for slug in re.findall(r'href="[^"]*/event/([^/"]+)/"', html):
        if slug not in seen:
            seen.append(slug)
    return seen


@pytest.fixture
def many(make_event, client, admin):
    """14 upcoming events in category "talks" (tag "outdoor"): two list pages of 10."""
    made = []
    for n in range(14):
        made.append(
            make_event(
                title=f"Talk {n:02d}",
                slug=f"talk-{n:02d}",
                start_date=f"+{n + 2} days 10am",
                end_date=f"+{n + 2} days 11am",
                categories=["talks"],
                tags=["outdoor"],
            )
        )
    return made


def _follow(client, path: str, hops: int = 5):
    answer = client.get(path)
    while answer.status_code in (301, 302, 303, 307, 308) and hops:
        location = answer.headers["Location"]
        location = re.sub(r"^https?://[^/]+", "", location)
        answer = client.get(location)
        hops -= 1
    return answer


# The import itself, against a fake site of the plugin (tests/tec_fake.py) -------------
import os  # noqa: E402
import subprocess  # noqa: E402

from tests.helpers import BIN, ROOT  # noqa: E402
from tests.tec_fake import FakeTEC  # noqa: E402


@pytest.fixture
def fake_tec():
    site = FakeTEC().start()
    yield site
    site.stop()


@pytest.fixture
def fresh_db(tmp_path):
    db = tmp_path / "moved.db"
    env = {**os.environ, "CALENDAR_DATABASE": str(db), "UPLOAD_FOLDER": str(tmp_path / "up")}
    subprocess.run(
        [
            os.path.join(BIN, "flask"),
            "--app",
            "wsgi",
            "users",
            "create",
            "boss",
            "--role",
            "administrator",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return env


def import_tec(env, *args):
    return subprocess.run(
        [os.path.join(BIN, "flask"), "--app", "wsgi", "import-tec", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# D10 --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old", ["/events/feed/", "/events/category/talks/feed/", "/events/tag/outdoor/feed/"]
)
def test_tec_event_feeds_keep_answering(client, many, old):
    """The plugin's rewrite rules serve the events' RSS feed at `{events}/feed/` (also
    `rdf|rss|rss2|atom`), `{events}/category/{slug}/feed/` and `{events}/tag/{slug}/feed/`,
    and WordPress links it from every events page (`<link rel="alternate"
    type="application/rss+xml">`), so feed readers are subscribed to it. SPEC §17: moving
    must "break no link and no client". They answer 404."""
    answer = _follow(client, old)
    assert answer.status_code == 200, (old, answer.status_code)
    assert re.search(r"rss|atom|xml", answer.headers.get("Content-Type", ""))
    assert "Talk 00" in answer.get_data(as_text=True)
