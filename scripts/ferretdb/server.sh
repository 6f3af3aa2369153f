#!/bin/sh
# Dev-only: starts or stops a FerretDB (scripts/ferretdb/build.sh) on SQLite or
# PostgreSQL, everything in DIR, listening on 127.0.0.1:PORT.
#
#   server.sh start sqlite DIR PORT       prints mongodb://127.0.0.1:PORT/ once it answers
#   server.sh start postgresql DIR PORT   also a PostgreSQL cluster of its own in DIR/pg (initdb, pg_ctl:
#                                         Debian's postgresql), reached by a Unix socket in DIR/pg only;
#                                         as root, PostgreSQL runs as the `postgres` user
#   server.sh stop DIR                    stops what `start` started in DIR
#
# FERRETDB_BIN: the binary (default: build.sh's). Logs: DIR/ferretdb.log, DIR/pg/pg.log.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
fail() { echo "ferretdb server: $*" >&2; exit 1; }
usage() { echo "usage: server.sh start sqlite|postgresql DIR PORT | server.sh stop DIR" >&2; exit 2; }

as_postgres() { # runs "$@" as the postgres user when root, else as is
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
pg_bin() { # initdb, pg_ctl, createdb: on the PATH, else Debian's newest
  command -v "$1" 2>/dev/null || ls /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -n 1
}

start() {
  backend=$1 dir=$2 port=$3
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  bin=${FERRETDB_BIN:-$("$HERE/build.sh")} || exit 1
  case $backend in
    sqlite)
      mkdir -p "$dir/sqlite"
      set -- --handler=sqlite "--sqlite-url=file:$dir/sqlite/"
      ;;
    postgresql)
      initdb=$(pg_bin initdb) pg_ctl=$(pg_bin pg_ctl) createdb=$(pg_bin createdb)
      [ -n "$initdb" ] && [ -n "$pg_ctl" ] && [ -n "$createdb" ] || fail "initdb, pg_ctl or createdb not found (apt-get install postgresql)"
      mkdir -p "$dir/pg"
      chmod 755 "$dir"
      [ "$(id -u)" = 0 ] && chown postgres "$dir/pg"
      as_postgres "$initdb" -D "$dir/pg/data" -A trust -U postgres -E UTF8 >"$dir/pg/initdb.log" 2>&1 ||
        fail "initdb failed (log: $dir/pg/initdb.log)"
      as_postgres "$pg_ctl" -D "$dir/pg/data" -l "$dir/pg/pg.log" -w -t 60 \
        -o "-c listen_addresses= -c unix_socket_directories=$dir/pg -c fsync=off" start >/dev/null ||
        fail "PostgreSQL did not start (log: $dir/pg/pg.log)"
      echo "$pg_ctl" > "$dir/pg/pg_ctl"
      as_postgres "$createdb" -h "$dir/pg" ferretdb || fail "createdb failed"
      set -- --handler=postgresql "--postgresql-url=postgres://postgres@/ferretdb?host=$dir/pg"
      ;;
    *) usage ;;
  esac
  mkdir -p "$dir/state"
  "$bin" "$@" --listen-addr="127.0.0.1:$port" --state-dir="$dir/state" --debug-addr=- \
    --telemetry=disable --log-level=INFO >"$dir/ferretdb.log" 2>&1 &
  echo $! > "$dir/ferretdb.pid"
  # answering: FerretDB logs its listener once the backend is set up
  tries=0
  until grep -q "Listening on TCP" "$dir/ferretdb.log" 2>/dev/null; do
    kill -0 "$(cat "$dir/ferretdb.pid")" 2>/dev/null || fail "FerretDB exited (log: $dir/ferretdb.log)"
    tries=$((tries + 1))
    [ $tries -le 300 ] || fail "FerretDB did not listen within 30 s (log: $dir/ferretdb.log)"
    sleep 0.1
  done
  echo "mongodb://127.0.0.1:$port/"
}

stop() {
  dir=$1
  if [ -f "$dir/ferretdb.pid" ]; then
    pid=$(cat "$dir/ferretdb.pid")
    kill "$pid" 2>/dev/null || true
    tries=0
    while kill -0 "$pid" 2>/dev/null && [ $tries -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/ferretdb.pid"
  fi
  if [ -f "$dir/pg/pg_ctl" ]; then
    as_postgres "$(cat "$dir/pg/pg_ctl")" -D "$dir/pg/data" -m fast -w stop >/dev/null 2>&1 || true
    rm -f "$dir/pg/pg_ctl"
  fi
}

case ${1:-} in
  start) [ $# -eq 4 ] || usage; start "$2" "$3" "$4" ;;
  stop) [ $# -eq 2 ] || usage; stop "$2" ;;
  *) usage ;;
esac
