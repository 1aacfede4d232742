"""Reading a site of The Events Calendar for ``import-tec`` (app/tec_import.py): its REST
API's JSON answers, asked again on 429 and 5xx, bounded in size and time, with redirects to
http(s) only, and the account's credentials sent to the site itself only (never to another
host, never after a fall from https to http).

Whatever the source answers, a problem is a ``SourceError``: one line, printable."""

from __future__ import annotations

import base64
import email.utils
import http.client
import ipaddress
import itertools
import re
import socket
import time
import urllib.error
import urllib.request
from functools import partial
from http.client import HTTPException, IncompleteRead
from urllib.parse import quote, urlencode, urljoin, urlsplit, urlunsplit

import orjson

from rules.text import is_web_url

NAMESPACE = "tribe/events/v1"
PER_PAGE = 50  # the plugin's largest page
MAX_ANSWER_BYTES = 32 * 1024 * 1024
ANSWER_SECONDS = 120  # the longest one answer may take to arrive, however slowly it drips
MAX_REDIRECTS = 5
TIMEOUT = 30
MAX_PAGES = 10_000  # of one listing, whatever it announces
POST_STATUSES = "publish,future,draft,pending,private"  # what wp/v2 lists to an editor
# 429 and 5xx answers are asked again, this many times, waiting 1, 2, 4… seconds (or what
# Retry-After says, at most RETRY_AFTER_MAX).
RETRIES = 5
RETRY_AFTER_MAX = 120
MAX_URL = 2000
USER_AGENT = "events-calendar-import-tec/1.0"
# What PHP may print before an answer's JSON: read past at most this many bytes, trying at
# most this many brackets.
LEADING_NOISE = 16 * 1024
NOISE_TRIES = 16
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def _retried(status: int) -> bool:
    """Whether an answer is asked again (SPEC §17: the source's 429 and 5xx answers, a
    proxy's 520-524 for a slow or unreachable site included)."""
    return status == 429 or 500 <= status <= 599


class _CutOff(Exception):
    """The answer stopped before its end (the connection dropped), or did not come within
    TIMEOUT (a busy site): asked again."""


class SourceError(Exception):
    """Why the source cannot be read: said as one ``Error:`` line."""

    def __init__(self, message: str):
        super().__init__(printable(message))


class PastTheEnd(SourceError):
    """A listing's page past its last: the plugin's 404 ``*-archive-page-not-found`` (or
    WordPress's 400 ``rest_post_invalid_page_number``)."""


class Refused(SourceError):
    """The site answered 401 or 403: it refused the caller (the credentials, or anyone
    without them)."""


def printable(text: str) -> str:
    """``text`` without control characters (a source's words reach the operator's
    terminal: no escape sequence, no line of its own)."""
    return _UNPRINTABLE.sub("?", str(text))


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


class _Redirects(urllib.request.HTTPRedirectHandler):
    """At most MAX_REDIRECTS, http(s) only; the credentials do not follow a redirect to
    another origin (another host, port or scheme); a request's ``guard`` (Source.fetch),
    given each target, refuses one by saying why."""

    max_redirections = MAX_REDIRECTS

    def http_error_302(self, req, fp, code, msg, headers):
        target = urljoin(req.full_url, headers.get("location") or headers.get("uri") or "")
        if urlsplit(target).scheme.lower() not in ("http", "https"):
            raise SourceError(f"{req.full_url} redirects to {target}, which is not http(s)")
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        new = super().redirect_request(req, fp, code, msg, headers, newurl)
        if new is None:
            return None
        if _origin(newurl) != _origin(req.full_url):
            new.remove_header("Authorization")
        new.guard = getattr(req, "guard", None)
        refused = new.guard(newurl) if new.guard else None
        if refused:
            raise SourceError(f"{req.full_url} redirects: {refused}")
        return new


def _internal_address(infos: list, own: frozenset[str] = frozenset()) -> str | None:
    """An address of ``socket.getaddrinfo``'s answer that is internal (loopback, private,
    link-local, reserved: of the network the import runs in) and not one of ``own`` (the
    site's own addresses), or None when every one is global or the site's."""
    for info in infos:
        address = info[4][0].split("%", 1)[0]
        if address not in own and not ipaddress.ip_address(address).is_global:
            return address
    return None


class _SiteHost:
    """The host the site is read at, and the addresses its name finds: an image on a host
    of another name at one of those (``127.0.0.1`` for a site read as ``localhost``, the
    IP address of an intranet WordPress read by its name) is on the site itself, not
    inside the network. Looked up once, when first asked."""

    def __init__(self, host: str):
        self.host = host
        self._addresses: frozenset[str] | None = None

    @property
    def addresses(self) -> frozenset[str]:
        if self._addresses is None:
            try:
                infos = socket.getaddrinfo(self.host, None, type=socket.SOCK_STREAM)
            except (OSError, UnicodeError):
                infos = []
            self._addresses = frozenset(info[4][0].split("%", 1)[0] for info in infos)
        return self._addresses


def _checked_connection(site: _SiteHost, address, timeout=None, source_address=None):
    """``socket.create_connection``, to a host other than the site's only at an address
    the same lookup found global or the site's own: the host's name is looked up once, and
    the connection goes where that lookup was checked (a name that answered a global
    address to ``image_url_error`` and an internal one a moment later is not followed
    inside)."""
    host, port = address
    if host.lower() == site.host:
        return socket.create_connection(address, timeout, source_address)
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    if _internal_address(infos, site.addresses):
        raise OSError(f"{host} is on an internal address")
    error: OSError = OSError(f"cannot find the host {host}")
    for family, kind, proto, _name, sockaddr in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.settimeout(timeout)
            if source_address:
                sock.bind(source_address)
            sock.connect(sockaddr)
            return sock
        except OSError as failed:
            sock.close()
            error = failed
    raise error


def _checked(connection_class, site: _SiteHost, host: str, **kwargs):
    """A connection of ``connection_class`` that connects by ``_checked_connection``."""
    connection = connection_class(host, **kwargs)
    connection._create_connection = partial(_checked_connection, site)
    return connection


class _CheckedConnections:
    """A urllib handler whose connections connect by ``_checked_connection``."""

    def __init__(self, site: _SiteHost):
        super().__init__()
        self.site = site

    def _connection(self, connection_class):
        return partial(_checked, connection_class, self.site)


class _CheckedHTTP(_CheckedConnections, urllib.request.HTTPHandler):
    def http_open(self, req):
        return self.do_open(self._connection(http.client.HTTPConnection), req)


class _CheckedHTTPS(_CheckedConnections, urllib.request.HTTPSHandler):
    def https_open(self, req):
        return self.do_open(
            self._connection(http.client.HTTPSConnection), req, context=self._context
        )


class Source:
    """A site's REST API: JSON answers, retried, bounded, with the account's credentials."""

    def __init__(self, site: str, user: str = "", password: str = "", notice=None):
        self._set_site(_site_root(site))
        # Told of each wait before asking again (Retry-After may make it minutes).
        self.notice = notice or (lambda text: None)
        self.auth = _basic(user, password) if user else None
        self.opener = urllib.request.build_opener(_Redirects())
        self.pretty = True  # ``/wp-json/…``; else ``?rest_route=/…`` (plain permalinks)
        self.timezone = ""  # the site's zone, as its REST index names it (``timezone_string``)

    def _set_site(self, site: str) -> None:
        self.site = site
        self.origin = _origin(site)
        self.host = urlsplit(site).netloc
        self.api_root = f"{site}/wp-json"
        self.site_host = (urlsplit(site).hostname or "").lower()  # images from it: any address
        self.own = _SiteHost(self.site_host)
        # A guarded fetch (an image's) also connects only where its check allows.
        self.guarded_opener = urllib.request.build_opener(
            _Redirects(), _CheckedHTTP(self.own), _CheckedHTTPS(self.own)
        )

    def without_credentials(self) -> Source:
        other = Source.__new__(Source)
        other.__dict__.update(self.__dict__)
        other.auth = None
        return other

    def url(self, route: str, params: dict | None = None) -> str:
        query = urlencode(params or {})
        if self.pretty:
            return f"{self.api_root}{route}" + (f"?{query}" if query else "")
        return f"{self.site}/?rest_route={route}" + (f"&{query}" if query else "")

    def fetch(self, url: str, limit: int | None = None, accept="application/json", guard=None):
        """(status, headers, body) of a GET, 429 and 5xx asked again; SourceError when the
        site cannot be reached or its answer is too large (MAX_ANSWER_BYTES unless given)
        or too slow, or when ``guard`` (``image_url_error``) refuses a redirect's target.
        ``self.final_url``: where the answer came from, after redirects."""
        limit = limit or MAX_ANSWER_BYTES
        for attempt in range(RETRIES + 1):
            try:
                status, headers, body = self._get(url, limit, accept, guard)
            except _CutOff as error:
                if attempt == RETRIES:
                    raise SourceError(f"{url}: the answer was cut off ({error})") from None
                self._wait_to_ask_again(
                    url, f"its answer was cut off ({error})", _wait(None, attempt)
                )
                continue
            if not _retried(status) or attempt == RETRIES:
                return status, headers, body
            wait = _wait(headers.get("Retry-After"), attempt)
            self._wait_to_ask_again(url, f"the site answered {status}", wait)
        raise AssertionError("unreachable")

    def _wait_to_ask_again(self, url: str, why: str, seconds: float) -> None:
        self.notice(f"{url}: {why}; asking again in {seconds:g} s")
        pause(seconds)

    def _get(self, url: str, limit: int, accept: str, guard=None):
        url = _requoted(url)
        request = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": USER_AGENT})
        request.guard = guard
        if self.auth and _origin(url) == self.origin:
            request.add_header("Authorization", self.auth)
        try:
            opener = self.guarded_opener if guard else self.opener
            with opener.open(request, timeout=TIMEOUT) as response:
                self.final_url = response.geturl()
                return response.status, response.headers, _read(response, limit, url)
        except urllib.error.HTTPError as error:
            if error.code in (301, 302, 303, 307, 308):
                raise SourceError(
                    f"{url} redirects in a loop (more than {MAX_REDIRECTS})"
                ) from None
            with error:
                self.final_url = error.geturl() or url
                try:
                    return error.code, error.headers, _read(error, limit, url)
                except TimeoutError:  # the error's body stopped coming: asked again too
                    raise _CutOff(f"nothing came for {TIMEOUT} s") from None
                except IncompleteRead as cut:
                    raise _CutOff(f"{len(cut.partial):,} bytes came") from None
        except urllib.error.URLError as error:
            reason = getattr(error, "reason", error)
            if isinstance(reason, TimeoutError):
                raise _CutOff(f"no answer within {TIMEOUT} s") from None
            raise SourceError(f"cannot reach {url}: {reason}") from None
        except IncompleteRead as error:  # a chunked answer that stops before its end
            raise _CutOff(f"{len(error.partial):,} bytes came") from None
        except TimeoutError:  # the answer began, then nothing came for TIMEOUT seconds
            raise _CutOff(f"nothing came for {TIMEOUT} s") from None
        except (HTTPException, OSError, ValueError) as error:
            raise SourceError(f"cannot read {url}: {error or type(error).__name__}") from None

    def json(self, url: str):
        status, _headers, body = self.fetch(url)
        if status in (401, 403):
            raise Refused(f"{url} answered {status}: the site refused the credentials")
        if status in (400, 404) and _past_the_end(body):
            raise PastTheEnd(f"{url} answered {status}{_said(body)}")
        if status != 200:
            raise SourceError(f"{url} answered {status}{_said(body)}")
        try:
            return loads(body)
        except orjson.JSONDecodeError:
            raise SourceError(
                f"{url} did not answer JSON (its answer begins {printable(body[:60].decode('utf-8', 'replace'))!r}): "
                "a plugin or theme of the site may write into its REST answers; run it again once fixed"
            ) from None

    def check(self) -> None:
        """The site is WordPress, runs the plugin's REST API, and takes the credentials.
        WordPress's root index (``/wp-json/``) names the plugin's namespace; a site that
        hides that index (a security plugin's setting) or serves one without
        ``namespaces`` is read all the same when the plugin's own namespace answers: SPEC
        §17 reads the plugin's routes, not the index."""
        index = self._index()
        namespaces = index.get("namespaces") if isinstance(index, dict) else None
        if isinstance(namespaces, list):
            if NAMESPACE not in namespaces:
                raise SourceError(
                    f"{self.site} runs WordPress but not The Events Calendar's REST API "
                    f"(no {NAMESPACE} among its namespaces)"
                )
            zone = index.get("timezone_string")
            self.timezone = zone if isinstance(zone, str) and len(zone) <= 64 else ""
        elif not self._namespace_answers():
            where = "no REST API index" if index is not None else "no REST API at /wp-json/"
            raise SourceError(f"{self.site} is not a WordPress site ({where})")
        if self.auth:
            self._check_credentials()

    def _check_credentials(self) -> None:
        """WordPress's ``users/me`` says whether the account is signed in (a site that
        ignores the credentials, application passwords being off, answers it 401). A site
        without that route (a 404 ``rest_no_route``: a security plugin removed the users'
        routes) refuses credentials as WordPress does on every route, 401 or 403: the
        plugin's own listing is asked then, and only those mean refused."""
        for url in (self.url("/wp/v2/users/me"), self.url(f"/{NAMESPACE}/events", {"per_page": 1})):
            status, _headers, body = self.fetch(url)
            if status in (401, 403):
                raise SourceError(
                    f"{url} answered {status}{_said(body)}: the site refused the user name "
                    "and application password"
                )
            if status == 200:
                return

    def _index(self):
        """WordPress's REST index (``/wp-json/``, or ``?rest_route=/`` without pretty
        permalinks), or None when neither answers JSON."""
        return self._answer_at("/", lambda answer: True)

    def _namespace_answers(self) -> bool:
        """Whether the plugin's namespace index (``/wp-json/tribe/events/v1``) answers as
        WordPress's index of a namespace does."""
        found = self._answer_at(
            f"/{NAMESPACE}",
            lambda answer: isinstance(answer, dict) and answer.get("namespace") == NAMESPACE,
        )
        return found is not None

    def _answer_at(self, route: str, fits):
        """The JSON answer of ``route`` that ``fits``, read pretty (``/wp-json/…``) or
        plain (``?rest_route=``), whichever answers: the site is read that way from then
        on. None when neither does; a refusal of the caller stops the run."""
        for pretty in (True, False):  # plain permalinks: the API is at ?rest_route=
            self.pretty = pretty
            url = self.url(route)
            status, _headers, body = self.fetch(url)
            if status in (401, 403) and self.auth:
                raise SourceError(
                    f"{url} answered {status}{_said(body)}: the site refused the "
                    "user name and application password"
                )
            if status in (401, 403) and _wordpress_error(body):
                raise SourceError(
                    f"{url} answered {status}{_said(body)}: the site's REST API "
                    "answers signed-in callers only; run again with --user and --password "
                    "(an application password)"
                )
            if status != 200:
                continue
            try:
                answer = loads(body)
            except orjson.JSONDecodeError:
                continue
            if fits(answer):
                self._follow_canonical(self.final_url)
                return answer
        return None

    def _follow_canonical(self, final_url: str) -> None:
        """A site that redirects to its own canonical address (``www.``, https) is read
        there from then on; the credentials go along only to such an address."""
        scheme, netloc = _origin(final_url)
        if (scheme, netloc) == self.origin:
            return
        old_scheme, old_netloc = self.origin
        same_host = _bare_host(netloc) == _bare_host(old_netloc)
        if not same_host or (old_scheme == "https" and scheme == "http"):
            raise SourceError(
                f"{self.site} redirects to {scheme}://{netloc}: run the import with that address"
            )
        self._set_site(f"{scheme}://{netloc}{urlsplit(self.site).path}")

    def pages(self, kind: str, params: dict):
        """(total, items of each page) of a listing. Each page is asked with the parameters
        of the first and ``page=N``, not at the ``next_rest_url`` the plugin gives (which
        drops ``per_page`` and ``hide_empty`` for terms); that only says another page
        follows. Never more pages than the first one announced, never a page of items
        read already."""
        route = f"/{NAMESPACE}/{kind}"
        params = {"per_page": PER_PAGE, **params}
        first = self._page(self.url(route, params), kind)
        total = first.get("total")
        return (total if isinstance(total, int) else None), self._following(
            first, route, params, kind
        )

    def _following(self, first: dict, route: str, params: dict, kind: str):
        """The items of each page from ``first`` on. A listing that shrank while read (its
        items deleted at the source: it ends before the last page its first announced) has
        moved later items back onto pages read already: it is read once more from page 1,
        for the items not given yet."""
        seen: set[int] = set()
        shrank = yield from self._read_on(first, route, params, kind, seen)
        if shrank:
            again = self._page(self.url(route, params), kind)
            yield from self._read_on(again, route, params, kind, seen, again=True)

    def _read_on(self, page: dict, route: str, params: dict, kind: str, seen: set, again=False):
        """Yields ``page``'s items and those of the pages after it (once more: the ones not
        in ``seen``), until a page is the last, empty, or past the end (the plugin's 404
        ``*-archive-page-not-found``: the listing ends there, not the run); returns whether
        it ended before the last page the first announced."""
        announced = page.get("total_pages")
        most = min(announced + 1, MAX_PAGES) if _is_id(announced) else MAX_PAGES
        number, url = 1, self.url(route, params)
        while True:
            ids = {item["id"] for item in page[kind]}
            if number > 1 and ids and ids <= seen and not again:
                raise SourceError(f"{url}: page {number} repeats {kind} of the pages before")
            yield [item for item in page[kind] if item["id"] not in seen] if again else page[kind]
            seen |= ids
            last = number if ids else number - 1  # the last page that held items
            if not page.get("next_rest_url") or not ids:
                return _is_id(announced) and last < announced
            if number >= most:
                raise SourceError(f"{url}: more pages of {kind} than the site announced")
            number += 1
            url = self.url(route, {**params, "page": number})
            try:
                page = self._page(url, kind)
            except PastTheEnd:
                return _is_id(announced) and number - 1 < announced

    def passwords(self, post_type: str) -> dict[int, str] | None:
        """The password of each password-protected post of ``post_type``, from WordPress's
        own route of the post type in the edit context (an editor's); None when the site
        does not answer it so."""
        params = {"context": "edit", "status": POST_STATUSES, "_fields": "id,password"}
        posts = self._posts(f"/wp/v2/{post_type}", {"per_page": 100, **params})
        if posts is None or not all("password" in post for post in posts):
            return None
        return {
            p["id"]: p["password"]
            for p in posts
            if isinstance(p["password"], str) and p["password"]
        }

    def post_ids(self, post_type: str) -> list[int] | None:
        """The ids of every post of ``post_type`` the account may read, from WordPress's
        own route of the post type (``wp/v2/{post_type}``): with credentials in every status
        they may list, else published ones; None when the site does not answer that route
        (it is there when the post type is shown in the block editor)."""
        tries = [{"status": POST_STATUSES}, {}] if self.auth else [{}]
        for extra in tries:
            posts = self._posts(f"/wp/v2/{post_type}", {"per_page": 100, "_fields": "id", **extra})
            if posts is not None:
                return [post["id"] for post in posts]
        return None

    def _posts(self, route: str, params: dict) -> list[dict] | None:
        """Every post of a route of WordPress, page after page; None when its first page
        is not such a list."""
        ids: list[dict] = []
        for number in range(1, MAX_PAGES + 1):
            url = self.url(route, {**params, "page": number})
            status, headers, body = self.fetch(url)
            try:
                posts = loads(body) if status == 200 else None
            except orjson.JSONDecodeError:
                posts = None
            if not isinstance(posts, list) or not all(
                isinstance(post, dict) and _is_id(post.get("id")) for post in posts
            ):
                if number == 1:
                    return None
                raise SourceError(f"{url} answered {status}{_said(body)}")
            ids.extend(posts)
            pages = headers.get("X-WP-TotalPages") or ""
            if re.fullmatch(r"[0-9]{1,9}", pages):
                last = number >= int(pages)
            else:  # no count: a short page is the last
                last = len(posts) < params["per_page"]
            if not posts or last:
                return ids
        return ids

    def one(self, kind: str, source_id: int) -> dict:
        """One item of the plugin's route of ``kind`` (``events/{id}``)."""
        url = self.url(f"/{NAMESPACE}/{kind}/{source_id}")
        item = self.json(url)
        if not isinstance(item, dict) or item.get("id") != source_id:
            raise SourceError(f"{url} is not The Events Calendar's answer (no item {source_id})")
        return item

    def _page(self, url: str, kind: str) -> dict:
        answer = self.json(url)
        items = answer.get(kind) if isinstance(answer, dict) else None
        if not isinstance(items, list) or not all(
            isinstance(item, dict) and _is_id(item.get("id")) for item in items
        ):
            raise SourceError(f"{url} is not The Events Calendar's answer (no list of {kind})")
        return answer

    def absolute(self, url: str) -> str:
        """An address the site gives as its pages would link it: one relative to the site
        (``//host/…`` of a CDN plugin, ``/wp-content/…`` of the "Relative URL" plugin) read
        as a browser reads it there."""
        try:
            return urljoin(f"{self.site}/", url.strip())
        except ValueError:
            return url  # image_url_error says what is wrong with it

    def image_url_error(self, url) -> str | None:
        """Why an image address is not fetched, or None: http(s) only, of a sane length,
        and, away from the site's own host and the addresses its name finds, never an
        internal address (a loopback, private, link-local or reserved one): the import must
        not reach into the network it runs in."""
        try:
            parts = urlsplit(url)
            host = parts.hostname
            parts.port  # noqa: B018 (raises on a bad port)
        except (ValueError, TypeError):
            return f"{url!r} is not an address"
        if parts.scheme.lower() not in ("http", "https") or not host:
            return f"{url} is not an http(s) address"
        if len(url) > MAX_URL:
            return f"an address of more than {MAX_URL} characters"
        if host.lower() == self.site_host:
            return None
        try:
            infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return f"cannot find the host of {url}"
        internal = _internal_address(infos, self.own.addresses)
        return f"{url} is on an internal address" if internal else None


def pause(seconds: float) -> None:
    """Waits before asking again (the tests replace it)."""
    time.sleep(seconds)


def _is_id(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _bare_host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1].split(":", 1)[0]
    return host.removeprefix("www.")


def _site_root(site: str) -> str:
    """The site's root, from the address the operator gave (the one URL rule of every face,
    as ``import-ics`` checks its own), with a host."""
    parts = urlsplit(site.strip()) if is_web_url(site.strip()) else None
    if parts is None or not parts.hostname:
        raise SourceError(f"{site!r} is not an http(s) address of a site")
    path = parts.path.rstrip("/")
    for tail in (f"/wp-json/{NAMESPACE}", "/wp-json"):
        if path.endswith(tail):
            path = path[: -len(tail)]
            break
    return f"{parts.scheme.lower()}://{parts.netloc}{path}"


def _requoted(url: str) -> str:
    """``url`` as it goes on the wire: the letters beyond ASCII and the spaces that a
    WordPress file name keeps (and the plugin gives as they are) percent-encoded, UTF-8 as
    browsers do, what is encoded already left as it is; a host beyond ASCII in IDNA."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if not netloc.isascii():
        try:
            netloc = netloc.encode("idna").decode("ascii")
        except UnicodeError:
            pass  # the request says what is wrong with it
    safe = "!#$%&'()*+,/:;=?@[]~"
    return urlunsplit(
        (
            parts.scheme,
            netloc,
            quote(parts.path, safe),
            quote(parts.query, safe),
            quote(parts.fragment, safe),
        )
    )


def _basic(user: str, password: str) -> str:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return f"Basic {token}"


def _read(response, limit: int, url: str) -> bytes:
    """The body, at most ``limit`` bytes, within ANSWER_SECONDS however slowly it comes."""
    deadline = time.monotonic() + ANSWER_SECONDS
    read = getattr(response, "read1", response.read)  # what has come, without waiting for more
    chunks, size = [], 0
    while True:
        chunk = read(min(65536, limit + 1 - size))
        if not chunk:
            missing = getattr(response, "length", None)  # of the Content-Length announced
            if isinstance(missing, int) and missing > 0:
                raise _CutOff(f"{size:,} of {size + missing:,} bytes came")
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            raise SourceError(f"{url} answered more than {limit:,} bytes")
        if time.monotonic() > deadline:
            raise SourceError(f"{url} took more than {ANSWER_SECONDS} s to answer")


def loads(body: bytes):
    """A JSON answer, past the UTF-8 byte order mark that a site's PHP file saved with one
    puts before every answer (browsers, WordPress's own clients, read past it too), and past
    what PHP prints before it: a site with ``display_errors`` on writes its notices
    ("<b>Deprecated</b>: …") ahead of every answer, which is WordPress's all the same. The
    JSON is read from the first ``{`` or ``[`` on which it parses (a few tried: a notice
    may hold brackets of its own)."""
    body = body.removeprefix(b"\xef\xbb\xbf")
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        starts = re.finditer(rb"[{\[]", body[:LEADING_NOISE])
        for start in itertools.islice((m.start() for m in starts if m.start()), NOISE_TRIES):
            try:
                return orjson.loads(body[start:])
            except orjson.JSONDecodeError:
                continue
        raise


def _wordpress_error(body: bytes) -> bool:
    """Whether ``body`` is a WordPress REST error (``{"code": "rest_login_required", …}``):
    a site whose API refuses anonymous callers is WordPress all the same."""
    try:
        answer = loads(body)
    except orjson.JSONDecodeError:
        return False
    return isinstance(answer, dict) and isinstance(answer.get("code"), str)


def _past_the_end(body: bytes) -> bool:
    """Whether an error answer says the page asked is past a listing's last."""
    try:
        code = loads(body).get("code")
    except (orjson.JSONDecodeError, AttributeError):
        return False
    return isinstance(code, str) and (
        code.endswith("-archive-page-not-found") or code == "rest_post_invalid_page_number"
    )


def _said(body: bytes) -> str:
    try:
        message = loads(body).get("message")
    except (orjson.JSONDecodeError, AttributeError):
        return ""
    return f" ({message[:200]})" if isinstance(message, str) and message else ""


def _wait(retry_after, attempt: int) -> float:
    """Seconds before asking again: Retry-After (seconds or an HTTP date), else 1, 2, 4…"""
    if isinstance(retry_after, str):
        retry_after = retry_after.strip()
        if re.fullmatch(r"[0-9]{1,9}", retry_after):
            return min(float(retry_after), RETRY_AFTER_MAX)
        try:
            when = email.utils.parsedate_to_datetime(retry_after).timestamp()
            return max(0.0, min(when - time.time(), RETRY_AFTER_MAX))
        except (TypeError, ValueError, OverflowError, IndexError):
            pass
    return float(2**attempt)
