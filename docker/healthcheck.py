"""The container's HEALTHCHECK: exit 0 when GET /readyz answers 200, else 1.

Standard library only (the slim image has no curl). It asks 127.0.0.1 on PORT.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def main() -> int:
    port = os.environ.get("PORT", "8000")
    url = f"http://127.0.0.1:{port}/readyz"
    try:
        with urllib.request.urlopen(
            url, timeout=float(os.environ.get("HEALTHCHECK_TIMEOUT", "3"))
        ) as r:
            ok = r.status == 200
            body = r.read(500).decode(errors="replace")
    except urllib.error.HTTPError as e:
        ok, body = False, e.read(500).decode(errors="replace")
    except (OSError, ValueError) as e:
        ok, body = False, f"{type(e).__name__}: {e}"
    print(body, file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
