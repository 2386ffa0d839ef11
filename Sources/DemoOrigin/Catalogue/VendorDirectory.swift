import Foundation
import HTTPInterface

/// The configured vendors, looked up by the `identifier` header of a v2/v2b write or by the
/// `vendor_id` of a product.
struct VendorDirectory: Sendable {
    /// When every vendor registered (the v2 detail's `vendors.created_at` and `issued_at`):
    /// 2021-01-01T00:00:00 in Asia/Seoul.
    static let registeredAt: Decimal = 1_609_426_800

    let vendors: [DemoVendor]

    func vendor(id: Int64) -> DemoVendor? {
        vendors.first { $0.id == id }
    }

    /// The vendor's name, or `vendor{id}` for an id no configured vendor has (a data file may
    /// name any).
    func name(of id: Int64) -> String {
        vendor(id: id)?.name ?? "vendor\(id)"
    }

    /// The vendor the request's `identifier` header names.
    /// - Throws: ``V2Failure/identifierRequired`` (400) when the header is missing or empty,
    ///   ``V2Failure/unknownIdentifier`` (401) when no vendor has it.
    func authenticate(_ request: GatewayRequest) throws(V2Failure) -> DemoVendor {
        guard let identifier = request.headers["identifier"]?.trimmingCharacters(in: .whitespaces), !identifier.isEmpty else {
            throw .identifierRequired
        }
        guard let vendor = vendors.first(where: { $0.identifier == identifier }) else { throw .unknownIdentifier }
        return vendor
    }

    /// Checks the `secret` a write sent against the authenticated vendor's.
    /// - Throws: ``V2Failure/secretMismatch`` (400).
    static func check(secret: String, of vendor: DemoVendor) throws(V2Failure) {
        guard secret == vendor.secret else { throw .secretMismatch }
    }
}
