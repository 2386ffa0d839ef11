import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The entry point for apps: the generated ``Client`` (one method per operation of
/// `openapi.yaml`) on the URLSession transport, in swift-openapi-runtime's default
/// configuration, with two middlewares: header parameters sent as written
/// (``RawHeaderParametersMiddleware``) and the device's languages as `Accept-Language`
/// (``AcceptLanguageMiddleware``).
public enum OpenMarket {
    /// A client of the gateway at `serverURL` (its base, e.g. `https://api.example.com`).
    ///
    /// - Parameters:
    ///   - session: the session requests go through (its cache, timeouts, cookies).
    ///   - preferredLanguages: BCP 47 tags, most preferred first; ``appLanguages`` by default.
    ///     They become the `Accept-Language` of every request that does not set one itself,
    ///     which picks the locale of the answers' `display` strings. (URLSession's own default
    ///     differs by system: Linux's sends `en`.)
    /// - Returns: a client that is `Sendable` and can be kept for the app's lifetime.
    public static func client(
        serverURL: URL,
        session: URLSession = .shared,
        preferredLanguages: [String] = appLanguages
    ) -> Client {
        Client(
            serverURL: serverURL,
            configuration: Configuration(),
            transport: URLSessionTransport(configuration: .init(session: session)),
            middlewares: [RawHeaderParametersMiddleware(), AcceptLanguageMiddleware(preferredLanguages: preferredLanguages)]
        )
    }

    /// The languages the app's own text is shown in (`Bundle.main.preferredLocalizations`),
    /// without Xcode's `Base`, then the user's (`Locale.preferredLanguages`): prices and stock labels come in the
    /// language of the screen around them, even when the user's first language is one the app
    /// is not translated into.
    public static var appLanguages: [String] {
        Bundle.main.preferredLocalizations.filter { $0 != "Base" } + Locale.preferredLanguages
    }
}
