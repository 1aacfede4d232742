"""chk16a: docs/architecture.md read against the code (layer boundaries, references)."""

import subprocess
import sys
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _loaded_after_importing(modules):
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + "print(' '.join(sorted({k.split('.')[0] for k in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(out.stdout.split())


def _modules(package):
    return [
        f"{package}.{p.stem}" if p.stem != "__init__" else package
        for p in sorted((ROOT / package).glob("*.py"))
    ]


def test_schemas_import_no_flask_even_through_an_extension():
    """docs/architecture.md: `schemas` -> `rules` (and store.terms.ORDERBY); tests/test_docs.py:
    "schemas/ never imports the app or Flask". schemas/media.py imports flask_smorest.fields,
    which loads Flask itself."""
    loaded = _loaded_after_importing(_modules("schemas"))
    assert not loaded & {"flask", "flask_smorest", "app"}, sorted(loaded & {"flask", "flask_smorest", "app"})

