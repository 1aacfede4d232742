# The two commands a user needs: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000
WEB_CONCURRENCY ?= 2
export HOST PORT WEB_CONCURRENCY
# Python may keep the bytecode of what it compiles (__pycache__, git-ignored): an environment
# that says PYTHONDONTWRITEBYTECODE makes every process compile the app again, 0.4 s of each
# start (each CLI command, each gunicorn worker; a third of the subprocess-heavy tests' time).
unexport PYTHONDONTWRITEBYTECODE

STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
CATALOGS := $(wildcard app/translations/*/LC_MESSAGES/messages.po)
COMPILED := $(CATALOGS:.po=.mo)

.PHONY: install install-dev run test test-postgres lint migrate bench screenshots clean

# `make run` needs the runtime dependencies only; `make test` adds the test tools. The
# project's own bytecode is compiled at each install (after a `git pull`; quick when it is
# up to date), for the same reason as the dependencies' (INSTALL below).
PROJECT_SOURCES := app store schemas rules wsgi.py gunicorn.conf.py
install: $(STAMP) $(COMPILED)
	@$(BIN)/python -m compileall -q $(PROJECT_SOURCES) >/dev/null
install-dev: $(DEV_STAMP) $(COMPILED)
	@$(BIN)/python -m compileall -q $(PROJECT_SOURCES) >/dev/null

# Re-installs only when the package metadata changes, so repeated runs are quick. uv, installed
# into the venv by its own pip, resolves and installs: a fresh clone with no download cache took
# 50 s for the test dependencies against pip's 140 s. Where uv cannot be had, pip does it all.
PIP_QUIET := --quiet --disable-pip-version-check
# Both compile the dependencies' bytecode as they install them (pip does by default, uv when
# asked): the service cannot write it (docs/systemd/calendar.service: a read-only system),
# and a process that compiles peewee, Flask and the rest at each start spent 2.3 s of CPU
# instead of 0.95, and began 8 MB larger (each worker inherits the heap; SPEC §9).
INSTALL = { $(BIN)/python -m pip install $(PIP_QUIET) uv >/dev/null 2>&1 \
	&& $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(1); } \
	|| $(BIN)/python -m pip install $(PIP_QUIET) $(1)
$(STAMP): setup.cfg setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(call INSTALL,-e .)
	touch $(STAMP)

# The browser tests drive Debian's Chromium (Playwright never downloads a browser):
# installed here when missing and run as root, as on CI.
CHROMIUM := $(shell command -v chromium || command -v chromium-browser)
$(DEV_STAMP): $(STAMP)
	$(call INSTALL,-e '.[dev]')
	@[ -n "$(CHROMIUM)" ] || [ "$$(id -u)" != 0 ] || apt-get install -y -qq chromium >/dev/null \
		|| { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null \
		|| { echo "make test needs Chromium: sudo apt-get install chromium"; exit 1; }
	touch $(DEV_STAMP)

# Every catalog in one pybabel run (one interpreter start, not one per language).
$(COMPILED) &: $(CATALOGS) $(STAMP)
	$(BIN)/pybabel compile --statistics -d app/translations

migrate: install
	$(BIN)/flask --app wsgi migrate

run: migrate
	@case "$(WEB_CONCURRENCY)" in ''|*[!0-9]*) \
		echo "calendar: WEB_CONCURRENCY: '$(WEB_CONCURRENCY)' is not a whole number" >&2; exit 1;; esac
	@case "$(PORT)" in ''|*[!0-9]*|??????*) false;; esac && [ "$(PORT)" -ge 1 ] && \
		[ "$(PORT)" -le 65535 ] || { \
		echo "calendar: PORT: '$(PORT)' is not a port number (1 to 65535)" >&2; exit 1; }
	@# An IPv6 address is bound in brackets ([::1]:8000), as gunicorn reads it.
	case "$(HOST)" in \[*) bind="$(HOST)";; *:*) bind="[$(HOST)]";; *) bind="$(HOST)";; esac; \
	exec $(BIN)/gunicorn --config gunicorn.conf.py --bind "$$bind:$(PORT)" \
		--workers $(WEB_CONCURRENCY) --access-logfile - wsgi:app

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# The suite runs in TEST_JOBS processes (pytest-xdist; each test has its own database and
# servers on free ports). TEST_JOBS=0 runs it in this one process.
TEST_JOBS ?= 2
test: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -n $(TEST_JOBS) --dist worksteal $(PYTEST_ARGS)

# The same suite on PostgreSQL (SPEC §14), on a throw-away cluster that pg_virtualenv
# (postgresql-common) creates in a temporary directory (-t: also when run as root), with
# fsync off, and drops afterwards. Each test gets a database cloned from a migrated template
# (tests/databases.py). PYTEST_ARGS narrows the run, e.g. PYTEST_ARGS=tests/test_events.py.
# The browser tests (marker "browser") drive the pages and the editor, whose reads and writes
# the client tests already run on PostgreSQL: they run once, under `make test`; so do the
# tests marked "sqlite_file" (settings, logs, the CLI's mistakes with files), whose servers
# and commands use SQLite files of their own whatever the engine under test.
# The schemathesis fuzz sends 6 examples per operation and mode here (30 under `make
# test`): 85 % of its time is generating them, the same work on either engine; and the
# version memo's random walks are 2 here (5 under `make test`): the whole CI run must stay
# under 15 minutes on two cores. FUZZ_EXAMPLES and MEMO_WALKS set them.
PG_VERSION ?= 15
PG_FUZZ_EXAMPLES ?= 6
PG_MEMO_WALKS ?= 2
test-postgres: install-dev
	@command -v pg_virtualenv >/dev/null || { echo "make test-postgres needs pg_virtualenv: sudo apt-get install postgresql-common postgresql-$(PG_VERSION)"; exit 1; }
	pg_virtualenv -t -v $(PG_VERSION) -o max_connections=300 -o fsync=off \
		sh -c 'TEST_DATABASE_URL="postgresql://$$PGUSER:$$PGPASSWORD@$$PGHOST:$$PGPORT/$$PGDATABASE" \
		FUZZ_EXAMPLES=$${FUZZ_EXAMPLES:-$(PG_FUZZ_EXAMPLES)} MEMO_WALKS=$${MEMO_WALKS:-$(PG_MEMO_WALKS)} \
		$(BIN)/python -m pytest -n $(TEST_JOBS) --dist worksteal $(or $(PYTEST_ARGS),-m "not browser and not sqlite_file")'

# The SPEC §9 benchmark: wrk from Debian, installed here when run as root. Both engines in
# one run, side by side (issue 35): SQLite files, then PostgreSQL — the server of
# BENCH_DATABASE (a role that may create databases), else a throw-away pg_virtualenv cluster
# with fsync off when postgresql-common is installed. BENCH_POSTGRES=0: SQLite alone.
bench: install-dev
	@command -v wrk >/dev/null || { [ "$$(id -u)" = 0 ] && apt-get install -y -qq wrk >/dev/null; } \
		|| { echo "make bench needs wrk: sudo apt-get install wrk"; exit 1; }
	@if [ -z "$$BENCH_DATABASE" ] && [ "$$BENCH_POSTGRES" != 0 ] && command -v pg_virtualenv >/dev/null; then \
		pg_virtualenv -t -v $(PG_VERSION) -o max_connections=300 -o fsync=off \
			sh -c 'BENCH_DATABASE="postgresql://$$PGUSER:$$PGPASSWORD@$$PGHOST:$$PGPORT/$$PGDATABASE" \
			exec $(BIN)/python bench/run.py "$$@"' bench $(BENCH_ARGS); \
	else $(BIN)/python bench/run.py $(BENCH_ARGS); fi

# The README's pictures: month view, list view and an event page of the demo calendar,
# desktop and phone, drawn by Chromium into docs/screenshots/.
screenshots: install-dev
	$(BIN)/python tests/screenshots.py

clean:
	rm -rf $(VENV) *.egg-info
