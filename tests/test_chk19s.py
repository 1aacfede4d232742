"""Checker chk19s: this session's new surfaces attacked from outside (SPEC §9, §10, §15, §16,
§17; docs/deploy.md's sub-path). Each test fails on the code as it stands for its defect."""

import re

import pytest

from tests.conftest import NS, forget_all

HTML = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}


# --- D1: served under APPLICATION_ROOT, the links the calendar writes lose the path -----


@pytest.fixture
def blog(app, client, admin):
    """The calendar served under /blog as docs/deploy.md sets it (APPLICATION_ROOT and a
    SITE_URL of scheme and host), asked with whole paths as the proxy passes them on."""
    app.config["APPLICATION_ROOT"] = "/blog"
    app.config["SITE_URL"] = "http://localhost"
    forget_all(app)

    def get(path, **kw):
        return client.get(path, base_url="http://localhost/", **kw)

    def post(path, **kw):
        return client.post(path, base_url="http://localhost/", **kw)

    answer = post(
        f"/blog{NS}/events",
        headers=admin,
        json={
            "title": "Concert",
            "start_date": "2030-01-05 10:00",
            "end_date": "2030-01-05 11:00",
            "venue": {"venue": "Hall"},
        },
    )
    assert answer.status_code == 201, answer.get_json()
    get.event = answer.get_json()
    return get


def test_sub_path_item_url_keeps_the_path(blog):
    """docs/deploy.md: under APPLICATION_ROOT "every link the calendar writes keeps it";
    SPEC §2/§15: an item's url is a real page. It was http://localhost/event/concert/, a 404."""
    event = blog.event
    assert event["url"] == "http://localhost/blog/event/concert/"
    assert event["venue"]["url"] == "http://localhost/blog/venue/hall/"
    assert blog("/blog/event/concert/", headers=HTML).status_code == 200


def test_sub_path_page_head_links_keep_the_path(blog):
    """canonical, og:url and the hreflang alternates of a page under /blog name /blog/…"""
    html = blog("/blog/event/concert/", headers=HTML).get_data(as_text=True)
    canonical = re.search(r'rel="canonical" href="([^"]+)"', html).group(1)
    assert canonical == "http://localhost/blog/event/concert/"
    alternates = re.findall(r'hreflang="[^"]+" href="([^"]+)"', html)
    assert alternates and all(a.startswith("http://localhost/blog/") for a in alternates), (
        alternates
    )
    og = re.search(r'property="og:url" content="([^"]+)"', html).group(1)
    assert og.startswith("http://localhost/blog/")


def test_sub_path_sitemap_keeps_the_path(blog):
    """The sitemap lists pages that exist (under /blog), and robots.txt names that sitemap."""
    sitemap = blog("/blog/sitemap.xml").get_data(as_text=True)
    locs = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    assert locs and all(loc.startswith("http://localhost/blog/") for loc in locs), locs
    robots = blog("/blog/robots.txt").get_data(as_text=True)
    assert "Sitemap: http://localhost/blog/sitemap.xml" in robots


def test_sub_path_widget_reads_the_api_under_the_path(blog):
    """widget.js joins its API path to the script's origin: under /blog it must ask
    /blog/wp-json/… (it asked /wp-json/…, a 404: the widget showed no event)."""
    script = blog("/blog/widget.js").get_data(as_text=True)
    assert "/blog/wp-json/" in script or '"/blog"' in script, re.findall(r"var API = .*", script)


# --- D2: OPTIONS runs the sign-out view ------------------------------------------------


def test_options_at_signout_does_not_sign_out(sign_in):
    """OPTIONS is safe (RFC 9110 §9.2.1): at /manage/signout it says what the address takes
    and ends no session (it answered 303 and signed the user out)."""
    editor = sign_in("editor")
    answer = editor.open("/manage/signout", method="OPTIONS")
    assert answer.status_code == 200 and "POST" in answer.headers.get("Allow", "")
    assert editor.get("/manage/").status_code == 200, "the session was ended by an OPTIONS"


def test_sub_path_image_url_keeps_the_path(blog, client, admin):
    """An uploaded image's source_url under /blog is an address that serves it (it was
    http://localhost/wp-content/uploads/…, a 404; pages' <img> used it)."""
    from tests.helpers import image_bytes

    answer = client.post(
        "/blog/wp-json/wp/v2/media",
        base_url="http://localhost/",
        data=image_bytes(size=(40, 30)),
        headers={
            **admin,
            "Content-Type": "image/jpeg",
            "Content-Disposition": "attachment; filename=a.jpg",
        },
    )
    assert answer.status_code == 201, answer.get_json()
    url = answer.get_json()["source_url"]
    assert url.startswith("http://localhost/blog/wp-content/uploads/"), url
