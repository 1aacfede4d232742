"""SPEC §16 with §4's statuses: scheduling in the editor. The event, venue and organizer
forms have a "Publish on" field, the API's ``date`` (the site's time): Scheduled with a
date to come stays scheduled until then; with none, or a date past, it is published at
once, as the API publishes a ``future`` item whose date has passed."""

import html
from datetime import UTC, datetime, timedelta

from tests.conftest import FORM_DAY, NS, event_form, saved_id

DAY = FORM_DAY
LATER = (datetime.now(UTC).replace(tzinfo=None) + timedelta(days=3)).replace(
    microsecond=0, second=0
)


def new_event(client, **fields) -> dict:
    """A new event to schedule: its form with "Scheduled" chosen."""
    values = {
        "title": "Harvest fair",
        "start_date": f"{DAY}T10:00",
        "end_date": f"{DAY}T16:00",
        "status": "future",
    }
    return event_form(client, **{**values, **fields})


def test_scheduled_with_a_date_to_come_stays_scheduled_until_then(client, admin, sign_in):
    editor = sign_in("editor", "sam")
    form = editor.get("/manage/events/new").get_data(as_text=True)
    assert 'name="date" type="datetime-local"' in form and "Publish on" in form
    answer = editor.post(
        "/manage/events/new", data=new_event(editor, date=LATER.strftime("%Y-%m-%dT%H:%M"))
    )
    assert answer.status_code == 303
    event_id = saved_id(answer)
    stored = client.get(f"{NS}/events/{event_id}", headers=admin).get_json()
    assert stored["status"] == "future"
    assert stored["date"] == LATER.strftime("%Y-%m-%d %H:%M:00")  # the site's zone (UTC)
    assert client.get(f"{NS}/events/{event_id}").status_code in (401, 403)  # not yet public
    shown = editor.get(f"/manage/events/{event_id}").get_data(as_text=True)
    assert f'value="{LATER.strftime("%Y-%m-%dT%H:%M")}"' in shown
    assert '<option value="future" selected>' in shown


def test_scheduled_without_a_date_is_published_at_once_as_the_api_does(client, sign_in):
    editor = sign_in("editor", "sid")
    answer = editor.post("/manage/events/new", data=new_event(editor, date=""))
    assert answer.status_code == 303
    assert client.get(f"{NS}/events/{saved_id(answer)}").get_json()["status"] == "publish"


def test_a_publication_date_that_is_no_date_is_said_beside_its_field(sign_in):
    editor = sign_in("editor", "sol")
    answer = editor.post("/manage/events/new", data=new_event(editor, date="someday soon"))
    page = answer.get_data(as_text=True)
    assert answer.status_code == 400
    assert 'id="date-error"' in page and 'value="someday soon"' in page
    assert 'aria-describedby="date-hint date-error"' in page


def test_an_api_scheduled_event_shows_its_date_and_is_rescheduled_in_the_form(
    client, admin, sign_in, make_event
):
    made = make_event(
        title="Opening night",
        start_date=f"{DAY} 19:00:00",
        end_date=f"{DAY} 22:00:00",
        status="future",
        date=LATER.strftime("%Y-%m-%d %H:%M:%S"),
    )
    editor = sign_in("editor", "stan")
    form = editor.get(f"/manage/events/{made['id']}").get_data(as_text=True)
    assert f'name="date" type="datetime-local" value="{LATER.strftime("%Y-%m-%dT%H:%M")}"' in (
        html.unescape(form)
    )
    shown = html.unescape(form.split('name="shown" value="')[1].split('"')[0])
    same = editor.post(
        f"/manage/events/{made['id']}",
        data=new_event(
            editor,
            title="Opening night!",
            start_date=f"{DAY}T19:00",
            end_date=f"{DAY}T22:00",
            date=LATER.strftime("%Y-%m-%dT%H:%M"),
            shown=shown,
        ),
    )
    assert same.status_code == 303
    kept = client.get(f"{NS}/events/{made['id']}", headers=admin).get_json()
    assert kept["status"] == "future" and kept["date"] == made["date"]
    later = LATER + timedelta(days=1)
    # The form as the browser shows it after that save (a form opened before it, sending
    # another title, would be refused: the title was changed since it was shown).
    form = editor.get(f"/manage/events/{made['id']}").get_data(as_text=True)
    shown = html.unescape(form.split('name="shown" value="')[1].split('"')[0])
    moved = editor.post(
        f"/manage/events/{made['id']}",
        data=new_event(
            editor,
            start_date=f"{DAY}T19:00",
            end_date=f"{DAY}T22:00",
            date=later.strftime("%Y-%m-%dT%H:%M"),
            shown=shown,
        ),
    )
    assert moved.status_code == 303
    stored = client.get(f"{NS}/events/{made['id']}", headers=admin).get_json()
    assert stored["status"] == "future" and stored["date"] == later.strftime("%Y-%m-%d %H:%M:00")


def test_contributors_are_offered_no_publication_date(sign_in):
    contributor = sign_in("contributor", "cam")
    form = contributor.get("/manage/events/new").get_data(as_text=True)
    assert 'name="date"' not in form
    assert 'name="date"' not in contributor.get("/manage/venues/new").get_data(as_text=True)


def test_venues_and_organizers_are_scheduled_in_their_forms(client, admin, sign_in):
    editor = sign_in("editor", "sue")
    for plural, name_field in (("venues", "venue"), ("organizers", "organizer")):
        assert "Publish on" in editor.get(f"/manage/{plural}/new").get_data(as_text=True)
        answer = editor.post(
            f"/manage/{plural}/new",
            data={
                "csrf_token": editor.token,
                name_field: f"Soon {name_field}",
                "status": "future",
                "date": LATER.strftime("%Y-%m-%dT%H:%M"),
            },
        )
        assert answer.status_code == 303
        item_id = saved_id(answer)
        stored = client.get(f"{NS}/{plural}/{item_id}", headers=admin).get_json()
        assert stored["status"] == "future"
        assert client.get(f"{NS}/{plural}/{item_id}").status_code in (401, 403)
        form = editor.get(f"/manage/{plural}/{item_id}").get_data(as_text=True)
        assert f'value="{LATER.strftime("%Y-%m-%dT%H:%M")}"' in form
        bad = editor.post(
            f"/manage/{plural}/{item_id}",
            data={"csrf_token": editor.token, name_field: "x", "date": "not a date"},
        )
        assert bad.status_code == 400 and 'id="date-error"' in bad.get_data(as_text=True)


def test_the_demo_seed_writes_publication_dates_in_the_site_zone(app, client, admin, sign_in):
    """Found by a fresh-clone check: ``flask seed`` wrote ``date`` equal to ``date_utc``, so
    "Publish on" showed the UTC time on a site in Europe/Paris."""
    from zoneinfo import ZoneInfo

    app.config["SITE_TIMEZONE"] = "Europe/Paris"
    seeded = app.test_cli_runner().invoke(args=["seed", "--events", "3"])
    assert seeded.exit_code == 0, seeded.output
    editor = sign_in("administrator")
    event = client.get(f"{NS}/events?status=any&per_page=1", headers=admin).get_json()
    event = event["events"][0]
    utc = datetime.strptime(event["date_utc"], "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    local = utc.astimezone(ZoneInfo("Europe/Paris")).replace(tzinfo=None)
    assert local != utc.replace(tzinfo=None)  # Paris is never at UTC's time
    assert event["date"] == f"{local:%Y-%m-%d %H:%M:%S}"
    shown = editor.get(f"/manage/events/{event['id']}").get_data(as_text=True)
    assert f'name="date" type="datetime-local" value="{local:%Y-%m-%dT%H:%M}' in shown
    venue = client.get(f"{NS}/venues", headers=admin).get_json()["venues"][0]
    assert venue["date"] == f"{local:%Y-%m-%d %H:%M:%S}"
