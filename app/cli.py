"""Command line: ``calendar users …`` (or ``flask --app wsgi users …`` from the project
root), ``migrate``, ``seed``, ``import-ics``, ``import-tec``, ``backup``, ``restore``, ``copy-database``,
``i18n …``, ``recurrence extend``. Commands are module-level click commands, added to the
app by ``register_cli``; ``main`` is the ``calendar`` program that setup.cfg installs into
``.venv/bin``, which finds its project from any folder."""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from contextlib import contextmanager

import click
from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po
from flask import Flask, current_app, g
from flask.cli import AppGroup, with_appcontext

from app.config import LIMITS
from app.event_input import series_horizon
from app.i18n import TRANSLATIONS
from app.ical import NotICalendar, NotUTF8, read_events
from app.ical_bounds import Bounds, OverBound
from app.ical_import import import_events
from app.openapi import complete, doc_strings
from app.render import stored_texts_key
from app.routes.index import neutral_document
from app.tec_import import Importer
from app.tec_source import Source, SourceError, printable
from app.urls import site_address
from rules.text import counted, is_web_url
from schemas.events import IMPORT_STATUSES
from store import accounts, texts, users
from store.backup import BackupError, restore_backup, write_backup
from store.copy import CopyError, copy_database
from store.db import UnsupportedDatabase, database, one_run_at_a_time, settle_text_index
from store.models import EVENT_TEXT_INDEX
from store.recurrence import extend_series, open_ended_series
from store.schema import migrate, schema_version
from store.seed import MAX_EVENTS, has_demo, holds_events, remove_demo, seed
from store.users import Viewer

users_group = AppGroup("users", help="Manage users and their application passwords.")


@users_group.command("create")
@click.argument("name")
@click.option("--role", required=True, type=click.Choice(users.ROLES))
@click.option("--email", default="")
def create(name, role, email):
    """Create a user; prints its application password on the last line."""
    with database.connection_context():
        try:
            user, password = users.create_user(name, role, email)
        except users.UserError as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"Created {role} {user.login} (id {user.id}). Application password:")
    click.echo(password)


@users_group.command("password")
@click.argument("name")
def password(name):
    """Issue another application password; printed on the last line."""
    with database.connection_context():
        try:
            secret = users.issue_password(name)
        except users.UserError as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"New application password for {name}:")
    click.echo(secret)


@users_group.command("list")
def list_():
    """List users: role, active application passwords, whether they have an editor
    password, when they last signed in (UTC) and how many items they are the author of."""
    with database.connection_context():
        rows = users.list_users()
    click.echo(
        f"{'id':>4}  {'login':<20} {'role':<13} {'passwords':>9}  {'editor':<6}  "
        f"{'last sign-in (UTC)':<19}  {'items':>5}  email"
    )
    for row in rows:
        click.echo(
            f"{row['id']:>4}  {row['login']:<20} {row['role']:<13} {row['passwords']:>9}  "
            f"{'yes' if row['editor_password'] else 'no':<6}  "
            f"{row['last_sign_in'] or 'never':<19}  {row['items']:>5}  {row['email']}"
        )


@users_group.command("role")
@click.argument("name")
@click.argument("role", type=click.Choice(users.ROLES))
def role(name, role):
    """Give a user another role (the last administrator keeps theirs)."""
    with database.connection_context():
        try:
            before = users.set_role(name, role)
        except users.UserError as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"{name}: {before} -> {role}.")


@users_group.command("delete")
@click.argument("name")
@click.option(
    "--reassign",
    metavar="OTHER",
    default="",
    help="The user who becomes the author of NAME's events, venues, organizers and images.",
)
def delete(name, reassign):
    """Delete a user with their passwords and sessions; a user who is the author of items
    needs --reassign OTHER (nothing is deleted with them)."""
    with database.connection_context():
        try:
            moved = users.delete_user(name, reassign)
        except users.UserError as error:
            raise click.ClickException(str(error)) from None
        texts.make_all()  # the moved items' texts name their new author
    given = users.counted_items(moved)
    click.echo(f"Deleted {name}" + (f"; {given} now belong to {reassign}." if given else "."))


@users_group.command("revoke")
@click.argument("name")
def revoke(name):
    """Revoke all application passwords of a user, the editor password, its unused login
    links and its sessions."""
    with database.connection_context():
        try:
            count = users.revoke_passwords(name)
            accounts.revoke_browser_access(name)
        except users.UserError as error:
            raise click.ClickException(str(error)) from None
    click.echo(
        f"Revoked {counted(count, 'application password', 'application passwords')} of "
        f"{name}, the editor password and its "
        "sessions; `users login-link` gives access again."
    )


def printed_site(host_url) -> str:
    """The site's address in a link the CLI prints (``app/urls.py::site_address``), with
    the path the calendar is served under: ``APPLICATION_ROOT``, or the ``SCRIPT_NAME``
    gunicorn reads from the same environment."""
    config = current_app.config
    mount = config["APPLICATION_ROOT"].rstrip("/") or os.environ.get("SCRIPT_NAME", "")
    return site_address(config, mount.rstrip("/"), host_url)


@users_group.command("login-link")
@click.argument("name")
@with_appcontext
def login_link(name):
    """Print a one-time link (valid 24 hours) where the user sets the password of the
    editor (/manage/)."""
    with database.connection_context():
        try:
            token = accounts.login_link_token(name)
        except accounts.AccountError as error:
            raise click.ClickException(str(error)) from None
    host = os.environ.get("HOST", "127.0.0.1")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address, in brackets in a URL (as `make run` binds it)
    base = printed_site(lambda: f"http://{host}:{os.environ.get('PORT', '8000')}")
    click.echo(f"One-time link for {name} (valid {accounts.LINK_HOURS} hours):")
    click.echo(f"{base}/manage/set-password/{token}")


@click.command("migrate")
@with_appcontext
def migrate_command():
    """Create or migrate the database schema."""
    with database.connection_context():
        # Building the app already migrated (every entry point does): it kept the version
        # it found.
        before = current_app.extensions.get("calendar.migrated_from")
        before = schema_version() if before is None else before
        version = migrate()
        # Texts made by other code or for another site timezone are made again.
        texts.forget_other_texts(stored_texts_key(current_app.config["SITE_TIMEZONE"]))
        made = texts.make_all()
    if before == 0:
        click.echo("Created the database.")
    elif version != before:
        click.echo(f"Migrated the database from schema version {before} to {version}.")
    click.echo(f"Database at schema version {version}.")
    if made:
        click.echo(f"Made the stored texts of {counted(made, 'event', 'events')}.")


@click.command("seed")
@click.option(
    "--events",
    "count",
    type=click.IntRange(min=1, max=MAX_EVENTS),
    default=1000,
    show_default=True,
    help="Events to add.",
)
@click.option(
    "--author",
    default="",
    help="User name to own the items (default: the first administrator).",
)
@click.option("--force", is_flag=True, help="Add the demo to a calendar that holds events.")
@click.option("--remove", is_flag=True, help="Take out what earlier seeds added.")
@with_appcontext
def seed_command(count, author, force, remove):
    """Fill the database with a realistic demo calendar (marked: --remove takes it out)."""
    with database.connection_context():
        if remove:
            _remove_demo()
            return
        if holds_events() and not force:
            raise click.ClickException(
                "the calendar already holds events: the demo would mix with them "
                "(--force adds it anyway; seed --remove takes it out again)"
            )
        owner = _owner(author, required=False)
        with click.progressbar(length=count, label="Seeding events") as bar:
            counts = seed(
                count,
                author=owner.id if owner else 0,
                progress=bar.update,
                upload_folder=current_app.config["UPLOAD_FOLDER"],
                site_timezone=current_app.config["SITE_TIMEZONE"],
            )
    click.echo(
        f"Added {counted(counts['events'], 'demo event', 'demo events')}, "
        f"{counted(counts['venues'], 'venue', 'venues')}, "
        f"{counted(counts['organizers'], 'organizer', 'organizers')}, "
        f"{counted(counts['images'], 'image', 'images')}, owned by "
        + (
            f"{owner.login}."
            if owner
            else "no user (there is no administrator yet): editors and "
            "administrators can edit them; create one with "
            "`calendar users create NAME --role administrator`."
        )
        + " `calendar seed --remove` takes them out again."
    )


def _named_owner(author: str, required: bool = True):
    """The user ``--author`` names, else the first administrator (None, when not
    ``required``, if there is none yet): the owner of what a command writes."""
    owner = users.find_owner(author)
    if owner is None and (author or required):
        raise click.ClickException(
            f"no user {author!r}" if author else "no administrator: pass --author NAME"
        )
    return owner


def _owner(author: str, required: bool = True):
    """``_named_owner``, refused up front when they may write no event (a subscriber "may
    edit nothing"), as ``users delete --reassign`` refuses one, not event by event."""
    owner = _named_owner(author, required)
    if owner is not None and not Viewer(owner).has("edit_posts"):
        raise click.ClickException(
            f"--author {owner.login}: a {owner.role} cannot edit items; name a contributor or above"
        )
    return owner


def _remove_demo() -> None:
    if not has_demo():
        raise click.ClickException("no demo data to remove (nothing was seeded)")
    removed = remove_demo(current_app.config["UPLOAD_FOLDER"])
    click.echo(
        f"Removed {counted(removed['event'], 'demo event', 'demo events')}, "
        f"{counted(removed['venue'], 'venue', 'venues')}, "
        f"{counted(removed['organizer'], 'organizer', 'organizers')}, "
        f"{counted(removed['term'], 'category or tag', 'categories and tags')} and "
        f"{counted(removed['media'], 'image', 'images')}."
        + (
            f" Kept {counted(removed['edited'], 'demo event', 'demo events')} edited since "
            "(they are the site's own now)."
            if removed["edited"]
            else ""
        )
        + (
            f" Kept {counted(removed['kept'], 'demo item', 'demo items')} your own events use."
            if removed["kept"]
            else ""
        )
    )


@click.command("import-ics")
@click.argument("source")
@click.option(
    "--author",
    default="",
    help="User name to import as (default: the first administrator).",
)
@click.option(
    "--status",
    type=click.Choice(IMPORT_STATUSES),
    default=None,
    help="Status of new and updated events (default: publish; draft for contributors).",
)
@with_appcontext
def import_ics_command(source, author, status):
    """Import the events of an iCalendar file or http(s) URL (idempotent by UID)."""
    with database.connection_context():
        owner = _owner(author)  # before the source is fetched
        data = _read_source(source)
        try:  # the operator's own file: of any size, within the bounds of its form
            items = read_events(data, current_app.config["SITE_TIMEZONE"], Bounds())
        except NotUTF8:
            raise click.ClickException(f"{source}: not UTF-8 text (save it as UTF-8)") from None
        except NotICalendar:
            raise click.ClickException(f"{source}: not an iCalendar file") from None
        except OverBound as error:
            raise click.ClickException(f"{source}: {error}") from None
        with click.progressbar(length=len(items), label="Importing events") as bar:
            report = import_events(items, Viewer(owner), status, progress=bar.update)
        texts.make_all()  # each write made its first 500
        settle_text_index(*EVENT_TEXT_INDEX)
    click.echo(
        ", ".join(f"{len(report[k])} {k}" for k in ("created", "updated", "unchanged", "rejected"))
    )
    for outcome in ("created", "updated"):
        for entry in report[outcome]:
            if "note" in entry:
                click.echo(f"{outcome} {entry['uid']} ({entry['recurrence_id']}): {entry['note']}")
    for entry in report["rejected"]:
        click.echo(f"rejected {entry['uid']}: {entry['reason']}")


@click.command("import-tec")
@click.argument("site_url")
@click.option("--user", default="", help="User name of an account on the source site.")
@click.option("--password", default="", help="That account's application password.")
@click.option(
    "--author", default="", help="User name to import as (default: the first administrator)."
)
@click.option("--no-images", is_flag=True, help="Leave the images out (none is downloaded).")
@with_appcontext
def import_tec_command(site_url, user, password, author, no_images):
    """Bring a site of The Events Calendar (SITE_URL) into this calendar: its categories,
    tags, venues, organizers, events and images, with their slugs. Run it again to bring
    what changed; nothing is duplicated."""
    if bool(user) != bool(password):
        raise click.ClickException("--user and --password go together")
    with database.connection_context():
        owner = _named_owner(author)  # its own check of the author is stricter
        viewer = Viewer(owner)
        refused = Importer.author_refused(viewer)
        if refused:
            raise click.ClickException(f"--author {owner.login}: {refused}")
        with one_run_at_a_time("import-tec") as alone:
            if not alone:  # two runs would both create what neither has found yet
                raise click.ClickException(
                    "another import-tec is running on this calendar; run it again once it ends"
                )
            report, site = _import_tec(site_url, user, password, viewer, not no_images)
        texts.make_all()
        settle_text_index(*EVENT_TEXT_INDEX)
    _print_report(site, report, "Imported")
    if report.failures:
        raise SystemExit(1)


def _import_tec(site_url, user, password, viewer, images):
    """(report, the site read) of one run; a run stopped by the source ends in its
    error, after the report of what it imported before."""
    importer = None
    try:
        source = Source(site_url, user, password, notice=_said_on_stderr)
        # The write pipelines are the API's: they run as a request of the importing user.
        with current_app.test_request_context():
            g.viewer = viewer
            importer = Importer(source, viewer, images, _progress_bar)
            return importer.run(), source.site
    except SourceError as error:
        done = importer.report.counts.values() if importer is not None else ()
        if any(sum(counts.values()) for counts in done):  # what was done before it
            texts.make_all()
            _print_report(source.site, importer.report, "Imported before the run stopped")
            # Its own line: the error is printable already, the newline is ours.
            raise click.ClickException(f"{error}\nRun it again to bring the rest.") from None
        raise click.ClickException(str(error)) from None


def _print_report(site: str, report, heading: str) -> None:
    """The counts of each kind, then each failure and warning (SPEC §17)."""
    click.echo(printable(f"{heading} from {site}:"))
    click.echo(f"{'':<12}{'created':>9}{'updated':>9}{'unchanged':>11}{'failed':>8}")
    for kind, counts in report.counts.items():
        click.echo(
            f"{kind:<12}{counts['created']:>9}{counts['updated']:>9}"
            f"{counts['unchanged']:>11}{counts['failed']:>8}"
        )
    for failure in report.failures:
        click.echo(f"failed {failure}")
    for warning in report.warnings:
        click.echo(f"warning: {warning}")


def _said_on_stderr(text: str) -> None:
    click.echo(printable(text), err=True)


@contextmanager
def _progress_bar(kind: str, total: int | None):
    with click.progressbar(length=total or 0, label=f"Importing {kind}", show_pos=True) as bar:
        yield bar.update


@click.command("backup")
@click.argument("destination")
@with_appcontext
def backup_command(destination):
    """Write one archive (.tar.gz) of the calendar and its uploaded images to DESTINATION:
    a new file, or a folder to name it in (calendar-YYYYMMDD-HHMMSS.tar.gz). Safe while
    the server runs."""
    config = current_app.config
    with database.connection_context():
        try:
            path, manifest = write_backup(
                destination, config["CALENDAR_DATABASE"], config["UPLOAD_FOLDER"]
            )
        except BackupError as error:
            raise click.ClickException(str(error)) from None
    click.echo(f"Backed up {_contents(manifest)} to {path}")


@click.command("restore")
@click.argument("archive")
@click.option("--force", is_flag=True, help="Replace the calendar and images the site holds.")
@with_appcontext
def restore_command(archive, force):
    """Put the calendar and images of a `backup` archive into this site (an empty one,
    unless --force). Ids, slugs, users and their passwords come back as they were."""
    config = current_app.config
    try:
        manifest = restore_backup(
            archive, config["CALENDAR_DATABASE"], config["UPLOAD_FOLDER"], replace=force
        )
    except BackupError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"Restored {_contents(manifest)} from the backup of {manifest['created']}.")


def _contents(manifest: dict) -> str:
    """What an archive holds, as ``backup`` and ``restore`` say it."""
    rows = manifest["rows"]
    return (
        f"{counted(rows['event'], 'event', 'events')}, "
        f"{counted(rows['venue'], 'venue', 'venues')}, "
        f"{counted(rows['organizer'], 'organizer', 'organizers')}, "
        f"{counted(rows['term'], 'term', 'terms')}, {counted(rows['user'], 'user', 'users')} "
        f"and {counted(manifest['files'], 'image file', 'image files')}"
    )


@click.command("copy-database")
@click.argument("source")
@click.argument("target")
@with_appcontext  # the app's settings make the target's stored texts (store/texts.py)
def copy_database_command(source, target):
    """Copy the calendar in SOURCE into TARGET (a SQLite file or a postgresql:// URL)."""
    try:
        counts = copy_database(source, target)
    except (CopyError, UnsupportedDatabase) as error:
        raise click.ClickException(str(error)) from None
    click.echo(", ".join(f"{n} {table}" for table, n in counts.items() if n))


# A URL's scheme (RFC 3986 §3.1), read before anything else of it: urlsplit raises on a
# malformed host ("http://[::1"), and a file's path has none ("C:" is a drive, not one).
_SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]+):")


def _read_source(source: str) -> bytes:
    """The bytes of a file, or of an http(s) URL (no other scheme is fetched). A webcal://
    URL, as every page offers its feed to calendar applications, is read as they read it:
    over https, else over http when that fails (``make run`` serves the pages on http). A
    URL is checked by the one URL rule of every face (``is_web_url``) before it is fetched."""
    scheme = _SCHEME.match(source)
    scheme = scheme[1].lower() if scheme else ""
    if scheme in ("webcal", "http", "https"):
        rest = source[len(scheme) :]
        url = f"https{rest}" if scheme == "webcal" else source
        if not is_web_url(url):
            raise click.ClickException(f"{source!r} is not an http(s) or webcal address")
        if scheme != "webcal":
            return _fetched(url)
        try:
            return _fetched(url)
        except click.ClickException:
            return _fetched(f"http{rest}")
    if scheme:
        raise click.ClickException(
            f"only files and http(s) or webcal URLs can be imported: {source}"
        )
    try:
        with open(source, "rb") as handle:
            return handle.read()
    except OSError as error:
        raise click.ClickException(f"cannot read {source}: {error.strerror}") from None


def _fetched(url: str) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": "text/calendar"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 (http(s) only)
            return response.read()
    except (urllib.error.URLError, OSError, ValueError) as error:
        raise click.ClickException(f"cannot fetch {url}: {error}") from None


# ``flask i18n extract`` / ``flask i18n update``: keep the catalogs complete.
i18n_group = AppGroup("i18n", help="Maintain the message catalogs.")
TEMPLATE_PATH = os.path.join(TRANSLATIONS, "messages.pot")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def template() -> Catalog:
    """Every message of the code, and the route summaries and descriptions."""
    catalog = Catalog(project="calendar-events", fuzzy=False)
    for package in ("app", "schemas", "store", "rules"):
        for _file, _line, message, _comments, _context in extract_from_dir(
            os.path.join(ROOT, package),
            # The pages' templates call _() as the code does (Jinja's own extractor).
            method_map=[("**.py", "python"), ("templates/**.html", "jinja2.ext:babel_extract")],
            keywords={"_": None, "N_": None, "ngettext": (1, 2), "N_plural": (1, 2)},
        ):
            if message:
                catalog.add(message)
    # Route summaries and descriptions come from docstrings and the generated document.
    api = current_app.extensions["calendar.api"]
    for message in sorted(doc_strings(complete(api.document().to_dict(), ""))):
        catalog.add(message)
    return catalog


@i18n_group.command("extract")
def extract():
    """Write app/translations/messages.pot from the code and the OpenAPI document."""
    catalog = template()
    with open(TEMPLATE_PATH, "wb") as handle:
        write_po(handle, catalog, omit_header=True, no_location=True, width=100)
    click.echo(f"{len(catalog)} messages in {TEMPLATE_PATH}")


@i18n_group.command("update")
def update():
    """Merge the template into every language's .po (new strings left to translate)."""
    catalog = template()
    # Every catalog of the code, not only the LANGUAGES one site offers.
    for lang in sorted(os.listdir(TRANSLATIONS)):
        path = os.path.join(TRANSLATIONS, lang, "LC_MESSAGES", "messages.po")
        if not os.path.isfile(path):
            continue
        with open(path, "rb") as handle:
            current = read_po(handle, locale=lang)
        current.update(catalog, no_fuzzy_matching=True)
        current.fuzzy = False
        with open(path, "wb") as handle:
            write_po(handle, current, no_location=True, width=100, ignore_obsolete=True)
        missing = sum(1 for m in current if m.id and not m.string)
        click.echo(f"{lang}: {missing} untranslated")


recurrence_group = AppGroup("recurrence", help="Recurring events.")


@recurrence_group.command("extend")
@click.option(
    "--days",
    type=click.IntRange(min=1, max=LIMITS["RECURRENCE_HORIZON_DAYS"]),
    default=None,
    help="Horizon in days from now (default: RECURRENCE_HORIZON_DAYS).",
)
def extend(days):
    """Add the occurrences of open-ended series up to the horizon (idempotent, safe
    to run from cron: each series is one write transaction)."""
    config = current_app.config
    days = days or config["RECURRENCE_HORIZON_DAYS"]
    horizon = series_horizon(days)
    added = 0
    with database.connection_context():
        series_ids = open_ended_series()
        with click.progressbar(series_ids, label="Extending series") as bar:
            for series_id in bar:
                added += extend_series(series_id, horizon, config["RECURRENCE_MAX"])
        texts.make_all()  # each write made its first 500
        settle_text_index(*EVENT_TEXT_INDEX)
    click.echo(
        f"Added {added} occurrences to {len(series_ids)} open-ended series (horizon {days} days)."
    )


# flask-smorest's own `openapi` printed its spec before any route was documented in it
# (app/smorest.py documents them when first asked): ours prints the /doc's document.
openapi_group = AppGroup("openapi", help="The OpenAPI document that {ns}/doc serves.")


def _openapi_text() -> str:
    config = current_app.config
    server = printed_site(lambda: "") + config["NAMESPACE_URL"] + "/"
    return json.dumps({**neutral_document(), "servers": [{"url": server}]}, indent=2)


@openapi_group.command("print")
def openapi_print():
    """Print the OpenAPI document (JSON, in English)."""
    click.echo(_openapi_text())


@openapi_group.command("write")
@click.argument("output_file", type=click.File("w"))
def openapi_write(output_file):
    """Write the OpenAPI document (JSON, in English) to OUTPUT_FILE."""
    output_file.write(_openapi_text() + "\n")


def register_cli(app: Flask) -> None:
    for command in (
        openapi_group,  # in place of flask-smorest's
        users_group,
        migrate_command,
        seed_command,
        import_ics_command,
        import_tec_command,
        backup_command,
        restore_command,
        copy_database_command,
        i18n_group,
        recurrence_group,
    ):
        app.cli.add_command(command)


def _site_app() -> Flask:
    """The site's app, for ``calendar``: a setting it cannot work with is one line."""
    from app import create_app
    from app.config import SettingError

    try:
        return create_app()
    except SettingError as error:
        click.echo(f"calendar: {error}", err=True)
        raise SystemExit(1) from None


FLASK_OPTIONS = ("app", "env_file", "debug", "version")


def main() -> None:
    """``.venv/bin/calendar COMMAND``: the commands above, from any folder (the project is
    the one this package was installed from, not the current folder)."""
    from flask.cli import FlaskGroup, routes_command, shell_command

    group = FlaskGroup(
        name="calendar",
        help="The events calendar's commands (the site is found from the installed project).",
        create_app=_site_app,
        add_default_commands=False,
        load_dotenv=False,
        set_debug_flag=False,
    )
    # FlaskGroup's --app, --env-file, --debug and --version are about finding an app: ours is
    # the project's own.
    group.params = [param for param in group.params if param.name not in FLASK_OPTIONS]
    group.add_command(shell_command)
    group.add_command(routes_command)
    group.main(prog_name="calendar")
