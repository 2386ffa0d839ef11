/// The contract as it was before `include=placeholders` (issue 27): `openapi.yaml` here is a
/// frozen copy, never edited, and the generated `Client` and `Components` are what an app
/// built then carries. `ProductSummary` and `ProductDetail` are closed
/// (`additionalProperties: false`), so its decoders refuse any member they do not know: the
/// tests use it to show that answers asked without `include` never carry one.
public enum BeforePlaceholders {
    /// The commit whose parent's `openapi.yaml` this is.
    public static let frozenBefore = "ba0e6cf"
}
