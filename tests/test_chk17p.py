"""Outside checks of SPEC §15 (public pages), branch chk17p."""

import re
from datetime import date, timedelta

from tests.conftest import NS

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


def page(client, path, status=200):
    response = client.get(path, headers=HTML)
    assert response.status_code == status, (path, response.status_code)
    assert response.mimetype == "text/html"
    return response.get_data(as_text=True)


def upcoming(make_event, count, **fields):
    start = date.today() + timedelta(days=2)
    return [
        make_event(
            title=f"Talk {i:02d}",
            start_date=f"{start + timedelta(days=i)} 19:00:00",
            end_date=f"{start + timedelta(days=i)} 20:00:00",
            **fields,
        )
        for i in range(count)
    ]


def test_the_embedded_list_links_back_to_the_previous_page(client, make_event):
    """SPEC §15: /events/embed/ is the list view without the site's frame; the list view
    pages both ways, so must the framed one (a frame has no back button of its own)."""
    upcoming(make_event, 25)
    listed = page(client, "/events/?page=2")
    assert re.search(r'rel="prev" href="/events/\?page=1"', listed)
    framed = page(client, "/events/embed/?page=2")
    assert 'rel="next" href="/events/embed/?page=3"' in framed
    assert re.search(r'rel="prev" href="/events/embed/(\?page=1)?"', framed), "no previous-page link"
    last = page(client, "/events/embed/?page=3")
    assert re.search(r'rel="prev" href="/events/embed/\?page=2"', last), "no previous-page link"


def test_the_filter_form_of_the_past_list_searches_past_events(client, make_event):
    """SPEC §15: the list view takes `search` (and the other filters) and offers them as a
    form; on the past list (?past=1) a visitor who types a word and presses "Find events"
    must get the past events that match, not the upcoming list."""
    day = date.today() - timedelta(days=5)
    make_event(
        title="Forgotten Lecture",
        start_date=f"{day} 19:00:00",
        end_date=f"{day} 20:00:00",
    )
    html = page(client, "/events/?past=1")
    form = re.search(r'<form class="filters"[^>]*action="([^"]*)"[^>]*>(.*?)</form>', html, re.S)
    assert form, "no filter form on the past list"
    action, inner = form.group(1), form.group(2)
    # What the browser sends when the visitor types "Lecture" and submits the form: the
    # form's action, its hidden fields and the search box (no JavaScript on these pages).
    hidden = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', inner))
    query = "&".join(f"{k}={v}" for k, v in {**hidden, "search": "Lecture"}.items())
    separator = "&" if "?" in action else "?"
    answer = page(client, f"{action}{separator}{query}")
    assert "Forgotten Lecture" in answer, (action, hidden)


def test_the_first_page_of_the_list_names_one_canonical_address(client, make_event):
    """SPEC §15 head: a canonical URL. /events/?page=1 (where "Previous page" of page 2
    leads) is the same page as /events/, so it names /events/ as its canonical address, as
    /events/list/ does; otherwise a crawler holds two copies of the first page."""
    upcoming(make_event, 12)
    second = page(client, "/events/?page=2")
    previous = re.search(r'rel="prev" href="([^"]+)"', second).group(1)
    canonical = re.compile(r'<link rel="canonical" href="([^"]+)"')
    first = canonical.search(page(client, "/events/")).group(1)
    assert canonical.search(page(client, "/events/list/")).group(1) == first
    assert canonical.search(page(client, previous)).group(1) == first, previous


def test_the_title_of_a_filtered_list_names_the_tag_and_organizer(client, admin, make_event):
    """SPEC §15 head: a `<title>`; the list names a category or venue filter by its name
    ("Filtered by Jazzy Things"), and must do the same for tags and organizers, which the
    views' own links carry (a tag page's Month/List links keep `tags=`): "Filtered by 39" or
    "Filtered by orga-kappa" tells a visitor (and a screen reader, WCAG 2.4.2) nothing."""
    tag = client.post(f"{NS}/tags", json={"name": "Open Air"}, headers=admin).get_json()
    organizer = client.post(
        f"{NS}/organizers", json={"organizer": "Kappa Productions"}, headers=admin
    ).get_json()
    upcoming(make_event, 1, tags=[tag["id"]], organizer=[organizer["id"]])
    title = re.compile(r"<title>([^<]*)</title>")
    for query, name in (
        (f"tags={tag['id']}", "Open Air"),
        (f"tags={tag['slug']}", "Open Air"),
        (f"organizer={organizer['id']}", "Kappa Productions"),
        (f"organizer={organizer['slug']}", "Kappa Productions"),
    ):
        shown = title.search(page(client, f"/events/?{query}")).group(1)
        assert name in shown, (query, shown)


def test_the_day_view_link_of_the_current_month_opens_today(client, make_event):
    """From the current month (/events/month/, the calendar's default address), the "Day"
    view link leads to the first day of the month, which is in the past from the second of
    the month on: a visitor switching to the day view expects today (The Events Calendar's
    view switch keeps the date the visitor is at, today in the current month)."""
    upcoming(make_event, 1)
    html = page(client, "/events/month/")
    views = re.search(r'<nav class="views".*?</nav>', html, re.S).group(0)
    day = re.search(r'<a href="([^"]*)">Day</a>', views).group(1)
    today = date.today()
    assert day in ("/events/today/", f"/events/{today.isoformat()}/"), day


def test_the_time_element_of_an_all_day_event_names_its_day(client, make_event):
    """SPEC §15: an event page shows "all-day and multi-day forms". The machine-readable
    `<time datetime>` of an all-day event on 5 December (event zone Europe/Paris) says
    `2026-12-04T23:00:00Z`, a moment of 4 December: a reader of the markup (search engines,
    browser extensions, screen-reader date tools) takes the wrong day. A valid date string
    (`YYYY-MM-DD`) or at least a moment of that day is expected."""
    day = date.today() + timedelta(days=6)
    made = make_event(
        title="Fair all day",
        start_date=f"{day} 00:00:00",
        end_date=f"{day} 23:59:59",
        all_day=True,
        timezone="Europe/Paris",
    )
    html = page(client, f"/event/{made['slug']}/")
    when = re.search(r'<p class="when"><time datetime="([^"]+)"', html).group(1)
    assert when.startswith(day.isoformat()), when


def test_a_venue_and_an_organizer_page_show_their_image(client, admin):
    """SPEC §15: `/venue/{slug}/`, `/organizer/{slug}/` show "the item" (§2: a venue's and
    an organizer's representation carries its `image`). The page already names the image as
    its `og:image`, but a visitor never sees it: no `<img>` on the page."""
    from tests.helpers import image_bytes, uploaded

    image = uploaded(client, admin, image_bytes())
    venue = client.post(
        f"{NS}/venues", json={"venue": "Pictured Hall", "city": "Caen", "image": image["id"]},
        headers=admin,
    ).get_json()
    organizer = client.post(
        f"{NS}/organizers",
        json={"organizer": "Pictured Org", "image": "https://images.example.org/org.png"},
        headers=admin,
    ).get_json()
    for path, url in (
        (f"/venue/{venue['slug']}/", image["url"]),
        (f"/organizer/{organizer['slug']}/", "https://images.example.org/org.png"),
    ):
        html = page(client, path)
        assert f'<meta property="og:image" content="{url}">' in html
        main = html.split("<main", 1)[1].split("</main>", 1)[0]
        assert re.search(r"<img[^>]+src=\"" + re.escape(url), main), path


def test_a_venue_page_is_described_by_its_own_text(client, admin):
    """SPEC §15 head: a meta description; an event page's is its text ("Hello world"), a
    venue's or organizer's is only its name although it has a description of its own
    (README: "the public pages describe themselves: each page's heading or its item's
    text")."""
    venue = client.post(
        f"{NS}/venues",
        json={"venue": "Described Hall", "description": "<p>An old tram depot by the river</p>"},
        headers=admin,
    ).get_json()
    html = page(client, f"/venue/{venue['slug']}/")
    assert "An old tram depot by the river" in html.split("<main", 1)[1]
    described = re.search(r'<meta name="description" content="([^"]*)"', html).group(1)
    assert "tram depot" in described, described


def follow(client, path):
    """The page an address ends at (redirects followed), with its status."""
    for _ in range(5):
        response = client.get(path, headers=HTML)
        if response.status_code not in (301, 302, 303, 307, 308):
            return response
        path = response.headers["Location"]
    return response


def test_the_events_calendar_month_day_and_ical_addresses_keep_working(client, admin):
    """SPEC §15: the addresses are The Events Calendar's "so a site that moves here keeps its
    links". TEC's rewrite rules (src/Tribe/Rewrite.php, generate_core_rules) also serve
    `/events/YYYY-MM/` (month), a term's `/YYYY-MM/`, `/YYYY-MM-DD/`, `/today/` and
    `/day/YYYY-MM-DD/`, and `ical/` after an event's or the archive's address. Here
    `/events/2026-12/` is a 400 "bad date" page and the others are 404 pages."""
    client.post(f"{NS}/categories", json={"name": "Jazzy", "slug": "jazzy"}, headers=admin)
    month = follow(client, "/events/2026-12/")
    assert month.status_code == 200, month.status_code
    assert "December 2026" in month.get_data(as_text=True)
    for path in (
        "/events/category/jazzy/2026-12/",
        "/events/category/jazzy/2026-12-08/",
        "/events/category/jazzy/today/",
        "/events/category/jazzy/day/2026-12-08/",
    ):
        answer = follow(client, path)
        assert answer.status_code == 200, (path, answer.status_code)
        assert "categories=jazzy" in answer.get_data(as_text=True) or "Jazzy" in answer.get_data(
            as_text=True
        ), path


def test_the_events_calendar_plain_permalink_views_keep_their_date(client):
    """TEC without pretty permalinks links its views as
    `/?post_type=tribe_events&eventDisplay=month&eventDate=YYYY-MM` and
    `...&eventDisplay=day&eventDate=YYYY-MM-DD`. Here the first moves to /events/month/ and
    shows the current month (the date is dropped), the second shows the upcoming list."""
    month = follow(client, "/?post_type=tribe_events&eventDisplay=month&eventDate=2027-03")
    assert month.status_code == 200
    assert "<h1>March 2027</h1>" in month.get_data(as_text=True)
    day = follow(client, "/?post_type=tribe_events&eventDisplay=day&eventDate=2027-03-05")
    assert day.status_code == 200
    assert "March 5, 2027" in re.search(r"<h1>([^<]*)</h1>", day.get_data(as_text=True)).group(1)


def test_the_day_view_takes_the_events_calendar_bar_date(client):
    """README: `?tribe-bar-date=YYYY-MM-DD` lists from that day and moves the month view to
    that month; The Events Calendar's day view takes it too (its bar's date picker), but
    /events/today/?tribe-bar-date=2027-03-05 shows today."""
    answer = follow(client, "/events/today/?tribe-bar-date=2027-03-05")
    assert answer.status_code == 200
    heading = re.search(r"<h1>([^<]*)</h1>", answer.get_data(as_text=True)).group(1)
    assert "March 5, 2027" in heading, heading
