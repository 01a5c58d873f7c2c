# -*- coding: utf-8 -*-
'''A mock NetworkManager for RecorderKit's tests: python3-dbusmock's networkmanager template
plus the radio it does not model, keeping NetworkManager's rules:

- An access point exists on air only if the test raised it (parameter `hotspots`, or the
  RaiseHotspot / RaiseEmulatedHotspot controls), and appears on the Wi-Fi device only after
  a RequestScan (AccessPointAdded ~150 ms later), as NetworkManager's scan results do.
- AddAndActivateConnection2 (NetworkManager 1.16+) adds the connection (Unsaved unless
  `persist` is `disk`; remembered as volatile for `persist: volatile`) and an active
  connection in ACTIVATING; ~100 ms later the radio associates:
    * an access point raised with a PSK: the right PSK goes ACTIVATING -> ACTIVATED; a wrong
      one fails the device with NO_SECRETS (device reason 7) and the active connection ends
      DEACTIVATED with reason NO_SECRETS (9), as NetworkManager without a secret agent does;
    * an emulated hotspot: the association is the emulator's join port's verdict (docs/
      tcp-link.md): the mock sends `JOIN <ssid> <psk> <server port>` there (the radio
      association is what makes the emulated device see the gateway); OK -> ACTIVATED,
      `ERR wrong password` -> NO_SECRETS as above, any other refusal -> the device fails
      with SSID_NOT_FOUND (53) and the active connection ends DEACTIVATED, reason 3;
    * an SSID with no access point seen: the same SSID_NOT_FOUND failure.
  A volatile connection is deleted when its activation ends, as NetworkManager does.
- DeactivateConnection deactivates that active connection only (USER_DISCONNECTED), other
  devices and connections untouched; ConnectionNotActive for anything else.
- `hold_activating`: activations stay in ACTIVATING (the mock logs `ACTIVATING <path>` to
  stderr), for a test that kills NetworkManager mid-join.
- `state_file`: connections are kept there across a restart of the mock (as NetworkManager
  keeps in-memory connections under /run across its own restart); a restart without the
  file starts fresh.
- `user_connection` (default true): a pre-existing user connection "Home wired" on an
  ethernet device eth0, active, which nothing of ours may touch.
- `wifi` (default true): the Wi-Fi device wlan0 exists.
- `ip4` ({address, prefix, gateway}, default none): once activated, wlan0's IP4Config
  (AddressData and Gateway) says so; without it the device has none (Ip4Config "/").
- `scanned_at_start` (default false): the access points on air are listed at start-up, as
  after NetworkManager's own start-up scan.

Run: python3 -m dbusmock --system --template recorder_nm.py -p JSON. Controls on
org.freedesktop.DBus.Mock at /org/freedesktop: RaiseHotspot(ssid, psk),
RaiseEmulatedHotspot(ssid, "HOST:PORT", server_port), Snapshot() -> JSON (connections,
active connections, call counts). dbusmock logs every call with its arguments to stdout
(the PSK among them): the tests discard stdout; nothing here prints a PSK.
'''

import json
import os
import socket
import sys

import dbus
from gi.repository import GLib

import dbusmock
from dbusmock import MOCK_IFACE
from dbusmock.mockobject import objects
from dbusmock.templates import networkmanager as nm
# The template's controls and Settings methods (on the main object's class), as they are.
from dbusmock.templates.networkmanager import (  # noqa: F401 pylint: disable=unused-import
    SetProperty, SetGlobalConnectionState, SetConnectivity, SetNetworkingEnabled,
    SetDeviceActive, SetDeviceDisconnected, AddEthernetDevice, AddWiFiDevice, AddAccessPoint,
    AddWiFiConnection, AddActiveConnection, RemoveAccessPoint, RemoveWifiConnection,
    RemoveActiveConnection, SettingsAddConnection, SettingsGetConnectionByUuid)

BUS_NAME = nm.BUS_NAME
MAIN_OBJ = nm.MAIN_OBJ
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

MANAGER_OBJ = nm.MANAGER_OBJ
MANAGER_IFACE = nm.MANAGER_IFACE
SETTINGS_OBJ = nm.SETTINGS_OBJ
DEVICE_IFACE = nm.DEVICE_IFACE
WIRELESS_IFACE = nm.WIRELESS_DEVICE_IFACE
ACTIVE_IFACE = nm.ACTIVE_CONNECTION_IFACE
CSETTINGS_IFACE = nm.CSETTINGS_IFACE
IP4_IFACE = 'org.freedesktop.NetworkManager.IP4Config'
WLAN = '/org/freedesktop/NetworkManager/Devices/wlan0'
ETH = '/org/freedesktop/NetworkManager/Devices/eth0'
USER_UUID = '5a0b5f3e-0d6c-4d51-9a1c-6f1f0c2e7a11'

# Active connection states and reasons, device states and reasons (nm-dbus-interface.h).
AC_ACTIVATING, AC_ACTIVATED, AC_DEACTIVATED = 1, 2, 4
AC_REASON_NONE, AC_REASON_USER, AC_REASON_DEVICE, AC_REASON_NO_SECRETS = 1, 2, 3, 9
DEV_DISCONNECTED, DEV_PREPARE, DEV_ACTIVATED, DEV_FAILED = 30, 40, 100, 120
DEV_REASON_NO_SECRETS, DEV_REASON_SSID_NOT_FOUND = 7, 53

RADIO = {'hotspots': {}, 'hold': False, 'state_file': '', 'calls': {}}


def log(text):
    sys.stderr.write(text + '\n')
    sys.stderr.flush()


def count(name):
    RADIO['calls'][name] = RADIO['calls'].get(name, 0) + 1


def manager():
    return dbusmock.get_object(MANAGER_OBJ)


def settings_obj():
    return dbusmock.get_object(SETTINGS_OBJ)


def load(mock, parameters):
    nm.load(mock, parameters)
    RADIO['main'] = mock
    RADIO['hold'] = bool(parameters.get('hold_activating', False))
    RADIO['ip4'] = parameters.get('ip4')
    RADIO['state_file'] = str(parameters.get('state_file', ''))
    for hotspot in parameters.get('hotspots', []):
        RADIO['hotspots'][str(hotspot['ssid'])] = dict(hotspot)

    man = manager()
    man.nm_add_activate2 = add_and_activate2
    man.nm_deactivate = deactivate_method
    man.AddMethod(MANAGER_IFACE, 'AddAndActivateConnection2', 'a{sa{sv}}ooa{sv}', 'ooa{sv}',
                  'ret = self.nm_add_activate2(args[0], args[1], args[2], args[3])')
    man.AddMethod(MANAGER_IFACE, 'DeactivateConnection', 'o', '', 'self.nm_deactivate(args[0])')

    if parameters.get('wifi', True):
        mock.AddWiFiDevice('wlan0', 'wlan0', DEV_DISCONNECTED)
        dev = dbusmock.get_object(WLAN)
        dev.nm_scan = request_scan
        dev.AddMethod(WIRELESS_IFACE, 'RequestScan', 'a{sv}', '', 'self.nm_scan(self)')
        dev.AddProperties(DEVICE_IFACE, {'Ip4Config': dbus.ObjectPath('/')})
        if parameters.get('scanned_at_start', False):
            finish_scan(dev)

    restored = restore_state(mock)
    if parameters.get('user_connection', True):
        mock.AddEthernetDevice('eth0', 'eth0', DEV_DISCONNECTED)
        user = next((c for c in restored if c['uuid'] == USER_UUID), None)
        path = user['path'] if user else add_connection({
            'connection': {'id': 'Home wired', 'uuid': USER_UUID, 'type': '802-3-ethernet',
                           'autoconnect': False}}, unsaved=False, volatile=False)
        nm.activate_connection(man, path, ETH, '/')
    save_state()


# MARK: Controls

@dbus.service.method(MOCK_IFACE, in_signature='ss', out_signature='')
def RaiseHotspot(_self, ssid, psk):
    '''An access point `ssid` with WPA-PSK `psk` is on air from now on.'''
    RADIO['hotspots'][str(ssid)] = {'ssid': str(ssid), 'psk': str(psk)}


@dbus.service.method(MOCK_IFACE, in_signature='ssu', out_signature='')
def RaiseEmulatedHotspot(_self, ssid, join, server_port):
    '''An emulated device's access point `ssid`: associations go to its join port `join`.'''
    RADIO['hotspots'][str(ssid)] = {'ssid': str(ssid), 'join': str(join),
                                    'server_port': int(server_port)}


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='s')
def Snapshot(_self):
    '''Connections, active connections and call counts, as JSON (no secrets).'''
    connections = []
    for path in settings_obj().Get(nm.SETTINGS_IFACE, 'Connections'):
        conn = dbusmock.get_object(path)
        section = conn.settings.get('connection', {})
        connections.append({'path': str(path), 'id': str(section.get('id', '')),
                            'uuid': str(section.get('uuid', '')),
                            'autoconnect': bool(section.get('autoconnect', True)),
                            'unsaved': bool(conn.Get(CSETTINGS_IFACE, 'Unsaved')),
                            'volatile': bool(getattr(conn, 'volatile', False))})
    active = []
    for path in manager().Get(MANAGER_IFACE, 'ActiveConnections'):
        ac = dbusmock.get_object(path)
        active.append({'path': str(path), 'id': str(ac.Get(ACTIVE_IFACE, 'Id')),
                       'uuid': str(ac.Get(ACTIVE_IFACE, 'Uuid')),
                       'state': int(ac.Get(ACTIVE_IFACE, 'State'))})
    return json.dumps({'connections': connections, 'active': active, 'calls': RADIO['calls']})


# MARK: Scans

def request_scan(dev):
    count('RequestScan')
    GLib.timeout_add(150, finish_scan, dev)


def finish_scan(dev):
    seen = {bytes(dbusmock.get_object(ap).Get(nm.ACCESS_POINT_IFACE, 'Ssid'))
            for ap in dev.access_points}
    for index, ssid in enumerate(sorted(RADIO['hotspots'])):
        if ssid.encode('utf-8') in seen:
            continue
        name = 'ap%d' % (len(dev.access_points) + index)
        manager_main = RADIO['main']
        # WPA2-PSK, CCMP: NM_802_11_AP_SEC_KEY_MGMT_PSK | PAIR_CCMP | GROUP_CCMP.
        manager_main.AddAccessPoint(WLAN, name, ssid, '02:00:00:00:00:%02x' % (index + 1),
                                    2, 2437, 54000, 80, 0x188)
    return False


# MARK: Connections

def add_connection(settings, unsaved, volatile):
    path = settings_obj().SettingsAddConnection(settings)
    conn = dbusmock.get_object(path)
    conn.volatile = volatile
    conn.Set(CSETTINGS_IFACE, 'Unsaved', dbus.Boolean(unsaved))
    conn.nm_delete = delete_connection
    conn.AddMethod(CSETTINGS_IFACE, 'Delete', '', '', 'self.nm_delete(self)')
    return path


def delete_connection(conn):
    count('Delete')
    nm.ConnectionDelete(conn)
    save_state()


def add_and_activate2(settings, device, specific, options):
    count('AddAndActivateConnection2')
    if str(device) not in [str(d) for d in manager().Get(MANAGER_IFACE, 'Devices')]:
        raise dbus.exceptions.DBusException('no device ' + str(device),
                                            name=MANAGER_IFACE + '.UnknownDevice')
    persist = str(options.get('persist', 'disk'))
    if persist not in ('disk', 'memory', 'volatile'):
        raise dbus.exceptions.DBusException('invalid persist ' + persist,
                                            name=MANAGER_IFACE + '.InvalidArguments')
    wireless = settings.get('802-11-wireless', {})
    ssid = bytes(wireless.get('ssid', b'')).decode('utf-8', 'replace')
    psk = str(settings.get('802-11-wireless-security', {}).get('psk', ''))
    conn_path = add_connection(settings, unsaved=persist != 'disk', volatile=persist == 'volatile')
    save_state()
    conn = dbusmock.get_object(conn_path)
    section = conn.settings['connection']
    index = 0
    while '/org/freedesktop/NetworkManager/ActiveConnection/%d' % index in \
            [str(p) for p in manager().Get(MANAGER_IFACE, 'ActiveConnections')]:
        index += 1
    ac_path = '/org/freedesktop/NetworkManager/ActiveConnection/%d' % index
    conn.AddObject(ac_path, ACTIVE_IFACE, {
        'Devices': dbus.Array([dbus.ObjectPath(device)], signature='o'),
        'Default6': False, 'Default': False, 'Type': '802-11-wireless', 'Vpn': False,
        'Connection': dbus.ObjectPath(conn_path), 'Master': dbus.ObjectPath('/'),
        'SpecificObject': dbus.ObjectPath(specific), 'Uuid': str(section['uuid']),
        'State': dbus.UInt32(AC_ACTIVATING), 'StateFlags': dbus.UInt32(0),
        'Id': str(section['id']), 'Ip4Config': dbus.ObjectPath('/')}, [])
    conn.object_manager_emit_added(ac_path)
    actives = manager().Get(MANAGER_IFACE, 'ActiveConnections')
    actives.append(dbus.ObjectPath(ac_path))
    manager().SetProperty(MANAGER_OBJ, MANAGER_IFACE, 'ActiveConnections', actives)
    set_device_state(str(device), DEV_PREPARE, 0, ac_path)
    GLib.timeout_add(100, associate, ac_path, str(device), ssid, psk)
    return (dbus.ObjectPath(conn_path), dbus.ObjectPath(ac_path), dbus.Dictionary({}, signature='sv'))


def set_device_state(device, state, reason, active='/'):
    dev = dbusmock.get_object(device)
    old = dev.Get(DEVICE_IFACE, 'State')
    dev.Set(DEVICE_IFACE, 'State', dbus.UInt32(state))
    dev.Set(DEVICE_IFACE, 'StateReason', (dbus.UInt32(state), dbus.UInt32(reason)))
    dev.Set(DEVICE_IFACE, 'ActiveConnection', dbus.ObjectPath(active))
    dev.EmitSignal(DEVICE_IFACE, 'StateChanged', 'uuu',
                   [dbus.UInt32(state), old, dbus.UInt32(reason)])


def set_active_state(ac_path, state, reason):
    ac = dbusmock.get_object(ac_path)
    ac.Set(ACTIVE_IFACE, 'State', dbus.UInt32(state))
    ac.EmitSignal('org.freedesktop.DBus.Properties', 'PropertiesChanged', 'sa{sv}as',
                  [ACTIVE_IFACE, {'State': dbus.UInt32(state)}, []])
    ac.EmitSignal(ACTIVE_IFACE, 'StateChanged', 'uu', [dbus.UInt32(state), dbus.UInt32(reason)])


def configure_ip4(device):
    '''The `ip4` parameter's address, prefix and gateway as the device's IP4Config.'''
    ip4 = RADIO.get('ip4')
    if not ip4:
        return
    dev = dbusmock.get_object(device)
    path = '/org/freedesktop/NetworkManager/IP4Config/1'
    if path not in objects:
        dev.AddObject(path, IP4_IFACE, {
            'AddressData': dbus.Array([dbus.Dictionary({
                'address': dbus.String(ip4['address'], variant_level=1),
                'prefix': dbus.UInt32(ip4['prefix'], variant_level=1)}, signature='sv')],
                signature='a{sv}'),
            'Gateway': dbus.String(ip4['gateway'])}, [])
    dev.Set(DEVICE_IFACE, 'Ip4Config', dbus.ObjectPath(path))


def end_activation(ac_path, reason, device_state, device_reason):
    '''The activation ends: DEACTIVATED with `reason`; a volatile connection goes with it.'''
    ac = dbusmock.get_object(ac_path)
    conn_path = str(ac.Get(ACTIVE_IFACE, 'Connection'))
    for device in ac.Get(ACTIVE_IFACE, 'Devices'):
        set_device_state(str(device), device_state, device_reason)
        dev = dbusmock.get_object(str(device))
        if 'Ip4Config' in dev.props.get(DEVICE_IFACE, {}):
            dev.Set(DEVICE_IFACE, 'Ip4Config', dbus.ObjectPath('/'))
    set_active_state(ac_path, AC_DEACTIVATED, reason)
    actives = manager().Get(MANAGER_IFACE, 'ActiveConnections')
    if ac_path in [str(p) for p in actives]:
        actives.remove(dbus.ObjectPath(ac_path))
        manager().SetProperty(MANAGER_OBJ, MANAGER_IFACE, 'ActiveConnections', actives)
    ac.object_manager_emit_removed(ac_path)
    ac.RemoveObject(ac_path)
    if conn_path in [str(p) for p in settings_obj().Get(nm.SETTINGS_IFACE, 'Connections')]:
        conn = dbusmock.get_object(conn_path)
        if getattr(conn, 'volatile', False):
            nm.ConnectionDelete(conn)
            save_state()


def associate(ac_path, device, ssid, psk):
    if ac_path not in objects:
        return False
    if RADIO['hold']:
        log('ACTIVATING ' + ac_path)
        return False
    hotspot = RADIO['hotspots'].get(ssid)
    dev = dbusmock.get_object(device)
    visible = any(bytes(dbusmock.get_object(ap).Get(nm.ACCESS_POINT_IFACE, 'Ssid')) ==
                  ssid.encode('utf-8') for ap in dev.access_points)
    if hotspot is None or not visible:
        verdict = 'no access point'
    elif 'psk' in hotspot:
        verdict = 'OK' if psk == hotspot['psk'] else 'wrong password'
    else:
        verdict = join(hotspot, ssid, psk)
    log('association with %s: %s' % (ssid, verdict))
    if verdict == 'OK':
        configure_ip4(device)
        set_device_state(device, DEV_ACTIVATED, 0, ac_path)
        set_active_state(ac_path, AC_ACTIVATED, AC_REASON_NONE)
    elif verdict == 'wrong password':
        end_activation(ac_path, AC_REASON_NO_SECRETS, DEV_FAILED, DEV_REASON_NO_SECRETS)
    else:
        end_activation(ac_path, AC_REASON_DEVICE, DEV_FAILED, DEV_REASON_SSID_NOT_FOUND)
    return False


def join(hotspot, ssid, psk):
    '''The emulated device's verdict on an association: its join port's answer.'''
    host, port = hotspot['join'].rsplit(':', 1)
    try:
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(('JOIN %s %s %d\n' % (ssid, psk, hotspot['server_port'])).encode())
            answer = b''
            while b'\n' not in answer and len(answer) < 256:
                chunk = sock.recv(256)
                if not chunk:
                    break
                answer += chunk
    except OSError as error:
        return 'join port: %s' % error
    line = answer.split(b'\n')[0].decode('utf-8', 'replace')
    if line == 'OK':
        return 'OK'
    return line[4:] if line.startswith('ERR ') else 'no answer'


def deactivate_method(ac_path):
    count('DeactivateConnection')
    if str(ac_path) not in [str(p) for p in manager().Get(MANAGER_IFACE, 'ActiveConnections')]:
        raise dbus.exceptions.DBusException('not active: ' + str(ac_path),
                                            name=MANAGER_IFACE + '.ConnectionNotActive')
    end_activation(str(ac_path), AC_REASON_USER, DEV_DISCONNECTED, 39)


# MARK: State across restarts

def save_state():
    if not RADIO['state_file']:
        return
    saved = []
    for path in settings_obj().Get(nm.SETTINGS_IFACE, 'Connections'):
        conn = dbusmock.get_object(path)
        section = conn.settings.get('connection', {})
        wireless = conn.settings.get('802-11-wireless', {})
        saved.append({'id': str(section.get('id', '')), 'uuid': str(section.get('uuid', '')),
                      'type': str(section.get('type', '')),
                      'ssid': list(bytes(wireless.get('ssid', b''))),
                      'unsaved': bool(conn.Get(CSETTINGS_IFACE, 'Unsaved'))})
    with open(RADIO['state_file'] + '.tmp', 'w', encoding='utf-8') as out:
        json.dump(saved, out)
    os.replace(RADIO['state_file'] + '.tmp', RADIO['state_file'])


def restore_state(_mock):
    if not RADIO['state_file'] or not os.path.exists(RADIO['state_file']):
        return []
    with open(RADIO['state_file'], encoding='utf-8') as saved_file:
        saved = json.load(saved_file)
    restored = []
    for entry in saved:
        settings = {'connection': {'id': entry['id'], 'uuid': entry['uuid'], 'type': entry['type'],
                                   'autoconnect': False}}
        if entry['ssid']:
            settings['802-11-wireless'] = {'ssid': dbus.ByteArray(bytes(entry['ssid']))}
        path = add_connection(settings, unsaved=entry['unsaved'], volatile=False)
        restored.append({'uuid': entry['uuid'], 'path': path})
    log('restored %d connection(s)' % len(restored))
    return restored
