/// Why a data file could not be used.
public struct DataFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
}
