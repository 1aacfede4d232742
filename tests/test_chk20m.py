"""Outside check chk20m: recurring series (SPEC §12) and images (SPEC §13), through HTTP."""

import io
from datetime import datetime, timedelta

from PIL import Image

from tests.conftest import NS
from tests.series_helpers import create_series, occurrences

UTC_FORMAT = "%Y-%m-%d %H:%M:%S"


def _utc(text):
    return datetime.strptime(text, UTC_FORMAT)


def test_fall_back_day_occurrence_keeps_the_series_duration(client, admin):
    """D1: SPEC §12 'Each occurrence keeps the series' local wall-clock time and duration'.
    A 1-hour daily 02:30 Europe/Paris series crossing the 2027-10-31 fall-back: the
    occurrence of that day must last 1 hour (RFC 5545 3.8.5.3: with DTEND, 'the same exact
    duration will apply to all the members of the generated recurrence set'), as the
    spring-forward day already does (03:30-04:30 CEST)."""
    series = create_series(
        client,
        admin,
        title="Overlap",
        start_date="2027-10-30 02:30:00",
        end_date="2027-10-30 03:30:00",
        timezone="Europe/Paris",
        recurrence=["RRULE:FREQ=DAILY;COUNT=3"],
    )
    events = [series, *occurrences(client, series["id"], admin)]
    assert len(events) == 3
    for event in events:
        length = _utc(event["utc_end_date"]) - _utc(event["utc_start_date"])
        assert length == timedelta(hours=1), (
            event["start_date"],
            event["utc_start_date"],
            event["utc_end_date"],
        )


def _animated_gif():
    frames = [Image.new("P", (400, 400), colour) for colour in (1, 50, 200)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return buffer.getvalue()


def _served(client, url):
    path = url.split("://", 1)[1].split("/", 1)[1]
    answer = client.get("/" + path)
    assert answer.status_code == 200
    return answer.data


def test_animated_gif_stays_animated(client, admin):
    """D3: an animated GIF is a GIF (SPEC §13 accepts it and removes only metadata); the
    stored full-size file keeps its frames, as WordPress keeps the original upload."""
    answer = client.post(
        f"{NS}/media",
        headers=admin,
        data={"file": (io.BytesIO(_animated_gif()), "anim.gif", "image/gif")},
        content_type="multipart/form-data",
    )
    assert answer.status_code == 201, answer.get_json()
    image = Image.open(io.BytesIO(_served(client, answer.get_json()["url"])))
    assert image.format == "GIF"
    assert getattr(image, "n_frames", 1) == 3


def test_open_ended_series_fills_the_default_listing_window(client, admin):
    """D4: SPEC §12 'Open-ended rules are materialised to RECURRENCE_HORIZON_DAYS ahead
    (default 730, the default listing window)'. The default window ends at the end of the
    day of now + 24 months (reference-behaviour §3); a daily open-ended series must have its
    occurrence on that last day, so the default listing shows the series to its end."""
    default = client.get(f"{NS}/events", headers=admin).get_json()
    window_end = default["rest_url"].split("end_date=")[1].split("&")[0].replace("%20", " ")
    last_day = window_end[:10]
    series = create_series(
        client,
        admin,
        title="Every day",
        timezone="UTC",
        start_date="tomorrow 23:00",
        end_date="tomorrow 23:30",
        recurrence=["RRULE:FREQ=DAILY"],
    )
    on_last_day = client.get(
        f"{NS}/events",
        headers=admin,
        query_string={
            "post_parent": series["id"],
            "start_date": f"{last_day} 00:00:00",
            "end_date": window_end,
        },
    ).get_json()
    assert [e["start_date"] for e in on_last_day["events"]] == [f"{last_day} 23:00:00"], (
        window_end,
        on_last_day,
    )


def test_an_occurrence_feed_gives_that_one_event(client, admin):
    """D5: SPEC §11 '`GET {ns}/events/{id}?ical=1` ... give one event'. For the id of one
    occurrence (the 2027-03-15 date of a weekly series), a calendar application importing the
    file must get that date only, not the five dates of the whole series."""
    import datetime as dt

    import icalendar
    import recurring_ical_events

    series = create_series(client, admin, title="One date")
    third = occurrences(client, series["id"], admin)[1]
    assert third["start_date"] == "2027-03-15 19:00:00"
    answer = client.get(f"{NS}/events/{third['id']}", query_string={"ical": 1}, headers=admin)
    assert answer.status_code == 200
    calendar = icalendar.Calendar.from_ical(answer.data)
    dates = [
        e["DTSTART"].dt.strftime("%Y-%m-%d %H:%M")
        for e in recurring_ical_events.of(calendar).between(
            dt.datetime(2027, 1, 1), dt.datetime(2028, 1, 1)
        )
    ]
    assert dates == ["2027-03-15 19:00"]
