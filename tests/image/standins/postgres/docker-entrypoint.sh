#!/bin/sh
# The official postgres image's entrypoint, as far as deploy/compose.yaml uses it: on an
# empty PGDATA, initdb (UTF8) with POSTGRES_USER and POSTGRES_PASSWORD (scram-sha-256 over the
# network), POSTGRES_DB created by a server that listens on its socket only; then the
# server as the postgres user, listening everywhere.
set -eu
if [ "${1:-}" = postgres ]; then
  shift
  user="${POSTGRES_USER:-postgres}"
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    pwfile="$(mktemp)"
    printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is not set}" > "$pwfile"
    chown postgres "$pwfile"
    # UTF8, as the official image's en_US.utf8 (a C locale would make it SQL_ASCII).
    runuser -u postgres -- initdb --username="$user" --pwfile="$pwfile" \
      --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 \
      -D "$PGDATA" >/dev/null
    rm -f "$pwfile"
    echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
    runuser -u postgres -- pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
      runuser -u postgres -- psql -v ON_ERROR_STOP=1 --username="$user" --dbname=postgres \
        -c "CREATE DATABASE \"$POSTGRES_DB\""
    fi
    runuser -u postgres -- pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
    echo "database initialised"
  fi
  # setpriv execs (runuser would stay as PID 1 and not pass the stop signal on).
  exec setpriv --reuid=postgres --regid=postgres --init-groups \
    postgres -D "$PGDATA" -c listen_addresses='*' "$@"
fi
exec "$@"
