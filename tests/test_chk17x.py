"""chk17x: a regression walk of the session's public pages and editor changes (The Events
Calendar's query views and featured addresses, the library thumbnails' alt text)."""

from datetime import date, timedelta

from tests.conftest import NS, csrf, event_form

HTML = {"Accept": "text/html"}
DAY = date.today() + timedelta(days=40)
MONTH = f"{DAY:%Y-%m}"


def _followed(client, path):
    for _n in range(5):
        response = client.get(path, headers=HTML)
        if response.status_code not in (301, 302, 303, 307, 308):
            return response
        path = response.headers["Location"]
    return response


def _two_events(client, admin, make_event):
    """One event in category "Arts", one in none, both on DAY."""
    when = {"start_date": f"{DAY} 19:00:00", "end_date": f"{DAY} 20:00:00"}
    make_event(title="Painted walls", categories=["Arts"], **when)
    make_event(title="Brass band", **when)




def test_library_thumbnails_alt_text_is_as_the_readme_says(client, admin, sign_in):
    """README (editor): the thumbnails' alt text is "Image #id (width × height)"."""
    from tests.helpers import image_bytes, uploaded

    image = uploaded(client, admin, image_bytes())
    editor = sign_in("administrator", "boss")
    body = editor.get("/manage/events/new").get_data(as_text=True)
    assert f"Picture #{image['id']} (" in body or f"Image #{image['id']} (" in body  # shown at all
    assert f'alt="Image #{image["id"]} (' in body


def test_the_past_featured_list_says_it_is_featured(client, make_event):
    """The upcoming featured list is titled "Featured events"; its "Past events" link
    (/events/?featured=1&past=1) lists past featured events only, and must not carry the
    same title and heading as the whole past list (WCAG 2.4.2: a title says where one is)."""
    make_event(
        title="Old star", featured=True, start_date="2020-01-05 10:00", end_date="2020-01-05 11:00"
    )
    upcoming = client.get("/events/?featured=1", headers=HTML).get_data(as_text=True)
    assert 'href="/events/?featured=1&amp;past=1"' in upcoming
    body = client.get("/events/?featured=1&past=1", headers=HTML).get_data(as_text=True)
    whole = client.get("/events/?past=1", headers=HTML).get_data(as_text=True)
    title = body[body.index("<title>") : body.index("</title>")]
    heading = body[body.index("<h1") : body.index("</h1>")]
    assert "featured" in title.lower(), title
    assert heading != whole[whole.index("<h1") : whole.index("</h1>")], heading


def test_the_public_venue_filter_tells_same_named_venues_apart(client, admin, make_event):
    """The editor tells two venues of one name apart by their city (README); the list's
    filter form offers the same choice to visitors and must not show two identical labels."""
    import re

    for city in ("Paris", "Lyon"):
        venue = client.post(
            f"{NS}/venues", json={"venue": "Town Hall", "city": city}, headers=admin
        )
        assert venue.status_code == 201
        make_event(title=f"Meeting in {city}", venue=venue.get_json()["id"])
    body = client.get("/events/", headers=HTML).get_data(as_text=True)
    select = body[body.index('name="venue"') :]
    select = select[: select.index("</select>")]
    labels = re.findall(r"<option value=\"[^\"]+\"[^>]*>([^<]*Town Hall[^<]*)</option>", select)
    assert len(labels) == 2, select
    assert len(set(labels)) == 2, labels


def _canonical(body: str) -> str:
    import re

    return re.search(r'<link rel="canonical" href="([^"]*)"', body).group(1).replace("&amp;", "&")




def test_a_terms_past_list_says_it_is_past(client, make_event):
    """/events/category/arts/?past=1 (its list's "Past events" link) carried the title and
    heading of the category's upcoming list: nothing said its events are past."""
    make_event(
        title="Old mural",
        categories=["Arts"],
        start_date="2020-01-05 10:00",
        end_date="2020-01-05 11:00",
    )
    make_event(
        title="New mural", categories=["Arts"], start_date=f"{DAY} 10:00", end_date=f"{DAY} 11:00"
    )
    upcoming = client.get("/events/category/arts/", headers=HTML).get_data(as_text=True)
    assert 'href="/events/category/arts/?past=1"' in upcoming
    past = client.get("/events/category/arts/?past=1", headers=HTML).get_data(as_text=True)
    assert "Old mural" in past and "New mural" not in past

    def title(body):
        return body[body.index("<title>") : body.index("</title>")]

    def heading(body):
        return body[body.index("<h1") : body.index("</h1>")]

    assert title(past) != title(upcoming), title(past)
    assert heading(past) != heading(upcoming), heading(past)
