"""The suite never reads or writes the checkout's instance/ (an operator's config.py, their
database, uploads or templates): every app, server and command it starts uses the folder
made here once per run (imported by tests/conftest.py), removed when the run ends."""

import atexit
import os
import shutil
import tempfile

FOLDER = tempfile.mkdtemp(prefix="calendar-tests-instance-")
os.environ["CALENDAR_INSTANCE"] = FOLDER
atexit.register(shutil.rmtree, FOLDER, ignore_errors=True)
