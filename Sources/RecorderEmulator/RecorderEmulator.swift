import RecorderLink
import RecorderProtocol

/// The emulated device. Arrives with ground floor 2.
public enum RecorderEmulatorInfo {}
