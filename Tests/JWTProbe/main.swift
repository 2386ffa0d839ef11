// The gateway's bearer token verifier for the differential test (Tests/Differential/jwt_compare.py):
// JSON lines on stdin, one answer per line on stdout, in order.
//   {"jwks": "key set JSON", "issuer": "...", "audiences": [...], "algorithms": [...], "skew": 60}
//       -> {"keys": n, "skipped": [...]}   (or {"error": "..."}): the set and policy for what follows
//   {"token": "...", "now": seconds}  ->  {"sub": "...", "exp": n}  or  {"error": "reason"}
import Authentication
import Foundation

/// The key set and policy the last `jwks` line set.
struct Setup {
    var keys: JSONWebKeySet?
    var policy: TokenPolicy?
}

func answer(_ line: String, _ setup: inout Setup) -> [String: Any] {
    guard let request = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return ["error": "unreadable request"] }
    if let set = request["jwks"] as? String {
        do {
            let read = try JSONWebKeySet.read(Array(set.utf8))
            let algorithms = try SigningAlgorithm.list(request["algorithms"] as? [String] ?? [])
            setup.keys = read
            setup.policy = TokenPolicy(
                issuer: request["issuer"] as? String ?? "", audiences: request["audiences"] as? [String] ?? [], algorithms: algorithms,
                clockSkew: Int64(request["skew"] as? Int ?? 60))
            return ["keys": read.keys.count, "skipped": read.skipped]
        } catch {
            return ["error": "\(error)"]
        }
    }
    guard let token = request["token"] as? String, let now = request["now"] as? Int else { return ["error": "no token or now"] }
    guard let keys = setup.keys, let policy = setup.policy else { return ["error": "no key set yet"] }
    do {
        let verified = try TokenVerifier.verify(Array(token.utf8), keys: keys, policy: policy, now: Int64(now))
        return ["sub": verified.subject, "exp": verified.expiresAt]
    } catch {
        return ["error": error.reason]
    }
}

var setup = Setup()
while let line = readLine() {
    let data = try! JSONSerialization.data(withJSONObject: answer(line, &setup), options: [.sortedKeys])
    print(String(decoding: data, as: UTF8.self))
}
