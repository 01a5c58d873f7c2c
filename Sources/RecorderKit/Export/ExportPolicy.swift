/// When a sync converts the recordings it stored into the export format.
///
/// Converting is most of a sync's CPU: an hour of audio costs about 13.5 s to encode as mp3,
/// against about 2.3 s to move it over BLE and store it. A sync that runs on battery in the
/// background can leave the conversion for later, when the phone is on external power.
/// Either way nothing is deleted from the device until the raw copy is stored, verified
/// and journaled; the raw copy is never removed by a conversion.
public enum ExportPolicy: String, Sendable, Equatable, CaseIterable {
  /// Convert each recording as soon as it is stored, one file behind the transfers. The
  /// device copy is deleted once the export is in place.
  case convertImmediately
  /// Keep the verified raw copy, journal the conversion as owed
  /// (``SyncWorkspace/pendingConversions()``), delete the device copy as usual, and convert
  /// later: when the app calls ``SyncWorkspace/convertPending(shouldStop:converted:)``, or in
  /// a processing task that requires external power (``ConversionProcessor``). The owed
  /// conversions survive the app being killed; each is made once.
  case deferConversion
}
