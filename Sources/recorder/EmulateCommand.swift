import Foundation
import HealthProfiles
import RecorderBluetooth
import RecorderCrypto
import RecorderEmulator
import RecorderProtocol
import RecorderRemoteLink

/// `recorder emulate`: an emulated recorder served over TCP (docs/tcp-link.md), for the SDK
/// in another process, the iOS Simulator, and process-level tests.
struct EmulateCommand: RecorderCommand {
  static let name = "emulate"
  static let abstract = "Run an emulated recorder reachable over TCP."
  static let help = """
    OVERVIEW: Run an emulated Plaud Note (firmware V0095, portVersion 10 by default) with N
    generated recordings, reachable over TCP. The first line on stdout is its address,
    tcp://127.0.0.1:PORT; the second, hotspot tcp://127.0.0.1:PORT, is the Wi-Fi join port
    (docs/tcp-link.md; absent with --no-wifi). Runs until interrupted.

    USAGE: recorder emulate [--port N] [--recordings N] [--token T] [options]
           recorder emulate usb-volume DIR [--recordings N] [--seconds S] [--seed S]
                            [--serial S] [--firmware V] [--damage INDEX:KIND,...]
                            [--fat-image FILE]
             writes what a recorder shows over "Access via USB" into DIR: MODEL.txt and
             NOTES|CALLS/<YYYYMMDD>/<unix>.WAV+.ASR pairs (real device Opus; the WAV its
             decode, SN:<serial> in its pad chunk), one line per pair on stdout: the
             id, the WAV's path and the ASR's, tab-separated. KIND: wav-header, asr-partial-frame, durations.
             --fat-image FILE also writes the same files into a real FAT image labelled
             PLAUD_NOTE (mkfs.vfat and mtools).

    OPTIONS:
      --port N                TCP port (default 0: any free port).
      --host ADDRESS          Address to listen on (default 127.0.0.1).
      --recordings N          Recordings to generate (default 3).
      --minutes LIST          Exact lengths instead, comma-separated minutes (e.g. 60,0.5).
      --session-ids LIST      With --minutes: each recording's session id (its start time,
                              unix seconds), comma-separated, one per length.
      --damage LIST           Damage written into recordings on the flash, as INDEX:KIND
                              (INDEX from 0, oldest first; comma-separated). KIND: bad-frame,
                              zeros-4g, ogg-page-crc, ogg-lacing-64k, ogg-page-cut,
                              e2ee-key-cipher.
      --token T               The device token the HANDSHAKE must carry
                              (default the PROTOCOL.md example token).
      --seed S                Seeds addresses and generated audio (default 1).
      --time-scale X          Run the device's clock X times faster than real time.
      --manifest PATH         Keep a JSON file with each recording's sessionId, size and
                              SHA-256, a timestamped log of every DELETE served, and the
                              connections and data bytes sent so far.
      --flash DIR             Flash directory (default: a new temporary directory, removed
                              when the emulator ends, by SIGINT / SIGTERM too).
      --serial S              Serial number (default 8881234567890123).
      --firmware V            The firmware the device runs (default V0095); new firmware's
                              codes show dotted (V1.2.7 = 66055, PROTOCOL.md §1).
      --port-version N        portVersion (default 10); 20 and up speaks Mode B security
                              (PROTOCOL.md §9, docs/mode-b.md): a fresh emulator holds no
                              user key, asks for one (FE11) and takes any.
      --mode-b-index-base 0|1 Where the device numbers its Mode B chunks from: 0 (default,
                              PROTOCOL.md §2/§9; it then takes only 0-based chunks from the
                              phone, as the vendor's firmware does) or 1 (it then takes either).
      --handshake-delay-ms N  Mode B: real milliseconds the device takes to answer each
                              pre-handshake message and each HANDSHAKE stage (default 4000 of
                              device time, scaled by --time-scale: a NotePin S handshake can
                              take more than 10 s in all).
      --mode-b-seq strict|increasing
                              How the device checks the phone's sealed sequence numbers
                              (default increasing).
      --mode-b-wifi-cipher chacha20-poly1305|aes-256-gcm
                              The AEAD the device seals Wi-Fi PDUs with, named by bit 3 of the
                              CAPABILITY bitmap (008A) it pushes after HANDSHAKE (default
                              aes-256-gcm, PROTOCOL.md §3.1 vector 19).
      --mode-b-no-capability-push
                              The device pushes no CAPABILITY bitmap (the phone then tells
                              the Wi-Fi AEAD from the first PDU).
      --mode-b-bound-elsewhere
                              Mode B: the device is bound to another account; a HANDSHAKE
                              with another token drops the link (no status 1).
      --mode-b-require-signature
                              With --cloud: the device answers FE10 only with the cloud
                              emulator's serial signature (sn-sign); by default any.
      --tamper-key-chunk K    Mode B: flip a bit in the K-th FE12 chunk (from 0) of the next
                              session key sent, as a link that changed it would (once: one
                              connection's key no longer unwraps, the next one's does).
      --user-public-key PEM   Mode B: the user public key the device already holds (a file).
      --e2ee-public-key PEM   Store the generated recordings end-to-end encrypted to this
                              user public key (a file): a 512-byte header, then ChaCha20.
      --e2ee-counter-field N  The E2EE header's counter field (default 0; its role is unknown).
      --e2ee-counter-role zero|field
                              Encrypt the audio from block counter 0 (default) or from the
                              counter field: the two readings of PROTOCOL.md §9.
      --e2ee-segment N        The keystream restarts every N bytes of ciphertext, the
                              header's segment (default 4096); 0: one continuous stream.
      --channels 1|2          Audio channels (default 1).
      --stereo-layout two-mono|stereo-packet
                              A 2-channel frame's 160 bytes: two mono packets B8… B8…
                              (default) or one stereo packet BC…: the two readings of §5.
      --mtu N                 Largest ATT MTU the device accepts (default 247).
      --interval-ms N         Connection interval (default 15).
      --packets-per-event N   Packets per connection event (default 5).
      --phy 1m|2m|coded2|coded8
      --drop-at-byte N        Drop the link after N notified bytes (once).
      --drop-at-seconds S     Drop the link at S seconds of device time (once).
      --corrupt-frame K       Flip a byte in the K-th data frame (once).
      --duplicate-frame K     Send the K-th data frame twice (once).
      --drop-frame K          Never send the K-th data frame (once).
      --lose-frame-every N    A lossy link: lose one data frame each time N more data bytes
                              went out (repeats).
      --stall-at-byte N       Once N data bytes went out, send no data for --stall-seconds
                              of device time (commands are still answered).
      --stall-seconds S       How long that stall lasts (default 7).
      --flash-full            Report a full flash.
      --slow-ms N             Extra processing time per request.
      --hotspot-port N        Wi-Fi join port (default 0: any free port).
      --no-wifi               Emulate a device without Wi-Fi (WIFI_OPEN is refused).
      --wifi-drop-at-byte N   Drop the Wi-Fi TCP connection after N content bytes (once).
      --wifi-refuse-open      WIFI_OPEN fails: the hotspot cannot be raised.
      --wifi-refuse-join      The hotspot is raised but every join is refused.
      --wifi-refuse-join-while-active
                              A join while a Wi-Fi session is still active is refused rather
                              than taken as already joined (default: joining is idempotent).
      --wifi-lose-join-answer N
                              The first N joins the device accepts get no answer (the join
                              connection closes): the phone cannot tell it joined (default 0).
      --hotspot-startup S     Seconds (real time) the hotspot needs after WIFI_OPEN before a
                              join succeeds; joins meanwhile get "not ready yet" (default 3).
      --allow-bare-stop       Take a Wi-Fi STOP without {session, scene} (default: refuse it).
      --depair-keeps-address  The device keeps its address after DEPAIR (default: a new one
                              once the link ends, PROTOCOL.md §4; the vendor rescans by serial).
      --authentication-timeout S
                              Real seconds a central has after connecting to authenticate
                              before the device drops it (default 1, as the V0095 does): more
                              for a central that shares a busy process (an SDK inside a test
                              run).
      --recording-state N     GET_STATE's state while recording: 4099 (default, the vendor
                              SDK's code, PROTOCOL.md §3.1) or this project's earlier 2.
    \(modelOptionsHelp)

    AS A REAL V0095 NOTE BEHAVES (PROTOCOL.md; defaults are the captured behaviour where known):
      --advertising HEX|name-only
                              Advertise these manufacturer data bytes after the company id
                              (e.g. a captured payload), or no manufacturer data at all (only
                              the PLAUD_NOTE name). Default: the captured layout of §1.
      --tail-crc request|file|frames
                              What the sync tail's CRC covers (PROTOCOL.md §10, unknown on
                              real firmware): this request's bytes (default), the file from
                              offset 0, or this request's frames with their headers.
      --delete-reply 001f|001e
                              Answer DELETE with 001F [sdk] (default) or 001E + session +
                              status (the captured 8-byte form).
      --battery-level-only    BATTERY replies with the level byte only, as V0095 does.
      --ogg-audio             Record Ogg-wrapped Opus; the HANDSHAKE reply says oggAudio = 1.
      --ogg-audio-flag 0|1    What the HANDSHAKE reply's oggAudio says, whatever the
                              recordings hold (default: the truth); the phone must judge
                              the content (PROTOCOL.md §5).
      --depair-clear erases-recordings|connections
                              What DEPAIR's clear byte does: erase every recording (default,
                              the worst reading of its name clearFiles) or forget every
                              connection only (the vendor's "clear all connections").
      --two-stage-handshake   Answer the first HANDSHAKE with GET_SERIAL and wait for the second
                              stage (appVerify 1, devToken, name), as newer firmware does.
      --second-stage-dev-token HEX
                              With --two-stage-handshake: the devToken (8 bytes) the second
                              stage must carry; refused with status 4 otherwise (default: any).
      --tz-encoding floor|sign-magnitude|signed-minutes
                              How TIME_SYNC's tzHours/tzMinutes are read (docs/time-sync.md;
                              default floor, RecorderKit's choice).
      --health LIST           Also emulate health peripherals, comma-separated: thermometer,
                              scale, blood-pressure (bp), pulse-oximeter (oximeter). Each
                              powers on at start with one reading and is printed on stdout
                              as `health KIND ADDRESS` after the address lines.
      --health-linger S       After its reading was taken, a health peripheral keeps
                              advertising S seconds of device time, then powers off
                              (default 5).
      --health-cycle S        Power each health peripheral on again, with a new reading,
                              S seconds after it powered off (default: never).
      --cloud                 Also run the cloud emulator (docs/cloud.md) on loopback; its
                              URL is an extra stdout line, cloud http://127.0.0.1:PORT.
      --cloud-port N          Its port (default 0: any free port).
      --cloud-bind-history LIST
                              Users the device was bound to in the cloud, oldest first,
                              comma-separated; it is unbound there now (`bind_history`).
      --cloud-token-file F    Write a user token (JWT) the cloud accepts to F (0600); the
                              device's token becomes the one derived from it unless --token.
      --cloud-user ID         The user that token belongs to (default partner-user-1).
      --new-firmware V        Publish a valid image of version V in the cloud.
      --cloud-firmware-md5 published|absent
                              Whether the cloud's firmware check gives file_md5 (and
                              file_sha256). Default: absent for a NotePin S (882), as the real
                              cloud answered one (PROTOCOL.md §8), published otherwise.
      --firmware-image F      Write that image to F too (for `recorder ota --file`).
      --firmware-size N       Its size in bytes (default 65536).
      --ota-min-frame-interval-ms N
                              An OTA `03` frame reaching the device sooner than N ms (device
                              time) after the previous one is lost, as an overrun receive
                              buffer would lose it (default 0: any rate; the vendor's SDK sends
                              one every 18 ms but to a Note Pro, PROTOCOL.md §7).
      -h, --help              Show this help.
    """

  var host: String
  var port: UInt16
  var recordings: Int
  var minutes: [Double]?
  var sessionIds: [SessionID]?
  var damage: [(index: Int, kind: RecordingDamage)] = []
  var token: DeviceToken
  var seed: UInt64
  var timeScale: Double
  var manifest: String?
  var flash: String?
  var configuration: DeviceConfiguration
  var faults: FaultPlan
  var hotspotPort: UInt16
  /// The first this many accepted joins go unanswered (`--wifi-lose-join-answer`).
  var lostJoinAnswers: Int
  var health: [HealthPeripheralKind]
  var healthLinger: Duration
  var healthCycle: Duration?
  var cloud: Bool
  /// The Mode B device insists on the cloud emulator's serial signature.
  var requireSignature: Bool
  var cloudPort: UInt16
  var cloudTokenFile: String?
  var cloudUser: String
  var cloudBindHistory: [String]
  var newFirmware: FirmwareVersion?
  var firmwareImage: String?
  var firmwareSize: Int
  /// `--cloud-firmware-md5`: whether the check's answer carries `file_md5`; nil, by model.
  var cloudFirmwareMD5: Bool?
  /// The cloud type whose release came without `file_md5`: the NotePin S's (PROTOCOL.md §8)
  /// [client].
  static let typeWithoutMD5 = ModelCapabilities.notePinS.cloudDeviceType

  /// The Mode B options (used when --port-version is 20 or more).
  static func modeBParameters(_ arguments: inout Arguments) throws -> ModeBParameters {
    var parameters = ModeBParameters()
    if let base = try arguments.choice("mode-b-index-base", ["0", "1"]) {
      parameters.chunkIndexBase = base == "0" ? .zero : .one
      // A device numbering from 1 is the project's old guess: it takes either from the phone.
      parameters.phoneChunkIndexBase = base == "0" ? .zero : nil
    }
    if let policy = try arguments.choice(
      "mode-b-seq", SequencePolicy.allCases.map(\.rawValue))
    {
      parameters.sequencePolicy = SequencePolicy(rawValue: policy) ?? ModeB.sequencePolicy
    }
    if let cipher = try arguments.choice(
      "mode-b-wifi-cipher", AEADAlgorithm.allCases.map(\.rawValue))
    {
      parameters.wifiCipher = AEADAlgorithm(rawValue: cipher) ?? parameters.wifiCipher
    }
    parameters.boundToAnotherAccount = arguments.flag("mode-b-bound-elsewhere")
    parameters.pushesCapability = !arguments.flag("mode-b-no-capability-push")
    if let path = try arguments.option("user-public-key") {
      guard let data = FileManager.default.contents(atPath: path),
        (try? parameters.provisionUserKey(pem: String(decoding: data, as: UTF8.self))) != nil
      else { throw UsageError("--user-public-key: \(path) is not a PEM public key") }
    }
    if let path = try arguments.option("e2ee-public-key") {
      guard let data = FileManager.default.contents(atPath: path),
        (try? parameters.encryptRecordings(forPEM: String(decoding: data, as: UTF8.self))) != nil
      else { throw UsageError("--e2ee-public-key: \(path) is not a PEM public key") }
    }
    if let field = try arguments.option("e2ee-counter-field", as: UInt32.self) {
      parameters.e2eeCounterField = field
    }
    if let role = try arguments.choice("e2ee-counter-role", ["zero", "field"]) {
      parameters.e2eeStartsAtCounterField = role == "field"
    }
    if let segment = try arguments.option("e2ee-segment", as: UInt32.self) {
      parameters.e2eeSegment = segment
    }
    return parameters
  }

  /// `emulate usb-volume DIR …`: the folder and what to write into it, instead of a device.
  var usbVolume: (directory: String, plan: USBVolumeWriter.Plan, fatImage: String?)?

  /// The options of `emulate usb-volume DIR`.
  static func usbVolume(_ arguments: inout Arguments) throws -> (
    String, USBVolumeWriter.Plan, String?
  ) {
    var plan = USBVolumeWriter.Plan()
    plan.recordings = try arguments.option("recordings", as: Int.self) ?? plan.recordings
    guard (0...1_000).contains(plan.recordings) else {
      throw UsageError("--recordings must be 0-1000")
    }
    let seconds = try arguments.option("seconds", as: Double.self) ?? 3
    guard seconds >= 0.02, seconds <= 3_600 else { throw UsageError("--seconds must be 0.02-3600") }
    plan.frames = Int(seconds * 50)
    plan.seed = try arguments.option("seed", as: UInt64.self) ?? plan.seed
    plan.serial = try arguments.option("serial") ?? plan.serial
    guard plan.serial.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
      throw UsageError("--serial must be letters and digits")
    }
    plan.firmware = try arguments.option("firmware") ?? plan.firmware
    for item in (try arguments.option("damage"))?.split(separator: ",") ?? [] {
      let parts = item.split(separator: ":")
      guard parts.count == 2, let index = Int(parts[0]), index >= 0,
        let kind = USBVolumeWriter.Damage(rawValue: String(parts[1]))
      else {
        throw UsageError(
          "--damage takes INDEX:KIND, KIND one of "
            + USBVolumeWriter.Damage.allCases.map(\.rawValue).joined(separator: ", "))
      }
      plan.damage[index] = kind
    }
    let fatImage = try arguments.option("fat-image")
    let positionals = try arguments.positionals()
    guard positionals.count == 1, let directory = positionals.first else {
      throw UsageError("emulate usb-volume takes one DIR")
    }
    return (directory, plan, fatImage)
  }

  init(arguments: inout Arguments) throws {
    var probe = arguments
    if probe.subcommand() == "usb-volume" {
      usbVolume = try Self.usbVolume(&probe)
      arguments = Arguments([])
    }
    host = try arguments.option("host") ?? "127.0.0.1"
    port = try arguments.option("port", as: UInt16.self) ?? 0
    recordings = try arguments.option("recordings", as: Int.self) ?? 3
    guard (0...10_000).contains(recordings) else {
      throw UsageError("--recordings must be 0-10000")
    }
    if let list = try arguments.option("minutes") {
      let values = list.split(separator: ",").map {
        Double($0.trimmingCharacters(in: .whitespaces))
      }
      guard !values.isEmpty, values.allSatisfy({ ($0 ?? -1) > 0 && ($0 ?? 0) <= 300 }) else {
        throw UsageError("--minutes takes positive numbers up to 300, comma-separated")
      }
      minutes = values.compactMap { $0 }
    }
    if let list = try arguments.option("session-ids") {
      let ids = list.split(separator: ",").map { UInt32($0.trimmingCharacters(in: .whitespaces)) }
      guard let minutes, ids.count == minutes.count, ids.allSatisfy({ ($0 ?? 0) > 0 }) else {
        throw UsageError("--session-ids takes one positive id per --minutes length")
      }
      sessionIds = ids.compactMap { $0 }.map { SessionID($0) }
    }
    if let list = try arguments.option("damage") {
      damage = try list.split(separator: ",").map { item in
        let parts = item.split(separator: ":")
        guard parts.count == 2, let index = Int(parts[0]), index >= 0,
          let kind = RecordingDamage(rawValue: String(parts[1]))
        else { throw UsageError("--damage takes INDEX:KIND items, comma-separated") }
        return (index, kind)
      }
    }
    cloud = arguments.flag("cloud")
    requireSignature = arguments.flag("mode-b-require-signature")
    if requireSignature, !cloud { throw UsageError("--mode-b-require-signature needs --cloud") }
    cloudPort = try arguments.option("cloud-port", as: UInt16.self) ?? 0
    cloudTokenFile = try arguments.option("cloud-token-file")
    cloudUser = try arguments.option("cloud-user") ?? "partner-user-1"
    cloudBindHistory =
      try arguments.option("cloud-bind-history").map {
        $0.split(separator: ",").map { String($0) }
      } ?? []
    if !cloudBindHistory.isEmpty, !cloud {
      throw UsageError("--cloud-bind-history needs --cloud")
    }
    if let text = try arguments.option("new-firmware") {
      do {
        newFirmware = try FirmwareVersion(parsing: text)
      } catch {
        throw UsageError("--new-firmware: \(error)")
      }
    }
    if let md5 = try arguments.choice("cloud-firmware-md5", ["published", "absent"]) {
      cloudFirmwareMD5 = md5 == "published"
    }
    firmwareImage = try arguments.option("firmware-image")
    firmwareSize = try arguments.option("firmware-size", as: Int.self) ?? 65536
    guard (EmulatedFirmwareImage.overhead...8 * 1024 * 1024).contains(firmwareSize) else {
      throw UsageError("--firmware-size must be \(EmulatedFirmwareImage.overhead)-8388608")
    }
    if firmwareImage != nil, newFirmware == nil {
      throw UsageError("--firmware-image needs --new-firmware V")
    }
    if cloudTokenFile != nil, !cloud { throw UsageError("--cloud-token-file needs --cloud") }
    let derived = cloudTokenFile == nil ? nil : Self.derivedToken(user: cloudUser)
    let tokenText =
      try arguments.option("token") ?? derived ?? "0123456789abcdef0123456789abcdef"
    guard let token = DeviceToken(tokenText) else {
      throw UsageError("--token must be printable ASCII")
    }
    self.token = token
    seed = try arguments.option("seed", as: UInt64.self) ?? 1
    timeScale = try arguments.option("time-scale", as: Double.self) ?? 1
    guard timeScale > 0, timeScale <= 10_000 else {
      throw UsageError("--time-scale must be in (0, 10000]")
    }
    manifest = try arguments.option("manifest")
    flash = try arguments.option("flash")

    var link = LinkParameters()
    if let mtu = try arguments.option("mtu", as: Int.self) {
      guard (23...517).contains(mtu) else { throw UsageError("--mtu must be 23-517") }
      link.deviceMaximumMTU = mtu
    }
    if let interval = try arguments.option("interval-ms", as: Double.self) {
      guard interval >= 7.5, interval <= 4000 else {
        throw UsageError("--interval-ms must be 7.5-4000")
      }
      link.connectionInterval = .microseconds(Int64(interval * 1000))
    }
    if let packets = try arguments.option("packets-per-event", as: Int.self) {
      guard (1...64).contains(packets) else { throw UsageError("--packets-per-event must be 1-64") }
      link.packetsPerConnectionEvent = packets
    }
    if let phy = try arguments.choice("phy", ["1m", "2m", "coded2", "coded8"]) {
      link.phy =
        ["1m": .le1M, "2m": .le2M, "coded2": .leCodedS2, "coded8": .leCodedS8][phy] ?? .le2M
    }
    let (preset, modelCode) = try Self.modelChoice(&arguments)
    let portVersion =
      try arguments.option("port-version", as: UInt16.self) ?? preset?.portVersion ?? 10
    guard portVersion >= 1 else { throw UsageError("--port-version must be 1 or more") }
    var modeB = try Self.modeBParameters(&arguments)
    if let delay = try arguments.option("handshake-delay-ms", as: Double.self) {
      guard delay >= 0, delay <= 600_000 else {
        throw UsageError("--handshake-delay-ms must be 0-600000")
      }
      // Real milliseconds: device time runs timeScale × faster.
      modeB.replyDelay = .milliseconds(delay * timeScale)
    }
    let channels = try arguments.option("channels", as: UInt8.self) ?? 1
    guard channels == 1 || channels == 2 else { throw UsageError("--channels must be 1 or 2") }
    hotspotPort = try arguments.option("hotspot-port", as: UInt16.self) ?? 0
    lostJoinAnswers = try arguments.option("wifi-lose-join-answer", as: Int.self) ?? 0
    guard (0...100).contains(lostJoinAnswers) else {
      throw UsageError("--wifi-lose-join-answer must be 0-100")
    }
    configuration = DeviceConfiguration(
      portVersion: portVersion,
      serial: try arguments.option("serial") ?? (preset ?? .note).serial,
      token: token, audioChannels: channels, supportWifi: arguments.flag("no-wifi") ? 0 : 1,
      seed: seed, batteryReplyIncludesCharging: !arguments.flag("battery-level-only"),
      link: link)
    configuration.modeB = modeB
    preset?.apply(to: &configuration)
    if let modelCode { configuration.model = modelCode }
    configuration.oggAudio = arguments.flag("ogg-audio")
    if let flag = try arguments.choice("ogg-audio-flag", ["0", "1"]) {
      configuration.oggAudioFlag = flag == "1"
    }
    if try arguments.choice("stereo-layout", ["two-mono", "stereo-packet"]) == "stereo-packet" {
      configuration.stereoLayout = .stereoPacket
    }
    configuration.twoStageHandshake = arguments.flag("two-stage-handshake")
    configuration.depairChangesAddress = !arguments.flag("depair-keeps-address")
    if let interval = try arguments.option("ota-min-frame-interval-ms", as: Int.self) {
      guard (0...1000).contains(interval) else {
        throw UsageError("--ota-min-frame-interval-ms must be 0-1000")
      }
      configuration.ota.minimumFrameInterval = .milliseconds(interval)
    }
    if let meaning = try arguments.choice("depair-clear", ["erases-recordings", "connections"]) {
      configuration.depairClearErasesRecordings = meaning == "erases-recordings"
    }
    if let hex = try arguments.option("second-stage-dev-token") {
      guard let bytes = [UInt8](hex: hex), bytes.count == 8 else {
        throw UsageError("--second-stage-dev-token takes 8 bytes of hex")
      }
      configuration.secondStageDeviceToken = bytes
    }
    if let advertising = try arguments.option("advertising") {
      if advertising == "name-only" {
        configuration.advertising = .nameOnly
      } else {
        guard let bytes = [UInt8](hex: advertising), bytes.count <= 29 else {
          throw UsageError("--advertising takes hex bytes (at most 29) or name-only")
        }
        configuration.advertising = .custom(bytes)
      }
    }
    if let coverage = try arguments.choice("tail-crc", TailCRCCoverage.allCases.map(\.rawValue)) {
      configuration.tailCRCCoverage = TailCRCCoverage(rawValue: coverage) ?? .requestBytes
    }
    if let style = try arguments.choice("delete-reply", DeleteReplyStyle.allCases.map(\.rawValue)) {
      configuration.deleteReply = DeleteReplyStyle(rawValue: style) ?? .deleteResult
    }
    if let encoding = try arguments.choice(
      "tz-encoding", TimeZoneEncoding.allCases.map(\.rawValue))
    {
      configuration.timeZoneEncoding = TimeZoneEncoding(rawValue: encoding) ?? .projectDefault
    }
    let startup = try arguments.option("hotspot-startup", as: Double.self) ?? 3
    guard startup >= 0, startup <= 3600 else {
      throw UsageError("--hotspot-startup must be 0-3600 seconds")
    }
    // Real seconds, like the authentication timeout below: device time runs timeScale × faster.
    configuration.wifi.hotspotStartupDelay = .seconds(startup * timeScale)
    configuration.wifi.requireStopSession = !arguments.flag("allow-bare-stop")
    configuration.wifi.refusesJoinWhileActive = arguments.flag("wifi-refuse-join-while-active")
    if let text = try arguments.option("firmware") {
      do {
        configuration.firmware = try FirmwareVersion(parsing: text)
      } catch {
        throw UsageError("--firmware: \(error)")
      }
    }
    let recordingState =
      try arguments.option("recording-state", as: UInt32.self)
      ?? DeviceState.vendorRecordingState
    guard recordingState == 2 || recordingState == DeviceState.vendorRecordingState else {
      throw UsageError("--recording-state must be 2 or 4099")
    }
    configuration.recordingStateCode = recordingState
    try Self.applyModelOptions(&arguments, to: &configuration)
    // The device drops a central that has not authenticated within ~1 s [device]; under
    // --time-scale that second stays a real second, or TCP round trips could not fit in it.
    let authentication = try arguments.option("authentication-timeout", as: Double.self) ?? 1
    guard authentication > 0, authentication <= 600 else {
      throw UsageError("--authentication-timeout must be in (0, 600] seconds")
    }
    configuration.authenticationTimeout = .seconds(authentication * timeScale)

    faults = FaultPlan(
      dropLinkAfterNotifiedBytes: try arguments.option("drop-at-byte", as: Int.self),
      dropLinkAt: try arguments.option("drop-at-seconds", as: Double.self).map { .seconds($0) },
      corruptDataFrame: try arguments.option("corrupt-frame", as: Int.self),
      duplicateDataFrame: try arguments.option("duplicate-frame", as: Int.self),
      dropDataFrame: try arguments.option("drop-frame", as: Int.self),
      flashFull: arguments.flag("flash-full"),
      processingDelay: .milliseconds(try arguments.option("slow-ms", as: Int.self) ?? 0),
      dropWiFiAfterContentBytes: try arguments.option("wifi-drop-at-byte", as: Int.self),
      refuseWiFiOpen: arguments.flag("wifi-refuse-open"),
      refuseHotspotJoins: arguments.flag("wifi-refuse-join"),
      loseDataFrameEveryBytes: try arguments.option("lose-frame-every", as: Int.self),
      stallAfterDataBytes: try arguments.option("stall-at-byte", as: Int.self),
      stallDuration: .seconds(try arguments.option("stall-seconds", as: Double.self) ?? 7),
      tamperKeyMaterialChunk: try arguments.option("tamper-key-chunk", as: Int.self))
    if let every = faults.loseDataFrameEveryBytes, every < 1 {
      throw UsageError("--lose-frame-every must be at least 1")
    }
    if let chunk = faults.tamperKeyMaterialChunk, chunk < 0 {
      throw UsageError("--tamper-key-chunk must be 0 or more")
    }
    health = []
    if let list = try arguments.option("health") {
      for name in list.split(separator: ",") {
        guard let kind = HealthPeripheralKind(name: String(name)) else {
          throw UsageError("--health: unknown kind '\(name)'")
        }
        if !health.contains(kind) { health.append(kind) }
      }
    }
    healthLinger = .seconds(try arguments.option("health-linger", as: Double.self) ?? 5)
    healthCycle = try arguments.option("health-cycle", as: Double.self).map { .seconds($0) }
    try arguments.finish()
  }

  func run() async throws {
    if let (directory, plan, fatImage) = usbVolume {
      let written: [USBVolumeWriter.Written]
      do { written = try USBVolumeWriter.write(plan, to: directory) } catch {
        throw CommandFailure(.ioError, "cannot write the volume: \(error)")
      }
      if let fatImage { try FATImage.write(from: directory, to: fatImage) }
      for pair in written { print("\(pair.sessionId)\t\(pair.wavPath)\t\(pair.asrPath)") }
      return
    }
    let directory = flash ?? NSTemporaryDirectory() + "recorder-emulate-\(getpid())"
    // A flash directory we make ourselves goes away however we end: on SIGINT / SIGTERM
    // (handlers installed before it exists, so no signal can come between), and on every
    // error below. SIGKILL cannot be caught: pass --flash to choose where it lives.
    let signals = flash == nil ? Self.removeOnTermination(directory) : []
    defer {
      signals.forEach { $0.cancel() }
      if flash == nil { try? FileManager.default.removeItem(atPath: directory) }
    }
    let time = EmulatorTime.real(timeScale == 1 ? .continuous : .scaled(timeScale))
    // The cloud first: a device that checks serial signatures needs its signature.
    let cloudServer = try makeCloud()
    defer { cloudServer?.stop() }
    var configuration = self.configuration
    if requireSignature, let cloudServer {
      configuration.modeB.requiredSerialSignature = cloudServer.serialSignature(
        for: configuration.serial)
    }
    let device: EmulatedDevice
    do {
      device = try EmulatedDevice(
        configuration: configuration, flashDirectory: directory, time: time)
      if try await device.recordings().isEmpty {
        if let minutes {
          for (index, length) in minutes.enumerated() {
            try await device.addRecording(
              duration: .seconds(length * 60), sessionId: sessionIds?[index])
          }
        } else {
          try await device.populate(count: recordings, seed: seed)
        }
      }
      let stored = try await device.recordings()
      for (index, kind) in damage where index < stored.count {
        try await device.damage(stored[index].sessionId, kind)
      }
      await device.setFaults(faults)
    } catch {
      throw CommandFailure(.ioError, "cannot set up the emulated device: \(error)")
    }
    let healthPeripherals = health.map { kind in
      var configuration = EmulatedHealthPeripheral.Configuration(kind: kind)
      configuration.powerOffAfterRead = healthLinger
      return EmulatedHealthPeripheral(configuration: configuration, time: time)
    }
    // The health central first: the recorder's refuses other services before it looks at
    // the address (see CombinedCentral).
    let central: any Central =
      healthPeripherals.isEmpty
      ? EmulatorCentral(devices: [device])
      : CombinedCentral([
        HealthCentral(peripherals: healthPeripherals), EmulatorCentral(devices: [device]),
      ])
    let server = TCPCentralServer(central: central, host: host, port: port)
    let bound: UInt16
    do {
      bound = try await server.start()
    } catch {
      throw CommandFailure(.unavailable, "cannot listen on \(host):\(port): \(error)")
    }
    let image = newFirmware.map {
      EmulatedFirmwareImage.make(version: $0, size: firmwareSize, seed: seed)
    }
    if let image, let firmwareImage {
      do {
        try Data(image).write(to: URL(fileURLWithPath: firmwareImage))
      } catch {
        throw CommandFailure(.ioError, "cannot write \(firmwareImage): \(error)")
      }
    }
    print("tcp://\(host):\(bound)")
    // The Wi-Fi join port (docs/tcp-link.md): the phone's JOIN reaches the device here.
    var joinServer: HotspotJoinServer?
    if configuration.supportWifi != 0 {
      do {
        joinServer = try HotspotJoinServer(
          host: host, port: hotspotPort, losingFirstAnswers: lostJoinAnswers
        ) { request in
          await device.joinHotspot(request)
        }
      } catch {
        throw CommandFailure(.unavailable, "cannot listen on \(host):\(hotspotPort): \(error)")
      }
      print("hotspot tcp://\(host):\(joinServer?.port ?? 0)")
    }
    defer { joinServer?.stop() }
    for peripheral in healthPeripherals {
      print("health \(await peripheral.kind) \(await peripheral.address)")
      await peripheral.powerOn()
    }
    let cycling = healthCycle.map { period in
      healthPeripherals.map { peripheral in
        Task { await Self.cycle(peripheral, every: period, time: time) }
      }
    }
    defer { cycling?.forEach { $0.cancel() } }
    if let cloudServer { try announce(cloudServer, image: image) }
    fflush(nil)
    printError(
      "emulating \(configuration.model) serial \(configuration.serial), flash \(directory)")
    try await keepManifest(device)
  }

  /// Powers `peripheral` on again `period` after each power-off, until cancelled.
  private static func cycle(
    _ peripheral: EmulatedHealthPeripheral, every period: Duration, time: EmulatorTime
  ) async {
    while !Task.isCancelled {
      // Polled on the device's clock: a power-off has no event to wait on.
      while await peripheral.isPoweredOn {
        do { try await time.sleep(for: .milliseconds(200)) } catch { return }
      }
      do { try await time.sleep(for: period) } catch { return }
      await peripheral.powerOn()
    }
  }

  /// The cloud emulator when `--cloud` asked for it.
  private func makeCloud() throws -> CloudEmulator? {
    guard cloud else { return nil }
    do {
      return try CloudEmulator(host: "127.0.0.1", port: cloudPort)
    } catch {
      throw CommandFailure(.unavailable, "cannot listen on 127.0.0.1:\(cloudPort): \(error)")
    }
  }

  /// The cloud emulator made ready: the new firmware published, a user token written to
  /// `--cloud-token-file`, its URL printed as `cloud URL`.
  private func announce(_ server: CloudEmulator, image: [UInt8]?) throws {
    if let image, let newFirmware {
      let type = CloudEmulator.deviceType(configuration.serial)
      server.publishFirmware(
        type: type, version: newFirmware, image: image,
        publishesDigests: cloudFirmwareMD5 ?? (type != Self.typeWithoutMD5))
    }
    // Accounts the device was bound to, then unbound in the cloud (its lock may remain).
    for user in cloudBindHistory {
      server.setBinding(serial: configuration.serial, userID: "client_user_" + user)
    }
    if !cloudBindHistory.isEmpty { server.setBinding(serial: configuration.serial, userID: nil) }
    if let cloudTokenFile {
      let jwt = server.issueToken(userID: cloudUser)
      guard
        FileManager.default.createFile(
          atPath: cloudTokenFile, contents: Data((jwt + "\n").utf8),
          attributes: [.posixPermissions: 0o600])
      else {
        throw CommandFailure(.ioError, "cannot write \(cloudTokenFile)")
      }
    }
    print("cloud \(server.url)")
  }

  /// The device token of the cloud emulator's tokens for `user` (PROTOCOL.md §8: `sub` is
  /// `client_user_<user>`; the token drops the prefix and every `-`).
  static func derivedToken(user: String) -> String { user.filter { $0 != "-" } }

  /// Installs SIGINT and SIGTERM handlers that remove `directory` and exit 0.
  private static func removeOnTermination(_ directory: String) -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        try? FileManager.default.removeItem(atPath: directory)
        exit(0)
      }
      source.resume()
      return source
    }
  }

  /// Writes the manifest at start and after every DELETE; otherwise just keeps running.
  private func keepManifest(_ device: EmulatedDevice) async throws {
    var written = -1
    var recordings: [RecordingInfo] = []
    if manifest != nil { recordings = (try? await device.recordings(includingDigests: true)) ?? [] }
    var writtenConnections = -1
    var writtenDepairs = -1
    var writtenWiFi = -1
    var writtenClearHandshakes = -1
    while true {
      if let manifest {
        let deletes = await device.deleteLog
        let counters = await device.counters
        let wifi = await device.wifiControlLog
        if deletes.count != written || counters.connections != writtenConnections
          || counters.depairs != writtenDepairs || wifi.count != writtenWiFi
          || counters.clearHandshakes != writtenClearHandshakes
        {
          try writeManifest(
            manifest, recordings: recordings, deletes: deletes, counters: counters, wifi: wifi)
          written = deletes.count
          writtenConnections = counters.connections
          writtenDepairs = counters.depairs
          writtenWiFi = wifi.count
          writtenClearHandshakes = counters.clearHandshakes
        }
      }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  private func writeManifest(
    _ path: String, recordings: [RecordingInfo], deletes: [DeleteRecord], counters: DeviceCounters,
    wifi: [WiFiControlRecord]
  ) throws {
    let document = JSONValue.object([
      ("serial", .string(configuration.serial)),
      (
        "recordings",
        .array(
          recordings.map {
            .object([
              ("sessionId", .int(Int64($0.sessionId.rawValue))), ("size", .int(Int64($0.size))),
              ("sha256", .string($0.sha256 ?? "")),
            ])
          })
      ),
      (
        "deletes",
        .array(
          deletes.map {
            .object([
              ("sessionId", .int(Int64($0.sessionId.rawValue))),
              ("virtualSeconds", .double($0.virtualTime.seconds)),
              ("unixTime", .int(Int64($0.unixTime))),
            ])
          })
      ),
      // As of the last write (at start, each connection and each DELETE).
      ("connections", .int(Int64(counters.connections))),
      ("dataBytesSent", .int(Int64(counters.dataBytesSent))),
      // Recording bytes the device's Wi-Fi server sent (its HTTP/WebSocket content).
      ("wifiContentBytesSent", .int(Int64(counters.wifiContentBytesSent))),
      ("depairs", .int(Int64(counters.depairs))),
      ("depairsClearing", .int(Int64(counters.depairsClearing))),
      ("wifiJoinsRefused", .int(Int64(counters.wifiJoinsRefused))),
      ("wifiJoinsWhileActive", .int(Int64(counters.wifiJoinsWhileActive))),
      // Mode B: plain HANDSHAKEs (a token in clear) received before the channel was open.
      ("clearHandshakes", .int(Int64(counters.clearHandshakes))),
      // The most data bytes one OTA `03` frame carried (PROTOCOL.md §7: 80, or 160 on 881).
      ("largestFirmwareFrame", .int(Int64(counters.largestFirmwareFrame))),
      // OTA frames lost for arriving sooner than --ota-min-frame-interval-ms.
      ("firmwareFramesLost", .int(Int64(counters.firmwareFramesLost))),
      // Device time (ms) from the first to the last OTA frame of the latest push.
      (
        "firmwareFrameSpanMs",
        .int(
          counters.firmwareFrameSpan.components.seconds * 1000
            + counters.firmwareFrameSpan.components.attoseconds / 1_000_000_000_000_000)
      ),
      // CAPABILITY (PROTOCOL.md §3.1): bitmaps pushed, `FF` answers, other answers.
      ("capabilityPushes", .int(Int64(counters.capabilityPushes))),
      ("capabilityAnswers", .int(Int64(counters.capabilityAnswers))),
      ("capabilityWrongAnswers", .int(Int64(counters.capabilityWrongAnswers))),
      // WIFI_OPEN granted, BLE dropped for Wi-Fi, WIFI_CLOSE, idle close: in order, each with
      // the BLE connection (from 1) it happened on.
      (
        "wifi",
        .array(
          wifi.map {
            .object([
              ("event", .string($0.kind.rawValue)), ("connection", .int(Int64($0.connection))),
              ("hotspotWasUp", .bool($0.hotspotWasUp)),
            ])
          })
      ),
    ])
    let temporary = path + ".tmp"
    do {
      try Data(document.serialized.utf8).write(to: URL(fileURLWithPath: temporary))
      _ = rename(temporary, path)
    } catch {
      throw CommandFailure(.ioError, "cannot write the manifest \(path): \(error)")
    }
  }
}
