"""chk19t: a messier fake site of The Events Calendar (+Pro) on a sub-path (``/blog``)."""

from __future__ import annotations

import copy

from tests.tec_fake import TEC, FakeTEC, img_bytes


class MessyTEC(FakeTEC):
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
