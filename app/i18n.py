"""Language roots and message catalogs.

Every configured language ``L`` has its own API root ``/L{api_root}``; the default
language is also served at the bare root. ``LanguageRoots`` (WSGI middleware) moves the
language segment from ``PATH_INFO`` into ``SCRIPT_NAME``, so routing is identical under
every root and the links the app builds keep the root the client used. It also drops a
trailing slash, since every route accepts one.
"""

from __future__ import annotations

import gettext as gettext_module
import os
from functools import lru_cache
from io import BytesIO
from typing import NamedTuple

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from flask import current_app
from flask.globals import _cv_request
from jinja2 import Environment
from jinja2.compiler import CodeGenerator
from jinja2.ext import Extension
from jinja2.lexer import Token
from markupsafe import Markup, escape

from rules import N_  # noqa: F401 (one home; app modules import it from here too)

try:  # markupsafe 3: the escaping alone, without the Markup that ``escape`` makes of it
    from markupsafe import _escape_inner
except ImportError:  # pragma: no cover - markupsafe 2 makes it in C
    _escape_inner = None

TRANSLATIONS = os.path.join(os.path.dirname(__file__), "translations")
LANG_KEY = "calendar.lang"
# The request's SCRIPT_NAME before its language root: the path the calendar is served
# under (``/blog``, app/urls.py::MountedAt), which the site's address keeps (``site_url``).
MOUNT_KEY = "calendar.mount"


class LanguageRoots:
    def __init__(self, wsgi_app, languages: list[str], default: str, api_root: str):
        self.wsgi_app = wsgi_app
        self.languages = set(languages)
        self.default = default
        self.api_root = api_root

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "") or "/"
        if len(path) > 1 and path.endswith("/"):
            path = path.rstrip("/") or "/"
        lang = self.default
        head, _, rest = path[1:].partition("/")
        # Every address has its language roots: the API's and the public pages' alike.
        environ[MOUNT_KEY] = environ.get("SCRIPT_NAME", "")
        if head in self.languages:
            lang = head
            environ["SCRIPT_NAME"] = environ.get("SCRIPT_NAME", "") + "/" + head
            path = "/" + rest
        environ["PATH_INFO"] = path
        environ[LANG_KEY] = lang
        return self.wsgi_app(environ, start_response)


def has_catalog(lang: str) -> bool:
    """Whether the pages and messages can be in ``lang``: English, the messages' own
    language, or a language with its catalog in ``app/translations``."""
    return lang == "en" or os.path.exists(
        os.path.join(TRANSLATIONS, lang, "LC_MESSAGES", "messages.po")
    )


def _load(lang: str) -> gettext_module.NullTranslations:
    directory = os.path.join(TRANSLATIONS, lang, "LC_MESSAGES")
    mo_path = os.path.join(directory, "messages.mo")
    po_path = os.path.join(directory, "messages.po")
    if os.path.exists(mo_path) and (
        not os.path.exists(po_path) or os.path.getmtime(mo_path) >= os.path.getmtime(po_path)
    ):
        with open(mo_path, "rb") as handle:
            return gettext_module.GNUTranslations(handle)
    if os.path.exists(po_path):
        # Not compiled yet (a checkout without `make install`): compile in memory.
        with open(po_path, "rb") as handle:
            catalog = read_po(handle, locale=lang)
        buffer = BytesIO()
        write_mo(buffer, catalog)
        buffer.seek(0)
        return gettext_module.GNUTranslations(buffer)
    return gettext_module.NullTranslations()


def load_catalogs(languages: list[str]) -> dict[str, gettext_module.NullTranslations]:
    return {lang: _load(lang) for lang in languages}


def current_language() -> str:
    context = _cv_request.get(None)
    if context is not None:
        return context.request.environ.get(LANG_KEY) or context.app.config["DEFAULT_LANGUAGE"]
    return "en"


def translate(message: str, lang: str | None = None) -> str:
    # The request's context read directly, not through Flask's proxies: a page asks for
    # thirty messages (each proxy lookup a few microseconds).
    context = _cv_request.get(None)
    app = context.app if context is not None else current_app
    catalog = app.extensions["calendar.catalogs"].get(lang or current_language())
    return catalog.gettext(message) if catalog else message


def _(message: str, **values) -> str:
    """``message`` in the request's language, with ``%(name)s`` placeholders filled."""
    text = translate(message)
    return text % values if values else text


def templates_in(app, lang: str) -> Environment:
    """The app's templates as compiled for ``lang``: each ``_("…")`` of one message and
    nothing to fill written in as its translation (``WrittenTranslations``), where a page
    called thirty, each a call through Jinja and a look-up at every render. Made at the
    language's first page; a fresh cache, so that no template compiled without them is
    copied in."""
    known = app.extensions.setdefault("calendar.templates", {})
    env = known.get(lang)
    if env is None:
        env = app.jinja_env.overlay(extensions=[WrittenTranslations], cache_size=400)
        env.catalog = app.extensions["calendar.catalogs"].get(lang)
        env.make_globals = _plain_globals(env)
        env.code_generator_class = EscapedOutput
        env.escaped = escaped
        env = known.setdefault(lang, env)
    return env


def _plain_globals(env: Environment):
    """A template's globals as one plain dict, made when it is compiled, where Jinja makes
    a ``ChainMap`` over the environment's: every render copies them into its context and
    every ``{% from … import %}`` compares them with the macros' own, which a ``ChainMap``
    does a key at a time in Python (25 µs a page, a dict's copy 4). Every global is
    registered by ``create_app`` before a page's templates are compiled, as Jinja asks
    (``Environment.make_globals``: no global changed once a template is loaded)."""

    def make_globals(own: dict | None) -> dict:
        return {**env.globals, **(own or {})}

    return make_globals


def escaped(value) -> str:
    """``{{ value }}`` as a page writes it: the text of ``markupsafe.escape(value)``, which
    Jinja joins with the rest of the page. A ``Markup`` made of each output (a list page
    writes 150) and dropped by that join was a sixth of the templates' time."""
    if type(value) is str and _escape_inner is not None:
        return _escape_inner(value)
    if type(value) is Markup:  # a macro's or a block's text: ``escape`` copied it whole
        return value
    return escape(value)


class EscapedOutput(CodeGenerator):
    """Writes each ``{{ … }}`` of an autoescaped template through ``escaped``: Jinja's own
    way to change what an output becomes (``_output_child_pre``, as its
    ``NativeCodeGenerator``). What a macro, a block or ``{% set %}`` gives is still made
    ``Markup`` by Jinja from the joined text, as before."""

    def _output_child_pre(self, node, frame, finalize) -> None:
        if frame.eval_ctx.volatile or not frame.eval_ctx.autoescape:
            super()._output_child_pre(node, frame, finalize)
            return
        self.write("environment.escaped(")
        if finalize.src is not None:
            self.write(finalize.src)


class WrittenTranslations(Extension):
    """Writes ``_("a message")`` into a template as the string of its translation when the
    template is compiled (``templates_in``): the same text as the call gave at each render
    (``translate``), escaped where it is written as ever. A call with values to fill, or
    ``_`` as an attribute, is left to run."""

    CALL = ("name", "lparen", "string", "rparen")

    def filter_stream(self, stream):
        catalog = self.environment.catalog
        held: list = []
        before = None
        for token in stream:
            held.append(token)
            if not self._may_be_call(held, before):
                before = held[-1]
                yield from held
                held = []
            elif len(held) == len(self.CALL):
                message = held[2].value
                text = catalog.gettext(message) if catalog else message
                before = Token(held[0].lineno, "string", text)
                yield before
                held = []

    def _may_be_call(self, held: list, before) -> bool:
        """Whether ``held`` begins ``_("…")``, not an attribute's ``._``."""
        if held[0].type != "name" or held[0].value != "_":
            return False
        if before is not None and before.type == "dot":
            return False
        return all(token.type == kind for token, kind in zip(held, self.CALL, strict=False))


class Plural(NamedTuple):
    """A message that counts something, in its two English forms (``N_plural``)."""

    singular: str
    plural: str


def N_plural(singular: str, plural: str) -> Plural:  # noqa: N802 (gettext's naming)
    """Marks a counting message for the catalogs; ``ngettext(*message, num)`` says it."""
    return Plural(singular, plural)


def number(value: int) -> str:
    """``value`` written for the request's language, its digits grouped (French
    "50 000 000", German "50.000.000")."""
    return _decimal(value, current_language())


@lru_cache(maxsize=4096)
def _decimal(value: int, lang: str) -> str:
    # Babel reads the locale's pattern at each call (40 µs): a month grid writes its "N
    # more" for thirty days, a sixth of the page's time.
    return format_decimal(value, locale=lang)


def ngettext(singular: str, plural: str, num: int, **values) -> str:
    """The form of a counting message that the request's language uses for ``num``
    (its catalog's Plural-Forms: French says "1 autre date" and "0 autre date"), with
    ``%(num)s`` the number written for that language and the other placeholders filled."""
    context = _cv_request.get(None)
    app = context.app if context is not None else current_app
    catalog = app.extensions["calendar.catalogs"].get(current_language())
    if catalog is None:
        catalog = gettext_module.NullTranslations()
    return catalog.ngettext(singular, plural, num) % {**values, "num": number(num)}


# What a language writes between a label and its value, where it is not a colon alone:
# French puts a no-break space before it.
COLONS = {"fr": "\u00a0:"}


def labelled(label: str) -> str:
    """``label`` followed by the colon of the request's language ("Coût :")."""
    return label + COLONS.get(current_language(), ":")
