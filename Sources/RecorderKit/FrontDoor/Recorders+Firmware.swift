extension Recorders {
  /// A firmware updater for the recorder behind `connection`: it installs over that session
  /// and reconnects through the same radio, with the same token, across the device's
  /// restart. Run ``FirmwareUpdater/install(_:to:session:)`` with a checked file, or
  /// ``FirmwareUpdater/update(using:downloadingInto:session:)`` with the cloud, passing
  /// `connection.session`; close the result's session, then `connection`.
  public func firmwareUpdater(
    for connection: RecorderConnection,
    configuration: FirmwareUpdater.Configuration = FirmwareUpdater.Configuration()
  ) async -> FirmwareUpdater {
    FirmwareUpdater(
      central: connection.central, serial: await connection.session.info.serial,
      sessionConfiguration: connection.sessionConfiguration, configuration: configuration)
  }
}
