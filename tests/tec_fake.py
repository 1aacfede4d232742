"""A fake site running The Events Calendar (an outside check's, chk18b), its answers shaped as
the SPEC's samples: a fuller site than ``test_import_tec.RecordedSite`` (drafts and private
events behind Basic auth, images, three levels of categories, 429 and 503 once), and
``MessyTEC``, a messier one on a sub-path (chk19t)."""

from __future__ import annotations

import base64
import copy
import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit

from PIL import Image

USER, APP_PW = "olduser", "abcd efgh ijkl mnop qrst uvwx"
TEC = "/wp-json/tribe/events/v1"


def img_bytes(fmt="JPEG", size=(800, 600), color=(200, 30, 30)):
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, fmt)
    return buf.getvalue()


def details(s):
    d, t = s.split(" ")
    y, m, dd = d.split("-")
    h, mi, se = t.split(":")
    return {"year": y, "month": m, "day": dd, "hour": h, "minutes": mi, "seconds": se}


class FakeTEC:
    def __init__(self):
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.host = "127.0.0.1"
        self.asked: list[str] = []
        self.fail_once: dict[str, tuple] = {}  # path prefix -> (status, headers) served once
        self.per_page_default = 10
        self.images = {
            "/wp-content/uploads/2026/01/poster.jpg": (
                "image/jpeg",
                img_bytes("JPEG", (1200, 900)),
            ),
            "/wp-content/uploads/2026/01/hall.png": (
                "image/png",
                img_bytes("PNG", (640, 480), (10, 100, 200)),
            ),
        }
        self.build()

    # ---------------------------------------------------------------- data
    def gid(self, i):
        return f"{self.host}?id={i}"

    def term(self, i, name, slug, tax, parent=0, count=1, description=""):
        kind = "categories" if tax == "tribe_events_cat" else "tags"
        t = {
            "id": i,
            "count": count,
            "description": description,
            "name": name,
            "slug": slug,
            "taxonomy": tax,
            "parent": parent,
            "meta": [],
            "url": f"{self.base}/events/{'category' if kind == 'categories' else 'tag'}/{slug}/",
            "urls": {
                "self": f"{self.base}{TEC}/{kind}/{i}",
                "collection": f"{self.base}{TEC}/{kind}",
            },
        }
        if tax == "post_tag":
            t.pop("parent")
        return t

    def _linked(self, i, kind, name, slug, status):
        """A venue's or organizer's post fields, as the plugin writes them."""
        return {
            "id": i,
            "author": "1",
            "status": status,
            "date": "2026-01-02 10:00:00",
            "date_utc": "2026-01-02 10:00:00",
            "modified": "2026-01-02 10:00:00",
            "modified_utc": "2026-01-02 10:00:00",
            "url": f"{self.base}/{kind}/{slug}/",
            kind: name,
            "slug": slug,
        }

    def venue(self, i, name, slug, status="publish", image=None, **extra):
        v = self._linked(i, "venue", name, slug, status)
        v.update(extra)
        if image:
            v["image"] = self.image_obj(image)
        v.update(
            {
                "show_map": True,
                "show_map_link": True,
                "global_id": self.gid(i),
                "global_id_lineage": [self.gid(i)],
            }
        )
        return v

    def organizer(self, i, name, slug, status="publish", **extra):
        o = self._linked(i, "organizer", name, slug, status)
        o.update(extra)
        o.update({"global_id": self.gid(i), "global_id_lineage": [self.gid(i)]})
        return o

    def image_obj(self, path):
        ct, data = self.images[path]
        im = Image.open(io.BytesIO(data))
        return {
            "url": self.base + path,
            "id": 900 + len(path),
            "extension": path.rsplit(".", 1)[1],
            "width": im.width,
            "height": im.height,
            "filesize": len(data),
            "sizes": {},
        }

    def event(
        self,
        i,
        title,
        slug,
        start,
        end,
        tz="UTC",
        utc_start=None,
        utc_end=None,
        status="publish",
        all_day=False,
        cats=(),
        tags=(),
        venue=None,
        orgs=(),
        cost="",
        values=(),
        symbol="",
        position="",
        featured=False,
        sticky=False,
        hide=False,
        image=None,
        website=None,
        modified="2026-01-03 10:00:00",
        description="<p>Desc</p>",
        excerpt="",
    ):
        e = {
            "id": i,
            "global_id": self.gid(i),
            "global_id_lineage": [self.gid(i)],
            "author": "1",
            "status": status,
            "date": "2026-01-03 10:00:00",
            "date_utc": "2026-01-03 10:00:00",
            "modified": modified,
            "modified_utc": modified,
            "url": f"{self.base}/event/{slug}/",
            "rest_url": f"{self.base}{TEC}/events/{i}",
            "title": title,
            "description": description,
            "excerpt": excerpt,
            "slug": slug,
            "image": self.image_obj(image) if image else False,
            "all_day": all_day,
            "start_date": start,
            "start_date_details": details(start),
            "end_date": end,
            "end_date_details": details(end),
            "utc_start_date": utc_start or start,
            "utc_start_date_details": details(utc_start or start),
            "utc_end_date": utc_end or end,
            "utc_end_date_details": details(utc_end or end),
            "timezone": tz,
            "timezone_abbr": tz,
            "cost": cost,
            "cost_details": {
                "currency_symbol": symbol,
                "currency_code": "",
                "currency_position": position,
                "values": list(values),
            },
            "website": website if website is not None else f"{self.base}/event/{slug}/",
            "show_map": True,
            "show_map_link": False,
            "hide_from_listings": hide,
            "sticky": sticky,
            "featured": featured,
            "categories": [self._embedded(self.cats[c]) for c in cats],
            "tags": [self._embedded(self.tags[t]) for t in tags],
            "venue": copy.deepcopy(self.venues[venue]) if venue else [],
            "organizer": [copy.deepcopy(self.orgs[o]) for o in orgs],
            "custom_fields": [],
        }
        return e

    def _embedded(self, t):
        e = {
            "name": t["name"],
            "slug": t["slug"],
            "term_group": 0,
            "term_taxonomy_id": t["id"],
            "taxonomy": t["taxonomy"],
            "description": t["description"],
            "parent": t.get("parent", 0),
            "count": t["count"],
            "filter": "raw",
            "id": t["id"],
            "urls": t["urls"],
        }
        return e

    def build(self):
        self.cats = {
            "music": self.term(11, "Music", "music", "tribe_events_cat"),
            "jazz": self.term(12, "Jazz", "jazz", "tribe_events_cat", parent=11),
            "bebop": self.term(13, "Bebop", "bebop", "tribe_events_cat", parent=12),
            "talks": self.term(
                14, "Talks", "talks", "tribe_events_cat", description="<p>Lectures</p>"
            ),
        }
        self.tags = {
            "outdoor": self.term(21, "Outdoor", "outdoor", "post_tag"),
            "family": self.term(22, "Family friendly", "family-friendly", "post_tag"),
        }
        self.venues = {
            "hall": self.venue(
                31,
                "Old Town Hall",
                "old-town-hall",
                address="1 Main St",
                city="Springfield",
                zip="12345",
                country="United States",
                phone="555-1234",
                website="https://hall.example.org/",
                image="/wp-content/uploads/2026/01/hall.png",
            ),
            "park": self.venue(32, "River Park", "river-park", city="Shelbyville"),
        }
        self.orgs = {
            "club": self.organizer(
                41,
                "Jazz Club",
                "jazz-club",
                email="club@example.org",
                phone="555-9999",
                website="https://club.example.org/",
            ),
            "uni": self.organizer(42, "City University", "city-university"),
        }
        ev = []
        ev.append(
            self.event(
                51,
                "Spring Concert",
                "spring-concert",
                "2027-04-10 19:30:00",
                "2027-04-10 22:00:00",
                tz="America/New_York",
                utc_start="2027-04-10 23:30:00",
                utc_end="2027-04-11 02:00:00",
                cats=["jazz", "music"],
                tags=["outdoor"],
                venue="hall",
                orgs=["club", "uni"],
                cost="$10 – $20",
                values=["10", "20"],
                symbol="$",
                position="prefix",
                featured=True,
                image="/wp-content/uploads/2026/01/poster.jpg",
                website="https://tickets.example.org/spring",
            )
        )
        ev.append(
            self.event(
                52,
                "Old Lecture",
                "old-lecture",
                "2020-03-01 10:00:00",
                "2020-03-01 11:00:00",
                cats=["talks"],
                venue="park",
                orgs=["uni"],
                cost="Free",
                values=["0"],
            )
        )
        ev.append(
            self.event(
                53,
                "Far Future Fair",
                "far-future-fair",
                "2031-06-01 09:00:00",
                "2031-06-03 17:00:00",
                tz="Europe/Paris",
                utc_start="2031-06-01 07:00:00",
                utc_end="2031-06-03 15:00:00",
                tags=["family"],
                sticky=True,
            )
        )
        ev.append(
            self.event(
                54,
                "All Day Market",
                "all-day-market",
                "2027-05-01 00:00:00",
                "2027-05-01 23:59:59",
                all_day=True,
                cats=["bebop"],
                venue="park",
            )
        )
        for k in range(5, 13):
            ev.append(
                self.event(
                    50 + k + 0,
                    f"Weekly Talk {k}",
                    f"weekly-talk-{k}",
                    f"2027-01-{k:02d} 18:00:00",
                    f"2027-01-{k:02d} 19:00:00",
                    cats=["talks"],
                )
            )
        # private items (only with credentials)
        self.private_events = [
            self.event(
                70,
                "Draft Party",
                "draft-party",
                "2027-02-01 20:00:00",
                "2027-02-01 23:00:00",
                status="draft",
                cats=["music"],
            ),
            self.event(
                71,
                "Private Dinner",
                "private-dinner",
                "2027-02-02 20:00:00",
                "2027-02-02 23:00:00",
                status="private",
            ),
        ]
        self.events = ev

    # ---------------------------------------------------------------- http
    def authed(self, headers):
        a = headers.get("Authorization", "")
        if not a.startswith("Basic "):
            return None
        try:
            u, p = base64.b64decode(a[6:]).decode().split(":", 1)
        except Exception:
            return False
        return (u == USER and p.replace(" ", "") == APP_PW.replace(" ", "")) or False

    def listing(self, kind, items, q, path):
        page = int(q.get("page", ["1"])[0])
        per = min(int(q.get("per_page", [str(self.per_page_default)])[0]), 50)
        total = len(items)
        pages = -(-total // per) if total else 0
        chunk = items[(page - 1) * per : page * per]
        if page > 1 and not chunk and kind in ("events", "venues", "organizers"):
            return (
                404,
                {},
                {
                    "code": f"{kind[:-1]}-archive-page-not-found",
                    "message": "The requested archive page does not exist",
                    "data": {"status": 404},
                },
            )
        args = {k: v[0] for k, v in q.items()}
        args["page"] = str(page)
        body = {}
        if kind in ("categories", "tags"):
            body = {
                "rest_url": f"{self.base}{TEC}/{kind}/",
                "total": total,
                "total_pages": pages,
                kind: chunk,
            }
            if page < pages:
                body["next_rest_url"] = f"{self.base}{TEC}/{kind}/?page={page + 1}"
        else:
            body = {kind: chunk, "rest_url": f"{self.base}{TEC}/{kind}/?" + urlencode(args)}
            if page < pages:
                n = dict(args, page=str(page + 1))
                body["next_rest_url"] = f"{self.base}{TEC}/{kind}/?" + urlencode(n)
            if page > 1:
                body["previous_rest_url"] = f"{self.base}{TEC}/{kind}/?" + urlencode(
                    dict(args, page=str(page - 1))
                )
            body["total"] = total
            body["total_pages"] = pages
        return 200, {"X-TEC-Total": str(total), "X-TEC-TotalPages": str(pages)}, body

    def answer(self, path, headers):
        u = urlsplit(path)
        q = parse_qs(u.query)
        p = u.path.rstrip("/") or "/"
        for prefix, (st, hd) in list(self.fail_once.items()):
            if path.startswith(prefix):
                del self.fail_once[prefix]
                return st, hd, {"code": "busy", "message": "busy", "data": {"status": st}}
        auth = self.authed(headers)
        if auth is False:
            return (
                401,
                {},
                {
                    "code": "incorrect_password",
                    "message": "The provided password is an invalid application password.",
                    "data": {"status": 401},
                },
            )
        if p in self.images_paths():
            ct, data = self.images[p]
            return 200, {"Content-Type": ct}, data
        if p == "/wp-json":
            return (
                200,
                {},
                {
                    "name": "Old Site",
                    "description": "",
                    "url": self.base,
                    "home": self.base,
                    "gmt_offset": "0",
                    "timezone_string": "UTC",
                    "namespaces": ["oembed/1.0", "tribe/events/v1", "wp/v2"],
                    "routes": {},
                },
            )
        if p == "/wp-json/wp/v2/users/me":
            if not auth:
                return (
                    401,
                    {},
                    {
                        "code": "rest_not_logged_in",
                        "message": "You are not currently logged in.",
                        "data": {"status": 401},
                    },
                )
            return 200, {}, {"id": 1, "name": USER, "slug": USER}
        if p == "/wp-json/wp/v2/tribe_events":
            evs = self.events + (self.private_events if auth else [])
            per = int(q.get("per_page", ["10"])[0])
            page = int(q.get("page", ["1"])[0])
            pages = max(1, -(-len(evs) // per))
            if page > pages:
                return (
                    400,
                    {},
                    {
                        "code": "rest_post_invalid_page_number",
                        "message": "bad page",
                        "data": {"status": 400},
                    },
                )
            return (
                200,
                {"X-WP-Total": str(len(evs)), "X-WP-TotalPages": str(pages)},
                [{"id": e["id"]} for e in evs[(page - 1) * per : page * per]],
            )
        if p == TEC:
            routes = {
                f"/tribe/events/v1/{k}": {"namespace": "tribe/events/v1", "methods": ["GET"]}
                for k in ("categories", "tags", "venues", "organizers", "events")
            }
            return 200, {}, {"namespace": "tribe/events/v1", "routes": routes}
        if p == TEC + "/categories":
            return self.listing(
                "categories", sorted(self.cats.values(), key=lambda t: t["name"]), q, path
            )
        if p == TEC + "/tags":
            return self.listing(
                "tags", sorted(self.tags.values(), key=lambda t: t["name"]), q, path
            )
        if p == TEC + "/venues":
            return self.listing("venues", list(self.venues.values()), q, path)
        if p == TEC + "/organizers":
            return self.listing("organizers", list(self.orgs.values()), q, path)
        if p == TEC + "/events":
            evs = self.events + (self.private_events if auth else [])
            evs = [e for e in evs if not e["hide_from_listings"]]
            sd = q.get("start_date", [None])[0]
            ed = q.get("end_date", [None])[0]
            if sd:
                evs = [e for e in evs if e["start_date"] >= sd[:19].ljust(10)]
            if ed:
                evs = [e for e in evs if e["end_date"] <= ed]
            if not sd and not ed:
                evs = [e for e in evs if "2026-11-28" <= e["start_date"] <= "2028-11-30"]
            evs.sort(key=lambda e: (e["utc_start_date"], e["id"]))
            return self.listing("events", evs, q, path)
        if p.startswith(TEC + "/events/"):
            i = int(p.rsplit("/", 1)[1])
            for e in self.events + (self.private_events if auth else []):
                if e["id"] == i:
                    return 200, {}, e
            return (
                404,
                {},
                {"code": "rest-event-not-found", "message": "nope", "data": {"status": 404}},
            )
        return (
            404,
            {},
            {
                "code": "rest_no_route",
                "message": "No route was found matching the URL and request method.",
                "data": {"status": 404},
            },
        )

    def images_paths(self):
        return set(self.images)

    def _handler(self):
        site = self

        class H(BaseHTTPRequestHandler):
            def do_GET(self):
                site.asked.append(self.path)
                st, hd, body = site.answer(self.path, self.headers)
                data = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(st)
                if "Content-Type" not in hd:
                    hd = dict(hd, **{"Content-Type": "application/json; charset=UTF-8"})
                for k, v in hd.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *a):
                pass

        return H

    def start(self):
        t = threading.Thread(target=self.server.serve_forever, daemon=True)
        t.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


class MessyTEC(FakeTEC):
    """A messier site (an outside check's, chk19t) on a sub-path (``/blog``): global_ids
    ``127.0.0.1/blog?id=N``, three levels of non-ASCII categories, a venue shared by nine
    events, three organizers on one, script/iframe descriptions, all-day multi-day events,
    Asia/Kolkata, ``UTC+5:30``, ``UTC+5.5``, images 404 / text/html / with a non-ASCII name,
    a password-protected event masked as the plugin masks it."""

    prefix = "/blog"

    def __init__(self):
        super().__init__()
        self.base = f"http://127.0.0.1:{self.port}{self.prefix}"
        self.images["/wp-content/uploads/2026/02/r%C3%A9sum%C3%A9.jpg"] = (
            "image/jpeg",
            img_bytes("JPEG", (400, 300)),
        )
        self.images["/wp-content/uploads/2026/02/not-an-image.jpg"] = (
            "text/html",
            b"<html>hi</html>",
        )
        self.build()
        self.mid_run = None  # callable run before answering events page 2

    def gid(self, i):
        return f"127.0.0.1{self.prefix}?id={i}"

    def image_obj(self, path):
        if path not in self.images or self.images[path][0] == "text/html":  # 404 / not an image
            return {
                "url": self.base + path,
                "id": 999,
                "extension": "jpg",
                "width": 10,
                "height": 10,
                "sizes": {},
            }
        return super().image_obj(path)

    def build(self):
        if (
            not hasattr(self, "prefix")
            or "127.0.0.1:" not in getattr(self, "base", "")
            or not self.base.endswith(self.prefix)
        ):
            super().build()
            return
        super().build()
        self.cats["musique"] = self.term(111, "Musique", "musique", "tribe_events_cat", count=3)
        self.cats["concerts"] = self.term(
            112, "Concerts à Paris", "concerts-a-paris", "tribe_events_cat", parent=111
        )
        self.cats["ete"] = self.term(
            113, "Été &amp; plein air", "%c3%a9t%c3%a9", "tribe_events_cat", parent=112
        )
        self.tags["nihongo"] = self.term(121, "日本語", "%e6%97%a5%e6%9c%ac%e8%aa%9e", "post_tag")
        self.tags["kinder"] = self.term(122, "Kinder &amp; Familie", "kinder-familie", "post_tag")
        self.venues["olympia"] = self.venue(
            131,
            "L&#8217;Olympia",
            "lolympia",
            address="28 Bd des Capucines",
            city="Paris",
            country="France",
            zip="75009",
        )
        self.orgs["a"] = self.organizer(141, "Anna Åström", "anna-astrom", email="anna@example.org")
        self.orgs["b"] = self.organizer(142, "Bob &amp; Co", "bob-co", phone="+33 1 23 45 67 89")
        self.orgs["c"] = self.organizer(143, "Chloé", "chloe")
        E = self.event
        ev = [
            E(
                201,
                "Café Concert",
                "caf%c3%a9-concert",
                "2027-03-05 20:00:00",
                "2027-03-05 23:00:00",
                tz="Europe/Paris",
                utc_start="2027-03-05 19:00:00",
                utc_end="2027-03-05 22:00:00",
                cats=["ete"],
                tags=["nihongo", "kinder"],
                venue="olympia",
                orgs=["a", "b", "c"],
                cost="10 – 20 €",
                values=["10", "20"],
                symbol="€",
                position="postfix",
                description='<p>Hello <script>alert(1)</script><iframe src="https://evil.example/"></iframe>'
                '<a href="javascript:alert(2)" onclick="x()">link</a> <strong>bold</strong></p>',
                image="/wp-content/uploads/2026/02/r%C3%A9sum%C3%A9.jpg",
            ),
            E(
                202,
                "Festival d&#8217;été",
                "festival-dete",
                "2027-07-01 00:00:00",
                "2027-07-03 23:59:59",
                all_day=True,
                tz="Europe/Paris",
                utc_start="2027-06-30 22:00:00",
                utc_end="2027-07-03 21:59:59",
                venue="olympia",
                cats=["concerts"],
                cost="Free",
                values=["0"],
                image="/wp-content/uploads/2026/02/missing.jpg",
            ),
            E(
                203,
                "Diwali Mela",
                "diwali-mela",
                "2027-10-29 18:00:00",
                "2027-10-29 21:00:00",
                tz="Asia/Kolkata",
                utc_start="2027-10-29 12:30:00",
                utc_end="2027-10-29 15:30:00",
                venue="olympia",
                cats=["musique"],
                image="/wp-content/uploads/2026/02/not-an-image.jpg",
            ),
            E(
                204,
                "Chennai Talk",
                "chennai-talk",
                "2027-11-02 10:00:00",
                "2027-11-02 11:00:00",
                tz="UTC+5:30",
                utc_start="2027-11-02 04:30:00",
                utc_end="2027-11-02 05:30:00",
                venue="olympia",
            ),
            E(
                205,
                "Mumbai Talk",
                "mumbai-talk",
                "2027-11-03 10:00:00",
                "2027-11-03 11:00:00",
                tz="UTC+5.5",
                utc_start="2027-11-03 04:30:00",
                utc_end="2027-11-03 05:30:00",
                venue="olympia",
            ),
        ]
        # Events Calendar Pro: a weekly series, each occurrence its own post (post_parent = 210)
        for k, day in enumerate(["2027-01-05", "2027-01-12", "2027-01-19"]):
            e = E(
                210 + k,
                "Yoga Class",
                "yoga-class",
                f"{day} 19:00:00",
                f"{day} 20:00:00",
                tz="Europe/Paris",
                utc_start=f"{day} 18:00:00",
                utc_end=f"{day} 19:00:00",
                venue="olympia",
                orgs=["a"],
                cats=["musique"],
            )
            e["url"] = f"{self.base}/event/yoga-class/{day}/"
            e["post_parent"] = 0 if k == 0 else 210
            ev.append(e)
        self.events = self.events + ev
        prot = E(
            220,
            "Secret Gig",
            "secret-gig",
            "2027-05-05 20:00:00",
            "2027-05-05 22:00:00",
            venue="olympia",
            cats=["musique"],
            description="<p>The secret band</p>",
        )
        self.protected_event = prot

    def masked(self, e):
        m = copy.deepcopy(e)
        for k in ("description", "excerpt"):
            m[k] = ""
        m.update(
            image=False,
            all_day=None,
            cost="",
            website="",
            show_map=None,
            show_map_link=None,
            hide_from_listings=None,
            sticky=None,
            featured=None,
            categories=[],
            tags=[],
            venue=[],
            organizer=[],
            custom_fields=[],
            cost_details={
                "currency_symbol": "",
                "currency_position": "",
                "currency_code": "",
                "values": [],
            },
        )
        return m

    def answer(self, path, headers):
        if path.startswith(self.prefix + "/") or path == self.prefix:
            path = path[len(self.prefix) :] or "/"
        else:
            if not path.startswith("/wp-content/"):
                return 404, {}, {"code": "rest_no_route", "message": "no", "data": {"status": 404}}
        auth = self.authed(headers)
        saved = self.events
        if self.protected_event:
            self.events = saved + [
                self.protected_event if auth else self.masked(self.protected_event)
            ]
        try:
            if self.mid_run and path.startswith(TEC + "/events?") and "page=2" in path:
                hook, self.mid_run = self.mid_run, None
                hook(self)
                saved = self.events[:-1] if self.protected_event else self.events
            return super().answer(path, headers)
        finally:
            self.events = saved


if __name__ == "__main__":
    import sys
    import time

    f = FakeTEC()
    f.server.server_close()
    f.server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), f._handler())
    f.port = int(sys.argv[1])
    f.base = f"http://127.0.0.1:{f.port}"
    f.build()
    f.fail_once = {TEC + "/events?": (429, {"Retry-After": "2"}), TEC + "/venues": (503, {})}
    f.start()
    print("serving", f.base, flush=True)
    while True:
        time.sleep(3600)
