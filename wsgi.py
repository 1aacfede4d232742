"""Entry point for gunicorn and the flask CLI: ``gunicorn wsgi:app``."""

import sys

from app import create_app
from app.config import SettingError

try:
    app = create_app()
except SettingError as error:  # a setting the service cannot work with: said, not a traceback
    print(f"calendar: {error}", file=sys.stderr)
    raise SystemExit(1) from None
