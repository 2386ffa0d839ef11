import Foundation

/// How many CPUs this process may use, for the default number of loops and image workers:
/// the CPUs its affinity mask allows (`taskset`, a container's cpuset), lowered to a cgroup CPU
/// quota rounded up (`docker run --cpus 1.5` → 2; cgroup v2 `cpu.max`, or v1
/// `cpu.cfs_quota_us` / `cpu.cfs_period_us`). Foundation's `activeProcessorCount` counts the
/// machine's CPUs, so a gateway pinned to one core, or in a container limited to one CPU on a
/// 32-core host, would otherwise start 32 loops and 32 renders at once on that one CPU.
/// Read once at start, from `/proc` and `/sys/fs/cgroup`.
enum ProcessorBudget {
    static func count() -> Int {
        let online = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let allowed = read("/proc/self/status").flatMap(allowedCPUs(status:)) ?? online
        let quota = cgroupQuota() ?? allowed
        return max(1, min(online, allowed, quota))
    }

    /// The number of CPUs in `Cpus_allowed:` of `/proc/self/status` (a hex mask in groups of
    /// 32 bits separated by commas); nil when absent or unreadable.
    static func allowedCPUs(status: String) -> Int? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        let mask = line.dropFirst("Cpus_allowed:".count).trimmingCharacters(in: .whitespaces)
        var count = 0
        for group in mask.split(separator: ",") {
            guard let bits = UInt64(group, radix: 16) else { return nil }
            count += bits.nonzeroBitCount
        }
        return count > 0 ? count : nil
    }

    /// CPUs allowed by a cgroup v2 `cpu.max` (`150000 100000` → 2; `max 100000` → nil).
    static func quota(cpuMax: String) -> Int? {
        let fields = cpuMax.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, let quota = Int(fields[0]), let period = Int(fields[1]) else { return nil }
        return cpus(quota: quota, period: period)
    }

    /// CPUs allowed by cgroup v1's `cpu.cfs_quota_us` and `cpu.cfs_period_us` (`-1`: none).
    static func quota(cfsQuota: String, cfsPeriod: String) -> Int? {
        guard let quota = Int(cfsQuota.trimmingCharacters(in: .whitespacesAndNewlines)),
            let period = Int(cfsPeriod.trimmingCharacters(in: .whitespacesAndNewlines))
        else { return nil }
        return cpus(quota: quota, period: period)
    }

    private static func cpus(quota: Int, period: Int) -> Int? {
        guard quota > 0, period > 0 else { return nil }
        return max(1, (quota + period - 1) / period)
    }

    /// The quota of the process's own cgroup (the path `/proc/self/cgroup` names, or the root
    /// of the cgroup namespace, which is the container's), v2 then v1.
    private static func cgroupQuota() -> Int? {
        let groups = read("/proc/self/cgroup") ?? ""
        var v2Paths = ["/sys/fs/cgroup/cpu.max"]
        var v1Directories = ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"]
        for line in groups.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count == 3, parts[2] != "/" else { continue }
            if parts[0] == "0" {
                v2Paths.insert("/sys/fs/cgroup\(parts[2])/cpu.max", at: 0)
            } else if parts[1].split(separator: ",").contains("cpu") {
                v1Directories.insert(contentsOf: ["/sys/fs/cgroup/cpu\(parts[2])", "/sys/fs/cgroup/cpu,cpuacct\(parts[2])"], at: 0)
            }
        }
        for path in v2Paths {
            if let text = read(path) { return quota(cpuMax: text) }
        }
        for directory in v1Directories {
            if let quotaText = read(directory + "/cpu.cfs_quota_us"), let periodText = read(directory + "/cpu.cfs_period_us") {
                return quota(cfsQuota: quotaText, cfsPeriod: periodText)
            }
        }
        return nil
    }

    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
