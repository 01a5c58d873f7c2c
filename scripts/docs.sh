#!/usr/bin/env bash
# Builds the DocC archive of every public module (Sources/<Module>/<Module>.docc) from the
# package's symbol graphs, into .build/docs/<Module>.doccarchive. Fails on any DocC warning
# (an unresolved ``Symbol`` link, a missing catalogue), so the docs stay clean.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=$(ls -d Sources/*/*.docc 2>/dev/null | sed -E 's#Sources/([^/]+)/.*#\1#' | sort -u)
[ -n "$modules" ] || { echo "docs: no documentation catalogue under Sources/"; exit 1; }
# Every library module must have a catalogue: the ones a user imports.
for dir in Sources/*/; do
  module=$(basename "$dir")
  case "$module" in C*|recorder|RecorderBench) continue ;; esac
  [ -d "$dir/$module.docc" ] || { echo "docs: $module has no $module.docc catalogue"; exit 1; }
done
swift package dump-symbol-graph --skip-synthesized-members >/dev/null
graphs=$(find .build -path '*/symbolgraph' -type d | head -1)
out=.build/docs
rm -rf "$out" && mkdir -p "$out"
failed=0
for module in $modules; do
  graphdir=$(mktemp -d)
  cp "$graphs/$module.symbols.json" "$graphdir/" 2>/dev/null || true
  cp "$graphs/$module"@*.symbols.json "$graphdir/" 2>/dev/null || true
  log=$(mktemp)
  if ! docc convert "Sources/$module/$module.docc" \
      --additional-symbol-graph-dir "$graphdir" \
      --fallback-display-name "$module" \
      --fallback-bundle-identifier "org.recorderkit.$module" \
      --output-path "$out/$module.doccarchive" --warnings-as-errors >"$log" 2>&1; then
    echo "docs: $module:"; grep -E "warning|error" "$log" | head -40
    failed=1
  else
    echo "docs: $module ok"
  fi
  rm -rf "$graphdir" "$log"
done
exit $failed
