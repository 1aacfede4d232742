"""chk19t: outside check of SPEC §17 (import-tec) against a messier fake site (tests/chk19t_fake.py)."""

from __future__ import annotations

import pytest

from tests.chk19t_fake import MessyTEC
from tests.conftest import NS
from tests.tec_fake import APP_PW, USER


@pytest.fixture
def messy():
    site = MessyTEC().start()
    yield site
    site.stop()


def run(app, *args):
    return app.test_cli_runner().invoke(args=["import-tec", *args])


def _all_slugs(client, admin) -> set[str]:
    slugs, page = set(), 1
    while True:
        answer = client.get(
            f"{NS}/events?start_date=1970-01-01&end_date=2999-01-01&per_page=50&page={page}",
            headers=admin,
        )
        if answer.status_code != 200:
            return slugs
        body = answer.get_json()
        slugs |= {e["slug"] for e in body["events"]}
        if page >= body["total_pages"]:
            return slugs
        page += 1


def test_a_listing_that_shrinks_mid_run_ends_at_the_plugins_page_past_the_end(app, client, admin):
    site = MessyTEC()
    site.protected_event = None
    site.events = site.events[:30]
    for k in range(51 - len(site.events)):
        day = f"2028-02-{1 + k % 28:02d}"
        site.events.append(
            site.event(
                300 + k,
                f"Filler {k}",
                f"filler-{k}",
                f"{day} 10:{k:02d}:00",
                f"{day} 11:{k:02d}:00",
            )
        )
    site.start()
    try:

        def two_deleted(source):  # between the import's page 1 and page 2
            source.events = source.events[2:]

        site.mid_run = two_deleted
        result = run(app, site.base, "--no-images")
        at_source = {e["slug"].replace("%c3%a9", "é") for e in site.events}
        assert "Error" not in result.output, result.output
        assert result.exit_code == 0, result.output
        assert at_source <= _all_slugs(client, admin)
    finally:
        site.stop()


def test_events_calendar_pro_occurrences_keep_their_post_parent(app, client, admin, messy):
    """Reference: Events Calendar Pro exposes a series' occurrences as separate events linked by
    ``post_parent`` (the ``post_parent`` filter lists a parent's children); SPEC §2 makes
    ``post_parent`` a field of ours, §17 'break no client'."""
    result = run(app, messy.base, "--no-images", "--user", USER, "--password", APP_PW)
    assert "Error" not in result.output, result.output
    parent = client.get(f"{NS}/events/by-slug/yoga-class").get_json()
    children = client.get(
        f"{NS}/events?post_parent={parent['id']}&start_date=2000-01-01"
    ).get_json()
    assert sorted(e["start_date"] for e in children["events"]) == [
        "2027-01-12 19:00:00",
        "2027-01-19 19:00:00",
    ]
    assert all(e["post_parent"] == parent["id"] for e in children["events"])
    alias = client.get(
        f"/wp-json/tribe/events/v1/events?post_parent={parent['id']}&start_date=2000-01-01"
    ).get_json()
    assert alias["total"] == 2


class _LastPageNamesItself(MessyTEC):
    """A messy source: the last page of each listing still carries a ``next_rest_url`` (itself)."""

    def listing(self, kind, items, q, path):
        status, headers, body = super().listing(kind, items, q, path)
        if status == 200 and "next_rest_url" not in body:
            body["next_rest_url"] = body["rest_url"]
        return status, headers, body


def test_a_last_page_that_still_names_a_next_one_ends_the_listing(app, client, admin):
    site = _LastPageNamesItself()
    site.protected_event = None
    site.start()
    try:
        result = run(app, site.base, "--no-images")
        assert "repeats" not in result.output, result.output
        assert "Error" not in result.output, result.output
        assert result.exit_code == 0, result.output
        at_source = {e["slug"].replace("%c3%a9", "é") for e in site.events}
        assert at_source <= _all_slugs(client, admin)
    finally:
        site.stop()


def _leads_to(client, path, target_path, **kw):
    answer = client.get(path, **kw)
    if answer.status_code in (301, 302, 307, 308):
        assert answer.headers["Location"].split("://", 1)[-1].split("/", 1)[
            -1
        ] == target_path.lstrip("/"), (
            path,
            answer.headers["Location"],
        )
        return
    assert answer.status_code == 200, (path, answer.status_code)


def test_a_site_on_a_sub_path_keeps_its_addresses_and_its_clients(app, client, admin, messy):
    """The source is WordPress at http://127.0.0.1:PORT/blog/ (SPEC §17: 'break no link and no client';
    'a client written for the plugin works by changing only the host'). Its addresses were
    /blog/event/{slug}/, /blog/?p=ID, /blog/wp-json/tribe/events/v1/…: after the move, on this
    service's host, they lead to the same items."""
    result = run(app, messy.base + "/", "--no-images", "--user", USER, "--password", APP_PW)
    assert "Error" not in result.output, result.output
    html = {"Accept": "text/html"}
    _leads_to(client, "/blog/event/caf%C3%A9-concert/", "/event/caf%C3%A9-concert/", headers=html)
    _leads_to(
        client,
        "/blog/?p=201",
        "/event/caf%C3%A9-concert/",
        headers=html,
        base_url="http://127.0.0.1",
    )
    _leads_to(client, "/blog/venue/lolympia/", "/venue/lolympia/", headers=html)
    answer = client.get(
        "/blog/wp-json/tribe/events/v1/events?start_date=2000-01-01", follow_redirects=True
    )
    assert answer.status_code == 200, answer.status_code
    assert answer.get_json()["total"] >= 15


class _ProtectedVenue(MessyTEC):
    """Venue 131 is password-protected at the source: masked for a caller without credentials."""

    MASK = dict(
        description="",
        excerpt="",
        email="",
        phone="",
        stateprovince="",
        zip="",
        province="",
        country="",
        city="",
        address="",
        venue=[],
        organizer=[],
    )

    def masked_venue(self, v):
        m = {k: (self.MASK[k] if k in self.MASK else value) for k, value in v.items()}
        m.pop("website", None)
        return m

    def answer(self, path, headers):
        if self.authed(headers):
            return super().answer(path, headers)
        import copy

        keep_v, keep_e = self.venues["olympia"], self.events
        self.venues["olympia"] = self.masked_venue(keep_v)
        self.events = copy.deepcopy(keep_e)
        for e in self.events:
            if isinstance(e["venue"], dict) and e["venue"].get("id") == 131:
                e["venue"] = self.masked_venue(e["venue"])
        try:
            return super().answer(path, headers)
        finally:
            self.venues["olympia"], self.events = keep_v, keep_e


def test_a_masked_venue_is_named_and_said_protected_in_the_report(app, client, admin):
    site = _ProtectedVenue()
    site.protected_event = None
    site.start()
    try:
        result = run(app, site.base, "--no-images")
        line = next(x for x in result.output.splitlines() if x.startswith("failed venue"))
        assert "lolympia" in line or "Olympia" in line, line
        assert "password" in line.lower(), line
    finally:
        site.stop()


def test_the_plugins_rest_urls_with_only_the_host_changed_find_the_same_items(
    app, client, admin, messy
):
    """SPEC §17: 'a client written for the plugin works by changing only the host'. The plugin gave
    each item's address as ``rest_url`` ({site}/wp-json/tribe/events/v1/events/{id}); a client that
    kept it (or an id to filter by) must find the same item here after the move."""
    result = run(app, messy.base, "--no-images", "--user", USER, "--password", APP_PW)
    assert "Error" not in result.output, result.output
    cafe = next(e for e in messy.events if e["id"] == 201)
    path = cafe["rest_url"].split(str(messy.port), 1)[1].removeprefix(messy.prefix)
    assert path == "/wp-json/tribe/events/v1/events/201"
    answer = client.get(path, follow_redirects=True)
    assert answer.status_code == 200, (path, answer.status_code)
    assert answer.get_json()["slug"] == "café-concert"
    venue = client.get("/wp-json/tribe/events/v1/venues/131", follow_redirects=True)
    assert venue.status_code == 200 and venue.get_json()["slug"] == "lolympia"
    by_venue = client.get("/wp-json/tribe/events/v1/events?venue=131&start_date=2000-01-01")
    assert by_venue.status_code == 200 and by_venue.get_json()["total"] == 8


def test_protocol_relative_and_root_relative_image_urls_are_read_as_a_browser_reads_them(
    app, client, admin
):
    """Sites behind a CDN plugin or the 'Relative URL' plugin give their media as //host/… or
    /wp-content/…; on the page that is the site's own http(s) address (SPEC §17 'Images are
    downloaded (http(s) only …)')."""
    site = MessyTEC()
    site.protected_event = None
    poster = "/wp-content/uploads/2026/01/poster.jpg"
    by_id = {e["id"]: e for e in site.events}
    site.start()
    try:
        by_id[203]["image"] = dict(site.image_obj(poster), url=f"//127.0.0.1:{site.port}{poster}")
        by_id[204]["image"] = dict(site.image_obj(poster), url=poster)
        result = run(app, site.base)
        assert "not an http(s) address" not in result.output, result.output
        for slug in ("diwali-mela", "chennai-talk"):
            assert client.get(f"{NS}/events/by-slug/{slug}").get_json()["image"], slug
    finally:
        site.stop()


def test_tags_whose_names_differ_only_in_case_are_all_brought(app, client, admin):
    """WordPress keeps a tag 'jazz' (slug jazz-2) beside 'Jazz' (slug jazz): its duplicate check
    compares names exactly. The event tagged with both keeps both tags, the tag's old address works."""
    site = MessyTEC()
    site.protected_event = None
    site.tags["j1"] = site.term(160, "Jazz", "jazz", "post_tag")
    site.tags["j2"] = site.term(162, "jazz", "jazz-2", "post_tag")
    site.events.append(
        site.event(610, "J", "j-event", "2027-09-01 10:00:00", "2027-09-01 11:00:00", tags=["j2"])
    )
    site.start()
    try:
        result = run(app, site.base, "--no-images")
        assert "failed tag" not in result.output, result.output
        event = client.get(f"{NS}/events/by-slug/j-event").get_json()
        assert event["tags"], "the event lost its only tag"
        page = client.get("/events/tag/jazz-2/", headers={"Accept": "text/html"})
        assert page.status_code in (200, 301, 308), page.status_code
    finally:
        site.stop()


@pytest.mark.parametrize(
    "cost, values, symbol, position",
    [
        ("Free – $12.50", ["0", "12.50"], "$", "prefix"),
        ("$12.50 – $20.00", ["12.50", "20.00"], "$", "prefix"),
    ],
)
def test_a_cost_with_decimals_arrives_as_the_source_shows_it(
    app, client, admin, cost, values, symbol, position
):
    """SPEC §17 'Each item keeps … its cost'. The plugin's cost_details.values are the amounts as
    written (Cost_Utils::parse_cost_range keeps each matched string: '12.50', '5,50')."""
    site = MessyTEC()
    site.protected_event = None
    site.events.append(
        site.event(
            800,
            "Priced",
            "priced",
            "2027-09-01 10:00:00",
            "2027-09-01 11:00:00",
            cost=cost,
            values=values,
            symbol=symbol,
            position=position,
        )
    )
    site.start()
    try:
        run(app, site.base, "--no-images")
        event = client.get(f"{NS}/events/by-slug/priced").get_json()
        assert event["cost"] == cost
    finally:
        site.stop()


_NOTICE = (
    b"<br />\n<b>Deprecated</b>:  Function get_magic_quotes_gpc() is deprecated in "
    b"<b>/var/www/html/wp-content/plugins/x/x.php</b> on line <b>12</b><br />\n"
)


class _NoisyPHP(MessyTEC):
    """A WordPress whose PHP prints a notice before each JSON answer (display_errors on)."""

    def _handler(self):
        import json

        base, site = super()._handler(), self

        class Handler(base):
            def do_GET(self):
                status, headers, body = site.answer(self.path, self.headers)
                data = body if isinstance(body, bytes) else _NOTICE + json.dumps(body).encode()
                self.send_response(status)
                self.send_header(
                    "Content-Type", headers.get("Content-Type", "application/json; charset=UTF-8")
                )
                for key, value in headers.items():
                    if key != "Content-Type":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def test_a_wordpress_printing_php_notices_is_not_called_not_wordpress(app, client, admin):
    site = _NoisyPHP()
    site.protected_event = None
    site.start()
    try:
        result = run(app, site.base, "--no-images")
        assert "not a WordPress site" not in result.output, result.output
    finally:
        site.stop()
