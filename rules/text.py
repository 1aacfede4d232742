"""The one home of what text may contain: plain text, sanitised HTML, safe URLs (SPEC §2, §10).

Pure functions, used by the schemas (fields), the event and term inputs and the importers,
so no route can store text that another route would refuse.
"""

from __future__ import annotations

import re
import unicodedata
from html import escape, unescape
from urllib.parse import unquote, urlparse

# Script and style elements lose their content too, as WordPress's wp_strip_all_tags does.
_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b[^>]*>.*?(</\1\s*>|$)", re.IGNORECASE | re.DOTALL)
# Anything a browser could read as markup: a tag, a closing tag, a comment, a declaration or
# processing instruction, also when it is never closed. A lone "<" (as in "a < b") stays.
_MARKUP = re.compile(r"<(?:[a-zA-Z/!?])[^>]*(?:>|$)")


# Control characters, and the separators some readers take for line breaks (U+001C-U+001E,
# U+0085, U+2028, U+2029): plain text is one line, whatever face shows it (SPEC §10). With
# them U+FFFE and U+FFFF, no characters at all: XML 1.0 forbids them, and one in a title
# made the whole RSS feed unreadable.
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f\x85\u2028\u2029\ufffe\uffff]+")
# In HTML, tab and line breaks are white space; the other C0 characters are not text.
_NOT_IN_HTML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")


def is_one_line(text: str) -> bool:
    """Whether ``text`` holds none of what ``plain_text`` makes a space (a setting shown on
    every page, such as SITE_NAME, is refused at start rather than changed)."""
    return _LINE_BREAKING.search(text) is None


def plain_text(text: str) -> str:
    """``text`` with every tag removed (titles, names, cost, addresses, phone, email, term
    names) and each run of control characters made one space; entities and lone angle
    brackets are kept as typed."""
    text = _LINE_BREAKING.sub(" ", text)
    if "<" not in text:
        return text
    previous = None
    while previous != text:  # "<scr<script>ipt>" must not leave a tag behind
        previous = text
        text = _MARKUP.sub("", _SCRIPT_OR_STYLE.sub("", text))
    return text


# Where a line ends in the text of HTML: a break (with the source's own line end after it,
# as WordPress writes "<br />\n": one line end, not two), or the end of a block.
_LINE_ENDS = re.compile(r"<br\s*/?>(?:\r?\n)?|</(?:p|div|li|h[1-6]|blockquote|tr)>", re.IGNORECASE)


def html_text(html: str) -> str:
    """HTML (a sanitised description or excerpt) as the plain text a reader of it sees: a
    feed's DESCRIPTION, JSON-LD's description, a page's meta description. A line for each
    break and block, blank lines at most one, no tags (scripts and styles with their
    content), entities read as the characters they stand for."""
    text = _SCRIPT_OR_STYLE.sub("", _LINE_ENDS.sub("\n", html or ""))
    text = unescape(_MARKUP.sub("", text))
    lines = [line.strip() for line in text.replace("\r", "").split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def sanitise_html(html: str) -> str:
    """Allow-listed HTML (descriptions, excerpts): scripts, event handlers and javascript:
    URLs never survive. An image without ``alt`` gets ``alt=""`` (decorative, as far as
    anyone said): every face shows it as stored, and an image without one is a critical
    accessibility fault (axe-core's image-alt). A link holding only such an image would
    then have no name at all (axe-core's link-name, serious): its image is named by the
    file the link leads to, as WordPress inserts an image "linked to its file" without
    alt by default, and imports bring it. A link with nothing in it (nothing to see or
    click, a nameless stop of the keyboard: link-name again) is dropped."""
    import nh3  # imported by the first write: 2 MB that a worker serving reads never needs

    cleaned = _IMG.sub(_with_alt, nh3.clean(_NOT_IN_HTML.sub("", html)))
    return _EMPTY_LINK.sub("", _IMAGE_LINK.sub(_image_link_named, cleaned))


# An <img> as nh3 writes it: lower-case names, every value in double quotes (a quote in it
# as &quot;, a > as &gt;).
_IMG = re.compile(r'<img((?: [^\s="]+="[^"]*")*)>')
_ATTRIBUTE_NAME = re.compile(r' ([^\s="]+)="')


def _with_alt(match: re.Match) -> str:
    attributes = match.group(1)
    if "alt" in _ATTRIBUTE_NAME.findall(attributes):
        return match.group(0)
    return f'<img{attributes} alt="">'


# A link (as nh3 writes it: a ">" in a value as &gt;) holding one image and nothing else,
# or nothing at all.
_EMPTY_LINK = re.compile(r"<a [^>]*>\s*</a>")
_IMAGE_LINK = re.compile(r"(<a [^>]*>\s*<img [^>]*?) alt=\"\"([^>]*>\s*</a>)")
_URL_VALUE = re.compile(r' (href|src)="([^"]*)"')


def _image_link_named(match: re.Match) -> str:
    urls = dict(_URL_VALUE.findall(match.group(1)))  # the link's href, its image's src
    name = _file_name(urls.get("href", "")) or _file_name(urls.get("src", ""))
    if not name:
        return match.group(0)
    return f'{match.group(1)} alt="{escape(name)}"{match.group(2)}'


def _file_name(url: str) -> str:
    """The last segment of a URL's path, as a reader would call the file ("Plakat
    Sommer.jpg"), else its host; "" for neither."""
    parsed = urlparse(unescape(url))
    return unquote(parsed.path.rstrip("/").rpartition("/")[2]) or parsed.netloc


# A heading's tag, opening or closing, as nh3 writes it: lower-case, and a "<" inside an
# attribute's value written &lt;, so this matches tags only.
_HEADING = re.compile(r"<(/?)h([1-6])\b")


def demote_headings(html: str, top: int = 2) -> str:
    """Sanitised HTML (a description) with its headings moved to start at level ``top``, for
    a page that shows it under headings of its own (SPEC §15 "one h1 per page"): an h1 of
    a WordPress description becomes h2, an h4 alone h2 (no level skipped after the
    page's), the levels below keep their order, and none goes past h6. Only the page
    does this: the stored text, the API's and the feeds' keep the author's levels."""
    levels = [int(level) for opening, level in _HEADING.findall(html) if not opening]
    shift = top - min(levels) if levels else 0
    if not shift:
        return html
    return _HEADING.sub(lambda tag: f"<{tag[1]}h{min(int(tag[2]) + shift, 6)}", html)


# A table's opening tag as nh3 writes it (which keeps no tabindex of the author's).
_TABLE = re.compile(r"<table\b")


def focusable_tables(html: str) -> str:
    """Sanitised HTML (a description) with its tables in the keyboard's reach, for a page
    whose stylesheet lets a table too wide for it scroll in its own box: a box that
    scrolls with nothing focusable in it cannot be scrolled without a mouse (axe-core's
    scrollable-region-focusable, serious). As ``demote_headings``, only where shown."""
    return _TABLE.sub('<table tabindex="0"', html)


# Besides what could break out of an HTML attribute: control characters (C0, DEL, C1),
# which no URL holds (RFC 3986) and which a page would otherwise emit raw in href and src.
_UNSAFE_IN_URL = re.compile(r"[\s\"'<>`\\\x00-\x1f\x7f-\x9f]")


def is_web_url(value: str) -> bool:
    """An absolute http(s) URL with nothing that could break out of an HTML attribute and
    a port, when it has one, in range: the one URL rule of every face."""
    if _UNSAFE_IN_URL.search(value):
        return False
    try:
        parsed = urlparse(value)
        parsed.port  # noqa: B018 -- urllib refuses a port past 65535 when it is read
    except ValueError:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.netloc)


DOTTED_SMALL_I = "i\u0307"  # "İ".lower() in Python, JavaScript and ICU


def fold(text: str) -> str:
    """``text`` as names and searched words are compared, in any case and Unicode form:
    canonically composed (NFC), so that "Café" typed on macOS (an ``e`` and a combining
    accent) meets the "Café" of another keyboard, then lowered a character at a time, as
    PostgreSQL's ``LOWER`` does (in a ``C.UTF-8`` database, docs/deploy.md), so that
    ``store/db.py::folded``, its twin where a column is read, gives the same text in SQL
    (this function itself on SQLite). Python's own ``lower`` is not that: it gives a
    capital sigma at a word's end ``ς`` and ``İ`` two characters, where PostgreSQL gives
    ``σ`` and ``i``; so ``İ`` is lowered as one character, and the two small sigmas are one
    letter, as in the reference's MySQL collation ("ΚΗΠΟΣ" meets "κηπος", "İstanbul" meets
    "istanbul"). ``İ``'s own lower case elsewhere (Python's, JavaScript's: an ``i`` and a
    combining dot, which no composed letter holds) is that ``i`` too, as that collation
    ignores the dot: "i̇nci" is "İnci" and "inci", one name."""
    text = unicodedata.normalize("NFC", text)
    return text.replace("İ", "i").lower().replace(DOTTED_SMALL_I, "i").replace("ς", "σ")


MAX_SEARCH_WORDS = 9


# WP_Query::parse_search: a double-quoted phrase (to its closing quote or the end), or a run
# of characters other than tab, space, double quote, comma and plus.
_SEARCH_TERM = re.compile(r'".*?(?:"|$)|(?:(?<=[\t ",+])|^)[^\t ",+]+')
# WordPress's English search stopwords (WP_Query::get_search_stopwords), dropped from a search.
SEARCH_STOPWORDS = frozenset(
    "about,an,are,as,at,be,by,com,for,from,how,in,is,it,of,on,or,that,the,this,to,was,what,"
    "when,where,who,will,with,www".split(",")
)


def search_terms(text: str) -> tuple[list[str], list[str]]:
    """(the words an event search looks for, the words it excludes), as WordPress's keyword
    search reads ``search`` (WP_Query::parse_search): words split at spaces, tabs, commas,
    ``+`` and double quotes, a double-quoted phrase kept whole, quotes trimmed, stopwords and
    single letters dropped, a word starting with ``-`` excluded; none left, or more than
    nine, and the whole text is the one word."""
    # Line breaks and control characters as plain text stores them (a space), so that a
    # title pasted with its line break finds itself (WordPress drops CR and LF); composed
    # (NFC), so that a word typed decomposed (macOS) is the word typed elsewhere.
    text = unicodedata.normalize("NFC", _LINE_BREAKING.sub(" ", text))
    terms = []
    for match in _SEARCH_TERM.finditer(text):
        term = match.group(0)
        phrase = len(term) > 2 and term[0] == term[-1] == '"'
        term = term.strip("\"'") if phrase else term.strip("\"' ")
        if not term or (len(term) == 1 and (term == "-" or "a" <= term.lower() <= "z")):
            continue
        if term.lower() not in SEARCH_STOPWORDS:
            terms.append(term)
    if not terms or len(terms) > MAX_SEARCH_WORDS:
        terms = [text]
    words = [term for term in terms if not term.startswith("-")]
    return words, [term[1:] for term in terms if term.startswith("-")]


def counted(n: int, one: str, many: str) -> str:
    """``n`` things in English, "1 venue" or "2 venues": the commands' own lines, which are
    not translated (the catalogs' messages count with ngettext, app/i18n.py)."""
    return f"{n} {one if n == 1 else many}"
