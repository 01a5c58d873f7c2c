import RecorderProtocol

/// The radio boundary. Arrives with ground floor 2.
public enum RecorderLinkInfo {}
