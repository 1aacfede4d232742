"""The editor's event form and the API's body (SPEC §16): an event's representation as the
form shows it, and a posted form as the body ``POST``/``PUT /events`` takes, the field
names being the API's. Of an edit form only the fields the user changed are sent, so that
a save leaves alone what the form cannot show."""

from __future__ import annotations

import json
import re
from datetime import date, datetime

from flask import current_app

from app.auth import may_read, password_mark
from app.errors import ApiError, invalid_params
from app.i18n import N_, _, current_language, labelled, number, translate
from app.pages import formatting
from rules import dates
from store.linked import get_linked
from store.terms import find_term, terms_by_name

FLAGS = ("all_day", "featured", "sticky", "hide_from_listings")
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
DIGITS = re.compile(r"[0-9]{1,6}")


def values_of(event: dict) -> dict:
    """An event's representation as the form shows it (the API's field names)."""
    venues = event["venue"] if isinstance(event["venue"], list) else [event["venue"]]
    image = event.get("image") or {}
    values = {
        "title": event["title"],
        "description": event["description"],
        "start_date": _input_date(event["start_date"], event["all_day"]),
        "end_date": _input_date(event["end_date"], event["all_day"]),
        "timezone": event["timezone"],
        "venue": [str(venue["id"]) for venue in venues if venue],
        "organizer": [str(o["id"]) for o in event["organizer"]],
        "categories": _term_names(event["categories"], "category"),
        "tags": _term_names(event["tags"], "tag"),  # the store's name (the API says post_tag)
        "cost": event["cost"],
        "website": "" if event["website"] == event["url"] else event["website"],
        "status": event["status"],
        "date": publication_input(event["date"]),
        "recurrence": "\n".join(event.get("recurrence") or []),
        # An image of the library by its id; one stored as an outside URL by its URL.
        "image": str(image["id"]) if image.get("id") else image.get("url", ""),
    }
    values.update({flag: bool(event.get(flag)) for flag in FLAGS})
    values.update(_builder_of(event.get("recurrence") or [], start_day(values)))
    return with_start_weekday(values)


def with_start_weekday(values: dict) -> dict:
    """The "weekly on" days with the start's weekday ticked when none is (as calendar
    apps offer it, and as a weekly rule without days repeats: ``_builder_rule``)."""
    weekday = start_weekday(start_day(values))
    if not values.get("repeat_days") and weekday:
        values["repeat_days"] = [weekday]
    return values


# What the "repeats" builder shows; compared as the other fields are (``unchanged``).
BUILDER = ("repeat_freq", "repeat_days", "repeat_count", "repeat_until", "repeat_monthly")

# The fields whose errors the event form shows beside them (``error_of`` in
# templates/manage/event_form.html); an error of any other is said at the top of the form.
MARKED = (
    "title",
    "description",
    "start_date",
    "end_date",
    "timezone",
    "venue",
    "organizer",
    "categories",
    "tags",
    "image",
    "cost",
    "website",
    "password",
    "status",
)
SCHEDULING = ("date",)
REPEATS = (
    "repeat_freq",
    "repeat_monthly",
    "repeat_days",
    "repeat_count",
    "repeat_until",
    "recurrence",
)


def form_fields(statuses: list[str], occurrence: bool) -> tuple[str, ...]:
    """The fields the event form has for this user and event: a publication date only
    where the role may schedule (its statuses offer "future"), no recurrence fields on an
    occurrence's form (its dates follow its series' rule)."""
    fields = MARKED + (SCHEDULING if "future" in statuses else ())
    return fields + (() if occurrence else REPEATS)


_RULE_PART = re.compile(r"^(FREQ|BYDAY|COUNT|UNTIL|INTERVAL)=([^;]*)$")
_NTH_WEEKDAY = re.compile(r"^-?[1-5](MO|TU|WE|TH|FR|SA|SU)$")


def _builder_of(lines: list[str], start: date | None) -> dict:
    """The builder's fields for a series whose one rule it could have written (weekly on
    days, monthly on a day or a weekday, until a day or a number of times: the series'
    dates, ``times_of_count``); empty (the rule stays in the raw lines alone) for any other."""
    shown = {"repeat_freq": "", "repeat_days": [], "repeat_count": "", "repeat_until": ""}
    shown["repeat_monthly"] = "day"
    rules = [line[6:] for line in lines if line.upper().startswith("RRULE:")]
    if len(rules) != 1:
        return shown
    parts = {}
    for part in rules[0].upper().split(";"):
        match = _RULE_PART.match(part.strip())
        if match is None:
            return shown
        parts[match.group(1)] = match.group(2)
    frequency, days = parts.get("FREQ", ""), [d for d in parts.get("BYDAY", "").split(",") if d]
    if (
        frequency not in ("DAILY", "WEEKLY", "MONTHLY", "YEARLY")
        or parts.get("INTERVAL", "1") != "1"
    ):
        return shown
    if frequency == "WEEKLY" and not all(day in WEEKDAYS for day in days):
        return shown
    if frequency == "MONTHLY" and days and not (len(days) == 1 and _NTH_WEEKDAY.match(days[0])):
        return shown
    if frequency in ("DAILY", "YEARLY") and days:
        return shown
    until, weekly_days = parts.get("UNTIL", ""), days if frequency == "WEEKLY" else []
    shown.update(
        repeat_freq=frequency,
        repeat_days=weekly_days,
        repeat_count=times_of_count(parts.get("COUNT", ""), weekly_days, start),
        repeat_until=f"{until[:4]}-{until[4:6]}-{until[6:8]}" if len(until) >= 8 else "",
        repeat_monthly="weekday" if frequency == "MONTHLY" and days else "day",
    )
    return shown


def start_outside(days: list[str], start: date | None) -> bool:
    """Whether a weekly rule on ``days`` leaves out the series' ``start`` (a Thursday start
    of "Monday, Friday"). The series then has one date more than the rule's COUNT: the
    start is always a date of the series and the COUNT counts the rule's own dates, as
    dateutil reads it (README, *Recurring events*)."""
    weekday = start_weekday(start)
    return bool(days) and weekday is not None and weekday not in days


def times_of_count(count: str, days: list[str], start: date | None) -> str:
    """The builder's "number of times" for a weekly rule's COUNT: the series' dates."""
    if not DIGITS.fullmatch(count) or not start_outside(days, start):
        return count
    return str(int(count) + 1)


def _term_names(terms: list[dict], taxonomy: str) -> str:
    """Terms as the comma-separated field shows them: each by its name when the name
    names that term alone and holds no comma, else by its slug (else its id), so that
    saving the field unchanged links the same terms."""
    shown = []
    for term in terms:
        for label in (term["name"], term["slug"]):
            found = find_term(label, taxonomy) if "," not in label else None
            if found is not None and found.id == term["id"]:
                shown.append(label)
                break
        else:
            shown.append(str(term["id"]))
    return ", ".join(shown)


# The existing terms the categories and tags fields offer (a datalist; the first ones by
# name), and the length past which the names said under a field ("Existing: …") would be
# a paragraph to read rather than a hint: the field then says nothing.
TERMS_OFFERED = 500
HINT_MOST = 60


def term_choices() -> dict[str, dict]:
    """Of the categories and tags fields, the existing terms as the field takes them (by
    name, or by slug where the name holds a comma: ``_term_names``), and the hint naming
    them all when it stays short ("" otherwise)."""
    offered = {}
    for field, taxonomy in (("categories", "category"), ("tags", "tag")):
        terms = terms_by_name(taxonomy, TERMS_OFFERED + 1)
        names = list(dict.fromkeys(t.slug if "," in t.name else t.name for t in terms))
        hint = ", ".join(names)
        short = len(terms) <= TERMS_OFFERED and len(hint) <= HINT_MOST
        offered[field] = {"names": names[:TERMS_OFFERED], "hint": hint if short else ""}
    return offered


def _input_date(stored: str, all_day: bool) -> str:
    """A stored date as the date or datetime-local input takes it (seconds when any)."""
    moment = datetime.strptime(stored, "%Y-%m-%d %H:%M:%S")
    if all_day:
        return moment.strftime("%Y-%m-%d")
    return moment.strftime("%Y-%m-%dT%H:%M:%S" if moment.second else "%Y-%m-%dT%H:%M")


# A start or end as a date or datetime-local input writes it (seconds optional), or a
# space in place of the T.
_INPUT_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?))?")


def date_input(value: str, all_day: bool) -> tuple[str, str]:
    """The input type and value a start or end is shown in: a date input for an all-day
    event, date and time otherwise, with the value written as that input holds it (the
    time dropped, or midnight added): a browser shows an input empty whose value is not in
    its own form, and the next save lost the dates. A value typed in another form the API
    takes ("tomorrow 9am", from a form sent without the browser's inputs) is shown as
    typed, in a text input."""
    value = value.strip()
    match = _INPUT_DATE.fullmatch(value)
    if value and match is None:
        return "text", value
    if all_day:
        return "date", match.group(1) if match else ""
    if match is None:
        return "datetime-local", ""
    return "datetime-local", f"{match.group(1)}T{match.group(2) or '00:00'}"


def publication_input(stored: str) -> str:
    """A stored publication date (the API's ``date``, site time) as the "Publish on"
    input of the event, venue and organizer forms takes it."""
    return _input_date(stored, all_day=False)


# The fields an edit form sends only when the user changed them: a save leaves what was
# not touched as it is (a link the form cannot show, seconds, a series' occurrences).
COMPARED = (
    "title",
    "description",
    "status",
    "start_date",
    "end_date",
    "timezone",
    "venue",
    "organizer",
    "categories",
    "tags",
    "image",
    "recurrence",
    "website",
    "cost",
    "date",
)


def _comparable(field: str, value):
    """A field's value in the one form both the shown values and a posted form take."""
    if field in ("venue", "organizer", "repeat_days"):
        return sorted(str(item) for item in value if str(item))
    if field == "recurrence":
        return "\n".join(line.strip() for line in str(value).splitlines() if line.strip())
    return str(value).replace("\r\n", "\n").strip()  # a browser sends a textarea's CRLF


def shown_state(values: dict, password: str = "") -> str:
    """The compared fields as the form showed them, carried in a hidden field, with a mark
    of the event's ``password`` (``password_mark``)."""
    state = {field: _comparable(field, values.get(field, "")) for field in COMPARED + BUILDER}
    state.update({flag: bool(values.get(flag)) for flag in FLAGS})
    return json.dumps({**state, "password": password_mark(password)})


def _shown(form) -> dict:
    """The compared fields as the form showed them (its hidden field), or {}."""
    try:
        shown = json.loads(form.get("shown") or "{}")
    except (ValueError, RecursionError):
        return {}
    return shown if isinstance(shown, dict) else {}


# An image file kept from the form's last sending (app/editor/kept_images.py): the field
# carrying its token, the box that drops it, and the field carrying the library's choice
# the form showed beside it.
KEPT_IMAGE = "image_kept"
KEPT_IMAGE_DROPPED = "image_kept_drop"
KEPT_IMAGE_BESIDE = "image_kept_beside"


def kept_image_token(form) -> str:
    """The token of the kept image file the form asks to use ("": none, or dropped). An
    image of the library chosen after the form came back (other than the one it showed
    beside the kept file) is the user's latest choice: the kept file gives way to it."""
    library = form.get("image", "")
    if KEPT_IMAGE_DROPPED in form or (library and library != form.get(KEPT_IMAGE_BESIDE, "")):
        return ""
    return form.get(KEPT_IMAGE, "").strip()


def unchanged(form, files) -> set[str]:
    """The compared fields the user left as the form showed them."""
    shown = _shown(form)
    if not shown:
        return set()
    posted = _posted(form)
    same = {
        field for field in COMPARED + BUILDER if field in shown and shown[field] == posted[field]
    }
    if form.get("venue[venue]", "").strip():
        same.discard("venue")
    if (files.get("image") is not None and files["image"].filename) or kept_image_token(form):
        same.discard("image")  # a file chosen now, or kept from the form's last sending
    same |= {flag for flag in FLAGS if flag in shown and (flag in form) == bool(shown[flag])}
    if "all_day" not in same:
        same -= {"start_date", "end_date"}
    return same


# Fields that make one thing together: a change of one of them on either side is a change
# of the whole, so that a merge cannot join one side's start to the other's end (a rule
# then refused, on a form that shows neither) or one side's days to the other's rule.
TOGETHER = (
    ("all_day", "start_date", "end_date", "timezone"),
    ("recurrence", *BUILDER),
)

# The labels the event form shows its fields by (templates/manage/event_form.html).
LABELS = {
    "title": N_("Title"),
    "description": N_("Description (HTML)"),
    "all_day": N_("All day"),
    "start_date": N_("Start"),
    "end_date": N_("End"),
    "timezone": N_("Timezone"),
    "recurrence": N_("Recurrence lines (RRULE, RDATE, EXDATE)"),
    "repeat_freq": N_("Repeats"),
    "repeat_days": N_("Weekly on"),
    "repeat_monthly": N_("Monthly on"),
    "repeat_until": N_("Until"),
    "repeat_count": N_("Or a number of times"),
    "venue": N_("Venue"),
    "organizer": N_("Organizers"),
    "categories": N_("Categories (names, separated by commas)"),
    "tags": N_("Tags (names, separated by commas)"),
    "image": N_("Image"),
    "cost": N_("Cost"),
    "website": N_("Website"),
    "status": N_("Status"),
    "date": N_("Publish on"),
    "password": N_("Password (empty: unchanged)"),
    "featured": N_("Featured"),
    "sticky": N_("Sticky"),
    "hide_from_listings": N_("Hide from listings"),
}


def changed_on_both_sides(form, files, values_now: dict, password_now: str) -> list[str]:
    """The fields the user changed that were changed elsewhere too (another tab, another
    person) since the form was shown (``TOGETHER``: a field of a group changed on each side
    counts as the group's), by their labels: saving would undo that change unseen. A field
    only one side changed is merged by the save (the form sends only what its user
    changed, ``unchanged``)."""
    shown = _shown(form)
    if not shown:
        return []
    now = json.loads(shown_state(values_now, password_now))
    same = unchanged(form, files)
    if form.get("password") or "clear_password" in form:
        same.discard("password")
    else:
        same.add("password")
    posted = _posted(form)
    fields = [f for f in (*COMPARED, *BUILDER, *FLAGS, "password") if f in shown]
    mine = {f for f in fields if f not in same}
    theirs = {f for f in fields if now.get(f) != shown[f]}
    both = {f for f in mine & theirs if f == "password" or posted.get(f) != now.get(f)}
    for group in TOGETHER:
        if mine & set(group) and theirs & set(group):
            both |= mine & set(group)
    return [_(LABELS[f]) for f in fields if f in both]


def _posted(form) -> dict:
    """The compared fields and flags as the form was posted, as ``_comparable`` writes them."""
    lists = ("venue", "organizer", "repeat_days")
    posted = {
        field: _comparable(field, form.getlist(field) if field in lists else form.get(field, ""))
        for field in COMPARED + BUILDER
    }
    posted.update({flag: flag in form for flag in FLAGS})
    return posted


def typed(form) -> dict:
    """What the user typed, to show the form again as it was."""
    values = {key: form.get(key, "") for key in form}
    values["organizer"] = form.getlist("organizer")
    values["venue"] = form.getlist("venue")
    values.update({flag: flag in form for flag in FLAGS})
    values["repeat_days"] = form.getlist("repeat_days")
    return with_start_weekday(values)


# The "Repeats" choices, by the RFC 5545 frequency each writes: the form's options and
# the words a refused save shows the chosen one by.
FREQUENCIES = {
    "DAILY": N_("Daily"),
    "WEEKLY": N_("Weekly"),
    "MONTHLY": N_("Monthly"),
    "YEARLY": N_("Yearly"),
}


DATE_FIELDS = ("start_date", "end_date", "repeat_until", "date")


def typed_texts(form, files, viewer, choices: dict[str, dict[str, str]]) -> list[tuple[str, str]]:
    """What the user changed in a form that nothing saved (all it carries, of a post
    without the form's state), each field by its label with its value as text, to be
    copied: venues and organizers by their names, a choice by the words the form showed
    it by (``choices``: field, then code to words), never the password (never shown back)."""
    same = unchanged(form, files)
    if not _shown(form):
        same |= {flag for flag in FLAGS if flag not in form}
    texts = []
    for field, label in LABELS.items():
        if field in same or field == "password":
            continue
        if field in FLAGS:
            value = _("Ticked") if field in form else _("Not ticked")
        elif field in ("venue", "organizer"):
            value = ", ".join(_linked_name(field, item, viewer) for item in form.getlist(field))
        elif field in DATE_FIELDS:  # as the page's language writes a date, not ISO
            value = formatting.typed_date(form.get(field, "").strip(), current_language())
        elif field in choices:
            chosen = [item for item in form.getlist(field) if item.strip()]
            value = ", ".join(choices[field].get(item, item) for item in chosen)
        else:
            value = ", ".join(item.strip() for item in form.getlist(field) if item.strip())
        if value:
            texts.append((translate(label), value))
    for key, label in NEW_VENUE_LABELS.items():
        if form.get(f"venue[{key}]", "").strip():
            texts.append((translate(label), form[f"venue[{key}]"].strip()))
    return texts


def _linked_name(kind: str, item_id: str, viewer) -> str:
    """A venue's or organizer's name as the form offered it, else the id as sent."""
    row = get_linked(kind, item_id) if DIGITS.fullmatch(item_id) else None
    return row.title if row is not None and may_read(viewer, row) else item_id


# An end of the repeats typed with "Does not repeat" (both fields are shown, with or
# without the script): said, rather than dropped. One left as the form showed it is the
# end of a series whose repeats the user ends, and goes with them.
NO_FREQUENCY = N_("Choose how it repeats, or leave “Until” and “Or a number of times” empty.")


def _recurrence(form, same: set[str]) -> str | None:
    """The raw lines; or, when the "repeats" builder was changed (on a new form: chosen)
    and the raw lines were left empty or as the form showed them, the rule it writes, with
    the raw lines' other than RRULE (the dates trashed out of the series stay out)."""
    lines = form.get("recurrence", "").strip()
    frequency = form.get("repeat_freq", "")
    if frequency and frequency not in FREQUENCIES:
        raise invalid_params({"repeat_freq": _("Choose daily, weekly, monthly or yearly.")})
    if not set(form.getlist("repeat_days")) <= set(WEEKDAYS):  # only a forged form sends one
        raise invalid_params({"repeat_days": _("Choose days of the week among those offered.")})
    if form.get("repeat_monthly", "day") not in ("day", "weekday"):  # a forged form too
        raise invalid_params({"repeat_monthly": _("Choose one of the choices offered.")})
    ends = [field for field in ("repeat_until", "repeat_count") if form.get(field, "").strip()]
    if not frequency and set(ends) - same:  # an end typed, not one left as the form showed it
        raise invalid_params({"repeat_freq": _(NO_FREQUENCY)})
    if _builder_ends_or_clashes(form, same, frequency, lines):
        return ""
    moved = _moved_weekday(form, same)
    builder_used = bool(frequency) and (
        not set(BUILDER) <= same
        or moved is not None
        or _monthly_moved(form, same)
        or _count_moved(form, same)
    )
    # Lines changed to a rule of their own are the user's rule (the builder's, else refused
    # above); lines whose dates alone changed (EXDATE, RDATE) join the builder's rule.
    if ("recurrence" not in same and _rule_changed(form, lines)) or not builder_used:
        return lines if "recurrence" in form else None
    kept = [line for line in lines.splitlines() if line.strip() and not _is_rule(line)]
    rules = [line.upper() for line in lines.splitlines() if _is_rule(line)]
    # The days left as shown (the start's weekday, ticked for a rule that named none) keep
    # a rule that named none as it was: the same dates (RFC 5545: the start's weekday).
    dayless = "repeat_days" in same and bool(rules) and all("BYDAY=" not in r for r in rules)
    return "\n".join([_builder_rule(form, frequency, moved, dayless), *kept])


# The builder and the lines both changed and saying different repeats: which one the user
# meant is not ours to guess, and dropping either change without a word loses it.
BOTH_CHANGED = N_(
    "“Repeats” and the lines below say different things: change one of them and leave"
    " the other as it was."
)


def _builder_ends_or_clashes(form, same: set[str], frequency: str, lines: str) -> bool:
    """Whether the user ended the series: "Does not repeat" chosen over the rule the builder
    showed, the lines left as shown (README: the builder wins when it is used and the
    lines are left as shown). A builder change beside changed lines that name another rule
    is refused (400, beside the builder) rather than dropped (on a new form, a frequency
    chosen is the change); lines of dates alone
    (EXDATE, RDATE) name no rule and join the builder's. A form without them (an
    occurrence's, a post of some fields) changes neither."""
    if "recurrence" not in form or "repeat_freq" not in form or set(BUILDER) <= same:
        return False
    if not frequency and not _shown(form):
        # A new form's "Does not repeat (or the lines below)" is its default, not a choice:
        # the lines typed are the rule (SPEC §16: ``recurrence`` takes the raw lines).
        return False
    if lines and "recurrence" not in same:
        rules = _rules_of(lines)
        # "Does not repeat" beside a rule kept in the lines: the user's meaning is unclear.
        own = _rule_changed(form, lines) or (bool(rules) and not frequency)
        if own and rules != ([_builder_rule(form, frequency)] if frequency else []):
            raise invalid_params({"repeat_freq": _(BOTH_CHANGED)})
        return False
    return not frequency and "repeat_freq" not in same


def _moved_starts(form, same: set[str]) -> tuple[date, date] | None:
    """(the start's day as the form showed it, as it was sent) when the user moved it."""
    if "start_date" in same:
        return None
    before, after = start_day(_shown(form)), start_day(form)
    return (before, after) if before is not None and after is not None else None


def _moved_weekday(form, same: set[str]) -> str | None:
    """The new start's weekday, when the start moved to another weekday and the weekly
    rule's one day, left as shown, was the old start's weekday: the rule follows the start
    (as the script moves the day's box), else it would keep the old day. None otherwise."""
    moved = _moved_starts(form, same)
    if moved is None or form.get("repeat_freq") != "WEEKLY" or "repeat_days" not in same:
        return None
    before, after = (WEEKDAYS[day.weekday()] for day in moved)
    return after if before != after and form.getlist("repeat_days") == [before] else None


def _monthly_moved(form, same: set[str]) -> bool:
    """Whether a monthly rule on the start's weekday of the month (which the builder
    writes from the start, its label following the start) must be written again: the
    start moved to another weekday of the month."""
    moved = _moved_starts(form, same)
    if moved is None or form.get("repeat_freq") != "MONTHLY":
        return False
    before, after = moved
    return form.get("repeat_monthly") == "weekday" and (
        weekday_of_month(before) != weekday_of_month(after)
    )


def _count_moved(form, same: set[str]) -> bool:
    """Whether a weekly rule's COUNT must be written again for its "number of times" to
    stay the series' dates: the start moved onto one of its days, or off them."""
    moved = _moved_starts(form, same)
    if moved is None or form.get("repeat_freq") != "WEEKLY" or not form.get("repeat_count"):
        return False
    days = form.getlist("repeat_days")
    before, after = (start_outside(days, day) for day in moved)
    return before != after


def _rules_of(lines: str) -> list[str]:
    return [line.strip().upper() for line in lines.splitlines() if _is_rule(line)]


def _rule_changed(form, lines: str) -> bool:
    """Whether the lines name a rule other than the one they showed (README: "lines changed
    to another rule"); lines of dates alone, or whose rule is as shown, name none."""
    rules = _rules_of(lines)
    return bool(rules) and rules != _rules_of(str(_shown(form).get("recurrence", "")))


def _is_rule(line: str) -> bool:
    return line.strip().upper().startswith("RRULE")


def _builder_rule(
    form, frequency: str, moved_weekday: str | None = None, dayless: bool = False
) -> str:
    """The RRULE the builder's fields say (weekly on ``moved_weekday`` when the day
    follows the start, ``_moved_weekday``; on no day named when ``dayless``). Weekly with
    no day ticked (a form sent without the script) names none: RFC 5545 repeats it on the
    start's weekday, the day the form then shows ticked (``with_start_weekday``)."""
    rule = f"RRULE:FREQ={frequency}"
    days = [moved_weekday] if moved_weekday else form.getlist("repeat_days")  # checked: _recurrence
    named = frequency == "WEEKLY" and bool(days) and not (dayless and not moved_weekday)
    if named:
        rule += ";BYDAY=" + ",".join(days)
    if frequency == "MONTHLY" and form.get("repeat_monthly") == "weekday":
        rule += ";BYDAY=" + _weekday_of_month(start_day(form))
    return rule + _builder_end(form, days if named else [])


def _builder_end(form, days: list[str]) -> str:
    """The rule's end the builder's fields say: ``;COUNT=…`` for a number of times (of a
    weekly rule on ``days``), ``;UNTIL=…`` for a last date, or nothing."""
    count, until = form.get("repeat_count", "").strip(), form.get("repeat_until", "").strip()
    if count and until:  # as the API refuses COUNT with UNTIL: the user chooses, not the form
        raise invalid_params(
            {"repeat_count": _("Give an end date or a number of times, not both.")}
        )
    most = current_app.config["RECURRENCE_MAX"]
    if count:
        if not DIGITS.fullmatch(count) or not 1 <= int(count) <= most:
            raise invalid_params(
                {"repeat_count": _("Must be a whole number from 1 to %(most)s.", most=number(most))}
            )
        # "N times" is the series' N dates: a start the days leave out is one of them.
        rule_dates = int(count) - start_outside(days, start_day(form))
        if rule_dates < 1:
            raise invalid_params({"repeat_count": _(START_ALONE)})
        return f";COUNT={rule_dates}"
    if until:
        try:
            day = datetime.strptime(until, "%Y-%m-%d")
        except ValueError:
            raise invalid_params({"repeat_until": _("Must be a date.")}) from None
        start = start_day(form)
        if start is not None and day.date() < start:
            raise invalid_params({"repeat_until": _("The last date must not be before the start.")})
        # A date: the whole of that day in the event's zone (rules/recurrence.py).
        return ";UNTIL=" + day.strftime("%Y%m%d")
    return ""


# Once, on days that leave out the start, is the start alone: a rule would add a date.
START_ALONE = N_(
    "Once is the start alone (it is on none of the days ticked): choose “Does not repeat”,"
    " or 2 or more."
)


BODY_FIELDS = (
    "title",
    "description",
    "start_date",
    "end_date",
    "timezone",
    "cost",
    "website",
    "status",
    "date",
    "categories",
    "tags",
)


# Fields of the form whose value is a list (a text of ids or names, commas between).
LIST_FIELDS = ("categories", "tags")


def body(form, files, viewer, form_errors: dict) -> dict:
    """The form as an API body (the same field names), for the schema to load; of an edit
    form, the fields the user changed (``unchanged``). An uploaded image is not in it:
    the editor stores it once the rest is valid. The mistakes of the form's own fields (the
    recurrence builder, the password's two ways) go into ``form_errors`` (by field), the
    body then without that field, so that the rest of the form is checked too: all of its
    mistakes are shown at once.

    A post without the form's state (``shown``: a script's, or a new event's form) is
    read as the API reads a body: a checkbox or a list it does not carry is left as it is
    (SPEC §4), not emptied; the editor's own form says with its state that it has them."""
    same = unchanged(form, files)
    if not _shown(form):
        same |= {field for field in ("venue", "organizer", *FLAGS) if field not in form}
    body: dict = {key: form[key] for key in BODY_FIELDS if key in form and key not in same}
    for key in LIST_FIELDS:  # repeated, as the API takes a form-encoded list: each one whole
        if key in body and len(values := form.getlist(key)) > 1:
            body[key] = values
    try:
        password = password_asked(form)
    except ApiError as error:
        form_errors.update(error.data["params"])
        password = None
    if password is not None:
        body["password"] = password
    if "date" in body and not body["date"].strip():
        del body["date"]  # no publication date: now for a new event, else unchanged
    body.update({flag: flag in form for flag in FLAGS if flag not in same})
    new_venue = form.get("venue[venue]", "").strip()
    new_city = form.get("venue[city]", "").strip()
    if new_venue or new_city:  # the API's rule: a new venue needs its name
        body["venue"] = {"venue": new_venue, "city": new_city}
    elif "venue" not in same:
        body["venue"] = [venue for venue in form.getlist("venue") if venue]
    if "organizer" not in same:
        body["organizer"] = form.getlist("organizer")
    try:
        recurrence = _recurrence(form, same)
    except ApiError as error:
        form_errors.update(error.data.get("params") or {"recurrence": error.message})
        recurrence = None
    if recurrence is not None and (
        "recurrence" not in same or recurrence != form.get("recurrence", "").strip()
    ):
        body["recurrence"] = recurrence
    if "image" in form and "image" not in same:
        body["image"] = form["image"] or ""
    return body


BOTH_PASSWORD_WAYS = N_("Type a new password or tick “Remove the protection”, not both.")


def password_asked(form) -> str | None:
    """The password an event's, venue's or organizer's form asks for: the one typed, ""
    when "Remove the protection" is ticked, None to keep it (the field left empty: it is
    never shown). A password typed with the box ticked is refused: either choice would
    drop the other without a word."""
    typed, removed = form.get("password", ""), "clear_password" in form
    if typed and removed:
        raise invalid_params({"password": _(BOTH_PASSWORD_WAYS)})
    if removed:
        return ""
    return typed or None


def _weekday_of_month(day: date | None) -> str:
    """The start's weekday in its month as RFC 5545 writes it: 3TU for a third Tuesday,
    -1FR for a last Friday (a fifth one is the last)."""
    if day is None:
        raise invalid_params({"start_date": _("Must be a date.")})
    number, weekday = weekday_of_month(day)
    return f"{number}{WEEKDAYS[weekday]}"


def weekday_of_month(day: date) -> tuple[int, int]:
    """(its rank in the month: 1 to 4, or -1 for a fifth, the last; its weekday, Monday
    0) of ``day``: the "monthly on the same weekday" rule the builder writes."""
    number = (day.day - 1) // 7 + 1
    return (-1 if number == 5 else number), day.weekday()


def start_weekday(day: date | None) -> str | None:
    """The start's weekday as RFC 5545 names it (``MO``...), or None."""
    return WEEKDAYS[day.weekday()] if day is not None else None


def start_day(fields) -> date | None:
    """The day of the start in a form's ``fields`` (or the values it shows), as the API
    reads it in the event's zone: what the date inputs send (``2027-03-16T19:00``) and any
    other form the API takes, typed in a text input (``16.03.2027 19:00``, ``March 16,
    2027``). The builder's weekday, weekday of the month and end follow the day the event
    gets; None when the API would refuse the start (its error is then the form's)."""
    zone = str(fields.get("timezone") or "") or current_app.config["SITE_TIMEZONE"]
    try:
        tz, _name = dates.resolve_timezone(zone)
        return dates.parse_datetime(str(fields.get("start_date") or ""), tz).date()
    except dates.DateError:
        return None


# The new venue's fields as the form labels them (the API's message names its own keys).
NEW_VENUE_LABELS = {"venue": N_("The new venue's name"), "city": N_("The new venue's city")}


def new_venue_error(error: ApiError) -> dict:
    """The form's error for a new venue's mistake, its field named by the form's label."""
    field, message = getattr(error, "inline", ("", ""))
    if field not in NEW_VENUE_LABELS:
        return {}
    return {"venue": f"{labelled(translate(NEW_VENUE_LABELS[field]))} {message}"}


# "Monthly on" the same weekday, by the start's rank in its month (the script writes the
# labels again from these as the start changes: app/static/editor.js).
WEEKDAY_RANKS = (
    N_("the same weekday of the month (the first %(weekday)s)"),
    N_("the same weekday of the month (the second %(weekday)s)"),
    N_("the same weekday of the month (the third %(weekday)s)"),
    N_("the same weekday of the month (the fourth %(weekday)s)"),
    N_("the same weekday of the month (the last %(weekday)s)"),
)


def monthly_labels(day: date | None, weekday_names: list[str]) -> dict:
    """The "monthly on" choices as the start's ``day`` (as the form shows it) makes them, in
    the page's language, and what the script needs to write them again."""
    script = {
        "day": _("the same day of the month (day %(day)s)", day="{day}"),
        # A message of its own: French writes the first of the month "le 1er".
        "first": _("the same day of the month (day 1)"),
        "weekday": [translate(rank) % {"weekday": "{weekday}"} for rank in WEEKDAY_RANKS],
        "names": weekday_names,
        "plain": [
            _("the same day of the month as the start"),
            _("the same weekday of the month as the start"),
        ],
    }
    if day is None:
        return {"day": script["plain"][0], "weekday": script["plain"][1], "script": script}
    number, weekday = weekday_of_month(day)
    rank = translate(WEEKDAY_RANKS[number - 1 if number > 0 else 4])
    return {
        "day": script["first"] if day.day == 1 else script["day"].replace("{day}", str(day.day)),
        "weekday": rank % {"weekday": weekday_names[weekday]},
        "script": script,
    }
