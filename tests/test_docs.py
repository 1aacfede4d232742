"""The interface documents itself: /doc (OpenAPI) and the namespace index, in four languages."""

import glob
import json
import os
import re

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from openapi_spec_validator import validate

from app.i18n import TRANSLATIONS
from app.openapi import doc_strings
from tests.conftest import NS

LANGS = ["fr", "de", "es"]
ROOTS = ["", "/en", "/fr", "/de", "/es"]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def strip_descriptions(document):
    if isinstance(document, dict):
        return {
            k: strip_descriptions(v)
            for k, v in document.items()
            if k not in ("description", "summary")
        }
    if isinstance(document, list):
        return [strip_descriptions(v) for v in document]
    return document


@pytest.mark.parametrize("root", ROOTS)
def test_document_is_valid_openapi_under_every_root(client, root):
    document = client.get(f"{root}{NS}/doc").get_json()
    validate(document)
    assert document["servers"][0]["url"] == f"http://localhost{root}{NS}/"


def test_every_route_and_method_is_documented(client):
    paths = client.get(f"{NS}/doc").get_json()["paths"]
    expected = {
        "/doc": {"get"},
        "/": {"get"},  # GET {ns}, the first of its own routes (docs15)
        "/events": {"get", "post"},
        "/events/{id}": {"get", "post", "put", "patch", "delete"},
        "/events/by-slug/{slug}": {"get", "post", "put", "patch", "delete"},
        "/venues": {"get", "post"},
        "/venues/{id}": {"get", "post", "put", "patch", "delete"},
        "/venues/by-slug/{slug}": {"get", "post", "put", "patch", "delete"},
        "/organizers": {"get", "post"},
        "/organizers/{id}": {"get", "post", "put", "patch", "delete"},
        "/organizers/by-slug/{slug}": {"get", "post", "put", "patch", "delete"},
        "/categories": {"get", "post"},
        "/categories/{id}": {"get", "post", "put", "patch", "delete"},
        "/tags": {"get", "post"},
        "/tags/{id}": {"get", "post", "put", "patch", "delete"},
    }
    for path, methods in expected.items():
        assert methods <= set(paths[path]), path
    assert next(iter(paths)) == "/doc"  # first, as the reference lists it
    schemas = client.get(f"{NS}/doc").get_json()["components"]["schemas"]
    # The reference's names for the shapes both documents describe (samples/doc.json).
    assert {"Event", "Venue", "Organizer", "Term", "Image", "DateDetails", "CostDetails"} <= set(
        schemas
    )


def test_document_declares_auth_bodies_and_errors(client):
    document = client.get(f"{NS}/doc").get_json()
    assert document["components"]["securitySchemes"]["basicAuth"]["scheme"] == "basic"
    listing = document["paths"]["/events"]["get"]
    assert listing["security"] == []
    create = document["paths"]["/events"]["post"]
    assert create["security"] == [{"basicAuth": []}]
    content = create["requestBody"]["content"]
    assert {"application/json", "application/x-www-form-urlencoded"} <= set(content)
    assert {"201", "400", "401", "403"} <= set(create["responses"])
    assert "410" in document["paths"]["/events/{id}"]["delete"]["responses"]
    per_page = next(p for p in listing["parameters"] if p["name"] == "per_page")
    assert per_page["schema"]["default"] == 10 and per_page["description"]
    assert set(document["components"]["schemas"]["Error"]["properties"]) == {
        "code",
        "message",
        "data",
    }


def test_languages_differ_only_in_descriptions(client):
    documents = {lang: client.get(f"/{lang}{NS}/doc").get_json() for lang in ["en", *LANGS]}
    english = documents["en"]
    for lang in LANGS:
        assert (
            documents[lang]["paths"]["/events"]["get"]["summary"]
            != english["paths"]["/events"]["get"]["summary"]
        )
        local, base = dict(documents[lang]), dict(english)
        local.pop("servers"), base.pop("servers")
        assert strip_descriptions(local) == strip_descriptions(base)
    indexes = {lang: client.get(f"/{lang}{NS}").get_json() for lang in ["en", *LANGS]}
    for lang in LANGS:
        assert strip_descriptions(indexes[lang]["routes"]) == strip_descriptions(
            indexes["en"]["routes"]
        )
        args = indexes[lang]["routes"]["/calendar/events/v1/events"]["endpoints"][0]["args"]
        assert (
            args["page"]["description"]
            != indexes["en"]["routes"]["/calendar/events/v1/events"]["endpoints"][0]["args"][
                "page"
            ]["description"]
        )


def _catalog(lang):
    with open(os.path.join(TRANSLATIONS, lang, "LC_MESSAGES", "messages.po"), "rb") as handle:
        return {m.id: m.string for m in read_po(handle, locale=lang) if m.id}


@pytest.mark.parametrize("lang", LANGS)
def test_every_string_has_a_translation(client, lang):
    catalog = _catalog(lang)
    wanted = doc_strings(client.get(f"{NS}/doc").get_json())
    wanted |= doc_strings(client.get(NS).get_json())
    for package in ("app", "schemas", "store"):
        for _f, _l, message, _c, _x in extract_from_dir(
            os.path.join(ROOT, package),
            method_map=[("**.py", "python")],
            keywords={"_": None, "N_": None, "ngettext": (1, 2), "N_plural": (1, 2)},
        ):
            wanted.add(message)
    missing = sorted(m for m in wanted if not catalog.get(m))
    assert missing == []


def test_the_openapi_command_prints_the_documents_routes(fresh_app):
    """README: `calendar openapi print`, run as an operator runs it (a process that has
    answered no request), printed flask-smorest's document without a single path (docs15)."""
    result = fresh_app.test_cli_runner().invoke(args=["openapi", "print"])
    assert result.exit_code == 0
    printed = json.loads(result.output)
    served = fresh_app.test_client().get(f"{NS}/doc").get_json()
    assert set(printed["paths"]) == set(served["paths"])
    assert printed["servers"] == [{"url": f"{NS}/"}]


def test_html_rendering_loads_the_document_from_local_assets(client):
    page = client.get(f"{NS}/doc/ui")
    assert page.status_code == 200 and page.mimetype == "text/html"
    html = page.get_data(as_text=True)
    assert f'data-url="{NS}/doc"' in html  # read by doc/ui/init.js
    assert "http" not in html.replace("http-equiv", "")  # no CDN
    assert client.get(f"{NS}/doc/ui/swagger-ui-bundle.js").status_code == 200
    assert client.get(f"{NS}/doc/ui/swagger-ui.css").status_code == 200
    assert client.get(f"{NS}/doc/ui/../../../etc/passwd").status_code == 404
    assert f'data-url="/fr{NS}/doc"' in client.get(f"/fr{NS}/doc/ui").get_data(as_text=True)


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_every_parameter_and_argument_is_described(client, lang):
    document = client.get(f"/{lang}{NS}/doc").get_json()
    for path, item in document["paths"].items():
        parameters = list(item.get("parameters", []))
        for method, operation in item.items():
            if isinstance(operation, dict):
                parameters += operation.get("parameters", [])
                assert operation.get("summary"), (path, method)
        for parameter in parameters:
            assert parameter.get("description"), (path, parameter["name"])
    index = client.get(f"/{lang}{NS}").get_json()
    for route, entry in index["routes"].items():
        for endpoint in entry["endpoints"]:
            for name, arg in endpoint["args"].items():
                assert arg.get("description") and "type" in arg and "required" in arg, (route, name)


# Words a language writes as English does, each checked by a reader: German says "Status"
# for a post's status, as WordPress's German does ("Zustand" is a machine's state).
SAME_AS_ENGLISH = {"de": {"Status"}}


@pytest.mark.parametrize("lang", LANGS)
def test_translations_are_not_copies_of_the_english(lang):
    copies = [
        m
        for m, text in _catalog(lang).items()
        if text == m and m not in SAME_AS_ENGLISH.get(lang, set())
    ]
    assert copies == []


# A quoted line continues the keyword line (or quoted line) just above it; after a blank
# line or a comment it is the leftover of an entry whose keyword lines were removed, which
# PO syntax (and ``msgfmt --check``) accepts by gluing it onto the entry before.
STRAY_CONTINUATION = re.compile(r'^(?:#.*|)\n"', re.M)


@pytest.mark.parametrize("lang", [*LANGS, None])
def test_no_catalog_keeps_a_string_whose_entry_was_removed(lang):
    """Found by an outside check (chk18a D1): the German "Move to the trash" read "In den
    PapierkorbEin Bild finden …", a removed entry's translation glued onto it."""
    parts = (lang, "LC_MESSAGES", "messages.po") if lang else ("messages.pot",)
    with open(os.path.join(TRANSLATIONS, *parts), encoding="utf-8") as handle:
        text = handle.read()
    strays = [text.count("\n", 0, m.start()) + 2 for m in STRAY_CONTINUATION.finditer(text)]
    assert strays == []


def test_french_spells_evenement_one_way_and_names_featured_one_way(client, sign_in):
    """Found by an outside check (chk17i D5): two messages spelled "événements" where the
    catalog says "évènement(s)" everywhere else, and the editor's checkbox that makes an
    event featured said "Mis en avant" while the public list is "Évènements à la une"."""
    texts = _catalog("fr").values()
    forms = [form for text in texts for form in (text if isinstance(text, tuple) else (text,))]
    assert not [form for form in forms if "événement" in form.lower()]
    html = {"Accept": "text/html"}
    heading = re.search(r"<h1>(.*?)</h1>", client.get("/fr/events/?featured=1", headers=html).text)
    form = sign_in("administrator").get("/fr/manage/events/new").text
    checkbox = re.search(r'<label for="featured">(.*?)</label>', form).group(1)
    assert checkbox.lower() in heading.group(1).lower(), (checkbox, heading.group(1))


def test_published_response_schemas_are_strict(client):
    """The *Out schemas describe what is sent, and nothing else would pass them; every
    JSON answer of the suite is checked against them (tests/conformance.py)."""
    schemas = client.get(f"{NS}/doc").get_json()["components"]["schemas"]
    for name in ("Event", "Venue", "Organizer", "Term", "Error"):
        schema = schemas[name]
        assert schema["additionalProperties"] is False, name
        assert {"id", "code"} & set(schema["required"]), name
    assert "json_ld" not in schemas["Event"]["required"]  # single reads only
    assert schemas["Event"]["properties"]["featured"]["nullable"] is True  # masked


def test_a_new_event_is_documented_as_not_all_day(client):
    """interface.md §2.1: ``all_day`` defaults to false, in the namespace index and in /doc
    (for a creation; an update keeps what the event was)."""
    routes = client.get(NS).get_json()["routes"]
    (create,) = [
        e for e in routes[f"/{NS.split('/', 2)[2]}/events"]["endpoints"] if "POST" in e["methods"]
    ]
    assert create["args"]["all_day"]["default"] is False
    schemas = client.get(f"{NS}/doc").get_json()["components"]["schemas"]
    assert schemas["EventCreate"]["properties"]["all_day"]["default"] is False
    assert "default" not in schemas["EventUpdate"]["properties"]["all_day"]


# What each layer may not load, even through another package (flask_smorest loads Flask).
FORBIDDEN = {
    "rules": ("app", "store", "schemas", "flask", "peewee"),
    "store": ("app", "schemas", "flask"),
    "schemas": ("app", "flask"),
}


def _outside(name: str, layer: str) -> bool:
    """``name`` is, or belongs to, a package ``layer`` may not import (``flask_smorest``
    and ``flask_babel`` are Flask)."""
    top = name.split(".")[0]
    return any(top == banned or top.startswith(f"{banned}_") for banned in FORBIDDEN[layer])


def _imports(root, package):
    """Each import of the modules of ``package``: (path, node, the absolute name imported),
    relative imports resolved against the module's own package."""
    import ast

    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                base = parts[: len(parts) - node.level] if node.level else []
                if node.module:
                    yield path, node, ".".join([*base, node.module])
                else:  # from . import x: x is a module of the package
                    for alias in node.names:
                        yield path, node, ".".join([*base, alias.name])
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    yield path, node, alias.name


def test_the_layers_import_one_way_as_docs_architecture_says():
    """rules/ imports no layer, no database and no Flask; store/ never imports Flask, the
    app or the schemas; schemas/ never imports the app or Flask, and reads the store for
    one constant only; and no module
    imports another inside a function to dodge a cycle between app/ modules."""
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent
    for layer in FORBIDDEN:
        for path, _node, name in _imports(root, layer):
            assert not _outside(name, layer), (path, name)
    for path, node, name in _imports(root, "schemas"):
        if name.split(".")[0] == "store":
            assert name == "store.terms" and [a.name for a in node.names] == ["ORDERBY"], path
    nested = [
        (path.name, name)
        for path, node, name in _imports(root, "app")
        if name.split(".")[0] == "app" and node.col_offset > 0 and path.name != "cli.py"
    ]
    assert nested == [], nested


def test_the_readme_says_which_setting_makes_the_cookie_secure_behind_a_proxy():
    """SPEC §16 `Secure` when the request is HTTPS: behind a proxy that takes believing
    X-Forwarded-Proto, which FORWARDED_ALLOW_IPS governs; its README row said so only of
    X-Forwarded-For (found by an outside check, chk16e D13)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    row = next(line for line in readme.splitlines() if line.startswith("| `FORWARDED_ALLOW_IPS`"))
    assert "X-Forwarded-Proto" in row and "Secure" in row, row


# The machine's clocks outside rules/clock.py: waits and deadlines only (docs/architecture.md).
REAL_CLOCKS = {
    ("app/arrival.py", "time.monotonic"),
    ("app/server_memory.py", "time.monotonic"),  # how often the heap is trimmed
    ("app/server.py", "time.monotonic"),  # how long a closing connection lingers
    ("app/tec_source.py", "time.monotonic"),
    ("app/tec_source.py", "time.time"),
    ("store/db.py", "time.monotonic"),
}


def test_calendar_time_is_read_from_the_one_clock():
    """docs/architecture.md: "rules/clock.py the one clock of calendar time". chk16a found
    datetime.now in app/ical.py and store/backup.py and date.today (the machine's date, not
    the site's) in app/pages/warming.py."""
    import ast
    import pathlib

    root = pathlib.Path(__file__).resolve().parent.parent
    reads = {"now", "utcnow", "today", "time", "monotonic", "perf_counter", "time_ns"}
    found = set()
    for layer in ("app", "store", "rules", "schemas"):
        for path in sorted((root / layer).rglob("*.py")):
            name = str(path.relative_to(root))
            if name == "rules/clock.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in reads
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id in ("datetime", "date", "time")
                ):
                    found.add((name, f"{node.func.value.id}.{node.func.attr}"))
    assert found == REAL_CLOCKS, sorted(found ^ REAL_CLOCKS)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_a_layer_loads_nothing_it_may_not_import_even_through_another_package(layer):
    """chk16a: schemas/media.py imported flask_smorest.fields, which loads Flask, and the
    test above compared top-level names only. A fresh interpreter imports every module of
    the layer; what it then holds must not include a package the layer may not import."""
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    modules = [
        ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        for path in sorted((root / layer).rglob("*.py"))
    ]
    code = "import importlib, sys\n"
    code += "".join(f"importlib.import_module({m!r})\n" for m in modules)
    code += "print(' '.join(sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    loaded = {name for name in done.stdout.split() if _outside(name, layer)}
    assert not loaded, sorted(loaded)


def _index_args(index, route, method):
    for endpoint in index["routes"][f"/calendar/events/v1{route}"]["endpoints"]:
        if method in endpoint["methods"]:
            return endpoint["args"]
    raise AssertionError(f"{method} {route} not in the index")


WP_STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")


def test_the_index_shows_the_interface_defaults_of_start_date_and_end_date(client):
    """interface.md 4.2.1: start_date's default is "a timestamp of the form YYYY-MM-DD
    HH:MM:SS", end_date's "a timestamp of the same form, later than the start_date
    default"; SPEC: everything interface.md states holds, and /doc shows every default."""
    args = _index_args(client.get(NS).get_json(), "/events", "GET")
    # The default window's bounds (yesterday 00:00:00, two years ahead 23:59:59), as the
    # listing reads them: sent back, they ask the same window, strict_dates or not.
    assert args["start_date"]["default"].endswith(" 00:00:00")
    assert args["end_date"]["default"].endswith(" 23:59:59")
    start, end = args["start_date"].get("default"), args["end_date"].get("default")
    assert isinstance(start, str) and WP_STAMP.match(start), args["start_date"]
    assert isinstance(end, str) and WP_STAMP.match(end), args["end_date"]
    assert end > start
    doc = client.get(f"{NS}/doc").get_json()
    params = {p["name"]: p for p in doc["paths"]["/events"]["get"]["parameters"]}
    assert WP_STAMP.match(str(params["start_date"]["schema"].get("default", "")))
    assert params["end_date"]["schema"]["default"] == end


def test_the_index_types_are_the_interfaces(client):
    """interface.md: listing `status` is a string (4.2.1, 4.3.1), term listing `slug` a
    string (4.5.1), venue `show_map`/`show_map_link` strings (2.2)."""
    index = client.get(NS).get_json()
    assert _index_args(index, "/events", "GET")["status"]["type"] == "string"
    assert _index_args(index, "/venues", "GET")["status"]["type"] == "string"
    assert _index_args(index, "/organizers", "GET")["status"]["type"] == "string"
    assert _index_args(index, "/categories", "GET")["slug"]["type"] == "string"
    venue_post = _index_args(index, "/venues", "POST")
    assert venue_post["show_map"]["type"] == "string"
    assert venue_post["show_map_link"]["type"] == "string"
    # /doc says the same of the listing's status (what the API accepts is unchanged).
    doc = client.get(f"{NS}/doc").get_json()
    params = {p["name"]: p for p in doc["paths"]["/events"]["get"]["parameters"]}
    assert params["status"]["schema"]["type"] == "string"
    # interface 4.3/4.4: the by-slug update of a venue or organizer takes "slug (string,
    # required), fields … optional" (only the event's by-slug update makes slug optional).
    for kind in ("venues", "organizers"):
        edit = _index_args(index, f"/{kind}/by-slug/(?P<slug>[^/]+)", "PUT")
        assert edit["slug"]["required"] is True, kind
    event_edit = _index_args(index, "/events/by-slug/(?P<slug>[^/]+)", "PUT")
    assert event_edit["slug"]["required"] is False


# Found by an outside check: /doc stated none of the limits validation enforces.
def _doc(client):
    return client.get(f"{NS}/doc").get_json()


def _body_schema(doc, path, method="post"):
    schema = doc["paths"][path][method]["requestBody"]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].split("/")[-1]]
    return schema["properties"]


def test_the_documented_search_parameter_states_the_length_validation_enforces(client):
    # The API refuses a 201-character search ("Is too long."); the document must say so.
    assert client.get(f"{NS}/events?search=" + "a" * 201).status_code == 400
    doc = _doc(client)
    search = next(p for p in doc["paths"]["/events"]["get"]["parameters"] if p["name"] == "search")
    assert search["schema"].get("maxLength") == 200, search


def test_the_documented_write_fields_state_their_length_limits(client, admin):
    assert (
        client.post(f"{NS}/categories", json={"name": "N" * 201}, headers=admin).status_code == 400
    )
    doc = _doc(client)
    assert _body_schema(doc, "/categories")["name"].get("maxLength") == 200
    assert _body_schema(doc, "/events")["password"].get("maxLength") == 255
    assert _body_schema(doc, "/events")["website"].get("maxLength") == 2000


def test_the_documented_page_parameter_states_its_minimum(client):
    assert client.get(f"{NS}/events?page=0").status_code == 400
    doc = _doc(client)
    page = next(p for p in doc["paths"]["/events"]["get"]["parameters"] if p["name"] == "page")
    assert page["schema"].get("minimum") == 1, page


def test_i18n_update_merges_every_catalog(app, tmp_path, monkeypatch):
    """README: "calendar i18n update # merge it into the fr/de/es catalogs" (its help:
    "every language's .po"), whatever languages one site offers (LANGUAGES; chk17o D6)."""
    import shutil

    import app.cli as cli

    folder = tmp_path / "translations"
    shutil.copytree(TRANSLATIONS, folder)
    monkeypatch.setattr(cli, "TRANSLATIONS", str(folder))
    app.config["LANGUAGES"] = ["en", "fr"]
    done = app.test_cli_runner().invoke(args=["i18n", "update"])
    assert done.exit_code == 0, done.output
    for lang in ("fr", "de", "es"):
        assert f"{lang}: " in done.output, done.output


def _defines(source: str, name: str) -> bool:
    """Whether ``source`` defines every part of ``name`` (``Class.method``): a def, a class,
    or a name given a value."""
    return all(
        re.search(
            r"(def|class)\s+%s\b|^\s*%s\s*[:=]|\b%s\s*=" % ((re.escape(part),) * 3), source, re.M
        )
        for part in name.split(".")
    )


def test_architecture_names_exist():
    """chk18r D1: docs/architecture.md's table of where each rule of the SPEC lives named two
    functions that did not exist (``_told_apart``, ``app/pages::_csp``); every ``path::name``
    it gives resolves, a folder meaning any module in it."""
    with open(os.path.join(ROOT, "docs", "architecture.md")) as handle:
        text = handle.read()
    refs = set(re.findall(r"`((?:app|store|rules|schemas)/[\w/]+(?:\.py)?)::([\w.]+)`", text))
    assert len(refs) > 300  # the pattern still reads the table
    missing = []
    for path, name in sorted(refs):
        target = os.path.join(ROOT, path)
        if os.path.isdir(target):
            files = glob.glob(os.path.join(target, "**", "*.py"), recursive=True)
        elif os.path.isfile(target) or os.path.isfile(target + ".py"):
            files = [target if os.path.isfile(target) else target + ".py"]
        else:
            missing.append(f"{path} (no such file)")
            continue
        sources = []
        for file in files:
            with open(file) as handle:
                sources.append(handle.read())
        if not _defines("\n".join(sources), name):
            missing.append(f"{path}::{name}")
    assert missing == []
