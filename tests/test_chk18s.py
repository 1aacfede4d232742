"""chk18s: an outside check of the eighteenth session's changes (304s, json_ld, checks)."""

from datetime import timedelta

from rules import clock
from tests.conftest import NS, forget_all


def test_ims_304_keeps_a_relative_window_feed_stale(client, admin, make_event):
    """A feed whose window is relative to now (`starts_before=+1 hour&strict_dates=1`) takes in an event when
    the clock brings it inside, with no write and at no event's start or end: a subscriber
    sending back the date it had must get the new feed, not a 304 (SPEC §9: no 304 that
    keeps a client on content that changed)."""
    clock.freeze()
    clock.advance(2)
    now = clock.utcnow().replace(tzinfo=None)
    make_event(
        title="Under way",
        start_date=(now - timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S"),
        end_date=(now + timedelta(hours=5)).strftime("%Y-%m-%d %H:%M:%S"),
        timezone="UTC",
    )
    clock.advance(2)
    start = clock.utcnow().replace(tzinfo=None) + timedelta(minutes=90)
    end = start + timedelta(minutes=30)
    make_event(
        title="Comes into the hour",
        start_date=start.strftime("%Y-%m-%d %H:%M:%S"),
        end_date=end.strftime("%Y-%m-%d %H:%M:%S"),
        timezone="UTC",
    )
    clock.advance(2)
    path = f"{NS}/events?ical=1&starts_before=%2B1%20hour&strict_dates=1"
    first = client.get(path)
    assert first.status_code == 200
    assert "Under way" in first.get_data(as_text=True)
    assert "Comes into the hour" not in first.get_data(as_text=True)
    clock.advance(45 * 60)  # now the event starts within the hour
    forget_all(client.application)
    fresh = client.get(path)
    assert "Comes into the hour" in fresh.get_data(as_text=True)
    again = client.get(path, headers={"If-Modified-Since": first.headers["Last-Modified"]})
    assert again.status_code == 200, (
        first.headers["Last-Modified"],
        fresh.headers.get("Last-Modified"),
    )


def test_a_feed_emptied_by_a_trash_still_carries_last_modified(client, admin, make_event):
    """SPEC §11: the feed is subscribable by calendar applications (stable URL, `ETag`,
    `Last-Modified`). A category's feed whose last event was trashed changed at that write;
    it answers no `Last-Modified` at all (app/ical.py dates a feed only by its events)."""
    made = make_event(title="Only one", categories=["Emptied"])
    feed = f"{NS}/events?ical=1&categories={made['categories'][0]['id']}"
    first = client.get(feed)
    assert "Last-Modified" in first.headers
    clock.advance(2)
    assert client.delete(f"{NS}/events/{made['id']}", headers=admin).status_code == 200
    after = client.get(feed)
    assert after.status_code == 200
    assert "Only one" not in after.get_data(as_text=True)
    assert "Last-Modified" in after.headers


def test_too_many_occurrences_is_named_beside_a_bad_website(client, as_role, make_event):
    """SPEC §6: `rest_invalid_param`'s `data.params` maps each bad parameter. A recurrence
    over `RECURRENCE_MAX` is named alone (400 `recurrence`), but beside a bad `website` the
    answer names the website only: a client fixes it and is refused again for the other."""
    editor = as_role("editor")
    too_many = ["RRULE:FREQ=DAILY;COUNT=5000"]
    new = {"title": "Long", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"}
    alone = client.post(f"{NS}/events", json={**new, "recurrence": too_many}, headers=editor)
    assert alone.status_code == 400 and "recurrence" in alone.get_json()["data"]["params"]
    both = client.post(
        f"{NS}/events", json={**new, "recurrence": too_many, "website": "bad"}, headers=editor
    )
    assert both.status_code == 400
    assert set(both.get_json()["data"]["params"]) == {"website", "recurrence"}, both.get_json()
    made = make_event(title="Updated")
    update = client.post(
        f"{NS}/events/{made['id']}", json={"recurrence": too_many, "website": "bad"}, headers=editor
    )
    assert update.status_code == 400
    assert set(update.get_json()["data"]["params"]) == {"website", "recurrence"}, update.get_json()


def test_a_rerun_after_the_digest_change_leaves_unchanged_events_alone(app, client, admin):
    """import-tec's records now keep a digest of the source's answer where they kept its
    `modified_utc`. A site imported by the earlier version (records holding `modified_utc`)
    and run again after the upgrade, the source unchanged: every event is "updated" and
    an edit made here since the import is overwritten (SPEC §17: "Running it again updates
    what changed"; the module's own rule: what the source did not change is left alone,
    local edits included)."""
    from store.db import database
    from store.models import Imported
    from tests.tec_fake import FakeTEC
    from tests.test_import_tec import _row, run

    fake = FakeTEC().start()
    try:
        assert run(app, fake.base, "--no-images").exit_code == 0
        modified = {str(item["id"]): item["modified_utc"] for item in fake.events}
        changed = []
        with database.connection_context():  # the records as the earlier version wrote them
            for record in Imported.select().where(Imported.source.startswith("events:")):
                source_id = record.source.rsplit("id=", 1)[-1]
                if source_id in modified and record.modified.startswith("sha256:"):
                    record.modified = modified[source_id]
                    record.save()
                    changed.append(record.source)
        listing = client.get(f"{NS}/events?per_page=1&start_date=2000-01-01&end_date=2100-01-01")
        local = listing.get_json()["events"][0]
        edited = client.post(
            f"{NS}/events/{local['id']}", json={"title": "Edited here"}, headers=admin
        )
        assert edited.status_code == 200
        assert changed
        again = run(app, fake.base, "--no-images")
        assert again.exit_code == 0, again.output
        assert client.get(f"{NS}/events/{local['id']}").get_json()["title"] == "Edited here"
        assert _row(again.output, "events")[1] == 0, again.output  # none updated

    finally:
        fake.stop()
