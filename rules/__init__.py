"""Pure rules: dates and zones, the clock, text, geography. No database, no Flask, no
HTTP: each is a function of its arguments (and of the clock, which tests may set), so the
store, the schemas and the app call them alike and tests drive them directly.
"""
