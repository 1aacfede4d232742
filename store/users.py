"""Users, roles and application passwords.

Application passwords are random 128+-bit tokens, stored as SHA-256 digests: they are
high-entropy, so a slow hash would only add latency. Lookup is by digest (an indexed
equality), and the final comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import re
import secrets
import unicodedata
from datetime import timedelta

from peewee import SQL

from rules import clock
from rules.clock import utcnow_str
from rules.ids import as_id
from rules.text import counted, fold
from store.db import folded, upsert, write_transaction
from store.models import AppPassword, AuthFailure, Event, Media, Organizer, User, Venue
from store.sql import Statement, in_list, param

ROLES = ("administrator", "editor", "author", "contributor", "subscriber")
# What a user is the author of: given to another user when the user is deleted.
OWNED = (Event, Venue, Organizer, Media)


class UserError(ValueError):
    pass


def _digest(password: str) -> str:
    return hashlib.sha256(password.encode("utf-8")).hexdigest()


def _new_password() -> str:
    # 24 characters from token_urlsafe(18): 144 random bits.
    return secrets.token_urlsafe(18)


MAX_LOGIN, MAX_EMAIL = 60, 100
# What a sign-in may name: a user name or an e-mail address (``user_named``), whichever is longer.
MAX_SIGN_IN_NAME = max(MAX_LOGIN, MAX_EMAIL)
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _checked_login(login: str) -> str:
    """A new user name as it is stored, or UserError saying why it cannot be one."""
    # Trimmed, as WordPress's sanitize_user does: the editor's sign-in form trims what is
    # typed, so " ann " would name an account no one could open there.
    login = login.strip()
    if not login or ":" in login:
        raise UserError("a user name must be non-empty and must not contain ':'")
    # WordPress's limits (user_login), within both engines' columns.
    if len(login) > MAX_LOGIN:
        raise UserError(f"a user name has at most {MAX_LOGIN} characters")
    # No tab, line break or other control or format character (sanitize_user strips them):
    # no one can type it in a sign-in form, and `users list` would send it to a terminal.
    if any(c.isspace() and c != " " or unicodedata.category(c)[0] == "C" for c in login):
        raise UserError(
            "a user name must not contain tabs, line breaks or other control characters"
        )
    return login


def create_user(login: str, role: str, email: str = "") -> tuple[User, str]:
    if role not in ROLES:
        raise UserError(f"unknown role {role!r}; choose one of {', '.join(ROLES)}")
    login, email = _checked_login(login), email.strip()
    # WordPress's limit (user_email), within both engines' columns.
    if len(email) > MAX_EMAIL or (email and not _EMAIL.fullmatch(email)):
        raise UserError(f"{email[:40]!r} is not an email address of at most {MAX_EMAIL} characters")
    with write_transaction():
        # Sign-in reads a login or an e-mail address in any case (``user_named``): a new
        # user that one of those already names would make it name neither, as WordPress
        # (MySQL's case-insensitive collation) refuses.
        for name in filter(None, (login, email)):
            taken = users_named(name)
            if taken:
                raise UserError(f"{name!r} already names user {taken[0].login!r}")
        # A random first generation of sessions: SQLite may give a deleted user's id to the
        # next user, whose sessions must not be the old user's cookies.
        user = User.create(
            login=login,
            email=email,
            role=role,
            created=utcnow_str(),
            sessions_epoch=secrets.randbelow(2**31),
        )
        password = _issue(user)
    return user, password


def _issue(user: User) -> str:
    password = _new_password()
    AppPassword.create(user=user, digest=_digest(password), created=utcnow_str())
    return password


def issue_password(login: str) -> str:
    with write_transaction():
        return _issue(_user(login))


def revoke_passwords(login: str) -> int:
    with write_transaction():
        user = _user(login)
        return (
            AppPassword.update(revoked=True)
            .where((AppPassword.user == user) & (AppPassword.revoked == False))  # noqa: E712
            .execute()
        )


def list_users() -> list[dict]:
    rows = []
    for user in User.select().order_by(User.id):
        active = (
            AppPassword.select()
            .where((AppPassword.user == user) & (AppPassword.revoked == False))  # noqa: E712
            .count()
        )
        rows.append(
            {
                "id": user.id,
                "login": user.login,
                "email": user.email,
                "role": user.role,
                "passwords": active,
                "editor_password": bool(user.password_hash),
                "last_sign_in": user.last_sign_in,
                "items": sum(_owned(user.id).values()),
            }
        )
    return rows


def _owned(user_id: int) -> dict[str, int]:
    """How many items of each kind the user is the author of (trashed ones too)."""
    return {
        model._meta.table_name: model.select().where(model.author == user_id).count()
        for model in OWNED
    }


# What ``_owned`` counts, by table, in the singular and the plural.
_ITEM_WORDS = {
    "event": ("event", "events"),
    "venue": ("venue", "venues"),
    "organizer": ("organizer", "organizers"),
    "media": ("image", "images"),
}


def counted_items(owned: dict[str, int]) -> str:
    """``_owned``'s counts said in words: "3 events, 1 venue"."""
    return ", ".join(
        counted(n, *_ITEM_WORDS.get(table, (table, table))) for table, n in owned.items() if n
    )


def _other_administrators(user: User) -> bool:
    return User.select().where((User.role == "administrator") & (User.id != user.id)).exists()


def _user(login: str) -> User:
    """The user a command names (``find_owner``); none is an error."""
    user = find_owner(login) if login else None
    if user is None:
        raise UserError(f"no user {login!r}")
    return user


def set_role(login: str, role: str) -> str:
    """Gives ``login`` the role; returns the role it had. The last administrator keeps
    theirs (nobody could manage the site any more)."""
    if role not in ROLES:
        raise UserError(f"unknown role {role!r}; choose one of {', '.join(ROLES)}")
    with write_transaction():  # what the user may see and do changes
        user = _user(login)
        if user.role == "administrator" and role != "administrator":
            if not _other_administrators(user):
                raise UserError(f"{login} is the last administrator; make another one first")
        User.update(role=role).where(User.id == user.id).execute()
        return user.role


def delete_user(login: str, reassign: str = "") -> dict[str, int]:
    """Removes the user, their application passwords, links and sessions. Their items
    (events, venues, organizers, images) go to the user ``reassign``, as WordPress asks;
    a user who owns items is not removed without one. Returns the items moved per kind."""
    with write_transaction():
        user = _user(login)
        if user.role == "administrator" and not _other_administrators(user):
            raise UserError(f"{login} is the last administrator; make another one first")
        owned = _owned(user.id)
        heir = None
        if reassign:
            heir = _user(reassign)
            if heir.id == user.id:
                raise UserError("a user's items cannot be given to that same user")
            if "edit_posts" not in CAPABILITIES.get(heir.role, set()):
                raise UserError(
                    f"{reassign} is a {heir.role}, who cannot edit items; give them to a "
                    "contributor or above"
                )
        elif any(owned.values()):
            said = counted_items(owned)
            raise UserError(f"{login} is the author of {said}; --reassign OTHER gives them away")
        if heir is not None:
            for model in OWNED:
                model.update(author=heir.id).where(model.author == user.id).execute()
        User.delete().where(User.id == user.id).execute()  # passwords, links: cascade
        return owned


def note_sign_in(user_id: int, last: str) -> None:
    """Notes that the user signed in now, at most once an hour (an application password
    is presented on every request; this is no log of them)."""
    now = clock.utcnow()
    if last and last > (now - timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S"):
        return
    with write_transaction(changes_data=False):
        User.update(last_sign_in=now.strftime("%Y-%m-%d %H:%M:%S")).where(
            User.id == user_id
        ).execute()


_FAILURES = Statement(
    lambda size: AuthFailure.select(
        AuthFailure.client, AuthFailure.failures, AuthFailure.window_start
    ).where(AuthFailure.client.in_(in_list(0, size)))
)
# Compiled once: this runs on every authenticated request. A request's failure counters and
# the owner of its application password in one statement (a round trip fewer on
# PostgreSQL): the rows of kind 0 are (failures, client, …, window start), the row of
# kind 1 the user's (id, login, email, role, created, last sign-in).
_NONE = SQL("NULL")
_FAILURES_AND_OWNER = Statement(
    lambda size: (
        AuthFailure.select(
            SQL("0"),
            AuthFailure.failures,
            AuthFailure.client,
            _NONE,
            _NONE,
            _NONE,
            _NONE,
            AuthFailure.window_start,
        ).where(AuthFailure.client.in_(in_list(2, size)))
    ).union_all(
        User.select(
            SQL("1"),
            User.id,
            User.login,
            User.email,
            User.role,
            User.created,
            User.last_sign_in,
            _NONE,
        )
        .join(AppPassword, on=(AppPassword.user == User.id))
        .where((AppPassword.digest == param(0)) & (AppPassword.revoked == param(1)))
    )
)


def failures_and_owner(clients: list[str], password: str) -> tuple[dict, tuple | None]:
    """``failures_of(clients)``, and the row of the user owning the active application
    password ``password`` (None: none), for ``signed_in``: one statement."""
    # Spaces are accepted and ignored, as WordPress shows passwords in groups.
    digest = _digest(password.replace(" ", ""))
    rows = _FAILURES_AND_OWNER.execute(digest, False, *clients, sizes=(len(clients),))
    found, owner = {}, None
    for row in rows.fetchall():
        if row[0] == 0:
            found[row[2]] = (row[1], row[7])
        else:
            owner = row[1:7]
    return found, owner


def signed_in(owner: tuple, login: str) -> User | None:
    """The user of ``failures_and_owner``'s ``owner`` row when ``login`` names that user
    (``user_named``: its login as written, else its login in another case or its e-mail
    address, when no other user has that name), noted as signed in; else None."""
    user = User(id=owner[0], login=owner[1], email=owner[2], role=owner[3], created=owner[4])
    if not hmac.compare_digest(user.login.encode(), login.encode()):
        named = user_named(login) if names_user(user, login) else None
        if named is None or named.id != user.id:
            return None
    note_sign_in(user.id, owner[5])
    return user


def names_user(user: User, name: str) -> bool:
    """Whether ``name`` names ``user`` as WordPress reads a sign-in's name: the login or,
    failing that, the e-mail address, in any case and Unicode form (MySQL's collation; as
    ``users_named`` finds the user: ``fold``); compared in constant time."""
    given = fold(name).encode()
    by_login = hmac.compare_digest(fold(user.login).encode(), given)
    by_email = hmac.compare_digest(fold(user.email or "\0").encode(), given)
    return by_login | by_email


def user_named(name: str) -> User | None:
    """The user ``name`` names (``names_user``): the login as written, else the one user
    whose login or e-mail address it is in another case; None when none or several. One
    home for the API's Basic credentials and the editor's sign-in."""
    user = User.get_or_none(User.login == name)
    if user is not None or not name:
        return user
    found = users_named(name)
    return found[0] if len(found) == 1 else None


def users_named(name: str) -> list[User]:
    """Every user ``name`` names (``names_user``), its login or e-mail in any case."""
    lowered = fold(name)
    query = User.select().where((folded(User.login) == lowered) | (folded(User.email) == lowered))
    return [user for user in query if names_user(user, name)]


def find_owner(login: str = "") -> User | None:
    """The user a command names (``login``), or (without a name) the first administrator.
    Named as sign-in names one (``user_named``: in any case and Unicode form, or by e-mail
    address), trimmed as ``create_user`` trims: "BOSS" is the "boss" who signs in so."""
    if login:
        return user_named(login.strip())
    return User.select().where(User.role == "administrator").order_by(User.id).first()


def user_exists(user_id: int) -> bool:
    if as_id(user_id) is None or user_id == 0:
        return False
    return User.select().where(User.id == user_id).exists()


# --- throttling of failed logins -------------------------------------------------------


def failures_of(clients: list[str]) -> dict[str, tuple[int, float]]:
    """``{client: (failures, window start)}`` of those of ``clients`` with failures: one
    query for every counter of a request."""
    rows = _FAILURES.execute(*clients, sizes=(len(clients),)).fetchall()
    return {client: (failures, start) for client, failures, start in rows}


def throttled_for(found: tuple[int, float] | None, limit: int, window: int) -> int:
    """Whole seconds until a client with these failures (``failures_of``) may try again; 0
    when it may now."""
    if not found or found[0] < limit:
        return 0
    remaining = found[1] + window - clock.timestamp()
    return math.ceil(remaining) if remaining > 0 else 0


def names_of(name: str) -> list[str]:
    """Every name a sign-in may give for the user ``name`` names (its login and e-mail
    address, folded as ``names_user`` compares them), for counting failures per user;
    ``name`` folded when it names no one."""
    user = user_named(name)
    if user is None:
        return [fold(name)]
    return list(dict.fromkeys(fold(n) for n in (user.login, user.email) if n))


def record_failure(client: str, window: int) -> None:
    now = clock.timestamp()
    with write_transaction(changes_data=False):
        row = AuthFailure.get_or_none(AuthFailure.client == client)
        if row is None or now - row.window_start >= window:
            upsert(AuthFailure, client=client, failures=1, window_start=now)
        else:
            AuthFailure.update(failures=AuthFailure.failures + 1).where(
                AuthFailure.client == client
            ).execute()


def clear_failures(client: str) -> None:
    """Call when ``failures_of`` found failures of ``client``."""
    with write_transaction(changes_data=False):
        AuthFailure.delete().where(AuthFailure.client == client).execute()


# --- roles and capabilities (WordPress's, for posts of every type) -------------------

_AUTHOR_CAPS = {
    "read",
    "edit_posts",
    "delete_posts",
    "publish_posts",
    "edit_published_posts",
    "delete_published_posts",
    "upload_files",
}
_EDITOR_CAPS = _AUTHOR_CAPS | {
    "edit_others_posts",
    "delete_others_posts",
    "edit_private_posts",
    "delete_private_posts",
    "read_private_posts",
    "manage_terms",
}
CAPABILITIES = {
    "administrator": _EDITOR_CAPS | {"manage_options"},
    "editor": _EDITOR_CAPS,
    "author": _AUTHOR_CAPS,
    "contributor": {"read", "edit_posts", "delete_posts"},
    "subscriber": {"read"},
}


class Viewer:
    """Who is asking: an anonymous caller or a user with a role's capabilities."""

    __slots__ = ("id", "login", "role", "caps", "_key")

    def __init__(self, user: User | None = None):
        self.id = user.id if user else 0
        self.login = user.login if user else ""
        self.role = user.role if user else ""
        self.caps = CAPABILITIES.get(self.role, set()) if user else set()
        self._key = f"{self.role}:{self.id}" if self.id != 0 else "public"

    @property
    def logged_in(self) -> bool:
        return self.id != 0

    def has(self, cap: str) -> bool:
        return cap in self.caps

    def cache_key(self) -> str:
        """Viewers who see the same things share a key: all anonymous callers do; a user may
        own items others cannot see, so each user has a key of their own."""
        return self._key


ANONYMOUS = Viewer()
