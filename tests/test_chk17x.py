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






def _canonical(body: str) -> str:
    import re

    return re.search(r'<link rel="canonical" href="([^"]*)"', body).group(1).replace("&amp;", "&")



