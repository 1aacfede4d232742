"""Fixtures: the app (one per session, its database emptied after each test: a temporary
SQLite file, or a PostgreSQL database under ``make test-postgres``, tests/databases.py),
and users of every role."""

import base64
import copy
import os
import re
from datetime import date, timedelta

import pytest

from app import create_app
from rules import clock
from store import accounts
from store import db as store_db
from store.db import bind_database, database, write_transaction
from store.models import ALL_TABLES, EventDates, EventDay, Setting
from store.sql import Shaped
from store.users import create_user
from tests.conformance import ConformingClient
from tests.databases import ON_POSTGRES, drop_database, fresh_database
from tests.site_instance import FOLDER as _SITE  # noqa: F401 (the suite's instance folder)

# Every listing query compiled per shape is also built from its values and compared.
Shaped.CHECK = True

NS = "/wp-json/calendar/events/v1"


def pytest_collection_modifyitems(items):
    """Under pytest-xdist's worksteal (``make test``), the tests marked ``slow`` (a minute or
    so each: the fuzz, the random walks) start the run, dealt in turn to each worker's
    first share; the short tests follow and fill its end, where one long test left a
    worker idle while the other finished it. Every test still runs, in the same order
    within each group; a run in one process keeps the collected order."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    slow = [item for item in items if item.get_closest_marker("slow")]
    if workers < 2 or not slow:
        return
    short = [item for item in items if not item.get_closest_marker("slow")]
    ordered, left = [], len(items)
    for worker in range(workers):
        share = left // (workers - worker)  # what worksteal first sends this worker
        mine = slow[worker::workers]
        take = max(share - len(mine), 0)
        ordered += mine + short[:take]
        short, left = short[take:], left - share
    items[:] = ordered + short


@pytest.fixture(scope="session")
def shared_app(tmp_path_factory):
    """One app for the whole session (building one costs ~80 ms); each test gets it with
    its settings restored and its database emptied (`app` below)."""
    folder = tmp_path_factory.mktemp("shared")
    app = create_app(
        {
            "CALENDAR_DATABASE": fresh_database(folder),
            "UPLOAD_FOLDER": str(folder / "uploads"),
            "TESTING": True,
        }
    )
    app.test_client_class = ConformingClient
    yield app, copy.deepcopy(dict(app.config))
    app.extensions["calendar.db"].close_all()
    drop_database(app.config["CALENDAR_DATABASE"])


def _empty_database() -> None:
    """Every row a test may have written, in an order the foreign keys accept; the schema
    version and the data version stay. On PostgreSQL ``TRUNCATE … RESTART IDENTITY``: ids
    start at 1 again, as they do in an emptied SQLite table."""
    with database.connection_context(), write_transaction():
        if ON_POSTGRES:
            tables = ", ".join(
                f'"{model._meta.table_name}"'
                for model in (
                    *ALL_TABLES,
                    EventDay,
                    EventDates,
                )  # TRUNCATE runs no trigger: its counts too
                if model is not Setting
            )
            database.execute_sql(f"TRUNCATE {tables} RESTART IDENTITY CASCADE")
            Setting.delete().where(Setting.key.not_in(("schema_version", "data_version"))).execute()
            return
        for model in reversed(ALL_TABLES):
            if model is Setting:
                Setting.delete().where(
                    Setting.key.not_in(("schema_version", "data_version"))
                ).execute()
            else:
                model.delete().execute()


@pytest.fixture
def database_url(app):
    """The ``CALENDAR_DATABASE`` of the test's (emptied) database."""
    return app.config["CALENDAR_DATABASE"]


@pytest.fixture
def app(shared_app, tmp_path):
    app, settings = shared_app
    app.config.clear()
    app.config.update(copy.deepcopy(settings))
    app.config["UPLOAD_FOLDER"] = str(tmp_path / "uploads")
    app.extensions["calendar.cache"].clear()
    bind_database(app.extensions["calendar.db"])  # the CLI and the store use what is bound
    yield app
    clock.reset()
    store_db._contended = False  # the next test's writes decide first (write_decided)
    if not database.is_closed():
        database.close()
    bind_database(app.extensions["calendar.db"])
    _empty_database()


@pytest.fixture
def fresh_app(tmp_path):
    """An app of its own, for tests that change what the shared one cannot (its routes)."""
    setting = fresh_database(tmp_path, "own.db")
    app = create_app({"CALENDAR_DATABASE": setting, "UPLOAD_FOLDER": str(tmp_path / "up")})
    app.test_client_class = ConformingClient
    yield app
    if not database.is_closed():
        database.close()
    app.extensions["calendar.db"].close_all()
    drop_database(setting)


@pytest.fixture
def client(app):
    return app.test_client()


def basic(login: str, password: str) -> dict:
    token = base64.b64encode(f"{login}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.fixture
def as_role(app):
    """``as_role("editor")`` makes (once) a user with that role and returns its headers."""
    made = {}

    def make(role: str, name: str | None = None) -> dict:
        name = name or role
        if name not in made:
            with database.connection_context():
                user, password = create_user(name, role)
            made[name] = (user.id, basic(name, password))
        return made[name][1]

    make.user_id = lambda name: made[name][0]
    return make


@pytest.fixture
def admin(as_role):
    return as_role("administrator")


@pytest.fixture
def make_event(client, admin):
    def make(headers=None, **fields):
        body = {"title": "An event", "start_date": "tomorrow 10am", "end_date": "tomorrow 12pm"}
        body.update(fields)
        response = client.post(f"{NS}/events", json=body, headers=headers or admin)
        assert response.status_code == 201, response.get_json()
        return response.get_json()

    return make


def forget_listings(app) -> None:
    """The response cache and the listings' kept totals and first ids emptied, and the
    worker's lease of the data version ended (PostgreSQL: store/db.py::_leased_version):
    the next listing is read as if asked for the first time, whatever the time between."""
    from store import db, events

    db._lease = (None, None, 0.0)
    app.extensions["calendar.cache"].clear()
    events._totals.entries.clear()
    events._first_ids.entries.clear()


def forget_all(app) -> None:
    """Every per-version memo (event texts included) and every kept listing emptied: the
    answer as the first request after a restart would get it."""
    from app import render
    from store import memo

    memo.MEMO.state = (None, {})
    render._MEMO.state = (None, {})
    render.EVENT_TEXTS.state = (None, {})
    forget_listings(app)


def strip_page_urls(body):
    """A JSON body without its page URLs (which carry each request's own ``_=N``)."""
    if isinstance(body, dict):
        return {
            k: strip_page_urls(v) for k, v in body.items() if k not in ("rest_url", "next_rest_url")
        }
    if isinstance(body, list):
        return [strip_page_urls(v) for v in body]
    return body


@pytest.fixture(params=["APPLICATION_ROOT", "SCRIPT_NAME", "SITE_URL's path"])
def under_blog(request, app, client):
    """The calendar served under /blog (docs/deploy.md, "Under a path") in each way a site
    is: Flask's ``APPLICATION_ROOT`` with a ``SITE_URL`` of scheme and host, a server's own
    ``SCRIPT_NAME`` (gunicorn's), and a ``SITE_URL`` that names the path itself.
    ``under_blog(path, method="GET", **kw)`` asks an address as a browser writes it
    (``/blog/…``)."""
    way = request.param
    app.config["SITE_URL"] = "http://localhost" + ("/blog" if way == "SITE_URL's path" else "")
    if way != "SCRIPT_NAME":
        app.config["APPLICATION_ROOT"] = "/blog"
    forget_all(app)

    def ask(path, method="GET", **kw):
        assert path.startswith("/blog/"), path
        if way == "SCRIPT_NAME":  # the server moved /blog into SCRIPT_NAME before the app
            path, base = path.removeprefix("/blog"), "http://localhost/blog/"
        else:
            base = "http://localhost/"
        return client.open(path, method=method, base_url=base, **kw)

    return ask


@pytest.fixture
def calendar(client, admin, make_event):
    """Events of every shape a text holds: all-day, other zones, costs, own and default
    websites, an uploaded and a remote image, several venues, organizers, terms whose names
    sort otherwise than their ids, a series, an imported event, HTML and non-ASCII texts."""
    from tests.helpers import image_bytes, uploaded  # helpers import this module

    image = uploaded(client, admin, image_bytes())
    venues = [
        client.post(f"{NS}/venues", json={"venue": name, "city": "Lyon"}, headers=admin).get_json()[
            "id"
        ]
        for name in ("Salle B", "Salle A")
    ]
    organizer = client.post(
        f"{NS}/organizers", json={"organizer": "Orga", "email": "o@example.org"}, headers=admin
    ).get_json()["id"]
    categories = [
        client.post(f"{NS}/categories", json={"name": name}, headers=admin).get_json()["id"]
        for name in ("Zeta", "alpha", "Mid")
    ]
    tag = client.post(f"{NS}/tags", json={"name": "Été"}, headers=admin).get_json()["id"]
    made = [
        make_event(title="Plain"),
        make_event(
            title="Café <b>&amp;</b> “quotes” \\ \n newline",
            description="<p>Un <em>été</em> 🎉</p>",
            excerpt="Court",
            all_day=True,
            cost="10 - 20 €",
            website="https://example.org/x?a=1&b=2",
            image=image["id"],
            venue=venues,
            organizer=[organizer],
            categories=categories,
            tags=[tag],
            featured=True,
            sticky=True,
        ),
        make_event(
            title="Tokyo",
            timezone="Asia/Tokyo",
            cost="0",
            image="https://cdn.example.org/a/b.png?v=2",
            venue=venues[0],
        ),
        make_event(title="Series", recurrence="RRULE:FREQ=WEEKLY;COUNT=4", cost="5"),
        make_event(title="Draft", status="draft"),
        make_event(title="Secret", password="pw"),
    ]
    ics = (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\nBEGIN:VEVENT\r\n"
        "UID:origin-1@example.org\r\nDTSTAMP:20260101T000000Z\r\n"
        "DTSTART:20270105T100000Z\r\nDTEND:20270105T110000Z\r\nSUMMARY:Imported\r\n"
        "END:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    imported = client.post(
        f"{NS}/events/import?status=publish",
        data=ics,
        headers={**admin, "Content-Type": "text/calendar"},
    )
    assert imported.status_code == 200, imported.get_json()
    return made


# --- the editor (SPEC §16) ---------------------------------------------------------------

PASSWORD = "correct horse battery"


def csrf(html: str) -> str:
    return re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)


@pytest.fixture
def sign_in(app, as_role):
    """``sign_in(role)``: a client of its own, signed in as a user of that role (its
    password set through a one-time link, as a new user does)."""

    def make(role: str, name: str | None = None):
        name = name or role
        as_role(role, name)
        with app.app_context(), database.connection_context():
            token = accounts.login_link_token(name)
        client = app.test_client()
        form = client.get(f"/manage/set-password/{token}").get_data(as_text=True)
        answer = client.post(
            f"/manage/set-password/{token}",
            data={"csrf_token": csrf(form), "password": PASSWORD, "password_again": PASSWORD},
        )
        assert answer.status_code == 303
        client.token = csrf(client.get("/manage/").get_data(as_text=True))
        return client

    return make


# The day of the editor's test events, taken once: a suite that runs past midnight must not
# give one test two different days (a form's start and its weekly day of another date).
FORM_DAY = date.today() + timedelta(days=5)


def event_form(client, day: date | None = None, **fields) -> dict:
    """The editor's new-event form as a browser sends it (``client`` signed in by
    ``sign_in``): an hour-long evening event in five days, ``fields`` changed."""
    day = day or FORM_DAY
    data = {
        "csrf_token": client.token,
        "title": "Choir rehearsal",
        "start_date": f"{day}T19:00",
        "end_date": f"{day}T21:00",
        "timezone": "UTC",
        "status": "publish",
    }
    data.update(fields)
    return data


def saved_id(answer) -> int:
    """The id of what a form saved, from the edit page its 303 leads to."""
    return int(answer.headers["Location"].split("?")[0].rstrip("/").split("/")[-1])


# A database of its own, migrated by the command line, for a test that starts servers or
# commands on it (tests.helpers.Server, flask_cli), and an administrator's Basic
# credentials made there. Named apart from the functions: `database` is the store's.
@pytest.fixture(name="database")
def _served_database(tmp_path):
    from tests.helpers import migrated_database  # helpers import this module

    yield from migrated_database(tmp_path)


@pytest.fixture(name="admin_auth")
def _served_admin(database):
    from tests.helpers import new_admin

    return new_admin(database)
