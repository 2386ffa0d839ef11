/// The version of the client contract, as `openapi.yaml`'s `info.version` gives it (a test
/// keeps the two equal). Shared caches name their entries with it, so replicas of two
/// contract versions never serve each other's pages.
public enum ContractVersion {
    public static let current = "1.0.0"
}
