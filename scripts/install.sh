#!/usr/bin/env bash
# Installs the `recorder` gateway: the binary, its systemd unit, its D-Bus policy and polkit
# rule, and the declarative files that make its system user (sysusers.d) and the device
# token's place (tmpfiles.d: a 0700 folder, a 0600 file, both owned by recorder).
#
# usage: scripts/install.sh BINARY
#   DESTDIR     staging root (default: none, the live system)
#   PREFIX      /usr/local by default: BINARY goes to PREFIX/bin, the unit, sysusers.d and
#               tmpfiles.d files under PREFIX/lib (systemd reads /usr/local/lib/... too)
#   SYSCONFDIR  /etc by default: the D-Bus policy, the polkit rule, recorder/gateway.env
#
# Idempotent: a second run installs the same files, keeps an edited gateway.env, and finds the
# user and the token's place already made. With DESTDIR set nothing is activated (a staging
# root: a package's post-install, or systemd at boot, applies the sysusers.d and tmpfiles.d
# files); without it the user and the token's place are made now and systemd and D-Bus are
# told to reload, when they run.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 BINARY" >&2; exit 64; }
binary=$1
[ -x "$binary" ] || { echo "install: $binary is not an executable" >&2; exit 66; }
destdir=${DESTDIR:-}
prefix=${PREFIX:-/usr/local}
sysconfdir=${SYSCONFDIR:-/etc}
here=$(cd "$(dirname "$0")/.." && pwd)/dist/linux

unit_dir=$prefix/lib/systemd/system
sysusers_dir=$prefix/lib/sysusers.d
tmpfiles_dir=$prefix/lib/tmpfiles.d
dbus_dir=$sysconfdir/dbus-1/system.d
polkit_dir=$sysconfdir/polkit-1/rules.d

# A template with @BINDIR@ and @SYSCONFDIR@ filled in, installed with mode $3.
render() {  # render TEMPLATE TARGET MODE
  local scratch
  scratch=$(mktemp)
  sed -e "s|@BINDIR@|$prefix/bin|g" -e "s|@SYSCONFDIR@|$sysconfdir|g" "$1" >"$scratch"
  install -D -m "$3" "$scratch" "$destdir$2"
  rm -f "$scratch"
}

install -D -m 0755 "$binary" "$destdir$prefix/bin/recorder"
render "$here/recorder-gateway.service.in" "$unit_dir/recorder-gateway.service" 0644
install -D -m 0644 "$here/recorder.sysusers" "$destdir$sysusers_dir/recorder.conf"
render "$here/recorder.tmpfiles.in" "$tmpfiles_dir/recorder.conf" 0644
install -D -m 0644 "$here/recorder.dbus.conf" "$destdir$dbus_dir/recorder.conf"
install -D -m 0644 "$here/recorder.polkit.rules" "$destdir$polkit_dir/50-recorder.rules"
# The settings are the administrator's once installed: never overwritten.
if [ ! -e "$destdir$sysconfdir/recorder/gateway.env" ]; then
  install -D -m 0644 "$here/gateway.env" "$destdir$sysconfdir/recorder/gateway.env"
fi

[ -z "$destdir" ] || exit 0
systemd-sysusers "$sysusers_dir/recorder.conf"
systemd-tmpfiles --create "$tmpfiles_dir/recorder.conf"
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload
  systemctl reload dbus.service 2>/dev/null || true
fi
echo "installed; next: the token (docs/linux-gateway.md, \"Your device token\"), then" \
  "systemctl enable --now recorder-gateway" >&2
