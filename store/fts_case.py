"""The case table of SQLite's FTS5 trigram tokenizer, beside ``rules/text.py::fold``: which
characters the text index folds to another letter than ``fold`` does (store/db.py's
``_fts_forms`` asks the index for those too). ``python -m store.fts_case`` prints it as
JSON: store/db.py works it out in a Python of its own, whose memory it then gives back."""

from __future__ import annotations

import json
import sqlite3
import sys

from rules.text import fold


def misfolds() -> dict[str, str]:
    """Each letter that ``fold`` makes of characters that FTS5's trigram tokenizer folds to
    something else (its case table is Unicode 6.1's: "İ", the final sigma, Georgian
    Mtavruli, Cherokee, Osage, a few hundred in all), and those characters. Asked of an
    FTS5 table in memory, so that it is the table of the SQLite the calendar runs on."""
    pairs = []
    for code in range(1, 0x30000):
        char = chr(code)
        if not 0xD800 <= code < 0xE000 and len(fold(char)) == 1 and fold(char) != char:
            pairs.append((char, fold(char)))
    probe = sqlite3.connect(":memory:")
    try:
        probe.execute("CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='trigram')")
        probe.executemany(
            "INSERT INTO probe (rowid, x) VALUES (?, ?)",
            [(n, f"a{char}b") for n, (char, _) in enumerate(pairs)],
        )
        found: dict[str, str] = {}
        for n, (char, letter) in enumerate(pairs):
            query = "SELECT 1 FROM probe WHERE probe MATCH ? AND rowid = ?"
            if not probe.execute(query, [f'"a{letter}b"', n]).fetchone():
                found[letter] = found.get(letter, "") + char
        return found
    finally:
        probe.close()


if __name__ == "__main__":
    sys.stdout.write(json.dumps(misfolds()))
