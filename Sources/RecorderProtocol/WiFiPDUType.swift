/// The §6 PDU type numbers [sdk]. Some numbers mean one thing from the device and another
/// from the phone (1: handshake result / handshake; 12: SYNC status / SYNC request), so these
/// are plain constants and the direction picks the meaning.
public enum WiFiPDUType {
  /// Device: ERR `{cmd,status}`.
  public static let error: UInt16 = 0
  /// Device: handshake result `{status}`; phone: handshake `{token,stamp}`.
  public static let handshake: UInt16 = 1
  /// Device: HELLO `{token,pVer}`, the first PDU of a connection.
  public static let hello: UInt16 = 2
  /// Device: PING `{volume,voltage,charging}`; phone: PONG `{}`.
  public static let ping: UInt16 = 3
  /// Device: CLOSE `{status}`.
  public static let close: UInt16 = 4
  /// Device: TIPS `{tips}`.
  public static let tips: UInt16 = 5
  /// Device: LIST page `{uid,status,count,offset}` + entries; phone: `{uid,start,single}`.
  public static let list: UInt16 = 11
  /// Device: SYNC status `{session,status}`; phone: SYNC `{session,scene,start,end}`.
  public static let sync: UInt16 = 12
  /// Device: content `{session,offset,length,last}` + data.
  public static let content: UInt16 = 13
  /// Device: DELETE result `{session,status}`; phone: DELETE `{session,scene}`.
  public static let delete: UInt16 = 14
  /// Device: STOP result `{status}`; phone: STOP `{}` [project: the body is not documented].
  public static let stop: UInt16 = 15
  /// Device: EXTEND_EXIT_TIME `{status}`; phone: keep-alive `{}`.
  public static let keepAlive: UInt16 = 16
  /// Phone: OTA start `{filesize,ver,crc,uid}`.
  public static let otaStart: UInt16 = 20
  /// Device: OTA request `{start,end,payload_size,uid,send_rate_pps}`; phone: OTA data
  /// `{start,len,last,uid}` + data.
  public static let otaData: UInt16 = 21
  /// Device: OTA result `{status,uid}`.
  public static let otaResult: UInt16 = 22
}

/// One recording in a Wi-Fi LIST page: a 10-byte entry, little-endian [sdk].
public struct WiFiListEntry: Sendable, Equatable, Hashable {
  /// Encoded size of one entry.
  public static let size = 10
  /// The recording's id (its start time in unix seconds).
  public var sessionId: SessionID
  /// The recording's size in bytes.
  public var size: UInt32
  /// The recording's scene; SYNC and DELETE must repeat it or the device refuses [sdk].
  public var scene: UInt16

  /// An entry; the scene defaults to 1, the device's default [sdk].
  public init(sessionId: SessionID, size: UInt32, scene: UInt16 = 1) {
    self.sessionId = sessionId
    self.size = size
    self.scene = scene
  }
}

/// A LIST page from the device.
public struct WiFiListPage: Sendable, Equatable {
  /// The request's `uid`, echoed.
  public var uid: Int64
  /// 0 when the listing worked.
  public var status: Int64
  /// The number of recordings on the device.
  public var count: Int64
  /// Where this page starts in the listing.
  public var offset: Int64
  /// This page's recordings.
  public var entries: [WiFiListEntry]

  /// A page.
  public init(uid: Int64, status: Int64 = 0, count: Int64, offset: Int64, entries: [WiFiListEntry])
  {
    self.uid = uid
    self.status = status
    self.count = count
    self.offset = offset
    self.entries = entries
  }
}

/// A content PDU: bytes `[offset, offset + data.count)` of recording `session`.
public struct WiFiContent: Sendable, Equatable {
  /// The recording.
  public var session: SessionID
  /// Where `data` starts in the recording.
  public var offset: UInt32
  /// True on the last chunk of the requested range.
  public var last: Bool
  /// The bytes; `length` on the wire is their count.
  public var data: [UInt8]

  /// A chunk.
  public init(session: SessionID, offset: UInt32, last: Bool, data: [UInt8]) {
    self.session = session
    self.offset = offset
    self.last = last
    self.data = data
  }
}
