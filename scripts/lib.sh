# Shared by scripts/test and scripts/clients: timed steps and the system packages the tests need.

# Runs one named step, prints its time, and exits with its status when it fails.
step() {
  local name=$1
  shift
  local start
  start=$(date +%s)
  echo "==> ${name}"
  if "$@"; then
    echo "<== ${name}: ok in $(( $(date +%s) - start ))s"
  else
    local status=$?
    echo "<== ${name}: FAILED (exit ${status}) after $(( $(date +%s) - start ))s"
    exit "${status}"
  fi
}

# Installs Debian's redis-server when it is missing (the store and several-node tests start it).
install_system_packages() {
  command -v redis-server >/dev/null 2>&1 && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server
}

# tests/clients/package.json overrides `napi-windows-process-start-time` (a Windows-only optional
# package deep in the Inspector's dependency tree) with an empty package: the registry reachable
# here does not serve it, and `npm ci` refuses a lock that names a package it cannot fetch, even
# an optional one for another platform. The override keeps the lock installable everywhere.
npm_ci() {
  (cd tests/clients && npm ci --no-audit --no-fund --loglevel=error)
  tests/clients/node_modules/.bin/node --version | grep -q '^v22\.'
}
