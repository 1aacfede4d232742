"""A realistic demo calendar: events over past and coming months, with venues,
organizers, categories and tags linked, some all-day, some in other timezones.

What a seed writes is marked (the ids of its events, venues, organizers, images and the
terms it created, kept in the ``setting`` row ``demo_items``), so ``remove_demo`` takes it
out again and leaves the site's own items as they are."""

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

import orjson

from rules import dates
from rules.clock import utcnow
from store import images, texts
from store.db import (
    after_bulk_load,
    bulk_text_index,
    gather_statistics,
    insert_rows,
    upsert,
    write_transaction,
)
from store.linked import title_key
from store.media import file_names, remove_files, save_media
from store.models import (
    EVENT_TEXT_INDEX,
    Event,
    EventOrganizer,
    EventTerm,
    EventVenue,
    Media,
    Node,
    Organizer,
    Setting,
    Term,
    Venue,
    live_value,
)
from store.posts import slugify
from store.terms import create_term

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
CITY_NAMED = {city[0]: city for city in CITIES}
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


CHUNK = 2000  # events (venues, organizers) per bulk insert
# The most events one seed adds (`seed --events`): a million took 6.5 minutes and 94 MB at
# most (docs/architecture.md "Seeding"), as no list of the seed grows with each row; more
# would be a load test's job, not a demo's.
MAX_EVENTS = 1_000_000

SERIES_SHARE = 0.025  # with SERIES_LENGTH 5, about 10 % of the events are in a series
SERIES_LENGTH = 5


def _add_series(rows, members, tz, venue_links, organizer_links, term_links) -> None:
    """Makes the last row a weekly series and adds its other occurrences (ids ``members``),
    as store/recurrence.py stores them: same fields and links, ``post_parent`` the series."""
    series = rows[-1]
    series["recurrence"] = f"RRULE:FREQ=WEEKLY;COUNT={len(members) + 1}"
    start = dates.parse_stored(series["start_date"])
    duration = dates.parse_stored(series["end_date"]) - start
    links = [
        (table, [link for link in table if link["event"] == series["id"]])
        for table in (venue_links, organizer_links, term_links)
    ]
    for week, member in enumerate(members, start=1):
        local = start + timedelta(weeks=week)
        utc_start, utc_end = dates.local_to_utc(local, tz), dates.local_to_utc(local + duration, tz)
        rows.append(
            {
                **series,
                "id": member,
                "slug": f"{series['slug']}-{local:%Y-%m-%d}",
                "post_parent": series["id"],
                "occurrence": dates.fmt(local),
                "start_date": dates.fmt(dates.utc_to_local(utc_start, tz)),
                "end_date": dates.fmt(dates.utc_to_local(utc_end, tz)),
                "utc_start": dates.fmt(utc_start),
                "utc_end": dates.fmt(utc_end),
            }
        )
        for table, originals in links:
            table.extend({**link, "event": member} for link in originals)


def _ids(kind: str, count: int):
    """``count`` new ids from ``Node``, CHUNK at a time (the caller inserts each chunk's
    rows before it asks for the next): the ids the database gave (a PostgreSQL sequence
    may have skipped values, so they need not follow the largest id). The caller holds
    the write transaction."""
    for done in range(0, count, CHUNK):
        size = min(CHUNK, count - done)
        yield insert_rows(Node, [{"kind": kind}] * size, returning=True)


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
    site_timezone: str = "UTC",
) -> dict:
    """Adds ``events`` events (and ``events // 20`` venues, ``events // 30`` organizers) in
    one write transaction, with bulk inserts of prepared statements: 100,000 events take
    seconds, not minutes. The term links' ``live`` copies and the term counts are kept
    by the same values and triggers as any write; the text index is fed once, at the end.
    With an ``upload_folder``, a few generated images, shown by some events and venues;
    about one event in ten belongs to a weekly series. Publication dates (``date``) are
    written in ``site_timezone``, as the API's writes make them."""
    rng = rng or random.Random(2026)
    now = utcnow().replace(tzinfo=None, microsecond=0)
    stamp = dates.fmt(now)
    site_zone = dates.resolve_timezone(site_timezone)[0]
    published = dates.publication_dates({"date_utc": stamp}, site_zone, creating=True)
    counts = {"events": events}
    media_ids = demo_media(DEMO_IMAGES, author, upload_folder, rng) if upload_folder else []
    counts["images"] = len(media_ids)
    made = {"media": _ranges(media_ids)}
    with write_transaction(), bulk_text_index(*EVENT_TEXT_INDEX):
        made.update(_seed(events, author, progress, rng, now, stamp, counts, media_ids, published))
        _remember(made, stamp)
        gather_statistics()  # before the commit makes the first texts
    after_bulk_load(texts.make_all)
    return counts


def _terms(created: list[int]) -> dict[str, list[int]]:
    """The demo categories and tags (reused when they exist): ids per taxonomy; the ids of
    those made here are added to ``created``."""
    term_ids = {"category": [], "tag": []}
    known = Term.select(Term.id).order_by(Term.id.desc()).limit(1).scalar() or 0
    for parent_name, children in CATEGORIES.items():
        parent = Term.get_or_none((Term.taxonomy == "category") & (Term.name == parent_name))
        parent = parent or create_term("category", parent_name, slugify(parent_name))
        term_ids["category"].append(parent.id)
        for child in children:
            row = Term.get_or_none((Term.taxonomy == "category") & (Term.name == child))
            row = row or create_term("category", child, slugify(child), parent=parent.id)
            term_ids["category"].append(row.id)
    for name in TAGS:
        row = Term.get_or_none((Term.taxonomy == "tag") & (Term.name == name))
        term_ids["tag"].append((row or create_term("tag", name, slugify(name))).id)
    created.extend(i for ids in term_ids.values() for i in ids if i > known)
    return term_ids


@dataclass
class _Demo:
    """What every demo event draws from."""

    rng: random.Random
    now: datetime
    post: dict
    term_ids: dict
    media_ids: list
    venue_city: dict
    venue_ids: list
    organizer_ids: list
    zones: dict


def _seed(
    events, author, progress, rng, now, stamp, counts, media_ids, published
) -> dict[str, list]:
    post = {
        "author": author,
        "status": "publish",
        **published,  # date (the site's time) and date_utc
        "modified": stamp,
        "modified_utc": stamp,
    }
    created_terms = []
    term_ids = _terms(created_terms)
    venue_city = _venues(max(1, events // 20), post, rng, media_ids)
    organizer_ids = _organizers(max(1, events // 30), post, rng)
    counts.update(venues=len(venue_city), organizers=len(organizer_ids))
    demo = _Demo(
        rng=rng,
        now=now,
        post=post,
        term_ids=term_ids,
        media_ids=media_ids,
        venue_city=venue_city,
        venue_ids=list(venue_city),
        organizer_ids=organizer_ids,
        zones={name: dates.resolve_timezone(name)[0] for name in {c[6] for c in CITIES} | {"UTC"}},
    )
    event_runs = []
    for ids in _ids("event", events):  # in chunks: bounded memory, a progress bar that moves
        _insert_events(ids, demo)
        event_runs += _ranges(ids)  # runs, not a million ids
        if progress:
            progress(len(ids))
    return {
        "term": _ranges(created_terms),
        "venue": _ranges(demo.venue_ids),
        "organizer": _ranges(organizer_ids),
        "event": _merged(event_runs),
    }


# --- the marks, and taking the demo out again --------------------------------------------

DEMO_KEY = "demo_items"
KINDS = ("event", "venue", "organizer", "term", "media")
CHUNK_IDS = 500  # ids per IN (…) list


def _ranges(ids: list[int]) -> list[list[int]]:
    """Sorted ids as [first, last] runs: 100,000 consecutive event ids are one pair."""
    return _merged([[value, value] for value in ids])


def _merged(runs: list[list[int]]) -> list[list[int]]:
    """[first, last] runs, sorted, those that meet or overlap made one."""
    merged: list[list[int]] = []
    for first, last in sorted(runs):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return merged


def _marks() -> dict[str, list]:
    """The ids each kind of demo item was given, and ``stamps``: the modification times
    the seeds wrote (an event modified since is the site's own now)."""
    row = Setting.get_or_none(Setting.key == DEMO_KEY)
    stored = orjson.loads(row.value) if row else {}
    marks = {
        kind: [i for first, last in stored.get(kind, []) for i in range(first, last + 1)]
        for kind in KINDS
    }
    marks["stamps"] = stored.get("stamps", [])
    return marks


def _remember(made: dict[str, list[list[int]]], stamp: str) -> None:
    """Adds this seed's runs of ids to the marks (in its write transaction)."""
    row = Setting.get_or_none(Setting.key == DEMO_KEY)
    stored = orjson.loads(row.value) if row else {}
    marks = {kind: _merged(stored.get(kind, []) + made.get(kind, [])) for kind in KINDS}
    marks["stamps"] = sorted({*stored.get("stamps", []), stamp})
    upsert(Setting, key=DEMO_KEY, value=orjson.dumps(marks).decode())


def has_demo() -> bool:
    return Setting.select().where(Setting.key == DEMO_KEY).exists()


def holds_events() -> bool:
    """Whether the calendar holds any event (a demo added to it would mix with them)."""
    return Event.select().exists()


def _chunks(ids: list[int]):
    for start in range(0, len(ids), CHUNK_IDS):
        yield ids[start : start + CHUNK_IDS]


def remove_demo(upload_folder: str) -> dict[str, int]:
    """Takes out what the seeds wrote: their events not edited since (with any occurrence
    a series of theirs grew since), and of their venues, organizers, images and terms those
    no other item uses any more. Returns what was removed, ``edited`` (demo events the site
    changed, kept as its own) and ``kept`` (other demo items still in use)."""
    removed = dict.fromkeys(KINDS, 0)
    removed["kept"] = removed["edited"] = 0
    files: list[str] = []
    with write_transaction():
        marks = _marks()
        stamps = marks["stamps"]
        for chunk in _chunks(marks["event"]):
            rows = Event.select(Event.id, Event.modified_utc).where(Event.id.in_(chunk))
            gone = [row.id for row in rows if row.modified_utc in stamps]
            removed["edited"] += len(rows) - len(gone)
            members = Event.select(Event.id).where(
                Event.post_parent.in_(gone or [0]) & (Event.occurrence != "")
            )
            gone += [row.id for row in members if row.id not in set(chunk)]
            removed["event"] += _delete(Event, gone)
            Event.update(post_parent=0).where(Event.post_parent.in_(gone or [0])).execute()
        for kind, model, link in (
            ("venue", Venue, EventVenue.venue),
            ("organizer", Organizer, EventOrganizer.organizer),
        ):
            for chunk in _chunks(marks[kind]):
                used = {row[0] for row in link.model.select(link).where(link.in_(chunk)).tuples()}
                removed[kind] += _delete(model, [i for i in chunk if i not in used])
                removed["kept"] += len(used)
        for term_id in reversed(marks["term"]):  # children (made after their parent) first
            in_use = (
                EventTerm.select().where(EventTerm.term == term_id).exists()
                or Term.select().where(Term.parent == term_id).exists()
            )
            if in_use:
                removed["kept"] += Term.select().where(Term.id == term_id).exists()
            else:
                removed["term"] += Term.delete().where(Term.id == term_id).execute()
        for row in Media.select().where(Media.id.in_(marks["media"] or [0])):
            shown = any(
                model.select().where(model.image == str(row.id)).exists()
                for model in (Event, Venue, Organizer)
            )
            if shown:
                removed["kept"] += 1
                continue
            Media.delete().where(Media.id == row.id).execute()
            files += file_names(row)
            removed["media"] += 1
        Setting.delete().where(Setting.key == DEMO_KEY).execute()
    remove_files(upload_folder, files)
    texts.make_all()
    return removed


def _delete(model, ids: list[int]) -> int:
    if not ids:
        return 0
    # Their ``node`` rows stay, as after any delete: an id is never given twice.
    return model.delete().where(model.id.in_(ids)).execute()


def _venues(count: int, post: dict, rng: random.Random, media_ids: list) -> dict[int, tuple]:
    """Inserts ``count`` demo venues, CHUNK at a time; returns each one's city, by id."""
    cities = {}
    for ids in _ids("venue", count):
        rows = [_venue_row(venue_id, post, rng, media_ids) for venue_id in ids]
        insert_rows(Venue, rows)
        cities.update((row["id"], CITY_NAMED[row["city"]]) for row in rows)
    return cities


def _venue_row(venue_id: int, post: dict, rng: random.Random, media_ids: list) -> dict:
    city, country, state, province, lat, lng, _tz = rng.choice(CITIES)
    adjective = rng.choice(ADJECTIVES)
    kind = rng.choice(["Hall", "Arena", "Club", "Park", "Gallery", "Theatre"])
    name = f"{adjective} {kind} {venue_id}"
    return {
        **post,
        "id": venue_id,
        "title": name,
        "title_key": title_key(name),
        "slug": slugify(name),
        "description": f"<p>A venue in {city}.</p>",
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
        "image": str(rng.choice(media_ids)) if media_ids and venue_id % 3 == 0 else "",
        "show_map": True,
        "show_map_link": True,
    }


def _organizers(count: int, post: dict, rng: random.Random) -> list[int]:
    """Inserts ``count`` demo organizers, CHUNK at a time; returns their ids."""
    made = []
    for ids in _ids("organizer", count):
        insert_rows(Organizer, [_organizer_row(organizer_id, post, rng) for organizer_id in ids])
        made += ids
    return made


def _organizer_row(organizer_id: int, post: dict, rng: random.Random) -> dict:
    name = f"{rng.choice(ADJECTIVES)} Society {organizer_id}"
    return {
        **post,
        "id": organizer_id,
        "title": name,
        "title_key": title_key(name),
        "slug": slugify(name),
        "description": "",
        "email": f"hello{organizer_id}@example.org",
        "phone": f"+1 555 {organizer_id % 10000:04d}",
        "website": f"https://example.org/{organizer_id}",
    }


def _insert_events(ids: list[int], demo: _Demo) -> None:
    """One chunk of demo events, their links, and the weekly series some of them start."""
    rows, venue_links, organizer_links, term_links = [], [], [], []
    position = 0
    while position < len(ids):
        event_id = ids[position]
        position += 1
        row, venue_id, tz = _event_row(event_id, demo)
        rows.append(row)
        venue_links.append({"event": event_id, "venue": venue_id, "position": 0})
        rng = demo.rng
        for n, organizer_id in enumerate(
            rng.sample(demo.organizer_ids, min(len(demo.organizer_ids), rng.choice([1, 1, 2])))
        ):
            organizer_links.append({"event": event_id, "organizer": organizer_id, "position": n})
        chosen = rng.sample(demo.term_ids["category"], rng.choice([1, 1, 2])) + rng.sample(
            demo.term_ids["tag"], rng.choice([0, 1, 2, 3])
        )
        live = live_value(row["status"], row.get("password", ""))
        for n, term_id in enumerate(chosen):
            term_links.append({"event": event_id, "term": term_id, "position": n, "live": live})
        # About one event in ten belongs to a weekly series of SERIES_LENGTH.
        if rng.random() < SERIES_SHARE and position + SERIES_LENGTH - 1 <= len(ids):
            members = ids[position : position + SERIES_LENGTH - 1]
            position += len(members)
            _add_series(rows, members, tz, venue_links, organizer_links, term_links)
    insert_rows(Event, rows)
    insert_rows(EventVenue, venue_links)
    insert_rows(EventOrganizer, organizer_links)
    insert_rows(EventTerm, term_links)


def _event_row(event_id: int, demo: _Demo):
    """(the event's row, its venue id, its zone)."""
    rng = demo.rng
    venue_id = rng.choice(demo.venue_ids)
    city = demo.venue_city[venue_id]
    tz_name = city[6] if rng.random() < 0.3 else "UTC"
    tz = demo.zones[tz_name]
    day = demo.now + timedelta(days=rng.randint(-180, 540))
    all_day = rng.random() < 0.1
    start = datetime(
        day.year, day.month, day.day, rng.choice([9, 10, 14, 18, 19, 20]), rng.choice([0, 30])
    )
    end = start + timedelta(hours=rng.choice([1, 2, 3]), days=rng.choice([0] * 9 + [2]))
    if all_day:
        start, end = dates.snap_to_day_start(start), dates.snap_to_day_end(end)
    utc_start, utc_end = dates.local_to_utc(start, tz), dates.local_to_utc(end, tz)
    title = f"{rng.choice(ADJECTIVES)} {rng.choice(WORDS)} {event_id}"
    cost = rng.choice(["", "Free", "$10", "15€", ["$5", "$20"], "25"])
    status = rng.choice(["publish"] * 18 + ["draft", "pending"])
    row = {
        **demo.post,
        "id": event_id,
        "status": status,
        "title": title,
        "slug": slugify(title),
        "description": f"<p>{title} in {city[0]}. Bring friends.</p>",
        "excerpt": "",
        "start_date": dates.fmt(dates.utc_to_local(utc_start, tz)),
        "end_date": dates.fmt(dates.utc_to_local(utc_end, tz)),
        "utc_start": dates.fmt(utc_start),
        "utc_end": dates.fmt(utc_end),
        "timezone": tz_name,
        "all_day": all_day,
        "cost": orjson.dumps(cost).decode() if cost else "",
        "featured": rng.random() < 0.1,
        "image": (
            str(rng.choice(demo.media_ids))
            if demo.media_ids and rng.randrange(IMAGE_EVERY) == 0
            else ""
        ),
        "show_map": True,
        "show_map_link": True,
        "post_parent": 0,
        "recurrence": "",
        "occurrence": "",
        "detached": False,
    }
    return row, venue_id, tz
