/// Rewrites one origin image URL into the URL clients get (the images feature signs them into
/// `/v1/images/{token}`). Called once per thumbnail and per image, on the mapping's thread, so
/// it must be cheap and thread-safe. The default, ``identityImageURL``, keeps the origin URL.
public typealias ImageURLRewriter = @Sendable (String) -> String

/// Keeps each origin image URL as it is.
public let identityImageURL: ImageURLRewriter = { $0 }
