import RecorderKit

/// The vendor-identical facade over RecorderKit. Arrives with the facade issue; this
/// namespace exists so the package layout of shared/DESIGN.md builds from the start.
public enum PlaudDeviceBasicSDK {}
