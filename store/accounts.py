"""The editor's accounts (SPEC §16): each user's own password for the browser, the
one-time links that set it, and the generation of its sessions. Persistence only: hashing
is werkzeug's scrypt, done here so that no caller can store a password unhashed."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from werkzeug.security import check_password_hash, generate_password_hash

from rules.clock import utcnow, utcnow_str
from store.db import write_transaction
from store.models import LoginLink, Setting, User
from store.users import find_owner, note_sign_in, user_named

LINK_HOURS = 24
MIN_PASSWORD = 10
# werkzeug's scrypt (N=2^15, r=8, p=1: 32 MB of memory a hash), memory-hard as SPEC §16 asks.
METHOD = "scrypt"


# Compared against when the user name is unknown, so both failures cost the same: the hash
# (METHOD) of a random password nobody kept, written here rather than made at import (a
# hash is 0.15 s of every process's start: the CLI, each gunicorn worker).
_NOBODY = (
    "scrypt:32768:8:1$3gmVRx9l5nb4jnIz$9d3684bae1ec4b03616d6bd54b5bea200d5d82d43de5318d3345fb"
    "915d7796f48336740c00b99a6fea221ae86a0ee05a9a1db50975559d2c3bee99bcb9ae3c36"
)


class AccountError(ValueError):
    """A request the accounts refuse (unknown user, used or expired link)."""


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def login_link_token(login: str) -> str:
    """A new one-time token to set ``login``'s password, valid for ``LINK_HOURS``."""
    token = secrets.token_urlsafe(32)
    expires = (utcnow() + timedelta(hours=LINK_HOURS)).strftime("%Y-%m-%d %H:%M:%S")
    with write_transaction(changes_data=False):
        user = find_owner(login) if login else None  # named as every user command names one
        if user is None:
            raise AccountError(f"no user {login!r}")
        LoginLink.create(user=user, digest=_digest(token), expires=expires)
    return token


def link_user(token: str) -> User | None:
    """The user a valid (unused, unexpired) link's token is for, else None."""
    link = LoginLink.get_or_none(LoginLink.digest == _digest(token))
    if link is None or link.used or link.expires < utcnow_str():
        return None
    return User.get_or_none(User.id == link.user_id)


def set_password_by_link(token: str, password: str) -> User | None:
    """Sets the password of the link's user and uses the link up; every session of the user
    ends (its generation moves on). None when the link is not valid (any more)."""
    with write_transaction(changes_data=False):
        link = LoginLink.get_or_none(LoginLink.digest == _digest(token))
        if link is None or link.used or link.expires < utcnow_str():
            return None
        # This link and every other one of the user: one password, set once.
        LoginLink.update(used=True).where(LoginLink.user == link.user_id).execute()
        _set_password(link.user_id, password)
        note_sign_in(link.user_id, "")  # the link signs the user in
        return User.get_by_id(link.user_id)


def _set_password(user_id: int, password: str) -> None:
    User.update(
        password_hash=generate_password_hash(password, method=METHOD),
        sessions_epoch=User.sessions_epoch + 1,
    ).where(User.id == user_id).execute()


def check_sign_in(login: str, password: str) -> User | None:
    """The user whose own password this is, else None (in about the same time)."""
    user = user_named(login)
    stored = user.password_hash if user is not None and user.password_hash else _NOBODY
    if check_password_hash(stored, password) and user is not None and user.password_hash:
        note_sign_in(user.id, "")
        return user
    return None


def revoke_browser_access(login: str) -> None:
    """``users revoke``: the editor password is cleared, every unused login link and every
    session of ``login`` ends (a new login link gives access again)."""
    with write_transaction(changes_data=False):
        user = find_owner(login) if login else None  # as ``revoke_passwords`` found it
        if user is None:
            return
        LoginLink.update(used=True).where(LoginLink.user == user.id).execute()
        User.update(password_hash="", sessions_epoch=User.sessions_epoch + 1).where(
            User.id == user.id
        ).execute()


def end_sessions(user_id: int) -> None:
    """Every session of the user ends (a password change, ``users revoke``: a session
    cookie is not kept on the server, so the generation it carries moves on)."""
    with write_transaction(changes_data=False):
        User.update(sessions_epoch=User.sessions_epoch + 1).where(User.id == user_id).execute()


# A session signed out (its id, ``new_session_id``): a ``setting`` row whose value is when,
# kept as long as a copy of its cookie could still be read (Flask's signed cookie expires
# after PERMANENT_SESSION_LIFETIME); the user's other sessions go on, as WordPress's.
ENDED_PREFIX = "ended-session:"


def new_session_id() -> str:
    return secrets.token_urlsafe(16)


def end_session(session_id: str, kept: timedelta) -> None:
    """This session ends, and no copy of its cookie opens anything; rows of sessions ended
    longer than ``kept`` ago go."""
    now = utcnow()
    with write_transaction(changes_data=False):
        Setting.delete().where(
            Setting.key.startswith(ENDED_PREFIX)
            & (Setting.value < (now - kept).strftime("%Y-%m-%d %H:%M:%S"))
        ).execute()
        Setting.insert(
            key=ENDED_PREFIX + session_id, value=utcnow_str()
        ).on_conflict_ignore().execute()


def session_user(user_id, epoch, session_id=None) -> User | None:
    """The user of a session cookie, if its generation is still the user's and it was not
    signed out (a cookie made before sessions had ids has none)."""
    if not isinstance(user_id, int) or not isinstance(epoch, int):
        return None
    user = User.get_or_none(User.id == user_id)
    if user is None or user.sessions_epoch != epoch:
        return None
    if session_id is not None and Setting.get_or_none(Setting.key == ENDED_PREFIX + session_id):
        return None
    return user
