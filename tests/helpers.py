"""Helpers shared by test files (no test file imports another)."""

from tests.conftest import NS


def ics(*events, extra="", zones=""):
    """A VCALENDAR with CRLF line ends around the given VEVENT bodies."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//Tests//Tests//EN"]
    lines += [x for x in extra.splitlines() if x]
    lines += [x for x in zones.splitlines() if x]
    for body in events:
        lines += ["BEGIN:VEVENT", *[x for x in body.splitlines() if x], "END:VEVENT"]
    lines.append("END:VCALENDAR")
    return ("\r\n".join(lines) + "\r\n").encode()


def do_import(client, headers, data, **query):
    return client.post(
        f"{NS}/events/import",
        data=data,
        query_string=query,
        headers={**headers, "Content-Type": "text/calendar"},
    )


def imported(client, headers, data, **query):
    response = do_import(client, headers, data, **query)
    assert response.status_code == 200, response.get_json()
    return response.get_json()
