"""A gunicorn worker's warm-up (app/pages/warming.py): the pages' first costs paid before it
serves, without changing what any visitor is then answered."""

import logging

from app.i18n import templates_in
from app.pages import warming


def test_warm_up_compiles_the_templates_and_leaves_the_pages_as_they_were(app, client, make_event):
    event = make_event(title="Warmed concert")
    before = {path: client.get(path).data for path in ("/events/", f"/event/{event['slug']}/")}
    warming.warm_up(app)
    compiled = templates_in(app, app.config["DEFAULT_LANGUAGE"])  # what the pages render
    loaded = {template for (_loader, template) in compiled.cache.keys()}
    assert set(warming.TEMPLATES) <= loaded
    for path, body in before.items():
        response = client.get(path)
        assert response.status_code == 200
        assert response.data == body


def test_warm_up_on_an_empty_calendar(app, client):
    warming.warm_up(app)
    assert client.get("/events/").status_code == 200


def test_a_failing_warm_up_is_logged_and_never_stops_the_worker(app, monkeypatch, caplog):
    def broken(*_args, **_kwargs):
        raise RuntimeError("no database")

    monkeypatch.setattr(app, "test_client", broken)
    with caplog.at_level(logging.ERROR, logger="app.pages.warming"):
        warming.warm_up(app)
    assert "warming the pages up failed" in caplog.text


def test_gunicorn_warms_each_worker_up_unless_the_setting_is_off(monkeypatch):
    """gunicorn.conf.py's post_worker_init asks warm_up for the worker's app; with
    GUNICORN_WARM_UP off (the suite's short-lived servers) it does not."""
    import importlib.util
    import os
    from types import SimpleNamespace

    from app import ROOT

    calls = []
    monkeypatch.setattr(warming, "warm_up", calls.append)
    worker = SimpleNamespace(wsgi="the worker's app")
    for value, expected in (("1", ["the worker's app"]), ("0", [])):
        monkeypatch.setenv("GUNICORN_WARM_UP", value)
        spec = importlib.util.spec_from_file_location(
            "gunicorn_conf", os.path.join(ROOT, "gunicorn.conf.py")
        )
        conf = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(conf)
        calls.clear()
        conf.post_worker_init(worker)
        assert calls == expected
