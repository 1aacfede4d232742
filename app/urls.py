"""Absolute URLs: ``SITE_URL`` when set, else the request's own scheme and host."""

from urllib.parse import urlsplit

from flask import current_app, request


def site_url() -> str:
    return (current_app.config["SITE_URL"] or request.host_url).rstrip("/")


def api_root_url() -> str:
    """The API root under the language root the client used (``…/fr/wp-json``)."""
    return site_url() + request.script_root + current_app.config["API_ROOT"]


def namespace_url() -> str:
    return f"{api_root_url()}/{current_app.config['NAMESPACE']}"


def site_host() -> str:
    """Host (and path) of the site, as in ``global_id``: ``example.org?id=12``."""
    parts = urlsplit(site_url())
    return (parts.hostname or "") + parts.path.rstrip("/")
