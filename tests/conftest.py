"""Fixtures: a fresh app on a database of its own per test (a temporary SQLite file, or a
PostgreSQL database under ``make test-postgres``: tests/databases.py), and users of every
role."""

import base64

import pytest

from app import create_app
from store.db import database
from store.users import create_user
from tests.conformance import ConformingClient
from tests.databases import per_test_database

NS = "/wp-json/calendar/events/v1"


@pytest.fixture
def database_url(tmp_path):
    """The ``CALENDAR_DATABASE`` of this test's own (new or emptied) database."""
    return per_test_database(tmp_path)


@pytest.fixture
def app(tmp_path, database_url):
    app = create_app(
        {
            "CALENDAR_DATABASE": database_url,
            "UPLOAD_FOLDER": str(tmp_path / "uploads"),
            "TESTING": True,
        }
    )
    app.test_client_class = ConformingClient
    yield app
    if not database.is_closed():
        database.close()
    app.extensions["calendar.db"].close_all()


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
