"""Absolute URLs: the site's address (``SITE_URL`` when set, else the request's own scheme
and host, then the path the calendar is served under), and paths joined to it."""

from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import current_app, request
from werkzeug.routing import IntegerConverter
from werkzeug.sansio.utils import get_host

from app.errors import REFUSED
from app.i18n import MOUNT_KEY

# Werkzeug's ``host_url`` re-derives the IRI from the headers on every call; a request's
# scheme and host map to one answer, so the answer is kept (a bounded number of hosts).
_HOST_URLS: dict[tuple, str] = {}
_HOST_URLS_MAX = 64
# A request's own answers, kept in its WSGI environ: asked by the render context, the
# listing's links and the namespace URL of the same request.
_SITE, _NAMESPACE = "calendar.site_url", "calendar.namespace_url"
# The namespace the client asked in, when it is the plugin's (``NamespaceAlias``).
ASKED_NAMESPACE = "calendar.asked_namespace"
TEC_NAMESPACE = "tribe/events/v1"


def named_host(scheme: str, host: str) -> str:
    """``host`` (a Host header, or SITE_URL's authority) as Werkzeug reads it, or "" when it
    names no host: a character no host has (a space, a quote, ``<``), a port that is empty,
    0 or past 65535, or an empty label (``a..b``, ``.org``: no name DNS can hold). The one
    rule of the Host check and of SITE_URL, so that no link is made on what it refuses."""
    named = get_host(scheme, host)
    if named.startswith("["):  # an IPv6 address: Werkzeug has read it whole
        return named
    labels = named.partition(":")[0].removesuffix(".").split(".")
    return "" if "" in labels else named


class CheckedHost:
    """WSGI middleware: a Host header that names no host never makes a link (``site_url``
    then uses the server's own name). An empty one is what HTTP asks of a target without
    an authority; any other that Werkzeug reads as no host (a space, a quote, ``%``, a
    port that is empty or past 65535), and an HTTP/1.1 request without one (but a probe of
    ``/healthz``), is a 400 (RFC 9112 §3.2), as gunicorn's refusals are
    (``app.errors.REFUSED``). Runs first."""

    def __init__(self, wsgi_app):
        self.wsgi_app = wsgi_app

    def __call__(self, environ, start_response):
        host = environ.get("HTTP_HOST")
        if host is None:
            # /healthz answers a load balancer's probe however it is written (SPEC §8).
            if (
                environ.get("SERVER_PROTOCOL") == "HTTP/1.1"
                and environ.get("PATH_INFO") != "/healthz"
            ):
                environ.setdefault(REFUSED, 400)  # gunicorn's own refusal says more
        elif not named_host(environ.get("wsgi.url_scheme", "http"), host):
            del environ["HTTP_HOST"]
            if host.strip():
                environ.setdefault(REFUSED, 400)
        return self.wsgi_app(environ, start_response)


class MountedAt:
    """WSGI middleware: the calendar served below a path (Flask's ``APPLICATION_ROOT``,
    ``/blog``: the address of a WordPress that was on a sub-path, whose links and API
    clients keep it). That path moves from ``PATH_INFO`` into ``SCRIPT_NAME``, so routing is
    the same and every link keeps it; an address outside it is a 404 of the app's own
    (``app.errors.REFUSED``), as under gunicorn's ``SCRIPT_NAME`` (app/server.py). Runs
    first."""

    def __init__(self, wsgi_app, config):
        self.wsgi_app = wsgi_app
        self.config = config  # read on each request: a test mounts the app elsewhere

    def __call__(self, environ, start_response):
        root = self.config["APPLICATION_ROOT"].rstrip("/")
        # A server that mounted the app there itself (its SCRIPT_NAME) has moved it already.
        if root and environ.get("SCRIPT_NAME", "").rstrip("/") != root:
            path = environ.get("PATH_INFO", "")
            if path == root or path.startswith(root + "/"):
                environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + root
                environ["PATH_INFO"] = path[len(root) :] or "/"
            else:
                environ.setdefault(REFUSED, 404)
        return self.wsgi_app(environ, start_response)


class NamespaceAlias:
    """WSGI middleware: ``{api_root}/tribe/events/v1/…`` is served by the route of
    ``{api_root}/calendar/events/v1/…`` (``TEC_NAMESPACE_ALIAS``), and the request remembers
    the namespace it was asked in, so that every link it answers (``namespace_url``) stays
    there. Runs after ``LanguageRoots``, on the path without its language."""

    def __init__(self, wsgi_app, api_root: str, namespace: str, alias: str = TEC_NAMESPACE):
        self.wsgi_app = wsgi_app
        self.alias_prefix = f"{api_root}/{alias}"
        self.own_prefix = f"{api_root}/{namespace}"
        self.alias = alias

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        prefix = self.alias_prefix
        if path.startswith(prefix) and path[len(prefix) : len(prefix) + 1] in ("", "/"):
            environ["PATH_INFO"] = self.own_prefix + path[len(prefix) :]
            environ[ASKED_NAMESPACE] = self.alias
        return self.wsgi_app(environ, start_response)


# The addresses of WordPress's front controller: the site's root, and ``index.php`` named.
ROOTS = ("", "/", "/index.php")


class RestRoute:
    """WSGI middleware: WordPress's address of the REST API without pretty permalinks,
    ``/?rest_route=/tribe/events/v1/events&page=2``, is served as
    ``{api_root}/tribe/events/v1/events?page=2``; at ``/index.php?rest_route=…`` too, the
    form WordPress's own ``get_rest_url()`` writes there (its ``Link`` header and the
    plugin's ``rest_url`` values: what clients kept). Runs after ``LanguageRoots``, before
    ``NamespaceAlias``."""

    def __init__(self, wsgi_app, api_root: str):
        self.wsgi_app = wsgi_app
        self.api_root = api_root

    def __call__(self, environ, start_response):
        query = environ.get("QUERY_STRING", "")
        if environ.get("PATH_INFO", "") in ROOTS and "rest_route=" in query:
            # WSGI's strings are latin-1 of the bytes: kept so, the route as a PATH_INFO.
            pairs = parse_qsl(query, keep_blank_values=True, encoding="latin-1")
            route = next((value for name, value in pairs if name == "rest_route"), None)
            if route is not None:
                route = "/" + route.strip("/")
                environ["PATH_INFO"] = (self.api_root + route).rstrip("/")
                rest = [(name, value) for name, value in pairs if name != "rest_route"]
                environ["QUERY_STRING"] = urlencode(rest, encoding="latin-1")
        return self.wsgi_app(environ, start_response)


class MethodOverride:
    """WSGI middleware: a ``POST`` to the API that names another method, in ``?_method=``
    or in the ``X-HTTP-Method-Override`` header, is served as that method, as WordPress's
    REST server does (clients behind proxies that refuse ``DELETE`` or ``PUT`` send them
    so). Only a ``POST``: a link or an image's ``GET`` never writes. Runs after
    ``RestRoute``."""

    def __init__(self, wsgi_app, api_root: str):
        self.wsgi_app = wsgi_app
        self.prefix = api_root + "/"

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") == "POST" and environ.get("PATH_INFO", "").startswith(
            self.prefix
        ):
            named = _named_method(environ)
            if named:
                environ["REQUEST_METHOD"] = named
        return self.wsgi_app(environ, start_response)


# What a POST may be served as: never HEAD, whose answer has no body the client awaits.
OVERRIDES = ("GET", "PUT", "PATCH", "DELETE")


def _named_method(environ) -> str:
    """The method a request names in ``?_method=`` (its last, as PHP reads a query) or
    ``X-HTTP-Method-Override``, upper-cased; empty when none, or none of ``OVERRIDES``."""
    query = environ.get("QUERY_STRING", "")
    named = ""
    if "_method=" in query:
        pairs = parse_qsl(query, keep_blank_values=True, encoding="latin-1")
        named = next((value for name, value in reversed(pairs) if name == "_method"), "")
    named = (named or environ.get("HTTP_X_HTTP_METHOD_OVERRIDE", "")).strip().upper()
    return named if named in OVERRIDES else ""


def asked_url() -> str:
    """The request's URL as the client asked it: in the plugin's namespace when it asked
    there (``NamespaceAlias``), so that a feed's ``SOURCE`` stays where it was found."""
    url = request.url
    alias = request.environ.get(ASKED_NAMESPACE)
    if alias:
        url = url.replace(f"/{current_app.config['NAMESPACE']}", f"/{alias}", 1)
    return url


def asked_namespace() -> str:
    """The namespace of the request's address: ours, or the plugin's alias of it."""
    return request.environ.get(ASKED_NAMESPACE) or current_app.config["NAMESPACE"]


# The links of an answer read the request through ``request._get_current_object()``, once
# a function: each attribute read through Flask's proxy looks the context up again (and on
# Python 3.11 makes an AttributeError before the proxy's ``__getattr__`` answers).


def site_url() -> str:
    """The site's address, which every absolute link starts with: ``SITE_URL`` when set,
    else the request's scheme and host, then the path the calendar is served under
    (``/blog``: ``APPLICATION_ROOT`` or a server's ``SCRIPT_NAME``), as WordPress's home
    URL keeps the path of a site on a sub-path. A ``SITE_URL`` that names a path is the
    whole address: a proxy may serve the calendar there while passing it on at the root."""
    environ = request._get_current_object().environ
    found = environ.get(_SITE)
    if found is None:
        found = environ[_SITE] = _site_url(environ)
    return found


def _site_url(environ) -> str:
    return site_address(current_app.config, mount_path(environ), lambda: _host_url(environ))


def site_address(config, mount: str, host_url) -> str:
    """The site's address: ``SITE_URL`` (else ``host_url()``, a scheme and host) and
    ``mount``, the path the calendar is served under; a ``SITE_URL`` that names a path is
    the whole address. The rule of ``site_url`` and of the links the CLI prints."""
    configured = config["SITE_URL"].rstrip("/")
    if configured and urlsplit(configured).path:
        return configured
    return (configured or host_url()) + mount


def _host_url(environ) -> str:
    key = (
        environ.get("wsgi.url_scheme", ""),
        environ.get("HTTP_HOST"),  # None (no Host) is not "" (an empty one)
        environ.get("SERVER_NAME"),
        environ.get("SERVER_PORT"),
    )
    found = _HOST_URLS.get(key)
    if found is None:
        # The host as it was sent (``host_url`` writes a punycode name in Unicode: no URI)
        req = request._get_current_object()
        found = f"{req.scheme}://{req.host.lower()}"
        if len(_HOST_URLS) < _HOST_URLS_MAX:
            _HOST_URLS[key] = found
    return found


def mount_path(environ=None) -> str:
    """The path the calendar is served under (``/blog``, or ""): the request's
    ``SCRIPT_NAME`` without its language root (``LanguageRoots`` notes it)."""
    if environ is None:
        environ = request._get_current_object().environ
    return environ.get(MOUNT_KEY, environ.get("SCRIPT_NAME", ""))


def language_root() -> str:
    """The request's language root (``/fr``, or ""): its ``SCRIPT_NAME`` after the mount
    path."""
    req = request._get_current_object()
    return req.root_path[len(mount_path(req.environ)) :]


def absolute_url(path: str) -> str:
    """A path as the router writes it (``url_for``'s, which starts with the mount path and
    the language root) as an address on the site."""
    return site_url() + path[len(mount_path()) :]


def api_root_url() -> str:
    """The API root under the language root the client used (``…/fr/wp-json``)."""
    return site_url() + language_root() + current_app.config["API_ROOT"]


def namespace_url() -> str:
    environ = request._get_current_object().environ
    found = environ.get(_NAMESPACE)
    if found is None:
        found = environ[_NAMESPACE] = f"{api_root_url()}/{asked_namespace()}"
    return found


def site_host(site: str | None = None) -> str:
    """Host (and path) of the site (``site_url()`` unless given), as in ``global_id``:
    ``example.org?id=12``."""
    parts = urlsplit(site or site_url())
    return (parts.hostname or "") + parts.path.rstrip("/")


class AsciiInt(IntegerConverter):
    """An id in a path: digits 0 to 9, as WordPress's ``\\d+`` reads them (PHP's PCRE), not
    Python's ``\\d``, which takes any script's (``/events/١`` read event 1)."""

    regex = r"[0-9]+"
