"""How long a request may take to arrive (its headers and body), under gunicorn.

A read timeout cuts only clients that fall silent: one that sends a byte every second holds
its thread for as long as it likes. So every request also has a deadline for arriving whole:
``ARRIVAL_GRACE`` seconds, plus one second for every ``MIN_RATE`` bytes received (a large
upload over a slow link keeps going as long as it averages that rate), as Kestrel's
``MinRequestBodyDataRate`` does. The deadline counts from the moment the worker takes the
connection, or sees the next request of a kept-alive one; reads
past it raise ``TimeoutError`` (a 408 once the app reads the body; before that, gunicorn
closes the connection).

Imported by ``app/server.py`` (gunicorn's side) and the app (which tightens the deadline of
a body that cannot be accepted, ``tighten``, and closes the connection after a body it
refuses unread, ``close_after``). No Flask here, no gunicorn: outside gunicorn
(the test client, the CLI) there is no arrival and nothing changes.
"""

from __future__ import annotations

import errno
import threading
import time
from collections.abc import Callable

# Set from the settings by gunicorn.conf.py (GUNICORN_READ_TIMEOUT).
READ_TIMEOUT = 10.0
ARRIVAL_GRACE = 10.0
# Bytes a second a request must average past its grace (128 kbit/s: a poor mobile link).
MIN_RATE = 16 * 1024

# Bytes of a request's start kept, at least (``Arrival.head``): its method and the start of
# its path, by which gunicorn's own errors tell a page's address from the API's (app/server.py).
HEAD_BYTES = 256

_CURRENT = threading.local()


class Arrival:
    """The deadline of the request being read on one connection."""

    def __init__(self):
        self.started: float | None = None
        self.received = 0
        self.latest: float | None = None  # a tighter deadline, set by the app
        self.head = b""  # the request's first reads, HEAD_BYTES or more
        # Set by the server for each request: its answer says ``Connection: close`` and the
        # connection closes after it (``close_after``).
        self.closing: Callable[[], None] | None = None

    def begin(self) -> None:
        """A new request on the connection (accepted, or readable again after keep-alive):
        its clock starts now, while it may still wait for a free thread, so a client that
        waited in the queue has no more time than one that did not."""
        self.started = time.monotonic()
        self.received = 0
        self.latest = None
        self.head = b""

    def deadline(self) -> float:
        if self.started is None:
            self.begin()
        deadline = self.started + ARRIVAL_GRACE + self.received / MIN_RATE
        return deadline if self.latest is None else min(deadline, self.latest)

    def tighten(self, seconds: float) -> None:
        """What is still to come must arrive within ``seconds``."""
        latest = time.monotonic() + seconds
        self.latest = latest if self.latest is None else min(self.latest, latest)


class ArrivalSocket:
    """The socket as gunicorn's request parser reads it: each read waits at most until the
    request's deadline (and never longer than ``READ_TIMEOUT`` of silence)."""

    def __init__(self, sock, arrival: Arrival):
        self._sock = sock
        self._arrival = arrival

    def recv(self, size: int) -> bytes:
        remaining = self._arrival.deadline() - time.monotonic()
        try:
            if remaining <= 0:
                raise TimeoutError("the request did not arrive in time")
            # gunicorn makes the socket blocking (no timeout) before each request.
            self._sock.settimeout(min(READ_TIMEOUT, remaining))
            data = self._sock.recv(size)
        except TimeoutError as error:
            # Still a TimeoutError (the app answers 408 when it was reading the body), with
            # the errno that gunicorn logs at debug level: each client cut off would
            # otherwise write a traceback to the error log.
            raise TimeoutError(errno.ENOTCONN, str(error)) from None
        arrival = self._arrival
        arrival.received += len(data)
        if len(arrival.head) < HEAD_BYTES:  # usually the first read: kept as it is
            arrival.head = arrival.head + data if arrival.head else data
        return data

    def __getattr__(self, name):
        return getattr(self._sock, name)


def serving(arrival: Arrival) -> None:
    """The thread now reads (and serves) a request of ``arrival``'s connection."""
    _CURRENT.arrival = arrival


def end() -> None:
    _CURRENT.arrival = None


def close_after() -> None:
    """The connection closes after the answer being made, which says so. For a body the app
    refuses unread (over its limit, a 413): the server would read at most 64 kB of the rest
    before the next request and otherwise close the connection under a client it had told
    ``Connection: keep-alive`` (RFC 9112 §9.6), and reading all of it would let any client
    make the server read without limit."""
    served = current()
    if served is not None and served.closing is not None:
        served.closing()


def current() -> Arrival | None:
    """The arrival of the request this thread serves (None outside gunicorn)."""
    return getattr(_CURRENT, "arrival", None)
