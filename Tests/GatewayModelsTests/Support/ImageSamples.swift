import Foundation

/// The smallest byte strings that pass the magic-number checks.
let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46]

func base64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
