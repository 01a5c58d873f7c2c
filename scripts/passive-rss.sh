#!/usr/bin/env bash
# The resident set of `recorder passive run` over a long run (issue 39, item 7): against
# `recorder emulate` with four health peripherals power-cycling 100 times faster than real
# time, it prints the gateway's RSS at start, then after every 1,000 readings up to READINGS
# (default 10,000; about 5 minutes on 2 cores). A figure to read, never a test: not in
# `make test` (`make passive-rss` runs it).
#
#   RECORDER=path/to/recorder READINGS=10000 scripts/passive-rss.sh
set -euo pipefail

READINGS=${READINGS:-10000}
RECORDER=${RECORDER:-$(swift build --show-bin-path)/recorder}
# Generous: a reading takes about 30 ms here; a busy machine may take several times that.
LIMIT_SECONDS=${LIMIT_SECONDS:-3600}

work=$(mktemp -d "${TMPDIR:-/tmp}/passive-rss.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Waits up to LIMIT_SECONDS for `$1` (a command) to succeed.
wait_for() {
  local deadline=$((SECONDS + LIMIT_SECONDS))
  until eval "$1"; do
    if ((SECONDS > deadline)); then
      echo "passive-rss: gave up waiting for: $1" >&2
      exit 1
    fi
    sleep 0.2
  done
}

"$RECORDER" emulate --port 0 --recordings 0 --no-wifi --time-scale 100 \
  --health thermometer,scale,bp,oximeter --health-linger 0.5 --health-cycle 10 \
  --flash "$work/flash" >"$work/emulate.out" 2>"$work/emulate.err" &
pids+=($!)
wait_for '[ "$(grep -c "^health " "$work/emulate.out")" = 4 ]'
url=$(head -n 1 "$work/emulate.out")
while read -r _ kind address; do
  "$RECORDER" passive register --root "$work/root" --kind "$kind" --id "$address" >/dev/null
done < <(grep "^health " "$work/emulate.out")

"$RECORDER" passive run --root "$work/root" --device "$url" --quiet-seconds 0.05 \
  --stats-every 1000 >"$work/run.out" 2>"$work/run.err" &
run=$!
pids+=("$run")
wait_for 'grep -q "^restored" "$work/run.err"'
echo "readings 0 rss-kb $(awk '/^VmRSS:/ { print $2 }' "/proc/$run/status")"
shown=0
started=$SECONDS
while ((shown < READINGS)); do
  wait_for '[ "$(grep -c "^stats " "$work/run.out")" -gt $((shown / 1000)) ]'
  line=$(grep "^stats " "$work/run.out" | sed -n "$((shown / 1000 + 1))p")
  shown=$(echo "$line" | awk '{ print $2 }')
  echo "readings $shown rss-kb $(echo "$line" | sed 's/.* rss-kb //') ($line)"
done
echo "$READINGS readings in $((SECONDS - started)) s; failed operations: $(grep -c "^failed" "$work/run.err" || true)"
# Why, if any did (a busy machine can stretch a 10 ms advertising gap past the 50 ms cooldown).
grep "^failed" "$work/run.err" | sed 's/^failed [^:]*: //' | sort | uniq -c | head -n 5 || true
