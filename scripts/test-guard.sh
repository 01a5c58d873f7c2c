#!/usr/bin/env bash
# Runs a test command (its arguments) with a hang guard, for `make test` and `make tsan`.
#
# - Standard input is /dev/null, so no test child can wait on a terminal or a CI pipe.
# - Standard output and error are line-buffered (stdbuf), so the log shows the last test that
#   ran even when the run is killed.
# - If the run prints nothing for TEST_QUIET_SECONDS (default 600), every thread's stack of
#   each test process is printed (gdb, when installed) and the run is ended with status 124:
#   a hang fails the run with where it hung, instead of running into the CI's own time limit.
set -uo pipefail

quiet_limit=${TEST_QUIET_SECONDS:-600}
log=$(mktemp "${TMPDIR:-/tmp}/test-guard.XXXXXX")
trap 'rm -f "$log"' EXIT

buffering=()
if command -v stdbuf > /dev/null; then buffering=(stdbuf -oL -eL); fi

"${buffering[@]}" "$@" < /dev/null > >(tee -a "$log") 2>&1 &
runner=$!

# The runner's descendants (only this run's processes, never another run's on the machine).
descendants() {
  local children
  children=$(pgrep -P "$1" || true)
  for child in $children; do
    echo "$child"
    descendants "$child"
  done
}

last_size=-1
quiet=0
while kill -0 "$runner" 2> /dev/null; do
  sleep 5
  size=$(stat -c %s "$log" 2> /dev/null || echo 0)
  if [ "$size" != "$last_size" ]; then
    last_size=$size
    quiet=0
    continue
  fi
  quiet=$((quiet + 5))
  [ "$quiet" -lt "$quiet_limit" ] && continue
  echo "test-guard: no output for ${quiet_limit} s; the test processes' threads follow" >&2
  processes=$(descendants "$runner")
  for pid in $processes; do
    command=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null | cut -c1-200)
    case "$command" in *PackageTests.xctest*) ;; *) continue ;; esac
    echo "test-guard: process $pid: $command" >&2
    if command -v gdb > /dev/null; then
      gdb -p "$pid" -batch -nx -ex 'set pagination off' -ex 'thread apply all bt 25' 2>&1 \
        | grep -v '^\[New LWP\|^warning: ' >&2
    fi
  done
  for pid in $processes; do kill -KILL "$pid" 2> /dev/null || true; done
  kill -KILL "$runner" 2> /dev/null || true
  wait "$runner" 2> /dev/null
  exit 124
done
wait "$runner"
