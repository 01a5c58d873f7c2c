import RecorderProtocol

/// The stages of a firmware update, in order (the vendor's `PlaudFirmwarePhase`).
public enum FirmwarePhase: Int, Sendable, CaseIterable {
  /// The image is being downloaded.
  case downloading = 0
  /// The image is being pushed to the device and checked there.
  case installing = 1
  /// The device restarts into the new firmware; the SDK reconnects.
  case restarting = 2
  /// The device runs the new version.
  case complete = 3
}

/// What the device said during the push (PROTOCOL.md §7).
public enum FirmwareDeviceEvent: Sendable, Equatable {
  /// PACK_REQ: the device asks for bytes `[start, end)` of the image.
  case packRequested(start: Int, end: Int)
  /// FOTA_DONE from the device, with its status (2: it is checking the image).
  case packFinished(status: UInt8)
}

/// Where an update is: its phase and that phase's fraction done, 0.0–1.0.
public struct FirmwareProgress: Sendable, Equatable {
  public var phase: FirmwarePhase
  public var fraction: Double
  /// Bytes done in the phase (downloaded or pushed), and of how many (0 when unknown).
  public var bytes: Int64
  public var total: Int64
  /// Set when this step reports what the device said (the fraction is then the last one
  /// reported); nil for a plain progress step.
  public var deviceEvent: FirmwareDeviceEvent?

  package init(
    phase: FirmwarePhase, fraction: Double, bytes: Int64 = 0, total: Int64 = 0,
    deviceEvent: FirmwareDeviceEvent? = nil
  ) {
    self.phase = phase
    self.fraction = min(1, max(0, fraction))
    self.bytes = bytes
    self.total = total
    self.deviceEvent = deviceEvent
  }
}
