"""Entry point for gunicorn and the flask CLI: ``gunicorn wsgi:app``."""

from app import create_app

app = create_app()
