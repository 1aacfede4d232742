"""Schemathesis over the service's own /doc, in-process through the WSGI app, each case
sent as an anonymous caller and as an administrator: no 5xx, and every response conforms to its
documented status codes, content type and schema. Bounded so the suite stays quick."""

import base64
import os

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from app import create_app
from store.db import database
from store.users import create_user
from tests.databases import drop_database, fresh_database

NS = "/wp-json/calendar/events/v1"
# Enough examples per operation and mode to find an update that sends no known field
# (the term-update 500 that 8 examples missed); FUZZ_EXAMPLES raises it for a deeper run.
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "30"))
ONLY = os.environ.get("FUZZ_ONLY", "")  # a path fragment: fuzz only the matching operations
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    setting = fresh_database(folder)
    app = create_app(
        {
            "CALENDAR_DATABASE": setting,
            "UPLOAD_FOLDER": str(folder / "uploads"),
            "AUTH_FAILURE_LIMIT": 10**9,
        }
    )
    with database.connection_context():
        _user, password = create_user("fuzzer", "administrator")
    token = base64.b64encode(f"fuzzer:{password}".encode()).decode()
    app.config["FUZZ_AUTH"] = {"Authorization": f"Basic {token}"}
    client = app.test_client()
    for n in range(3):
        client.post(
            f"{NS}/events",
            json={
                "title": f"Seed {n}",
                "start_date": "tomorrow 9am",
                "end_date": "tomorrow 10am",
                "venue": {"venue": f"Hall {n}"},
                "organizer": [{"organizer": f"Org {n}"}],
                "categories": "Music",
                "tags": "live",
            },
            headers=app.config["FUZZ_AUTH"],
        )
    yield app
    app.extensions["calendar.db"].close_all()
    drop_database(setting)


def _operations(app):
    schema = schemathesis.openapi.from_wsgi(f"{NS}/doc", app)
    return [result.ok() for result in schema.get_all_operations()]


def _exercise(operation, callers, mode):
    """Each generated case is sent as every caller in turn: generating a case is most of
    the fuzz's time, so the callers share the cases rather than each drawing its own."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None
    )
    def run(case):
        for headers in callers:  # a failure's "Reproduce with" shows the caller's header
            case.call_and_validate(checks=CHECKS, headers=headers)

    try:
        run()
    except Unsatisfiable:
        # Some operations have no input that can be made invalid (no parameters, or only
        # a path id): there is no negative case to send.
        assert mode is GenerationMode.NEGATIVE


# The operations are fuzzed in PARTS tests (every PARTS-th operation each), so that the
# suite's processes share them.
PARTS = 4


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
def test_every_operation_conforms_to_the_document(fuzz_app, part):
    callers = [None, fuzz_app.config["FUZZ_AUTH"]]  # anonymous, then the administrator
    operations = _operations(fuzz_app)
    assert len(operations) >= 40
    for operation in operations[part::PARTS]:
        if ONLY and ONLY not in operation.path:
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _exercise(operation, callers, mode)
