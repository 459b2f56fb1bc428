#!/bin/sh
# The container's entrypoint (POSIX sh): check the configuration, migrate when asked,
# then exec the command (by default the production server, `python -m app.ops.serve`).
#
#   1. PROMETHEUS_MULTIPROC_DIR: a fresh, empty directory for the workers' metrics (a
#      new temporary one when unset), so /metrics adds up every worker of this run only.
#   2. `python -m app.ops.check`: every setting from the environment is validated;
#      a bad one prints "invalid configuration: NAME: reason" and the container exits 2.
#   3. MIGRATE_ON_START=true: `alembic upgrade head` first (python -m app.ops.migrate,
#      which logs in the server's format). Leave it false when a separate job migrates
#      (run the image with the command `python -m app.ops.migrate`).
#   4. exec the command, which becomes the main process and gets SIGTERM directly.
set -eu

APP_HOME="${APP_HOME:-$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)}"
cd "$APP_HOME"

if [ -z "${PROMETHEUS_MULTIPROC_DIR:-}" ]; then
  PROMETHEUS_MULTIPROC_DIR="$(mktemp -d "${TMPDIR:-/tmp}/tripeaks-metrics.XXXXXX")"
else
  mkdir -p "$PROMETHEUS_MULTIPROC_DIR"
  find "$PROMETHEUS_MULTIPROC_DIR" -mindepth 1 -maxdepth 1 -name '*.db' -exec rm -f {} +
fi
export PROMETHEUS_MULTIPROC_DIR

python -m app.ops.check || exit 2

case "$(printf '%s' "${MIGRATE_ON_START:-false}" | tr '[:upper:]' '[:lower:]')" in
  1 | true | t | yes | y | on)
    # alembic upgrade head, logging in the server's format
    python -m app.ops.migrate
    ;;
  *) ;;
esac

if [ "$#" -eq 0 ]; then
  set -- python -m app.ops.serve
fi
exec "$@"
