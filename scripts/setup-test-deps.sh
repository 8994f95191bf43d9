#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, if missing: FerretDB (built from the Go
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

# OpenAPI fuzzing (issue 17, item 9): schemathesis from PyPI, run by test/integration/openapi.schemathesis.test.ts.
if ! command -v st >/dev/null 2>&1; then
  python3 -m pip install --quiet 'schemathesis>=4.3,<5'
fi
