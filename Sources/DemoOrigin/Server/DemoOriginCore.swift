import Foundation
import GatewayModels
import GatewaySupport

/// What the demo origin's routes share and what survives a stop and resume: the catalogue,
/// the image cache, the counters, the fault switches, the seed, the base URL, the vendors
/// and the v2/v2b delete tokens. Thread-safe.
final class DemoOriginCore: Sendable {
    let configuration: DemoOriginConfiguration
    let catalogue = Catalogue()
    let images = ImageStore()
    let counter = RequestCounter()
    let faults: FaultInjector
    let address = BaseAddress()
    let vendors: VendorDirectory
    let deleteTokens = DeleteTokens()
    /// The items a reset goes back to: the built-in seed or the data file.
    private let seed = Locked<[DemoItem]>([])

    init(configuration: DemoOriginConfiguration) {
        self.configuration = configuration
        faults = FaultInjector(faults: configuration.faults, seed: configuration.seed)
        vendors = VendorDirectory(vendors: configuration.vendors)
    }

    /// Sets the items a reset goes back to, and the catalogue to them.
    func seed(with items: [DemoItem]) {
        seed.withLock { $0 = items }
        catalogue.replace(with: items)
        // The photo-sized pictures take a moment each to draw: drawn now, off the loop, on a
        // thread of their own. Not on Dispatch's global queues: their few threads (as many as
        // cores) are what the gateway's short jobs (write decoding, large gzip) run on, and
        // seconds of drawing there delayed a write in the same process by as long.
        let thread = Thread { [images, catalogue] in images.warm(catalogue) }
        thread.name = "demo-origin-photos"
        thread.start()
    }

    /// Catalogue to its seed, counters to zero, faults to the configured ones, the fault
    /// generator to its seed, no delete tokens and no token override.
    func reset() {
        catalogue.replace(with: seed.withLock { $0 })
        deleteTokens.reset()
        counter.reset()
        faults.reset(faults: configuration.faults, seed: configuration.seed)
    }
}
