"""chk17r: JSON API error bodies against the reference (SPEC §4-§6, §12)."""

from tests.conftest import NS

S = {"title": "x", "start_date": "2027-01-10 10:00", "end_date": "2027-01-10 11:00"}
UNTIL_BEFORE = ["RRULE:FREQ=DAILY;UNTIL=20270101T000000Z"]
EXDATE_START = ["RRULE:FREQ=DAILY;COUNT=3", "EXDATE:20270110T100000Z"]


def _count(client, admin):
    return client.get(f"{NS}/events?status=any&start_date=2000-01-01&end_date=2100-01-01", headers=admin).get_json()["total"]


def test_anonymous_create_until_before_start_is_400(client, admin):
    # SPEC §5: a malformed request is a 400 even when anonymous (no stored item on create)
    r = client.post(f"{NS}/events", json={**S, "recurrence": UNTIL_BEFORE})
    assert r.status_code == 400, r.get_json()
    body = r.get_json()
    assert body["code"] == "rest_invalid_param"
    assert list(body["data"]["params"]) == ["recurrence"]
    assert _count(client, admin) == 0


def test_anonymous_create_exdate_of_the_start_is_400(client, admin):
    r = client.post(f"{NS}/events", json={**S, "recurrence": EXDATE_START})
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["code"] == "rest_invalid_param"
    assert list(r.get_json()["data"]["params"]) == ["recurrence"]


def test_until_before_start_named_with_other_bad_params(client, admin):
    r = client.post(f"{NS}/events", json={**S, "recurrence": UNTIL_BEFORE, "website": "nope"}, headers=admin)
    assert r.status_code == 400
    params = r.get_json()["data"]["params"]
    assert set(params) == {"website", "recurrence"}, params
    assert r.get_json()["message"] == "Invalid parameter(s): website, recurrence"


def test_exdate_of_the_start_named_with_other_bad_params(client, admin):
    r = client.post(f"{NS}/events", json={**S, "recurrence": EXDATE_START, "website": "nope"}, headers=admin)
    assert r.status_code == 400
    assert set(r.get_json()["data"]["params"]) == {"website", "recurrence"}, r.get_json()
