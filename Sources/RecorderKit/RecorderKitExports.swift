// The values an app names beside RecorderKit's own types, re-exported one by one so that
// `import RecorderKit` is the only import the main flows need: the radio boundary a front
// door is given, the clock every wait takes, the device's identifiers and recordings, the
// export formats, and the journal a sync engine writes.

@_exported import enum RecorderAudio.AudioExporter
@_exported import enum RecorderAudio.ExportFormat
@_exported import struct RecorderAudio.ExportOptions
@_exported import protocol RecorderBluetooth.Central
@_exported import enum RecorderBluetooth.CentralState
@_exported import struct RecorderConcurrency.AnyClock
@_exported import enum RecorderCrypto.FileDigest
@_exported import struct RecorderProtocol.BulkFrame
@_exported import struct RecorderProtocol.DeviceToken
@_exported import struct RecorderProtocol.FirmwareVersion
// The device's events and transfer pieces that RecorderKit's own API carries.
@_exported import struct RecorderProtocol.RecordStarted
@_exported import struct RecorderProtocol.RecordStopped
@_exported import struct RecorderProtocol.SessionID
@_exported import struct RecorderProtocol.SyncTail
@_exported import class RecorderStore.Journal
@_exported import enum RecorderStore.RecordingStage
