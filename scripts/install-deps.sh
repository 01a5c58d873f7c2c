#!/usr/bin/env bash
# Installs the Debian packages named before `--` that are not installed yet; quiet when none
# are missing. Without apt, prints what to install (Homebrew names after `--`).
set -euo pipefail
deb=(); brew=(); target=deb
for arg in "$@"; do
  if [ "$arg" = "--" ]; then target=brew; continue; fi
  if [ $target = deb ]; then deb+=("$arg"); else brew+=("$arg"); fi
done

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  missing_pc=()
  for pc in opus lame ogg sqlite3 libcrypto; do
    pkg-config --exists "$pc" 2>/dev/null || missing_pc+=("$pc")
  done
  if [ ${#missing_pc[@]} -gt 0 ] || ! command -v pkg-config >/dev/null 2>&1; then
    echo "No apt here. Install these (Homebrew names): brew install ${brew[*]}" >&2
    echo "pkg-config cannot find: ${missing_pc[*]:-pkg-config itself}" >&2
    exit 1
  fi
  exit 0
fi

missing=()
for pkg in "${deb[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing missing Debian packages: ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >/dev/null
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
