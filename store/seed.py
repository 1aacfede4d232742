"""A realistic demo calendar: events over past and coming months, with venues,
organizers, categories and tags linked, some all-day, some in other timezones."""

from __future__ import annotations

import io
import random
from datetime import datetime, timedelta

import orjson

from store import dates, images
from store.clock import utcnow
from store.db import write_transaction
from store.media import save_media
from store.models import (
    Event,
    EventOrganizer,
    EventTerm,
    EventVenue,
    Node,
    Organizer,
    Term,
    Venue,
    live_value,
)
from store.posts import slugify

# Demo images: few, so seeding stays quick; about one event in IMAGE_EVERY shows one.
DEMO_IMAGES = 6
IMAGE_EVERY = 4
PALETTE = [
    ((233, 94, 60), (250, 205, 90)),
    ((40, 90, 160), (120, 200, 230)),
    ((60, 140, 90), (200, 230, 140)),
    ((120, 60, 150), (240, 150, 200)),
    ((30, 30, 60), (90, 110, 200)),
    ((180, 40, 70), (255, 170, 120)),
]

CITIES = [
    ("Paris", "France", "", "Île-de-France", 48.8566, 2.3522, "Europe/Paris"),
    ("Lyon", "France", "", "Auvergne-Rhône-Alpes", 45.764, 4.8357, "Europe/Paris"),
    ("Berlin", "Germany", "", "Berlin", 52.52, 13.405, "Europe/Berlin"),
    ("Madrid", "Spain", "", "Madrid", 40.4168, -3.7038, "Europe/Madrid"),
    ("New York", "United States", "NY", "", 40.7128, -74.006, "America/New_York"),
    ("Chicago", "United States", "IL", "", 41.8781, -87.6298, "America/Chicago"),
    ("London", "United Kingdom", "", "Greater London", 51.5074, -0.1278, "Europe/London"),
    ("Sydney", "Australia", "", "NSW", -33.8688, 151.2093, "Australia/Sydney"),
    ("Toronto", "Canada", "", "ON", 43.6532, -79.3832, "America/Toronto"),
    ("Tokyo", "Japan", "", "Tokyo", 35.6762, 139.6503, "Asia/Tokyo"),
]
CATEGORIES = {
    "Music": ["Jazz", "Rock", "Classical", "Electronic"],
    "Arts": ["Theatre", "Dance", "Exhibitions"],
    "Community": ["Markets", "Workshops"],
    "Sports": ["Running", "Cycling"],
    "Food & Drink": [],
}
TAGS = [
    "free",
    "family",
    "outdoor",
    "indoor",
    "evening",
    "weekend",
    "beginners",
    "accessible",
    "live",
    "festival",
    "online",
    "kids",
    "seniors",
    "students",
    "charity",
    "late-night",
    "summer",
    "winter",
    "local",
    "international",
]
WORDS = [
    "concert",
    "night",
    "festival",
    "workshop",
    "market",
    "tour",
    "exhibition",
    "session",
    "gala",
    "meetup",
    "show",
    "screening",
    "open day",
    "fair",
    "recital",
    "jam",
]
ADJECTIVES = [
    "Summer",
    "Winter",
    "Late",
    "Grand",
    "Little",
    "Open",
    "Jazz",
    "Electric",
    "Acoustic",
    "Community",
    "Spring",
    "Autumn",
    "Midnight",
    "Morning",
    "Great",
]


def _ids(kind: str, count: int) -> list[int]:
    # The ids the database gave (a PostgreSQL sequence may have skipped values, so they
    # need not follow the largest id).
    if not count:
        return []
    query = Node.insert_many([{"kind": kind}] * count).returning(Node.id).tuples()
    return sorted(row[0] for row in query.execute())


def demo_image(number: int, rng: random.Random) -> bytes:
    """A poster-like JPEG drawn with Pillow: a gradient, a few shapes, a caption."""
    from PIL import Image, ImageDraw

    low, high = PALETTE[number % len(PALETTE)]
    gradient = Image.linear_gradient("L").rotate(rng.choice([0, 90, 180, 270]))
    image = Image.merge(
        "RGB",
        [
            gradient.point(lambda v, a=a, b=b: a + (b - a) * v // 255)
            for a, b in zip(low, high, strict=True)
        ],
    ).resize((1200, 800))
    draw = ImageDraw.Draw(image)
    for _ in range(6):
        x, y, r = rng.randint(0, 1200), rng.randint(0, 800), rng.randint(40, 220)
        shade = tuple(min(255, c + rng.randint(-40, 60)) for c in high)
        draw.ellipse((x - r, y - r, x + r, y + r), outline=shade, width=rng.randint(4, 16))
    draw.rectangle((60, 620, 700, 740), fill=low)
    draw.text((90, 650), f"Demo event poster {number + 1}", fill=(255, 255, 255), font_size=48)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=85)
    return out.getvalue()


def demo_media(count: int, author: int, folder: str, rng: random.Random) -> list[int]:
    """Uploads ``count`` generated images as ``author``; returns their media ids."""
    ids = []
    for number in range(count):
        processed = images.process(demo_image(number, rng), images.DEFAULT_MAX_PIXELS)
        ids.append(save_media(processed, author, folder).id)
    return ids


def seed(
    events: int,
    author: int = 0,
    progress=None,
    rng: random.Random | None = None,
    upload_folder: str | None = None,
) -> dict:
    """Adds ``events`` events (and ``events // 20`` venues, ``events // 30`` organizers);
    with an ``upload_folder``, a few generated images, shown by some events and venues."""
    rng = rng or random.Random(2026)
    now = utcnow().replace(tzinfo=None, microsecond=0)
    stamp = dates.fmt(now)
    counts = {"events": events}
    media_ids = demo_media(DEMO_IMAGES, author, upload_folder, rng) if upload_folder else []
    counts["images"] = len(media_ids)
    with write_transaction():
        term_ids = {"category": [], "tag": []}
        for parent_name, children in CATEGORIES.items():
            parent = Term.get_or_none((Term.taxonomy == "category") & (Term.name == parent_name))
            parent = parent or Term.create(
                taxonomy="category", name=parent_name, slug=slugify(parent_name)
            )
            term_ids["category"].append(parent.id)
            for child in children:
                row = Term.get_or_none((Term.taxonomy == "category") & (Term.name == child))
                row = row or Term.create(
                    taxonomy="category", name=child, slug=slugify(child), parent=parent.id
                )
                term_ids["category"].append(row.id)
        for name in TAGS:
            row = Term.get_or_none((Term.taxonomy == "tag") & (Term.name == name))
            term_ids["tag"].append(
                (row or Term.create(taxonomy="tag", name=name, slug=slugify(name))).id
            )

        venue_count = max(1, events // 20)
        venue_rows = []
        for venue_id in _ids("venue", venue_count):
            city, country, state, province, lat, lng, _tz = rng.choice(CITIES)
            name = f"{rng.choice(ADJECTIVES)} {rng.choice(['Hall', 'Arena', 'Club', 'Park', 'Gallery', 'Theatre'])} {venue_id}"
            venue_rows.append(
                {
                    "id": venue_id,
                    "author": author,
                    "status": "publish",
                    "title": name,
                    "slug": f"{slugify(name)}",
                    "description": f"<p>A venue in {city}.</p>",
                    "date": stamp,
                    "date_utc": stamp,
                    "modified": stamp,
                    "modified_utc": stamp,
                    "address": f"{rng.randint(1, 200)} Main Street",
                    "city": city,
                    "country": country,
                    "state": state,
                    "province": province,
                    "stateprovince": state or province,
                    "zip": f"{rng.randint(10000, 99999)}",
                    "phone": f"+1 555 {rng.randint(1000, 9999)}",
                    "geo_lat": lat + rng.uniform(-0.2, 0.2),
                    "geo_lng": lng + rng.uniform(-0.2, 0.2),
                    "show_map": True,
                    "show_map_link": True,
                    "image": str(rng.choice(media_ids)) if media_ids and venue_id % 3 == 0 else "",
                }
            )
        for start in range(0, len(venue_rows), 500):
            Venue.insert_many(venue_rows[start : start + 500]).execute()
        organizer_count = max(1, events // 30)
        organizer_rows = []
        for organizer_id in _ids("organizer", organizer_count):
            name = f"{rng.choice(ADJECTIVES)} Society {organizer_id}"
            organizer_rows.append(
                {
                    "id": organizer_id,
                    "author": author,
                    "status": "publish",
                    "title": name,
                    "slug": slugify(name),
                    "description": "",
                    "date": stamp,
                    "date_utc": stamp,
                    "modified": stamp,
                    "modified_utc": stamp,
                    "email": f"hello{organizer_id}@example.org",
                    "phone": f"+1 555 {organizer_id % 10000:04d}",
                    "website": f"https://example.org/{organizer_id}",
                }
            )
        for start in range(0, len(organizer_rows), 500):
            Organizer.insert_many(organizer_rows[start : start + 500]).execute()
    counts.update(venues=venue_count, organizers=organizer_count)

    venue_ids = [row["id"] for row in venue_rows]
    venue_zone = {row["id"]: row for row in venue_rows}
    organizer_ids = [row["id"] for row in organizer_rows]
    batch = 1000
    done = 0
    while done < events:
        size = min(batch, events - done)
        with write_transaction():
            ids = _ids("event", size)
            rows, venue_links, organizer_links, term_links = [], [], [], []
            for event_id in ids:
                venue_id = rng.choice(venue_ids)
                city = next(c for c in CITIES if c[0] == venue_zone[venue_id]["city"])
                tz_name = city[6] if rng.random() < 0.3 else "UTC"
                tz = dates.resolve_timezone(tz_name)[0]
                day = now + timedelta(days=rng.randint(-180, 540))
                all_day = rng.random() < 0.1
                start = datetime(
                    day.year,
                    day.month,
                    day.day,
                    rng.choice([9, 10, 14, 18, 19, 20]),
                    rng.choice([0, 30]),
                )
                end = start + timedelta(hours=rng.choice([1, 2, 3]), days=rng.choice([0] * 9 + [2]))
                if all_day:
                    start, end = dates.snap_to_day_start(start), dates.snap_to_day_end(end)
                utc_start, utc_end = dates.local_to_utc(start, tz), dates.local_to_utc(end, tz)
                title = f"{rng.choice(ADJECTIVES)} {rng.choice(WORDS)} {event_id}"
                cost = rng.choice(["", "Free", "$10", "15€", ["$5", "$20"], "25"])
                rows.append(
                    {
                        "id": event_id,
                        "author": author,
                        "status": rng.choice(["publish"] * 18 + ["draft", "pending"]),
                        "title": title,
                        "slug": slugify(title),
                        "description": f"<p>{title} in {city[0]}. Bring friends.</p>",
                        "excerpt": "",
                        "date": stamp,
                        "date_utc": stamp,
                        "modified": stamp,
                        "modified_utc": stamp,
                        "start_date": dates.fmt(dates.utc_to_local(utc_start, tz)),
                        "end_date": dates.fmt(dates.utc_to_local(utc_end, tz)),
                        "utc_start": dates.fmt(utc_start),
                        "utc_end": dates.fmt(utc_end),
                        "timezone": tz_name,
                        "all_day": all_day,
                        "cost": orjson.dumps(cost).decode() if cost else "",
                        "featured": rng.random() < 0.1,
                        "image": (
                            str(rng.choice(media_ids))
                            if media_ids and rng.randrange(IMAGE_EVERY) == 0
                            else ""
                        ),
                        "show_map": True,
                        "show_map_link": True,
                    }
                )
                venue_links.append({"event": event_id, "venue": venue_id, "position": 0})
                for n, organizer_id in enumerate(
                    rng.sample(organizer_ids, min(len(organizer_ids), rng.choice([1, 1, 2])))
                ):
                    organizer_links.append(
                        {"event": event_id, "organizer": organizer_id, "position": n}
                    )
                chosen = rng.sample(term_ids["category"], rng.choice([1, 1, 2])) + rng.sample(
                    term_ids["tag"], rng.choice([0, 1, 2, 3])
                )
                for n, term_id in enumerate(chosen):
                    term_links.append(
                        {
                            "event": event_id,
                            "term": term_id,
                            "position": n,
                            "live": live_value(rows[-1]["status"]),
                        }
                    )
            Event.insert_many(rows).execute()
            EventVenue.insert_many(venue_links).execute()
            EventOrganizer.insert_many(organizer_links).execute()
            EventTerm.insert_many(term_links).execute()
        done += size
        if progress:
            progress(size)
    return counts
