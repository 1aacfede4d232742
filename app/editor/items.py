"""The editor's venues, organizers, categories, tags and images: lists with search and
paging, forms to create and edit, trash or delete as the role allows. Each form is loaded
by the API's schema and written by the API's own pipeline (``VenueOrganizerRoutes.write``,
``TaxonomyRoutes.save``, the media upload's ``decode`` and ``save_media``)."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app, g, redirect, request, url_for
from marshmallow import ValidationError

from app.auth import may, may_read, require
from app.editor.event_form import password_asked, publication_input
from app.errors import ApiError, from_validation_error, invalid_params
from app.i18n import N_, _, translate
from app.render import media_out, render_context
from app.routes.categories import categories as category_routes
from app.routes.media import decode, deletion_refusal, read_at_most, too_large
from app.routes.organizers import organizers as organizer_routes
from app.routes.tags import tags as tag_routes
from app.routes.venues import venues as venue_routes
from rules.ids import is_digits
from rules.posts import effective_status
from schemas.linked import OrganizerCreate, OrganizerUpdate, VenueCreate, VenueUpdate
from schemas.terms import CategoryCreate, CategoryUpdate, TagCreate, TagUpdate
from store import images
from store.linked import LinkedFilters, get_linked, list_linked
from store.media import (
    delete_media,
    get_media,
    images_of,
    managed_images,
    save_media,
    usable_images,
)
from store.terms import (
    TermFilters,
    get_term,
    list_terms,
    term_names,
    terms_by_name,
)
from store.users import ANONYMOUS


@dataclass(frozen=True)
class Field:
    name: str  # the API's field name
    label: str  # marked for translation
    type: str = "text"  # text, textarea, url, email, number, status, parent, image
    # Left empty, the field says "none" where the API's schema takes only a non-empty
    # value (a term's slug and description, as the reference's): left out of a new item
    # (the slug made from the name), and on an edit the slug made anew from the name, the
    # description cleared.
    optional: bool = False


@dataclass(frozen=True)
class Kind:
    plural: str
    # Marked for translation, whole: "New venue", "Edit venue: %(name)s" (a word for the
    # kind put after "New" read "Nouveau · catégorie" in French, where the kind's gender
    # decides the adjective).
    new: str
    edit: str
    heading: str  # marked for translation
    name_field: str
    fields: tuple[Field, ...]
    create_schema: type
    update_schema: type
    routes: object
    is_term: bool = False


POST_FIELDS = (
    Field("description", N_("Description (HTML)"), "textarea"),
    Field("status", N_("Status"), "status"),
    Field("date", N_("Publish on"), "datetime-local"),  # the API's publication date
    # The API's ``password`` (SPEC §4), as an event's form has it: never shown back, left
    # empty it is unchanged, "Remove the protection" clears it.
    Field("password", N_("Password (empty: unchanged)"), "password"),
)
KINDS = {
    "venues": Kind(
        "venues",
        N_("New venue"),
        N_("Edit venue: %(name)s"),
        N_("Venues"),
        "venue",
        (
            Field("venue", N_("Name")),
            Field("address", N_("Address")),
            Field("city", N_("City")),
            Field("stateprovince", N_("State or province")),
            Field("zip", N_("Postal code")),
            Field("country", N_("Country")),
            Field("phone", N_("Phone")),
            Field("website", N_("Website"), "url"),
            Field("geo_lat", N_("Latitude"), "number"),
            Field("geo_lng", N_("Longitude"), "number"),
            Field("image", N_("Image"), "image"),
            *POST_FIELDS,
        ),
        VenueCreate,
        VenueUpdate,
        venue_routes,
    ),
    "organizers": Kind(
        "organizers",
        N_("New organizer"),
        N_("Edit organizer: %(name)s"),
        N_("Organizers"),
        "organizer",
        (
            Field("organizer", N_("Name")),
            Field("phone", N_("Phone")),
            Field("email", N_("Email"), "email"),
            Field("website", N_("Website"), "url"),
            Field("image", N_("Image"), "image"),
            *POST_FIELDS,
        ),
        OrganizerCreate,
        OrganizerUpdate,
        organizer_routes,
    ),
    "categories": Kind(
        "categories",
        N_("New category"),
        N_("Edit category: %(name)s"),
        N_("Categories"),
        "name",
        (
            Field("name", N_("Name")),
            Field("slug", N_("Slug"), optional=True),
            Field("parent", N_("Parent category"), "parent"),
            Field("description", N_("Description (HTML)"), "textarea", optional=True),
        ),
        CategoryCreate,
        CategoryUpdate,
        category_routes,
        is_term=True,
    ),
    "tags": Kind(
        "tags",
        N_("New tag"),
        N_("Edit tag: %(name)s"),
        N_("Tags"),
        "name",
        (
            Field("name", N_("Name")),
            Field("slug", N_("Slug"), optional=True),
            Field("description", N_("Description (HTML)"), "textarea", optional=True),
        ),
        TagCreate,
        TagUpdate,
        tag_routes,
        is_term=True,
    ),
}
PAGE_SIZE = 20


def kind_of(plural: str) -> Kind | None:
    return KINDS.get(plural)


def listing(kind: Kind, search: str, number: int, status: str = ""):
    """(items as dicts, the page's total) for the list page: venues and organizers with
    id, name and status, of one ``status`` when it is given (the trash too), else of any
    but the trash; terms (which have no status) with id, name, slug and their parent's
    name, which tell apart two categories of one name."""
    viewer = g.editor
    offset = (number - 1) * PAGE_SIZE
    if kind.is_term:
        filters = TermFilters(search=search or None, hide_empty=False)
        rows, total = list_terms(kind.routes.taxonomy, filters, viewer, offset, PAGE_SIZE)
        parents = term_names(row.parent for row in rows if row.parent)
        shown = [
            {
                "id": r.id,
                "name": r.name,
                "slug": r.slug,
                "parent": parents.get(r.parent, ""),
                "link": _link_of(kind, r, viewer),
            }
            for r in rows
        ]
        return shown, total
    statuses = (
        ["publish", "future", "draft", "pending", "private"] if viewer.has("edit_posts") else None
    )
    if status and viewer.has("edit_posts"):
        statuses = [status]
    filters = LinkedFilters(search=search or None, statuses=statuses)
    rows, total = list_linked(kind.routes.kind, filters, viewer, offset, PAGE_SIZE)
    shown = [
        {
            "id": r.id,
            "name": r.title,
            "status": effective_status(r),
            "link": _link_of(kind, r, viewer),
        }
        for r in rows
    ]
    return shown, total


# Each kind's public page (SPEC §15), by slug.
PUBLIC_PAGES = {
    "venues": "pages.venue_view",
    "organizers": "pages.organizer_view",
    "categories": "pages.category_view",
    "tags": "pages.tag_view",
}


def _link_of(kind: Kind, row, viewer) -> str:
    """Where a list's row leads: the item's form when this user may edit it; else its
    public page when anyone may read it; else nothing (""). As an event's row does
    (``app/editor::_link_of``): a form the user may not open is a "Nothing here" page."""
    if kind.is_term:
        editable = may(viewer, "manage_terms")
    else:
        editable = may(viewer, "edit", row, effective_status(row))
    if editable:
        return url_for("editor.edit_item", plural=kind.plural, item_id=row.id)
    return public_page(kind, row)


def public_page(kind: Kind, row) -> str:
    """The item's public page when anyone may read it (terms always), else ""."""
    if not kind.is_term and not may_read(ANONYMOUS, row):
        return ""
    return url_for(PUBLIC_PAGES[kind.plural], slug=row.slug)


def item_of(kind: Kind, item_id: int, action: str = "edit"):
    """The item, if this user may ``action`` it (terms: read by all, managed by editors and
    up), else None."""
    viewer = g.editor
    if kind.is_term:
        term = get_term(item_id, kind.routes.taxonomy)
        allowed = action == "read" or may(viewer, "manage_terms")
        return term if term is not None and allowed else None
    item = get_linked(kind.routes.kind, item_id)
    return item if item is not None and may_change(kind, item, action) else None


def gone(kind: Kind | None, item_id: int) -> bool:
    """Whether there is no item of ``kind`` numbered ``item_id`` (deleted for good, or
    never made), whoever asks."""
    if kind is None:
        return False
    if kind.is_term:
        return get_term(item_id, kind.routes.taxonomy) is None
    return get_linked(kind.routes.kind, item_id) is None


def may_change(kind: Kind, item, action: str = "edit") -> bool:
    """Whether this user may ``action`` the venue or organizer ``item``."""
    return may(g.editor, action, item, effective_status(item))


def values_of(kind: Kind, item) -> dict:
    if kind.is_term:
        return {
            "name": item.name,
            "slug": item.slug,
            "parent": str(item.parent or ""),
            "description": item.description,
        }
    values = {field.name: getattr(item, field.name, "") for field in kind.fields}
    values[kind.name_field] = item.title
    values["status"] = effective_status(item)
    values["date"] = publication_input(item.date)
    values["password"] = ""  # never shown back
    for key in ("geo_lat", "geo_lng"):
        values[key] = "" if values.get(key) is None else str(values[key])
    return values


def body_of(kind: Kind, form, item=None) -> dict:
    """The form as an API body: the fields it names, empty numbers and optional fields
    left out (``_emptied`` says what an edit's empty ones clear); the image only when
    the user chose another one (an image kept is not the user's to choose again: another
    user's, for a contributor)."""
    body = {}
    for field in kind.fields:
        if field.name not in form:
            continue
        value = form[field.name]
        if field.type == "image":
            if value != (getattr(item, "image", "") or ""):
                body["image"] = value
            continue
        if field.type == "password":  # empty: unchanged, unless its removal is asked
            if (password := password_asked(form)) is not None:
                body["password"] = password
            continue
        if (field.type in ("number", "datetime-local") or field.optional) and not value.strip():
            # no number; no publication date (now for a new item, else unchanged); an
            # optional field left empty (``_emptied`` says what an edit's clears)
            continue
        if field.type == "parent":  # none, or an id (anything else the schema refuses)
            value = int(value) if is_digits(value) else (value or 0)
        body[field.name] = value
    return body


# A new venue or organizer named as one the user may read but not edit: the write
# pipeline's de-duplication answers with that one, whose edit page would refuse them.
ALREADY_THERE = {
    "venues": N_("A venue named “%(name)s” already exists: choose it in the event form."),
    "organizers": N_("An organizer named “%(name)s” already exists: choose it in the event form."),
}


def save(kind: Kind, item=None):
    """The form through the schema and the API's write pipeline: (saved item, created,
    {}) or (None, False, field errors). ``created`` is false for an edit and for a new
    venue or organizer the pipeline's de-duplication found already there; one the user
    may not edit is refused beside its name (its edit page would refuse them)."""
    schema = kind.update_schema() if item is not None else kind.create_schema()
    try:
        loaded = schema.load(body_of(kind, request.form, item))
        loaded.update(_emptied(kind, request.form, item))
        if kind.is_term:
            saved, created = kind.routes.save(loaded, item), item is None
        else:
            saved, created = kind.routes.written(loaded, item)
    except ValidationError as error:
        return None, False, field_errors(from_validation_error(error, schema))
    except ApiError as error:
        if error.status in (401, 403):
            raise
        return None, False, field_errors(error)
    if item is None and not created and not may_change(kind, saved):
        return None, False, {kind.name_field: _(ALREADY_THERE[kind.plural], name=saved.title)}
    return saved, created, {}


def _emptied(kind: Kind, form, item) -> dict:
    """What an edit's emptied fields clear, where the API's schema has no word for it
    (it refuses "" for a term's slug and description and takes ``null`` as "not sent"):
    a number that had a value becomes None, an optional field "" (a term's slug made
    anew from the name, its description cleared); one that was empty stays so."""
    if item is None:
        return {}
    return {
        field.name: None if field.type == "number" else ""
        for field in kind.fields
        if (field.type == "number" or field.optional)
        and field.name in form
        and not form[field.name].strip()
        and getattr(item, field.name, None) not in (None, "")
    }


def field_errors(error: ApiError) -> dict:
    """An answer of the API's validation or write path as the form's errors by field."""
    if getattr(error, "param", ""):  # a conflict of one field (a term's name or slug)
        return {error.param: error.message}
    params = error.data.get("params")
    if isinstance(params, dict) and params:
        return {name: str(message) for name, message in params.items()}
    if isinstance(params, list):
        return {name: _("This field is required.") for name in params}
    return {"_form": error.message}


def in_trash(kind: Kind, item) -> bool:
    """Whether ``item`` is a venue or organizer in the trash (terms have no trash)."""
    return not kind.is_term and item.status == "trash"


def restore(kind: Kind, item) -> None:
    """A venue or organizer out of the trash as a draft, through its write pipeline, if
    still in the trash when written (else ``NotInTrash``)."""
    kind.routes.write(kind.update_schema().load({"status": "draft"}), item, from_trash=True)


def remove(kind: Kind, item) -> None:
    """Through the API's removal paths and their permissions, which decide from the item as
    it is when written: terms are deleted, venues and organizers go to the trash, or are
    deleted (``force``) when still there (else ``NotInTrash``)."""
    if kind.is_term:
        kind.routes.discard(item)
    else:
        trashed = in_trash(kind, item)
        kind.routes.discard(item, force=trashed, from_trash=trashed)


def parents(kind: Kind, item) -> list:
    if kind.plural != "categories":
        return []
    return [term for term in terms_by_name("category") if item is None or term.id != item.id]


def heading(kind: Kind, item=None) -> str:
    """The heading and title of an item's form: an edit names its item, as saved (two tabs
    of two venues told apart: WCAG 2.4.2)."""
    if item is None:
        return translate(kind.new)
    name = item.name if kind.is_term else item.title
    return _(kind.edit, name=name or _("(no title)"))


def labels(kind: Kind) -> dict:
    return {
        "heading": translate(kind.heading),
        "new": translate(kind.new),
        "fields": [(f, translate(f.label)) for f in kind.fields],
    }


# --- images -----------------------------------------------------------------------------


def library(viewer, number: int, search: str = "") -> tuple[list[dict], int]:
    """The images this user manages (their own; editors everyone's), newest first; with
    ``search``, those whose id or file name holds it, or that an event, venue or
    organizer whose title holds it shows."""
    offset = (number - 1) * PAGE_SIZE
    rows, total = images_of(managed_images(viewer), viewer, offset, PAGE_SIZE, search)
    ctx = render_context(viewer)
    return [media_out(row, ctx) for row in rows], total


LIBRARY_CHOICES = 50


@dataclass(frozen=True)
class ImageChoices:
    offered: list  # a page of the images this user may use, as image objects
    current: dict | str  # the item's own image when ``offered`` lacks it, else ""
    search: str  # what the images were searched for ("": the newest)
    page: int
    more: bool  # whether a next page holds more
    # Whether the form came back for its image buttons (a search, another page): the
    # images then take the focus, which would else be at the top of the page.
    browsed: bool = False


def image_choices(
    viewer, chosen: str, search: str = "", page: int = 1, browsed: bool = False
) -> ImageChoices:
    """What a form offers to choose an image from: a page of the images this user may
    use, newest first (with ``search``, as the library's search finds them), and the
    item's own image when the page lacks it (another user's, an older one: its object;
    an outside URL: the URL; else "")."""
    ctx = render_context(viewer)
    rows, page = _choices_page(viewer, search, page)
    offered = [media_out(row, ctx) for row in rows[:LIBRARY_CHOICES]]
    more = len(rows) > LIBRARY_CHOICES
    current: dict | str = ""
    if chosen and chosen not in {str(image["id"]) for image in offered}:
        found = get_media(chosen) if is_digits(chosen) else None
        current = media_out(found, ctx) if found is not None else chosen
    return ImageChoices(offered, current, search, page, more, browsed)


def _choices_page(viewer, search: str, page: int) -> tuple[list, int]:
    """The rows of page ``page`` of the images offered, and one more when there are; a page
    past the end (a form of before a deletion, a forged number) is the last page instead,
    whose "Newer images" leads to images, not to another empty page."""
    images = usable_images(viewer)
    offset = (page - 1) * LIBRARY_CHOICES
    rows, _none = images_of(images, viewer, offset, LIBRARY_CHOICES + 1, search, count=False)
    if rows or page == 1:
        return rows, page
    _rows, total = images_of(images, viewer, 0, 1, search)
    page = max(1, -(-total // LIBRARY_CHOICES))
    offset = (page - 1) * LIBRARY_CHOICES
    rows, _none = images_of(images, viewer, offset, LIBRARY_CHOICES + 1, search, count=False)
    return rows, page


def browsing_images(form) -> bool:
    """Whether the form asks for other images, saving nothing: a search, or a page of them
    (the form works without JavaScript: it comes back with what was typed)."""
    return "image_page" in form or searching_images(form)


def searching_images(form) -> bool:
    """Whether the form asks for an image search: its Search button, or Enter with a search
    typed that is not the one shown (``image_searched``). Without JavaScript, Enter in the
    search box presses the form's default button (``by_enter``), which would save instead
    (editor.js presses Search); Enter in another field with an unchanged search saves."""
    if "image_search_go" in form:
        return True
    typed, shown = form.get("image_search", ""), form.get("image_searched", "")
    return "by_enter" in form and typed.strip() != shown.strip()


def upload(viewer, param: str = "file"):
    """The form's file ``param`` through the upload route's decoding and storing; its
    errors name ``param`` (the library's form calls it file, the event form image)."""
    _data, processed = read_image(viewer, request.files.get(param), param)
    return save_media(
        processed, viewer.id, current_app.config["UPLOAD_FOLDER"], request.files[param].filename
    )


def read_image(viewer, storage, param: str) -> tuple[bytes, images.Processed]:
    """A form's file (``storage``) read and decoded as the upload route reads one: (its
    bytes, the image), or the route's refusal naming ``param``."""
    require(viewer, "upload_media")
    if storage is None or not storage.filename:
        raise invalid_params({param: _("Choose an image file.")})
    data = read_at_most(storage.stream, current_app.config["MAX_UPLOAD_BYTES"])
    if len(data) > current_app.config["MAX_UPLOAD_BYTES"]:  # the upload route's 413
        error = too_large()
        raise ApiError(error.code, error.message, 413, params={param: error.message})
    return data, decoded(data, param)


def decoded(data: bytes, param: str) -> images.Processed:
    """``data`` decoded as the upload route decodes it, its refusal naming ``param``."""
    try:
        return decode(data)
    except ApiError as error:  # the upload route's answer names its own field
        message = next(iter((error.data.get("params") or {"": error.message}).values()))
        raise invalid_params({param: message}) from None


def discard(media) -> None:
    """Removes an image this request stored for a write that then failed (or nothing)."""
    if media is not None:
        delete_media(media, current_app.config["UPLOAD_FOLDER"])


def deletable_image(viewer, media_id: int):
    """The image, if this user may delete it or is its owner refused for a reason the
    page gives (``deletion_refused``), else None."""
    media = get_media(media_id)
    if media is None:
        return None
    if may(viewer, "delete_media", media) or deletion_refused(viewer, media):
        return media
    return None


def deletion_refused(viewer, media) -> str:
    """Why this user may not delete the image they own (the API's rule and words:
    other users' items show it), or ""."""
    return deletion_refusal(viewer, media)


def delete_image(media) -> None:
    delete_media(media, current_app.config["UPLOAD_FOLDER"])


def back_to(plural: str, item_id: int):
    return redirect(url_for("editor.edit_item", plural=plural, item_id=item_id), 303)
