#!/bin/sh
# The official haproxy image's entrypoint: master-worker mode, in the foreground.
set -eu
if [ "${1#-}" != "$1" ]; then
  set -- haproxy "$@"
fi
if [ "$1" = haproxy ]; then
  shift
  set -- haproxy -W -db "$@"
fi
exec "$@"
