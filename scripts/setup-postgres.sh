#!/usr/bin/env bash
# Makes a local PostgreSQL server with pgvector available on Debian and prints its DATABASE_URL.
# Idempotent: each step is skipped when its result is already there.
#   PARLEY_PG_DB (default parley_test), PARLEY_PG_USER (default parley), PARLEY_PG_PASSWORD (default parley)
set -euo pipefail

db=${PARLEY_PG_DB:-parley_test}
user=${PARLEY_PG_USER:-parley}
password=${PARLEY_PG_PASSWORD:-parley}
port=${PARLEY_PG_PORT:-5432}

say() { echo "setup-postgres: $*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
as_postgres() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres "$@"; fi; }

apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then as_root apt-get update -qq >&2; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >&2
}

if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  say "installing PostgreSQL from apt"
  apt_install postgresql postgresql-contrib
fi
major=$(ls /usr/lib/postgresql | sort -n | tail -1)
sharedir=/usr/share/postgresql/$major

if [ ! -f "$sharedir/extension/vector.control" ]; then
  say "pgvector is missing for PostgreSQL $major: building it from Debian's source package"
  apt_install "postgresql-server-dev-$major" build-essential dpkg-dev
  src_list=/etc/apt/sources.list.d/parley-pgvector-src.sources
  if ! apt-cache showsrc pgvector >/dev/null 2>&1 || [ -z "$(apt-cache showsrc pgvector 2>/dev/null)" ]; then
    # Debian 12 ships no pgvector; trixie's source package builds cleanly against PostgreSQL 15.
    as_root tee "$src_list" >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    as_root apt-get update -qq >&2
  fi
  build=$(mktemp -d)
  (cd "$build" && apt-get source -qq pgvector >&2)
  srcdir=$(find "$build" -maxdepth 1 -mindepth 1 -type d -name 'pgvector-*' | head -1)
  make -s -C "$srcdir" PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" OPTFLAGS="" >&2
  as_root make -s -C "$srcdir" PG_CONFIG="/usr/lib/postgresql/$major/bin/pg_config" install >&2
  rm -rf "$build"
fi

if ! pg_lsclusters -h 2>/dev/null | grep -q .; then
  say "creating a PostgreSQL $major cluster"
  as_root pg_createcluster "$major" main --port "$port" >&2
fi
cluster=$(pg_lsclusters -h | head -1)
cluster_version=$(echo "$cluster" | awk '{print $1}')
cluster_name=$(echo "$cluster" | awk '{print $2}')
port=$(echo "$cluster" | awk '{print $3}')
if ! echo "$cluster" | awk '{print $4}' | grep -q online; then
  say "starting PostgreSQL $cluster_version/$cluster_name"
  as_root pg_ctlcluster "$cluster_version" "$cluster_name" start >&2
fi

for _ in $(seq 1 30); do
  as_postgres pg_isready -q -p "$port" && break
  sleep 1
done

if ! as_postgres psql -p "$port" -tAc "select 1 from pg_roles where rolname = '$user'" | grep -q 1; then
  say "creating role $user"
  as_postgres psql -p "$port" -qc "create role $user login superuser password '$password'" >&2
fi
if ! as_postgres psql -p "$port" -tAc "select 1 from pg_database where datname = '$db'" | grep -q 1; then
  say "creating database $db"
  as_postgres createdb -p "$port" -O "$user" "$db" >&2
fi
as_postgres psql -p "$port" -d "$db" -qc "create extension if not exists vector" >&2

echo "postgres://$user:$password@127.0.0.1:$port/$db"
