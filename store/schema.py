"""Schema creation and versioned migrations, run by every entry point."""

from store.db import create_text_index, database, upsert, write_transaction
from store.models import ALL_TABLES, Event, EventTerm, Media, Setting


def _v1_create_tables():
    database.create_tables(ALL_TABLES)


def _v2_data_version():
    Setting.insert(key="data_version", value="1").on_conflict_ignore().execute()


def _v3_term_counts_by_index():
    columns = {column.name for column in database.get_columns("event_term")}
    if "live" not in columns:
        database.execute_sql("ALTER TABLE event_term ADD COLUMN live INTEGER NOT NULL DEFAULT 0")
    database.execute_sql(
        "CREATE INDEX IF NOT EXISTS event_term_term_id_live ON event_term (term_id, live)"
    )
    database.execute_sql(
        "UPDATE event_term SET live = (SELECT CASE e.status WHEN 'publish' THEN 2 "
        "WHEN 'future' THEN 1 ELSE 0 END FROM event AS e WHERE e.id = event_term.event_id)"
    )


def _v4_covering_listing_index():
    database.execute_sql("DROP INDEX IF EXISTS event_status_utc_start")
    Event._schema.create_indexes(safe=True)
    database.execute_sql("ANALYZE")


def _v5_live_links_index():
    database.execute_sql("DROP INDEX IF EXISTS event_term_term_id_live")
    EventTerm._schema.create_indexes(safe=True)


def _v6_event_text_index():
    create_text_index("event_search", "event", ("title", "description", "excerpt"))


def _v7_imported_event_origin():
    columns = {column.name for column in database.get_columns("event")}
    for name, kind in (
        ("ical_uid", "TEXT NOT NULL DEFAULT ''"),
        ("ical_sequence", "INTEGER NOT NULL DEFAULT 0"),
        ("ical_modified", "VARCHAR(255) NOT NULL DEFAULT ''"),
    ):
        if name not in columns:
            database.execute_sql(f"ALTER TABLE event ADD COLUMN {name} {kind}")
    Event._schema.create_indexes(safe=True)


def _v8_media():
    database.create_tables([Media])


# Each step runs once, in order; append new steps, never edit old ones.
MIGRATIONS = [
    _v1_create_tables,
    _v2_data_version,
    _v3_term_counts_by_index,
    _v4_covering_listing_index,
    _v5_live_links_index,
    _v6_event_text_index,
    _v7_imported_event_origin,
    _v8_media,
]


def schema_version() -> int:
    if not Setting.table_exists():
        return 0
    row = Setting.get_or_none(Setting.key == "schema_version")
    return int(row.value) if row else 0


def migrate() -> int:
    """Bring the database to the latest schema; returns the version reached."""
    with write_transaction(changes_data=False):
        if not Setting.table_exists():
            database.create_tables([Setting])
        current = schema_version()
        for number, step in enumerate(MIGRATIONS[current:], start=current + 1):
            step()
            upsert(Setting, key="schema_version", value=str(number))
        return len(MIGRATIONS)
