"""Schema creation and versioned migrations, run by every entry point."""

from playhouse.migrate import SchemaMigrator
from playhouse.migrate import migrate as run_migrations

from store.db import (
    DATES_COLUMNS,
    create_change_marker,
    create_day_counter,
    create_link_counter,
    create_text_index,
    database,
    dates_key,
    flag_column,
    is_postgres,
    schema_transaction,
    update_rows,
    upsert,
)
from store.linked import title_key
from store.models import (
    ALL_TABLES,
    LIVE_PUBLISHED,
    Event,
    EventDates,
    EventDay,
    EventOrganizer,
    EventTerm,
    EventText,
    EventVenue,
    Imported,
    LoginLink,
    Media,
    Organizer,
    Setting,
    Term,
    User,
    Venue,
)
from store.texts import add_marks


def _add_columns(table: str, columns: dict[str, str]) -> None:
    """Adds each column ``{name: type and default}`` that ``table`` lacks, as written."""
    # Raw: playhouse gives no DEFAULT, rebuilds SQLite tables (triggers lost), quotes names.
    present = {column.name for column in database.get_columns(table)}
    for name, kind in columns.items():
        if name not in present:
            database.execute_sql(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def _add_fields(model, *names: str) -> None:
    """Adds the fields ``names`` of ``model`` that its table lacks (playhouse.migrate), the
    table's triggers kept."""
    table = model._meta.table_name
    present = {column.name for column in database.get_columns(table)}
    triggers = _sqlite_triggers(table)
    migrator = SchemaMigrator.from_database(database)
    run_migrations(
        *(migrator.add_column(table, n, getattr(model, n)) for n in names if n not in present)
    )
    # A NOT NULL column rebuilds the table on SQLite, which drops its triggers (step 22 took
    # the event table's search, stored-text and day-count ones): put back those it had.
    kept = _sqlite_triggers(table)
    for name, sql in triggers.items():
        if name not in kept:
            database.execute_sql(sql)


def _sqlite_triggers(table: str) -> dict[str, str]:
    """``table``'s triggers, each name with the statement that made it (none on PostgreSQL,
    whose ALTER TABLE keeps them)."""
    if is_postgres():
        return {}
    rows = database.execute_sql(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?", [table]
    )
    return dict(rows.fetchall())


def _v1_create_tables():
    database.create_tables(ALL_TABLES)


def _v2_data_version():
    Setting.insert(key="data_version", value="1").on_conflict_ignore().execute()


def _v3_term_counts_by_index():
    _add_columns("event_term", {"live": "INTEGER NOT NULL DEFAULT 0"})
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
    _add_columns(
        "event",
        {
            "ical_uid": "TEXT NOT NULL DEFAULT ''",
            "ical_sequence": "INTEGER NOT NULL DEFAULT 0",
            "ical_modified": "VARCHAR(255) NOT NULL DEFAULT ''",
        },
    )
    Event._schema.create_indexes(safe=True)


def _v8_media():
    database.create_tables([Media])


def _v9_recurring_events():
    _add_columns(
        "event",
        {
            "recurrence": "TEXT NOT NULL DEFAULT ''",
            "occurrence": "VARCHAR(255) NOT NULL DEFAULT ''",
            "detached": flag_column(),
        },
    )


def _v10_scheduled_index():
    Event._schema.create_indexes(safe=True)


def _v11_stored_term_counts():
    _add_columns("term", {"published": "INTEGER NOT NULL DEFAULT 0"})
    create_link_counter(
        Term._meta.table_name,
        Term.published.column_name,
        EventTerm._meta.table_name,
        EventTerm.term.column_name,
        EventTerm.live.column_name,
        LIVE_PUBLISHED,
    )


def _v12_covering_index_with_password():
    for index in database.get_indexes("event"):
        if (
            index.columns[:6]
            == [
                "status",
                "utc_start",
                "utc_end",
                "hide_from_listings",
                "date_utc",
                "author",
            ]
            and "password" not in index.columns
        ):
            database.execute_sql(f'DROP INDEX IF EXISTS "{index.name}"')
    Event._schema.create_indexes(safe=True)
    database.execute_sql("ANALYZE")


def _v13_term_counts_per_statement():
    """PostgreSQL: the term counters move from a row trigger to statement triggers
    (store/db.py ``create_link_counter``); SQLite's stay as they are."""
    if is_postgres():
        _v11_stored_term_counts()


def _v14_protected_events_count_for_no_term():
    """``live_value``: a password-protected event's links count for none of its terms (the
    counters' triggers take the change off ``term.published``)."""
    database.execute_sql(
        "UPDATE event_term SET live = 0 WHERE live <> 0 AND event_id IN "
        "(SELECT id FROM event WHERE password <> '')"
    )


def _v15_stored_event_texts():
    """store/texts.py: a row per event, cleared by triggers on any write to the event or
    its links; every existing event's text is to be made."""
    database.create_tables([EventText])
    database.execute_sql(
        "CREATE INDEX IF NOT EXISTS event_text_to_make ON event_text (event_id) WHERE body IS NULL"
    )
    table = EventText._meta.table_name
    create_change_marker(table, "event_id", Event._meta.table_name, "id")
    for link in (EventTerm, EventVenue, EventOrganizer):
        create_change_marker(table, "event_id", link._meta.table_name, "event_id")
    add_marks()


def _v16_event_days():
    """store/events.py::_window_counts: listed events per start day, end day and status,
    kept by triggers."""
    database.create_tables([EventDay])
    create_day_counter(EventDay._meta.table_name, Event._meta.table_name)


def _v17_covering_page_index():
    """The index of listings in start order covers a date window's page: its ``(utc_start,
    id)`` index gives way to one that also holds what the page tests of each row."""
    for index in database.get_indexes("event"):
        if index.columns == ["utc_start", "id"]:
            database.execute_sql(f'DROP INDEX IF EXISTS "{index.name}"')
    Event._schema.create_indexes(safe=True)
    database.execute_sql("ANALYZE")


def _v18_browser_sign_in():
    """The editor's sign-in: each account's own password and sessions generation, and the
    one-time links that set the password (playhouse.migrate adds the columns)."""
    _add_fields(User, "password_hash", "sessions_epoch")
    database.create_tables([LoginLink])


def _v19_last_sign_in():
    """``users list`` shows when each user last signed in."""
    _add_fields(User, "last_sign_in")


def _v20_imported_origins():
    """``import-tec``: the source ``global_id`` of venues and organizers (their lineage), and
    what each source item became."""
    _add_fields(Venue, "origin")
    _add_fields(Organizer, "origin")
    database.create_tables([Imported])


def _v21_no_sqlite_statistics():
    """SQLite keeps no planner statistics: its plans are made without them
    (``store/db.py::unindexed``), and the ones ``ANALYZE`` gathered in steps 4, 12 and 13,
    on a database still empty, stayed as they were while it grew. FTS5's own statements
    on the text index's pages, planned for the 2 rows they counted, made every insert into
    the index walk its pages: a ``POST /events`` at 11,000 events spent 1.6 ms more CPU in
    that insert alone (2.3 ms against 0.7)."""
    if not is_postgres() and database.table_exists("sqlite_stat1"):
        database.execute_sql("DELETE FROM sqlite_stat1")


def _v22_lone_occurrences():
    """Import: an edit of one occurrence whose series the calendar does not have becomes an
    event of its own, named by its UID and RECURRENCE-ID."""
    _add_fields(Event, "ical_recurrence_id")


def _v23_scheduled_linked_index():
    """Scheduled venues and organizers by publication date, as the events' (step 10): the
    scheduled dates are read after every write (store/posts.py ``scheduled_dates``), and
    their venues' and organizers' part scanned both tables (0.2 ms of a ``POST /events`` on
    SQLite at 10,000 demo events, 0.3 ms on PostgreSQL)."""
    Venue._schema.create_indexes(safe=True)
    Organizer._schema.create_indexes(safe=True)


def _v24_page_index_with_days():
    """The index of listings in start order also holds what places an event on a day
    (``all_day``, ``start_date``, ``end_date``): a month grid counts each day's events
    from the index alone (store/events.py::events_by_day)."""
    for index in database.get_indexes("event"):
        if index.columns == [
            "utc_start",
            "id",
            "status",
            "hide_from_listings",
            "utc_end",
            "date_utc",
            "author",
        ]:
            database.execute_sql(f'DROP INDEX IF EXISTS "{index.name}"')
    Event._schema.create_indexes(safe=True)
    if is_postgres():
        database.execute_sql("ANALYZE event")


def _v25_event_dates():
    """store/events.py::_grid_counts: listed events per first and last day they are on and
    status, kept by triggers."""
    database.create_tables([EventDates])
    create_day_counter(
        EventDates._meta.table_name, Event._meta.table_name, dates_key(), DATES_COLUMNS
    )


def _v26_trashed_from():
    for table in ("event", "venue", "organizer"):
        _add_columns(table, {"trashed_from": "VARCHAR(16) NOT NULL DEFAULT ''"})


def _v27_media_original_name():
    _add_columns("media", {"original_name": "VARCHAR(255) NOT NULL DEFAULT ''"})


def _v28_event_triggers_again():
    """A SQLite calendar upgraded across step 22 lost the event table's triggers (its
    rebuild dropped them; ``_add_fields`` now keeps them): they are made again, and what
    they keep made afresh (the text index rebuilt, every stored text to be made, the day
    counts recounted)."""
    if is_postgres() or "event_search_ai" in _sqlite_triggers("event"):
        return
    _v6_event_text_index()
    _v15_stored_event_texts()
    database.execute_sql("UPDATE event_text SET body = NULL")
    _v16_event_days()


def _v29_trashed_following():
    """An occurrence trashed on its own remembers whether it followed its series: restored,
    it takes the series' changes made while it was in the trash (SPEC §12)."""
    _add_columns("event", {"trashed_following": flag_column()})


def _v30_folded_text_index():
    """PostgreSQL's text index of events holds the texts folded (store/db.py::folded), as
    a search compares them: made again. SQLite's FTS5 index is unchanged (a word is asked
    there in either Unicode form)."""
    if is_postgres():
        database.execute_sql("DROP INDEX IF EXISTS event_search")
        _v6_event_text_index()


def _v31_text_index_folds_dotted_i():
    """The fold of names and searches makes the decomposed lower dotted i ("i̇", the lower
    case of "İ" outside PostgreSQL) an "i" (rules/text.py::fold): PostgreSQL's text index
    of events, made over the fold, made again with it."""
    _v30_folded_text_index()


def _v32_day_counts_index():
    """The index of ``event_day`` by status and days also holds ``n``: a date window's total
    sums a month of its rows (store/events.py::_window_counts) from the index alone, where
    each row was a read of the table too: PostgreSQL's window statement spent 7 % less on
    the server, SQLite's window 1 % fewer instructions (docs/performance.md)."""
    database.execute_sql('DROP INDEX IF EXISTS "event_day_status_start_day_end_day"')
    EventDay._schema.create_indexes(safe=True)


def _v33_linked_title_keys():
    """Venues and organizers keep the head of their folded title, indexed
    (store/linked.py::title_key): a new one's de-duplication folded every title in the
    table (89 ms a creation at 100,000 venues, chk19a). Made here in Python, as every write
    of a title makes it: an index over our ``unicode_fold`` breaks the file for the
    ``sqlite3`` shell (migration 33 of the nineteenth session, taken back)."""
    for model in (Venue, Organizer):
        table = model._meta.table_name
        _add_columns(table, {"title_key": "TEXT NOT NULL DEFAULT ''"})
        titles = model.select(model.id, model.title).tuples().iterator()
        update_rows(table, "id", ("title_key",), [(title_key(t), n) for n, t in titles])
        database.execute_sql(f"CREATE INDEX IF NOT EXISTS {table}_title_key ON {table} (title_key)")


MIGRATIONS = [
    _v1_create_tables,
    _v2_data_version,
    _v3_term_counts_by_index,
    _v4_covering_listing_index,
    _v5_live_links_index,
    _v6_event_text_index,
    _v7_imported_event_origin,
    _v8_media,
    _v9_recurring_events,
    _v10_scheduled_index,
    _v11_stored_term_counts,
    _v12_covering_index_with_password,
    _v13_term_counts_per_statement,
    _v14_protected_events_count_for_no_term,
    _v15_stored_event_texts,
    _v16_event_days,
    _v17_covering_page_index,
    _v18_browser_sign_in,
    _v19_last_sign_in,
    _v20_imported_origins,
    _v21_no_sqlite_statistics,
    _v22_lone_occurrences,
    _v23_scheduled_linked_index,
    _v24_page_index_with_days,
    _v25_event_dates,
    _v26_trashed_from,
    _v27_media_original_name,
    _v28_event_triggers_again,
    _v29_trashed_following,
    _v30_folded_text_index,
    _v31_text_index_folds_dotted_i,
    _v32_day_counts_index,
    _v33_linked_title_keys,
]


def schema_version() -> int:
    if not Setting.table_exists():
        return 0
    row = Setting.get_or_none(Setting.key == "schema_version")
    return int(row.value) if row else 0


def migrate() -> int:
    """Bring the database to the latest schema; returns the version reached."""
    if schema_version() >= len(MIGRATIONS):
        return len(MIGRATIONS)
    with schema_transaction():
        if not Setting.table_exists():
            database.create_tables([Setting])
        current = schema_version()
        for number, step in enumerate(MIGRATIONS[current:], start=current + 1):
            step()
            upsert(Setting, key="schema_version", value=str(number))
        return len(MIGRATIONS)
