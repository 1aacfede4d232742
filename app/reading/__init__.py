"""The one read path: how a query becomes the events every face shows.

1. ``filters.event_filters``: the request's arguments → ``store.events.EventFilters`` (dates
   in the site's zone, statuses the viewer may ask for, terms, venues, organizers, geo).
2. ``store.events.list_events``: the page's ids and the listing's total, by the one
   visibility rule (``store/events.py::_filtered`` with ``store/posts.py::visible_clause``);
   its tiers: SQL compiled per shape (``store/sql.py::Shaped``), totals and first ids per
   data version, window totals by day. The API's listing (``texts.listed_texts``) reads a
   page with its total and its stored texts in one statement (``list_event_texts``).
3. ``texts.event_texts``: those events as JSON text for this viewer: kept per data version
   and way of seeing (``app/render.py::EVENT_TEXTS``), else spliced from the text stored at
   write time (``store/texts.py``, ``app/render.py::stored_event_parts``), else rendered
   from the rows (``app/render.py::event_out``, the masking rule's one home).
4. The faces: JSON with paging headers (``app/listing.py``), the iCalendar feed
   (``feed.calendar_items``), the public pages (``app/pages/reading.py``), the widget (it
   reads the JSON), the editor's lists. Above them all, the response cache (``app/cache.py``).

docs/performance.md ("What each tier buys") says what each tier is measured to pay.
"""
