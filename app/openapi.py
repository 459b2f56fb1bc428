"""Write or check the committed OpenAPI spec: ``python -m app.openapi write|check``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SPEC_PATH = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"


def current_spec() -> dict[str, Any]:
    from app.main import create_app
    from app.settings import Settings

    app = create_app(Settings(database_url="sqlite://"))
    return app.openapi()


def render(spec: dict[str, Any]) -> str:
    return json.dumps(spec, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    command = argv[0] if argv else "check"
    text = render(current_spec())
    if command == "write":
        SPEC_PATH.parent.mkdir(parents=True, exist_ok=True)
        SPEC_PATH.write_text(text, encoding="utf-8")
        print(f"wrote {SPEC_PATH}")
        return 0
    if command == "check":
        committed = SPEC_PATH.read_text(encoding="utf-8") if SPEC_PATH.exists() else ""
        if committed != text:
            print(
                f"{SPEC_PATH} differs from the app: run `make openapi` and commit it",
                file=sys.stderr,
            )
            return 1
        print("openapi/openapi.json matches the app")
        return 0
    print("usage: python -m app.openapi write|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
