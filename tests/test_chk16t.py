"""chk16t: SPEC §11-§13 checked from outside (iCalendar feeds and import, recurring events,
images). Each test fails on the code of the branch point for the reason its docstring names."""

from tests.conftest import NS

GOOGLE_WITH_HTML = (
    "BEGIN:VCALENDAR\r\n"
    "PRODID:-//Google Inc//Google Calendar 70.9054//EN\r\n"
    "VERSION:2.0\r\nCALSCALE:GREGORIAN\r\nMETHOD:PUBLISH\r\n"
    "X-WR-CALNAME:Club\r\nX-WR-TIMEZONE:Europe/Paris\r\n"
    "BEGIN:VEVENT\r\n"
    "DTSTART:20280901T170000Z\r\nDTEND:20280901T190000Z\r\nDTSTAMP:20261101T000000Z\r\n"
    "UID:ghtml1@google.com\r\n"
    "DESCRIPTION:Join us!<br><br>Agenda:<ul><li>Intro</li><li>Talks</li></ul><a hr\r\n"
    ' ef="https://example.org/talks">Programme</a>\r\n'
    "SEQUENCE:0\r\nSTATUS:CONFIRMED\r\nSUMMARY:Meetup\r\n"
    "END:VEVENT\r\nEND:VCALENDAR\r\n"
)


def test_google_calendar_html_description_is_not_shown_as_raw_tags(client, admin):
    """D1: Google Calendar exports the description written in its editor as HTML in
    DESCRIPTION. SPEC §11 reads files as Google writes them, and descriptions are sanitised
    HTML (§2): the visitor must see a list and a link, not the text "<ul><li>…"."""
    answer = client.post(
        f"{NS}/events/import", data=GOOGLE_WITH_HTML, headers={**admin, "Content-Type": "text/calendar"}
    )
    assert answer.status_code == 200, answer.get_json()
    event_id = answer.get_json()["created"][0]["id"]
    event = client.get(f"{NS}/events/{event_id}").get_json()
    assert "&lt;" not in event["description"], event["description"]
    assert "<li>Intro</li>" in event["description"]
    assert 'href="https://example.org/talks"' in event["description"]
    page = client.get(f"/event/{event['slug']}/").get_data(as_text=True)
    assert "&lt;ul&gt;" not in page and "&lt;br&gt;" not in page, "the page shows the raw tags"
