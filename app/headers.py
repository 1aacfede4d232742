"""The headers every answer of the app carries."""

# Set on every answer by ``StandardHeaders``, outside the response cache, which stores only
# the view's own headers (app/cache.py): a cached answer and a 304 get them as a fresh one does.
STANDARD_HEADERS = (
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
    ("X-Robots-Tag", "noindex"),
    ("Access-Control-Allow-Methods", "OPTIONS, GET, POST, PUT, PATCH, DELETE"),
    (
        "Access-Control-Allow-Headers",
        # WordPress's list (raw uploads send Content-Disposition, SPEC §13), and If-None-Match
        "Authorization, X-WP-Nonce, Content-Disposition, Content-MD5, Content-Type, If-None-Match",
    ),
    (
        "Access-Control-Expose-Headers",
        "X-TEC-Total, X-TEC-TotalPages, X-WP-Total, X-WP-TotalPages, Link, ETag",
    ),
)


def first_value(headers, name: str) -> str | None:
    """The first value of ``name`` among Werkzeug ``headers``, None when there is none:
    through ``getlist``, which does not raise, where ``get`` and ``in`` make and catch a
    KeyError (a BadRequestKeyError, 2 µs) for each name an answer lacks, which most of
    those the hooks ask about are."""
    values = headers.getlist(name)
    return values[0] if values else None


# The public pages are meant to be found (SPEC §15): the same, without noindex.
PAGE_HEADERS = tuple(header for header in STANDARD_HEADERS if header[0] != "X-Robots-Tag")

# The editor's pages are read by no other origin (README, CORS_ORIGINS): no CORS header.
EDITOR_HEADERS = tuple(
    header for header in STANDARD_HEADERS if not header[0].startswith("Access-Control-")
)


# The Content-Security-Policy of each face (SPEC §15, §16), written here once. The pages and
# the editor: their own scripts and styles only, no inline ones, images from anywhere (an
# event's image may be a URL), framed by no one unless a page is embeddable.
_OWN_POLICY = (
    "default-src 'self'; img-src 'self' https: http: data:; style-src 'self'; "
    "script-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors {ancestors}"
)

# /doc/ui: Swagger UI's own script (no inline one), its inline styles, never framed.
DOC_UI_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"
)


def content_security_policy(framed_by: tuple[str, ...] | list[str] = ()) -> str:
    """The policy of the pages and the editor: framed by the origins ``framed_by`` (an
    embeddable page's ``EMBED_ORIGINS``), by none without them."""
    return _OWN_POLICY.format(ancestors=" ".join(framed_by) or "'none'")


def frame_headers(framed_by: tuple[str, ...] | list[str] = ()) -> dict[str, str]:
    """The headers saying who may frame a page: its policy, and for a page framed by no one
    ``X-Frame-Options: DENY`` too, which a browser or proxy that drops CSP still obeys
    (and which scanners look for)."""
    headers = {"Content-Security-Policy": content_security_policy(framed_by)}
    if not framed_by:
        headers["X-Frame-Options"] = "DENY"
    return headers


class StandardHeaders:
    """WSGI middleware adding ``STANDARD_HEADERS`` to every answer of the app (``PAGE_HEADERS``
    to the public pages, ``is_page_path`` of the path after its language root, and
    ``EDITOR_HEADERS`` under ``editor_path``): constants, appended as they are (Werkzeug's
    ``Headers`` would check each value again on every request)."""

    def __init__(self, wsgi_app, is_page_path, editor_path: str):
        self.wsgi_app = wsgi_app
        self.is_page_path = is_page_path
        self.editor_path = editor_path

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        page = self.is_page_path(path)
        editor = path == self.editor_path or path.startswith(self.editor_path + "/")
        if environ.get("REQUEST_METHOD") in ("GET", "HEAD"):
            # A read's preconditions on a change are not ours to answer: a failed one made
            # a static file answer 412 with its own body. ETag and If-None-Match serve.
            environ.pop("HTTP_IF_MATCH", None)
            environ.pop("HTTP_IF_UNMODIFIED_SINCE", None)

        def start(status, headers, exc_info=None):
            # ``/`` is a page for browsers and the JSON index for programs.
            html = path == "/" and any(
                name == "Content-Type" and value.startswith("text/html") for name, value in headers
            )
            if editor:
                headers.extend(EDITOR_HEADERS)
            else:
                headers.extend(PAGE_HEADERS if page or html else STANDARD_HEADERS)
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)
