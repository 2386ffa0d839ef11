extension String {
    var bytes: [UInt8] { Array(utf8) }
}
