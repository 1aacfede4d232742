"""Persistence: Peewee models and queries. Knows nothing of Flask or HTTP."""
