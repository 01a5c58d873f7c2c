# -*- coding: utf-8 -*-
'''A mock bluetoothd for RecorderKit's tests: python3-dbusmock's bluez5 template (adapter,
agent and profile managers) plus recorders relayed from a `recorder emulate` process over the
TCP link (docs/tcp-link.md).

Run: python3 -m dbusmock --system --template recorder_bluez.py -p JSON, with JSON keys
  emulator   "HOST:PORT" of the TCP link (required)
  notify     "descriptor" (AcquireNotify's socket, default) or "properties" (AcquireNotify
             refused: StartNotify and Value PropertiesChanged, one D-Bus signal each)
  powered    adapter powered at start (default true)
  battery    "gatt" (default: the battery service 180F / 2A19 as GATT objects) or "plugin"
             (bluetoothd before 5.80 with its battery plugin, as Debian 12's 5.66: the plugin
             claims 180F, so no GATT objects for it; the level is org.bluez.Battery1's
             Percentage (byte) on the device object, added once connected, updated from
             2A19 notifications and removed on disconnect)

Devices appear while the adapter discovers (each emulator advertisement: an InterfacesAdded
for a new device, else a PropertiesChanged of RSSI and ManufacturerData). Device1.Connect
connects through the TCP link and adds the GATT objects (vendor service 1910 with 2BB1 /
2BB0, battery 180F / 2A19) with their MTU; then ServicesResolved. Writes without response
through AcquireWrite's socket keep up to 64 TCP writes outstanding (a full socket is back
pressure on the client); notifications go to AcquireNotify's socket (a blocking send: a slow
client holds the emulated radio back) or out as Value PropertiesChanged.

Fault controls, on org.bluez.Mock at /: SetPowered(b), DropLinks(), DropAfter(u) (drop every
link after that many more notifications), ForgetDevices(), Vanish() (Connect hangs, as for a
device gone out of range), Stats() -> a{st}.
'''

import hashlib
import select
import socket
import struct
import sys
import time

import dbus
import dbus.lowlevel
from gi.repository import GLib

from dbusmock import mockobject
from dbusmock import OBJECT_MANAGER_IFACE
# The template's adapter and manager methods (AddAdapter, RemoveAdapter, …) on org.bluez.Mock.
from dbusmock.templates.bluez5 import (  # noqa: F401 pylint: disable=unused-import
    AddAdapter, RemoveAdapter, RemoveDevice, StartDiscovery, StopDiscovery, SetDiscoveryFilter,
    RegisterAgent, UnregisterAgent, RequestDefaultAgent)
from dbusmock.templates import bluez5

BUS_NAME = 'org.bluez'
MAIN_OBJ = '/'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

MOCK_IFACE = 'org.bluez.Mock'
ADAPTER_IFACE = 'org.bluez.Adapter1'
DEVICE_IFACE = 'org.bluez.Device1'
SERVICE_IFACE = 'org.bluez.GattService1'
CHRC_IFACE = 'org.bluez.GattCharacteristic1'
BATTERY_IFACE = 'org.bluez.Battery1'
PROPS_IFACE = 'org.freedesktop.DBus.Properties'
ADAPTER = '/org/bluez/hci0'

BASE = bytes.fromhex('00001000800000805f9b34fb')
WRITE_WINDOW = 64


def uuid16(short):
    return bytes([0, 0, short >> 8, short & 0xFF]) + BASE


def uuid_text(raw):
    h = raw.hex()
    return f'{h[0:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}'


VENDOR, WRITE, NOTIFY = uuid16(0x1910), uuid16(0x2BB1), uuid16(0x2BB0)
BATTERY, LEVEL = uuid16(0x180F), uuid16(0x2A19)


def log(text):
    sys.stderr.write(f'recorder_bluez: {text}\n')
    sys.stderr.flush()


def failed(text, name='org.bluez.Error.Failed'):
    return dbus.exceptions.DBusException(text, name=name)


class Reader:
    '''A cursor over one TCP link message body.'''

    def __init__(self, body):
        self.body, self.at = body, 0

    def take(self, n):
        part = self.body[self.at:self.at + n]
        if len(part) != n:
            raise ValueError('short message')
        self.at += n
        return part

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        return struct.unpack('<H', self.take(2))[0]

    def i16(self):
        return struct.unpack('<h', self.take(2))[0]

    def u32(self):
        return struct.unpack('<I', self.take(4))[0]

    def string(self):
        return self.take(self.u16()).decode()

    def bytes(self):
        return self.take(self.u32())


def string(text):
    raw = text.encode()
    return struct.pack('<H', len(raw)) + raw


def blob(data):
    return struct.pack('<I', len(data)) + bytes(data)


class Emulator:
    '''The client end of the TCP link: requests wait for their reply (running the events that
    arrive meanwhile), events go to the relay.'''

    def __init__(self, address, relay):
        host, port = address.rsplit(':', 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.settimeout(None)
        self.relay = relay
        self.buffer = bytearray()
        self.replies = {}
        self.acks = {}
        self.next_request = 1
        self.send(0x01, b'RKTL' + struct.pack('<H', 1))
        while not self.replies.get('hello'):
            self.read(block=True)
        GLib.io_add_watch(self.sock.fileno(), GLib.IO_IN | GLib.IO_HUP | GLib.IO_ERR, self.readable)

    def send(self, kind, body):
        self.sock.sendall(struct.pack('<IB', len(body) + 1, kind) + body)

    def readable(self, *_):
        self.read(block=False)
        return True

    def read(self, block):
        if not block:
            ready, _, _ = select.select([self.sock], [], [], 0)
            if not ready:
                return
        data = self.sock.recv(262144)
        if not data:
            log('the emulator closed the TCP link')
            sys.exit(3)
        self.buffer += data
        while len(self.buffer) >= 4:
            length = struct.unpack_from('<I', self.buffer)[0]
            if len(self.buffer) < 4 + length:
                break
            kind, body = self.buffer[4], bytes(self.buffer[5:4 + length])
            del self.buffer[:4 + length]
            self.dispatch(kind, body)

    def dispatch(self, kind, body):
        if kind == 0x01:
            self.replies['hello'] = True
        elif 0x81 <= kind <= 0x8F:
            request = struct.unpack_from('<I', body)[0]
            if request in self.acks:
                self.acks.pop(request)(kind, body[4:])
            else:
                self.replies[request] = (kind, body[4:])
        elif kind == 0x02:
            log('goodbye from the emulator')
        else:
            self.relay.event(kind, Reader(body))

    def request(self, kind, body, on_reply=None):
        '''Sends a request; with on_reply, returns at once and calls it with the reply later,
        else waits for the reply (running events meanwhile) and returns (kind, body).'''
        request = self.next_request
        self.next_request += 1
        if on_reply:
            self.acks[request] = on_reply
        self.send(kind, struct.pack('<I', request) + body)
        if on_reply:
            return None
        while request not in self.replies:
            self.read(block=True)
        return self.replies.pop(request)


def error_text(body):
    '''The LinkError of an errorReply, in words.'''
    reader = Reader(body)
    code = reader.u8()
    names = {0: 'not powered on', 1: 'unknown peripheral', 2: 'connect timeout',
             3: 'disconnected', 4: 'characteristic not found', 5: 'ATT error',
             6: 'value too long', 7: 'transport', 8: 'cancelled', 9: 'service not found'}
    return names.get(code, f'error {code}')


class Relay:
    '''The recorders: Device1 objects relayed to the emulator's peripherals.'''

    def __init__(self, manager, parameters):
        self.manager = manager
        self.notify_mode = parameters.get('notify', 'descriptor')
        self.battery_mode = parameters.get('battery', 'gatt')
        self.devices = {}    # path -> state dict
        self.heard = {}      # emulator peripheral id -> (rssi, name, manufacturer data)
        self.links = {}      # link id -> path
        self.stats = {'notifications': 0, 'notification_bytes': 0, 'writes': 0,
                      'advertisements': 0, 'connects': 0}
        self.drop_after = None
        self.vanished = False
        self.emulator = Emulator(parameters['emulator'], self)
        self.emulator.send(0x11, struct.pack('<IB', 1, 0))  # startScan 1, unfiltered

    # Events from the emulator

    def event(self, kind, reader):
        if kind == 0xA0:
            reader.u32()
            self.advertisement(reader)
        elif kind == 0xA1:
            self.emulator.send(0x11, struct.pack('<IB', 1, 0))
        elif kind == 0xA2:
            link = reader.u32()
            uuid = reader.take(16)
            self.notification(link, uuid, reader.bytes())
        elif kind == 0xA5:
            link = reader.u32()
            path = self.links.get(link)
            if path:
                self.disconnected(path)

    def advertisement(self, reader):
        flags = reader.u8()
        rssi = reader.i16()
        peripheral = reader.string()
        name = reader.string() if flags & 1 else None
        manufacturer = reader.bytes() if flags & 2 else None
        self.stats['advertisements'] += 1
        # The emulator advertises a device when first heard, when it changes and when it
        # reappears; the mock keeps the last one and announces it while discovering.
        self.heard[peripheral] = (rssi, name, manufacturer)
        self.announce(peripheral)

    def announce_all(self):
        for peripheral in list(self.heard):
            self.announce(peripheral)

    def announce(self, peripheral):
        rssi, name, manufacturer = self.heard[peripheral]
        adapter = mockobject.objects[ADAPTER]
        if not adapter.props[ADAPTER_IFACE]['Powered'] or \
                not adapter.props[ADAPTER_IFACE]['Discovering']:
            return
        digest = hashlib.sha1(peripheral.encode()).digest()
        address = 'C0:' + ':'.join(f'{b:02X}' for b in digest[:5])
        path = ADAPTER + '/dev_' + address.replace(':', '_')
        if path in self.devices and self.devices[path]['link']:
            return
        changed = {'RSSI': dbus.Int16(rssi, variant_level=1)}
        if manufacturer and len(manufacturer) >= 2:
            company = manufacturer[0] | manufacturer[1] << 8
            changed['ManufacturerData'] = dbus.Dictionary(
                {dbus.UInt16(company): dbus.Array(
                    [dbus.Byte(b) for b in manufacturer[2:]], signature='y', variant_level=1)},
                signature='qv', variant_level=1)
        if name is not None:
            changed['Name'] = dbus.String(name, variant_level=1)
        if path not in mockobject.objects:
            self.add_device(path, address, peripheral, changed)
        else:
            device = mockobject.objects[path]
            device.props[DEVICE_IFACE].update(changed)
            emit_properties(path, DEVICE_IFACE, changed)

    def add_device(self, path, address, peripheral, advertised):
        properties = {
            'Address': dbus.String(address, variant_level=1),
            'AddressType': dbus.String('random', variant_level=1),
            'Alias': dbus.String(address.replace(':', '-'), variant_level=1),
            'Adapter': dbus.ObjectPath(ADAPTER, variant_level=1),
            'Paired': dbus.Boolean(False, variant_level=1),
            'Bonded': dbus.Boolean(False, variant_level=1),
            'Trusted': dbus.Boolean(False, variant_level=1),
            'Blocked': dbus.Boolean(False, variant_level=1),
            'Connected': dbus.Boolean(False, variant_level=1),
            'ServicesResolved': dbus.Boolean(False, variant_level=1),
            'LegacyPairing': dbus.Boolean(False, variant_level=1),
            'UUIDs': dbus.Array([], signature='s', variant_level=1),
        }
        properties.update(advertised)
        add_object(self.manager, path, DEVICE_IFACE, properties, [
            ('Connect', '', '', lambda device: self.connect(device.path)),
            ('Disconnect', '', '', lambda device: self.disconnect(device.path)),
            ('Pair', '', '', ''),
            ('CancelPairing', '', '', ''),
        ])
        self.devices[path] = {'peripheral': peripheral, 'link': None, 'chars': {}}

    def notification(self, link, uuid, value):
        path = self.links.get(link)
        if not path:
            return
        state = self.devices[path]
        if uuid == LEVEL and self.battery_mode == 'plugin':
            if value:
                self.set_percentage(path, value[0])
            return
        char = state['chars'].get(uuid)
        if not char:
            return
        self.stats['notifications'] += 1
        self.stats['notification_bytes'] += len(value)
        if char.get('notify_sock'):
            try:
                char['notify_sock'].send(value)
            except OSError:
                self.release_notify(char)
        elif char.get('notifying'):
            emit_properties(char['path'], CHRC_IFACE,
                            {'Value': dbus.ByteArray(value, variant_level=1)},
                            signature_value=True)
        if self.drop_after is not None:
            self.drop_after -= 1
            if self.drop_after <= 0:
                self.drop_after = None
                GLib.idle_add(self.drop_links)

    # Device1

    def connect(self, path):
        state = self.devices[path]
        if state['link']:
            raise failed('Already Connected', 'org.bluez.Error.AlreadyConnected')
        if not mockobject.objects[ADAPTER].props[ADAPTER_IFACE]['Powered']:
            raise failed('Resource Not Ready', 'org.bluez.Error.NotReady')
        if self.vanished:
            # bluetoothd pages a device that no longer advertises until its own timeout;
            # the mock stands still as long (the test kills it afterwards).
            time.sleep(40)
            raise failed('le-connection-abort-by-local')
        body = struct.pack('<Q', 30_000_000_000) + string(state['peripheral']) + \
            bytes([2]) + VENDOR + BATTERY
        kind, reply = self.emulator.request(0x13, body)
        if kind != 0x82:
            raise failed(f'le-connection-abort-by-local ({error_text(reply)})')
        link = struct.unpack_from('<I', reply)[0]
        kind, reply = self.emulator.request(0x20, struct.pack('<II', link, 517))
        mtu = struct.unpack_from('<I', reply)[0] if kind == 0x84 else 23
        state['link'] = link
        self.links[link] = path
        self.stats['connects'] += 1
        self.add_gatt(path, state, mtu)
        if self.battery_mode == 'plugin':
            self.add_battery(path, link)
        changed = {'Connected': dbus.Boolean(True, variant_level=1)}
        mockobject.objects[path].props[DEVICE_IFACE].update(changed)
        emit_properties(path, DEVICE_IFACE, changed)

        def resolved():
            if state['link'] == link:
                resolved_props = {'ServicesResolved': dbus.Boolean(True, variant_level=1)}
                mockobject.objects[path].props[DEVICE_IFACE].update(resolved_props)
                emit_properties(path, DEVICE_IFACE, resolved_props)
            return False
        GLib.idle_add(resolved)

    def disconnect(self, path):
        state = self.devices[path]
        if not state['link']:
            raise failed('Not Connected', 'org.bluez.Error.NotConnected')
        self.emulator.request(0x26, struct.pack('<I', state['link']))
        self.disconnected(path)

    def disconnected(self, path):
        state = self.devices[path]
        link = state['link']
        if not link:
            return
        state['link'] = None
        self.links.pop(link, None)
        for char in state['chars'].values():
            self.release_notify(char)
            if char.get('write_sock'):
                GLib.source_remove(char['write_watch'])
                char['write_sock'].close()
            remove_object(self.manager, char['path'], CHRC_IFACE)
        for service in state.get('services', []):
            remove_object(self.manager, service, SERVICE_IFACE)
        state['chars'], state['services'] = {}, []
        self.remove_battery(path)
        if path in mockobject.objects:
            changed = {'ServicesResolved': dbus.Boolean(False, variant_level=1),
                       'Connected': dbus.Boolean(False, variant_level=1)}
            mockobject.objects[path].props[DEVICE_IFACE].update(changed)
            emit_properties(path, DEVICE_IFACE, changed)

    def drop_links(self):
        '''A link loss: the TCP link's links are ended, the client sees Connected false.'''
        for path, state in list(self.devices.items()):
            if state['link']:
                self.emulator.request(0x26, struct.pack('<I', state['link']))
                self.disconnected(path)
        return False

    # GATT

    def add_gatt(self, path, state, mtu):
        state['services'] = []
        layout = [(0x0001, VENDOR, [(0x0002, WRITE, ['write', 'write-without-response']),
                                    (0x0004, NOTIFY, ['notify'])])]
        if self.battery_mode != 'plugin':
            # The battery plugin claims 180F: bluetoothd then exports no objects for it.
            layout.append((0x000a, BATTERY, [(0x000b, LEVEL, ['read', 'notify'])]))
        for handle, uuid, chars in layout:
            service_path = f'{path}/service{handle:04x}'
            add_object(self.manager, service_path, SERVICE_IFACE, {
                'UUID': dbus.String(uuid_text(uuid), variant_level=1),
                'Device': dbus.ObjectPath(path, variant_level=1),
                'Primary': dbus.Boolean(True, variant_level=1),
            }, [])
            state['services'].append(service_path)
            for char_handle, char_uuid, flags in chars:
                char_path = f'{service_path}/char{char_handle:04x}'
                char = {'path': char_path, 'uuid': char_uuid, 'device': path}
                state['chars'][char_uuid] = char
                add_object(self.manager, char_path, CHRC_IFACE, {
                    'UUID': dbus.String(uuid_text(char_uuid), variant_level=1),
                    'Service': dbus.ObjectPath(service_path, variant_level=1),
                    'Value': dbus.Array([], signature='y', variant_level=1),
                    'Flags': dbus.Array(flags, signature='s', variant_level=1),
                    'MTU': dbus.UInt16(mtu, variant_level=1),
                    'Notifying': dbus.Boolean(False, variant_level=1),
                }, [
                    ('ReadValue', 'a{sv}', 'ay',
                     lambda obj, options, c=char: self.read_value(c)),
                    ('WriteValue', 'aya{sv}', '',
                     lambda obj, value, options, c=char: self.write_value(c, value, options)),
                    ('AcquireWrite', 'a{sv}', 'hq',
                     lambda obj, options, c=char, m=mtu: self.acquire_write(c, m)),
                    ('AcquireNotify', 'a{sv}', 'hq',
                     lambda obj, options, c=char, m=mtu: self.acquire_notify(c, m)),
                    ('StartNotify', '', '', lambda obj, c=char: self.set_notify(c, True)),
                    ('StopNotify', '', '', lambda obj, c=char: self.set_notify(c, False)),
                ])

    # The battery plugin (bluetoothd before 5.80)

    def add_battery(self, path, link):
        '''What the plugin does once connected: reads 2A19, subscribes to it and exports the
        level as org.bluez.Battery1 on the device object.'''
        kind, reply = self.emulator.request(0x22, struct.pack('<I', link) + LEVEL)
        if kind != 0x85:
            log(f'battery plugin: read failed ({error_text(reply)})')
            return
        level = Reader(reply).bytes()
        self.emulator.request(0x24, struct.pack('<I', link) + LEVEL + bytes([1]))
        properties = {'Percentage': dbus.Byte(level[0] if level else 0, variant_level=1)}
        device = mockobject.objects[path]
        device.props[BATTERY_IFACE] = properties
        message = dbus.lowlevel.SignalMessage('/', OBJECT_MANAGER_IFACE, 'InterfacesAdded')
        message.append(dbus.ObjectPath(path),
                       dbus.Dictionary({BATTERY_IFACE: dbus.Dictionary(properties, signature='sv')},
                                       signature='sa{sv}'),
                       signature='oa{sa{sv}}')
        for location in self.manager.locations:
            location[0].send_message(message)

    def set_percentage(self, path, level):
        device = mockobject.objects.get(path)
        if not device or BATTERY_IFACE not in device.props:
            return
        changed = {'Percentage': dbus.Byte(level, variant_level=1)}
        device.props[BATTERY_IFACE].update(changed)
        emit_properties(path, BATTERY_IFACE, changed)

    def remove_battery(self, path):
        device = mockobject.objects.get(path)
        if not device or BATTERY_IFACE not in device.props:
            return
        del device.props[BATTERY_IFACE]
        message = dbus.lowlevel.SignalMessage('/', OBJECT_MANAGER_IFACE, 'InterfacesRemoved')
        message.append(dbus.ObjectPath(path), dbus.Array([BATTERY_IFACE], signature='s'),
                       signature='oas')
        for location in self.manager.locations:
            location[0].send_message(message)

    def link_of(self, char):
        link = self.devices[char['device']]['link']
        if not link:
            raise failed('Not Connected', 'org.bluez.Error.NotConnected')
        return link

    def read_value(self, char):
        kind, reply = self.emulator.request(
            0x22, struct.pack('<I', self.link_of(char)) + char['uuid'])
        if kind != 0x85:
            raise failed(f'read failed ({error_text(reply)})')
        return dbus.Array(Reader(reply).bytes(), signature='y')

    def write_value(self, char, value, options):
        kind_name = str(options.get('type', 'request'))
        write_type = 1 if kind_name == 'command' else 0
        kind, reply = self.emulator.request(
            0x23, struct.pack('<I', self.link_of(char)) + char['uuid'] + bytes([write_type]) +
            blob(bytes(value)))
        if kind != 0x86:
            raise failed(f'write failed ({error_text(reply)})')
        self.stats['writes'] += 1

    def acquire_write(self, char, mtu):
        self.link_of(char)
        if char.get('write_sock'):
            raise failed('Not Permitted', 'org.bluez.Error.NotPermitted')
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        ours.setblocking(False)
        char['write_sock'] = ours
        char['outstanding'] = 0

        def pump(*_):
            link = self.devices[char['device']]['link']
            if not link or char.get('write_sock') is not ours:
                return False
            while char['outstanding'] < WRITE_WINDOW:
                try:
                    value = ours.recv(1024)
                except BlockingIOError:
                    return True
                if not value:
                    char['write_sock'] = None
                    ours.close()
                    return False
                char['outstanding'] += 1
                self.stats['writes'] += 1
                self.emulator.request(
                    0x23, struct.pack('<I', link) + char['uuid'] + bytes([1]) + blob(value),
                    on_reply=acked)
            # The window is full: stop reading; the client's socket fills (back pressure).
            char['write_watch'] = None
            return False

        def acked(_kind, _body):
            char['outstanding'] -= 1
            if char.get('write_sock') is ours and char.get('write_watch') is None:
                char['write_watch'] = GLib.io_add_watch(ours.fileno(), GLib.IO_IN | GLib.IO_HUP, pump)

        char['write_watch'] = GLib.io_add_watch(ours.fileno(), GLib.IO_IN | GLib.IO_HUP, pump)
        fd = dbus.types.UnixFd(theirs)
        theirs.close()
        return (fd, dbus.UInt16(mtu))

    def acquire_notify(self, char, mtu):
        link = self.link_of(char)
        if self.notify_mode != 'descriptor':
            raise failed('Operation is not supported', 'org.bluez.Error.NotSupported')
        if char.get('notify_sock') or char.get('notifying'):
            raise failed('Notify already acquired', 'org.bluez.Error.InProgress')
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        char['notify_sock'] = ours

        def hangup(*_):
            self.release_notify(char)
            return False
        char['notify_watch'] = GLib.io_add_watch(ours.fileno(), GLib.IO_HUP | GLib.IO_ERR, hangup)
        kind, reply = self.emulator.request(
            0x24, struct.pack('<I', link) + char['uuid'] + bytes([1]))
        if kind != 0x86:
            self.release_notify(char)
            raise failed(f'notify failed ({error_text(reply)})')
        fd = dbus.types.UnixFd(theirs)
        theirs.close()
        return (fd, dbus.UInt16(mtu))

    def release_notify(self, char):
        sock = char.pop('notify_sock', None)
        if sock:
            GLib.source_remove(char.pop('notify_watch'))
            sock.close()
            link = self.devices[char['device']]['link']
            if link:
                self.emulator.request(0x24, struct.pack('<I', link) + char['uuid'] + bytes([0]),
                                      on_reply=lambda *_: None)

    def set_notify(self, char, enabled):
        link = self.link_of(char)
        kind, reply = self.emulator.request(
            0x24, struct.pack('<I', link) + char['uuid'] + bytes([1 if enabled else 0]))
        if kind != 0x86:
            raise failed(f'notify failed ({error_text(reply)})')
        char['notifying'] = enabled
        changed = {'Notifying': dbus.Boolean(enabled, variant_level=1)}
        mockobject.objects[char['path']].props[CHRC_IFACE].update(changed)
        emit_properties(char['path'], CHRC_IFACE, changed)


def emit_properties(path, interface, changed, signature_value=False):
    '''PropertiesChanged, sent straight on the connection (no mock log: this is the hot path
    of notifications).'''
    del signature_value
    message = dbus.lowlevel.SignalMessage(path, PROPS_IFACE, 'PropertiesChanged')
    message.append(interface, dbus.Dictionary(changed, signature='sv'), dbus.Array([], signature='s'),
                   signature='sa{sv}as')
    for location in mockobject.objects['/'].locations:
        location[0].send_message(message)


def add_object(manager, path, interface, properties, methods):
    manager.AddObject(path, interface, properties, methods)
    message = dbus.lowlevel.SignalMessage('/', OBJECT_MANAGER_IFACE, 'InterfacesAdded')
    message.append(dbus.ObjectPath(path),
                   dbus.Dictionary({interface: dbus.Dictionary(properties, signature='sv')},
                                   signature='sa{sv}'),
                   signature='oa{sa{sv}}')
    for location in manager.locations:
        location[0].send_message(message)


def remove_object(manager, path, interface):
    manager.RemoveObject(path)
    message = dbus.lowlevel.SignalMessage('/', OBJECT_MANAGER_IFACE, 'InterfacesRemoved')
    message.append(dbus.ObjectPath(path), dbus.Array([interface], signature='s'), signature='oas')
    for location in manager.locations:
        location[0].send_message(message)


def set_discovering(adapter, discovering):
    if not adapter.props[ADAPTER_IFACE]['Powered']:
        raise failed('Resource Not Ready', 'org.bluez.Error.NotReady')
    changed = {'Discovering': dbus.Boolean(discovering, variant_level=1)}
    adapter.props[ADAPTER_IFACE].update(changed)
    emit_properties(adapter.path, ADAPTER_IFACE, changed)
    if discovering:
        GLib.idle_add(lambda: RELAY[0].announce_all() and False)


def set_discovery_filter(adapter, discovery_filter):
    allowed = {'UUIDs', 'RSSI', 'Pathloss', 'Transport', 'DuplicateData', 'Discoverable',
               'Pattern'}
    if not set(discovery_filter) <= allowed:
        raise failed('Invalid arguments', 'org.bluez.Error.InvalidArguments')
    adapter.discovery_filter = dict(discovery_filter)


RELAY = []


@dbus.service.method(MOCK_IFACE, in_signature='b', out_signature='')
def SetPowered(self, powered):
    '''Powers the adapter off (every link drops, discovery stops) or on.'''
    adapter = mockobject.objects[ADAPTER]
    changed = {'Powered': dbus.Boolean(powered, variant_level=1)}
    if not powered:
        RELAY[0].drop_links()
        changed['Discovering'] = dbus.Boolean(False, variant_level=1)
    adapter.props[ADAPTER_IFACE].update(changed)
    emit_properties(ADAPTER, ADAPTER_IFACE, changed)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='')
def DropLinks(self):
    '''Every connected recorder is lost (supervision timeout).'''
    RELAY[0].drop_links()


@dbus.service.method(MOCK_IFACE, in_signature='u', out_signature='')
def DropAfter(self, count):
    '''Drops every link after `count` more notifications.'''
    RELAY[0].drop_after = int(count)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='')
def ForgetDevices(self):
    '''Removes every device object (InterfacesRemoved), as bluetoothd does for stale ones.'''
    relay = RELAY[0]
    for path in list(relay.devices):
        relay.disconnected(path)
        remove_object(relay.manager, path, DEVICE_IFACE)
        relay.devices.pop(path)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='')
def Vanish(self):
    '''The recorders stop advertising: bluetoothd keeps their objects, Connect never ends.'''
    RELAY[0].vanished = True


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='a{st}')
def Stats(self):
    '''Counters: notifications and their bytes relayed, writes, advertisements, connects.'''
    return dbus.Dictionary({k: dbus.UInt64(v) for k, v in RELAY[0].stats.items()}, signature='st')


def load(mock, parameters):
    # dbusmock registers the main object only after load(); the template's methods need it.
    mockobject.objects['/'] = mock
    bluez5.load(mock, parameters)
    mock.AddAdapter('hci0', 'recorder-gateway')
    mockobject.objects[ADAPTER].AddMethods(ADAPTER_IFACE, [
        ('StartDiscovery', '', '', lambda adapter: set_discovering(adapter, True)),
        ('StopDiscovery', '', '', lambda adapter: set_discovering(adapter, False)),
        ('SetDiscoveryFilter', 'a{sv}', '', set_discovery_filter),
    ])
    if not parameters.get('powered', True):
        mockobject.objects[ADAPTER].props[ADAPTER_IFACE]['Powered'] = dbus.Boolean(
            False, variant_level=1)
    RELAY.append(Relay(mock, parameters))
