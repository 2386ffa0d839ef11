@testable import Gateway
import Testing

/// The CPUs the process may use, from what `/proc` and the cgroup files say.
@Suite struct ProcessorBudgetTests {
    @Test func theAffinityMaskIsCounted() {
        let status = "Name:\tgateway\nCpus_allowed:\tff,00000003\nCpus_allowed_list:\t0-1,32-39\nMems_allowed:\t1\n"
        #expect(ProcessorBudget.allowedCPUs(status: status) == 10)
        #expect(ProcessorBudget.allowedCPUs(status: "Cpus_allowed:\t1\n") == 1)
        #expect(ProcessorBudget.allowedCPUs(status: "Cpus_allowed:\t0\n") == nil)
        #expect(ProcessorBudget.allowedCPUs(status: "Cpus_allowed:\txyz\n") == nil)
        #expect(ProcessorBudget.allowedCPUs(status: "Name:\tgateway\n") == nil)
    }

    /// A quota is rounded up to whole CPUs (`--cpus 1.5` → 2); no quota is no limit.
    @Test func cgroupQuotasAreRoundedUp() {
        #expect(ProcessorBudget.quota(cpuMax: "150000 100000\n") == 2)
        #expect(ProcessorBudget.quota(cpuMax: "100000 100000") == 1)
        #expect(ProcessorBudget.quota(cpuMax: "50000 100000") == 1)
        #expect(ProcessorBudget.quota(cpuMax: "max 100000\n") == nil)
        #expect(ProcessorBudget.quota(cpuMax: "") == nil)
        #expect(ProcessorBudget.quota(cfsQuota: "400000\n", cfsPeriod: "100000\n") == 4)
        #expect(ProcessorBudget.quota(cfsQuota: "-1\n", cfsPeriod: "100000\n") == nil)
    }
}
