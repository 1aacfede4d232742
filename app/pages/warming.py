"""What a worker's first pages would pay, paid before it serves (gunicorn.conf.py's
``post_worker_init``): the templates compiled (the default language's), the default
language's Babel data and the zone names loaded, the month grid's statements compiled
(once per process) and prepared on a connection of the pool. Without it the first
visitors of each worker waited for all of that (a worker's first list page took 160 ms of
CPU where the next took 5; p99 of a run's first requests 450–950 ms through gunicorn)."""

from __future__ import annotations

import logging
from datetime import timedelta
from urllib.parse import urlsplit

from app.i18n import templates_in
from app.pages.reading import site_today

# The pages' templates, compiled by Jinja on their first use.
TEMPLATES = (
    "base.html",
    "macros.html",
    "list.html",
    "month.html",
    "day.html",
    "event.html",
    "linked.html",
    "embed.html",
    "error.html",
)
# Months asked: a grid has five or six weeks, each its own statement; three months in a
# row hold both lengths but when a February of four weeks falls among them.
MONTHS = 3

log = logging.getLogger(__name__)


def warm_up(app) -> None:
    """Asks the app, as a visitor would, for the list view, this month and the next two,
    the first listed event's page, and a search (on SQLite its first reads which letters
    the text index folds otherwise: store/db.py::_fts_misfolds, 0.2 s). Never stops a
    worker: a failure is logged."""
    try:
        templates = templates_in(app, app.config["DEFAULT_LANGUAGE"])
        for name in TEMPLATES:
            templates.get_template(name)
        client = app.test_client()
        client.get("/events/")
        with app.app_context():  # the site's today, not the machine's
            month = site_today().replace(day=1)
        for _n in range(MONTHS):
            client.get(f"/events/month/{month:%Y-%m}/")
            month = (month + timedelta(days=31)).replace(day=1)
        listed = client.get(f"{app.config['NAMESPACE_URL']}/events?per_page=1").get_json()
        client.get(f"{app.config['NAMESPACE_URL']}/events?per_page=1&search=calendar")
        for event in (listed or {}).get("events", [])[:1]:
            client.get(urlsplit(event["url"]).path)
    except Exception:  # noqa: BLE001 - a warm-up that fails leaves the first visitor to pay
        log.exception("warming the pages up failed")
