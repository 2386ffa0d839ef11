import GatewayModels
import HTTPInterface
import Routing

/// `/__admin/`: the test and benchmark controls. Never counted, never faulted.
///
/// - `GET /__admin/faults` → the fault settings, `{"latencyMs","errorRate","dropRate","lostAnswerRate","down"}`.
/// - `PUT /__admin/faults` with a JSON object of any of those members → the new settings
///   (400 `{"error":true,"reason":…}` for an unknown member or a value out of range).
/// - `GET /__admin/counts` → `{"total","routes":{…},"paths":{…}}`; `DELETE` zeroes them.
/// - `POST /__admin/reset` → catalogue back to its seed (or data file), counters zeroed,
///   faults and their generator back to the start-up settings; answers 204.
/// - `GET /__admin/catalogue` → every item in the data-file format (see ``DataFile``).
extension DemoRoutes {
    func addAdminRoutes(to router: inout Router) {
        router.add(.get, "/__admin/faults", .immediate { [core] _, _ in .json(core.faults.faults.json) })
        router.add(.put, "/__admin/faults", .immediate { [core] request, _ in
            do throws(DemoFaultsError) {
                let updated = try core.faults.faults.applying(json: request.body)
                core.faults.faults = updated
                return .json(updated.json)
            } catch {
                return V1Failure.badRequest(error.description).response
            }
        })
        router.add(.get, "/__admin/counts", .immediate { [core] _, _ in .json(core.counter.snapshot.json) })
        router.add(.delete, "/__admin/counts", .immediate { [core] _, _ in
            core.counter.reset()
            return GatewayResponse(status: 204)
        })
        router.add(.post, "/__admin/reset", .immediate { [core] _, _ in
            core.reset()
            return GatewayResponse(status: 204)
        })
        router.add(.get, "/__admin/catalogue", .immediate { [core] _, _ in .json(DataFile.encode(core.catalogue.all)) })
    }
}
