"""Outside check chk16i: the languages of the pages, the editor and the API's messages
(SPEC §1 language roots, §15 and §16 "Accessible and translated"). Each test names one
defect found by walking the site under /fr/, /de/ and /es/ (see /tmp/w/chk16i.md)."""

import html
import re

import pytest

from tests.conftest import NS, event_form, saved_id


def page_text(answer) -> str:
    """A page's visible words: tags, scripts and styles left out, whitespace folded."""
    body = answer.get_data(as_text=True)
    body = re.sub(r"(?s)<(script|style|head)[^>]*>.*?</\1>", " ", body)
    body = re.sub(r"<[^>]+>", " ", body)
    return re.sub(r"\s+", " ", html.unescape(body))


# --- 1. German and Spanish: one form of address (Sie / usted), never du / tú -------------

INFORMAL = {
    "de": re.compile(r"\b(du|Du|dir|dich|dein\w*|darfst|bist)\b"),
    "es": re.compile(r"\b(tienes|puedes|has iniciado|estás|tu|tus)\b"),
}


@pytest.mark.parametrize("lang", ["de", "es"])
def test_no_informal_address_on_403_editor_page(sign_in, lang):
    """A contributor opening a form they may not use gets a page that addresses them as
    every other page of that language does (Sie / usted)."""
    contributor = sign_in("contributor")
    answer = contributor.get(f"/{lang}/manage/categories/new")
    assert answer.status_code in (403, 404)
    words = page_text(answer)
    assert not INFORMAL[lang].search(words), words


@pytest.mark.parametrize("lang", ["de", "es"])
def test_api_forbidden_message_formal_de_es(client, as_role, lang):
    """The API's messages under /de/ and /es/ use the same address as the pages."""
    anonymous = client.post(
        f"/{lang}{NS}/events",
        json={"title": "x", "start_date": "tomorrow 10am", "end_date": "tomorrow 11am"},
    )
    assert anonymous.status_code == 401
    contributor = as_role("contributor")
    forbidden = client.post(f"/{lang}{NS}/categories", json={"name": "Neu"}, headers=contributor)
    assert forbidden.status_code == 403
    statuses = client.get(f"/{lang}{NS}/events?status=draft")
    assert statuses.status_code == 400
    messages = [
        anonymous.get_json()["message"],
        forbidden.get_json()["message"],
        str(statuses.get_json()["data"]["params"]),
    ]
    for message in messages:
        assert not INFORMAL[lang].search(message), message


# --- 2. Plural forms: "Its 1 other dates" ------------------------------------------------

SINGULAR_WRONG = {
    "": "Its 1 other dates",
    "/fr": "Ses 1 autres dates",
    "/de": "Ihre 1 weiteren Termine",
    "/es": "Sus otras 1 fechas",
}


@pytest.mark.parametrize("root", ["", "/fr", "/de", "/es"])
def test_delete_confirm_one_other_date_singular(client, admin, make_event, sign_in, root):
    """Deleting for good a series of two dates says its one other date goes with it, in a
    sentence made for one (never "1 other dates")."""
    series = make_event(title="Duo", recurrence=["RRULE:FREQ=DAILY;COUNT=2"])
    assert client.delete(f"{NS}/events/{series['id']}", headers=admin).status_code == 200
    administrator = sign_in("administrator")
    answer = administrator.post(
        f"{root}/manage/events/{series['id']}/delete",
        data={"csrf_token": administrator.token},
    )
    assert answer.status_code == 200
    words = page_text(answer)
    assert "Duo" in words
    assert SINGULAR_WRONG[root] not in words, words
    assert not re.search(r"\b1 (other|autres|weiteren)\b|otras 1\b", words), words


# --- 3. Spanish: one event pending review is "Pendiente de revisión" ----------------------


def test_es_pending_status_singular(sign_in):
    contributor = sign_in("contributor")
    saved = contributor.post("/es/manage/events/new", data=event_form(contributor, title="Sub"))
    assert saved.status_code == 303
    dashboard = page_text(contributor.get("/es/manage/"))
    assert "Sub" in dashboard
    assert "· Pendientes de revisión" not in dashboard, dashboard
    assert "Pendiente de revisión" in dashboard
    form = contributor.get(f"/es/manage/events/{saved_id(saved)}").get_data(as_text=True)
    option = re.search(r'<option value="pending"[^>]*>([^<]*)</option>', form)
    assert option and option.group(1).strip() == "Pendiente de revisión", option


# --- 4. French / Spanish: no "un(e) … existant(e)" placeholder in messages ---------------


@pytest.mark.parametrize("lang", ["fr", "es"])
@pytest.mark.parametrize("kind", ["venue", "organizer"])
def test_unknown_venue_message_has_no_gender_placeholder(client, lang, kind):
    answer = client.get(f"/{lang}{NS}/events?{kind}=99999")
    assert answer.status_code == 400
    message = answer.get_json()["data"]["params"][kind]
    assert "(e)" not in message and "(a)" not in message, message


# --- 5. French: "Hide from listings" ------------------------------------------------------


def test_fr_hide_from_listings_label(sign_in):
    editor = sign_in("editor")
    form = editor.get("/fr/manage/events/new").get_data(as_text=True)
    label = re.search(r'<label for="hide_from_listings">([^<]*)</label>', form)
    assert label, "no label for hide_from_listings"
    assert label.group(1).strip() != "Masquer des listes", label.group(1)
    assert "dans les listes" in label.group(1) or "des listes d" in label.group(1)


# --- 6. French: one spelling of évènement -------------------------------------------------


def test_fr_one_spelling_of_evenement(sign_in):
    editor = sign_in("editor")
    words = page_text(editor.get("/fr/manage/events/new"))
    assert "évènement" in words
    assert "événement" not in words, [m for m in re.findall(r"[^.]*événement[^.]*", words)]


# --- 7. French: subjunctive after "rien … que" --------------------------------------------


@pytest.mark.parametrize("path", ["/fr/manage/nope", "/fr/manage/events/99999"])
def test_fr_editor_404_subjunctive(sign_in, path):
    editor = sign_in("editor")
    answer = editor.get(path)
    assert answer.status_code == 404
    words = page_text(answer)
    assert "que vous pouvez modifier" not in words, words
    assert "que vous puissiez modifier" in words


# --- 8. Costs written for the page's language ---------------------------------------------


@pytest.mark.parametrize("lang", ["fr", "de", "es"])
def test_numeric_cost_written_for_language(client, make_event, lang):
    event = make_event(title="Concert", cost="12.50")
    page = client.get(f"/{lang}/event/{event['slug']}/").get_data(as_text=True)
    cost = re.search(r'<p class="cost">(.*?)</p>', page, re.S)
    assert cost, "no cost on the page"
    words = re.sub(r"<[^>]+>", " ", cost.group(1))
    assert "12.50" not in words and "12,50" in words, words


# --- 9. Language links keep the page the user is on ---------------------------------------


def language_link(body: str, code: str) -> str:
    found = re.search(rf'<a href="([^"]*)" hreflang="{code}"', body)
    assert found, f"no language link to {code}"
    return html.unescape(found.group(1))


@pytest.mark.parametrize("status", ["trash", "draft", "pending"])
def test_language_links_keep_editor_status_tab(sign_in, status):
    editor = sign_in("editor")
    body = editor.get(f"/fr/manage/events/?status={status}").get_data(as_text=True)
    assert f"status={status}" in language_link(body, "de")


def test_language_links_keep_signin_next(client):
    answer = client.get("/fr/manage/events/50")
    assert answer.status_code in (302, 303)
    signin = client.get(answer.headers["Location"]).get_data(as_text=True)
    assert "next=" in language_link(signin, "de")


# --- 10. An unknown language in front of the API: rest_no_route, for browsers too ----------

BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"


@pytest.mark.parametrize("path", [f"/it{NS}/events", "/it/wp-json", f"/it{NS}/doc"])
def test_unknown_language_api_root_is_json_for_browsers(client, path):
    answer = client.get(path, headers={"Accept": BROWSER_ACCEPT})
    assert answer.status_code == 404
    assert answer.mimetype == "application/json", answer.mimetype
    assert answer.get_json()["code"] == "rest_no_route"


# --- 11. An inline venue's message names the API's field ---------------------------------


@pytest.mark.parametrize("lang", ["fr", "es", "de"])
def test_inline_venue_message_names_api_field(client, admin, lang):
    body = {
        "title": "x",
        "start_date": "2027-01-01 10:00",
        "end_date": "2027-01-01 11:00",
        "venue": {"venue": "V", "website": "bad"},
    }
    answer = client.post(f"/{lang}{NS}/events", json=body, headers=admin)
    assert answer.status_code == 400
    message = answer.get_json()["data"]["params"]["venue"]
    assert "website" in message, message


# --- 12. A heading starts with a capital, in French and Spanish too ----------------------


@pytest.mark.parametrize(
    "path",
    [
        "/fr/events/month/2026-12/",
        "/es/events/month/2026-12/",
        "/fr/events/2026-12-01/",
        "/es/events/2026-12-01/",
    ],
)
def test_month_and_day_headings_capitalised(client, path):
    body = client.get(path).get_data(as_text=True)
    heading = re.search(r"<h1[^>]*>([^<]*)</h1>", body).group(1).strip()
    assert heading[:1].isupper(), heading
    title = re.search(r"<title>([^<]*)</title>", body).group(1).strip()
    assert title[:1].isupper(), title
