"""SPEC §16: what an editor reviews in the editor, and approving it in one click: the
dashboard's "Pending review" (events, a series once, venues and organizers), approving an
event with the venues and organizers made for it, and the list of events by status,
upcoming first or past."""

import html
import re
from datetime import date, timedelta

from rules import clock
from store.db import database
from store.models import Event
from tests.conftest import FORM_DAY, NS, event_form, saved_id

DAY = FORM_DAY


def review_section(page: str) -> str:
    """The dashboard's "Pending review" section."""
    return page.split('id="section-review"')[1].split("</section>")[0]


def submit_weekly_event(contributor, organizer_id: int) -> int:
    """A contributor's weekly event with a venue made in place and ``organizer_id``,
    submitted for review, as the outside tester did: its id."""
    answer = contributor.post(
        "/manage/events/new",
        data={
            "csrf_token": contributor.token,
            "title": "Atelier couture",
            "start_date": f"{DAY}T18:00",
            "end_date": f"{DAY}T20:00",
            "timezone": "UTC",
            "repeat_freq": "WEEKLY",
            "repeat_count": "4",
            "venue[venue]": "Maison de quartier Saint-Michel",
            "organizer": str(organizer_id),
            "status": "pending",
        },
    )
    assert answer.status_code == 303
    return saved_id(answer)


def test_approving_an_event_publishes_the_venue_and_organizer_made_for_it(client, admin, sign_in):
    contributor = sign_in("contributor", "cleo")
    made = contributor.post(
        "/manage/organizers/new",
        data={
            "csrf_token": contributor.token,
            "organizer": "Les Amis du Quartier",
            "status": "pending",
        },
    )
    organizer_id = saved_id(made)
    event_id = submit_weekly_event(contributor, organizer_id)
    event = client.get(f"{NS}/events/{event_id}", headers=admin).get_json()
    venue_id = event["venue"]["id"]
    assert client.get(f"{NS}/venues/{venue_id}", headers=admin).get_json()["status"] == "pending"

    editor = sign_in("editor", "edgar")
    waiting = review_section(editor.get("/manage/").get_data(as_text=True))
    assert waiting.count("Approve: Atelier couture") == 1  # the series once, not 4 rows
    assert "Maison de quartier Saint-Michel" in waiting and "Les Amis du Quartier" in waiting
    assert f"/manage/venues/{venue_id}/approve" in waiting
    assert f"/manage/organizers/{organizer_id}/approve" in waiting

    approved = editor.post(f"/manage/events/{event_id}/approve", data={"csrf_token": editor.token})
    assert approved.status_code == 303
    dashboard = html.unescape(editor.get("/manage/").get_data(as_text=True))
    said = dashboard.split('role="status"')[1].split("</div>")[0]
    assert "Approved and published: Atelier couture." in said
    assert "Published with it:" in said and "Not published with it" not in said
    assert "Venue: Maison de quartier Saint-Michel" in said
    assert "Organizer: Les Amis du Quartier" in said
    assert "Atelier couture" not in review_section(dashboard)  # nothing left to review

    shown = client.get(f"{NS}/events/{event_id}").get_json()  # anonymous
    assert shown["venue"]["venue"] == "Maison de quartier Saint-Michel"
    assert [o["organizer"] for o in shown["organizer"]] == ["Les Amis du Quartier"]
    page = html.unescape(client.get(f"/event/{shown['slug']}/").get_data(as_text=True))
    assert "Maison de quartier Saint-Michel" in page and "Les Amis du Quartier" in page
    assert client.get(f"/venue/{shown['venue']['slug']}/").status_code == 200
    assert client.get(f"/organizer/{shown['organizer'][0]['slug']}/").status_code == 200


def test_an_approval_names_the_linked_items_it_leaves_unpublished(client, admin, sign_in):
    """A draft venue is not waiting for review: approving the event leaves it, and says so
    (with a link to it) so that the editor decides."""
    contributor = sign_in("contributor", "cid")
    draft = contributor.post(
        "/manage/venues/new",
        data={"csrf_token": contributor.token, "venue": "Back room", "status": "draft"},
    )
    venue_id = saved_id(draft)
    answer = contributor.post(
        "/manage/events/new",
        data={
            "csrf_token": contributor.token,
            "title": "Quiz night",
            "start_date": f"{DAY}T20:00",
            "end_date": f"{DAY}T22:00",
            "venue": str(venue_id),
            "status": "pending",
        },
    )
    event_id = saved_id(answer)
    editor = sign_in("editor", "eli")
    editor.post(f"/manage/events/{event_id}/approve", data={"csrf_token": editor.token})
    said = html.unescape(editor.get("/manage/").get_data(as_text=True))
    said = said.split('role="status"')[1].split("</div>")[0]
    assert "Not published with it" in said and "Venue: Back room" in said
    assert f"/manage/venues/{venue_id}" in said
    assert client.get(f"{NS}/venues/{venue_id}", headers=admin).get_json()["status"] == "draft"
    assert client.get(f"{NS}/events/{event_id}").get_json()["status"] == "publish"


def test_only_editors_approve_and_a_second_click_changes_nothing(client, admin, sign_in):
    contributor = sign_in("contributor", "cass")
    made = contributor.post(
        "/manage/venues/new",
        data={"csrf_token": contributor.token, "venue": "Loft", "status": "pending"},
    )
    venue_id = saved_id(made)
    author = sign_in("author", "abe")
    refused = author.post(f"/manage/venues/{venue_id}/approve", data={"csrf_token": author.token})
    assert refused.status_code == 404
    assert "section-review" not in author.get("/manage/").get_data(as_text=True)
    assert client.get(f"{NS}/venues/{venue_id}", headers=admin).get_json()["status"] == "pending"
    editor = sign_in("editor", "eda")
    for _click in range(2):
        answer = editor.post(
            f"/manage/venues/{venue_id}/approve", data={"csrf_token": editor.token}
        )
        assert answer.status_code == 303
    assert client.get(f"{NS}/venues/{venue_id}").get_json()["status"] == "publish"
    terms = editor.post("/manage/tags/1/approve", data={"csrf_token": editor.token})
    assert terms.status_code == 404


def test_pending_review_shows_a_series_once_and_links_to_all(client, as_role, sign_in):
    contributor = as_role("contributor", "carla")
    for number in range(22):
        client.post(
            f"{NS}/events",
            json={
                "title": f"Talk {number}",
                "start_date": f"{DAY} 12:00:00",
                "end_date": f"{DAY} 13:00:00",
                "status": "pending",
            },
            headers=contributor,
        )
    # Submitted last: the latest change comes first (a fresh-clone check missed a new
    # submission among twenty older ones).
    series = client.post(
        f"{NS}/events",
        json={
            "title": "Weekly walk",
            "start_date": f"{DAY} 09:00:00",
            "end_date": f"{DAY} 10:00:00",
            "recurrence": ["RRULE:FREQ=WEEKLY;COUNT=5"],
            "status": "pending",
        },
        headers=contributor,
    ).get_json()
    editor = sign_in("editor", "ezra")
    waiting = review_section(editor.get("/manage/").get_data(as_text=True))
    assert len(re.findall(r"Approve: ", waiting)) == 20
    assert waiting.count("Approve: Weekly walk") == 1
    assert waiting.index("Approve: Weekly walk") < waiting.index("Approve: Talk 21")
    assert 'href="/manage/events/?status=pending"' in waiting  # 23 wait: see them all
    listed = editor.get("/manage/events/?status=pending").get_data(as_text=True)
    assert len(re.findall(r'/manage/events/\d+">', listed)) == 20 and 'rel="next"' in listed
    assert 'href="/manage/events/?status=pending&amp;page=2"' in listed

    occurrences = client.get(
        f"{NS}/events",
        query_string={"post_parent": series["id"], "status": "pending"},
        headers=as_role("editor", "ezra"),
    ).get_json()["events"]
    second = occurrences[0]["id"]  # the second row of the series, as the tester clicked
    answer = editor.post(f"/manage/events/{second}/approve", data={"csrf_token": editor.token})
    assert answer.status_code == 303
    everything = client.get(
        f"{NS}/events", query_string={"search": "Weekly walk", "per_page": 50}
    ).get_json()["events"]
    assert len(everything) == 5 and {e["status"] for e in everything} == {"publish"}
    assert all(not e.get("detached") for e in everything)


def test_the_events_list_filters_by_status_upcoming_first_then_past(
    client, as_role, sign_in, make_event
):
    editor_headers = as_role("editor", "ella")
    make_event(
        editor_headers,
        title="Long ago",
        start_date="2020-01-01 10:00:00",
        end_date="2020-01-01 11:00:00",
    )
    make_event(
        editor_headers,
        title="Last month",
        start_date=f"{DAY - timedelta(days=40)}",
        end_date=f"{DAY - timedelta(days=40)}",
    )
    make_event(
        editor_headers,
        title="Later",
        start_date=f"{DAY + timedelta(days=9)} 10:00:00",
        end_date=f"{DAY + timedelta(days=9)} 11:00:00",
    )
    make_event(
        editor_headers,
        title="Sooner",
        start_date=f"{DAY} 10:00:00",
        end_date=f"{DAY} 11:00:00",
        status="pending",
    )
    make_event(editor_headers, title="Drafted", status="draft")
    scheduled = (date.today() + timedelta(days=2)).isoformat()
    make_event(editor_headers, title="Scheduled one", status="future", date=scheduled)
    trashed = make_event(editor_headers, title="Binned")
    client.delete(f"{NS}/events/{trashed['id']}", headers=editor_headers)
    editor = sign_in("editor", "ella")

    def titles(query: str) -> list[str]:
        page = editor.get(f"/manage/events/{query}")
        assert page.status_code == 200
        return re.findall(r'/manage/events/\d+">([^<]+)</a>', page.get_data(as_text=True))

    upcoming = titles("")
    assert "Long ago" not in upcoming and "Last month" not in upcoming
    assert upcoming.index("Sooner") < upcoming.index("Later")  # soonest first
    assert "Binned" not in upcoming
    assert titles("?past=1") == ["Last month", "Long ago"]  # latest first
    assert titles("?status=pending") == ["Sooner"]
    assert titles("?status=draft") == ["Drafted"]
    assert titles("?status=future") == ["Scheduled one"]
    assert titles("?status=trash") == ["Binned"]
    # A status the list does not offer is said, not read as all (chk18a D3).
    assert editor.get("/manage/events/?status=nonsense").status_code == 400
    page = editor.get("/manage/events/?status=pending").get_data(as_text=True)
    for status in ("pending", "draft", "future", "trash"):
        assert f'href="/manage/events/?status={status}"' in page
    assert 'aria-current="page">Pending review' in page
    assert 'href="/manage/events/?status=pending&amp;past=1"' in page
    assert 'name="status" value="pending"' in page  # a search keeps the filter


def test_the_venue_list_filters_by_status(client, as_role, sign_in):
    client.post(f"{NS}/venues", json={"venue": "Open hall"}, headers=as_role("editor", "eve"))
    client.post(
        f"{NS}/venues",
        json={"venue": "Awaiting hall", "status": "publish"},
        headers=as_role("contributor", "cy"),
    )
    editor = sign_in("editor", "eve")
    pending = editor.get("/manage/venues/?status=pending").get_data(as_text=True)
    assert "Awaiting hall" in pending and "Open hall" not in pending
    every = editor.get("/manage/venues/").get_data(as_text=True)
    assert "Awaiting hall" in every and "Open hall" in every


def test_the_pending_list_approves_in_one_click_as_the_dashboard_does(client, admin, sign_in):
    """Found by a fresh-clone check: /manage/events/?status=pending (where "See all the
    events waiting for review" leads) listed the pending events without the dashboard's
    Approve. It has it, posting to the same approval, for those who may publish; a
    contributor's own list has none."""
    contributor = sign_in("contributor", "carla")
    answer = contributor.post(
        "/manage/events/new",
        data={
            "csrf_token": contributor.token,
            "title": "Repair café",
            "start_date": f"{DAY}T14:00",
            "end_date": f"{DAY}T17:00",
            "timezone": "UTC",
            "status": "pending",
        },
    )
    event_id = saved_id(answer)
    approve = f'action="/manage/events/{event_id}/approve"'
    mine = contributor.get("/manage/events/?status=pending").get_data(as_text=True)
    assert "Repair café" in mine and approve not in mine and "Approve" not in mine
    editor = sign_in("editor", "eli")
    for path in ("/manage/events/?status=pending", "/manage/events/"):
        listed = editor.get(path).get_data(as_text=True)
        assert listed.count(approve) == 1, path
        assert 'aria-label="Approve: Repair café"' in html.unescape(listed), path
    approved = editor.post(f"/manage/events/{event_id}/approve", data={"csrf_token": editor.token})
    assert approved.status_code == 303
    assert client.get(f"{NS}/events/{event_id}", headers=admin).get_json()["status"] == "publish"
    assert approve not in editor.get("/manage/events/").get_data(as_text=True)


def test_an_approval_from_the_event_list_comes_back_to_it_saying_what_it_did(sign_in):
    """Found by a fresh-clone check: Approve on /manage/events/?status=pending led to the
    dashboard, so approving several meant going back each time. It comes back to the list
    it was clicked on (filters kept), which says what was published; an address that is
    not the event list's leads to the dashboard, never elsewhere."""
    contributor = sign_in("contributor", "cleo")
    ids = []
    for title in ("Swap shop", "Book club"):
        form = event_form(contributor, title=title, status="pending")
        ids.append(saved_id(contributor.post("/manage/events/new", data=form)))
    editor = sign_in("editor", "ezra")
    listed = html.unescape(editor.get("/manage/events/?status=pending").get_data(as_text=True))
    assert 'name="back" value="/manage/events/?status=pending"' in listed
    answer = editor.post(
        f"/manage/events/{ids[0]}/approve",
        data={"csrf_token": editor.token, "back": "/manage/events/?status=pending"},
    )
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/manage/events/?status=pending"
    page = editor.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Approved and published: Swap shop." in page and "Book club" in page
    for elsewhere in ("https://evil.example/manage/events/", "//evil.example/", "/manage/"):
        answer = editor.post(
            f"/manage/events/{ids[1]}/approve", data={"csrf_token": editor.token, "back": elsewhere}
        )
        assert answer.headers["Location"] == "/manage/", elsewhere


def test_a_contributors_own_lists_show_a_series_once(sign_in):
    """Found by a fresh-clone check: a contributor's weekly series of four was four rows in
    "Waiting for review" and in their event list. Those lists show it once, as "Pending
    review" does; an editor's event list keeps a row for each date (each may be edited
    alone)."""
    contributor = sign_in("contributor", "cyd")
    form = {
        "csrf_token": contributor.token,
        "start_date": f"{DAY}T18:00",
        "end_date": f"{DAY}T20:00",
        "timezone": "UTC",
        "repeat_freq": "WEEKLY",
        "repeat_count": "4",
    }
    for title, status in (("Atelier couture", "pending"), ("Chorale", "draft")):
        answer = contributor.post(
            "/manage/events/new", data={**form, "title": title, "status": status}
        )
        assert answer.status_code == 303
    dashboard = contributor.get("/manage/").get_data(as_text=True)
    sections = dict(
        re.findall(r'<h2 id="section-\d+">([^<]+)</h2>(.*?)</section>', dashboard, re.S)
    )
    assert sections["Waiting for review"].count("Atelier couture") == 1
    assert sections["My drafts"].count("Chorale") == 1
    for path in ("/manage/events/", "/manage/events/?status=pending"):
        assert contributor.get(path).get_data(as_text=True).count(">Atelier couture<") == 1, path
    past = contributor.get("/manage/events/?past=1").get_data(as_text=True)
    assert "Atelier couture" not in past
    editor = sign_in("editor", "eve")
    listed = editor.get("/manage/events/?status=pending").get_data(as_text=True)
    assert listed.count(">Atelier couture<") == 4


def test_my_upcoming_events_show_a_series_once_by_its_next_date(app, sign_in):
    """Found by using the editor: "My upcoming events" listed every date of a weekly series
    (twenty rows of one class), where the other lists show it once. It shows the series'
    next date: after the first has ended, the second."""
    author = sign_in("author", "ada")
    weekly = event_form(author, DAY, title="Yoga", repeat_freq="WEEKLY", repeat_count="4")
    assert author.post("/manage/events/new", data=weekly).status_code == 303
    single = event_form(author, DAY, title="Concert")
    assert author.post("/manage/events/new", data=single).status_code == 303

    def upcoming():
        dashboard = author.get("/manage/").get_data(as_text=True)
        sections = dict(
            re.findall(r'<h2 id="section-\d+">([^<]+)</h2>(.*?)</section>', dashboard, re.S)
        )
        return sections["My upcoming events"]

    shown = upcoming()
    assert shown.count("Yoga") == 1 and shown.count("Concert") == 1
    with app.app_context(), database.connection_context():
        first, second = Event.select().where(Event.title == "Yoga").order_by(Event.utc_start)[:2]
    assert f"/manage/events/{first.id}" in shown
    clock.advance(((DAY - clock.utcnow().date()).days + 1) * 86400)  # past the first date
    shown = upcoming()
    assert shown.count("Yoga") == 1 and f"/manage/events/{second.id}" in shown
    assert "Concert" not in shown
