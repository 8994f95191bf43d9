#!/usr/bin/env bash
# Installs what the test suite needs besides npm packages, if missing: FerretDB (built from the Go
# module proxy) for the MongoDB store tests, and Debian's Chromium for the console's browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" >/dev/null
  else
    echo "Missing Debian packages: ${need[*]} (install them with apt-get as root)" >&2
    exit 1
  fi
fi
bash scripts/install-ferretdb.sh

# WinRM stand-in and its third-party check: pyspnego (NTLM acceptor for the WS-Management peer)
# and pywinrm (the client that proves the peer speaks real WinRM); openssl makes the peer's cert.
if ! python3 -c 'import spnego, winrm' >/dev/null 2>&1; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      apt-get update -q >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-pip >/dev/null
    else
      echo "Missing python3-pip for the WinRM test peer (install it with apt-get as root)" >&2
      exit 1
    fi
  fi
  python3 -m pip install -q pywinrm pyspnego 2>/dev/null || python3 -m pip install -q --break-system-packages pywinrm pyspnego
fi
if ! command -v openssl >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openssl >/dev/null
  else
    echo "Missing openssl for the WinRM test peer (install it with apt-get as root)" >&2
    exit 1
  fi
fi

# SSH administrator access test (remote actions): a private OpenSSH sshd on loopback with its own
# users needs Debian's openssh-server and sudo; the fleet SSH ban test runs Debian's ipset through
# them (where the kernel refuses sets, its recording sudo wrapper answers instead). policy-rc.d
# keeps the package from starting the system sshd on port 22 while it installs.
if [ ! -x /usr/sbin/sshd ] || [ ! -x /usr/bin/sudo ] || [ ! -x /usr/sbin/ipset ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    added_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && added_policy=1
    fi
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q openssh-server sudo ipset >/dev/null
    if [ "$added_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  else
    echo "Missing Debian packages openssh-server, sudo and ipset for the SSH tests (install them with apt-get as root)" >&2
    exit 1
  fi
fi

# OpenAPI fuzzing: schemathesis from PyPI, run by test/integration/openapi.schemathesis.test.ts.
if ! command -v st >/dev/null 2>&1; then
  python3 -m pip install --quiet 'schemathesis>=4.3,<5' 2>/dev/null || python3 -m pip install --quiet --break-system-packages 'schemathesis>=4.3,<5'
  # A pyenv Python puts new commands on PATH through shims made by a rehash.
  if command -v pyenv >/dev/null 2>&1; then pyenv rehash; fi
fi

# Several daemons on one MongoDB (scale-out): FerretDB's PostgreSQL backend runs on a private
# cluster that scripts/postgres.ts creates in a temp dir (initdb, loopback port, no system service;
# as root under the `postgres` account the package creates). policy-rc.d keeps the package from
# starting the system cluster while it installs.
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    added_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && added_policy=1
    fi
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql >/dev/null
    if [ "$added_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  else
    echo "Missing Debian package postgresql for FerretDB's PostgreSQL backend (install it with apt-get as root)" >&2
    exit 1
  fi
fi

# SQLite disk outage test (store-outage-sqlite.test.ts): the read-only disk is an ext4 image on a
# loop device, made with mkfs.ext4 (e2fsprogs). Root only: without root the test skips its disk scenarios.
if [ "$(id -u)" = 0 ] && ! command -v mkfs.ext4 >/dev/null && command -v apt-get >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q e2fsprogs >/dev/null
fi

# Deploy recipes (deploy-recipes.test.ts, metrics.http.test.ts): nginx for `nginx -t` and a private
# nginx in front of a test daemon, promtool (Debian's prometheus package) for the metrics and rules,
# systemd-analyze (Debian's systemd package) for the unit file.
# policy-rc.d keeps the packages from starting the system nginx and Prometheus while they install.
if [ ! -x /usr/sbin/nginx ] || ! command -v promtool >/dev/null || ! command -v systemd-analyze >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    added_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d && added_policy=1
    fi
    apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends nginx prometheus systemd >/dev/null
    if [ "$added_policy" = 1 ]; then rm -f /usr/sbin/policy-rc.d; fi
  else
    echo "Missing Debian packages nginx, prometheus (promtool) or systemd (systemd-analyze): the deploy recipe tests skip their checks (install them with apt-get as root)" >&2
  fi
fi
